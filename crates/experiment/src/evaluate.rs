//! The evaluations of one set. For every overhead model, every CPMD value
//! (or the generated working sets) and every scheduler, the set is inflated
//! by the model's accounting (EPOS Eq. 2/3 or the per-task-release variant,
//! `schedlab_analysis::accounting`) and decided by the scheduler's test (its
//! fast path, as in `schedlab_analysis::batch`); then every simulation runs
//! the set as generated. Evaluations are numbered in that order.
//!
//! The EPOS method is computed here in integers, without the big rationals
//! of `accounting::inflate`: with I = Δtck + n·Δrel interrupts per tick Q,
//! e′ = ⌈(e + 2(Δscd + Δcxs) + Δcpd + 2I)·Q / (Q − I)⌉ + Δipi, which is
//! Eq. 2 with Eq. 3 substituted (a test checks it against `inflate`).
//!
//! One scheduler's evaluations of a set differ only in the WCETs (the
//! accounting keeps deadlines and periods), so `gedf.any` verdicts, on the
//! whole set (G-EDF) and on the clusters of its packings (C-EDF), are
//! reused across them where a variant's WCETs dominate another's
//! (`schedlab_analysis::schedulability::gedf::dominance`): the results are
//! the same as deciding every evaluation alone.

use crate::file::{cluster_fit, Loaded, SIM_METRICS};
use crate::generate::Drawn;
use schedlab_analysis::accounting::{inflate, Accounting, Method};
use schedlab_analysis::schedulability::clustered::cedf_decide_packed;
use schedlab_analysis::schedulability::gedf::combined::skip_mask;
use schedlab_analysis::schedulability::gedf::dominance::Memo;
use schedlab_analysis::schedulability::{find, Input, Options, TaskParams, Test, Verdict};
use schedlab_gen::{GenParams, UtilMethod};
use schedlab_model::overheads::{Costs, Cpmd, Overheads, Resume};
use schedlab_model::spec::{Domains, Platform, PolicySpec, Spec, Task};
use schedlab_model::Duration;
use schedlab_sim::SimConfig;
use std::collections::HashMap;

/// Default tick period Q of overhead accounting: 1 ms (LITMUS^RT's tick).
pub const DEFAULT_TICK: u64 = 1_000_000;

/// Verdict codes in the results, in the order of [`VERDICTS`].
pub const VERDICTS: [&str; 4] = ["schedulable", "unschedulable", "inconclusive", "not-applicable"];

/// The code of a verdict.
pub fn code(v: Verdict) -> u8 {
    match v {
        Verdict::Schedulable => 0,
        Verdict::Unschedulable => 1,
        Verdict::Inconclusive => 2,
        Verdict::NotApplicable => 3,
    }
}

/// What one evaluation is, for the result columns.
#[derive(Debug, Clone, PartialEq)]
pub struct EvalInfo {
    /// Scheduler or simulation name.
    pub name: String,
    /// Test ID, or `sim.POLICY`.
    pub test: String,
    /// Overhead model name (`none` for simulations and without models).
    pub overheads: String,
    /// The CPMD study's WSS in bytes (0: the generated working sets).
    pub cpmd_wss: u64,
    pub is_sim: bool,
}

/// How a scheduler's evaluations of one set share verdicts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reuse {
    /// `gedf.any` on the whole set.
    Gedf,
    /// `cedf.global` with `gedf.any` as its only cluster test.
    Cedf,
    /// Each evaluation alone.
    None,
}

struct Sched {
    test: &'static Test,
    reuse: Reuse,
    options: Options,
    cluster_size: Option<u32>,
    domains: Domains,
    /// Tests left out for sets of a utilisation distribution (`skip`).
    skip: Vec<(UtilMethod, String)>,
}

impl Sched {
    /// The tests left out for sets drawn with `utils`, into `out`.
    fn skipped(&self, utils: UtilMethod, out: &mut Vec<String>) {
        out.clear();
        out.extend(self.skip.iter().filter(|(u, _)| *u == utils).map(|(_, t)| t.clone()));
    }
}

struct Model {
    /// Per scheduler.
    overheads: Vec<Overheads>,
    method: Method,
    tick: u64,
}

struct Sim {
    policy: PolicySpec,
    horizon: Option<u64>,
    cluster_size: Option<u32>,
    /// `mcs` on PREM sets: the Contention baseline, memory mode, platform.
    prem: crate::prem::PremSim,
}

