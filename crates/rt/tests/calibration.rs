//! The calibrated spin: a job told to run 2 ms runs 2 ms of thread CPU time
//! ± 20 % (the stated tolerance; the median of 15 jobs, so a co-runner on
//! the shared VM does not decide alone), never less than 2 ms and, but for
//! one job of the 15, at most 2.2 ms, and the calibration is cached.

use schedlab_rt::calibrate;
use schedlab_rt::clock;
use schedlab_rt::stop::Stop;
use schedlab_rt::JobCtx;

#[test]
fn a_2ms_spin_consumes_2ms_of_cpu_time_within_20_percent() {
    let dir = std::env::temp_dir().join(format!("schedlab-cal-{}", std::process::id()));
    let c = calibrate::load_or_measure(Some(dir.clone()), true);
    assert!(!c.cached && c.ns_per_iter > 0.0);
    let again = calibrate::load_or_measure(Some(dir.clone()), false);
    assert!(again.cached, "the second use reads the cache");
    assert_eq!(again.ns_per_iter, c.ns_per_iter);
    let stop = Stop::new();
    let mut v: Vec<u64> = (0..15)
        .map(|_| {
            let mut ctx = JobCtx::detached(2_000_000, &again, &stop);
            let t = clock::thread_cpu();
            ctx.spin(2_000_000).unwrap();
            clock::thread_cpu() - t
        })
        .collect();
    v.sort_unstable();
    let median = v[v.len() / 2] as f64;
    let err = (median - 2e6) / 2e6;
    eprintln!("2 ms spin: median {median:.0} ns, error {:+.1} %, all {v:?}", err * 100.0);
    assert!(err.abs() <= 0.20, "median {median} ns for 2 ms (error {:+.1} %)", err * 100.0);
    // The CPU clock holds the loop: never short of the target, and
    // normally a check interval (and a clock read) beyond it, however fast
    // or slow the loop runs against its calibration. One job of the 15 may
    // overshoot further: a stall of the vCPU inside one ~20 µs chunk is
    // charged to the thread's CPU clock (fresh-clone runs measured one job
    // at 2.209 ms and one at 5.678 ms, the other 14 within +38 µs each).
    assert!(v.iter().all(|&x| x >= 2_000_000), "{v:?}");
    let far: Vec<u64> = v.iter().copied().filter(|&x| x > 2_000_000 + 200_000).collect();
    if !far.is_empty() {
        eprintln!("2 ms spin: {} job(s) beyond one check interval: {far:?}", far.len());
    }
    assert!(far.len() <= 1, "{} of 15 jobs overshot by more than 200 µs: {v:?}", far.len());
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn spin_cpu_is_exact_and_timing_exceptions_fire() {
    let c = calibrate::measure();
    let stop = Stop::new();
    let mut ctx = JobCtx::detached(1_000_000, &c, &stop);
    let t = clock::thread_cpu();
    ctx.spin_cpu(1_000_000).unwrap();
    let used = clock::thread_cpu() - t;
    assert!((1_000_000..1_200_000).contains(&used), "{used}");
    // A 3 ms block under a 1 ms WCET budget: the scope's own violation.
    let r = ctx.try_wcet(1_000_000, |ctx| ctx.spin_cpu(3_000_000)).unwrap();
    let v = r.expect_err("budget violated");
    assert_eq!(v.limit, schedlab_rt::timing::Limit::Wcet);
    // Nested: the outer deadline's violation propagates through the inner WCET scope.
    let outer = ctx
        .try_within_rel(1_000_000, |ctx| {
            let inner = ctx.try_wcet(50_000_000, |ctx| ctx.spin_cpu(5_000_000));
            assert!(inner.is_err(), "the inner scope does not catch the outer violation");
            inner.map(|_| ())
        })
        .unwrap();
    assert!(matches!(outer, Err(v) if v.limit == schedlab_rt::timing::Limit::Deadline && v.depth == 0));
    // Asynchronous notification: the timer signal sets the flag the check reads.
    ctx.set_timing_mode(schedlab_rt::timing::Mode::Async);
    let r = ctx.try_wcet(1_000_000, |ctx| ctx.spin_cpu(20_000_000)).unwrap();
    let v = r.expect_err("async budget violated");
    let used = clock::thread_cpu() - t;
    assert_eq!(v.limit, schedlab_rt::timing::Limit::Wcet);
    assert!(used < 30_000_000, "stopped early ({used} ns in total)");
}
