//! Schedulability tests: a registry of named tests, each declaring what it
//! applies to and returning an [`Outcome`] that explains itself (verdict,
//! the deciding task, the bound and the value compared, the slack), or "not
//! applicable" with the reason — never a silent false.
//!
//! Tests are pure functions of the spec: exact arithmetic (integer
//! nanoseconds, rationals) wherever a rounding could flip a verdict.

pub mod clustered;
mod data;
pub mod gedf;
pub mod gfp;
mod input;
pub mod mcs;
mod options;
mod outcome;
pub mod partitioned;
mod pfair;
mod registry;
pub mod reservations;
mod run;
pub mod tardiness;
pub mod uni;
pub mod window_constrained;

pub use data::{Data, Partition};
pub use input::{Input, TaskParams};
pub use options::{ClusterFit, Options, Subjobs};
pub use outcome::{Exactness, Outcome, Verdict};
pub use registry::{find, registry, run_all, Test, TestInfo};
