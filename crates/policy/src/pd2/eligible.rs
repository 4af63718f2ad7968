//! Which tasks' next subtasks are eligible at a boundary, in priority
//! order: one flat per-task array, scanned at each boundary.
//!
//! Each task with a runnable job has the instant its next subtask becomes
//! eligible and that subtask's priority ([`Key`]); a task whose subtask is
//! eligible already is stored with instant 0. The candidates at a boundary
//! t are the tasks whose instant is at most t. A boundary costs one pass
//! over the n tasks (one integer comparison each) that keeps the most
//! urgent candidates wanted sorted as they come; a task scheduled,
//! released, blocked or resumed costs O(1).
//! With the few tens to hundreds of tasks PD^2 is run with, this is much
//! cheaper than keeping the tasks in two heaps (eligible ones by priority,
//! the others by instant) with a pop and a push per subtask scheduled and
//! per subtask made eligible, which it replaced; the order is the same:
//! by key, equal keys by task index.

use super::key::Key;
use crate::interface::Time;

/// "Not queued": no runnable job.
const ABSENT: Time = Time::MAX;

/// Up to this many candidates wanted (the CPUs of an aligned boundary),
/// [`Eligible::candidates`] keeps them sorted by insertion instead of
/// collecting and sorting them all.
const SMALL: usize = 64;

/// Up to this many wanted, [`Eligible::candidates`] keeps them in a fixed
/// array and inserts by shifting one entry at a time (fewer instructions
/// than a binary search and a block move for a handful of CPUs).
const FEW: usize = 8;

pub(super) struct Eligible {
    /// Per task: the instant its next subtask is eligible from (0: already
    /// eligible), or `ABSENT`.
    at: Vec<Time>,
    /// Per task: the priority of its next subtask (when queued).
    key: Vec<Key>,
    /// Scratch: the candidates of the last [`Eligible::candidates`].
    cand: Vec<(Key, u32)>,
    /// Scratch of [`Eligible::few`].
    few: [(Key, u32); FEW],
}

impl Eligible {
    pub fn new(n: usize) -> Eligible {
        Eligible { at: vec![ABSENT; n], key: vec![0; n], cand: Vec::with_capacity(n), few: [(0, 0); FEW] }
    }

    /// Queues `task` (replacing its entry), eligible from `at`.
    #[inline]
    pub fn set(&mut self, task: u32, at: Time, key: Key) {
        self.at[task as usize] = at;
        self.key[task as usize] = key;
    }

    /// Queues `task`, eligible now.
    #[inline]
    pub fn set_ready(&mut self, task: u32, key: Key) {
        self.set(task, 0, key);
    }

    /// Takes `task` out.
    #[inline]
    pub fn remove(&mut self, task: u32) {
        self.at[task as usize] = ABSENT;
    }

    /// The candidates at `t`, by priority, at most `limit` of them (the
    /// most urgent ones).
    pub fn candidates(&mut self, t: Time, limit: usize) -> &[(Key, u32)] {
        self.cand.clear();
        if limit <= FEW {
            return self.few(t, limit);
        }
        if limit <= SMALL {
            // Up to `SMALL` wanted: keep the most urgent `limit` sorted as
            // they come, comparing keys only: tasks come in index order, so
            // a task goes after the equal keys, which have lower indices.
            for (i, &at) in self.at.iter().enumerate() {
                if at > t {
                    continue;
                }
                let key = self.key[i];
                if self.cand.len() == limit {
                    if self.cand.last().is_none_or(|c| key >= c.0) {
                        continue;
                    }
                    self.cand.pop();
                }
                let j = self.cand.partition_point(|c| c.0 <= key);
                self.cand.insert(j, (key, i as u32));
            }
            return &self.cand;
        }
        for (i, &at) in self.at.iter().enumerate() {
            if at <= t {
                self.cand.push((self.key[i], i as u32));
            }
        }
        if self.cand.len() > limit {
            if limit == 0 {
                self.cand.clear();
                return &self.cand;
            }
            self.cand.select_nth_unstable(limit - 1);
            self.cand.truncate(limit);
        }
        self.cand.sort_unstable();
        &self.cand
    }

