//! schedlab's model: the spec that every command shares (platform, policy,
//! overheads, tasks), with exact units, parsing with positioned errors,
//! validation, a summary, deterministic writers, the JSON Schema, and the
//! frozen PRNG that every seeded part of schedlab draws from. The task-set
//! generators are the `schedlab-gen` crate.

pub mod emit;
pub mod error;
pub mod exact;
pub mod load;
pub mod overheads;
pub mod overrides;
pub mod policy_event;
pub mod rng;
pub mod schema;
pub mod source;
pub mod spec;
pub mod summary;
pub mod units;
pub mod validate;

pub use error::{Diagnostic, SpecError};
pub use load::{load_path, load_str, Loaded};
pub use policy_event::{CounterReading, PolicyEvent};
pub use source::Format;
pub use spec::{
    Cache, Capacity, Class, Family, Group, MegataskPacking, Megatasks, MemoryMode, Meta, Mtt, Packing, Placement,
    Platform, PolicyDescriptor, PolicyName, PolicySpec, PreemptionKind, Priorities, ReservationNode, Segment,
    SegmentKind, Slack, Spec, Task, ThrottleCounter, ThrottleMode, WssOwner,
};
pub use summary::Summary;
pub use units::{Bandwidth, ColorSet, Duration, Ratio, Size};

/// The version written into artefacts (`schedlab 0.1.0`).
pub const TOOL: &str = concat!("schedlab ", env!("CARGO_PKG_VERSION"));
