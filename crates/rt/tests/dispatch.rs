//! Backend `dispatch` (the user-space dispatcher driving crate `policy`),
//! run for real on this machine (root): every policy's trace passes the
//! validator with a tolerance of a fifth of the shortest job (so a priority
//! inversion of a fifth of a job is seen; the run's own measured latency
//! must fit in it), counts and deadlines hold, a preemption and a migration really
//! happen, and the machine is restored. Retries: see `common.rs`. Whole
//! file: ~20 s.

mod common;
use common::*;
use schedlab_rt::{run, Execution, RunConfig, RunOutcome};
use schedlab_trace::{Event, SwitchReason};
use std::collections::{BTreeMap, BTreeSet};

fn jobs_of(events: &[Event], task: u32) -> usize {
    count(events, |e| matches!(e, Event::Release { task: t, .. } if *t == task))
}
fn misses(events: &[Event]) -> usize {
    count(events, |e| matches!(e, Event::DeadlineMiss { .. }))
}

fn spec_of(policy: &str, platform: &str, tasks: &str) -> schedlab_model::Spec {
    spec(&format!("platform: {platform}\npolicy: {policy}\ntasks:\n{tasks}"))
}

/// Runs, prints the dispatcher's numbers, checks what every run must hold
/// (these failures are never retried).
fn run_checked(name: &str, spec: &schedlab_model::Spec, ms: u64) -> Result<RunOutcome, String> {
    let o = run(spec, &dispatch_cfg(ms)).map_err(|e| format!("{name}: {e}"))?;
    eprintln!("{name}: {}", o.notes.join("; "));
    if o.stop != schedlab_rt::StopReason::Finished {
        return Err(format!("{name}: stopped: {:?} {:?}", o.stop, o.notes));
    }
    if !o.integrity.complete() {
        return Err(format!("{name}: trace integrity {:?}", o.integrity));
    }
    if o.notes.iter().any(|n| n.starts_with("policy protocol")) {
        return Err(format!("{name}: {:?}", o.notes));
    }
    for (i, t) in spec.tasks.iter().enumerate() {
        let n = jobs_of(&o.events, i as u32) as i64;
        let want = (ms * 1_000_000 / t.period.0) as i64;
        if (n - want).abs() > 1 {
            return Err(format!("{name}: task {i}: {n} jobs, want {want} ± 1"));
        }
    }
    Ok(o)
}

/// Jobs whose running stints were on more than one CPU.
fn migrated(events: &[Event]) -> usize {
    let mut cpus: BTreeMap<(u32, u64), BTreeSet<u32>> = BTreeMap::new();
    for e in events {
        if let Event::SwitchTo { task, job, cpu, .. } = e {
            cpus.entry((*task, *job)).or_default().insert(*cpu);
        }
    }
    cpus.values().filter(|c| c.len() > 1).count()
}

/// Jobs of 16–48 ms (80 % of the WCETs): the tolerance is 3.2 ms, above
/// this VM's dispatch latency (hundreds of µs at p90 under load) and most of
/// its hiccups. With jobs of 3.2 ms and a 640 µs tolerance, and again with
/// 6.4 ms and 1.28 ms, quiet runs failed: the dispatcher thread itself woke
/// up to 1.4 ms late after a completion, a delay the run cannot yet show as
/// stall evidence.
const LIGHT: &str = "  - {name: a, wcet: 20ms, period: 200ms}
  - {name: b, wcet: 40ms, period: 400ms}
  - {name: c, wcet: 60ms, period: 500ms, deadline: 400ms}
";
/// For PD^2 (implicit deadlines; Q = 1 ms): each job gets e = ⌈wcet/Q⌉
/// whole quanta, and every quantum loses the dispatch latency (the
/// dispatcher's wake-up, decision and the switch: 0.1–0.3 ms on this VM,
/// debug build), so the execution must fit e·Q minus that — as Pfair
/// practice inflates execution by the per-quantum overhead. With 80 % of
/// these WCETs a job needs 19.2, 48 and 80 ms of its 24, 60 and 100 quanta;
/// the tolerance (a fifth of 19.2 ms, 3.84 ms) is longer than a quantum, as
/// a quantum-driven decision read from a recorded run may lag by one (jobs
/// of 3.84 ms with a 768 µs tolerance failed PD^2's and RUN's replay at a
/// quantum boundary without any stall on a quiet machine).
const LIGHT_QUANTA: &str = "  - {name: a, wcet: 24ms, period: 400ms}
  - {name: b, wcet: 60ms, period: 800ms}
  - {name: c, wcet: 100ms, period: 1000ms}
";

