//! Policy conformance of priority-driven policies, tolerance and decision
//! latencies, with small policies written in the tests.

mod common;
use common::*;
use schedlab_model::{Duration, Placement, PolicyName, Task};
use schedlab_trace::Source;
use schedlab_validate::{validate_with, Check, Mode, Options, PolicyChecks, ValidateError};

#[test]
fn gedf_example_conforms() {
    let (h, t) = gedf_example();
    let r = check(&h, &t, Some(TestPolicy::gedf(&h)));
    assert_pass(&r);
    assert_eq!(r.policy_checks, PolicyChecks::PriorityDriven);
    assert_eq!(r.policy.as_deref(), Some("gedf"));
    let l = r.latency.clone().unwrap();
    // 6 releases, 6 completions, every one followed by a conforming assignment at once.
    assert_eq!((l.all.count, l.release.count, l.completion.count, l.all.max), (12, 6, 6, 0));
    assert!(r.check(Check::WorkConserving).is_some());
    assert!(r.check(Check::NpPreemption).is_none());
}

/// The G-EDF example where T4 preempts T2 (deadline 10ms) instead of T3 (deadline 20ms).
fn inverted() -> (schedlab_trace::Header, Trace) {
    let (h, _) = gedf_example();
    let t = Trace::new(&h.spec)
        .rel(0, 0, 0)
        .rel(0, 1, 0)
        .rel(0, 2, 0)
        .to(0, 0, 0, 0)
        .to(0, 1, 1, 0)
        .done(3 * MS, 0, 0, 0)
        .to(3 * MS, 0, 2, 0)
        .rel(ms(3.5), 3, 0)
        .away(ms(3.5), 1, 1, 0)
        .to(ms(3.5), 1, 3, 0)
        .done(ms(4.5), 1, 3, 0)
        .to(ms(4.5), 1, 1, 0)
        .done(5 * MS, 1, 1, 0)
        .done(8 * MS, 0, 2, 0);
    (h, t)
}

#[test]
fn gedf_priority_inversion_is_caught() {
    let (h, t) = inverted();
    let r = check(&h, &t, Some(TestPolicy::gedf(&h)));
    assert_fails(&r, &[Check::Conformance]);
    assert_eq!(r.violations(Check::Conformance), 1);
    let v = r.first(Check::Conformance).unwrap();
    assert_eq!(v.message, "t=3.5ms cpu 0: G-EDF conformance: T3#0 (deadline 20ms) runs while T2#0 (deadline 10ms) waits; running on domain 0: T3#0, T4#0");
    assert_eq!(v.expected, vec!["T2#0"]);
    assert_eq!(v.ran, vec!["T3#0", "T4#0"]);
    assert_eq!(v.events.last().unwrap(), "3.5ms cpu 1 switch-to T4#0");
    // Generic checks alone see nothing wrong.
    assert_pass(&check(&h, &t, None));
    // The latency of T4's release: the assignment conforms again at 4.5ms.
    let l = r.latency.clone().unwrap();
    assert_eq!(l.release.max, MS);
}

#[test]
fn ties_are_interchangeable() {
    let s = spec(1, vec![task("A", 2 * MS, 10 * MS), task("B", 2 * MS, 10 * MS)], Some(PolicyName::Gedf));
    let h = header(s.clone(), vec![], 10 * MS);
    // Equal deadlines: B may run first although A has the smaller task index.
    let t = Trace::new(&s).rel(0, 0, 0).rel(0, 1, 0).to(0, 0, 1, 0).done(2 * MS, 0, 1, 0).to(2 * MS, 0, 0, 0).done(
        4 * MS,
        0,
        0,
        0,
    );
    assert_pass(&check(&h, &t, Some(TestPolicy::gedf(&h))));
    // Under fixed priorities A (1) outranks B (2).
    let r = check(&h, &t, Some(TestPolicy::gfp(&h, vec![1, 2], true)));
    assert_fails(&r, &[Check::Conformance]);
    assert_eq!(
        r.first(Check::Conformance).unwrap().message,
        "t=0ns cpu 0: G-FP conformance: B#0 (priority 2) runs while A#0 (priority 1) waits; running on domain 0: B#0"
    );
}

