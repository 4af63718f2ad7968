//! Which injected mutations are not faults: the mutated trace is still a
//! schedule the policy produces, for other (legal) execution times. The
//! injector cannot tell, so these are recognised here, from the traces
//! alone (not from the validator's verdict), by sufficient conditions:
//!
//! * `idle-while-waiting` of a zero-length stint (a job switched to and away
//!   at one instant): removing it changes no settled state.
//! * `swap-dispatch` of jobs A and B first dispatched together at t0: after
//!   the swap, A executes what B executed and vice versa, and the jobs run
//!   on each other's CPUs. This is a schedule of the same policy when both
//!   may run on each other's CPU (placement), both complete normally or run
//!   until the horizon, each one's new execution time is within its limit
//!   (WCET, or the listed execution time when larger), and
//!   - for job-level fixed priorities (EDF, FP, NP-EDF): neither task
//!     releases its next job before both complete (no eligibility changes),
//!     and either A and B have the same priority (interchangeable in every
//!     comparison), or each runs in one stint from t0 to its completion
//!     and no job of their domain that waits from the first completion to
//!     the second (the only stretch where the running set differs: the job
//!     that completes later runs where the original ran the other) outranks
//!     the job running there;
//!   - for LLF and EDZL (priorities depend on the consumed time, which the
//!     swap changes for both jobs): each runs in one stint, no successor
//!     starts before its predecessor's new completion, and no job of their
//!     domain waits from t0 until both completed.
//!
//!   A swap is also a no-op when the traces have no overheads and the
//!   simulator, run again with A's and B's execution times exchanged (every
//!   other job's as in the original), produces the faulty trace up to CPU
//!   numbers (which then do not affect timing).
//!
//!   For a policy checked by replay (PD^2) a swap is never a no-op: the
//!   replay compares CPU by CPU, and the policy chose A's CPU for A at t0.
//!
//!   Undetected swaps outside all these conditions count as escapes,
//!   although some are no-ops too (typically LLF or EDZL with overheads,
//!   where a waiting job's comparison with the swapped running jobs would
//!   need their laxities): the catch rate is a lower bound.
//!
//! A mutation that meets these conditions must pass the validator (else the
//! validator has a false positive); the test checks that too.

use crate::support::{simulate_case, Case, Run};
use schedlab_model::{Duration, PolicyName};
use schedlab_policy::{Conformance, JobId, JobView};
use schedlab_trace::{Event, JobRef, SwitchReason, Time};
use schedlab_validate::inject::{FaultKind, Faulty};
use std::collections::{BTreeMap, HashMap};

/// Whether the mutation leaves a valid schedule (see the module doc).
pub fn is_no_op(case: &Case, run: &Run, f: &Faulty) -> bool {
    match f.mutation.kind {
        FaultKind::IdleWhileWaiting => zero_length(&run.events, f.mutation.jobs[0], f.mutation.cpu, f.mutation.t),
        FaultKind::SwapDispatch => {
            swap_is_no_op(case, run, &f.events, f.mutation.jobs[0], f.mutation.jobs[1], f.mutation.t)
        }
        _ => false,
    }
}

fn zero_length(events: &[Event], j: JobRef, cpu: Option<u32>, t0: Time) -> bool {
    let mut started = false;
    for e in events.iter().skip_while(|e| e.t() < t0).take_while(|e| e.t() == t0) {
        match *e {
            Event::SwitchTo { cpu: c, task, job, .. } if Some(c) == cpu && JobRef { task, job } == j => started = true,
            Event::SwitchAway { cpu: c, task, job, .. } if started && Some(c) == cpu && JobRef { task, job } == j => {
                return true
            }
            _ => {}
        }
    }
    false
}

/// What the original trace says about a job from its first dispatch on.
struct Life {
    cpu: u32,
    /// Stints from t0 on.
    stints: usize,
    /// Normal completion, or still running at the horizon: the time and (a
    /// bound on) its execution.
    done: Option<(Time, Time)>,
    release: Time,
    deadline: Time,
}

