//! Shared helpers of the oracles of the replayed policies (PD^2, RUN):
//! simulate a spec under its policy, validate a trace, and check that the
//! replay catches injected faults.

#![allow(dead_code)]

use schedlab_model::Spec;
use schedlab_policy::build;
use schedlab_sim::{simulate, SimConfig};
use schedlab_trace::{Event, Header};
use schedlab_validate::inject::{inject, FaultKind};
use schedlab_validate::{validate, Check, Options, Report};
use std::collections::BTreeMap;

/// Sets per campaign: `SCHEDLAB_ORACLE_SETS=N`, else `default`.
pub fn sets(default: usize) -> usize {
    std::env::var("SCHEDLAB_ORACLE_SETS").ok().and_then(|s| s.parse().ok()).unwrap_or(default)
}

pub fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// A simulated schedule: its trace header and events.
pub struct Run {
    pub header: Header,
    pub events: Vec<Event>,
}

pub fn simulate_spec(spec: &Spec, config: &SimConfig) -> Run {
    let mut policy = build(spec, None).unwrap_or_else(|e| panic!("admission failed: {e}"));
    let header = schedlab_sim::header(spec, policy.info(), config);
    let mut events = Vec::new();
    simulate(spec, policy.as_mut(), config, &mut |e| events.push(e.clone()))
        .unwrap_or_else(|e| panic!("simulation failed: {e}"));
    Run { header, events }
}

/// The validator's report on `events` under the run's header.
pub fn check(run: &Run, events: Vec<Event>) -> Report {
    validate(&run.header, events, &Options::default()).unwrap_or_else(|e| panic!("the trace cannot be validated: {e}"))
}

/// The run's trace as JSON Lines bytes.
pub fn jsonl(run: &Run) -> Vec<u8> {
    let mut w = schedlab_trace::JsonlWriter::new(Vec::new(), &run.header).unwrap();
    for e in &run.events {
        w.write_event(e).unwrap();
    }
    w.finish().unwrap()
}

/// Every run validates as simulated, and every swapped dispatch, delayed
/// dispatch and CPU idled while a job waits that the fault injector makes
/// in it (seeded by the case's seed) is caught by the replay; each kind is
/// injected at least 20 times. `runs` yields (run, seed, description).
pub fn assert_replay_catches_faults(runs: impl IntoIterator<Item = (Run, u64, String)>) {
    let mut caught = BTreeMap::<&str, (usize, usize)>::new();
    for (run, seed, describe) in runs {
        assert!(check(&run, run.events.clone()).pass, "{describe}");
        for &kind in &[FaultKind::SwapDispatch, FaultKind::DelayDispatch, FaultKind::IdleWhileWaiting] {
            let Some(f) = inject(&run.header, &run.events, kind, seed) else { continue };
            let r = check(&run, f.events.clone());
            let c = caught.entry(kind.name()).or_default();
            c.0 += 1;
            if r.violations(Check::Replay) > 0 {
                c.1 += 1;
            } else {
                panic!("{kind}: {} not caught by replay\n{describe}\n{}", f.mutation.description, r.render());
            }
        }
    }
    println!("injected / caught by replay: {caught:?}");
    assert_eq!(caught.len(), 3, "{caught:?}");
    assert!(caught.values().all(|&(n, c)| n >= 20 && c == n), "{caught:?}");
}
