//! PREM sets in sweeps: memory-centric scheduling's evaluation (Rivas et
//! al., ECRTS 2019, §6; notes seed 002 §A4–A5) as an experiment.
//!
//! With `generator.prem`, every set is drawn by `schedlab_gen::generate`
//! itself (`schedlab gen --policy mcs --prem ...`: one task per CPU, task i
//! on CPU i with memory priority i + 1, its data split into Sections), and
//! evaluated with per-task results: the tests (`mcs.holistic`,
//! `mcs.holistic.best-case`, `mcs.holistic.precedence`) give each task's
//! response-time bound, and the simulations under `mcs` (S-MP, A-MP with
//! `memory_mode: amp`, the Contention baseline with `mps: false`) give each
//! task's worst and mean response time and the jitter of its jobs'
//! execution (CPU) time. These are the columns `tau{i}_wcet_ns`,
//! `tau{i}_response_ns`, `tau{i}_mean_response_ns` and `tau{i}_exec_jitter`
//! for every task slot i (τi, the paper's numbering: τ0 the highest memory
//! priority).

use crate::evaluate::Cell;
use crate::file::{Experiment, Simulation};
use crate::generate::Drawn;
use crate::grid::Grid;
use schedlab_analysis::schedulability::{Data, Input, Test};
use schedlab_gen::prem::PremMode;
use schedlab_gen::{GenError, GenParams};
use schedlab_model::spec::{Cache, Memory, Platform, PolicySpec, Spec};
use schedlab_model::PolicyName;
use schedlab_sim::SimConfig;

/// The per-task metrics, in column order (`tau{i}_` + name).
pub const TASK_METRICS: &[&str] = &["wcet_ns", "response_ns", "mean_response_ns", "exec_jitter"];

/// A PREM set: the spec `schedlab gen --prem` writes for the set's seed.
#[derive(Debug, Clone, PartialEq)]
pub struct PremSet {
    pub spec: Spec,
    pub seed: u64,
}

/// Draws the PREM set of `p` with seed `seed` (as `schedlab gen`), with its
/// tasks' C, D, T and data sizes in `out`.
pub fn draw(p: &GenParams, seed: u64, out: &mut Drawn) -> Result<(), GenError> {
    let spec = schedlab_gen::generate(&GenParams { seed, ..p.clone() })?;
    out.tasks.clear();
    out.wss.clear();
    let mut sum = 0.0;
    for t in &spec.tasks {
        let mut params = schedlab_analysis::schedulability::TaskParams::implicit(t.wcet.0, t.period.0);
        params.deadline = t.deadline().0;
        out.tasks.push(params);
        out.wss.push(t.wss.map_or(0, |w| w.0));
        sum += t.wcet.0 as f64 / t.period.0 as f64;
    }
    out.utilization = sum;
    out.prem = Some(Box::new(PremSet { spec, seed }));
    Ok(())
}

/// Task slots of the per-task columns: the most tasks a PREM point draws
/// (0 without `generator.prem`).
pub fn slots(grid: &Grid) -> usize {
    grid.points
        .iter()
        .filter_map(|p| p.params.prem.map(|_| p.params.tasks.unwrap_or(p.params.cpus) as usize))
        .max()
        .unwrap_or(0)
}

/// The experiment-level checks of PREM sets: (field, message).
pub fn check_experiment(e: &Experiment) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if e.generator.prem.is_none() {
        for (i, s) in e.schedulers.iter().enumerate().filter(|(_, s)| s.test.starts_with("mcs.")) {
            out.push((
                format!("schedulers[{i}].test"),
                format!("`{}` analyses PREM tasks, which a sweep's generated sets have only with `generator.prem` (e.g. `prem: default` with `utils: uunifast-discard`); add it, or remove this scheduler", s.test),
            ));
        }
        return out;
    }
    if !e.overheads.is_empty() {
        out.push((
            "overheads".into(),
            "PREM sets (`generator.prem`) are evaluated without overhead models; remove `overheads`".into(),
        ));
    }
    if !e.cpmd.is_empty() {
        out.push((
            "cpmd".into(),
            "PREM sets (`generator.prem`) keep their data in cache partitions; remove `cpmd`".into(),
        ));
    }
    out
}

