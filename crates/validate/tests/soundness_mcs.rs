//! Soundness of the holistic analyses of memory-centric schedules
//! (`mcs.holistic`, `mcs.holistic.best-case`, `mcs.holistic.precedence`)
//! against the simulator: no
//! PREM set the analysis accepts misses a deadline when simulated under
//! `mcs` (the memory-phase scheduler), every simulated job responds within
//! its analysed bound, and every schedule passes the validator; and how
//! pessimistic the bound is: analysed / worst simulated response time, per
//! memory priority (the paper's Figure 15, bound / WOET).
//!
//! Cases come from the `--prem` generator (one task per CPU, memory
//! priority = index; a third A-MP, with the last CPU the master): 2–4 CPUs, total utilisation 0.05–0.8, data 200 KiB to
//! 512 KiB or to 2 MiB per task, Sections of 64–200 KiB, memory bandwidth 256 MiB/s or
//! 1 GiB/s, compute 100 or 400 MiB/s, write-back of 0, half or all of a
//! Section, memory phases preemptive or not (`memory_preemption: false`).
//! Each set runs three times at the WCET: synchronous periodic, periodic
//! with random offsets, and sporadic (up to a tenth of the period late) with
//! random offsets, over 20 of its longest periods.
//!
//! `SCHEDLAB_ORACLE_SETS=N` runs N sets; `--nocapture` prints the counts and
//! the pessimism quantiles (docs/analysis.md quotes them).

#[path = "oracles/support.rs"]
#[allow(dead_code)]
mod support;

use schedlab_analysis::schedulability::{find, Data, Input, Verdict};
use schedlab_gen::{generate, GenOptions};
use schedlab_model::rng::Rng;
use schedlab_model::{Duration, PolicyName, Spec};
use schedlab_sim::{Arrivals, Execution, SimConfig, Sporadic};
use schedlab_trace::Event;
use std::collections::HashMap;
use support::*;

/// Sets in CI.
const SETS: usize = 40;

/// A random PREM set, or `None` when the draw gives no valid set.
fn random_set(seed: u64) -> Option<Spec> {
    let mut r = Rng::new(seed);
    let cpus = r.range_u64(2, 4) as u32;
    let section = *r.choose(&["64KiB", "128KiB", "200KiB"]).expect("non-empty");
    let bandwidth = *r.choose(&["256MiB/s", "1GiB/s"]).expect("non-empty");
    let compute = *r.choose(&["100MiB/s", "400MiB/s"]).expect("non-empty");
    let write = *r.choose(&["0", "0.5", "1"]).expect("non-empty");
    // A third A-MP (every CPU but the last, the master, has a task).
    let mode = if r.below(3) == 0 { "amp" } else { "smp" };
    let o = GenOptions {
        seed: Some(seed),
        cpus: Some(cpus),
        policy: Some(PolicyName::Mcs),
        util: Some(r.uniform(0.05, 0.8)),
        wss: Some(if r.below(2) == 0 { "uniform:200KiB-512KiB" } else { "uniform:200KiB-2MiB" }.into()),
        prem: Some(format!("mode={mode},section={section},bandwidth={bandwidth},compute={compute},write={write}")),
        period_granularity: Some("100us".into()),
        ..GenOptions::default()
    };
    let mut spec = generate(&o.into_params().ok()?).ok()?;
    if r.below(3) == 0 {
        spec.policy.as_mut().expect("mcs").memory_preemption = Some(false);
    }
    Some(spec)
}

/// Worst response time per task over the run, and the misses.
fn responses(events: &[Event], n: usize) -> (Vec<u64>, usize) {
    let mut release: HashMap<(u32, u64), u64> = HashMap::new();
    let mut worst = vec![0u64; n];
    for e in events {
        match *e {
            Event::Release { t, task, job, .. } => {
                release.insert((task, job), t);
            }
            Event::Completion { t, task, job, .. } => {
                if let Some(r) = release.get(&(task, job)) {
                    let w = &mut worst[task as usize];
                    *w = (*w).max(t - r);
                }
            }
            _ => {}
        }
    }
    (worst, misses(events))
}

