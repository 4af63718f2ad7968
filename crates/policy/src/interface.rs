//! The driver-neutral policy interface.
//!
//! A policy is written once and driven by the simulator (virtual time), by the
//! Linux runtime's dispatcher (real time) and by the validator's replay. It is
//! modelled on LITMUS^RT's plugin callbacks: the driver reports job releases,
//! completions, blocking and resumption, and the expiry of timers the policy
//! armed; the policy asks for rescheduling of CPUs, and answers, per CPU, which
//! job that CPU should run now.
//!
//! A policy sees only what a kernel sees: the task parameters (at
//! construction), releases with their absolute deadlines, completions, the
//! execution time consumed so far by any job, and its own timers. It never
//! sees a job's actual execution time before the job completes.
//!
//! # Protocol
//!
//! At each instant the driver delivers every event due at that time, in this
//! order: completions, then segment ends, then blocks and resumes, then
//! releases (in task order), then timers (in the order they were armed). Each callback may call
//! [`Kernel::resched`] for any CPU. After the last event of the instant, the
//! driver calls [`Policy::schedule`] once for each CPU marked for
//! rescheduling, in increasing CPU order, and then performs the resulting
//! switches (all switch-aways before any switch-to, so a job may move from one
//! CPU to another at the same instant). `schedule` must not return the same
//! job for two CPUs, nor a job that is not released, completed or blocked.
//! The driver may call `schedule` for a CPU that was not marked (e.g. after a
//! real-time dispatcher's spurious wake-up); the policy answers the same.
//! This protocol is implemented once, in [`crate::driver`], which every
//! driver (simulator, runtime dispatcher, replay, tests) goes through.
//!
//! # Execution-time timers
//!
//! Besides wall-clock timers ([`Kernel::arm`]) a policy may arm a timer on a
//! job's execution time ([`Kernel::arm_exec`]): it fires when the job has
//! consumed that much CPU time — a server's budget, a WCET-overrun check, a
//! laxity event. It expires through the same [`Policy::timer`] callback, in
//! the same timer phase and order (due time, then arming order), so a policy
//! handles both kinds in one place and tells them apart by the tag it chose;
//! a second callback would have needed a second place in the order of an
//! instant for no gain. An execution-time timer runs down only while its job
//! runs: the driver keeps it as a wall-clock expiry at "started running at
//! `t` with `c` consumed" plus the budget left, re-armed at every switch-in
//! and disarmed at every switch-out (`crate::driver`). It counts CPU time,
//! the same quantity as [`Kernel::consumed`], not the demand a CPU of
//! [`Kernel::rate`] below 1.0 retires: a budget is a budget of processor
//! time, as in a real kernel. A job's execution-time timers are cancelled
//! when it completes.
//!
//! # Counters and progress rate
//!
//! [`Kernel::counters`] reads a CPU's counters from the driver's source
//! ([`Counters`]); every source may answer [`CountersUnavailable`], and a
//! policy must schedule without them then. [`Kernel::rate`] is a CPU's
//! progress rate ([`Rate`], read-only), 1.0 unless the simulator was told
//! otherwise.
//!
//! # Activities: work the policy itself does on a CPU
//!
//! Some policies do work of their own on a CPU, not a task's job: the
//! memory-phase worker of `mcs` copies a task's next Section while the task
//! executes (docs/policies.md, MCS). The policy keeps such an
//! [`Activity`]'s state and length itself (its own timers, its own trace
//! events) and answers `None` for the CPU while it runs; it tells the
//! driver with [`Kernel::occupy`] when the CPU starts and stops doing it.
//! A driver that only accounts time (the simulator, the validator's
//! replay) has nothing to do: the CPU idles for the jobs. A real-time
//! driver runs the activity on a thread of its own on that CPU (the
//! dispatch backend, on the CPUs [`Policy::activity_cpus`] names), doing
//! the work for the task's segment, and stops it when the policy says so.

pub use crate::counters::{Counters, CountersUnavailable};
pub use crate::rate::Rate;
pub use schedlab_model::PolicyEvent;
use schedlab_model::{Placement, SegmentKind};

/// Time in integer nanoseconds since the system release.
pub type Time = u64;
/// A CPU number.
pub type Cpu = u32;

/// A job: the task's index in the spec and the job's 0-based sequence number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JobId {
    pub task: u32,
    pub seq: u64,
}

/// What a policy learns about a job when it is released.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Job {
    pub id: JobId,
    /// Release time.
    pub release: Time,
    /// Absolute deadline.
    pub deadline: Time,
}

/// A timer armed by a policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TimerId(pub u64);