/// Everything needed to evaluate sets, built once per sweep.
pub struct Evaluator {
    scheds: Vec<Sched>,
    /// `None`: no overheads (ideal).
    models: Vec<Option<Model>>,
    /// `None`: the generated working sets.
    cpmd: Vec<Option<u64>>,
    sims: Vec<Sim>,
    pub evaluations: Vec<EvalInfo>,
    /// Which simulation metric columns are kept.
    pub sim_metrics: Vec<bool>,
    /// PREM sets: the task slots of the per-task columns (0: none).
    pub prem_slots: usize,
}

/// One evaluation's result.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Cell {
    pub verdict: u8,
    /// Simulations: jobs released, deadline misses, max and mean tardiness
    /// (ns, over completed jobs), preemptions, migrations. NaN for tests.
    pub sim: [f64; 6],
}

impl Evaluator {
    pub fn new(l: &Loaded) -> Result<Evaluator, String> {
        let e = &l.experiment;
        let mut scheds = Vec::new();
        for s in &e.schedulers {
            let test = find(&s.test).ok_or_else(|| format!("no test `{}`", s.test))?;
            let options = Options {
                heuristics: s.heuristics.iter().map(|h| h.parse()).collect::<Result<_, _>>()?,
                admission: s.admission.clone(),
                cluster_tests: s.cluster_tests.clone(),
                cluster_fit: s.cluster_fit.as_deref().and_then(cluster_fit).unwrap_or_default(),
                ..Options::default()
            };
            let domains = test.info.policies.first().map_or(Domains::Global, |p| p.domains());
            let mut skip = Vec::new();
            for k in &s.skip {
                for u in &k.utils {
                    skip.push((u.parse::<UtilMethod>().map_err(|e| e.to_string())?, k.test.clone()));
                }
            }
            let reuse = match test.info.id {
                "gedf.any" => Reuse::Gedf,
                "cedf.global" if options.cluster_tests == ["gedf.any"] => Reuse::Cedf,
                _ => Reuse::None,
            };
            scheds.push(Sched { test, reuse, options, cluster_size: s.cluster_size, domains, skip });
        }
        let mut models = Vec::new();
        for o in &e.overheads {
            if o.file.is_none() && o.files.is_empty() {
                models.push(None);
                continue;
            }
            let mut overheads = Vec::new();
            for s in &e.schedulers {
                let f = o
                    .files
                    .get(&s.name)
                    .or(o.file.as_ref())
                    .ok_or_else(|| format!("overheads `{}`: no file for `{}`", o.name, s.name))?;
                let mut oh = Overheads::load(&l.base.join(f), 64).map_err(|e| e.to_string())?;
                if let Some(k) = o.lookup.as_deref().and_then(crate::file::lookup) {
                    oh.lookup = k;
                }
                overheads.push(oh);
            }
            let method = o.method.as_deref().unwrap_or("epos").parse()?;
            models.push(Some(Model { overheads, method, tick: o.tick.map_or(DEFAULT_TICK, |d| d.0) }));
        }
        if models.is_empty() {
            models.push(None);
        }
        let cpmd: Vec<Option<u64>> =
            if e.cpmd.is_empty() { vec![None] } else { e.cpmd.iter().map(|s| Some(s.0)).collect() };
        let names: Vec<String> = if e.overheads.is_empty() {
            vec!["none".into()]
        } else {
            e.overheads.iter().map(|o| o.name.clone()).collect()
        };
        let mut evaluations = Vec::new();
        for name in &names {
            for c in &cpmd {
                for s in &e.schedulers {
                    evaluations.push(EvalInfo {
                        name: s.name.clone(),
                        test: s.test.clone(),
                        overheads: name.clone(),
                        cpmd_wss: c.unwrap_or(0),
                        is_sim: false,
                    });
                }
            }
        }
        let mut sims = Vec::new();
        let mut keep = vec![false; SIM_METRICS.len()];
        for s in &e.simulations {
            sims.push(Sim {
                policy: PolicySpec::named(s.policy),
                horizon: s.horizon.map(|d| d.0),
                cluster_size: s.cluster_size,
                prem: crate::prem::PremSim::of(s),
            });
            evaluations.push(EvalInfo {
                name: s.name.clone(),
                test: format!("sim.{}", s.policy.name()),
                overheads: "none".into(),
                cpmd_wss: 0,
                is_sim: true,
            });
            for (k, m) in SIM_METRICS.iter().enumerate() {
                keep[k] |= s.metrics.is_empty() || s.metrics.iter().any(|x| x == m);
            }
        }
        let prem_slots = match e.generator.prem {
            Some(_) => crate::grid::expand(&e.generator).map(|g| crate::prem::slots(&g)).unwrap_or(0),
            None => 0,
        };
        Ok(Evaluator { scheds, models, cpmd, sims, evaluations, sim_metrics: keep, prem_slots })
    }

