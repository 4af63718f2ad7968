//! Decision latencies: for each scheduling-relevant event (release,
//! completion, resume), the time until the CPUs' assignment conforms to the
//! policy again (the OSPERT 2009 G-EDF latency test, T5, generalised to any
//! priority-driven or replayed policy and to every event kind).
//!
//! Samples go into the trace crate's log-linear histogram (quantiles within
//! 0.8 %), so memory does not grow with the trace. Minimum, maximum and mean
//! are exact.

use schedlab_trace::histogram::Histogram;
use schedlab_trace::Time;
use serde::Serialize;

/// The kind of event a latency is measured from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LatencyKind {
    Release,
    Completion,
    Resume,
}

impl From<&Histogram> for LatencyStats {
    fn from(h: &Histogram) -> LatencyStats {
        LatencyStats {
            count: h.count(),
            min: h.min(),
            mean: if h.count() == 0 { 0 } else { (h.sum() / h.count() as u128) as u64 },
            p99: h.quantile(0.99),
            max: h.max(),
        }
    }
}

/// Summary of latencies, in ns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LatencyStats {
    pub count: u64,
    pub min: Time,
    pub mean: Time,
    pub p99: Time,
    pub max: Time,
}

/// Latencies of every event kind and of all together.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LatencyReport {
    pub all: LatencyStats,
    pub release: LatencyStats,
    pub completion: LatencyStats,
    pub resume: LatencyStats,
    /// Events after which the assignment never conformed again before the
    /// end of the trace.
    pub unresolved: u64,
}

/// Collects latencies.
#[derive(Debug, Clone, Default)]
pub(crate) struct Latencies {
    all: Histogram,
    by_kind: [Histogram; 3],
    pub unresolved: u64,
}

impl Latencies {
    pub fn add(&mut self, kind: LatencyKind, v: Time) {
        self.all.add(v);
        self.by_kind[kind as usize].add(v);
    }

    pub fn report(&self) -> LatencyReport {
        LatencyReport {
            all: (&self.all).into(),
            release: (&self.by_kind[0]).into(),
            completion: (&self.by_kind[1]).into(),
            resume: (&self.by_kind[2]).into(),
            unresolved: self.unresolved,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_are_exact_for_min_max_mean() {
        let mut h = Histogram::default();
        for v in 1..=100u64 {
            h.add(v * 1000);
        }
        let s = LatencyStats::from(&h);
        assert_eq!((s.count, s.min, s.max, s.mean), (100, 1000, 100_000, 50_500));
        assert!(s.p99 >= 99_000 && s.p99 <= 99_000 + 99_000 / 128 + 1, "{}", s.p99);
    }
}
