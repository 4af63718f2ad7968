//! The timer store: the policy's timers, in one place for every driver.
//!
//! A slab of slots with generations (a `TimerId` is `generation << 32 |
//! slot`), so arming and cancelling allocate nothing in steady state and a
//! cancelled timer is recognised as stale, plus a min-heap of (due, arming
//! order, slot, push stamp) entries with lazy invalidation: an entry whose
//! stamp is no longer its slot's (the timer was cancelled, fired, or its due
//! time moved) is dropped when it reaches the top. Timers due at the same
//! instant fire in the order they were armed.
//!
//! # Execution-time timers
//!
//! An execution-time timer (`Kernel::arm_exec`) is a slot that also names
//! its job and the consumption it waits for. The drivers say only what each
//! CPU runs ([`Timers::runs`]: a job "from `from`, having consumed
//! `consumed`", or nothing); while the job runs its timers sit in the heap
//! at `from + (at − consumed)`, and while it does not they have no entry
//! (parked). The store follows the CPUs only while such timers are armed
//! ([`Timers::wants_runs`]; a driver may skip its reports otherwise): the
//! first one armed reads the CPUs afresh from the host
//! ([`Timers::refresh`]). Each task keeps the list of its job's timers.

use super::Run;
use crate::interface::{Cpu, JobId, Time, TimerId};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    gen: u32,
    /// Stamp of the slot's current heap entry (bumped to invalidate it).
    push: u32,
    tag: u64,
    armed: bool,
    /// An execution-time timer (its details in `Timers::execs`).
    exec: bool,
}

/// An execution-time timer's job, the consumption it waits for, and its
/// arming order (kept for its re-queueing).
#[derive(Debug, Clone, Copy)]
struct Exec {
    job: JobId,
    at: Time,
    seq: u64,
}

#[derive(Debug, Default)]
pub struct Timers {
    slots: Vec<Slot>,
    free: Vec<u32>,
    /// (due, arming order, slot, push stamp).
    heap: BinaryHeap<Reverse<(Time, u64, u32, u32)>>,
    /// Arming order, the tie-break of timers due at the same instant.
    seq: u64,
    /// Per slot used by an execution-time timer: its details.
    execs: Vec<Option<Exec>>,
    /// Per task (by index): its execution-time timers' slots.
    tasks: Vec<Vec<u32>>,
    /// Per CPU: the job it runs (kept while execution-time timers are armed).
    on: Vec<Option<Run>>,
    /// Execution-time timers armed.
    exec: usize,
}

impl Timers {
    /// A store for `tasks` tasks' execution-time timers on `cpus` CPUs.
    pub fn new(tasks: usize, cpus: usize) -> Timers {
        Timers { tasks: vec![Vec::new(); tasks], on: vec![None; cpus], ..Timers::default() }
    }

    /// Whether execution-time timers are armed: only then does the store
    /// need to hear what the CPUs run ([`Timers::runs`]).
    #[inline]
    pub fn wants_runs(&self) -> bool {
        self.exec > 0
    }

    /// What `cpu` runs, told afresh (before the first execution-time timer
    /// is armed, when the store has not been following).
    pub fn refresh(&mut self, cpu: Cpu, run: Option<Run>) {
        if let Some(on) = self.on.get_mut(cpu as usize) {
            *on = run;
        }
    }

    /// A free slot, armed with `tag`, and its arming order.
    #[inline]
    fn slot(&mut self, tag: u64, exec: bool) -> (u32, u64) {
        let slot = match self.free.pop() {
            Some(s) => s,
            None => {
                self.slots.push(Slot::default());
                (self.slots.len() - 1) as u32
            }
        };
        let s = &mut self.slots[slot as usize];
        s.armed = true;
        s.tag = tag;
        s.exec = exec;
        // Entries of the slot's earlier timers are stale from now on, even
        // while this one has none (a parked execution-time timer).
        s.push = s.push.wrapping_add(1);
        let seq = self.seq;
        self.seq += 1;
        (slot, seq)
    }