/// The PREM fields of a simulation that cannot hold: (field under the
/// simulation, message).
pub fn check_simulation(s: &Simulation, prem: bool) -> Option<(String, String)> {
    let given = [
        ("mps", s.mps.is_some()),
        ("memory_mode", s.memory_mode.is_some()),
        ("memory", s.memory.is_some()),
        ("cache", s.cache.is_some()),
    ];
    if let Some((f, _)) = given.iter().find(|g| g.1) {
        if !prem || s.policy != PolicyName::Mcs {
            return Some((
                f.to_string(),
                format!("`{f}` applies to `mcs` simulations of PREM sets only: add `generator.prem` and `policy: mcs`, or remove `{f}`"),
            ));
        }
    }
    if s.memory.is_some() && s.cache.is_none() {
        return Some((
            "cache".into(),
            "a `memory` needs a `cache` too (the simulator's platform model, which stretches contending memory accesses, runs only with a cache); add e.g. `cache: {size: 1MiB, ways: 16, line: 64B}`".into(),
        ));
    }
    if let Some(m) = &s.memory_mode {
        if mode(m).is_none() {
            return Some(("memory_mode".into(), format!("`{m}` is not a memory mode; write `smp` or `amp`")));
        }
    }
    None
}

/// The memory mode of a name.
pub fn mode(s: &str) -> Option<PremMode> {
    match s {
        "smp" => Some(PremMode::Smp),
        "amp" => Some(PremMode::Amp),
        _ => None,
    }
}

/// Checks that every PREM point draws (e.g. `tasks` fits the CPUs): (field, message).
pub fn check_points(grid: &Grid) -> Result<(), (String, String)> {
    for p in grid.points.iter().filter(|p| p.params.prem.is_some()) {
        if let Err(e) = schedlab_gen::generate(&p.params) {
            return Err(("prem".into(), format!("{e} (at the point `{}`)", p.key)));
        }
    }
    Ok(())
}

/// A simulation of PREM sets.
#[derive(Debug, Clone)]
pub struct PremSim {
    pub mps: Option<bool>,
    pub mode: Option<PremMode>,
    pub memory: Option<Memory>,
    pub cache: Option<Cache>,
}

impl PremSim {
    pub fn of(s: &Simulation) -> PremSim {
        PremSim {
            mps: s.mps,
            mode: s.memory_mode.as_deref().and_then(mode),
            memory: s.memory.clone(),
            cache: s.cache.clone(),
        }
    }
}

/// Appends `slots` tasks' metrics (NaN where a task has none) to `out`.
fn push_tasks(out: &mut Vec<f64>, slots: usize, rows: &[[f64; 4]]) {
    for i in 0..slots {
        out.extend_from_slice(&rows.get(i).copied().unwrap_or([f64::NAN; 4]));
    }
}

/// Decides the PREM set by `test`: the verdict code, and per task its WCET
/// and response-time bound (NaN: none) into `per_task`.
pub fn decide(test: &Test, set: &PremSet, slots: usize, per_task: &mut Vec<f64>) -> u8 {
    let input = Input::from_spec(&set.spec);
    let o = (test.run)(&input);
    let rts = match &o.data {
        Some(Data::ResponseTimes(v)) => v.clone(),
        _ => Vec::new(),
    };
    let rows: Vec<[f64; 4]> = set
        .spec
        .tasks
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let r = rts.get(i).copied().flatten().map_or(f64::NAN, |r| r as f64);
            [t.wcet.0 as f64, r, f64::NAN, f64::NAN]
        })
        .collect();
    push_tasks(per_task, slots, &rows);
    crate::evaluate::code(o.verdict)
}

