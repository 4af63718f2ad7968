//! Exact comparison of a sum of fractions Σ numᵢ/denᵢ with 1 (utilisation,
//! density), fast: each term as 64.64 fixed point rounded down and up gives
//! an interval around the sum; only when the interval contains 1 (the sum is
//! within n·2⁻⁶⁴ of 1) are the fractions added as big rationals. Integer
//! arithmetic throughout, so no rounding decides a verdict.

use schedlab_model::exact::Ratio;
use std::cmp::Ordering;

const ONE: u128 = 1 << 64;

/// ⌊num·2⁶⁴/den⌋ and whether the division had a remainder (den > 0).
#[inline]
fn fixed(num: u64, den: u64) -> (u128, bool) {
    let n = (num as u128) << 64;
    (n / den as u128, n % den as u128 != 0)
}

/// Σ numᵢ/denᵢ compared with 1, exactly (every den > 0).
pub(crate) fn cmp_one(parts: impl Iterator<Item = (u64, u64)> + Clone) -> Ordering {
    let (mut lo, mut hi) = (0u128, 0u128);
    for (n, d) in parts.clone() {
        let (q, r) = fixed(n, d);
        lo = lo.saturating_add(q);
        hi = hi.saturating_add(q + r as u128);
    }
    if hi < ONE {
        Ordering::Less
    } else if lo > ONE {
        Ordering::Greater
    } else if lo == hi {
        lo.cmp(&ONE)
    } else {
        exact(parts).0.cmp(&Ratio::new(1, 1).0)
    }
}

/// The sum as an exact rational (for explanations).
pub(crate) fn exact(parts: impl Iterator<Item = (u64, u64)>) -> Ratio {
    Ratio::sum(parts.map(|(n, d)| (n as u128, d as u128)))
}

/// An upper bound on Σ numᵢ/denᵢ in 64.64 fixed point (saturating).
pub(crate) fn upper(parts: impl Iterator<Item = (u64, u64)>) -> u128 {
    parts.fold(0u128, |acc, (n, d)| {
        let (q, r) = fixed(n, d);
        acc.saturating_add(q + r as u128)
    })
}

/// 1 in the fixed-point scale of [`upper`].
pub(crate) const FIXED_ONE: u128 = ONE;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thirds_sum_to_exactly_one() {
        let parts = [(1u64, 3u64), (1, 3), (1, 3)];
        assert_eq!(cmp_one(parts.iter().copied()), Ordering::Equal);
        let parts = [(1u64, 3u64), (1, 3), (333_333_334, 1_000_000_000)];
        assert_eq!(cmp_one(parts.iter().copied()), Ordering::Greater);
        let parts = [(1u64, 3u64), (1, 3), (333_333_333, 1_000_000_000)];
        assert_eq!(cmp_one(parts.iter().copied()), Ordering::Less);
    }

    #[test]
    fn near_one_with_huge_coprime_denominators_is_exact() {
        let p1 = 18_446_744_073_709_551_557u64;
        let p2 = 18_446_744_073_709_551_533u64;
        // ⌊p1/2⌋/p1 + ⌈p2/2⌉/p2 = 1 − 1/(2p1) + 1/(2p2) < 1 (p1 > p2? no: p1 > p2, so > 1).
        let parts = [(p1 / 2, p1), (p2 / 2 + 1, p2)];
        let want = exact(parts.iter().copied()).0.cmp(&Ratio::new(1, 1).0);
        assert_eq!(cmp_one(parts.iter().copied()), want);
        assert_ne!(want, Ordering::Equal);
        let parts = [(u64::MAX, 1), (u64::MAX, 1), (u64::MAX, 1)];
        assert_eq!(cmp_one(parts.iter().copied()), Ordering::Greater);
    }
}
