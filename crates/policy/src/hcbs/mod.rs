//! H-CBS hierarchical multiprocessor reservations (Checconi, Cucinotta,
//! Faggioli & Lipari, OSPERT 2009; notes `seed-003-ospert.md` §2.1–2.3),
//! the spec's `reservations` under the `hcbs` policy.
//!
//! - **Servers**: every group has, on every CPU where its budget is above
//!   0, one hard-CBS server ([`crate::server::cbs`]) with the group's (Q, P). A
//!   group with subgroups and tasks of its own serves those tasks through
//!   a leaf queue, a child with its own servers (`leaf_budget`).
//! - **Per CPU** the servers form the group tree; at each level the
//!   eligible servers (not throttled, budget left, work pending below) are
//!   ordered by EDF on their deadlines (ties: tree order). A CPU's
//!   preference is the depth-first order of the queues this gives.
//! - **Inside a group** a global fixed-priority queue (the `priorities` of
//!   the policy section: RM, DM or the tasks' `priority`) runs its m
//!   highest-priority ready tasks on the m CPUs that currently serve it.
//!   Each CPU takes the first queue of its preference that still has a
//!   ready task no CPU took: first the CPUs for which that is the queue
//!   they already serve, then the others, each in CPU order. A task keeps
//!   its CPU when that CPU still serves its queue.
//! - **Budgets**: a CPU's servers on the path of the task it runs (its
//!   queue's and every ancestor's) are charged from the instant the task
//!   was given the CPU, at wall-clock rate; a timer fires at the instant
//!   the smallest budget on the path runs out. An exhausted server is
//!   throttled until its deadline (a timer), then replenished. A server
//!   whose subtree gets work applies the CBS wake-up rule.
//!
//!   Why wall-clock from the decision rather than an execution-time timer
//!   on the job (`Kernel::arm_exec`): every driver sees the decision
//!   instants alike, but not the execution. The dispatcher counts a job's
//!   execution from the switch it ordered, the trace records the switch
//!   its worker made a little later; replaying a recorded run, an
//!   execution-time budget then runs out later than it did in the run,
//!   and once the run's throttle stopped the job the trace shows no more
//!   execution, so the replayed budget never runs out (a mismatch until
//!   the next replenishment). Charged from the decision, the run and its
//!   replay throttle at the same instant. In the simulator without
//!   overheads the two are the same; with overheads, the time a switch
//!   costs is charged to the server that ordered it.
//! - **Non-preemptive sections** (`preemptible: false` segments) are
//!   boosted, as the paper's Fig. 2 orders boosted runqueues first: a job
//!   running inside one keeps its CPU, and the CPU its path, until the
//!   section ends, whatever the priorities, deadlines or budgets (its
//!   servers run out as usual; the overrun is not charged).
//! - **One decision per instant**: "keeps its CPU" refers to the
//!   assignment that held until the instant, so the order in which a
//!   driver delivers an instant's events (a budget timer and a resume)
//!   does not change the decision.
//! - **Tasks in no group** run in the background, by the same fixed
//!   priorities, on the CPUs that serve no queue: a reservation's
//!   guarantee is never taken by a task outside it.
//! - **Events**: `server-replenish` whenever (q, d) is set (wake-up or
//!   replenishment), `server-exhaust` when a budget runs out (the server is
//!   throttled until the event's deadline), each with the server's name
//!   `GROUP@CPU` (`GROUP/leaf@CPU` for a leaf queue).
//!
//! Checked by replay (the validator drives this policy over a trace).

mod assign;

use crate::build::AdmissionError;
use crate::fp::Fp;
use crate::interface::{
    Conformance, Cpu, Job, JobId, JobView, Kernel, Policy, PolicyEvent, PolicyInfo, Priority, Time, TimerId,
};
use crate::server::cbs::{Change, Server};
use schedlab_model::{Placement, Priorities, Spec};

const NONE: usize = usize::MAX;
/// Timer tags: the replenishment timer, and the budget timer of CPU c (`BUDGET + c`).
const REPLENISH: u64 = 0x4843_0000_0000;
const BUDGET: u64 = 0x4843_0001_0000;

/// A node of the server tree: a group, or the leaf queue of a group.
struct Node {
    /// Its servers' name stem (`media`, `media/leaf`).
    name: String,
    parent: usize,
    children: Vec<usize>,
    /// Tasks it serves directly (a queue), in priority order.
    tasks: Vec<u32>,
    /// Its server on each CPU (`None`: no budget there).
    servers: Vec<Option<Server>>,
    /// Work pending in the subtree at the last settling.
    backlogged: bool,
}

