//! A group's virtual platform: one supply per CPU (OSPERT 2009, §4, after
//! Bini, Buttazzo & Bertogna's multi-supply function abstraction).
//!
//! Within a window [0, D), L_ℓ is the time during which exactly ℓ virtual
//! processors supply (Eq. 10). With the supplies indexed so that
//! Z_1(D) ≥ Z_2(D) ≥ … ≥ Z_m(D) — Eq. 15 needs that order, so they are
//! sorted first — the worst case nests them:
//!
//!   L_0 = D − Z_1(D),  L_ℓ = Z_ℓ(D) − Z_{ℓ+1}(D),  L_m = Z_m(D).  (Eq. 15)
//!
//! A higher-priority workload W keeps a task off every supplying processor
//! longest by filling the single-processor time first, then the two-processor
//! time, and so on; the interference is at most
//!
//!   Ī = L_0 + Σ_{ℓ=1..m} min(L_ℓ, max(0, W − Σ_{p<ℓ} p·L_p)/ℓ).   (Eq. 13)
//!
//! The paper's symmetric shortcut (Eq. 16) subtracts m·L_m from W inside the
//! last term, which makes a group loaded to its full supply look free of
//! interference; with all supplies equal, Eq. 13 itself reduces to
//! L_0 + min(L_m, W/m), and that is what is computed here.

use super::function::Supply;
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::Zero;

/// One supply per virtual processor.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Platform {
    pub supplies: Vec<Supply>,
}

impl Platform {
    pub fn new(supplies: Vec<Supply>) -> Platform {
        Platform { supplies }
    }

    /// `m` copies of one supply (the paper's replicated reservation).
    pub fn symmetric(supply: Supply, m: usize) -> Platform {
        Platform { supplies: vec![supply; m] }
    }

    /// The MαΔ abstraction (Def. 7): every supply by its linear bound.
    pub fn mad(&self) -> Platform {
        Platform { supplies: self.supplies.iter().map(Supply::linear).collect() }
    }

    pub fn len(&self) -> usize {
        self.supplies.len()
    }

    pub fn is_empty(&self) -> bool {
        self.supplies.is_empty()
    }

    /// L_0, …, L_m of a window of length `d` (Eq. 15, supplies sorted by
    /// non-increasing Z(d)); they sum to `d`.
    pub fn lengths(&self, d: u64) -> Vec<BigRational> {
        let dq = BigRational::from_integer(BigInt::from(d));
        let mut z: Vec<BigRational> = self.supplies.iter().map(|s| s.at(d).min(dq.clone())).collect();
        z.sort_by(|a, b| b.cmp(a));
        let m = z.len();
        let mut l = Vec::with_capacity(m + 1);
        l.push(&dq - z.first().cloned().unwrap_or_else(BigRational::zero));
        for j in 0..m {
            let next = z.get(j + 1).cloned().unwrap_or_else(BigRational::zero);
            l.push(&z[j] - next);
        }
        l
    }
}

/// Ī of Eq. 13 for a higher-priority workload `w` and the lengths of
/// [`Platform::lengths`].
pub fn interference(lengths: &[BigRational], w: &BigRational) -> BigRational {
    let mut total = lengths.first().cloned().unwrap_or_else(BigRational::zero);
    let mut used = BigRational::zero();
    for (l, len) in lengths.iter().enumerate().skip(1) {
        let left = (w - &used).max(BigRational::zero());
        let share = left / BigRational::from_integer(BigInt::from(l));
        total += share.min(len.clone());
        used += len * BigRational::from_integer(BigInt::from(l));
    }
    total
}

#[cfg(test)]
mod tests {
    use super::super::hcbs::Server;
    use super::*;

    fn r(n: i64) -> BigRational {
        BigRational::from_integer(n.into())
    }

    #[test]
    fn lengths_nest_the_supplies_and_sum_to_the_window() {
        // Servers 2/5 and 4/5 in a window of 13: Z = 4 and Z = 9.
        let p = Platform::new(vec![Supply::Hcbs(Server::new(2, 5).unwrap()), Supply::Hcbs(Server::new(4, 5).unwrap())]);
        // 4/5 at 13: k = ⌊12/5⌋ = 2, max(13 − 4, 8) = 9.
        assert_eq!(Server::new(4, 5).unwrap().sbf(13), 9);
        let l = p.lengths(13);
        assert_eq!(l, vec![r(4), r(5), r(4)]);
        assert_eq!(l.iter().sum::<BigRational>(), r(13));
    }

    #[test]
    fn interference_fills_one_processor_time_first() {
        // L = (2, 3, 5) on two processors: W = 2 covers 2 of the 3
        // one-processor units; W = 3 all of them; W = 7 then 2 more over two
        // processors (1 unit of time); W = 100 saturates.
        let l = vec![r(2), r(3), r(5)];
        assert_eq!(interference(&l, &r(0)), r(2));
        assert_eq!(interference(&l, &r(2)), r(4));
        assert_eq!(interference(&l, &r(3)), r(5));
        assert_eq!(interference(&l, &r(5)), r(6));
        assert_eq!(interference(&l, &r(100)), r(10));
    }

    #[test]
    fn the_symmetric_case_is_eq13_not_the_printed_eq16() {
        // Equal supplies: only L_0 and L_m are non-zero. A workload of
        // exactly m·L_m (the group fully loaded) interferes for all of L_m;
        // the printed Eq. 16 would give L_0 alone.
        let s = Supply::Hcbs(Server::new(3, 5).unwrap());
        let p = Platform::symmetric(s, 2);
        let l = p.lengths(20);
        let zm = s.at(20);
        assert_eq!(l, vec![r(20) - &zm, r(0), zm.clone()]);
        let w = &zm * r(2);
        assert_eq!(interference(&l, &w), r(20));
        let printed_eq16 = &l[0] + ((&w - &zm * r(2)).max(r(0)) / r(2)).min(zm.clone());
        assert_eq!(printed_eq16, l[0]);
        // Half the workload: L_0 + W/m.
        assert_eq!(interference(&l, &zm), &l[0] + &zm / r(2));
    }
}
