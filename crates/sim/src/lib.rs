//! schedlab's discrete-event simulator: drives a policy written against
//! `schedlab_policy::interface` in virtual time (integer ns), releasing the
//! jobs of the job model (`schedlab-jobs`: arrivals, execution demand,
//! seeding — the same jobs the runtime releases), with overhead models
//! (release, schedule, context switch, IPI, tick, CPMD) and, when the spec
//! has a cache, the platform model (`schedlab-platform`: progress rates,
//! CPMD and counters from what runs where), and passes the schedule's trace
//! events to a sink. Semantics are documented in `docs/simulator.md`.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use schedlab_sim::{simulate, SimConfig};
//! let text = "platform: {cpus: 2}\npolicy: {name: gedf}\ntasks:\n  - {name: a, wcet: 1ms, period: 4ms}\n  - {name: b, wcet: 3ms, period: 8ms}\n";
//! let spec = schedlab_model::load_str(text, None, "example.yaml")?.spec;
//! let mut policy = schedlab_policy::build(&spec, None)?;
//! let config = SimConfig { seed: 7, ..SimConfig::default() };
//! let mut events = Vec::new();
//! let summary = simulate(&spec, policy.as_mut(), &config, &mut |e| events.push(e.clone()))?;
//! // Over the 8 ms hyperperiod: two jobs of `a`, one of `b`, no miss.
//! assert_eq!((summary.completed(), summary.missed()), (3, 0));
//! # Ok(()) }
//! ```

pub mod config;
mod engine;
pub mod error;
pub mod header;
pub mod horizon;
mod kernel;
mod mtt;
pub mod platform;
mod queue;
pub mod report;
mod segments;
pub mod session;
mod state;
pub mod summary;

pub use config::{ReleaseCpu, SimConfig, DEFAULT_HORIZON_CAP, DEFAULT_TICK};
#[doc(hidden)]
pub use engine::capacities_after;
pub use engine::{simulate, simulate_summary};
pub use error::SimError;
pub use header::header;
pub use horizon::horizon;
pub use platform::{CounterSource, CpuView};
pub use schedlab_jobs::{Arrivals, Execution, MissPolicy, Sporadic};
pub use schedlab_model::overheads::{Costs, Overheads};
pub use session::{Outcome, Outputs, Session, SessionError};
pub use summary::{CpuSummary, MttSummary, OverheadTally, SimSummary, TaskSummary};

use schedlab_model::Spec;
use schedlab_policy::Policy;
use schedlab_trace::Event;

/// Runs [`simulate`] and collects every event (convenient for tests and
/// small runs; memory grows with the trace).
pub fn simulate_collect(
    spec: &Spec,
    policy: &mut dyn Policy,
    config: &SimConfig,
) -> Result<(Vec<Event>, SimSummary), SimError> {
    let mut events = Vec::new();
    let s = simulate(spec, policy, config, &mut |e| events.push(e.clone()))?;
    Ok((events, s))
}
