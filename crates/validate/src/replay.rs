//! Replay: the policy is driven by the trace's releases, completions, blocks
//! and resumes through a replay [`Kernel`] (execution consumed as the trace
//! shows it, the CPUs running what the trace runs, timers fired at their
//! times), and its per-CPU decisions are compared with the trace at each
//! settled instant. This checks policies that are not "top-m by priority"
//! (PD^2, RUN), and any other policy too.
//!
//! The driver protocol of `schedlab_policy::interface` is followed: at each
//! instant, completions, then blocks and resumes, then releases in task
//! order (a job is released to the policy only once its predecessor
//! completed), then timers in the order they were armed; then `schedule` for
//! each CPU marked for rescheduling, in increasing CPU order. A CPU whose
//! chosen job completed or blocked is rescheduled as well.
//!
//! A CPU whose trace assignment differs from the policy's choice for longer
//! than the tolerance is a violation. The comparison is per CPU: a trace that
//! runs the right jobs on permuted CPUs fails the replay.

use crate::check::Check;
use crate::names::time;
use crate::recorder::Detail;
use crate::state::State;
use crate::validator::{Pending, Validator};
use schedlab_policy::{Cpu, Job, JobId, Kernel, TimerId};
use schedlab_trace::{JobRef, Time};
use std::collections::{BTreeMap, HashMap, VecDeque};

/// Rounds of timers-then-schedule allowed at one instant before giving up
/// (a policy that keeps arming timers for "now").
const MAX_ROUNDS: usize = 64;

/// The events of an instant the policy hears about.
#[derive(Debug, Clone, Copy)]
pub(crate) enum RelEv {
    Release { j: JobRef, release: Time, deadline: Time },
    Complete(JobRef),
    Block(JobRef),
    Resume(JobRef),
}

#[derive(Debug, Default)]
struct Timers {
    by_due: BTreeMap<(Time, u64), u64>,
    due: HashMap<u64, Time>,
    next: u64,
}

/// The replay driver's state.
#[derive(Debug)]
pub(crate) struct ReplayCore {
    timers: Timers,
    resched: Vec<bool>,
    want: Vec<Option<JobRef>>,
    /// Per task: the job released to the policy and not completed.
    delivered: Vec<Option<u64>>,
    /// Per task: releases waiting for the predecessor's completion.
    queued: Vec<VecDeque<(JobRef, Time, Time)>>,
    events: Vec<RelEv>,
    touched: Vec<u32>,
    mismatch: Vec<Option<Pending>>,
}

impl ReplayCore {
    pub fn new(cpus: u32, tasks: usize) -> ReplayCore {
        ReplayCore {
            timers: Timers::default(),
            resched: vec![false; cpus as usize],
            want: vec![None; cpus as usize],
            delivered: vec![None; tasks],
            queued: vec![VecDeque::new(); tasks],
            events: Vec::new(),
            touched: Vec::new(),
            mismatch: vec![None; cpus as usize],
        }
    }
}

/// The kernel a replayed policy sees.
struct ReplayKernel<'a> {
    now: Time,
    state: &'a State,
    resched: &'a mut Vec<bool>,
    timers: &'a mut Timers,
}

fn id(j: JobRef) -> JobId {
    JobId { task: j.task, seq: j.job }
}

impl Kernel for ReplayKernel<'_> {
    fn now(&self) -> Time {
        self.now
    }
    fn consumed(&self, job: JobId) -> Time {
        self.state.consumed_at(JobRef { task: job.task, job: job.seq }, self.now)
    }
    fn running(&self, cpu: Cpu) -> Option<JobId> {
        self.state.cpus.get(cpu as usize).and_then(|c| c.jobs.first()).map(|&j| id(j))
    }
    fn resched(&mut self, cpu: Cpu) {
        if let Some(r) = self.resched.get_mut(cpu as usize) {
            *r = true;
        }
    }
    fn arm(&mut self, at: Time, tag: u64) -> TimerId {
        let at = at.max(self.now);
        let n = self.timers.next;
        self.timers.next += 1;
        self.timers.by_due.insert((at, n), tag);
        self.timers.due.insert(n, at);
        TimerId(n)
    }
    fn cancel(&mut self, timer: TimerId) {
        if let Some(at) = self.timers.due.remove(&timer.0) {
            self.timers.by_due.remove(&(at, timer.0));
        }
    }
}

