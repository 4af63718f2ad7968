//! Fault injection: faulty copies of a valid trace, to check that the
//! validator catches scheduling faults (the oracle "injected faults in a
//! schedule are caught").
//!
//! Each mutation is chosen with a seeded generator
//! (`schedlab_model::rng::Rng`), so the same trace, kind and seed give
//! the same faulty trace, and each is recorded ([`Mutation`]: kind, time,
//! CPU, jobs, what was done). The faulty trace stays in time order and
//! structurally consistent where the fault allows, so the violation the
//! validator reports is the scheduling fault itself.
//!
//! The kinds, and what should catch them:
//!
//! | kind | mutation | caught by |
//! |---|---|---|
//! | `swap-dispatch` | two jobs dispatched at the same instant on different CPUs exchange identities from then on | conformance, eligibility, WCET, replay (a swap of interchangeable jobs can be undetectable) |
//! | `delay-dispatch` | a switch-to moves later within its stint | work-conserving, conformance, replay |
//! | `run-past-completion` | a completion (and its switch-away) moves past the next dispatch on its CPU | cpu-busy (and WCET, eligibility) |
//! | `wrong-cpu` | a stint moves to a CPU outside the job's placement | placement |
//! | `idle-while-waiting` | a dispatch and its matching switch-away (preemption) are removed | work-conserving, conformance, replay |

use schedlab_model::rng::Rng;
use schedlab_trace::{Event, Header, JobRef, SwitchReason, Time};
use serde::Serialize;
use std::collections::HashMap;

/// The kinds of fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FaultKind {
    SwapDispatch,
    DelayDispatch,
    RunPastCompletion,
    WrongCpu,
    IdleWhileWaiting,
}

impl FaultKind {
    pub const ALL: &'static [FaultKind] = &[
        FaultKind::SwapDispatch,
        FaultKind::DelayDispatch,
        FaultKind::RunPastCompletion,
        FaultKind::WrongCpu,
        FaultKind::IdleWhileWaiting,
    ];

    pub fn name(self) -> &'static str {
        match self {
            FaultKind::SwapDispatch => "swap-dispatch",
            FaultKind::DelayDispatch => "delay-dispatch",
            FaultKind::RunPastCompletion => "run-past-completion",
            FaultKind::WrongCpu => "wrong-cpu",
            FaultKind::IdleWhileWaiting => "idle-while-waiting",
        }
    }
}

impl std::fmt::Display for FaultKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What was done to the trace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Mutation {
    pub kind: FaultKind,
    pub seed: u64,
    /// When the fault takes effect.
    pub t: Time,
    pub cpu: Option<u32>,
    pub jobs: Vec<JobRef>,
    pub description: String,
}

/// A faulty copy of a trace.
#[derive(Debug, Clone)]
pub struct Faulty {
    pub mutation: Mutation,
    pub events: Vec<Event>,
}

/// How a stint ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    Away(SwitchReason),
    Completion,
}

/// A job's uninterrupted run on one CPU: event indices of its start and end.
#[derive(Debug, Clone, Copy)]
struct Stint {
    cpu: u32,
    job: JobRef,
    start: usize,
    t0: Time,
    end: Option<(usize, Time, End)>,
}

fn stints(events: &[Event]) -> Vec<Stint> {
    let mut out: Vec<Stint> = Vec::new();
    let mut open: HashMap<u32, usize> = HashMap::new();
    for (i, e) in events.iter().enumerate() {
        match *e {
            Event::SwitchTo { t, cpu, task, job } => {
                open.insert(cpu, out.len());
                out.push(Stint { cpu, job: JobRef { task, job }, start: i, t0: t, end: None });
            }
            Event::SwitchAway { t, cpu, task, job, reason, .. } => {
                if let Some(&s) = open.get(&cpu) {
                    if out[s].job == (JobRef { task, job }) {
                        out[s].end = Some((i, t, End::Away(reason)));
                        open.remove(&cpu);
                    }
                }
            }
            Event::Completion { t, task, job, .. } => {
                let j = JobRef { task, job };
                if let Some((&c, &s)) = open.iter().find(|(_, &s)| out[s].job == j) {
                    out[s].end = Some((i, t, End::Completion));
                    open.remove(&c);
                }
            }
            _ => {}
        }
    }
    out
}

fn set_time(e: &mut Event, nt: Time) {
    *e.t_mut() = nt;
}

fn set_cpu(e: &mut Event, c: u32) {
    match e {
        Event::SwitchTo { cpu, .. }
        | Event::SwitchAway { cpu, .. }
        | Event::Completion { cpu, .. }
        | Event::Overhead { cpu, .. } => *cpu = c,
        _ => {}
    }
}

