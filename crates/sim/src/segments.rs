//! A job's segments as the simulator runs them: its CPU segments (execution
//! and memory phases) in order, with a preemption point reported to the
//! policy at each boundary (`Policy::segment_end`, through the driver) and a
//! `segment-end` trace event; a suspension segment takes the job off its
//! CPU for its length (block, then resume, through the driver).
//!
//! Each job's segment demands come from the job model
//! (`schedlab_jobs::SegmentDemands`, the same draws the runtime makes): they
//! are drawn when the job arrives, wait with it while it is held behind its
//! predecessor, and become the active job's when the policy gets it. A task
//! without declared segments has one execution segment and draws its demand
//! as before (no extra queue entry, no extra event).

use schedlab_jobs::{JobModel, SegmentDemand, SegmentDemands};
use schedlab_model::{SegmentKind, Task};
use schedlab_policy::Time;
use std::collections::VecDeque;

/// A segmented task's jobs' segments.
#[derive(Debug)]
pub(crate) struct Segments {
    draw: SegmentDemands,
    per_job: usize,
    /// The segments of the jobs drawn and not yet active, oldest first
    /// (`per_job` entries each).
    waiting: VecDeque<SegmentDemand>,
    /// The active job's segments.
    active: Vec<SegmentDemand>,
    /// Per segment of the active job: its CPU demand up to and including it.
    upto: Vec<Time>,
    scratch: Vec<SegmentDemand>,
}

impl Segments {
    /// The task's segments, or `None` when it declares none.
    pub fn of(jobs: &JobModel, task: &Task, index: usize) -> Option<Segments> {
        if !task.segmented() {
            return None;
        }
        let draw = jobs.segment_demands(task, index);
        let n = draw.segments_per_job();
        Some(Segments {
            draw,
            per_job: n,
            waiting: VecDeque::with_capacity(4 * n),
            active: Vec::with_capacity(n),
            upto: Vec::with_capacity(n),
            scratch: Vec::with_capacity(n),
        })
    }

    /// Draws the segments of a job that arrives; returns its CPU demand.
    pub fn arrive(&mut self) -> Time {
        self.draw.draw_into(&mut self.scratch);
        self.waiting.extend(self.scratch.iter().copied());
        self.scratch.iter().filter(|s| s.kind.on_cpu()).fold(0, |a, s| a.saturating_add(s.demand))
    }

    /// The oldest waiting job becomes the active one.
    pub fn activate(&mut self) {
        self.active.clear();
        self.upto.clear();
        let mut acc: Time = 0;
        for _ in 0..self.per_job {
            let s = self.waiting.pop_front().expect("a job's segments were drawn at its arrival");
            if s.kind.on_cpu() {
                acc = acc.saturating_add(s.demand);
            }
            self.active.push(s);
            self.upto.push(acc);
        }
    }

    /// The oldest waiting job is dropped (aborted before the policy got it).
    pub fn drop_oldest(&mut self) {
        let n = self.per_job.min(self.waiting.len());
        self.waiting.drain(..n);
    }

    /// The index of the last segment.
    #[inline]
    pub fn last(&self) -> u32 {
        self.per_job as u32 - 1
    }

    /// The kind of the active job's segment `seg`.
    #[inline]
    pub fn kind(&self, seg: u32) -> SegmentKind {
        self.active[seg as usize].kind
    }

    /// The active job's consumed execution when its segment `seg` ends.
    #[inline]
    pub fn until(&self, seg: u32) -> Time {
        self.upto[seg as usize]
    }

    /// How long the active job's suspension segment `seg` lasts.
    #[inline]
    pub fn suspension(&self, seg: u32) -> Time {
        self.active[seg as usize].demand
    }

    /// Capacity of the collections (memory tests).
    pub fn capacity(&self) -> usize {
        self.waiting.capacity() + self.active.capacity() + self.upto.capacity() + self.scratch.capacity()
    }
}
