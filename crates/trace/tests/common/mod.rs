//! Hand-written traces shared by the integration tests.
#![allow(dead_code)]

use schedlab_model::{Duration, Platform, PolicyName, PolicySpec, Spec, Task};
use schedlab_trace::{Event, Header, OverheadKind, Source, SwitchReason};

pub const MS: u64 = 1_000_000;
pub const US: u64 = 1_000;

/// 2 CPUs, 3 tasks: A (2ms / 5ms), B (4ms / 10ms), C <&"quoted", 8ms / 10ms, deadline 7ms>.
pub fn header() -> Header {
    let mut c = Task::new("C <&\"q\">, x", Duration::from_ms(8), Duration::from_ms(10));
    c.deadline = Some(Duration::from_ms(7));
    let spec = Spec {
        meta: None,
        platform: Platform { cpus: 2, clusters: None, cache: None, memory: None },
        policy: Some(PolicySpec::named(PolicyName::Gedf)),
        overheads: None,
        reservations: None,
        mtt: None,
        tasks: vec![
            Task::new("A", Duration::from_ms(2), Duration::from_ms(5)),
            Task::new("B", Duration::from_ms(4), Duration::from_ms(10)),
            c,
        ],
    };
    Header::new(spec, Source::Simulator, 42, 10 * MS)
}

/// A global schedule on 2 CPUs with a preemption (B#0 at 5ms on CPU 0), a
/// migration (B#0 resumes on CPU 1 at 8ms), a miss (C#0, deadline 7ms,
/// finishes at 8ms) and an unfinished job (A#2, released at 10ms).
///
/// ```text
/// CPU 0: A#0 [0,2)  B#0 [2,5)  A#1 [5,7)
/// CPU 1: C#0 [0,8)  B#0 [8,9)
/// ```
pub fn events() -> Vec<Event> {
    use Event::*;
    vec![
        SysRelease { t: 0 },
        Release { t: 0, task: 0, job: 0, deadline: 5 * MS },
        Release { t: 0, task: 1, job: 0, deadline: 10 * MS },
        Release { t: 0, task: 2, job: 0, deadline: 7 * MS },
        Overhead { t: 0, cpu: 0, kind: OverheadKind::Schedule, dur: 10 * US },
        SwitchTo { t: 0, cpu: 0, task: 0, job: 0 },
        SwitchTo { t: 0, cpu: 1, task: 2, job: 0 },
        SwitchAway { t: 2 * MS, cpu: 0, task: 0, job: 0, reason: SwitchReason::Complete, exec: 2 * MS },
        Completion { t: 2 * MS, cpu: 0, task: 0, job: 0, exec: 2 * MS, forced: false },
        Overhead { t: 2 * MS, cpu: 0, kind: OverheadKind::ContextSwitch, dur: 5 * US },
        SwitchTo { t: 2 * MS, cpu: 0, task: 1, job: 0 },
        Release { t: 5 * MS, task: 0, job: 1, deadline: 10 * MS },
        Overhead { t: 5 * MS, cpu: 0, kind: OverheadKind::Release, dur: 3 * US },
        SwitchAway { t: 5 * MS, cpu: 0, task: 1, job: 0, reason: SwitchReason::Preempt, exec: 3 * MS },
        SwitchTo { t: 5 * MS, cpu: 0, task: 0, job: 1 },
        Note { t: 5 * MS, cpu: Some(0), name: "decision".into(), data: serde_json::json!({"picked": [0, 1]}) },
        DeadlineMiss { t: 7 * MS, task: 2, job: 0 },
        SwitchAway { t: 7 * MS, cpu: 0, task: 0, job: 1, reason: SwitchReason::Complete, exec: 2 * MS },
        Completion { t: 7 * MS, cpu: 0, task: 0, job: 1, exec: 2 * MS, forced: false },
        SwitchAway { t: 8 * MS, cpu: 1, task: 2, job: 0, reason: SwitchReason::Complete, exec: 8 * MS },
        Completion { t: 8 * MS, cpu: 1, task: 2, job: 0, exec: 8 * MS, forced: false },
        SwitchTo { t: 8 * MS, cpu: 1, task: 1, job: 0 },
        Overhead { t: 8 * MS, cpu: 1, kind: OverheadKind::ContextSwitch, dur: 5 * US },
        SwitchAway { t: 9 * MS, cpu: 1, task: 1, job: 0, reason: SwitchReason::Complete, exec: 4 * MS },
        Completion { t: 9 * MS, cpu: 1, task: 1, job: 0, exec: 4 * MS, forced: false },
        Release { t: 10 * MS, task: 0, job: 2, deadline: 15 * MS },
    ]
}

