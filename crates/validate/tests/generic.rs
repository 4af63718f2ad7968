//! Generic invariants: one passing trace, and one failing trace per check
//! and per failure kind. These run without a policy (generic checks only),
//! except where noted.

mod common;
use common::*;
use schedlab_model::{Duration, Placement, PolicyName};
use schedlab_trace::{Event, SwitchReason};
use schedlab_validate::{validate_with, Check, Options, PolicyChecks, ValidateError};

/// Two tasks on one CPU, generic checks only.
fn two_tasks() -> (schedlab_trace::Header, Trace) {
    let s = spec(1, vec![task("A", 2 * MS, 10 * MS), task("B", 3 * MS, 10 * MS)], None);
    let t = Trace::new(&s);
    (header(s, vec![], 20 * MS), t)
}

#[test]
fn valid_gedf_example_passes_generic_checks() {
    let (h, t) = gedf_example();
    let r = check(&h, &t, None);
    assert_pass(&r);
    assert_eq!(r.policy_checks, PolicyChecks::None);
    assert_eq!((r.jobs.released, r.jobs.completed, r.jobs.pending), (6, 6, 0));
    assert_eq!(r.misses.count, 0);
    assert!(r.latency.is_none());
}

#[test]
fn runs_before_release() {
    let (h, t) = two_tasks();
    let t = t.to(0, 0, 0, 0).rel(MS, 0, 0).done(2 * MS, 0, 0, 0);
    let r = check(&h, &t, None);
    assert_fails(&r, &[Check::Release]);
    let v = r.first(Check::Release).unwrap();
    assert_eq!((v.t, v.cpu), (0, Some(0)));
    assert_eq!(v.message, "t=0ns cpu 0: release: A#0 runs before its release");
}

#[test]
fn switch_to_written_before_its_release_at_the_same_instant_is_fine() {
    let (h, t) = two_tasks();
    let t = t.to(0, 0, 0, 0).rel(0, 0, 0).done(2 * MS, 0, 0, 0);
    assert_pass(&check(&h, &t, None));
}

#[test]
fn runs_after_completion() {
    let (h, t) = two_tasks();
    let t = t.rel(0, 0, 0).to(0, 0, 0, 0).done(MS, 0, 0, 0).to(2 * MS, 0, 0, 0).away(3 * MS, 0, 0, 0);
    let r = check(&h, &t, None);
    assert_fails(&r, &[Check::Completion]);
    assert_eq!(r.first(Check::Completion).unwrap().message, "t=2ms cpu 0: completion: A#0 runs after its completion");
}

#[test]
fn job_on_two_cpus() {
    let s = spec(2, vec![task("A", 5 * MS, 10 * MS)], None);
    let t = Trace::new(&s).rel(0, 0, 0).to(0, 0, 0, 0).to(MS, 1, 0, 0).away(2 * MS, 0, 0, 0).done(3 * MS, 1, 0, 0);
    let r = check(&header(s, vec![], 10 * MS), &t, None);
    assert_fails(&r, &[Check::TwoCpus]);
    let v = r.first(Check::TwoCpus).unwrap();
    assert_eq!((v.t, v.detected), (MS, 2 * MS));
    assert_eq!(v.message, "t=1ms cpu 0: two-cpus: A#0 runs on cpus 0 and 1 at once");
}

#[test]
fn migration_within_an_instant_is_fine() {
    let s = spec(2, vec![task("A", 5 * MS, 10 * MS)], None);
    // Switch-to on the new CPU written before the switch-away on the old one.
    let t = Trace::new(&s).rel(0, 0, 0).to(0, 0, 0, 0).to(MS, 1, 0, 0).away(MS, 0, 0, 0).done(3 * MS, 1, 0, 0);
    assert_pass(&check(&header(s, vec![], 10 * MS), &t, None));
}

