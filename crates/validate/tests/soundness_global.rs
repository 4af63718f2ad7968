//! Soundness of the global tests against the simulator: no task set that a
//! G-EDF test (`gedf.*`) accepts misses a deadline when simulated under
//! `gedf`, and none that a G-FP test (`gfp.*`) accepts misses under `gfp`
//! with the same priorities (RM, DM or explicit) — with synchronous
//! periodic releases and WCET execution, and with seeded sporadic releases
//! (uniform extra separation up to 3 ms). The schedules also pass the
//! validator.
//!
//! Sets: 2–8 CPUs, 2–12 tasks, utilisation 0.3·m–0.95·m, periods from
//! {10, 20, 25, 40, 50, 100} ms (hyperperiod ≤ 200 ms, so a run covers it),
//! implicit or constrained deadlines. Fixed seed; `SCHEDLAB_ORACLE_SETS=N`
//! runs N sets per policy instead. Run with `--nocapture` for the counts.

#[path = "oracles/support.rs"]
#[allow(dead_code)]
mod support;

use schedlab_analysis::schedulability::gedf::{bak, bar, bcl, bcl_iterative, ffdbf, gfb, load, rta};
use schedlab_analysis::schedulability::gfp::{bertogna, guan, priority_order};
use schedlab_analysis::schedulability::{Input, TaskParams, Verdict};
use schedlab_gen::{generate, GenOptions};
use schedlab_model::rng::Rng;
use schedlab_model::{exact::hyperperiod, PolicyName, Priorities, Spec};
use schedlab_sim::{Arrivals, Execution, SimConfig, Sporadic};
use support::*;

/// Random sets per policy in CI.
const SETS: usize = 1200;

type Decide = fn(&[TaskParams], u32) -> Verdict;

const GEDF: &[(&str, Decide)] = &[
    (gfb::ID, gfb::decide),
    (bak::ID, bak::decide),
    (bar::ID, bar::decide),
    (bcl::ID, bcl::decide),
    (bcl_iterative::ID, bcl_iterative::decide),
    (rta::ID, rta::decide),
    (ffdbf::ID, ffdbf::decide),
    (load::ID, load::decide),
];

fn random_spec(policy: PolicyName, i: usize) -> Spec {
    let mut r = Rng::new(case_seed(0x61_0ba1, policy, i));
    let m = r.range_u64(2, 8) as u32;
    let n = r.range_u64(m as u64, 12) as u32;
    let util = (r.uniform(0.3, 0.95) * m as f64).min(0.9 * n as f64);
    let o = GenOptions {
        seed: Some(r.next_u64()),
        cpus: Some(m),
        policy: Some(policy),
        tasks: Some(n),
        util: Some(util),
        utils: Some("randfixedsum".into()),
        periods: Some("list:10ms,20ms,25ms,40ms,50ms,100ms".into()),
        deadlines: Some(if r.below(2) == 0 { "implicit" } else { "constrained" }.into()),
        ..GenOptions::default()
    };
    let p = o.into_params().expect("valid generator options");
    let mut spec = generate(&p).unwrap_or_else(|e| panic!("{e} ({})", p.to_args()));
    if policy == PolicyName::Gfp {
        let how = *r.choose(&[Priorities::Rm, Priorities::Dm, Priorities::Explicit]).expect("non-empty");
        spec.policy.as_mut().expect("policy").priorities = Some(how);
        if how == Priorities::Explicit {
            for t in &mut spec.tasks {
                t.priority = Some(r.range_u64(1, n as u64) as u32);
            }
        }
    }
    spec
}

/// Simulates the spec over its hyperperiod twice (synchronous periodic and
/// sporadic, both at the WCET); returns the misses of each run.
fn simulate_both(spec: &Spec, seed: u64) -> [usize; 2] {
    let h = hyperperiod(spec.tasks.iter().map(|t| t.period.0)).expect("listed periods");
    let mut out = [0; 2];
    for (j, sporadic) in [Sporadic::None, Sporadic::Uniform { max: 3 * MS }].into_iter().enumerate() {
        let horizon = if j == 0 { h } else { 2 * h };
        let config = SimConfig {
            horizon: Some(horizon),
            seed,
            spec_overheads: false,
            arrivals: Arrivals { sporadic, ignore_jitter: false },
            execution: Execution::Wcet,
            ..SimConfig::default()
        };
        let case = Case { seed, spec: spec.clone(), config };
        let run = simulate_case(&case).unwrap_or_else(|| panic!("admission failed:\n{}", case.describe()));
        let report = check(&run, run.events.clone());
        assert!(report.pass, "{}\n{}", case.describe(), report.render());
        out[j] = misses(&run.events);
    }
    out
}

