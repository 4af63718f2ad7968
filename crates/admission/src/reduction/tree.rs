//! The reduction tree: servers, their rates and children.

use crate::partition::Heuristic;
use schedlab_model::exact::Ratio;
use schedlab_model::Slack;
use serde_json::{json, Value};

/// A child of a server above level 0: another server, either through its
/// dual (`dual: true`, the usual case: a server at level k + 1 packs the
/// duals of level-k servers) or itself (`dual: false`, where a chain with
/// branching 1 was collapsed: a server packing a single dual S* has the
/// dual S** = S).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Item {
    pub server: usize,
    pub dual: bool,
}

/// What a server schedules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Children {
    /// A level-0 server: these tasks (indices in the task set), by EDF.
    Tasks(Vec<usize>),
    /// A server above level 0: these items, by EDF on their budgets.
    Items(Vec<Item>),
}

/// A server of the reduction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Server {
    /// Index in [`Tree::servers`]; the server's name is `S{id + 1}`.
    pub id: usize,
    /// 0 for servers packing tasks, k for servers packing level-(k − 1) duals.
    pub level: u32,
    /// The (primal) rate, exactly; for level 0 it includes [`Server::slack`].
    pub rate: Ratio,
    /// Spare capacity given to a level-0 server (0 above level 0).
    pub slack: Ratio,
    pub children: Children,
    /// The server one of whose items is this server (`None` for a root).
    pub parent: Option<usize>,
}

impl Server {
    /// `S1`, `S2`, ...: servers are numbered in the order the reduction
    /// creates them (level 0 first, in bin order, then each level in bin order).
    pub fn name(&self) -> String {
        server_name(self.id)
    }
    /// 1 − rate: the rate of the server's dual.
    pub fn dual_rate(&self) -> Ratio {
        one_minus(&self.rate)
    }
    /// A unit server (rate exactly 1) is the root of its subsystem.
    pub fn is_unit(&self) -> bool {
        self.rate == Ratio::new(1, 1)
    }
    pub fn is_root(&self) -> bool {
        self.parent.is_none()
    }
}

/// The name of server `id`.
pub fn server_name(id: usize) -> String {
    format!("S{}", id + 1)
}

pub(crate) fn one_minus(r: &Ratio) -> Ratio {
    Ratio(Ratio::new(1, 1).0 - &r.0)
}

/// The result of the offline reduction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tree {
    /// CPUs of the platform.
    pub cpus: u32,
    /// CPUs RUN uses: the sum of the level-0 rates after slack, min(m, level-0 servers).
    pub used_cpus: u32,
    /// The PACK rule of every level.
    pub heuristic: Heuristic,
    /// How spare capacity was distributed.
    pub slack_policy: Slack,
    /// (wcet, period) of each task, in ns.
    pub tasks: Vec<(u64, u64)>,
    /// Task names (empty when not known).
    pub names: Vec<String>,
    /// Σ wcet/period.
    pub utilisation: Ratio,
    /// The spare capacity used_cpus − utilisation given to level-0 servers.
    pub slack: Ratio,
    /// Every server, by id.
    pub servers: Vec<Server>,
    /// The unit servers at the top of each subsystem, by id; usually one.
    pub roots: Vec<usize>,
    /// Reduction levels: the highest root's level. 0 when the first PACK
    /// gives only unit servers (RUN is then partitioned EDF).
    pub levels: u32,
    /// The level-0 server of each task.
    pub task_server: Vec<usize>,
}

impl Tree {
    /// The rate of an item: the server's rate, or its dual's.
    pub fn item_rate(&self, item: &Item) -> Ratio {
        let s = &self.servers[item.server];
        if item.dual {
            s.dual_rate()
        } else {
            s.rate.clone()
        }
    }

    /// `S3*` for a dual item, `S3` otherwise.
    pub fn item_name(&self, item: &Item) -> String {
        let n = server_name(item.server);
        if item.dual {
            n + "*"
        } else {
            n
        }
    }

    /// The task's name, or `tasks[i]` when names are not known.
    pub fn task_name(&self, t: usize) -> String {
        self.names.get(t).cloned().unwrap_or_else(|| format!("tasks[{t}]"))
    }

    /// The level-0 servers, by id.
    pub fn level0(&self) -> impl Iterator<Item = &Server> {
        self.servers.iter().filter(|s| matches!(s.children, Children::Tasks(_)))
    }

    /// Whether RUN reduces to partitioned EDF: every level-0 server is a unit server.
    pub fn is_partitioned(&self) -> bool {
        self.levels == 0
    }

    /// The tree for machines: every server with its name, level, exact and
    /// decimal rates, children and parent.
    pub fn to_json(&self) -> Value {
        let frac = |r: &Ratio| r.to_fraction();
        let servers: Vec<Value> = self
            .servers
            .iter()
            .map(|s| {
                let children: Vec<Value> = match &s.children {
                    Children::Tasks(ts) => ts
                        .iter()
                        .map(|&t| {
                            let (c, p) = self.tasks[t];
                            let u = Ratio::new(c as u128, p as u128);
                            json!({"task": t, "name": self.task_name(t), "wcet": c, "period": p, "rate": frac(&u), "rate_decimal": u.to_f64()})
                        })
                        .collect(),
                    Children::Items(items) => items
                        .iter()
                        .map(|it| {
                            let r = self.item_rate(it);
                            json!({"server": server_name(it.server), "dual": it.dual, "name": self.item_name(it), "rate": frac(&r), "rate_decimal": r.to_f64()})
                        })
                        .collect(),
                };
                json!({
                    "name": s.name(),
                    "id": s.id,
                    "level": s.level,
                    "rate": frac(&s.rate),
                    "rate_decimal": s.rate.to_f64(),
                    "dual_rate": frac(&s.dual_rate()),
                    "dual_rate_decimal": s.dual_rate().to_f64(),
                    "slack": frac(&s.slack),
                    "unit": s.is_unit(),
                    "root": s.is_root(),
                    "parent": s.parent.map(server_name),
                    "children": children,
                })
            })
            .collect();
        json!({
            "cpus": self.cpus,
            "used_cpus": self.used_cpus,
            "packing": self.heuristic.name(),
            "slack_policy": slack_name(self.slack_policy),
            "utilisation": frac(&self.utilisation),
            "utilisation_decimal": self.utilisation.to_f64(),
            "slack": frac(&self.slack),
            "levels": self.levels,
            "partitioned": self.is_partitioned(),
            "roots": self.roots.iter().map(|&r| server_name(r)).collect::<Vec<_>>(),
            "servers": servers,
        })
    }
}

/// The spec's name of a slack policy.
pub fn slack_name(s: Slack) -> &'static str {
    match s {
        Slack::Greedy => "greedy",
        Slack::Proportional => "proportional",
    }
}
