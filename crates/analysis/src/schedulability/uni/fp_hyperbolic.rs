//! Rate monotonic on one CPU, hyperbolic bound: implicit deadlines and
//! Π (Uᵢ + 1) ≤ 2 suffice (Bini, Buttazzo & Buttazzo 2003). Tighter than
//! Liu & Layland (every set under that bound passes). Decided exactly as
//! Π (Cᵢ + Tᵢ) ≤ 2·Π Tᵢ in big integers (after a floating-point filter
//! that answers only 10⁻⁹ away from the bound).

use super::super::input::Input;
use super::super::outcome::{Exactness, Outcome, Verdict};
use super::super::registry::TestInfo;
use super::fp_ll::applies;
use super::load::{cmp_one, exact};
use super::{malformed, offsets_note, one_cpu};
use num_bigint::BigInt;
use num_rational::BigRational;
use schedlab_model::exact::Ratio;
use schedlab_model::PolicyName;
use std::cmp::Ordering;

pub const ID: &str = "uni.fp.hyperbolic";

pub const INFO: TestInfo = TestInfo {
    id: ID,
    title: "Rate monotonic on one CPU: hyperbolic bound Π(Uᵢ + 1) ≤ 2",
    policies: &[PolicyName::Gfp, PolicyName::Pfp, PolicyName::Cfp],
    assumes: "one CPU; implicit deadlines, no jitter, no blocking; RM priorities (or DM, the same order here)",
    exactness: Exactness::Sufficient,
    source: "Bini, Buttazzo & Buttazzo 2003",
};

/// Π (Cᵢ/Tᵢ + 1) exactly.
fn product(tasks: impl Iterator<Item = (u64, u64)>) -> Ratio {
    let (mut num, mut den) = (BigInt::from(1), BigInt::from(1));
    for (c, t) in tasks {
        num *= BigInt::from(c as u128 + t as u128);
        den *= BigInt::from(t);
    }
    Ratio(BigRational::new(num, den))
}

/// Π (Uᵢ + 1) ≤ 2, exactly.
pub(crate) fn within(tasks: impl Iterator<Item = (u64, u64)> + Clone) -> bool {
    let pf: f64 = tasks.clone().map(|(c, t)| 1.0 + c as f64 / t as f64).product();
    if pf < 2.0 - 1e-9 {
        return true;
    }
    if pf > 2.0 + 1e-9 {
        return false;
    }
    product(tasks).0 <= Ratio::new(2, 1).0
}

pub fn check(input: &Input) -> Outcome {
    if let Some(o) = one_cpu(ID, input, "pfp.hyperbolic").or_else(|| malformed(ID, input)) {
        return o;
    }
    if let Err((i, why)) = applies(input) {
        let o = Outcome::not_applicable(ID, why);
        return if let Some(i) = i { o.task(i) } else { o };
    }
    let parts = input.tasks.iter().map(|t| (t.wcet, t.period));
    let p = product(parts.clone());
    let out = if within(parts.clone()) {
        Outcome::new(
            ID,
            Verdict::Schedulable,
            format!("Π(Uᵢ + 1) = {:.4} ≤ 2: rate monotonic meets every deadline", p.to_f64()),
        )
    } else if cmp_one(parts.clone()) == Ordering::Greater {
        let u = exact(parts);
        return Outcome::new(ID, Verdict::Unschedulable, format!("total utilisation {:.4} exceeds 1", u.to_f64()))
            .compare(u, Ratio::new(1, 1));
    } else {
        Outcome::new(ID, Verdict::Inconclusive, format!("Π(Uᵢ + 1) = {:.4} > 2: try `uni.fp.rta`", p.to_f64()))
    };
    offsets_note(input, out.compare(p, Ratio::new(2, 1)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedulability::TaskParams;

    #[test]
    fn accepts_what_liu_layland_rejects() {
        // U = 0.6 + 0.25 = 0.85 > 0.8284 (LL), but 1.6 · 1.25 = 2 ≤ 2.
        let input = Input::new(1, vec![TaskParams::implicit(6, 10), TaskParams::implicit(10, 40)]);
        assert_eq!(super::super::fp_ll::check(&input).verdict, Verdict::Inconclusive);
        let o = check(&input);
        assert_eq!(o.verdict, Verdict::Schedulable, "{o:?}");
        assert_eq!(o.slack(), Some(Ratio::zero()));
        let input = Input::new(1, vec![TaskParams::implicit(6, 10), TaskParams::implicit(11, 40)]);
        assert_eq!(check(&input).verdict, Verdict::Inconclusive);
    }
}