#[test]
fn switch_to_on_a_busy_cpu() {
    let (h, t) = two_tasks();
    let t = t.rel(0, 0, 0).rel(0, 1, 0).to(0, 0, 0, 0).to(MS, 0, 1, 0).done(2 * MS, 0, 0, 0).done(4 * MS, 0, 1, 0);
    let r = check(&h, &t, None);
    assert_fails(&r, &[Check::CpuBusy]);
    assert_eq!(r.first(Check::CpuBusy).unwrap().message, "t=1ms cpu 0: cpu-busy: cpu 0 runs A#0 and B#0 at once");
    assert_eq!(r.first(Check::CpuBusy).unwrap().ran, vec!["A#0", "B#0"]);
}

#[test]
fn preempted_and_replaced_in_either_order_at_one_instant_is_fine() {
    let (h, t) = two_tasks();
    let t = t
        .rel(0, 0, 0)
        .rel(0, 1, 0)
        .to(0, 0, 1, 0)
        .to(MS, 0, 0, 0)
        .away(MS, 0, 1, 0)
        .done(3 * MS, 0, 0, 0)
        .to(3 * MS, 0, 1, 0)
        .done(5 * MS, 0, 1, 0);
    assert_pass(&check(&h, &t, None));
}

#[test]
fn switch_away_without_switch_to() {
    let (h, t) = two_tasks();
    let t = t.rel(0, 0, 0).away(MS, 0, 0, 0).to(MS, 0, 0, 0).done(3 * MS, 0, 0, 0);
    let r = check(&h, &t, None);
    assert_fails(&r, &[Check::Matching]);
    assert_eq!(
        r.first(Check::Matching).unwrap().message,
        "t=1ms cpu 0: matching: switch-away A#0 on cpu 0, which runs nothing"
    );
}

#[test]
fn double_switch_to() {
    let (h, t) = two_tasks();
    let t = t.rel(0, 0, 0).to(0, 0, 0, 0).to(MS, 0, 0, 0).done(2 * MS, 0, 0, 0);
    let r = check(&h, &t, None);
    assert_fails(&r, &[Check::Matching]);
    assert!(r.first(Check::Matching).unwrap().message.contains("where it already runs"));
}

#[test]
fn switch_away_after_completion_is_accepted() {
    let (h, t) = two_tasks();
    let t = t.rel(0, 0, 0).to(0, 0, 0, 0).done(2 * MS, 0, 0, 0).away_r(2 * MS, 0, 0, 0, SwitchReason::Complete);
    assert_pass(&check(&h, &t, None));
}

#[test]
fn outside_placement() {
    let s = spec(2, vec![task("A", 2 * MS, 10 * MS), task("B", 2 * MS, 10 * MS)], None);
    let pl = vec![Placement::Cpu { cpu: 0 }, Placement::Cpu { cpu: 1 }];
    let t = Trace::new(&s).rel(0, 0, 0).rel(0, 1, 0).to(0, 0, 0, 0).to(0, 1, 1, 0).done(2 * MS, 0, 0, 0).done(
        2 * MS,
        1,
        1,
        0,
    );
    let h = header(s.clone(), pl.clone(), 10 * MS);
    assert_pass(&check(&h, &t, None));
    let t = Trace::new(&s).rel(0, 0, 0).to(0, 1, 0, 0).done(2 * MS, 1, 0, 0);
    let r = check(&h, &t, None);
    assert_fails(&r, &[Check::Placement]);
    assert_eq!(
        r.first(Check::Placement).unwrap().message,
        "t=0ns cpu 1: placement: A#0 runs on cpu 1, outside its placement: cpu 0"
    );
}

#[test]
fn cluster_placement() {
    let s = spec(4, vec![task("A", 2 * MS, 10 * MS)], None);
    let h = header(s.clone(), vec![Placement::Cluster { cluster: 1, cpus: vec![2, 3] }], 10 * MS);
    let ok = Trace::new(&s).rel(0, 0, 0).to(0, 3, 0, 0).done(2 * MS, 3, 0, 0);
    assert_pass(&check(&h, &ok, None));
    let bad = Trace::new(&s).rel(0, 0, 0).to(0, 1, 0, 0).done(2 * MS, 1, 0, 0);
    assert_fails(&check(&h, &bad, None), &[Check::Placement]);
}

