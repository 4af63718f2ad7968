//! Memory-centric scheduling (`mcs`): the holistic analysis of PREM tasks
//! (Rivas et al., ECRTS 2019, §5; seed notes 002 §A3). A PREM task becomes
//! a flow of steps on the shared memory `Mem` and on its CPU ([`prem`]),
//! and the flows are analysed by the Tindell–Clark fixed point with jitter
//! propagation (`mcs.holistic`, the paper's HOL), with its best-case
//! refinement (`mcs.holistic.best-case`), or with that refinement and the
//! precedence of a flow's own steps (`mcs.holistic.precedence`)
//! ([`holistic`]).
//!
//! Applies as the paper evaluates it: one task per CPU (each task pinned
//! with `cpu`, no two on one CPU), the memory-phase scheduler on
//! (`mps: true`), and no task on the master CPU when an `amp` task's worker
//! runs there. With several tasks on a CPU a task's memory phase also holds
//! its CPU, which a flow of single-resource steps does not model.

pub mod coverage;
pub mod flow;
pub mod holistic;
pub mod prem;

use super::input::Input;
use super::outcome::{Exactness, Outcome, Verdict};
use super::registry::TestInfo;
use super::uni::order::ranks;
use super::Data;
use flow::{Flow, Resource};
use holistic::{analyse, Analysis, Failure, Jitter};
use prem::{Mode, PremTask, Section};
use schedlab_model::exact::Ratio;
use schedlab_model::{Duration, MemoryMode, PolicyName, Spec};

pub const HOLISTIC_ID: &str = "mcs.holistic";
pub const BEST_CASE_ID: &str = "mcs.holistic.best-case";
pub const PRECEDENCE_ID: &str = "mcs.holistic.precedence";

const ASSUMES: &str = "policy `mcs` with the memory-phase scheduler (`mps: true`); one PREM task per CPU, each pinned with `cpu`, none on the master CPU when an `amp` task's worker runs there; sporadic flows, arbitrary deadlines, release jitter; memory phases preemptive unless written `preemptible: false` or `memory_preemption: false`; A-MP as the paper models it (the first prefetch, then the summed E phases), with the worker's phases shown to fit in the E phases and the last write-back in the period";

pub const HOLISTIC_INFO: TestInfo = TestInfo {
    id: HOLISTIC_ID,
    title: "MCS: holistic analysis of PREM flows on Mem and the CPUs (HOL)",
    policies: &[PolicyName::Mcs],
    assumes: ASSUMES,
    exactness: Exactness::Sufficient,
    source: "Tindell & Clark 1994 (holistic analysis); the PREM-to-flow transformation of Rivas, Rotteveel, Bertolini & Goossens, ECRTS 2019, §5",
};

pub const BEST_CASE_INFO: TestInfo = TestInfo {
    id: BEST_CASE_ID,
    title: "MCS: holistic analysis with the best-case jitter refinement (offsets from best-case responses)",
    policies: &[PolicyName::Mcs],
    assumes: ASSUMES,
    exactness: Exactness::Sufficient,
    source: "Palencia, Gutiérrez & González Harbour 1998 (best-case response times in the holistic analysis); Tindell & Clark 1994; Rivas et al., ECRTS 2019, §5",
};

pub const PRECEDENCE_INFO: TestInfo = TestInfo {
    id: PRECEDENCE_ID,
    title: "MCS: holistic analysis with best-case offsets and precedence inside a flow (no self-interference when D ≤ T)",
    policies: &[PolicyName::Mcs],
    assumes: ASSUMES,
    exactness: Exactness::Sufficient,
    source: "Tindell & Clark 1994 and Palencia, Gutiérrez & González Harbour 1998, with the precedence of a flow's own steps (the observation the offset-based analyses exploit, Palencia & González Harbour 1999); Rivas et al., ECRTS 2019, §5",
};

/// A task's PREM parameters, as the spec gives them under `mcs`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PremParams {
    /// The spec's `memory_priority` (1 the highest), if given.
    pub memory_priority: Option<u32>,
    pub mode: Mode,
    /// The Sections of its segments (empty if they do not form Sections;
    /// the spec's validation refuses such a task).
    pub sections: Vec<Section>,
    /// The job's BCET and WCET (CPU totals), for best cases.
    pub bcet: u64,
    pub wcet: u64,
}