#[test]
fn preempted_and_replaced_at_one_instant_conforms() {
    let s = spec(1, vec![task("A", 2 * MS, 5 * MS), task("B", 3 * MS, 10 * MS)], Some(PolicyName::Gedf));
    let h = header(s.clone(), vec![], 10 * MS);
    // B runs, A arrives with an earlier deadline: switch-to written before the switch-away.
    let t = Trace::new(&s)
        .rel(0, 1, 0)
        .to(0, 0, 1, 0)
        .rel(MS, 0, 0)
        .to(MS, 0, 0, 0)
        .away(MS, 0, 1, 0)
        .done(3 * MS, 0, 0, 0)
        .to(3 * MS, 0, 1, 0)
        .done(5 * MS, 0, 1, 0);
    assert_pass(&check(&h, &t, Some(TestPolicy::gedf(&h))));
}

#[test]
fn idle_cpu_while_work_waits() {
    let (h, t) = gedf_example();
    // T3#0 is dispatched on cpu 1 at 4.2ms instead of 4ms (when T2#0 completes).
    let mut ev = t.events.clone();
    let i = ev
        .iter()
        .position(|e| matches!(e, schedlab_trace::Event::SwitchTo { t, cpu: 1, task: 2, .. } if *t == 4 * MS))
        .unwrap();
    ev.remove(i);
    let j = ev.iter().position(|e| e.t() > ms(4.2)).unwrap();
    ev.insert(j, schedlab_trace::Event::SwitchTo { t: ms(4.2), cpu: 1, task: 2, job: 0 });
    let j = ev.iter().position(|e| matches!(e, schedlab_trace::Event::Completion { task: 2, .. })).unwrap();
    ev[j] = schedlab_trace::Event::Completion { t: ms(8.7), cpu: 1, task: 2, job: 0, exec: 0, forced: false };
    let t = Trace { events: ev, ..Trace::new(&h.spec) };
    let r = check(&h, &t, Some(TestPolicy::gedf(&h)));
    assert_fails(&r, &[Check::WorkConserving]);
    assert_eq!(
        r.first(Check::WorkConserving).unwrap().message,
        "t=4ms cpu 1: G-EDF work-conserving: cpu 1 idles while T3#0 (deadline 20ms) waits; running on domain 0: T4#0"
    );
    // A policy that does not declare work conservation may idle.
    let p = TestPolicy::new("gedf", 2, vec![vec![0, 1]], h.placement.clone(), Order::Edf, pd(true, false, 0));
    let r = check(&h, &t, Some(Box::new(p)));
    assert_pass(&r);
    assert!(r.check(Check::WorkConserving).is_none());
}

#[test]
fn partitioned_domains_are_checked_separately() {
    let s = spec(
        2,
        vec![task("A", 2 * MS, 10 * MS), task("B", 2 * MS, 20 * MS), task("C", 2 * MS, 30 * MS)],
        Some(PolicyName::Pedf),
    );
    let pl = vec![Placement::Cpu { cpu: 0 }, Placement::Cpu { cpu: 0 }, Placement::Cpu { cpu: 1 }];
    let h = header(s.clone(), pl, 30 * MS);
    // cpu 1 runs C (deadline 30ms) while A (10ms) waits: fine, A belongs to cpu 0.
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
    assert_pass(&check(&h, &ok, Some(TestPolicy::pedf(&h))));
    // cpu 0 runs B (20ms) while A (10ms) waits.
    let bad = Trace::new(&s).rel(0, 0, 0).rel(0, 1, 0).to(0, 0, 1, 0).done(2 * MS, 0, 1, 0).to(2 * MS, 0, 0, 0).done(
        4 * MS,
        0,
        0,
        0,
    );
    let r = check(&h, &bad, Some(TestPolicy::pedf(&h)));
    assert_fails(&r, &[Check::Conformance]);
    assert_eq!(r.first(Check::Conformance).unwrap().message, "t=0ns cpu 0: P-EDF conformance: B#0 (deadline 20ms) runs while A#0 (deadline 10ms) waits; running on domain 0: B#0");
}

