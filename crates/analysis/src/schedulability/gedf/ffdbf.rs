//! FF-DBF (Baruah, Bonifaci, Marchetti-Spaccamela & Stiller 2009): with the
//! forced-forward demand of τᵢ at speed σ, t = qᵢ·Tᵢ + rᵢ,
//!
//!   ff-dbf(τᵢ, t, σ) = qᵢ·Cᵢ + { Cᵢ                      if rᵢ ≥ Dᵢ
//!                              { Cᵢ − (Dᵢ − rᵢ)·σ        if Dᵢ > rᵢ ≥ Dᵢ − Cᵢ/σ
//!                              { 0                        otherwise,
//!
//! G-EDF meets every deadline if for some σ with δ_max ≤ σ < (m − U)/(m − 1)
//! every t ≥ 0 has Σᵢ ff-dbf(τᵢ, t, σ) ≤ (m − (m − 1)·σ)·t.
//!
//! Each σ is decided exactly. ff-dbf is continuous and piecewise linear in
//! t with breakpoints Dᵢ + j·Tᵢ and Dᵢ + j·Tᵢ − Cᵢ/σ, so those are the only
//! test points; since ff-dbf ≤ uᵢ·t + Cᵢ, none beyond
//! ΣCᵢ / (m − (m − 1)·σ − U) can fail. With σ = a/b and t = τ/a, the check
//! a·Σ b·ff-dbf ≤ (m·b − (m − 1)·a)·τ is in integers (i128, checked).
//!
//! The σ searched (the theorem allows any one; the search is the
//! implementation's choice): σ = δ_max, then the grid j/[`GRID`] strictly
//! between δ_max and (m − U)/(m − 1). Up to [`MAX_POINTS`] evaluations per
//! set; a σ whose points overflow 128 bits or the budget is skipped and the
//! outcome says so.

use super::super::input::{Input, TaskParams};
use super::super::outcome::{Exactness, Outcome, Verdict};
use super::super::registry::TestInfo;
use super::exact::{cmp_sum, q};
use super::explain::{explained, Explain, Names, Quiet};
use super::model::{densest, dmin, precheck, Needs};
use schedlab_model::PolicyName;
use std::cmp::Ordering;

pub const ID: &str = "gedf.ffdbf";

/// σ grid step 1/GRID (as SchedCAT's 1/50).
pub const GRID: i128 = 50;
/// Test-point evaluations per set at most.
pub const MAX_POINTS: usize = 200_000;

pub const INFO: TestInfo = TestInfo {
    id: ID,
    title: "G-EDF forced-forward demand test (FF-DBF)",
    policies: &[PolicyName::Gedf],
    assumes: "sporadic tasks without jitter, constrained deadlines (D ≤ T), m ≥ 2, δ_max < (m − U)/(m − 1)",
    exactness: Exactness::Sufficient,
    source: "Baruah, Bonifaci, Marchetti-Spaccamela & Stiller 2009 (ECRTS)",
};

/// The task model the test needs (checked by `precheck`).
pub const NEEDS: Needs = Needs { constrained: true, min_cpus: 2, u_below_m: false };

/// b·ff-dbf(τᵢ, τ/a, a/b) (None on overflow).
#[inline]
fn ff(ti: &TaskParams, tau: i128, a: i128, b: i128) -> Option<i128> {
    let (c, d, p) = (ti.wcet as i128, ti.deadline as i128, ti.period as i128);
    let ap = a.checked_mul(p)?;
    let qn = tau.div_euclid(ap);
    let rho = tau - qn * ap;
    let base = b.checked_mul(qn)?.checked_mul(c)?;
    let ad = a.checked_mul(d)?;
    if rho >= ad {
        base.checked_add(b.checked_mul(c)?)
    } else if rho >= ad - b.checked_mul(c)? {
        base.checked_add(b.checked_mul(c)?)?.checked_sub(ad - rho)
    } else {
        Some(base)
    }
}

enum Try {
    Pass,
    /// Violation at t = τ/a.
    Fail {
        tau: i128,
    },
    Overflow,
    Budget,
}

/// Checks one σ = a/b; `budget` counts evaluations left.
fn try_sigma(tasks: &[TaskParams], m: u32, a: i128, b: i128, budget: &mut usize) -> Try {
    let m = m as i128;
    let kk = m * b - (m - 1) * a; // (m − (m − 1)σ)·b > 0
    let u: f64 = tasks.iter().map(|t| t.wcet as f64 / t.period as f64).sum();
    let csum: f64 = tasks.iter().map(|t| t.wcet as f64).sum();
    let gap = kk as f64 / b as f64 - u;
    if gap <= 0.0 {
        return Try::Budget;
    }
    let limit = csum / gap * (1.0 + 1e-9) + 2.0;
    let points: f64 = tasks.iter().map(|t| 2.0 * (limit / t.period as f64 + 1.0)).sum();
    if points > *budget as f64 || limit > 1e18 {
        return Try::Budget;
    }
    let limit = limit.ceil() as i128;
    for ti in tasks {
        let (c, d, p) = (ti.wcet as i128, ti.deadline as i128, ti.period as i128);
        let mut j = 0i128;
        loop {
            let step = d + j * p;
            if step > limit {
                break;
            }
            // τ for t = step − C/σ and t = step.
            let Some(t1) = a.checked_mul(step).and_then(|x| x.checked_sub(b.checked_mul(c)?)) else {
                return Try::Overflow;
            };
            let Some(t2) = a.checked_mul(step) else { return Try::Overflow };
            for tau in [t1, t2] {
                if tau <= 0 {
                    continue;
                }
                *budget = budget.saturating_sub(1);
                let mut total: i128 = 0;
                for x in tasks {
                    match ff(x, tau, a, b).and_then(|v| total.checked_add(v)) {
                        Some(s) => total = s,
                        None => return Try::Overflow,
                    }
                }
                let (Some(lhs), Some(rhs)) = (a.checked_mul(total), kk.checked_mul(tau)) else { return Try::Overflow };
                if lhs > rhs {
                    return Try::Fail { tau };
                }
            }
            j += 1;
        }
    }
    Try::Pass
}

