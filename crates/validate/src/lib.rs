//! schedlab's schedule validator.
//!
//! Given a trace (its [`Header`] and its events, streamed in file order) the
//! validator checks
//!
//! 1. the **generic invariants** every schedule obeys (no job runs before its
//!    release or after its completion, on two CPUs at once, outside its
//!    placement, or while ineligible; no CPU runs two jobs; switches match;
//!    every job is accounted for; sporadic separation; WCET),
//! 2. **policy conformance** for priority-driven policies (in every domain
//!    the running jobs are the highest-priority eligible ones; work
//!    conservation; non-preemption), or
//! 3. a **replay** of the policy over the trace for the others (PD^2, RUN),
//!
//! with a **tolerance** for recorded traces, and measures **decision
//! latencies**. It generalises the trace-based unit tests of LITMUS^RT
//! (Mollison et al., "Towards Unit Testing Real-Time Schedulers in
//! LITMUS^RT", OSPERT 2009). See `docs/validator.md`.
//!
//! [`inject`] produces faulty copies of valid traces, to check that the
//! validator catches them.

mod budget;
pub mod check;
mod conformance;
pub mod error;
pub mod inject;
pub mod latency;
mod memory;
pub mod names;
pub mod options;
mod recorder;
mod replay;
pub mod report;
mod state;
mod validator;

pub use check::Check;
pub use error::ValidateError;
pub use latency::{LatencyKind, LatencyReport, LatencyStats};
pub use options::{Mode, Options};
pub use report::{CheckReport, JobCounts, Miss, Misses, Overrun, Overruns, PolicyChecks, Report, Violation};
pub use validator::Validator;

use schedlab_policy::Policy;
use schedlab_trace::{Event, Header};

/// Validates a trace against the policy its spec names (built with
/// `schedlab_policy::build` and the trace's recorded placement). A spec
/// without a policy, or [`Mode::Generic`], checks the generic invariants only.
pub fn validate(
    header: &Header,
    events: impl IntoIterator<Item = Event>,
    options: &Options,
) -> Result<Report, ValidateError> {
    let policy = if options.mode == Mode::Generic || header.spec.policy.is_none() {
        None
    } else {
        let placement = (!header.placement.is_empty()).then_some(header.placement.as_slice());
        Some(
            schedlab_policy::build(&header.spec, placement)
                .map_err(|e| ValidateError::Policy { path: e.path, message: e.message })?,
        )
    };
    validate_with(header, events, options, policy)
}

/// Validates a trace against the given policy (a fresh instance: replay
/// drives it), or the generic invariants only with `None`. A replayed
/// policy that breaks the driver protocol is [`ValidateError::Protocol`].
pub fn validate_with<'p>(
    header: &Header,
    events: impl IntoIterator<Item = Event>,
    options: &Options,
    policy: Option<Box<dyn Policy + 'p>>,
) -> Result<Report, ValidateError> {
    let mut v = Validator::new(header, options, policy)?;
    for e in events {
        v.push(e)?;
    }
    if let Some(e) = v.protocol_error() {
        return Err(ValidateError::Protocol(e.clone()));
    }
    let (report, error) = v.finish_replay();
    match error {
        Some(e) => Err(ValidateError::Protocol(e)),
        None => Ok(report),
    }
}
