//! Relative deadlines in integer nanoseconds.
//!
//! * Implicit: `D = T`.
//! * Constrained: `D = C + x·(T − C)`, `x ~ U[0, 1]`, the usual construction
//!   for constrained-deadline task sets (e.g. R. I. Davis and A. Burns,
//!   "Priority assignment for global fixed priority pre-emptive scheduling in
//!   multiprocessor real-time systems", RTSS 2009), rounded to the nearest
//!   multiple of a granularity and kept inside `[C, T]`.

use super::GenError;
use schedlab_model::rng::Rng;

/// Deadline model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeadlineKind {
    /// `D = T`.
    Implicit,
    /// `C <= D <= T`, uniform between `C` and `T`.
    Constrained,
}

impl DeadlineKind {
    /// Parses `implicit` or `constrained`.
    pub fn parse(s: &str) -> Result<Self, GenError> {
        match s.trim() {
            "implicit" => Ok(DeadlineKind::Implicit),
            "constrained" => Ok(DeadlineKind::Constrained),
            other => {
                Err(GenError::invalid(format!("unknown deadline kind {other:?}; expected implicit or constrained")))
            }
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            DeadlineKind::Implicit => "implicit",
            DeadlineKind::Constrained => "constrained",
        }
    }
}

/// A relative deadline for a task with WCET `wcet_ns` and period `period_ns`.
///
/// [`DeadlineKind::Implicit`] returns `period_ns` and draws nothing from `rng`.
/// For [`DeadlineKind::Constrained`] see [`constrained`].
/// Errors if `period_ns == 0`, `wcet_ns > period_ns` or `granularity_ns == 0`.
pub fn deadline(
    rng: &mut Rng,
    kind: DeadlineKind,
    wcet_ns: u64,
    period_ns: u64,
    granularity_ns: u64,
) -> Result<u64, GenError> {
    match kind {
        DeadlineKind::Implicit => {
            check(wcet_ns, period_ns, granularity_ns)?;
            Ok(period_ns)
        }
        DeadlineKind::Constrained => constrained(rng, wcet_ns, period_ns, granularity_ns),
    }
}

fn check(wcet_ns: u64, period_ns: u64, granularity_ns: u64) -> Result<(), GenError> {
    if period_ns == 0 {
        return Err(GenError::invalid("period must be > 0 ns"));
    }
    if wcet_ns > period_ns {
        return Err(GenError::invalid(format!(
            "WCET {wcet_ns} ns exceeds the period {period_ns} ns: no constrained deadline exists"
        )));
    }
    if granularity_ns == 0 {
        return Err(GenError::invalid("deadline granularity must be > 0 ns"));
    }
    Ok(())
}

/// Constrained deadline `D = C + x·(T − C)`, `x ~ U[0, 1)`, rounded to the
/// nearest multiple of `granularity_ns` and clamped to the multiples lying in
/// `[C, T]`, so `C <= D <= T` always holds. If no multiple of the granularity
/// lies in `[C, T]`, `D` is the raw value rounded to the nearest nanosecond
/// (again within `[C, T]`). Use `granularity_ns = 1` for plain integer ns.
pub fn constrained(rng: &mut Rng, wcet_ns: u64, period_ns: u64, granularity_ns: u64) -> Result<u64, GenError> {
    check(wcet_ns, period_ns, granularity_ns)?;
    let (c, t, g) = (wcet_ns, period_ns, granularity_ns);
    let x = rng.f64();
    let raw = c as f64 + x * (t - c) as f64;
    let m_lo = c.div_ceil(g);
    let m_hi = t / g;
    if m_lo <= m_hi {
        // `as u64` saturates, and the clamp keeps the multiple inside [C, T].
        let m = ((raw / g as f64).round() as u64).clamp(m_lo, m_hi);
        Ok(m * g)
    } else {
        Ok((raw.round() as u64).clamp(c, t))
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn implicit_is_period() {
        let mut rng = Rng::new(51);
        let before = rng.clone();
        assert_eq!(deadline(&mut rng, DeadlineKind::Implicit, 3 * MS, 10 * MS, MS).unwrap(), 10 * MS);
        assert_eq!(rng, before, "implicit deadlines consume no randomness");
    }

    #[test]
    fn constrained_within_bounds_and_uniform() {
        let mut rng = Rng::new(52);
        let (c, t) = (1_234_567u64, 98_765_432u64);
        let xs: Vec<f64> = (0..20_000)
            .map(|_| {
                let d = deadline(&mut rng, DeadlineKind::Constrained, c, t, 1).unwrap();
                assert!(d >= c && d <= t);
                (d - c) as f64 / (t - c) as f64
            })
            .collect();
        let (m, se) = mean_se(&xs);
        assert!((m - 0.5).abs() < 4.0 * se);
        assert!(ks_one(&xs, |v| v.clamp(0.0, 1.0)) < ks_crit_one(xs.len()));
    }

    #[test]
    fn granularity_rounding_is_safe() {
        let mut rng = Rng::new(53);
        // C not a multiple of the granularity: D must never round below C.
        for _ in 0..5000 {
            let d = constrained(&mut rng, 2_600_000, 10 * MS, MS).unwrap();
            assert!(d.is_multiple_of(MS) && (3 * MS..=10 * MS).contains(&d), "{d}");
        }
        // T not a multiple: D must never round above T.
        for _ in 0..5000 {
            let d = constrained(&mut rng, MS, 4_400_000, MS).unwrap();
            assert!(d.is_multiple_of(MS) && (MS..=4 * MS).contains(&d), "{d}");
        }
        // No multiple of 1 ms in [1.5 ms, 1.9 ms]: integer-ns fallback.
        for _ in 0..1000 {
            let d = constrained(&mut rng, 1_500_000, 1_900_000, MS).unwrap();
            assert!((1_500_000..=1_900_000).contains(&d));
        }
        // C = T forces D = T.
        assert_eq!(constrained(&mut rng, 5 * MS, 5 * MS, MS).unwrap(), 5 * MS);
        assert_eq!(constrained(&mut rng, 7, 7, MS).unwrap(), 7);
    }

    #[test]
    fn errors_and_names() {
        let mut rng = Rng::new(54);
        assert!(constrained(&mut rng, 11, 10, 1).is_err());
        assert!(constrained(&mut rng, 0, 0, 1).is_err());
        assert!(constrained(&mut rng, 1, 10, 0).is_err());
        assert!(deadline(&mut rng, DeadlineKind::Implicit, 11, 10, 1).is_err());
        for k in [DeadlineKind::Implicit, DeadlineKind::Constrained] {
            assert_eq!(DeadlineKind::parse(k.name()).unwrap(), k);
        }
        assert!(DeadlineKind::parse("arbitrary").is_err());
    }
}
