//! `ca-gedf` in the simulator on `examples/mtt.yaml` (Calandrino's Fig. 4.6
//! set, notes §9.2 G9/G10): without the platform model the golden schedule
//! of the heuristic, four phantom jobs per hyperperiod of 8 ms, and no
//! quantum whose working sets exceed the cache; with the platform model and
//! with overheads the schedules still pass the validator's replay.

use schedlab_model::{PolicyName, PolicySpec, Spec};
use schedlab_sim::{header, simulate_collect, Costs, Overheads, SimConfig};
use schedlab_trace::{Event, PolicyEvent};
use schedlab_validate::{validate, Options};

const MS: u64 = 1_000_000;

fn example() -> Spec {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/mtt.yaml");
    let mut spec = schedlab_model::load_path(&root).unwrap().spec;
    spec.policy = Some(PolicySpec::named(PolicyName::CaGedf));
    spec
}

/// The tasks running in each 1 ms quantum of [0, h), sorted.
fn quanta(ev: &[Event], h: u64) -> Vec<Vec<u32>> {
    let mut open: Vec<Option<(u32, u64)>> = vec![None; 2];
    let mut stints = Vec::new();
    for e in ev {
        match *e {
            Event::SwitchTo { t, cpu, task, .. } => open[cpu as usize] = Some((task, t)),
            Event::SwitchAway { t, cpu, task, .. } => {
                let (tk, s) = open[cpu as usize].take().unwrap();
                assert_eq!(tk, task);
                stints.push((task, s, t));
            }
            _ => {}
        }
    }
    (0..h)
        .map(|i| {
            let mut v: Vec<u32> = stints.iter().filter(|s| s.1 <= i * MS && s.2 >= (i + 1) * MS).map(|s| s.0).collect();
            v.sort();
            v
        })
        .collect()
}

#[test]
fn the_example_runs_the_golden_schedule_with_four_phantoms_per_hyperperiod() {
    let spec = example();
    let mut p = schedlab_policy::build(&spec, None).unwrap();
    let config =
        SimConfig { horizon: Some(32 * MS), platform_model: false, spec_overheads: false, ..SimConfig::default() };
    let h = header(&spec, p.info(), &config);
    let (ev, _) = simulate_collect(&spec, p.as_mut(), &config).unwrap();
    let (t, u, v, w1, w2) = (0, 1, 2, 3, 4);
    let golden = [vec![u, v], vec![t], vec![t], vec![w1, w2], vec![w1, w2], vec![u, v], vec![t], vec![t]];
    let got = quanta(&ev, 32);
    for hp in 0..4 {
        assert_eq!(got[hp * 8..hp * 8 + 8], golden[..], "hyperperiod {hp}");
    }
    let phantoms: Vec<u64> = ev
        .iter()
        .filter_map(|e| match e {
            Event::Policy { t, event: PolicyEvent::Phantom { .. }, .. } if *t < 32 * MS => Some(*t / MS),
            _ => None,
        })
        .collect();
    assert_eq!(phantoms.len(), 16, "m·H − Σ e·H/p = 4 per hyperperiod: {phantoms:?}");
    let r = validate(&h, ev, &Options::default()).unwrap();
    assert!(r.pass, "{}", r.render());
}

#[test]
fn with_the_platform_model_and_overheads_the_schedules_replay() {
    let spec = example();
    let o = Overheads::constant(Costs {
        release: 20_000,
        schedule: 30_000,
        context_switch: 25_000,
        ipi: 15_000,
        tick: 5_000,
        release_latency: 10_000,
    });
    for config in [
        SimConfig { horizon: Some(80 * MS), ..SimConfig::default() },
        SimConfig { horizon: Some(80 * MS), overheads: Some(o), ..SimConfig::default() },
    ] {
        let mut p = schedlab_policy::build(&spec, None).unwrap();
        let h = header(&spec, p.info(), &config);
        let (ev, _) = simulate_collect(&spec, p.as_mut(), &config).unwrap();
        assert!(ev.iter().any(|e| matches!(e, Event::Policy { event: PolicyEvent::PriorityPromotion { .. }, .. })));
        let r = validate(&h, ev, &Options::default()).unwrap();
        assert!(r.pass, "{}", r.render());
    }
}
