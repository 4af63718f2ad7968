//! Honest retries for the CLI's runtime tests (as in `crates/rt/tests/common.rs`):
//! a run is repeated (at most three attempts) only when its validation
//! failed and the run itself measured a platform stall, shown by its
//! `--json` output: a stall above 1 ms (`run.stalls`), or a timer lateness
//! (an overhead of kind release-latency, release, schedule or ipi) above
//! the validator's tolerance. The evidence and the number of retries are
//! printed past cargo's output capture.

#![allow(dead_code)]

use std::io::Write;

/// A line in the test log, written past cargo's output capture.
pub fn log(s: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{s}");
}

/// The run's evidence of a platform stall, from `schedlab run --json` output.
pub fn stall_evidence(v: &serde_json::Value, tolerance_ns: u64) -> Option<String> {
    let mut ev = Vec::new();
    let stalls = v["run"]["stalls"].as_array().map(|a| a.len()).unwrap_or(0);
    if stalls > 0 {
        let worst = v["run"]["stalls"].as_array().unwrap().iter().filter_map(|s| s["ns"].as_u64()).max().unwrap_or(0);
        ev.push(format!("{stalls} platform stall(s) above 1 ms, worst {:.3} ms", worst as f64 / 1e6));
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
