//! Reservation checks for the spec's `reservations` under `hcbs`, from the
//! trace itself (not by replaying the policy): what each CPU ran, and the
//! servers' `server-replenish` / `server-exhaust` events.
//!
//! - `budget`: a server `G@c` runs (CPU c running a task of G's subtree)
//!   at most the budget of its current period, from one `server-replenish`
//!   to the next; a replenishment gives the group's Q on that CPU: after
//!   an exhaustion, at the deadline d or later, with the deadline d + P;
//!   otherwise (a wake-up) with the deadline t + P, and before the previous
//!   deadline only as the CBS wake-up rule allows (q·P ≥ (d − t)·Q with
//!   the budget q left).
//! - `throttle`: after a `server-exhaust`, CPU c runs no task of G's
//!   subtree until the next replenishment.
//! - `group-priority`: inside each group (and among the tasks in no group)
//!   the running tasks are the group's highest-priority ready ones: no
//!   ready task waits while a lower-priority task of its group runs. The
//!   priorities are recomputed here from the spec (RM, DM or the tasks'
//!   `priority`, ties to the lower index), independently of the policy.
//!
//! A job inside a non-preemptive section (a `preemptible: false` segment)
//! is boosted, as `hcbs` runs it: it may run on past its server's
//! exhaustion and ahead of higher-priority tasks of its group until the
//! section ends (the `segment-end` events tell where a job is).
//!
//! Every bound has the tolerance: a budget may be exceeded, a throttle or
//! a priority inversion may last, by at most the tolerance. A trace without
//! server events (e.g. imported) leaves `budget` and `throttle` vacuous.

use crate::check::Check;
use crate::names::time;
use crate::recorder::{Detail, Recorder};
use schedlab_model::{PolicyEvent, Priorities, Spec};
use schedlab_trace::{Event, Time};
use std::collections::HashMap;

/// One server's current period, as the trace announced it.
#[derive(Debug, Clone, Copy, Default)]
struct Period {
    /// Replenished at all.
    open: bool,
    start: Time,
    budget: Time,
    deadline: Time,
    used: Time,
    /// Throttled since (an exhaustion), until the next replenishment.
    throttled: Option<Time>,
    reported_over: bool,
}

struct Group {
    name: String,
    /// Budget per CPU and period.
    budgets: Vec<Time>,
    period: Time,
    /// Tasks of the subtree.
    members: Vec<bool>,
    periods: Vec<Period>,
}

pub(crate) struct Budgets {
    tol: Time,
    groups: Vec<Group>,
    by_name: HashMap<String, usize>,
    /// Each CPU's running task and since when it is charged.
    running: Vec<Option<(u32, Time)>>,
    /// Each queue's tasks in priority order (the last queue: no group).
    queues: Vec<Vec<u32>>,
    /// Per task: jobs released and not completed; the earliest is blocked.
    pending: Vec<u32>,
    blocked: Vec<bool>,
    /// Per task: the CPUs running it.
    on_cpus: Vec<u32>,
    /// Per task: the segment its current job is in, and which segments are
    /// non-preemptive sections.
    segment: Vec<u32>,
    np: Vec<Vec<bool>>,
    suspends: Vec<Vec<bool>>,
    /// Per queue: a priority inversion since, and whether it was reported.
    inversion: Vec<Option<(Time, bool)>>,
}

