//! RUN: reduction to uniprocessor (Regnier, Lima, Massa, Levin & Brandt
//! 2011), global, server-based; the online part of the policy. The offline
//! reduction is [`schedlab_admission::reduction`]; `docs/policies.md`
//! ("RUN") describes both, with the integer-time argument.
//!
//! The reduction tree is flattened into vectors at admission, parents before
//! children, so one forward pass over the nodes marked dirty applies the
//! rules top-down. Every non-root server has an *item* in its parent (its
//! dual, or itself where a chain was collapsed) with a rate p/q and a budget,
//! kept exactly as the integer B = budget·q, in the server module's
//! [`Account`] (shared with H-CBS), consumed while the item is selected.
//!
//! - **Budgets**: at every deadline d of a server's subtree (the union of
//!   its tasks' period grids) its item gets p·(d' − d)/q more, d' the next
//!   deadline: computed from the notional release d, never from the
//!   current time; what is left over, or overrun, carries on.
//! - **Selection** (top-down): a root always executes; an executing server
//!   selects, by EDF, a child item with budget left ([`Run::choose`]:
//!   floor-first, then the sub-ns remainders one nanosecond at a time, and
//!   with no budget anywhere its earliest-deadline item anyway, so that
//!   exactly as many level-0 servers execute as the reduction says); a
//!   server that does not execute selects nothing. A node executes iff its
//!   item is selected, negated for a dual item. A selected item's budget is
//!   consumed at wall-clock rate.
//! - **Level-0 servers** run their tasks' jobs by EDF (deadline, task);
//!   when a server's job completes early, the server idles for the rest of
//!   its time: that time is given to no one else.
//! - **CPUs**: a level-0 server that keeps executing keeps its CPU; servers
//!   that stop free theirs, and servers that start take their previous CPU
//!   when it is free, else a freed one, else the lowest free one.
//! - **Events**: one timer at the next instant the tree changes: the
//!   earliest grid deadline or budget exhaustion (at whole nanoseconds:
//!   the floor of a budget, or 1 ns for a remainder). At that instant (or in any callback at or after it)
//!   the tree catches up: consumption is charged up to the instant, every
//!   due item is replenished (bottom-up), then every server whose item was
//!   replenished or exhausted, and below it every node whose execution
//!   changed, reselects (top-down), once: an exhaustion coinciding with a
//!   replenishment is not processed twice, nor in the wrong order.
//! - **Releases**: budgets follow the declared grid (offset + k·period),
//!   not the releases the driver reports, which only feed the level-0
//!   servers' EDF queues: a sporadic or jittered job runs within budgets
//!   sized for the grid (see `docs/policies.md`).

use crate::build::AdmissionError;
use crate::interface::{
    Conformance, Cpu, Job, JobId, JobView, Kernel, Policy, PolicyEvent, PolicyInfo, Priority, Time, TimerId,
};
use crate::placement::layout;
use crate::server::{Account, Budget};
use num_bigint::BigInt;
use schedlab_admission::reduction::{reduce_spec, Children, Item, Tree};
use schedlab_model::spec::Domains;
use schedlab_model::{Placement, Spec};

const NONE: u32 = u32::MAX;
/// The tag of RUN's timer.
const TIMER_TAG: u64 = 0x52_554E;

/// Builds RUN for a spec: the reduction, then the online policy.
pub(crate) fn build(spec: &Spec, placement: Option<&[Placement]>) -> Result<Box<dyn Policy>, AdmissionError> {
    // Refuses pinned tasks and a recorded placement that is not global.
    layout(spec, Domains::Global, None, placement)?;
    let tree = reduce_spec(spec).map_err(|e| AdmissionError::at(e.path, e.message))?;
    let flat = Flat::new(&tree, spec);
    Ok(if flat.fits_i128 {
        Box::new(Run::<i128>::new(spec, &tree, flat))
    } else {
        Box::new(Run::<BigInt>::new(spec, &tree, flat))
    })
}

