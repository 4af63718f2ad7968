//! The budget and deadline bookkeeping of a constant-bandwidth server with
//! hard reservations (H-CBS: Abeni & Buttazzo 1998, hard variant; notes
//! `seed-003-ospert.md` §2.3 [EXT]). A server has a maximum budget Q, a
//! period P, a current budget q and a deadline d:
//!
//! 1. **Wake-up** at t of an idle server: if q ≥ (d − t)·Q/P (compared
//!    exactly, q·P ≥ (d − t)·Q) or d ≤ t, then d ← t + P and q ← Q;
//!    otherwise it keeps (q, d). A throttled server stays throttled.
//! 2. **Consumption**: q decreases at rate 1 while a served task runs.
//! 3. **Exhaustion**: at q = 0 the server is throttled (not eligible) until
//!    its deadline d; there q ← Q and d ← d + P (the soft CBS would
//!    replenish at once with the deadline postponed).
//! 4. Eligible servers are ordered by EDF on d (the caller's job).
//!
//! Times and budgets are integer ns; the budget is an [`Account`] (the
//! bookkeeping RUN's servers use too). The server does not know what it
//! serves, nor which CPU it is on: its user (the `hcbs` policy) selects it
//! and deselects it, charges it at its events, arms the timers and orders
//! the servers.

use super::Account;
use crate::interface::Time;

/// What a call changed, for the caller's trace events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Change {
    /// Budget and deadline set: q = Q, d as given.
    Replenished { budget: Time, deadline: Time },
    /// The budget ran out: throttled until `deadline`.
    Exhausted { deadline: Time },
}

/// One hard-CBS server; its budget is an [`Account`] in ns (scale 1),
/// running down while the server is selected ([`Server::start`] to
/// [`Server::stop`]) and brought up to date by [`Server::charge`].
#[derive(Debug, Clone)]
pub(crate) struct Server {
    /// Maximum budget Q per period.
    pub max: Time,
    /// Period P (and relative deadline).
    pub period: Time,
    account: Account<i128>,
    /// Current absolute deadline d.
    pub deadline: Time,
    /// Exhausted and waiting for its deadline.
    pub throttled: bool,
}

impl Server {
    /// A server that has never run: its first wake-up gives it (Q, t + P).
    pub fn new(max: Time, period: Time) -> Server {
        Server { max, period, account: Account::new(0), deadline: 0, throttled: false }
    }

    /// The budget q left (ns) at the last charge.
    pub fn budget(&self) -> Time {
        self.account.runs_out_after(&1)
    }

    /// May it run: not throttled, budget left.
    pub fn eligible(&self) -> bool {
        !self.throttled && self.budget() > 0
    }

    /// Rule 1: the server becomes active at `t`.
    pub fn wake(&mut self, t: Time) -> Option<Change> {
        if self.throttled {
            return None;
        }
        let q = self.budget();
        let reset =
            self.deadline <= t || q as u128 * self.period as u128 >= (self.deadline - t) as u128 * self.max as u128;
        if !reset {
            return None;
        }
        self.account.budget = self.max as i128;
        self.deadline = t.saturating_add(self.period);
        Some(Change::Replenished { budget: self.max, deadline: self.deadline })
    }

    /// The server is selected at `t` (a task it serves runs from then).
    pub fn start(&mut self, t: Time) {
        self.account.start(t);
    }

    /// The server is deselected at `t` (a throttled one owes nothing more).
    pub fn stop(&mut self, t: Time) {
        if self.throttled {
            self.account.start(t);
        }
        self.account.stop(t, &1);
    }

    /// Rules 2–3: charges the execution up to `t`; exhaustion throttles.
    /// A throttled server is not charged (its selection is the caller's:
    /// it stays selected across a replenishment at the same instant).
    pub fn charge(&mut self, t: Time) -> Option<Change> {
        if !self.account.consuming() {
            return None;
        }
        if self.throttled {
            self.account.start(t);
            return None;
        }
        self.account.charge(t, &1);
        if self.account.budget > 0 {
            return None;
        }
        self.account.budget = 0;
        self.throttled = true;
        Some(Change::Exhausted { deadline: self.deadline })
    }

    /// When a throttled server is replenished (its deadline), else `None`.
    pub fn replenish_at(&self) -> Option<Time> {
        self.throttled.then_some(self.deadline)
    }

    /// Rule 3's replenishment, when due at `t`: q ← Q, d ← d + P.
    pub fn replenish(&mut self, t: Time) -> Option<Change> {
        if !self.throttled || self.deadline > t {
            return None;
        }
        self.throttled = false;
        self.account.budget = self.max as i128;
        if self.account.consuming() {
            self.account.start(t);
        }
        self.deadline = self.deadline.saturating_add(self.period);
        Some(Change::Replenished { budget: self.max, deadline: self.deadline })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hard_cbs_rules() {
        // Q = 2, P = 5.
        let mut s = Server::new(2, 5);
        assert!(!s.eligible());
        assert_eq!(s.wake(1), Some(Change::Replenished { budget: 2, deadline: 6 }));
        assert!(s.eligible());
        // Runs 1–2, goes idle at 2 with q = 1, d = 6.
        s.start(1);
        assert_eq!(s.charge(2), None);
        s.stop(2);
        // Wakes at 3: q·P = 5 < (6 − 3)·Q = 6, keeps (1, 6).
        assert_eq!(s.wake(3), None);
        assert_eq!((s.budget(), s.deadline), (1, 6));
        // Goes idle again; wakes at 4: 5 ≥ (6 − 4)·2 = 4: reset to (2, 9).
        assert_eq!(s.wake(4), Some(Change::Replenished { budget: 2, deadline: 9 }));
        // Runs from 4, exhausts at 6: throttled until 9, where it gets (2, 14).
        s.start(4);
        assert_eq!(s.charge(5), None);
        assert_eq!(s.charge(6), Some(Change::Exhausted { deadline: 9 }));
        assert_eq!(s.charge(7), None, "throttled: no longer charged");
        s.stop(7);
        assert!(!s.eligible());
        assert_eq!(s.replenish_at(), Some(9));
        assert_eq!(s.wake(7), None, "a throttled server stays throttled");
        assert_eq!(s.replenish(8), None);
        assert_eq!(s.replenish(9), Some(Change::Replenished { budget: 2, deadline: 14 }));
        assert!(s.eligible());
        assert_eq!(s.replenish_at(), None);
        // Exhausted past its deadline and replenished at once, still
        // selected: charged from the replenishment on.
        s.start(14);
        assert_eq!(s.charge(16), Some(Change::Exhausted { deadline: 14 }));
        assert_eq!(s.replenish(16), Some(Change::Replenished { budget: 2, deadline: 19 }));
        assert_eq!(s.charge(17), None);
        assert_eq!(s.budget(), 1);
        s.stop(17);
        // Past its deadline, a wake-up always resets.
        assert_eq!(s.wake(20), Some(Change::Replenished { budget: 2, deadline: 25 }));
    }
}