#[test]
fn clustered_domains() {
    let s = spec(
        4,
        vec![
            task("A", 2 * MS, 10 * MS),
            task("B", 2 * MS, 20 * MS),
            task("C", 2 * MS, 30 * MS),
            task("D", 2 * MS, 40 * MS),
        ],
        Some(PolicyName::Cedf),
    );
    let c0 = Placement::Cluster { cluster: 0, cpus: vec![0, 1] };
    let c1 = Placement::Cluster { cluster: 1, cpus: vec![2, 3] };
    let h = header(s.clone(), vec![c0.clone(), c0.clone(), c0, c1], 40 * MS);
    let cedf = || {
        Box::new(TestPolicy::new(
            "cedf",
            4,
            vec![vec![0, 1], vec![2, 3]],
            h.placement.clone(),
            Order::Edf,
            pd(true, true, 0),
        ))
    };
    // Cluster 0 runs A and B, C waits; cluster 1 runs D (and idles a CPU: nothing of its own waits).
    let ok = Trace::new(&s)
        .rel(0, 0, 0)
        .rel(0, 1, 0)
        .rel(0, 2, 0)
        .rel(0, 3, 0)
        .to(0, 0, 0, 0)
        .to(0, 1, 1, 0)
        .to(0, 2, 3, 0)
        .done(2 * MS, 0, 0, 0)
        .to(2 * MS, 0, 2, 0)
        .done(2 * MS, 1, 1, 0)
        .done(2 * MS, 2, 3, 0)
        .done(4 * MS, 0, 2, 0);
    assert_pass(&check(&h, &ok, Some(cedf())));
    // Cluster 0 runs B and C while A waits.
    let bad = Trace::new(&s)
        .rel(0, 0, 0)
        .rel(0, 1, 0)
        .rel(0, 2, 0)
        .to(0, 0, 2, 0)
        .to(0, 1, 1, 0)
        .done(2 * MS, 0, 2, 0)
        .to(2 * MS, 0, 0, 0)
        .done(2 * MS, 1, 1, 0)
        .done(4 * MS, 0, 0, 0);
    let r = check(&h, &bad, Some(cedf()));
    assert_fails(&r, &[Check::Conformance]);
    assert_eq!(r.first(Check::Conformance).unwrap().message, "t=0ns cpu 0: C-EDF conformance: C#0 (deadline 30ms) runs while A#0 (deadline 10ms) waits; running on domain 0: C#0, B#0");
}

/// One CPU, LLF: A (4ms, deadline 10ms) runs [0, 4], then B (4ms, deadline 11ms) [4, 8].
/// A's laxity stays 6ms while it runs; B's falls from 7ms: B outranks A by
/// more than h from 1ms + h on.
fn llf_trace() -> (schedlab_trace::Header, Trace) {
    let mut b = task("B", 4 * MS, 20 * MS);
    b.deadline = Some(Duration(11 * MS));
    let s = spec(1, vec![task("A", 4 * MS, 10 * MS), b], Some(PolicyName::Llf));
    let t = Trace::new(&s).rel(0, 0, 0).rel(0, 1, 0).to(0, 0, 0, 0).done(4 * MS, 0, 0, 0).to(4 * MS, 0, 1, 0).done(
        8 * MS,
        0,
        1,
        0,
    );
    (header(s, vec![], 10 * MS), t)
}

#[test]
fn llf_hysteresis_is_tolerated() {
    let (h, t) = llf_trace();
    assert_pass(&check(&h, &t, Some(TestPolicy::llf(&h, 3 * MS))));
}