#[derive(Debug, Clone, Copy)]
struct TaskState {
    /// The queue node, or `NONE` (background).
    queue: usize,
    job: Option<u64>,
    blocked: bool,
    /// The segment the job is in (0 at its release).
    segment: u32,
}

pub(crate) struct Hcbs {
    info: PolicyInfo,
    nodes: Vec<Node>,
    roots: Vec<usize>,
    tasks: Vec<TaskState>,
    /// Background tasks, in priority order.
    background: Vec<u32>,
    /// Per task, per segment: not preemptible (a non-preemptive section).
    np: Vec<Vec<bool>>,
    /// Per task, per segment: a self-suspension.
    suspends: Vec<Vec<bool>>,
    /// Each CPU's job and the queue it runs under (`NONE`: background).
    assigned: Vec<Option<(JobId, usize)>>,
    /// Each CPU's exhaustion timer: (instant, timer).
    budget_timers: Vec<Option<(Time, TimerId)>>,
    /// The assignment that held until the current instant, and that
    /// instant: what "keeps its CPU" refers to, so that the decision at an
    /// instant does not depend on the order of its events (a driver may
    /// deliver a timer and a resume of the same instant in either order).
    held: Vec<Option<(JobId, usize)>>,
    held_until: Option<Time>,
    /// The assignment's working vectors, kept between instants.
    scratch: assign::Scratch,
    replenish_timer: Option<(Time, TimerId)>,
}

pub(crate) fn build(
    spec: &Spec,
    placement: Option<&[Placement]>,
) -> Result<Box<dyn crate::interface::Policy>, AdmissionError> {
    crate::placement::layout(spec, schedlab_model::spec::Domains::Global, None, placement)?;
    let pol = spec.policy.as_ref();
    let fp = Fp::new(spec, pol.and_then(|p| p.priorities).unwrap_or(Priorities::Rm))?;
    Ok(Box::new(Hcbs::new(spec, &fp)))
}

impl Hcbs {
    fn new(spec: &Spec, fp: &Fp) -> Hcbs {
        let m = spec.platform.cpus as usize;
        let n = spec.tasks.len();
        let by_priority = |mut ts: Vec<u32>| {
            ts.sort_by_key(|&t| fp.priority_of(t));
            ts
        };
        let spec_nodes = spec.reservation_nodes();
        let mut nodes: Vec<Node> = Vec::new();
        let mut at = vec![NONE; spec_nodes.len()];
        let mut tasks = vec![TaskState { queue: NONE, job: None, blocked: false, segment: 0 }; n];
        for (i, g) in spec_nodes.iter().enumerate() {
            let parent = g.parent.map_or(NONE, |p| at[p]);
            let me = nodes.len();
            at[i] = me;
            let servers =
                (0..m).map(|c| (g.budgets[c].0 > 0).then(|| Server::new(g.budgets[c].0, g.period.0))).collect();
            let own: Vec<u32> = g.tasks.iter().map(|&t| t as u32).collect();
            let queue_here = g.leaf.is_none();
            nodes.push(Node {
                name: g.name.clone(),
                parent,
                children: Vec::new(),
                tasks: if queue_here { by_priority(own.clone()) } else { Vec::new() },
                servers,
                backlogged: false,
            });
            if parent != NONE {
                nodes[parent].children.push(me);
            }
            if let Some(leaf) = g.leaf {
                let l = nodes.len();
                let servers = (0..m)
                    .map(|c| (g.leaf_budget_on(c).0 > 0).then(|| Server::new(leaf.budget.0, leaf.period.0)))
                    .collect();
                nodes.push(Node {
                    name: format!("{}/leaf", g.name),
                    parent: me,
                    children: Vec::new(),
                    tasks: by_priority(own),
                    servers,
                    backlogged: false,
                });
                nodes[me].children.push(l);
            }
        }
        // Children of a group come after it; a leaf queue right after its
        // group, before the subgroups (as the spec lists `tasks` first).
        for (i, node) in nodes.iter().enumerate() {
            for &t in &node.tasks {
                tasks[t as usize].queue = i;
            }
        }
        let roots = (0..nodes.len()).filter(|&i| nodes[i].parent == NONE).collect();
        let background = by_priority((0..n as u32).filter(|&t| tasks[t as usize].queue == NONE).collect());
        let (np, suspends) = spec.tasks.iter().map(|t| t.segment_flags()).unzip();
        Hcbs {
            info: PolicyInfo {
                name: "hcbs",
                domains: vec![(0..m as Cpu).collect()],
                placement: vec![Placement::Global; n],
                conformance: Conformance::Replay,
                quantum: None,
            },
            nodes,
            roots,
            tasks,
            background,
            np,
            suspends,
            assigned: vec![None; m],
            budget_timers: vec![None; m],
            held: vec![None; m],
            held_until: None,
            scratch: assign::Scratch::default(),
            replenish_timer: None,
        }
    }

