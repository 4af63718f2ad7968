//! PD^2 (Pfair), global, quantum-based (Calandrino 2009 §2.2, after
//! Anderson & Srinivasan). See `docs/policies.md`, "PD^2".
//!
//! Time is cut into quanta of Q ns. Task i needs e = ⌈wcet/Q⌉ quanta every
//! p = period/Q; its subtasks (one quantum each) have windows
//! ([`window`]), and at every quantum boundary the m highest-priority
//! eligible subtasks ([`key`]) run, one per CPU. A task's subtasks run in
//! order, one per quantum at most.
//!
//! Mechanism: each task with a released, unblocked job is queued in
//! [`eligible`] with the instant its next subtask becomes eligible and that
//! subtask's priority. At a boundary the eligible tasks are the candidates,
//! the most urgent are taken, and each task taken is queued again with its
//! next subtask. The cost is O(1) per subtask scheduled, one pass over the
//! tasks and a sort of the candidates per boundary (O(n) per CPU with
//! staggered quanta), and O(m) per boundary for the CPU assignment; nothing
//! is allocated after `new`.
//!
//! One timer chain drives the boundaries. It runs while some CPU holds a
//! subtask or some subtask is eligible; otherwise it sleeps until the first
//! boundary at which a waiting subtask becomes eligible, and stops when no
//! task waits (a release or resume restarts it).
//!
//! Two options change how an aligned boundary chooses ([`spread`]:
//! early-release spread minimisation for MTTs; [`megatasks`]: groups of
//! tasks scheduled as one PD^2 entity); both take every eligible candidate
//! as candidates, in priority order, and choose among them.

mod admit;
mod eligible;
mod key;
mod megatasks;
mod spread;
mod subtasks;
mod window;

pub(crate) use admit::params;

use crate::boundaries::Boundaries;
use crate::interface::{Conformance, Cpu, Job, JobId, JobView, Kernel, Policy, PolicyInfo, Priority, Time, TimerId};
use eligible::Eligible;
use key::{key, Key};
use megatasks::Megatasks;
pub(crate) use megatasks::{pack_greedy, split_weight, MegataskParams, PackTask};
use schedlab_model::Placement;
pub(crate) use spread::x as spread_bound;
use spread::Spread;
use subtasks::{Pos, Subtasks, TABLE_BUDGET};
use window::Weight;

/// "No task" / "no CPU".
const NONE: u32 = u32::MAX;

/// PD^2's parameters, in nanoseconds and quanta.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Params {
    /// The quantum Q (ns), > 0.
    pub quantum: Time,
    /// Each task's weight e/p in quanta (1 ≤ e ≤ p).
    pub weights: Vec<(u64, u64)>,
    pub cpus: u32,
    pub stagger: bool,
    pub early_release: bool,
    /// Spread minimisation for MTTs ([`spread`]), aligned quanta only.
    pub spread: Option<SpreadParams>,
    /// Megatasks ([`megatasks`]; empty: none), aligned quanta only.
    pub megatasks: Vec<MegataskParams>,
}

/// The spread option: each task's MTT index (if in one) and the early
/// release X − 1 in quanta.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SpreadParams {
    pub mtt: Vec<Option<u32>>,
    pub er: u64,
}

struct TaskState {
    s: Subtasks,
    /// The task's released, incomplete job (the driver hands over at most one).
    job: Option<JobId>,
    release: Time,
    blocked: bool,
    /// The intra-sporadic shift θ of the current job's windows, in quanta.
    theta: u64,
    /// The position of the task's next subtask.
    next: Pos,
    /// End of the quantum that holds the task's last scheduled subtask: its
    /// next subtask may not run earlier (no parallelism, one per quantum).
    slot_end: Time,
    /// CPU of the task's last scheduled subtask, `NONE` before any.
    cpu: u32,
}

impl TaskState {
    /// The priority of the task's next subtask.
    #[inline]
    fn key(&self) -> Key {
        key(self.s.entry(self.next), self.s.shift(self.next, self.theta))
    }
}

