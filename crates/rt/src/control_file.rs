//! Writing the kernel's control files (cpuset and cgroup files): a failed
//! operation is a system error naming the file and what was tried.

use crate::error::RunError;
use std::path::Path;

/// The error of `what` on the control file `p`.
pub(crate) fn io(what: &str, p: &Path, e: std::io::Error) -> RunError {
    RunError::system(format!("{what} {}", p.display()), e)
}

/// Writes `v` to the control file `p`.
pub(crate) fn write(p: &Path, v: &str) -> Result<(), RunError> {
    std::fs::write(p, v).map_err(|e| io(&format!("write `{v}` to"), p, e))
}