fn life(events: &[Event], j: JobRef, t0: Time, horizon: Time) -> Option<Life> {
    let mut l = Life { cpu: u32::MAX, stints: 0, done: None, release: 0, deadline: 0 };
    let mut open = false;
    for e in events {
        if e.job() != Some(j) {
            continue;
        }
        match *e {
            Event::Release { t, deadline, .. } => (l.release, l.deadline) = (t, deadline),
            // Only jobs first dispatched at t0 (no execution before the swap).
            Event::SwitchTo { t, .. } if t < t0 => return None,
            Event::SwitchTo { cpu, .. } => {
                if l.stints == 0 {
                    l.cpu = cpu;
                }
                l.stints += 1;
                open = true;
            }
            Event::SwitchAway { reason: SwitchReason::Abort | SwitchReason::Block, .. }
            | Event::Completion { forced: true, .. } => return None,
            Event::SwitchAway { .. } => open = false,
            Event::Completion { t, exec, .. } => (l.done, open) = (Some((t, exec)), false),
            _ => {}
        }
    }
    if l.done.is_none() && open {
        // Runs until the horizon: it executed at most horizon - t0.
        l.done = Some((horizon, horizon - t0));
    }
    Some(l)
}

fn swap_is_no_op(case: &Case, run: &Run, faulty: &[Event], a: JobRef, b: JobRef, t0: Time) -> bool {
    // A policy checked by replay (PD^2) is compared CPU by CPU, and its
    // choice at t0 depends on nothing after t0 (not on A's and B's execution
    // times): the swap puts B where the policy put A. Never a no-op.
    let replayed = schedlab_policy::build(&run.header.spec, Some(&run.header.placement))
        .is_ok_and(|p| p.info().conformance == Conformance::Replay);
    if replayed {
        return false;
    }
    let h = run.header.horizon;
    let (Some(la), Some(lb)) = (life(&run.events, a, t0, h), life(&run.events, b, t0, h)) else { return false };
    let (Some((ta, ea)), Some((tb, eb))) = (la.done, lb.done) else { return false };
    let spec = &run.header.spec;
    let pl = &run.header.placement;
    if !pl[a.task as usize].allows(lb.cpu) || !pl[b.task as usize].allows(la.cpu) {
        return false;
    }
    let limit = |j: JobRef| {
        let t = &spec.tasks[j.task as usize];
        let listed = t.executions.as_ref().map_or(0, |v| v[(j.job % v.len() as u64) as usize].0);
        t.wcet.0.max(listed)
    };
    if eb > limit(a) || ea > limit(b) {
        return false;
    }
    let end = ta.max(tb);
    let next = |j: JobRef| JobRef { task: j.task, job: j.job + 1 };
    let first = |ev: &[Event], j: JobRef, what: fn(&Event) -> bool| {
        ev.iter().find(|e| e.job() == Some(j) && what(e)).map(|e| e.t())
    };
    let is_release = |e: &Event| matches!(e, Event::Release { .. });
    let is_start = |e: &Event| matches!(e, Event::SwitchTo { .. });

    let policy = run.header.spec.policy.as_ref().map(|p| p.name);
    let time_dependent = matches!(policy, Some(PolicyName::Llf | PolicyName::Pllf | PolicyName::Edzl));
    let domain: Vec<u32> = (0..spec.tasks.len() as u32).filter(|&t| pl[t as usize] == pl[a.task as usize]).collect();
    let single = la.stints == 1 && lb.stints == 1;
    // Without overheads, CPU names do not matter to timing: the simulation
    // with A and B's execution times exchanged gives the faulty trace.
    if case.config.overheads.is_none() && resimulation_matches(case, run, faulty, a, b) {
        return true;
    }
    if !time_dependent {
        // Job-level fixed priorities. With the successors released only
        // after both complete, every other job's eligibility is unchanged.
        let later = |j: JobRef| first(&run.events, next(j), is_release).is_none_or(|t| t >= end);
        if !(later(a) && later(b)) {
            return false;
        }
        let p = schedlab_policy::build(spec, Some(pl)).expect("the trace's policy builds");
        let prio = |v: &JobView| p.priority(v).map(|q| (q.major, q.minor));
        let view = |j: JobRef, l: &Life| JobView {
            id: JobId { task: j.task, seq: j.job },
            release: l.release,
            deadline: l.deadline,
            consumed: 0,
            now: t0,
        };
        let (pa, pb) = (prio(&view(a, &la)), prio(&view(b, &lb)));
        // Equal priorities: interchangeable. Else, while both run (one stint
        // each) the running and waiting sets are the original ones; after the
        // first completes, the other job runs where the original ran the
        // first: no job waiting then may outrank it.
        let late_runner = if ta < tb { pa } else { pb };
        return pa == pb || (single && waiting_ok(faulty, &domain, ta.min(tb), end, |w| prio(w) >= late_runner));
    }
    // Priorities that depend on the consumed time (LLF, EDZL) change for both
    // jobs: no job may wait from t0 on, and no successor may start early.
    // (In the faulty trace A completes at tb and B at ta.)
    single
        && first(faulty, next(a), is_start).is_none_or(|t| t >= tb)
        && first(faulty, next(b), is_start).is_none_or(|t| t >= ta)
        && waiting_ok(faulty, &domain, t0, end, |_| false)
}

