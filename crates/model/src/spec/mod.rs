//! The spec: one description of a real-time system (platform, policy,
//! overheads, tasks), shared by every command.

mod capacity;
pub mod descriptor;
mod mtt;
mod placement;
mod platform;
mod policy;
pub mod prem;
mod reservation;
mod segment;
mod task;

pub use capacity::Capacity;
pub use descriptor::{Family, Param, PolicyDescriptor, PreemptionKind, DESCRIPTORS};
pub use mtt::{Mtt, WssOwner};
pub use placement::Placement;
pub use platform::{Cache, Memory, Platform, DEFAULT_PAGE};
pub use policy::{
    Domains, MegataskPacking, Megatasks, Packing, PolicyName, PolicySpec, Priorities, Slack, ThrottleCounter,
    ThrottleMode,
};
pub use prem::{MemoryMode, Role, Section};
pub use reservation::{reservation_nodes, Group, Leaf, ReservationNode};
pub use segment::{Segment, SegmentKind};
pub use task::{Class, Task};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where a spec came from, so any artefact can be reproduced.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Meta {
    /// Free text describing the system.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The tool and version that wrote the file, e.g. `schedlab 0.1.0`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The seed of the random generator that produced the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// The generator's parameters, in the `schedlab gen` option syntax.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generator: Option<String>,
}

/// A real-time system: the platform, the scheduling policy, an optional
/// overhead model and the task set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "schedlab spec")]
pub struct Spec {
    /// Provenance: description, tool, seed, generator parameters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The hardware.
    pub platform: Platform,
    /// The scheduling policy; required by analysis, simulation and runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<PolicySpec>,
    /// Path of an overhead-model CSV, relative to the spec file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overheads: Option<String>,
    /// The tasks, in order; the order is the tie-break index.
    pub tasks: Vec<Task>,
    /// CPU reservations: a tree of groups, each with a budget every period
    /// on every CPU, holding tasks by name (the `hcbs` policy).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reservations: Option<Vec<Group>>,
    /// Multithreaded tasks: groups of tasks with one period that share one
    /// working set, listing their tasks by name (see `docs/spec.md`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mtt: Option<Vec<Mtt>>,
}

impl Spec {
    /// The reservation groups flattened in pre-order (empty without `reservations`).
    pub fn reservation_nodes(&self) -> Vec<ReservationNode> {
        let names: Vec<&str> = self.tasks.iter().map(|t| t.name.as_str()).collect();
        reservation_nodes(self.reservations.as_deref().unwrap_or(&[]), self.platform.cpus, &names)
    }
}