enum Found {
    Pass { a: i128, b: i128, tried: usize },
    NoSigma,
    Fail { tried: usize, skipped: usize, first: Option<(i128, i128, i128)> },
}

fn search(tasks: &[TaskParams], m: u32) -> Found {
    let k = densest(tasks);
    let (dc, dd) = (tasks[k].wcet as i128, dmin(&tasks[k]) as i128);
    let n = tasks.len();
    // σ < (m − U)/(m − 1) ⇔ (m − 1)·σ + U < m.
    let below = |a: i128, b: i128| {
        cmp_sum(
            n + 1,
            |i| if i < n { (tasks[i].wcet as i128, tasks[i].period as u128) } else { ((m as i128 - 1) * a, b as u128) },
            (m as i128, 1),
        ) == Ordering::Less
    };
    if !below(dc, dd) {
        return Found::NoSigma;
    }
    let mut budget = MAX_POINTS;
    let (mut tried, mut skipped, mut first) = (0, 0, None);
    let mut sigmas = vec![(dc, dd)];
    // Grid points j/GRID with δ_max < j/GRID.
    let j0 = dc * GRID / dd + 1;
    for j in j0..=GRID * m as i128 {
        if !below(j, GRID) {
            break;
        }
        sigmas.push((j, GRID));
    }
    for (a, b) in sigmas {
        tried += 1;
        match try_sigma(tasks, m, a, b, &mut budget) {
            Try::Pass => return Found::Pass { a, b, tried },
            Try::Fail { tau } => {
                first.get_or_insert((a, b, tau));
            }
            Try::Overflow | Try::Budget => skipped += 1,
        }
    }
    Found::Fail { tried, skipped, first }
}

pub fn core<E: Explain>(tasks: &[TaskParams], m: u32, ex: &mut E) -> Verdict {
    if let Err(v) = precheck(tasks, m, NEEDS, ex) {
        return v;
    }
    let found = search(tasks, m);
    if let Some((o, names)) = ex.out() {
        let k = densest(tasks);
        match &found {
            Found::Pass { a, b, tried } => {
                let s = q(*a, *b as u128);
                o.reason = format!(
                    "at σ = {:.4} (candidate {tried}) the forced-forward demand never exceeds (m − (m − 1)σ)·t",
                    s.to_f64()
                );
                o.details.push(format!("σ = {}", s.to_fraction()));
            }
            Found::NoSigma => {
                o.reason = format!("δ_max of {} is not below (m − U)/(m − 1): no speed σ to try", names.label(k));
                o.task = Some(k);
            }
            Found::Fail { tried, skipped, first } => {
                o.reason = format!("no σ among {tried} candidates proves the set ({skipped} skipped: overflow or the {MAX_POINTS}-point budget)");
                if let Some((a, b, tau)) = first {
                    let s = q(*a, *b as u128);
                    let t = q(*tau, *a as u128);
                    o.details.push(format!(
                        "at σ = δ_max = {:.4} the demand exceeds (m − (m − 1)σ)·t at t = {} ns",
                        s.to_f64(),
                        t.to_fraction()
                    ));
                }
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
    fn forced_forward_demand_by_hand() {
        // C = 2, D = 4, T = 10, σ = 1/2: ramp from D − C/σ = 0 to 4.
        let t = TaskParams::constrained(2, 4, 10);
        // t = 2 (τ = a·t = 2): 2 − (4 − 2)·1/2 = 1, times b = 2.
        assert_eq!(ff(&t, 2, 1, 2), Some(2));
        assert_eq!(ff(&t, 4, 1, 2), Some(4));
        // t = 12: q = 1, r = 2: 2 + 1 = 3, times 2.
        assert_eq!(ff(&t, 12, 1, 2), Some(6));
    }

    #[test]
    fn light_sets_pass_heavy_ones_have_no_sigma() {
        let t = vec![TaskParams::implicit(1, 10); 4];
        assert_eq!(decide(&t, 2), Verdict::Schedulable);
        let t = vec![TaskParams::implicit(9, 10), TaskParams::implicit(9, 10)];
        let o = check(&t, 2);
        assert_eq!(o.verdict, Verdict::Inconclusive);
        assert!(o.reason.contains("no speed"), "{}", o.reason);
        assert_eq!(decide(&[TaskParams::implicit(1, 10)], 1), Verdict::NotApplicable);
    }
}