impl Budgets {
    /// The tracker for `spec`, if it has reservations and `hcbs` schedules it.
    pub fn new(spec: &Spec, tol: Time) -> Option<Budgets> {
        let pol = spec.policy.as_ref()?;
        if pol.name != schedlab_model::PolicyName::Hcbs {
            return None;
        }
        let m = spec.platform.cpus as usize;
        let n = spec.tasks.len();
        let nodes = spec.reservation_nodes();
        let mut groups = Vec::new();
        let mut by_name = HashMap::new();
        // Members of each node's subtree: children come after their parent.
        let mut members = vec![vec![false; n]; nodes.len()];
        for i in (0..nodes.len()).rev() {
            for &t in &nodes[i].tasks {
                members[i][t] = true;
            }
            for &c in &nodes[i].children {
                let child = members[c].clone();
                for (a, b) in members[i].iter_mut().zip(child) {
                    *a |= b;
                }
            }
        }
        for (i, node) in nodes.iter().enumerate() {
            by_name.insert(node.name.clone(), groups.len());
            groups.push(Group {
                name: node.name.clone(),
                budgets: node.budgets.iter().map(|d| d.0).collect(),
                period: node.period.0,
                members: members[i].clone(),
                periods: vec![Period::default(); m],
            });
            if let Some(leaf) = node.leaf {
                let name = format!("{}/leaf", node.name);
                by_name.insert(name.clone(), groups.len());
                let mut own = vec![false; n];
                for &t in &node.tasks {
                    own[t] = true;
                }
                groups.push(Group {
                    name,
                    budgets: (0..m).map(|c| node.leaf_budget_on(c).0).collect(),
                    period: leaf.period.0,
                    members: own,
                    periods: vec![Period::default(); m],
                });
            }
        }
        // Fixed priorities, as the spec gives them.
        let explicit = spec.tasks.iter().all(|t| t.priority.is_some());
        let how = pol.priorities.unwrap_or(if explicit { Priorities::Explicit } else { Priorities::Rm });
        let rank = |t: usize| -> (u128, usize) {
            let task = &spec.tasks[t];
            let r = match how {
                Priorities::Rm => task.period.0 as u128,
                Priorities::Dm => task.deadline().0 as u128,
                Priorities::Explicit => task.priority.unwrap_or(u32::MAX) as u128,
            };
            (r, t)
        };
        let mut queues: Vec<Vec<u32>> = nodes.iter().map(|nd| nd.tasks.iter().map(|&t| t as u32).collect()).collect();
        let mut queue_of = vec![nodes.len(); n];
        for (q, ts) in queues.iter().enumerate() {
            for &t in ts {
                queue_of[t as usize] = q;
            }
        }
        queues.push((0..n as u32).filter(|&t| queue_of[t as usize] == nodes.len()).collect());
        for q in &mut queues {
            q.sort_by_key(|&t| rank(t as usize));
        }
        let nq = queues.len();
        let (np, suspends) = spec.tasks.iter().map(|t| t.segment_flags()).unzip();
        Some(Budgets {
            tol,
            groups,
            by_name,
            running: vec![None; m],
            queues,
            pending: vec![0; n],
            blocked: vec![false; n],
            on_cpus: vec![0; n],
            segment: vec![0; n],
            np,
            suspends,
            inversion: vec![None; nq],
        })
    }

    /// Whether `task`'s job is inside a non-preemptive section (boosted:
    /// it may run past its server's exhaustion and before higher-priority
    /// tasks of its group until the section ends).
    fn in_section(&self, task: u32) -> bool {
        self.np[task as usize].get(self.segment[task as usize] as usize).copied().unwrap_or(false)
    }

    /// Charges CPU `cpu`'s running task up to `t` to the servers serving it there.
    fn charge(&mut self, cpu: usize, t: Time, rec: &mut Recorder) {
        let Some((task, since)) = self.running[cpu] else { return };
        self.running[cpu] = Some((task, t));
        let ran = t.saturating_sub(since);
        if ran == 0 {
            return;
        }
        let tol = self.tol;
        let boosted = self.in_section(task);
        for g in &mut self.groups {
            if !g.members[task as usize] {
                continue;
            }
            let p = &mut g.periods[cpu];
            if let Some(from) = p.throttled {
                let during = t.saturating_sub(since.max(from));
                if during > tol && !boosted {
                    let (name, deadline) = (g.name.clone(), p.deadline);
                    rec.violation(Check::Throttle, since.max(from), t, Some(cpu as u32), |n| {
                        Detail::new(format!(
                            "{} ran {} while server {name}@{cpu} was throttled (exhausted at {}, until {})",
                            n.task(task),
                            time(during),
                            time(from),
                            time(deadline)
                        ))
                    });
                }
                continue;
            }
            if !p.open {
                continue;
            }
            p.used += ran;
            if p.used > p.budget + tol && !p.reported_over {
                p.reported_over = true;
                let (name, budget, used, start) = (g.name.clone(), p.budget, p.used, p.start);
                rec.violation(Check::Budget, start, t, Some(cpu as u32), |n| {
                    Detail::new(format!(
                        "server {name}@{cpu} ran {} in its period from {}, more than its budget {} (last: {})",
                        time(used),
                        time(start),
                        time(budget),
                        n.task(task)
                    ))
                });
            }
        }
    }

