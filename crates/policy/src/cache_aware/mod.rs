//! Cache-aware global EDF with job promotions (Calandrino 2009, Ch.4; the
//! notes' §2.6–2.7): the heuristic framework of Fig. 4.2, `ca-gedf`. See
//! `docs/policies.md`, "CA-G-EDF".
//!
//! Quantum-driven: every decision is taken at a quantum boundary (aligned
//! on all CPUs) and nothing changes between boundaries except that a CPU
//! whose job completes or blocks idles until the next one. At a boundary t
//! the CPUs are decided one after another (Fig. 4.2's loop): unless an
//! urgent job waits or the job to run is tardy, the policy promotes an MTT
//! — the cache-aware policy once the cache utilisation (the WSS of the
//! MTTs scheduled so far at t over the cache size) reaches its threshold,
//! the lost-cause policy once it reaches that one — and, with phantom
//! tasks, runs a phantom job instead when the promoted job's WSS exceeds
//! the cache left; then the highest-priority job ([`rules`]) takes the CPU.
//! An MTT's WSS counts once per job index and boundary (the thrash
//! predicate: thrashing when the WSS of the MTTs with jobs in a quantum
//! exceeds the cache).
//!
//! Decisions the notes leave open (written down in `docs/policies.md`): a
//! promotion happens only when no promoted job waits (with promotion
//! duration (2) a promoted job keeps its place until it completes: the
//! two-queue implementation's "pinned" jobs) and not at a decision a
//! tardy job takes, so a promoted job is always the one scheduled; a job
//! replaced by a phantom is not promoted ("promote phantoms instead"); the
//! cache-aware policies rank an MTT whose job index is already scheduled
//! at this boundary by the WSS it adds, 0; phantom jobs replace an MTT
//! when at least tc(MTT) are eligible, one CPU per decision.
//!
//! Placement: a job that ran in the previous quantum keeps its CPU, a
//! returning job goes to its last CPU if free, the rest to the lowest free
//! CPUs; phantom jobs take the CPUs left.
//!
//! Cost: O(n) per CPU decided, O(n·m) per boundary; nothing is allocated
//! after `new` but the trace's promotion reasons. One timer chain drives
//! the boundaries while some task has a job and sleeps otherwise; the idle
//! boundaries it slept through consume phantom jobs as they would have.

mod choice;
mod params;
mod phantom;
mod profiling;
mod rules;

pub(crate) use params::params;

use crate::boundaries::Boundaries;
use crate::interface::{
    Conformance, Cpu, Job, JobId, JobView, Kernel, Policy, PolicyEvent, PolicyInfo, Priority, Time, TimerId,
};
use choice::Candidate;
use params::Params;
use profiling::Profiling;
use rules::{rank, tardy, Standing};
use schedlab_model::Placement;

/// "No task".
const NONE: u32 = u32::MAX;

#[derive(Debug, Clone)]
struct TaskState {
    /// The released, incomplete job (the driver hands over one at a time).
    job: Option<Job>,
    blocked: bool,
    standing: Standing,
    /// Jobs completed.
    done: u64,
    /// CPU of its last quantum, `NONE` before any.
    cpu: u32,
}

/// Why a job was promoted, as the trace says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reason {
    Cache,
    Urgent,
    LostCause,
}

impl Reason {
    fn text(self) -> &'static str {
        match self {
            Reason::Cache => "cache",
            Reason::Urgent => "urgent",
            Reason::LostCause => "lost-cause",
        }
    }
}

pub(crate) struct CaGedf {
    info: PolicyInfo,
    p: Params,
    tasks: Vec<TaskState>,
    /// Per CPU: the task that holds its current quantum (`NONE`: idle or phantom).
    slot: Vec<u32>,
    assigned: Vec<Option<JobId>>,
    /// The boundary timer chain.
    boundaries: Boundaries,
    // Scratch for a boundary.
    taken: Vec<bool>,
    /// (owner, job index) whose WSS is counted at this boundary.
    counted: Vec<(u32, u64)>,
    picked: Vec<u32>,
    placed: Vec<u32>,
    cands: Vec<Candidate>,
    fitting: Vec<Candidate>,
    /// Per phantom job run at this boundary: the job it replaced, if any.
    phantom_for: Vec<Option<JobId>>,
    /// The working-set profiler, with `profile: true`.
    profiling: Option<Profiling>,
    /// Scratch: the CPUs whose job changes at a boundary, with the old and new job.
    moved: Vec<(Cpu, Option<JobId>, Option<JobId>)>,
}

