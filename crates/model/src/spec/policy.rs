//! The policy section: which scheduler, and its parameters.

use crate::units::Duration;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Scheduling policies schedlab knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum PolicyName {
    /// Global EDF.
    Gedf,
    /// Partitioned EDF.
    Pedf,
    /// Clustered EDF.
    Cedf,
    /// Global fixed priority.
    Gfp,
    /// Partitioned fixed priority.
    Pfp,
    /// Clustered fixed priority.
    Cfp,
    /// Non-preemptive global EDF.
    NpGedf,
    /// Global least-laxity first.
    Llf,
    /// Partitioned least-laxity first.
    Pllf,
    /// EDF until zero laxity (global).
    Edzl,
    /// Fixed priority with deferred preemption (partitioned).
    Fpds,
    /// Fixed priority with deferred preemption (global).
    GFpds,
    /// Non-preemptive fixed priority (partitioned).
    Fpns,
    /// PD^2 Pfair (global, quantum-based).
    Pd2,
    /// RUN: reduction to uniprocessor (global, server-based).
    Run,
}

/// How a policy's scheduling domains are formed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Domains {
    Global,
    PerCpu,
    PerCluster,
}

impl PolicyName {
    pub const ALL: &'static [PolicyName] = &[
        PolicyName::Gedf,
        PolicyName::Pedf,
        PolicyName::Cedf,
        PolicyName::Gfp,
        PolicyName::Pfp,
        PolicyName::Cfp,
        PolicyName::NpGedf,
        PolicyName::Llf,
        PolicyName::Pllf,
        PolicyName::Edzl,
        PolicyName::Fpds,
        PolicyName::GFpds,
        PolicyName::Fpns,
        PolicyName::Pd2,
        PolicyName::Run,
    ];
    pub fn name(self) -> &'static str {
        match self {
            PolicyName::Gedf => "gedf",
            PolicyName::Pedf => "pedf",
            PolicyName::Cedf => "cedf",
            PolicyName::Gfp => "gfp",
            PolicyName::Pfp => "pfp",
            PolicyName::Cfp => "cfp",
            PolicyName::NpGedf => "np-gedf",
            PolicyName::Llf => "llf",
            PolicyName::Pllf => "pllf",
            PolicyName::Edzl => "edzl",
            PolicyName::Fpds => "fpds",
            PolicyName::GFpds => "g-fpds",
            PolicyName::Fpns => "fpns",
            PolicyName::Pd2 => "pd2",
            PolicyName::Run => "run",
        }
    }
    pub fn domains(self) -> Domains {
        use PolicyName::*;
        match self {
            Pedf | Pfp | Pllf | Fpds | Fpns => Domains::PerCpu,
            Cedf | Cfp => Domains::PerCluster,
            Gedf | Gfp | NpGedf | Llf | Edzl | GFpds | Pd2 | Run => Domains::Global,
        }
    }
    /// Whether the policy preempts a job only between its segments (the
    /// deferred-preemption family), so a segment is never preempted; the
    /// others preempt anywhere and do not honour `preemptible: false` yet.
    pub fn preempts_at_points_only(self) -> bool {
        use PolicyName::*;
        matches!(self, Fpds | GFpds | Fpns)
    }
    /// Fixed-priority families, which use `priorities`.
    pub fn is_fixed_priority(self) -> bool {
        use PolicyName::*;
        matches!(self, Gfp | Pfp | Cfp | Fpds | GFpds | Fpns)
    }
}

/// Bin-packing heuristics for partitioned and clustered policies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Packing {
    /// First fit.
    Ff,
    /// Best fit.
    Bf,
    /// Worst fit.
    Wf,
    /// Next fit.
    Nf,
    /// First fit decreasing.
    Ffd,
    /// Best fit decreasing.
    Bfd,
    /// Worst fit decreasing.
    Wfd,
    /// Next fit decreasing.
    Nfd,
    /// Colour-aware partitioning (EPOS CAP).
    Cap,
    /// Colour-aware partitioning with group splitting (EPOS CAP-GS).
    CapGs,
}

/// How fixed priorities are assigned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Priorities {
    /// Rate monotonic: shorter period, higher priority.
    #[default]
    Rm,
    /// Deadline monotonic: shorter relative deadline, higher priority.
    Dm,
    /// From each task's `priority` field.
    Explicit,
}

/// The policy section of a spec.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PolicySpec {
    /// The scheduler.
    pub name: PolicyName,
    /// Partitioning heuristic for partitioned and clustered policies when
    /// tasks are not pinned; default `wfd`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partitioning: Option<Packing>,
    /// Priority assignment for fixed-priority policies; default `explicit`
    /// when every task has a `priority`, else `rm`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priorities: Option<Priorities>,
    /// Scheduling quantum for quantum-based policies (PD^2); default `1ms`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quantum: Option<Duration>,
    /// PD^2: stagger the quantum boundaries of the CPUs (CPU k's boundaries
    /// are shifted by k·quantum/m) instead of aligning them; default `false`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stagger: Option<bool>,
    /// PD^2: early release (ER-PD^2): a subtask becomes eligible as soon as
    /// its predecessor ran and its job is released, not at its window's
    /// start, so no CPU idles while work is pending; default `false`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub early_release: Option<bool>,
    /// RUN: where the spare capacity goes when total utilisation is below
    /// the CPU count; default `greedy`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slack: Option<Slack>,
}

/// How RUN distributes spare capacity (m − U) over its level-0 servers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Slack {
    /// Fill the largest servers up to rate 1 first, in decreasing order of
    /// rate (what the RUN tools do); maximises unit servers, so RUN behaves
    /// like P-EDF as often as possible.
    #[default]
    Greedy,
    /// Give every level-0 server a share of the slack proportional to its
    /// rate, capped at 1, the remainder passed on (what the RUN thesis text says).
    Proportional,
}

impl PolicySpec {
    pub fn named(name: PolicyName) -> PolicySpec {
        PolicySpec {
            name,
            partitioning: None,
            priorities: None,
            quantum: None,
            stagger: None,
            early_release: None,
            slack: None,
        }
    }
}