#[derive(Debug, Clone, Copy)]
struct Node {
    /// Parent node, `NONE` for a root.
    parent: u32,
    /// This node's item in its parent is its dual.
    dual: bool,
    /// A level-0 server.
    leaf: bool,
    /// Children: `kids[first..end]` (servers above level 0) or
    /// `leaf_tasks[first..end]` (level-0 servers).
    first: u32,
    end: u32,
    /// Next deadline of the subtree (`Time::MAX` under a unit level-0 root).
    deadline: Time,
    exec: bool,
    dirty: bool,
    /// Servers above level 0: the selected child, or `NONE`.
    sel: u32,
    /// Servers above level 0: when the selected child's budget runs out.
    exhaust_at: Time,
    /// Level-0 servers: the CPU, the previous CPU, the EDF-first task.
    cpu: u32,
    last_cpu: u32,
    top: u32,
}

/// A sub-ns remainder, ordered largest first.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Remainder(f64);

impl Eq for Remainder {}

impl PartialOrd for Remainder {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Remainder {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other.0.total_cmp(&self.0)
    }
}

#[derive(Debug, Clone, Copy)]
struct TaskState {
    leaf: u32,
    period: Time,
    /// The task's next grid deadline (its budgets' grid), if tracked.
    next_grid: Time,
    /// The eligible job: (deadline, seq).
    job: Option<(Time, u64)>,
    blocked: bool,
}

/// The tree in flat form, with exact item rates.
struct Flat {
    nodes: Vec<Node>,
    kids: Vec<u32>,
    leaf_tasks: Vec<u32>,
    /// Item rate p/q of each node (0/1 for roots).
    p: Vec<BigInt>,
    q: Vec<BigInt>,
    /// The tree's server id of each node.
    ids: Vec<usize>,
    fits_i128: bool,
}

impl Flat {
    fn new(tree: &Tree, spec: &Spec) -> Flat {
        // Breadth-first from the roots: parents before children.
        let mut order: Vec<usize> = tree.roots.clone();
        let mut dual_of = vec![false; tree.servers.len()];
        let mut i = 0;
        while i < order.len() {
            if let Children::Items(items) = &tree.servers[order[i]].children {
                for it in items {
                    dual_of[it.server] = it.dual;
                    order.push(it.server);
                }
            }
            i += 1;
        }
        let mut at = vec![NONE; tree.servers.len()];
        for (n, &id) in order.iter().enumerate() {
            at[id] = n as u32;
        }
        let (mut nodes, mut kids, mut leaf_tasks, mut p, mut q) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let one = BigInt::from(1);
        for &id in &order {
            let s = &tree.servers[id];
            let (leaf, first, end) = match &s.children {
                Children::Tasks(ts) => {
                    let first = leaf_tasks.len() as u32;
                    leaf_tasks.extend(ts.iter().map(|&t| t as u32));
                    (true, first, leaf_tasks.len() as u32)
                }
                Children::Items(items) => {
                    let first = kids.len() as u32;
                    kids.extend(items.iter().map(|it| at[it.server]));
                    (false, first, kids.len() as u32)
                }
            };
            let parent = s.parent.map_or(NONE, |p| at[p]);
            if parent == NONE {
                p.push(BigInt::from(0));
                q.push(one.clone());
            } else {
                let r = tree.item_rate(&Item { server: id, dual: dual_of[id] });
                p.push(r.0.numer().clone());
                q.push(r.0.denom().clone());
            }
            nodes.push(Node {
                parent,
                dual: dual_of[id],
                leaf,
                first,
                end,
                deadline: Time::MAX,
                exec: false,
                dirty: false,
                sel: NONE,
                exhaust_at: Time::MAX,
                cpu: NONE,
                last_cpu: NONE,
                top: NONE,
            });
        }
        // Budgets stay below q·(longest gap between deadlines + a few ns of
        // carry); i128 with 2^100 to spare, or big integers.
        let gap = spec.tasks.iter().map(|t| t.period.0.max(t.offset.0)).max().unwrap_or(0);
        let bound = BigInt::from(gap) * 4u32 + 1024u32;
        let limit = BigInt::from(1u8) << 120u32;
        let fits_i128 = q.iter().all(|q| q * &bound < limit);
        Flat { nodes, kids, leaf_tasks, p, q, ids: order, fits_i128 }
    }
}

