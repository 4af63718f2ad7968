//! The restore guard and the watchdog, for real: after a run whose job body
//! panics or never returns, no thread is left at a real-time priority, no
//! schedlab cpuset or tracefs instance remains, settings are as before.

mod common;
use common::*;
use schedlab_rt::{run, JobCtx, JobError, RunConfig, StopReason, WorkloadSpec};
use std::sync::atomic::{AtomicBool, Ordering};

const PEDF: &str = "platform: {cpus: 2}
policy: {name: pedf}
tasks:
  - {name: a, wcet: 1ms, period: 10ms, cpu: 0}
  - {name: b, wcet: 1ms, period: 10ms, cpu: 1}
";

#[test]
fn a_panicking_job_body_ends_the_run_and_everything_is_restored() {
    require_root();
    let _s = serial();
    let before = state();
    // P-EDF: cpuset partitions and the root's load balancing are touched too.
    let body = WorkloadSpec::rust("panics-at-job-3", |task| {
        Box::new(move |ctx: &mut JobCtx| -> Result<(), JobError> {
            if task == 1 && ctx.job == 3 {
                panic!("job body bug");
            }
            ctx.spin_cpu(ctx.exec / 2)
        })
    });
    let o =
        run(&spec(PEDF), &RunConfig { duration: 2_000_000_000, workload: body, wait: true, ..RunConfig::default() })
            .expect("run");
    match &o.stop {
        StopReason::JobFailed(m) => assert!(m.contains("job 3") && m.contains("job body bug"), "{m}"),
        other => panic!("stop: {other:?}"),
    }
    assert!(o.mapping.iter().all(|m| m.contains("cpuset partition")), "{:?}", o.mapping);
    assert!(o.notes.iter().all(|n| n.contains("platform stall")), "{:?}", o.notes);
    assert_eq!(state(), before, "the machine is as before");
}

static RELEASE_HUNG: AtomicBool = AtomicBool::new(false);

#[test]
fn a_job_body_that_never_returns_is_stopped_by_the_watchdog() {
    require_root();
    let _s = serial();
    let before = state();
    let spec = spec(
        "platform: {cpus: 2}
policy: {name: gfp}
tasks:
  - {name: ok, wcet: 1ms, period: 10ms}
  - {name: stuck, wcet: 1ms, period: 20ms}
",
    );
    let body = WorkloadSpec::rust("never-returns-at-job-2", |task| {
        Box::new(move |ctx: &mut JobCtx| -> Result<(), JobError> {
            if task == 1 && ctx.job == 2 {
                // Ignores every check: only the watchdog can end this.
                while !RELEASE_HUNG.load(Ordering::Relaxed) {
                    std::hint::spin_loop();
                }
                return Ok(());
            }
            ctx.spin_cpu(ctx.exec / 2)
        })
    });
    let t = std::time::Instant::now();
    let o = run(
        &spec,
        &RunConfig {
            duration: 5_000_000_000,
            workload: body,
            job_timeout: Some(200_000_000),
            wait: true,
            ..RunConfig::default()
        },
    )
    .expect("run");
    let took = t.elapsed();
    match &o.stop {
        StopReason::Watchdog(m) => assert!(m.contains("stuck"), "{m}"),
        other => panic!("stop: {other:?}"),
    }
    assert!(took < std::time::Duration::from_secs(4), "the watchdog ended the run early ({took:?})");
    assert!(o.notes.iter().any(|n| n.contains("abandoned")), "{:?}", o.notes);
    let after = state();
    RELEASE_HUNG.store(true, Ordering::Relaxed);
    assert_eq!(after, before, "no real-time thread left, the machine as before");
}

/// `--idle poll` holds a 0 µs wake-up latency request while the jobs run
/// and the kernel drops it with the run; `--idle kernel` requests nothing.
#[test]
fn idle_cpus_poll_during_a_run_and_the_request_ends_with_it() {
    require_root();
    let _s = serial();
    let before = state();
    let limit_before = schedlab_rt::idle::current_limit_us();
    assert!(limit_before.is_some(), "this machine has {}", schedlab_rt::idle::DEVICE);
    for (mode, want) in
        [(schedlab_rt::idle::IdleMode::Poll, Some(0)), (schedlab_rt::idle::IdleMode::Kernel, limit_before)]
    {
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let s = seen.clone();
        let body = WorkloadSpec::rust("reads-the-idle-limit", move |_task| {
            let s = s.clone();
            Box::new(move |ctx: &mut JobCtx| -> Result<(), JobError> {
                s.lock().unwrap().push(schedlab_rt::idle::current_limit_us());
                ctx.spin_cpu(ctx.exec / 2)
            })
        });
        let o = run(
            &spec(PEDF),
            &RunConfig { duration: 100_000_000, workload: body, idle: mode, wait: true, ..RunConfig::default() },
        )
        .expect("run");
        assert_eq!(o.stop, StopReason::Finished, "{mode:?}");
        let seen = seen.lock().unwrap();
        assert!(seen.len() >= 10, "{mode:?}: {} jobs", seen.len());
        assert!(seen.iter().all(|l| *l == want), "{mode:?}: the jobs saw {:?}, not {want:?}", *seen);
        assert_eq!(schedlab_rt::idle::current_limit_us(), limit_before, "{mode:?}: the limit after the run");
    }
    assert_eq!(state(), before, "the machine is as before");
}
