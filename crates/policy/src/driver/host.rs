//! What a driver supplies: its clock, its execution accounting and its
//! switching ([`Host`]), and what it hears about the callbacks the protocol
//! delivers ([`Delivery`]), e.g. to attribute overheads to a CPU.

use super::Run;
use crate::interface::{Activity, Counters, CountersUnavailable, Cpu, Job, JobId, Rate, Time};
use schedlab_model::{PolicyEvent, SegmentKind};

/// A callback the driver is about to deliver (or has just delivered).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivery<X> {
    /// `Policy::complete` of a job the policy knew.
    Complete(JobId),
    /// `Policy::segment_end`: the job finished segment `segment` of kind `kind`.
    SegmentEnd { job: JobId, segment: u32, kind: SegmentKind },
    /// `Policy::block`.
    Block(JobId),
    /// `Policy::resume`.
    Resume(JobId),
    /// `Policy::release`. `waited`: the job was held behind its predecessor
    /// since an earlier instant (released to the policy at a hand-over).
    Release { job: Job, x: X, waited: bool },
    /// `Policy::timer` of a timer due at `due`.
    Timer { due: Time },
}

/// The driver-specific half of a policy's kernel: the clock, the execution
/// accounting and the switching. Everything else — the order of the
/// callbacks, the timers, the rescheduling marks, the rounds of `schedule`
/// and the checks on its answers — is [`super::Driver`]'s.
pub trait Host<X = ()> {
    /// The current time as the policy sees it.
    fn now(&self) -> Time;
    /// Execution consumed by `job` so far (including a current stint).
    fn consumed(&self, job: JobId) -> Time;
    /// The job the driver is running on `cpu`.
    fn running(&self, cpu: Cpu) -> Option<JobId>;
    /// Carries out a round's decisions: for each CPU of `cpus` (increasing),
    /// `chosen[cpu]` is what it must run now. A driver that switches does all
    /// switch-aways before any switch-to.
    fn switch(&mut self, cpus: &[Cpu], chosen: &[Option<JobId>]);
    /// A callback is about to be delivered.
    fn delivering(&mut self, _what: &Delivery<X>) {}
    /// A callback was delivered.
    fn delivered(&mut self, _what: &Delivery<X>) {}
    /// `cpu` was marked for rescheduling (by the policy, or by the driver
    /// because the job chosen for it completed or blocked).
    fn marked(&mut self, _cpu: Cpu) {}
    /// What `cpu` runs and since when it progresses (see
    /// [`super::Driver::runs`]); default: its job, progressing from now.
    /// A host whose CPUs may be busy with kernel work before a job
    /// progresses (the simulator's overheads) says when it will.
    fn progress(&self, cpu: Cpu) -> Option<Run> {
        self.running(cpu).map(|job| Run { job, from: self.now(), consumed: self.consumed(job) })
    }
    /// The counters of `cpu` ([`crate::Kernel::counters`]); default: none.
    fn counters(&mut self, _cpu: Cpu) -> Result<Counters, CountersUnavailable> {
        Err(CountersUnavailable::NoSource { what: "this driver" })
    }
    /// The progress rate of `cpu` ([`crate::Kernel::rate`]); default 1.0.
    fn rate(&self, _cpu: Cpu) -> Rate {
        Rate::ONE
    }
    /// Whether policy events are recorded ([`crate::Kernel::tracing`]).
    fn tracing(&self) -> bool {
        false
    }
    /// Records a policy event ([`crate::Kernel::note`]).
    fn note(&mut self, _cpu: Option<Cpu>, _event: PolicyEvent) {}
    /// The policy's own work on `cpu` ([`crate::Kernel::occupy`]); default:
    /// nothing (a driver that accounts time only).
    fn occupy(&mut self, _cpu: Cpu, _activity: Option<Activity>) {}
}
