//! The validator against the real policies of `schedlab_policy` (built from
//! the spec by `validate`). A policy that `build` does not provide yet is
//! skipped with a message, so these tests grow with the policy crate.

mod common;
use common::*;
use schedlab_model::{Placement, PolicyName, PolicySpec};
use schedlab_trace::Header;
use schedlab_validate::inject::{inject, FaultKind};
use schedlab_validate::{validate, Check, Mode, Options, PolicyChecks, Report, ValidateError};

/// Validates with the spec's policy; `None` when the policy is not built yet.
fn run(h: &Header, t: &Trace, o: &Options) -> Option<Report> {
    match validate(h, t.events.clone(), o) {
        Ok(r) => Some(r),
        Err(ValidateError::Policy { message, .. }) => {
            eprintln!("skipped: {}: {message}", h.spec.policy.as_ref().map_or("?", |p| p.name.name()));
            None
        }
        Err(e) => panic!("{e}"),
    }
}

fn with_policy(mut h: Header, name: PolicyName) -> Header {
    h.spec.policy = Some(PolicySpec::named(name));
    h
}

#[test]
fn real_gedf_passes_its_schedule_by_priority_and_by_replay() {
    let (h, t) = gedf_example();
    let Some(r) = run(&h, &t, &Options::default()) else { return };
    assert_pass(&r);
    assert_eq!(r.policy_checks, PolicyChecks::PriorityDriven);
    let r = run(&h, &t, &Options { mode: Mode::Replay, ..Options::default() }).unwrap();
    assert_pass(&r);
    assert_eq!(r.policy_checks, PolicyChecks::Replay);
}

#[test]
fn real_gedf_catches_injected_faults() {
    let (h, t) = gedf_example();
    if run(&h, &t, &Options::default()).is_none() {
        return;
    }
    for &kind in
        &[FaultKind::SwapDispatch, FaultKind::DelayDispatch, FaultKind::RunPastCompletion, FaultKind::IdleWhileWaiting]
    {
        for seed in 0..4 {
            let f = inject(&h, &t.events, kind, seed).unwrap();
            for mode in [Mode::Auto, Mode::Replay] {
                let r = validate(&h, f.events.clone(), &Options { mode, ..Options::default() }).unwrap();
                assert!(!r.pass, "{kind} seed {seed} escaped {mode:?}: {}", f.mutation.description);
            }
        }
    }
}

#[test]
fn real_np_gedf() {
    let (h, _) = gedf_example();
    let h = with_policy(h, PolicyName::NpGedf);
    // T4 waits for a free CPU instead of preempting T3.
    let t = Trace::new(&h.spec)
        .rel(0, 0, 0)
        .rel(0, 1, 0)
        .rel(0, 2, 0)
        .to(0, 0, 0, 0)
        .to(0, 1, 1, 0)
        .done(3 * MS, 0, 0, 0)
        .to(3 * MS, 0, 2, 0)
        .rel(ms(3.5), 3, 0)
        .done(4 * MS, 1, 1, 0)
        .to(4 * MS, 1, 3, 0)
        .done(5 * MS, 1, 3, 0)
        .done(8 * MS, 0, 2, 0);
    let Some(r) = run(&h, &t, &Options::default()) else { return };
    assert_pass(&r);
    assert_pass(&run(&h, &t, &Options { mode: Mode::Replay, ..Options::default() }).unwrap());
    let (_, preemptive) = gedf_example();
    let r = run(&h, &preemptive, &Options::default()).unwrap();
    assert_fails(&r, &[Check::NpPreemption]);
}

#[test]
fn real_pedf() {
    let s = spec(
        2,
        vec![task("A", 2 * MS, 10 * MS), task("B", 2 * MS, 20 * MS), task("C", 2 * MS, 30 * MS)],
        Some(PolicyName::Pedf),
    );
    let pl = vec![Placement::Cpu { cpu: 0 }, Placement::Cpu { cpu: 0 }, Placement::Cpu { cpu: 1 }];
    let h = header(s.clone(), pl, 30 * MS);
    let ok = Trace::new(&s)
        .rel(0, 0, 0)
        .rel(0, 1, 0)
        .rel(0, 2, 0)
        .to(0, 0, 0, 0)
        .to(0, 1, 2, 0)
        .done(2 * MS, 0, 0, 0)
        .to(2 * MS, 0, 1, 0)
        .done(2 * MS, 1, 2, 0)
        .done(4 * MS, 0, 1, 0);
    let Some(r) = run(&h, &ok, &Options::default()) else { return };
    assert_pass(&r);
    assert_pass(&run(&h, &ok, &Options { mode: Mode::Replay, ..Options::default() }).unwrap());
    let bad = Trace::new(&s).rel(0, 0, 0).rel(0, 1, 0).to(0, 0, 1, 0).done(2 * MS, 0, 1, 0).to(2 * MS, 0, 0, 0).done(
        4 * MS,
        0,
        0,
        0,
    );
    assert_fails(&run(&h, &bad, &Options::default()).unwrap(), &[Check::Conformance]);
    let f = inject(&h, &ok.events, FaultKind::WrongCpu, 3).unwrap();
    let r = validate(&h, f.events, &Options::default()).unwrap();
    assert!(r.failed().contains(&Check::Placement), "{}", r.render());
}

#[test]
fn real_gfp_rate_monotonic() {
    // RM: A (period 10ms) outranks B (period 20ms) on one CPU.
    let s = spec(1, vec![task("A", 2 * MS, 10 * MS), task("B", 5 * MS, 20 * MS)], Some(PolicyName::Gfp));
    let h = header(s.clone(), vec![], 20 * MS);
    let ok = Trace::new(&s)
        .rel(0, 0, 0)
        .rel(0, 1, 0)
        .to(0, 0, 0, 0)
        .done(2 * MS, 0, 0, 0)
        .to(2 * MS, 0, 1, 0)
        .done(7 * MS, 0, 1, 0)
        .rel(10 * MS, 0, 1)
        .to(10 * MS, 0, 0, 1)
        .done(12 * MS, 0, 0, 1);
    let Some(r) = run(&h, &ok, &Options::default()) else { return };
    assert_pass(&r);
    let bad = Trace::new(&s).rel(0, 0, 0).rel(0, 1, 0).to(0, 0, 1, 0).done(5 * MS, 0, 1, 0).to(5 * MS, 0, 0, 0).done(
        7 * MS,
        0,
        0,
        0,
    );
    assert_fails(&run(&h, &bad, &Options::default()).unwrap(), &[Check::Conformance]);
}
