//! EDF: G-EDF, P-EDF, C-EDF and NP-G-EDF (Liu & Layland 1973; the
//! multiprocessor variants as in Calandrino 2009 §2.1 and the EPOS thesis
//! §2.3; LITMUS^RT's GSN-EDF, PSN-EDF and C-EDF plugins).
//!
//! Priority (job-level fixed): the absolute deadline, earlier first; ties to
//! the lower task index. (At most one job per task is eligible, so the
//! release never needs to break a tie.)

use crate::interface::{Conformance, Job, JobView, Priority, Time};
use crate::order::{rank_u128, Order};

/// The EDF order, preemptive or not (NP-G-EDF: a started job runs to
/// completion; only CPUs that fall idle take the most urgent waiting job).
pub(crate) struct Edf {
    pub preemptive: bool,
}

fn key(deadline: Time, task: u32) -> Priority {
    Priority::new(deadline as i128, 0, task)
}

/// The scheduler's key: (deadline + 1, task) packed in a `u128`, ordered as
/// [`key`]; 0 is below every job's key.
#[inline]
fn packed(deadline: Time, task: u32) -> u128 {
    (deadline as u128 + 1) << 32 | task as u128
}

impl Order for Edf {
    type Key = u128;
    const USES_CONSUMED: bool = false;
    const USES_NOW: bool = false;
    const COMMITTED: u128 = 0;
    type Rank = u128;
    type Ready = crate::heap::IndexedHeap<Self::Key>;
    fn ready_queue(&self, tasks: &[u32]) -> Self::Ready {
        crate::heap::IndexedHeap::new(tasks.len())
    }
    type SmallReady = crate::flat_min::FlatMin<Self::Key>;
    fn small_ready_queue(&self, tasks: &[u32]) -> Self::SmallReady {
        crate::flat_min::FlatMin::new(tasks.len(), 0)
    }
    #[inline]
    fn rank(key: Option<u128>) -> u128 {
        rank_u128(key)
    }
    #[inline]
    fn waiting(&self, job: &Job, _consumed: Time, _now: Time) -> u128 {
        packed(job.deadline, job.id.task)
    }
    #[inline]
    fn running(&self, job: &Job, _consumed: Time, _now: Time) -> u128 {
        packed(job.deadline, job.id.task)
    }
    #[inline]
    fn displaces(&self, w: &u128, r: &u128, _now: Time) -> bool {
        // Non-preemptive too: a linked job that has not started yet may be
        // displaced; started jobs carry a key nothing beats (see Domain::schedule).
        w < r
    }
    fn priority(&self, view: &JobView) -> Priority {
        key(view.deadline, view.id.task)
    }
    fn conformance(&self) -> Conformance {
        Conformance::PriorityDriven { preemptive: self.preemptive, work_conserving: true, hysteresis: 0 }
    }
}
