//! CPU reservations: a tree of groups, each holding a budget Q every period
//! P on every CPU (the hierarchical multiprocessor reservations of OSPERT
//! 2009, paper 2, notes `seed-003-ospert.md` §2.1–2.3).
//!
//! A group's reservation (Q, P) is replicated on every CPU (or given per CPU
//! with `budgets`); on each CPU the group has one server, and the servers
//! of a CPU are scheduled by EDF on their deadlines. Groups nest: a
//! subgroup's servers run inside its parent's. Tasks join a group by being
//! listed in its `tasks`.
//!
//! Why `tasks:` lists in the groups rather than a `group:` key on each
//! task: the tree is then one self-contained section — it can be added to,
//! removed from or swapped under a task set without touching the tasks —
//! and it reads like the cgroup hierarchy it maps onto (a cgroup lists its
//! members; a task does not name its cgroup). The price, a task listed in
//! two groups, is a validation error with both paths.
//!
//! A group with both subgroups and tasks of its own keeps those tasks in a
//! leaf ("ghost") queue, a server of its own with `leaf_budget` every
//! `leaf_period`, scheduled among the subgroups' servers (the paper's
//! `rt_task_runtime_us` / `rt_task_period_us`). The tree form makes cycles
//! impossible: a group is nested inside its parent's `groups` list.

use crate::units::Duration;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The schema of a group needs `budget` or `budgets`, not both.
fn budget_or_budgets(schema: &mut schemars::Schema) {
    schema.insert("oneOf".into(), serde_json::json!([{"required": ["budget"]}, {"required": ["budgets"]}]));
}

/// A group of tasks with a CPU reservation: `budget` of CPU time every
/// `period` on each CPU.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = budget_or_budgets)]
pub struct Group {
    /// Unique name among all groups, e.g. `video`.
    pub name: String,
    /// The budget Q available every period on each CPU, e.g. `2ms`
    /// (at most the period). Required unless `budgets` is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<Duration>,
    /// Per-CPU budgets instead of one for all: one entry per CPU, in CPU
    /// order; `0ms` gives the group no server on that CPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budgets: Option<Vec<Duration>>,
    /// The reservation period P, which is also the servers' relative deadline, e.g. `10ms`.
    pub period: Duration,
    /// Names of the tasks that belong to the group directly (each task in
    /// at most one group).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tasks: Vec<String>,
    /// Nested groups, served inside this group's reservation.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<Group>,
    /// Budget per CPU of the leaf queue that serves the group's own
    /// `tasks` when it also has `groups`; required then, refused otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leaf_budget: Option<Duration>,
    /// Period of the leaf queue's servers; default: the group's period.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leaf_period: Option<Duration>,
}

impl Group {
    /// A group with one budget for every CPU, no tasks and no subgroups.
    pub fn new(name: impl Into<String>, budget: Duration, period: Duration) -> Group {
        Group {
            name: name.into(),
            budget: Some(budget),
            budgets: None,
            period,
            tasks: Vec::new(),
            groups: Vec::new(),
            leaf_budget: None,
            leaf_period: None,
        }
    }
    /// The budget on CPU `cpu`: its `budgets` entry, or `budget` (0 when neither gives one).
    pub fn budget_on(&self, cpu: usize) -> Duration {
        match &self.budgets {
            Some(list) => list.get(cpu).copied().unwrap_or(Duration::ZERO),
            None => self.budget.unwrap_or(Duration::ZERO),
        }
    }
}

/// The leaf queue of a group with subgroups and tasks of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Leaf {
    /// Budget on each CPU where the group has a server.
    pub budget: Duration,
    pub period: Duration,
}

/// One group of the tree, flattened: what the policy, the analysis and the
/// runtime read (see [`reservation_nodes`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReservationNode {
    pub name: String,
    /// The spec path of the group, e.g. `reservations[1].groups[0]`.
    pub path: String,
    /// Index of the parent node; `None` for a top-level group.
    pub parent: Option<usize>,
    /// Indices of the child nodes, in spec order.
    pub children: Vec<usize>,
    /// Depth in the tree; 0 for a top-level group.
    pub depth: usize,
    /// The budget on each CPU (0: no server on that CPU).
    pub budgets: Vec<Duration>,
    pub period: Duration,
    /// Indices (into `Spec::tasks`) of the tasks listed in the group.
    pub tasks: Vec<usize>,
    /// The leaf queue serving `tasks` when the group also has children.
    pub leaf: Option<Leaf>,
}

impl ReservationNode {
    /// The budget on CPU `cpu` of the leaf queue: the leaf budget where the
    /// group has a server, else 0.
    pub fn leaf_budget_on(&self, cpu: usize) -> Duration {
        match self.leaf {
            Some(l) if self.budgets.get(cpu).is_some_and(|b| b.0 > 0) => l.budget,
            _ => Duration::ZERO,
        }
    }
}

/// The groups of `groups` flattened in pre-order (a parent before its
/// children), for a platform of `cpus` CPUs; task names are resolved
/// against `task_names` (names that match no task are left out: validation
/// refuses them before anything runs).
pub fn reservation_nodes(groups: &[Group], cpus: u32, task_names: &[&str]) -> Vec<ReservationNode> {
    fn walk(
        out: &mut Vec<ReservationNode>,
        g: &Group,
        path: String,
        parent: Option<usize>,
        depth: usize,
        cpus: u32,
        names: &[&str],
    ) {
        let me = out.len();
        let tasks = g.tasks.iter().filter_map(|t| names.iter().position(|n| n == t)).collect();
        let leaf = match (g.groups.is_empty(), g.leaf_budget) {
            (false, Some(budget)) => Some(Leaf { budget, period: g.leaf_period.unwrap_or(g.period) }),
            _ => None,
        };
        out.push(ReservationNode {
            name: g.name.clone(),
            path: path.clone(),
            parent,
            children: Vec::new(),
            depth,
            budgets: (0..cpus as usize).map(|c| g.budget_on(c)).collect(),
            period: g.period,
            tasks,
            leaf,
        });
        if let Some(p) = parent {
            out[p].children.push(me);
        }
        for (k, child) in g.groups.iter().enumerate() {
            walk(out, child, format!("{path}.groups[{k}]"), Some(me), depth + 1, cpus, names);
        }
    }
    let mut out = Vec::new();
    for (k, g) in groups.iter().enumerate() {
        walk(&mut out, g, format!("reservations[{k}]"), None, 0, cpus, task_names);
    }
    out
}
