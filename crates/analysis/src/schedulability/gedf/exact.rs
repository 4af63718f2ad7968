//! Exact comparisons of sums of fractions, fast.
//!
//! Sums like Σ Cᵢ/Tᵢ have a common denominator far beyond 128 bits, so a
//! decision compares them in two steps: the sum in `f64` with a rigorous
//! error bound (each term is one conversion of numerator and denominator
//! and one division, relative error ≤ 3u; the running sum adds at most
//! n·u·Σ|tᵢ|; u = 2⁻⁵³), and only when the difference is inside that bound,
//! again in arbitrary-precision rationals. The answer is always the exact
//! one; the rationals run for near-ties only.

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::Zero;
use schedlab_model::exact::Ratio;
use std::cmp::Ordering;

/// num/den exactly.
pub fn q(num: i128, den: u128) -> Ratio {
    Ratio(BigRational::new(BigInt::from(num), BigInt::from(den)))
}

/// An integer as a ratio.
pub fn int(v: i128) -> Ratio {
    q(v, 1)
}

/// Σ term(i) for i < n, exactly.
pub fn sum<F: Fn(usize) -> (i128, u128)>(n: usize, term: F) -> Ratio {
    let mut acc = BigRational::zero();
    for i in 0..n {
        let (a, b) = term(i);
        acc += BigRational::new(BigInt::from(a), BigInt::from(b));
    }
    Ratio(acc)
}

/// `a as f64` (round to nearest), through the hardware's 64-bit conversion
/// when `a` fits (the same value: both round the same integer), instead of
/// the software 128-bit one.
#[inline]
fn f64_of_i(a: i128) -> f64 {
    match i64::try_from(a) {
        Ok(x) => x as f64,
        Err(_) => a as f64,
    }
}

/// `b as f64`, as [`f64_of_i`].
#[inline]
fn f64_of_u(b: u128) -> f64 {
    match u64::try_from(b) {
        Ok(x) => x as f64,
        Err(_) => b as f64,
    }
}

/// Σ term(i) (i < n) compared with rhs = num/den, exactly. Every
/// denominator must be positive.
#[inline]
pub fn cmp_sum<F: Fn(usize) -> (i128, u128)>(n: usize, term: F, rhs: (i128, u128)) -> Ordering {
    let mut s = 0.0f64;
    let mut mag = 0.0f64;
    for i in 0..n {
        let (a, b) = term(i);
        let t = f64_of_i(a) / f64_of_u(b);
        s += t;
        mag += t.abs();
    }
    let r = f64_of_i(rhs.0) / f64_of_u(rhs.1);
    // 3u per term and per rhs, n·u for the summation; doubled for margin.
    let err = (n as f64 + 8.0) * 2.0 * f64::EPSILON * (mag + r.abs()) + f64::MIN_POSITIVE;
    let d = s - r;
    if d > err {
        Ordering::Greater
    } else if d < -err {
        Ordering::Less
    } else {
        sum(n, term).0.cmp(&q(rhs.0, rhs.1).0)
    }
}

/// a·b/c·d ≤ e/f style comparisons of two fractions a/b and c/d with
/// 128-bit cross products: `Some(ordering)`, or `None` on overflow.
#[inline]
pub fn cmp_frac(a: u128, b: u128, c: u128, d: u128) -> Option<Ordering> {
    Some(a.checked_mul(d)?.cmp(&c.checked_mul(b)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_64_bit_conversions_round_as_the_128_bit_ones() {
        let mut r = schedlab_model::rng::Rng::new(64);
        for _ in 0..100_000 {
            let shift = r.range_u64(0, 126) as u32;
            let u = (r.next_u64() as u128) << 64 | r.next_u64() as u128;
            let b = u >> shift;
            let a = if r.range_u64(0, 1) == 0 { (b >> 1) as i128 } else { -((b >> 1) as i128) };
            assert_eq!(f64_of_u(b).to_bits(), (b as f64).to_bits(), "{b}");
            assert_eq!(f64_of_i(a).to_bits(), (a as f64).to_bits(), "{a}");
        }
        for a in [i64::MIN as i128, i64::MAX as i128, i64::MAX as i128 + 1, i128::MIN, i128::MAX, 0, -1] {
            assert_eq!(f64_of_i(a).to_bits(), (a as f64).to_bits(), "{a}");
        }
    }

    #[test]
    fn near_ties_are_decided_exactly() {
        // 1/3 + 1/3 + 1/3 = 1 exactly (floats would give 1 or 1 - u).
        assert_eq!(cmp_sum(3, |_| (1, 3), (1, 1)), Ordering::Equal);
        // One part in 2^100 above 1.
        let big: u128 = 1 << 100;
        assert_eq!(cmp_sum(2, |i| if i == 0 { (1, 1) } else { (1, big) }, (1, 1)), Ordering::Greater);
        assert_eq!(cmp_sum(2, |i| if i == 0 { (1, 1) } else { (-1, big) }, (1, 1)), Ordering::Less);
        // Far from a tie: decided by floats.
        assert_eq!(cmp_sum(4, |_| (1, 4), (3, 2)), Ordering::Less);
        assert_eq!(cmp_frac(1, 3, 2, 6), Some(Ordering::Equal));
        assert_eq!(cmp_frac(u128::MAX, 2, 1, 3), None);
    }
}
