//! The segments of a task's jobs: an ordered list of execution phases,
//! memory phases and self-suspensions, each with its worst-case length.
//! Every job of the task runs them in order. A boundary between two
//! segments is a preemption point for the deferred-preemption policies
//! (`fpds`, `g-fpds`); a segment with `preemptible: false` is a
//! non-preemptive region under every policy.
//!
//! In a spec, a segment is a map with exactly one length key:
//! `{exec: 2ms}`, `{memory: 300us}` or `{suspend: 1ms}`, and optionally
//! `preemptible: false`. A task's `subjobs: [1ms, 2ms]` is short for
//! `segments: [{exec: 1ms}, {exec: 2ms}]`.

use crate::units::Duration;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What a segment does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SegmentKind {
    /// Executes on a CPU.
    Exec,
    /// A memory phase: on a CPU, moving the job's data between memory and
    /// the cache (prefetch or write-back).
    Memory,
    /// A self-suspension: off the CPU (waiting for I/O, a timer, another
    /// processor).
    Suspend,
}

impl SegmentKind {
    pub fn name(self) -> &'static str {
        match self {
            SegmentKind::Exec => "exec",
            SegmentKind::Memory => "memory",
            SegmentKind::Suspend => "suspend",
        }
    }
    /// Whether the segment needs a CPU (execution and memory phases do).
    pub fn on_cpu(self) -> bool {
        !matches!(self, SegmentKind::Suspend)
    }
}

/// One segment of a job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(try_from = "SegmentSyntax", into = "SegmentSyntax")]
#[schemars(with = "SegmentSyntax")]
pub struct Segment {
    pub kind: SegmentKind,
    /// Worst-case length: CPU time for `exec` and `memory`, wall-clock
    /// time for `suspend`.
    pub length: Duration,
    /// `false`: the job is not preempted during this segment.
    pub preemptible: bool,
}

impl Segment {
    pub fn exec(length: Duration) -> Segment {
        Segment { kind: SegmentKind::Exec, length, preemptible: true }
    }
    pub fn memory(length: Duration) -> Segment {
        Segment { kind: SegmentKind::Memory, length, preemptible: true }
    }
}

/// The schema of a segment holds exactly one of the length keys.
fn one_kind(schema: &mut schemars::Schema) {
    schema.insert(
        "oneOf".into(),
        serde_json::json!([{"required": ["exec"]}, {"required": ["memory"]}, {"required": ["suspend"]}]),
    );
}

/// A segment as written: exactly one of `exec`, `memory`, `suspend`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "segment", transform = one_kind)]
struct SegmentSyntax {
    /// An execution phase of this worst-case length, e.g. `2ms`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    exec: Option<Duration>,
    /// A memory phase of this worst-case length, e.g. `300us`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    memory: Option<Duration>,
    /// A self-suspension of at most this long, e.g. `1ms`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    suspend: Option<Duration>,
    /// `false`: a non-preemptive region; default `true`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    preemptible: Option<bool>,
}

impl TryFrom<SegmentSyntax> for Segment {
    type Error = String;
    fn try_from(s: SegmentSyntax) -> Result<Segment, String> {
        let given: Vec<(SegmentKind, Duration)> =
            [(SegmentKind::Exec, s.exec), (SegmentKind::Memory, s.memory), (SegmentKind::Suspend, s.suspend)]
                .into_iter()
                .filter_map(|(k, d)| d.map(|d| (k, d)))
                .collect();
        match given[..] {
            [(kind, length)] => Ok(Segment { kind, length, preemptible: s.preemptible.unwrap_or(true) }),
            [] => Err("a segment needs one of `exec`, `memory` or `suspend` with its length, e.g. `{exec: 2ms}`".into()),
            _ => Err(format!(
                "a segment has one kind, got {}: split it into one segment per kind, e.g. `[{{memory: 300us}}, {{exec: 2ms}}]`",
                given.iter().map(|(k, _)| format!("`{}`", k.name())).collect::<Vec<_>>().join(" and ")
            )),
        }
    }
}

impl From<Segment> for SegmentSyntax {
    fn from(s: Segment) -> SegmentSyntax {
        let mut out = SegmentSyntax { preemptible: (!s.preemptible).then_some(false), ..SegmentSyntax::default() };
        match s.kind {
            SegmentKind::Exec => out.exec = Some(s.length),
            SegmentKind::Memory => out.memory = Some(s.length),
            SegmentKind::Suspend => out.suspend = Some(s.length),
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load_str;

    fn task(fields: &str) -> Result<crate::Task, String> {
        let yaml = format!("platform: {{cpus: 1}}\npolicy: {{name: pfp}}\ntasks:\n  - {{name: a, wcet: 3ms, period: 10ms, {fields}}}\n");
        load_str(&yaml, None, "t.yaml").map(|l| l.spec.tasks[0].clone()).map_err(|e| e.to_string())
    }

    #[test]
    fn segments_and_subjobs_parse_into_one_list() {
        let t = task("segments: [{memory: 300us}, {exec: 2.4ms, preemptible: false}, {suspend: 1ms}, {memory: 300us}]")
            .unwrap();
        let s = t.segments();
        assert_eq!(
            s.iter().map(|s| s.kind).collect::<Vec<_>>(),
            [SegmentKind::Memory, SegmentKind::Exec, SegmentKind::Suspend, SegmentKind::Memory]
        );
        assert_eq!(s[1], Segment { kind: SegmentKind::Exec, length: Duration(2_400_000), preemptible: false });
        assert!(s[0].preemptible);
        let t = task("subjobs: [1ms, 1.5ms, 0.5ms]").unwrap();
        assert_eq!(t.segments().iter().map(|s| s.length.0).collect::<Vec<_>>(), [1_000_000, 1_500_000, 500_000]);
        assert!(t.segmented());
        let plain = task("").unwrap();
        assert!(!plain.segmented());
        assert_eq!(&plain.segments()[..], &[Segment::exec(Duration(3_000_000))]);
    }

    #[test]
    fn a_segment_has_exactly_one_kind() {
        let e = task("segments: [{exec: 1ms, memory: 2ms}]").unwrap_err();
        assert!(e.contains("one kind") && e.contains("`exec` and `memory`"), "{e}");
        let e = task("segments: [{preemptible: false}]").unwrap_err();
        assert!(e.contains("one of `exec`, `memory` or `suspend`"), "{e}");
    }

    #[test]
    fn a_segment_writes_back_as_it_was_written() {
        let t = task("segments: [{exec: 3ms, preemptible: false}, {suspend: 1ms}]").unwrap();
        let json = serde_json::to_string(&t.segments).unwrap();
        assert_eq!(json, r#"[{"exec":"3ms","preemptible":false},{"suspend":"1ms"}]"#);
    }
}
