//! PREM tasks for memory-centric scheduling (the `mcs` policy; Rivas et
//! al., ECRTS 2019, seed notes 002 Part A): a job is a sequence of
//! Sections, each a prefetch phase P, an execution phase E and a
//! write-back phase W, written with the ordinary segments.
//!
//! P and W are both `{memory: ..}` segments; they are told apart by
//! position: a memory segment directly followed by an execution segment is
//! the prefetch of that execution's Section, any other memory segment is
//! the write-back of the Section before it. So
//! `[{memory: 1ms}, {exec: 4ms}, {memory: 1ms}, {memory: 1ms}, {exec: 4ms}, {memory: 1ms}]`
//! is two Sections P1 E1 W1 P2 E2 W2. Consecutive execution segments are
//! one E phase (their boundaries stay preemption points). A Section may
//! lack its P or its W; two write-backs in a row, or a memory phase
//! before the first E that is not its prefetch, do not make Sections.
//!
//! Each task also has a memory priority (global scope, 1 the highest;
//! [`Task::memory_priority`]) and a mode: `smp`, the job runs its own
//! memory phases, or `amp`, a memory-phase worker on the policy's master
//! CPU runs all but the first prefetch while the job executes
//! (`docs/policies.md`, `mcs`).

use super::segment::{Segment, SegmentKind};
use crate::units::Duration;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Who runs a PREM task's memory phases.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MemoryMode {
    /// Synchronous memory phases (S-MP): the job runs each P and W itself,
    /// on its own CPU, when the memory-phase scheduler grants them.
    #[default]
    Smp,
    /// Asynchronous memory phases (A-MP): the job runs its first prefetch
    /// itself, then its E phases back to back on alternating cache
    /// sub-partitions A/B while the memory-phase worker on the master CPU
    /// prefetches the next Section and writes back the previous one.
    Amp,
}

impl MemoryMode {
    pub fn name(self) -> &'static str {
        match self {
            MemoryMode::Smp => "smp",
            MemoryMode::Amp => "amp",
        }
    }
}

/// The role of a segment in a PREM job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// A memory phase that loads a Section's data (P).
    Prefetch,
    /// An execution phase (E), on cached data.
    Exec,
    /// A memory phase that writes a Section's data back (W).
    Writeback,
    /// A self-suspension (not part of the PREM model).
    Suspend,
}

impl Role {
    pub fn name(self) -> &'static str {
        match self {
            Role::Prefetch => "prefetch",
            Role::Exec => "exec",
            Role::Writeback => "write-back",
            Role::Suspend => "suspend",
        }
    }
    /// Whether the role is a memory phase (P or W).
    pub fn is_memory(self) -> bool {
        matches!(self, Role::Prefetch | Role::Writeback)
    }
}

/// Each segment's role, by position: a memory segment directly followed by
/// an execution segment is a prefetch, any other a write-back.
pub fn roles(segments: &[Segment]) -> Vec<Role> {
    segments
        .iter()
        .enumerate()
        .map(|(j, s)| match s.kind {
            SegmentKind::Exec => Role::Exec,
            SegmentKind::Suspend => Role::Suspend,
            SegmentKind::Memory => {
                if segments.get(j + 1).is_some_and(|n| n.kind == SegmentKind::Exec) {
                    Role::Prefetch
                } else {
                    Role::Writeback
                }
            }
        })
        .collect()
}

/// One Section of a PREM job: P, E, W (a missing phase has length 0), and
/// the indices of its segments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Section {
    pub prefetch: Duration,
    pub exec: Duration,
    pub writeback: Duration,
    /// Whether the prefetch or the write-back is written `preemptible: false`.
    pub prefetch_preemptible: bool,
    pub writeback_preemptible: bool,
    /// The segments `first..=last` of the job that make the Section.
    pub first: usize,
    pub last: usize,
}

/// Why segments do not form Sections: the index of the offending segment
/// and what is wrong, with the fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotSections {
    pub segment: usize,
    pub message: String,
}

/// The Sections of a job's segments, or why they are not Sections.
pub fn sections(segments: &[Segment]) -> Result<Vec<Section>, NotSections> {
    let roles = roles(segments);
    let mut out: Vec<Section> = Vec::new();
    let mut open: Option<Section> = None;
    // The last phase seen: a W closes its Section; a second W is refused.
    let mut after_writeback = false;
    for (j, (s, r)) in segments.iter().zip(&roles).enumerate() {
        match r {
            Role::Suspend => {
                return Err(NotSections {
                    segment: j,
                    message: "a PREM job has no self-suspensions; remove the `suspend` segment, or use another policy than `mcs`".into(),
                })
            }
            Role::Prefetch => {
                if let Some(sec) = open.take() {
                    out.push(sec);
                }
                open = Some(Section {
                    prefetch: s.length,
                    exec: Duration::ZERO,
                    writeback: Duration::ZERO,
                    prefetch_preemptible: s.preemptible,
                    writeback_preemptible: true,
                    first: j,
                    last: j,
                });
                after_writeback = false;
            }
            Role::Exec => {
                match open.as_mut() {
                    // A prefetch, or the E phase going on (consecutive exec segments).
                    Some(sec) if sec.writeback.0 == 0 => {
                        sec.exec = Duration(sec.exec.0.saturating_add(s.length.0));
                        sec.last = j;
                    }
                    _ => {
                        if let Some(sec) = open.take() {
                            out.push(sec);
                        }
                        open = Some(Section {
                            prefetch: Duration::ZERO,
                            exec: s.length,
                            writeback: Duration::ZERO,
                            prefetch_preemptible: true,
                            writeback_preemptible: true,
                            first: j,
                            last: j,
                        });
                    }
                }
                after_writeback = false;
            }
            Role::Writeback => match open.as_mut() {
                Some(sec) if !after_writeback && sec.exec.0 > 0 => {
                    sec.writeback = s.length;
                    sec.writeback_preemptible = s.preemptible;
                    sec.last = j;
                    after_writeback = true;
                }
                Some(_) => {
                    return Err(NotSections {
                        segment: j,
                        message: "a second write-back in a row: a memory segment is a prefetch when an `exec` segment follows it, else the write-back of the Section before; merge the two memory segments, or put an `exec` after the second".into(),
                    })
                }
                None => {
                    return Err(NotSections {
                        segment: j,
                        message: "a memory phase before any execution that is not followed by an `exec` segment: a prefetch comes right before the execution it feeds, e.g. `[{memory: 1ms}, {exec: 4ms}]`".into(),
                    })
                }
            },
        }
    }
    if let Some(sec) = open.take() {
        out.push(sec);
    }
    Ok(out)
}

