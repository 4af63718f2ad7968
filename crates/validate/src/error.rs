//! Traces that cannot be checked at all.

/// Why a trace cannot be validated (as opposed to a trace that was checked
/// and found to violate a rule, which is a failing [`crate::Report`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ValidateError {
    /// The spec's policy cannot be built (unknown, not implemented, or the
    /// recorded placement is not admissible).
    Policy { path: String, message: String },
    /// An event is earlier than the one before it (events must be in time order).
    OutOfOrder { index: u64, t: u64, previous: u64 },
    /// The header or an event is malformed (unknown task or CPU, wrong schema version).
    Malformed { index: Option<u64>, message: String },
    /// The replayed policy broke the driver protocol (an illegal `schedule`
    /// answer): the same error the simulator and the runtime report.
    Protocol(schedlab_policy::ProtocolError),
}

impl std::fmt::Display for ValidateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ValidateError::Policy { path, message } if path.is_empty() => {
                write!(f, "cannot build the policy: {message}")
            }
            ValidateError::Policy { path, message } => write!(f, "cannot build the policy: {path}: {message}"),
            ValidateError::OutOfOrder { index, t, previous } => {
                write!(f, "event {index} is out of time order: t={t}ns after an event at t={previous}ns")
            }
            ValidateError::Malformed { index: Some(i), message } => write!(f, "event {i}: {message}"),
            ValidateError::Malformed { index: None, message } => write!(f, "header: {message}"),
            ValidateError::Protocol(e) => write!(f, "replay: {e}"),
        }
    }
}

impl std::error::Error for ValidateError {}
