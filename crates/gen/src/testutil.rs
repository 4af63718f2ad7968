//! Statistical helpers shared by the unit tests of the generator modules.
//!
//! Tolerances: all tests use fixed seeds, so they are deterministic; the
//! thresholds are nevertheless chosen so that a *correct* sampler would fail
//! with probability ≲ 10⁻³ for an arbitrary seed (4 standard errors, KS
//! critical value at α ≈ 0.001, i.e. 1.95/√N).

/// One-sample Kolmogorov–Smirnov statistic of `xs` against the CDF `cdf`.
pub fn ks_one(xs: &[f64], cdf: impl Fn(f64) -> f64) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = v.len() as f64;
    let mut d: f64 = 0.0;
    for (i, &x) in v.iter().enumerate() {
        let f = cdf(x);
        d = d.max(f - i as f64 / n).max((i + 1) as f64 / n - f);
    }
    d
}

/// Critical value of the one-sample KS statistic at α ≈ 0.001.
pub fn ks_crit_one(n: usize) -> f64 {
    1.95 / (n as f64).sqrt()
}

/// Two-sample Kolmogorov–Smirnov statistic.
pub fn ks_two(a: &[f64], b: &[f64]) -> f64 {
    let mut a = a.to_vec();
    let mut b = b.to_vec();
    a.sort_by(|x, y| x.partial_cmp(y).unwrap());
    b.sort_by(|x, y| x.partial_cmp(y).unwrap());
    let (na, nb) = (a.len() as f64, b.len() as f64);
    let (mut i, mut j) = (0usize, 0usize);
    let mut d: f64 = 0.0;
    while i < a.len() && j < b.len() {
        let x = a[i].min(b[j]);
        while i < a.len() && a[i] <= x {
            i += 1;
        }
        while j < b.len() && b[j] <= x {
            j += 1;
        }
        d = d.max((i as f64 / na - j as f64 / nb).abs());
    }
    d
}

/// Critical value of the two-sample KS statistic at α ≈ 0.001.
pub fn ks_crit_two(na: usize, nb: usize) -> f64 {
    let (na, nb) = (na as f64, nb as f64);
    1.95 * ((na + nb) / (na * nb)).sqrt()
}

/// Sample mean and its standard error.
pub fn mean_se(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let m = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0);
    (m, (var / n).sqrt())
}

/// Naive left-to-right sum, the reference for the exact-sum guarantees.
pub fn sum(xs: &[f64]) -> f64 {
    xs.iter().sum()
}
