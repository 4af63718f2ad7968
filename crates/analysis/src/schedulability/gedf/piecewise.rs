//! Fast least fixed points of response-time iterations in nanosecond time.
//!
//! R ← C + ⌊S(R)/m⌋ converges slowly when S grows almost as fast as m·R
//! (with m − 1 terms capped at R − C + 1 the gap shrinks by (m−1)/m per
//! step: dozens of steps per task). Every term of S is piecewise linear in
//! R with slope 0 or 1, so each evaluation also returns the slope b of S at
//! R and the room over which S stays linear (a lower bound on S there for
//! the convex top-(m−1) sums of Guan et al.). Inside that room, the least
//! R' with S(R') < m·(R' − C + 1) is solved directly; every R' skipped has
//! f(R') > R', so the result is the same least fixed point the plain
//! iteration reaches, in a few evaluations.

/// A piecewise-linear quantity at a point: value, right slope, and the
/// distance over which it stays linear (value + slope·δ for δ ≤ room).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lin {
    pub v: i64,
    pub slope: i64,
    pub room: i64,
}

/// "Linear for ever".
pub const FAR: i64 = i64::MAX / 8;

impl Lin {
    #[inline]
    pub fn constant(v: i64) -> Lin {
        Lin { v, slope: 0, room: FAR }
    }
    /// x − c + 1 as a function of x, at x.
    #[inline]
    pub fn cap(x: i64, c: i64) -> Lin {
        Lin { v: x - c + 1, slope: 1, room: FAR }
    }
    /// The pointwise minimum (slopes 0 or 1; ties take the smaller slope).
    #[inline]
    pub fn min(self, o: Lin) -> Lin {
        let (a, b) = if self.v < o.v || (self.v == o.v && self.slope <= o.slope) { (self, o) } else { (o, self) };
        let mut room = a.room.min(b.room);
        if a.slope > b.slope {
            // Slopes differ by 1 in the terms of the tests: no division then.
            let (gap, ds) = (b.v - a.v, a.slope - b.slope);
            room = room.min(if ds == 1 { gap } else { gap / ds });
        }
        Lin { v: a.v, slope: a.slope, room }
    }
    #[inline]
    pub fn plus(self, o: Lin) -> Lin {
        Lin { v: self.v + o.v, slope: self.slope + o.slope, room: self.room.min(o.room) }
    }
}

/// N·C + min(C, a − N·T), N = ⌊a/T⌋, as a function of a (the workload
/// of a periodic task in a window offset by a).
#[inline]
pub fn sawtooth(c: i64, t: i64, a: i64) -> Lin {
    let n = a.div_euclid(t);
    let r = a - n * t;
    if r < c {
        Lin { v: n * c + r, slope: 1, room: c - r }
    } else {
        Lin { v: n * c + c, slope: 0, room: t - r }
    }
}

/// ⌊a/t⌋ and a mod t (remainder in [0, t)) for 0 < t, with `inv` = 1/t
/// as f64: for |a| < 2⁵⁰ a float estimate corrected by a step or two (it
/// is off by at most one there, plus truncation), several times cheaper than a
/// 64-bit division; beyond that the division itself.
#[inline(always)]
pub fn divmod(a: i64, t: i64, inv: f64) -> (i64, i64) {
    debug_assert!(t > 0);
    if a.unsigned_abs() >= 1 << 50 {
        return (a.div_euclid(t), a.rem_euclid(t));
    }
    // Truncation (no `floor` call) may land one more step off for a < 0.
    let mut q = (a as f64 * inv) as i64;
    let mut r = a - q * t;
    while r < 0 {
        q -= 1;
        r += t;
    }
    while r >= t {
        q += 1;
        r -= t;
    }
    (q, r)
}

/// Evaluations before giving up on the upward search.
pub const MAX_EVALS: usize = 4096;

