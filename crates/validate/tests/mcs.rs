//! The memory-phase checks (`memory-exclusive`, `memory-grant-order`,
//! `memory-np`) on `mcs` schedules: the simulated Figure 5/6 and Figure 7
//! schedules (crates/policy/tests/mcs.rs) pass them and the replay, and
//! each fault injected into them is caught by its check: a preemption of a
//! memory phase undone (two phases at once), a grant to a less urgent
//! phase, a non-preemptive phase suspended for another.

use schedlab_model::{load_str, PolicyEvent, Spec};
use schedlab_sim::{header, simulate_collect, SimConfig};
use schedlab_trace::{Event, Header};
use schedlab_validate::{validate, Check, Options, Report};

const MS: u64 = 1_000_000;

const FIG56: &str = "platform: {cpus: 3}\npolicy: {name: mcs}\ntasks:\n  - {name: tau1, period: 100ms, offset: 1ms, cpu: 0, memory_priority: 1, segments: [{memory: 1ms}, {exec: 2ms}]}\n  - {name: tau2, period: 100ms, cpu: 1, memory_priority: 2, segments: [{memory: 2ms}, {exec: 1ms}]}\n";

fn fig7() -> String {
    let sec = "segments: [{memory: 2ms}, {exec: 4ms}, {memory: 2ms}]";
    format!(
        "platform: {{cpus: 4}}\npolicy: {{name: mcs}}\ntasks:\n  - {{name: tau1, period: 100ms, offset: 1ms, cpu: 0, memory_priority: 1, {sec}}}\n  - {{name: tau2, period: 100ms, cpu: 1, memory_priority: 2, {sec}}}\n  - {{name: tau3, period: 100ms, cpu: 2, memory_priority: 3, {sec}}}\n"
    )
}

fn sim(yaml: &str, horizon: u64) -> (Header, Vec<Event>) {
    let spec: Spec = load_str(yaml, None, "t.yaml").unwrap().spec;
    let mut policy = schedlab_policy::build(&spec, None).unwrap();
    let config = SimConfig { horizon: Some(horizon), policy_events: true, ..SimConfig::default() };
    let h = header(&spec, policy.info(), &config);
    let (events, _) = simulate_collect(&spec, policy.as_mut(), &config).unwrap();
    (h, events)
}

fn check(h: &Header, events: &[Event]) -> Report {
    validate(h, events.iter().cloned(), &Options::default()).unwrap()
}

fn violations(r: &Report, c: Check) -> Option<u64> {
    r.checks.iter().find(|x| x.check == c).map(|x| x.violations)
}

fn first(r: &Report, c: Check) -> String {
    r.checks.iter().find(|x| x.check == c).and_then(|x| x.first.as_ref()).map(|v| v.message.clone()).unwrap_or_default()
}

fn position(events: &[Event], pick: impl Fn(&Event) -> bool) -> usize {
    events.iter().position(pick).expect("the event is in the trace")
}

#[test]
fn simulated_mcs_schedules_pass_the_memory_checks_and_the_replay() {
    for yaml in [FIG56.to_string(), fig7()] {
        let (h, ev) = sim(&yaml, 50 * MS);
        let r = check(&h, &ev);
        assert!(r.pass, "{}", r.render());
        for c in [Check::MemoryExclusive, Check::MemoryGrantOrder, Check::MemoryNp, Check::Replay] {
            assert_eq!(violations(&r, c), Some(0), "{c} applies and passes");
        }
    }
    // The Contention baseline has no memory-phase scheduler: the checks do not apply.
    let (h, ev) = sim(&FIG56.replace("{name: mcs}", "{name: mcs, mps: false}"), 50 * MS);
    let r = check(&h, &ev);
    assert!(r.pass, "{}", r.render());
    assert_eq!(violations(&r, Check::MemoryExclusive), None);
}

/// Figures 5/6 with τ2's suspension undone: τ2 keeps running its memory
/// phase in [1, 2) beside τ1's.
#[test]
fn two_memory_phases_at_once_are_caught() {
    let (h, mut ev) = sim(FIG56, 10 * MS);
    let away = position(&ev, |e| matches!(e, Event::SwitchAway { t, task: 1, .. } if *t == MS));
    ev.remove(away);
    let back = position(&ev, |e| matches!(e, Event::SwitchTo { t, task: 1, .. } if *t == 2 * MS));
    ev.remove(back);
    let r = check(&h, &ev);
    assert!(!r.pass);
    assert!(violations(&r, Check::MemoryExclusive).unwrap() >= 1, "{}", r.render());
    let m = first(&r, Check::MemoryExclusive);
    assert!(m.contains("2 memory phases ran at once") && m.contains("tau1") && m.contains("tau2"), "{m}");
}

/// Figure 7 with the grant at 3 ms going to τ3 instead of τ2 (τ2, of
/// higher memory priority, was preempted and waits).
#[test]
fn a_grant_to_a_less_urgent_phase_is_caught() {
    let (h, mut ev) = sim(&fig7(), 30 * MS);
    let g = position(
        &ev,
        |e| matches!(e, Event::Policy { t, event: PolicyEvent::TokenGrant { task: 1, .. }, .. } if *t == 3 * MS),
    );
    if let Event::Policy { t, cpu, .. } = ev[g] {
        ev[g] = Event::Policy { t, cpu, event: PolicyEvent::TokenGrant { task: 2, job: 0, worker: false } };
    }
    let r = check(&h, &ev);
    assert!(violations(&r, Check::MemoryGrantOrder).unwrap() >= 1, "{}", r.render());
    let m = first(&r, Check::MemoryGrantOrder);
    assert!(m.contains("tau3") && m.contains("tau2") && m.contains("higher memory priority"), "{m}");
}

