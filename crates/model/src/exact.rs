//! Exact arithmetic on task parameters: rational sums (utilisation, density)
//! with arbitrary precision, and the hyperperiod with overflow detection.

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{ToPrimitive, Zero};

/// An exact, arbitrary-precision rational number.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Ratio(pub num_rational::BigRational);

impl Ratio {
    pub fn zero() -> Ratio {
        Ratio(num_rational::BigRational::zero())
    }
    pub fn new(num: u128, den: u128) -> Ratio {
        Ratio(num_rational::BigRational::new(BigInt::from(num), BigInt::from(den)))
    }
    /// Σ num/den over the pairs; every den must be non-zero.
    pub fn sum(pairs: impl IntoIterator<Item = (u128, u128)>) -> Ratio {
        let mut acc = num_rational::BigRational::zero();
        for (n, d) in pairs {
            acc += num_rational::BigRational::new(BigInt::from(n), BigInt::from(d));
        }
        Ratio(acc)
    }
    /// Is the value strictly greater than the integer `k`?
    pub fn gt_int(&self, k: u128) -> bool {
        self.0 > num_rational::BigRational::from_integer(BigInt::from(k))
    }
    /// Nearest float, for reporting.
    pub fn to_f64(&self) -> f64 {
        self.0.to_f64().unwrap_or(f64::INFINITY)
    }
    /// `numerator/denominator` in lowest terms.
    pub fn to_fraction(&self) -> String {
        format!("{}/{}", self.0.numer(), self.0.denom())
    }
}

/// Least common multiple of the values, or `None` when it exceeds u64 (or a
/// value is 0).
pub fn hyperperiod(values: impl IntoIterator<Item = u64>) -> Option<u64> {
    let mut l: u64 = 1;
    for v in values {
        if v == 0 {
            return None;
        }
        let g = l.gcd(&v);
        l = (l / g).checked_mul(v)?;
    }
    Some(l)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn exact_sums_do_not_round() {
        // 1/3 + 1/3 + 1/3 is exactly 1: not above 1, whereas floats may say so.
        let u = Ratio::sum([(1, 3), (1, 3), (1, 3)]);
        assert!(!u.gt_int(1));
        assert_eq!(u.to_fraction(), "1/1");
        let u = Ratio::sum([(1, 3), (1, 3), (1, 3), (1, u64::MAX as u128)]);
        assert!(u.gt_int(1));
    }
    #[test]
    fn hyperperiods() {
        assert_eq!(hyperperiod([25, 50, 100, 200]), Some(200));
        assert_eq!(hyperperiod([3, 7, 11]), Some(231));
        assert_eq!(hyperperiod([u64::MAX, u64::MAX - 1]), None);
        assert_eq!(hyperperiod([0, 1]), None);
    }
}