    fn server(&mut self, t: Time, cpu: Option<u32>, event: &PolicyEvent, rec: &mut Recorder) {
        let (server, replenish) = match event {
            PolicyEvent::ServerReplenish { server, budget, deadline } => (server, Some((*budget, *deadline))),
            PolicyEvent::ServerExhaust { server, .. } => (server, None),
            _ => return,
        };
        let Some((name, c)) = server.rsplit_once('@') else { return };
        let (Some(&g), Ok(c)) = (self.by_name.get(name), c.parse::<usize>()) else { return };
        if c >= self.running.len() || cpu.is_some_and(|x| x as usize != c) {
            return;
        }
        self.charge(c, t, rec);
        let tol = self.tol;
        let grp = &mut self.groups[g];
        let (q_max, period) = (grp.budgets[c], grp.period);
        let p = &mut grp.periods[c];
        match replenish {
            None => p.throttled = Some(t),
            Some((budget, deadline)) => {
                let mut wrong = None;
                if budget != q_max {
                    wrong = Some(format!("replenished to {}, but the group's budget is {}", time(budget), time(q_max)));
                } else if let (true, Some(_)) = (p.open, p.throttled) {
                    // The replenishment of an exhausted server: at its deadline d, to d + P.
                    if t + tol < p.deadline {
                        wrong = Some(format!("replenished while throttled, before its deadline {}", time(p.deadline)));
                    } else if deadline != p.deadline.saturating_add(period) {
                        wrong = Some(format!(
                            "replenished at its deadline {} with the deadline {}, not d + {} = {}",
                            time(p.deadline),
                            time(deadline),
                            time(period),
                            time(p.deadline.saturating_add(period))
                        ));
                    }
                } else if deadline.abs_diff(t.saturating_add(period)) > tol {
                    // A wake-up: the deadline t + P.
                    wrong = Some(format!(
                        "woke up with the deadline {}, not t + {} = {}",
                        time(deadline),
                        time(period),
                        time(t.saturating_add(period))
                    ));
                } else if p.open && t + tol < p.deadline {
                    // Before the deadline, only if the budget left would overrun it (q·P ≥ (d − t)·Q).
                    let left = p.budget.saturating_sub(p.used) + tol;
                    if (left as u128) * (period as u128) < ((p.deadline - t) as u128) * (q_max as u128) {
                        wrong = Some(format!(
                            "was given a new budget before its deadline {} with {} left, which the wake-up rule keeps (q·P < (d − t)·Q)",
                            time(p.deadline),
                            time(p.budget.saturating_sub(p.used))
                        ));
                    }
                }
                if let Some(why) = wrong {
                    let name = grp.name.clone();
                    rec.violation(Check::Budget, t, t, Some(c as u32), |_| {
                        Detail::new(format!("server {name}@{c} {why}"))
                    });
                }
                *p = Period { open: true, start: t, budget, deadline, ..Period::default() };
            }
        }
    }

