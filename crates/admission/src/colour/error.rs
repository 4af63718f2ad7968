//! Why colour-aware partitioning refused or failed.

/// The kind of failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ColourErrorKind {
    /// The spec breaks a constraint of the model (Eq. 7.1–7.4, HRT tasks
    /// sharing colours, missing colours or memory sizes): bad input.
    Constraint,
    /// The constraints hold but a group or task fits no CPU (the heuristic
    /// failed; another placement may exist).
    NoFit,
}

/// A refusal or failure, with the spec field to change and the tasks to blame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColourError {
    pub kind: ColourErrorKind,
    /// The field path, e.g. `tasks[3].colors` or `policy.partitioning`.
    pub path: String,
    /// The tasks involved (indices).
    pub tasks: Vec<usize>,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl ColourError {
    pub(crate) fn constraint(path: impl Into<String>, tasks: Vec<usize>, message: String) -> ColourError {
        ColourError { kind: ColourErrorKind::Constraint, path: path.into(), tasks, message }
    }
    pub(crate) fn no_fit(tasks: Vec<usize>, message: String) -> ColourError {
        ColourError { kind: ColourErrorKind::NoFit, path: "policy.partitioning".into(), tasks, message }
    }
}

impl std::fmt::Display for ColourError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

impl std::error::Error for ColourError {}
