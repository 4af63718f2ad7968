//! The one driver protocol: how a policy is driven, written once.
//!
//! The simulator (virtual time), the runtime's dispatcher (real time), the
//! validator's replay (a trace's time) and the policy tests all drive
//! policies through [`Driver`]; each supplies only a [`Host`] — its clock,
//! its execution accounting and its switching — in the way a Linux
//! scheduling class fills in hooks that the core calls in one fixed order.
//!
//! # The protocol of an instant
//!
//! A driver tells the [`Driver`] what happened at the instant
//! ([`Driver::complete`], [`Driver::segment_end`], [`Driver::block`], [`Driver::resume`],
//! [`Driver::release`]) in any order, then calls [`Driver::instant`], which
//! delivers the callbacks in the order of `interface`'s protocol:
//!
//! 1. completions (in the order reported); the CPU the policy had chosen
//!    for a completed job is marked for rescheduling;
//! 2. segment ends ([`Driver::segment_end`], in the order reported; of jobs
//!    the policy knows), then blocks and resumes (in the order reported; a
//!    block marks the job's CPU);
//! 3. releases in task order: a task's job is released to the policy only
//!    when its predecessor has completed; until then it is held
//!    ([`hold`](self#the-hold-queue)) and handed over in the release phase
//!    of the instant its predecessor completes;
//! 4. rounds: the timers due (in due then arming order, including those a
//!    timer callback arms for a time already due), then
//!    `schedule` for each marked CPU in increasing CPU order, whose answers
//!    are checked ([`ProtocolError`]) and then carried out by
//!    [`Host::switch`]. A round's callbacks may arm timers due now or mark
//!    CPUs again; the rounds go on until none is left, at most
//!    [`MAX_ROUNDS`] (beyond that the instant does not settle: an error).
//!
//! An answer is legal when the job is released to the policy (not held,
//! completed or blocked), its task may run on the CPU, no other CPU got it
//! in the same round, and it is not on another CPU that was not
//! rescheduled in the same round. The checks use the policy's own earlier
//! choices, not what the host runs, so a replay that compares the two can
//! use them.
//!
//! # The hold queue
//!
//! See [`Held`]: each task has at most one job released to the policy.
//!
//! # Execution-time timers
//!
//! The driver keeps them with the wall-clock timers, in one store; what it
//! needs from a driver is only which job runs on each CPU, from when, having
//! consumed how much ([`Driver::runs`], called at every switch-in and
//! switch-out and whenever the start of a job's progress moves, e.g. by an
//! overhead the simulator charges). A running job's timer is a wall-clock
//! expiry at `from + (at_consumed − consumed)`; a job that does not run has
//! none. The simulator reports the exact start of progress, so its timers
//! fire at the exact instant; replay reports the trace's execution
//! intervals; the runtime's dispatcher reports its switch-ins and
//! switch-outs and fires a timer when it wakes for it, with its lateness.

mod error;
mod hold;
mod host;
mod instant;
mod kernel;
mod rounds;
mod timers;

pub use error::{ProtocolError, Violation};
pub use hold::Held;
pub use host::{Delivery, Host};
pub use rounds::{MAX_ROUNDS, MAX_TIMERS_PER_ROUND};

use crate::interface::{Cpu, Job, JobId, Time};
use hold::TaskJobs;
use schedlab_model::Placement;
use schedlab_model::SegmentKind;
use timers::Timers;

/// A job running on a CPU ([`Driver::runs`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run {
    pub job: JobId,
    /// When the job's progress on the CPU starts (or started): normally the
    /// switch-in, later when the CPU is busy with kernel work first.
    pub from: Time,
    /// The CPU time it had consumed at `from`.
    pub consumed: Time,
}

/// The part of the driver's state the policy reaches through its kernel.
#[derive(Debug)]
struct Services {
    cpus: u32,
    timers: Timers,
    /// Per CPU: marked for the next round.
    marked: Vec<bool>,
    /// The marked CPUs, in marking order.
    marked_list: Vec<Cpu>,
    /// First violation found inside a kernel call.
    error: Option<ProtocolError>,
}