    /// Follows one event of the trace (before the instant settles).
    pub fn push(&mut self, e: &Event, rec: &mut Recorder) {
        match e {
            Event::Policy { t, cpu, event } => self.server(*t, *cpu, event, rec),
            Event::SegmentEnd { t, cpu, task, segment, .. } => {
                let c = *cpu as usize;
                if c < self.running.len() && (*task as usize) < self.segment.len() {
                    self.charge(c, *t, rec);
                    self.segment[*task as usize] = segment + 1;
                }
            }
            Event::SwitchTo { t, cpu, task, .. } => {
                let c = *cpu as usize;
                if c < self.running.len() && (*task as usize) < self.pending.len() {
                    self.charge(c, *t, rec);
                    if let Some((old, _)) = self.running[c] {
                        self.on_cpus[old as usize] = self.on_cpus[old as usize].saturating_sub(1);
                    }
                    self.running[c] = Some((*task, *t));
                    self.on_cpus[*task as usize] += 1;
                }
            }
            Event::SwitchAway { t, cpu, task, .. } | Event::Completion { t, cpu, task, .. } => {
                let c = *cpu as usize;
                if c < self.running.len() && self.running[c].is_some_and(|(x, _)| x == *task) {
                    self.charge(c, *t, rec);
                    self.running[c] = None;
                    self.on_cpus[*task as usize] = self.on_cpus[*task as usize].saturating_sub(1);
                }
                if let (Event::Completion { task, .. }, Some(p)) = (e, self.pending.get_mut(*task as usize)) {
                    *p = p.saturating_sub(1);
                    self.blocked[*task as usize] = false;
                    self.segment[*task as usize] = 0;
                }
            }
            Event::Release { task, .. } => {
                if let Some(p) = self.pending.get_mut(*task as usize) {
                    *p += 1;
                }
            }
            Event::Block { task, .. } => {
                if let Some(b) = self.blocked.get_mut(*task as usize) {
                    *b = true;
                }
            }
            Event::Resume { task, .. } => {
                let i = *task as usize;
                if let Some(b) = self.blocked.get_mut(i) {
                    *b = false;
                    // The resume ends a self-suspension.
                    if self.suspends[i].get(self.segment[i] as usize).copied().unwrap_or(false) {
                        self.segment[i] += 1;
                    }
                }
            }
            _ => {}
        }
    }

    /// The instant `t` settled: which groups now have a priority inversion.
    pub fn settle(&mut self, t: Time) {
        for q in 0..self.queues.len() {
            let inverted = self.inverted(q).is_some();
            match (inverted, self.inversion[q]) {
                (true, None) => self.inversion[q] = Some((t, false)),
                (false, Some(_)) => self.inversion[q] = None,
                _ => {}
            }
        }
    }

    /// A waiting ready task of queue `q` above a running one: (waiting, running).
    fn inverted(&self, q: usize) -> Option<(u32, u32)> {
        let ts = &self.queues[q];
        let ready = |t: u32| self.pending[t as usize] > 0 && !self.blocked[t as usize];
        let runs = |t: u32| self.on_cpus[t as usize] > 0;
        let waiting = ts.iter().copied().find(|&t| ready(t) && !runs(t))?;
        // A task running inside a non-preemptive section is not preempted.
        let below = ts.iter().copied().skip_while(|&t| t != waiting).find(|&t| runs(t) && !self.in_section(t))?;
        Some((waiting, below))
    }

    /// Time passes to `next` with the schedule unchanged: report the
    /// inversions that lasted longer than the tolerance.
    pub fn elapsed(&mut self, next: Time, rec: &mut Recorder) {
        for q in 0..self.queues.len() {
            let Some((since, false)) = self.inversion[q] else { continue };
            if next - since <= self.tol {
                continue;
            }
            self.inversion[q] = Some((since, true));
            let Some((w, r)) = self.inverted(q) else { continue };
            let group = self.queues.len() - 1 == q;
            rec.violation(Check::GroupPriority, since, next, None, |n| {
                Detail::new(format!(
                    "{} waits while {}, of lower priority {}, runs",
                    n.task(w),
                    n.task(r),
                    if group { "and in no group either".to_string() } else { "in the same group".to_string() }
                ))
            });
        }
    }

    /// At the end: charges the stints still running.
    pub fn finish(&mut self, end: Time, rec: &mut Recorder) {
        for c in 0..self.running.len() {
            self.charge(c, end, rec);
        }
        self.elapsed(end, rec);
    }
}