/// A preempted phase released (its job had finished it as the preemption
/// reached it, on real threads) leaves the queue: the same grant to τ3 at
/// 3 ms is in order once τ2's preempted phase was released at 1 ms.
#[test]
fn a_released_preempted_phase_no_longer_waits() {
    let (h, mut ev) = sim(&fig7(), 30 * MS);
    let g = position(
        &ev,
        |e| matches!(e, Event::Policy { t, event: PolicyEvent::TokenGrant { task: 1, .. }, .. } if *t == 3 * MS),
    );
    if let Event::Policy { t, cpu, .. } = ev[g] {
        ev[g] = Event::Policy { t, cpu, event: PolicyEvent::TokenGrant { task: 2, job: 0, worker: false } };
    }
    let p = position(
        &ev,
        |e| matches!(e, Event::Policy { t, event: PolicyEvent::TokenPreempt { task: 1, .. }, .. } if *t == MS),
    );
    ev.insert(
        p + 1,
        Event::Policy { t: MS, cpu: Some(1), event: PolicyEvent::TokenRelease { task: 1, job: 0, worker: false } },
    );
    let r = check(&h, &ev);
    assert_eq!(violations(&r, Check::MemoryGrantOrder), Some(0), "{}", r.render());
}

/// τ2's memory phase non-preemptive: τ1 waits until 2 ms. Injected: τ2
/// leaves its CPU at 1 ms and comes back at 2 ms while τ1 starts at 1 ms —
/// the non-preemptive phase suspended for τ1's.
#[test]
fn a_suspended_non_preemptive_phase_is_caught() {
    let yaml = FIG56.replace("segments: [{memory: 2ms}", "segments: [{memory: 2ms, preemptible: false}");
    let (h, mut ev) = sim(&yaml, 10 * MS);
    let r = check(&h, &ev);
    assert!(r.pass, "{}", r.render());
    // τ1 runs from 2 ms in the simulated schedule; make it start at 1 ms.
    let to = position(&ev, |e| matches!(e, Event::SwitchTo { t, task: 0, .. } if *t == 2 * MS));
    let Event::SwitchTo { cpu, job, .. } = ev.remove(to) else { unreachable!() };
    let at1 = position(&ev, |e| e.t() > MS);
    ev.insert(at1, Event::SwitchTo { t: MS, cpu, task: 0, job });
    // τ2 leaves at 1 ms and comes back at 2 ms.
    let at1 = position(&ev, |e| e.t() > MS);
    let exec = MS;
    ev.insert(
        at1,
        Event::SwitchAway { t: MS, cpu: 1, task: 1, job: 0, reason: schedlab_trace::SwitchReason::Preempt, exec },
    );
    let at2 = position(&ev, |e| e.t() >= 2 * MS);
    ev.insert(at2, Event::SwitchTo { t: 2 * MS, cpu: 1, task: 1, job: 0 });
    let r = check(&h, &ev);
    assert!(violations(&r, Check::MemoryNp).unwrap() >= 1, "{}", r.render());
    let m = first(&r, Check::MemoryNp);
    assert!(m.contains("non-preemptive memory phase of tau2") && m.contains("tau1"), "{m}");
}

/// Figure 9 (A-MP, crates/policy/tests/mcs.rs): passes; with the token at
/// 2 ms given to the worker instead of τ3's own prefetch, the worker runs
/// beside τ3's phase and was preferred to a more urgent one.
#[test]
fn the_workers_phases_are_checked_too() {
    let sec = "memory_mode: amp, segments: [{memory: 1ms}, {exec: 6ms}, {memory: 1ms}, {memory: 1ms}, {exec: 6ms}, {memory: 1ms}]";
    let yaml = format!(
        "platform: {{cpus: 4}}\npolicy: {{name: mcs, master: 3}}\ntasks:\n  - {{name: tau1, period: 100ms, offset: 1ms, cpu: 0, memory_priority: 1, {sec}}}\n  - {{name: tau2, period: 100ms, cpu: 1, memory_priority: 2, {sec}}}\n  - {{name: tau3, period: 100ms, cpu: 2, memory_priority: 3, {sec}}}\n"
    );
    let (h, mut ev) = sim(&yaml, 30 * MS);
    let r = check(&h, &ev);
    assert!(r.pass, "{}", r.render());
    assert!(ev.iter().any(|e| matches!(e, Event::Policy { event: PolicyEvent::TokenGrant { worker: true, .. }, .. })));
    let g = position(
        &ev,
        |e| matches!(e, Event::Policy { t, event: PolicyEvent::TokenGrant { task: 2, worker: false, .. }, .. } if *t == 2 * MS),
    );
    if let Event::Policy { t, cpu, .. } = ev[g] {
        ev[g] = Event::Policy { t, cpu, event: PolicyEvent::TokenGrant { task: 1, job: 0, worker: true } };
    }
    let r = check(&h, &ev);
    let m = first(&r, Check::MemoryGrantOrder);
    assert!(m.contains("the worker (for tau2#0)") && m.contains("tau3"), "{m}");
    let m = first(&r, Check::MemoryExclusive);
    assert!(m.contains("the memory-phase worker") && m.contains("tau3"), "{m}");
}
