//! A packing problem (sizes, pins, bin capacities) and its solution.

use super::size::Share;
use schedlab_model::exact::Ratio;

/// Where a task may go.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub enum Pin {
    /// Anywhere: the heuristic decides.
    #[default]
    Free,
    /// Pre-placed in this bin (placed before the others).
    Bin(usize),
    /// Packed by the heuristic, but only into these bins.
    Among(Vec<usize>),
}

/// Whether pinned tasks must pass the fit test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum PinnedCheck {
    /// A pinned task that overloads its bin (or that the admission predicate
    /// refuses) fails the packing.
    #[default]
    Check,
    /// Pinned tasks are placed as asked without a test (a policy runs what
    /// the user pinned); they still count against their bin.
    Trust,
}

/// Tasks to pack: one size and one pin per task, one capacity per bin (its
/// number of CPUs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub sizes: Vec<Share>,
    pub pins: Vec<Pin>,
    pub capacities: Vec<u32>,
    /// Task names for messages (`task 3` when empty).
    pub names: Vec<String>,
    /// What a bin is, for messages: `bin`, `CPU` or `cluster`.
    pub bin_word: &'static str,
    /// What a size is, for messages: `size`, `utilisation` or `density`.
    pub size_word: &'static str,
}

impl Problem {
    /// Free tasks and `bins` bins of capacity 1.
    pub fn uniform(sizes: Vec<Share>, bins: usize) -> Problem {
        let pins = vec![Pin::Free; sizes.len()];
        Problem { sizes, pins, capacities: vec![1; bins], names: Vec::new(), bin_word: "bin", size_word: "size" }
    }
    pub(crate) fn task_label(&self, t: usize) -> String {
        match self.names.get(t) {
            Some(name) => format!("tasks[{t}] `{name}`"),
            None => format!("task {t}"),
        }
    }
    pub(crate) fn bin_label(&self, b: usize) -> String {
        format!("{} {b}", self.bin_word)
    }
    pub(crate) fn bin_word(&self) -> &'static str {
        self.bin_word
    }
}

/// A successful packing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assignment {
    /// The bin of each task, by task index.
    pub bins: Vec<usize>,
    /// Each bin's load (Σ sizes), exactly.
    pub loads: Vec<Ratio>,
}

impl Assignment {
    /// The tasks of each bin, in task order.
    pub fn members(&self) -> Vec<Vec<usize>> {
        let mut out = vec![Vec::new(); self.loads.len()];
        for (t, &b) in self.bins.iter().enumerate() {
            out[b].push(t);
        }
        out
    }
}
