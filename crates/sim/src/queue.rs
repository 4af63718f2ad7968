//! The pending-event queue: a binary min-heap ordered by (time, class,
//! sub-order), with lazy invalidation. An entry carries the generation of the
//! object it is about (a CPU's completion prediction, a task's deadline
//! check); when that generation has moved on, the entry is
//! stale and skipped when popped. Every operation is O(log n) and the heap's
//! size is bounded by the number of CPUs and tasks.

use schedlab_policy::Time;

/// Same-instant classes, in processing order (completions, then releases,
/// as the driver protocol delivers them; deadline checks come after
/// completions so a job completing exactly at its deadline meets it; the
/// horizon stops the run after them). Policy timers are the driver's.
pub(crate) const CLASS_COMPLETION: u64 = 0;
pub(crate) const CLASS_DEADLINE: u64 = 1;
pub(crate) const CLASS_HORIZON: u64 = 2;
pub(crate) const CLASS_RELEASE: u64 = 3;
/// The start of a job's leading suspension (after its release reached the
/// policy) and the end of a suspension segment.
pub(crate) const CLASS_SUSPEND: u64 = 4;
pub(crate) const CLASS_TICK: u64 = 5;

/// What a queue entry is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Predicted completion of the job running on CPU `idx`.
    Completion,
    /// Deadline check of task `idx`'s oldest incomplete job.
    Deadline,
    /// Deadline check of task `idx`'s oldest incomplete job (if `gen` is
    /// still current) *and* the arrival of its next job at the same instant
    /// (an implicit deadline): queued in the deadline class, the arrival is
    /// then handled in its place in the release class (`Engine::run`).
    DeadlineArrival,
    /// End of the simulation.
    Horizon,
    /// A job of task `idx` arrives (its release is processed).
    Arrival,
    /// A job of task `idx` is due; with release latency, its release is
    /// processed `latency` later.
    Due,
    /// Periodic tick.
    Tick,
    /// Task `idx`'s job (sequence number `gen`, truncated) starts its
    /// leading suspension segment.
    Suspend,
    /// Task `idx`'s job (sequence number `gen`, truncated) ends its
    /// suspension segment.
    Resume,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Entry {
    pub t: Time,
    /// class << 56 | sub-order within the class.
    pub ord: u64,
    pub kind: Kind,
    pub idx: u32,
    pub gen: u32,
}

#[inline]
pub(crate) fn ord(class: u64, sub: u64) -> u64 {
    debug_assert!(sub < 1 << 56);
    class << 56 | sub
}

/// The event queue: a 4-ary min-heap (shallower than a binary one, and its
/// children of one node share a cache line or two) with hole sifting.
/// Entries with equal (time, order) are interchangeable (at most one of
/// them is current), so the order in which such ties pop does not matter.
#[derive(Debug, Default)]
pub(crate) struct Queue {
    heap: Vec<Entry>,
}

#[inline(always)]
fn key(e: &Entry) -> u128 {
    (e.t as u128) << 64 | e.ord as u128
}

impl Queue {
    pub fn with_capacity(n: usize) -> Queue {
        Queue { heap: Vec::with_capacity(n) }
    }
    #[inline]
    pub fn push(&mut self, t: Time, ord: u64, kind: Kind, idx: u32, gen: u32) {
        let e = Entry { t, ord, kind, idx, gen };
        let k = key(&e);
        let mut i = self.heap.len();
        self.heap.push(e);
        while i > 0 {
            let parent = (i - 1) / 4;
            if key(&self.heap[parent]) <= k {
                break;
            }
            self.heap[i] = self.heap[parent];
            i = parent;
        }
        self.heap[i] = e;
    }
    #[inline]
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.first().map(|e| e.t)
    }
    #[inline]
    pub fn peek(&self) -> Option<&Entry> {
        self.heap.first()
    }
    #[inline]
    pub fn pop(&mut self) -> Option<Entry> {
        let last = self.heap.pop()?;
        let n = self.heap.len();
        if n == 0 {
            return Some(last);
        }
        let top = self.heap[0];
        let k = key(&last);
        let mut i = 0;
        loop {
            let c0 = 4 * i + 1;
            if c0 >= n {
                break;
            }
            let mut m = c0;
            let mut mk = key(&self.heap[c0]);
            if c0 + 3 < n {
                // All four children (the common case): no loop bounds.
                let (k1, k2, k3) = (key(&self.heap[c0 + 1]), key(&self.heap[c0 + 2]), key(&self.heap[c0 + 3]));
                let (m01, k01) = if k1 < mk { (c0 + 1, k1) } else { (c0, mk) };
                let (m23, k23) = if k3 < k2 { (c0 + 3, k3) } else { (c0 + 2, k2) };
                (m, mk) = if k23 < k01 { (m23, k23) } else { (m01, k01) };
            } else {
                for c in c0 + 1..n {
                    let ck = key(&self.heap[c]);
                    if ck < mk {
                        m = c;
                        mk = ck;
                    }
                }
            }
            if mk >= k {
                break;
            }
            self.heap[i] = self.heap[m];
            i = m;
        }
        self.heap[i] = last;
        Some(top)
    }
    pub fn capacity(&self) -> usize {
        self.heap.capacity()
    }
}
