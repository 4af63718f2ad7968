//! The placement an imported trace records: what the spec pins.

use schedlab_model::spec::Domains;
use schedlab_model::{Placement, Spec};

/// Per task, where the spec puts it: its `cpu` under a partitioned policy,
/// its cluster under a clustered one, global otherwise.
pub fn of_spec(spec: &Spec) -> Vec<Placement> {
    let domains = spec.policy.as_ref().map(|p| p.name.domains()).unwrap_or(Domains::Global);
    spec.tasks
        .iter()
        .map(|t| match (domains, t.cpu, t.cluster) {
            (Domains::PerCpu, Some(cpu), _) => Placement::Cpu { cpu },
            (Domains::PerCluster, _, Some(c)) => {
                match spec.platform.clusters.as_ref().and_then(|cl| cl.get(c as usize)) {
                    Some(cpus) => Placement::Cluster { cluster: c, cpus: cpus.clone() },
                    None => Placement::Global,
                }
            }
            (Domains::PerCluster, Some(cpu), None) => {
                let found = spec
                    .platform
                    .clusters
                    .as_ref()
                    .and_then(|cl| cl.iter().enumerate().find(|(_, c)| c.contains(&cpu)));
                match found {
                    Some((i, cpus)) => Placement::Cluster { cluster: i as u32, cpus: cpus.clone() },
                    None => Placement::Global,
                }
            }
            _ => Placement::Global,
        })
        .collect()
}