/// The RUN policy, with budgets in `N` (`i128` or `BigInt`).
pub(crate) struct Run<N: Budget> {
    info: PolicyInfo,
    nodes: Vec<Node>,
    kids: Vec<u32>,
    leaf_tasks: Vec<u32>,
    /// Each item's budget, consumed while its parent selects it
    /// ([`Account`]: the server module's bookkeeping).
    budget: Vec<Account<N>>,
    p: Vec<N>,
    q: Vec<N>,
    tasks: Vec<TaskState>,
    /// Servers above level 0 (the only ones with a selection), by node.
    servers: Vec<u32>,
    /// Roots above level 0 (whose deadlines drive the grid).
    grid_roots: Vec<u32>,
    /// The server name of each node (`S1`), for its `server` events.
    notes: Vec<String>,
    /// The level-0 server on each CPU.
    cpu_server: Vec<u32>,
    /// Level-0 servers whose execution changed in the current step.
    changed: Vec<u32>,
    freed: Vec<u32>,
    first_dirty: usize,
    started: bool,
    /// The next instant the tree changes (`Time::MAX`: never).
    next_event: Time,
    /// The earliest grid deadline.
    next_grid: Time,
    armed: Option<(Time, TimerId)>,
    /// Level-0 servers on a CPU, and how many there should be.
    running: u32,
    used_cpus: u32,
}

impl<N: Budget> Run<N> {
    fn new(spec: &Spec, tree: &Tree, flat: Flat) -> Run<N> {
        let m = spec.platform.cpus;
        let n = spec.tasks.len();
        let info = PolicyInfo {
            name: "run",
            domains: vec![(0..m).collect()],
            placement: vec![Placement::Global; n],
            conformance: Conformance::Replay,
            quantum: None,
        };
        let mut tasks: Vec<TaskState> = spec
            .tasks
            .iter()
            .map(|t| TaskState { leaf: NONE, period: t.period.0, next_grid: Time::MAX, job: None, blocked: false })
            .collect();
        for (i, node) in flat.nodes.iter().enumerate() {
            if node.leaf {
                for &t in &flat.leaf_tasks[node.first as usize..node.end as usize] {
                    let ts = &mut tasks[t as usize];
                    ts.leaf = i as u32;
                    if node.parent != NONE {
                        // The first grid deadline: the offset, else the period.
                        let off = spec.tasks[t as usize].offset.0;
                        ts.next_grid = if off > 0 { off } else { ts.period };
                    }
                }
            }
        }
        let servers = (0..flat.nodes.len() as u32).filter(|&i| !flat.nodes[i as usize].leaf).collect();
        let grid_roots = (0..flat.nodes.len() as u32)
            .filter(|&i| flat.nodes[i as usize].parent == NONE && !flat.nodes[i as usize].leaf)
            .collect();
        let notes = flat.ids.iter().map(|&id| tree.servers[id].name().to_string()).collect();
        let nodes = flat.nodes.len();
        Run {
            info,
            budget: vec![Account::new(N::zero()); nodes],
            p: flat.p.iter().map(N::from_big).collect(),
            q: flat.q.iter().map(N::from_big).collect(),
            nodes: flat.nodes,
            kids: flat.kids,
            leaf_tasks: flat.leaf_tasks,
            tasks,
            servers,
            grid_roots,
            notes,
            cpu_server: vec![NONE; m as usize],
            changed: Vec::with_capacity(nodes),
            freed: Vec::with_capacity(m as usize),
            first_dirty: usize::MAX,
            started: false,
            next_event: Time::MAX,
            next_grid: Time::MAX,
            armed: None,
            running: 0,
            used_cpus: tree.used_cpus,
        }
    }

    #[inline]
    fn mark(&mut self, i: u32) {
        let node = &mut self.nodes[i as usize];
        if !node.dirty {
            node.dirty = true;
            self.first_dirty = self.first_dirty.min(i as usize);
        }
    }

    /// The tree at notional time 0: deadlines, budgets, selections, CPUs.
    fn start(&mut self, k: &mut dyn Kernel) {
        self.started = true;
        for i in (0..self.nodes.len()).rev() {
            let d = self.subtree_deadline(i, None);
            let node = &mut self.nodes[i];
            node.deadline = d;
            if node.parent != NONE {
                self.budget[i].budget = N::zero();
                self.budget[i].budget.add_mul(&self.p[i], d);
            }
        }
        for i in 0..self.nodes.len() {
            self.mark(i as u32);
        }
        self.reselect(0);
        self.allocate(k);
        self.next_grid = self.grid_roots.iter().map(|&r| self.nodes[r as usize].deadline).min().unwrap_or(Time::MAX);
        self.next_event = self.next_event_after();
    }

