//! Honest retries for the CLI's runtime tests (as in `crates/rt/tests/common.rs`):
//! a run is repeated (at most [`ATTEMPTS`]) only when its validation
//! failed and the run itself measured a platform stall, shown by its
//! `--json` output: a stall longer than half the tolerance (`run.stalls`,
//! the dispatcher's late wake-ups among them), or a timer lateness
//! (an overhead of kind release-latency, release, schedule or ipi) above
//! the validator's tolerance. The evidence and the number of retries are
//! printed past cargo's output capture.

#![allow(dead_code)]

use std::io::Write;

/// How many times a run may be made when every failure is a platform stall
/// (as `crates/rt/tests/common.rs`: on noisy days six stalled in a row).
pub const ATTEMPTS: u32 = 10;

/// A line in the test log, written past cargo's output capture.
pub fn log(s: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{s}");
}

/// The run's evidence of a platform stall, from `schedlab run --json` output.
pub fn stall_evidence(v: &serde_json::Value, tolerance_ns: u64) -> Option<String> {
    let mut ev = Vec::new();
    // A stall of at most half the tolerance cannot explain a violation beyond it.
    let long: Vec<u64> = v["run"]["stalls"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s["ns"].as_u64())
        .filter(|&ns| ns > tolerance_ns / 2)
        .collect();
    if let Some(worst) = long.iter().max() {
        ev.push(format!(
            "{} platform stall(s) above half the tolerance, worst {:.3} ms",
            long.len(),
            *worst as f64 / 1e6
        ));
    }
    for o in v["run"]["overheads"].as_array().into_iter().flatten() {
        let kind = o["kind"].as_str().unwrap_or("");
        let max = o["max_ns"].as_u64().unwrap_or(0);
        if ["release-latency", "release", "schedule", "ipi"].contains(&kind) && max > tolerance_ns {
            ev.push(format!(
                "timer lateness ({kind}) {:.0} µs above the tolerance {:.0} µs",
                max as f64 / 1e3,
                tolerance_ns as f64 / 1e3
            ));
        }
    }
    (!ev.is_empty()).then(|| ev.join("; "))
}