/// Every event variant, every switch reason and overhead kind, both policy
/// shapes, extreme values, and a step back in time.
pub fn all_variants() -> Vec<Event> {
    use Event::*;
    let mut v = vec![
        SysRelease { t: 0 },
        Release { t: 1, task: 0, job: 0, deadline: 11 },
        Release { t: 1, task: u32::MAX, job: u64::MAX, deadline: 0 },
        SwitchTo { t: 2, cpu: 1, task: 0, job: 0 },
        Completion { t: 3, cpu: 1, task: 0, job: 0, exec: 1, forced: false },
        Completion { t: 3, cpu: u32::MAX, task: 2, job: 7, exec: u64::MAX, forced: true },
        Block { t: 4, task: 1, job: 2 },
        Resume { t: 5, task: 1, job: 2 },
        SegmentEnd { t: 5, cpu: 1, task: 1, job: 2, segment: 0 },
        SegmentEnd { t: 5, cpu: u32::MAX, task: u32::MAX, job: u64::MAX, segment: u32::MAX },
        DeadlineMiss { t: 6, task: 1, job: 2 },
        BudgetExhausted { t: 6, task: 1, job: 2 },
        Note { t: 7, cpu: None, name: "quantum".into(), data: serde_json::Value::Null },
        Note {
            t: 7,
            cpu: Some(3),
            name: "prem-phase ✓".into(),
            data: serde_json::json!({"phase": "memory", "n": -1.5, "list": [1, 2, {"z": null, "a": true}]}),
        },
        Note { t: 8, cpu: Some(u32::MAX), name: String::new(), data: serde_json::json!(0) },
        SysRelease { t: 4 }, // back in time
        SysRelease { t: u64::MAX },
        SysRelease { t: 0 },
    ];
    for (i, event) in policy_events().into_iter().enumerate() {
        v.push(Policy { t: 50 + i as u64, cpu: if i % 2 == 0 { Some(i as u32) } else { None }, event });
    }
    for (i, reason) in SwitchReason::ALL.into_iter().enumerate() {
        v.push(SwitchAway { t: 100 + i as u64, cpu: i as u32, task: 3, job: 1 << 40, reason, exec: 123_456_789 });
    }
    for (i, kind) in OverheadKind::ALL.into_iter().enumerate() {
        v.push(Overhead { t: 200 + i as u64, cpu: 0, kind, dur: 1_000 * i as u64 });
    }
    v
}

/// One typed policy event of every kind, with extreme values.
pub fn policy_events() -> Vec<schedlab_trace::PolicyEvent> {
    use schedlab_trace::PolicyEvent::*;
    vec![
        PreemptionPoint { task: 1, job: 2, segment: 0 },
        Server { server: Some("S3".into()) },
        Server { server: None },
        ServerReplenish { server: "H1 ✓".into(), budget: u64::MAX, deadline: 0 },
        ServerExhaust { server: String::new(), deadline: 9 },
        ServerPostpone { server: "H1".into(), budget: 3, deadline: u64::MAX },
        CounterSample(Box::new(schedlab_model::CounterReading {
            task: Some(u32::MAX),
            job: Some(u64::MAX),
            instructions: Some(1),
            cycles: Some(u64::MAX),
            cache_references: None,
            cache_misses: Some(0),
            coherence_misses: None,
            cpu_clock: Some(3),
            context_switches: Some(2),
        })),
        CounterSample(Box::default()),
        PriorityPromotion { task: 0, job: 0, reason: "cache".into() },
        TokenGrant { task: 2, job: 5, worker: false },
        TokenRelease { task: 2, job: 5, worker: true },
    ]
}