/// Simulates the case again with every job's execution time as in the
/// original trace but A's and B's exchanged, and compares the schedule with
/// the faulty trace, CPU numbers aside (same releases, dispatches,
/// preemptions and completions of the same jobs at the same times).
fn resimulation_matches(case: &Case, run: &Run, faulty: &[Event], a: JobRef, b: JobRef) -> bool {
    let n = case.spec.tasks.len();
    let mut exec: Vec<Vec<Option<Time>>> = vec![Vec::new(); n];
    for e in &run.events {
        match *e {
            Event::Release { task, job, .. } => {
                let v = &mut exec[task as usize];
                v.resize(v.len().max(job as usize + 1), None);
            }
            Event::Completion { task, job, exec: x, forced: false, .. } => exec[task as usize][job as usize] = Some(x),
            _ => {}
        }
    }
    let get = |j: JobRef| exec[j.task as usize].get(j.job as usize).copied().flatten();
    let (ea, eb) = (get(a), get(b));
    exec[a.task as usize][a.job as usize] = eb;
    exec[b.task as usize][b.job as usize] = ea;
    let mut spec = case.spec.clone();
    for (i, t) in spec.tasks.iter_mut().enumerate() {
        // Jobs that were aborted or had not completed at the horizon: any
        // execution time beyond what they consumed by then.
        let long = 4 * t.wcet.0 + run.header.horizon;
        if !exec[i].is_empty() {
            t.executions = Some(exec[i].iter().map(|x| Duration(x.unwrap_or(long))).collect());
        }
    }
    let Some(again) = simulate_case(&Case { seed: case.seed, spec, config: case.config.clone() }) else { return false };
    canonical(&again.events) == canonical(faulty)
}

/// The schedule without CPU numbers, sorted.
fn canonical(events: &[Event]) -> Vec<(Time, u8, u32, u64)> {
    let mut v: Vec<_> = events
        .iter()
        .filter_map(|e| {
            let k = match e {
                Event::Release { .. } => 0,
                Event::SwitchTo { .. } => 1,
                Event::SwitchAway { reason, .. } => 2 + *reason as u8,
                Event::Completion { forced, .. } => 8 + u8::from(*forced),
                Event::DeadlineMiss { .. } => 10,
                _ => return None,
            };
            let j = e.job()?;
            Some((e.t(), k, j.task, j.job))
        })
        .collect();
    v.sort_unstable();
    v
}

/// Every job of `domain` (task indices) that is eligible and not running at
/// a settled instant in `[from, to)` of the trace satisfies `ok`.
fn waiting_ok(events: &[Event], domain: &[u32], from: Time, to: Time, ok: impl Fn(&JobView) -> bool) -> bool {
    // Released, not completed: job → (release, deadline).
    let mut pending: HashMap<u32, BTreeMap<u64, (Time, Time)>> = HashMap::new();
    let mut running: HashMap<u32, JobRef> = HashMap::new();
    for (i, e) in events.iter().enumerate() {
        match *e {
            Event::Release { t, task, job, deadline } => {
                pending.entry(task).or_default().insert(job, (t, deadline));
            }
            Event::SwitchTo { cpu, task, job, .. } => {
                running.insert(cpu, JobRef { task, job });
            }
            Event::SwitchAway { cpu, task, job, .. } if running.get(&cpu) == Some(&JobRef { task, job }) => {
                running.remove(&cpu);
            }
            Event::Completion { cpu, task, job, .. } => {
                if let Some(s) = pending.get_mut(&task) {
                    s.remove(&job);
                }
                if running.get(&cpu) == Some(&JobRef { task, job }) {
                    running.remove(&cpu);
                }
            }
            _ => {}
        }
        let t = e.t();
        let next = events.get(i + 1).map(|n| n.t());
        // The state settled at t lasts until the next instant.
        if next.is_none_or(|n| n > t) && t < to && next.is_none_or(|n| n > from) {
            for &task in domain {
                let Some((&job, &(release, deadline))) = pending.get(&task).and_then(|s| s.first_key_value()) else {
                    continue;
                };
                let w = JobRef { task, job };
                if !running.values().any(|&r| r == w)
                    && !ok(&JobView { id: JobId { task, seq: job }, release, deadline, consumed: 0, now: t })
                {
                    return false;
                }
            }
        }
    }
    true
}
