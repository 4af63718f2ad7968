//! The reservation checks (`budget`, `throttle`, `group-priority`) on
//! H-CBS schedules: a simulated schedule passes them, and each kind of
//! violation injected into it is caught by its check, with the server or
//! the tasks named. The schedules are the hand-computed ones of
//! crates/policy/tests/hcbs.rs.

use schedlab_model::{load_str, PolicyEvent, Spec};
use schedlab_sim::{header, simulate, SimConfig};
use schedlab_trace::{Event, Header};
use schedlab_validate::{validate, Check, Options, Report};

const MS: u64 = 1_000_000;

/// One CPU, g = (2, 5) with t0 (3, 10); t1 (4, 20) in no group. t0 runs
/// 0–2, g@0 is exhausted at 2 and throttled until 5, t1 runs 2–5, t0 5–6.
const THROTTLE: &str = "platform: {cpus: 1}\npolicy: {name: hcbs}\ntasks:\n  - {name: t0, wcet: 3ms, period: 10ms}\n  - {name: t1, wcet: 4ms, period: 20ms}\nreservations:\n  - {name: g, budget: 2ms, period: 5ms, tasks: [t0]}\n";

fn sim(yaml: &str, horizon: u64) -> (Header, Vec<Event>) {
    let spec: Spec = load_str(yaml, None, "t.yaml").unwrap().spec;
    let mut policy = schedlab_policy::build(&spec, None).unwrap();
    let config = SimConfig { horizon: Some(horizon), ..SimConfig::default() };
    let h = header(&spec, policy.info(), &config);
    let mut events = Vec::new();
    simulate(&spec, policy.as_mut(), &config, &mut |e| events.push(e.clone())).unwrap();
    (h, events)
}

fn check(h: &Header, events: &[Event]) -> Report {
    validate(h, events.iter().cloned(), &Options::default()).unwrap()
}

fn violations(r: &Report, c: Check) -> u64 {
    r.checks.iter().find(|x| x.check == c).map_or(0, |x| x.violations)
}

fn first(r: &Report, c: Check) -> String {
    r.checks.iter().find(|x| x.check == c).and_then(|x| x.first.as_ref()).map(|v| v.message.clone()).unwrap_or_default()
}

fn is_exhaust(e: &Event, at: u64) -> bool {
    matches!(e, Event::Policy { t, event: PolicyEvent::ServerExhaust { .. }, .. } if *t == at)
}

/// Moves every event at `from` that matches `pick` to `to` (keeping the
/// trace in time order: the moved events go before the first event after `to`).
fn shift(events: &mut Vec<Event>, from: u64, to: u64, pick: impl Fn(&Event) -> bool) {
    let moved: Vec<Event> =
        events.iter().filter(|e| e.t() == from && pick(e)).cloned().map(|e| retime(e, to)).collect();
    events.retain(|e| !(e.t() == from && pick(e)));
    let at = events.iter().position(|e| e.t() > to).unwrap_or(events.len());
    for (k, e) in moved.into_iter().enumerate() {
        events.insert(at + k, e);
    }
}

fn retime(e: Event, to: u64) -> Event {
    match e {
        Event::SwitchTo { cpu, task, job, .. } => Event::SwitchTo { t: to, cpu, task, job },
        Event::SwitchAway { cpu, task, job, reason, exec, .. } => {
            Event::SwitchAway { t: to, cpu, task, job, reason, exec }
        }
        Event::Policy { cpu, event, .. } => Event::Policy { t: to, cpu, event },
        other => other,
    }
}

#[test]
fn a_simulated_schedule_passes_the_reservation_checks() {
    let (h, events) = sim(THROTTLE, 29 * MS);
    assert!(events.iter().any(|e| is_exhaust(e, 2 * MS)), "g@0 is exhausted at 2 ms");
    let r = check(&h, &events);
    assert!(r.pass, "{}", r.render());
    for c in [Check::Budget, Check::Throttle, Check::GroupPriority] {
        assert!(r.checks.iter().any(|x| x.check == c), "{c} applies to hcbs");
    }
    // Not to other policies.
    let (h2, e2) = sim(&THROTTLE.replace("hcbs", "gfp"), 29 * MS);
    let r2 = check(&h2, &e2);
    assert!(!r2.checks.iter().any(|x| x.check == Check::Budget), "{}", r2.render());
}

#[test]
fn running_through_a_throttle_is_caught() {
    let (h, mut events) = sim(THROTTLE, 29 * MS);
    // t0 keeps the CPU until 3 instead of 2: 1 ms while g@0 is throttled.
    shift(&mut events, 2 * MS, 3 * MS, |e| {
        matches!(e, Event::SwitchAway { task: 0, .. } | Event::SwitchTo { task: 1, .. })
    });
    let r = check(&h, &events);
    assert_eq!(violations(&r, Check::Throttle), 1, "{}", r.render());
    let msg = first(&r, Check::Throttle);
    assert!(msg.contains("t0 ran 1ms while server g@0 was throttled (exhausted at 2ms, until 5ms)"), "{msg}");
}

