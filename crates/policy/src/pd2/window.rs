//! Exact Pfair window arithmetic for one task of weight e/p (in quanta):
//! subtask windows, successor bits and group deadlines (Calandrino 2009
//! §2.2, after Anderson & Srinivasan). Everything is integer arithmetic —
//! ⌊(i−1)·p/e⌋, ⌈i·p/e⌉ — never 1/u in floating point: with u = 0.6,
//! 5·(1 − 0.6) = 2.0000000000000004 and the ceiling of it gives a wrong
//! group deadline.
//!
//! Subtasks are numbered from 1 over the task's whole life: job k (0-based)
//! holds subtasks k·e + 1 … (k + 1)·e. The values here are for a periodic
//! task released at 0; an intra-sporadic shift θ is added by the caller.

/// A group deadline that never comes: the group deadline of a weight-1 task
/// (see [`Weight::group_deadline`]).
pub(crate) const NEVER: u64 = u64::MAX;

/// A task's weight: `e` quanta of execution every `p` quanta, 1 ≤ e ≤ p.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Weight {
    pub e: u64,
    pub p: u64,
}

/// ⌊a·b/c⌋ (c > 0), saturating at `u64::MAX`.
#[inline]
fn mul_div_floor(a: u64, b: u64, c: u64) -> u64 {
    match a.checked_mul(b) {
        Some(x) => x / c,
        None => u64::try_from(a as u128 * b as u128 / c as u128).unwrap_or(u64::MAX),
    }
}

/// ⌈a·b/c⌉ (c > 0), saturating at `u64::MAX`.
#[inline]
fn mul_div_ceil(a: u64, b: u64, c: u64) -> u64 {
    match a.checked_mul(b) {
        Some(x) => x.div_ceil(c),
        None => u64::try_from((a as u128 * b as u128).div_ceil(c as u128)).unwrap_or(u64::MAX),
    }
}

impl Weight {
    pub fn new(e: u64, p: u64) -> Weight {
        debug_assert!(1 <= e && e <= p, "weight {e}/{p}");
        Weight { e, p }
    }

    /// Pseudo-release r(T_i) = ⌊(i − 1)/u⌋ = ⌊(i − 1)·p/e⌋ (formula 2.6),
    /// the first quantum of the window; i ≥ 1.
    #[inline]
    pub fn release(self, i: u64) -> u64 {
        mul_div_floor(i - 1, self.p, self.e)
    }

    /// Pseudo-deadline d(T_i) = ⌈i/u⌉ = ⌈i·p/e⌉ (formula 2.7): the window
    /// is [r, d), the subtask must run in one of its quanta.
    #[inline]
    pub fn deadline(self, i: u64) -> u64 {
        mul_div_ceil(i, self.p, self.e)
    }

    /// Successor bit b(T_i) = ⌈i·p/e⌉ − ⌊i·p/e⌋ (formula 2.8): 1 iff the
    /// window of T_i overlaps that of T_{i+1}, i.e. iff e does not divide i·p.
    #[inline]
    pub fn b(self, i: u64) -> bool {
        match i.checked_mul(self.p) {
            Some(x) => !x.is_multiple_of(self.e),
            None => !(i as u128 * self.p as u128).is_multiple_of(self.e as u128),
        }
    }

    /// (d(T_i), b(T_i)) from one division.
    #[inline]
    pub fn deadline_and_b(self, i: u64) -> (u64, bool) {
        match i.checked_mul(self.p) {
            Some(x) => (x / self.e + u64::from(x % self.e != 0), x % self.e != 0),
            None => (self.deadline(i), self.b(i)),
        }
    }

    /// Heavy: u ≥ 1/2. Only heavy tasks have a group deadline.
    #[inline]
    pub fn heavy(self) -> bool {
        2 * self.e as u128 >= self.p as u128
    }

    /// D(T_i), see [`Weight::group_deadline_after`].
    #[cfg(test)]
    pub fn group_deadline(self, i: u64) -> u64 {
        self.group_deadline_after(self.deadline(i))
    }