pub(crate) struct Pd2 {
    info: PolicyInfo,
    q: Time,
    m: u32,
    stagger: bool,
    early_release: bool,
    /// Per CPU: the offset of its quantum boundaries in [0, Q), nondecreasing
    /// in the CPU number (all 0 with aligned quanta).
    offset: Vec<Time>,
    tasks: Vec<TaskState>,
    /// The queued tasks: when their next subtask is eligible, its priority.
    queue: Eligible,
    /// Per CPU: the task whose subtask holds the CPU's current quantum.
    slot: Vec<u32>,
    /// Per CPU: the job `schedule` answers.
    assigned: Vec<Option<JobId>>,
    /// Scratch for an aligned boundary: the tasks taken, in priority order,
    /// and the CPU each goes to.
    picked: Vec<u32>,
    placed: Vec<u32>,
    /// The boundary timer chain.
    boundaries: Boundaries,
    /// Spread minimisation's state, when on.
    spread: Option<Spread>,
    /// The megatasks' state, when there are megatasks.
    megatasks: Option<Megatasks>,
}

impl Pd2 {
    pub fn new(p: Params) -> Pd2 {
        let (n, m) = (p.weights.len(), p.cpus);
        let q = p.quantum.max(1);
        let offset =
            (0..m as u64).map(|k| if p.stagger { (k as u128 * q as u128 / m as u128) as Time } else { 0 }).collect();
        let mut budget = TABLE_BUDGET;
        let mut tasks = Vec::with_capacity(n);
        for &(e, per) in &p.weights {
            let (s, used) = Subtasks::new(Weight::new(e, per), budget);
            budget -= used;
            tasks.push(TaskState {
                s,
                job: None,
                release: 0,
                blocked: false,
                theta: 0,
                next: Pos::FIRST,
                slot_end: 0,
                cpu: NONE,
            });
        }
        Pd2 {
            info: PolicyInfo {
                name: "pd2",
                domains: vec![(0..m).collect()],
                placement: vec![Placement::Global; n],
                conformance: Conformance::Replay,
                quantum: Some(q),
            },
            q,
            m,
            stagger: p.stagger,
            early_release: p.early_release,
            offset,
            tasks,
            queue: Eligible::new(n),
            slot: vec![NONE; m as usize],
            assigned: vec![None; m as usize],
            picked: Vec::with_capacity(m as usize),
            placed: vec![NONE; m as usize],
            boundaries: Boundaries::default(),
            spread: p.spread.as_ref().map(|sp| Spread::new(&sp.mtt, sp.er)),
            megatasks: (!p.megatasks.is_empty()).then(|| Megatasks::new(n, m, &p.megatasks)),
        }
    }

    /// The first quantum boundary of any CPU at or after `t`, and after the
    /// last boundary processed.
    fn boundary_from(&self, t: Time) -> Time {
        let t = self.boundaries.unprocessed_from(t);
        let base = t - t % self.q;
        let rem = t - base;
        let k = self.offset.partition_point(|&o| o < rem);
        match self.offset.get(k) {
            Some(&o) => base + o,
            None => base + self.q + self.offset[0],
        }
    }

    /// The instant the task's next subtask becomes eligible: its job is
    /// released, its previous subtask's quantum is over and (unless early
    /// release) its window has started.
    fn eligible_at(&self, ts: &TaskState) -> Time {
        let at = ts.slot_end.max(ts.release);
        if self.early_release {
            return at;
        }
        let r = ts.s.release(ts.next, ts.theta);
        at.max(r.saturating_mul(self.q))
    }

    /// Queues a task with a runnable job (as eligible now if its next
    /// subtask already is) and makes sure a boundary timer covers it.
    fn enqueue(&mut self, task: u32, k: &mut dyn Kernel) {
        let ts = &self.tasks[task as usize];
        if ts.job.is_none() || ts.blocked {
            return;
        }
        let at = self.eligible_at(ts);
        let key = ts.key();
        if at <= k.now() {
            self.queue.set_ready(task, key);
        } else {
            self.queue.set(task, at, key);
        }
        self.wake(at.max(k.now()), k);
    }

