//! Decision latencies: for each scheduling-relevant event (release,
//! completion, resume), the time until the CPUs' assignment conforms to the
//! policy again (the OSPERT 2009 G-EDF latency test, T5, generalised to any
//! priority-driven or replayed policy and to every event kind).
//!
//! Samples go into a log-linear histogram (exact below 256 ns, then 128
//! sub-buckets per power of two, so quantiles are within 0.8 %), so memory
//! does not grow with the trace. Minimum, maximum and mean are exact.

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

const EXACT: u64 = 256;
const SUB_BITS: u32 = 7; // 128 sub-buckets per octave
const SUB: u64 = 1 << SUB_BITS;

fn bucket(v: u64) -> usize {
    if v < EXACT {
        return v as usize;
    }
    let e = 63 - v.leading_zeros(); // >= 8
    let sub = (v >> (e - SUB_BITS)) & (SUB - 1);
    (EXACT + (e as u64 - 8) * SUB + sub) as usize
}

/// The largest value that falls into bucket `b`.
fn bucket_high(b: usize) -> u64 {
    let b = b as u64;
    if b < EXACT {
        return b;
    }
    let e = (b - EXACT) / SUB + 8;
    let sub = (b - EXACT) % SUB;
    let low = (1u64 << e) + (sub << (e - SUB_BITS as u64));
    low + (1u64 << (e - SUB_BITS as u64)) - 1
}

/// Streaming latency statistics.
#[derive(Debug, Clone, Default)]
pub struct Histogram {
    count: u64,
    sum: u128,
    min: u64,
    max: u64,
    counts: Vec<u64>,
}

impl Histogram {
    pub fn add(&mut self, v: u64) {
        if self.count == 0 || v < self.min {
            self.min = v;
        }
        self.max = self.max.max(v);
        self.count += 1;
        self.sum += v as u128;
        let b = bucket(v);
        if self.counts.len() <= b {
            self.counts.resize(b + 1, 0);
        }
        self.counts[b] += 1;
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    /// The value below or at which a fraction `q` of the samples lie
    /// (rounded up to the bucket's top, never above the maximum).
    pub fn quantile(&self, q: f64) -> u64 {
        if self.count == 0 {
            return 0;
        }
        let rank = ((q * self.count as f64).ceil() as u64).clamp(1, self.count);
        let mut seen = 0;
        for (b, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return bucket_high(b).min(self.max).max(self.min);
            }
        }
        self.max
    }

    pub fn stats(&self) -> LatencyStats {
        LatencyStats {
            count: self.count,
            min: self.min,
            mean: if self.count == 0 { 0 } else { (self.sum / self.count as u128) as u64 },
            p99: self.quantile(0.99),
            max: self.max,
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
            all: self.all.stats(),
            release: self.by_kind[0].stats(),
            completion: self.by_kind[1].stats(),
            resume: self.by_kind[2].stats(),
            unresolved: self.unresolved,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_cover_values_and_bound_them() {
        for v in [0u64, 1, 255, 256, 257, 1000, 65_535, 1 << 20, 5_000_000, u64::MAX / 2] {
            let b = bucket(v);
            assert!(bucket_high(b) >= v, "{v}");
            assert!(bucket_high(b) - v <= v / 128 + 1, "{v}: {}", bucket_high(b));
            if b > 0 {
                assert!(bucket_high(b - 1) < v, "{v}");
            }
        }
    }

    #[test]
    fn stats_are_exact_for_min_max_mean() {
        let mut h = Histogram::default();
        for v in 1..=100u64 {
            h.add(v * 1000);
        }
        let s = h.stats();
        assert_eq!((s.count, s.min, s.max, s.mean), (100, 1000, 100_000, 50_500));
        assert!(s.p99 >= 99_000 && s.p99 <= 99_000 + 99_000 / 128 + 1, "{}", s.p99);
    }
}