/// The least R ≥ c with c + ⌊S(R)/m⌋ ≤ R, if it is at most d; otherwise
/// `Err(an iterate above d)`. `eval(R)` returns S at R as a [`Lin`] whose
/// value is exact and whose slope and room give a lower bound of S over
/// the room. S must be non-decreasing.
pub fn lfp(c: i64, d: i64, m: i64, mut eval: impl FnMut(i64) -> Lin) -> Result<i64, i64> {
    // Floor divisions by float reciprocals (see `divmod`): S ≥ 0, so ⌊S/m⌋
    // is S / m.
    let inv_m = 1.0 / m as f64;
    let mut r = c;
    for _ in 0..MAX_EVALS {
        let s = eval(r);
        let f = c + divmod(s.v, m, inv_m).0;
        if f > d {
            return Err(f);
        }
        if f <= r {
            return Ok(r);
        }
        let end = r.saturating_add(s.room).saturating_add(1);
        let cand = if s.slope < m {
            let den = m - s.slope;
            divmod(s.v - s.slope * r + m * (c - 1), den, 1.0 / den as f64).0 + 1
        } else {
            end
        };
        let next = f.max(cand.min(end));
        if next > d {
            return Err(next);
        }
        r = next;
    }
    // Not reached for sane inputs (each evaluation moves past a piece);
    // any R ≤ d with f(R) ≤ R would do, and d itself is the last resort.
    let s = eval(d);
    let f = c + s.v / m;
    if f <= d {
        Ok(d)
    } else {
        Err(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plain iteration, for comparison.
    fn plain(c: i64, d: i64, m: i64, s: impl Fn(i64) -> i64) -> Result<i64, i64> {
        let mut r = c;
        loop {
            let f = c + s(r) / m;
            if f > d {
                return Err(f);
            }
            if f == r {
                return Ok(r);
            }
            r = f;
        }
    }

    #[test]
    fn divmod_is_exact() {
        let mut rng = schedlab_model::rng::Rng::new(5);
        for _ in 0..200_000 {
            let t = if rng.below(2) == 0 { rng.range_u64(1, 100) } else { rng.range_u64(1, 1 << 41) } as i64;
            let a = match rng.below(3) {
                0 => rng.range_u64(0, 1 << 49) as i64,
                1 => (rng.range_u64(0, (1 << 49) / t as u64) as i64) * t + [0, t - 1][rng.below(2) as usize],
                _ => rng.range_u64(0, 1000) as i64,
            };
            assert_eq!(divmod(a, t, 1.0 / t as f64), (a / t, a % t), "{a} / {t}");
            let b = -a;
            assert_eq!(divmod(b, t, 1.0 / t as f64), (b.div_euclid(t), b.rem_euclid(t)), "{b} / {t}");
            let big = a + (1 << 50) + rng.below(1 << 60) as i64;
            assert_eq!(divmod(-big, t, 1.0 / t as f64), ((-big).div_euclid(t), (-big).rem_euclid(t)), "{big} / {t}");
        }
    }

    #[test]
    fn same_fixed_point_as_the_plain_iteration() {
        let mut rng = schedlab_model::rng::Rng::new(11);
        for _ in 0..20_000 {
            let m = rng.range_u64(1, 6) as i64;
            let n = rng.range_u64(1, 8) as usize;
            let tasks: Vec<(i64, i64, i64)> = (0..n)
                .map(|_| {
                    let t = rng.range_u64(2, 200) as i64;
                    let c = rng.range_u64(1, t as u64) as i64;
                    (c, t, rng.range_u64(0, 300) as i64)
                })
                .collect();
            let ck = rng.range_u64(1, 50) as i64;
            let d = ck + rng.range_u64(0, 400) as i64;
            let exact =
                |x: i64| tasks.iter().map(|&(c, t, off)| sawtooth(c, t, x + off).v.min(x - ck + 1)).sum::<i64>();
            let lin = |x: i64| {
                tasks
                    .iter()
                    .fold(Lin::constant(0), |acc, &(c, t, off)| acc.plus(sawtooth(c, t, x + off).min(Lin::cap(x, ck))))
            };
            let a = lfp(ck, d, m, lin);
            let b = plain(ck, d, m, exact);
            assert_eq!(a.is_ok(), b.is_ok(), "{tasks:?} ck {ck} d {d} m {m}");
            if a.is_ok() {
                assert_eq!(a, b, "{tasks:?} ck {ck} d {d} m {m}");
            }
        }
    }
}
