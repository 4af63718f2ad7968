//! The real policies of schedlab-policy under the simulator, with the
//! validator as the oracle: every simulated schedule passes it, with and
//! without overheads, and G-EDF matches the test policy of `common`.

mod common;

use common::*;
use schedlab_model::{Duration, PolicyName, PolicySpec, Size, Spec};
use schedlab_sim::{header, simulate_collect, Arrivals, Costs, Execution, MissPolicy, Overheads, SimConfig, Sporadic};
use schedlab_validate::{validate, Options};

fn workload(cpus: u32, name: PolicyName) -> Spec {
    let params = [
        (1_000, 4_000),
        (2_000, 5_000),
        (3_000, 10_000),
        (1_500, 6_000),
        (4_000, 20_000),
        (2_500, 12_000),
        (500, 3_000),
    ];
    let mut tasks: Vec<_> = params.iter().enumerate().map(|(i, &(c, p))| task(&format!("t{i}"), c, p)).collect();
    for (i, t) in tasks.iter_mut().enumerate() {
        t.wss = Some(Size(4096 * (i as u64 + 1)));
        t.bcet = Some(Duration(t.wcet.0 / 2));
    }
    let mut s = spec(cpus, tasks);
    s.policy = Some(PolicySpec::named(name));
    s
}

fn configs() -> Vec<SimConfig> {
    let base = SimConfig { horizon: Some(600_000), seed: 9, ..SimConfig::default() };
    let mut o = Overheads::constant(Costs {
        release: 30,
        schedule: 50,
        context_switch: 40,
        ipi: 25,
        tick: 10,
        release_latency: 15,
    });
    o.cpmd = schedlab_model::overheads::Cpmd::Bound { line: 64, miss_num: 1, miss_den: 4 };
    vec![
        base.clone(),
        SimConfig {
            arrivals: Arrivals { sporadic: Sporadic::Exponential { mean: 1_000 }, ..Arrivals::default() },
            execution: Execution::Uniform,
            ..base.clone()
        },
        SimConfig { overheads: Some(o.clone()), tick: 5_000, ..base.clone() },
        SimConfig { overheads: Some(o), tick: 5_000, miss: MissPolicy::Abort, execution: Execution::Uniform, ..base },
    ]
}

#[test]
fn every_simulated_schedule_passes_the_validator() {
    let policies = [
        (PolicyName::Gedf, 2),
        (PolicyName::Pedf, 3),
        (PolicyName::Gfp, 2),
        (PolicyName::Pfp, 3),
        (PolicyName::NpGedf, 2),
        (PolicyName::Llf, 2),
        (PolicyName::Edzl, 2),
    ];
    for (name, cpus) in policies {
        let s = workload(cpus, name);
        for (k, config) in configs().into_iter().enumerate() {
            let mut p = match schedlab_policy::build(&s, None) {
                Ok(p) => p,
                Err(e) => panic!("{name:?}: {e}"),
            };
            let h = header(&s, p.info(), &config);
            let (ev, sum) =
                simulate_collect(&s, p.as_mut(), &config).unwrap_or_else(|e| panic!("{name:?} config {k}: {e}"));
            assert!(sum.released() > 100);
            check_trace(&ev, cpus as usize);
            let report = validate(&h, ev, &Options::default()).unwrap();
            assert!(
                report.pass,
                "{name:?} config {k}: {}",
                serde_json::to_string_pretty(&report.checks.iter().filter(|c| c.violations > 0).collect::<Vec<_>>())
                    .unwrap()
            );
        }
    }
}

#[test]
fn gedf_matches_the_test_policy() {
    let s = workload(2, PolicyName::Gedf);
    let config = SimConfig { horizon: Some(600_000), ..SimConfig::default() };
    let mut real = schedlab_policy::build(&s, None).unwrap();
    let (a, _) = simulate_collect(&s, real.as_mut(), &config).unwrap();
    let (b, _) = simulate_collect(&s, &mut TopM::edf(&s), &config).unwrap();
    // Same jobs complete at the same times (CPU choices may differ).
    let fin = |ev: &[schedlab_trace::Event]| {
        let mut v: Vec<_> = (0..s.tasks.len() as u32).flat_map(|t| completions(ev, t)).collect();
        v.sort();
        v
    };
    assert_eq!(fin(&a), fin(&b));
}

#[test]
fn uniprocessor_edf_of_the_policy_crate_at_full_utilisation() {
    let mut s = spec(1, vec![task("a", 3_000, 10_000), task("b", 4_000, 10_000), task("c", 6_000, 20_000)]);
    s.policy = Some(PolicySpec::named(PolicyName::Pedf));
    let mut p = schedlab_policy::build(&s, None).unwrap();
    let (ev, sum) = simulate_collect(&s, p.as_mut(), &SimConfig::default()).unwrap();
    assert!(misses(&ev).is_empty());
    assert_eq!(sum.cpus[0].busy, sum.horizon);
}

/// Under PD^2 every job runs one quantum at a time and is preempted at
/// most boundaries, so its completion is almost never the next event of
/// its CPU (the simulator defers such predictions): it must still come at
/// the exact instant its demand is met, mid-quantum included. Two tasks of
/// weight 1/2 on one CPU (quantum 1 ms, windows of 2 quanta) alternate:
/// `a` (2.5 ms of 6 ms) runs in quanta 0, 2 and 4 and completes at 4.5 ms;
/// `b` (3 ms) runs in quanta 1, 3 and 5 and completes at 6 ms.
#[test]
fn pd2_jobs_cut_at_every_boundary_complete_at_their_exact_instant() {
    let mut s = spec(1, vec![task("a", 2_500_000, 6_000_000), task("b", 3_000_000, 6_000_000)]);
    let mut ps = PolicySpec::named(PolicyName::Pd2);
    ps.quantum = Some(Duration(1_000_000));
    s.policy = Some(ps);
    let config = SimConfig { horizon: Some(13_000_000), ..SimConfig::default() };
    let mut p = schedlab_policy::build(&s, None).unwrap();
    let (ev, sum) = simulate_collect(&s, p.as_mut(), &config).unwrap();
    check_trace(&ev, 1);
    let ms = 1_000_000;
    assert_eq!(
        completions(&ev, 0),
        vec![(4 * ms + ms / 2, 0, 2 * ms + ms / 2, false), (10 * ms + ms / 2, 1, 2 * ms + ms / 2, false)]
    );
    assert_eq!(completions(&ev, 1), vec![(6 * ms, 0, 3 * ms, false), (12 * ms, 1, 3 * ms, false)]);
    // Preempted at every boundary but its last: 2 switch-aways by preemption per job of `a`.
    assert!(sum.tasks[0].preemptions >= 2, "{:?}", sum.tasks[0]);
    assert!(misses(&ev).is_empty());
}
