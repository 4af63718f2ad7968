//! Timing-exception scopes on a real thread: protected sections (OML's
//! `oml_within_disable`/`enable`), benchmark mode, and the begin/end form
//! the C and Python bindings use. Timings are tolerant (a shared machine):
//! the assertions are about which scope gets which violation and about
//! lower bounds of CPU time, never tight upper bounds.

use schedlab_rt::calibrate;
use schedlab_rt::clock;
use schedlab_rt::job::{JobCtx, JobError};
use schedlab_rt::stop::Stop;
use schedlab_rt::timing::{scope_stats, Limit, Mode};

const MS: u64 = 1_000_000;

fn protected_section_defers(mode: Mode) {
    let c = calibrate::measure();
    let stop = Stop::new();
    let mut ctx = JobCtx::detached(MS, &c, &stop);
    ctx.set_timing_mode(mode);
    let mut in_section = 0;
    let r = ctx
        .try_wcet(MS, |ctx| {
            let t = clock::thread_cpu();
            ctx.protected(|ctx| {
                // 5 ms of checks past a 1 ms budget: none reports.
                ctx.spin_cpu(5 * MS)?;
                // Nested: the inner section's end does not report either.
                ctx.protected(|ctx| ctx.spin_cpu(MS))?;
                assert!(ctx.in_protected());
                Ok(())
            })?;
            // Not reached: the section's end reports the deferred violation.
            in_section = clock::thread_cpu() - t;
            Ok(())
        })
        .unwrap();
    let v = r.expect_err("the WCET scope is violated");
    assert_eq!(v.limit, Limit::Wcet);
    assert_eq!(in_section, 0, "the code after the section did not run");
    assert!(v.lateness >= 4 * MS, "noticed at the section's end, {} ns late", v.lateness);
    assert!(!ctx.in_protected());
    // Outside a section the same overrun is noticed at once.
    let r = ctx.try_wcet(MS, |ctx| ctx.spin_cpu(5 * MS)).unwrap();
    let v = r.expect_err("violated");
    assert!(v.lateness < 3 * MS, "noticed {} ns late without a section", v.lateness);
}

#[test]
fn a_protected_section_defers_a_cooperative_violation_to_its_end() {
    protected_section_defers(Mode::Cooperative);
}

#[test]
fn a_protected_section_defers_an_asynchronous_violation_to_its_end() {
    protected_section_defers(Mode::Async);
}

#[test]
fn a_scope_that_ends_inside_a_protected_section_opened_outside_reports_nothing() {
    // OML: the signal is masked, and leaving the scope cancels its enforcement.
    let c = calibrate::measure();
    let stop = Stop::new();
    let mut ctx = JobCtx::detached(MS, &c, &stop);
    for mode in [Mode::Cooperative, Mode::Async] {
        ctx.set_timing_mode(mode);
        let r = ctx.protected(|ctx| ctx.try_wcet(MS, |ctx| ctx.spin_cpu(3 * MS))).unwrap();
        assert!(r.is_ok(), "{mode:?}: {r:?}");
        ctx.check().unwrap();
    }
}

#[test]
fn benchmark_mode_records_each_scope_and_never_raises() {
    let c = calibrate::measure();
    let stop = Stop::new();
    let mut ctx = JobCtx::detached(MS, &c, &stop);
    ctx.set_timing_mode(Mode::Benchmark);
    for i in 0..4u64 {
        // Over its 1 ms budget: no violation, the duration is recorded.
        let r = ctx.try_wcet_labelled("decode", MS, |ctx| ctx.spin_cpu((2 + i) * MS)).unwrap();
        assert!(r.is_ok());
    }
    let r = ctx
        .try_within_rel_labelled("frame", MS, |ctx| {
            std::thread::sleep(std::time::Duration::from_millis(3));
            ctx.check()
        })
        .unwrap();
    assert!(r.is_ok());
    assert!(ctx.try_wcet(10 * MS, |ctx| ctx.spin_cpu(MS)).unwrap().is_ok());
    let stats = scope_stats(ctx.scope_times());
    assert_eq!(stats.len(), 3, "{stats:?}");
    let s = |l: &str| stats.iter().find(|s| s.label == l).unwrap();
    let decode = s("decode");
    assert_eq!((decode.count, decode.limit, decode.over_limit), (4, Limit::Wcet, 4));
    // CPU time: at least what was spun (2..5 ms), the max the 5 ms one.
    assert!(decode.max_ns >= 5 * MS && decode.max_ns < 50 * MS, "{decode:?}");
    assert!(decode.mean_ns >= 3.5e6, "{decode:?}");
    assert_eq!(decode.p99_ns, decode.max_ns);
    let frame = s("frame");
    // Wall time: the 3 ms sleep counts (it uses no CPU).
    assert_eq!((frame.count, frame.limit, frame.over_limit), (1, Limit::Deadline, 1));
    assert!(frame.max_ns >= 3 * MS, "{frame:?}");
    let plain = s("");
    assert_eq!((plain.count, plain.over_limit), (1, 0));
}

#[test]
fn begin_and_end_follow_the_nesting_rule() {
    let c = calibrate::measure();
    let stop = Stop::new();
    let mut ctx = JobCtx::detached(MS, &c, &stop);
    for mode in [Mode::Cooperative, Mode::Async] {
        ctx.set_timing_mode(mode);
        // The inner scope's own violation: its end returns it.
        let outer = ctx.scope_begin_within_rel("", 1000 * MS);
        let inner = ctx.scope_begin_wcet("", MS);
        let e = ctx.spin_cpu(3 * MS).expect_err("the check reports the inner violation");
        assert!(matches!(e, JobError::Timing(v) if v.scope == inner), "{mode:?}: {e:?}");
        let v = ctx.scope_end(inner).unwrap().expect("inner violated");
        assert_eq!((v.scope, v.depth, v.limit), (inner, 1, Limit::Wcet));
        assert_eq!(ctx.scope_end(outer).unwrap(), None);
        // The outer scope's violation: the inner end propagates it, the outer end owns it.
        let outer = ctx.scope_begin_within_rel("", MS);
        let inner = ctx.scope_begin_wcet("", 1000 * MS);
        assert!(ctx.spin_cpu(3 * MS).is_err());
        let e = ctx.scope_end(inner).expect_err("an outer violation propagates");
        assert!(matches!(e, JobError::Timing(v) if v.scope == outer && v.depth == 0), "{mode:?}: {e:?}");
        let v = ctx.scope_end(outer).unwrap().expect("outer violated");
        assert_eq!(v.limit, Limit::Deadline);
        // Ending an outer scope ends the inner ones left open; an unknown id is nothing.
        let outer = ctx.scope_begin_wcet("", 1000 * MS);
        let _inner = ctx.scope_begin_wcet("", 1);
        assert_eq!(ctx.scope_end(outer).unwrap(), None);
        assert_eq!(ctx.scope_end(outer).unwrap(), None);
        ctx.check().unwrap();
    }
}
