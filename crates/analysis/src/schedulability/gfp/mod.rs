//! Global fixed-priority tests: Bertogna & Cirinei's RTA with slack
//! (`gfp.bertogna`) and Guan, Stigge, Yi & Yu's RTA with limited carry-in
//! (`gfp.guan`), for RM, DM and explicit priorities.
//!
//! Each core takes the tasks, the CPU count and the priority order (task
//! indices, highest first), so clustered analysis can call it per cluster;
//! the registry entries take the order from the spec (`policy.priorities`,
//! default RM; ties to the lower task index, as the simulator breaks them).
//! Tasks are analysed from the highest priority down; a task's bound uses
//! the bounds of the tasks above it, so one pass suffices. Sporadic tasks
//! without jitter, constrained deadlines, integer time (ns).

pub mod bertogna;
pub mod guan;
pub mod msf;

use super::gedf::exact::int;
use super::gedf::explain::{ns, Explain};
use super::gedf::model::{precheck, Needs};
use super::gedf::piecewise::{lfp, Lin};
use super::input::{Input, TaskParams};
use super::outcome::Verdict;
use super::uni::order;

/// The response-time pass both tests share: after the common checks (U, C ≤
/// D, constrained deadlines, a valid order), each task from the highest
/// priority down gets the least fixed point of x = Cₖ + ⌊Ω(x)/m⌋ up to Dₖ,
/// where `interference(hp, rb, cₖ, x)` is the test's Ω (the tasks above it,
/// the bounds found so far by task index); a bound above the deadline makes
/// the verdict inconclusive, naming the task.
pub(crate) fn response_times<E: Explain>(
    tasks: &[TaskParams],
    m: u32,
    order: &[usize],
    ex: &mut E,
    interference: impl Fn(&[usize], &[i128], i64, i64) -> Lin,
) -> Verdict {
    let needs = Needs { constrained: true, ..Needs::default() };
    if let Err(v) = precheck(tasks, m, needs, ex) {
        return v;
    }
    if !valid_order(tasks, order, ex) {
        return Verdict::NotApplicable;
    }
    let mut r: Vec<Option<i128>> = vec![None; tasks.len()];
    let mut rb: Vec<i128> = vec![0; tasks.len()];
    for (pos, &k) in order.iter().enumerate() {
        let hp = &order[..pos];
        let (ck, dk) = (tasks[k].wcet as i128, tasks[k].deadline as i128);
        let found = lfp(ck as i64, dk as i64, m as i64, |x| interference(hp, &rb, ck as i64, x));
        match found.map(i128::from).map_err(i128::from) {
            Ok(b) => {
                r[k] = Some(b);
                rb[k] = b;
            }
            Err(above) => {
                if let Some((o, names)) = ex.out() {
                    o.reason = format!(
                        "for {} (priority {} of {}): the response-time iteration exceeds the deadline ({} > {}); the test cannot prove it",
                        names.label(k),
                        pos + 1,
                        tasks.len(),
                        ns(above),
                        ns(dk)
                    );
                    o.task = Some(k);
                    o.value = Some(int(above));
                    o.bound = Some(int(dk));
                }
                bounds_line(&r, ex);
                return Verdict::Inconclusive;
            }
        }
    }
    if let Some((o, names)) = ex.out() {
        let k = (0..tasks.len()).min_by_key(|&k| tasks[k].deadline as i128 - rb[k]).unwrap_or(0);
        o.reason = format!(
            "every response-time bound is within its deadline; tightest {}: R = {} ≤ D = {}",
            names.label(k),
            ns(rb[k]),
            ns(tasks[k].deadline as i128)
        );
        o.task = Some(k);
        o.value = Some(int(rb[k]));
        o.bound = Some(int(tasks[k].deadline as i128));
    }
    bounds_line(&r, ex);
    Verdict::Schedulable
}

/// The priority order of `input` (highest first), or the task that lacks an
/// explicit priority and why.
pub fn priority_order(input: &Input) -> Result<Vec<usize>, (usize, String)> {
    let ranks = order::ranks(input)?;
    Ok(order::by_priority(&ranks, 0..input.tasks.len()))
}

/// The order as a detail line.
pub(crate) fn order_line(input: &Input, order: &[usize]) -> String {
    let names: Vec<String> = order.iter().map(|&i| input.task_label(i)).collect();
    format!("priority order ({}), highest first: {}", order::name(order::assignment(input)), names.join(", "))
}

/// Checks the order is a permutation of the tasks; `false` explains why.
pub(crate) fn valid_order<E: Explain>(tasks: &[TaskParams], order: &[usize], ex: &mut E) -> bool {
    let mut seen = vec![false; tasks.len()];
    let ok =
        order.len() == tasks.len() && order.iter().all(|&i| i < tasks.len() && !std::mem::replace(&mut seen[i], true));
    if !ok {
        if let Some((o, _)) = ex.out() {
            o.reason = format!("the priority order must list each of the {} tasks once", tasks.len());
        }
    }
    ok
}

/// `R` bounds as a detail line, by task index.
pub(crate) fn bounds_line<E: Explain>(r: &[Option<i128>], ex: &mut E) {
    if let Some((o, names)) = ex.out() {
        o.details.push(format!(
            "response-time bounds: {}",
            r.iter()
                .enumerate()
                .map(|(i, x)| format!("{} {}", names.label(i), x.map_or("not analysed".to_string(), ns)))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        o.data =
            Some(super::data::Data::ResponseTimes(r.iter().map(|x| x.and_then(|v| u64::try_from(v).ok())).collect()));
    }
}