#[test]
fn llf_beyond_hysteresis_is_caught_at_the_crossing_instant() {
    let (h, t) = llf_trace();
    let r = check(&h, &t, Some(TestPolicy::llf(&h, 2 * MS)));
    assert_fails(&r, &[Check::Conformance]);
    let v = r.first(Check::Conformance).unwrap();
    assert_eq!((v.t, v.detected), (3 * MS + 1, 4 * MS));
    assert_eq!(v.message, "t=3.000001ms cpu 0: LLF conformance: A#0 (laxity 6ms) runs while B#0 (laxity 3.999999ms) waits; running on domain 0: A#0");
    // Without hysteresis B outranks A from 1ms on.
    let r = check(&h, &t, Some(TestPolicy::llf(&h, 0)));
    assert_eq!(r.first(Check::Conformance).unwrap().t, MS + 1);
}

/// NP-G-EDF version of the example: T4 waits for a free CPU instead of preempting.
fn np_trace() -> (schedlab_trace::Header, Trace) {
    let (h, _) = gedf_example();
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
    (h, t)
}

#[test]
fn np_gedf_allows_non_preemption() {
    let (h, t) = np_trace();
    let r = check(&h, &t, Some(TestPolicy::np_gedf(&h)));
    assert_pass(&r);
    assert!(r.check(Check::NpDecision).is_some());
    // The same schedule is not G-EDF: T4 waits while T3 runs.
    assert_fails(&check(&h, &t, Some(TestPolicy::gedf(&h))), &[Check::Conformance]);
}

#[test]
fn np_gedf_catches_preemption() {
    let (h, t) = gedf_example();
    let r = check(&h, &t, Some(TestPolicy::np_gedf(&h)));
    assert_fails(&r, &[Check::NpPreemption]);
    assert_eq!(
        r.first(Check::NpPreemption).unwrap().message,
        "t=3.5ms cpu 0: NP-G-EDF np-preemption: T3#0 is preempted on cpu 0; the policy is non-preemptive"
    );
}

#[test]
fn np_gedf_catches_a_wrong_pick() {
    let s = spec(
        1,
        vec![task("A", 3 * MS, 10 * MS), task("B", 2 * MS, 20 * MS), task("C", 2 * MS, 15 * MS)],
        Some(PolicyName::NpGedf),
    );
    let h = header(s.clone(), vec![], 20 * MS);
    let good = Trace::new(&s)
        .rel(0, 0, 0)
        .to(0, 0, 0, 0)
        .rel(MS, 1, 0)
        .rel(2 * MS, 2, 0)
        .done(3 * MS, 0, 0, 0)
        .to(3 * MS, 0, 2, 0)
        .done(5 * MS, 0, 2, 0)
        .to(5 * MS, 0, 1, 0)
        .done(7 * MS, 0, 1, 0);
    assert_pass(&check(&h, &good, Some(TestPolicy::np_gedf(&h))));
    let bad = Trace::new(&s)
        .rel(0, 0, 0)
        .to(0, 0, 0, 0)
        .rel(MS, 1, 0)
        .rel(2 * MS, 2, 0)
        .done(3 * MS, 0, 0, 0)
        .to(3 * MS, 0, 1, 0)
        .done(5 * MS, 0, 1, 0)
        .to(5 * MS, 0, 2, 0)
        .done(7 * MS, 0, 2, 0);
    let r = check(&h, &bad, Some(TestPolicy::np_gedf(&h)));
    assert_fails(&r, &[Check::NpDecision]);
    assert_eq!(
        r.first(Check::NpDecision).unwrap().message,
        "t=3ms cpu 0: NP-G-EDF np-decision: cpu 0 picks B#0 (deadline 21ms) while C#0 (deadline 17ms) waits"
    );
}

