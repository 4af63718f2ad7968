//! schedlab's scheduling policies, each written once against the
//! driver-neutral interface in [`interface`] and driven by the simulator, the
//! Linux runtime's dispatcher and the validator's replay.

pub mod build;
pub mod interface;

pub use build::{build, AdmissionError};
pub use interface::{Conformance, Cpu, Job, JobId, JobView, Kernel, Policy, PolicyInfo, Priority, Time, TimerId};
