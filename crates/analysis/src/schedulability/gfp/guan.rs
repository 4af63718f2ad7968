//! G-FP response-time analysis with limited carry-in (Guan, Stigge, Yi &
//! Yu 2009), constrained deadlines, discrete time. At most m − 1 tasks
//! above τₖ carry work into its busy window, so for a window of length x:
//!
//!   W_NC,ᵢ(x) = ⌊x/Tᵢ⌋·Cᵢ + min(Cᵢ, x mod Tᵢ)
//!   W_CI,ᵢ(x) = ⌊[x − Cᵢ]₀/Tᵢ⌋·Cᵢ + Cᵢ + α,  α = [[x − Cᵢ]₀ mod Tᵢ − (Tᵢ − Rᵢ)]₀^{Cᵢ−1}
//!   I_NC,ᵢ = min(W_NC,ᵢ(x), x − Cₖ + 1),  I_CI,ᵢ = min(W_CI,ᵢ(x), x − Cₖ + 1)
//!   Ω(x) = Σ_{i∈hp(k)} I_NC,ᵢ + Σ_{m−1 largest} (I_CI,ᵢ − I_NC,ᵢ)
//!   R ← Cₖ + ⌊Ω(R)/m⌋
//!
//! ([a]₀ = max(0, a), [a]₀^b = min(b, max(0, a)); Rᵢ the bound of the
//! higher-priority τᵢ.) The paper proves this dominates Bertogna–Cirinei's
//! RTA: W_CI never exceeds their workload bound and W_NC ≤ W_CI, so every
//! set `gfp.bertogna` accepts is accepted here (checked on random sets).

use super::super::gedf::explain::{explained, Explain, Names, Quiet};
use super::super::gedf::piecewise::{sawtooth, Lin};
use super::super::input::{Input, TaskParams};
use super::super::outcome::{Exactness, Outcome, Verdict};
use super::super::registry::TestInfo;
use super::{order_line, priority_order, response_times};
use schedlab_model::PolicyName;
use std::cell::RefCell;

pub const ID: &str = "gfp.guan";

pub const INFO: TestInfo = TestInfo {
    id: ID,
    title: "G-FP response-time analysis with limited carry-in (Guan et al.)",
    policies: &[PolicyName::Gfp],
    assumes: "sporadic tasks without jitter, constrained deadlines (D ≤ T), integer time (ns); RM, DM or explicit priorities, ties to the lower task index",
    exactness: Exactness::Sufficient,
    source: "Guan, Stigge, Yi & Yu 2009 (RTSS)",
};

#[cfg(test)]
pub(crate) fn w_nc(ti: &TaskParams, x: i128) -> i128 {
    let (c, t) = (ti.wcet as i128, ti.period as i128);
    (x / t) * c + c.min(x % t)
}

#[cfg(test)]
pub(crate) fn w_ci(ti: &TaskParams, x: i128, ri: i128) -> i128 {
    let (c, t) = (ti.wcet as i128, ti.period as i128);
    let y = (x - c).max(0);
    let alpha = ((y % t) - (t - ri)).max(0).min(c - 1);
    (y / t) * c + c + alpha
}

/// W_CI,ᵢ as a piecewise-linear function of x (right slope and room; it
/// jumps up by one where α wraps from Cᵢ − 1 to 0, so a piece ends there).
#[inline]
fn w_ci_lin(ti: &TaskParams, x: i64, ri: i64) -> Lin {
    let (c, t) = (ti.wcet as i64, ti.period as i64);
    if x < c {
        return Lin { v: c, slope: 0, room: c - x };
    }
    let y = x - c;
    let (q, r) = (y / t, y % t);
    let z = r - (t - ri);
    let (alpha, slope, room) = if z < 0 {
        (0, 0, -z)
    } else if z < c - 1 {
        (z, 1, c - 1 - z)
    } else {
        (c - 1, 0, t - 1 - r)
    };
    Lin { v: q * c + c + alpha, slope, room }
}

