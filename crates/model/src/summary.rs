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
        }
    }
}
