//! LLF: least laxity first, global (`llf`) and partitioned (`pllf`)
//! (Mok 1983; the EPOS thesis §2.2 with the absolute deadline, its §9 item 2).
//!
//! The laxity of a job at t is d − t − (e − c(t)): absolute deadline d, WCET
//! e, execution consumed c(t) (from [`crate::interface::Kernel::consumed`]).
//! Smaller laxity is more urgent; ties to the lower task index. It may be
//! negative (the job will miss), and it uses e − c(t) without clamping, so a
//! job that overruns its WCET gains laxity while it runs.
//!
//! A waiting job's laxity falls by 1 per ns; a running job's stays constant.
//! So in the domain scheduler a waiting job is keyed by d − e + c (its
//! laxity plus now, constant while it waits) and a running one by its
//! laxity (constant while it runs), and a single timer per domain fires at
//! the first instant the most urgent waiting job would displace the least
//! urgent running one.
//!
//! # Rule against laxity-tie thrashing
//!
//! Strict LLF switches back and forth between two jobs of equal laxity as
//! soon as the waiting one's laxity drops below the running one's, i.e.
//! every nanosecond or two in integer time. Here a waiting job w displaces a
//! running job r only when
//!
//! ```text
//!     (laxity(w) + Δ, task(w)) < (laxity(r), task(r))      (lexicographic)
//! ```
//!
//! i.e. when w's laxity is smaller by more than the hysteresis Δ (by exactly
//! Δ, the lower task index wins). Idle CPUs always take the most urgent
//! waiting job (work-conserving). Two jobs of tied laxity then alternate at
//! most once per 2Δ + 2 ns, and a waiting job can be kept waiting until its
//! laxity is Δ below the running one's. Δ is declared to the validator as
//! [`Conformance::PriorityDriven`]'s `hysteresis`. The default,
//! [`DEFAULT_LLF_HYSTERESIS`] = 100 µs, is justified in `docs/policies.md`.

use crate::interface::{Conformance, Job, JobView, Priority, Time};
use crate::order::{laxity, Order};

/// The default hysteresis Δ of LLF: 100 µs.
pub const DEFAULT_LLF_HYSTERESIS: Time = 100_000;

pub(crate) struct Llf {
    pub wcet: Vec<Time>,
    pub hysteresis: Time,
}

impl Llf {
    fn wcet(&self, task: u32) -> Time {
        self.wcet.get(task as usize).copied().unwrap_or(0)
    }
}

impl Order for Llf {
    type Key = Priority;
    const USES_CONSUMED: bool = true;
    const COMMITTED: Priority = Priority { major: i128::MIN, minor: i128::MIN, tie: 0 };
    type Rank = (bool, std::cmp::Reverse<Priority>);
    type Ready = crate::heap::IndexedHeap<Self::Key>;
    fn ready_queue(&self, tasks: &[u32]) -> Self::Ready {
        crate::heap::IndexedHeap::new(tasks.len())
    }
    type SmallReady = crate::flat_min::FlatMin<Self::Key>;
    fn small_ready_queue(&self, tasks: &[u32]) -> Self::SmallReady {
        crate::flat_min::FlatMin::new(tasks.len(), Self::COMMITTED)
    }
    fn rank(key: Option<Priority>) -> Self::Rank {
        (key.is_some(), std::cmp::Reverse(key.unwrap_or(Self::COMMITTED)))
    }
    /// d − e + c: the laxity plus now, constant while the job waits.
    fn waiting(&self, job: &Job, consumed: Time, _now: Time) -> Priority {
        Priority::new(laxity(job.deadline, 0, self.wcet(job.id.task), consumed), 0, job.id.task)
    }
    /// The laxity, constant while the job runs.
    fn running(&self, job: &Job, consumed: Time, now: Time) -> Priority {
        Priority::new(laxity(job.deadline, now, self.wcet(job.id.task), consumed), 0, job.id.task)
    }
    fn displaces(&self, w: &Priority, r: &Priority, now: Time) -> bool {
        (w.major - now as i128 + self.hysteresis as i128, w.tie) < (r.major, r.tie)
    }
    fn displaces_at(&self, w: &Priority, r: &Priority, _now: Time) -> Option<Time> {
        // Smallest t with (w.major − t + Δ, w.tie) < (r.major, r.tie).
        let edge = w.major + self.hysteresis as i128 - r.major;
        let t = if w.tie < r.tie { edge } else { edge + 1 };
        u64::try_from(t.max(0)).ok()
    }
    fn priority(&self, view: &JobView) -> Priority {
        Priority::new(laxity(view.deadline, view.now, self.wcet(view.id.task), view.consumed), 0, view.id.task)
    }
    fn conformance(&self) -> Conformance {
        Conformance::PriorityDriven { preemptive: true, work_conserving: true, hysteresis: self.hysteresis }
    }
}
