//! Typed policy events: what a policy records about its own decisions
//! (`Kernel::note` in `schedlab-policy`) and what a trace of schema version 2
//! carries as its `policy` events (`schedlab-trace`).
//!
//! The vocabulary lives here, below both crates, because the policy
//! interface produces it and the trace schema serialises it, and neither of
//! those two crates depends on the other. Jobs are named as in the trace
//! (`task` index, `job` sequence number), times are nanoseconds from the
//! system release. In JSON an event is an object tagged by `kind`, e.g.
//! `{"kind": "server", "server": "S3"}`; `docs/trace-format.md` lists them.
//!
//! The boundaries between a job's segments are not policy events: the driver
//! observes them and the trace records them as `segment-end` events, which
//! the validator replays. A policy records what it *decided* at one
//! (`preemption-point`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One policy event. Build it only when the kernel says it is tracing
/// (`Kernel::tracing`): the events with a server name allocate.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum PolicyEvent {
    /// A deferred-preemption policy (`fpds`, `g-fpds`) took the preemption
    /// point at the end of segment `segment` of the job: a higher-priority
    /// job was waiting, so the job leaves its CPU there.
    PreemptionPoint { task: u32, job: u64, segment: u32 },
    /// RUN: the level-0 server `server` now holds the CPU; `None` (JSON
    /// `null`): no server holds it.
    Server { server: Option<String> },
    /// A reservation server's budget was replenished to `budget` ns with the
    /// absolute deadline `deadline` (CBS-like servers).
    ServerReplenish { server: String, budget: u64, deadline: u64 },
    /// A server's budget ran out; `deadline` is its deadline at that moment.
    ServerExhaust { server: String, deadline: u64 },
    /// A server's deadline was postponed to `deadline`, its budget recharged
    /// to `budget` ns (the CBS rule on exhaustion).
    ServerPostpone { server: String, budget: u64, deadline: u64 },
    /// A reading of the CPU's counters ([`CounterReading`]), boxed so that
    /// the rare sample does not make every event as large as itself.
    CounterSample(Box<CounterReading>),
    /// The job's priority was raised above its base priority (cache-aware
    /// promotion); `reason` says why: `cache` (the cache-aware policy chose
    /// its MTT), `urgent` (a job of its MTT with the same index started this
    /// quantum), `lost-cause` (the lost-cause policy chose its MTT).
    PriorityPromotion { task: u32, job: u64, reason: String },
    /// The system-wide memory token was granted to the job (memory-centric
    /// scheduling): its memory phase may run. `worker`: to the memory-phase
    /// worker, for a memory phase of the job (A-MP).
    TokenGrant {
        task: u32,
        job: u64,
        #[serde(default, skip_serializing_if = "is_false")]
        worker: bool,
    },
    /// The job (`worker`: the memory-phase worker, for the job) gave the
    /// memory token back.
    TokenRelease {
        task: u32,
        job: u64,
        #[serde(default, skip_serializing_if = "is_false")]
        worker: bool,
    },
    /// The job (`worker`: the memory-phase worker, for the job) asked for
    /// the memory token (`memphase_start`) at the start of a memory phase;
    /// a grant follows at once or when the token is handed to it.
    TokenRequest {
        task: u32,
        job: u64,
        #[serde(default, skip_serializing_if = "is_false")]
        worker: bool,
    },
    /// The memory phase of the job (`worker`: the worker's, for the job) was
    /// preempted: a phase of higher memory priority took the token; it waits
    /// until it is granted again.
    TokenPreempt {
        task: u32,
        job: u64,
        #[serde(default, skip_serializing_if = "is_false")]
        worker: bool,
    },
    /// The two-phase colour-aware scheduler (`cap-gs-dynamic`) took the
    /// best-effort job off its CPU: the CPU's counter rose by `count` in the
    /// last quantum, above the threshold, while a real-time task sharing its
    /// colours had unfinished work (`hold`), or at once (`yield`).
    Throttle { task: u32, job: u64, count: u64 },
    /// The throttled job may run again.
    Unthrottle { task: u32, job: u64 },
    /// The policy has no counter readings (`reason`, e.g. the simulator has
    /// no counter source) and schedules without its dynamic phase.
    CountersUnavailable { reason: String },
    /// `ca-gedf`: the CPU runs a phantom job (one idle quantum of the
    /// hyperperiod's budget) for the quantum starting now: instead of the
    /// job `task`/`job`, which would have made the shared cache thrash, or
    /// (both absent) because the CPU had nothing to run.
    Phantom {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        task: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        job: Option<u64>,
    },
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// A reading of a CPU's counters (cumulative since the run started, the
/// fields of the policy interface's counter reading), while `task`/`job`
/// ran (absent: the CPU idled). A counter the source does not count is
/// absent.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema)]
pub struct CounterReading {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job: Option<u64>,
    /// Instructions retired.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<u64>,
    /// CPU cycles.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cycles: Option<u64>,
    /// Last-level cache references.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_references: Option<u64>,
    /// Last-level cache misses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_misses: Option<u64>,
    /// Coherence misses (loads that hit a line modified in another core's cache).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coherence_misses: Option<u64>,
    /// CPU time counted on the CPU (ns).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_clock: Option<u64>,
    /// Context switches on the CPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_switches: Option<u64>,
}

