//! The hold queue: a task's jobs are released to the policy one at a time.
//! A job released while its predecessor is incomplete waits here until the
//! predecessor completes, and is then handed over (in the release phase of
//! that instant). Each entry carries the driver's own payload `X` (e.g. the
//! job's actual execution time in the simulator).

use crate::interface::{Cpu, Job, Time};
use std::collections::VecDeque;

/// A released job waiting for its predecessor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Held<X> {
    pub job: Job,
    pub x: X,
    /// When it was released to the driver.
    pub at: Time,
}

/// One task's jobs as the driver tracks them.
#[derive(Debug, Clone)]
pub(crate) struct TaskJobs<X> {
    /// The job released to the policy and not yet completed.
    pub delivered: Option<(Job, X)>,
    /// The delivered job is blocked.
    pub blocked: bool,
    /// Its completion is buffered for this instant.
    pub completing: bool,
    /// The CPU the policy last chose for the delivered job.
    pub cpu: Option<Cpu>,
    /// Round stamp of the last answer that chose it (duplicate detection).
    pub assigned: u64,
    pub held: VecDeque<Held<X>>,
    /// In this instant's list of tasks whose releases are to be delivered
    /// (each task once, so the list never outgrows the task count).
    pub touched: bool,
}

impl<X> TaskJobs<X> {
    pub fn new() -> TaskJobs<X> {
        TaskJobs {
            delivered: None,
            blocked: false,
            completing: false,
            cpu: None,
            assigned: 0,
            held: VecDeque::with_capacity(4),
            touched: false,
        }
    }
}
