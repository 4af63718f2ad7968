//! LOAD (Baker & Baruah 2009): with load(τ) = sup_{t>0} Σᵢ dbf(τᵢ, t)/t,
//! μ = m − (m − 1)·δ_max and
//!
//!   B = max(μ − (⌈μ⌉ − 1)·δ_max, (⌈μ⌉ − 1) − (⌈μ⌉ − 2)·δ_max),
//!
//! G-EDF meets every deadline of an arbitrary-deadline sporadic set if
//! load(τ) ≤ B. On one CPU, B = 1 and this is the exact EDF test.
//!
//! No ε: "load ≤ B" is decided exactly. B = b/D'_max is a fraction of
//! integers; load ≤ B iff Σ dbf(t)·D'_max ≤ b·t at every step point
//! t = Dᵢ + j·Tᵢ (between steps Σ dbf is constant and t grows). Since
//! dbf(τᵢ, t) ≤ uᵢ·(t + max(0, Tᵢ − Dᵢ)), no step beyond
//! L* = Σ uᵢ·max(0, Tᵢ − Dᵢ) / (B − U) can violate it when U < B; U > B
//! fails at large t. Up to [`MAX_POINTS`] step points are checked; more
//! (U very close to B) and the test answers inconclusive, saying so. With
//! U = B exactly and some D < T the interval is unbounded: inconclusive.

use super::super::input::{Input, TaskParams};
use super::super::outcome::{Exactness, Outcome, Verdict};
use super::super::registry::TestInfo;
use super::exact::{cmp_frac, cmp_sum, q, sum};
use super::explain::{explained, ns, Explain, Names, Quiet};
use super::model::{densest, dmin, precheck, Needs};
use schedlab_model::PolicyName;
use std::cmp::Ordering;

pub const ID: &str = "gedf.load";

/// Step points checked at most.
pub const MAX_POINTS: u128 = 100_000;

pub const INFO: TestInfo = TestInfo {
    id: ID,
    title: "G-EDF load test (Baker–Baruah): load(τ) ≤ max(μ − (⌈μ⌉−1)δ_max, ⌈μ⌉−1 − (⌈μ⌉−2)δ_max)",
    policies: &[PolicyName::Gedf],
    assumes: "sporadic tasks without jitter, arbitrary deadlines, m ≥ 1",
    exactness: Exactness::Sufficient,
    source: "Baker & Baruah 2009 (ECRTS; Real-Time Systems 43)",
};

/// The task model the test needs (checked by `precheck`).
pub const NEEDS: Needs = Needs { constrained: false, min_cpus: 0, u_below_m: false };

/// dbf(τᵢ, t): demand of jobs released and due within any interval of length t.
#[inline]
pub(crate) fn dbf(ti: &TaskParams, t: u128) -> u128 {
    let d = ti.deadline as u128;
    if t < d {
        0
    } else {
        ((t - d) / ti.period as u128 + 1) * ti.wcet as u128
    }
}

/// The bound B as (numerator, denominator D'_max).
pub(crate) fn bound(tasks: &[TaskParams], m: u32) -> (i128, u128) {
    let k = densest(tasks);
    let (c, d) = (tasks[k].wcet as i128, dmin(&tasks[k]) as i128);
    let m = m as i128;
    let mu_num = m * d - (m - 1) * c;
    let ceil_mu = (mu_num + d - 1) / d;
    let b1 = mu_num - (ceil_mu - 1) * c;
    let b2 = (ceil_mu - 1) * d - (ceil_mu - 2) * c;
    (b1.max(b2), d as u128)
}