impl CaGedf {
    pub fn new(p: Params) -> CaGedf {
        let (n, m) = (p.owner.len(), p.cpus as usize);
        let state = TaskState { job: None, blocked: false, standing: Standing::default(), done: 0, cpu: NONE };
        let profiling = p.profiled.contains(&true).then(|| {
            let threads: Vec<usize> = p.members.iter().map(|m| m.len()).collect();
            let tracked = p.owner.iter().map(|&o| p.profiled[o as usize]).collect();
            Profiling::new(&threads, tracked, p.line, p.cache)
        });
        CaGedf {
            info: PolicyInfo {
                name: "ca-gedf",
                domains: vec![(0..p.cpus).collect()],
                placement: vec![Placement::Global; n],
                conformance: Conformance::Replay,
                quantum: Some(p.quantum),
            },
            tasks: vec![state; n],
            slot: vec![NONE; m],
            assigned: vec![None; m],
            boundaries: Boundaries::default(),
            taken: vec![false; n],
            counted: Vec::with_capacity(m),
            picked: Vec::with_capacity(m),
            placed: vec![NONE; m],
            cands: Vec::with_capacity(p.wss.len()),
            fitting: Vec::with_capacity(p.wss.len()),
            phantom_for: Vec::with_capacity(m),
            profiling,
            moved: Vec::with_capacity(m),
            p,
        }
    }

    /// The first boundary at or after `t` not yet processed.
    fn boundary_from(&self, t: Time) -> Time {
        let t = self.boundaries.unprocessed_from(t);
        t.div_ceil(self.p.quantum) * self.p.quantum
    }

    fn wake(&mut self, k: &mut dyn Kernel) {
        let b = self.boundary_from(k.now());
        self.boundaries.cover(b, k);
    }

    /// The job leaves its CPU (which idles to the next boundary).
    fn unassign(&mut self, job: JobId, k: &mut dyn Kernel) {
        for c in 0..self.assigned.len() {
            if self.assigned[c] == Some(job) {
                self.assigned[c] = None;
                self.slot[c] = NONE;
                k.resched(c as Cpu);
            }
        }
    }

    /// Eligible at this boundary and not yet given a CPU.
    #[inline]
    fn open(&self, task: usize) -> Option<Job> {
        let ts = &self.tasks[task];
        if ts.blocked || self.taken[task] {
            return None;
        }
        ts.job
    }

    /// The highest-priority open job by the Priorities rule.
    fn top(&self, t: Time) -> Option<u32> {
        (0..self.tasks.len())
            .filter_map(|i| self.open(i).map(|j| (rank(j.deadline, self.tasks[i].standing, i as u32, t), i as u32)))
            .min()
            .map(|x| x.1)
    }

    /// The highest-priority open, non-tardy promoted job that is not urgent.
    fn promoted_waiting(&self, t: Time) -> Option<u32> {
        (0..self.tasks.len())
            .filter_map(|i| {
                let j = self.open(i)?;
                let s = self.tasks[i].standing;
                (s.promoted.is_some() && !s.urgent && !tardy(j.deadline, t))
                    .then(|| (rank(j.deadline, s, i as u32, t), i as u32))
            })
            .min()
            .map(|x| x.1)
    }

    fn urgent_waiting(&self) -> bool {
        (0..self.tasks.len()).any(|i| self.open(i).is_some() && self.tasks[i].standing.urgent)
    }

    /// tc(MTT): its task count when their WCETs are equal, else the tasks
    /// that have not completed the lowest job index some task has not.
    fn tc(&self, owner: u32) -> u32 {
        let members = &self.p.members[owner as usize];
        if !self.p.unequal[owner as usize] {
            return members.len() as u32;
        }
        let low = members.iter().map(|&u| self.tasks[u as usize].done).min().unwrap_or(0);
        members.iter().filter(|&&u| self.tasks[u as usize].done == low).count() as u32
    }

