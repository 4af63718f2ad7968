//! Rate monotonic on one CPU, Liu & Layland bound: implicit deadlines and
//! U ≤ n·(2^{1/n} − 1) suffice (Liu & Layland 1973). The bound is
//! irrational; the test decides (1 + U/n)ⁿ ≤ 2, the same condition, in exact
//! rationals (after a floating-point filter that only answers when U is
//! more than 10⁻⁹ from the bound, far above its rounding error).

use super::super::input::Input;
use super::super::outcome::{Exactness, Outcome, Verdict};
use super::super::registry::TestInfo;
use super::load::{cmp_one, exact};
use super::order::assignment;
use super::{malformed, offsets_note, one_cpu};
use num_bigint::BigInt;
use num_rational::BigRational;
use schedlab_model::exact::Ratio;
use schedlab_model::{Duration, PolicyName, Priorities};
use std::cmp::Ordering;

pub const ID: &str = "uni.fp.ll";

pub const INFO: TestInfo = TestInfo {
    id: ID,
    title: "Rate monotonic on one CPU: Liu & Layland bound U ≤ n(2^{1/n} − 1)",
    policies: &[PolicyName::Gfp, PolicyName::Pfp, PolicyName::Cfp],
    assumes: "one CPU; implicit deadlines, no jitter, no blocking; RM priorities (or DM, the same order here)",
    exactness: Exactness::Sufficient,
    source: "Liu & Layland 1973",
};

/// The model condition shared with the hyperbolic bound.
pub(crate) fn applies(input: &Input) -> Result<(), (Option<usize>, String)> {
    if assignment(input) == Priorities::Explicit {
        return Err((
            None,
            "the bound holds for rate-monotonic priorities, and the spec's are explicit: use `uni.fp.rta`".into(),
        ));
    }
    for (i, t) in input.tasks.iter().enumerate() {
        if t.deadline != t.period {
            return Err((
                Some(i),
                format!(
                    "{} has deadline {} ≠ period {}: the bound needs implicit deadlines; use `uni.fp.rta`",
                    input.task_label(i),
                    Duration(t.deadline),
                    Duration(t.period)
                ),
            ));
        }
        if t.jitter > 0 || input.options.blocking(i) > 0 {
            return Err((Some(i), format!("{} has release jitter or blocking: use `uni.fp.rta`", input.task_label(i))));
        }
    }
    Ok(())
}

/// Σ Cᵢ/Tᵢ ≤ n(2^{1/n} − 1), exactly.
pub(crate) fn within(tasks: impl Iterator<Item = (u64, u64)> + Clone) -> bool {
    let n = tasks.clone().count();
    if n == 0 {
        return true;
    }
    let uf: f64 = tasks.clone().map(|(c, t)| c as f64 / t as f64).sum();
    let bf = n as f64 * (2f64.powf(1.0 / n as f64) - 1.0);
    if uf < bf - 1e-9 {
        return true;
    }
    if uf > bf + 1e-9 {
        return false;
    }
    let u = exact(tasks).0;
    let nn = BigRational::from_integer(BigInt::from(n));
    let x = BigRational::from_integer(BigInt::from(1)) + u / nn;
    num_traits::pow::pow(x, n) <= BigRational::from_integer(BigInt::from(2))
}

pub fn check(input: &Input) -> Outcome {
    if let Some(o) = one_cpu(ID, input, "pfp.ll").or_else(|| malformed(ID, input)) {
        return o;
    }
    if let Err((i, why)) = applies(input) {
        let o = Outcome::not_applicable(ID, why);
        return if let Some(i) = i { o.task(i) } else { o };
    }
    let parts = input.tasks.iter().map(|t| (t.wcet, t.period));
    let n = input.tasks.len();
    let u = exact(parts.clone());
    let bound = n as f64 * (2f64.powf(1.0 / n.max(1) as f64) - 1.0);
    let shown = Ratio::new((bound * 1e12).floor() as u128, 1_000_000_000_000);
    let out = if within(parts.clone()) {
        Outcome::new(
            ID,
            Verdict::Schedulable,
            format!(
                "total utilisation {:.4} ≤ {n}(2^(1/{n}) − 1) = {bound:.4}: rate monotonic meets every deadline",
                u.to_f64()
            ),
        )
    } else if cmp_one(parts) == Ordering::Greater {
        Outcome::new(ID, Verdict::Unschedulable, format!("total utilisation {:.4} exceeds 1", u.to_f64()))
    } else {
        Outcome::new(
            ID,
            Verdict::Inconclusive,
            format!(
                "total utilisation {:.4} is above the bound {bound:.4}: try `uni.fp.hyperbolic` or `uni.fp.rta`",
                u.to_f64()
            ),
        )
    };
    offsets_note(
        input,
        out.compare(u, shown).detail("the bound n(2^(1/n) − 1) is irrational: shown rounded down to 10⁻¹²; the verdict compares (1 + U/n)ⁿ with 2 exactly"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedulability::TaskParams;

    #[test]
    fn two_tasks_at_the_bound() {
        // n = 2: bound 2(√2 − 1) ≈ 0.828427. 0.8284 passes, 0.8285 does not.
        let pass = Input::new(1, vec![TaskParams::implicit(4142, 10000), TaskParams::implicit(4142, 10000)]);
        assert_eq!(check(&pass).verdict, Verdict::Schedulable);
        let fail = Input::new(1, vec![TaskParams::implicit(41425, 100000), TaskParams::implicit(41425, 100000)]);
        let o = check(&fail);
        assert_eq!(o.verdict, Verdict::Inconclusive, "{o:?}");
        // Just around the irrational bound, where the filter defers to rationals.
        let near = |c: u64| within([(c, 1_000_000_000_000u64), (c, 1_000_000_000_000u64)].into_iter());
        assert!(near(414_213_562_373));
        assert!(!near(414_213_562_374));
    }
}