#[test]
fn eligibility_predecessor_not_completed() {
    let s = spec(2, vec![task("A", 5 * MS, 2 * MS)], None);
    // A#1 is released (period 2ms) while A#0 still runs, and runs at once.
    let t = Trace::new(&s)
        .rel(0, 0, 0)
        .to(0, 0, 0, 0)
        .rel(2 * MS, 0, 1)
        .to(2 * MS, 1, 0, 1)
        .done(4 * MS, 0, 0, 0)
        .done(5 * MS, 1, 0, 1);
    let r = check(&header(s, vec![], 10 * MS), &t, None);
    assert_fails(&r, &[Check::Eligibility]);
    assert_eq!(
        r.first(Check::Eligibility).unwrap().message,
        "t=2ms cpu 1: eligibility: A#1 runs before its predecessor A#0 completed"
    );
}

#[test]
fn released_job_waits_for_its_predecessor() {
    let s = spec(2, vec![task("A", 5 * MS, 2 * MS)], None);
    let t = Trace::new(&s)
        .rel(0, 0, 0)
        .to(0, 0, 0, 0)
        .rel(2 * MS, 0, 1)
        .done(4 * MS, 0, 0, 0)
        .to(4 * MS, 1, 0, 1)
        .done(6 * MS, 1, 0, 1);
    let r = check(&header(s, vec![], 10 * MS), &t, None);
    // Tardy (A#0 deadline 2ms, A#1 deadline 4ms): misses, not violations.
    assert_pass(&r);
    assert_eq!(r.misses.count, 2);
    assert_eq!(r.misses.max_tardiness, 2 * MS);
}

#[test]
fn eligibility_runs_while_blocked() {
    let (h, t) = two_tasks();
    let t = t
        .rel(0, 1, 0)
        .to(0, 0, 1, 0)
        .block(MS, 1, 0)
        .away_r(2 * MS, 0, 1, 0, SwitchReason::Block)
        .resume(3 * MS, 1, 0)
        .to(3 * MS, 0, 1, 0)
        .done(4 * MS, 0, 1, 0);
    let r = check(&h, &t, None);
    assert_fails(&r, &[Check::Eligibility]);
    assert_eq!(r.first(Check::Eligibility).unwrap().message, "t=1ms cpu 0: eligibility: B#0 runs while blocked");
}

#[test]
fn block_and_switch_away_at_one_instant_is_fine() {
    let (h, t) = two_tasks();
    let t = t
        .rel(0, 0, 0)
        .to(0, 0, 0, 0)
        .block(MS, 0, 0)
        .away_r(MS, 0, 0, 0, SwitchReason::Block)
        .resume(3 * MS, 0, 0)
        .to(3 * MS, 0, 0, 0)
        .done(4 * MS, 0, 0, 0);
    assert_pass(&check(&h, &t, None));
}

#[test]
fn accounting_completion_without_release() {
    let (h, t) = two_tasks();
    let r = check(&h, &t.done(MS, 0, 0, 0), None);
    assert_fails(&r, &[Check::Accounting]);
    assert_eq!(
        r.first(Check::Accounting).unwrap().message,
        "t=1ms cpu 0: accounting: A#0 completes but was never released"
    );
}

#[test]
fn accounting_double_completion() {
    let (h, t) = two_tasks();
    let r = check(&h, &t.rel(0, 0, 0).to(0, 0, 0, 0).done(MS, 0, 0, 0).done(2 * MS, 0, 0, 0), None);
    assert_fails(&r, &[Check::Accounting]);
    assert!(r.first(Check::Accounting).unwrap().message.ends_with("A#0 completes again"));
}

#[test]
fn accounting_double_release() {
    let (h, t) = two_tasks();
    let r = check(&h, &t.rel(0, 0, 0).rel(MS, 0, 0), None);
    assert_fails(&r, &[Check::Accounting]);
}

