//! The pending-event queue: a binary min-heap ordered by (time, class,
//! sub-order), with lazy invalidation. An entry carries the generation of the
//! object it is about (a CPU's completion prediction, a task's deadline
//! check, a timer slot); when that generation has moved on, the entry is
//! stale and skipped when popped. Every operation is O(log n) and the heap's
//! size is bounded by the number of CPUs, tasks and armed timers.

use schedlab_policy::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Same-instant classes, in processing order (interface.rs's protocol:
/// completions, then releases, then timers; deadline checks come after
/// completions so a job completing exactly at its deadline meets it; the
/// horizon stops the run after them).
pub(crate) const CLASS_COMPLETION: u64 = 0;
pub(crate) const CLASS_DEADLINE: u64 = 1;
pub(crate) const CLASS_HORIZON: u64 = 2;
pub(crate) const CLASS_RELEASE: u64 = 3;
pub(crate) const CLASS_TIMER: u64 = 4;
pub(crate) const CLASS_TICK: u64 = 5;

/// What a queue entry is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Predicted completion of the job running on CPU `idx`.
    Completion,
    /// Deadline check of task `idx`'s oldest incomplete job.
    Deadline,
    /// End of the simulation.
    Horizon,
    /// A queued job of task `idx` is handed to the policy (its predecessor completed).
    Handover,
    /// A job of task `idx` arrives (its release is processed).
    Arrival,
    /// A job of task `idx` is due; with release latency, its release is
    /// processed `latency` later.
    Due,
    /// Policy timer in slot `idx`.
    Timer,
    /// Periodic tick.
    Tick,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Entry {
    pub t: Time,
    /// class << 56 | sub-order within the class.
    pub ord: u64,
    pub kind: Kind,
    pub idx: u32,
    pub gen: u32,
}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        // Reversed: BinaryHeap is a max-heap.
        (other.t, other.ord).cmp(&(self.t, self.ord))
    }
}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

pub(crate) fn ord(class: u64, sub: u64) -> u64 {
    debug_assert!(sub < 1 << 56);
    class << 56 | sub
}

/// The event queue.
#[derive(Debug, Default)]
pub(crate) struct Queue {
    heap: BinaryHeap<Entry>,
}

impl Queue {
    pub fn with_capacity(n: usize) -> Queue {
        Queue { heap: BinaryHeap::with_capacity(n) }
    }
    pub fn push(&mut self, t: Time, ord: u64, kind: Kind, idx: u32, gen: u32) {
        self.heap.push(Entry { t, ord, kind, idx, gen });
    }
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| e.t)
    }
    pub fn pop(&mut self) -> Option<Entry> {
        self.heap.pop()
    }
    pub fn capacity(&self) -> usize {
        self.heap.capacity()
    }
}