    fn dequeue(&mut self, task: u32) {
        self.queue.remove(task);
    }

    /// Makes sure a boundary is processed at the first boundary at or after `t`.
    fn wake(&mut self, t: Time, k: &mut dyn Kernel) {
        let b = self.boundary_from(t);
        self.boundaries.cover(b, k);
    }

    /// The job leaves every CPU it was assigned to (they idle for the rest
    /// of their quantum).
    fn unassign(&mut self, job: JobId, k: &mut dyn Kernel) {
        for c in 0..self.m {
            if self.assigned[c as usize] == Some(job) {
                self.assigned[c as usize] = None;
                k.resched(c);
            }
        }
    }

    /// The task's next subtask runs on `cpu` in the quantum starting at `t`.
    /// Its following subtask is queued as eligible now if it is eligible by
    /// `ready_by` (no boundary comes before it), else from its instant.
    #[inline(always)]
    fn take(&mut self, task: u32, cpu: u32, t: Time, ready_by: Time) {
        let q = self.q;
        let pos = self.tasks[task as usize].next;
        self.spread_took(task, pos);
        let ts = &mut self.tasks[task as usize];
        ts.next = ts.s.after(ts.next);
        ts.slot_end = t + q;
        ts.cpu = cpu;
        // `eligible_at` and `key`, sharing the entry.
        let x = ts.s.entry(ts.next);
        let shift = ts.s.shift(ts.next, ts.theta);
        let mut at = ts.slot_end.max(ts.release);
        if !self.early_release {
            at = at.max(x.r.saturating_add(shift).saturating_mul(q));
        }
        if at <= ready_by {
            self.queue.set_ready(task, key(x, shift));
        } else {
            self.queue.set(task, at, key(x, shift));
        }
    }

    /// Sets what `cpu` runs for its quantum starting now.
    #[inline(always)]
    fn set_slot(&mut self, cpu: u32, task: u32, k: &mut dyn Kernel) {
        self.slot[cpu as usize] = task;
        let job = if task == NONE { None } else { self.tasks[task as usize].job };
        if self.assigned[cpu as usize] != job {
            self.assigned[cpu as usize] = job;
            k.resched(cpu);
        }
    }

    /// Aligned quanta: the m highest-priority eligible subtasks run. A task
    /// that held a CPU in the previous quantum keeps it; the others go, in
    /// priority order, to the CPU of their last subtask if it is free, else
    /// to the lowest-numbered free CPU.
    fn aligned_boundary(&mut self, t: Time, k: &mut dyn Kernel) {
        self.picked.clear();
        if self.spread.is_some() {
            self.pick_spread(t);
        } else if self.megatasks.is_some() {
            self.pick_megatasks(t);
        } else {
            let chosen = self.queue.candidates(t, self.m as usize);
            self.picked.extend(chosen.iter().map(|&(_, task)| task));
        }
        self.placed.fill(NONE);
        let mut rest = 0;
        for i in 0..self.picked.len() {
            let task = self.picked[i];
            let c = self.tasks[task as usize].cpu;
            if c != NONE && self.slot[c as usize] == task {
                self.placed[c as usize] = task;
            } else {
                self.picked[rest] = task;
                rest += 1;
            }
        }
        let mut unplaced = 0;
        for i in 0..rest {
            let task = self.picked[i];
            let c = self.tasks[task as usize].cpu;
            if c != NONE && self.placed[c as usize] == NONE {
                self.placed[c as usize] = task;
            } else {
                self.picked[unplaced] = task;
                unplaced += 1;
            }
        }
        let mut free = 0;
        for i in 0..unplaced {
            while self.placed[free] != NONE {
                free += 1;
            }
            self.placed[free] = self.picked[i];
        }
        // The next boundary is t + Q: a subtask eligible by then is ready.
        for c in 0..self.m {
            let task = self.placed[c as usize];
            if task != NONE {
                self.take(task, c, t, t + self.q);
            }
            self.set_slot(c, task, k);
        }
    }

