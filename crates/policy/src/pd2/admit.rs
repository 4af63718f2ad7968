//! PD^2's admission: the spec's tasks in whole quanta.

use super::{pack_greedy, split_weight, spread_bound, MegataskParams, PackTask, Params, SpreadParams};
use crate::build::AdmissionError;
use schedlab_model::{Duration, Spec};
use schedlab_model::{MegataskPacking, Megatasks, WssOwner};

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
        // X from the largest weight (Theorem 3.1); no task: the least X.
        let (i, &(e, p)) = weights
            .iter()
            .enumerate()
            .rev() // the first of equal weights
            .max_by(|a, b| (a.1 .0 as u128 * b.1 .1 as u128).cmp(&(b.1 .0 as u128 * a.1 .1 as u128)))
            .unwrap_or((0, &(1, 3)));
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
    let megatasks = megatasks(spec, &weights, stagger || early_release || spread.is_some())?;
    Ok(Params { quantum: q, weights, cpus: spec.platform.cpus, stagger, early_release, spread, megatasks })
}

/// The megatasks of `policy.megatasks`: explicit lists of task names, or
/// the greedy packing; each with ⌊u⌋ and its special task's weight (⌈u⌉
/// whole CPUs with `reweight`). `exclusive`: another option that needs the
/// plain boundary rules is on.
fn megatasks(spec: &Spec, weights: &[(u64, u64)], exclusive: bool) -> Result<Vec<MegataskParams>, AdmissionError> {
    let pol = spec.policy.as_ref().expect("checked");
    let Some(how) = &pol.megatasks else {
        if pol.reweight.is_some() {
            return Err(AdmissionError::at(
                "policy.reweight",
                "reweights megatasks, and there are none; add `megatasks` or remove `reweight`",
            ));
        }
        return Ok(Vec::new());
    };
    if exclusive {
        return Err(AdmissionError::at(
            "policy.megatasks",
            "megatasks need aligned quanta and PD^2's own eligibility; remove `stagger`, `early_release` and `spread`, or `megatasks`",
        ));
    }
    let groups: Vec<Vec<usize>> = match how {
        Megatasks::Groups(lists) => {
            let mut seen = vec![None; spec.tasks.len()];
            let mut out = Vec::with_capacity(lists.len());
            for (g, list) in lists.iter().enumerate() {
                let mut members = Vec::with_capacity(list.len());
                for (j, name) in list.iter().enumerate() {
                    let at = format!("policy.megatasks[{g}][{j}]");
                    let Some(i) = spec.tasks.iter().position(|t| &t.name == name) else {
                        return Err(AdmissionError::at(
                            at,
                            format!("no task is named `{name}`; use a name from `tasks`"),
                        ));
                    };
                    if let Some(other) = seen[i] {
                        return Err(AdmissionError::at(
                            at,
                            format!("`{name}` is already in megatask {other}: a task is in at most one megatask; remove one of them"),
                        ));
                    }
                    seen[i] = Some(g);
                    members.push(i);
                }
                if members.is_empty() {
                    return Err(AdmissionError::at(
                        format!("policy.megatasks[{g}]"),
                        "is empty; list at least one task or remove it",
                    ));
                }
                out.push(members);
            }
            out
        }
        Megatasks::Packing(MegataskPacking::Greedy) => {
            let Some(cache) = &spec.platform.cache else {
                return Err(AdmissionError::at(
                    "policy.megatasks",
                    "`greedy` packs by working-set size against the shared cache; add `platform.cache` or list the megatasks",
                ));
            };
            let mut tasks = Vec::with_capacity(spec.tasks.len());
            for (i, &(e, p)) in weights.iter().enumerate() {
                let owner = spec.wss_owner(i);
                let Some(wss) = spec.owner_wss(owner) else {
                    return Err(AdmissionError::at(
                        format!("tasks[{i}].wss"),
                        "`greedy` megatask packing orders the tasks by working-set size; give the task (or its MTT) a `wss`, or list the megatasks",
                    ));
                };
                let owner = match owner {
                    WssOwner::Mtt(k) => k,
                    WssOwner::Task(t) => spec.mtts().len() + t,
                };
                tasks.push(PackTask { e, p, owner, wss: wss.0 });
            }
            pack_greedy(&tasks, cache.size.0).ok_or_else(|| {
                AdmissionError::at("policy.megatasks", "the periods' common multiple (in quanta) is too large for exact weights; use periods with a smaller common multiple or list the megatasks")
            })?
        }
    };
    let reweight = pol.reweight.unwrap_or(false);
    let mut out = Vec::with_capacity(groups.len());
    for (g, members) in groups.into_iter().enumerate() {
        let Some((whole, special)) = split_weight(weights, &members) else {
            return Err(AdmissionError::at(
                format!("policy.megatasks[{g}]"),
                "the megatask's weight has too large a denominator; use periods with a smaller common multiple",
            ));
        };
        let (whole, special) = if reweight && special.is_some() { (whole + 1, None) } else { (whole, special) };
        out.push(MegataskParams { members, whole, special });
    }
    // Whole CPUs, special tasks and the tasks in no megatask must fit m.
    let mut inside = vec![false; weights.len()];
    for mt in &out {
        for &i in &mt.members {
            inside[i] = true;
        }
    }
    let top: Vec<(u64, u64)> = out
        .iter()
        .filter_map(|mt| mt.special)
        .chain(weights.iter().enumerate().filter(|(i, _)| !inside[*i]).map(|(_, &w)| w))
        .collect();
    let whole: u64 = out.iter().map(|mt| mt.whole).sum();
    let top_weight = schedlab_model::exact::Ratio::sum(top.iter().map(|&(e, p)| (e as u128, p as u128)));
    let m = spec.platform.cpus as u64;
    if whole > m || top_weight.gt_int((m - whole) as u128) {
        let at = if reweight { "policy.reweight" } else { "policy.megatasks" };
        return Err(AdmissionError::at(
            at,
            format!(
                "the megatasks take {whole} whole CPUs and the top level needs {:.3} more, above the {m} CPUs{}",
                top_weight.to_f64(),
                if reweight {
                    ": rounding each megatask up to whole CPUs does not fit; remove `reweight`"
                } else {
                    "; fewer or lighter megatasks"
                }
            ),
        ));
    }
    Ok(out)
}