impl PremParams {
    /// Every task's parameters when the spec's policy is `mcs`; else none.
    pub fn of_spec(spec: &Spec) -> Vec<PremParams> {
        let Some(pol) = &spec.policy else { return Vec::new() };
        if pol.name != PolicyName::Mcs {
            return Vec::new();
        }
        let np_all = pol.memory_preemption == Some(false);
        spec.tasks
            .iter()
            .map(|t| {
                let sections = schedlab_model::spec::prem::sections(&t.segments())
                    .map(|secs| {
                        secs.iter()
                            .map(|s| Section {
                                prefetch: s.prefetch.0,
                                exec: s.exec.0,
                                writeback: s.writeback.0,
                                prefetch_preemptive: s.prefetch_preemptible && !np_all,
                                writeback_preemptive: s.writeback_preemptible && !np_all,
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                PremParams {
                    memory_priority: t.memory_priority,
                    mode: match t.memory_mode() {
                        MemoryMode::Smp => Mode::Smp,
                        MemoryMode::Amp => Mode::Amp,
                    },
                    sections,
                    bcet: t.bcet().0.min(t.wcet.0),
                    wcet: t.wcet.0,
                }
            })
            .collect()
    }
}

/// The flows of `input` (each task's, then the workers' background flows),
/// or why the analysis does not apply.
pub fn flows(id: &'static str, input: &Input) -> Result<Vec<Flow>, Box<Outcome>> {
    prem_tasks(id, input).map(|t| flows_of(&t))
}

/// Each task's flow, then the workers' background flows.
pub fn flows_of(tasks: &[PremTask]) -> Vec<Flow> {
    let mut out = Vec::with_capacity(tasks.len());
    let mut background = Vec::new();
    for t in tasks {
        let (f, bg) = t.flows();
        out.push(f);
        background.extend(bg);
    }
    out.extend(background);
    out
}

/// The PREM tasks of `input`, or why the analysis does not apply.
pub fn prem_tasks(id: &'static str, input: &Input) -> Result<Vec<PremTask>, Box<Outcome>> {
    let na = |why: String| Box::new(Outcome::not_applicable(id, why));
    let Some(pol) = input.policy.as_ref().filter(|p| p.name == PolicyName::Mcs) else {
        return Err(na("the holistic analysis of memory-centric schedules is about `mcs`; set `policy: {name: mcs}` and give the tasks PREM segments".into()));
    };
    if pol.mps == Some(false) {
        return Err(na("`mps: false` is the Contention baseline: no memory-phase scheduler arbitrates the memory phases, so they contend for bandwidth instead of queueing on `Mem`; the analysis needs `mps: true`".into()));
    }
    let n = input.tasks.len();
    if input.prem.len() != n {
        return Err(na("the tasks' PREM parameters are missing (build the input from an `mcs` spec)".into()));
    }
    if let Some(i) = (0..n).find(|&i| input.prem[i].sections.is_empty()) {
        return Err(Box::new(
            Outcome::not_applicable(id, format!("the segments of {} do not form PREM Sections", input.task_label(i)))
                .task(i),
        ));
    }
    let mut on_cpu: Vec<Option<usize>> = vec![None; input.cpus as usize];
    for i in 0..n {
        let Some(c) = input.cpu.get(i).copied().flatten() else {
            return Err(Box::new(Outcome::not_applicable(id, format!(
                "{} is not pinned: the analysis models one PREM task per CPU, as the paper evaluates it; give every task its own `cpu`",
                input.task_label(i)
            )).task(i)));
        };
        match on_cpu.get_mut(c as usize) {
            Some(slot @ None) => *slot = Some(i),
            Some(Some(other)) => {
                return Err(Box::new(Outcome::not_applicable(id, format!(
                    "{} and {} share CPU {c}: a memory phase also holds its CPU, which the flows do not model with two tasks on a CPU; give each task its own `cpu`",
                    input.task_label(*other), input.task_label(i)
                )).task(i)))
            }
            None => return Err(na(format!("{} is pinned to CPU {c}, which does not exist", input.task_label(i)))),
        }
    }
    let master = pol.master.unwrap_or(input.cpus.saturating_sub(1));
    if input.prem.iter().any(|p| p.mode == Mode::Amp) {
        if let Some(Some(i)) = on_cpu.get(master as usize) {
            return Err(Box::new(Outcome::not_applicable(id, format!(
                "{} runs on CPU {master}, the master CPU where the memory-phase worker of the `amp` tasks runs above it; the analysis does not model the worker on a CPU: move the task or set `policy.master` to a free CPU",
                input.task_label(*i)
            )).task(*i)));
        }
    }
    let ranks = ranks(input).map_err(|(i, why)| Box::new(Outcome::not_applicable(id, why).task(i)))?;
    // Memory priorities: the spec's, or the task priorities' ranks (RM: the
    // period; DM: the deadline; explicit: the priority), equal ranks equal
    // memory priorities (served FIFO), as the policy orders them.
    let mem: Vec<u64> = if input.prem.iter().all(|p| p.memory_priority.is_some()) {
        input.prem.iter().map(|p| p.memory_priority.unwrap_or(0) as u64).collect()
    } else {
        ranks.clone()
    };
    Ok((0..n)
        .map(|i| {
            let t = input.tasks[i];
            let p = &input.prem[i];
            PremTask {
                task: i,
                period: t.period,
                deadline: t.deadline,
                jitter: t.jitter,
                cpu: input.cpu[i].unwrap_or(0),
                priority: ranks[i],
                memory_priority: mem[i],
                mode: p.mode,
                sections: p.sections.clone(),
                best: (p.bcet, p.wcet.max(1)),
            }
        })
        .collect())
}

fn ns(v: u64) -> String {
    Duration(v).to_string()
}

/// Explanation lines: every flow and its steps.
fn explain(input: &Input, flows: &[Flow], a: &Analysis, mode: Jitter) -> Vec<String> {
    let mut lines = Vec::new();
    for (i, f) in flows.iter().enumerate() {
        if f.background {
            let steps: Vec<String> = f
                .steps
                .iter()
                .map(|s| format!("{} {}{}", s.label, ns(s.wcet), if s.preemptive { "" } else { " (non-preemptive)" }))
                .collect();
            lines.push(format!(
                "{}: the memory-phase worker's phases at the lowest memory priority, not waited for (the paper's A-MP model): {}",
                input.task_label(f.task),
                steps.join(", ")
            ));
            continue;
        }
        let p = &input.prem[f.task];
        let head = match (a.failure.is_none(), a.end_to_end(i)) {
            (true, Some(r)) => format!("R = {} ≤ D = {}", ns(r), ns(f.deadline)),
            _ => format!(
                "stopped before its fixed point (D = {}; the values below are the last round's)",
                ns(f.deadline)
            ),
        };
        lines.push(format!(
            "{}: {} flow of {} steps, T = {}, {}: {head}",
            input.task_label(f.task),
            if p.mode == Mode::Smp { "S-MP" } else { "A-MP" },
            f.steps.len(),
            ns(f.period),
            match p.memory_priority {
                Some(m) => format!("memory priority {m}"),
                None => format!(
                    "memory rank {} (the task priorities' order)",
                    f.steps.iter().find(|s| s.resource == Resource::Mem).map_or(0, |s| s.priority)
                ),
            },
        ));
        for (j, s) in f.steps.iter().enumerate() {
            let r = a.steps[i][j];
            let offset = if mode != Jitter::Holistic { format!(", Φ = {}", ns(r.offset)) } else { String::new() };
            let blocking = if r.blocking > 0 { format!(", B = {}", ns(r.blocking)) } else { String::new() };
            let np = if s.preemptive { "" } else { " non-preemptive" };
            let result = if r.response > 0 {
                format!("w = {}, {} job(s) in the busy period, R = {}", ns(r.window), r.jobs, ns(r.response))
            } else {
                "not reached".to_string()
            };
            lines.push(format!(
                "  {} on {}{np}: C = {}, J = {}{offset}{blocking}: {result}",
                s.label,
                s.resource,
                ns(s.wcet),
                ns(r.jitter)
            ));
        }
    }
    lines.push(format!("the fixed point took {} round(s) of every step's response", a.rounds));
    lines
}

/// The outcome when the A-MP model's assumption is not shown.
fn uncovered_outcome(id: &'static str, input: &Input, u: coverage::Uncovered) -> Outcome {
    match u {
        coverage::Uncovered::Exec { task, section: k, span, exec } => Outcome::new(
            id,
            Verdict::Inconclusive,
            format!(
                "{} (A-MP): the memory-phase worker's phases during E{k} may take up to {}, longer than E{k}'s best case {}; the paper's A-MP model (the first prefetch, then the E phases back to back) assumes they are covered [S2:L312], so the bound does not hold",
                input.task_label(task),
                super::uni::ns(span),
                ns(exec)
            ),
        )
        .task(task)
        .compare(Ratio::new(span, 1), Ratio::new(exec as u128, 1)),
        coverage::Uncovered::Final { task, response, span, period } => Outcome::new(
            id,
            Verdict::Inconclusive,
            format!(
                "{} (A-MP): its last write-back, queued when a job ends (up to {} after its release), may take up to {}, past the period {} when the next job waits for it; the paper's A-MP model assumes it is covered",
                input.task_label(task),
                ns(response),
                super::uni::ns(span),
                ns(period)
            ),
        )
        .task(task)
            .compare(Ratio::new(response as u128 + span, 1), Ratio::new(period as u128, 1)),
    }
}

fn check_with(id: &'static str, input: &Input, mode: Jitter) -> Outcome {
    let tasks = match prem_tasks(id, input) {
        Ok(t) => t,
        Err(o) => return *o,
    };
    let flows = flows_of(&tasks);
    let a = analyse(&flows, mode);
    let uncovered = if a.failure.is_none() { coverage::uncovered(&tasks, &flows, &a) } else { None };
    let n = input.tasks.len();
    let rts: Vec<Option<u64>> = (0..n)
        .map(|i| match (&a.failure, uncovered) {
            (None, None) => a.end_to_end(i),
            _ => None,
        })
        .collect();
    let details = explain(input, &flows, &a, mode);
    let mut out = match (&a.failure, uncovered) {
        (None, Some(u)) => uncovered_outcome(id, input, u),
        (None, None) => {
            // The flow with the least slack decides.
            let i =
                (0..n).min_by_key(|&i| flows[i].deadline as i128 - a.end_to_end(i).unwrap_or(0) as i128).unwrap_or(0);
            let r = a.end_to_end(i).unwrap_or(0);
            let o = Outcome::new(
                id,
                Verdict::Schedulable,
                format!(
                    "every flow's end-to-end response is within its deadline; the tightest is {}: {} ≤ {}",
                    input.task_label(i),
                    ns(r),
                    ns(flows[i].deadline)
                ),
            );
            if n > 0 {
                o.task(i).compare(Ratio::new(r as u128, 1), Ratio::new(flows[i].deadline as u128, 1))
            } else {
                o
            }
        }
        (Some(Failure::Overload { resource, utilisation }), _) => Outcome::new(
            id,
            Verdict::Inconclusive,
            format!(
                "the steps on {resource} demand {:.4} of it (above 1): the responses grow without bound",
                utilisation.to_f64()
            ),
        )
        .compare(utilisation.clone(), Ratio::new(1, 1)),
        (Some(Failure::Miss { flow, step, response }), _) => {
            let f = &flows[*flow];
            Outcome::new(
                id,
                Verdict::Inconclusive,
                format!(
                    "{}: step {} on {} can end {} after the release, past the deadline {}; the analysis is sufficient only, so the set may still meet it",
                    input.task_label(f.task),
                    f.steps[*step].label,
                    f.steps[*step].resource,
                    super::uni::ns(*response),
                    ns(f.deadline)
                ),
            )
            .task(f.task)
            .compare(Ratio::new(*response, 1), Ratio::new(f.deadline as u128, 1))
        }
        (Some(Failure::Limit { flow, .. }), _) => Outcome::new(
            id,
            Verdict::Inconclusive,
            format!(
                "the fixed point hit its iteration cap at {} (a resource loaded at or near 1)",
                input.task_label(flows.get(*flow).map_or(0, |f| f.task))
            ),
        ),
    };
    out.details = details;
    out.with_data(Data::ResponseTimes(rts))
}

/// `mcs.holistic`: Jᵢⱼ = Rᵢ,ⱼ₋₁.
pub fn check_holistic(input: &Input) -> Outcome {
    check_with(HOLISTIC_ID, input, Jitter::Holistic)
}

/// `mcs.holistic.best-case`: Φᵢⱼ = Rbᵢ,ⱼ₋₁, Jᵢⱼ = Rᵢ,ⱼ₋₁ − Rbᵢ,ⱼ₋₁.
pub fn check_best_case(input: &Input) -> Outcome {
    check_with(BEST_CASE_ID, input, Jitter::BestCase)
}

/// `mcs.holistic.precedence`: the best-case form without a flow's
/// interference on itself when Dᵢ ≤ Tᵢ.
pub fn check_precedence(input: &Input) -> Outcome {
    check_with(PRECEDENCE_ID, input, Jitter::Precedence)
}
