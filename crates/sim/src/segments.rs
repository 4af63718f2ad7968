//! A job's segments as the simulator runs them: its CPU segments (execution
//! and memory phases) in order, with a preemption point reported to the
//! policy at each boundary (`Policy::segment_end`, through the driver) and a
//! `segment-end` trace event; a suspension segment takes the job off its
//! CPU for the segment's length (block, then resume, through the driver).
//!
//! A task without declared segments has one execution segment, and its
//! jobs run exactly as before segments existed (no extra queue entry, no
//! extra event).

use schedlab_model::{Segment, SegmentKind, Task};
use schedlab_policy::Time;

/// A task's segments with what the simulator needs of them precomputed.
#[derive(Debug, Clone)]
pub(crate) struct Segments {
    pub list: Box<[Segment]>,
    /// Per segment: the worst-case CPU time of the segments up to and
    /// including it (suspensions add nothing).
    cpu_upto: Box<[Time]>,
}

impl Segments {
    pub fn of(task: &Task) -> Segments {
        let list: Box<[Segment]> = task.segments().iter().copied().collect();
        let mut acc = 0u64;
        let cpu_upto = list
            .iter()
            .map(|s| {
                if s.kind.on_cpu() {
                    acc = acc.saturating_add(s.length.0);
                }
                acc
            })
            .collect();
        Segments { list, cpu_upto }
    }

    /// The index of the last segment.
    #[inline]
    pub fn last(&self) -> u32 {
        self.list.len() as u32 - 1
    }

    #[inline]
    pub fn kind(&self, seg: u32) -> SegmentKind {
        self.list[seg as usize].kind
    }

    /// The execution a job with actual execution time `exec` has consumed
    /// when its segment `seg` ends (for a suspension: when it starts and
    /// ends; for the last CPU segment: `exec`).
    ///
    /// Until the job model draws a demand per segment, a job's drawn demand
    /// is split over its CPU segments in proportion to their worst-case
    /// lengths (to be replaced by the per-segment demands of `schedlab-jobs`).
    #[inline]
    pub fn until(&self, seg: u32, exec: Time) -> Time {
        let total = *self.cpu_upto.last().expect("a task has a segment");
        let upto = self.cpu_upto[seg as usize];
        if upto >= total || total == 0 {
            return exec;
        }
        (exec as u128 * upto as u128 / total as u128) as Time
    }

    /// How long suspension segment `seg` lasts: its worst-case length (until
    /// the job model draws suspension lengths).
    #[inline]
    pub fn suspension(&self, seg: u32) -> Time {
        self.list[seg as usize].length.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_model::Duration;

    fn task(segments: Vec<Segment>) -> Task {
        let mut t = Task::new("a", Duration(6), Duration(10));
        t.segments = Some(segments);
        t
    }

    #[test]
    fn the_demand_splits_in_proportion_and_ends_exactly_at_exec() {
        let s = Segments::of(&task(vec![
            Segment::exec(Duration(2)),
            Segment { kind: SegmentKind::Suspend, length: Duration(5), preemptible: true },
            Segment::exec(Duration(4)),
        ]));
        assert_eq!((s.until(0, 6), s.until(1, 6), s.until(2, 6)), (2, 2, 6));
        assert_eq!((s.until(0, 3), s.until(2, 3)), (1, 3));
        assert_eq!(s.suspension(1), 5);
        assert_eq!(s.last(), 2);
        let one = Segments::of(&Task::new("b", Duration(6), Duration(10)));
        assert_eq!((one.last(), one.until(0, 4)), (0, 4));
    }
}
