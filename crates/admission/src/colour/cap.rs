//! CAP, Algorithm 1 of the EPOS thesis (Ch.7, "CAP WorstFitDecreasing"):
//! form the colour groups, refuse a group whose utilisation exceeds a CPU's
//! capacity (Eq. 7.3: tasks sharing colours run on one CPU), sort the groups
//! by decreasing utilisation (ties: lower group number) and pack them whole
//! with a bin-packing rule (worst fit by default; the thesis allows any).
//! A group that fits no CPU fails the partitioning (implied by Alg. 1's
//! output, not written in its pseudo-code).

use super::bins::Cpus;
use super::error::ColourError;
use super::fit::{bound, fits, load, shown};
use super::groups::colour_groups;
use super::outcome::ColourPartition;
use super::problem::ColourProblem;

/// The groups in placement order: decreasing utilisation, ties by number.
pub(crate) fn by_weight(p: &ColourProblem, groups: &[Vec<usize>]) -> Vec<usize> {
    let w: Vec<_> = groups.iter().map(|g| load(p, g.iter().copied())).collect();
    let mut order: Vec<usize> = (0..groups.len()).collect();
    order.sort_by(|&a, &b| w[b].cmp(&w[a]).then(a.cmp(&b)));
    order
}

pub(crate) fn cap(p: &ColourProblem) -> Result<ColourPartition, ColourError> {
    let colors: Vec<_> = p.tasks.iter().map(|t| &t.colors).collect();
    let groups = colour_groups(&colors);
    for g in &groups {
        if !fits(p, g) {
            return Err(ColourError::constraint(
                format!("tasks[{}].colors", g[0]),
                g.clone(),
                format!(
                    "the tasks {} share colours, so CAP keeps them on one CPU, but their utilisation {} exceeds a CPU's capacity {} (Eq. 7.3); give some of them other colours, or use `partitioning: cap-gs`, which splits groups",
                    p.names(g),
                    shown(&load(p, g.iter().copied())),
                    shown(&bound(p, g))
                ),
            ));
        }
    }
    let order = if p.group_packing.decreasing { by_weight(p, &groups) } else { (0..groups.len()).collect() };
    let mut cpus = Cpus::new(p.cpus);
    for &k in &order {
        if cpus.choose(p, p.group_packing.rule, &groups[k], &|_| true).is_none() {
            return Err(ColourError::no_fit(
                groups[k].clone(),
                format!(
                    "cap ({}) cannot place the colour group {} (utilisation {}): it fits no CPU (loads {}); use more CPUs or another `group_packing`",
                    p.group_packing.name(),
                    p.names(&groups[k]),
                    shown(&load(p, groups[k].iter().copied())),
                    cpus.loads_text(p)
                ),
            ));
        }
    }
    Ok(ColourPartition::finish(p, groups, order, Vec::new(), cpus.placed))
}
