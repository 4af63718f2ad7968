//! Task periods in integer nanoseconds.
//!
//! * [`uniform`]: uniform over the multiples of a granularity in a range.
//! * [`log_uniform`]: the log-uniform construction of P. Emberson, R. Stafford
//!   and R. I. Davis, "Techniques for the synthesis of multiprocessor
//!   tasksets", WATERS 2010: `r ~ U[ln T_min, ln(T_max + T_g))`,
//!   `T = ⌊e^r / T_g⌋ · T_g`.
//! * [`choice`]: one of a fixed list (e.g. 25, 50, 100, 200 ms).
//! * [`PeriodRange`]: the named ranges of the UNC studies (B. B. Brandenburg,
//!   PhD thesis, UNC 2011): short \[3, 33\] ms, moderate \[10, 100\] ms, long
//!   \[50, 250\] ms, sampled uniformly with 1 ms granularity.
//! * [`harmonic`]: a set of pairwise harmonic periods (see its docs for the
//!   construction).

use super::GenError;
use schedlab_model::rng::Rng;

/// Nanoseconds per millisecond.
pub const NS_PER_MS: u64 = 1_000_000;
/// Default period granularity: 1 ms.
pub const DEFAULT_GRANULARITY_NS: u64 = NS_PER_MS;

/// Indices `(m_lo, m_hi)` of the positive multiples of `g` in `[lo, hi]`.
fn multiples(lo: u64, hi: u64, g: u64) -> Result<(u64, u64), GenError> {
    if g == 0 {
        return Err(GenError::invalid("period granularity must be > 0 ns"));
    }
    if lo > hi {
        return Err(GenError::invalid(format!("period range [{lo}, {hi}] ns is empty (lo > hi)")));
    }
    let m_lo = lo.div_ceil(g).max(1); // periods must be > 0
    let m_hi = hi / g;
    if m_lo > m_hi {
        return Err(GenError::invalid(format!(
            "period range [{lo}, {hi}] ns contains no positive multiple of the granularity {g} ns"
        )));
    }
    Ok((m_lo, m_hi))
}

/// Uniform over the positive multiples of `granularity_ns` in `[lo_ns, hi_ns]`.
pub fn uniform(rng: &mut Rng, lo_ns: u64, hi_ns: u64, granularity_ns: u64) -> Result<u64, GenError> {
    let (a, b) = multiples(lo_ns, hi_ns, granularity_ns)?;
    Ok(rng.range_u64(a, b) * granularity_ns)
}

/// Log-uniform period (Emberson et al. 2010), restricted to multiples of
/// `granularity_ns` in `[lo_ns, hi_ns]`: with `T_min`, `T_max` the extreme
/// admissible multiples, `r ~ U[ln T_min, ln(T_max + g))` and
/// `T = ⌊e^r / g⌋ · g` (clamped into range against rounding). Each multiple
/// `m·g` thus has probability proportional to `ln((m+1)/m)`.
pub fn log_uniform(rng: &mut Rng, lo_ns: u64, hi_ns: u64, granularity_ns: u64) -> Result<u64, GenError> {
    let (a, b) = multiples(lo_ns, hi_ns, granularity_ns)?;
    // Work in units of the granularity: r ~ U[ln a, ln(b + 1)).
    let r = rng.uniform((a as f64).ln(), ((b + 1) as f64).ln());
    let m = (r.exp().floor() as u64).clamp(a, b);
    Ok(m * granularity_ns)
}

/// A uniformly chosen element of `choices_ns`; errors if the list is empty or
/// contains a zero period.
pub fn choice(rng: &mut Rng, choices_ns: &[u64]) -> Result<u64, GenError> {
    if choices_ns.contains(&0) {
        return Err(GenError::invalid("period choices must all be > 0 ns"));
    }
    rng.choose(choices_ns).copied().ok_or_else(|| GenError::invalid("period choice list is empty"))
}