#[test]
fn every_policy_runs_light_sets_without_misses_and_validates() {
    require_root();
    let _s = serial();
    let before = state();
    let cases: &[(&str, &str, &str)] = &[
        ("{name: gedf}", "{cpus: 2}", LIGHT),
        ("{name: pedf}", "{cpus: 2}", LIGHT),
        ("{name: cedf}", "{cpus: 2, clusters: [[0, 1]]}", LIGHT),
        ("{name: gfp}", "{cpus: 2}", LIGHT),
        ("{name: pfp}", "{cpus: 2}", LIGHT),
        ("{name: cfp}", "{cpus: 2, clusters: [[0, 1]]}", LIGHT),
        ("{name: np-gedf}", "{cpus: 2}", LIGHT),
        ("{name: llf}", "{cpus: 2}", LIGHT),
        ("{name: pllf}", "{cpus: 2}", LIGHT),
        ("{name: edzl}", "{cpus: 2}", LIGHT),
        ("{name: pd2}", "{cpus: 2}", LIGHT_QUANTA),
        // RUN needs implicit deadlines.
        ("{name: run}", "{cpus: 2}", LIGHT_QUANTA),
    ];
    let mut failures = Vec::new();
    for (policy, platform, tasks) in cases {
        let spec = spec_of(policy, platform, tasks);
        let attempt = || -> Result<(), Failure> {
            let ms = if *tasks == LIGHT_QUANTA { 3000 } else { 2000 };
            let o = run_checked(policy, &spec, ms)?;
            if misses(&o.events) > 0 {
                return Err(Failure::of_run(
                    &o,
                    &spec,
                    0.8,
                    min_exec(&spec) / 5,
                    format!("{policy}: {} deadline misses", misses(&o.events)),
                ));
            }
            validate_dispatch(&o, &spec, policy).map(drop)
        };
        if let Err(e) = retry_stalls(policy, attempt) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert_eq!(state(), before, "the machine is as before");
}

/// Three tasks on two CPUs: x (120 ms every 480 ms) is running when y and
/// z (deadline 60 ms) are released every 60 ms, so G-EDF preempts x each
/// time; x resumes on the CPU that frees first (y's, the shorter one),
/// which is often not the one it was preempted on: a migration. Jobs of
/// 16 ms and more (80 %): a 3.2 ms tolerance (see `LIGHT`).
const PREEMPT: &str = "  - {name: x, wcet: 120ms, period: 480ms}
  - {name: y, wcet: 20ms, period: 60ms}
  - {name: z, wcet: 25ms, period: 60ms}
";

#[test]
fn gedf_preempts_resumes_and_migrates() {
    require_root();
    let _s = serial();
    let before = state();
    let spec = spec_of("{name: gedf}", "{cpus: 2}", PREEMPT);
    retry_stalls("gedf preempt", || {
        let o = run_checked("gedf preempt", &spec, 4800)?;
        if misses(&o.events) > 0 {
            return Err(Failure::of_run(&o, &spec, 0.8, min_exec(&spec) / 5, format!("gedf preempt: {} deadline misses", misses(&o.events))));
        }
        validate_dispatch(&o, &spec, "gedf preempt")?;
        let preempted: BTreeSet<(u32, u64)> = o
            .events
            .iter()
            .filter_map(|e| match e {
                Event::SwitchAway { task, job, reason: SwitchReason::Preempt, .. } => Some((*task, *job)),
                _ => None,
            })
            .collect();
        ensure!(preempted.len() >= 8, "{} jobs preempted", preempted.len());
        ensure!(preempted.iter().all(|(t, _)| *t == 0), "only x has a later deadline: only x is preempted");
        // Every preempted job runs again and completes.
        for &(task, job) in &preempted {
            let last_away = o.events.iter().rposition(|e| matches!(e, Event::SwitchAway { task: t, job: j, reason: SwitchReason::Preempt, .. } if (*t, *j) == (task, job))).unwrap();
            ensure!(o.events[last_away..].iter().any(|e| matches!(e, Event::SwitchTo { task: t, job: j, .. } if (*t, *j) == (task, job))), "job {task}:{job} resumes");
            ensure!(o.events.iter().any(|e| matches!(e, Event::Completion { task: t, job: j, forced: false, .. } if (*t, *j) == (task, job))), "job {task}:{job} completes");
        }
        // A global policy moves a preempted job to the CPU that frees first.
        let moved = migrated(&o.events);
        ensure!(moved >= 1, "no job migrated");
        eprintln!("preempted jobs: {}, migrated jobs: {moved}", preempted.len());
        Ok(())
    })
    .unwrap_or_else(|e| panic!("{e}"));
    // The same kind of set under P-EDF: preemptions, never a migration.
    let spec = spec_of("{name: pedf}", "{cpus: 2}", "  - {name: x, wcet: 160ms, period: 800ms, cpu: 0}\n  - {name: y, wcet: 160ms, period: 800ms, cpu: 1}\n  - {name: z, wcet: 20ms, period: 100ms, cpu: 0}\n");
    retry_stalls("pedf preempt", || {
        let o = run_checked("pedf preempt", &spec, 4000)?;
        ensure!(migrated(&o.events) == 0, "a P-EDF job migrated");
        ensure!(
            count(&o.events, |e| matches!(e, Event::SwitchAway { task: 0, reason: SwitchReason::Preempt, .. })) >= 5,
            "x is preempted by z"
        );
        ensure!(
            o.events.iter().all(|e| !matches!(
                e,
                Event::SwitchTo { task: 0 | 2, cpu: 1, .. } | Event::SwitchTo { task: 1, cpu: 0, .. }
            )),
            "a job ran off its CPU"
        );
        validate_dispatch(&o, &spec, "pedf preempt").map(drop)
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(state(), before, "the machine is as before");
}

#[test]
fn an_overloaded_set_misses_and_the_run_still_ends_and_restores() {
    require_root();
    let _s = serial();
    let before = state();
    // U = 2.4 on 2 CPUs (full WCET): misses, counted; the run ends at its
    // duration plus the drain limit and the machine is restored.
    let spec = spec_of("{name: gedf}", "{cpus: 2}", "  - {name: a, wcet: 8ms, period: 10ms}\n  - {name: b, wcet: 8ms, period: 10ms}\n  - {name: c, wcet: 8ms, period: 10ms}\n");
    let o = run(&spec, &RunConfig { execution: Execution::Wcet, ..dispatch_cfg(300) }).expect("run");
    assert!(misses(&o.events) > 10, "{} misses", misses(&o.events));
    assert_eq!(state(), before, "the machine is as before");
}