    fn id(&self, slot: u32) -> TimerId {
        TimerId((self.slots[slot as usize].gen as u64) << 32 | slot as u64)
    }

    /// (Re)queues `slot` (armed `seq`-th) due at `at`: any earlier entry
    /// becomes stale.
    #[inline]
    fn push(&mut self, slot: u32, at: Time, seq: u64) {
        let s = &mut self.slots[slot as usize];
        s.push = s.push.wrapping_add(1);
        self.heap.push(Reverse((at, seq, slot, s.push)));
    }

    /// Drops `slot`'s heap entry, if any (it stays armed).
    fn park(&mut self, slot: u32) {
        let s = &mut self.slots[slot as usize];
        s.push = s.push.wrapping_add(1);
    }

    /// Arms a timer due at `at` that delivers `tag`.
    pub fn arm(&mut self, at: Time, tag: u64) -> TimerId {
        let (slot, seq) = self.slot(tag, false);
        self.push(slot, at, seq);
        self.id(slot)
    }

    /// Arms an execution-time timer of `job` at `at` consumed, delivering
    /// `tag`; `now` and `consumed` (the job's consumption now) decide
    /// whether it is due at once.
    pub fn arm_exec(&mut self, job: JobId, at: Time, tag: u64, now: Time, consumed: Time) -> TimerId {
        let (slot, seq) = self.slot(tag, true);
        if self.execs.len() <= slot as usize {
            self.execs.resize(slot as usize + 1, None);
        }
        self.execs[slot as usize] = Some(Exec { job, at, seq });
        let t = job.task as usize;
        if t >= self.tasks.len() {
            self.tasks.resize_with(t + 1, Vec::new);
        }
        self.tasks[t].push(slot);
        self.exec += 1;
        if at <= consumed {
            self.push(slot, now, seq);
        } else if let Some(r) = self.on.iter().flatten().find(|r| r.job == job).copied() {
            self.push(slot, r.from.saturating_add(at - r.consumed.min(at)).max(now), seq);
        }
        self.id(slot)
    }

    /// `cpu` now runs `run` (`None`: nothing): the execution-time timers of
    /// a job that stopped running anywhere are parked, those of the job it
    /// runs are (re)queued at `from + (at − consumed)`.
    pub fn runs(&mut self, cpu: Cpu, run: Option<Run>) {
        let Some(on) = self.on.get_mut(cpu as usize) else { return };
        let old = std::mem::replace(on, run);
        if self.exec == 0 {
            return;
        }
        if let Some(o) = old {
            if run.map(|r| r.job) != Some(o.job) && !self.on.iter().flatten().any(|r| r.job == o.job) {
                self.each_exec(o.job, |t, slot, _| t.park(slot));
            }
        }
        if let Some(r) = run {
            self.each_exec(r.job, |t, slot, e| {
                t.push(slot, r.from.saturating_add(e.at.saturating_sub(r.consumed)), e.seq)
            });
        }
    }

    /// Calls `f` for each execution-time timer of `job`.
    fn each_exec(&mut self, job: JobId, mut f: impl FnMut(&mut Timers, u32, Exec)) {
        let Some(list) = self.tasks.get(job.task as usize) else { return };
        for i in 0..list.len() {
            let slot = self.tasks[job.task as usize][i];
            if let Some(e) = self.execs[slot as usize] {
                if e.job == job {
                    f(self, slot, e);
                }
            }
        }
    }

    /// `job` completed: its execution-time timers are cancelled.
    #[inline]
    pub fn drop_job(&mut self, job: JobId) {
        if self.exec > 0 {
            self.drop_exec(job);
        }
    }

