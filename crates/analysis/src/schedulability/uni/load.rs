//! Exact comparison of a sum of fractions Σ numᵢ/denᵢ with 1 (utilisation,
//! density), fast: each term as 64.64 fixed point rounded down and up gives
//! an interval around the sum; only when the interval contains 1 (the sum is
//! within n·2⁻⁶⁴ of 1) are the fractions added as big rationals. Integer
//! arithmetic throughout, so no rounding decides a verdict.

use schedlab_model::exact::Ratio;
use std::cmp::Ordering;

pub(crate) const ONE: u128 = 1 << 64;

/// ⌊num·2⁶⁴/den⌋ and whether the division had a remainder (den > 0).
#[inline]
pub(crate) fn fixed(num: u64, den: u64) -> (u128, bool) {
    if num < den && den < 1 << 32 {
        // Long division in two 32-bit digits, in hardware 64-bit division.
        let hi = (num << 32) / den;
        let rem = (num << 32) % den;
        let lo = (rem << 32) / den;
        let r = (rem << 32) % den;
        return (((hi as u128) << 32) | lo as u128, r != 0);
    }
    let n = (num as u128) << 64;
    (n / den as u128, !n.is_multiple_of(den as u128))
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

/// Binary GCD (no 128-bit division).
fn gcd(mut a: u128, mut b: u128) -> u128 {
    if a == 0 || b == 0 {
        return a | b;
    }
    let shift = (a | b).trailing_zeros();
    a >>= a.trailing_zeros();
    loop {
        b >>= b.trailing_zeros();
        if a > b {
            std::mem::swap(&mut a, &mut b);
        }
        b -= a;
        if b == 0 {
            return a << shift;
        }
    }
}

/// The sum as an exact rational (for explanations): in reduced u128
/// fractions while they fit (fast), else in big rationals.
pub(crate) fn exact(parts: impl Iterator<Item = (u64, u64)> + Clone) -> Ratio {
    let small = || -> Option<(u128, u128)> {
        let (mut num, mut den) = (0u128, 1u128);
        for (n, d) in parts.clone() {
            // lcm(den, d) with one 128-bit remainder and a 64-bit gcd.
            let g = gcd((den % d as u128) as u64 as u128, d as u128);
            let l = (den / g).checked_mul(d as u128)?;
            num = num.checked_mul(l / den)?.checked_add((n as u128).checked_mul(l / d as u128)?)?;
            den = l;
        }
        let r = gcd(num, den);
        let (num, den) = if r > 1 { (num / r, den / r) } else { (num, den) };
        Some((num, den))
    };
    match small() {
        Some((num, den)) => Ratio(num_rational::BigRational::new_raw(num.into(), den.into())),
        None => Ratio::sum(parts.map(|(n, d)| (n as u128, d as u128))),
    }
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
    fn small_and_big_sums_agree() {
        let cases: [&[(u64, u64)]; 3] =
            [&[(1, 3), (1, 6), (5, 10)], &[(7, 1_000_003), (11, 999_983), (13, 1_000_033), (3, 999_979)], &[(0, 5)]];
        for parts in cases {
            let big = Ratio::sum(parts.iter().map(|&(n, d)| (n as u128, d as u128)));
            assert_eq!(exact(parts.iter().copied()), big);
        }
    }

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