/// Work a policy does itself on a CPU ([`Kernel::occupy`]): on behalf of
/// `job`, the task's segment `segment` (0-based, of
/// `schedlab_model::Task::segments`), e.g. the memory-phase worker's
/// prefetch of a later Section.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Activity {
    pub job: JobId,
    pub segment: u32,
}

/// The services a driver offers a policy.
pub trait Kernel {
    /// The current time.
    fn now(&self) -> Time;
    /// Execution time the job has consumed so far, including the current
    /// stint if it is running.
    fn consumed(&self, job: JobId) -> Time;
    /// The job the driver is currently running on `cpu`.
    fn running(&self, cpu: Cpu) -> Option<JobId>;
    /// Asks for [`Policy::schedule`] to be called for `cpu` at the end of the
    /// current instant.
    fn resched(&mut self, cpu: Cpu);
    /// Arms a timer that fires at `at` (clamped to now if in the past) and
    /// delivers `tag` to [`Policy::timer`].
    fn arm(&mut self, at: Time, tag: u64) -> TimerId;
    /// Arms an execution-time timer: it fires (through [`Policy::timer`],
    /// with `tag`) at the instant `job` has consumed `at_consumed` ns of CPU
    /// time ([`Kernel::consumed`]); at once if it already has. It runs down
    /// only while the job runs, is cancelled with [`Kernel::cancel`] like a
    /// wall-clock timer, and is dropped when the job completes. A timer for
    /// a job the policy does not know (completed, not released) fires at
    /// once if `at_consumed` is 0 and otherwise never (until cancelled).
    fn arm_exec(&mut self, job: JobId, at_consumed: Time, tag: u64) -> TimerId;
    /// Cancels a timer (wall-clock or execution-time); cancelling a fired or
    /// cancelled timer does nothing.
    fn cancel(&mut self, timer: TimerId);
    /// The counters of `cpu` from the driver's source, or why there are
    /// none (see [`Counters`]). A policy must handle the error.
    fn counters(&mut self, _cpu: Cpu) -> Result<Counters, CountersUnavailable> {
        Err(CountersUnavailable::NoSource { what: "this kernel" })
    }
    /// The progress rate of `cpu` ([`Rate`]): how much demand a job there
    /// retires per ns of CPU time. 1.0 unless the driver models otherwise.
    fn rate(&self, _cpu: Cpu) -> Rate {
        Rate::ONE
    }
    /// Whether policy events are being recorded (build their payload only then).
    fn tracing(&self) -> bool {
        false
    }
    /// Records a policy event in the trace (a RUN server selection, an FPDS
    /// preemption point taken, ...), on `cpu` when it concerns one. Build
    /// the event only when [`Kernel::tracing`] says so.
    fn note(&mut self, _cpu: Option<Cpu>, _event: PolicyEvent) {}
    /// From now on `cpu` does the policy's own `activity` (`None`: none):
    /// the policy answers `None` for `cpu` meanwhile, and keeps the
    /// activity's length itself. A call with the activity already running
    /// changes nothing; the last call of an instant counts. Only for a CPU
    /// of [`Policy::activity_cpus`].
    fn occupy(&mut self, _cpu: Cpu, _activity: Option<Activity>) {}
}

/// A job's state as the validator reconstructs it from a trace, for
/// priority comparisons.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobView {
    pub id: JobId,
    pub release: Time,
    pub deadline: Time,
    /// Execution time consumed by `now`.
    pub consumed: Time,
    /// The instant of the comparison.
    pub now: Time,
}

/// A priority: smaller is more urgent, compared lexicographically. `tie` is
/// the deterministic tie-break (normally the task index).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Priority {
    pub major: i128,
    pub minor: i128,
    pub tie: u32,
}

impl Priority {
    pub fn new(major: i128, minor: i128, tie: u32) -> Priority {
        Priority { major, minor, tie }
    }
}

/// How a policy preempts a running job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Preemption {
    /// At any instant, by a higher-priority job (G-EDF, P-FP, ...).
    Full,
    /// Never: a started job runs to completion (NP-G-EDF, FPNS).
    None,
    /// Only at the job's preemption points, the boundaries between its
    /// segments ([`Policy::segment_end`]); the final segment (the final
    /// non-preemptive region) runs to completion (FPDS, G-FPDS).
    AtPoints,
}

