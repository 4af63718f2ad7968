//! Multithreaded tasks (MTTs): groups of tasks with a common period that
//! reference one common set of data (Calandrino 2009, §1.2 of
//! `seed-001-calandrino.md`). Job i of an MTT is the i-th job of every one
//! of its tasks, and the MTT's working set is the union of what those jobs
//! reference: one working-set size for the group, each task keeping its own
//! execution cost. A task in no MTT is a "single-threaded MTT" of its own.
//!
//! Like `reservations:`, the groups list their tasks (`tasks: [w1, w2]`)
//! rather than each task naming its group: the section can be added to or
//! removed from a task set without touching the tasks, and it reads like the
//! thesis' mapping of an MTT onto one process whose threads are its tasks.
//!
//! What the spec requires of an MTT, so that "job i of the MTT" is one set
//! of jobs released together with one deadline: its tasks have the same
//! `period`, the same relative `deadline` and the same `offset`, and the
//! same `colors` (the shared working set lives in one set of colours). The
//! group's `wss` is the working set; a task of the group that declares a
//! `wss` of its own must declare the same one.

use super::Spec;
use crate::units::Size;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A multithreaded task: tasks sharing one working set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Mtt {
    /// Unique name among the MTTs, different from every task's, e.g. `video`.
    pub name: String,
    /// Names of the tasks (threads) of the MTT, each in at most one MTT; they
    /// share the period, deadline, offset and colours.
    pub tasks: Vec<String>,
    /// The working-set size of one job of the MTT: the union of the data
    /// its tasks' i-th jobs reference, e.g. `768KiB`. Default: the `wss`
    /// its tasks declare (they must agree), else none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wss: Option<Size>,
}

impl Mtt {
    /// An MTT of `tasks` with working-set size `wss`.
    pub fn new(name: impl Into<String>, tasks: &[&str], wss: Option<Size>) -> Mtt {
        Mtt { name: name.into(), tasks: tasks.iter().map(|t| t.to_string()).collect(), wss }
    }
}

/// Whose working set a task's jobs reference: the task's MTT's, or the
/// task's own when it is in none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum WssOwner {
    /// Index into `Spec::mtt`.
    Mtt(usize),
    /// Index into `Spec::tasks`.
    Task(usize),
}

impl Spec {
    /// The MTTs (empty without an `mtt` section).
    pub fn mtts(&self) -> &[Mtt] {
        self.mtt.as_deref().unwrap_or(&[])
    }

    /// For each task, the index of its MTT (`None`: in no MTT). Names that
    /// match no task are left out: validation refuses them.
    pub fn mtt_of_tasks(&self) -> Vec<Option<usize>> {
        let mut out = vec![None; self.tasks.len()];
        let index: std::collections::HashMap<&str, usize> =
            self.tasks.iter().enumerate().map(|(i, t)| (t.name.as_str(), i)).collect();
        for (k, m) in self.mtts().iter().enumerate() {
            for name in &m.tasks {
                if let Some(&i) = index.get(name.as_str()) {
                    out[i].get_or_insert(k);
                }
            }
        }
        out
    }

    /// The index of task `task`'s MTT, if it is in one. Linear in the MTTs'
    /// sizes: callers on a hot path keep [`Spec::mtt_of_tasks`].
    pub fn mtt_of(&self, task: usize) -> Option<usize> {
        let name = self.tasks.get(task)?.name.as_str();
        self.mtts().iter().position(|m| m.tasks.iter().any(|t| t == name))
    }

    /// The indices (into `tasks`) of MTT `mtt`'s tasks, in the MTT's order.
    pub fn mtt_tasks(&self, mtt: usize) -> Vec<usize> {
        let Some(m) = self.mtts().get(mtt) else { return Vec::new() };
        m.tasks.iter().filter_map(|n| self.tasks.iter().position(|t| &t.name == n)).collect()
    }

    /// The working-set size of MTT `mtt`: its `wss`, else the one its tasks
    /// declare (the first that does; validation makes them agree).
    pub fn mtt_wss(&self, mtt: usize) -> Option<Size> {
        let m = self.mtts().get(mtt)?;
        m.wss.or_else(|| self.mtt_tasks(mtt).into_iter().find_map(|i| self.tasks[i].wss))
    }

    /// The working-set owner of task `task`: its MTT, else the task itself.
    pub fn wss_owner(&self, task: usize) -> WssOwner {
        match self.mtt_of(task) {
            Some(k) => WssOwner::Mtt(k),
            None => WssOwner::Task(task),
        }
    }

    /// The working-set size of `owner`: the MTT's or the task's `wss`.
    pub fn owner_wss(&self, owner: WssOwner) -> Option<Size> {
        match owner {
            WssOwner::Mtt(k) => self.mtt_wss(k),
            WssOwner::Task(i) => self.tasks.get(i).and_then(|t| t.wss),
        }
    }

    /// The name of `owner`: the MTT's or the task's.
    pub fn owner_name(&self, owner: WssOwner) -> &str {
        match owner {
            WssOwner::Mtt(k) => self.mtts().get(k).map_or("", |m| m.name.as_str()),
            WssOwner::Task(i) => self.tasks.get(i).map_or("", |t| t.name.as_str()),
        }
    }
}
