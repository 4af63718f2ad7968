//! A task's subtask sequence: where its next subtask is, and that subtask's
//! window and priority data, without a division on the hot path.
//!
//! Windows repeat every job: subtask k·e + j (1 ≤ j ≤ e) has the window of
//! subtask j moved k·p quanta later, and so has its group deadline
//! (⌈⌈(d + k·p)(p − e)/p⌉ · p/(p − e)⌉ = D + k·p). So a task's position is
//! kept as (k, j), and the values of one job's subtasks j = 1..e are
//! tabulated once, at construction, when the table is small (see
//! [`TABLE_BUDGET`]); otherwise they are computed from [`Weight`] each time.

use super::window::{Weight, NEVER};

/// Table entries for all tasks together (24 bytes each): tasks beyond the
/// budget, in task order, compute their windows instead.
pub(crate) const TABLE_BUDGET: usize = 1 << 16;

/// Subtask j of the first job: window [r, d), successor bit, group
/// deadline (0 for a light task, [`NEVER`] for a weight-1 task).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Entry {
    pub r: u64,
    pub d: u64,
    pub g: u64,
    pub b: bool,
}

impl Entry {
    pub(crate) fn of(w: Weight, j: u64) -> Entry {
        let (d, b) = w.deadline_and_b(j);
        Entry { r: w.release(j), d, g: w.group_deadline_after(d), b }
    }
}

/// A position in the subtask sequence: subtask k·e + j + 1 (0 ≤ j < e).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Pos {
    /// The job-sized block k.
    pub k: u64,
    /// The index within the block, from 0.
    pub j: u64,
}

impl Pos {
    pub const FIRST: Pos = Pos { k: 0, j: 0 };
    /// The first subtask of job `k`.
    pub fn job(k: u64) -> Pos {
        Pos { k, j: 0 }
    }
    /// The subtask index from 1, as the formulas number them.
    #[cfg(test)]
    pub fn index(self, e: u64) -> u64 {
        self.k.saturating_mul(e).saturating_add(self.j + 1)
    }
}

pub(crate) struct Subtasks {
    pub w: Weight,
    table: Option<Box<[Entry]>>,
}

impl Subtasks {
    /// With a table when `budget` (entries left) allows; returns the
    /// entries used.
    pub fn new(w: Weight, budget: usize) -> (Subtasks, usize) {
        let table = usize::try_from(w.e)
            .ok()
            .filter(|&e| e <= budget)
            .map(|e| (1..=e as u64).map(|j| Entry::of(w, j)).collect::<Box<[Entry]>>());
        let used = table.as_ref().map_or(0, |t| t.len());
        (Subtasks { w, table }, used)
    }

    /// The values of the subtask at `pos`, relative to its block (add k·p
    /// and the shift θ).
    #[inline]
    pub fn entry(&self, pos: Pos) -> Entry {
        match &self.table {
            Some(t) => t[pos.j as usize],
            None => Entry::of(self.w, pos.j + 1),
        }
    }

    /// The position after `pos`.
    #[inline]
    pub fn after(&self, pos: Pos) -> Pos {
        if pos.j + 1 < self.w.e {
            Pos { k: pos.k, j: pos.j + 1 }
        } else {
            Pos { k: pos.k.saturating_add(1), j: 0 }
        }
    }

    /// How far the block of `pos` is moved, plus `theta`, in quanta.
    #[inline]
    pub fn shift(&self, pos: Pos, theta: u64) -> u64 {
        pos.k.saturating_mul(self.w.p).saturating_add(theta)
    }

    /// The absolute pseudo-release of the subtask at `pos`, in quanta.
    #[inline]
    pub fn release(&self, pos: Pos, theta: u64) -> u64 {
        self.entry(pos).r.saturating_add(self.shift(pos, theta))
    }
}

/// The absolute group deadline of an entry moved by `shift`.
#[inline]
pub(crate) fn group_deadline(e: Entry, shift: u64) -> u64 {
    match e.g {
        0 => 0,
        NEVER => NEVER,
        g => g.saturating_add(shift),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tabulated_and_computed_sequences_match_the_formulas() {
        for (e, p) in [(6, 10), (1, 1), (4, 4), (1, 7), (3, 7), (9, 10), (59, 60)] {
            let w = Weight::new(e, p);
            let (with, used) = Subtasks::new(w, 1000);
            assert_eq!(used, e as usize);
            let (without, none) = Subtasks::new(w, 0);
            assert_eq!(none, 0);
            let mut pos = Pos::FIRST;
            for i in 1..=4 * e {
                assert_eq!(pos.index(e), i);
                for s in [&with, &without] {
                    let x = s.entry(pos);
                    let shift = s.shift(pos, 5);
                    assert_eq!(x.r + shift, w.release(i) + 5, "e {e} p {p} i {i}");
                    assert_eq!(x.d + shift, w.deadline(i) + 5);
                    assert_eq!(x.b, w.b(i));
                    let g = w.group_deadline(i);
                    assert_eq!(group_deadline(x, shift), if g == 0 || g == NEVER { g } else { g + 5 });
                    assert_eq!(s.release(pos, 5), w.release(i) + 5);
                }
                pos = with.after(pos);
            }
            assert_eq!(pos, Pos::job(4));
        }
    }
}
