//! A CPU's progress rate: how much of a job's demand the CPU retires per
//! nanosecond of CPU time ([`crate::Kernel::rate`]).
//!
//! The simulator applies it (1.0 unless set; a later platform model sets it
//! to model contention or frequency scaling): a job on a CPU of rate `r`
//! advances its remaining demand by `r` ns per ns it runs, so with `r` = 0.5
//! a 2 ms segment takes 4 ms of CPU time. What a policy reads as
//! [`crate::Kernel::consumed`], and what execution-time timers
//! ([`crate::Kernel::arm_exec`]) count, is CPU time, as a kernel sees it;
//! the demand retired (the *work*) stays hidden, like a job's actual
//! execution time.
//!
//! # Exactness
//!
//! A rate is a fixed-point number of millionths ([`Rate::MICROS`] = 1.0), so
//! the arithmetic stays in integers: the work a stint retires is
//! `floor((cpu_ns · millionths + carry) / 10^6)`, and the remainder is
//! carried to the job's next stint ([`Rate::advance`]). Over any sequence of
//! stints at one rate the work retired is exactly `floor(total_cpu_ns ·
//! millionths / 10^6)` — no drift however the time is split. A rate that is
//! not a whole number of millionths (1/3) is rounded to the nearest one by
//! [`Rate::ratio`]. A job completes at the first nanosecond at which its
//! retired work reaches its demand ([`Rate::cpu_for`] rounds up).

use crate::interface::Time;
use std::fmt;

/// A progress rate in millionths: [`Rate::ONE`] is 1.0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate(u32);

impl Default for Rate {
    fn default() -> Rate {
        Rate::ONE
    }
}

impl Rate {
    /// Millionths in 1.0.
    pub const MICROS: u32 = 1_000_000;
    /// Full speed: a nanosecond of CPU time retires a nanosecond of demand.
    pub const ONE: Rate = Rate(Rate::MICROS);
    /// No progress at all (a stalled CPU): a job there never completes.
    pub const ZERO: Rate = Rate(0);

    /// A rate of `micros` millionths (500_000 is 0.5, 2_000_000 is 2.0).
    pub const fn from_micros(micros: u32) -> Rate {
        Rate(micros)
    }

    /// The rate `num / den`, rounded to the nearest millionth; `None` when
    /// `den` is 0 or the rate does not fit (above ~4294).
    pub fn ratio(num: u64, den: u64) -> Option<Rate> {
        if den == 0 {
            return None;
        }
        let m = (num as u128 * Rate::MICROS as u128 + den as u128 / 2) / den as u128;
        u32::try_from(m).ok().map(Rate)
    }

    /// The rate in millionths.
    pub const fn micros(self) -> u32 {
        self.0
    }

    /// Whether this is exactly 1.0 (the simulator's fast path).
    #[inline]
    pub fn is_one(self) -> bool {
        self.0 == Rate::MICROS
    }

    /// The work `cpu` ns at this rate retire, given the job's `carry` (its
    /// remainder in millionths of a nanosecond, below 10^6), which is
    /// updated.
    #[inline]
    pub fn advance(self, cpu: Time, carry: &mut u32) -> Time {
        if self.is_one() {
            return cpu;
        }
        // In u64 when it fits (stints below ~5 h at rates up to 1.0): the
        // same result without a 128-bit division.
        if let Some(total) = cpu.checked_mul(self.0 as u64).and_then(|x| x.checked_add(*carry as u64)) {
            *carry = (total % Rate::MICROS as u64) as u32;
            return total / Rate::MICROS as u64;
        }
        let total = cpu as u128 * self.0 as u128 + *carry as u128;
        *carry = (total % Rate::MICROS as u128) as u32;
        u64::try_from(total / Rate::MICROS as u128).unwrap_or(Time::MAX)
    }

    /// The CPU time it takes to retire `work` ns at this rate from a carry
    /// of `carry`: the smallest `d` with `advance(d, carry) >= work`. `None`
    /// at rate 0 (never), saturating at `Time::MAX`.
    #[inline]
    pub fn cpu_for(self, work: Time, carry: u32) -> Option<Time> {
        if self.is_one() || work == 0 {
            return Some(work);
        }
        if self.0 == 0 {
            return None;
        }
        if let Some(w) = work.checked_mul(Rate::MICROS as u64) {
            return Some(w.saturating_sub(carry as u64).div_ceil(self.0 as u64));
        }
        let need = (work as u128 * Rate::MICROS as u128).saturating_sub(carry as u128);
        let d = need.div_ceil(self.0 as u128);
        Some(u64::try_from(d).unwrap_or(Time::MAX))
    }

