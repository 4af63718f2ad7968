//! What the simulated platform adds to the spec's CPUs: a progress rate per
//! CPU and a counter source, the two hooks a platform model (memory
//! contention, caches, frequency) plugs into.
//!
//! **Progress rate.** A job on CPU `c` retires its demand at `rate(c)` ns
//! per ns of CPU time (`schedlab_policy::Rate`, exact integer arithmetic in
//! millionths, the remainder carried with the job): with 0.5, a 2 ms segment
//! takes 4 ms. [`SimConfig::rates`](crate::SimConfig::rates) sets them for a
//! run (1.0 for a CPU it does not list); policies read them with
//! `Kernel::rate` and cannot change them. What a policy sees as a job's
//! consumption, the trace's `exec`, and what execution-time timers count is
//! CPU time, not demand retired.
//!
//! **Counters.** `Kernel::counters` asks the run's [`CounterSource`]
//! ([`SimConfig::counters`](crate::SimConfig::counters)); without one, the
//! platform model (`schedlab-platform`, run when the spec has a cache)
//! answers with its synthetic counts, and otherwise the answer is
//! `CountersUnavailable::NoSource`.
//!
//! **The platform model** also sets the rates: after each pass that changed
//! what runs where, `State::update_model_rates` (kernel.rs) has it
//! recompute every CPU's slowdown, and a CPU's rate is its configured rate
//! times the model's. Its CPMD is charged on each switch-to. With policy events on, every reading a
//! policy gets is written to the trace as a `counter-sample` policy event
//! on its CPU, which replay answers `Kernel::counters` from.

use schedlab_policy::{Counters, CountersUnavailable, Cpu, JobId, Time};
use std::fmt::Debug;

/// What the simulator knows about a CPU when a policy reads its counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CpuView {
    pub cpu: Cpu,
    pub now: Time,
    /// The job it runs.
    pub running: Option<JobId>,
    /// CPU time spent running jobs since the start of the run.
    pub busy: Time,
}

/// A source of simulated counter readings (the platform model's).
pub trait CounterSource: Debug + Send + Sync {
    /// The counters of `view.cpu` at `view.now`.
    fn read(&self, view: &CpuView) -> Result<Counters, CountersUnavailable>;
}
