//! The one error a driver reports when a policy breaks the protocol: the
//! same type, with the same words, from the simulator, the runtime's
//! dispatcher, the validator's replay and the policy tests.

use crate::interface::{Cpu, JobId, Time};
use schedlab_model::Placement;
use std::fmt;

/// A protocol violation by the policy, found by [`super::Driver`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtocolError {
    /// The instant (the driver's clock).
    pub t: Time,
    /// The CPU whose `schedule` answer was illegal, when there is one.
    pub cpu: Option<Cpu>,
    pub violation: Violation,
}

/// What the policy did wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Violation {
    /// `schedule` returned a job of a task the spec does not have.
    UnknownTask { job: JobId },
    /// `schedule` returned a job that is not released to the policy, already
    /// completed, blocked, or still held behind its predecessor.
    NotEligible { job: JobId },
    /// `schedule` returned a job whose task may not run on this CPU.
    Placement { job: JobId, cpu: Cpu, placement: Placement },
    /// `schedule` returned the same job for two CPUs in one round.
    TwoCpus { job: JobId },
    /// `schedule` returned a job the policy placed on another CPU, and that
    /// CPU was not rescheduled in the same round.
    RunningElsewhere { job: JobId, other: Cpu },
    /// `Kernel::resched` named a CPU the platform does not have.
    UnknownCpu { asked: Cpu, cpus: u32 },
    /// The instant did not settle: timers due now or CPUs marked again after
    /// this many rounds of timers and `schedule`.
    Rounds { rounds: u32 },
    /// More than this many timers fired in one round (a timer re-armed for
    /// now from its own expiry, forever).
    Timers { fired: u32 },
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Violation::UnknownTask { job } => {
                write!(f, "schedule returned job {}:{} of a task the spec does not have", job.task, job.seq)
            }
            Violation::NotEligible { job } => write!(
                f,
                "schedule returned job {}:{}, which is not eligible (not released to the policy, already completed, blocked, or waiting for its predecessor)",
                job.task, job.seq
            ),
            Violation::Placement { job, cpu, placement } => write!(
                f,
                "schedule returned job {}:{}, whose task may not run on CPU {cpu} ({placement:?})",
                job.task, job.seq
            ),
            Violation::TwoCpus { job } => write!(f, "schedule returned job {}:{} for two CPUs", job.task, job.seq),
            Violation::RunningElsewhere { job, other } => write!(
                f,
                "schedule returned job {}:{}, which is running on CPU {other} and that CPU was not rescheduled",
                job.task, job.seq
            ),
            Violation::UnknownCpu { asked, cpus } => {
                write!(f, "resched({asked}) names a CPU the platform does not have (CPUs 0..{cpus})")
            }
            Violation::Timers { fired } => write!(
                f,
                "more than {fired} timer expiries at one instant (a timer re-armed for now forever?)"
            ),
            Violation::Rounds { rounds } => write!(
                f,
                "more than {rounds} rounds of timers and schedule at one instant (a timer re-armed for now forever?)"
            ),
        }
    }
}

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.cpu {
            Some(c) => write!(f, "policy protocol error at t={}ns on CPU {c}: {}", self.t, self.violation),
            None => write!(f, "policy protocol error at t={}ns: {}", self.t, self.violation),
        }
    }
}

impl std::error::Error for ProtocolError {}
