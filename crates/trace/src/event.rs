//! Trace events, schema version 2. The vocabulary follows LITMUS^RT's
//! sched_trace (release, switch-to, switch-away, completion, block, resume,
//! system release) and feather-trace's overhead intervals, plus typed policy
//! events ([`PolicyEvent`]) and free-form notes. Times are integer
//! nanoseconds from the trace's time zero.
//!
//! Version 2 differs from version 1 in one event: version 1's `policy` event
//! was a name and a JSON payload; version 2 splits it into the typed `policy`
//! event (tagged by `kind`) and the free-form `note`. Readers read both
//! versions and turn a version 1 trace into version 2 ([`Event::from_v1_policy`]).

pub use schedlab_model::PolicyEvent;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The trace schema version this crate writes (and reads).
pub const SCHEMA_VERSION: u32 = 2;
/// The oldest trace schema version this crate reads.
pub const OLDEST_SCHEMA_VERSION: u32 = 1;

/// Time in nanoseconds.
pub type Time = u64;

/// A job: the task's index in the spec and the job's 0-based sequence number
/// within its task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct JobRef {
    pub task: u32,
    pub job: u64,
}

/// Why a job left a CPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum SwitchReason {
    /// A higher-priority job (or the policy's decision) took the CPU.
    Preempt,
    /// The job completed.
    Complete,
    /// The job blocked (self-suspension, I/O).
    Block,
    /// The job's budget ran out (enforcement).
    Budget,
    /// The job was aborted (abort-at-deadline miss handling).
    Abort,
}

/// Kernel overheads, named after feather-trace's event pairs and SchedCAT's
/// overhead columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum OverheadKind {
    /// Processing a job release (RELEASE).
    Release,
    /// A scheduling decision (SCHEDULE).
    Schedule,
    /// A context switch (CXS).
    ContextSwitch,
    /// Inter-processor interrupt latency for a remote reschedule (SEND_RESCHED).
    Ipi,
    /// Periodic tick processing (TICK).
    Tick,
    /// Cache-related preemption or migration delay charged to a resuming job.
    Cpmd,
    /// Delay between a release's due time and its handling (RELEASE_LATENCY).
    ReleaseLatency,
}

/// One event of a schedule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "ev", rename_all = "kebab-case")]
#[schemars(title = "schedlab trace event")]
pub enum Event {
    /// Synchronous release of the task set: time zero of the schedule.
    SysRelease { t: Time },
    /// A job is released with its absolute deadline.
    Release { t: Time, task: u32, job: u64, deadline: Time },
    /// A job starts or resumes executing on a CPU.
    SwitchTo { t: Time, cpu: u32, task: u32, job: u64 },
    /// A job stops executing on a CPU; `exec` is its execution time so far.
    SwitchAway { t: Time, cpu: u32, task: u32, job: u64, reason: SwitchReason, exec: Time },
    /// A job completes (on the CPU it last ran on); `exec` is its total
    /// execution time. `forced` marks a job ended by the system (aborted).
    Completion {
        t: Time,
        cpu: u32,
        task: u32,
        job: u64,
        exec: Time,
        #[serde(default, skip_serializing_if = "is_false")]
        forced: bool,
    },
    /// A job blocks (it is not eligible until it resumes).
    Block { t: Time, task: u32, job: u64 },
    /// A blocked job resumes.
    Resume { t: Time, task: u32, job: u64 },
    /// The job running on `cpu` finished its segment `segment` (0-based, of
    /// its task's segments) and goes on with the next: a preemption point
    /// under deferred preemption (`fpds`, `g-fpds`). Not written after the
    /// last segment (that is the completion). Added in schedlab 0.1 without
    /// a schema change: a trace without it reads as before.
    SegmentEnd { t: Time, cpu: u32, task: u32, job: u64, segment: u32 },
    /// A job's deadline passed before it completed.
    DeadlineMiss { t: Time, task: u32, job: u64 },
    /// A job's execution budget was exhausted.
    BudgetExhausted { t: Time, task: u32, job: u64 },
    /// A CPU spent `dur` on kernel work of the given kind, starting at `t`.
    Overhead { t: Time, cpu: u32, kind: OverheadKind, dur: Time },
    /// A typed policy event (a RUN server selection, an FPDS preemption
    /// point taken, a server's budget, ...): the fields of `event`, tagged
    /// by `kind`, sit beside `t` and `cpu`.
    Policy {
        t: Time,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cpu: Option<u32>,
        #[serde(flatten)]
        event: PolicyEvent,
    },
    /// A free-form note from the producer (the runtime's platform stalls,
    /// skipped releases and dispatcher statistics; version 1 policy events
    /// without a fixed meaning): a name and a small payload.
    Note {
        t: Time,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cpu: Option<u32>,
        name: String,
        #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
        data: serde_json::Value,
    },
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl SwitchReason {
    /// Every reason, in declaration order (the order of [`SwitchReason::index`]).
    pub const ALL: [SwitchReason; 5] =
        [SwitchReason::Preempt, SwitchReason::Complete, SwitchReason::Block, SwitchReason::Budget, SwitchReason::Abort];
    /// The name used in the JSON encoding (`preempt`, `complete`, ...).
    pub fn name(self) -> &'static str {
        match self {
            SwitchReason::Preempt => "preempt",
            SwitchReason::Complete => "complete",
            SwitchReason::Block => "block",
            SwitchReason::Budget => "budget",
            SwitchReason::Abort => "abort",
        }
    }
    /// Position in [`SwitchReason::ALL`] (0..5); the binary encoding uses it.
    pub fn index(self) -> usize {
        self as usize
    }
}