    /// Evaluates a PREM set: each test on its spec, each simulation under
    /// `mcs`, with per-task results in `scratch.per_task`.
    fn evaluate_prem(
        &self,
        set: &crate::prem::PremSet,
        params: &GenParams,
        scratch: &mut Scratch,
        out: &mut Vec<Cell>,
    ) {
        let nan = [f64::NAN; 6];
        for sched in &self.scheds {
            let verdict = crate::prem::decide(sched.test, set, self.prem_slots, &mut scratch.per_task);
            out.push(Cell { verdict, sim: nan });
        }
        for sim in &self.sims {
            out.push(crate::prem::simulate(
                &sim.prem,
                sim.horizon,
                set,
                params,
                self.prem_slots,
                &mut scratch.per_task,
            ));
        }
    }

    /// Evaluates `set`, drawn for the point of `params` (its CPUs and
    /// utilisation distribution), appending one cell per evaluation.
    pub fn evaluate(&self, set: &Drawn, params: &GenParams, scratch: &mut Scratch, out: &mut Vec<Cell>) {
        scratch.per_task.clear();
        if let Some(prem) = &set.prem {
            return self.evaluate_prem(prem, params, scratch, out);
        }
        let cpus = params.cpus;
        let nan = [f64::NAN; 6];
        if scratch.inputs.len() != self.scheds.len() || scratch.cpus != cpus {
            scratch.cpus = cpus;
            scratch.inputs = self
                .scheds
                .iter()
                .map(|s| {
                    let mut i = Input::new(cpus, Vec::new());
                    i.options = s.options.clone();
                    if let Some(k) = s.cluster_size.filter(|&k| k > 0 && cpus.is_multiple_of(k)) {
                        i.clusters = Some((0..cpus / k).map(|c| (c * k..(c + 1) * k).collect()).collect());
                    }
                    i
                })
                .collect();
        }
        for (s, sched) in self.scheds.iter().enumerate() {
            if !sched.skip.is_empty() {
                sched.skipped(params.utils, &mut scratch.skip);
                if scratch.inputs[s].options.skip != scratch.skip {
                    scratch.inputs[s].options.skip.clone_from(&scratch.skip);
                }
            }
        }
        // Evaluation g·S + s is scheduler s under variant g (model-major,
        // then CPMD value): all variants of a scheduler are inflated first,
        // then decided with the scheduler's memo.
        let ns = self.scheds.len();
        let groups = self.models.len() * self.cpmd.len();
        let base = out.len();
        out.resize(base + groups * ns, Cell { verdict: 0, sim: nan });
        scratch.variants.resize_with(groups, Vec::new);
        scratch.ok.resize(groups, false);
        for (s, sched) in self.scheds.iter().enumerate() {
            for (g, (model, c)) in self.models.iter().flat_map(|m| self.cpmd.iter().map(move |&c| (m, c))).enumerate() {
                scratch.ok[g] = self
                    .inflated(
                        model.as_ref().map(|m| (&m.overheads[s], m.method, m.tick)),
                        c,
                        sched.domains,
                        set,
                        cpus,
                        &mut scratch.variants[g],
                    )
                    .is_ok();
            }
            let Scratch { inputs, variants, ok, memo, sub, .. } = scratch;
            let input = &mut inputs[s];
            if sched.reuse != Reuse::None {
                let all: Vec<Option<&[TaskParams]>> =
                    variants.iter().zip(ok.iter()).map(|(v, &ok)| ok.then_some(v.as_slice())).collect();
                memo.reset(&all);
            }
            let skip = skip_mask(&input.options.skip);
            for g in 0..groups {
                // Interrupts fill the CPUs or a WCET overflows: nothing is schedulable.
                let verdict = if !ok[g] {
                    1
                } else {
                    let tasks = &variants[g];
                    code(match sched.reuse {
                        Reuse::Gedf => memo.decide(g, None, tasks, cpus, skip).verdict,
                        Reuse::Cedf => {
                            input.tasks.clear();
                            input.tasks.extend_from_slice(tasks);
                            let mut passes = |mem: &[usize], k: u32| {
                                sub.clear();
                                sub.extend(mem.iter().map(|&i| tasks[i]));
                                memo.decide(g, Some(mem), sub, k, skip).verdict == Verdict::Schedulable
                            };
                            match cedf_decide_packed(input, &mut passes) {
                                Some(v) => v,
                                None => sched.test.verdict(input),
                            }
                        }
                        Reuse::None => {
                            input.tasks.clear();
                            input.tasks.extend_from_slice(tasks);
                            sched.test.verdict(input)
                        }
                    })
                };
                out[base + g * ns + s] = Cell { verdict, sim: nan };
            }
        }
        for sim in &self.sims {
            out.push(simulate(sim, set, cpus));
        }
    }

