//! Rate classes: the running CPUs whose progress rate and slowdown causes
//! are equal by construction (their jobs' tasks have the same cache
//! instance, colour footprint, working set, data group and write ratio), so
//! that a change of the shared state that slows them (their data group's
//! writers, their colour classes' occupancy) is applied once per class
//! instead of once per CPU (`docs/platform-model.md`, Cost).
//!
//! Each class keeps a clock of what one of its jobs retired while running
//! the whole time: `v`, demand in millionths of a ns (`Σ micros · dt`, the
//! simulator's `Rate` arithmetic, exact), and `f64` integrals of the demand
//! and of the demand weighted by each miss fraction, for the counters. A
//! CPU's job retired, between two instants it ran throughout, the clock's
//! difference between them ([`Mark`]); the clock advances only when the
//! class's values change.

/// A class's clock and current values.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Clock {
    /// When the values last changed; the integrals below are at `t`.
    pub t: u64,
    /// `Σ micros · dt` up to `t` (millionths of a ns of demand).
    pub v: u128,
    /// `Σ rate · dt`, `Σ rate · p_cap · dt`, `Σ rate · p_coh · dt` up to `t`.
    pub e: f64,
    pub cap: f64,
    pub coh: f64,
    /// The values since `t`.
    pub p_cap: f64,
    pub p_coh: f64,
    pub rate: f64,
    pub micros: u32,
    /// The class's tasks' own miss fraction (a constant of the class).
    pub alone: f64,
    /// Pass of its last recomputation (`PlatformModel::recompute`).
    pub stamp: u32,
}

/// A clock's reading at some instant: a CPU's mark is the reading at the
/// instant its job's progress was last accounted (`from`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Mark {
    pub from: u64,
    pub v: u128,
    pub e: f64,
    pub cap: f64,
    pub coh: f64,
    /// Not read yet (only `from` is set): the class's values did not change
    /// since `from`.
    pub lazy: bool,
}

impl Clock {
    pub fn new(alone: f64, micros: u32) -> Clock {
        Clock { t: 0, v: 0, e: 0.0, cap: 0.0, coh: 0.0, p_cap: 0.0, p_coh: 0.0, rate: 1.0, micros, alone, stamp: 0 }
    }

    /// The reading at `t >= self.t` (the values as they are now). Each
    /// integral is monotone in `t`: a later reading is never smaller.
    #[inline]
    pub fn at(&self, t: u64) -> Mark {
        let dt = t - self.t;
        let de = dt as f64 * self.rate;
        Mark {
            from: t,
            v: self.v + dt as u128 * self.micros as u128,
            e: self.e + de,
            cap: self.cap + de * self.p_cap,
            coh: self.coh + de * self.p_coh,
            lazy: false,
        }
    }

    /// New values from `now` on.
    #[inline]
    pub fn change(&mut self, now: u64, p_cap: f64, p_coh: f64, rate: f64, micros: u32) {
        let r = self.at(now);
        (self.t, self.v, self.e, self.cap, self.coh) = (now, r.v, r.e, r.cap, r.coh);
        (self.p_cap, self.p_coh, self.rate, self.micros) = (p_cap, p_coh, rate, micros);
    }

    /// The instant at which a job marked `mark` that has `need` millionths
    /// of a ns of demand left (from its mark) retires them if the values
    /// stay: the first ns at which the clock has advanced `need` past the
    /// mark, `Rate::cpu_for` of the simulator when nothing changed since.
    #[inline]
    pub fn finish(&self, mark: &Mark, need: u128) -> u128 {
        let (start, need) = if mark.from >= self.t {
            (mark.from, need)
        } else {
            let target = mark.v + need;
            if target <= self.v {
                return self.t as u128;
            }
            (self.t, target - self.v)
        };
        let micros = self.micros.max(1);
        // In u64 when it fits: no 128-bit division (out of line, so that
        // the common case needs fewer registers).
        let cpu = match u64::try_from(need) {
            Ok(n) => n.div_ceil(micros as u64) as u128,
            Err(_) => wide_div_ceil(need, micros),
        };
        start as u128 + cpu
    }
}

#[cold]
#[inline(never)]
fn wide_div_ceil(need: u128, micros: u32) -> u128 {
    need.div_ceil(micros as u128)
}
