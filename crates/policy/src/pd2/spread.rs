//! PD^2 spread minimisation for multithreaded tasks (Calandrino 2009 §3.2.2,
//! after Anderson, Calandrino & Devi, RTSS 2006): the tasks of an MTT are
//! encouraged to run their i-th subtasks in the same quantum by early
//! releasing subtasks by up to X − 1 quanta, X from Theorem 3.1 ([`x`]).
//!
//! The schedule is (X − 1)-shifted: a subtask whose PD^2 window starts at r
//! is officially released at r + X − 1 (its deadline moves by as much, so a
//! job may finish up to X − 1 quanta after its deadline), and from r on it
//! may be early released. At a boundary t:
//!
//! - **Urgent**: once the first task of an MTT has had its i-th subtask
//!   scheduled, the i-th subtasks of the MTT's other tasks are urgent until
//!   they are scheduled too. An urgent subtask is eligible as soon as its
//!   window has started and its predecessor ran.
//! - **Early-release eligibility** of a non-urgent subtask in
//!   [r, r + X − 1): with 𝒰 the eligible urgent subtasks and ℋ the officially
//!   released non-urgent subtasks that outrank some member of 𝒰, it is
//!   eligible only if |𝒰| + |ℋ| < m and it is one of the m − (|𝒰| + |ℋ|)
//!   highest-priority such early subtasks.
//! - **Priorities**: PD^2's rules; on a tie urgent subtasks first, then the
//!   lower MTT identifier (an MTT's index in `mtt`; a task in no MTT is its
//!   own MTT, numbered after them), then the lower task index.
//!
//! The m highest-priority eligible subtasks run. Aligned quanta only (the
//! admission refuses `stagger`).

use super::key::Key;
use super::subtasks::Pos;
use super::{Pd2, NONE};

/// Theorem 3.1's spread bound X for the largest weight e/p (in lowest
/// terms or not): 3 if u ≤ 1/3, 4 if u ≤ 1/2, else 2·⌈1/(1 − u)⌉ − 1;
/// `None` for u = 1 (no bound).
pub(crate) fn x(e: u64, p: u64) -> Option<u64> {
    let (e, p) = (e as u128, p as u128);
    if 3 * e <= p {
        Some(3)
    } else if 2 * e <= p {
        Some(4)
    } else if e >= p {
        None
    } else {
        u64::try_from(2 * p.div_ceil(p - e) - 1).ok()
    }
}

/// The spread option's state.
pub(crate) struct Spread {
    /// Early release: X − 1 quanta.
    pub er: u64,
    /// Each task's MTT identifier.
    pub group: Vec<u32>,
    /// Per task: the position of its last scheduled subtask (`None` before
    /// any).
    pub last: Vec<Option<Pos>>,
    /// Per MTT identifier: scratch, the furthest position any member has
    /// scheduled.
    ahead: Vec<Option<Pos>>,
    /// Scratch: the candidates of a boundary.
    cand: Vec<Cand>,
}

#[derive(Clone, Copy)]
struct Cand {
    task: u32,
    key: Key,
    urgent: bool,
    /// Officially released (r + X − 1 ≤ t).
    released: bool,
}

impl Spread {
    /// `mtt[i]`: task i's MTT index, if it is in one.
    pub fn new(mtt: &[Option<u32>], er: u64) -> Spread {
        let groups = mtt.iter().flatten().map(|&g| g + 1).max().unwrap_or(0);
        let group: Vec<u32> = mtt.iter().enumerate().map(|(i, g)| g.unwrap_or(groups + i as u32)).collect();
        let ids = group.iter().map(|&g| g as usize + 1).max().unwrap_or(0);
        Spread { er, last: vec![None; group.len()], group, ahead: vec![None; ids], cand: Vec::with_capacity(mtt.len()) }
    }
}

impl Pd2 {
    /// Fills `picked` with the tasks whose subtasks run in the quantum at
    /// `t` (aligned), by the spread rules, in priority order.
    pub(super) fn pick_spread(&mut self, t: u64) {
        let tq = t / self.q;
        let m = self.m as usize;
        let sp = self.spread.as_mut().expect("spread mode");
        sp.ahead.fill(None);
        for (task, last) in sp.last.iter().enumerate() {
            let g = sp.group[task] as usize;
            if last.is_some() && sp.ahead[g] < *last {
                sp.ahead[g] = *last;
            }
        }
        sp.cand.clear();
        for &(key, task) in self.queue.candidates(t, usize::MAX) {
            let ts = &self.tasks[task as usize];
            let urgent = sp.ahead[sp.group[task as usize] as usize].is_some_and(|a| ts.next <= a);
            let released = ts.s.release(ts.next, ts.theta).saturating_add(sp.er) <= tq;
            sp.cand.push(Cand { task, key, urgent, released });
        }
        let group = &sp.group;
        sp.cand.sort_unstable_by_key(|c| (c.key, !c.urgent, group[c.task as usize], c.task));
        // 𝒰, and ℋ: released non-urgent candidates before the last urgent one.
        let last_urgent = sp.cand.iter().rposition(|c| c.urgent);
        let n_urgent = sp.cand.iter().filter(|c| c.urgent).count();
        let n_h = last_urgent.map_or(0, |l| sp.cand[..l].iter().filter(|c| !c.urgent && c.released).count());
        let mut early = m.saturating_sub(n_urgent + n_h);
        self.picked.clear();
        for c in &sp.cand {
            let eligible = c.urgent
                || c.released
                || (early > 0 && {
                    early -= 1;
                    true
                });
            if eligible && self.picked.len() < m {
                self.picked.push(c.task);
            }
        }
    }

    /// Records that `task`'s subtask at `pos` was scheduled.
    pub(super) fn spread_took(&mut self, task: u32, pos: Pos) {
        if let Some(sp) = self.spread.as_mut() {
            debug_assert!(task != NONE);
            sp.last[task as usize] = Some(pos);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// G8 (notes §9.2): X = 3, 4, 7 for u_max = 1/3, 1/2, 3/4 (Table 3.3's
    /// ER = X − 1 = 2, 3, 6).
    #[test]
    fn golden_g8_the_spread_bound() {
        assert_eq!((x(1, 3), x(1, 2), x(3, 4)), (Some(3), Some(4), Some(7)));
        assert_eq!((x(1, 4), x(2, 5), x(3, 5), x(9, 10)), (Some(3), Some(4), Some(5), Some(19)));
        assert_eq!(x(2, 3), Some(5));
        assert_eq!(x(5, 5), None);
    }
}
