//! The two-phase colour-aware scheduler (`cap-gs-dynamic`) is checked by
//! replay: its throttle decisions depend on counters, and the replay reads
//! them from the trace's `counter-sample` events. A simulated schedule
//! passes; the same trace with one throttle undone (the BE job kept running
//! when the policy took it off) fails.

use schedlab_model::load_str;
use schedlab_policy::{build, Counters, CountersUnavailable};
use schedlab_sim::{simulate_collect, CounterSource, CpuView, SimConfig};
use schedlab_trace::Event;
use schedlab_validate::{validate_with, Mode, Options};
use std::sync::Arc;

const MS: u64 = 1_000_000;

#[derive(Debug)]
struct Hitm;

impl CounterSource for Hitm {
    fn read(&self, view: &CpuView) -> Result<Counters, CountersUnavailable> {
        let hitm = if view.cpu == 1 { view.busy / 10_000 } else { 0 };
        Ok(Counters { coherence_misses: Some(hitm), ..Counters::default() })
    }
}

#[test]
fn a_throttled_schedule_replays_and_an_undone_throttle_is_caught() {
    let yaml = "platform: {cpus: 2, cache: {size: 1MiB, ways: 16, line: 64B}}\npolicy: {name: cap-gs-dynamic}\ntasks:\n  - {name: s, wcet: 4ms, period: 10ms, colors: [1], class: srt, cpu: 0}\n  - {name: b, wcet: 50ms, period: 100ms, colors: [1], class: be, cpu: 1}\n";
    let spec = load_str(yaml, None, "t.yaml").unwrap().spec;
    let mut policy = build(&spec, None).unwrap();
    let config = SimConfig {
        horizon: Some(60 * MS),
        policy_events: true,
        counters: Some(Arc::new(Hitm)),
        ..SimConfig::default()
    };
    let (events, _) = simulate_collect(&spec, policy.as_mut(), &config).unwrap();
    let header = schedlab_sim::header(&spec, policy.info(), &config);
    let options = Options { mode: Mode::Replay, ..Options::default() };
    let report = validate_with(&header, events.clone(), &options, Some(build(&spec, None).unwrap())).unwrap();
    assert!(report.pass, "{}", report.render());

    // Undo the first throttle: b's switch-away at 10 ms and its switch-back at 14 ms go.
    let away = events
        .iter()
        .position(|e| matches!(e, Event::SwitchAway { t, task: 1, .. } if *t == 10 * MS))
        .expect("b leaves CPU 1 at the first sample");
    let back = events
        .iter()
        .position(|e| matches!(e, Event::SwitchTo { t, task: 1, .. } if *t == 14 * MS))
        .expect("b comes back when s completes");
    let mut undone = events.clone();
    undone.remove(back);
    undone.remove(away);
    let report = validate_with(&header, undone, &options, Some(build(&spec, None).unwrap())).unwrap();
    assert!(!report.pass, "an undone throttle must be caught");
}
