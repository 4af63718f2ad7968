//! Interface selection: for each group and its period, the smallest budget
//! the H-CBS group test accepts — the design question a user of
//! reservations asks ("how much CPU must I give this group?").
//!
//! Bottom-up over the tree (children before parents). A group with tasks
//! and no children gets the smallest Q, replicated on the CPUs where the
//! spec gives it a server, for which G-FP on its servers (Eq. 4 supplies)
//! accepts its tasks. A group with children gets the smallest Q whose
//! server hosts, by EDF on every one of those CPUs, its children's chosen
//! servers and its leaf queue (whose budget is chosen the same way for the
//! group's own tasks, at the leaf period). Both conditions are monotone in
//! Q (more budget, pointwise more supply: the property tests check it), so
//! a binary search over integer nanoseconds finds the least. Finally the
//! chosen top-level servers must fit each CPU (Eq. 17).

use super::super::gfp::msf;
use super::super::input::TaskParams;
use super::super::outcome::Verdict;
use super::group::GroupParams;
use crate::supply::nested::{fits, Misfit};
use crate::supply::{Platform, Server, Supply};

/// The budget chosen for one group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    pub group: usize,
    pub period: u64,
    /// The smallest budget per CPU (`None`: not even the whole period).
    pub budget: Option<u64>,
    /// The leaf queue's (budget, period), when the group has one.
    pub leaf: Option<(Option<u64>, u64)>,
    /// The CPUs where the group has a server (as in the spec).
    pub cpus: Vec<usize>,
    /// Why there is no budget, or what bounds it, in words.
    pub why: String,
}

/// The least `q` in 0..=`period` with `accept(q)`, assuming monotonicity;
/// `None` when even `period` fails.
pub fn smallest(period: u64, accept: impl Fn(u64) -> bool) -> Option<u64> {
    if !accept(period) {
        return None;
    }
    let (mut lo, mut hi) = (0, period);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if accept(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Some(hi)
}

/// The smallest budget per CPU, at `period`, with which `m` servers serve
/// the tasks `members` (highest priority first) under G-FP.
pub fn for_tasks(tasks: &[TaskParams], members: &[usize], m: usize, period: u64) -> Option<u64> {
    if members.is_empty() {
        return Some(0);
    }
    let sub: Vec<TaskParams> = members.iter().map(|&t| tasks[t]).collect();
    let order: Vec<usize> = (0..sub.len()).collect();
    smallest(period, |q| {
        let p = Platform::symmetric(Supply::Hcbs(Server::new(q, period).expect("q ≤ period")), m);
        msf::decide(&sub, &order, &p) == Verdict::Schedulable
    })
}

/// The choices for every group (by index), and the first CPU where the
/// chosen top-level servers do not fit, with why.
pub fn select(
    tasks: &[TaskParams],
    order: &[usize],
    groups: &[GroupParams],
    cpus: usize,
) -> (Vec<Choice>, Option<(usize, Box<Misfit>)>) {
    let mut out: Vec<Option<Choice>> = vec![None; groups.len()];
    for g in (0..groups.len()).rev() {
        let grp = &groups[g];
        let on: Vec<usize> = (0..cpus).filter(|&c| grp.budgets.get(c).copied().unwrap_or(0) > 0).collect();
        let members: Vec<usize> = order.iter().copied().filter(|t| grp.tasks.contains(t)).collect();
        let sub: Vec<TaskParams> = members.iter().map(|&t| tasks[t]).collect();
        let unfit = msf::unfit(&sub, &(0..sub.len()).collect::<Vec<_>>())
            .map(|(i, why)| format!("the test does not apply: tasks[{}] {why}", members[i]));
        let choice = if grp.children.is_empty() {
            let budget = for_tasks(tasks, &members, on.len(), grp.period);
            let why = match (budget, &unfit) {
                (None, Some(u)) => u.clone(),
                (None, None) => "no budget up to the whole period lets the test accept its tasks".into(),
                (Some(0), _) => "no tasks: nothing to serve".into(),
                (Some(_), _) => {
                    format!("the least budget with which G-FP on its {} server(s) accepts its tasks", on.len())
                }
            };
            Choice { group: g, period: grp.period, budget, leaf: None, cpus: on, why }
        } else {
            let leaf = grp.leaf.map(|(_, lp)| (for_tasks(tasks, &members, on.len(), lp), lp));
            let kids: Vec<&Choice> = grp.children.iter().map(|&k| out[k].as_ref().expect("children first")).collect();
            let missing = kids.iter().find(|k| k.budget.is_none()).map(|k| groups[k.group].label());
            let (budget, why) = if let Some(k) = missing {
                (None, format!("its subgroup {k} has no budget that works"))
            } else if matches!(leaf, Some((None, _))) {
                let why = unfit.unwrap_or_else(|| {
                    "no leaf budget up to the leaf period lets the test accept its own tasks".into()
                });
                (None, why)
            } else {
                let inner = |c: usize| -> Vec<Server> {
                    let mut v: Vec<Server> = kids
                        .iter()
                        .filter(|k| k.cpus.contains(&c))
                        .filter_map(|k| k.budget.filter(|&q| q > 0).map(|q| Server::new(q, k.period).expect("q ≤ P")))
                        .collect();
                    if let Some((Some(q), lp)) = leaf {
                        if q > 0 {
                            v.push(Server::new(q, lp).expect("q ≤ P"));
                        }
                    }
                    v
                };
                let period = grp.period;
                let b = smallest(period, |q| {
                    on.iter().all(|&c| {
                        let s = if q == 0 {
                            Supply::Nothing
                        } else {
                            Supply::Hcbs(Server::new(q, period).expect("q ≤ P"))
                        };
                        fits(&s, &inner(c)).is_ok()
                    })
                });
                let why = match b {
                    None => {
                        "no budget up to the whole period hosts its subgroups' and leaf queue's servers by EDF".into()
                    }
                    Some(_) => {
                        "the least budget whose server hosts its subgroups' and leaf queue's chosen servers by EDF"
                            .into()
                    }
                };
                (b, why)
            };
            Choice { group: g, period: grp.period, budget, leaf, cpus: on, why }
        };
        out[g] = Some(choice);
    }
    let out: Vec<Choice> = out.into_iter().map(|c| c.expect("every group")).collect();
    let mut misfit = None;
    for c in 0..cpus {
        let top: Vec<Server> = out
            .iter()
            .filter(|ch| groups[ch.group].parent.is_none() && ch.cpus.contains(&c))
            .filter_map(|ch| ch.budget.filter(|&q| q > 0).map(|q| Server::new(q, ch.period).expect("q ≤ P")))
            .collect();
        if let Err(m) = fits(&Supply::Full, &top) {
            misfit = Some((c, m));
            break;
        }
    }
    (out, misfit)
}
