//! The H-CBS group test (`hcbs.msf`): every reservation group's tasks on
//! the virtual processors its servers give it (OSPERT 2009, §4; the supply
//! bounds are in [`crate::supply`], the per-group test in
//! [`super::gfp::msf`]).
//!
//! A group's server on a CPU supplies Eq. 4 when the servers it competes
//! with fit by EDF where they run: the top-level servers of a CPU on the
//! whole CPU (Eq. 17), a group's children and its leaf queue inside the
//! group's server on that CPU ([`crate::supply::nested`]). Where that is
//! not shown, the analysis counts no supply from that server (a sound
//! lower bound) and says so. Tasks in no group run in the background with
//! nothing guaranteed, so they leave the verdict inconclusive, unless they
//! are best effort (class `be`).

pub mod group;
pub mod interface;

pub use group::GroupParams;

use super::gedf::explain::Names;
use super::gfp::{msf, priority_order};
use super::input::{Input, TaskParams};
use super::outcome::{Exactness, Outcome, Verdict};
use super::registry::TestInfo;
use super::Data;
use crate::supply::nested::fits;
use crate::supply::{Platform, Server, Supply};
use num_bigint::BigInt;
use num_rational::BigRational;
use schedlab_model::{Class, PolicyName};

pub const ID: &str = msf::ID;

pub const INFO: TestInfo = TestInfo {
    id: ID,
    title: "H-CBS groups: G-FP on each group's multi-supply platform (OSPERT 2009, Thm. 2)",
    policies: &[PolicyName::Hcbs],
    assumes: "the spec's `reservations`; each group's sporadic tasks without jitter, constrained deadlines (D ≤ T), integer time (ns), under global FP (RM, DM or explicit) on its H-CBS servers; servers fitting by EDF on each CPU (Eq. 17) and nested ones inside their parent's server; no non-preemptive sections or self-suspension in a group",
    exactness: Exactness::Sufficient,
    source: "Checconi, Cucinotta, Faggioli & Lipari, OSPERT 2009 (Eqs. 4, 11–17; Eq. 7 as a lower bound, Eq. 13 instead of Eq. 16: docs/analysis.md)",
};

/// What the analysis found for one group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupOutcome {
    /// The group's index in [`Input::groups`].
    pub group: usize,
    /// The supply its own tasks get on each CPU.
    pub supplies: Vec<Supply>,
    /// Where a server's supply could not be shown (EDF misfits), in words.
    pub notes: Vec<String>,
    /// The G-FP test of its own tasks on `supplies` (task indices of the
    /// whole set).
    pub outcome: Outcome,
}

/// Which servers' supplies are shown, by group and CPU.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Guarantees {
    /// The group's own server.
    pub own: Vec<Vec<bool>>,
    /// The server of its own tasks (the leaf queue's when it has children).
    pub tasks: Vec<Vec<bool>>,
    /// Why not, where not, per group.
    pub notes: Vec<Vec<String>>,
}

/// For each group and CPU: is its own server's supply guaranteed, and is
/// the supply of the server of its tasks?
pub fn guarantees(groups: &[GroupParams], cpus: usize) -> Guarantees {
    let n = groups.len();
    let mut own = vec![vec![false; cpus]; n];
    let mut leaf = vec![vec![false; cpus]; n];
    let mut notes = vec![Vec::new(); n];
    for c in 0..cpus {
        let top: Vec<usize> = (0..n).filter(|&g| groups[g].parent.is_none()).collect();
        let servers: Vec<Server> = top.iter().filter_map(|&g| groups[g].server(c)).collect();
        let ok = match fits(&Supply::Full, &servers) {
            Ok(()) => true,
            Err(m) => {
                for &g in &top {
                    notes[g].push(format!("CPU {c}: the top-level servers do not fit (Eq. 17): {m}"));
                }
                false
            }
        };
        for &g in &top {
            own[g][c] = ok && groups[g].server(c).is_some();
        }
        // Pre-order: a parent is settled before its children.
        for g in 0..n {
            let grp = &groups[g];
            let Some(me) = grp.server(c) else { continue };
            let mut inner: Vec<Server> = grp.children.iter().filter_map(|&k| groups[k].server(c)).collect();
            if let Some(l) = grp.leaf_server(c) {
                inner.push(l);
            }
            let inside = own[g][c]
                && match fits(&Supply::Hcbs(me), &inner) {
                    Ok(()) => true,
                    Err(m) => {
                        notes[g].push(format!(
                            "CPU {c}: the subgroups' and leaf queue's servers do not fit by EDF in this group's server {}: {m}",
                            me.describe()
                        ));
                        false
                    }
                };
            for &k in &grp.children {
                own[k][c] = inside && groups[k].server(c).is_some();
            }
            leaf[g][c] = if grp.children.is_empty() { own[g][c] } else { inside && grp.leaf_server(c).is_some() };
        }
    }
    Guarantees { own, tasks: leaf, notes }
}

