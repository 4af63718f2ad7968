//! The linear supply bound (OSPERT 2009, Defs. 5–6, Eqs. 7–8): bandwidth
//! α = lim Z(t)/t, delay Δ = sup_t (t − Z(t)/α), and
//!
//!   Z(t) ≥ max{0, α(t − Δ)}.                                   (Eq. 7)
//!
//! The paper prints Eq. 7 with ≤, but its text introduces it as a *lower*
//! bound and only a lower bound is of use to a schedulability test; the
//! definition of Δ as a supremum makes ≥ hold for every t. For an H-CBS
//! server, α = Q/P and Δ = 2P − 2Q (Eq. 8). The multi-(α, Δ) abstraction
//! (Def. 7) is one such pair per virtual processor.

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::Zero;

/// A linear supply bound max(0, α(t − Δ)), α = `num/den`, Δ in ns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AlphaDelta {
    pub num: u64,
    pub den: u64,
    pub delta: u64,
}

impl AlphaDelta {
    pub fn new(num: u64, den: u64, delta: u64) -> AlphaDelta {
        AlphaDelta { num, den, delta }
    }

    /// α exactly.
    pub fn alpha(&self) -> BigRational {
        BigRational::new(BigInt::from(self.num), BigInt::from(self.den.max(1)))
    }

    /// max{0, α(t − Δ)}, exactly.
    pub fn at(&self, t: u64) -> BigRational {
        if t <= self.delta || self.num == 0 {
            return BigRational::zero();
        }
        BigRational::new(BigInt::from(self.num) * BigInt::from(t - self.delta), BigInt::from(self.den.max(1)))
    }
}

#[cfg(test)]
mod tests {
    use super::super::hcbs::Server;
    use super::*;

    /// Defs. 5 and 6 evaluated on Eq. 4 give Eq. 8: the bandwidth is Q/P,
    /// and the largest t − Z(t)/α is reached at the end of every flat part,
    /// where it is exactly 2P − 2Q.
    #[test]
    fn eq8_is_defs_5_and_6_applied_to_eq4() {
        for (q, p) in [(2u64, 5u64), (1, 3), (3, 4), (5, 10), (7, 7), (1, 100)] {
            let s = Server::new(q, p).unwrap();
            let ad = s.alpha_delta();
            assert_eq!((ad.num, ad.den, ad.delta), (q, p, 2 * (p - q)));
            // Δ (Def. 6): the supremum of t − Z(t)·P/Q is attained at a
            // breakpoint (Z is piecewise linear, so t − Z/α is too).
            let horizon = 50 * p;
            let sup = s
                .breakpoints(horizon)
                .into_iter()
                .map(|t| BigRational::from_integer(t.into()) - BigRational::new((s.sbf(t) * p).into(), q.into()))
                .max()
                .unwrap();
            assert_eq!(sup, BigRational::from_integer((2 * (p - q)).into()), "Q = {q}, P = {p}");
            // α (Def. 5): Z(nP) = (n − 1)Q + max(0, 2Q − P), so
            // Z(nP)/(nP) → Q/P.
            for n in [1, 10, 1000] {
                assert_eq!(s.sbf(n * p), (n - 1) * q + (2 * q).saturating_sub(p), "Z({n}P)");
            }
        }
    }

    #[test]
    fn the_bound_is_zero_until_delta_then_rises_at_alpha() {
        let ad = AlphaDelta::new(2, 5, 6);
        assert_eq!(ad.at(0), BigRational::zero());
        assert_eq!(ad.at(6), BigRational::zero());
        assert_eq!(ad.at(11), BigRational::from_integer(2.into()));
        assert_eq!(ad.at(7), BigRational::new(2.into(), 5.into()));
    }
}
