//! A reservation group as the analysis reads it: budgets per CPU and the
//! period in integer ns, its tasks and children by index — the spec's
//! `reservations` tree flattened in pre-order (a parent before its children).

use crate::supply::{Server, Supply};

/// One group of the reservation tree.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct GroupParams {
    pub name: String,
    /// Its spec path, e.g. `reservations[1].groups[0]`.
    pub path: String,
    /// Index of the parent group; `None` at the top level.
    pub parent: Option<usize>,
    /// Indices of the child groups.
    pub children: Vec<usize>,
    /// The budget on each CPU (0: no server there), in ns.
    pub budgets: Vec<u64>,
    pub period: u64,
    /// Indices of the group's own tasks.
    pub tasks: Vec<usize>,
    /// The leaf queue serving the tasks when the group also has children:
    /// (budget on each CPU where the group has a server, period).
    pub leaf: Option<(u64, u64)>,
}

impl GroupParams {
    /// The group's server on `cpu` (`None`: no budget there).
    pub fn server(&self, cpu: usize) -> Option<Server> {
        let q = self.budgets.get(cpu).copied().unwrap_or(0);
        (q > 0).then(|| Server::new(q.min(self.period), self.period).expect("period > 0"))
    }

    /// The leaf queue's server on `cpu`, when the group has one there.
    pub fn leaf_server(&self, cpu: usize) -> Option<Server> {
        let (q, p) = self.leaf?;
        self.server(cpu)?;
        (q > 0).then(|| Server::new(q.min(p), p).expect("period > 0"))
    }

    /// The server that runs the group's own tasks on `cpu`: the leaf queue's
    /// when the group has children, else the group's own.
    pub fn task_server(&self, cpu: usize) -> Option<Server> {
        if self.children.is_empty() {
            self.server(cpu)
        } else {
            self.leaf_server(cpu)
        }
    }

    /// Whether `leaf` is in use (the group has children and tasks).
    pub fn has_leaf(&self) -> bool {
        !self.children.is_empty() && self.leaf.is_some()
    }

    /// The label in explanations: `group NAME (PATH)`.
    pub fn label(&self) -> String {
        format!("group {} ({})", self.name, self.path)
    }
}

/// The supply of `server` where it is guaranteed, else nothing.
pub(crate) fn supply(server: Option<Server>, guaranteed: bool) -> Supply {
    match server {
        Some(s) if guaranteed => Supply::Hcbs(s),
        _ => Supply::Nothing,
    }
}
