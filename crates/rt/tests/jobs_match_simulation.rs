//! `schedlab run --seed S` and `schedlab simulate --seed S` release the same
//! jobs: for random specs (offsets, jitter, deadlines, BCETs, per-job
//! execution lists) and random options (seed, sporadic model, jitter on or
//! off, WCET / uniform / fraction demands), the jobs the runtime plans from
//! its `RunConfig` — what its workers and its dispatcher release — equal
//! the jobs the simulator releases from the matching `SimConfig`: release
//! time, absolute deadline and execution demand, job by job. Needs no root:
//! nothing runs on real threads.

use schedlab_model::rng::Rng;
use schedlab_model::{load_str, Spec};
use schedlab_rt::{Execution, MissPolicy, RunConfig, Sporadic};
use schedlab_sim::{simulate_collect, Arrivals, SimConfig};
use schedlab_trace::Event;
use std::collections::BTreeMap;

/// Random specs and options checked.
const CASES: u64 = 500;
/// Releases compared up to this time (the run's duration).
const DURATION: u64 = 60_000_000;

/// A random light task set (total utilisation ≤ m / 2, so that the
/// simulation completes every job released before `DURATION` soon after).
fn random_spec(r: &mut Rng) -> Spec {
    let cpus = r.range_u64(1, 4);
    let n = r.range_u64(1, 6);
    let mut y = format!("platform: {{cpus: {cpus}}}\npolicy: {{name: gedf}}\ntasks:\n");
    for i in 0..n {
        let period = r.range_u64(1_000, 20_000); // µs
        let budget = (period * cpus / 2 / n).min(period / 2).max(2);
        let wcet = r.range_u64(1, budget);
        let mut t = format!("  - {{name: t{i}, wcet: {wcet}us, period: {period}us");
        if r.range_u64(0, 2) == 0 {
            t += &format!(", deadline: {}us", r.range_u64(wcet, period));
        }
        if r.range_u64(0, 2) == 0 {
            t += &format!(", bcet: {}us", r.range_u64(1, wcet));
        }
        if r.range_u64(0, 2) == 0 {
            t += &format!(", offset: {}us", r.range_u64(0, period));
        }
        if r.range_u64(0, 2) == 0 {
            t += &format!(", jitter: {}us", r.range_u64(0, period));
        }
        if r.range_u64(0, 4) == 0 {
            let k = r.range_u64(1, 4);
            let list: Vec<String> = (0..k).map(|_| format!("{}us", r.range_u64(1, wcet))).collect();
            t += &format!(", executions: [{}]", list.join(", "));
        }
        y += &t;
        y += "}\n";
    }
    load_str(&y, None, "random.yaml").unwrap_or_else(|e| panic!("{e}\n{y}")).spec
}

fn random_config(r: &mut Rng) -> RunConfig {
    let sporadic = match r.range_u64(0, 2) {
        0 => Sporadic::None,
        1 => Sporadic::Uniform { max: r.range_u64(0, 5_000_000) },
        _ => Sporadic::Exponential { mean: r.range_u64(1, 3_000_000) },
    };
    let execution = match r.range_u64(0, 2) {
        0 => Execution::Wcet,
        1 => Execution::Uniform,
        _ => Execution::Fraction(r.range_u64(1, 100) as f64 / 100.0),
    };
    RunConfig {
        duration: DURATION,
        seed: r.next_u64(),
        sporadic,
        ignore_jitter: r.range_u64(0, 3) == 0,
        execution,
        overrun: MissPolicy::Continue,
        ..RunConfig::default()
    }
}

/// (release, deadline, demand) of every job, per task: what the runtime plans.
fn planned(spec: &Spec, c: &RunConfig) -> Vec<Vec<(u64, u64, u64)>> {
    let model = c.job_model();
    spec.tasks
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let mut demands = model.demands(t, i);
            model
                .releases(t, i)
                .take_while(|a| a.release < c.duration)
                .map(|a| (a.release, a.deadline, demands.draw()))
                .collect()
        })
        .collect()
}

/// The same, from the simulator's trace: releases before `DURATION`, and
/// each job's total execution at its completion.
fn simulated(spec: &Spec, c: &RunConfig) -> Vec<Vec<(u64, u64, u64)>> {
    let config = SimConfig {
        horizon: Some(DURATION + 200_000_000),
        seed: c.seed,
        arrivals: Arrivals { sporadic: c.sporadic, ignore_jitter: c.ignore_jitter },
        execution: c.execution,
        miss: MissPolicy::Continue,
        spec_overheads: false,
        ..SimConfig::default()
    };
    let mut policy = schedlab_policy::build(spec, None).expect("policy");
    let (events, _) = simulate_collect(spec, policy.as_mut(), &config).expect("simulate");
    let mut released: BTreeMap<(u32, u64), (u64, u64)> = BTreeMap::new();
    let mut exec: BTreeMap<(u32, u64), u64> = BTreeMap::new();
    for e in &events {
        match *e {
            Event::Release { t, task, job, deadline } if t < DURATION => {
                released.insert((task, job), (t, deadline));
            }
            Event::Completion { task, job, exec: x, .. } => {
                exec.insert((task, job), x);
            }
            _ => {}
        }
    }
    let mut out = vec![Vec::new(); spec.tasks.len()];
    for ((task, job), (t, d)) in released {
        let x = *exec.get(&(task, job)).unwrap_or_else(|| panic!("task {task} job {job} did not complete"));
        assert_eq!(out[task as usize].len() as u64, job, "jobs of task {task} are numbered in order");
        out[task as usize].push((t, d, x));
    }
    out
}

#[test]
fn run_plans_the_jobs_simulate_releases() {
    let mut r = Rng::new(0x05ee_d0b5);
    let mut jobs = 0usize;
    for case in 0..CASES {
        let spec = random_spec(&mut r);
        let c = random_config(&mut r);
        let plan = planned(&spec, &c);
        let sim = simulated(&spec, &c);
        for (i, (p, s)) in plan.iter().zip(&sim).enumerate() {
            assert_eq!(
                p, s,
                "case {case}, task {i}: seed {}, sporadic {:?}, ignore_jitter {}, execution {:?}\n{spec:?}",
                c.seed, c.sporadic, c.ignore_jitter, c.execution
            );
            jobs += p.len();
        }
    }
    eprintln!("{CASES} random specs and seeds, {jobs} jobs: the runtime's plan equals the simulation");
    assert!(jobs > 10 * CASES as usize, "too few jobs compared ({jobs}): the cases test nothing");
}
