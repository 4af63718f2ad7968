//! Which MTT a heuristic promotes: Fig. 4.2's cache-aware policies (1)–(5)
//! and lost-cause policies (2)–(3), verbatim from the notes §2.6 (C: the
//! shared cache not yet used at this boundary, N: the CPUs not yet
//! decided). Ties go to the lower task index (Fig. 4.3's narrative). With
//! C = 0, (2) and (4) pick as (1) and (5) as (3), as the thesis says.

use super::params::{CachePolicy, LostCausePolicy};
use std::cmp::Ordering;

/// An MTT with an eligible job that could be promoted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Candidate {
    /// The task of the job that would be promoted (the MTT's eligible job
    /// with the earliest deadline, then the lowest task index).
    pub task: u32,
    /// The MTT's WSS as this boundary sees it: 0 if one of its jobs with
    /// the same index is scheduled at this boundary already.
    pub wss: u64,
    /// tc(MTT) (≥ 1).
    pub tc: u32,
    /// Partially eligible: fewer than tc of its jobs eligible, or tc > N.
    pub partial: bool,
}

/// wss/tc of `a` against `b`, exactly.
fn per_task(a: &Candidate, b: &Candidate) -> Ordering {
    (a.wss as u128 * b.tc as u128).cmp(&(b.wss as u128 * a.tc as u128))
}

/// The best candidate of those passing `keep`, by `better` (Less: the
/// first is better), ties to the lower task index.
fn best(
    cands: &[Candidate],
    keep: impl Fn(&Candidate) -> bool,
    better: impl Fn(&Candidate, &Candidate) -> Ordering,
) -> Option<usize> {
    let mut out: Option<usize> = None;
    for (i, c) in cands.iter().enumerate() {
        if !keep(c) {
            continue;
        }
        out = match out {
            Some(j) if better(&cands[j], c).then(cands[j].task.cmp(&c.task)) != Ordering::Greater => Some(j),
            _ => Some(i),
        };
    }
    out
}

/// The cache-aware policy's choice among `cands` (index), given the free
/// cache `c` and the `n` CPUs left.
pub(crate) fn cache_aware(policy: CachePolicy, cands: &[Candidate], c: u64, n: u32) -> Option<usize> {
    let smallest = |a: &Candidate, b: &Candidate| a.wss.cmp(&b.wss);
    let fits = |x: &Candidate| x.wss <= c;
    let either = |keep: &dyn Fn(&Candidate) -> bool, pick: &dyn Fn(&Candidate, &Candidate) -> Ordering| {
        best(cands, keep, pick).or_else(|| best(cands, |_| true, smallest))
    };
    match policy {
        CachePolicy::SmallestWss => best(cands, |_| true, smallest),
        CachePolicy::LargestFitting => either(&fits, &|a, b| b.wss.cmp(&a.wss)),
        CachePolicy::SmallestPerTask => best(cands, |_| true, per_task),
        CachePolicy::LargestPerTaskFitting => either(&fits, &|a, b| per_task(b, a)),
        CachePolicy::LargestPerTaskPerCpu => {
            // wss/tc ≤ C/N ⇔ wss·N ≤ C·tc.
            let n = n.max(1) as u128;
            let under = |x: &Candidate| x.wss as u128 * n <= c as u128 * x.tc as u128;
            best(cands, under, |a, b| per_task(b, a)).or_else(|| best(cands, |_| true, per_task))
        }
    }
}

/// The lost-cause policy's choice; `None` for (1), which reverts to G-EDF.
pub(crate) fn lost_cause(policy: LostCausePolicy, cands: &[Candidate]) -> Option<usize> {
    match policy {
        LostCausePolicy::Gedf => None,
        LostCausePolicy::LargestWss => best(cands, |_| true, |a, b| b.wss.cmp(&a.wss)),
        LostCausePolicy::LargestPerTask => best(cands, |_| true, |a, b| per_task(b, a)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(task: u32, wss: u64, tc: u32) -> Candidate {
        Candidate { task, wss, tc, partial: false }
    }

    /// Each policy on one set, C = 600, N = 2: A 512/1, B 768/2, D 256/1, E 900/3.
    #[test]
    fn each_policy_picks_as_fig_4_2_says() {
        let set = [c(0, 512, 1), c(1, 768, 2), c(2, 256, 1), c(3, 900, 3)];
        let pick = |p| cache_aware(p, &set, 600, 2).map(|i| set[i].task);
        assert_eq!(pick(CachePolicy::SmallestWss), Some(2));
        assert_eq!(pick(CachePolicy::LargestFitting), Some(0), "512 is the largest ≤ 600");
        // Ratios: 512, 384, 256, 300.
        assert_eq!(pick(CachePolicy::SmallestPerTask), Some(2));
        assert_eq!(pick(CachePolicy::LargestPerTaskFitting), Some(0), "of the WSS ≤ 600 (512, 256), ratio 512");
        assert_eq!(pick(CachePolicy::LargestPerTaskPerCpu), Some(3), "ratios ≤ 300: 256 and 300");
        let lost = |p| lost_cause(p, &set).map(|i| set[i].task);
        assert_eq!(lost(LostCausePolicy::Gedf), None);
        assert_eq!(lost(LostCausePolicy::LargestWss), Some(3));
        assert_eq!(lost(LostCausePolicy::LargestPerTask), Some(0));
    }

    /// Nothing fits: (2) and (4) take the WSS exceeding C the least, (5)
    /// the ratio exceeding C/N the least; with C = 0 that is (1) and (3).
    #[test]
    fn nothing_fits_and_ties_by_task() {
        let set = [c(4, 768, 2), c(1, 700, 1), c(2, 700, 1)];
        for p in [CachePolicy::LargestFitting, CachePolicy::LargestPerTaskFitting] {
            assert_eq!(cache_aware(p, &set, 0, 1).map(|i| set[i].task), Some(1), "{p:?}");
        }
        assert_eq!(cache_aware(CachePolicy::LargestPerTaskPerCpu, &set, 0, 1).map(|i| set[i].task), Some(4));
        assert_eq!(cache_aware(CachePolicy::SmallestPerTask, &set, 0, 1).map(|i| set[i].task), Some(4));
        assert_eq!(cache_aware(CachePolicy::SmallestWss, &[], 0, 1), None);
    }
}
