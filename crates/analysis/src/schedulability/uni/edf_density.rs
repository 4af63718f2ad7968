//! EDF on one CPU, density bound: Σ Cᵢ / min(Dᵢ − Jᵢ, Tᵢ) ≤ 1 is sufficient
//! for any deadlines and release jitter (the demand of a task in any
//! interval of length t is at most t·Cᵢ/min(D'ᵢ, Tᵢ) for t ≥ D'ᵢ); U > 1 is
//! the necessary condition that makes it answer "unschedulable".

use super::super::input::Input;
use super::super::outcome::{Exactness, Outcome, Verdict};
use super::super::registry::TestInfo;
use super::load::{cmp_one, exact};
use super::{malformed, offsets_note, one_cpu};
use schedlab_model::exact::Ratio;
use schedlab_model::{Duration, PolicyName};
use std::cmp::Ordering;

pub const ID: &str = "uni.edf.density";

pub const INFO: TestInfo = TestInfo {
    id: ID,
    title: "EDF on one CPU: density at most 1",
    policies: &[PolicyName::Gedf, PolicyName::Pedf, PolicyName::Cedf],
    assumes: "one CPU; sporadic tasks, arbitrary deadlines, release jitter; no blocking",
    exactness: Exactness::Sufficient,
    source: "Liu & Layland 1973; Liu 2000 (density); Spuri 1996 (jitter)",
};

/// The window of a task's density: min(D − J, T) (0 when J ≥ D).
#[inline]
pub(crate) fn window(t: &crate::schedulability::TaskParams) -> u64 {
    t.deadline.saturating_sub(t.jitter).min(t.period)
}

pub fn check(input: &Input) -> Outcome {
    if let Some(o) = one_cpu(ID, input, "pedf.density").or_else(|| malformed(ID, input)) {
        return o;
    }
    if let Some(i) = (0..input.tasks.len()).find(|&i| input.options.blocking(i) > 0) {
        return Outcome::not_applicable(
            ID,
            format!("{} has a blocking term: EDF with resource blocking is not analysed here", input.task_label(i)),
        )
        .task(i);
    }
    if let Some(i) = input.tasks.iter().position(|t| t.wcet > 0 && window(t) == 0) {
        let t = input.tasks[i];
        return Outcome::new(
            ID,
            Verdict::Unschedulable,
            format!(
                "{} has release jitter {} ≥ its deadline {}: a job can be released at its deadline",
                input.task_label(i),
                Duration(t.jitter),
                Duration(t.deadline)
            ),
        )
        .task(i);
    }
    let utils = input.tasks.iter().map(|t| (t.wcet, t.period));
    if cmp_one(utils.clone()) == Ordering::Greater {
        let u = exact(utils);
        return Outcome::new(ID, Verdict::Unschedulable, format!("total utilisation {:.4} exceeds 1", u.to_f64()))
            .compare(u, Ratio::new(1, 1));
    }
    let parts = input.tasks.iter().filter(|t| t.wcet > 0).map(|t| (t.wcet, window(t)));
    let d = exact(parts.clone());
    let out = if cmp_one(parts) == Ordering::Greater {
        Outcome::new(
            ID,
            Verdict::Inconclusive,
            format!("total density {:.4} exceeds 1 (utilisation does not): try `uni.edf.qpa`", d.to_f64()),
        )
    } else {
        Outcome::new(ID, Verdict::Schedulable, format!("total density {:.4} ≤ 1: EDF meets every deadline", d.to_f64()))
    };
    offsets_note(input, out.compare(d, Ratio::new(1, 1)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedulability::TaskParams;

    #[test]
    fn density_uses_deadline_minus_jitter() {
        // 1/2 + 1/4 = 3/4 by density.
        let mut tasks = vec![TaskParams::constrained(1, 2, 4), TaskParams::implicit(1, 4)];
        let o = check(&Input::new(1, tasks.clone()));
        assert_eq!(o.verdict, Verdict::Schedulable);
        assert_eq!(o.value, Some(Ratio::new(3, 4)));
        // Jitter 3 on the second: 1/2 + 1/1 > 1, utilisation 1/2: inconclusive.
        tasks[1].jitter = 3;
        let o = check(&Input::new(1, tasks.clone()));
        assert_eq!(o.verdict, Verdict::Inconclusive);
        tasks[1].jitter = 4;
        assert_eq!(check(&Input::new(1, tasks)).verdict, Verdict::Unschedulable);
    }
}