    /// [`Eligible::candidates`] for at most [`FEW`] wanted: the same
    /// order (by key, equal keys by index: tasks come in index order and a
    /// task goes after the equal keys).
    fn few(&mut self, t: Time, limit: usize) -> &[(Key, u32)] {
        if limit == 0 {
            return &self.cand;
        }
        let buf = &mut self.few;
        let mut len = 0;
        for (i, (&at, &key)) in self.at.iter().zip(&self.key).enumerate() {
            if at > t {
                continue;
            }
            if len == limit {
                if key >= buf[len - 1].0 {
                    continue;
                }
                len -= 1;
            }
            let mut j = len;
            while j > 0 && buf[j - 1].0 > key {
                buf[j] = buf[j - 1];
                j -= 1;
            }
            buf[j] = (key, i as u32);
            len += 1;
        }
        &buf[..len]
    }

    /// The most urgent candidate at `t`.
    pub fn first(&self, t: Time) -> Option<u32> {
        let mut best: Option<(Key, u32)> = None;
        for (i, &at) in self.at.iter().enumerate() {
            if at <= t {
                let c = (self.key[i], i as u32);
                if best.is_none_or(|b| c < b) {
                    best = Some(c);
                }
            }
        }
        best.map(|(_, task)| task)
    }

    /// Whether some task is a candidate at `t`, else the earliest instant a
    /// queued task becomes eligible (`Err(None)`: none is queued).
    pub fn next(&self, t: Time) -> Result<(), Option<Time>> {
        let mut earliest = ABSENT;
        for &at in &self.at {
            if at <= t {
                return Ok(());
            }
            earliest = earliest.min(at);
        }
        Err((earliest != ABSENT).then_some(earliest))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_are_due_tasks_by_key_then_index() {
        let mut e = Eligible::new(6);
        e.set_ready(4, 7);
        e.set(0, 100, 1); // not yet
        e.set(1, 50, 7);
        e.set_ready(2, 3);
        e.set(3, 60, 9);
        e.set(5, 40, 2);
        e.remove(5);
        assert_eq!(e.candidates(49, 9), &[(3, 2), (7, 4)]);
        assert_eq!(e.candidates(60, 9), &[(3, 2), (7, 1), (7, 4), (9, 3)]);
        assert_eq!(e.candidates(60, 2), &[(3, 2), (7, 1)], "the most urgent two");
        assert_eq!(e.candidates(60, 0), &[]);
        // Beyond `SMALL` wanted: collected, then selected and sorted.
        assert_eq!(e.candidates(60, SMALL + 1), &[(3, 2), (7, 1), (7, 4), (9, 3)]);
        assert_eq!(e.first(60), Some(2));
        e.remove(2);
        assert_eq!(e.first(60), Some(1), "equal keys: the lower index");
        assert_eq!(e.next(60), Ok(()));
        assert_eq!(e.next(10), Ok(()), "task 4 is eligible already");
        e.remove(4);
        assert_eq!(e.next(10), Err(Some(50)));
        for task in 0..6 {
            e.remove(task);
        }
        assert_eq!(e.next(10), Err(None));
        assert_eq!(e.first(10), None);
    }

    /// Both ways of choosing (insertion for few, selection and sort for
    /// many) give the reference: the due tasks sorted by (key, index), cut
    /// to the limit; keys are drawn from a small range so many tie.
    #[test]
    fn both_ways_of_choosing_match_a_full_sort() {
        let n = 300;
        let mut e = Eligible::new(n);
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut rnd = |r: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % r
        };
        for round in 0..200 {
            for task in 0..n as u32 {
                match rnd(4) {
                    0 => e.remove(task),
                    1 => e.set_ready(task, rnd(20) as Key),
                    _ => e.set(task, 1 + rnd(100), (rnd(20) as Key) << 64 | rnd(3) as Key),
                }
            }
            let t = rnd(120);
            let mut all: Vec<(Key, u32)> = (0..n).filter(|&i| e.at[i] <= t).map(|i| (e.key[i], i as u32)).collect();
            all.sort();
            for limit in [0, 1, 2, 4, 7, FEW, FEW + 1, 16, SMALL, SMALL + 1, 200, usize::MAX] {
                let want = &all[..all.len().min(limit)];
                assert_eq!(e.candidates(t, limit), want, "round {round}, t {t}, limit {limit}");
            }
            assert_eq!(e.first(t), all.first().map(|c| c.1));
        }
    }
}
