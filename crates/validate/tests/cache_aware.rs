//! `ca-gedf` oracles: the policy simulated over random MTT sets with random
//! parameters of Fig. 4.2, each schedule checked by the validator (generic
//! invariants and replay of the policy, its promotion and phantom events
//! included) at tolerance 0; the replay catches injected faults and a
//! G-EDF schedule presented as `ca-gedf`'s.
//!
//! `SCHEDLAB_ORACLE_SETS=N` runs N sets instead of the default.

mod replayed;

use replayed::*;
use schedlab_model::rng::Rng;
use schedlab_model::{Cache, Duration, Mtt, Platform, PolicyName, PolicySpec, Size, Spec, Task};
use schedlab_sim::{Execution, SimConfig};
use schedlab_trace::{Event, PolicyEvent};
use schedlab_validate::Check;

const MS: u64 = 1_000_000;
const KIB: u64 = 1024;
/// Periods in quanta: harmonic, so the hyperperiod is at most 16 quanta.
const PERIODS: &[u64] = &[2, 4, 8, 16];

fn case_seed(salt: u64, i: usize) -> u64 {
    0x15ca_2026_u64 ^ salt.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ i as u64
}

fn cache() -> Cache {
    serde_json::from_value(serde_json::json!({"size": "1MiB", "ways": 16, "line": "64B"})).unwrap()
}

/// A random set on 2 to 4 CPUs sharing 1 MiB, quantum 1 ms: tasks with
/// harmonic periods, WCETs of whole quanta (or, with `below`, executions
/// that end mid-quantum), WSSs of 0 to 1 MiB, some grouped into MTTs of 2
/// or 3 tasks of one period; total utilisation up to m·(1.1); random
/// parameters of Fig. 4.2.
fn random_case(seed: u64, below: bool) -> (Spec, SimConfig, String) {
    let mut r = Rng::new(seed);
    let m = r.range_u64(2, 4) as u32;
    let target = r.range_u64(m as u64 * 8, m as u64 * 18); // utilisation in sixteenths
    let mut tasks: Vec<Task> = Vec::new();
    let mut total = 0;
    let mut mtts: Vec<Mtt> = Vec::new();
    while total < target && tasks.len() < 10 {
        let p = *r.choose(PERIODS).unwrap();
        let threads = if r.below(3) == 0 { r.range_u64(2, 3.min(m as u64)) } else { 1 };
        let wss = Size(r.range_u64(0, 16) * 64 * KIB);
        let mut names = Vec::new();
        for _ in 0..threads {
            let e = r.range_u64(1, p.min(3));
            total += e * (16 / p);
            let name = format!("t{}", tasks.len());
            let mut t = Task::new(name.clone(), Duration(e * MS), Duration(p * MS));
            if below {
                t.bcet = Some(Duration(r.range_u64(MS / 10, e * MS)));
            }
            if threads == 1 {
                t.wss = Some(wss);
            }
            names.push(name);
            tasks.push(t);
        }
        if threads > 1 {
            let refs: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
            mtts.push(Mtt::new(format!("m{}", mtts.len()), &refs, Some(wss)));
        }
    }
    let mut policy = PolicySpec::named(PolicyName::CaGedf);
    policy.quantum = Some(Duration(MS));
    policy.cache_threshold = Some(*r.choose(&[0, 0, 50, 75]).unwrap());
    policy.cache_policy = Some(r.range_u64(1, 5) as u8);
    if r.below(2) == 0 {
        policy.lost_cause_threshold = Some(110);
        policy.lost_cause_policy = Some(r.range_u64(1, 3) as u8);
    }
    policy.phantoms = Some(r.below(4) != 0);
    policy.avoid_partially_eligible = Some(r.below(2) == 0);
    policy.promotion_duration = Some(r.range_u64(1, 2) as u8);
    let describe = format!("seed {seed:#x}, m {m}, {} tasks, utilisation {total}/16, {:?}", tasks.len(), policy);
    let spec = Spec {
        meta: None,
        platform: Platform { cpus: m, clusters: None, cache: Some(cache()), memory: None },
        policy: Some(policy),
        overheads: None,
        reservations: None,
        mtt: (!mtts.is_empty()).then_some(mtts),
        tasks,
    };
    let config = SimConfig {
        horizon: Some(48 * MS),
        seed: r.next_u64(),
        spec_overheads: false,
        execution: if below { Execution::Uniform } else { Execution::Wcet },
        ..SimConfig::default()
    };
    (spec, config, describe)
}

/// Every random schedule validates, its replay included (the promotions
/// and phantom jobs the replayed policy records are the trace's), with and
/// without the platform model slowing the jobs.
#[test]
fn random_sets_validate_by_replay() {
    let (mut promotions, mut phantoms) = (0, 0);
    for i in 0..sets(150) {
        let (spec, mut config, describe) = random_case(case_seed(1, i), i % 3 == 1);
        config.platform_model = i % 2 == 0;
        let run = simulate_spec(&spec, &config);
        let r = check(&run, run.events.clone());
        assert!(r.pass, "{describe}\n{}", r.render());
        for e in &run.events {
            match e {
                Event::Policy { event: PolicyEvent::PriorityPromotion { .. }, .. } => promotions += 1,
                Event::Policy { event: PolicyEvent::Phantom { .. }, .. } => phantoms += 1,
                _ => {}
            }
        }
    }
    println!("{promotions} promotions, {phantoms} phantom jobs");
    assert!(promotions > 100 && phantoms > 100, "{promotions} promotions, {phantoms} phantoms");
}

/// Swapped dispatches, delayed dispatches and CPUs idled while a job waits
/// are all caught by the replay.
#[test]
fn replay_catches_wrong_ca_gedf_schedules() {
    assert_replay_catches_faults((0..40).map(|i| {
        let (spec, config, describe) = random_case(case_seed(2, i), false);
        (simulate_spec(&spec, &config), case_seed(2, i), describe)
    }));
}

/// The G-EDF schedule of the Fig. 4.6 example presented as `ca-gedf`'s:
/// the replay fails at 0, where G-EDF runs T1 beside U1 and the heuristic
/// runs V1 (the two smallest working sets) instead.
#[test]
fn a_gedf_schedule_is_not_the_heuristics() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/mtt.yaml");
    let mut spec = schedlab_model::load_path(&root).unwrap().spec;
    let config =
        SimConfig { horizon: Some(16 * MS), spec_overheads: false, platform_model: false, ..SimConfig::default() };
    let gedf = simulate_spec(&spec, &config);
    spec.policy = Some(PolicySpec::named(PolicyName::CaGedf));
    let ca = simulate_spec(&spec, &config);
    assert!(check(&ca, ca.events.clone()).pass);
    let events: Vec<Event> = gedf.events.into_iter().filter(|e| !matches!(e, Event::Policy { .. })).collect();
    let r = check(&ca, events);
    assert!(r.violations(Check::Replay) > 0, "{}", r.render());
    let v = r.first(Check::Replay).unwrap();
    assert_eq!(v.t, 0, "{}", v.message);
    assert!(v.message.contains("the policy chose"), "{}", v.message);
}