/// Drives one policy: see the [module documentation](self).
#[derive(Debug)]
pub struct Driver<X: Copy = ()> {
    svc: Services,
    placement: Vec<Placement>,
    tasks: Vec<TaskJobs<X>>,
    /// Per CPU: the policy's last answer.
    chosen: Vec<Option<JobId>>,
    /// Per CPU: the answer of the round being decided.
    next: Vec<Option<JobId>>,
    /// Per CPU: the round stamp of the round it was scheduled in.
    in_round: Vec<u64>,
    round: u64,
    /// The instant's reported events.
    completions: Vec<JobId>,
    segment_ends: Vec<(JobId, u32, SegmentKind)>,
    suspensions: Vec<(JobId, bool)>,
    /// Tasks that may have a job to release to the policy.
    touched: Vec<u32>,
    /// The CPUs of the round being decided.
    round_cpus: Vec<Cpu>,
}

impl<X: Copy> Driver<X> {
    /// A driver for `cpus` CPUs and the tasks of `placement` (where each
    /// task may run, by task index: `PolicyInfo::placement`).
    pub fn new(cpus: u32, placement: Vec<Placement>) -> Driver<X> {
        let n = placement.len();
        let m = cpus as usize;
        Driver {
            svc: Services {
                cpus,
                timers: Timers::new(n, m),
                marked: vec![false; m],
                marked_list: Vec::with_capacity(m),
                error: None,
            },
            placement,
            tasks: (0..n).map(|_| TaskJobs::new()).collect(),
            chosen: vec![None; m],
            next: vec![None; m],
            in_round: vec![0; m],
            round: 0,
            completions: Vec::with_capacity(m + n),
            segment_ends: Vec::with_capacity(m),
            suspensions: Vec::with_capacity(n),
            touched: Vec::with_capacity(n),
            round_cpus: Vec::with_capacity(m),
        }
    }

    /// The job `job` completed (or was aborted). A job the policy knows
    /// gets `Policy::complete` in this instant's completion phase (returns
    /// true); a job still held behind its predecessor is dropped silently
    /// (returns false).
    pub fn complete(&mut self, job: JobId) -> bool {
        let Some(t) = self.tasks.get_mut(job.task as usize) else { return false };
        match t.delivered {
            Some((j, _)) if j.id == job => {
                if !t.completing {
                    t.completing = true;
                    self.completions.push(job);
                }
                true
            }
            _ => {
                if let Some(i) = t.held.iter().position(|h| h.job.id == job) {
                    t.held.remove(i);
                }
                false
            }
        }
    }

    /// The job finished its segment `segment` of kind `kind` and goes on
    /// with the next (ignored unless the policy knows the job).
    pub fn segment_end(&mut self, job: JobId, segment: u32, kind: SegmentKind) {
        self.segment_ends.push((job, segment, kind));
    }

    /// The job blocks (ignored unless the policy knows it and it is not blocked).
    pub fn block(&mut self, job: JobId) {
        self.suspensions.push((job, true));
    }

    /// The job resumes (ignored unless the policy knows it and it is blocked).
    pub fn resume(&mut self, job: JobId) {
        self.suspensions.push((job, false));
    }

    /// A job is released at `now` (the driver's instant); `x` is the
    /// driver's payload for it. It reaches the policy in this instant's
    /// release phase, or later when its predecessor completes.
    pub fn release(&mut self, job: Job, x: X, now: Time) {
        let task = job.id.task;
        if let Some(t) = self.tasks.get_mut(task as usize) {
            t.held.push_back(Held { job, x, at: now });
            if !t.touched {
                t.touched = true;
                self.touched.push(task);
            }
        }
    }

