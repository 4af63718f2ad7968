//! What the tests read: the task parameters in integer nanoseconds, the
//! CPUs and the policy, built once from a spec (or directly, for batches).

use super::options::Options;
use schedlab_admission::colour::{colour_partition, ColourError, ColourPartition};
use schedlab_model::{PolicySpec, Spec};

/// One task's parameters, in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct TaskParams {
    pub wcet: u64,
    /// Relative deadline.
    pub deadline: u64,
    /// Period or minimum inter-arrival time.
    pub period: u64,
    /// Release of the first job.
    pub offset: u64,
    /// Maximum release jitter.
    pub jitter: u64,
}

impl TaskParams {
    /// An implicit-deadline task.
    pub fn implicit(wcet: u64, period: u64) -> TaskParams {
        TaskParams { wcet, deadline: period, period, offset: 0, jitter: 0 }
    }
    /// A task with its own relative deadline.
    pub fn constrained(wcet: u64, deadline: u64, period: u64) -> TaskParams {
        TaskParams { wcet, deadline, period, offset: 0, jitter: 0 }
    }
}

/// A task set as the tests see it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Input {
    pub cpus: u32,
    pub tasks: Vec<TaskParams>,
    /// Task names for explanations; empty means `tasks[i]`.
    pub names: Vec<String>,
    /// Explicit fixed priorities (1 is the highest), when the spec gives them.
    pub priorities: Vec<Option<u32>>,
    /// Working-set sizes in bytes (0: unknown), for cache-related delays.
    pub wss: Vec<u64>,
    /// Tasks pinned to a CPU (`cpu`) or a cluster (`cluster`) by the spec;
    /// partitioned and clustered packing respect them. Empty: none pinned.
    pub cpu: Vec<Option<u32>>,
    pub cluster: Vec<Option<u32>>,
    /// For a subset of a task set (one CPU or cluster of a partition): each
    /// task's index in the whole set, so explanations name it as the user
    /// knows it. Empty: the tasks are the whole set.
    pub index: Vec<usize>,
    /// CPU clusters, when the platform defines them.
    pub clusters: Option<Vec<Vec<u32>>>,
    pub policy: Option<PolicySpec>,
    /// Each task's class (empty: every task `hrt`); tests that treat
    /// classes differently read it (`hcbs.msf`: a best-effort task may run
    /// in the background).
    pub classes: Vec<schedlab_model::Class>,
    /// The reservation groups (`reservations`), flattened parent first;
    /// empty without them.
    pub groups: Vec<super::reservations::GroupParams>,
    /// Test parameters the spec has no field for (blocking, FPDS regions,
    /// packing heuristics, admission and cluster tests).
    pub options: Options,
    /// The colour-aware partition (`partitioning: cap` or `cap-gs`): every
    /// task is then pinned (`cpu`) where CAP / CAP-GS put it, the placement
    /// the policy runs; or why CAP refused or failed. `None` otherwise.
    pub colour: Option<Result<ColourPartition, ColourError>>,
    /// Each task's PREM parameters under `mcs` (memory priority, mode,
    /// Sections, BCET); empty under other policies.
    pub prem: Vec<super::mcs::PremParams>,
}

impl Input {
    /// A bare task set on `cpus` CPUs (no names, policy or clusters).
    pub fn new(cpus: u32, tasks: Vec<TaskParams>) -> Input {
        Input { cpus, tasks, ..Input::default() }
    }

    pub fn from_spec(spec: &Spec) -> Input {
        let colour = colour_partition(spec);
        let mut cpu: Vec<Option<u32>> = spec.tasks.iter().map(|t| t.cpu).collect();
        if let Some(Ok(part)) = &colour {
            cpu = part.bins.iter().map(|&b| Some(b as u32)).collect();
        }
        Input {
            colour,
            cpus: spec.platform.cpus,
            tasks: spec
                .tasks
                .iter()
                .map(|t| TaskParams {
                    wcet: t.wcet.0,
                    deadline: t.deadline().0,
                    period: t.period.0,
                    offset: t.offset.0,
                    jitter: t.jitter.0,
                })
                .collect(),
            names: spec.tasks.iter().map(|t| t.name.clone()).collect(),
            priorities: spec.tasks.iter().map(|t| t.priority).collect(),
            wss: spec.tasks.iter().map(|t| t.wss.map_or(0, |w| w.0)).collect(),
            cpu,
            cluster: spec.tasks.iter().map(|t| t.cluster).collect(),
            index: Vec::new(),
            clusters: spec.platform.clusters.clone(),
            policy: spec.policy.clone(),
            classes: spec.tasks.iter().map(|t| t.class).collect(),
            groups: spec
                .reservation_nodes()
                .into_iter()
                .map(|n| super::reservations::GroupParams {
                    name: n.name,
                    path: n.path,
                    parent: n.parent,
                    children: n.children,
                    budgets: n.budgets.iter().map(|b| b.0).collect(),
                    period: n.period.0,
                    tasks: n.tasks,
                    leaf: n.leaf.map(|l| (l.budget.0, l.period.0)),
                })
                .collect(),
            options: Options {
                subjobs: if spec.tasks.iter().any(|t| t.segmented()) {
                    spec.tasks.iter().map(super::options::Subjobs::of).collect()
                } else {
                    Vec::new()
                },
                ..Options::default()
            },
            prem: super::mcs::PremParams::of_spec(spec),
        }
    }

    /// The colour-aware scheme's name (`cap`, `cap-gs`) when it placed the tasks.
    pub fn colour_scheme(&self) -> Option<&'static str> {
        match &self.colour {
            Some(Ok(p)) => Some(p.scheme.name()),
            _ => None,
        }
    }

    /// Why colour-aware partitioning refused or failed, when it did.
    pub fn colour_error(&self) -> Option<&ColourError> {
        match &self.colour {
            Some(Err(e)) => Some(e),
            _ => None,
        }
    }

    /// Where task `i` may be packed for `target` bins (spec pins).
    pub fn pin(&self, i: usize, target: schedlab_admission::partition::Target) -> schedlab_admission::partition::Pin {
        let cpu = self.cpu.get(i).copied().flatten();
        let cluster = self.cluster.get(i).copied().flatten();
        schedlab_admission::partition::pin_for(cpu, cluster, self.clusters.as_deref(), target)
    }

    /// How a task is named in explanations: `name (tasks[i])`, or `tasks[i]`.
    pub fn task_label(&self, i: usize) -> String {
        let k = self.index.get(i).copied().unwrap_or(i);
        match self.names.get(i) {
            Some(n) => format!("task {n} (tasks[{k}])"),
            None => format!("tasks[{k}]"),
        }
    }
}
