//! Exact budgets in integer-scaled form: an item of rate p/q keeps its
//! budget b (ns, rational) as the integer B = b·q, so replenishing Δ ns adds
//! p·Δ, consuming δ ns subtracts q·δ, and the exhaustion instant is
//! now + ⌈B/q⌉: no rounding ever accumulates. `i128` when every value fits
//! with a wide margin (checked when the tree is built), arbitrary-precision
//! integers otherwise (huge denominators: nearly coprime periods in ns).

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{Signed, ToPrimitive, Zero};

pub(crate) trait Budget: Clone + Send + std::fmt::Debug + 'static {
    fn zero() -> Self;
    fn from_big(v: &BigInt) -> Self;
    fn is_positive(&self) -> bool;
    /// self += a·d.
    fn add_mul(&mut self, a: &Self, d: u64);
    /// self −= a·d.
    fn sub_mul(&mut self, a: &Self, d: u64);
    /// ⌊self / q⌋ for self > 0 and q > 0, saturating at `u64::MAX`.
    fn floor_div(&self, q: &Self) -> u64;
    /// self / q as a float: a sub-ns remainder, for ordering remainders
    /// (deterministic; exactness is not needed there).
    fn fraction(&self, q: &Self) -> f64;
    /// self ≥ q: at least 1 ns of budget.
    fn at_least_one_ns(&self, q: &Self) -> bool;
    /// |self| < q: a budget of less than 1 ns either way.
    fn below_one_ns(&self, q: &Self) -> bool;
}

impl Budget for i128 {
    #[inline]
    fn zero() -> i128 {
        0
    }
    fn from_big(v: &BigInt) -> i128 {
        v.to_i128().expect("checked to fit when the tree was built")
    }
    #[inline]
    fn is_positive(&self) -> bool {
        *self > 0
    }
    #[inline]
    fn add_mul(&mut self, a: &i128, d: u64) {
        *self = self.saturating_add(a.saturating_mul(d as i128));
    }
    #[inline]
    fn sub_mul(&mut self, a: &i128, d: u64) {
        *self = self.saturating_sub(a.saturating_mul(d as i128));
    }
    fn fraction(&self, q: &i128) -> f64 {
        *self as f64 / *q as f64
    }
    #[inline]
    fn at_least_one_ns(&self, q: &i128) -> bool {
        *self >= *q
    }
    #[inline]
    fn below_one_ns(&self, q: &i128) -> bool {
        -*q < *self && *self < *q
    }
    #[inline]
    fn floor_div(&self, q: &i128) -> u64 {
        u64::try_from(self.div_euclid(*q)).unwrap_or(u64::MAX)
    }
}

impl Budget for BigInt {
    fn zero() -> BigInt {
        Zero::zero()
    }
    fn from_big(v: &BigInt) -> BigInt {
        v.clone()
    }
    fn is_positive(&self) -> bool {
        Signed::is_positive(self)
    }
    fn add_mul(&mut self, a: &BigInt, d: u64) {
        *self += a * d;
    }
    fn sub_mul(&mut self, a: &BigInt, d: u64) {
        *self -= a * d;
    }
    fn fraction(&self, q: &BigInt) -> f64 {
        // Both may exceed f64's range: scale them down together first.
        let shift = q.bits().saturating_sub(900);
        let (b, q) = (self >> shift, q >> shift);
        ToPrimitive::to_f64(&b).unwrap_or(0.0) / ToPrimitive::to_f64(&q).unwrap_or(1.0)
    }
    fn at_least_one_ns(&self, q: &BigInt) -> bool {
        self >= q
    }
    fn below_one_ns(&self, q: &BigInt) -> bool {
        &self.abs() < q
    }
    fn floor_div(&self, q: &BigInt) -> u64 {
        self.div_floor(q).to_u64().unwrap_or(u64::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn both(b: i128, q: i128) -> (u64, u64) {
        (b.floor_div(&q), BigInt::from(b).floor_div(&BigInt::from(q)))
    }

    #[test]
    fn floor_division() {
        assert_eq!(both(7, 3), (2, 2));
        assert_eq!(both(6, 3), (2, 2));
        assert_eq!(both(1, 1_000_000_007), (0, 0));
        let mut b: i128 = 10;
        b.sub_mul(&3, 4);
        assert_eq!(b, -2);
        assert!(!b.is_positive());
        assert!(b.below_one_ns(&3) && !b.below_one_ns(&2));
        b.add_mul(&5, 1);
        assert_eq!(b, 3);
        let mut g = BigInt::from(10);
        g.sub_mul(&BigInt::from(3), 4);
        g.add_mul(&BigInt::from(5), 1);
        assert_eq!(g, BigInt::from(3));
    }
}