    /// Whether job `j` is inside a non-preemptive segment (it is then boosted while it runs).
    fn boosted(&self, j: JobId) -> bool {
        let s = &self.tasks[j.task as usize];
        s.job == Some(j.seq) && !s.blocked && self.np[j.task as usize].get(s.segment as usize).copied().unwrap_or(false)
    }

    fn ready(&self, t: u32) -> bool {
        let s = &self.tasks[t as usize];
        s.job.is_some() && !s.blocked
    }

    fn note(&self, k: &mut dyn Kernel, node: usize, cpu: usize, change: Change) {
        if !k.tracing() {
            return;
        }
        let server = format!("{}@{cpu}", self.nodes[node].name);
        let event = match change {
            Change::Replenished { budget, deadline } => PolicyEvent::ServerReplenish { server, budget, deadline },
            Change::Exhausted { deadline } => PolicyEvent::ServerExhaust { server, deadline },
        };
        k.note(Some(cpu as Cpu), event);
    }

    /// Brings the servers and the assignment to `k.now()`.
    fn settle(&mut self, k: &mut dyn Kernel) {
        let now = k.now();
        self.charge(k);
        self.replenish_due(k, now);
        self.wake_backlogged(k, now);
        if self.held_until.is_none_or(|h| now > h) {
            self.held.clone_from(&self.assigned);
            self.held_until = Some(now);
        }
        self.assign();
        let next = std::mem::take(&mut self.scratch.next);
        self.switch(k, now, &next);
        self.scratch.next = next;
        self.arm_replenishment(k);
    }

    /// Replenishes the throttled servers that are due at `now`.
    fn replenish_due(&mut self, k: &mut dyn Kernel, now: Time) {
        for i in 0..self.nodes.len() {
            for c in 0..self.assigned.len() {
                if let Some(change) = self.nodes[i].servers[c].as_mut().and_then(|s| s.replenish(now)) {
                    self.note(k, i, c, change);
                }
            }
        }
    }

    /// Marks the nodes with work pending in their subtree; the servers of
    /// those that had none apply the CBS wake-up rule.
    fn wake_backlogged(&mut self, k: &mut dyn Kernel, now: Time) {
        // Children come after their parents: bottom-up is reverse order.
        let mut pending = std::mem::take(&mut self.scratch.pending);
        pending.clear();
        pending.resize(self.nodes.len(), false);
        for i in (0..self.nodes.len()).rev() {
            let node = &self.nodes[i];
            pending[i] = node.tasks.iter().any(|&t| self.ready(t)) || node.children.iter().any(|&ch| pending[ch]);
        }
        for (i, &p) in pending.iter().enumerate() {
            let was = std::mem::replace(&mut self.nodes[i].backlogged, p);
            if p && !was {
                for c in 0..self.assigned.len() {
                    if let Some(change) = self.nodes[i].servers[c].as_mut().and_then(|s| s.wake(now)) {
                        self.note(k, i, c, change);
                    }
                }
            }
        }
        self.scratch.pending = pending;
    }

    /// Carries out the assignment `next`: reschedules the CPUs whose job
    /// changes, moves the servers' selection, and arms each CPU's budget timer.
    fn switch(&mut self, k: &mut dyn Kernel, now: Time, next: &[Option<(JobId, usize)>]) {
        for (c, &want) in next.iter().enumerate() {
            if want != self.assigned[c] {
                k.resched(c as Cpu);
                // The old path's servers stop running down, the new one's start.
                let old = self.assigned[c].map_or(NONE, |(_, q)| q);
                self.walk_servers(old, c, |s| s.stop(now));
                self.walk_servers(want.map_or(NONE, |(_, q)| q), c, |s| s.start(now));
                self.assigned[c] = want;
            }
            // The instant the smallest budget on the path runs out.
            let due = match want {
                Some((_, q)) if q != NONE => {
                    let mut least = Time::MAX;
                    let mut n = q;
                    while n != NONE {
                        // A throttled server on a boosted path is not charged.
                        if let Some(s) = self.nodes[n].servers[c].as_ref().filter(|s| !s.throttled) {
                            least = least.min(s.budget());
                        }
                        n = self.nodes[n].parent;
                    }
                    (least != Time::MAX).then(|| now.saturating_add(least))
                }
                _ => None,
            };
            match (self.budget_timers[c], due) {
                (Some((at, _)), Some(d)) if at == d => {}
                (old, due) => {
                    if let Some((_, id)) = old {
                        k.cancel(id);
                    }
                    self.budget_timers[c] = due.map(|d| (d, k.arm(d, BUDGET + c as u64)));
                }
            }
        }
    }

