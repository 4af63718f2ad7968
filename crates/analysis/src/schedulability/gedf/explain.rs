//! One implementation, two speeds: every global test is written once as a
//! core generic over [`Explain`]. Batches call it with [`Quiet`] (no
//! strings, no big rationals: the compiler removes every explanation
//! branch), the registry with [`Full`], which fills an [`Outcome`].
//!
//! In a core: `if let Some((o, n)) = ex.out() { o.reason = format!(.., n.label(k)) }`.

use super::super::input::Input;
use super::super::outcome::{Outcome, Verdict};
use schedlab_model::Duration;

/// Task names for explanations (empty: `tasks[i]`), and for a subset of a
/// task set (one cluster) each task's index in the whole set.
#[derive(Debug, Clone, Copy)]
pub struct Names<'a> {
    pub names: &'a [String],
    pub index: &'a [usize],
}

impl<'a> Names<'a> {
    /// No names: tasks are `tasks[i]`.
    pub const NONE: Names<'static> = Names { names: &[], index: &[] };

    /// The names (and whole-set indices) of an input.
    pub fn of(input: &'a Input) -> Names<'a> {
        Names { names: &input.names, index: &input.index }
    }

    /// `task NAME (tasks[i])`, or `tasks[i]` without names.
    pub fn label(&self, i: usize) -> String {
        let k = self.index.get(i).copied().unwrap_or(i);
        match self.names.get(i) {
            Some(n) => format!("task {n} (tasks[{k}])"),
            None => format!("tasks[{k}]"),
        }
    }
}

/// Where a core writes its explanation, if anywhere.
pub trait Explain {
    /// The outcome being built and the names, when explaining; `None` on the
    /// fast path.
    fn out(&mut self) -> Option<(&mut Outcome, Names<'_>)>;
}

/// The fast path: decide only.
#[derive(Debug, Clone, Copy, Default)]
pub struct Quiet;

impl Explain for Quiet {
    #[inline(always)]
    fn out(&mut self) -> Option<(&mut Outcome, Names<'_>)> {
        None
    }
}

/// The explained path.
#[derive(Debug)]
pub struct Full<'a> {
    pub outcome: Outcome,
    pub names: Names<'a>,
}

impl Explain for Full<'_> {
    #[inline]
    fn out(&mut self) -> Option<(&mut Outcome, Names<'_>)> {
        Some((&mut self.outcome, self.names))
    }
}

/// Runs `core` on the explained path and returns the outcome with its verdict.
pub fn explained(id: &'static str, names: Names<'_>, core: impl FnOnce(&mut Full<'_>) -> Verdict) -> Outcome {
    let mut full = Full { outcome: Outcome::new(id, Verdict::Inconclusive, ""), names };
    let v = core(&mut full);
    full.outcome.verdict = v;
    full.outcome
}

/// `12.5ms`-style text of a nanosecond value held in a wide integer.
pub fn ns(v: i128) -> String {
    match u64::try_from(v) {
        Ok(x) => Duration(x).to_string(),
        Err(_) => format!("{v}ns"),
    }
}