    /// The WSS the job of `task` adds at this boundary: 0 if a job of its
    /// MTT with the same index is scheduled already.
    fn added_wss(&self, task: u32, seq: u64) -> u64 {
        let o = self.p.owner[task as usize];
        if self.counted.contains(&(o, seq)) {
            0
        } else {
            self.p.wss[o as usize]
        }
    }

    /// The MTTs with an open, non-tardy job, each with the job it would
    /// promote, into `self.cands`.
    fn candidates(&mut self, t: Time, n: u32) {
        self.cands.clear();
        for o in 0..self.p.members.len() {
            let mut rep: Option<(Time, u32, u64)> = None;
            for &u in &self.p.members[o] {
                if let Some(j) = self.open(u as usize) {
                    if !tardy(j.deadline, t) && rep.is_none_or(|r| (j.deadline, u) < (r.0, r.1)) {
                        rep = Some((j.deadline, u, j.id.seq));
                    }
                }
            }
            let Some((_, task, seq)) = rep else { continue };
            let wss = self.added_wss(task, seq);
            let tc = self.tc(o as u32);
            let eligible =
                self.p.members[o].iter().filter(|&&u| self.open(u as usize).is_some_and(|j| j.id.seq == seq)).count()
                    as u32;
            let partial = wss > 0 && (eligible < tc || tc > n);
            self.cands.push(Candidate { task, wss, tc, partial });
        }
    }

    /// Fig. 4.2 lines 5–16 for the decision with `n` CPUs left and `used`
    /// bytes of the cache taken: promotes a job if the heuristic does, and
    /// answers the job a phantom should replace instead, if any.
    fn promote_step(&mut self, t: Time, n: u32, used: u64, k: &mut dyn Kernel) -> Option<JobId> {
        let cache = self.p.cache as u128;
        let pct = used as u128 * 100;
        let free = self.p.cache.saturating_sub(used);
        if let Some((lc, policy)) = self.p.lost_cause {
            if pct >= lc as u128 * cache {
                if self.promoted_waiting(t).is_none() {
                    self.candidates(t, n);
                    if let Some(x) = choice::lost_cause(policy, &self.cands) {
                        let task = self.cands[x].task;
                        self.promote(task, t, Reason::LostCause, k);
                    }
                }
                return None;
            }
        }
        if pct < self.p.threshold as u128 * cache {
            return None; // G-EDF
        }
        let (task, new) = match self.promoted_waiting(t) {
            Some(task) => (task, false),
            None => {
                self.candidates(t, n);
                let mut x = choice::cache_aware(self.p.policy, &self.cands, free, n)?;
                if self.p.avoid_partial && self.cands[x].partial {
                    self.fitting.clear();
                    self.fitting.extend(self.cands.iter().filter(|c| !c.partial && c.wss <= free));
                    if let Some(y) = choice::cache_aware(self.p.policy, &self.fitting, free, n) {
                        let task = self.fitting[y].task;
                        x = self.cands.iter().position(|c| c.task == task).expect("a candidate");
                    }
                }
                (self.cands[x].task, true)
            }
        };
        let job = self.tasks[task as usize].job.expect("an open job").id;
        if let Some(ph) = &self.p.phantoms {
            let owner = self.p.owner[task as usize];
            if self.added_wss(task, job.seq) > free && ph.eligible(t) >= self.tc(owner) as u64 {
                return Some(job); // phantom jobs instead: `task` is not promoted
            }
        }
        if new {
            self.promote(task, t, Reason::Cache, k);
        }
        None
    }

    fn promote(&mut self, task: u32, t: Time, why: Reason, k: &mut dyn Kernel) {
        let ts = &mut self.tasks[task as usize];
        let Some(job) = ts.job else { return };
        debug_assert!(!tardy(job.deadline, t), "tardy jobs are never promoted");
        let urgent = why == Reason::Urgent;
        if ts.standing.promoted.is_some() && (ts.standing.urgent || !urgent) {
            return;
        }
        ts.standing = Standing { promoted: Some(t), urgent };
        if k.tracing() {
            k.note(None, PolicyEvent::PriorityPromotion { task, job: job.id.seq, reason: why.text().to_string() });
        }
    }