/// Ω(x) for task k with higher-priority tasks `hp` and their bounds `rb`,
/// piecewise linear (the top-(m − 1) sum is convex, so value + slope·δ
/// bounds it from below over the room).
#[inline]
fn omega(tasks: &[TaskParams], m: u32, hp: &[usize], rb: &[i128], ck: i64, x: i64, diffs: &mut Vec<Lin>) -> Lin {
    let cap = Lin::cap(x, ck);
    let mut s = Lin::constant(0);
    diffs.clear();
    for &i in hp {
        let ti = &tasks[i];
        let nc = sawtooth(ti.wcet as i64, ti.period as i64, x).min(cap);
        let ci = w_ci_lin(ti, x, rb[i] as i64).min(cap);
        s = s.plus(nc);
        diffs.push(Lin { v: ci.v - nc.v, slope: ci.slope - nc.slope, room: ci.room.min(nc.room) });
    }
    let room = diffs.iter().map(|d| d.room).min().unwrap_or(super::super::gedf::piecewise::FAR);
    let top = m as usize - 1;
    if diffs.len() > top {
        diffs.sort_unstable_by_key(|d| std::cmp::Reverse((d.v, d.slope)));
        diffs.truncate(top);
    }
    let sel = diffs.iter().fold(Lin::constant(0), |acc, d| Lin {
        v: acc.v + d.v,
        slope: acc.slope + d.slope,
        room: FAR_ROOM,
    });
    Lin { v: s.v + sel.v, slope: s.slope + sel.slope, room: s.room.min(room) }
}

const FAR_ROOM: i64 = super::super::gedf::piecewise::FAR;

pub fn core<E: Explain>(tasks: &[TaskParams], m: u32, order: &[usize], ex: &mut E) -> Verdict {
    let diffs = RefCell::new(Vec::with_capacity(tasks.len()));
    response_times(tasks, m, order, ex, |hp, rb, ck, x| omega(tasks, m, hp, rb, ck, x, &mut diffs.borrow_mut()))
}

pub fn decide(tasks: &[TaskParams], m: u32, order: &[usize]) -> Verdict {
    core(tasks, m, order, &mut Quiet)
}

pub fn check(tasks: &[TaskParams], m: u32, order: &[usize]) -> Outcome {
    explained(ID, Names::NONE, |ex| core(tasks, m, order, ex))
}

pub fn check_input(input: &Input) -> Outcome {
    match priority_order(input) {
        Ok(order) => explained(ID, Names::of(input), |ex| core(&input.tasks, input.cpus, &order, ex))
            .detail(order_line(input, &order)),
        Err((i, why)) => Outcome::not_applicable(ID, why).task(i),
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::gedf::exact::int;
    use super::*;

    #[test]
    fn carry_in_workload_by_hand() {
        let t = TaskParams::implicit(3, 10);
        // x = 12, R = 5: y = 9, α = [9 − 5]₀^{2} = 2 → 0 + 3 + 2.
        assert_eq!(w_ci(&t, 12, 5), 5);
        assert_eq!(w_nc(&t, 12), 5);
        assert_eq!(w_nc(&t, 21), 7);
    }

    #[test]
    fn at_most_m_minus_one_carry_in() {
        // One CPU: no carry-in at all, Ω = Σ W_NC: the uniprocessor RTA.
        // EPOS example: (2, 10), (5, 15), (10, 25): R3 = 26 > 25.
        let t = vec![TaskParams::implicit(2, 10), TaskParams::implicit(5, 15), TaskParams::implicit(10, 25)];
        let o = check(&t, 1, &[0, 1, 2]);
        assert_eq!(o.verdict, Verdict::Inconclusive, "{o:?}");
        assert_eq!(o.task, Some(2));
        assert_eq!(o.value, Some(int(26)));
    }
}