/// One decision, two CPUs: both free at 2 ms and pick C (deadline 5.5 ms)
/// and D (10.5 ms), which have waited since 0.5 ms. On a real machine the
/// two switch-tos land one after the other: D on CPU 1 at 2 ms, C on
/// CPU 0 a little later. With a tolerance, D's pick is checked once the
/// tolerance has passed: C started within it (100 µs, tolerance 200 µs):
/// passes; C still waiting 200 µs later (500 µs): an np-decision (and a
/// work-conserving) violation; without a tolerance, at once.
#[test]
fn np_picks_of_one_decision_on_two_cpus_may_land_within_the_tolerance() {
    let s = spec(
        2,
        vec![
            task("A", 2 * MS, 20 * MS),
            task("B", 2 * MS, 20 * MS),
            Task { offset: Duration(500_000), deadline: Some(Duration(5 * MS)), ..task("C", MS, 20 * MS) },
            Task { offset: Duration(500_000), deadline: Some(Duration(10 * MS)), ..task("D", MS, 20 * MS) },
        ],
        Some(PolicyName::NpGedf),
    );
    let h = header(s.clone(), vec![], 20 * MS);
    let trace = |late: u64| {
        Trace::new(&s)
            .rel(0, 0, 0)
            .rel(0, 1, 0)
            .to(0, 0, 0, 0)
            .to(0, 1, 1, 0)
            .rel_d(ms(0.5), 2, 0, ms(5.5))
            .rel_d(ms(0.5), 3, 0, ms(10.5))
            .done(2 * MS, 0, 0, 0)
            .done(2 * MS, 1, 1, 0)
            .to(2 * MS, 1, 3, 0)
            .to(2 * MS + late, 0, 2, 0)
            .done(3 * MS, 1, 3, 0)
            .done(3 * MS + late, 0, 2, 0)
    };
    let tol = Options { tolerance: 200_000, ..Options::default() };
    assert_pass(&check_opts(&h, &trace(100_000), Some(TestPolicy::np_gedf(&h)), &tol));
    let r = check_opts(&h, &trace(500_000), Some(TestPolicy::np_gedf(&h)), &tol);
    assert_fails(&r, &[Check::NpDecision, Check::WorkConserving]);
    assert_eq!(
        r.first(Check::NpDecision).unwrap().message,
        "t=2ms cpu 1: NP-G-EDF np-decision: cpu 1 picks D#0 (deadline 10.5ms) while C#0 (deadline 5.5ms) waits (still 200us later)"
    );
    let r = check(&h, &trace(100_000), Some(TestPolicy::np_gedf(&h)));
    assert_fails(&r, &[Check::NpDecision, Check::WorkConserving]);
}

#[test]
fn blocked_jobs_are_not_eligible() {
    let s = spec(1, vec![task("A", 2 * MS, 10 * MS), task("B", 2 * MS, 20 * MS)], Some(PolicyName::Gedf));
    let h = header(s.clone(), vec![], 20 * MS);
    let t = Trace::new(&s)
        .rel(0, 0, 0)
        .rel(0, 1, 0)
        .to(0, 0, 0, 0)
        .block(MS, 0, 0)
        .away_r(MS, 0, 0, 0, schedlab_trace::SwitchReason::Block)
        .to(MS, 0, 1, 0)
        .resume(2 * MS, 0, 0)
        .away(2 * MS, 0, 1, 0)
        .to(2 * MS, 0, 0, 0)
        .done(3 * MS, 0, 0, 0)
        .to(3 * MS, 0, 1, 0)
        .done(4 * MS, 0, 1, 0);
    let r = check(&h, &t, Some(TestPolicy::gedf(&h)));
    assert_pass(&r);
    assert_eq!(r.latency.unwrap().resume.count, 1);
}