#[test]
fn overrunning_a_budget_is_caught() {
    let (h, mut events) = sim(THROTTLE, 29 * MS);
    // The same overrun, with the exhaustion (and so the throttle) not recorded.
    events.retain(|e| !is_exhaust(e, 2 * MS));
    shift(&mut events, 2 * MS, 3 * MS, |e| {
        matches!(e, Event::SwitchAway { task: 0, .. } | Event::SwitchTo { task: 1, .. })
    });
    let r = check(&h, &events);
    assert!(violations(&r, Check::Budget) >= 1, "{}", r.render());
    let msg = first(&r, Check::Budget);
    assert!(msg.contains("server g@0 ran 3ms in its period from 0ns, more than its budget 2ms"), "{msg}");
}

#[test]
fn an_early_replenishment_is_caught() {
    let (h, mut events) = sim(THROTTLE, 29 * MS);
    // g@0's replenishment at its deadline 5 written at 4.
    shift(&mut events, 5 * MS, 4 * MS, |e| {
        matches!(e, Event::Policy { event: PolicyEvent::ServerReplenish { .. }, .. })
    });
    let r = check(&h, &events);
    let msg = first(&r, Check::Budget);
    assert!(msg.contains("server g@0 replenished while throttled, before its deadline 5ms"), "{msg}\n{}", r.render());
    // A replenishment to more than the group's budget.
    let (h, mut events) = sim(THROTTLE, 29 * MS);
    for e in &mut events {
        if let Event::Policy { event: PolicyEvent::ServerReplenish { budget, .. }, t, .. } = e {
            if *t == 5 * MS {
                *budget = 3 * MS;
            }
        }
    }
    let r = check(&h, &events);
    assert!(first(&r, Check::Budget).contains("replenished to 3ms, but the group's budget is 2ms"), "{}", r.render());
}

/// One CPU, group g (4 every 4) with hi (1, 4) above lo (2, 8): hi 0–1,
/// lo 1–3. Swapped, lo runs first while hi waits.
#[test]
fn a_priority_inversion_inside_a_group_is_caught() {
    let yaml = "platform: {cpus: 1}\npolicy: {name: hcbs}\ntasks:\n  - {name: hi, wcet: 1ms, period: 4ms}\n  - {name: lo, wcet: 2ms, period: 8ms}\nreservations:\n  - {name: g, budget: 4ms, period: 4ms, tasks: [hi, lo]}\n";
    let (h, events) = sim(yaml, 7 * MS);
    assert!(check(&h, &events).pass);
    // lo runs 0–2, then hi 2–3.
    let swapped: Vec<Event> = events
        .iter()
        .cloned()
        .map(|e| match e {
            Event::SwitchTo { t: 0, cpu, task: 0, job } => Event::SwitchTo { t: 0, cpu, task: 1, job },
            Event::SwitchAway { t, cpu, task: 0, job: 0, reason, exec } if t == MS => {
                Event::SwitchAway { t: 2 * MS, cpu, task: 1, job: 0, reason, exec }
            }
            other => other,
        })
        .collect();
    let mut swapped = swapped;
    swapped.sort_by_key(|e| e.t());
    let r = check(&h, &swapped);
    let msg = first(&r, Check::GroupPriority);
    assert!(msg.contains("hi waits while lo, of lower priority in the same group, runs"), "{msg}\n{}", r.render());
}

/// A job in a non-preemptive section runs on past its server's exhaustion
/// and ahead of a higher-priority task of its group (hi arrives at 1.5,
/// g = (2, 10) runs out at 2, lo's section ends with its job at 3): legal.
/// The same trace without lo's `segment-end` (so lo was never in a section)
/// breaks the throttle and the group's priorities.
#[test]
fn a_boosted_section_may_overrun_and_nothing_else_may() {
    let yaml = "platform: {cpus: 1}\npolicy: {name: hcbs}\ntasks:\n  - {name: hi, wcet: 1ms, period: 20ms, offset: 1.5ms}\n  - {name: lo, period: 20ms, segments: [{exec: 1ms}, {exec: 2ms, preemptible: false}]}\nreservations:\n  - {name: g, budget: 2ms, period: 10ms, tasks: [hi, lo]}\n";
    let (h, events) = sim(yaml, 19 * MS);
    let r = check(&h, &events);
    assert!(r.pass, "{}", r.render());
    assert!(events.iter().any(|e| is_exhaust(e, 2 * MS)));
    let without: Vec<Event> = events.into_iter().filter(|e| !matches!(e, Event::SegmentEnd { task: 1, .. })).collect();
    let r = validate(
        &h,
        without.iter().cloned(),
        &Options { mode: schedlab_validate::Mode::Generic, ..Options::default() },
    )
    .unwrap();
    assert!(r.pass, "the generic invariants hold: {}", r.render());
    let r = check(&h, &without);
    assert!(first(&r, Check::Throttle).contains("lo ran 1ms while server g@0 was throttled"), "{}", r.render());
    assert!(first(&r, Check::GroupPriority).contains("hi waits while lo"), "{}", r.render());
}