/// The three runs of a set: worst response per task and misses over all.
fn simulate_set(spec: &Spec, seed: u64) -> (Vec<u64>, usize) {
    let n = spec.tasks.len();
    let longest = spec.tasks.iter().map(|t| t.period.0).max().unwrap_or(MS);
    let mut r = Rng::new(seed ^ 0x0ff5e7);
    let (mut worst, mut missed) = (vec![0u64; n], 0);
    for run in 0..3 {
        let mut spec = spec.clone();
        if run > 0 {
            for t in &mut spec.tasks {
                t.offset = Duration(r.range_u64(0, t.period.0 - 1));
            }
        }
        let sporadic = if run == 2 {
            Sporadic::Uniform { max: spec.tasks.iter().map(|t| t.period.0 / 10).min().unwrap_or(0) }
        } else {
            Sporadic::None
        };
        let config = SimConfig {
            horizon: Some(20 * longest),
            seed,
            spec_overheads: false,
            arrivals: Arrivals { sporadic, ignore_jitter: false },
            execution: Execution::Wcet,
            ..SimConfig::default()
        };
        let case = Case { seed, spec, config };
        let sim = simulate_case(&case).expect("mcs places one task per CPU");
        let report = check(&sim, sim.events.clone());
        assert!(report.pass, "{}\n{}", case.describe(), report.render());
        let (w, m) = responses(&sim.events, n);
        for (a, b) in worst.iter_mut().zip(w) {
            *a = (*a).max(b);
        }
        missed += m;
    }
    (worst, missed)
}

fn quantiles(mut v: Vec<f64>) -> String {
    if v.is_empty() {
        return "none".into();
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let q = |p: f64| v[((v.len() - 1) as f64 * p).round() as usize];
    format!("n {}, min {:.2}, median {:.2}, p90 {:.2}, max {:.2}", v.len(), q(0.0), q(0.5), q(0.9), q(1.0))
}

const TESTS: [&str; 3] = ["mcs.holistic", "mcs.holistic.best-case", "mcs.holistic.precedence"];

#[test]
fn no_prem_set_the_holistic_analysis_accepts_misses_under_mcs() {
    let n = sets(SETS);
    let (mut valid, mut missed_rejected, mut amp) = (0, 0, 0);
    let mut accepted = [0usize; 3];
    // Pessimism by memory priority (task index), per test.
    let mut pessimism: Vec<Vec<Vec<f64>>> = vec![vec![Vec::new(); 4]; 3];
    for i in 0..n {
        let seed = base_seed() ^ 0x3c5u64.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ i as u64;
        let Some(spec) = random_set(seed) else { continue };
        valid += 1;
        amp += usize::from(spec.tasks[0].memory_mode() == schedlab_model::MemoryMode::Amp);
        let input = Input::from_spec(&spec);
        let outs: Vec<_> = TESTS.iter().map(|id| (find(id).expect("registered").run)(&input)).collect();
        for o in &outs {
            assert_ne!(o.verdict, Verdict::NotApplicable, "{}: {}", o.test, o.reason);
        }
        let ok: Vec<bool> = outs.iter().map(|o| o.verdict == Verdict::Schedulable).collect();
        // Each refinement accepts what the one before it accepts.
        assert!((!ok[0] || ok[1]) && (!ok[1] || ok[2]), "seed {seed:#x}: verdicts {ok:?}");
        let (worst, missed) = simulate_set(&spec, seed);
        if !ok[2] {
            missed_rejected += usize::from(missed > 0);
            continue;
        }
        assert_eq!(
            missed,
            0,
            "an accepted set missed a deadline: seed {seed:#x}\n{}",
            schedlab_model::emit::to_yaml(&spec)
        );
        for (k, o) in outs.iter().enumerate() {
            if !ok[k] {
                continue;
            }
            accepted[k] += 1;
            let Some(Data::ResponseTimes(r)) = &o.data else { panic!("{} gives response times", o.test) };
            for (t, (bound, seen)) in r.iter().zip(&worst).enumerate() {
                let bound = bound.expect("an accepted set has every response");
                assert!(
                    *seen <= bound,
                    "seed {seed:#x}: {} simulated {seen} ns for task {t}, above its bound {bound} ns\n{}",
                    o.test,
                    schedlab_model::emit::to_yaml(&spec)
                );
                if *seen > 0 && t < 4 {
                    pessimism[k][t].push(bound as f64 / *seen as f64);
                }
            }
        }
    }
    println!(
        "MCS: {n} draws, {valid} valid sets ({amp} A-MP); accepted by {}: {}, {}: {}, {}: {}; 0 accepted sets missed; {missed_rejected} sets no test accepts missed in simulation",
        TESTS[0], accepted[0], TESTS[1], accepted[1], TESTS[2], accepted[2]
    );
    for (k, id) in TESTS.iter().enumerate() {
        for (t, v) in pessimism[k].iter().enumerate() {
            println!("{id} bound / worst simulated response, τ{t}: {}", quantiles(v.clone()));
        }
    }
    assert!(accepted[0] > 0, "no set accepted by HOL: the campaign checks too little");
}