/// The spec a PREM simulation runs: the set (or the set drawn with the
/// simulation's memory mode from the same seed and options), under `mcs`
/// with the simulation's `mps`, memory and cache, the tasks without working
/// sets (their data stays in their partitions).
fn sim_spec(sim: &PremSim, set: &PremSet, params: &GenParams) -> Option<Spec> {
    let mut spec = match (sim.mode, params.prem) {
        (Some(m), Some(p)) if m != p.mode => {
            let mut prem = p;
            prem.mode = m;
            schedlab_gen::generate(&GenParams { seed: set.seed, prem: Some(prem), ..params.clone() }).ok()?
        }
        _ => set.spec.clone(),
    };
    let mut policy = spec.policy.clone().unwrap_or_else(|| PolicySpec::named(PolicyName::Mcs));
    if sim.mps.is_some() {
        policy.mps = sim.mps;
    }
    spec.policy = Some(policy);
    spec.platform =
        Platform { cpus: spec.platform.cpus, clusters: None, cache: sim.cache.clone(), memory: sim.memory.clone() };
    for t in &mut spec.tasks {
        t.wss = None;
    }
    Some(spec)
}

/// Simulates the PREM set: the common simulation cell, and per task its
/// WCET, worst and mean response time over completed jobs, and the jitter of
/// its jobs' execution time ((max − min) / mean) into `per_task`.
pub fn simulate(
    sim: &PremSim,
    horizon: Option<u64>,
    set: &PremSet,
    params: &GenParams,
    slots: usize,
    per_task: &mut Vec<f64>,
) -> Cell {
    let failed = Cell { verdict: 3, sim: [f64::NAN; 6] };
    let Some(spec) = sim_spec(sim, set, params) else {
        push_tasks(per_task, slots, &[]);
        return failed;
    };
    let Ok(mut policy) = schedlab_policy::build(&spec, None) else {
        push_tasks(per_task, slots, &[]);
        return failed;
    };
    let config = SimConfig { horizon, spec_overheads: false, policy_events: false, ..SimConfig::default() };
    let n = spec.tasks.len();
    let mut release: std::collections::HashMap<(u32, u64), (u64, u64)> = Default::default();
    // Per task: completed jobs, Σ response, worst response, min / max / Σ exec.
    let mut acc = vec![(0u64, 0u128, 0u64, u64::MAX, 0u64, 0u128); n];
    let (mut max_t, mut sum_t) = (0u64, 0u128);
    let mut sink = |e: &schedlab_trace::Event| match *e {
        schedlab_trace::Event::Release { t, task, job, deadline } => {
            release.insert((task, job), (t, deadline));
        }
        schedlab_trace::Event::Completion { t, task, job, exec, .. } => {
            if let Some((r, d)) = release.remove(&(task, job)) {
                let late = t.saturating_sub(d);
                max_t = max_t.max(late);
                sum_t += late as u128;
                if let Some(a) = acc.get_mut(task as usize) {
                    let resp = t - r;
                    a.0 += 1;
                    a.1 += resp as u128;
                    a.2 = a.2.max(resp);
                    a.3 = a.3.min(exec);
                    a.4 = a.4.max(exec);
                    a.5 += exec as u128;
                }
            }
        }
        _ => {}
    };
    let Ok(summary) = schedlab_sim::simulate(&spec, policy.as_mut(), &config, &mut sink) else {
        push_tasks(per_task, slots, &[]);
        return failed;
    };
    let done: u64 = acc.iter().map(|a| a.0).sum();
    let rows: Vec<[f64; 4]> = spec
        .tasks
        .iter()
        .zip(&acc)
        .map(|(t, a)| {
            if a.0 == 0 {
                return [t.wcet.0 as f64, f64::NAN, f64::NAN, f64::NAN];
            }
            let mean_exec = a.5 as f64 / a.0 as f64;
            [t.wcet.0 as f64, a.2 as f64, a.1 as f64 / a.0 as f64, (a.4 - a.3) as f64 / mean_exec]
        })
        .collect();
    push_tasks(per_task, slots, &rows);
    let missed = summary.missed();
    Cell {
        verdict: if missed == 0 { 0 } else { 1 },
        sim: [
            summary.released() as f64,
            missed as f64,
            max_t as f64,
            if done > 0 { sum_t as f64 / done as f64 } else { 0.0 },
            summary.tasks.iter().map(|t| t.preemptions).sum::<u64>() as f64,
            summary.tasks.iter().map(|t| t.migrations).sum::<u64>() as f64,
        ],
    }
}