/// `n` pairwise harmonic periods (each divides every larger one) in
/// `[lo_ns, hi_ns]`, multiples of `granularity_ns`.
///
/// Construction (in units of the granularity, `[a, b]` the admissible
/// multiples): let `K` be the largest integer with `a · 2^K <= b`, so that
/// the widest power-of-two spread fits the range. A base `B` is drawn
/// uniformly from `[a, ⌊b / 2^K⌋]` (non-empty by the choice of `K`), and each
/// task independently gets `B · 2^k · g` with `k` uniform in `{0, …, K}`. All
/// periods are powers-of-two multiples of the same base, hence pairwise
/// harmonic, and the hyperperiod is at most `B · 2^K · g <= hi_ns`. The price of
/// maximising the spread is that the base has few choices when `hi/lo` is just
/// above a power of two (e.g. `[3, 33]` ms gives bases 3 or 4 ms).
pub fn harmonic(rng: &mut Rng, n: usize, lo_ns: u64, hi_ns: u64, granularity_ns: u64) -> Result<Vec<u64>, GenError> {
    if n == 0 {
        return Err(GenError::invalid("number of periods n must be at least 1"));
    }
    let (a, b) = multiples(lo_ns, hi_ns, granularity_ns)?;
    let mut k_max = 0u32;
    while let Some(p) = 1u64.checked_shl(k_max + 1) {
        match a.checked_mul(p) {
            Some(v) if v <= b => k_max += 1,
            _ => break,
        }
    }
    let base = rng.range_u64(a, b >> k_max);
    Ok((0..n)
        .map(|_| {
            let k = rng.range_u64(0, u64::from(k_max)) as u32;
            (base << k) * granularity_ns
        })
        .collect())
}

/// Named period ranges of the UNC studies (uniform, 1 ms granularity).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PeriodRange {
    /// \[3, 33\] ms.
    Short,
    /// \[10, 100\] ms.
    Moderate,
    /// \[50, 250\] ms.
    Long,
}

impl PeriodRange {
    /// Parses `short`, `moderate` or `long`.
    pub fn parse(s: &str) -> Result<Self, GenError> {
        match s.trim() {
            "short" => Ok(PeriodRange::Short),
            "moderate" => Ok(PeriodRange::Moderate),
            "long" => Ok(PeriodRange::Long),
            other => {
                Err(GenError::invalid(format!("unknown period range {other:?}; expected short, moderate or long")))
            }
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            PeriodRange::Short => "short",
            PeriodRange::Moderate => "moderate",
            PeriodRange::Long => "long",
        }
    }

    /// Inclusive bounds in nanoseconds.
    pub fn bounds_ns(self) -> (u64, u64) {
        let (lo, hi) = match self {
            PeriodRange::Short => (3, 33),
            PeriodRange::Moderate => (10, 100),
            PeriodRange::Long => (50, 250),
        };
        (lo * NS_PER_MS, hi * NS_PER_MS)
    }

