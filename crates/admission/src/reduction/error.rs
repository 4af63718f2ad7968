//! Why a task set cannot be reduced.

/// A task set RUN cannot schedule, or a bad parameter, with the field it is
/// about and how to fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReductionError {
    /// Field path in the spec (`tasks[3].wcet`, `tasks`, `policy.partitioning`).
    pub path: String,
    /// The task to blame, if one is.
    pub task: Option<usize>,
    /// What is wrong and what to do about it.
    pub message: String,
}

impl ReductionError {
    pub(crate) fn new(path: impl Into<String>, task: Option<usize>, message: impl Into<String>) -> ReductionError {
        ReductionError { path: path.into(), task, message: message.into() }
    }
}

impl std::fmt::Display for ReductionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for ReductionError {}
