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

/// Whether the tasks of a quantum have working sets (declared) beyond the
/// example's 1 MiB cache: w1 and w2 (tasks 3, 4) share `video`'s.
fn thrashes(q: &[u32]) -> bool {
    let wss = |t: u32| [768u64, 512, 512, 768, 768][t as usize] * 1024;
    let mut owners: Vec<u32> = q.iter().map(|&t| t.min(3)).collect();
    owners.dedup();
    owners.iter().map(|&o| wss(o)).sum::<u64>() > 1024 * 1024
}

/// With `profile: true` the policy starts knowing no MTT's working set
/// (`video`'s counts 0: it is promoted first, as the smallest, and
/// co-scheduled as if it fitted) and learns it from the platform model's
/// miss counters through the working-set profiler; t, u and v, in no `mtt`
/// group, keep their declared WSSs. The example with its periods doubled
/// (utilisation 0.75 of 2 CPUs, so that no job is late, see
/// docs/reproductions.md): `video` runs first, alone, so it is measured
/// clean at once, and no quantum thrashes. The replay answers the policy's
/// counter readings from the trace's `counter-sample` events.
#[test]
fn an_mtts_unknown_working_set_counts_zero_until_the_profiler_measures_it() {
    let mut spec = example();
    for t in &mut spec.tasks {
        t.period.0 *= 2;
    }
    spec.policy.as_mut().unwrap().profile = Some(true);
    let mut p = schedlab_policy::build(&spec, None).unwrap();
    let config = SimConfig { horizon: Some(400 * MS), ..SimConfig::default() };
    let h = header(&spec, p.info(), &config);
    let (ev, sum) = simulate_collect(&spec, p.as_mut(), &config).unwrap();
    let r = validate(&h, ev.clone(), &Options::default()).unwrap();
    assert!(r.pass, "{}", r.render());
    let got = quanta(&ev, 400);
    let thrash: Vec<usize> = (0..400).filter(|&i| thrashes(&got[i])).collect();
    println!("thrashing quanta: {thrash:?}; first 32: {:?}", &got[..32]);
    // Declared, u and v (512 KiB) would go first; unknown, video counts 0.
    assert_eq!(got[..2], [vec![3, 4], vec![3, 4]], "video first: its WSS counts 0 until measured");
    assert!(thrash.is_empty(), "thrashing quanta: {thrash:?}");
    // The simulator's own profiler, fed the same counts, agrees on video.
    let video = sum.mtts.iter().find(|m| m.name == "video").expect("video's metrics");
    assert!(video.converged && video.estimate == 768 * 1024, "{video:?}");
}

/// Calandrino's Fig. 5.2 (notes §3.4): the Fig. 4.6 set with every task an
/// MTT (t, u and v single-threaded ones, as the thesis' example has it) and
/// every WSS learnt. As in the figure, a miss here costs no time (the
/// figure's thrashing jobs still take their quantum; with the default
/// calibration the bootstrap's thrashing stretches jobs and the set never
/// recovers, see docs/reproductions.md): the first quanta thrash, the
/// estimates start at the cache-size cap, isolation makes them exact, and
/// the schedule settles into Fig. 4.6(b)'s.
#[test]
fn the_profilers_convergence_of_fig_5_2() {
    let (spec, got, sum) = fig_5_2(400);
    let thrash: Vec<usize> = (0..400).filter(|&i| thrashes(&got[i])).collect();
    println!("quanta 0-24: {:?}; thrashing quanta: {thrash:?}", &got[..24]);
    assert!(thrash.first() == Some(&0), "the cache thrashes at 0: nothing is known");
    assert!(thrash.iter().all(|&i| i < 16), "no thrashing after the bootstrap: {thrash:?}");
    // From the second hyperperiod on, the golden schedule of Fig. 4.6(b)
    // (the thesis: "from t = 4 on").
    let (t, u, v, w1, w2) = (0, 1, 2, 3, 4);
    let golden = [vec![u, v], vec![t], vec![t], vec![w1, w2], vec![w1, w2], vec![u, v], vec![t], vec![t]];
    for i in 8..400 {
        assert_eq!(got[i], golden[i % 8], "quantum {i}");
    }
    for m in &sum.mtts {
        let declared = spec.mtt_wss(spec.mtts().iter().position(|x| x.name == m.name).unwrap()).unwrap().0;
        assert!(m.converged && m.estimate == declared, "{m:?}");
    }
    // When each estimate converges (the simulator's profiler, fed the same
    // counts by the same rules; a run of h ms sees the jobs completed by
    // h): the thesis' Fig. 5.2 says T at 7, U and V at 9, video at 21.
    let converged = |h: u64| -> Vec<(String, bool)> {
        fig_5_2(h).2.mtts.iter().map(|m| (m.name.clone(), m.converged)).collect::<Vec<_>>()
    };
    let at = |h: u64, name: &str| converged(h).iter().any(|(n, c)| n == name && *c);
    for (name, when) in [("T", 7), ("U", 9), ("V", 9), ("video", 21)] {
        assert!(!at(when - 1, name) && at(when, name), "{name} converges at {when} ms");
    }
}