impl OverheadKind {
    /// Every kind, in declaration order (the order of [`OverheadKind::index`]).
    pub const ALL: [OverheadKind; 7] = [
        OverheadKind::Release,
        OverheadKind::Schedule,
        OverheadKind::ContextSwitch,
        OverheadKind::Ipi,
        OverheadKind::Tick,
        OverheadKind::Cpmd,
        OverheadKind::ReleaseLatency,
    ];
    /// The name used in the JSON encoding (`release`, `context-switch`, ...).
    pub fn name(self) -> &'static str {
        match self {
            OverheadKind::Release => "release",
            OverheadKind::Schedule => "schedule",
            OverheadKind::ContextSwitch => "context-switch",
            OverheadKind::Ipi => "ipi",
            OverheadKind::Tick => "tick",
            OverheadKind::Cpmd => "cpmd",
            OverheadKind::ReleaseLatency => "release-latency",
        }
    }
    /// Position in [`OverheadKind::ALL`] (0..7); the binary encoding and the
    /// metrics use it.
    pub fn index(self) -> usize {
        self as usize
    }
}

impl std::fmt::Display for SwitchReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::fmt::Display for OverheadKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Event {
    /// The value of `ev` for every event kind, in declaration order.
    pub const NAMES: [&'static str; 13] = [
        "sys-release",
        "release",
        "switch-to",
        "switch-away",
        "completion",
        "block",
        "resume",
        "segment-end",
        "deadline-miss",
        "budget-exhausted",
        "overhead",
        "policy",
        "note",
    ];

