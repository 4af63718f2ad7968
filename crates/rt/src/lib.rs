//! schedlab's Linux runtime: runs a spec on real threads of a stock kernel,
//! under the spec's policy, measured, traced and restored afterwards.
//!
//! - [`runtime::run`]: one run (plan → privileges → guard → backend →
//!   restore → trace); see `docs/runtime.md`.
//! - [`backend`]: the backends (`kernel` here; the seam for `dispatch`).
//! - Foundation: [`privilege`], [`guard`] (restore), [`signals`],
//!   [`journal`] (crash journal), [`watchdog`], [`lock`], [`state`]
//!   (machine snapshot).
//! - Jobs: [`arrivals`], [`execution`], [`worker`] (the job loop), [`job`]
//!   (what a job body sees), [`point`] (preemption points, self-suspension), [`timing`] (timing exceptions), [`workload`],
//!   [`calibrate`], [`colour`] (page colouring of working sets).
//! - Kernel interfaces: [`clock`], [`sched`], [`cpuset`], [`rtgroup`] (reservations as RT cgroups), [`ftrace`].
//! - Tracing: [`record`], [`tracebuf`] (per-thread lock-free rings), [`stall`],
//!   [`assemble`], [`overheads`].
//! - [`probe`]: the timer wake-up latency probe; [`idle`]: what idle CPUs do during a run.

#[cfg(not(target_os = "linux"))]
compile_error!("schedlab-rt runs on Linux only");

pub mod assemble;
pub mod backend;
pub mod calibrate;
pub mod clock;
pub mod colour;
pub mod config;
mod control_file;
pub mod counters;
pub mod cpuset;
pub mod error;
pub mod footprint;
pub mod ftrace;
pub mod guard;
pub mod idle;
pub mod job;
pub mod journal;
pub mod lock;
pub mod overheads;
pub mod overrun;
pub mod plan;
pub mod point;
pub mod privilege;
pub mod probe;
pub mod record;
pub mod rtgroup;
pub mod runtime;
pub mod sched;
pub mod signals;
pub mod stall;
pub mod state;
pub mod stop;
pub mod timing;
pub mod tracebuf;
pub mod watchdog;
pub mod worker;
pub mod workload;

pub use config::{BackendKind, PolicyFactory, RunConfig};
pub use error::{RunError, EXIT_BAD_INPUT, EXIT_FAILURE, EXIT_PRIVILEGE};
pub use job::{JobCtx, JobError};
pub use runtime::{prepare, run, RunOutcome};
pub use schedlab_jobs::{Execution, MissPolicy, Sporadic};
pub use stop::StopReason;
pub use workload::{JobBody, WorkloadSpec};
