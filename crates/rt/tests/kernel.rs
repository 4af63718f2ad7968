//! Backend `kernel`, run for real on this machine (root): ordering, counts
//! and deadlines with tolerances that hold on a noisy 2-core VM.

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

fn validate(o: &schedlab_rt::RunOutcome, tolerance: u64) -> schedlab_validate::Report {
    let r = schedlab_validate::validate(
        &o.header,
        o.events.iter().cloned(),
        &schedlab_validate::Options::with_tolerance(tolerance),
    )
    .expect("validator runs");
    if !r.pass {
        if let Ok(dir) = std::env::var("SCHEDLAB_TEST_DUMP") {
            let lines: Vec<String> = o.events.iter().map(|e| serde_json::to_string(e).unwrap()).collect();
            let _ = std::fs::write(format!("{dir}/trace-{}.jsonl", std::process::id()), lines.join("\n"));
        }
    }
    r
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
  - {name: hi, wcet: 2ms, period: 10ms, priority: 1, cpu: 0}
  - {name: lo, wcet: 9ms, period: 20ms, priority: 2, cpu: 0}
  - {name: other, wcet: 1ms, period: 10ms, priority: 3, cpu: 1}
",
    );
    // The counts, the priority order and the pinning are checked on every
    // attempt; the validator's wall-clock checks (WCET, work conservation)
    // can be failed by a VM stall (see the G-EDF test below), so the run is
    // repeated, up to three attempts, and must validate once.
    let attempt = || -> Result<(), String> {
        let o = run(&spec, &cfg(1000)).map_err(|e| format!("run: {e}"))?;
        assert_eq!(o.stop, schedlab_rt::StopReason::Finished, "{:?}", o.notes);
        assert!(o.kernel_trace, "the kernel's events are merged");
        assert!(o.integrity.complete(), "{:?}", o.integrity);
        // Counts: duration / period (releases at 0, T, ... < duration).
        assert_eq!(jobs_of(&o.events, 0), 100);
        assert_eq!(jobs_of(&o.events, 1), 50);
        assert_eq!(jobs_of(&o.events, 2), 100);
        assert_eq!(completions_of(&o.events, 0), 100);
        assert_eq!(misses_of(&o.events, 0), 0, "the high-priority task never misses");
        // lo (released with hi, 2 + 9 > 10 ms) is preempted by hi's next release.
        let preempted =
            count(&o.events, |e| matches!(e, Event::SwitchAway { task: 1, reason: SwitchReason::Preempt, .. }));
        assert!(preempted >= 40, "lo preempted {preempted} times");
        // Every job of a pinned task runs on its CPU.
        assert!(o.events.iter().all(|e| match e {
            Event::SwitchTo { task: 0 | 1, cpu, .. } => *cpu == 0,
            Event::SwitchTo { task: 2, cpu, .. } => *cpu == 1,
            _ => true,
        }));
        let r = validate(&o, 2_000_000);
        if !r.pass {
            return Err(r.render());
        }
        Ok(())
    };
    up_to_three(attempt).unwrap_or_else(|e| panic!("{e}"));
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
  - {name: a, wcet: 1ms, period: 10ms}
  - {name: b, wcet: 2ms, period: 20ms}
  - {name: c, wcet: 3ms, period: 25ms, deadline: 20ms}
",
    );
    // Under load (a parallel build on this 2-vCPU VM) this failed about one
    // run in four, always from platform stalls the kernel trace shows, never
    // from a wrong kernel decision: a release timer delivered 4.4 ms late on
    // a CPU none of the set's threads held (`release` overhead, timer expiry
    // → sched_wakeup: the work-conserving check), a job "running" 7.4 ms of
    // wall-clock time for 0.8 ms of thread CPU time with no context switch
    // (the vCPU not executing the guest: the WCET check, which measures wall
    // time), and once such a stall long enough for a miss of the 10 ms task.
    // No tolerance fits a 15 ms stall while still checking G-EDF, so the
    // run is repeated (up to three attempts) and must pass once; each
    // failed attempt is printed.
    let attempt = || -> Result<(), String> {
        let o = run(&spec, &RunConfig { execution: Execution::Fraction(0.8), ..cfg(1000) })
            .map_err(|e| format!("run: {e}"))?;
        assert_eq!(o.stop, schedlab_rt::StopReason::Finished, "{:?}", o.notes);
        assert!(o.mapping.iter().all(|m| m.starts_with("SCHED_DEADLINE")), "{:?}", o.mapping);
        assert!(o.integrity.complete(), "{:?}", o.integrity);
        for (t, period) in [(0u32, 10u64), (1, 20), (2, 25)] {
            let n = jobs_of(&o.events, t) as i64;
            let want = (1000 / period) as i64;
            assert!((n - want).abs() <= 1, "task {t}: {n} jobs, want {want} ± 1");
            if misses_of(&o.events, t) != 0 {
                return Err(format!("task {t} missed"));
            }
        }
        let r = validate(&o, 2_000_000);
        if !r.pass {
            return Err(r.render());
        }
        Ok(())
    };
    up_to_three(attempt).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(state(), before);
}