/// How the validator checks a schedule of this policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conformance {
    /// In every domain, at every instant, the running jobs are the
    /// highest-priority eligible jobs of the domain ([`Policy::priority`]).
    PriorityDriven {
        /// A running job may be preempted by a higher-priority one. When
        /// false, a job runs to completion once started, and only CPUs that
        /// become free pick the highest-priority waiting job.
        preemptive: bool,
        /// No CPU of a domain idles while an eligible job of the domain waits.
        work_conserving: bool,
        /// A waiting job may beat a running one by up to this much on
        /// `Priority::major` without preempting it (LLF's rule against
        /// laxity-tie thrashing); 0 for job-level fixed priorities.
        hysteresis: Time,
    },
    /// Priority-driven with deferred preemption ([`Preemption::AtPoints`]):
    /// a running job is switched away only at one of its preemption points
    /// or when it completes or blocks; there, the CPU takes the
    /// highest-priority eligible job of its domain. A waiting job that
    /// outranks a running one waits at most until that job's next point.
    Deferred {
        /// No CPU of a domain idles while an eligible job of the domain waits.
        work_conserving: bool,
    },
    /// Not "top-m by priority" (PD^2, RUN): checked by replaying the policy
    /// over the trace's releases and completions.
    Replay,
}

impl Conformance {
    /// How the policy preempts (replayed policies preempt at any instant).
    pub fn preemption(&self) -> Preemption {
        match self {
            Conformance::PriorityDriven { preemptive: true, .. } | Conformance::Replay => Preemption::Full,
            Conformance::PriorityDriven { preemptive: false, .. } => Preemption::None,
            Conformance::Deferred { .. } => Preemption::AtPoints,
        }
    }
}

/// What a policy declares about itself once admitted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyInfo {
    /// The policy's name as in the spec (`gedf`, `pedf`, ...).
    pub name: &'static str,
    /// Scheduling domains: the CPUs of each. Global policies have one domain
    /// with every CPU, partitioned ones one per CPU, clustered ones one per cluster.
    pub domains: Vec<Vec<Cpu>>,
    /// Where each task (by index) may run.
    pub placement: Vec<Placement>,
    pub conformance: Conformance,
    /// A quantum-driven policy's quantum (PD^2): its timers may fire at
    /// every quantum boundary, so a driver that sizes its buffers up front
    /// (the runtime's dispatcher) expects a wake-up per quantum.
    pub quantum: Option<Time>,
}

impl PolicyInfo {
    /// The domain a task belongs to.
    pub fn domain_of(&self, task: usize) -> usize {
        match &self.placement[task] {
            Placement::Global => 0,
            Placement::Cpu { cpu } => self.domains.iter().position(|d| d.contains(cpu)).unwrap_or(0),
            Placement::Cluster { cluster, .. } => *cluster as usize,
        }
    }
}

/// A scheduling policy.
pub trait Policy: Send {
    /// What the policy declares about itself.
    fn info(&self) -> &PolicyInfo;
    /// A job is released (it becomes eligible once its predecessor completed;
    /// the driver releases a job only after its predecessor completed, or
    /// queues it until then).
    fn release(&mut self, job: Job, k: &mut dyn Kernel);
    /// A job completed (or was aborted) and no longer runs.
    fn complete(&mut self, job: JobId, k: &mut dyn Kernel);
    /// A job blocked: it is not eligible until it resumes.
    fn block(&mut self, job: JobId, k: &mut dyn Kernel);
    /// A blocked job resumes.
    fn resume(&mut self, job: JobId, k: &mut dyn Kernel);
    /// The job finished its segment `segment` (0-based, of
    /// `schedlab_model::Task::segments`), of kind `kind`, and goes on with
    /// the next: the boundary between two segments, a preemption point for
    /// deferred-preemption policies. Delivered for every boundary a driver
    /// observes (not after the last segment: that is [`Policy::complete`]);
    /// a job whose next segment is a suspension blocks right after (a
    /// separate [`Policy::block`]). Default: nothing.
    fn segment_end(&mut self, _job: JobId, _segment: u32, _kind: SegmentKind, _k: &mut dyn Kernel) {}
    /// A timer armed with [`Kernel::arm`] expired, or one armed with
    /// [`Kernel::arm_exec`] reached its job's execution time.
    fn timer(&mut self, timer: TimerId, tag: u64, k: &mut dyn Kernel);
    /// The job `cpu` should run now, or `None` to idle.
    fn schedule(&mut self, cpu: Cpu, k: &mut dyn Kernel) -> Option<JobId>;
    /// The priority of a job at `job.now`, for priority-driven policies (the
    /// validator compares running and waiting jobs with it). `None` for
    /// policies checked by replay.
    fn priority(&self, job: &JobView) -> Option<Priority>;
    /// The CPUs on which the policy may do its own work
    /// ([`Kernel::occupy`]); default none.
    fn activity_cpus(&self) -> Vec<Cpu> {
        Vec::new()
    }
}