    /// Arms the timer of the next replenishment of a throttled server.
    fn arm_replenishment(&mut self, k: &mut dyn Kernel) {
        let due = self
            .nodes
            .iter()
            .flat_map(|n| n.servers.iter().filter_map(|s| s.as_ref().and_then(|s| s.replenish_at())))
            .min();
        match (self.replenish_timer, due) {
            (Some((at, _)), Some(d)) if at == d => {}
            (old, due) => {
                if let Some((_, id)) = old {
                    k.cancel(id);
                }
                self.replenish_timer = due.map(|d| (d, k.arm(d, REPLENISH)));
            }
        }
    }
}

impl Policy for Hcbs {
    fn info(&self) -> &PolicyInfo {
        &self.info
    }
    fn release(&mut self, job: Job, k: &mut dyn Kernel) {
        self.charge(k);
        if let Some(s) = self.tasks.get_mut(job.id.task as usize) {
            s.job = Some(job.id.seq);
            s.blocked = false;
            s.segment = 0;
        }
        self.settle(k);
    }
    fn complete(&mut self, job: JobId, k: &mut dyn Kernel) {
        self.charge(k);
        if let Some(s) = self.tasks.get_mut(job.task as usize) {
            if s.job == Some(job.seq) {
                s.job = None;
                s.blocked = false;
            }
        }
        self.settle(k);
    }
    fn block(&mut self, job: JobId, k: &mut dyn Kernel) {
        self.charge(k);
        if let Some(s) = self.tasks.get_mut(job.task as usize) {
            if s.job == Some(job.seq) {
                s.blocked = true;
            }
        }
        self.settle(k);
    }
    fn resume(&mut self, job: JobId, k: &mut dyn Kernel) {
        self.charge(k);
        let suspends = &self.suspends;
        if let Some(s) = self.tasks.get_mut(job.task as usize) {
            if s.job == Some(job.seq) {
                s.blocked = false;
                // The end of a self-suspension is the resume (a driver may
                // not report it as a segment end too).
                if suspends[job.task as usize].get(s.segment as usize).copied().unwrap_or(false) {
                    s.segment += 1;
                }
            }
        }
        self.settle(k);
    }
    fn segment_end(&mut self, job: JobId, segment: u32, _kind: schedlab_model::SegmentKind, k: &mut dyn Kernel) {
        self.charge(k);
        if let Some(s) = self.tasks.get_mut(job.task as usize) {
            if s.job == Some(job.seq) {
                s.segment = segment + 1;
            }
        }
        self.settle(k);
    }
    fn timer(&mut self, timer: TimerId, tag: u64, k: &mut dyn Kernel) {
        if tag == REPLENISH && self.replenish_timer.is_some_and(|(_, id)| id == timer) {
            self.replenish_timer = None;
        } else if let Some(c) = tag.checked_sub(BUDGET).filter(|&c| (c as usize) < self.budget_timers.len()) {
            if self.budget_timers[c as usize].is_some_and(|(_, id)| id == timer) {
                self.budget_timers[c as usize] = None;
            }
        }
        self.settle(k);
    }
    fn schedule(&mut self, cpu: Cpu, _k: &mut dyn Kernel) -> Option<JobId> {
        self.assigned.get(cpu as usize).copied().flatten().map(|(j, _)| j)
    }
    fn priority(&self, _job: &JobView) -> Option<Priority> {
        None
    }
}

impl Hcbs {
    /// Applies `f` to the servers on CPU `c` of queue `q` and its ancestors.
    fn walk_servers(&mut self, mut q: usize, c: usize, mut f: impl FnMut(&mut Server)) {
        while q != NONE {
            if let Some(s) = self.nodes[q].servers[c].as_mut() {
                f(s);
            }
            q = self.nodes[q].parent;
        }
    }

    /// Charges the servers up to now before an event changes the work
    /// pending, so a job that completes is charged for its last stint and
    /// a server that wakes up is judged on its budget at that instant.
    fn charge(&mut self, k: &mut dyn Kernel) {
        let now = k.now();
        let m = self.assigned.len();
        for c in 0..m {
            let Some((_, mut q)) = self.assigned[c] else { continue };
            while q != NONE {
                if let Some(change) = self.nodes[q].servers[c].as_mut().and_then(|s| s.charge(now)) {
                    self.note(k, q, c, change);
                }
                q = self.nodes[q].parent;
            }
        }
    }
}
