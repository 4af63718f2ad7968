//! Colour-aware partitioning of a spec: the problem its tasks, platform and
//! policy section describe, and its partition. With `cap` or `cap-gs`,
//! either no task is pinned (the scheme places them all) or every task is:
//! then the pins are the placement (what `schedlab partition -o` writes),
//! and only the constraints are checked.

use super::error::ColourError;
use super::outcome::ColourPartition;
use super::problem::{ColourProblem, ColourTask, Scheme};
use crate::partition::Heuristic;
use schedlab_model::spec::{Domains, Family};
use schedlab_model::{Capacity, ColorSet, Packing, Spec};

/// The colour-aware problem of a spec whose policy partitions with `cap` or
/// `cap-gs` (`None` for any other partitioning).
pub fn problem_of(spec: &Spec) -> Option<Result<ColourProblem, ColourError>> {
    let pol = spec.policy.as_ref()?;
    // The two-phase scheduler's offline phase is CAP-GS unless it says CAP.
    let default = (pol.name == schedlab_model::PolicyName::CapGsDynamic).then_some(Packing::CapGs);
    let scheme = match pol.partitioning.or(default)? {
        Packing::Cap => Scheme::Cap,
        Packing::CapGs => Scheme::CapGs,
        _ => return None,
    };
    Some(build(spec, scheme))
}

fn build(spec: &Spec, scheme: Scheme) -> Result<ColourProblem, ColourError> {
    let pol = spec.policy.as_ref().expect("checked by the caller");
    let constraint = |path: &str, msg: String| Err(ColourError::constraint(path, Vec::new(), msg));
    if pol.name.domains() != Domains::PerCpu {
        return constraint(
            "policy.partitioning",
            format!(
                "`{}` places tasks on CPUs and `{}` is not partitioned per CPU; use a partitioned policy (pedf, pfp, …) or another heuristic",
                scheme.name(),
                pol.name.name()
            ),
        );
    }
    let Some(cache) = &spec.platform.cache else {
        return constraint(
            "platform.cache",
            format!(
                "`{}` needs the cache's colours; describe the cache, e.g. `cache: {{size: 8MiB, ways: 16, line: 64B}}`",
                scheme.name()
            ),
        );
    };
    let capacity = pol.capacity.unwrap_or(match pol.name.descriptor().family {
        Family::Fp => Capacity::Ll,
        _ => Capacity::ONE,
    });
    let group_packing = match pol.group_packing {
        None => Heuristic::WFD,
        Some(pk) => Heuristic::from_packing(pk)
            .map_err(|e| ColourError::constraint("policy.group_packing", Vec::new(), e.message))?,
    };
    let tasks = spec
        .tasks
        .iter()
        .map(|t| ColourTask {
            name: t.name.clone(),
            wcet: t.wcet.0,
            period: t.period.0.max(1),
            class: t.class,
            colors: t.colors.clone().unwrap_or_else(|| ColorSet::from_ranges(Vec::new())),
            memory: t.wss.map(|w| w.0),
        })
        .collect();
    Ok(ColourProblem {
        scheme,
        tasks,
        cpus: spec.platform.cpus as usize,
        colours: cache.colors(),
        memory_total: pol.memory_total.map(|m| m.0),
        capacity,
        group_packing,
        srt_on_hrt_cores: pol.srt_on_hrt_cores.unwrap_or(false),
    })
}

/// The colour-aware partition of a spec whose policy partitions with `cap`
/// or `cap-gs` (`None` for any other partitioning).
pub fn colour_partition(spec: &Spec) -> Option<Result<ColourPartition, ColourError>> {
    let problem = match problem_of(spec)? {
        Ok(p) => p,
        Err(e) => return Some(Err(e)),
    };
    let pinned: Vec<usize> = (0..spec.tasks.len()).filter(|&i| spec.tasks[i].cpu.is_some()).collect();
    if let Some(i) = (0..spec.tasks.len()).find(|&i| spec.tasks[i].cluster.is_some()) {
        return Some(Err(ColourError::constraint(
            format!("tasks[{i}].cluster"),
            vec![i],
            format!("`{}` places tasks on CPUs; remove the cluster pin", problem.scheme.name()),
        )));
    }
    if pinned.is_empty() {
        return Some(super::partition(&problem));
    }
    if pinned.len() < spec.tasks.len() {
        let free = (0..spec.tasks.len()).find(|i| !pinned.contains(i)).unwrap_or(0);
        return Some(Err(ColourError::constraint(
            format!("tasks[{}].cpu", pinned[0]),
            pinned.clone(),
            format!(
                "`{}` places every task itself, or takes every task's `cpu` as given, but {} is pinned and {} is not; remove the pins or pin every task",
                problem.scheme.name(),
                problem.label(pinned[0]),
                problem.label(free)
            ),
        )));
    }
    Some(super::given(&problem, spec.tasks.iter().map(|t| t.cpu.unwrap_or(0) as usize).collect()))
}
