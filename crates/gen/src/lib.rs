//! Task-set generators: seeded, deterministic, recorded in the output. They
//! turn the options of `schedlab gen` into a spec of `schedlab_model`.
//!
//! * [`util`]     – utilisation vectors with a fixed sum (UUniFast, UUniFast-Discard,
//!   RandFixedSum, Dirichlet-Rescale, exact bounded rejection);
//! * [`dist`]     – the named per-task utilisation distributions of the UNC / EPOS
//!   studies and the "fill up to a cap" procedure;
//! * [`period`]   – integer-nanosecond periods (uniform, log-uniform, list, harmonic);
//! * [`deadline`] – implicit and constrained relative deadlines;
//! * [`mtt`]      – random sets of multithreaded tasks (Calandrino's MTT sets);
//! * [`prem`]     – PREM sets of the memory-centric scheduling evaluation (Sections, phases, one task per CPU);
//! * [`params`]   – the options of `schedlab gen`, shared by the CLI and Python;
//! * [`taskset`]  – turning the options into a spec.
//!
//! Every sampler takes the PRNG (`schedlab_model::rng::Rng`, frozen
//! xoshiro256** shared with the simulator and the runtime) explicitly, so a task set is a pure function of
//! its seed and parameters. Impossible parameters yield a [`GenError`], never a
//! panic.

pub mod deadline;
pub mod dist;
pub mod mtt;
pub mod params;
pub mod period;
pub mod prem;
pub mod taskset;
pub mod util;

#[cfg(test)]
mod testutil;

pub use mtt::{MttGen, MttWss};
pub use params::{CacheSpec, GenOptions, GenParams, PeriodSpec, UtilMethod, WssSpec};
pub use taskset::generate;

use std::fmt;

/// Error returned by every generator.
#[derive(Debug, Clone, PartialEq)]
pub enum GenError {
    /// The parameters describe an empty or ill-formed sampling space
    /// (e.g. `n = 0`, NaN, `lo > hi`, `total > n * hi`).
    InvalidParameter(String),
    /// The parameters are valid but a bounded retry loop gave up
    /// (e.g. UUniFast-Discard never produced a vector with all `u_i <= 1`).
    Exhausted(String),
}

impl GenError {
    pub(crate) fn invalid(msg: impl Into<String>) -> Self {
        GenError::InvalidParameter(msg.into())
    }
    pub(crate) fn exhausted(msg: impl Into<String>) -> Self {
        GenError::Exhausted(msg.into())
    }
}

impl fmt::Display for GenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GenError::InvalidParameter(m) => write!(f, "invalid generator parameter: {m}"),
            GenError::Exhausted(m) => write!(f, "generator gave up: {m}"),
        }
    }
}

impl std::error::Error for GenError {}