#[test]
fn accounting_event_after_horizon() {
    let (h, t) = two_tasks();
    let r = check(&h, &t.rel(25 * MS, 0, 0), None);
    assert_fails(&r, &[Check::Accounting]);
    assert!(r.first(Check::Accounting).unwrap().message.contains("after the trace's horizon 20ms"));
}

#[test]
fn unfinished_job_past_its_deadline_is_a_miss_not_an_error() {
    let (h, t) = two_tasks();
    // A#0 (deadline 10ms) never completes; B#1 released at 15ms (deadline 25ms > horizon) is just pending.
    let t = t.rel(0, 0, 0).to(0, 0, 0, 0).away(MS, 0, 0, 0).rel(15 * MS, 1, 1);
    let r = check(&h, &t, None);
    assert_pass(&r);
    assert_eq!((r.jobs.pending, r.misses.count, r.misses.unfinished), (2, 1, 1));
    assert_eq!(r.misses.first[0].job, "A#0");
    assert_eq!(r.misses.first[0].completed, None);
    assert!(r.render().contains("A#0 deadline 10ms unfinished"));
}

#[test]
fn sporadic_separation() {
    let (h, t) = two_tasks();
    let r = check(&h, &t.rel(0, 0, 0).to(0, 0, 0, 0).done(MS, 0, 0, 0).rel(9 * MS, 0, 1), None);
    assert_fails(&r, &[Check::Sporadic]);
    assert_eq!(
        r.first(Check::Sporadic).unwrap().message,
        "t=9ms: sporadic: A#1 is released 9ms after the previous job of its task, less than its period 10ms (jitter 0ns, tolerance 0ns)"
    );
    // A later release (sporadic) is fine.
    let (h, t) = two_tasks();
    assert_pass(&check(&h, &t.rel(0, 0, 0).to(0, 0, 0, 0).done(MS, 0, 0, 0).rel(13 * MS, 0, 1), None));
}

#[test]
fn sporadic_separation_allows_jitter() {
    let mut a = task("A", 2 * MS, 10 * MS);
    a.jitter = Duration(2 * MS);
    let s = spec(1, vec![a], None);
    // Arrival 0 released at 2ms (late by the jitter), arrival 10 released at 10ms: 8ms apart.
    let t = Trace::new(&s).rel_d(2 * MS, 0, 0, 10 * MS).to(2 * MS, 0, 0, 0).done(4 * MS, 0, 0, 0).rel_d(
        10 * MS,
        0,
        1,
        20 * MS,
    );
    let h = header(s.clone(), vec![], 20 * MS);
    assert_pass(&check(&h, &t, None));
    // 7ms apart is too close even with the jitter.
    let t = Trace::new(&s).rel_d(2 * MS, 0, 0, 10 * MS).to(2 * MS, 0, 0, 0).done(4 * MS, 0, 0, 0).rel_d(
        9 * MS,
        0,
        1,
        19 * MS,
    );
    assert_fails(&check(&h, &t, None), &[Check::Sporadic]);
}

#[test]
fn sporadic_tolerance_accepts_early_release() {
    let (h, t) = two_tasks();
    let t = t.rel(0, 0, 0).to(0, 0, 0, 0).done(MS, 0, 0, 0).rel_d(10 * MS - 20 * US, 0, 1, 20 * MS - 20 * US);
    assert_fails(&check(&h, &t, None), &[Check::Sporadic]);
    assert_pass(&check_opts(&h, &t, None, &Options::with_tolerance(50 * US)));
}

