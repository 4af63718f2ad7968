//! The trace header: what produced the schedule, from which spec, with which
//! clock and seed, and where each task was placed.

pub use schedlab_model::Placement;
use schedlab_model::Spec;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where the schedule comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// The discrete-event simulator (virtual time, decisions are instantaneous).
    Simulator,
    /// The Linux runtime (real time; decisions lag events by the decision latency).
    Runtime,
    /// Imported from another tool's trace.
    Import,
}

/// The first record of every trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(title = "schedlab trace header")]
pub struct Header {
    /// Always [`crate::SCHEMA_VERSION`] for traces this crate writes.
    pub schedlab_trace: u32,
    /// The tool and version, e.g. `schedlab 0.1.0`.
    pub tool: String,
    pub source: Source,
    /// The clock times are measured on: `virtual` for the simulator,
    /// `CLOCK_MONOTONIC` for the runtime. Times are ns from the system release.
    pub clock: String,
    /// The seed of every random choice made while producing the trace.
    pub seed: u64,
    /// The spec the schedule is for (tasks are referred to by index into it).
    pub spec: Spec,
    /// Placement of each task, by task index (after partitioning).
    pub placement: Vec<Placement>,
    /// End of the observed schedule (ns); events after it are not recorded.
    pub horizon: u64,
    /// Jobs progressed at rates below 1 (a simulation with the platform
    /// model or slower CPUs): a job's CPU time may exceed its demand, and
    /// the validator reports CPU time beyond the WCET as an overrun, not a
    /// violation. Absent: false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub slowed: bool,
}

impl Header {
    /// A header for `spec` written by this version of schedlab: every task
    /// placed globally (set [`Header::placement`] after partitioning), the
    /// clock named after the source (`virtual` for the simulator,
    /// `CLOCK_MONOTONIC` for the runtime, `unknown` for imports).
    pub fn new(spec: Spec, source: Source, seed: u64, horizon: u64) -> Header {
        let clock = match source {
            Source::Simulator => "virtual",
            Source::Runtime => "CLOCK_MONOTONIC",
            Source::Import => "unknown",
        };
        Header {
            schedlab_trace: crate::SCHEMA_VERSION,
            tool: schedlab_model::TOOL.to_string(),
            source,
            clock: clock.to_string(),
            seed,
            placement: vec![Placement::Global; spec.tasks.len()],
            spec,
            horizon,
            slowed: false,
        }
    }

    /// The name of task `task`, or `T<task>` when the spec has no such task.
    pub fn task_name(&self, task: u32) -> std::borrow::Cow<'_, str> {
        match self.spec.tasks.get(task as usize) {
            Some(t) => std::borrow::Cow::Borrowed(t.name.as_str()),
            None => std::borrow::Cow::Owned(format!("T{task}")),
        }
    }
}