    /// A period drawn uniformly from the range in whole milliseconds.
    pub fn sample(self, rng: &mut Rng) -> u64 {
        let (lo, hi) = self.bounds_ns();
        rng.range_u64(lo / NS_PER_MS, hi / NS_PER_MS) * NS_PER_MS
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;

    const MS: u64 = NS_PER_MS;

    #[test]
    fn uniform_multiples_and_mean() {
        let mut rng = Rng::new(41);
        let xs: Vec<f64> = (0..20_000)
            .map(|_| {
                let t = uniform(&mut rng, 10 * MS, 100 * MS, MS).unwrap();
                assert!((10 * MS..=100 * MS).contains(&t) && t.is_multiple_of(MS));
                t as f64 / MS as f64
            })
            .collect();
        let (m, se) = mean_se(&xs);
        assert!((m - 55.0).abs() < 4.0 * se, "{m}");
        // Non-aligned bounds: multiples of 1 ms inside [2.5 ms, 4.5 ms] are 3 and 4 ms.
        for _ in 0..100 {
            let t = uniform(&mut rng, 2_500_000, 4_500_000, MS).unwrap();
            assert!(t == 3 * MS || t == 4 * MS);
        }
        assert_eq!(uniform(&mut rng, 7 * MS, 7 * MS, MS).unwrap(), 7 * MS);
    }

    #[test]
    fn invalid_ranges() {
        let mut rng = Rng::new(42);
        assert!(uniform(&mut rng, 10 * MS, 5 * MS, MS).is_err());
        assert!(uniform(&mut rng, 10, 20, 0).is_err());
        assert!(uniform(&mut rng, 1_100_000, 1_900_000, MS).is_err());
        assert!(uniform(&mut rng, 0, 0, MS).is_err());
        assert!(log_uniform(&mut rng, 10 * MS, 5 * MS, MS).is_err());
        assert!(harmonic(&mut rng, 0, MS, 10 * MS, MS).is_err());
        assert!(harmonic(&mut rng, 3, 10 * MS, 5 * MS, MS).is_err());
        assert!(choice(&mut rng, &[]).is_err());
        assert!(choice(&mut rng, &[0, 5]).is_err());
        // lo = 0 is allowed; the smallest period is then one granule.
        assert_eq!(uniform(&mut rng, 0, MS, MS).unwrap(), MS);
    }

    #[test]
    fn log_uniform_distribution() {
        // With granularity 1 and a wide range the result is nearly continuous:
        // ln T ~ U[ln lo, ln(hi+1)), so ln-mean is the midpoint.
        let mut rng = Rng::new(43);
        let (lo, hi) = (1_000u64, 1_000_000u64);
        let xs: Vec<f64> = (0..20_000)
            .map(|_| {
                let t = log_uniform(&mut rng, lo, hi, 1).unwrap();
                assert!((lo..=hi).contains(&t));
                t as f64
            })
            .collect();
        let (a, b) = ((lo as f64).ln(), ((hi + 1) as f64).ln());
        let cdf = |t: f64| (((t + 1.0).ln() - a) / (b - a)).clamp(0.0, 1.0);
        assert!(ks_one(&xs, cdf) < ks_crit_one(xs.len()));
        // Granularity is respected.
        for _ in 0..1000 {
            let t = log_uniform(&mut rng, 10 * MS, 1000 * MS, MS).unwrap();
            assert!(t.is_multiple_of(MS) && (10 * MS..=1000 * MS).contains(&t));
        }
    }

    #[test]
    fn choice_uniform() {
        let mut rng = Rng::new(44);
        let opts = [25 * MS, 50 * MS, 100 * MS, 200 * MS];
        let mut counts = [0usize; 4];
        let n = 20_000;
        for _ in 0..n {
            let t = choice(&mut rng, &opts).unwrap();
            counts[opts.iter().position(|&o| o == t).unwrap()] += 1;
        }
        for c in counts {
            let p = 0.25;
            let se = (p * (1.0 - p) / n as f64).sqrt();
            assert!((c as f64 / n as f64 - p).abs() < 4.0 * se);
        }
    }

    #[test]
    fn harmonic_periods_divide_each_other() {
        let mut rng = Rng::new(45);
        for range in [PeriodRange::Short, PeriodRange::Moderate, PeriodRange::Long] {
            let (lo, hi) = range.bounds_ns();
            for _ in 0..200 {
                let ps = harmonic(&mut rng, 8, lo, hi, MS).unwrap();
                for &p in &ps {
                    assert!((lo..=hi).contains(&p) && p % MS == 0);
                    for &q in &ps {
                        let (s, l) = (p.min(q), p.max(q));
                        assert_eq!(l % s, 0, "{p} and {q} not harmonic");
                    }
                }
            }
        }
        // Short [3,33] ms: K = 3, bases 3 or 4 ms, all four exponents occur.
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..200 {
            seen.extend(harmonic(&mut rng, 4, 3 * MS, 33 * MS, MS).unwrap());
        }
        let expect: std::collections::BTreeSet<u64> = [3, 6, 12, 24, 4, 8, 16, 32].iter().map(|v| v * MS).collect();
        assert_eq!(seen, expect);
        // Range narrower than a factor two: all periods equal the base.
        let ps = harmonic(&mut rng, 5, 10 * MS, 15 * MS, MS).unwrap();
        assert!(ps.iter().all(|&p| p == ps[0]));
        // Huge range does not overflow.
        let ps = harmonic(&mut rng, 5, 1, u64::MAX, 1).unwrap();
        assert!(ps.iter().all(|&p| p >= 1));
    }

    #[test]
    fn named_ranges() {
        let mut rng = Rng::new(46);
        for (s, lo, hi) in [("short", 3, 33), ("moderate", 10, 100), ("long", 50, 250)] {
            let r = PeriodRange::parse(s).unwrap();
            assert_eq!(r.name(), s);
            assert_eq!(r.bounds_ns(), (lo * MS, hi * MS));
            let mut min = u64::MAX;
            let mut max = 0;
            for _ in 0..5000 {
                let t = r.sample(&mut rng);
                assert!(t.is_multiple_of(MS) && (lo * MS..=hi * MS).contains(&t));
                min = min.min(t);
                max = max.max(t);
            }
            assert_eq!((min, max), (lo * MS, hi * MS));
        }
        assert!(PeriodRange::parse("medium").is_err());
    }

    #[test]
    fn determinism() {
        let run = |seed| {
            let mut r = Rng::new(seed);
            (
                uniform(&mut r, MS, 100 * MS, MS).unwrap(),
                log_uniform(&mut r, MS, 100 * MS, MS).unwrap(),
                harmonic(&mut r, 5, 10 * MS, 100 * MS, MS).unwrap(),
            )
        };
        assert_eq!(run(9), run(9));
    }
}
