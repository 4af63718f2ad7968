//! Metrics over a sweep's rows.
//!
//! * Schedulability ratio S = k/n at a point, with the Wilson score interval
//!   (Wilson 1927): centre (k + z²/2)/(n + z²), half-width
//!   z·√(k(n − k)/n + z²/4)/(n + z²); z = 1.96 for 95 %.
//! * Weighted schedulability (Bastoni, Brandenburg & Anderson 2010; EPOS
//!   thesis Eq. 4): W = Σ_U U·S(U) / Σ_U U over the caps U of a curve.
//! * Simulations: miss ratio = misses / jobs; tardiness max and mean over
//!   completed jobs (per set; averaged over the sets of a point).
//!
//! The Python package computes the same from the results file
//! (`schedlab.experiment.ratios`, `weighted`), and a test checks both.

/// z for a two-sided 95 % interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// The Wilson score interval of k successes in n trials.
pub fn wilson(k: u64, n: u64, z: f64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let (k, n) = (k as f64, n as f64);
    let z2 = z * z;
    let centre = (k + z2 / 2.0) / (n + z2);
    let half = z * (k * (n - k) / n + z2 / 4.0).sqrt() / (n + z2);
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// EPOS Eq. 4: Σ U·S(U) / Σ U over `(U, S(U))` pairs.
pub fn weighted(curve: &[(f64, f64)]) -> f64 {
    let den: f64 = curve.iter().map(|c| c.0).sum();
    if den == 0.0 {
        return f64::NAN;
    }
    curve.iter().map(|c| c.0 * c.1).sum::<f64>() / den
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_matches_the_closed_form() {
        // 8 of 10 at 95 %: (0.4902, 0.9433) (Newcombe 1998, Table I style check by hand).
        let (lo, hi) = wilson(8, 10, Z95);
        assert!((lo - 0.4902).abs() < 1e-4 && (hi - 0.9433).abs() < 1e-4, "{lo} {hi}");
        let (lo, hi) = wilson(0, 1000, Z95);
        assert_eq!(lo, 0.0);
        assert!((hi - 0.00383).abs() < 1e-5, "{hi}");
        let (lo, hi) = wilson(1000, 1000, Z95);
        assert!((lo - 0.99617).abs() < 1e-5 && hi == 1.0);
        assert_eq!(wilson(0, 0, Z95), (0.0, 1.0));
    }

    #[test]
    fn weighted_schedulability_is_eq4() {
        // S = 1 up to cap 4, 0 above, caps 2.0 … 8.0 step 0.1: W = Σ_{U ≤ 4} U / Σ U.
        let caps: Vec<f64> = (0..61).map(|i| 2.0 + i as f64 / 10.0).collect();
        let curve: Vec<(f64, f64)> = caps.iter().map(|&u| (u, if u <= 4.0 + 1e-9 { 1.0 } else { 0.0 })).collect();
        let num: f64 = (0..21).map(|i| 2.0 + i as f64 / 10.0).sum(); // 2.0..=4.0: 63
        let den: f64 = caps.iter().sum(); // 305
        assert!((weighted(&curve) - num / den).abs() < 1e-12);
        assert!((num - 63.0).abs() < 1e-9 && (den - 305.0).abs() < 1e-9);
        assert_eq!(weighted(&[(2.0, 1.0), (8.0, 1.0)]), 1.0);
        assert_eq!(weighted(&[(2.0, 0.5), (6.0, 0.0)]), 0.125);
    }
}