impl PolicyEvent {
    /// The value of `kind` for every event, in declaration order.
    pub const KINDS: [&'static str; 15] = [
        "preemption-point",
        "server",
        "server-replenish",
        "server-exhaust",
        "server-postpone",
        "counter-sample",
        "priority-promotion",
        "token-grant",
        "token-release",
        "throttle",
        "unthrottle",
        "counters-unavailable",
        "token-request",
        "token-preempt",
        "phantom",
    ];

    /// The event's `kind` (`server`, `preemption-point`, ...).
    pub fn kind(&self) -> &'static str {
        match self {
            PolicyEvent::PreemptionPoint { .. } => "preemption-point",
            PolicyEvent::Server { .. } => "server",
            PolicyEvent::ServerReplenish { .. } => "server-replenish",
            PolicyEvent::ServerExhaust { .. } => "server-exhaust",
            PolicyEvent::ServerPostpone { .. } => "server-postpone",
            PolicyEvent::CounterSample { .. } => "counter-sample",
            PolicyEvent::PriorityPromotion { .. } => "priority-promotion",
            PolicyEvent::TokenGrant { .. } => "token-grant",
            PolicyEvent::TokenRelease { .. } => "token-release",
            PolicyEvent::Throttle { .. } => "throttle",
            PolicyEvent::Unthrottle { .. } => "unthrottle",
            PolicyEvent::CountersUnavailable { .. } => "counters-unavailable",
            PolicyEvent::TokenRequest { .. } => "token-request",
            PolicyEvent::TokenPreempt { .. } => "token-preempt",
            PolicyEvent::Phantom { .. } => "phantom",
        }
    }

    /// The job the event is about, if any: `(task, job)`.
    pub fn job(&self) -> Option<(u32, u64)> {
        match *self {
            PolicyEvent::PreemptionPoint { task, job, .. }
            | PolicyEvent::PriorityPromotion { task, job, .. }
            | PolicyEvent::TokenGrant { task, job, .. }
            | PolicyEvent::TokenRelease { task, job, .. }
            | PolicyEvent::TokenRequest { task, job, .. }
            | PolicyEvent::TokenPreempt { task, job, .. }
            | PolicyEvent::Throttle { task, job, .. }
            | PolicyEvent::Unthrottle { task, job } => Some((task, job)),
            PolicyEvent::CounterSample(ref r) => r.task.zip(r.job),
            _ => None,
        }
    }

    /// A schema version 1 `policy` event (a name and a JSON payload) as a
    /// typed event, when it has a fixed meaning: `server` (RUN's server
    /// selection, `{"server": "S3"}` or `{"server": null}`) and the kinds of
    /// this enum written with their fields as `data`. `None` for any other
    /// (a free-form note).
    pub fn from_v1(name: &str, data: &serde_json::Value) -> Option<PolicyEvent> {
        if !PolicyEvent::KINDS.contains(&name) {
            return None;
        }
        let mut obj = match data {
            serde_json::Value::Object(m) => m.clone(),
            serde_json::Value::Null => serde_json::Map::new(),
            _ => return None,
        };
        obj.insert("kind".into(), serde_json::Value::String(name.to_string()));
        serde_json::from_value(serde_json::Value::Object(obj)).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_match_the_serialised_tag() {
        let all = [
            PolicyEvent::PreemptionPoint { task: 1, job: 2, segment: 0 },
            PolicyEvent::Server { server: None },
            PolicyEvent::ServerReplenish { server: "S0".into(), budget: 1, deadline: 2 },
            PolicyEvent::ServerExhaust { server: "S0".into(), deadline: 2 },
            PolicyEvent::ServerPostpone { server: "S0".into(), budget: 1, deadline: 2 },
            PolicyEvent::CounterSample(Box::new(CounterReading {
                instructions: Some(5),
                cpu_clock: Some(7),
                ..CounterReading::default()
            })),
            PolicyEvent::PriorityPromotion { task: 0, job: 0, reason: "cache".into() },
            PolicyEvent::TokenGrant { task: 0, job: 0, worker: false },
            PolicyEvent::TokenRelease { task: 0, job: 0, worker: true },
            PolicyEvent::Throttle { task: 3, job: 1, count: 120 },
            PolicyEvent::Unthrottle { task: 3, job: 1 },
            PolicyEvent::CountersUnavailable { reason: "no source".into() },
            PolicyEvent::TokenRequest { task: 1, job: 0, worker: true },
            PolicyEvent::TokenPreempt { task: 1, job: 0, worker: false },
            PolicyEvent::Phantom { task: Some(2), job: Some(0) },
        ];
        for (i, e) in all.iter().enumerate() {
            let v = serde_json::to_value(e).unwrap();
            assert_eq!(v["kind"], e.kind());
            assert_eq!(PolicyEvent::KINDS[i], e.kind());
            assert_eq!(&serde_json::from_value::<PolicyEvent>(v).unwrap(), e);
        }
    }

    /// A sample is small in an event (boxed), and its fields sit beside `kind`.
    #[test]
    fn a_counter_sample_is_flat_in_json_and_small_in_memory() {
        assert!(std::mem::size_of::<PolicyEvent>() <= 48, "{}", std::mem::size_of::<PolicyEvent>());
        let e = PolicyEvent::CounterSample(Box::new(CounterReading {
            task: Some(1),
            job: Some(2),
            cache_misses: Some(3),
            ..CounterReading::default()
        }));
        let v = serde_json::to_value(&e).unwrap();
        assert_eq!(v, serde_json::json!({"kind": "counter-sample", "task": 1, "job": 2, "cache_misses": 3}));
        assert_eq!(serde_json::from_value::<PolicyEvent>(v).unwrap(), e);
        assert_eq!(e.job(), Some((1, 2)));
    }

    #[test]
    fn v1_server_notes_become_typed() {
        let s = PolicyEvent::from_v1("server", &serde_json::json!({"server": "S3"}));
        assert_eq!(s, Some(PolicyEvent::Server { server: Some("S3".into()) }));
        let none = PolicyEvent::from_v1("server", &serde_json::json!({"server": null}));
        assert_eq!(none, Some(PolicyEvent::Server { server: None }));
        assert_eq!(PolicyEvent::from_v1("platform-stall", &serde_json::json!({"gap": 5})), None);
        // A known name with a payload that does not fit stays a note.
        assert_eq!(PolicyEvent::from_v1("server", &serde_json::json!([1])), None);
        assert_eq!(PolicyEvent::from_v1("token-grant", &serde_json::json!({"task": 1})), None);
    }
}