fn set_job(e: &mut Event, j: JobRef) {
    match e {
        Event::Release { task, job, .. }
        | Event::SwitchTo { task, job, .. }
        | Event::SwitchAway { task, job, .. }
        | Event::Completion { task, job, .. }
        | Event::Block { task, job, .. }
        | Event::Resume { task, job, .. }
        | Event::DeadlineMiss { task, job, .. }
        | Event::BudgetExhausted { task, job, .. } => {
            *task = j.task;
            *job = j.job;
        }
        _ => {}
    }
}

/// The events that end a job's last stint at index `ei`: the event itself
/// and, written separately by some producers, the completion after a
/// switch-away with reason `complete` (or the switch-away after a
/// completion), at the same time. Indices in increasing order.
fn ending(events: &[Event], ei: usize) -> Vec<usize> {
    let (t, j) = (events[ei].t(), events[ei].job());
    let companion = |e: &Event| match e {
        Event::Completion { .. } => {
            matches!(events[ei], Event::SwitchAway { reason: SwitchReason::Complete | SwitchReason::Abort, .. })
        }
        Event::SwitchAway { reason: SwitchReason::Complete | SwitchReason::Abort, .. } => {
            matches!(events[ei], Event::Completion { .. })
        }
        _ => false,
    };
    let mut v = vec![ei];
    if let Some(p) = events[ei + 1..].iter().take_while(|e| e.t() == t).position(|e| e.job() == j && companion(e)) {
        v.push(ei + 1 + p);
    }
    v
}

/// Whether the stint ends its job (completion or abort).
fn ends_job(events: &[Event], s: &Stint) -> bool {
    match s.end {
        Some((_, _, End::Completion)) => true,
        Some((ei, _, End::Away(SwitchReason::Complete | SwitchReason::Abort))) => ending(events, ei).len() == 2,
        _ => false,
    }
}

/// Moves the events at `idx` (increasing) to time `nt`, keeping their order,
/// after the events already at `nt`.
fn move_events(events: &mut Vec<Event>, idx: &[usize], nt: Time) {
    let mut moved: Vec<Event> = idx.iter().rev().map(|&i| events.remove(i)).collect();
    moved.reverse();
    for e in &mut moved {
        set_time(e, nt);
    }
    let pos = events.partition_point(|x| x.t() <= nt);
    events.splice(pos..pos, moved);
}

fn pick<T: Copy>(rng: &mut Rng, v: &[T]) -> Option<T> {
    rng.choose(v).copied()
}

