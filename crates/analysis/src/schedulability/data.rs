//! Structured results an outcome can carry beyond one compared value: the
//! response time of every task, a partition with the verdict of each bin,
//! per-task tardiness bounds, each reservation group's outcome.

use super::outcome::Outcome;
use super::reservations::GroupOutcome;
use schedlab_model::exact::Ratio;

/// What a test found, per task or per bin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Data {
    /// Worst-case response times in ns by task index (`None`: not computed,
    /// e.g. the analysis stopped at an earlier task's miss).
    ResponseTimes(Vec<Option<u64>>),
    /// The partition a partitioned or clustered test found.
    Partition(Partition),
    /// Per-task tardiness bounds in ns, exactly, by task index.
    Tardiness(Vec<Ratio>),
    /// Each reservation group's supply and its own outcome (`hcbs.msf`).
    Groups(Vec<GroupOutcome>),
}

/// A partition: where each task goes and each bin's own outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Partition {
    /// The packing heuristic that produced it (`ffd`, ...).
    pub heuristic: &'static str,
    /// The bin (CPU or cluster index) of each task, by task index.
    pub bins: Vec<usize>,
    /// The CPUs of each bin.
    pub cpus: Vec<Vec<u32>>,
    /// Each bin's outcome under the per-bin test (its `task` indices are
    /// indices of the whole set).
    pub outcomes: Vec<Outcome>,
}

impl Partition {
    /// The tasks of each bin, in task order.
    pub fn members(&self) -> Vec<Vec<usize>> {
        let mut out = vec![Vec::new(); self.cpus.len()];
        for (t, &b) in self.bins.iter().enumerate() {
            out[b].push(t);
        }
        out
    }
}
