//! The run's stop request: set by the end of the duration, a signal, the
//! watchdog or a failed job body; the first reason wins.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// Why a run ended.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind", content = "detail")]
pub enum StopReason {
    /// The duration elapsed and every job in progress finished.
    Finished,
    /// SIGINT or SIGTERM (the signal number).
    Signal(i32),
    /// The watchdog ended the run (what it saw).
    Watchdog(String),
    /// A job body panicked or failed (which, and how).
    JobFailed(String),
}

#[derive(Debug, Default)]
pub struct Stop {
    flag: AtomicBool,
    reason: Mutex<Option<StopReason>>,
}

impl Stop {
    pub fn new() -> Stop {
        Stop::default()
    }
    /// Requests the stop; the first reason is kept.
    pub fn request(&self, r: StopReason) {
        let mut g = self.reason.lock().unwrap_or_else(|p| p.into_inner());
        if g.is_none() {
            *g = Some(r);
        }
        self.flag.store(true, Ordering::SeqCst);
    }
    #[inline]
    pub fn is_set(&self) -> bool {
        self.flag.load(Ordering::Relaxed)
    }
    pub fn reason(&self) -> StopReason {
        self.reason.lock().unwrap_or_else(|p| p.into_inner()).clone().unwrap_or(StopReason::Finished)
    }
}
