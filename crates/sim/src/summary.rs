//! What a run reports besides its trace: counts and minimal per-task and
//! per-CPU metrics, accumulated in O(1) memory per task and CPU (so memory
//! does not grow with the number of jobs). Detailed metrics come from the
//! trace crate's streaming accumulator fed by the event sink.

pub use crate::mtt::MttSummary;
use schedlab_policy::Time;

/// Per-task metrics.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaskSummary {
    /// Jobs released (trace `Release` events).
    pub released: u64,
    /// Jobs that completed (including aborted ones).
    pub completed: u64,
    /// Jobs aborted at their deadline (`MissPolicy::Abort`).
    pub aborted: u64,
    /// Deadline misses (`DeadlineMiss` events).
    pub missed: u64,
    /// Releases skipped (`MissPolicy::Skip`).
    pub skipped: u64,
    /// Largest response time (completion − release) of a completed job.
    pub max_response: Time,
    /// Sum of response times of completed jobs (for the mean).
    pub total_response: u128,
    /// Largest tardiness max(0, completion − deadline) of a completed job.
    pub max_tardiness: Time,
    /// Times a job of the task was switched away before completing.
    pub preemptions: u64,
    /// Times a job resumed on a different CPU than it last ran on.
    pub migrations: u64,
    /// Total cache-related delay charged to the task's jobs.
    pub cpmd: Time,
    /// CPU time its jobs ran (overheads excluded), up to the end.
    pub exec: Time,
    /// Largest max(0, t − deadline) of a job aborted at t or unfinished at
    /// the end t (`max_tardiness` covers the jobs that completed).
    pub max_late_end: Time,
    /// Shared-cache misses of the task's jobs (the platform model's
    /// synthetic count; 0 without a model).
    pub cache_misses: u64,
}

/// Overhead intervals of one kind on one CPU.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OverheadTally {
    pub count: u64,
    pub total: Time,
    pub max: Time,
}

/// Per-CPU metrics.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CpuSummary {
    /// Time jobs progressed on the CPU, up to the end.
    pub busy: Time,
    /// Overhead time charged to the CPU (release, schedule, context switch,
    /// IPI, tick, CPMD).
    pub overhead: Time,
    /// Switches to a job.
    pub switches: u64,
    /// Overhead intervals in the trace, by kind (`OverheadKind::index`),
    /// release latency included.
    pub overheads: [OverheadTally; 7],
    /// Shared-cache misses on the CPU (the platform model's synthetic
    /// count; 0 without a model).
    pub cache_misses: u64,
}

/// The result of a simulation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SimSummary {
    /// The simulated interval is [0, horizon].
    pub horizon: Time,
    /// The seed used.
    pub seed: u64,
    /// Queue entries processed (stale ones excluded).
    pub events: u64,
    /// Trace events passed to the sink.
    pub trace_events: u64,
    pub tasks: Vec<TaskSummary>,
    pub cpus: Vec<CpuSummary>,
    /// Jobs released to the policy and not complete at the horizon, plus queued ones.
    pub incomplete: u64,
    /// Per MTT (`spec.mtt`), with a platform model: its jobs' spans and
    /// misses, and the working-set profiler's estimate (empty otherwise).
    pub mtts: Vec<MttSummary>,
}

impl SimSummary {
    pub fn released(&self) -> u64 {
        self.tasks.iter().map(|t| t.released).sum()
    }
    pub fn completed(&self) -> u64 {
        self.tasks.iter().map(|t| t.completed).sum()
    }
    pub fn missed(&self) -> u64 {
        self.tasks.iter().map(|t| t.missed).sum()
    }
}