    /// Marks `cpu` for rescheduling at this instant (a driver-side reason,
    /// e.g. a spurious wake-up; the policy answers the same).
    pub fn resched(&mut self, cpu: Cpu) {
        if let Some(m) = self.svc.marked.get_mut(cpu as usize) {
            if !*m {
                *m = true;
                self.svc.marked_list.push(cpu);
            }
        }
    }

    /// What `cpu` runs now, for execution-time timers: `Some(run)` at a
    /// switch-in (and again whenever the start of the job's progress moves),
    /// `None` when it stops running a job. A job that moves between CPUs at
    /// one instant may be reported on its new CPU before or after its old
    /// one is emptied. Needed only while [`Driver::wants_runs`]; the driver
    /// asks the host ([`Host::progress`]) when the first timer is armed.
    #[inline]
    pub fn runs(&mut self, cpu: Cpu, run: Option<Run>) {
        self.svc.timers.runs(cpu, run);
    }

    /// Whether execution-time timers are armed, so [`Driver::runs`]
    /// reports matter (a driver may skip them otherwise).
    #[inline]
    pub fn wants_runs(&self) -> bool {
        self.svc.timers.wants_runs()
    }

    /// When the earliest armed policy timer is due.
    pub fn next_timer(&mut self) -> Option<Time> {
        self.svc.timers.next_due()
    }

    /// The job released to the policy for `task` (not completed), with its payload.
    pub fn delivered(&self, task: u32) -> Option<(Job, X)> {
        self.tasks.get(task as usize).and_then(|t| t.delivered)
    }

    /// The task's jobs held behind its delivered job, oldest first.
    pub fn held(&self, task: u32) -> impl Iterator<Item = &Held<X>> {
        self.tasks.get(task as usize).into_iter().flat_map(|t| t.held.iter())
    }

    /// The task's held job `seq`, found by binary search (held jobs are in
    /// release order, so their sequence numbers increase).
    pub fn held_job(&self, task: u32, seq: u64) -> Option<&Held<X>> {
        let held = &self.tasks.get(task as usize)?.held;
        held.binary_search_by_key(&seq, |h| h.job.id.seq).ok().map(|i| &held[i])
    }

    /// How many of the task's jobs are held.
    pub fn held_len(&self, task: u32) -> usize {
        self.tasks.get(task as usize).map_or(0, |t| t.held.len())
    }

    /// The policy's last answer for `cpu`.
    pub fn chosen(&self, cpu: Cpu) -> Option<JobId> {
        self.chosen.get(cpu as usize).copied().flatten()
    }

    /// Whether any CPU is marked for rescheduling.
    pub fn any_marked(&self) -> bool {
        !self.svc.marked_list.is_empty()
    }

    /// Capacity of the driver's collections (for memory tests).
    pub fn capacity(&self) -> usize {
        self.svc.timers.capacity()
            + self.svc.marked_list.capacity()
            + self.completions.capacity()
            + self.segment_ends.capacity()
            + self.suspensions.capacity()
            + self.touched.capacity()
            + self.round_cpus.capacity()
            + self.tasks.iter().map(|t| t.held.capacity()).sum::<usize>()
    }
}

impl<X: Copy> Driver<X> {
    /// Whether the task has a released job that is not complete (a
    /// completion reported in this instant counts as complete).
    pub fn busy(&self, task: u32) -> bool {
        self.tasks.get(task as usize).is_some_and(|t| (t.delivered.is_some() && !t.completing) || !t.held.is_empty())
    }

    /// Reserves room for `timers` armed policy timers, so a driver that
    /// must not allocate after start-up (the runtime's dispatcher) does not.
    pub fn reserve(&mut self, timers: usize) {
        self.svc.timers.reserve(timers);
    }

    /// Reserves room for `jobs` jobs of `task` held behind their
    /// predecessors (a backlog after overruns or a stalled machine), so a
    /// driver that must not allocate after start-up does not.
    pub fn reserve_held(&mut self, task: u32, jobs: usize) {
        if let Some(t) = self.tasks.get_mut(task as usize) {
            t.held.reserve(jobs);
        }
    }
}
