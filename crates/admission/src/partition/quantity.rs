//! Exact sums and comparisons of sizes. When the least common multiple D of
//! the denominators fits in a u64, every size is an integer count of 1/D
//! (in a u128, with checked sums); otherwise the arithmetic falls back to
//! arbitrary-precision rationals. Either way no float decides a fit.

use super::size::Share;
use schedlab_model::exact::{hyperperiod, Ratio};
use std::ops::{Add, Sub};

/// An exact non-negative quantity in one of the two representations.
pub(crate) trait Quantity: Clone + Ord {
    fn zero() -> Self;
    fn plus(&self, other: &Self) -> Self;
    /// self − other, for self ≥ other.
    fn minus(&self, other: &Self) -> Self;
    /// Whether load + size ≤ capacity.
    fn fits(load: &Self, size: &Self, capacity: &Self) -> bool {
        load.plus(size) <= *capacity
    }
}

impl Quantity for u128 {
    fn zero() -> u128 {
        0
    }
    fn plus(&self, other: &u128) -> u128 {
        // Scaled sums were checked to fit when the scale was chosen.
        self.add(other)
    }
    fn minus(&self, other: &u128) -> u128 {
        self.sub(other)
    }
}

impl Quantity for Ratio {
    fn zero() -> Ratio {
        Ratio::zero()
    }
    fn plus(&self, other: &Ratio) -> Ratio {
        Ratio(&self.0 + &other.0)
    }
    fn minus(&self, other: &Ratio) -> Ratio {
        Ratio(&self.0 - &other.0)
    }
}

/// An exact rational with a float beside it and a bound on the float's
/// error: a comparison (and a fit test) is decided by the floats when they
/// differ by more than their error bounds, which is then the exact answer,
/// and by the exact values otherwise. The exact arithmetic (a gcd per
/// operation on big integers) is what packing costs when the denominators'
/// common multiple exceeds 64 bits (periods of 10–100 whole ms), and a fit
/// test needs it only when a sum comes within ~1e-12 of a capacity.
#[derive(Debug, Clone)]
pub(crate) struct Approx {
    f: f64,
    /// |f − exact| ≤ err.
    err: f64,
    exact: Ratio,
}

/// Relative rounding error of one float operation, with room for the
/// rounding of the bounds' own arithmetic.
const EPS: f64 = 4.0 * f64::EPSILON;

impl Approx {
    /// `num / den`, den > 0.
    pub(crate) fn new(num: u128, den: u128) -> Approx {
        let f = num as f64 / den as f64;
        // Two conversions and a division, each within EPS/4 relative.
        Approx { f, err: EPS * f, exact: Ratio::new(num, den) }
    }

    pub(crate) fn exact(&self) -> &Ratio {
        &self.exact
    }

    /// The order of `self` and `other` when the floats decide it.
    #[inline]
    fn clear(&self, other: &Approx) -> Option<std::cmp::Ordering> {
        let gap = self.f - other.f;
        let margin = self.err + other.err;
        if gap > margin {
            Some(std::cmp::Ordering::Greater)
        } else if -gap > margin {
            Some(std::cmp::Ordering::Less)
        } else {
            None
        }
    }
}

impl PartialEq for Approx {
    fn eq(&self, other: &Approx) -> bool {
        self.cmp(other) == std::cmp::Ordering::Equal
    }
}

impl Eq for Approx {}

impl PartialOrd for Approx {
    fn partial_cmp(&self, other: &Approx) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Approx {
    fn cmp(&self, other: &Approx) -> std::cmp::Ordering {
        self.clear(other).unwrap_or_else(|| self.exact.cmp(&other.exact))
    }
}

impl Quantity for Approx {
    fn zero() -> Approx {
        Approx { f: 0.0, err: 0.0, exact: Ratio::zero() }
    }
    fn plus(&self, other: &Approx) -> Approx {
        let f = self.f + other.f;
        Approx { f, err: self.err + other.err + EPS * f.abs(), exact: Ratio(&self.exact.0 + &other.exact.0) }
    }
    fn minus(&self, other: &Approx) -> Approx {
        let f = self.f - other.f;
        Approx { f, err: self.err + other.err + EPS * f.abs(), exact: Ratio(&self.exact.0 - &other.exact.0) }
    }
    fn fits(load: &Approx, size: &Approx, capacity: &Approx) -> bool {
        let f = load.f + size.f;
        let sum = Approx { f, err: load.err + size.err + EPS * f.abs(), exact: Ratio::zero() };
        match sum.clear(capacity) {
            Some(o) => o != std::cmp::Ordering::Greater,
            None => Ratio(&load.exact.0 + &size.exact.0) <= capacity.exact,
        }
    }
}

/// Sizes and capacities as scaled integers, when everything fits: returns
/// (D, sizes in 1/D, capacities in 1/D).
pub(crate) fn scaled(sizes: &[Share], capacities: &[u32]) -> Option<(u64, Vec<u128>, Vec<u128>)> {
    let d = hyperperiod(sizes.iter().map(|s| s.den))?;
    let mut total: u128 = 0;
    let mut out = Vec::with_capacity(sizes.len());
    for s in sizes {
        let v = (s.num as u128).checked_mul((d / s.den) as u128)?;
        total = total.checked_add(v)?;
        out.push(v);
    }
    let mut caps = Vec::with_capacity(capacities.len());
    for &c in capacities {
        let v = (c as u128).checked_mul(d as u128)?;
        // Every load plus a size stays below total + the largest capacity.
        total.checked_add(v)?;
        caps.push(v);
    }
    Some((d, out, caps))
}

/// Converts a scaled quantity back to a fraction.
pub(crate) fn unscale(v: u128, d: u64) -> Ratio {
    Ratio::new(v, d as u128)
}
