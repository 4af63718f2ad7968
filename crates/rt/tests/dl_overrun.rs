//! SCHED_DEADLINE's overrun signal (SCHED_FLAG_DL_OVERRUN → SIGXCPU) on the
//! kernel backend, for real (root): a job that runs past its runtime gets
//! the same WCET violation a `try_wcet` scope raises — scope 0, the whole
//! job — at its next check, and the trace has its `budget-exhausted` and
//! `timing-exception` events; the process is never killed (SIGXCPU's
//! default action). Strict CBS (no reclaim: GRUB would let the job run on
//! idle bandwidth past its runtime). The kernel notices the exhaustion at a
//! tick or scheduling event and sends the signal from the tick after it,
//! so the tolerance is generous: the job must be stopped well before the
//! 4 × WCET it would otherwise spin.

mod common;
use common::*;
use schedlab_rt::job::JobError;
use schedlab_rt::timing::Limit;
use schedlab_rt::{run, RunConfig, WorkloadSpec};
use schedlab_trace::Event;
use std::sync::{Arc, Mutex};

#[test]
fn a_job_past_its_sched_deadline_runtime_gets_a_wcet_violation() {
    require_root();
    let _s = serial();
    let before = state();
    let s = spec(
        "platform: {cpus: 2}\npolicy: {name: gedf}\ntasks:
  - {name: hog, wcet: 10ms, period: 100ms}
",
    );
    // (CPU time used when the body saw the violation, its scope, its limit)
    let seen: Arc<Mutex<Vec<(u64, u64, Limit)>>> = Arc::default();
    let seen2 = seen.clone();
    let body = WorkloadSpec::Rust {
        name: "hog".into(),
        make: Arc::new(move |_| {
            let seen = seen2.clone();
            Box::new(move |ctx: &mut schedlab_rt::JobCtx| {
                let t = schedlab_rt::clock::thread_cpu();
                let r = ctx.spin_cpu(4 * ctx.wcet);
                if let Err(JobError::Timing(v)) = &r {
                    seen.lock().unwrap().push((schedlab_rt::clock::thread_cpu() - t, v.scope, v.limit));
                }
                r
            })
        }),
    };
    let config = RunConfig {
        duration: 1_000_000_000,
        workload: body,
        dl_reclaim: false,
        start_margin: 200_000_000,
        wait: true,
        ..RunConfig::default()
    };
    let o = run(&s, &config).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(o.stop, schedlab_rt::StopReason::Finished, "{:?}", o.notes);
    let jobs = count(&o.events, |e| matches!(e, Event::Release { .. }));
    let budget = count(&o.events, |e| matches!(e, Event::BudgetExhausted { .. }));
    let exceptions = count(
        &o.events,
        |e| matches!(e, Event::Note { name, data, .. } if name == "timing-exception" && data["limit"] == "wcet"),
    );
    let forced = count(&o.events, |e| matches!(e, Event::Completion { forced: true, .. }));
    let seen = seen.lock().unwrap().clone();
    eprintln!("{jobs} jobs, {budget} budget-exhausted, {exceptions} exceptions, {forced} forced; seen {seen:?}");
    let runtime = config.dl_runtime(10_000_000, 100_000_000);
    assert!(jobs >= 8, "{jobs} jobs");
    // Every job but possibly the last (the run's end) is stopped by the overrun.
    assert!(seen.len() + 1 >= jobs, "{} of {jobs} jobs saw the overrun", seen.len());
    // The kernel's budget belongs to the server, not to a job: it throttles at
    // the tick after the runtime is spent (a job overruns by up to a tick), a
    // negative balance is taken from the next replenishment, and a job that
    // wakes before the server's deadline keeps what is left (the CBS wake-up
    // rule). One job can therefore stop a few ms early and its neighbour as
    // much late (seen: 10.47, 7.96, 13.20 ms of a 10.6 ms runtime), while
    // their sum stays the runtimes they were given.
    for &(used, scope, limit) in &seen {
        assert_eq!((scope, limit), (0, Limit::Wcet));
        assert!(used >= runtime / 2, "stopped after {used} ns, long before the runtime {runtime}");
        assert!(used < 30_000_000, "stopped after {used} ns: the overrun came too late");
    }
    let mean = seen.iter().map(|s| s.0).sum::<u64>() / seen.len().max(1) as u64;
    assert!(
        mean >= runtime * 95 / 100 && mean <= runtime * 3 / 2,
        "the jobs ran {mean} ns on average before their overrun, against a runtime of {runtime}"
    );
    assert_eq!(budget, seen.len(), "one budget-exhausted per overrun");
    assert_eq!(exceptions, seen.len(), "one timing-exception per overrun");
    assert_eq!(forced, seen.len(), "each overrunning job is ended");
    assert_eq!(state(), before, "the machine is as before");
}