/// A release-latency interval `[d, d + L)` delays the release of a job due
/// at `d` to `d + L`; its deadline still counts from `d` (the simulator's
/// release latency). Regression: the validator required `deadline = release
/// + D` and reported every delayed release as a sporadic violation.
#[test]
fn release_latency_delays_the_release_not_the_deadline() {
    let latency = |t| Event::Overhead { t, cpu: 0, kind: schedlab_trace::OverheadKind::ReleaseLatency, dur: 3 * US };
    let (h, t) = two_tasks();
    let t = t
        .ev(latency(0))
        .rel_d(3 * US, 0, 0, 10 * MS)
        .to(3 * US, 0, 0, 0)
        .done(2 * MS + 3 * US, 0, 0, 0)
        .ev(latency(10 * MS))
        .rel_d(10 * MS + 3 * US, 0, 1, 20 * MS);
    assert_pass(&check(&h, &t, None));
    // Without the recorded latency the deadline is 3us short.
    let t2 = Trace {
        events: t.events.iter().filter(|e| !matches!(e, Event::Overhead { .. })).cloned().collect(),
        ..Trace::new(&h.spec)
    };
    assert_fails(&check(&h, &t2, None), &[Check::Sporadic]);
    // A latency that ends at another instant does not excuse the release.
    let (h, t) = two_tasks();
    assert_fails(&check(&h, &t.ev(latency(0)).rel_d(5 * US, 0, 0, 10 * MS), None), &[Check::Sporadic]);
}

/// Release latency is a delay, not kernel work on its CPU: a job running
/// while it is recorded there keeps executing. Regression: the validator
/// subtracted it from the job's execution like a CPU overhead.
#[test]
fn release_latency_does_not_stall_the_running_job() {
    let (h, t) = two_tasks();
    let t = t
        .rel(0, 0, 0)
        .to(0, 0, 0, 0)
        .ev(Event::Overhead { t: MS, cpu: 0, kind: schedlab_trace::OverheadKind::ReleaseLatency, dur: 500 * US })
        .done(ms(2.5), 0, 0, 0);
    assert_fails(&check(&h, &t, None), &[Check::Wcet]);
}

#[test]
fn sporadic_deadline_must_match_the_relative_deadline() {
    let (h, t) = two_tasks();
    let r = check(&h, &t.rel_d(0, 0, 0, 12 * MS), None);
    assert_fails(&r, &[Check::Sporadic]);
    assert!(r.first(Check::Sporadic).unwrap().message.contains("has deadline 12ms"));
}

#[test]
fn wcet_overrun() {
    let (h, t) = two_tasks();
    let r = check(&h, &t.rel(0, 0, 0).to(0, 0, 0, 0).done(3 * MS, 0, 0, 0), None);
    assert_fails(&r, &[Check::Wcet]);
    let v = r.first(Check::Wcet).unwrap();
    assert_eq!((v.t, v.detected), (2 * MS, 3 * MS));
    assert_eq!(v.message, "t=2ms cpu 0: wcet: A#0 executes 3ms by 3ms, more than its WCET 2ms (tolerance 0ns)");
}

#[test]
fn wcet_overrun_within_tolerance() {
    let (h, t) = two_tasks();
    let t = t.rel(0, 0, 0).to(0, 0, 0, 0).done(2 * MS + 10 * US, 0, 0, 0);
    assert_fails(&check(&h, &t, None), &[Check::Wcet]);
    assert_pass(&check_opts(&h, &t, None, &Options::with_tolerance(10 * US)));
}

#[test]
fn wcet_overrun_of_a_running_job_at_the_horizon() {
    let (h, t) = two_tasks();
    let r = check(&h, &t.rel(0, 0, 0).to(0, 0, 0, 0), None);
    assert_fails(&r, &[Check::Wcet]);
    assert_eq!(r.first(Check::Wcet).unwrap().t, 2 * MS);
}