#[test]
fn no_set_a_gedf_test_accepts_misses_under_gedf() {
    let n = sets(SETS);
    let mut accepted = vec![0usize; GEDF.len()];
    let (mut simulated, mut runs, mut missed_rejected, mut failures) = (0, 0, 0, Vec::new());
    for i in 0..n {
        let spec = random_spec(PolicyName::Gedf, i);
        let input = Input::from_spec(&spec);
        let mut who = Vec::new();
        for (j, (id, decide)) in GEDF.iter().enumerate() {
            if decide(&input.tasks, input.cpus) == Verdict::Schedulable {
                accepted[j] += 1;
                who.push(*id);
            }
        }
        // Every accepted set, and one rejected set in four (to see misses happen).
        if who.is_empty() && i % 4 != 0 {
            continue;
        }
        simulated += 1;
        runs += 2;
        let m = simulate_both(&spec, case_seed(7, PolicyName::Gedf, i));
        if m[0] + m[1] > 0 {
            if who.is_empty() {
                missed_rejected += 1;
            } else {
                failures.push(format!("accepted by {who:?}, misses {m:?}:\n{}", schedlab_model::emit::to_yaml(&spec)));
            }
        }
    }
    println!(
        "G-EDF: {n} sets, {simulated} simulated ({runs} runs), accepted per test: {:?}",
        GEDF.iter().map(|g| g.0).zip(&accepted).collect::<Vec<_>>()
    );
    println!("G-EDF: {missed_rejected} rejected sets missed in simulation, {} accepted sets missed", failures.len());
    assert!(failures.is_empty(), "{} accepted sets miss; the first: {}", failures.len(), failures[0]);
    assert!(accepted.iter().all(|&a| a >= 50), "every test accepts sets near its bound: {accepted:?}");
    assert!(missed_rejected > 0, "the campaign reaches sets that do miss");
}

#[test]
fn no_set_a_gfp_test_accepts_misses_under_gfp() {
    let n = sets(SETS);
    let (mut acc_b, mut acc_g, mut simulated, mut missed_rejected, mut failures) = (0, 0, 0, 0, Vec::new());
    for i in 0..n {
        let spec = random_spec(PolicyName::Gfp, i);
        let input = Input::from_spec(&spec);
        let order = priority_order(&input).expect("every task has a priority");
        let b = bertogna::decide(&input.tasks, input.cpus, &order) == Verdict::Schedulable;
        let g = guan::decide(&input.tasks, input.cpus, &order) == Verdict::Schedulable;
        acc_b += b as usize;
        acc_g += g as usize;
        if !(b || g) && i % 4 != 0 {
            continue;
        }
        simulated += 1;
        let m = simulate_both(&spec, case_seed(8, PolicyName::Gfp, i));
        if m[0] + m[1] > 0 {
            if b || g {
                failures.push(format!(
                    "accepted (bertogna {b}, guan {g}), misses {m:?}:\n{}",
                    schedlab_model::emit::to_yaml(&spec)
                ));
            } else {
                missed_rejected += 1;
            }
        }
    }
    println!(
        "G-FP: {n} sets, {simulated} simulated ({} runs), accepted: bertogna {acc_b}, guan {acc_g}",
        2 * simulated
    );
    println!("G-FP: {missed_rejected} rejected sets missed in simulation, {} accepted sets missed", failures.len());
    assert!(failures.is_empty(), "{} accepted sets miss; the first: {}", failures.len(), failures[0]);
    assert!(acc_b >= 50 && acc_g >= acc_b, "{acc_b} {acc_g}");
    assert!(missed_rejected > 0, "the campaign reaches sets that do miss");
}
