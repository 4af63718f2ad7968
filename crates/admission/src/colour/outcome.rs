//! A colour-aware partition: the groups, the CPU of each task, the loads
//! and the colours each CPU uses.

use super::problem::{ColourProblem, Scheme};
use num_rational::BigRational;

/// The result of CAP or CAP-GS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColourPartition {
    pub scheme: Scheme,
    /// The colour groups as Algorithm 2 forms them (task indices in task
    /// order), numbered by their first task.
    pub groups: Vec<Vec<usize>>,
    /// Each group's utilisation (Σ u, BE tasks weigh 0).
    pub group_loads: Vec<BigRational>,
    /// The groups in the order they were placed (indices into `groups`),
    /// by decreasing utilisation.
    pub order: Vec<usize>,
    /// CAP-GS: the tasks split off their group, in the order they were split.
    pub split: Vec<usize>,
    /// The CPU of each task, by task index.
    pub bins: Vec<usize>,
    /// Each CPU's load (Σ u, BE tasks weigh 0).
    pub loads: Vec<BigRational>,
    /// The colours each CPU's tasks use, sorted.
    pub cpu_colours: Vec<Vec<u32>>,
    /// The tasks of each CPU in the order they were placed.
    pub placed: Vec<Vec<usize>>,
}

impl ColourPartition {
    pub(crate) fn finish(
        p: &ColourProblem,
        groups: Vec<Vec<usize>>,
        order: Vec<usize>,
        split: Vec<usize>,
        placed: Vec<Vec<usize>>,
    ) -> ColourPartition {
        let mut bins = vec![0; p.tasks.len()];
        for (c, ts) in placed.iter().enumerate() {
            for &t in ts {
                bins[t] = c;
            }
        }
        let loads = placed.iter().map(|ts| super::fit::load(p, ts.iter().copied())).collect();
        let group_loads = groups.iter().map(|g| super::fit::load(p, g.iter().copied())).collect();
        let cpu_colours = placed
            .iter()
            .map(|ts| {
                let mut cs: Vec<u32> = ts.iter().flat_map(|&t| p.tasks[t].colors.iter()).collect();
                cs.sort_unstable();
                cs.dedup();
                cs
            })
            .collect();
        ColourPartition { scheme: p.scheme, groups, group_loads, order, split, bins, loads, cpu_colours, placed }
    }

    /// A load for reports, as the nearest double.
    pub fn approx(r: &BigRational) -> f64 {
        num_traits::ToPrimitive::to_f64(r).unwrap_or(f64::NAN)
    }

    /// The tasks of each CPU, in task order.
    pub fn members(&self) -> Vec<Vec<usize>> {
        let mut out = vec![Vec::new(); self.loads.len()];
        for (t, &b) in self.bins.iter().enumerate() {
            out[b].push(t);
        }
        out
    }

    /// The group of each task (index into `groups`).
    pub fn group_of(&self) -> Vec<usize> {
        let mut g = vec![0; self.bins.len()];
        for (k, ts) in self.groups.iter().enumerate() {
            for &t in ts {
                g[t] = k;
            }
        }
        g
    }
}

/// A colour list for people: `0-3, 7`.
pub fn colours_text(cs: &[u32]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < cs.len() {
        let mut j = i;
        while j + 1 < cs.len() && cs[j + 1] == cs[j] + 1 {
            j += 1;
        }
        out.push(if j > i { format!("{}-{}", cs[i], cs[j]) } else { cs[i].to_string() });
        i = j + 1;
    }
    out.join(", ")
}