    #[cold]
    #[inline(never)]
    fn drop_exec(&mut self, job: JobId) {
        let Some(list) = self.tasks.get(job.task as usize) else { return };
        if list.is_empty() {
            return;
        }
        let mut i = 0;
        while i < self.tasks[job.task as usize].len() {
            let slot = self.tasks[job.task as usize][i];
            if matches!(self.execs[slot as usize], Some(e) if e.job == job) {
                self.release(slot);
            } else {
                i += 1;
            }
        }
    }

    #[inline]
    fn release(&mut self, slot: u32) {
        let s = &mut self.slots[slot as usize];
        // Disarmed: its heap entry is stale (and stays so, see `slot`).
        s.armed = false;
        s.gen = s.gen.wrapping_add(1);
        if s.exec {
            self.release_exec(slot);
        }
        self.free.push(slot);
    }

    /// The execution-time half of [`Timers::release`].
    #[cold]
    #[inline(never)]
    fn release_exec(&mut self, slot: u32) {
        self.slots[slot as usize].exec = false;
        let job = self.execs[slot as usize].take().expect("an execution-time timer's details").job;
        self.exec -= 1;
        if let Some(list) = self.tasks.get_mut(job.task as usize) {
            if let Some(i) = list.iter().position(|&x| x == slot) {
                list.swap_remove(i);
            }
        }
    }

    /// Cancels a timer; a fired, cancelled or unknown timer is ignored.
    pub fn cancel(&mut self, id: TimerId) {
        let (slot, gen) = ((id.0 & 0xFFFF_FFFF) as u32, (id.0 >> 32) as u32);
        if let Some(s) = self.slots.get(slot as usize) {
            if s.armed && s.gen == gen {
                self.release(slot);
            }
        }
    }

    #[inline]
    fn live(&self, slot: u32, push: u32) -> bool {
        let s = self.slots[slot as usize];
        s.armed && s.push == push
    }

    /// When the earliest armed timer is due (stale entries are dropped).
    #[inline]
    pub fn next_due(&mut self) -> Option<Time> {
        match self.heap.peek() {
            None => None,
            Some(&Reverse((t, _, slot, push))) if self.live(slot, push) => Some(t),
            Some(_) => self.next_due_slow(),
        }
    }

    fn next_due_slow(&mut self) -> Option<Time> {
        while let Some(&Reverse((t, _, slot, push))) = self.heap.peek() {
            if self.live(slot, push) {
                return Some(t);
            }
            self.heap.pop();
        }
        None
    }

    /// The earliest armed timer if it is due by `until`: it is disarmed and
    /// returned with its due time and tag.
    #[inline]
    pub fn pop_due(&mut self, until: Time) -> Option<(TimerId, Time, u64)> {
        match self.heap.peek() {
            // Nothing is due, whether the earliest entry is live or stale.
            None => None,
            Some(&Reverse((t, ..))) if t > until => None,
            Some(_) => self.pop_due_slow(until),
        }
    }

    fn pop_due_slow(&mut self, until: Time) -> Option<(TimerId, Time, u64)> {
        loop {
            let &Reverse((t, _, slot, push)) = self.heap.peek()?;
            if !self.live(slot, push) {
                self.heap.pop();
                continue;
            }
            if t > until {
                return None;
            }
            self.heap.pop();
            let (id, tag) = (self.id(slot), self.slots[slot as usize].tag);
            self.release(slot);
            return Some((id, t, tag));
        }
    }

    /// Reserves room for `n` armed timers, and two execution-time timers
    /// per task.
    pub fn reserve(&mut self, n: usize) {
        self.slots.reserve(n);
        self.free.reserve(n);
        self.heap.reserve(n);
        for t in &mut self.tasks {
            t.reserve(2);
        }
    }

