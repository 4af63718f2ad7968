//! schedlab's schedule trace (schema version 2, reading 1): events, header, encodings,
//! statistics and exporters.
//!
//! - [`event`], [`header`]: the schema (see `docs/trace-format.md`);
//! - [`jsonl`], [`binary`]: the two encodings, streaming readers and writers;
//! - [`file`](mod@file): open a file of either encoding, create one by extension;
//! - [`metrics`]: the streaming per-job / per-task / per-CPU accumulator;
//! - [`export`]: Perfetto JSON, SVG Gantt chart, CSV job table, stats text.

pub mod binary;
pub mod error;
pub mod event;
pub mod export;
pub mod file;
pub mod header;
pub mod histogram;
pub mod jsonl;
pub mod memory_token;
pub mod metrics;
pub mod mtt_span;
pub mod schema;
pub mod spread;
pub mod varint;

mod fasthash;

pub use binary::{BinaryReader, BinaryWriter};
pub use error::{Position, TraceError};
pub use event::{Event, JobRef, OverheadKind, PolicyEvent, SwitchReason, Time, OLDEST_SCHEMA_VERSION, SCHEMA_VERSION};
pub use file::{create, open, read_all, write_all, Encoding, TraceReader, TraceWriter};
pub use header::{Header, Placement, Source};
pub use jsonl::{JsonlReader, JsonlWriter};
pub use metrics::{
    CpuStats, Interval, JobRecord, JobSink, JobStatus, Metrics, MetricsReport, OverheadStats, TaskStats, Totals,
};