    /// Staggered quanta: each CPU whose boundary is `t` (in CPU order) takes
    /// the highest-priority eligible subtask; tasks holding another CPU's
    /// quantum are not eligible.
    fn staggered_boundary(&mut self, t: Time, k: &mut dyn Kernel) {
        let rem = t % self.q;
        let from = self.offset.partition_point(|&o| o < rem);
        let to = self.offset.partition_point(|&o| o <= rem);
        for c in from as u32..to as u32 {
            let task = match self.queue.first(t) {
                Some(task) => {
                    // Other CPUs' boundaries come before t + Q: wait.
                    self.take(task, c, t, t);
                    task
                }
                None => NONE,
            };
            self.set_slot(c, task, k);
        }
    }

    fn boundary(&mut self, t: Time, k: &mut dyn Kernel) {
        self.boundaries.processing(t);
        if self.stagger {
            self.staggered_boundary(t, k);
        } else {
            self.aligned_boundary(t, k);
        }
        let next = match self.slot.iter().any(|&s| s != NONE) {
            true => Some(t + 1),
            false => match self.queue.next(t) {
                Ok(()) => Some(t + 1),
                Err(earliest) => earliest,
            },
        };
        if let Some(at) = next {
            // Aligned quanta: t is on the grid (every boundary armed comes
            // from `boundary_from`), so the next one after t is t + Q,
            // found without a division.
            let b = if at == t + 1 && !self.stagger { t + self.q } else { self.boundary_from(at) };
            debug_assert_eq!(b, self.boundary_from(at));
            self.boundaries.arm_next(b, k);
        }
    }
}

impl Policy for Pd2 {
    fn info(&self) -> &PolicyInfo {
        &self.info
    }

    fn release(&mut self, job: Job, k: &mut dyn Kernel) {
        let task = job.id.task;
        let Some(ts) = self.tasks.get_mut(task as usize) else { return };
        let p = ts.s.w.p as u128;
        let seq = job.id.seq as u128;
        // θ_k = max(θ_{k−1}, ⌈release/Q⌉ − k·p): a late release shifts this
        // job's windows (and, since θ never decreases, the later jobs').
        let rq = job.release.div_ceil(self.q) as u128;
        let theta = rq.saturating_sub(seq * p);
        ts.theta = ts.theta.max(u64::try_from(theta).unwrap_or(u64::MAX));
        // The job's first subtask, or further on if its predecessor overran.
        ts.next = ts.next.max(Pos::job(job.id.seq));
        ts.job = Some(job.id);
        ts.release = job.release;
        ts.blocked = false;
        self.dequeue(task);
        self.enqueue(task, k);
    }

    fn complete(&mut self, job: JobId, k: &mut dyn Kernel) {
        let Some(ts) = self.tasks.get_mut(job.task as usize) else { return };
        if ts.job != Some(job) {
            return;
        }
        // The job's remaining subtasks are dropped: the next job starts at
        // its own first subtask (see `release`).
        ts.job = None;
        ts.blocked = false;
        self.dequeue(job.task);
        self.unassign(job, k);
    }

    fn block(&mut self, job: JobId, k: &mut dyn Kernel) {
        let Some(ts) = self.tasks.get_mut(job.task as usize) else { return };
        if ts.job != Some(job) {
            return;
        }
        ts.blocked = true;
        self.dequeue(job.task);
        self.unassign(job, k);
    }

    fn resume(&mut self, job: JobId, k: &mut dyn Kernel) {
        let Some(ts) = self.tasks.get_mut(job.task as usize) else { return };
        if ts.job != Some(job) || !ts.blocked {
            return;
        }
        ts.blocked = false;
        self.enqueue(job.task, k);
    }

    /// The boundary is processed at the instant the timer was armed for
    /// ([`Boundaries::fired`]).
    fn timer(&mut self, timer: TimerId, _tag: u64, k: &mut dyn Kernel) {
        if let Some(at) = self.boundaries.fired(timer) {
            self.boundary(at, k);
        }
    }

