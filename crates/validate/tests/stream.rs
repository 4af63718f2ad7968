//! Streaming: a generated trace of more than 10^6 events is validated as it
//! is produced, never held in memory.

mod common;
use common::*;
use schedlab_model::{Duration, PolicyName};
use schedlab_trace::{Event, SwitchReason, Time};
use schedlab_validate::{validate_with, Options};

/// One 20ms hyperperiod `k` of a G-EDF schedule on 2 CPUs: A and B (4ms,
/// period 10ms, deadline 9ms), C (8ms, period 20ms): C runs after A and B,
/// is preempted at 10ms by their next jobs and completes at 16ms.
fn hyperperiod(k: u64) -> [Event; 18] {
    let b = k * 20 * MS;
    let rel = |t: Time, task: u32, job: u64, d: Time| Event::Release { t: b + t, task, job, deadline: b + d };
    let to = |t: Time, cpu: u32, task: u32, job: u64| Event::SwitchTo { t: b + t, cpu, task, job };
    let done = |t: Time, cpu: u32, task: u32, job: u64, exec: Time| Event::Completion {
        t: b + t,
        cpu,
        task,
        job,
        exec,
        forced: false,
    };
    [
        rel(0, 0, 2 * k, 9 * MS),
        rel(0, 1, 2 * k, 9 * MS),
        rel(0, 2, k, 20 * MS),
        to(0, 0, 0, 2 * k),
        to(0, 1, 1, 2 * k),
        done(4 * MS, 0, 0, 2 * k, 4 * MS),
        to(4 * MS, 0, 2, k),
        done(4 * MS, 1, 1, 2 * k, 4 * MS),
        rel(10 * MS, 0, 2 * k + 1, 19 * MS),
        rel(10 * MS, 1, 2 * k + 1, 19 * MS),
        Event::SwitchAway { t: b + 10 * MS, cpu: 0, task: 2, job: k, reason: SwitchReason::Preempt, exec: 6 * MS },
        to(10 * MS, 0, 0, 2 * k + 1),
        to(10 * MS, 1, 1, 2 * k + 1),
        done(14 * MS, 0, 0, 2 * k + 1, 4 * MS),
        to(14 * MS, 0, 2, k),
        done(14 * MS, 1, 1, 2 * k + 1, 4 * MS),
        done(16 * MS, 0, 2, k, 8 * MS),
        Event::Overhead { t: b + 16 * MS, cpu: 1, kind: schedlab_trace::OverheadKind::Tick, dur: 0 },
    ]
}

#[test]
fn a_million_events_are_validated_as_a_stream() {
    let n: u64 = 1_000_000 / 18 + 1;
    let mut a = task("A", 4 * MS, 10 * MS);
    a.deadline = Some(Duration(9 * MS));
    let mut b = task("B", 4 * MS, 10 * MS);
    b.deadline = Some(Duration(9 * MS));
    let s = spec(2, vec![a, b, task("C", 8 * MS, 20 * MS)], Some(PolicyName::Gedf));
    let h = header(s, vec![], n * 20 * MS);
    let events = (0..n).flat_map(hyperperiod);
    let r = validate_with(&h, events, &Options::default(), Some(TestPolicy::gedf(&h))).unwrap();
    assert_pass(&r);
    assert!(r.events >= 1_000_000, "{}", r.events);
    assert_eq!(r.jobs.released, 5 * n);
    assert_eq!(r.jobs.completed, 5 * n);
    // Memory follows the jobs in flight (at most 3 here), not the trace.
    assert!(r.jobs.peak_in_flight <= 3, "{}", r.jobs.peak_in_flight);
    let l = r.latency.unwrap();
    assert_eq!((l.all.count, l.all.max, l.unresolved), (10 * n, 0, 0));
}