/// The test of every group of `groups` (tasks `tasks`, `order` the priority
/// order of the whole set, highest first).
pub fn analyse(
    tasks: &[TaskParams],
    order: &[usize],
    names: &[String],
    groups: &[GroupParams],
    cpus: usize,
) -> Vec<GroupOutcome> {
    let Guarantees { tasks: task_ok, notes, .. } = guarantees(groups, cpus);
    groups
        .iter()
        .enumerate()
        .map(|(g, grp)| {
            let supplies: Vec<Supply> = (0..cpus).map(|c| group::supply(grp.task_server(c), task_ok[g][c])).collect();
            let members: Vec<usize> = order.iter().copied().filter(|t| grp.tasks.contains(t)).collect();
            let sub: Vec<TaskParams> = members.iter().map(|&t| tasks[t]).collect();
            let sub_names: Vec<String> = members.iter().map(|&t| names.get(t).cloned().unwrap_or_default()).collect();
            let local: Vec<usize> = (0..members.len()).collect();
            let platform = Platform::new(supplies.iter().copied().filter(|s| *s != Supply::Nothing).collect());
            let named = Names { names: if names.is_empty() { &[] } else { &sub_names }, index: &members };
            let mut outcome = if members.is_empty() {
                Outcome::new(ID, Verdict::Schedulable, "no tasks of its own")
            } else if platform.is_empty() {
                Outcome::new(ID, Verdict::Inconclusive, "no server of its tasks has a guaranteed supply on any CPU")
            } else {
                msf::check(&sub, &local, &platform, named)
            };
            // Task indices of the whole set.
            outcome.task = outcome.task.map(|i| members[i]);
            let described: Vec<String> =
                supplies.iter().enumerate().map(|(c, s)| format!("CPU {c}: {}", s.describe())).collect();
            outcome.details.insert(0, format!("supply of its tasks: {}", described.join("; ")));
            GroupOutcome { group: g, supplies, notes: notes[g].clone(), outcome }
        })
        .collect()
}

/// A grouped task the analysis does not model, and why: the paper's
/// analysis has no blocking term (shared resources are its future work) and
/// no self-suspension.
pub fn outside_the_model(input: &Input) -> Option<(usize, String)> {
    let in_a_group = |t: usize| input.groups.iter().any(|g| g.tasks.contains(&t));
    input.options.subjobs.iter().enumerate().find_map(|(t, s)| {
        let s = s.filter(|_| in_a_group(t))?;
        let why = if s.nonpreemptive {
            "has a non-preemptive section (`preemptible: false`), which can run past its server's budget and block the group's other tasks; the analysis has no blocking term"
        } else if s.suspends {
            "suspends itself (a `suspend` segment), which the analysis does not model"
        } else {
            return None;
        };
        Some((t, format!("{} {why}", input.task_label(t))))
    })
}

/// The registry entry: every group of `input.groups`.
pub fn check(input: &Input) -> Outcome {
    if input.groups.is_empty() {
        return Outcome::not_applicable(ID, "the spec has no `reservations`: there are no groups to analyse");
    }
    let order = match priority_order(input) {
        Ok(o) => o,
        Err((i, why)) => return Outcome::not_applicable(ID, why).task(i),
    };
    if let Some((t, why)) = outside_the_model(input) {
        return Outcome::not_applicable(ID, why).task(t);
    }
    let groups = analyse(&input.tasks, &order, &input.names, &input.groups, input.cpus as usize);
    let label = |g: usize| input.groups[g].label();
    let failed = groups.iter().find(|o| o.outcome.verdict != Verdict::Schedulable);
    let in_group = |t: &usize| input.groups.iter().any(|g| g.tasks.contains(t));
    let best_effort = |t: &usize| input.classes.get(*t) == Some(&Class::Be);
    let background: Vec<usize> = (0..input.tasks.len()).filter(|t| !in_group(t) && !best_effort(t)).collect();
    let idle: Vec<String> =
        (0..input.tasks.len()).filter(|t| !in_group(t) && best_effort(t)).map(|t| input.task_label(t)).collect();
    let mut out = if let Some(f) = failed {
        let mut o = Outcome::new(
            ID,
            if f.outcome.verdict == Verdict::NotApplicable { Verdict::NotApplicable } else { Verdict::Inconclusive },
            format!("{}: {}", label(f.group), f.outcome.reason),
        );
        o.task = f.outcome.task;
        o.value = f.outcome.value.clone();
        o.bound = f.outcome.bound.clone();
        o
    } else if let Some(&t) = background.first() {
        Outcome::new(
            ID,
            Verdict::Inconclusive,
            format!(
                "{} is in no group: it runs in the background, where no supply is guaranteed ({} such task(s) not of class be)",
                input.task_label(t),
                background.len()
            ),
        )
        .task(t)
    } else {
        let tight = groups.iter().filter(|o| o.outcome.value.is_some()).min_by_key(|o| {
            o.outcome.slack().map(|s| s.0).unwrap_or_else(|| BigRational::from_integer(BigInt::from(0)))
        });
        match tight {
            Some(t) => {
                let mut o = Outcome::new(
                    ID,
                    Verdict::Schedulable,
                    format!(
                        "every group's tasks meet their deadlines on its servers; tightest {}: {}",
                        label(t.group),
                        t.outcome.reason
                    ),
                );
                o.task = t.outcome.task;
                o.value = t.outcome.value.clone();
                o.bound = t.outcome.bound.clone();
                o
            }
            None => Outcome::new(ID, Verdict::Schedulable, "no group has tasks: nothing can miss"),
        }
    };
    if !idle.is_empty() {
        out = out.detail(format!("in the background, best effort (not analysed): {}", idle.join(", ")));
    }
    for g in &groups {
        out = out.detail(format!("{}: {} — {}", label(g.group), g.outcome.verdict, g.outcome.reason));
        for n in &g.notes {
            out = out.detail(format!("  {n}"));
        }
        for d in &g.outcome.details {
            out = out.detail(format!("  {d}"));
        }
    }
    out.with_data(Data::Groups(groups))
}
