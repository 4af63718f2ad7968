//! Quantities with units as they appear in a spec: durations, sizes,
//! bandwidths, ratios, colour sets.

mod bandwidth;
mod colors;
mod decimal;
mod duration;
mod ratio;
mod size;

pub use bandwidth::Bandwidth;
pub use colors::ColorSet;
pub use decimal::QuantityError;
pub use duration::{Duration, DURATION_UNITS};
pub use ratio::Ratio;
pub use size::{Size, SIZE_UNITS};
