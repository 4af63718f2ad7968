//! Segment demands: what each segment of a job actually takes. A task with
//! `segments` or `subjobs` draws them from a stream of its own
//! ([`Purpose::Segments`]), so the streams of tasks without segments — and
//! every simulation of a spec without segments — are unchanged; a task
//! without them has one execution segment whose demand is the job's usual
//! draw from the execution stream.
//!
//! Per job, with W the CPU total of the segments (= the task's WCET):
//! - `wcet`: every segment at its length;
//! - `uniform`: each CPU segment (exec, memory) a uniform integer in
//!   [⌈length × BCET / W⌉, length] — its share of the BCET up to its length,
//!   so the job's total stays in [BCET, WCET] — and each suspension a
//!   uniform integer in [0, length] (a suspension has only an upper bound);
//! - `fraction:F`, or an `executions` list: the job's total CPU time
//!   (round(F × W), or the list's entry) is split over the CPU segments in
//!   proportion to their lengths, exactly (cumulative rounding), and each
//!   suspension takes its length (these modes describe execution, not
//!   suspension); under `uniform` with a list, suspensions are still drawn.
//!
//! A CPU segment's demand is at least 1 ns, so every segment boundary (every
//! preemption point) is reached; a suspension may be 0.

use crate::execution::Whole;
use crate::options::Execution;
use crate::streams::{stream, Purpose};
use schedlab_model::rng::Rng;
use schedlab_model::{Segment, SegmentKind, Task};

type Time = u64;

/// One segment of one job: what it is, how long it actually takes (CPU time
/// for exec and memory, wall-clock time for a suspension), and whether it
/// may be preempted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SegmentDemand {
    pub kind: SegmentKind,
    pub demand: Time,
    pub preemptible: bool,
}

/// The segment demands of one task's released jobs, in order. Drawing
/// allocates nothing: [`next_job`](Self::next_job) fills a buffer sized at
/// construction, [`draw_into`](Self::draw_into) a caller's buffer once it
/// holds [`segments_per_job`](Self::segments_per_job) entries.
#[derive(Debug, Clone)]
pub struct SegmentDemands {
    source: Source,
    per_job: usize,
    buf: Vec<SegmentDemand>,
}

#[derive(Debug, Clone)]
enum Source {
    /// No segments: one preemptible execution segment.
    Whole(Whole),
    Split(Split),
}

#[derive(Debug, Clone)]
struct Split {
    segments: Vec<Segment>,
    /// W: the CPU total of the segments.
    cpu: Time,
    /// The BCET, at most W.
    bcet: Time,
    model: Execution,
    list: Option<Vec<Time>>,
    next: usize,
    rng: Rng,
}

impl SegmentDemands {
    pub(crate) fn new(task: &Task, index: usize, seed: u64, model: Execution) -> SegmentDemands {
        let source = if task.segmented() {
            let segments = task.job_segments().into_owned();
            let cpu = segments.iter().filter(|s| s.kind.on_cpu()).fold(0u64, |a, s| a.saturating_add(s.length.0));
            Source::Split(Split {
                bcet: task.bcet.map_or(cpu, |b| b.0.min(cpu)),
                cpu,
                segments,
                model,
                list: task.executions.as_ref().filter(|l| !l.is_empty()).map(|l| l.iter().map(|d| d.0).collect()),
                next: 0,
                rng: stream(seed, Purpose::Segments, index),
            })
        } else {
            Source::Whole(Whole::new(task, index, seed, model))
        };
        let n = match &source {
            Source::Whole(_) => 1,
            Source::Split(s) => s.segments.len(),
        };
        SegmentDemands { source, per_job: n, buf: Vec::with_capacity(n) }
    }

    /// How many segments every job of the task has (1 without segments).
    pub fn segments_per_job(&self) -> usize {
        self.per_job
    }

    /// The next job's segments, in order.
    pub fn next_job(&mut self) -> &[SegmentDemand] {
        let mut buf = std::mem::take(&mut self.buf);
        self.draw_into(&mut buf);
        self.buf = buf;
        &self.buf
    }

    /// Writes the next job's segments, in order, into `out` (cleared first).
    pub fn draw_into(&mut self, out: &mut Vec<SegmentDemand>) {
        out.clear();
        match &mut self.source {
            Source::Whole(w) => {
                out.push(SegmentDemand { kind: SegmentKind::Exec, demand: w.draw(), preemptible: true })
            }
            Source::Split(s) => s.draw(out),
        }
    }

    /// The next job's total CPU time (what [`crate::Demands`] hands out).
    pub(crate) fn next_total(&mut self) -> Time {
        match &mut self.source {
            Source::Whole(w) => w.draw(),
            Source::Split(_) => {
                self.next_job().iter().filter(|s| s.kind.on_cpu()).fold(0u64, |a, s| a.saturating_add(s.demand))
            }
        }
    }
}

impl Split {
    fn draw(&mut self, out: &mut Vec<SegmentDemand>) {
        let total = match (&self.list, self.model) {
            (Some(l), _) => {
                let v = l[self.next];
                self.next = (self.next + 1) % l.len();
                Some(v)
            }
            (None, Execution::Fraction(f)) => Some((self.cpu as f64 * f).round() as u64),
            (None, _) => None,
        };
        let uniform = self.model == Execution::Uniform;
        let w = self.cpu.max(1) as u128;
        // Cumulative rounding: the CPU segments' shares of `total` add up to it.
        let (mut cum, mut given) = (0u128, 0u128);
        for s in &self.segments {
            let len = s.length.0;
            let demand = if s.kind.on_cpu() {
                let d = match total {
                    Some(t) => {
                        cum += len as u128;
                        let upto = cum * t as u128 / w;
                        let d = upto - given;
                        given = upto;
                        d as u64
                    }
                    None if uniform => {
                        let lo = (len as u128 * self.bcet as u128).div_ceil(w) as u64;
                        self.rng.range_u64(lo.min(len), len)
                    }
                    None => len,
                };
                d.max(1)
            } else if uniform {
                self.rng.range_u64(0, len)
            } else {
                len
            };
            out.push(SegmentDemand { kind: s.kind, demand, preemptible: s.preemptible });
        }
    }
}