impl Validator<'_> {
    /// Buffers an event of the current instant for the replayed policy.
    pub(crate) fn replay_note(&mut self, e: RelEv) {
        if let Some(core) = self.replay.as_mut() {
            core.events.push(e);
        }
    }

    /// Delivers the instant's events to the policy, fires due timers and
    /// asks for the decisions of the CPUs marked for rescheduling.
    pub(crate) fn replay_instant(&mut self, t: Time) {
        let (Some(policy), Some(core)) = (self.policy.as_deref_mut(), self.replay.as_mut()) else { return };
        let state = &self.state;
        let events = std::mem::take(&mut core.events);
        let ReplayCore { timers, resched, want, delivered, queued, touched, .. } = core;
        let mut k = ReplayKernel { now: t, state, resched, timers };
        let unschedule = |k: &mut ReplayKernel<'_>, want: &[Option<JobRef>], j: JobRef| {
            for (c, w) in want.iter().enumerate() {
                if *w == Some(j) {
                    k.resched[c] = true;
                }
            }
        };
        for e in &events {
            if let RelEv::Complete(j) = *e {
                let task = j.task as usize;
                if delivered[task] == Some(j.job) {
                    policy.complete(id(j), &mut k);
                    delivered[task] = None;
                    touched.push(j.task);
                } else {
                    queued[task].retain(|q| q.0 != j);
                }
                unschedule(&mut k, want, j);
            }
        }
        for e in &events {
            match *e {
                RelEv::Block(j) if delivered[j.task as usize] == Some(j.job) => {
                    policy.block(id(j), &mut k);
                    unschedule(&mut k, want, j);
                }
                RelEv::Resume(j) if delivered[j.task as usize] == Some(j.job) => policy.resume(id(j), &mut k),
                RelEv::Release { j, release, deadline } => {
                    queued[j.task as usize].push_back((j, release, deadline));
                    touched.push(j.task);
                }
                _ => {}
            }
        }
        touched.sort_unstable();
        touched.dedup();
        for &task in touched.iter() {
            let task = task as usize;
            if delivered[task].is_none() {
                if let Some((j, release, deadline)) = queued[task].pop_front() {
                    delivered[task] = Some(j.job);
                    policy.release(Job { id: id(j), release, deadline }, &mut k);
                }
            }
        }
        touched.clear();
        for _ in 0..MAX_ROUNDS {
            while let Some((&(due, n), &tag)) = k.timers.by_due.iter().next() {
                if due > t {
                    break;
                }
                k.timers.by_due.remove(&(due, n));
                k.timers.due.remove(&n);
                policy.timer(TimerId(n), tag, &mut k);
            }
            for (c, w) in want.iter_mut().enumerate() {
                if std::mem::take(&mut k.resched[c]) {
                    *w = policy.schedule(c as Cpu, &mut k).map(|j| JobRef { task: j.task, job: j.seq });
                }
            }
            let due_now = k.timers.by_due.keys().next().is_some_and(|&(d, _)| d <= t);
            if !due_now && !k.resched.iter().any(|&r| r) {
                break;
            }
        }
    }

    /// Fires the timers due strictly between instants `t` and `next`, each
    /// due time being an instant of its own.
    pub(crate) fn replay_timers(&mut self, _t: Time, next: Time) {
        loop {
            let due = match self.replay.as_ref().and_then(|c| c.timers.by_due.keys().next()) {
                Some(&(d, _)) if d < next => d,
                _ => break,
            };
            self.replay_compare(due, false);
            self.replay_instant(due);
            self.replay_compare(due, true);
        }
    }

    /// Compares the trace's assignment with the policy's. `settled`: the
    /// schedule of instant `now` is new; otherwise the current schedule has
    /// lasted until `now`.
    pub(crate) fn replay_compare(&mut self, now: Time, settled: bool) {
        let Some(core) = self.replay.as_mut() else { return };
        let tol = self.tol;
        let mut report = Vec::new();
        for c in 0..core.want.len() {
            let actual = &self.state.cpus[c].jobs;
            let ok = match core.want[c] {
                Some(j) => actual.as_slice() == [j],
                None => actual.is_empty(),
            };
            if settled {
                if ok {
                    core.mismatch[c] = None;
                } else if core.mismatch[c].is_none() {
                    core.mismatch[c] = Some(Pending { since: now, reported: false });
                }
            } else if let Some(p) = core.mismatch[c].as_mut() {
                if !p.reported && now - p.since > tol {
                    p.reported = true;
                    report.push((c as u32, p.since, actual.clone(), core.want[c]));
                }
            }
        }
        let ok_cpu: Vec<bool> = core.mismatch.iter().map(|m| m.is_none()).collect();
        for (cpu, since, actual, want) in report {
            let tail = if tol > 0 { format!(" (for longer than the tolerance {})", time(tol)) } else { String::new() };
            self.rec.violation(Check::Replay, since, now, Some(cpu), |n| {
                let ran: Vec<String> = actual.iter().map(|&j| n.job(j)).collect();
                let runs = if ran.is_empty() { "idles".to_string() } else { format!("runs {}", ran.join(" and ")) };
                let chose = want.map_or("to idle".to_string(), |j| n.job(j));
                Detail::new(format!("cpu {cpu} {runs}, the policy chose {chose}{tail}"))
                    .ran(ran)
                    .expected(want.map(|j| n.job(j)).into_iter().collect())
            });
        }
        for d in 0..self.domains.len() {
            if self.domains[d].iter().all(|&c| ok_cpu.get(c as usize).copied().unwrap_or(true)) {
                self.conforms(d, now);
            }
        }
    }
}
