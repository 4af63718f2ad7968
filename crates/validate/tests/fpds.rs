//! The validator under deferred preemption (FPDS, G-FPDS; OSPERT 2009,
//! Bergsma et al.): a running job is switched away only at one of its
//! preemption points (`point-preemption`), goes on at a point only if no
//! higher-priority job waits for its CPU (`point-decision`), and a waiting
//! higher-priority job waits at most one subjob plus the tolerance
//! (`conformance`). Schedules come from the simulator; wrong ones from
//! simulating another policy and validating the trace as FPDS.

use schedlab_model::{load_str, PolicyName, PolicySpec, Spec};
use schedlab_sim::{header, simulate_collect, SimConfig};
use schedlab_trace::{Event, Header};
use schedlab_validate::{validate, Check, Mode, Options, PolicyChecks};

const MS: u64 = 1_000_000;

/// The camera example: a high-priority network task and a low-priority
/// video task in subjobs [2, 2, 2] ms.
fn camera(policy: &str) -> Spec {
    let yaml = format!(
        "platform: {{cpus: 1}}\npolicy: {{name: {policy}}}\ntasks:\n  \
         - {{name: network, wcet: 1ms, period: 5ms, offset: 1ms}}\n  \
         - {{name: video, wcet: 6ms, period: 20ms, subjobs: [2ms, 2ms, 2ms]}}\n"
    );
    load_str(&yaml, None, "camera.yaml").unwrap().spec
}

fn sim(spec: &Spec) -> (Header, Vec<Event>) {
    let mut p = schedlab_policy::build(spec, None).unwrap();
    let config = SimConfig::default();
    let h = header(spec, p.info(), &config);
    let (ev, _) = simulate_collect(spec, p.as_mut(), &config).unwrap();
    (h, ev)
}

fn as_policy(mut h: Header, name: PolicyName) -> Header {
    h.spec.policy = Some(PolicySpec::named(name));
    h
}

#[test]
fn fpds_schedules_pass_by_priority_and_by_replay() {
    for policy in ["fpds", "g-fpds"] {
        let (h, ev) = sim(&camera(policy));
        assert!(ev.iter().any(|e| matches!(e, Event::SegmentEnd { .. })));
        let r = validate(&h, ev.clone(), &Options::default()).unwrap();
        assert!(r.pass, "{}", r.render());
        assert_eq!(r.policy_checks, PolicyChecks::PriorityDriven);
        for c in [Check::PointPreemption, Check::PointDecision, Check::NpDecision, Check::Conformance] {
            assert!(r.check(c).is_some(), "{c} did not run");
        }
        assert!(r.check(Check::NpPreemption).is_none());
        let r = validate(&h, ev, &Options { mode: Mode::Replay, ..Options::default() }).unwrap();
        assert!(r.pass, "{}", r.render());
    }
}

/// A P-FP schedule preempts the video job at 1 ms, inside its first subjob.
#[test]
fn a_preemption_between_points_is_caught() {
    let (h, ev) = sim(&camera("pfp"));
    let r = validate(&as_policy(h, PolicyName::Fpds), ev, &Options::default()).unwrap();
    let v = r.first(Check::PointPreemption).unwrap_or_else(|| panic!("{}", r.render()));
    assert_eq!(v.t, MS);
    assert!(v.message.contains("video#0 is preempted on cpu 0 at no preemption point"), "{}", v.message);
}

/// An FPNS schedule runs the video job past its points at 2 and 4 ms while
/// the network job released at 1 ms waits: caught at the first point, and
/// the network job waited longer than one subjob (2 ms).
#[test]
fn going_on_at_a_point_while_a_higher_priority_job_waits_is_caught() {
    let (h, ev) = sim(&camera("fpns"));
    let r = validate(&as_policy(h, PolicyName::Fpds), ev, &Options::default()).unwrap();
    let v = r.first(Check::PointDecision).unwrap_or_else(|| panic!("{}", r.render()));
    assert_eq!(v.t, 2 * MS);
    assert!(
        v.message.contains("video#0 (deadline 20ms) goes on at its preemption point on cpu 0 while network#0"),
        "{}",
        v.message
    );
    let v = r.first(Check::Conformance).unwrap_or_else(|| panic!("{}", r.render()));
    // From 1 ms; found at the first event after 1 + 2 ms (the point at 4 ms).
    assert_eq!((v.t, v.detected), (MS, 4 * MS));
    assert!(v.message.contains("while it executed more than one subjob, 2ms"), "{}", v.message);
    // The same trace is a valid FPNS schedule.
    let (h, ev) = sim(&camera("fpns"));
    let r = validate(&h, ev, &Options::default()).unwrap();
    assert!(r.pass, "{}", r.render());
}

/// The tolerance covers a preemption that comes shortly after the point
/// (as on a real machine): a switch-away 100 µs after the point passes with
/// a 200 µs tolerance and fails without.
#[test]
fn a_late_switch_within_the_tolerance_passes() {
    let (h, mut ev) = sim(&camera("fpds"));
    // Delay the switch at the 2 ms point by 100 µs: the video job runs on.
    for e in ev.iter_mut() {
        match e {
            Event::SwitchAway { t, task: 1, .. } | Event::SwitchTo { t, task: 0, .. } if *t == 2 * MS => *t += 100_000,
            _ => {}
        }
    }
    ev.sort_by_key(|e| e.t());
    let r = validate(&h, ev.clone(), &Options { tolerance: 200_000, ..Options::default() }).unwrap();
    assert!(r.pass, "{}", r.render());
    let r = validate(&h, ev, &Options { tolerance: 0, ..Options::default() }).unwrap();
    assert!(r.violations(Check::PointPreemption) > 0, "{}", r.render());
}

/// On a real machine the CPU idles for a moment between the job that
/// leaves at its point and the one it yields to. The waiting job's wait
/// behind the running job (allowed up to one subjob) does not count
/// against that idle moment: the network job, waiting since 1 ms, gets the
/// CPU 50 µs after the video job left it at 2.1 ms (200 µs tolerance):
/// passes; an idle gap of 500 µs is a work-conserving violation.
#[test]
fn an_idle_moment_after_the_point_counts_from_the_switch_away() {
    let (h, ev) = sim(&camera("fpds"));
    let shifted = |gap: u64| {
        let mut ev = ev.clone();
        for e in ev.iter_mut() {
            match e {
                Event::SwitchAway { t, task: 1, .. } if *t == 2 * MS => *t += 100_000,
                Event::SwitchTo { t, task: 0, .. } if *t == 2 * MS => *t += 100_000 + gap,
                _ => {}
            }
        }
        ev.sort_by_key(|e| e.t());
        validate(&h, ev, &Options { tolerance: 200_000, ..Options::default() }).unwrap()
    };
    let r = shifted(50_000);
    assert!(r.pass, "{}", r.render());
    let r = shifted(500_000);
    let v = r.first(Check::WorkConserving).unwrap_or_else(|| panic!("{}", r.render()));
    assert_eq!(v.t, 2 * MS + 100_000, "the wait counts from the switch-away");
}
