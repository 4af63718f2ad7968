//! Run errors and the exit codes the CLI maps them to.

use std::fmt;

/// Exit code: bad input (spec, options, a policy the backend cannot run);
/// nothing on the machine was touched.
pub const EXIT_BAD_INPUT: i32 = 2;
/// Exit code: the privileges the run needs are missing; nothing was touched.
pub const EXIT_PRIVILEGE: i32 = 3;
/// Exit code: the run failed after it started (admission refused by the
/// kernel, a job body failed, the watchdog fired); everything was restored.
pub const EXIT_FAILURE: i32 = 1;

/// Why a run could not start or did not complete.
#[derive(Debug, Clone, PartialEq)]
pub enum RunError {
    /// Bad input, found before anything was touched.
    BadInput(String),
    /// Missing privileges, found before anything was touched.
    Privilege(String),
    /// The kernel refused SCHED_DEADLINE admission (EBUSY), with the numbers.
    Admission(String),
    /// A system call or file operation failed.
    System(String),
    /// A job body panicked or returned an error the run cannot continue after.
    Job(String),
    /// The watchdog ended the run.
    Watchdog(String),
    /// A second run holds the machine-wide run lock.
    Busy(String),
    /// The policy broke the driver protocol (dispatch backend): the same
    /// error the simulator and the validator's replay report.
    Protocol(schedlab_policy::ProtocolError),
}

impl RunError {
    /// The CLI exit code for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            RunError::BadInput(_) => EXIT_BAD_INPUT,
            RunError::Privilege(_) => EXIT_PRIVILEGE,
            _ => EXIT_FAILURE,
        }
    }
    pub fn system(what: impl fmt::Display, e: impl fmt::Display) -> RunError {
        RunError::System(format!("{what}: {e}"))
    }
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::BadInput(m) => write!(f, "{m}"),
            RunError::Privilege(m) => write!(f, "insufficient privileges: {m}"),
            RunError::Admission(m) => write!(f, "kernel admission refused: {m}"),
            RunError::System(m) => write!(f, "{m}"),
            RunError::Job(m) => write!(f, "job failed: {m}"),
            RunError::Watchdog(m) => write!(f, "watchdog: {m}"),
            RunError::Busy(m) => write!(f, "{m}"),
            RunError::Protocol(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for RunError {}
