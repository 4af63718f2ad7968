//! schedlab's scheduling policies, each written once against the
//! driver-neutral interface in [`interface`] and driven by the simulator, the
//! Linux runtime's dispatcher and the validator's replay.
//!
//! The job-level priority-driven policies (G-/P-/C-EDF, NP-G-EDF,
//! G-/P-/C-FP, LLF, P-LLF, EDZL) share one mechanism: a linking scheduler per
//! scheduling domain ([`domain`]), parameterised by a job order ([`order`]).

mod boundaries;
pub mod build;
mod cache_aware;
mod counters;
mod cpu_order;
pub mod descriptor;
mod domain;
pub mod driver;
mod edf;
mod edzl;
mod engine;
mod flat_min;
mod fp;
mod hcbs;
mod heap;
pub mod interface;
mod llf;
pub mod mcs;
mod order;
mod pd2;
mod placement;
pub mod profiler;
mod rate;
mod ready;
mod run;
mod server;
mod throttle;

pub use build::{build, build_with, AdmissionError, BuildOptions};
pub use driver::{Delivery, Driver, Host, ProtocolError, Run, Violation};
pub use interface::{
    Activity, Conformance, Counters, CountersUnavailable, Cpu, Job, JobId, JobView, Kernel, Policy, PolicyEvent,
    PolicyInfo, Preemption, Priority, Rate, Time, TimerId,
};
pub use llf::DEFAULT_LLF_HYSTERESIS;
pub use placement::DEFAULT_PACKING;
pub use throttle::{DEFAULT_QUANTUM as DEFAULT_SAMPLING_QUANTUM, DEFAULT_THRESHOLD, SAMPLE_TAG as THROTTLE_SAMPLE_TAG};