    /// Capacity of the store's collections (for tests that check memory
    /// does not grow with the number of jobs).
    pub fn capacity(&self) -> usize {
        self.slots.capacity()
            + self.free.capacity()
            + self.heap.capacity()
            + self.execs.capacity()
            + self.tasks.iter().map(|t| t.capacity()).sum::<usize>()
            + self.on.capacity()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fire_in_due_then_arming_order_and_cancel_is_final() {
        let mut t = Timers::default();
        let a = t.arm(10, 1);
        let _b = t.arm(5, 2);
        let _c = t.arm(10, 3);
        t.cancel(a);
        t.cancel(a);
        assert_eq!(t.next_due(), Some(5));
        let got: Vec<u64> = std::iter::from_fn(|| t.pop_due(10)).map(|(_, _, tag)| tag).collect();
        assert_eq!(got, vec![2, 3]);
        assert_eq!(t.next_due(), None);
    }

    #[test]
    fn slots_are_reused_without_growth() {
        let mut t = Timers::default();
        for i in 0..1000 {
            let id = t.arm(i, 0);
            if i % 2 == 0 {
                t.cancel(id);
            } else {
                assert!(t.pop_due(i).is_some());
            }
            t.next_due();
        }
        assert!(t.capacity() < 16, "{}", t.capacity());
    }

    const J: JobId = JobId { task: 0, seq: 0 };

    fn run(from: Time, consumed: Time) -> Option<Run> {
        Some(Run { job: J, from, consumed })
    }

    #[test]
    fn an_exec_timer_runs_down_only_while_its_job_runs() {
        let mut t = Timers::new(1, 2);
        // Armed before the job runs: parked.
        let id = t.arm_exec(J, 5, 7, 0, 0);
        assert!(t.wants_runs());
        assert_eq!(t.next_due(), None);
        // Runs from 10 with 0 consumed: due at 15; stopped at 12 (2 consumed).
        t.runs(0, run(10, 0));
        assert_eq!(t.next_due(), Some(15));
        t.runs(0, None);
        assert_eq!(t.next_due(), None);
        // Moving from CPU 0 to CPU 1 at 20, reported on CPU 1 first: CPU
        // 0's emptying does not park it.
        t.runs(0, run(19, 2));
        t.runs(1, run(20, 2));
        t.runs(0, None);
        assert_eq!(t.next_due(), Some(23));
        assert_eq!(t.pop_due(22), None);
        assert_eq!(t.pop_due(23), Some((id, 23, 7)));
        assert!(!t.wants_runs());
        // Fired: gone, also after another switch-in.
        t.runs(1, run(30, 5));
        assert_eq!(t.next_due(), None);
        // Already consumed: due now; a completed job's timers are cancelled.
        let now = t.arm_exec(J, 3, 1, 31, 6);
        assert_eq!(t.pop_due(31).map(|x| x.0), Some(now));
        t.arm_exec(J, 100, 2, 31, 6);
        assert_eq!(t.next_due(), Some(30 + 95));
        t.drop_job(J);
        assert_eq!(t.next_due(), None);
        assert!(!t.wants_runs());
        t.runs(0, run(40, 6));
        assert_eq!(t.next_due(), None);
    }

    #[test]
    fn a_parked_timer_does_not_revive_its_slots_old_entry() {
        let mut t = Timers::new(1, 1);
        let w = t.arm(5, 1);
        t.cancel(w);
        // The same slot, parked: the cancelled timer's entry at 5 is stale.
        t.arm_exec(J, 10, 2, 0, 0);
        assert_eq!(t.next_due(), None);
    }

    #[test]
    fn exec_and_wall_timers_share_the_arming_order() {
        let mut t = Timers::new(1, 1);
        let _e = t.arm_exec(J, 10, 1, 0, 0);
        let _w = t.arm(10, 2);
        t.runs(0, run(0, 0));
        let got: Vec<u64> = std::iter::from_fn(|| t.pop_due(10)).map(|(_, _, tag)| tag).collect();
        assert_eq!(got, vec![1, 2]);
        let c = t.arm_exec(J, 10, 3, 0, 0);
        t.cancel(c);
        t.runs(0, run(0, 0));
        assert_eq!(t.next_due(), None);
        assert!(!t.wants_runs());
    }
}