    /// `task`'s job takes a CPU at `t` (Fig. 4.2 lines 17–23).
    fn take(&mut self, task: u32, t: Time, used: &mut u64, k: &mut dyn Kernel) {
        self.taken[task as usize] = true;
        self.picked.push(task);
        let job = self.tasks[task as usize].job.expect("an open job");
        let owner = self.p.owner[task as usize];
        let urgent = self.tasks[task as usize].standing.urgent;
        if !self.counted.contains(&(owner, job.id.seq)) {
            *used += self.p.wss[owner as usize];
            self.counted.push((owner, job.id.seq));
            if !urgent {
                for i in 0..self.p.members[owner as usize].len() {
                    let u = self.p.members[owner as usize][i];
                    let sibling = self.tasks[u as usize].job;
                    if let Some(s) = sibling.filter(|s| u != task && s.id.seq == job.id.seq && !self.taken[u as usize])
                    {
                        if !tardy(s.deadline, t) {
                            self.promote(u, t, Reason::Urgent, k);
                        }
                    }
                }
            }
        }
        if urgent && !self.p.until_completion {
            self.tasks[task as usize].standing.demote(); // promotion (1): urgent until scheduled
        }
    }

    /// The decisions of the boundary `t`, then the CPUs.
    fn boundary(&mut self, t: Time, k: &mut dyn Kernel) {
        let (q, m) = (self.p.quantum, self.p.cpus);
        if let Some(ph) = self.p.phantoms.as_mut() {
            let from = self.boundaries.done_until().map_or(0, |d| d + q);
            ph.idle(from, t, q, m);
            ph.start_quantum();
        }
        self.boundaries.processing(t);
        if let Some(pr) = self.profiling.as_mut() {
            pr.probe(k);
            self.unprofiled(k);
        }
        self.taken.fill(false);
        self.counted.clear();
        self.picked.clear();
        self.phantom_for.clear();
        let mut used = 0u64;
        for i in 0..m {
            let n = m - i;
            if !self.p.until_completion {
                for ts in &mut self.tasks {
                    if !ts.standing.urgent {
                        ts.standing.demote(); // promotion (1): until the next decision
                    }
                }
            }
            let Some(top) = self.top(t) else {
                // Nothing to run: a phantom job must run if one is eligible.
                if self.p.phantoms.as_mut().is_some_and(|ph| ph.take(t)) {
                    self.phantom_for.push(None);
                }
                continue;
            };
            let deadline = self.tasks[top as usize].job.expect("an open job").deadline;
            if !self.urgent_waiting() && !tardy(deadline, t) {
                if let Some(instead) = self.promote_step(t, n, used, k) {
                    self.p.phantoms.as_mut().expect("phantoms are on").take(t);
                    self.phantom_for.push(Some(instead));
                    continue;
                }
            }
            let chosen = self.top(t).expect("a job is open");
            self.take(chosen, t, &mut used, k);
        }
        if used > self.p.cache {
            if let Some(pr) = self.profiling.as_mut() {
                for &task in &self.picked {
                    pr.spoil(task); // thrashing: more than the working set is missed
                }
            }
        }
        self.place(k);
        let busy = self.tasks.iter().any(|ts| ts.job.is_some());
        if busy {
            self.boundaries.arm_next(t + q, k);
        }
    }

    /// Once the CPUs' cache misses cannot be read, the declared WSSs, said
    /// once (the reason is the policy's, not the driver's, so that the
    /// replay, which has no counters either, records the same).
    fn unprofiled(&mut self, k: &mut dyn Kernel) {
        if self.profiling.as_ref().is_none_or(|pr| pr.unavailable().is_none()) {
            return;
        }
        if k.tracing() {
            let reason = "no cache-miss counters to profile with; ca-gedf schedules with the declared wss".to_string();
            k.note(None, PolicyEvent::CountersUnavailable { reason });
        }
        self.p.wss.clone_from(&self.p.declared);
        self.profiling = None;
    }