    /// The set's tasks after accounting for `model` with CPMD `cpmd`, into `tasks`.
    fn inflated(
        &self,
        model: Option<(&Overheads, Method, u64)>,
        cpmd: Option<u64>,
        domains: Domains,
        set: &Drawn,
        cpus: u32,
        tasks: &mut Vec<TaskParams>,
    ) -> Result<(), ()> {
        tasks.clear();
        let ideal_cpmd;
        let (oh, method, tick) = match model {
            None if cpmd.is_none() => {
                tasks.extend_from_slice(&set.tasks);
                return Ok(());
            }
            None => {
                let mut o = Overheads::constant(Costs::default());
                o.cpmd = Cpmd::epos_bound(64);
                ideal_cpmd = o;
                (&ideal_cpmd, Method::Epos, DEFAULT_TICK)
            }
            Some(m) => m,
        };
        let n = set.tasks.len() as u64;
        let own = |w: u64| {
            let pre = oh.cpmd(w, Resume::Preemption);
            if domains == Domains::PerCpu {
                pre
            } else {
                pre.max(oh.cpmd(w, Resume::Migration))
            }
        };
        if method == Method::Epos {
            let c = oh.costs(n);
            let ipi = if domains != Domains::PerCpu { c.ipi as u128 } else { 0 };
            let d = match cpmd {
                Some(w) => own(w),
                None => set.wss.iter().map(|&w| own(w)).max().unwrap_or(0),
            } as u128;
            let interrupts = c.tick as u128 + c.release as u128 * n as u128;
            let q = tick as u128;
            if q > 0 && interrupts >= q {
                return Err(());
            }
            let fixed = 2 * (c.schedule as u128 + c.context_switch as u128) + d + 2 * interrupts;
            for t in &set.tasks {
                let base = t.wcet as u128 + fixed;
                let e = if q > 0 { (base * q).div_ceil(q - interrupts) } else { base } + ipi;
                tasks.push(TaskParams { wcet: u64::try_from(e).map_err(|_| ())?, ..*t });
            }
            return Ok(());
        }
        let mut input = Input::new(cpus, set.tasks.clone());
        input.wss = match cpmd {
            Some(w) => vec![w; set.tasks.len()],
            None => set.wss.clone(),
        };
        let out = inflate(&input, oh, &Accounting::new(method, tick, domains)).map_err(|_| ())?;
        tasks.extend_from_slice(&out.input.tasks);
        Ok(())
    }
}

#[cfg(test)]
impl Evaluator {
    /// The verdict codes of the tests, each evaluation inflated and decided
    /// alone by its test (no reuse): the reference for [`Evaluator::evaluate`].
    fn decided_alone(&self, set: &Drawn, params: &GenParams) -> Vec<u8> {
        let cpus = params.cpus;
        let mut out = Vec::new();
        let mut tasks = Vec::new();
        let mut skip = Vec::new();
        for model in &self.models {
            for &c in &self.cpmd {
                for (s, sched) in self.scheds.iter().enumerate() {
                    let m = model.as_ref().map(|m| (&m.overheads[s], m.method, m.tick));
                    out.push(match self.inflated(m, c, sched.domains, set, cpus, &mut tasks) {
                        Ok(()) => {
                            let mut input = Input::new(cpus, tasks.clone());
                            input.options = sched.options.clone();
                            sched.skipped(params.utils, &mut skip);
                            input.options.skip.clone_from(&skip);
                            if let Some(k) = sched.cluster_size.filter(|&k| k > 0 && cpus.is_multiple_of(k)) {
                                input.clusters = Some((0..cpus / k).map(|c| (c * k..(c + 1) * k).collect()).collect());
                            }
                            code(sched.test.verdict(&input))
                        }
                        Err(()) => 1,
                    });
                }
            }
        }
        out
    }
}

