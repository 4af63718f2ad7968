//! A server's budget account: the budget B (integer-scaled, see
//! [`super::Budget`]: a budget of b ns at scale q is B = b·q) and whether it
//! runs down, since when. While the server is selected ([`Account::start`]
//! to [`Account::stop`]) every ns costs q; [`Account::charge`] brings the
//! account to an instant, so a server charged at each event is exact
//! whatever the events' spacing, and [`Account::runs_out_after`] gives the
//! instant to arm a timer for.

use super::Budget;
use crate::interface::Time;

#[derive(Debug, Clone)]
pub(crate) struct Account<N: Budget> {
    pub budget: N,
    consuming: bool,
    run_from: Time,
}

impl<N: Budget> Account<N> {
    pub fn new(budget: N) -> Account<N> {
        Account { budget, consuming: false, run_from: 0 }
    }
    /// Whether the budget is running down.
    pub fn consuming(&self) -> bool {
        self.consuming
    }
    /// Charges the time since the last charge, at `q` per ns, up to `t`.
    #[inline]
    pub fn charge(&mut self, t: Time, q: &N) {
        if self.consuming {
            self.budget.sub_mul(q, t - self.run_from);
            self.run_from = t;
        }
    }
    /// The server is selected at `t`: its budget runs down from then.
    #[inline]
    pub fn start(&mut self, t: Time) {
        self.consuming = true;
        self.run_from = t;
    }
    /// The server is deselected at `t` (charged up to `t` first).
    #[inline]
    pub fn stop(&mut self, t: Time, q: &N) {
        self.charge(t, q);
        self.consuming = false;
    }
    /// Whole ns of budget left at scale `q` (0 when none): the budget runs
    /// out that long after the last charge, if it keeps running down.
    pub fn runs_out_after(&self, q: &N) -> Time {
        if self.budget.is_positive() {
            self.budget.floor_div(q)
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_account_runs_down_only_while_selected() {
        // 5 ns at scale 3 (B = 15).
        let mut a = Account::new(15i128);
        a.charge(10, &3);
        assert_eq!(a.budget, 15, "not selected: nothing charged");
        a.start(10);
        a.charge(12, &3);
        assert_eq!((a.budget, a.runs_out_after(&3)), (9, 3));
        a.stop(13, &3);
        assert_eq!(a.budget, 6);
        a.charge(20, &3);
        assert_eq!(a.budget, 6);
        a.start(20);
        a.charge(23, &3);
        assert_eq!((a.budget, a.runs_out_after(&3)), (-3, 0));
    }
}
