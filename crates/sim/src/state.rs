//! Per-task and per-CPU simulation state, allocated once per run.

use crate::segments::Segments;
use crate::summary::{CpuSummary, TaskSummary};
use schedlab_jobs::{Demands, Releases};
use schedlab_model::overheads::Resume;
use schedlab_policy::{Rate, Time};

/// The job of a task that the policy knows (at most one per task: a job is
/// handed to the policy only once its predecessor completed).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Active {
    pub seq: u64,
    pub release: Time,
    pub deadline: Time,
    /// CPU time consumed up to the last settlement.
    pub consumed: Time,
    /// CPU it runs on.
    pub cpu: Option<u32>,
    /// CPU it last ran on.
    pub last_cpu: Option<u32>,
    /// The segment it is in (`crate::segments`).
    pub seg: u32,
    /// The demand retired ([`TaskState::work`]) at which its current CPU segment ends (its
    /// actual execution time in its last CPU segment, or when it has one
    /// segment).
    pub seg_until: Time,
    /// In a suspension segment (blocked).
    pub suspended: bool,
}

#[derive(Debug)]
pub(crate) struct TaskState {
    pub arrivals: Releases,
    pub exec: Demands,
    /// The segments of its jobs (`None`: one execution segment).
    pub segments: Option<Segments>,
    /// Relative deadline.
    pub rel_deadline: Time,
    /// Working-set size (bytes), for CPMD.
    pub wss: u64,
    /// Lowest-numbered CPU the task may run on.
    pub home: u32,
    /// Grid arrival of the job whose release event is queued.
    pub pending_arrival: Time,
    /// Sequence number of the next job created.
    pub next_seq: u64,
    /// The job released to the policy (jobs waiting for their predecessor
    /// are held by the policy driver).
    pub active: Option<Active>,
    /// The active job's CPU time that retired no demand (on CPUs slower
    /// than 1.0; wrapping, so a faster CPU makes it "negative"): the demand
    /// it retired is `consumed − lost` ([`TaskState::work`]). Kept as the
    /// difference, outside `Active`, so that a run at 1.0 only checks the rate.
    pub lost: Time,
    /// The remainder of its demand retired, in millionths of a ns (`Rate::advance`).
    pub carry: u32,
    /// Index in `State::releases` of the task's latest arrival (overhead attribution).
    pub release_idx: u32,
    /// The oldest job neither complete nor checked at its deadline.
    pub dl_seq: u64,
    /// Generation of the task's deadline-check entry.
    pub dl_gen: u32,
    /// CPU where the last job completed (handles the hand-over of the next).
    pub handover_cpu: u32,
    pub sum: TaskSummary,
}

impl TaskState {
    /// The demand the active job `a` retired up to the last settlement.
    #[inline]
    pub fn work(&self, a: &Active) -> Time {
        a.consumed.wrapping_sub(self.lost)
    }
}

#[derive(Debug, Clone, Default)]
pub(crate) struct CpuState {
    /// Task whose active job runs here.
    pub job: Option<u32>,
    /// The job progresses from this time on (later than now while the CPU
    /// is busy with overheads).
    pub run_from: Time,
    /// End of the overhead work charged so far.
    pub stall_until: Time,
    /// Its progress rate (`crate::platform`).
    pub rate: Rate,
    /// Generation of the CPU's completion entry.
    pub gen: u32,
    /// Time of the outstanding current-generation completion entry.
    pub entry_t: Option<Time>,
    /// A time before which the running job cannot complete (its current CPU
    /// segment end), known without computing it: the last exact prediction,
    /// kept while the changes since can only delay the completion (a
    /// settlement, overheads, a lower rate) and rescaled when the rate
    /// rises (`Rate::cpu_at_least`); 0 when unknown. While the entry is not later
    /// than it, nothing needs predicting (`State::predict`).
    pub bound: Time,
    /// In the simulator's list of CPUs whose completion entry is deferred
    /// (`Engine::predict_or_defer`), looked at again after every pass.
    pub deferred: bool,
    // Per-pass scratch.
    pub local: bool,
    pub remote: bool,
    pub touched: bool,
    pub changed: bool,
    pub switched_to: bool,
    pub resume: Option<Resume>,
    /// The platform model's CPMD for the job switched to in this pass.
    pub reload: Time,
    pub releases: u32,
    pub sum: CpuSummary,
}

impl CpuState {
    /// Nothing to predict: the CPU is idle, or its queued completion entry
    /// is not later than its known lower bound of the completion.
    #[inline(always)]
    pub fn prediction_current(&self) -> bool {
        self.job.is_none() || matches!(self.entry_t, Some(e) if e <= self.bound)
    }
}
