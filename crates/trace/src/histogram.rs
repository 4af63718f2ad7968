//! A streaming histogram of non-negative integer samples (latencies,
//! overheads) with bounded memory: exact below 256, then 128 sub-buckets per
//! power of two, so a quantile is within 0.8 % above the true value. Count,
//! minimum, maximum and sum are exact. The validator's decision latencies and
//! the importers' latency and overhead samples use it.

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
    low.saturating_add((1u64 << (e - SUB_BITS as u64)) - 1)
}

/// Streaming statistics of non-negative integer samples.
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
        self.sum += u128::from(v);
        let b = bucket(v);
        if self.counts.len() <= b {
            self.counts.resize(b + 1, 0);
        }
        self.counts[b] += 1;
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    /// The smallest sample (0 for no samples).
    pub fn min(&self) -> u64 {
        self.min
    }

    /// The largest sample (0 for no samples).
    pub fn max(&self) -> u64 {
        self.max
    }

    /// The exact sum of the samples.
    pub fn sum(&self) -> u128 {
        self.sum
    }

    /// The exact mean (0 for no samples).
    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum as f64 / self.count as f64
        }
    }

    /// The value at or below which a fraction `q` (0..=1) of the samples lie,
    /// rounded up to its bucket's top and kept within [minimum, maximum];
    /// 0 for no samples.
    pub fn quantile(&self, q: f64) -> u64 {
        if self.count == 0 {
            return 0;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.count as f64).ceil() as u64).clamp(1, self.count);
        let mut seen = 0;
        for (b, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return bucket_high(b).min(self.max).max(self.min);
            }
        }
        self.max
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_below_256_and_within_a_bucket_above() {
        let mut h = Histogram::default();
        for v in 0..200u64 {
            h.add(v);
        }
        assert_eq!((h.count(), h.min(), h.max()), (200, 0, 199));
        assert_eq!(h.quantile(0.5), 99);
        assert_eq!(h.quantile(1.0), 199);
        let mut h = Histogram::default();
        for v in [1_000_000u64, 2_000_000, 3_000_000] {
            h.add(v);
        }
        let p = h.quantile(0.5);
        assert!((2_000_000..=2_000_000 + 2_000_000 / 128).contains(&p), "{p}");
        assert_eq!(h.quantile(0.99), 3_000_000);
        assert_eq!(h.mean(), 2_000_000.0);
    }

    #[test]
    fn every_value_lies_in_a_bucket_that_bounds_it_within_a_128th() {
        for v in [0u64, 1, 255, 256, 257, 1000, 65_535, 1 << 20, 5_000_000, u64::MAX / 2, u64::MAX] {
            let b = bucket(v);
            assert!(bucket_high(b) >= v, "{v}");
            assert!(bucket_high(b) - v <= v / 128 + 1, "{v}: {}", bucket_high(b));
            assert!(b == 0 || bucket_high(b - 1) < v, "{v}");
        }
    }

    #[test]
    fn no_samples_answer_zero() {
        let h = Histogram::default();
        assert_eq!((h.count(), h.quantile(0.99), h.mean()), (0, 0, 0.0));
    }
}
