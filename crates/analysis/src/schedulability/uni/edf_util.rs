//! EDF on one CPU, utilisation bound: with every deadline at least the
//! period and no release jitter, EDF meets every deadline iff
//! U = Σ Cᵢ/Tᵢ ≤ 1 (Liu & Layland 1973; Baruah, Rosier & Howell 1990 for
//! deadlines beyond the period). Exact for that model.

use super::super::input::Input;
use super::super::outcome::{Exactness, Outcome, Verdict};
use super::super::registry::TestInfo;
use super::load::{cmp_one, exact};
use super::{malformed, offsets_note, one_cpu};
use schedlab_model::exact::Ratio;
use schedlab_model::{Duration, PolicyName};
use std::cmp::Ordering;

pub const ID: &str = "uni.edf.util";

pub const INFO: TestInfo = TestInfo {
    id: ID,
    title: "EDF on one CPU: utilisation at most 1",
    policies: &[PolicyName::Gedf, PolicyName::Pedf, PolicyName::Cedf],
    assumes: "one CPU; sporadic tasks with deadline ≥ period, no release jitter, no blocking",
    exactness: Exactness::Exact,
    source: "Liu & Layland 1973; Baruah, Rosier & Howell 1990",
};

/// The model condition, or the task that breaks it and why.
pub(crate) fn applies(input: &Input) -> Result<(), (usize, String)> {
    for (i, t) in input.tasks.iter().enumerate() {
        if t.deadline < t.period {
            return Err((
                i,
                format!(
                    "{} has deadline {} < period {}: use `uni.edf.density` or `uni.edf.qpa`",
                    input.task_label(i),
                    Duration(t.deadline),
                    Duration(t.period)
                ),
            ));
        }
        if t.jitter > 0 {
            return Err((i, format!("{} has release jitter: use `uni.edf.qpa`", input.task_label(i))));
        }
        if input.options.blocking(i) > 0 {
            return Err((
                i,
                format!("{} has a blocking term: EDF with resource blocking is not analysed here", input.task_label(i)),
            ));
        }
    }
    Ok(())
}

pub fn check(input: &Input) -> Outcome {
    if let Some(o) = one_cpu(ID, input, "pedf.util").or_else(|| malformed(ID, input)) {
        return o;
    }
    if let Err((i, why)) = applies(input) {
        return Outcome::not_applicable(ID, why).task(i);
    }
    let parts = input.tasks.iter().map(|t| (t.wcet, t.period));
    let u = exact(parts.clone());
    let out = if cmp_one(parts) == Ordering::Greater {
        Outcome::new(ID, Verdict::Unschedulable, format!("total utilisation {:.4} exceeds 1", u.to_f64()))
    } else {
        Outcome::new(
            ID,
            Verdict::Schedulable,
            format!("total utilisation {:.4} ≤ 1: EDF meets every deadline", u.to_f64()),
        )
    };
    offsets_note(input, out.compare(u, Ratio::new(1, 1)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedulability::TaskParams;

    #[test]
    fn exactly_one_passes_and_constrained_deadlines_are_not_applicable() {
        let o = check(&Input::new(
            1,
            vec![TaskParams::implicit(1, 3), TaskParams::implicit(1, 3), TaskParams::implicit(1, 3)],
        ));
        assert_eq!(o.verdict, Verdict::Schedulable);
        assert_eq!(o.slack(), Some(Ratio::zero()));
        let o = check(&Input::new(
            1,
            vec![TaskParams::implicit(1, 3), TaskParams::implicit(2, 3), TaskParams::implicit(1, 1_000_000)],
        ));
        assert_eq!(o.verdict, Verdict::Unschedulable);
        let o = check(&Input::new(1, vec![TaskParams::constrained(1, 2, 3)]));
        assert_eq!(o.verdict, Verdict::NotApplicable);
        assert_eq!(o.task, Some(0));
        // Deadlines beyond the period are fine.
        assert_eq!(check(&Input::new(1, vec![TaskParams::constrained(3, 9, 4)])).verdict, Verdict::Schedulable);
    }
}
