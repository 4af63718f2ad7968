//! Other tools' formats, read and written by schedlab (`docs/interop.md`):
//!
//! - [`sched_trace`]: LITMUS^RT's binary per-CPU schedule records;
//! - [`feather_trace`]: feather-trace's binary overhead timestamps, to the
//!   overhead CSV;
//! - [`ftrace`]: Linux scheduler events as text (tracefs `trace`,
//!   `trace-cmd report`, `perf script`), to a schedlab trace;
//! - [`rtapp`]: rt-app's JSON workloads, both ways;
//! - [`simso`]: SimSo's XML configurations, both ways.
//!
//! Every reader streams its input and fails with the file and the byte offset
//! (or line) of the first problem; none panics on bad input.

pub mod error;
pub mod feather_trace;
pub mod ftrace;
pub mod placement;
pub mod rtapp;
pub mod sched_trace;
pub mod simso;

mod lenient_json;
mod xml;

pub use error::{At, InteropError};
