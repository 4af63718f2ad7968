//! Scheduling domains and task placement: from a placement the caller gives
//! (the validator's, recorded in a trace), else from the spec's pinning and
//! the partitioning heuristic (`policy.partitioning`, default WFD by
//! utilisation; `cap` and `cap-gs` are the colour-aware partitioning of
//! `schedlab_admission::colour`, the same placement `partition` and
//! `analyze` report).

use crate::build::AdmissionError;
use crate::interface::Cpu;
use schedlab_admission::colour::colour_partition;
use schedlab_admission::partition::{pack_spec, Metric, PackErrorKind, PinnedCheck, Target};
use schedlab_model::spec::Domains;
use schedlab_model::{Packing, Placement, Spec};

/// The packing used when `policy.partitioning` is absent.
pub const DEFAULT_PACKING: Packing = Packing::Wfd;

/// Domains and placement of a policy's tasks.
pub(crate) struct Layout {
    /// The CPUs of each domain.
    pub domains: Vec<Vec<Cpu>>,
    /// Each task's placement.
    pub placement: Vec<Placement>,
    /// Each task's domain.
    pub task_domain: Vec<u32>,
}

pub(crate) fn layout(
    spec: &Spec,
    kind: Domains,
    packing: Option<Packing>,
    given: Option<&[Placement]>,
) -> Result<Layout, AdmissionError> {
    let m = spec.platform.cpus;
    let n = spec.tasks.len();
    if let Some(g) = given {
        if g.len() != n {
            return Err(AdmissionError::at(
                "placement",
                format!("has {} entries for {n} tasks; give one per task", g.len()),
            ));
        }
    }
    match kind {
        Domains::Global => {
            if let Some(g) = given {
                if let Some(i) = g.iter().position(|p| *p != Placement::Global) {
                    return Err(AdmissionError::at(
                        format!("placement[{i}]"),
                        "must be global: the policy has one domain with every CPU",
                    ));
                }
            } else if let Some((i, field)) = spec
                .tasks
                .iter()
                .enumerate()
                .find_map(|(i, t)| t.cpu.map(|_| (i, "cpu")).or(t.cluster.map(|_| (i, "cluster"))))
            {
                return Err(AdmissionError::at(
                    format!("tasks[{i}].{field}"),
                    "a global policy runs every task on every CPU and does not support pinning; remove the pin or use a partitioned or clustered policy",
                ));
            }
            Ok(Layout {
                domains: vec![(0..m).collect()],
                placement: vec![Placement::Global; n],
                task_domain: vec![0; n],
            })
        }
        Domains::PerCpu => {
            let domains: Vec<Vec<Cpu>> = (0..m).map(|c| vec![c]).collect();
            let cpus: Vec<u32> = match given {
                Some(g) => {
                    let mut out = Vec::with_capacity(n);
                    for (i, p) in g.iter().enumerate() {
                        match p {
                            Placement::Cpu { cpu } if *cpu < m => out.push(*cpu),
                            _ => {
                                return Err(AdmissionError::at(
                                    format!("placement[{i}]"),
                                    format!("must be a CPU from 0 to {}", m - 1),
                                ))
                            }
                        }
                    }
                    out
                }
                None => packed(spec, Target::Cpus, packing)?.into_iter().map(|b| b as u32).collect(),
            };
            let placement = cpus.iter().map(|&cpu| Placement::Cpu { cpu }).collect();
            Ok(Layout { domains, placement, task_domain: cpus })
        }
        Domains::PerCluster => {
            let Some(clusters) = spec.platform.clusters.clone().filter(|c| !c.is_empty()) else {
                return Err(AdmissionError::at(
                    "platform.clusters",
                    "a clustered policy needs clusters, e.g. `clusters: [[0, 1], [2, 3]]`",
                ));
            };
            let ks: Vec<u32> = match given {
                Some(g) => {
                    let mut out = Vec::with_capacity(n);
                    for (i, p) in g.iter().enumerate() {
                        match p {
                            Placement::Cluster { cluster, cpus } if clusters.get(*cluster as usize) == Some(cpus) => {
                                out.push(*cluster)
                            }
                            _ => {
                                return Err(AdmissionError::at(
                                    format!("placement[{i}]"),
                                    format!(
                                        "must be a cluster from 0 to {} with that cluster's CPUs",
                                        clusters.len() - 1
                                    ),
                                ))
                            }
                        }
                    }
                    out
                }
                None => packed(spec, Target::Clusters, packing)?.into_iter().map(|b| b as u32).collect(),
            };
            let placement =
                ks.iter().map(|&k| Placement::Cluster { cluster: k, cpus: clusters[k as usize].clone() }).collect();
            Ok(Layout { domains: clusters, placement, task_domain: ks })
        }
    }
}

fn packed(spec: &Spec, target: Target, packing: Option<Packing>) -> Result<Vec<usize>, AdmissionError> {
    let packing = packing.unwrap_or(DEFAULT_PACKING);
    if let Some(part) = colour_partition(spec) {
        // Colour-aware: every task placed by CAP / CAP-GS (or all pinned).
        return part.map(|p| p.bins).map_err(|e| AdmissionError::at(e.path.clone(), e.message));
    }
    // Pinned tasks run where the user put them, overloaded or not.
    match pack_spec(spec, target, packing, Metric::Utilization, PinnedCheck::Trust) {
        Ok(a) => Ok(a.bins),
        Err(e) => {
            let path = match (e.kind, e.task) {
                (PackErrorKind::Invalid, Some(t)) => format!("tasks[{t}]"),
                (PackErrorKind::Invalid, None) => "platform".to_string(),
                _ => "policy.partitioning".to_string(),
            };
            Err(AdmissionError::at(path, e.to_string()))
        }
    }
}
