//! Backend `kernel`, run for real on this machine (root): ordering, counts
//! and deadlines; the validator's tolerance is a fifth of the shortest job
//! (the jobs are five times the tolerance, and the run's own latency must
//! fit in it). Jobs of 12.8 ms and more (tolerances of 2.4-2.56 ms): with
//! jobs of 3-4 ms, tolerances of 0.6 ms were below this VM's frequent 1-8 ms
//! stalls. Retries: see `common.rs`. Whole file: ~10 s.

mod common;
use common::*;
use schedlab_rt::{run, Execution, RunConfig, WorkloadSpec};
use schedlab_trace::{Event, SwitchReason};

fn cfg(duration_ms: u64) -> RunConfig {
    // spin-cpu: exact CPU time, so ordering assertions do not depend on calibration.
    // A 200 ms start margin: under load (a parallel build) the SCHED_OTHER
    // main thread can take longer than the default 20 ms to set the threads up.
    RunConfig {
        duration: duration_ms * 1_000_000,
        execution: Execution::Fraction(1.0),
        workload: WorkloadSpec::SpinCpu,
        start_margin: 200_000_000,
        // Another run on this machine (another test binary) is waited for.
        wait: true,
        ..RunConfig::default()
    }
}

fn jobs_of(events: &[Event], task: u32) -> usize {
    count(events, |e| matches!(e, Event::Release { task: t, .. } if *t == task))
}
fn misses_of(events: &[Event], task: u32) -> usize {
    count(events, |e| matches!(e, Event::DeadlineMiss { task: t, .. } if *t == task))
}
fn completions_of(events: &[Event], task: u32) -> usize {
    count(events, |e| matches!(e, Event::Completion { task: t, forced: false, .. } if *t == task))
}

/// Validates `o` with a fifth of the shortest job (`fraction` × the
/// smallest WCET) as the tolerance; a failure is retried only with the
/// run's stall evidence.
fn validate(o: &schedlab_rt::RunOutcome, spec: &schedlab_model::Spec, fraction: f64) -> Result<(), Failure> {
    let min_exec = spec.tasks.iter().map(|t| (t.wcet.0 as f64 * fraction) as u64).min().unwrap_or(0);
    let tol = tolerance_of(o, min_exec)?;
    let r = schedlab_validate::validate(
        &o.header,
        o.events.iter().cloned(),
        &schedlab_validate::Options::with_tolerance(tol),
    )
    .expect("validator runs");
    if r.pass {
        return Ok(());
    }
    if let Ok(dir) = std::env::var("SCHEDLAB_TEST_DUMP") {
        let lines: Vec<String> = o.events.iter().map(|e| serde_json::to_string(e).unwrap()).collect();
        let _ = std::fs::write(format!("{dir}/trace-{}.jsonl", std::process::id()), lines.join("\n"));
    }
    Err(Failure::of_run(o, spec, fraction, tol, r.render()))
}

#[test]
fn pfp_high_priority_never_misses_and_preempts_the_low_one() {
    require_root();
    let _s = serial();
    let before = state();
    let spec = spec(
        "platform: {cpus: 2}
policy: {name: pfp, priorities: explicit}
tasks:
  - {name: hi, wcet: 16ms, period: 80ms, priority: 1, cpu: 0}
  - {name: lo, wcet: 72ms, period: 160ms, priority: 2, cpu: 0}
  - {name: other, wcet: 12ms, period: 120ms, priority: 3, cpu: 1}
",
    );
    // Counts, the priority order, the pinning and the trace's integrity
    // fail at once; a miss of hi or a validation failure is retried only
    // under a platform stall the run measured (common.rs).
    let attempt = || -> Result<(), Failure> {
        let o = run(&spec, &cfg(4000)).map_err(|e| format!("run: {e}"))?;
        ensure!(o.stop == schedlab_rt::StopReason::Finished, "stop {:?}: {:?}", o.stop, o.notes);
        ensure!(o.kernel_trace, "the kernel's events are merged");
        Failure::of_integrity(&o.integrity)?;
        // Counts: releases at 0, T, ... < 4 s.
        for (t, want) in [(0u32, 50usize), (1, 25), (2, 34)] {
            ensure!(jobs_of(&o.events, t) == want, "task {t}: {} jobs, want {want}", jobs_of(&o.events, t));
        }
        ensure!(completions_of(&o.events, 0) == 50, "hi completed {}", completions_of(&o.events, 0));
        // lo (released with hi, 16 + 72 > 80 ms) is preempted by hi's next release.
        let preempted =
            count(&o.events, |e| matches!(e, Event::SwitchAway { task: 1, reason: SwitchReason::Preempt, .. }));
        ensure!(preempted >= 20, "lo preempted {preempted} times");
        // Every job of a pinned task runs on its CPU.
        ensure!(
            o.events.iter().all(|e| match e {
                Event::SwitchTo { task: 0 | 1, cpu, .. } => *cpu == 0,
                Event::SwitchTo { task: 2, cpu, .. } => *cpu == 1,
                _ => true,
            }),
            "a pinned job ran off its CPU"
        );
        if misses_of(&o.events, 0) != 0 {
            return Err(Failure::of_run(&o, &spec, 1.0, 2_400_000, format!("hi missed {}", misses_of(&o.events, 0))));
        }
        validate(&o, &spec, 1.0)
    };
    retry_stalls("pfp", attempt).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(state(), before, "the machine is as before");
}

#[test]
fn gedf_on_sched_deadline_light_set_has_no_misses() {
    require_root();
    let _s = serial();
    let before = state();
    let spec = spec(
        "platform: {cpus: 2}
policy: {name: gedf}
tasks:
  - {name: a, wcet: 16ms, period: 160ms}
  - {name: b, wcet: 32ms, period: 320ms}
  - {name: c, wcet: 48ms, period: 400ms, deadline: 320ms}
",
    );
    // Under load (a parallel build on this 2-vCPU VM) this failed about one
    // run in four, always from platform stalls the kernel trace shows, never
    // from a wrong kernel decision: a release timer delivered 4.4 ms late on
    // a CPU none of the set's threads held, a job "running" 7.4 ms of
    // wall-clock time for 0.8 ms of thread CPU time with no context switch
    // (the vCPU not executing the guest), and once such a stall long enough
    // for a miss. The run measures both (timer lateness, CPU-time gap); a
    // miss or a validation failure is retried only with that evidence.
    let attempt = || -> Result<(), Failure> {
        let o = run(&spec, &RunConfig { execution: Execution::Fraction(0.8), ..cfg(4000) })
            .map_err(|e| format!("run: {e}"))?;
        ensure!(o.stop == schedlab_rt::StopReason::Finished, "stop {:?}: {:?}", o.stop, o.notes);
        ensure!(o.mapping.iter().all(|m| m.starts_with("SCHED_DEADLINE")), "{:?}", o.mapping);
        Failure::of_integrity(&o.integrity)?;
        for (t, period) in [(0u32, 160u64), (1, 320), (2, 400)] {
            let n = jobs_of(&o.events, t) as i64;
            let want = (4000 + period as i64 - 1) / period as i64;
            ensure!((n - want).abs() <= 1, "task {t}: {n} jobs, want {want} ± 1");
            if misses_of(&o.events, t) != 0 {
                return Err(Failure::of_run(&o, &spec, 0.8, 2_560_000, format!("task {t} missed")));
            }
        }
        validate(&o, &spec, 0.8)
    };
    retry_stalls("gedf", attempt).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(state(), before);
}