/// What an `amp` job runs and what the memory-phase worker runs for it.
/// The job runs its first prefetch (S-MP) and then the execution segments
/// of every Section, back to back; the worker runs the other prefetches and
/// every write-back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AmpPlan {
    /// The job's own segments: the first prefetch, then every `exec` segment.
    pub job: Vec<Segment>,
    /// Per own segment: the Section it belongs to (the first prefetch: 0).
    pub section_of: Vec<usize>,
    /// Per Section: its prefetch and write-back (`None`: it has none), as
    /// the worker runs them (the first prefetch is the job's).
    pub prefetch: Vec<Option<Segment>>,
    pub writeback: Vec<Option<Segment>>,
}

/// The A-MP plan of a job's segments; `None` when they are not Sections or
/// the first Section has no prefetch.
pub fn amp_plan(segments: &[Segment]) -> Option<AmpPlan> {
    let secs = sections(segments).ok()?;
    if secs.first()?.prefetch.0 == 0 {
        return None;
    }
    let roles = roles(segments);
    let mut plan = AmpPlan { job: Vec::new(), section_of: Vec::new(), prefetch: Vec::new(), writeback: Vec::new() };
    for (k, sec) in secs.iter().enumerate() {
        let mut p = None;
        let mut w = None;
        for j in sec.first..=sec.last {
            match roles[j] {
                Role::Prefetch if k == 0 => {
                    plan.job.push(segments[j]);
                    plan.section_of.push(0);
                }
                Role::Prefetch => p = Some(segments[j]),
                Role::Writeback => w = Some(segments[j]),
                Role::Exec => {
                    plan.job.push(segments[j]);
                    plan.section_of.push(k);
                }
                Role::Suspend => return None,
            }
        }
        plan.prefetch.push(p);
        plan.writeback.push(w);
    }
    Some(plan)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mem(ns: u64) -> Segment {
        Segment::memory(Duration(ns))
    }
    fn exec(ns: u64) -> Segment {
        Segment::exec(Duration(ns))
    }

    #[test]
    fn memory_segments_are_prefetches_before_exec_and_write_backs_after() {
        let s = [mem(1), exec(4), mem(2), mem(3), exec(5), exec(6), mem(7)];
        assert_eq!(
            roles(&s),
            [Role::Prefetch, Role::Exec, Role::Writeback, Role::Prefetch, Role::Exec, Role::Exec, Role::Writeback]
        );
        let secs = sections(&s).unwrap();
        assert_eq!(secs.len(), 2);
        assert_eq!((secs[0].prefetch.0, secs[0].exec.0, secs[0].writeback.0), (1, 4, 2));
        assert_eq!((secs[0].first, secs[0].last), (0, 2));
        assert_eq!((secs[1].prefetch.0, secs[1].exec.0, secs[1].writeback.0), (3, 11, 7));
        assert_eq!((secs[1].first, secs[1].last), (3, 6));
    }

    #[test]
    fn an_amp_job_runs_its_first_prefetch_and_its_executions() {
        let s = [mem(1), exec(4), mem(2), mem(3), exec(5), exec(6), mem(7)];
        let p = amp_plan(&s).unwrap();
        assert_eq!(p.job, [mem(1), exec(4), exec(5), exec(6)]);
        assert_eq!(p.section_of, [0, 0, 1, 1]);
        assert_eq!(p.prefetch, [None, Some(mem(3))]);
        assert_eq!(p.writeback, [Some(mem(2)), Some(mem(7))]);
        assert_eq!(amp_plan(&[exec(4), mem(1)]), None, "no first prefetch");
    }

    #[test]
    fn sections_may_lack_a_phase() {
        // E W | P E: no first prefetch, no last write-back.
        let secs = sections(&[exec(4), mem(2), mem(3), exec(5)]).unwrap();
        assert_eq!(secs.len(), 2);
        assert_eq!((secs[0].prefetch.0, secs[0].writeback.0), (0, 2));
        assert_eq!((secs[1].prefetch.0, secs[1].writeback.0), (3, 0));
        // A plain execution is one Section without memory phases.
        assert_eq!(sections(&[exec(4)]).unwrap().len(), 1);
    }

    #[test]
    fn what_is_not_sections_is_refused_at_its_segment() {
        let e = sections(&[mem(1), exec(4), mem(2), mem(3), mem(4), exec(1)]).unwrap_err();
        assert_eq!(e.segment, 3);
        assert!(e.message.contains("second write-back"), "{}", e.message);
        let e = sections(&[mem(1)]).unwrap_err();
        assert_eq!(e.segment, 0);
        let s = Segment { kind: SegmentKind::Suspend, length: Duration(1), preemptible: true };
        assert_eq!(sections(&[exec(1), s]).unwrap_err().segment, 1);
    }
}