    /// A node's next deadline: the earliest next grid deadline of its
    /// tasks (moving on those due at `due`) or of its children.
    fn subtree_deadline(&mut self, i: usize, due: Option<Time>) -> Time {
        let node = self.nodes[i];
        let mut d = Time::MAX;
        if node.leaf {
            for &t in &self.leaf_tasks[node.first as usize..node.end as usize] {
                let ts = &mut self.tasks[t as usize];
                if Some(ts.next_grid) == due {
                    ts.next_grid = ts.next_grid.saturating_add(ts.period);
                }
                d = d.min(ts.next_grid);
            }
        } else {
            for &c in &self.kids[node.first as usize..node.end as usize] {
                d = d.min(self.nodes[c as usize].deadline);
            }
        }
        d
    }

    /// Processes every tree event up to `now`, at its own instant.
    #[inline]
    fn advance(&mut self, now: Time, k: &mut dyn Kernel) {
        if !self.started {
            self.start(k);
        }
        if self.next_event <= now {
            while self.next_event <= now {
                let t = self.next_event;
                self.step(t);
                self.allocate(k);
            }
        }
        self.rearm(k);
    }

    /// The tree at instant `t`: replenishments, exhaustions, reselection.
    fn step(&mut self, t: Time) {
        if self.next_grid <= t {
            // Bottom-up: children are after their parents.
            for i in (0..self.nodes.len()).rev() {
                if self.nodes[i].deadline != t {
                    continue;
                }
                let d = self.subtree_deadline(i, Some(t));
                let node = &mut self.nodes[i];
                node.deadline = d;
                if node.parent != NONE {
                    self.budget[i].charge(t, &self.q[i]);
                    // What is left over (or overrun) at a deadline is under
                    // 1 ns: the invariant docs/policies.md's argument rests on.
                    debug_assert!(
                        self.budget[i].budget.below_one_ns(&self.q[i]),
                        "RUN: node {i} ends its period at {t} with |budget| ≥ 1 ns"
                    );
                    self.budget[i].budget.add_mul(&self.p[i], d - t);
                    let parent = node.parent;
                    self.mark(parent);
                }
            }
            self.next_grid =
                self.grid_roots.iter().map(|&r| self.nodes[r as usize].deadline).min().unwrap_or(Time::MAX);
        }
        for s in 0..self.servers.len() {
            let i = self.servers[s];
            if self.nodes[i as usize].exhaust_at <= t {
                self.mark(i);
            }
        }
        self.reselect(t);
        self.next_event = self.next_event_after();
    }

    fn next_event_after(&self) -> Time {
        let mut e = self.next_grid;
        for &s in &self.servers {
            e = e.min(self.nodes[s as usize].exhaust_at);
        }
        e
    }

    /// Top-down over the dirty nodes.
    fn reselect(&mut self, t: Time) {
        let mut i = self.first_dirty;
        while i < self.nodes.len() {
            if self.nodes[i].dirty {
                self.nodes[i].dirty = false;
                self.process(i, t);
            }
            i += 1;
        }
        self.first_dirty = usize::MAX;
    }

    fn process(&mut self, i: usize, t: Time) {
        let node = self.nodes[i];
        let exec = if node.parent == NONE {
            true
        } else {
            let p = &self.nodes[node.parent as usize];
            let selected = p.exec && p.sel == i as u32;
            selected != node.dual
        };
        if node.leaf {
            if exec != node.exec {
                self.nodes[i].exec = exec;
                self.changed.push(i as u32);
            }
            return;
        }
        self.nodes[i].exec = exec;
        let old = node.sel;
        if old != NONE {
            self.budget[old as usize].charge(t, &self.q[old as usize]);
        }
        let (new, until) = if exec { self.choose(i, old, t) } else { (NONE, Time::MAX) };
        if new != old {
            if old != NONE {
                self.budget[old as usize].stop(t, &self.q[old as usize]);
                self.mark(old);
            }
            if new != NONE {
                self.budget[new as usize].start(t);
                self.mark(new);
            }
            self.nodes[i].sel = new;
        }
        self.nodes[i].exhaust_at = until;
    }

