//! What the validator checks and how strictly.

use schedlab_trace::Time;

/// Which policy checks run besides the generic invariants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// What the policy declares: priority-driven conformance, or replay.
    #[default]
    Auto,
    /// Priority-driven conformance (an error for a policy without priorities).
    Priority,
    /// Replay the policy over the trace, whatever it declares.
    Replay,
    /// Only the generic invariants; the policy is not built.
    Generic,
}

/// Validator options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Deviations resolved within this time are accepted: 0 for simulator
    /// traces, the decision latency for recorded ones. It also widens the
    /// sporadic separation and WCET checks.
    pub tolerance: Time,
    /// Which policy checks run.
    pub mode: Mode,
    /// How many events before a violation its report quotes.
    pub history: usize,
    /// How many deadline misses and overruns the report lists (all are counted).
    pub list: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options { tolerance: 0, mode: Mode::Auto, history: 10, list: 10 }
    }
}

impl Options {
    /// Options with the given tolerance.
    pub fn with_tolerance(tolerance: Time) -> Options {
        Options { tolerance, ..Options::default() }
    }
}
