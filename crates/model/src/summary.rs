//! The summary `schedlab check` prints: size, utilisation, density,
//! hyperperiod, and a row per task.

use crate::exact::{hyperperiod, Ratio};
use crate::spec::Spec;
use crate::units::Duration;
use serde::Serialize;

/// One task's row.
#[derive(Debug, Clone, Serialize)]
pub struct TaskRow {
    pub name: String,
    pub wcet: Duration,
    pub period: Duration,
    pub deadline: Duration,
    pub utilization: f64,
    pub density: f64,
    pub cpu: Option<u32>,
    pub cluster: Option<u32>,
    pub priority: Option<u32>,
    pub class: &'static str,
    /// The task's `segments` or `subjobs` in short (`memory 300us, exec
    /// 2.4ms non-preemptive, suspend 1ms`), when it has them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub segments: Option<String>,
}

/// Segments listed in a summary row; more are counted.
const SHOWN_SEGMENTS: usize = 8;

/// A task's segments in short, e.g. `memory 300us, exec 2.4ms non-preemptive`
/// or `subjobs 1ms, 1.5ms`.
fn segments_in_short(t: &crate::spec::Task) -> Option<String> {
    let (head, items): (&str, Vec<String>) = match (&t.segments, &t.subjobs) {
        (Some(list), _) => (
            "",
            list.iter()
                .map(|s| {
                    let np = if s.preemptible { "" } else { " non-preemptive" };
                    format!("{} {}{np}", s.kind.name(), s.length)
                })
                .collect(),
        ),
        (None, Some(list)) => ("subjobs ", list.iter().map(|d| d.to_string()).collect()),
        (None, None) => return None,
    };
    let mut out = format!("{head}{}", items.iter().take(SHOWN_SEGMENTS).cloned().collect::<Vec<_>>().join(", "));
    if items.len() > SHOWN_SEGMENTS {
        out += &format!(", ... ({} in all)", items.len());
    }
    Some(out)
}

/// One reservation group (`reservations`), in tree order.
#[derive(Debug, Clone, Serialize)]
pub struct GroupRow {
    pub name: String,
    /// Depth in the tree (0: a top-level group).
    pub depth: usize,
    /// `4ms`, or the per-CPU budgets `2ms, 0ns`.
    pub budget: String,
    pub period: Duration,
    /// The largest budget/period over the CPUs, for display.
    pub bandwidth: f64,
    /// The tasks listed in the group.
    pub tasks: Vec<String>,
    /// The leaf queue of a group with subgroups and tasks: `2ms / 10ms`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leaf: Option<String>,
}

/// One multithreaded task (`mtt`).
#[derive(Debug, Clone, Serialize)]
pub struct MttRow {
    pub name: String,
    pub tasks: Vec<String>,
    /// The group's working-set size (its `wss`, else its tasks').
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wss: Option<crate::units::Size>,
}

/// Facts about a task set.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub tasks: usize,
    pub cpus: u32,
    pub policy: Option<&'static str>,
    /// Σ wcet/period, rounded for display.
    pub utilization: f64,
    /// Σ wcet/period exactly, as `numerator/denominator` of nanoseconds.
    pub utilization_exact: String,
    /// Σ wcet/min(deadline, period).
    pub density: f64,
    pub max_utilization: f64,
    /// Least common multiple of the periods; `None` when it exceeds 2^64 ns.
    pub hyperperiod: Option<Duration>,
    pub deadlines: &'static str,
    pub rows: Vec<TaskRow>,
    /// The reservation groups, when the spec has `reservations`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<GroupRow>,
    /// The multithreaded tasks, when the spec has `mtt`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub mtts: Vec<MttRow>,
}

impl Summary {
    pub fn of(spec: &Spec) -> Summary {
        let u = Ratio::sum(spec.tasks.iter().map(|t| (t.wcet.0 as u128, t.period.0 as u128)));
        let d = Ratio::sum(spec.tasks.iter().map(|t| (t.wcet.0 as u128, t.deadline().min(t.period).0 as u128)));
        let deadlines = if spec.tasks.iter().all(|t| t.deadline() == t.period) {
            "implicit"
        } else if spec.tasks.iter().all(|t| t.deadline() <= t.period) {
            "constrained"
        } else {
            "arbitrary"
        };
        Summary {
            tasks: spec.tasks.len(),
            cpus: spec.platform.cpus,
            policy: spec.policy.as_ref().map(|p| p.name.name()),
            utilization: u.to_f64(),
            utilization_exact: u.to_fraction(),
            density: d.to_f64(),
            max_utilization: spec.tasks.iter().map(|t| t.utilization()).fold(0.0, f64::max),
            hyperperiod: hyperperiod(spec.tasks.iter().map(|t| t.period.0)).map(Duration),
            deadlines,
            rows: spec
                .tasks
                .iter()
                .map(|t| TaskRow {
                    name: t.name.clone(),
                    wcet: t.wcet,
                    period: t.period,
                    deadline: t.deadline(),
                    utilization: t.utilization(),
                    density: t.density(),
                    cpu: t.cpu,
                    cluster: t.cluster,
                    priority: t.priority,
                    class: t.class.name(),
                    segments: segments_in_short(t),
                })
                .collect(),
            groups: spec
                .reservation_nodes()
                .into_iter()
                .map(|g| {
                    let same = g.budgets.windows(2).all(|w| w[0] == w[1]);
                    let budget = if same {
                        g.budgets.first().map(|b| b.to_string()).unwrap_or_default()
                    } else {
                        g.budgets.iter().map(|b| b.to_string()).collect::<Vec<_>>().join(", ")
                    };
                    let most = g.budgets.iter().map(|b| b.0).max().unwrap_or(0);
                    GroupRow {
                        name: g.name.clone(),
                        depth: g.depth,
                        budget,
                        period: g.period,
                        bandwidth: most as f64 / g.period.0.max(1) as f64,
                        tasks: g.tasks.iter().map(|&t| spec.tasks[t].name.clone()).collect(),
                        leaf: g.leaf.map(|l| format!("{} / {}", l.budget, l.period)),
                    }
                })
                .collect(),
            mtts: spec
                .mtts()
                .iter()
                .enumerate()
                .map(|(k, m)| MttRow { name: m.name.clone(), tasks: m.tasks.clone(), wss: spec.mtt_wss(k) })
                .collect(),
        }
    }
}