/// Per-worker buffers.
#[derive(Default)]
pub struct Scratch {
    cpus: u32,
    inputs: Vec<Input>,
    /// One scheduler's tasks under each (overhead model, CPMD value), and
    /// whether the accounting left them schedulable at all.
    variants: Vec<Vec<TaskParams>>,
    ok: Vec<bool>,
    memo: Memo,
    /// A cluster's tasks.
    sub: Vec<TaskParams>,
    skip: Vec<String>,
    /// PREM sets: the last set's per-task results, evaluation-major, then
    /// task slot, then [`crate::prem::TASK_METRICS`] (empty otherwise).
    pub per_task: Vec<f64>,
}

/// The spec of a generated set for the simulator.
pub fn spec_of(set: &Drawn, cpus: u32, policy: PolicySpec, cluster_size: Option<u32>) -> Spec {
    let width = set.tasks.len().to_string().len();
    let tasks = set
        .tasks
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let mut task = Task::new(format!("T{:0width$}", i + 1), Duration(t.wcet), Duration(t.period));
            if t.deadline != t.period {
                task.deadline = Some(Duration(t.deadline));
            }
            task
        })
        .collect();
    let clusters = cluster_size
        .filter(|&k| k > 0 && cpus.is_multiple_of(k))
        .map(|k| (0..cpus / k).map(|c| (c * k..(c + 1) * k).collect()).collect());
    Spec {
        meta: None,
        platform: Platform { cpus, clusters, cache: None, memory: None },
        policy: Some(policy),
        overheads: None,
        reservations: None,
        mtt: None,
        tasks,
    }
}

