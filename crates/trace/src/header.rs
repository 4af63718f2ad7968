//! The trace header: what produced the schedule, from which spec, with which
//! clock and seed, and where each task was placed.

pub use schedlab_model::Placement;
use schedlab_model::Spec;
use serde::{Deserialize, Serialize};

/// Where the schedule comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
}
