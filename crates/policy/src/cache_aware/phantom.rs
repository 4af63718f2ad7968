//! Phantom tasks (Calandrino 2009 §4.3, notes §2.6 and §4.5): the idle
//! time of a hyperperiod H as n single-threaded tasks of period H, cost one
//! quantum and WSS zero, n = m·H − Σ e·H/p idle quanta. A phantom job runs
//! (its CPU idles for a quantum) instead of a job whose MTT would make the
//! shared cache thrash, and must run whenever a CPU has nothing else to run
//! and one is eligible, so idling to avoid thrashing never takes more than
//! the idle time the set has anyway.
//!
//! The n phantom tasks are alike, so their state is one number: the phantom
//! jobs consumed so far, always taken from the task with the fewest done
//! (the earliest deadline). Phantom task k has jobs released at 0, H, 2H, …;
//! job j is eligible once released and job j − 1 is done, so at an instant
//! of hyperperiod r − 1 (r jobs released per task) the eligible phantom
//! jobs number clamp(n·r − consumed, 0, n), less those already running in
//! the current quantum (one quantum each: a task runs one at a time).

use crate::interface::Time;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Phantoms {
    /// n: phantom tasks (idle quanta per hyperperiod).
    count: u64,
    /// H in ns (a multiple of the quantum).
    hyperperiod: Time,
    /// Phantom jobs consumed since time 0.
    consumed: u128,
    /// Phantom jobs taken in the quantum being decided.
    now: u64,
}

impl Phantoms {
    pub fn new(count: u64, hyperperiod: Time) -> Phantoms {
        Phantoms { count, hyperperiod: hyperperiod.max(1), consumed: 0, now: 0 }
    }

    /// Phantom jobs consumed so far.
    #[cfg(test)]
    pub fn consumed(&self) -> u128 {
        self.consumed
    }

    /// Jobs of each phantom task released by `t`.
    fn released(&self, t: Time) -> u128 {
        (t / self.hyperperiod) as u128 + 1
    }

    /// Eligible phantom jobs at the boundary `t`, not counting those taken
    /// at `t` already.
    pub fn eligible(&self, t: Time) -> u64 {
        let n = self.count as u128;
        let open = (n * self.released(t)).saturating_sub(self.consumed).min(n) as u64;
        open.min(self.count - self.now.min(self.count))
    }

    /// A new quantum begins: no phantom job runs yet.
    pub fn start_quantum(&mut self) {
        self.now = 0;
    }

    /// Takes one eligible phantom job at `t`, if there is one.
    pub fn take(&mut self, t: Time) -> bool {
        if self.eligible(t) == 0 {
            return false;
        }
        self.consumed += 1;
        self.now += 1;
        true
    }

    /// The boundaries `from`, `from + q`, … before `to` passed with every
    /// one of `cpus` CPUs idle (the policy slept: nothing to run): each
    /// took as many phantom jobs as were eligible, up to one per CPU.
    pub fn idle(&mut self, from: Time, to: Time, q: Time, cpus: u32) {
        let (h, n) = (self.hyperperiod, self.count as u128);
        let mut b = from;
        while b < to {
            let hp = b / h;
            let end = ((hp + 1) * h).min(to);
            let boundaries = (end - b).div_ceil(q) as u128;
            self.now = 0;
            let open = (n * self.released(b)).saturating_sub(self.consumed).min(n);
            self.consumed += open.min(boundaries * cpus as u128);
            b += boundaries as Time * q;
            // Whole idle hyperperiods consume every phantom job they release
            // (n ≤ m·H/Q): skip them.
            if b < to && b.is_multiple_of(h) && to - b >= h {
                let whole = (to - b) / h;
                b += whole * h;
                self.consumed = self.consumed.max(n * self.released(b - 1));
            }
        }
        self.now = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fig. 4.6's set (G10): 4 phantom jobs per hyperperiod of 8 quanta;
    /// at most one per task per quantum; the next hyperperiod releases 4 more.
    #[test]
    fn four_phantoms_per_hyperperiod_one_per_task_and_quantum() {
        let mut p = Phantoms::new(4, 8);
        p.start_quantum();
        assert_eq!(p.eligible(0), 4);
        assert!(p.take(0) && p.take(0) && p.take(0) && p.take(0));
        assert!(!p.take(0), "each task runs one job per quantum");
        p.start_quantum();
        assert_eq!(p.eligible(1), 0, "all four jobs of the first hyperperiod are done");
        p.start_quantum();
        assert_eq!(p.eligible(8), 4);
    }

    /// Unused phantom jobs stay eligible (late) next hyperperiod, but a task
    /// has at most one eligible job.
    #[test]
    fn unused_phantoms_carry_over_at_most_one_per_task() {
        let mut p = Phantoms::new(4, 8);
        p.start_quantum();
        assert!(p.take(0));
        p.start_quantum();
        assert_eq!(p.eligible(8), 4);
        assert_eq!(p.eligible(16), 4);
        let mut q = Phantoms::new(4, 8);
        q.idle(0, 16, 1, 2);
        assert_eq!(q.consumed(), 8, "two idle hyperperiods consume all eight jobs");
        let mut r = Phantoms::new(4, 8);
        r.idle(0, 1, 1, 2);
        assert_eq!(r.consumed(), 2, "one idle boundary: one job per CPU");
        r.idle(1, 800, 1, 2);
        assert_eq!(r.consumed(), 400, "every job released before 800 is consumed");
        r.start_quantum();
        assert_eq!(r.eligible(800), 4);
    }
}
