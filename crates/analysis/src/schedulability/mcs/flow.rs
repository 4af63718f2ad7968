//! End-to-end flows (transactions): a periodic or sporadic activation runs
//! a chain of steps, each on one resource (a CPU or the shared memory
//! `Mem`), each step released when the one before it completes. This is the
//! distributed-system view of a PREM task that the holistic analysis works
//! on (Rivas et al., ECRTS 2019, §5, Figure 10; Tindell & Clark 1994).

use std::fmt;

/// What a step runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Resource {
    /// The system-wide memory resource the memory-phase scheduler arbitrates
    /// (one memory phase at a time).
    Mem,
    /// A CPU, by index.
    Cpu(u32),
}

impl fmt::Display for Resource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Resource::Mem => f.write_str("Mem"),
            Resource::Cpu(c) => write!(f, "CPU {c}"),
        }
    }
}

/// One step of a flow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// How explanations name it (`P1`, `E1`, `W1`, …).
    pub label: String,
    pub resource: Resource,
    /// Worst-case execution time Cᵢⱼ in ns.
    pub wcet: u64,
    /// Best-case execution time in ns (at most `wcet`), for the best-case
    /// jitter refinement.
    pub bcet: u64,
    /// Fixed priority on its resource: a smaller number is a higher
    /// priority; equal priorities are served in FIFO order (the analysis
    /// counts an equal-priority step as interference, which covers FIFO).
    pub priority: u64,
    /// Whether a higher-priority step may preempt it once it has started.
    pub preemptive: bool,
}

/// A chain of steps activated every `period`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flow {
    /// The task it models, by index in the task set.
    pub task: usize,
    /// Period or minimum inter-arrival time Tᵢ in ns.
    pub period: u64,
    /// End-to-end deadline Dᵢ in ns, from the activation.
    pub deadline: u64,
    /// External release jitter Jᵢ in ns.
    pub jitter: u64,
    pub steps: Vec<Step>,
    /// A background flow (the memory-phase worker's phases of an A-MP
    /// task): its steps load their resources and, when non-preemptive,
    /// block others, but its own response is not analysed.
    pub background: bool,
}
