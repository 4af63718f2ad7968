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
//! its job and the consumption it waits for. The drivers say only when a
//! job starts running ([`Timers::run`]: "from `from`, having consumed
//! `consumed`") and stops ([`Timers::stop`]); while the job runs its timers
//! sit in the heap at `from + (at − consumed)`, and while it does not they
//! have no entry (parked). Each task keeps the list of its job's timers, so
//! a switch costs nothing for a job without any.

use crate::interface::{Cpu, JobId, Time, TimerId};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    gen: u32,
    armed: bool,
    tag: u64,
    /// Stamp of the slot's current heap entry (bumped to invalidate it).
    push: u32,
    /// Arming order.
    seq: u64,
    /// For an execution-time timer: its job and the consumption it waits for.
    exec: Option<(JobId, Time)>,
}

/// A job running: on `cpu` since `from`, having consumed `consumed` then.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Running {
    job: JobId,
    cpu: Cpu,
    from: Time,
    consumed: Time,
}

/// One task's execution-time timers and the stint of its running job.
#[derive(Debug, Clone, Default)]
struct TaskExec {
    running: Option<Running>,
    slots: Vec<u32>,
}

#[derive(Debug, Default)]
pub struct Timers {
    slots: Vec<Slot>,
    free: Vec<u32>,
    /// (due, arming order, slot, push stamp).
    heap: BinaryHeap<Reverse<(Time, u64, u32, u32)>>,
    /// Arming order, the tie-break of timers due at the same instant.
    seq: u64,
    /// Per task (by index).
    tasks: Vec<TaskExec>,
}

impl Timers {
    /// A store for `tasks` tasks' execution-time timers.
    pub fn new(tasks: usize) -> Timers {
        Timers { tasks: vec![TaskExec::default(); tasks], ..Timers::default() }
    }

    fn slot(&mut self, tag: u64, exec: Option<(JobId, Time)>) -> u32 {
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
        s.seq = self.seq;
        s.exec = exec;
        self.seq += 1;
        slot
    }

    fn id(&self, slot: u32) -> TimerId {
        TimerId((self.slots[slot as usize].gen as u64) << 32 | slot as u64)
    }

    /// (Re)queues `slot` due at `at`: any earlier entry becomes stale.
    fn push(&mut self, slot: u32, at: Time) {
        let s = &mut self.slots[slot as usize];
        s.push = s.push.wrapping_add(1);
        self.heap.push(Reverse((at, s.seq, slot, s.push)));
    }

    /// Drops `slot`'s heap entry, if any (it stays armed).
    fn park(&mut self, slot: u32) {
        let s = &mut self.slots[slot as usize];
        s.push = s.push.wrapping_add(1);
    }

    /// Arms a timer due at `at` that delivers `tag`.
    pub fn arm(&mut self, at: Time, tag: u64) -> TimerId {
        let slot = self.slot(tag, None);
        self.push(slot, at);
        self.id(slot)
    }

    /// Arms an execution-time timer of `job` at `at` consumed, delivering
    /// `tag`; `now` and `consumed` (the job's consumption now) decide
    /// whether it is due at once.
    pub fn arm_exec(&mut self, job: JobId, at: Time, tag: u64, now: Time, consumed: Time) -> TimerId {
        let slot = self.slot(tag, Some((job, at)));
        let t = job.task as usize;
        if t >= self.tasks.len() {
            self.tasks.resize_with(t + 1, TaskExec::default);
        }
        self.tasks[t].slots.push(slot);
        if at <= consumed {
            self.push(slot, now);
        } else if let Some(r) = self.tasks[t].running.filter(|r| r.job == job) {
            self.push(slot, r.from.saturating_add(at - r.consumed.min(at)).max(now));
        }
        self.id(slot)
    }

    /// `job` runs on `cpu`, progressing from `from` with `consumed` ns then:
    /// its execution-time timers are (re)queued accordingly.
    pub fn run(&mut self, job: JobId, cpu: Cpu, from: Time, consumed: Time) {
        let Some(te) = self.tasks.get_mut(job.task as usize) else { return };
        te.running = Some(Running { job, cpu, from, consumed });
        for i in 0..te.slots.len() {
            let slot = self.tasks[job.task as usize].slots[i];
            if let Some((j, at)) = self.slots[slot as usize].exec {
                if j == job {
                    self.push(slot, from.saturating_add(at.saturating_sub(consumed)));
                }
            }
        }
    }