    /// A lower bound of the CPU time a job takes at `new` when it takes at
    /// least `cpu` ns at this rate (`cpu_for(work, carry) >= cpu` for its
    /// work and carry, whatever they are): `floor((cpu − 1) · self / new)`.
    /// `cpu_for` at rate `μ` is `⌈(work · 10^6 − carry) / μ⌉`, so `cpu` or
    /// more means `work · 10^6 − carry > (cpu − 1) · μ`, and at `ν` the
    /// same demand takes more than `(cpu − 1) · μ / ν`. This lets the
    /// simulator keep a known lower bound of a completion through a rate
    /// change in either direction without computing the completion
    /// (`Time::MAX` at rate 0: never; 0 when nothing is known).
    #[inline]
    pub fn cpu_at_least(self, cpu: Time, new: Rate) -> Time {
        if cpu == 0 || self.0 == 0 {
            return 0;
        }
        if new.0 == 0 {
            return Time::MAX;
        }
        // In u64 when the product fits: no 128-bit division.
        match (cpu - 1).checked_mul(self.0 as u64) {
            Some(p) => p / new.0 as u64,
            None => u64::try_from((cpu - 1) as u128 * self.0 as u128 / new.0 as u128).unwrap_or(Time::MAX),
        }
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{:06}", self.0 / Rate::MICROS, self.0 % Rate::MICROS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_rate_doubles_the_cpu_time_and_splitting_does_not_drift() {
        let half = Rate::ratio(1, 2).unwrap();
        assert_eq!(half.micros(), 500_000);
        assert_eq!(half.cpu_for(2_000_000, 0), Some(4_000_000));
        // 1/3 rounds to 333_333 millionths; 3 ns stints, 1000 of them.
        let third = Rate::ratio(1, 3).unwrap();
        assert_eq!(third.micros(), 333_333);
        let (mut carry, mut work) = (0u32, 0u64);
        for _ in 0..1000 {
            work += third.advance(3, &mut carry);
        }
        assert_eq!(work, 3000 * 333_333 / 1_000_000);
        // One stint of the same total retires the same.
        let mut c2 = 0;
        assert_eq!(third.advance(3000, &mut c2), work);
        assert_eq!(c2, carry);
    }

    #[test]
    fn cpu_for_is_the_first_nanosecond_the_work_is_reached() {
        for micros in [1, 333_333, 500_000, 999_999, 1_000_000, 1_500_000, 7_000_001] {
            let r = Rate::from_micros(micros);
            for carry in [0u32, 1, 499_999, 999_999] {
                for work in [0u64, 1, 2, 7, 1000, 123_457] {
                    let d = r.cpu_for(work, carry).unwrap();
                    let mut c = carry;
                    assert!(r.advance(d, &mut c) >= work, "{micros} {carry} {work}");
                    if d > 0 && !r.is_one() {
                        let mut c = carry;
                        assert!(r.advance(d - 1, &mut c) < work, "{micros} {carry} {work}: {d} is not the first");
                    }
                }
            }
        }
        assert_eq!(Rate::ZERO.cpu_for(1, 0), None);
        assert_eq!(Rate::ZERO.cpu_for(0, 0), Some(0));
        assert_eq!(Rate::ratio(1, 0), None);
        assert_eq!(Rate::ONE.to_string(), "1.000000");
    }

    /// Whatever the work and carry behind a CPU time at one rate, the bound
    /// at another is never above the CPU time there, and is tight to a
    /// nanosecond when the rate stays.
    #[test]
    fn cpu_at_least_never_exceeds_the_cpu_time_at_the_new_rate() {
        let mut rng = schedlab_model::rng::Rng::new(7);
        for _ in 0..200_000 {
            let mut pick = || match rng.below(4) {
                0 => 1_000_000,
                1 => 1 + rng.below(1_000_000) as u32,
                2 => 700_000 + rng.below(300_000) as u32,
                _ => 1 + rng.below(3_000_000) as u32,
            };
            let (old, new) = (Rate::from_micros(pick()), Rate::from_micros(pick()));
            let work = if rng.below(2) == 0 { rng.below(1000) } else { rng.below(50_000_000_000) };
            let carry = rng.below(1_000_000) as u32;
            let at_old = old.cpu_for(work, carry).unwrap();
            let at_new = new.cpu_for(work, carry).unwrap();
            // Any CPU time up to the true one may be what is known.
            let known = if at_old == 0 { 0 } else { at_old - rng.below(at_old.min(1000) + 1) };
            let bound = old.cpu_at_least(known, new);
            assert!(bound <= at_new, "{old} -> {new}, work {work}, carry {carry}: {bound} > {at_new}");
            if old == new && known == at_old {
                assert!(at_new - bound <= 1, "{old}: {bound} for {at_new}");
            }
        }
        assert_eq!(Rate::ONE.cpu_at_least(10, Rate::ZERO), Time::MAX);
        assert_eq!(Rate::ZERO.cpu_at_least(10, Rate::ONE), 0);
        assert_eq!(Rate::ONE.cpu_at_least(0, Rate::ONE), 0);
    }

    /// The u64 fast paths give the 128-bit results, up to and across the
    /// point where the product stops fitting.
    #[test]
    fn the_u64_paths_agree_with_128_bit_arithmetic() {
        let edge = u64::MAX / 1_000_000;
        for micros in [1u32, 333_333, 999_999, 1_500_000, u32::MAX] {
            let r = Rate::from_micros(micros);
            for carry in [0u32, 1, 999_999] {
                for x in [0u64, 1, 12_345_678_901, edge - 1, edge, edge + 1, u64::MAX / micros as u64, u64::MAX] {
                    let mut c = carry;
                    let got = r.advance(x, &mut c);
                    let total = x as u128 * micros as u128 + carry as u128;
                    assert_eq!(got, u64::try_from(total / 1_000_000).unwrap_or(u64::MAX), "{micros} {carry} {x}");
                    assert_eq!(c, (total % 1_000_000) as u32);
                    let need = (x as u128 * 1_000_000).saturating_sub(carry as u128);
                    let want = u64::try_from(need.div_ceil(micros as u128)).unwrap_or(u64::MAX);
                    assert_eq!(r.cpu_for(x, carry), Some(if x == 0 { 0 } else { want }), "{micros} {carry} {x}");
                    for to in [1u32, 999_999, u32::MAX] {
                        let want = (x.max(1) - 1) as u128 * micros as u128 / to as u128;
                        let want = if x == 0 { 0 } else { u64::try_from(want).unwrap_or(u64::MAX) };
                        assert_eq!(r.cpu_at_least(x, Rate::from_micros(to)), want, "{micros} {x} {to}");
                    }
                }
            }
        }
    }
}