    /// The child to select and until when:
    ///
    /// 1. EDF among the children with at least 1 ns of budget, run to the
    ///    floor of the budget (ties: the current one, then the lower node);
    /// 2. if none has 1 ns, the sub-ns remainders: earliest deadline, then
    ///    the largest remainder (largest-remainder apportionment of the
    ///    whole nanoseconds left), run for 1 ns;
    /// 3. with no budget left anywhere (not seen in practice: see
    ///    docs/policies.md), EDF among all, until something changes.
    fn choose(&self, i: usize, old: u32, t: Time) -> (u32, Time) {
        let node = &self.nodes[i];
        let kids = &self.kids[node.first as usize..node.end as usize];
        // (deadline, not the current one, node) packed in one integer.
        let key = |c: u32| (self.nodes[c as usize].deadline as u128) << 33 | ((c != old) as u128) << 32 | c as u128;
        let (mut whole, mut any) = (u128::MAX, u128::MAX);
        let mut partial = false;
        for &c in kids {
            let k = key(c);
            any = any.min(k);
            let b = &self.budget[c as usize].budget;
            if !b.is_positive() {
                continue;
            }
            if b.at_least_one_ns(&self.q[c as usize]) {
                whole = whole.min(k);
            } else {
                partial = true;
            }
        }
        if whole != u128::MAX {
            let c = whole as u32;
            return (c, t.saturating_add(self.budget[c as usize].runs_out_after(&self.q[c as usize])));
        }
        if partial {
            let mut best: Option<(Time, Remainder, u128)> = None;
            for &c in kids {
                let (b, q) = (&self.budget[c as usize].budget, &self.q[c as usize]);
                if b.is_positive() {
                    let k = key(c);
                    let pk = (self.nodes[c as usize].deadline, Remainder(b.fraction(q)), k);
                    best = Some(best.map_or(pk, |p| p.min(pk)));
                }
            }
            if let Some(k) = best {
                return (k.2 as u32, t + 1);
            }
        }
        if any == u128::MAX {
            (NONE, Time::MAX)
        } else {
            (any as u32, Time::MAX)
        }
    }

    /// Gives CPUs to the level-0 servers that started executing, taking
    /// them from those that stopped.
    fn allocate(&mut self, k: &mut dyn Kernel) {
        if self.changed.is_empty() {
            return;
        }
        for x in 0..self.changed.len() {
            let l = self.changed[x] as usize;
            let node = &mut self.nodes[l];
            if !node.exec && node.cpu != NONE {
                let c = node.cpu;
                node.last_cpu = c;
                node.cpu = NONE;
                self.cpu_server[c as usize] = NONE;
                self.freed.push(c);
                self.running -= 1;
                k.resched(c);
            }
        }
        for x in 0..self.changed.len() {
            let l = self.changed[x];
            let node = self.nodes[l as usize];
            if !node.exec || node.cpu != NONE {
                continue;
            }
            let free = |c: &u32| self.cpu_server[*c as usize] == NONE;
            let c = if node.last_cpu != NONE && free(&node.last_cpu) {
                node.last_cpu
            } else if let Some(&c) = self.freed.iter().find(|c| free(c)) {
                c
            } else {
                match (0..self.cpu_server.len() as u32).find(|c| free(c)) {
                    Some(c) => c,
                    None => continue, // more servers than CPUs: not a reduction's output
                }
            };
            self.cpu_server[c as usize] = l;
            self.nodes[l as usize].cpu = c;
            self.running += 1;
            k.resched(c);
            if k.tracing() {
                k.note(Some(c), PolicyEvent::Server { server: Some(self.notes[l as usize].clone()) });
            }
        }
        if k.tracing() {
            for x in 0..self.freed.len() {
                let c = self.freed[x];
                if self.cpu_server[c as usize] == NONE {
                    k.note(Some(c), PolicyEvent::Server { server: None });
                }
            }
        }
        debug_assert_eq!(
            self.running, self.used_cpus,
            "exactly as many level-0 servers execute as the reduction uses CPUs"
        );
        self.changed.clear();
        self.freed.clear();
    }

