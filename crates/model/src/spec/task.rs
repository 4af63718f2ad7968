//! A sporadic real-time task.

use super::prem::MemoryMode;
use super::segment::{Segment, SegmentKind};
use crate::units::{ColorSet, Duration, Ratio, Size};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// Criticality class of a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Class {
    /// Hard real-time: every deadline must be met.
    #[default]
    Hrt,
    /// Soft real-time: bounded tardiness is acceptable.
    Srt,
    /// Best effort: no timing guarantee.
    Be,
}

impl Class {
    pub fn name(self) -> &'static str {
        match self {
            Class::Hrt => "hrt",
            Class::Srt => "srt",
            Class::Be => "be",
        }
    }
}

fn is_zero(d: &Duration) -> bool {
    d.0 == 0
}
fn is_hrt(c: &Class) -> bool {
    *c == Class::Hrt
}

/// The schema of a task needs `wcet` unless `segments` or `subjobs` give
/// it, and takes at most one of those two (the loader derives it; the field's serde default is no real default).
fn wcet_or_segments(schema: &mut schemars::Schema) {
    if let Some(wcet) = schema.get_mut("properties").and_then(|p| p.get_mut("wcet")).and_then(|w| w.as_object_mut()) {
        wcet.remove("default");
    }
    schema.insert(
        "anyOf".into(),
        serde_json::json!([{"required": ["wcet"]}, {"required": ["segments"]}, {"required": ["subjobs"]}]),
    );
    schema.insert("not".into(), serde_json::json!({"required": ["segments", "subjobs"]}));
}

/// A periodic or sporadic task: a job every `period` (at least), each needing
/// at most `wcet` of CPU time before its `deadline` after release.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = wcet_or_segments)]
pub struct Task {
    /// Unique name.
    pub name: String,
    /// Worst-case execution time of one job, e.g. `2ms`. Required, except
    /// with `segments` or `subjobs`: then it is their CPU total (exec and
    /// memory lengths), which a given `wcet` must equal.
    #[serde(default)]
    pub wcet: Duration,
    /// Period, or minimum inter-arrival time, e.g. `10ms`.
    pub period: Duration,
    /// Best-case execution time, the lower end of simulated execution-time
    /// distributions; default: the WCET.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bcet: Option<Duration>,
    /// Actual execution times of successive jobs for simulation and runs,
    /// repeated cyclically, e.g. `[2ms, 1.5ms, 1ms]`; overrides execution-time models.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub executions: Option<Vec<Duration>>,
    /// Relative deadline; default: the period (implicit deadline).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline: Option<Duration>,
    /// Fixed priority; given on every task, it means explicit priorities
    /// (some tasks only is an error). 1 is the highest priority, larger
    /// numbers are lower priorities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<u32>,
    /// Pin the task to this CPU (partitioned policies, affinity).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<u32>,
    /// Pin the task to this cluster (index into `platform.clusters`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster: Option<u32>,
    /// Release time of the first job; default 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub offset: Duration,
    /// Maximum release jitter; default 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub jitter: Duration,
    /// Working-set size, for cache models, e.g. `256KiB`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wss: Option<Size>,
    /// Cache colours the task's memory comes from, e.g. `[0-15, 32]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub colors: Option<ColorSet>,
    /// Fraction of the task's memory accesses that are writes, e.g. `0.2` or
    /// `20%`; other CPUs reading lines of its `data_group` then miss on
    /// them (coherence). Default 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_ratio: Option<Ratio>,
    /// Shared-data group: tasks naming the same group read and write the
    /// same lines (their working sets are the group's data), e.g. `g0`.
    /// Default: the task shares no data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_group: Option<String>,
    /// `hrt` (default), `srt` or `be`.
    #[serde(default, skip_serializing_if = "is_hrt")]
    pub class: Class,
    /// The segments every job runs in order (execution, memory phases,
    /// self-suspensions; see `docs/spec.md`). Their CPU lengths add up to
    /// the WCET. Default: one execution segment of the WCET.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub segments: Option<Vec<Segment>>,
    /// Short form of `segments` for deferred preemption: the execution
    /// lengths of the subjobs, with a preemption point between two, e.g.
    /// `[1ms, 2ms, 0.5ms]` (the last is the final non-preemptive region).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subjobs: Option<Vec<Duration>>,
    /// Memory-centric scheduling (`mcs`): the priority of the task's memory
    /// phases, global across CPUs; 1 is the highest, equal values are
    /// served first come, first served. Given on every task or none;
    /// default: the order of the task priorities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_priority: Option<u32>,
    /// Memory-centric scheduling (`mcs`): `smp` (default), the job runs its
    /// memory phases itself; `amp`, the memory-phase worker on the master
    /// CPU runs all but its first prefetch while it executes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_mode: Option<MemoryMode>,
}

