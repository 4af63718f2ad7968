//! Shared helpers of the interop tests: simulate a spec, validate a trace.
#![allow(dead_code)]

use schedlab_sim::{header, simulate_collect, SimConfig};
use schedlab_trace::{Event, Header};

pub const MS: u64 = 1_000_000;

/// Simulate a YAML spec for `horizon_ms` (policy events off).
pub fn simulate(yaml: &str, horizon_ms: u64) -> (Header, Vec<Event>) {
    let spec = schedlab_model::load_str(yaml, None, "<test>").expect("valid spec").spec;
    let mut policy = schedlab_policy::build(&spec, None).expect("admitted");
    let config = SimConfig { horizon: Some(horizon_ms * MS), policy_events: false, ..SimConfig::default() };
    let h = header(&spec, policy.info(), &config);
    let (events, _) = simulate_collect(&spec, policy.as_mut(), &config).expect("simulates");
    (h, events)
}

/// Validate with a tolerance; the report.
pub fn validate(h: &Header, events: &[Event], tolerance: u64) -> schedlab_validate::Report {
    schedlab_validate::validate(h, events.iter().cloned(), &schedlab_validate::Options::with_tolerance(tolerance))
        .expect("the validator runs")
}

/// A fresh temporary directory under the target dir.
pub fn tmpdir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("schedlab-interop-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("create a temp dir");
    d
}
