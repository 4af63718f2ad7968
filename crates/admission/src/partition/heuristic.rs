//! The packing rules and their decreasing variants, from the spec's `Packing`.

use super::error::{PackError, PackErrorKind};
use schedlab_model::Packing;

/// Which bin an item goes to, among those it fits in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rule {
    /// The lowest-indexed bin it fits in.
    FirstFit,
    /// The bin with the least room left after placing it (ties: lower index).
    BestFit,
    /// The bin with the most room left after placing it (ties: lower index).
    WorstFit,
    /// The current bin if it fits, else the next bins in index order; bins
    /// left behind are never revisited.
    NextFit,
}

/// A packing heuristic: a rule, applied to the tasks in index order or in
/// non-increasing size order (ties by task index).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Heuristic {
    pub rule: Rule,
    pub decreasing: bool,
}

impl Heuristic {
    pub const FF: Heuristic = Heuristic { rule: Rule::FirstFit, decreasing: false };
    pub const BF: Heuristic = Heuristic { rule: Rule::BestFit, decreasing: false };
    pub const WF: Heuristic = Heuristic { rule: Rule::WorstFit, decreasing: false };
    pub const NF: Heuristic = Heuristic { rule: Rule::NextFit, decreasing: false };
    pub const FFD: Heuristic = Heuristic { rule: Rule::FirstFit, decreasing: true };
    pub const BFD: Heuristic = Heuristic { rule: Rule::BestFit, decreasing: true };
    pub const WFD: Heuristic = Heuristic { rule: Rule::WorstFit, decreasing: true };
    pub const NFD: Heuristic = Heuristic { rule: Rule::NextFit, decreasing: true };

    /// The heuristic a spec's `policy.partitioning` names. The colour-aware
    /// `cap` and `cap-gs` are not bin-packing rules of sizes: they are
    /// [`crate::colour`]'s, and refused here.
    pub fn from_packing(p: Packing) -> Result<Heuristic, PackError> {
        Ok(match p {
            Packing::Ff => Heuristic::FF,
            Packing::Bf => Heuristic::BF,
            Packing::Wf => Heuristic::WF,
            Packing::Nf => Heuristic::NF,
            Packing::Ffd => Heuristic::FFD,
            Packing::Bfd => Heuristic::BFD,
            Packing::Wfd => Heuristic::WFD,
            Packing::Nfd => Heuristic::NFD,
            Packing::Cap | Packing::CapGs => {
                let name = if p == Packing::Cap { "cap" } else { "cap-gs" };
                return Err(PackError::new(
                    PackErrorKind::ColourAware,
                    None,
                    format!("`{name}` is colour-aware partitioning, which places colour groups (schedlab_admission::colour), not a packing of sizes; here use ff, bf, wf, nf, ffd, bfd, wfd or nfd"),
                ));
            }
        })
    }

    /// Every heuristic, in the order of [`Heuristic::name`]'s table.
    pub const ALL: [Heuristic; 8] = [
        Heuristic::FF,
        Heuristic::BF,
        Heuristic::WF,
        Heuristic::NF,
        Heuristic::FFD,
        Heuristic::BFD,
        Heuristic::WFD,
        Heuristic::NFD,
    ];

    /// The spec's name of the heuristic (`wfd`, ...).
    pub fn name(self) -> &'static str {
        match (self.rule, self.decreasing) {
            (Rule::FirstFit, false) => "ff",
            (Rule::BestFit, false) => "bf",
            (Rule::WorstFit, false) => "wf",
            (Rule::NextFit, false) => "nf",
            (Rule::FirstFit, true) => "ffd",
            (Rule::BestFit, true) => "bfd",
            (Rule::WorstFit, true) => "wfd",
            (Rule::NextFit, true) => "nfd",
        }
    }
}

impl std::str::FromStr for Heuristic {
    type Err = String;
    fn from_str(s: &str) -> Result<Heuristic, String> {
        Heuristic::ALL.into_iter().find(|h| h.name() == s).ok_or_else(|| {
            format!("unknown packing heuristic {s:?}; expected one of ff, bf, wf, nf, ffd, bfd, wfd, nfd")
        })
    }
}
