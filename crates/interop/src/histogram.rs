//! A streaming histogram with bounded memory: exact below 256, then 128
//! sub-buckets per power of two (quantiles are within 0.8 % above the true
//! value). Minimum, maximum, count and sum are exact.

const EXACT: u64 = 256;
const SUB_BITS: u32 = 7;
const SUB: u64 = 1 << SUB_BITS;

fn bucket(v: u64) -> usize {
    if v < EXACT {
        return v as usize;
    }
    let e = 63 - v.leading_zeros();
    let sub = (v >> (e - SUB_BITS)) & (SUB - 1);
    (EXACT + (e as u64 - 8) * SUB + sub) as usize
}

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
    pub count: u64,
    pub sum: u128,
    pub min: u64,
    pub max: u64,
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
    /// The `q`-quantile (0..=1), rounded up to its bucket's top, capped by the
    /// maximum; 0 for no samples.
    pub fn quantile(&self, q: f64) -> u64 {
        if self.count == 0 {
            return 0;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.count as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (b, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return bucket_high(b).min(self.max);
            }
        }
        self.max
    }
    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum as f64 / self.count as f64
        }
    }
}
