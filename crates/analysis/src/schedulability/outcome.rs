//! What a schedulability test answers.

use super::data::Data;
use schedlab_model::exact::Ratio;
use std::fmt;

/// A test's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// The test proves every deadline is met.
    Schedulable,
    /// The test proves some deadline can be missed (only exact tests, or
    /// necessary conditions, say this).
    Unschedulable,
    /// A sufficient test failed: the set may or may not be schedulable.
    Inconclusive,
    /// The test does not apply to this spec (the outcome says why).
    NotApplicable,
}

impl Verdict {
    /// The stable name used in text and JSON output.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Schedulable => "schedulable",
            Verdict::Unschedulable => "unschedulable",
            Verdict::Inconclusive => "inconclusive",
            Verdict::NotApplicable => "not-applicable",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How much a verdict can be trusted in each direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Exactness {
    /// Necessary and sufficient: "no" means some release pattern misses.
    Exact,
    /// Sufficient only: "no" is [`Verdict::Inconclusive`].
    Sufficient,
}

/// A test's answer with its explanation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The test's registry ID.
    pub test: &'static str,
    pub verdict: Verdict,
    /// One sentence a user can act on.
    pub reason: String,
    /// The task (index) that decided the verdict, if one did.
    pub task: Option<usize>,
    /// The quantity compared and the bound it was compared with, exactly.
    pub value: Option<Ratio>,
    pub bound: Option<Ratio>,
    /// Supporting lines (per-task terms, intermediate results).
    pub details: Vec<String>,
    /// Structured results beyond one compared value (response times, a
    /// partition with per-bin outcomes, tardiness bounds), when the test has them.
    pub data: Option<Data>,
}

impl Outcome {
    pub fn new(test: &'static str, verdict: Verdict, reason: impl Into<String>) -> Outcome {
        Outcome {
            test,
            verdict,
            reason: reason.into(),
            task: None,
            value: None,
            bound: None,
            details: Vec::new(),
            data: None,
        }
    }
    pub fn not_applicable(test: &'static str, reason: impl Into<String>) -> Outcome {
        Outcome::new(test, Verdict::NotApplicable, reason)
    }
    /// Records the compared quantity and its bound.
    pub fn compare(mut self, value: Ratio, bound: Ratio) -> Outcome {
        self.value = Some(value);
        self.bound = Some(bound);
        self
    }
    pub fn task(mut self, task: usize) -> Outcome {
        self.task = Some(task);
        self
    }
    pub fn with_data(mut self, data: Data) -> Outcome {
        self.data = Some(data);
        self
    }
    pub fn detail(mut self, line: impl Into<String>) -> Outcome {
        self.details.push(line.into());
        self
    }
    /// bound − value, when both are known (positive: room left).
    pub fn slack(&self) -> Option<Ratio> {
        match (&self.value, &self.bound) {
            (Some(v), Some(b)) => Some(Ratio(&b.0 - &v.0)),
            _ => None,
        }
    }
}
