//! The timer chain of a quantum-driven policy (PD^2, `ca-gedf`): one timer
//! armed for the next quantum boundary that needs processing, and the last
//! boundary processed, so a boundary is never processed twice and a
//! boundary reported late is still processed at its own instant.

use crate::interface::{Kernel, Time, TimerId};

#[derive(Debug, Default)]
pub(crate) struct Boundaries {
    /// The armed boundary timer and its instant.
    timer: Option<(TimerId, Time)>,
    /// The last boundary processed.
    done_until: Option<Time>,
}

impl Boundaries {
    /// The last boundary processed.
    pub(crate) fn done_until(&self) -> Option<Time> {
        self.done_until
    }

    /// The earliest instant at or after `t` whose boundary is not yet
    /// processed (the grid of boundaries is the policy's).
    pub(crate) fn unprocessed_from(&self, t: Time) -> Time {
        match self.done_until {
            Some(d) if t <= d => d + 1,
            _ => t,
        }
    }

    /// Makes sure the boundary `b` is processed: arms a timer for it unless
    /// one is armed for `b` or earlier (a later one is moved to `b`).
    pub(crate) fn cover(&mut self, b: Time, k: &mut dyn Kernel) {
        match self.timer {
            Some((_, at)) if at <= b => {}
            Some((id, _)) => {
                k.cancel(id);
                self.timer = Some((k.arm(b, 0), b));
            }
            None => self.timer = Some((k.arm(b, 0), b)),
        }
    }

    /// Records that the boundary `t` is being processed; the timer chain is
    /// re-armed by [`Boundaries::arm_next`] when there is work left.
    pub(crate) fn processing(&mut self, t: Time) {
        self.done_until = Some(t);
    }

    /// Arms the timer for the next boundary `b` (after a boundary's processing).
    pub(crate) fn arm_next(&mut self, b: Time, k: &mut dyn Kernel) {
        self.timer = Some((k.arm(b, 0), b));
    }

    /// The boundary to process when `timer` fires: the instant it was armed
    /// for, not the kernel's now (a driver may report it late — the
    /// runtime's dispatcher, woken late or reporting a completion in the same
    /// wake-up — and a boundary taken off the grid would lose a quantum);
    /// `None` for a stale timer or a boundary already processed.
    pub(crate) fn fired(&mut self, timer: TimerId) -> Option<Time> {
        let at = match self.timer {
            Some((id, at)) if id == timer => at,
            _ => return None,
        };
        self.timer = None;
        if self.done_until.is_some_and(|d| d >= at) {
            return None;
        }
        Some(at)
    }
}