    fn schedule(&mut self, cpu: Cpu, _k: &mut dyn Kernel) -> Option<JobId> {
        self.assigned.get(cpu as usize).copied().flatten()
    }

    fn priority(&self, _job: &JobView) -> Option<Priority> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scripted kernel: records timers and rescheduling requests.
    #[derive(Default)]
    struct K {
        now: Time,
        timers: Vec<(u64, Time)>,
        next: u64,
        marked: Vec<Cpu>,
    }

    impl Kernel for K {
        fn now(&self) -> Time {
            self.now
        }
        fn consumed(&self, _job: JobId) -> Time {
            0
        }
        fn running(&self, _cpu: Cpu) -> Option<JobId> {
            None
        }
        fn resched(&mut self, cpu: Cpu) {
            self.marked.push(cpu);
        }
        fn arm(&mut self, at: Time, _tag: u64) -> TimerId {
            self.next += 1;
            self.timers.push((self.next, at.max(self.now)));
            TimerId(self.next)
        }
        fn arm_exec(&mut self, _job: JobId, _at: Time, _tag: u64) -> TimerId {
            unreachable!("PD^2 arms no execution-time timer")
        }
        fn cancel(&mut self, timer: TimerId) {
            self.timers.retain(|t| t.0 != timer.0);
        }
    }

    impl K {
        /// Moves to `t` and fires the timers due, in arming order.
        fn at(&mut self, p: &mut Pd2, t: Time) {
            self.now = t;
            while let Some(i) = self.timers.iter().position(|x| x.1 <= t) {
                let (id, _) = self.timers.remove(i);
                p.timer(TimerId(id), 0, self);
            }
        }
        fn armed(&self) -> Vec<Time> {
            self.timers.iter().map(|t| t.1).collect()
        }
    }

    const Q: Time = 1_000;

    fn pd2(weights: &[(u64, u64)], cpus: u32) -> Pd2 {
        Pd2::new(Params {
            quantum: Q,
            weights: weights.to_vec(),
            cpus,
            stagger: false,
            early_release: false,
            spread: None,
            megatasks: Vec::new(),
        })
    }

    fn job(task: u32, seq: u64, release: Time) -> Job {
        Job { id: JobId { task, seq }, release, deadline: release + 10 * Q }
    }

    fn answers(p: &mut Pd2, k: &mut K) -> Vec<Option<(u32, u64)>> {
        (0..p.m).map(|c| p.schedule(c, k).map(|j| (j.task, j.seq))).collect()
    }

    /// The boundary timer runs only while there is work: it sleeps through
    /// idle quanta and restarts on a release, at the next boundary when the
    /// release falls mid-quantum.
    #[test]
    fn the_timer_chain_follows_the_work() {
        let mut p = pd2(&[(1, 10)], 1);
        let mut k = K::default();
        p.release(job(0, 0, 0), &mut k);
        assert_eq!(k.armed(), vec![0]);
        k.at(&mut p, 0);
        assert_eq!(answers(&mut p, &mut k), vec![Some((0, 0))]);
        assert_eq!(k.armed(), vec![Q], "the running subtask ends at Q");
        k.now = Q / 2;
        p.complete(JobId { task: 0, seq: 0 }, &mut k);
        assert_eq!(answers(&mut p, &mut k), vec![None], "the rest of the quantum idles");
        k.at(&mut p, Q);
        assert!(k.armed().is_empty(), "no work: the chain stops");
        // A release mid-quantum (θ = 11 − 10 = 1): eligible from 11Q on.
        k.now = 10 * Q + 300;
        k.marked.clear();
        p.release(job(0, 1, 10 * Q + 300), &mut k);
        assert_eq!(k.armed(), vec![11 * Q]);
        assert!(k.marked.is_empty() && answers(&mut p, &mut k) == vec![None], "nothing runs before the boundary");
        k.at(&mut p, 11 * Q);
        assert_eq!(answers(&mut p, &mut k), vec![Some((0, 1))]);
        assert_eq!(k.marked, vec![0]);
    }

