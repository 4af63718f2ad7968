//! Synthetic counts, per CPU and per task, following the model's causes.

/// Cumulative counts since the run started. Kept as `f64` accumulators
/// (the model's quantities are rates); read as whole counts, rounded down,
/// so a reading never decreases.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Counts {
    /// Instructions retired.
    pub instructions: f64,
    /// Cycles spent running jobs.
    pub cycles: f64,
    /// Shared-cache references.
    pub references: f64,
    /// Shared-cache misses (contention, bandwidth-free baseline beyond the
    /// share, and the lines reloaded on resume).
    pub misses: f64,
    /// Loads that hit a line modified on another CPU (HITM).
    pub hitm: f64,
}

/// A reading of [`Counts`] in whole events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Reading {
    pub instructions: u64,
    pub cycles: u64,
    pub references: u64,
    pub misses: u64,
    pub hitm: u64,
}

impl Counts {
    pub fn reading(&self) -> Reading {
        Reading {
            instructions: self.instructions as u64,
            cycles: self.cycles as u64,
            references: self.references as u64,
            misses: self.misses as u64,
            hitm: self.hitm as u64,
        }
    }
}
