//! PD^2's admission: the spec's tasks in whole quanta.

use super::{spread_bound, Params, SpreadParams};
use crate::build::AdmissionError;
use schedlab_model::{Duration, Spec};

/// The quantum when `policy.quantum` is absent: 1 ms.
pub(crate) const DEFAULT_QUANTUM: u64 = 1_000_000;

/// Each task in quanta: e = ⌈wcet/Q⌉, p = period/Q. Refused: a quantum of
/// 0; a period or offset that is not a multiple of Q; a deadline other than
/// the period; e > p (weight above 1). A total weight above m is admitted
/// (deadlines will be missed; the `pfair.pd2` analysis says so).
pub(crate) fn params(spec: &Spec) -> Result<Params, AdmissionError> {
    let pol = spec.policy.as_ref().expect("build checked the policy section");
    let q = pol.quantum.map_or(DEFAULT_QUANTUM, |d| d.0);
    if q == 0 {
        return Err(AdmissionError::at("policy.quantum", "must be more than 0, e.g. `1ms`"));
    }
    let qd = Duration(q);
    let mut weights = Vec::with_capacity(spec.tasks.len());
    for (i, t) in spec.tasks.iter().enumerate() {
        let at = |field: &str| format!("tasks[{i}].{field}");
        if t.period.0 == 0 || t.period.0 % q != 0 {
            return Err(AdmissionError::at(
                at("period"),
                format!("{} is not a multiple of the quantum {qd}: PD^2 works in whole quanta; use a multiple of {qd} or change `policy.quantum`", t.period),
            ));
        }
        if t.offset.0 % q != 0 {
            return Err(AdmissionError::at(
                at("offset"),
                format!("{} is not a multiple of the quantum {qd}: PD^2 releases at quantum boundaries; use a multiple of {qd} or change `policy.quantum`", t.offset),
            ));
        }
        if t.deadline() != t.period {
            return Err(AdmissionError::at(
                at("deadline"),
                format!("{} differs from the period {}: PD^2 schedules implicit-deadline tasks; remove `deadline` or set it to the period", t.deadline(), t.period),
            ));
        }
        let (e, p) = (t.wcet.0.div_ceil(q).max(1), t.period.0 / q);
        if e > p {
            return Err(AdmissionError::at(
                at("wcet"),
                format!(
                    "{} needs {e} quanta of {qd} every {p} (the period {}): weight above 1, no single CPU can serve it; lower the WCET to at most {} or raise the period",
                    t.wcet,
                    t.period,
                    Duration(p * q)
                ),
            ));
        }
        weights.push((e, p));
    }
    let stagger = pol.stagger.unwrap_or(false);
    let early_release = pol.early_release.unwrap_or(false);
    let spread = if pol.spread.unwrap_or(false) {
        if stagger {
            return Err(AdmissionError::at(
                "policy.spread",
                "spread minimisation co-schedules an MTT's tasks in one quantum, which needs aligned quanta; remove `stagger: true` or `spread: true`",
            ));
        }
        if early_release {
            return Err(AdmissionError::at(
                "policy.spread",
                "spread minimisation early releases subtasks by its own rules (at most X − 1 quanta); remove `early_release: true` or `spread: true`",
            ));
        }
        // X from the largest weight (Theorem 3.1).
        let (i, &(e, p)) = weights
            .iter()
            .enumerate()
            .rev() // the first of equal weights
            .max_by(|a, b| (a.1 .0 as u128 * b.1 .1 as u128).cmp(&(b.1 .0 as u128 * a.1 .1 as u128)))
            .expect("a spec has tasks");
        let Some(x) = spread_bound(e, p) else {
            return Err(AdmissionError::at(
                format!("tasks[{i}].wcet"),
                format!("weight {e}/{p} = 1: Theorem 3.1 bounds the spread only for weights below 1; lower the WCET or raise the period, or remove `spread: true`"),
            ));
        };
        let mtt = spec.mtt_of_tasks().into_iter().map(|m| m.map(|k| k as u32)).collect();
        Some(SpreadParams { mtt, er: x - 1 })
    } else {
        None
    };
    Ok(Params { quantum: q, weights, cpus: spec.platform.cpus, stagger, early_release, spread })
}