/// The Fig. 5.2 run: its spec, the quanta of [0, `h`) ms and the summary.
fn fig_5_2(h: u64) -> (Spec, Vec<Vec<u32>>, schedlab_sim::SimSummary) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/mtt.yaml");
    let text = std::fs::read_to_string(root)
        .unwrap()
        .replace("mtt:\n", "mtt:\n  - {name: T, tasks: [t]}\n  - {name: U, tasks: [u]}\n  - {name: V, tasks: [v]}\n");
    let mut spec = schedlab_model::load_str(&text, None, "mtt.yaml").unwrap().spec;
    let mut policy = PolicySpec::named(PolicyName::CaGedf);
    policy.profile = Some(true);
    spec.policy = Some(policy);
    let mut p = schedlab_policy::build(&spec, None).unwrap();
    let calibration = schedlab_platform::Calibration { miss_cycles: 0.0, ..Default::default() };
    let config = SimConfig { horizon: Some(h * MS), calibration, ..SimConfig::default() };
    let hd = header(&spec, p.info(), &config);
    let (ev, sum) = simulate_collect(&spec, p.as_mut(), &config).unwrap();
    let r = validate(&hd, ev.clone(), &Options::default()).unwrap();
    assert!(r.pass, "{}", r.render());
    (spec, quanta(&ev, h), sum)
}

/// Without counters (no platform model: the simulator has no counter
/// source) `profile: true` cannot measure: the policy says so once in the
/// trace and schedules with the declared WSSs, the golden schedule from 0.
#[test]
fn without_counters_profiling_falls_back_to_the_declared_wss() {
    let mut spec = example();
    spec.policy.as_mut().unwrap().profile = Some(true);
    let mut p = schedlab_policy::build(&spec, None).unwrap();
    let config =
        SimConfig { horizon: Some(16 * MS), platform_model: false, spec_overheads: false, ..SimConfig::default() };
    let h = header(&spec, p.info(), &config);
    let (ev, _) = simulate_collect(&spec, p.as_mut(), &config).unwrap();
    let said: Vec<String> = ev
        .iter()
        .filter_map(|e| match e {
            Event::Policy { event: PolicyEvent::CountersUnavailable { reason }, .. } => Some(reason.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(said[0].contains("declared wss"), "{}", said[0]);
    let (t, u, v, w1, w2) = (0, 1, 2, 3, 4);
    let golden = [vec![u, v], vec![t], vec![t], vec![w1, w2], vec![w1, w2], vec![u, v], vec![t], vec![t]];
    assert_eq!(quanta(&ev, 8), golden);
    let r = validate(&h, ev, &Options::default()).unwrap();
    assert!(r.pass, "{}", r.render());
}
