//! Fixed-priority order of a task set, as the FP policies assign it: rate
//! monotonic (shorter period first), deadline monotonic (shorter relative
//! deadline first) or explicit (each task's `priority`, 1 the highest) from
//! the spec's `policy.priorities` (default RM); ties go to the lower task
//! index, exactly as the simulator's FP policies break them, so the order is
//! total and every analysis treats ties as strict priorities.

use super::super::input::Input;
use schedlab_model::Priorities;

/// How priorities are assigned for `input` (the spec's choice, default RM).
pub(crate) fn assignment(input: &Input) -> Priorities {
    input.policy.as_ref().and_then(|p| p.priorities).unwrap_or_default()
}

/// Each task's rank (smaller is more urgent), or the task that lacks an
/// explicit priority and why.
pub(crate) fn ranks(input: &Input) -> Result<Vec<u64>, (usize, String)> {
    let how = assignment(input);
    input
        .tasks
        .iter()
        .enumerate()
        .map(|(i, t)| match how {
            Priorities::Rm => Ok(t.period),
            Priorities::Dm => Ok(t.deadline),
            Priorities::Explicit => match input.priorities.get(i).copied().flatten() {
                Some(p) if p >= 1 => Ok(p as u64),
                Some(_) => {
                    Err((i, format!("{} has priority 0; priorities start at 1 (the highest)", input.task_label(i))))
                }
                None => {
                    Err((i, format!("{} has no `priority`, which `priorities: explicit` needs", input.task_label(i))))
                }
            },
        })
        .collect()
}

/// Task indices from the highest priority to the lowest.
pub(crate) fn by_priority(ranks: &[u64], tasks: impl Iterator<Item = usize>) -> Vec<usize> {
    let mut v: Vec<usize> = tasks.collect();
    v.sort_unstable_by_key(|&i| (ranks[i], i));
    v
}

/// The name of the assignment for explanations.
pub(crate) fn name(how: Priorities) -> &'static str {
    match how {
        Priorities::Rm => "rate monotonic",
        Priorities::Dm => "deadline monotonic",
        Priorities::Explicit => "explicit",
    }
}