    /// The group deadline D (formula 2.9) of the subtask whose deadline is
    /// `d`: 0 for a light task (u < 1/2); for a heavy task with u < 1,
    /// ⌈⌈d·(1 − u)⌉ / (1 − u)⌉, that is ⌈c·p/(p − e)⌉ with c = ⌈d·(p − e)/p⌉.
    ///
    /// A weight-1 task (e = p) has 1 − u = 0 and the formula divides by
    /// zero. Its windows are single quanta that abut: a subtask scheduled
    /// late pushes every later one late, the cascade never ends, so its
    /// group deadline is taken as +∞ ([`NEVER`]): among subtasks tied on
    /// deadline and successor bit, a weight-1 task's goes first. (Read
    /// literally, the definition the tests walk (`group_deadline_by_walk`)
    /// would give d(T_i), since b = 0 for every subtask of a weight-1 task;
    /// the convention here is the closed form's limit u → 1.)
    #[inline]
    pub fn group_deadline_after(self, d: u64) -> u64 {
        if !self.heavy() {
            return 0;
        }
        if self.e == self.p {
            return NEVER;
        }
        let s = self.p - self.e;
        let c = mul_div_ceil(d, s, self.p);
        mul_div_ceil(c, self.p, s)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The group deadline by its definition (Anderson & Srinivasan): the
    /// earliest time t ≥ d(T_i) such that, for some subtask T_k with k ≥ i,
    /// either t = d(T_k) and b(T_k) = 0, or t + 1 = d(T_k) and T_k's window
    /// has 3 quanta. Walks the windows from T_i on (a heavy task's windows
    /// have 2 or 3 quanta and deadlines strictly increase, so the first
    /// candidate found is the earliest).
    pub(crate) fn group_deadline_by_walk(w: Weight, i: u64) -> u64 {
        if !w.heavy() {
            return 0;
        }
        let di = w.deadline(i);
        let mut k = i;
        loop {
            let (r, d) = (w.release(k), w.deadline(k));
            if d - r == 3 && d > di {
                return d - 1;
            }
            if !w.b(k) {
                return d;
            }
            k += 1;
        }
    }

    #[test]
    fn the_worked_example_e6_p10() {
        // Calandrino 2009 §2.2, Fig. 2.9: e = 6, p = 10, u = 0.6.
        let w = Weight::new(6, 10);
        let windows: Vec<(u64, u64)> = (1..=6).map(|i| (w.release(i), w.deadline(i))).collect();
        assert_eq!(windows, vec![(0, 2), (1, 4), (3, 5), (5, 7), (6, 9), (8, 10)]);
        assert_eq!((w.b(1), w.b(2), w.b(3)), (true, true, false));
        assert_eq!((w.group_deadline(1), w.group_deadline(2), w.group_deadline(3)), (3, 5, 5));
        // Floating point gets group deadlines wrong: with u = 0.8, 1 − u is
        // 0.19999999999999996 and ⌈⌈2 × (1 − u)⌉ / (1 − u)⌉ = ⌈5.000000000000001⌉ = 6,
        // where the exact D(T_1) of e = 4, p = 5 is 5.
        let u = 4.0f64 / 5.0;
        assert_eq!(((2.0 * (1.0 - u)).ceil() / (1.0 - u)).ceil(), 6.0);
        assert_eq!(Weight::new(4, 5).group_deadline(1), 5);
        assert_eq!(group_deadline_by_walk(Weight::new(4, 5), 1), 5);
        // The second job repeats the first, one period later.
        for i in 1..=6 {
            assert_eq!(w.release(i + 6), w.release(i) + 10);
            assert_eq!(w.deadline(i + 6), w.deadline(i) + 10);
            assert_eq!(w.b(i + 6), w.b(i));
            assert_eq!(w.group_deadline(i + 6), w.group_deadline(i) + 10);
        }
    }

    #[test]
    fn closed_form_group_deadline_matches_the_definition() {
        // Every heavy weight e/p < 1 with p ≤ 120, over three jobs.
        let mut checked = 0;
        for p in 2..=120u64 {
            for e in p.div_ceil(2)..p {
                let w = Weight::new(e, p);
                assert!(w.heavy());
                for i in 1..=3 * e {
                    assert_eq!(w.group_deadline(i), group_deadline_by_walk(w, i), "e = {e}, p = {p}, i = {i}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 500_000, "{checked}");
    }

    #[test]
    fn light_tasks_have_group_deadline_zero_and_weight_one_never() {
        let w = Weight::new(2, 5);
        assert!(!w.heavy());
        assert!((1..=10).all(|i| w.group_deadline(i) == 0));
        let w = Weight::new(1, 2);
        assert!(w.heavy());
        // u = 1/2: windows [0,2), [2,4), ... with b = 0: D = d.
        assert_eq!((1..=4).map(|i| w.group_deadline(i)).collect::<Vec<_>>(), vec![2, 4, 6, 8]);
        let w = Weight::new(4, 4);
        for i in 1..=8 {
            assert_eq!((w.release(i), w.deadline(i), w.b(i)), (i - 1, i, false));
            assert_eq!(w.group_deadline(i), NEVER);
            // The literal definition would stop at the subtask itself.
            assert_eq!(group_deadline_by_walk(w, i), i);
        }
    }

    #[test]
    fn windows_cover_each_job_exactly() {
        // For every weight: windows are nonempty, ordered, overlap by at most
        // one quantum (b = 1 exactly when they do), the first subtask of job
        // k starts at k·p and its last ends at (k+1)·p.
        for p in 1..=40u64 {
            for e in 1..=p {
                let w = Weight::new(e, p);
                for k in 0..3 {
                    assert_eq!(w.release(k * e + 1), k * p, "e {e} p {p}");
                    assert_eq!(w.deadline((k + 1) * e), (k + 1) * p);
                    assert!(!w.b((k + 1) * e));
                }
                for i in 1..=3 * e {
                    assert!(w.release(i) < w.deadline(i));
                    assert!(w.release(i) <= w.release(i + 1) && w.deadline(i) <= w.deadline(i + 1));
                    let overlap = w.deadline(i) > w.release(i + 1);
                    assert_eq!(overlap, w.b(i), "e {e} p {p} i {i}");
                    assert!(w.deadline(i) - w.release(i + 1).min(w.deadline(i)) <= 1);
                }
            }
        }
    }

    #[test]
    fn deadline_and_b_agree_with_their_formulas() {
        for (e, p) in [(1, 1), (3, 7), (6, 10), (5, 5), (99, 100), (1, 60)] {
            let w = Weight::new(e, p);
            for i in 1..=5 * e {
                assert_eq!(w.deadline_and_b(i), (w.deadline(i), w.b(i)));
            }
        }
        let w = Weight::new(3, u64::MAX / 2);
        assert_eq!(w.deadline_and_b(7), (w.deadline(7), w.b(7)));
    }

    #[test]
    fn large_indices_do_not_overflow() {
        let w = Weight::new(999_999_937, 1_000_000_007);
        let i = u64::MAX / 1_000;
        assert_eq!(w.deadline(i) as u128, (i as u128 * w.p as u128).div_ceil(w.e as u128));
        assert_eq!(w.release(i) as u128, ((i - 1) as u128 * w.p as u128) / w.e as u128);
        assert_eq!(w.b(i), !(i as u128 * w.p as u128).is_multiple_of(w.e as u128));
    }
}
