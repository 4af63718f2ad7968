//! schedlab's schedule trace (schema version 1): events, header, encodings,
//! statistics and exporters.

pub mod event;
pub mod header;

pub use event::{Event, JobRef, OverheadKind, SwitchReason, Time, SCHEMA_VERSION};
pub use header::{Header, Placement, Source};
