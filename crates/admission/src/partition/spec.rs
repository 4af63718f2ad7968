//! Packing a spec's tasks onto its CPUs or clusters.

use super::error::{PackError, PackErrorKind};
use super::heuristic::Heuristic;
use super::pack::pack;
use super::problem::{Assignment, Pin, PinnedCheck, Problem};
use super::size::Metric;
use schedlab_model::{Packing, Spec};

/// What the bins are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    /// One bin per CPU, capacity 1 (partitioned policies); bin k is CPU k.
    Cpus,
    /// One bin per cluster of `platform.clusters`, capacity its CPU count
    /// (clustered policies); bin k is cluster k.
    Clusters,
}

/// The packing problem of a spec: sizes by `metric`, pins from the tasks'
/// `cpu` and `cluster` fields.
///
/// With CPU bins, `cpu` pins the task to that CPU and `cluster` alone
/// restricts it to the cluster's CPUs. With cluster bins, `cluster` pins the
/// task to that cluster and `cpu` alone to the cluster holding that CPU.
pub fn problem_for(spec: &Spec, target: Target, metric: Metric) -> Result<Problem, PackError> {
    let m = spec.platform.cpus;
    let invalid = |t: Option<usize>, msg: String| PackError::new(PackErrorKind::Invalid, t, msg);
    let clusters = spec.platform.clusters.as_ref();
    let cluster_of = |cpu: u32| clusters.and_then(|cl| cl.iter().position(|c| c.contains(&cpu)));
    let mut sizes = Vec::with_capacity(spec.tasks.len());
    let mut pins = Vec::with_capacity(spec.tasks.len());
    for (i, t) in spec.tasks.iter().enumerate() {
        let s = metric.of(t);
        if s.den == 0 {
            return Err(invalid(Some(i), format!("tasks[{i}] has a zero period or deadline")));
        }
        sizes.push(s);
        if let Some(c) = t.cpu {
            if c >= m {
                return Err(invalid(
                    Some(i),
                    format!(
                        "tasks[{i}].cpu: CPU {c} does not exist; the platform has CPUs 0 to {}",
                        m.saturating_sub(1)
                    ),
                ));
            }
        }
        if let Some(k) = t.cluster {
            if !matches!(clusters, Some(cl) if (k as usize) < cl.len()) {
                return Err(invalid(Some(i), format!("tasks[{i}].cluster: cluster {k} does not exist")));
            }
        }
        if target == Target::Clusters {
            if let (Some(k), Some(c)) = (t.cluster, t.cpu) {
                if cluster_of(c) != Some(k as usize) {
                    return Err(invalid(Some(i), format!("tasks[{i}].cpu: CPU {c} is not in the task's cluster {k}")));
                }
            }
            if let (None, Some(c)) = (t.cluster, t.cpu) {
                if cluster_of(c).is_none() {
                    return Err(invalid(Some(i), format!("tasks[{i}].cpu: CPU {c} is in no cluster")));
                }
            }
        }
        let pin = pin_for(t.cpu, t.cluster, clusters.map(|c| c.as_slice()), target);
        pins.push(pin);
    }
    let (capacities, bin_word) = match target {
        Target::Cpus => (vec![1; m as usize], "CPU"),
        Target::Clusters => match clusters {
            Some(cl) if !cl.is_empty() => (cl.iter().map(|c| c.len() as u32).collect(), "cluster"),
            _ => return Err(invalid(None, "clustered packing needs `platform.clusters`".into())),
        },
    };
    let names = spec.tasks.iter().map(|t| t.name.clone()).collect();
    Ok(Problem { sizes, pins, capacities, names, bin_word, size_word: metric.name() })
}

/// Where a task with these `cpu` / `cluster` fields may be packed (the
/// fields are assumed valid for the platform, as a loaded spec's are).
pub fn pin_for(cpu: Option<u32>, cluster: Option<u32>, clusters: Option<&[Vec<u32>]>, target: Target) -> Pin {
    let cluster_of = |c: u32| clusters.and_then(|cl| cl.iter().position(|k| k.contains(&c)));
    match target {
        Target::Cpus => match (cpu, cluster) {
            (Some(c), _) => Pin::Bin(c as usize),
            (None, Some(k)) => Pin::Among(
                clusters
                    .and_then(|cl| cl.get(k as usize))
                    .map(|c| c.iter().map(|&c| c as usize).collect())
                    .unwrap_or_default(),
            ),
            (None, None) => Pin::Free,
        },
        Target::Clusters => match (cluster, cpu) {
            (Some(k), _) => Pin::Bin(k as usize),
            (None, Some(c)) => cluster_of(c).map_or(Pin::Free, Pin::Bin),
            (None, None) => Pin::Free,
        },
    }
}

/// Packs a spec's tasks with a named heuristic (`cap` and `cap-gs` are
/// refused: [`crate::colour::colour_partition`] places them).
pub fn pack_spec(
    spec: &Spec,
    target: Target,
    packing: Packing,
    metric: Metric,
    pinned: PinnedCheck,
) -> Result<Assignment, PackError> {
    let heuristic = Heuristic::from_packing(packing)?;
    let problem = problem_for(spec, target, metric)?;
    pack(&problem, heuristic, pinned)
}
