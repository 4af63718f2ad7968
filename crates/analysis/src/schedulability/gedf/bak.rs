//! BAK (Baker 2003, 2005): for every task k, with λₖ = Cₖ/min(Dₖ, Tₖ),
//!
//!   Σᵢ min(1, βₖ(i)) ≤ m − (m − 1)·λₖ,
//!   βₖ(i) = uᵢ·(1 + max(0, Tᵢ − Dᵢ)/Dₖ) + [uᵢ > λₖ]·(Cᵢ − λₖ·Tᵢ)/Dₖ.
//!
//! Interpretations: λ is fixed at λₖ (Baker's test lets λ range over
//! {λₖ} ∪ {uᵢ ≥ λₖ}; λₖ alone is the form in common use, and a subset of
//! the candidates keeps the test sufficient); max(0, Tᵢ − Dᵢ) for arbitrary
//! deadlines (never smaller than Tᵢ − Dᵢ, so never less safe).

use super::super::input::{Input, TaskParams};
use super::super::outcome::{Exactness, Outcome, Verdict};
use super::super::registry::TestInfo;
use super::exact::{cmp_sum, q, sum};
use super::explain::{explained, Explain, Names, Quiet};
use super::model::{dmin, precheck, Needs};
use schedlab_model::PolicyName;
use std::cmp::Ordering;

pub const ID: &str = "gedf.bak";

pub const INFO: TestInfo = TestInfo {
    id: ID,
    title: "G-EDF, Baker's test (BAK): Σ min(1, β) ≤ m − (m − 1)·λₖ for every task",
    policies: &[PolicyName::Gedf],
    assumes: "sporadic tasks without jitter, arbitrary deadlines, m ≥ 1",
    exactness: Exactness::Sufficient,
    source: "Baker 2003 (RTSS), Baker 2005 (IEEE TPDS)",
};

/// The task model the test needs (checked by `precheck`).
pub const NEEDS: Needs = Needs { constrained: false, min_cpus: 0, u_below_m: false };

/// min(1, βₖ(i)) as num/den (parameters ≤ 2⁴⁰, so 128 bits suffice).
#[inline]
fn term(tasks: &[TaskParams], k: usize, i: usize) -> (i128, u128) {
    let (tk, ti) = (&tasks[k], &tasks[i]);
    let (ck, dk, dpk) = (tk.wcet as i128, tk.deadline as i128, dmin(tk) as i128);
    let (ci, ti_, e) = (ti.wcet as i128, ti.period as i128, ti.period.saturating_sub(ti.deadline) as i128);
    let den = ti_ * dk * dpk;
    let mut num = ci * (dk + e) * dpk;
    let excess = ci * dpk - ck * ti_;
    if excess > 0 {
        num += excess * ti_;
    }
    if num >= den {
        (1, 1)
    } else {
        (num, den as u128)
    }
}

/// Σᵢ min(1, βₖ(i)) + (m − 1)·λₖ compared with m.
#[inline]
fn cmp_k(tasks: &[TaskParams], m: u32, k: usize) -> Ordering {
    let n = tasks.len();
    let lam = ((m as i128 - 1) * tasks[k].wcet as i128, dmin(&tasks[k]) as u128);
    cmp_sum(n + 1, |i| if i < n { term(tasks, k, i) } else { lam }, (m as i128, 1))
}

pub fn core<E: Explain>(tasks: &[TaskParams], m: u32, ex: &mut E) -> Verdict {
    if let Err(v) = precheck(tasks, m, NEEDS, ex) {
        return v;
    }
    let n = tasks.len();
    let failed = (0..n).find(|&k| cmp_k(tasks, m, k) == Ordering::Greater);
    if let Some((o, names)) = ex.out() {
        // The deciding task: the failing one, or the tightest.
        let k = failed.unwrap_or_else(|| {
            let slack = |k: usize| {
                let s: f64 = (0..n).map(|i| term(tasks, k, i)).map(|(a, b)| a as f64 / b as f64).sum();
                m as f64 - (m as f64 - 1.0) * tasks[k].wcet as f64 / dmin(&tasks[k]) as f64 - s
            };
            (0..n).min_by(|&a, &b| slack(a).total_cmp(&slack(b))).unwrap_or(0)
        });
        let value = sum(n, |i| term(tasks, k, i));
        let dpk = dmin(&tasks[k]) as i128;
        let bound = q(m as i128 * dpk - (m as i128 - 1) * tasks[k].wcet as i128, dpk as u128);
        o.reason = match failed {
            Some(_) => format!(
                "for {}: Σ min(1, β) = {:.4} > m − (m − 1)·λ = {:.4}; the test cannot prove it",
                names.label(k),
                value.to_f64(),
                bound.to_f64()
            ),
            None => format!(
                "Σ min(1, β) ≤ m − (m − 1)·λ for every task; tightest {}: {:.4} ≤ {:.4}",
                names.label(k),
                value.to_f64(),
                bound.to_f64()
            ),
        };
        o.task = Some(k);
        o.value = Some(value);
        o.bound = Some(bound);
    }
    if failed.is_some() {
        Verdict::Inconclusive
    } else {
        Verdict::Schedulable
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
    fn light_sets_pass_and_heavy_ones_are_named() {
        let t = vec![TaskParams::implicit(2, 10); 4];
        assert_eq!(decide(&t, 2), Verdict::Schedulable);
        // Dhall-like: m light tasks and one heavy one.
        let mut t = vec![TaskParams::implicit(1, 10); 2];
        t.push(TaskParams::implicit(10, 11));
        let o = check(&t, 2);
        assert_eq!(o.verdict, Verdict::Inconclusive, "{o:?}");
        assert!(o.task.is_some());
        assert!(o.slack().expect("slack").0 < q(0, 1).0);
    }

    #[test]
    fn not_sustainable() {
        // Lowering C₀ lowers λ₀ below more utilisations, and the
        // (Cᵢ − λ₀Tᵢ)/D₀ terms grow faster than the bound m − (m − 1)λ₀.
        let mut t = vec![
            TaskParams::implicit(2_997_483, 21_000_000),
            TaskParams::implicit(9_612_601, 80_000_000),
            TaskParams::implicit(13_539_991, 67_000_000),
            TaskParams::implicit(3_072_403, 22_000_000),
        ];
        assert_eq!(decide(&t, 1), Verdict::Schedulable);
        t[0].wcet = 796_482;
        let o = check(&t, 1);
        assert_eq!(o.verdict, Verdict::Inconclusive, "{o:?}");
        assert_eq!(o.task, Some(0));
    }
}
