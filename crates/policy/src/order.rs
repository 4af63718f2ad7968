//! How a job-level priority-driven policy orders jobs: the one thing that
//! differs between EDF, FP, LLF and EDZL. The linking domain scheduler
//! ([`crate::domain`]) does the rest.

use crate::interface::{Conformance, Job, JobView, Priority, Time};
use crate::ready::ReadyQueue;

/// A policy's job order, as the domain scheduler uses it.
///
/// A job has a key while it waits and a key while it is linked to a CPU;
/// each must stay constant while the job stays in that state unless the order
/// announces the instant it changes ([`Order::rekey_at`]).
pub(crate) trait Order: Send {
    /// The scheduler's internal key: ordered exactly as the [`Priority`] it
    /// stands for, but possibly cheaper to store and compare (EDF and FP use
    /// a packed `u128`).
    type Key: Copy + Ord + Send;
    /// Whether the keys depend on the consumed execution time (if not, the
    /// scheduler does not ask the kernel for it).
    const USES_CONSUMED: bool;
    /// Whether the keys, [`Order::displaces`], [`Order::displaces_at`] or
    /// [`Order::rekey_at`] depend on the time (if not, the scheduler does
    /// not ask the kernel for it, and arms no timer).
    const USES_NOW: bool = true;
    /// A key more urgent than the key of any job (the CPU of a committed
    /// non-preemptive job).
    const COMMITTED: Self::Key;
    /// The CPU order's key: `rank(None)` (an idle CPU) below every other,
    /// then linked CPUs from the largest job key to the smallest.
    type Rank: Copy + Ord + Send;
    fn rank(key: Option<Self::Key>) -> Self::Rank;
    /// The ready queue of a domain with these tasks (by local index: their
    /// spec indices).
    type Ready: ReadyQueue<Self::Key>;
    fn ready_queue(&self, tasks: &[u32]) -> Self::Ready;
    /// The ready queue of a small domain (at most
    /// [`crate::ready::FLAT_UP_TO`] tasks and
    /// [`crate::cpu_order::FLAT_UP_TO`] CPUs; see [`crate::engine`]).
    type SmallReady: ReadyQueue<Self::Key>;
    fn small_ready_queue(&self, tasks: &[u32]) -> Self::SmallReady;
    /// The key of a waiting job (smaller is more urgent).
    fn waiting(&self, job: &Job, consumed: Time, now: Time) -> Self::Key;
    /// The key of a linked (running) job; the lowest-priority linked job is
    /// the one with the largest key.
    fn running(&self, job: &Job, consumed: Time, now: Time) -> Self::Key;
    /// Whether a waiting job with key `w` takes the CPU of the linked job with
    /// key `r` at `now`.
    fn displaces(&self, w: &Self::Key, r: &Self::Key, now: Time) -> bool;
    /// With both keys unchanged, the first instant after `now` at which
    /// [`Order::displaces`] becomes true (LLF: laxities of waiting jobs fall
    /// while those of running jobs stay put), or `None` if never.
    fn displaces_at(&self, _w: &Self::Key, _r: &Self::Key, _now: Time) -> Option<Time> {
        None
    }
    /// The first instant after `now` at which a waiting job's key changes by
    /// itself (EDZL: its laxity reaches zero), or `None`.
    fn rekey_at(&self, _job: &Job, _consumed: Time, _now: Time) -> Option<Time> {
        None
    }
    /// The priority the validator compares (must agree with the decisions).
    fn priority(&self, view: &JobView) -> Priority;
    /// How the validator checks schedules of this order.
    fn conformance(&self) -> Conformance;
}

/// deadline − now − (wcet − consumed), exactly (negative when late).
pub(crate) fn laxity(deadline: Time, now: Time, wcet: Time, consumed: Time) -> i128 {
    deadline as i128 - now as i128 - (wcet as i128 - consumed as i128)
}

/// [`Order::rank`] for `u128` keys below 2¹²⁷.
#[inline]
pub(crate) fn rank_u128(key: Option<u128>) -> u128 {
    match key {
        None => 0,
        Some(k) => u128::MAX - k,
    }
}