enum Found {
    /// Σ dbf(t)·den ≤ b·t at every step point up to `limit` (`points` of them).
    Pass { points: u128, worst: Option<(u128, u128)> },
    /// U > B.
    Overload,
    /// Σ dbf(t) > B·t.
    Violated { t: u128, demand: u128 },
    /// Not decided (the reason).
    Skipped(&'static str),
}

fn search(tasks: &[TaskParams], m: u32, explain: bool) -> Found {
    let (b, den) = bound(tasks, m);
    let n = tasks.len();
    match cmp_sum(n, |i| (tasks[i].wcet as i128, tasks[i].period as u128), (b, den)) {
        Ordering::Greater => return Found::Overload,
        Ordering::Equal => {
            return if tasks.iter().all(|t| t.deadline >= t.period) {
                Found::Pass { points: 0, worst: None }
            } else {
                Found::Skipped(
                    "U equals the bound and some deadline is below its period: the interval to check is unbounded",
                )
            };
        }
        Ordering::Less => {}
    }
    // L* = Σ uᵢ·max(0, Tᵢ − Dᵢ) / (B − U), rounded up generously.
    let u: f64 = tasks.iter().map(|t| t.wcet as f64 / t.period as f64).sum();
    let gap = b as f64 / den as f64 - u;
    let extra: f64 =
        tasks.iter().map(|t| t.wcet as f64 * t.period.saturating_sub(t.deadline) as f64 / t.period as f64).sum();
    if extra == 0.0 {
        return Found::Pass { points: 0, worst: None };
    }
    if gap <= 1e-9 * (m as f64 + 1.0) {
        return Found::Skipped("U is too close to the bound: the interval to check is too long");
    }
    let limit_f = extra / gap * (1.0 + 1e-9) + 2.0;
    if limit_f > 1e30 {
        return Found::Skipped("the interval to check is too long");
    }
    let limit = limit_f.ceil() as u128;
    let mut count: u128 = 0;
    for t in tasks {
        if limit >= t.deadline as u128 {
            count += (limit - t.deadline as u128) / t.period as u128 + 1;
        }
    }
    if count > MAX_POINTS {
        return Found::Skipped("more step points than the budget (U close to the bound)");
    }
    let mut worst: Option<(u128, u128)> = None;
    for ti in tasks {
        let mut t = ti.deadline as u128;
        while t <= limit {
            let demand: u128 = tasks.iter().map(|x| dbf(x, t)).sum();
            if demand * den > b as u128 * t {
                return Found::Violated { t, demand };
            }
            if explain && worst.is_none_or(|(wd, wt)| cmp_frac(demand, t, wd, wt) == Some(Ordering::Greater)) {
                worst = Some((demand, t));
            }
            t += ti.period as u128;
        }
    }
    Found::Pass { points: count, worst }
}

pub fn core<E: Explain>(tasks: &[TaskParams], m: u32, ex: &mut E) -> Verdict {
    if let Err(v) = precheck(tasks, m, NEEDS, ex) {
        return v;
    }
    let explain = ex.out().is_some();
    let found = search(tasks, m, explain);
    if let Some((o, names)) = ex.out() {
        let (b, den) = bound(tasks, m);
        let bq = q(b, den);
        let util = sum(tasks.len(), |i| (tasks[i].wcet as i128, tasks[i].period as u128));
        o.bound = Some(bq.clone());
        o.task = Some(densest(tasks));
        o.details.push(format!(
            "δ_max of {}; bound B = {:.4}; U = {:.4}",
            names.label(densest(tasks)),
            bq.to_f64(),
            util.to_f64()
        ));
        match &found {
            Found::Pass { points, worst } => {
                let load = match worst {
                    Some((d, t)) if q(*d as i128, *t).0 > util.0 => q(*d as i128, *t),
                    _ => util.clone(),
                };
                o.reason = format!("load {:.4} ≤ B = {:.4} ({points} step points checked)", load.to_f64(), bq.to_f64());
                o.value = Some(load);
            }
            Found::Overload => {
                o.reason = format!(
                    "total utilisation {:.4} > B = {:.4}: the load exceeds the bound",
                    util.to_f64(),
                    bq.to_f64()
                );
                o.value = Some(util);
            }
            Found::Violated { t, demand } => {
                o.reason = format!(
                    "in an interval of {} the demand {} gives load {:.4} > B = {:.4}",
                    ns(*t as i128),
                    ns(*demand as i128),
                    q(*demand as i128, *t).to_f64(),
                    bq.to_f64()
                );
                o.value = Some(q(*demand as i128, *t));
            }
            Found::Skipped(why) => {
                o.reason = format!("not decided: {why}");
                o.value = Some(util);
            }
        }
    }
    match found {
        Found::Pass { .. } => Verdict::Schedulable,
        _ => Verdict::Inconclusive,
    }
}

pub fn decide(tasks: &[TaskParams], m: u32) -> Verdict {
    core(tasks, m, &mut Quiet)
}

pub fn check(tasks: &[TaskParams], m: u32) -> Outcome {
    explained(ID, Names::NONE, |ex| core(tasks, m, ex))
}

pub fn check_input(input: &Input) -> Outcome {
    explained(ID, Names::of(input), |ex| core(&input.tasks, input.cpus, ex))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_cpu_is_the_exact_edf_test() {
        // B = 1 on one CPU; constrained set with load exactly 1 at t = 4.
        let t = vec![TaskParams::constrained(2, 4, 10), TaskParams::constrained(2, 4, 10)];
        assert_eq!(bound(&t, 1), (4, 4));
        assert_eq!(decide(&t, 1), Verdict::Schedulable);
        let t = vec![TaskParams::constrained(3, 4, 10), TaskParams::constrained(2, 4, 10)];
        let o = check(&t, 1);
        assert_eq!(o.verdict, Verdict::Inconclusive, "{o:?}");
        assert!(o.reason.contains("interval"), "{}", o.reason);
    }

    #[test]
    fn the_bound_takes_the_larger_form() {
        // m = 4, δ_max = 1/2: μ = 2.5, ⌈μ⌉ = 3: B1 = 2.5 − 1 = 1.5, B2 = 2 − 0.5 = 1.5.
        let t = vec![TaskParams::implicit(1, 2)];
        assert_eq!(bound(&t, 4), (3, 2));
        // m = 4, δ_max = 0.9: μ = 1.3, ⌈μ⌉ = 2: B1 = 1.3 − 0.9 = 0.4, B2 = 1.
        let t = vec![TaskParams::implicit(9, 10)];
        assert_eq!(bound(&t, 4), (10, 10));
    }
}