    /// `job` stopped running on `cpu` (ignored if it runs elsewhere now):
    /// its execution-time timers are parked.
    pub fn stop(&mut self, job: JobId, cpu: Cpu) {
        let Some(te) = self.tasks.get_mut(job.task as usize) else { return };
        if !matches!(te.running, Some(r) if r.job == job && r.cpu == cpu) {
            return;
        }
        te.running = None;
        for i in 0..te.slots.len() {
            let slot = self.tasks[job.task as usize].slots[i];
            self.park(slot);
        }
    }

    /// `job` completed: its execution-time timers are cancelled.
    pub fn drop_job(&mut self, job: JobId) {
        let Some(te) = self.tasks.get_mut(job.task as usize) else { return };
        if matches!(te.running, Some(r) if r.job == job) {
            te.running = None;
        }
        let mut i = 0;
        while i < self.tasks[job.task as usize].slots.len() {
            let slot = self.tasks[job.task as usize].slots[i];
            if matches!(self.slots[slot as usize].exec, Some((j, _)) if j == job) {
                self.tasks[job.task as usize].slots.swap_remove(i);
                self.release(slot);
            } else {
                i += 1;
            }
        }
    }

    fn release(&mut self, slot: u32) {
        let s = &mut self.slots[slot as usize];
        s.armed = false;
        s.gen = s.gen.wrapping_add(1);
        s.push = s.push.wrapping_add(1);
        if let Some((job, _)) = s.exec.take() {
            if let Some(te) = self.tasks.get_mut(job.task as usize) {
                if let Some(i) = te.slots.iter().position(|&x| x == slot) {
                    te.slots.swap_remove(i);
                }
            }
        }
        self.free.push(slot);
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

    fn live(&self, slot: u32, push: u32) -> bool {
        let s = self.slots[slot as usize];
        s.armed && s.push == push
    }

    /// When the earliest armed timer is due (stale entries are dropped).
    pub fn next_due(&mut self) -> Option<Time> {
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
    pub fn pop_due(&mut self, until: Time) -> Option<(TimerId, Time, u64)> {
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
            t.slots.reserve(2);
        }
    }

    /// Capacity of the store's collections (for tests that check memory
    /// does not grow with the number of jobs).
    pub fn capacity(&self) -> usize {
        self.slots.capacity()
            + self.free.capacity()
            + self.heap.capacity()
            + self.tasks.iter().map(|t| t.slots.capacity()).sum::<usize>()
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

    #[test]
    fn an_exec_timer_runs_down_only_while_its_job_runs() {
        let mut t = Timers::new(1);
        // Armed before the job runs: parked.
        let id = t.arm_exec(J, 5, 7, 0, 0);
        assert_eq!(t.next_due(), None);
        // Runs from 10 with 0 consumed: due at 15; stopped at 12 (2 consumed).
        t.run(J, 0, 10, 0);
        assert_eq!(t.next_due(), Some(15));
        t.stop(J, 0);
        assert_eq!(t.next_due(), None);
        // A stop on another CPU than the one it runs on is ignored.
        t.run(J, 1, 20, 2);
        t.stop(J, 0);
        assert_eq!(t.next_due(), Some(23));
        assert_eq!(t.pop_due(22), None);
        assert_eq!(t.pop_due(23), Some((id, 23, 7)));
        // Fired: gone, also after another switch-in.
        t.run(J, 1, 30, 5);
        assert_eq!(t.next_due(), None);
        // Already consumed: due now; a completed job's timers are cancelled.
        let now = t.arm_exec(J, 3, 1, 31, 6);
        assert_eq!(t.pop_due(31).map(|x| x.0), Some(now));
        t.arm_exec(J, 100, 2, 31, 6);
        assert_eq!(t.next_due(), Some(30 + 95));
        t.drop_job(J);
        assert_eq!(t.next_due(), None);
        t.run(J, 0, 40, 6);
        assert_eq!(t.next_due(), None);
    }

    #[test]
    fn exec_and_wall_timers_share_the_arming_order() {
        let mut t = Timers::new(1);
        let _e = t.arm_exec(J, 10, 1, 0, 0);
        let _w = t.arm(10, 2);
        t.run(J, 0, 0, 0);
        let got: Vec<u64> = std::iter::from_fn(|| t.pop_due(10)).map(|(_, _, tag)| tag).collect();
        assert_eq!(got, vec![1, 2]);
        let c = t.arm_exec(J, 10, 3, 0, 0);
        t.cancel(c);
        t.run(J, 0, 0, 0);
        assert_eq!(t.next_due(), None);
    }
}
