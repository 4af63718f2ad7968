//! Building the policy a spec names: admission (offline work such as
//! partitioning) happens here.

use crate::interface::Policy;
use schedlab_model::{Placement, Spec};

/// Why a task set cannot be admitted by its policy (e.g. partitioning failed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdmissionError {
    /// Field path in the spec the problem is about (`policy.partitioning`, `tasks[3]`).
    pub path: String,
    pub message: String,
}

impl std::fmt::Display for AdmissionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for AdmissionError {}

/// Builds the policy of `spec.policy`. With `placement`, the policy uses that
/// placement of tasks instead of computing one (the validator passes the
/// placement recorded in a trace).
pub fn build(spec: &Spec, placement: Option<&[Placement]>) -> Result<Box<dyn Policy>, AdmissionError> {
    let _ = (spec, placement);
    Err(AdmissionError { path: "policy.name".into(), message: "no policy is implemented yet".into() })
}
