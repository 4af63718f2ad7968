//! The supply bound function of one H-CBS server (OSPERT 2009, Eq. 4).
//!
//! A hard CBS with budget Q and period P, when backlogged, receives Q units
//! somewhere in each of its server periods (an explicit-deadline periodic
//! resource with deadline equal to period). The worst window starts just
//! after the budget of one period was served at its start and the next
//! period serves it at its very end: a blackout of 2(P − Q), then Q, then a
//! flat P − Q, and so on:
//!
//!   Z(t) = max{0, t − (k + 2)(P − Q), k·Q},  k = ⌊(t − P + Q)/P⌋.
//!
//! With Q = P the server is the whole CPU (Z(t) = t); with Q = 0 it gives
//! nothing.

use super::alpha_delta::AlphaDelta;
use schedlab_model::Duration;

/// An H-CBS server's reservation: `budget` ns every `period` ns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Server {
    pub budget: u64,
    pub period: u64,
}

impl Server {
    /// A server with `budget ≤ period` and a non-zero period.
    pub fn new(budget: u64, period: u64) -> Result<Server, String> {
        if period == 0 {
            return Err("the period must be positive".into());
        }
        if budget > period {
            return Err(format!(
                "the budget {} exceeds the period {} (a server runs on one CPU at a time)",
                Duration(budget),
                Duration(period)
            ));
        }
        Ok(Server { budget, period })
    }

    /// The guaranteed supply in any window of length `t` (Eq. 4), in ns.
    pub fn sbf(&self, t: u64) -> u64 {
        let (q, p, t) = (self.budget as i128, self.period as i128, t as i128);
        let k = (t - p + q).div_euclid(p);
        let z = (t - (k + 2) * (p - q)).max(k * q).max(0);
        z as u64
    }

    /// The linear bound's (α, Δ) = (Q/P, 2P − 2Q) (Eq. 8).
    pub fn alpha_delta(&self) -> AlphaDelta {
        AlphaDelta::new(self.budget, self.period, 2 * (self.period - self.budget))
    }

    /// The bandwidth Q/P as a float, for reporting.
    pub fn bandwidth(&self) -> f64 {
        self.budget as f64 / self.period as f64
    }

    /// The instants where Eq. 4 changes slope, up to `horizon`: the end of
    /// each flat part, k·P + 2(P − Q), and the end of each rise, that plus Q
    /// (k ≥ 0). Between two of them Z is linear.
    pub fn breakpoints(&self, horizon: u64) -> Vec<u64> {
        let (q, p) = (self.budget, self.period);
        let mut out = vec![0];
        let mut k = 0u64;
        loop {
            let flat_end = k * p + 2 * (p - q);
            if flat_end > horizon {
                break;
            }
            out.push(flat_end);
            if flat_end + q <= horizon {
                out.push(flat_end + q);
            }
            k += 1;
        }
        out.dedup();
        out
    }

    /// `Q/P` as `2ms/10ms`.
    pub fn describe(&self) -> String {
        format!("{}/{}", Duration(self.budget), Duration(self.period))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eq4_at_its_breakpoints_by_hand() {
        // Q = 2, P = 5: blackout 2(P − Q) = 6, rises to 2 at 8 = 2P − Q,
        // flat until 3P − 2Q = 11, rises to 4 at 13, flat until 16, ...
        let s = Server::new(2, 5).unwrap();
        let expect = [
            (0, 0),
            (3, 0),
            (6, 0),
            (7, 1),
            (8, 2),
            (9, 2),
            (11, 2),
            (12, 3),
            (13, 4),
            (16, 4),
            (18, 6),
            (21, 6),
            (23, 8),
        ];
        for (t, z) in expect {
            assert_eq!(s.sbf(t), z, "Z({t})");
        }
        assert_eq!(s.breakpoints(23), vec![0, 6, 8, 11, 13, 16, 18, 21, 23]);
    }

    #[test]
    fn a_full_server_is_the_cpu_and_an_empty_one_gives_nothing() {
        let full = Server::new(7, 7).unwrap();
        let none = Server::new(0, 7).unwrap();
        for t in 0..50 {
            assert_eq!(full.sbf(t), t);
            assert_eq!(none.sbf(t), 0);
        }
        assert!(Server::new(8, 7).unwrap_err().contains("exceeds the period"));
        assert!(Server::new(0, 0).is_err());
    }
}