#[test]
fn overrun_allowed_by_executions_is_information() {
    let mut a = task("A", 2 * MS, 10 * MS);
    a.executions = Some(vec![Duration(3 * MS), Duration(MS)]);
    let s = spec(1, vec![a], None);
    let h = header(s.clone(), vec![], 30 * MS);
    let t = Trace::new(&s)
        .rel(0, 0, 0)
        .to(0, 0, 0, 0)
        .done(3 * MS, 0, 0, 0)
        .rel(10 * MS, 0, 1)
        .to(10 * MS, 0, 0, 1)
        .done(11 * MS, 0, 0, 1);
    let r = check(&h, &t, None);
    assert_pass(&r);
    assert_eq!(r.overruns.count, 1);
    assert_eq!(r.overruns.first[0].job, "A#0");
    // Job 1 is listed at 1ms: 2.5ms exceeds its WCET and its listed time.
    let t = Trace::new(&s)
        .rel(0, 0, 0)
        .to(0, 0, 0, 0)
        .done(3 * MS, 0, 0, 0)
        .rel(10 * MS, 0, 1)
        .to(10 * MS, 0, 0, 1)
        .done(ms(12.5), 0, 0, 1);
    assert_fails(&check(&h, &t, None), &[Check::Wcet]);
    // More than the listed 3ms for job 0 is a violation.
    let t = Trace::new(&s).rel(0, 0, 0).to(0, 0, 0, 0).done(4 * MS, 0, 0, 0);
    let r = check(&h, &t, None);
    assert_fails(&r, &[Check::Wcet]);
    assert!(r.first(Check::Wcet).unwrap().message.contains("its listed execution time 3ms"));
}

#[test]
fn overheads_inside_a_stint_are_not_execution() {
    let (h, t) = two_tasks();
    let t = t
        .rel(0, 0, 0)
        .to(0, 0, 0, 0)
        .ev(Event::Overhead { t: MS, cpu: 0, kind: schedlab_trace::OverheadKind::Tick, dur: 500 * US })
        .done(ms(2.5), 0, 0, 0);
    assert_pass(&check(&h, &t, None));
}

#[test]
fn overhead_spanning_a_switch_is_split_between_the_jobs() {
    let (h, t) = two_tasks();
    // Overhead [0.9ms, 1.1ms) on cpu 0 while A switches to B at 1ms:
    // A loses 0.1ms, B 0.1ms; both then execute exactly their WCET.
    let t = t
        .rel(0, 0, 0)
        .rel(0, 1, 0)
        .to(0, 0, 0, 0)
        .ev(Event::Overhead { t: ms(0.9), cpu: 0, kind: schedlab_trace::OverheadKind::Schedule, dur: ms(0.2) })
        .away(MS, 0, 0, 0)
        .to(MS, 0, 1, 0)
        .done(ms(4.1), 0, 1, 0)
        .to(ms(4.1), 0, 0, 0)
        .done(ms(5.2), 0, 0, 0);
    assert_pass(&check(&h, &t, None));
    let t2 = Trace { events: t.events[..t.events.len() - 1].to_vec(), ..Trace::new(&h.spec) }.done(ms(5.3), 0, 0, 0);
    assert_fails(&check(&h, &t2, None), &[Check::Wcet]);
}

#[test]
fn events_out_of_order_are_an_error() {
    let (h, t) = two_tasks();
    let t = t.rel(2 * MS, 0, 0).rel(MS, 1, 0);
    let e = validate_with(&h, t.events, &Options::default(), None).unwrap_err();
    assert_eq!(e, ValidateError::OutOfOrder { index: 1, t: MS, previous: 2 * MS });
    assert!(e.to_string().contains("out of time order"));
}

#[test]
fn unknown_task_or_cpu_is_malformed() {
    let (h, t) = two_tasks();
    let e = validate_with(
        &h,
        t.ev(Event::Release { t: 0, task: 5, job: 0, deadline: MS }).events,
        &Options::default(),
        None,
    )
    .unwrap_err();
    assert!(matches!(e, ValidateError::Malformed { index: Some(0), .. }), "{e}");
    let (h, t) = two_tasks();
    let e = validate_with(&h, t.rel(0, 0, 0).to(0, 3, 0, 0).events, &Options::default(), None).unwrap_err();
    assert!(e.to_string().contains("cpu 3 does not exist"), "{e}");
}

