//! Why a packing failed.

use schedlab_model::exact::Ratio;

/// The kind of failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PackErrorKind {
    /// A task fits in no bin it may go to.
    NoFit,
    /// The problem is malformed (a pin to a bin that does not exist, sizes
    /// and pins of different lengths, a zero denominator).
    Invalid,
    /// The heuristic is colour-aware (`cap`, `cap-gs`): it packs colour
    /// groups, not sizes, and is [`crate::colour`]'s.
    ColourAware,
}

/// A failed packing: the first task that did not fit and the bins' loads at
/// that point.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackError {
    pub kind: PackErrorKind,
    /// The task (index) that did not fit, when one is to blame.
    pub task: Option<usize>,
    /// Human-readable explanation.
    pub message: String,
    /// Bin loads when the packing stopped (empty when it never started).
    pub loads: Vec<Ratio>,
    /// Bin capacities.
    pub capacities: Vec<u32>,
}

impl PackError {
    pub(crate) fn new(kind: PackErrorKind, task: Option<usize>, message: String) -> PackError {
        PackError { kind, task, message, loads: Vec::new(), capacities: Vec::new() }
    }
    /// The loads as `load/capacity` text, e.g. `[0.6667 of 1, 1 of 1]`.
    pub fn loads_text(&self) -> String {
        let parts: Vec<String> =
            self.loads.iter().zip(&self.capacities).map(|(l, c)| format!("{} of {c}", shown(l))).collect();
        format!("[{}]", parts.join(", "))
    }
}

/// A size or load for people, as a decimal (`0.6667`, `1`) like the rest of
/// the reports: utilisations are packed in 2^-62 units, and neither
/// `2997595911977802137/4611686018427387904` nor `1953/8000` says much to a
/// reader. The exact values stay in [`PackError::loads`].
pub(crate) fn shown(r: &Ratio) -> String {
    let s = format!("{:.4}", r.to_f64());
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

impl std::fmt::Display for PackError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)?;
        if !self.loads.is_empty() {
            write!(f, "; loads {}", self.loads_text())?;
        }
        Ok(())
    }
}

impl std::error::Error for PackError {}
