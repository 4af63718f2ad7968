//! CAP-GS, Algorithms 5–6 of the EPOS thesis (Ch.8): colour groups sorted by
//! decreasing utilisation; Phase A places every group holding an HRT task
//! with first fit (such a group must be the HRT task alone: HRT tasks never
//! share colours); Phase B places each group holding SRT or BE tasks with
//! best fit, and when it fits no CPU takes out its task of smallest
//! utilisation (ties: the last in task order), puts that task in a group of
//! its own right after it (Algorithm 6) and tries the smaller group again.
//! A single task that fits no CPU fails the partitioning.
//!
//! Phase B's CPUs are those without HRT tasks unless `srt_on_hrt_cores`
//! (the thesis' Table 15 result needs this; strict best fit over all CPUs
//! would put T8 with the HRT tasks).

use super::bins::Cpus;
use super::cap::by_weight;
use super::error::ColourError;
use super::fit::shown;
use super::groups::colour_groups;
use super::outcome::ColourPartition;
use super::problem::ColourProblem;
use crate::partition::Rule;
use schedlab_model::Class;

/// HRT tasks have colours of their own: a group with an HRT task is that task alone.
pub(crate) fn hrt_alone(p: &ColourProblem, groups: &[Vec<usize>]) -> Result<(), ColourError> {
    let hrt = |g: &[usize]| g.iter().any(|&t| p.tasks[t].class == Class::Hrt);
    for g in groups {
        if hrt(g) && g.len() > 1 {
            let h = g.iter().copied().find(|&t| p.tasks[t].class == Class::Hrt).unwrap_or(g[0]);
            let others: Vec<usize> = g.iter().copied().filter(|&t| t != h).collect();
            return Err(ColourError::constraint(
                format!("tasks[{h}].colors"),
                g.clone(),
                format!(
                    "{} is HRT and shares colours with {} (directly or through others); under cap-gs an HRT task has colours of its own: give it colours no other task uses",
                    p.label(h),
                    p.names(&others)
                ),
            ));
        }
    }
    Ok(())
}

pub(crate) fn cap_gs(p: &ColourProblem) -> Result<ColourPartition, ColourError> {
    let colors: Vec<_> = p.tasks.iter().map(|t| &t.colors).collect();
    let groups = colour_groups(&colors);
    let hrt = |g: &[usize]| g.iter().any(|&t| p.tasks[t].class == Class::Hrt);
    hrt_alone(p, &groups)?;
    let order = by_weight(p, &groups);
    let mut cpus = Cpus::new(p.cpus);
    // Phase A: HRT tasks by first fit decreasing.
    for &k in order.iter().filter(|&&k| hrt(&groups[k])) {
        if cpus.choose(p, Rule::FirstFit, &groups[k], &|_| true).is_none() {
            let t = groups[k][0];
            return Err(ColourError::no_fit(
                vec![t],
                format!(
                    "cap-gs cannot place the HRT task {} (utilisation {}) by first fit: it fits no CPU (loads {}); use more CPUs",
                    p.label(t),
                    shown(&p.tasks[t].weight()),
                    cpus.loads_text(p)
                ),
            ));
        }
    }
    let hrt_cpus: Vec<bool> = cpus.placed.iter().map(|ts| !ts.is_empty()).collect();
    // Phase B: the other groups by best fit decreasing, splitting.
    let mut queue: Vec<Vec<usize>> = order.iter().filter(|&&k| !hrt(&groups[k])).map(|&k| groups[k].clone()).collect();
    let mut split = Vec::new();
    let allowed = |c: usize| p.srt_on_hrt_cores || !hrt_cpus[c];
    let mut i = 0;
    while i < queue.len() {
        if cpus.choose(p, Rule::BestFit, &queue[i], &allowed).is_some() {
            i += 1;
            continue;
        }
        if queue[i].len() == 1 {
            let t = queue[i][0];
            let whither = if p.srt_on_hrt_cores || hrt_cpus.iter().any(|&h| !h) {
                String::new()
            } else {
                "; every CPU holds HRT tasks, so set `srt_on_hrt_cores: true` or use more CPUs".to_string()
            };
            return Err(ColourError::no_fit(
                vec![t],
                format!(
                    "cap-gs cannot place {} (utilisation {}) by best fit: it fits no CPU{} (loads {}){whither}",
                    p.label(t),
                    shown(&p.tasks[t].weight()),
                    if p.srt_on_hrt_cores { "" } else { " without HRT tasks" },
                    cpus.loads_text(p)
                ),
            ));
        }
        // Algorithm 6: the smallest utilisation, ties to the last in task order.
        let g = &queue[i];
        let mut pick = 0;
        for j in 1..g.len() {
            if p.tasks[g[j]].weight() <= p.tasks[g[pick]].weight() {
                pick = j;
            }
        }
        let t = queue[i].remove(pick);
        split.push(t);
        queue.insert(i + 1, vec![t]);
    }
    Ok(ColourPartition::finish(p, groups, order, split, cpus.placed))
}
