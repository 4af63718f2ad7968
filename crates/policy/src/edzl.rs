//! EDZL: earliest deadline until zero laxity (Lee 1994; Cho, Ravindran &
//! Jensen 2002), global.
//!
//! Jobs run in EDF order, except that a job whose laxity d − t − (e − c(t))
//! has reached zero (or less) outranks every job with positive laxity. Among
//! zero-laxity jobs and among the others: earlier deadline first, ties to the
//! lower task index. So the priority is (0, d, task) for a zero-laxity job
//! and (1, d, task) otherwise, compared lexicographically.
//!
//! A running job's laxity is constant, so only waiting jobs reach zero
//! laxity: each waiting job with positive laxity has a timer at its
//! zero-laxity instant d − (e − c), cancelled when it is linked, completes or
//! blocks, and re-armed when it is displaced or resumes. The key is always
//! recomputed from the current laxity, so `priority` (what the validator
//! uses) and the scheduler agree exactly.

use crate::interface::{Conformance, Job, JobView, Priority, Time};
use crate::order::{laxity, rank_u128, Order};

pub(crate) struct Edzl {
    pub wcet: Vec<Time>,
}

impl Edzl {
    fn key(&self, deadline: Time, task: u32, consumed: Time, now: Time) -> Priority {
        let wcet = self.wcet.get(task as usize).copied().unwrap_or(0);
        let zero = laxity(deadline, now, wcet, consumed) <= 0;
        Priority::new(if zero { 0 } else { 1 }, deadline as i128, task)
    }
}

impl Edzl {
    /// The scheduler's key: (zero laxity ? 0 : 1, deadline + 1, task) packed
    /// in a `u128`, ordered as [`Edzl::key`]; 0 is below every job's key.
    #[inline]
    fn packed(&self, deadline: Time, task: u32, consumed: Time, now: Time) -> u128 {
        let wcet = self.wcet.get(task as usize).copied().unwrap_or(0);
        let zero = laxity(deadline, now, wcet, consumed) <= 0;
        (!zero as u128) << 97 | (deadline as u128 + 1) << 32 | task as u128
    }
}

impl Order for Edzl {
    type Key = u128;
    const USES_CONSUMED: bool = true;
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
    fn waiting(&self, job: &Job, consumed: Time, now: Time) -> u128 {
        self.packed(job.deadline, job.id.task, consumed, now)
    }
    fn running(&self, job: &Job, consumed: Time, now: Time) -> u128 {
        self.packed(job.deadline, job.id.task, consumed, now)
    }
    #[inline]
    fn displaces(&self, w: &u128, r: &u128, _now: Time) -> bool {
        w < r
    }
    fn rekey_at(&self, job: &Job, consumed: Time, now: Time) -> Option<Time> {
        let wcet = self.wcet.get(job.id.task as usize).copied().unwrap_or(0);
        let lax = laxity(job.deadline, now, wcet, consumed);
        // Zero laxity at now + lax.
        (lax > 0).then(|| u64::try_from(now as i128 + lax).ok()).flatten()
    }
    fn priority(&self, view: &JobView) -> Priority {
        self.key(view.deadline, view.id.task, view.consumed, view.now)
    }
    fn conformance(&self) -> Conformance {
        Conformance::PriorityDriven { preemptive: true, work_conserving: true, hysteresis: 0 }
    }
}
