//! The rules common to every heuristic of the framework (Calandrino 2009
//! §4.2, quoted in the notes §2.6): Promoted Jobs, Urgent Jobs and
//! Priorities.
//!
//! - A promoted job's priority point moves from its deadline to the instant
//!   of the promotion; a tardy job (deadline ≤ now) is never promoted, so
//!   every priority point stays in [release, deadline] (window-constrained
//!   priorities, hence bounded tardiness).
//! - When a job T_i of an MTT is scheduled and T is the first task of the
//!   MTT to schedule its i-th job at this boundary (and T_i is not urgent
//!   itself), every other job U_i of the MTT not yet complete is flagged
//!   urgent and promoted; urgent jobs stay promoted at least until they are
//!   scheduled, and no job is promoted by a cache-aware or lost-cause
//!   policy while an eligible urgent job waits.
//! - Jobs run in increasing priority point; ties go to promoted jobs and,
//!   among them, to urgent ones; tardy jobs first, in EDF order. The total
//!   order at a boundary t is therefore: tardy jobs by deadline; urgent
//!   promoted jobs by promotion instant; other promoted jobs by promotion
//!   instant; the rest by deadline; ties by task index.

use crate::interface::Time;

/// A job's standing under the rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Standing {
    /// The instant of its promotion (its priority point), if promoted.
    pub promoted: Option<Time>,
    /// Flagged urgent (always promoted too).
    pub urgent: bool,
}

impl Standing {
    /// Back to the priority point at the deadline.
    pub fn demote(&mut self) {
        *self = Standing::default();
    }
}

/// Tardy at `t`: the deadline has come (Fig. 4.6: T_3, d = 6, is tardy at 6).
#[inline]
pub(crate) fn tardy(deadline: Time, t: Time) -> bool {
    deadline <= t
}

/// The Priorities rule's key of an eligible job at the boundary `t`:
/// smaller runs first.
#[inline]
pub(crate) fn rank(deadline: Time, s: Standing, task: u32, t: Time) -> (u8, Time, u32) {
    if tardy(deadline, t) {
        return (0, deadline, task);
    }
    match s.promoted {
        Some(at) if s.urgent => (1, at, task),
        Some(at) => (2, at, task),
        None => (3, deadline, task),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tardy_then_urgent_then_promoted_then_by_deadline() {
        let plain = Standing::default();
        let promoted = Standing { promoted: Some(4), urgent: false };
        let urgent = Standing { promoted: Some(5), urgent: true };
        let t = 6;
        let mut keys = [
            rank(9, plain, 0, t),
            rank(7, plain, 1, t),
            rank(20, promoted, 2, t),
            rank(30, urgent, 3, t),
            rank(6, plain, 4, t),
            rank(5, promoted, 5, t),
        ];
        keys.sort();
        let order: Vec<u32> = keys.iter().map(|k| k.2).collect();
        assert_eq!(order, vec![5, 4, 3, 2, 1, 0], "tardy (d 5, d 6) by deadline, urgent, promoted, then EDF");
    }
}
