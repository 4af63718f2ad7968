//! Why a simulation could not run or stopped.

use schedlab_model::SpecError;
use schedlab_policy::{Cpu, Time};
use std::fmt;

/// A simulation error. Policy errors are the policy's bugs (the simulator
/// refuses a schedule it cannot carry out); configuration and overhead
/// errors are bad input (exit code 2).
#[derive(Debug, Clone, PartialEq)]
pub enum SimError {
    /// The policy broke the protocol of `schedlab_policy::interface`.
    Policy { t: Time, cpu: Option<Cpu>, message: String },
    /// The overhead file could not be used.
    Overheads(SpecError),
    /// The configuration or the policy's declared info does not fit the spec.
    Config(String),
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::Policy { t, cpu: Some(c), message } => write!(f, "policy error at t={t}ns on CPU {c}: {message}"),
            SimError::Policy { t, cpu: None, message } => write!(f, "policy error at t={t}ns: {message}"),
            SimError::Overheads(e) => write!(f, "{e}"),
            SimError::Config(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for SimError {}

impl From<SpecError> for SimError {
    fn from(e: SpecError) -> SimError {
        SimError::Overheads(e)
    }
}