/// The G-EDF example recorded with a lag: T4's preemption at 3.5ms happens 30us late.
fn lagging() -> (schedlab_trace::Header, Trace) {
    let (mut h, t) = gedf_example();
    h.source = Source::Runtime;
    let ev = t
        .events
        .into_iter()
        .map(|e| match e {
            schedlab_trace::Event::SwitchAway { t, cpu, task: 2, job: 0, reason, exec } if t == ms(3.5) => {
                schedlab_trace::Event::SwitchAway { t: t + 30 * US, cpu, task: 2, job: 0, reason, exec }
            }
            schedlab_trace::Event::SwitchTo { t, cpu, task: 3, job: 0 } => {
                schedlab_trace::Event::SwitchTo { t: t + 30 * US, cpu, task: 3, job: 0 }
            }
            schedlab_trace::Event::Completion { t, cpu, task: 3, job: 0, exec, forced } => {
                schedlab_trace::Event::Completion { t: t + 30 * US, cpu, task: 3, job: 0, exec, forced }
            }
            // T3#0 ran 30us more before the preemption: it completes 30us earlier.
            schedlab_trace::Event::Completion { t, cpu, task: 2, job: 0, exec, forced } => {
                schedlab_trace::Event::Completion { t: t - 30 * US, cpu, task: 2, job: 0, exec, forced }
            }
            e => e,
        })
        .collect();
    let t = Trace { events: ev, ..Trace::new(&h.spec) };
    (h, t)
}

#[test]
fn tolerance_accepts_a_lagging_decision() {
    let (h, t) = lagging();
    let r = check_opts(&h, &t, Some(TestPolicy::gedf(&h)), &Options::with_tolerance(50 * US));
    assert_pass(&r);
    let l = r.latency.clone().unwrap();
    assert_eq!((l.release.max, l.all.max, l.all.min), (30 * US, 30 * US, 0));
    assert_eq!(l.release.count, 6);
    assert!(r.render().contains("max 30us"), "{}", r.render());
}

#[test]
fn tolerance_rejects_a_lag_beyond_it() {
    let (h, t) = lagging();
    let r = check_opts(&h, &t, Some(TestPolicy::gedf(&h)), &Options::with_tolerance(20 * US));
    assert_fails(&r, &[Check::Conformance]);
    let v = r.first(Check::Conformance).unwrap();
    assert_eq!((v.t, v.detected), (ms(3.5), ms(3.53)));
    assert!(
        v.message.contains(
            "T3#0 (deadline 20ms) runs while T4#0 (deadline 5.5ms) waits (for longer than the tolerance 20us)"
        ),
        "{}",
        v.message
    );
    // With tolerance 0 the lag is a violation too.
    assert_fails(&check(&h, &t, Some(TestPolicy::gedf(&h))), &[Check::Conformance]);
}

#[test]
fn priority_mode_refuses_a_replay_policy() {
    let (h, t) = gedf_example();
    let o = Options { mode: Mode::Priority, ..Options::default() };
    let e = validate_with(&h, t.events, &o, Some(TestPolicy::gedf(&h).as_replay())).unwrap_err();
    assert!(matches!(e, ValidateError::Policy { .. }), "{e}");
}

#[test]
fn report_serializes_and_renders() {
    let (h, t) = inverted();
    let r = check(&h, &t, Some(TestPolicy::gedf(&h)));
    let j = serde_json::to_value(&r).unwrap();
    assert_eq!(j["pass"], false);
    assert_eq!(j["policy_checks"], "priority-driven");
    let conf = j["checks"].as_array().unwrap().iter().find(|c| c["check"] == "conformance").unwrap();
    assert_eq!(conf["violations"], 1);
    assert_eq!(conf["first"]["t"], 3_500_000);
    let text = r.render();
    println!("{text}");
    assert!(text.starts_with("FAIL: gedf, priority-driven conformance;"), "{text}");
    assert!(text.contains("  conformance      1 violation"), "{text}");
    assert!(text.contains("t=3.5ms cpu 0: G-EDF conformance: T3#0 (deadline 20ms) runs while T2#0 (deadline 10ms) waits; running on domain 0: T3#0, T4#0\n  preceding events:\n"), "{text}");
    assert_eq!(r.first_violation().unwrap().check, Check::Conformance);
}
