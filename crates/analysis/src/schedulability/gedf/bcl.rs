//! BCL (Bertogna, Cirinei & Lipari 2005; 2009): for every task k, the
//! interference of τᵢ in τₖ's window of length Dₖ is at most
//!
//!   Iᵢ = Nᵢ·Cᵢ + min(Cᵢ, max(0, Dₖ − Nᵢ·Tᵢ)),  Nᵢ = ⌊(Dₖ − Dᵢ)/Tᵢ⌋ + 1,
//!
//! and G-EDF meets every deadline if for every k
//!
//!   Σ_{i≠k} min(Iᵢ, Dₖ − Cₖ) < m·(Dₖ − Cₖ),
//!   or equality holds and some i ≠ k has 0 < Iᵢ ≤ Dₖ − Cₖ.
//!
//! This is the paper's condition on βᵢ = Iᵢ/Dₖ and 1 − λₖ multiplied by
//! Dₖ: integers only.

use super::super::input::{Input, TaskParams};
use super::super::outcome::{Exactness, Outcome, Verdict};
use super::super::registry::TestInfo;
use super::exact::int;
use super::explain::{explained, ns, Explain, Names, Quiet};
use super::model::{precheck, Needs};
use schedlab_model::PolicyName;

pub const ID: &str = "gedf.bcl";

pub const INFO: TestInfo = TestInfo {
    id: ID,
    title: "G-EDF, Bertogna–Cirinei–Lipari interference test (BCL)",
    policies: &[PolicyName::Gedf],
    assumes: "sporadic tasks without jitter, constrained deadlines (D ≤ T), m ≥ 1",
    exactness: Exactness::Sufficient,
    source: "Bertogna, Cirinei & Lipari 2005 (ECRTS); 2009 (IEEE TPDS)",
};

/// The task model the test needs (checked by `precheck`).
pub const NEEDS: Needs = Needs { constrained: true, min_cpus: 0, u_below_m: false };

/// Iᵢ in τₖ's window (constrained deadlines).
#[inline]
pub(crate) fn interference(tk: &TaskParams, ti: &TaskParams) -> i128 {
    let (dk, di, ci, tp) = (tk.deadline as i128, ti.deadline as i128, ti.wcet as i128, ti.period as i128);
    let n = (dk - di).div_euclid(tp) + 1;
    n * ci + ci.min((dk - n * tp).max(0))
}

/// (Σ_{i≠k} min(Iᵢ, X), passes) for task k, X = Dₖ − Cₖ.
#[inline]
fn check_k(tasks: &[TaskParams], m: u32, k: usize) -> (i128, bool) {
    let tk = &tasks[k];
    let x = tk.deadline as i128 - tk.wcet as i128;
    let mut s = 0i128;
    let mut witness = false;
    for (i, ti) in tasks.iter().enumerate() {
        if i == k {
            continue;
        }
        let ii = interference(tk, ti);
        s += ii.min(x);
        witness |= ii > 0 && ii <= x;
    }
    let bound = m as i128 * x;
    (s, s < bound || (s == bound && witness))
}

pub fn core<E: Explain>(tasks: &[TaskParams], m: u32, ex: &mut E) -> Verdict {
    if let Err(v) = precheck(tasks, m, NEEDS, ex) {
        return v;
    }
    let failed = (0..tasks.len()).find(|&k| !check_k(tasks, m, k).1);
    if let Some((o, names)) = ex.out() {
        let slack = |k: usize| {
            let (s, _) = check_k(tasks, m, k);
            m as i128 * (tasks[k].deadline as i128 - tasks[k].wcet as i128) - s
        };
        let k = failed.unwrap_or_else(|| (0..tasks.len()).min_by_key(|&k| slack(k)).unwrap_or(0));
        let (s, _) = check_k(tasks, m, k);
        let x = tasks[k].deadline as i128 - tasks[k].wcet as i128;
        o.reason = match failed {
            Some(_) => format!(
                "for {}: the interference Σ min(Iᵢ, D − C) = {} reaches m·(D − C) = {}: the test cannot prove it",
                names.label(k),
                ns(s),
                ns(m as i128 * x)
            ),
            None => format!(
                "Σ min(Iᵢ, D − C) < m·(D − C) for every task; tightest {}: {} vs {}",
                names.label(k),
                ns(s),
                ns(m as i128 * x)
            ),
        };
        o.task = Some(k);
        o.value = Some(int(s));
        o.bound = Some(int(m as i128 * x));
        o.details.push("value and bound in ns: the interference in the task's window, and m·(D − C)".into());
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
    fn interference_counts_whole_jobs_and_the_carry_in() {
        let k = TaskParams::constrained(1, 10, 10);
        // Nᵢ = ⌊(10 − 3)/8⌋ + 1 = 1; carry-in min(2, 10 − 8) = 2.
        assert_eq!(interference(&k, &TaskParams::constrained(2, 3, 8)), 4);
        // Dᵢ > Dₖ: Nᵢ = 0, carry-in min(C, Dₖ).
        assert_eq!(interference(&TaskParams::constrained(1, 2, 10), &TaskParams::constrained(5, 9, 9)), 2);
    }

    #[test]
    fn equality_needs_a_witness() {
        // m = 1, k = (1, 2, 2), other (1, 2, 2): I = 1 = D − C, Σ = 1 = m·X, witness 0 < 1 ≤ 1.
        let t = vec![TaskParams::implicit(1, 2); 2];
        assert_eq!(decide(&t, 1), Verdict::Schedulable);
        // D − C = 0 for a task: no witness possible.
        let t = vec![TaskParams::implicit(2, 2), TaskParams::implicit(1, 4)];
        let o = check(&t, 2);
        assert_eq!(o.verdict, Verdict::Inconclusive, "{o:?}");
        assert_eq!(o.task, Some(0));
    }
}