    /// A boundary timer reported late (the runtime's dispatcher gives the
    /// instant of a completion seen in the same wake-up) is processed at
    /// its own instant: a weight-1 task still runs in the next quantum.
    #[test]
    fn a_late_timer_keeps_the_quantum_grid() {
        let mut p = pd2(&[(1, 1)], 1);
        let mut k = K::default();
        p.release(job(0, 0, 0), &mut k);
        k.at(&mut p, 300);
        assert_eq!(answers(&mut p, &mut k), vec![Some((0, 0))]);
        assert_eq!(k.armed(), vec![Q], "the next boundary is on the grid");
        k.at(&mut p, Q + 200);
        assert_eq!(answers(&mut p, &mut k), vec![Some((0, 0))], "its next subtask is eligible at Q, not at Q + 300");
        assert_eq!(k.armed(), vec![2 * Q]);
    }

    /// A subtask whose window starts later is not run early (without early
    /// release), and the chain sleeps until that window.
    #[test]
    fn the_chain_sleeps_until_the_next_window() {
        let mut p = pd2(&[(2, 10)], 1); // windows [0,5), [5,10)
        let mut k = K::default();
        p.release(job(0, 0, 0), &mut k);
        k.at(&mut p, 0);
        k.at(&mut p, Q);
        assert_eq!(answers(&mut p, &mut k), vec![None]);
        assert_eq!(k.armed(), vec![5 * Q]);
        k.at(&mut p, 5 * Q);
        assert_eq!(answers(&mut p, &mut k), vec![Some((0, 0))]);
    }

    /// A task selected again after a pause goes back to its last CPU when
    /// it is free, not to the lowest free CPU.
    #[test]
    fn a_returning_task_prefers_its_last_cpu() {
        // Y weight 1, Z and X 1/2, on 3 CPUs. Quantum 0: Y, Z, X on CPUs 0,
        // 1, 2. Quantum 2: Z has no job; X returns to CPU 2 (CPU 1 is free too).
        let mut p = pd2(&[(1, 1), (1, 2), (1, 2)], 3);
        let mut k = K::default();
        for t in 0..3 {
            p.release(job(t, 0, 0), &mut k);
        }
        k.at(&mut p, 0);
        assert_eq!(answers(&mut p, &mut k), vec![Some((0, 0)), Some((1, 0)), Some((2, 0))]);
        k.now = Q;
        for t in 0..3 {
            p.complete(JobId { task: t, seq: 0 }, &mut k);
        }
        p.release(job(0, 1, Q), &mut k);
        k.at(&mut p, Q);
        assert_eq!(answers(&mut p, &mut k), vec![Some((0, 1)), None, None]);
        k.now = 2 * Q;
        p.complete(JobId { task: 0, seq: 1 }, &mut k);
        p.release(job(0, 2, 2 * Q), &mut k);
        p.release(job(2, 1, 2 * Q), &mut k);
        k.at(&mut p, 2 * Q);
        assert_eq!(answers(&mut p, &mut k), vec![Some((0, 2)), None, Some((2, 1))]);
    }

    /// Blocking and resuming: the job leaves its CPU at once and is back at
    /// the first boundary after it resumes.
    #[test]
    fn block_and_resume() {
        let mut p = pd2(&[(3, 4)], 1);
        let mut k = K::default();
        let id = JobId { task: 0, seq: 0 };
        p.release(job(0, 0, 0), &mut k);
        k.at(&mut p, 0);
        k.now = Q / 2;
        p.block(id, &mut k);
        assert_eq!(answers(&mut p, &mut k), vec![None]);
        k.at(&mut p, Q);
        k.now = Q + Q / 2;
        p.resume(id, &mut k);
        assert_eq!(answers(&mut p, &mut k), vec![None]);
        k.at(&mut p, 2 * Q);
        assert_eq!(answers(&mut p, &mut k), vec![Some((0, 0))]);
        // Events for other jobs are ignored.
        p.complete(JobId { task: 0, seq: 7 }, &mut k);
        assert_eq!(answers(&mut p, &mut k), vec![Some((0, 0))]);
    }
}