    /// The event's kind as written in `ev` (`release`, `switch-to`, ...).
    pub fn name(&self) -> &'static str {
        match self {
            Event::SysRelease { .. } => "sys-release",
            Event::Release { .. } => "release",
            Event::SwitchTo { .. } => "switch-to",
            Event::SwitchAway { .. } => "switch-away",
            Event::Completion { .. } => "completion",
            Event::Block { .. } => "block",
            Event::Resume { .. } => "resume",
            Event::SegmentEnd { .. } => "segment-end",
            Event::DeadlineMiss { .. } => "deadline-miss",
            Event::BudgetExhausted { .. } => "budget-exhausted",
            Event::Overhead { .. } => "overhead",
            Event::Policy { .. } => "policy",
            Event::Note { .. } => "note",
        }
    }

    /// The event's time.
    pub fn t(&self) -> Time {
        match *self {
            Event::SysRelease { t }
            | Event::Release { t, .. }
            | Event::SwitchTo { t, .. }
            | Event::SwitchAway { t, .. }
            | Event::Completion { t, .. }
            | Event::Block { t, .. }
            | Event::Resume { t, .. }
            | Event::SegmentEnd { t, .. }
            | Event::DeadlineMiss { t, .. }
            | Event::BudgetExhausted { t, .. }
            | Event::Overhead { t, .. }
            | Event::Policy { t, .. }
            | Event::Note { t, .. } => t,
        }
    }

    /// The event's time, to change it (e.g. when a trace is mutated).
    pub fn t_mut(&mut self) -> &mut Time {
        match self {
            Event::SysRelease { t }
            | Event::Release { t, .. }
            | Event::SwitchTo { t, .. }
            | Event::SwitchAway { t, .. }
            | Event::Completion { t, .. }
            | Event::Block { t, .. }
            | Event::Resume { t, .. }
            | Event::SegmentEnd { t, .. }
            | Event::DeadlineMiss { t, .. }
            | Event::BudgetExhausted { t, .. }
            | Event::Overhead { t, .. }
            | Event::Policy { t, .. }
            | Event::Note { t, .. } => t,
        }
    }
    /// The job the event is about, if any.
    pub fn job(&self) -> Option<JobRef> {
        match *self {
            Event::Release { task, job, .. }
            | Event::SwitchTo { task, job, .. }
            | Event::SwitchAway { task, job, .. }
            | Event::Completion { task, job, .. }
            | Event::Block { task, job, .. }
            | Event::Resume { task, job, .. }
            | Event::SegmentEnd { task, job, .. }
            | Event::DeadlineMiss { task, job, .. }
            | Event::BudgetExhausted { task, job, .. } => Some(JobRef { task, job }),
            Event::Policy { ref event, .. } => event.job().map(|(task, job)| JobRef { task, job }),
            _ => None,
        }
    }
    /// The CPU the event happened on, if any.
    pub fn cpu(&self) -> Option<u32> {
        match *self {
            Event::SwitchTo { cpu, .. }
            | Event::SwitchAway { cpu, .. }
            | Event::Completion { cpu, .. }
            | Event::SegmentEnd { cpu, .. }
            | Event::Overhead { cpu, .. } => Some(cpu),
            Event::Policy { cpu, .. } | Event::Note { cpu, .. } => cpu,
            _ => None,
        }
    }

    /// A schema version 1 `policy` event as version 2 reads it: a typed
    /// policy event when its name has a fixed meaning
    /// ([`PolicyEvent::from_v1`], e.g. RUN's `server`), else a note.
    pub fn from_v1_policy(t: Time, cpu: Option<u32>, name: String, data: serde_json::Value) -> Event {
        match PolicyEvent::from_v1(&name, &data) {
            Some(event) => Event::Policy { t, cpu, event },
            None => Event::Note { t, cpu, name, data },
        }
    }
}

/// A schema version 1 `policy` event, as written: read only from version 1
/// traces.
#[derive(Debug, Deserialize)]
pub(crate) struct V1Policy {
    pub t: Time,
    #[serde(default)]
    pub cpu: Option<u32>,
    pub name: String,
    #[serde(default)]
    pub data: serde_json::Value,
}

impl V1Policy {
    pub fn into_event(self) -> Event {
        Event::from_v1_policy(self.t, self.cpu, self.name, self.data)
    }
}

/// One step of a reader's event iterator: the event, or the end, or the
/// first error — after which the iterator is done.
pub(crate) fn fuse(
    done: &mut bool,
    next: Result<Option<Event>, crate::TraceError>,
) -> Option<Result<Event, crate::TraceError>> {
    match next {
        Ok(Some(ev)) => Some(Ok(ev)),
        Ok(None) => {
            *done = true;
            None
        }
        Err(e) => {
            *done = true;
            Some(Err(e))
        }
    }
}