fn simulate(sim: &Sim, set: &Drawn, cpus: u32) -> Cell {
    let spec = spec_of(set, cpus, sim.policy.clone(), sim.cluster_size);
    let failed = Cell { verdict: 3, sim: [f64::NAN; 6] };
    let Ok(mut policy) = schedlab_policy::build(&spec, None) else {
        // Admission failed (e.g. the set cannot be partitioned): not simulated.
        return failed;
    };
    let config =
        SimConfig { horizon: sim.horizon, spec_overheads: false, policy_events: false, ..SimConfig::default() };
    let mut deadlines: HashMap<(u32, u64), u64> = HashMap::new();
    let (mut max_t, mut sum_t, mut done) = (0u64, 0u128, 0u64);
    let mut sink = |e: &schedlab_trace::Event| match *e {
        schedlab_trace::Event::Release { task, job, deadline, .. } => {
            deadlines.insert((task, job), deadline);
        }
        schedlab_trace::Event::Completion { t, task, job, .. } => {
            if let Some(d) = deadlines.remove(&(task, job)) {
                let late = t.saturating_sub(d);
                max_t = max_t.max(late);
                sum_t += late as u128;
                done += 1;
            }
        }
        _ => {}
    };
    let Ok(summary) = schedlab_sim::simulate(&spec, policy.as_mut(), &config, &mut sink) else {
        return failed;
    };
    let released = summary.released();
    let missed = summary.missed();
    let pre: u64 = summary.tasks.iter().map(|t| t.preemptions).sum();
    let mig: u64 = summary.tasks.iter().map(|t| t.migrations).sum();
    let mean = if done > 0 { sum_t as f64 / done as f64 } else { 0.0 };
    Cell {
        verdict: if missed == 0 { 0 } else { 1 },
        sim: [released as f64, missed as f64, max_t as f64, mean, pre as f64, mig as f64],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_model::overheads::Costs;

    #[test]
    fn integer_eq2_equals_the_rational_accounting() {
        let costs = Costs { release: 340, schedule: 500, context_switch: 300, ipi: 300, tick: 248, release_latency: 0 };
        let mut rng = schedlab_model::rng::Rng::new(5);
        for _ in 0..300 {
            let n = rng.range_u64(1, 40) as usize;
            let tasks: Vec<TaskParams> = (0..n)
                .map(|_| {
                    let p = rng.range_u64(3, 250) * 1_000_000;
                    TaskParams::implicit(rng.range_u64(1, p / 2), p)
                })
                .collect();
            let wss: Vec<u64> = (0..n).map(|_| rng.range_u64(0, 2048) * 1024).collect();
            let set = Drawn { tasks: tasks.clone(), wss: wss.clone(), utilization: 0.0, prem: None };
            let mut oh = Overheads::constant(costs);
            oh.cpmd = Cpmd::epos_bound(64);
            for domains in [Domains::Global, Domains::PerCpu, Domains::PerCluster] {
                for tick in [0, 1_000_000] {
                    for cpmd in [None, Some(128 * 1024)] {
                        let ev = Evaluator {
                            scheds: vec![],
                            models: vec![],
                            cpmd: vec![],
                            sims: vec![],
                            evaluations: vec![],
                            sim_metrics: vec![],
                            prem_slots: 0,
                        };
                        let mut fast = Vec::new();
                        ev.inflated(Some((&oh, Method::Epos, tick)), cpmd, domains, &set, 8, &mut fast).unwrap();
                        let mut input = Input::new(8, tasks.clone());
                        input.wss = cpmd.map_or(wss.clone(), |w| vec![w; n]);
                        let slow = inflate(&input, &oh, &Accounting::new(Method::Epos, tick, domains)).unwrap();
                        assert_eq!(fast, slow.input.tasks);
                    }
                }
            }
        }
    }

    /// The EPOS study's sets across its distributions and caps: the
    /// verdicts reused across overhead models and clusters are the verdicts
    /// of deciding every evaluation alone, and reuse happened.
    #[test]
    fn reused_verdicts_are_the_verdicts_decided_alone() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments/epos-ch5-m8.yaml");
        let plan = crate::sweep::Plan::new(crate::file::load_path(&path).unwrap()).unwrap();
        let mut scratch = Scratch::default();
        let (mut cells, mut seen) = (Vec::new(), [0usize; 4]);
        let points = plan.grid.points.len();
        for point in (0..points).step_by(4) {
            let d = plan.draw(point, (point % 3) as u32).unwrap();
            let params = &plan.grid.points[point].params;
            cells.clear();
            plan.evaluator.evaluate(&d, params, &mut scratch, &mut cells);
            let reused: Vec<u8> = cells.iter().map(|c| c.verdict).collect();
            let alone = plan.evaluator.decided_alone(&d, params);
            assert_eq!(reused, alone, "point {point} ({})", plan.grid.points[point].key);
            for v in alone {
                seen[v as usize] += 1;
            }
        }
        println!("{seen:?}; {} reused, {} narrowed", scratch.memo.reused, scratch.memo.narrowed);
        assert!(seen[0] > 100 && seen[1] > 100 && seen[2] > 100, "{seen:?}");
        assert!(scratch.memo.reused > 50 && scratch.memo.narrowed > 50);
    }

    #[test]
    fn the_thesis_eq2_example_through_the_fast_path() {
        // EPOS §2.5 (notes §8.7 item 6): e = 1000 µs, Δscd 0.5, Δcxs 0.3,
        // Δcpd = the 128 KiB bound (120.471 µs), Δtck 0.248, Δrel 0.5 (one
        // task), Q = 1000 µs, Δipi 0.3: e′ ≈ 1124.708 µs.
        let costs = Costs { release: 500, schedule: 500, context_switch: 300, ipi: 300, tick: 248, release_latency: 0 };
        let mut oh = Overheads::constant(costs);
        oh.cpmd = Cpmd::epos_bound(64);
        let set = Drawn {
            tasks: vec![TaskParams::implicit(1_000_000, 10_000_000)],
            wss: vec![0],
            utilization: 0.1,
            prem: None,
        };
        let ev = Evaluator {
            scheds: vec![],
            models: vec![],
            cpmd: vec![],
            sims: vec![],
            evaluations: vec![],
            sim_metrics: vec![],
            prem_slots: 0,
        };
        let mut t = Vec::new();
        ev.inflated(Some((&oh, Method::Epos, 1_000_000)), Some(128 * 1024), Domains::Global, &set, 4, &mut t).unwrap();
        assert_eq!(t[0].wcet, 1_124_709, "1124.7081 µs with the 120.471 µs bound, rounded up");
    }
}