    /// The jobs picked at this boundary onto CPUs; phantom jobs on the rest.
    fn place(&mut self, k: &mut dyn Kernel) {
        self.placed.fill(NONE);
        let mut rest = Vec::new();
        std::mem::swap(&mut rest, &mut self.picked);
        // Keep the CPU of the previous quantum, else return to the last one.
        for pass in 0..2 {
            for &task in &rest {
                let c = self.tasks[task as usize].cpu;
                if c == NONE || self.placed[c as usize] != NONE || self.placed.contains(&task) {
                    continue;
                }
                if pass == 1 || self.slot[c as usize] == task {
                    self.placed[c as usize] = task;
                }
            }
        }
        let mut free = 0;
        for &task in &rest {
            if self.placed.contains(&task) {
                continue;
            }
            while self.placed[free] != NONE {
                free += 1;
            }
            self.placed[free] = task;
        }
        std::mem::swap(&mut rest, &mut self.picked);
        let mut phantoms = self.phantom_for.iter();
        for c in 0..self.placed.len() {
            let task = self.placed[c];
            self.slot[c] = task;
            let job = if task == NONE {
                if let Some(instead) = phantoms.next() {
                    if k.tracing() {
                        k.note(
                            Some(c as Cpu),
                            PolicyEvent::Phantom { task: instead.map(|j| j.task), job: instead.map(|j| j.seq) },
                        );
                    }
                }
                None
            } else {
                self.tasks[task as usize].cpu = c as u32;
                self.tasks[task as usize].job.map(|j| j.id)
            };
            if self.assigned[c] != job {
                self.moved.push((c as Cpu, self.assigned[c], job));
                self.assigned[c] = job;
                k.resched(c as Cpu);
            }
        }
        if let Some(pr) = self.profiling.as_mut() {
            // Every stint that ends before any that begins (a job may move).
            for &(_, old, _) in &self.moved {
                if let Some(old) = old {
                    pr.stop(old.task, !self.placed.contains(&old.task), k); // preempted unless moved
                }
            }
            for &(c, _, new) in &self.moved {
                if let Some(new) = new {
                    pr.start(new.task, c, k);
                }
            }
        }
        self.moved.clear();
        self.unprofiled(k);
    }
}

impl Policy for CaGedf {
    fn info(&self) -> &PolicyInfo {
        &self.info
    }

    fn release(&mut self, job: Job, k: &mut dyn Kernel) {
        let Some(ts) = self.tasks.get_mut(job.id.task as usize) else { return };
        ts.job = Some(job);
        ts.blocked = false;
        ts.standing = Standing::default();
        if let Some(pr) = self.profiling.as_mut() {
            pr.release(job.id.task);
        }
        self.wake(k);
    }

    fn complete(&mut self, job: JobId, k: &mut dyn Kernel) {
        let Some(ts) = self.tasks.get_mut(job.task as usize) else { return };
        if ts.job.map(|j| j.id) != Some(job) {
            return;
        }
        ts.job = None;
        ts.blocked = false;
        ts.standing = Standing::default();
        ts.done += 1;
        if let Some(pr) = self.profiling.as_mut() {
            let owner = self.p.owner[job.task as usize];
            if let Some(estimate) = pr.complete(job.task, owner, job.seq, k) {
                self.p.wss[owner as usize] = estimate;
            }
        }
        self.unassign(job, k);
    }

    fn block(&mut self, job: JobId, k: &mut dyn Kernel) {
        let Some(ts) = self.tasks.get_mut(job.task as usize) else { return };
        if ts.job.map(|j| j.id) != Some(job) {
            return;
        }
        ts.blocked = true;
        if let Some(pr) = self.profiling.as_mut() {
            pr.stop(job.task, true, k);
        }
        self.unassign(job, k);
    }

    fn resume(&mut self, job: JobId, _k: &mut dyn Kernel) {
        let Some(ts) = self.tasks.get_mut(job.task as usize) else { return };
        if ts.job.map(|j| j.id) == Some(job) {
            ts.blocked = false; // back at the next boundary (the chain runs: it has a job)
        }
    }

    /// The boundary is processed at the instant the timer was armed for
    /// ([`Boundaries::fired`]).
    fn timer(&mut self, timer: TimerId, _tag: u64, k: &mut dyn Kernel) {
        if let Some(at) = self.boundaries.fired(timer) {
            self.boundary(at, k);
        }
    }

    fn schedule(&mut self, cpu: Cpu, _k: &mut dyn Kernel) -> Option<JobId> {
        self.assigned.get(cpu as usize).copied().flatten()
    }

    fn priority(&self, _job: &JobView) -> Option<Priority> {
        None
    }
}
