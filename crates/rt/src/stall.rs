//! Platform stalls: intervals in which the machine did not run what the
//! run's own clocks say it should have (the vCPU was not running the guest,
//! the process was stopped with SIGSTOP, a non-preemptible kernel section
//! of another process held the CPU). They are measured by the run itself
//! and reported as stalls, not as scheduling overheads:
//!
//! - **timer lateness**: a release instant (the absolute timer's expiry) →
//!   the job's first instruction, or one of the kernel-side parts of that
//!   interval, on a CPU no job of the run held, longer than
//!   [`THRESHOLD_NS`];
//! - **dispatcher lateness** (dispatch backend): the dispatcher thread woke
//!   up later than its timeout (the next release, quantum boundary or
//!   other policy timer) by more than [`THRESHOLD_NS`]; every decision due
//!   meanwhile was taken that late;
//! - **CPU-time gap**: a job's running time in the trace (the kernel's
//!   running intervals) minus the thread CPU time it used, larger than
//!   [`THRESHOLD_NS`] (the thread was "running" but did not execute).
//!
//! Each becomes a `platform-stall` policy event in the trace and an entry of
//! [`crate::RunOutcome::stalls`]; its interval is not an overhead sample.

use serde::Serialize;

/// An interval longer than this (1 ms) is a stall, not an overhead: 10× the
/// release latency's p99.9 measured on this kind of VM idle (`schedlab probe
/// latency`: p99 79 µs), half the validator's default tolerance.
pub const THRESHOLD_NS: u64 = 1_000_000;

/// The name of the trace's policy event that records a stall.
pub const PLATFORM_STALL: &str = "platform-stall";
/// The stall kind of the dispatcher's own late wake-up.
pub const DISPATCHER_LATENESS: &str = "timer-lateness (dispatcher wake-up)";

/// One stall.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Stall {
    /// ns from the synchronous release.
    pub t: u64,
    /// `timer-lateness` (with the overhead it replaced) or `cpu-time-gap`.
    pub kind: String,
    /// The job it delayed, when known (the dispatch backend's release
    /// latencies name only the CPU).
    pub job: Option<(u32, u64)>,
    /// Its length (ns).
    pub ns: u64,
}

/// The evidence, one line, for a test log or a note; `None` without stalls.
pub fn evidence(stalls: &[Stall]) -> Option<String> {
    let worst = stalls.iter().max_by_key(|s| s.ns)?;
    let late = stalls.iter().filter(|s| s.kind.starts_with("timer-lateness")).map(|s| s.ns).max().unwrap_or(0);
    let gap = stalls.iter().filter(|s| s.kind == "cpu-time-gap").map(|s| s.ns).max().unwrap_or(0);
    Some(format!(
        "{} platform stall(s) above {:.1} ms: max timer lateness {:.3} ms, max CPU-time gap {:.3} ms; worst {}{} at {:.3} ms, {:.3} ms",
        stalls.len(),
        THRESHOLD_NS as f64 / 1e6,
        late as f64 / 1e6,
        gap as f64 / 1e6,
        worst.kind,
        worst.job.map(|(t, j)| format!(" of job {t}:{j}")).unwrap_or_default(),
        worst.t as f64 / 1e6,
        worst.ns as f64 / 1e6
    ))
}
