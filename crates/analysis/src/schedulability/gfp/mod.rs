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

use super::gedf::explain::{ns, Explain};
use super::input::{Input, TaskParams};
use super::uni::order;

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
    let ok = order.len() == tasks.len() && order.iter().all(|&i| i < tasks.len() && !std::mem::replace(&mut seen[i], true));
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
            r.iter().enumerate().map(|(i, x)| format!("{} {}", names.label(i), x.map_or("not analysed".to_string(), ns))).collect::<Vec<_>>().join(", ")
        ));
        o.data = Some(super::data::Data::ResponseTimes(r.iter().map(|x| x.and_then(|v| u64::try_from(v).ok())).collect()));
    }
}
