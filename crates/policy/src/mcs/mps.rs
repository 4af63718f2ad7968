//! The memory-phase scheduler (MPS) of memory-centric scheduling (Rivas et
//! al., ECRTS 2019, Listings 1 and 2; seed notes 002 §A2.1): a system-wide
//! arbiter that lets one memory phase run at a time, by memory priority.
//!
//! The listings as printed have defects (§A2.1, "Defects"); this is the
//! corrected form the notes give, with the paper's semantics:
//! - an explicit `owner`, kept apart from the queue of pending phases (the
//!   listing's `getFirst(queue)` is a blocked task once a higher-priority
//!   caller queued behind a non-preemptive owner, and a second caller would
//!   then run beside the owner);
//! - the *caller* is marked non-preemptive (the listing marks `owner`);
//! - a caller preempts the owner only with a strictly higher memory
//!   priority and a preemptive owner; otherwise it waits;
//! - the queue is ordered by memory priority, first come first served among
//!   equal priorities (the listing's strict `>`).
//!
//! This type only decides; the policy ([`super::Mcs`]) blocks and resumes
//! the jobs it names. Invariants: `owner == None` ⇔ the queue is empty;
//! every queued entry other than the owner waits (blocked).

/// A pending memory phase: the task, its memory rank (smaller is more
/// urgent), its arrival number (the FIFO order among equal ranks) and
/// whether it is non-preemptive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Pending {
    task: u32,
    rank: u64,
    arrival: u64,
    np: bool,
}

/// What `start` decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Start {
    /// The caller owns the token: its phase runs.
    Granted,
    /// The caller waits (blocked) until `end` hands it the token.
    Waits,
    /// The caller took the token from this task, whose phase is suspended
    /// (blocked) and stays queued.
    Preempts(u32),
}

#[derive(Debug, Default)]
pub(crate) struct MemoryPhaseScheduler {
    owner: Option<Pending>,
    /// Every pending phase, owner included, in (rank, arrival) order.
    queue: Vec<Pending>,
    arrivals: u64,
}

impl MemoryPhaseScheduler {
    pub fn new() -> MemoryPhaseScheduler {
        MemoryPhaseScheduler::default()
    }

    /// The task owning the token.
    pub fn owner(&self) -> Option<u32> {
        self.owner.map(|p| p.task)
    }

    /// Whether the owner's phase is non-preemptive.
    #[cfg(test)]
    pub fn owner_np(&self) -> bool {
        self.owner.is_some_and(|p| p.np)
    }

    /// The tasks waiting, in the order they will be served.
    #[cfg(test)]
    pub fn waiting(&self) -> impl Iterator<Item = u32> + '_ {
        let owner = self.owner();
        self.queue.iter().filter(move |p| Some(p.task) != owner).map(|p| p.task)
    }

    /// `memphase_start(np)` by `task` with memory rank `rank`.
    pub fn start(&mut self, task: u32, rank: u64, np: bool) -> Start {
        let c = Pending { task, rank, arrival: self.arrivals, np };
        self.arrivals += 1;
        let at = self.queue.partition_point(|p| (p.rank, p.arrival) < (c.rank, c.arrival));
        self.queue.insert(at, c);
        match self.owner {
            None => {
                self.owner = Some(c);
                Start::Granted
            }
            Some(o) if o.np || c.rank >= o.rank => Start::Waits,
            Some(o) => {
                self.owner = Some(c);
                Start::Preempts(o.task)
            }
        }
    }

    /// `memphase_end()` by the owner `task`: the token goes to the most
    /// urgent pending phase (possibly one preempted earlier), returned.
    pub fn end(&mut self, task: u32) -> Option<u32> {
        debug_assert_eq!(self.owner(), Some(task), "only the owner ends its phase");
        self.queue.retain(|p| p.task != task);
        self.owner = self.queue.first().copied();
        self.owner()
    }

    /// A pending phase that will never run (its job was aborted): it leaves
    /// the queue; when it owned the token, as `end`.
    pub fn withdraw(&mut self, task: u32) -> Option<u32> {
        if self.owner() == Some(task) {
            return self.end(task);
        }
        self.queue.retain(|p| p.task != task);
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Figures 5 and 6: τ2 (rank 2) is granted at 0; τ1 (rank 1) preempts it
    /// at 1; at τ1's end τ2 gets the token back.
    #[test]
    fn the_walk_through_of_figures_5_and_6() {
        let mut m = MemoryPhaseScheduler::new();
        assert_eq!(m.start(2, 2, false), Start::Granted);
        assert_eq!(m.start(1, 1, false), Start::Preempts(2));
        assert_eq!(m.owner(), Some(1));
        assert_eq!(m.waiting().collect::<Vec<_>>(), [2]);
        assert_eq!(m.end(1), Some(2));
        assert_eq!(m.end(2), None);
        assert_eq!(m.owner(), None);
    }

    /// Listing 1's defect 2: behind a non-preemptive owner, a second
    /// higher-priority caller must wait too (the listing compared it with
    /// the blocked head and let it run beside the owner).
    #[test]
    fn a_non_preemptive_owner_keeps_the_token_against_every_caller() {
        let mut m = MemoryPhaseScheduler::new();
        assert_eq!(m.start(3, 3, true), Start::Granted);
        assert!(m.owner_np());
        assert_eq!(m.start(2, 2, false), Start::Waits);
        assert_eq!(m.start(1, 1, false), Start::Waits);
        assert_eq!(m.owner(), Some(3));
        assert_eq!(m.end(3), Some(1), "then the most urgent");
        assert_eq!(m.end(1), Some(2));
    }

    /// Defect 1: the caller's flag, not the owner's: a non-preemptive
    /// caller that waits does not make the owner non-preemptive.
    #[test]
    fn the_non_preemptive_flag_is_the_callers() {
        let mut m = MemoryPhaseScheduler::new();
        assert_eq!(m.start(2, 2, false), Start::Granted);
        assert_eq!(m.start(3, 3, true), Start::Waits);
        assert!(!m.owner_np());
        assert_eq!(m.start(1, 1, false), Start::Preempts(2));
    }

    /// Defect 3: equal memory priorities never preempt and are served in
    /// arrival order.
    #[test]
    fn equal_priorities_are_first_come_first_served() {
        let mut m = MemoryPhaseScheduler::new();
        assert_eq!(m.start(0, 5, false), Start::Granted);
        assert_eq!(m.start(2, 5, false), Start::Waits);
        assert_eq!(m.start(1, 5, false), Start::Waits);
        assert_eq!(m.end(0), Some(2));
        assert_eq!(m.end(2), Some(1));
        assert_eq!(m.end(1), None);
    }

    #[test]
    fn a_withdrawn_phase_leaves_the_queue_or_hands_the_token_on() {
        let mut m = MemoryPhaseScheduler::new();
        m.start(0, 1, false);
        m.start(1, 2, false);
        m.start(2, 3, false);
        assert_eq!(m.withdraw(1), None);
        assert_eq!(m.withdraw(0), Some(2));
        assert_eq!(m.waiting().count(), 0);
    }
}