impl Task {
    /// A task with an implicit deadline and every optional field unset.
    pub fn new(name: impl Into<String>, wcet: Duration, period: Duration) -> Task {
        Task {
            name: name.into(),
            wcet,
            period,
            bcet: None,
            executions: None,
            deadline: None,
            priority: None,
            cpu: None,
            cluster: None,
            offset: Duration::ZERO,
            jitter: Duration::ZERO,
            wss: None,
            colors: None,
            write_ratio: None,
            data_group: None,
            class: Class::Hrt,
            segments: None,
            subjobs: None,
            memory_priority: None,
            memory_mode: None,
        }
    }
    /// The segments of each job: `segments`, or `subjobs` as execution
    /// segments, or one execution segment of the WCET.
    pub fn segments(&self) -> Cow<'_, [Segment]> {
        match (&self.segments, &self.subjobs) {
            (Some(s), _) => Cow::Borrowed(s),
            (None, Some(j)) => Cow::Owned(j.iter().map(|&d| Segment::exec(d)).collect()),
            (None, None) => Cow::Owned(vec![Segment::exec(self.wcet)]),
        }
    }
    /// Per segment: whether it is a non-preemptive region (`preemptible:
    /// false`) and whether it is a self-suspension.
    pub fn segment_flags(&self) -> (Vec<bool>, Vec<bool>) {
        self.segments().iter().map(|g| (!g.preemptible, g.kind == SegmentKind::Suspend)).unzip()
    }
    /// The segments each job runs itself: [`Task::segments`], except for
    /// an `amp` task (memory-centric scheduling), whose job runs its first
    /// prefetch and its execution segments while the memory-phase worker
    /// runs its other memory phases ([`super::prem::amp_plan`]).
    pub fn job_segments(&self) -> Cow<'_, [Segment]> {
        if self.memory_mode() == MemoryMode::Amp {
            if let Some(plan) = super::prem::amp_plan(&self.segments()) {
                return Cow::Owned(plan.job);
            }
        }
        self.segments()
    }
    /// Per segment of [`Task::job_segments`]: whether it is a memory phase
    /// and whether it is a non-preemptive one (`preemptible: false`, or
    /// every memory phase when the policy's `memory_preemption` is `false`).
    pub fn memory_phase_flags(&self, memory_preemption: Option<bool>) -> Vec<(bool, bool)> {
        let all_np = memory_preemption == Some(false);
        self.job_segments()
            .iter()
            .map(|s| {
                let m = s.kind == SegmentKind::Memory;
                (m, m && (all_np || !s.preemptible))
            })
            .collect()
    }
    /// Whether the task declares segments or subjobs.
    pub fn segmented(&self) -> bool {
        self.segments.is_some() || self.subjobs.is_some()
    }
    /// The CPU time of the declared segments or subjobs (exec and memory
    /// lengths added; suspensions are off the CPU), exactly; `None` for a
    /// task without them.
    pub fn segments_cpu(&self) -> Option<u128> {
        self.segmented().then(|| self.segments().iter().filter(|s| s.kind.on_cpu()).map(|s| s.length.0 as u128).sum())
    }
    /// The longest a job can take apart from waiting for a CPU: every
    /// segment at its length, suspensions included, exactly.
    pub fn segments_span(&self) -> u128 {
        self.segments().iter().map(|s| s.length.0 as u128).sum()
    }
    /// The memory mode in force (`smp` when none is given).
    pub fn memory_mode(&self) -> MemoryMode {
        self.memory_mode.unwrap_or_default()
    }
    /// The best-case execution time in force (the WCET when none is given).
    pub fn bcet(&self) -> Duration {
        self.bcet.unwrap_or(self.wcet)
    }
    /// The relative deadline in force (the period when none is given).
    pub fn deadline(&self) -> Duration {
        self.deadline.unwrap_or(self.period)
    }
    /// The write ratio in force (0 when none is given).
    pub fn write_ratio(&self) -> Ratio {
        self.write_ratio.unwrap_or(Ratio::ZERO)
    }
    /// wcet / period, for reporting (exact comparisons use integers).
    pub fn utilization(&self) -> f64 {
        self.wcet.0 as f64 / self.period.0 as f64
    }
    /// wcet / min(deadline, period), for reporting.
    pub fn density(&self) -> f64 {
        self.wcet.0 as f64 / self.deadline().min(self.period).0 as f64
    }
}
