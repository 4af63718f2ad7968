//! Where a task may run, as a policy decided it at admission (from the
//! spec's pinning or from partitioning). Shared by policies, traces and the
//! validator.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A task's placement.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Placement {
    /// May run on any CPU.
    Global,
    /// Bound to one CPU.
    Cpu { cpu: u32 },
    /// Bound to one cluster (its CPUs).
    Cluster { cluster: u32, cpus: Vec<u32> },
}

impl Placement {
    /// The one CPU a task bound to a CPU runs on.
    pub fn cpu(&self) -> Option<u32> {
        match self {
            Placement::Cpu { cpu } => Some(*cpu),
            _ => None,
        }
    }
    /// May the task run on `cpu` (of a platform with `cpus` CPUs)?
    #[inline]
    pub fn allows(&self, cpu: u32) -> bool {
        match self {
            Placement::Global => true,
            Placement::Cpu { cpu: c } => *c == cpu,
            Placement::Cluster { cpus, .. } => cpus.contains(&cpu),
        }
    }
}
