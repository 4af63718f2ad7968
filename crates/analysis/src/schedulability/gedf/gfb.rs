//! GFB, the density bound (Goossens, Funk & Baruah 2003; with densities for
//! arbitrary deadlines as in Bertogna, Cirinei & Lipari 2005): G-EDF meets
//! every deadline if Σ δᵢ ≤ m − (m − 1)·δ_max, δᵢ = Cᵢ / min(Dᵢ, Tᵢ).

use super::super::input::{Input, TaskParams};
use super::super::outcome::{Exactness, Outcome, Verdict};
use super::super::registry::TestInfo;
use super::exact::{cmp_sum, q, sum};
use super::explain::{explained, Explain, Names, Quiet};
use super::model::{densest, dmin, precheck, Needs};
use schedlab_model::PolicyName;
use std::cmp::Ordering;

pub const ID: &str = "gedf.gfb";

pub const INFO: TestInfo = TestInfo {
    id: ID,
    title: "G-EDF density bound (GFB): Σ δ ≤ m − (m − 1)·δ_max",
    policies: &[PolicyName::Gedf],
    assumes: "sporadic tasks without jitter, arbitrary deadlines (densities C/min(D, T)), m ≥ 1",
    exactness: Exactness::Sufficient,
    source: "Goossens, Funk & Baruah 2003; Bertogna, Cirinei & Lipari 2005 (densities)",
};

/// The task model the test needs (checked by `precheck`).
pub const NEEDS: Needs = Needs { constrained: false, min_cpus: 0, u_below_m: false };

/// The core on any subset of tasks and CPU count.
pub fn core<E: Explain>(tasks: &[TaskParams], m: u32, ex: &mut E) -> Verdict {
    if let Err(v) = precheck(tasks, m, NEEDS, ex) {
        return v;
    }
    let k = densest(tasks);
    let (ck, dk) = (tasks[k].wcet as i128, dmin(&tasks[k]) as u128);
    let n = tasks.len();
    let term =
        |i: usize| if i < n { (tasks[i].wcet as i128, dmin(&tasks[i]) as u128) } else { ((m as i128 - 1) * ck, dk) };
    let ok = cmp_sum(n + 1, term, (m as i128, 1)) != Ordering::Greater;
    if let Some((o, names)) = ex.out() {
        let total = sum(n, |i| (tasks[i].wcet as i128, dmin(&tasks[i]) as u128));
        let bound = q(m as i128 * dk as i128 - (m as i128 - 1) * ck, dk);
        o.reason = if ok {
            format!(
                "total density {:.4} ≤ m − (m − 1)·δ_max = {:.4} (δ_max of {})",
                total.to_f64(),
                bound.to_f64(),
                names.label(k)
            )
        } else {
            format!(
                "total density {:.4} > m − (m − 1)·δ_max = {:.4} (δ_max of {}): the bound does not prove the set",
                total.to_f64(),
                bound.to_f64(),
                names.label(k)
            )
        };
        o.task = Some(k);
        o.value = Some(total);
        o.bound = Some(bound);
    }
    if ok {
        Verdict::Schedulable
    } else {
        Verdict::Inconclusive
    }
}

/// The verdict alone (batches).
pub fn decide(tasks: &[TaskParams], m: u32) -> Verdict {
    core(tasks, m, &mut Quiet)
}

/// The explained outcome for a subset of tasks on `m` CPUs.
pub fn check(tasks: &[TaskParams], m: u32) -> Outcome {
    explained(ID, Names::NONE, |ex| core(tasks, m, ex))
}

/// The registry entry.
pub fn check_input(input: &Input) -> Outcome {
    explained(ID, Names::of(input), |ex| core(&input.tasks, input.cpus, ex))
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_model::exact::Ratio;

    #[test]
    fn the_bound_is_met_exactly_at_equality() {
        // δ = 1/2 each, 3 tasks on 2 CPUs: Σ = 3/2 = 2 − 1·1/2.
        let t = vec![TaskParams::implicit(5, 10); 3];
        let o = check(&t, 2);
        assert_eq!(o.verdict, Verdict::Schedulable, "{o:?}");
        assert_eq!(o.slack(), Some(Ratio::new(0, 1)));
        // One ns more tips it.
        let mut t2 = t.clone();
        t2[1].wcet = 6;
        let o = check(&t2, 2);
        assert_eq!(o.verdict, Verdict::Inconclusive);
        assert_eq!(o.task, Some(1));
        assert_eq!(decide(&t2, 2), Verdict::Inconclusive);
    }

    #[test]
    fn necessary_conditions_and_models() {
        assert_eq!(decide(&[TaskParams::constrained(6, 5, 10)], 2), Verdict::Unschedulable);
        assert_eq!(decide(&[TaskParams::implicit(9, 10); 3], 2), Verdict::Unschedulable);
        let mut j = TaskParams::implicit(1, 10);
        j.jitter = 1;
        let o = check(&[j], 2);
        assert_eq!(o.verdict, Verdict::NotApplicable);
        assert!(o.reason.contains("jitter"), "{}", o.reason);
    }
}