/// A faulty copy of `events` (a valid trace, in time order) with one fault
/// of the given kind, or `None` when the trace offers no place for it (e.g.
/// no two simultaneous dispatches, or every task may run everywhere).
pub fn inject(header: &Header, events: &[Event], kind: FaultKind, seed: u64) -> Option<Faulty> {
    let mut rng = Rng::new(seed);
    let st = stints(events);
    let mut ev = events.to_vec();
    let m = |t: Time, cpu: Option<u32>, jobs: Vec<JobRef>, description: String| Mutation {
        kind,
        seed,
        t,
        cpu,
        jobs,
        description,
    };
    let mutation = match kind {
        FaultKind::SwapDispatch => {
            let mut pairs = Vec::new();
            for (a, sa) in st.iter().enumerate() {
                for sb in st[a + 1..].iter().take_while(|s| s.t0 == sa.t0) {
                    if sa.cpu != sb.cpu && sa.job != sb.job {
                        pairs.push((*sa, *sb));
                    }
                }
            }
            // Jobs of different tasks first: swapping two jobs of one task is rarely a visible fault.
            let distinct: Vec<_> = pairs.iter().copied().filter(|(a, b)| a.job.task != b.job.task).collect();
            let (a, b) = pick(&mut rng, if distinct.is_empty() { &pairs } else { &distinct })?;
            let from = a.start.min(b.start);
            for e in ev[from..].iter_mut() {
                if matches!(e, Event::Release { .. }) {
                    continue;
                }
                match e.job() {
                    Some(j) if j == a.job => set_job(e, b.job),
                    Some(j) if j == b.job => set_job(e, a.job),
                    _ => {}
                }
            }
            m(
                a.t0,
                Some(a.cpu),
                vec![a.job, b.job],
                format!(
                    "jobs {}#{} (cpu {}) and {}#{} (cpu {}) dispatched at {}ns exchange identities from then on",
                    a.job.task, a.job.job, a.cpu, b.job.task, b.job.job, b.cpu, a.t0
                ),
            )
        }
        FaultKind::DelayDispatch => {
            let cands: Vec<Stint> =
                st.iter().copied().filter(|s| s.end.is_some_and(|(_, t1, _)| t1 > s.t0 + 1)).collect();
            let s = pick(&mut rng, &cands)?;
            let t1 = s.end.map(|e| e.1).unwrap_or(s.t0);
            let len = t1 - s.t0;
            let lo = (len / 4).max(1);
            let hi = (len / 2).max(lo).min(len - 1);
            let delay = rng.range_u64(lo.min(hi), hi);
            move_events(&mut ev, &[s.start], s.t0 + delay);
            m(
                s.t0,
                Some(s.cpu),
                vec![s.job],
                format!(
                    "dispatch of {}#{} on cpu {} delayed by {}ns (from {}ns)",
                    s.job.task, s.job.job, s.cpu, delay, s.t0
                ),
            )
        }
        FaultKind::RunPastCompletion => {
            // Stints that end their job, followed by another dispatch on the same CPU.
            let mut cands = Vec::new();
            for (i, s) in st.iter().enumerate() {
                if let (true, Some((ei, t1, _))) = (ends_job(events, s), s.end) {
                    if let Some(next) = st[i + 1..].iter().find(|n| n.cpu == s.cpu && n.start > ei) {
                        cands.push((*s, ei, t1, *next));
                    }
                }
            }
            let (s, ei, t1, next) = pick(&mut rng, &cands)?;
            let after = next.end.map_or(next.t0 + 2, |e| e.1).max(next.t0 + 2);
            let nt = rng.range_u64(next.t0 + 1, after - 1);
            let idx = ending(&ev, ei);
            for &i in &idx {
                if let Event::Completion { exec, .. } | Event::SwitchAway { exec, .. } = &mut ev[i] {
                    *exec += nt - t1;
                }
            }
            move_events(&mut ev, &idx, nt);
            m(t1, Some(s.cpu), vec![s.job, next.job], format!(
                "{}#{} keeps running on cpu {} after its completion at {}ns, until {}ns (past the dispatch of {}#{} at {}ns)",
                s.job.task, s.job.job, s.cpu, t1, nt, next.job.task, next.job.job, next.t0
            ))
        }
        FaultKind::WrongCpu => {
            let cpus = header.spec.platform.cpus;
            let placement = |task: u32| header.placement.get(task as usize);
            let mut cands = Vec::new();
            let mut fallback = Vec::new();
            for s in &st {
                let Some(p) = placement(s.job.task) else { continue };
                let t1 = s.end.map_or(Time::MAX, |e| e.1);
                for c in (0..cpus).filter(|&c| c != s.cpu && !p.allows(c)) {
                    let busy = st.iter().any(|o| o.cpu == c && o.t0 < t1 && o.end.map_or(Time::MAX, |e| e.1) > s.t0);
                    if busy {
                        fallback.push((*s, c));
                    } else {
                        cands.push((*s, c));
                    }
                }
            }
            let (s, c) = pick(&mut rng, if cands.is_empty() { &fallback } else { &cands })?;
            set_cpu(&mut ev[s.start], c);
            if let Some((ei, _, _)) = s.end {
                for i in ending(&ev, ei) {
                    set_cpu(&mut ev[i], c);
                }
            }
            m(
                s.t0,
                Some(c),
                vec![s.job],
                format!(
                    "the stint of {}#{} at {}ns moves from cpu {} to cpu {c}, outside its placement",
                    s.job.task, s.job.job, s.t0, s.cpu
                ),
            )
        }
        FaultKind::IdleWhileWaiting => {
            let cands: Vec<Stint> = st
                .iter()
                .copied()
                .filter(|s| matches!(s.end, Some((_, _, End::Away(SwitchReason::Preempt | SwitchReason::Budget)))))
                .collect();
            let s = pick(&mut rng, &cands)?;
            let (ei, t1, _) = s.end?;
            ev.remove(ei);
            ev.remove(s.start);
            m(
                s.t0,
                Some(s.cpu),
                vec![s.job],
                format!(
                    "cpu {} idles from {}ns to {}ns instead of running {}#{}",
                    s.cpu, s.t0, t1, s.job.task, s.job.job
                ),
            )
        }
    };
    Some(Faulty { mutation, events: ev })
}

/// One faulty copy per kind the trace allows, with seeds `seed`, `seed + 1`, ...
pub fn inject_all(header: &Header, events: &[Event], seed: u64) -> Vec<Faulty> {
    FaultKind::ALL
        .iter()
        .enumerate()
        .filter_map(|(i, &k)| inject(header, events, k, seed.wrapping_add(i as u64)))
        .collect()
}