    fn rearm(&mut self, k: &mut dyn Kernel) {
        let want = self.next_event;
        match self.armed {
            Some((at, _)) if at == want => return,
            Some((_, id)) => {
                k.cancel(id);
                self.armed = None;
            }
            None => {}
        }
        if want != Time::MAX {
            self.armed = Some((want, k.arm(want, TIMER_TAG)));
        }
    }

    /// Recomputes a level-0 server's EDF-first task; reschedules its CPU if it changed.
    fn retop(&mut self, l: u32, k: &mut dyn Kernel) {
        let node = self.nodes[l as usize];
        let mut best: Option<(Time, u32)> = None;
        for &t in &self.leaf_tasks[node.first as usize..node.end as usize] {
            let ts = &self.tasks[t as usize];
            if let (Some((d, _)), false) = (ts.job, ts.blocked) {
                if best.is_none_or(|b| (d, t) < b) {
                    best = Some((d, t));
                }
            }
        }
        let top = best.map_or(NONE, |b| b.1);
        if top != node.top {
            self.nodes[l as usize].top = top;
            if node.cpu != NONE {
                k.resched(node.cpu);
            }
        }
    }

    /// A job became eligible: it becomes its server's EDF-first if it beats it.
    fn eligible(&mut self, task: u32, k: &mut dyn Kernel) {
        let ts = self.tasks[task as usize];
        let (Some((d, _)), false) = (ts.job, ts.blocked) else { return };
        let l = ts.leaf;
        if l == NONE {
            return;
        }
        let node = self.nodes[l as usize];
        let beats = node.top == NONE || {
            let top = &self.tasks[node.top as usize];
            top.job.is_none_or(|(td, _)| (d, task) < (td, node.top))
        };
        if beats {
            self.nodes[l as usize].top = task;
            if node.cpu != NONE {
                k.resched(node.cpu);
            }
        }
    }
}

impl<N: Budget> Policy for Run<N> {
    fn info(&self) -> &PolicyInfo {
        &self.info
    }
    fn release(&mut self, job: Job, k: &mut dyn Kernel) {
        self.advance(k.now(), k);
        let Some(ts) = self.tasks.get_mut(job.id.task as usize) else { return };
        ts.job = Some((job.deadline, job.id.seq));
        ts.blocked = false;
        self.eligible(job.id.task, k);
    }
    fn complete(&mut self, job: JobId, k: &mut dyn Kernel) {
        self.advance(k.now(), k);
        let Some(ts) = self.tasks.get_mut(job.task as usize) else { return };
        if ts.job.is_some_and(|(_, s)| s == job.seq) {
            ts.job = None;
            ts.blocked = false;
            let l = ts.leaf;
            if l != NONE && self.nodes[l as usize].top == job.task {
                self.retop(l, k);
            }
        }
    }
    fn block(&mut self, job: JobId, k: &mut dyn Kernel) {
        self.advance(k.now(), k);
        let Some(ts) = self.tasks.get_mut(job.task as usize) else { return };
        if ts.job.is_some_and(|(_, s)| s == job.seq) {
            ts.blocked = true;
            let l = ts.leaf;
            if l != NONE && self.nodes[l as usize].top == job.task {
                self.retop(l, k);
            }
        }
    }
    fn resume(&mut self, job: JobId, k: &mut dyn Kernel) {
        self.advance(k.now(), k);
        let Some(ts) = self.tasks.get_mut(job.task as usize) else { return };
        if ts.job.is_some_and(|(_, s)| s == job.seq) && ts.blocked {
            ts.blocked = false;
            self.eligible(job.task, k);
        }
    }
    fn timer(&mut self, timer: TimerId, _tag: u64, k: &mut dyn Kernel) {
        if self.armed.is_some_and(|(_, id)| id == timer) {
            self.armed = None;
        }
        self.advance(k.now(), k);
    }
    fn schedule(&mut self, cpu: Cpu, _k: &mut dyn Kernel) -> Option<JobId> {
        let l = *self.cpu_server.get(cpu as usize)?;
        if l == NONE {
            return None;
        }
        let top = self.nodes[l as usize].top;
        if top == NONE {
            return None;
        }
        let (_, seq) = self.tasks[top as usize].job?;
        Some(JobId { task: top, seq })
    }
    fn priority(&self, _job: &JobView) -> Option<Priority> {
        None
    }
}
