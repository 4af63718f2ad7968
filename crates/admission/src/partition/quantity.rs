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
