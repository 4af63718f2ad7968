//! Quantities with units as they appear in a spec: durations, sizes, colour sets.

mod colors;
mod decimal;
mod duration;
mod size;

pub use colors::ColorSet;
pub use decimal::QuantityError;
pub use duration::{Duration, DURATION_UNITS};
pub use size::{Size, SIZE_UNITS};