#[test]
fn bad_header_is_malformed() {
    let (mut h, _) = two_tasks();
    h.schedlab_trace = 9;
    assert!(matches!(
        validate_with(&h, vec![], &Options::default(), None),
        Err(ValidateError::Malformed { index: None, .. })
    ));
    let (mut h, _) = two_tasks();
    h.placement = vec![Placement::Global];
    assert!(validate_with(&h, vec![], &Options::default(), None).is_err());
}

#[test]
fn validate_without_a_policy_in_the_spec_checks_generic_invariants() {
    let (h, t) = two_tasks();
    let r =
        schedlab_validate::validate(&h, t.rel(0, 0, 0).to(0, 0, 0, 0).done(MS, 0, 0, 0).events, &Options::default())
            .unwrap();
    assert_pass(&r);
    assert_eq!(r.policy_checks, PolicyChecks::None);
    assert!(r.notes.iter().any(|n| n.contains("generic invariants only")));
}

#[test]
fn generic_mode_skips_the_policy() {
    let (mut h, t) = gedf_example();
    h.spec.policy = Some(schedlab_model::PolicySpec::named(PolicyName::Pd2));
    let o = Options { mode: schedlab_validate::Mode::Generic, ..Options::default() };
    let r = schedlab_validate::validate(&h, t.events, &o).unwrap();
    assert_pass(&r);
    assert_eq!(r.policy_checks, PolicyChecks::None);
}

#[test]
fn generic_tolerance_accepts_a_short_overlap_and_rejects_a_long_one() {
    let (h, t) = two_tasks();
    // B is dispatched 20us before A's switch-away is recorded.
    let t = t
        .rel(0, 0, 0)
        .rel(0, 1, 0)
        .to(0, 0, 0, 0)
        .to(MS, 0, 1, 0)
        .away(MS + 20 * US, 0, 0, 0)
        .done(3 * MS, 0, 1, 0)
        .to(3 * MS, 0, 0, 0)
        .done(4 * MS - 20 * US, 0, 0, 0);
    assert_fails(&check(&h, &t, None), &[Check::CpuBusy]);
    assert_pass(&check_opts(&h, &t, None, &Options::with_tolerance(20 * US)));
    assert_fails(&check_opts(&h, &t, None, &Options::with_tolerance(19 * US)), &[Check::CpuBusy]);
}

#[test]
fn context_lists_the_preceding_events() {
    let (h, t) = two_tasks();
    let mut t = t.rel(0, 0, 0).to(0, 0, 0, 0).done(MS, 0, 0, 0);
    for k in 1..15u64 {
        t = t.rel(k * 10 * MS, 0, k).to(k * 10 * MS, 0, 0, k).done(k * 10 * MS + MS, 0, 0, k);
    }
    let mut h = h;
    h.horizon = 200 * MS;
    let t = t.to(150 * MS, 0, 0, 14);
    let r = check(&h, &t, None);
    let v = r.first(Check::Completion).unwrap();
    assert_eq!(v.events.len(), 10);
    assert_eq!(v.events.last().unwrap(), "150ms cpu 0 switch-to A#14");
    assert!(v.render().contains("preceding events:\n    120ms release A#12"), "{}", v.render());
}

/// A trace whose header says its jobs ran slowed (a simulation with the
/// platform model): execution beyond the WCET is an overrun (information);
/// without it (a recorded trace, or the model off) it is a violation.
#[test]
fn a_slowed_job_overruns_but_an_unslowed_one_violates() {
    let (mut h, t) = two_tasks();
    h.slowed = true;
    let t = t.rel(0, 0, 0).to(0, 0, 0, 0).done(3 * MS, 0, 0, 0);
    let r = check(&h, &t, None);
    assert_pass(&r);
    assert_eq!((r.overruns.count, r.overruns.first[0].job.as_str()), (1, "A#0"));
    h.slowed = false;
    assert_fails(&check(&h, &t, None), &[Check::Wcet]);
}
