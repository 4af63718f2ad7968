//! A tiny in-test host for `policy::driver`: periodic releases, exact WCET
//! execution (through the task's execution segments, with `segment_end` at
//! each boundary), scripted blocking; the driver delivers the events in protocol
//! order and checks every answer (eligible, in its placement, on one CPU);
//! this host adds checks on every instant (a CPU's answer is stable without
//! resched, no preemption under a non-preemptive policy, preemption only at
//! a preemption point under deferred preemption, and — as an oracle for `priority()` — the running jobs
//! of each domain are its top jobs by priority). Not a simulator: no
//! overheads, no sporadic arrivals.

#![allow(dead_code)]

pub mod overrun;

use schedlab_model::{Duration, Placement, Platform, PolicyName, PolicySpec, Spec, Task};
use schedlab_policy::{
    Activity, Conformance, Counters, CountersUnavailable, Cpu, Driver, Host, Job, JobId, JobView, Policy, PolicyEvent,
    PolicyInfo, ProtocolError, Run as Running, Time,
};
use std::collections::HashMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seg {
    pub cpu: Cpu,
    pub task: u32,
    pub seq: u64,
    pub start: Time,
    pub end: Time,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Done {
    pub id: JobId,
    pub deadline: Time,
    pub finish: Time,
}

pub struct Run {
    pub segs: Vec<Seg>,
    pub done: Vec<Done>,
    pub info: PolicyInfo,
    pub switches: usize,
    /// The policy's events (`Kernel::note`) with their instant and CPU,
    /// when run with [`run_traced`].
    pub notes: Vec<(Time, Option<Cpu>, PolicyEvent)>,
    /// The policy's own activities (`Kernel::occupy`) as (instant, CPU, activity).
    pub occupied: Vec<(Time, Cpu, Option<Activity>)>,
}

impl Run {
    pub fn misses(&self) -> Vec<Done> {
        self.done.iter().copied().filter(|d| d.finish > d.deadline).collect()
    }
    /// Segments as (cpu, task, start, end), sorted by CPU then start.
    pub fn table(&self) -> Vec<(Cpu, u32, Time, Time)> {
        let mut v: Vec<_> = self.segs.iter().map(|s| (s.cpu, s.task, s.start, s.end)).collect();
        v.sort_by_key(|s| (s.0, s.2));
        v
    }
    pub fn cpu(&self, cpu: Cpu) -> Vec<(u32, Time, Time)> {
        self.table().into_iter().filter(|s| s.0 == cpu).map(|s| (s.1, s.2, s.3)).collect()
    }
}

/// The test's host: exact execution accounting and the segment log.
struct K {
    now: Time,
    running: Vec<Option<JobId>>,
    since: Vec<Time>,
    acc: HashMap<JobId, Time>,
    active: Vec<Option<Active>>,
    open: Vec<Option<Seg>>,
    segs: Vec<Seg>,
    switches: usize,
    conformance: Conformance,
    /// Per task: the instant its job last reached a preemption point.
    at_point: Vec<Option<Time>>,
    /// The counter source: `Some`: instructions = now, cycles = 2·now.
    counters: bool,
    /// The policy's events, when tracing.
    notes: Option<Vec<(Time, Option<Cpu>, PolicyEvent)>>,
    occupied: Vec<(Time, Cpu, Option<Activity>)>,
}

impl K {
    fn consumed_now(&self, job: JobId) -> Time {
        let base = self.acc.get(&job).copied().unwrap_or(0);
        match self.running.iter().position(|r| *r == Some(job)) {
            Some(c) => base + (self.now - self.since[c]),
            None => base,
        }
    }

    /// Ends the stint on CPU `c`.
    fn close(&mut self, c: usize) {
        if let Some(j) = self.running[c].take() {
            *self.acc.entry(j).or_insert(0) += self.now - self.since[c];
            let mut s = self.open[c].take().unwrap();
            s.end = self.now;
            if s.end > s.start {
                self.segs.push(s);
            }
        }
    }
}

impl Host for K {
    fn now(&self) -> Time {
        self.now
    }
    fn consumed(&self, job: JobId) -> Time {
        self.consumed_now(job)
    }
    fn running(&self, cpu: Cpu) -> Option<JobId> {
        self.running[cpu as usize]
    }
    fn counters(&mut self, _cpu: Cpu) -> Result<Counters, CountersUnavailable> {
        if !self.counters {
            return Err(CountersUnavailable::NoSource { what: "the test host" });
        }
        Ok(Counters { instructions: Some(self.now), cycles: Some(2 * self.now), ..Counters::default() })
    }
    fn tracing(&self) -> bool {
        self.notes.is_some()
    }
    fn note(&mut self, cpu: Option<Cpu>, event: PolicyEvent) {
        let now = self.now;
        if let Some(n) = self.notes.as_mut() {
            n.push((now, cpu, event));
        }
    }
    fn occupy(&mut self, cpu: Cpu, activity: Option<Activity>) {
        self.occupied.push((self.now, cpu, activity));
    }
    fn switch(&mut self, cpus: &[Cpu], chosen: &[Option<JobId>]) {
        let now = self.now;
        for &c in cpus {
            let (c, d) = (c as usize, chosen[c as usize]);
            if self.running[c] != d {
                if let (Some(j), Conformance::PriorityDriven { preemptive: false, .. }) =
                    (self.running[c], self.conformance)
                {
                    let a = self.active[j.task as usize];
                    assert!(
                        a.is_none() || a.unwrap().blocked,
                        "non-preemptive policy preempted {j:?} on CPU {c} at {now}"
                    );
                }
                if let (Some(j), Conformance::Deferred { .. }) = (self.running[c], self.conformance) {
                    let a = self.active[j.task as usize];
                    assert!(
                        a.is_none() || a.unwrap().blocked || self.at_point[j.task as usize] == Some(now),
                        "deferred-preemption policy preempted {j:?} on CPU {c} at {now}, not at a preemption point"
                    );
                }
                self.close(c);
            }
        }
        for &c in cpus {
            let (c, d) = (c as usize, chosen[c as usize]);
            if let Some(j) = d {
                if self.running[c] == Some(j) {
                    continue;
                }
                // The driver checked eligibility, placement and duplicates.
                assert!(!self.running.contains(&Some(j)), "{j:?} on two CPUs at {now}");
                self.running[c] = Some(j);
                self.since[c] = now;
                self.open[c] = Some(Seg { cpu: c as Cpu, task: j.task, seq: j.seq, start: now, end: now });
                self.switches += 1;
            }
        }
    }
}

#[derive(Clone, Copy)]
struct Active {
    job: Job,
    blocked: bool,
}

/// A task set: (wcet, period) in ns with implicit deadlines.
pub fn spec(cpus: u32, policy: PolicyName, tasks: &[(u64, u64)]) -> Spec {
    Spec {
        meta: None,
        platform: Platform { cpus, clusters: None, cache: None, memory: None },
        policy: Some(PolicySpec::named(policy)),
        overheads: None,
        reservations: None,
        mtt: None,
        tasks: tasks
            .iter()
            .enumerate()
            .map(|(i, &(c, p))| Task::new(format!("t{i}"), Duration(c), Duration(p)))
            .collect(),
    }
}

/// Runs `policy` on `spec`'s tasks over [0, horizon] (events at `horizon`
/// included), checking every instant.
/// `blocks`: (time, task, duration) — the task's current job blocks then.
pub fn run(spec: &Spec, policy: Box<dyn Policy>, horizon: Time, blocks: &[(Time, u32, Time)]) -> Run {
    try_run(spec, policy, horizon, blocks).unwrap_or_else(|e| panic!("{e}"))
}

/// Like [`run`], returning the driver's protocol error instead of panicking.
pub fn try_run(
    spec: &Spec,
    policy: Box<dyn Policy>,
    horizon: Time,
    blocks: &[(Time, u32, Time)],
) -> Result<Run, ProtocolError> {
    try_run_with(spec, policy, horizon, blocks, false)
}

/// Like [`try_run`]; `counters`: the host answers counter readings
/// (instructions = now, cycles = 2·now) instead of "no source".
pub fn try_run_with(
    spec: &Spec,
    policy: Box<dyn Policy>,
    horizon: Time,
    blocks: &[(Time, u32, Time)],
    counters: bool,
) -> Result<Run, ProtocolError> {
    try_run_host(spec, policy, horizon, blocks, counters, false)
}

/// Like [`run`], recording the policy's events (`Run::notes`).
pub fn run_traced(spec: &Spec, policy: Box<dyn Policy>, horizon: Time) -> Run {
    try_run_host(spec, policy, horizon, &[], false, true).unwrap_or_else(|e| panic!("{e}"))
}

fn try_run_host(
    spec: &Spec,
    mut policy: Box<dyn Policy>,
    horizon: Time,
    blocks: &[(Time, u32, Time)],
    counters: bool,
    traced: bool,
) -> Result<Run, ProtocolError> {
    let m = spec.platform.cpus as usize;
    let n = spec.tasks.len();
    let info = policy.info().clone();
    let mut drv: Driver = Driver::new(m as u32, info.placement.clone());
    let mut k = K {
        now: 0,
        running: vec![None; m],
        since: vec![0; m],
        acc: HashMap::new(),
        active: vec![None; n],
        open: vec![None; m],
        segs: Vec::new(),
        switches: 0,
        conformance: info.conformance,
        at_point: vec![None; n],
        counters,
        notes: traced.then(Vec::new),
        occupied: Vec::new(),
    };
    let mut next_rel: Vec<Time> = spec.tasks.iter().map(|t| t.offset.0).collect();
    let mut seq = vec![0u64; n];
    let mut resumes: Vec<(Time, u32)> = Vec::new();
    let mut pending_blocks: Vec<(Time, u32, Time)> = blocks.to_vec();
    let mut done = Vec::new();
    // A job's CPU time: the WCET, or the CPU total of what the job runs
    // itself (an `amp` job leaves some memory phases to the worker).
    let job_cpu: Vec<Time> = spec
        .tasks
        .iter()
        .map(|t| {
            if t.segmented() {
                t.job_segments().iter().filter(|g| g.kind.on_cpu()).map(|g| g.length.0).sum()
            } else {
                t.wcet.0
            }
        })
        .collect();
    let wcet = |t: u32| job_cpu[t as usize];
    // Per task: the consumed execution at which each segment but the last ends.
    let points: Vec<Vec<Time>> = spec
        .tasks
        .iter()
        .map(|t| {
            let s = t.job_segments();
            s[..s.len() - 1]
                .iter()
                .scan(0, |acc, g| {
                    *acc += g.length.0;
                    Some(*acc)
                })
                .collect()
        })
        .collect();
    let next_point = |t: u32, consumed: Time| points[t as usize].iter().copied().find(|&p| p > consumed);

    loop {
        // The next instant.
        let mut next = Time::MAX;
        for c in 0..m {
            if let Some(j) = k.running[c] {
                let done = k.consumed_now(j);
                let until = next_point(j.task, done).unwrap_or(wcet(j.task)).min(wcet(j.task));
                next = next.min(k.now + (until - done));
            }
        }
        for (a, &r) in k.active.iter().zip(&next_rel) {
            if a.is_none() {
                next = next.min(r);
            }
        }
        if let Some(at) = drv.next_timer() {
            next = next.min(at);
        }
        for &(at, _, _) in &pending_blocks {
            next = next.min(at);
        }
        for &(at, _) in &resumes {
            next = next.min(at);
        }
        if next > horizon {
            k.now = horizon;
            for c in 0..m {
                k.close(c);
            }
            break;
        }
        assert!(next >= k.now, "time went back");
        // Advance (consumed grows implicitly through `since`).
        k.now = next;
        let now = next;

        // Completions, in CPU order.
        for c in 0..m {
            if let Some(j) = k.running[c] {
                if k.consumed_now(j) >= wcet(j.task) {
                    k.close(c);
                    let a = k.active[j.task as usize].take().unwrap();
                    done.push(Done { id: j, deadline: a.job.deadline, finish: now });
                    drv.complete(j);
                }
            }
        }
        // Preemption points: running jobs at the end of a segment.
        for c in 0..m {
            if let Some(j) = k.running[c] {
                let done = k.consumed_now(j);
                if let Some(i) = points[j.task as usize].iter().position(|&p| p == done) {
                    k.at_point[j.task as usize] = Some(now);
                    drv.segment_end(j, i as u32, spec.tasks[j.task as usize].job_segments()[i].kind);
                }
            }
        }
        // Blocks, then resumes.
        let due_blocks: Vec<(Time, u32, Time)> = pending_blocks.iter().copied().filter(|b| b.0 == now).collect();
        pending_blocks.retain(|b| b.0 != now);
        for (_, t, dur) in due_blocks {
            if let Some(a) = k.active[t as usize].as_mut() {
                if !a.blocked {
                    a.blocked = true;
                    let id = a.job.id;
                    if let Some(c) = k.running.iter().position(|r| *r == Some(id)) {
                        k.close(c);
                    }
                    drv.block(id);
                    resumes.push((now + dur, t));
                }
            }
        }
        let due: Vec<u32> = resumes.iter().filter(|r| r.0 == now).map(|r| r.1).collect();
        resumes.retain(|r| r.0 != now);
        for t in due {
            if let Some(a) = k.active[t as usize].as_mut() {
                a.blocked = false;
                drv.resume(a.job.id);
            }
        }
        // Releases.
        for t in 0..n {
            if k.active[t].is_none() && next_rel[t] <= now {
                let r = next_rel[t];
                let job = Job {
                    id: JobId { task: t as u32, seq: seq[t] },
                    release: r,
                    deadline: r + spec.tasks[t].deadline().0,
                };
                seq[t] += 1;
                next_rel[t] = r + spec.tasks[t].period.0;
                k.active[t] = Some(Active { job, blocked: false });
                drv.release(job, (), now);
            }
        }
        // The protocol: delivery in order, timers, rounds of schedule, switches.
        drv.instant(policy.as_mut(), &mut k, now)?;
        // What each CPU runs, for execution-time timers.
        for c in 0..m {
            let run = k.running[c].map(|job| Running {
                job,
                from: k.since[c],
                consumed: k.acc.get(&job).copied().unwrap_or(0),
            });
            drv.runs(c as Cpu, run);
        }
        // Unmarked CPUs must answer what they run (no missed resched).
        for c in 0..m {
            assert_eq!(
                drv.ask(policy.as_mut(), &mut k, c as Cpu)?,
                k.running[c],
                "CPU {c} would change without resched at {now}"
            );
        }
        check_priorities(&info, &*policy, &k, &k.active);
    }
    Ok(Run { segs: k.segs, done, info, switches: k.switches, notes: k.notes.unwrap_or_default(), occupied: k.occupied })
}

/// In every domain: no idle CPU while a job waits; with preemption, no
/// waiting job beats a running one (by more than the hysteresis).
fn check_priorities(info: &PolicyInfo, policy: &dyn Policy, k: &K, active: &[Option<Active>]) {
    let Conformance::PriorityDriven { preemptive, work_conserving, hysteresis } = info.conformance else { return };
    for (d, cpus) in info.domains.iter().enumerate() {
        let view = |a: &Active| JobView {
            id: a.job.id,
            release: a.job.release,
            deadline: a.job.deadline,
            consumed: k.consumed_now(a.job.id),
            now: k.now,
        };
        let eligible: Vec<&Active> = active
            .iter()
            .enumerate()
            .filter_map(|(t, a)| a.as_ref().filter(|a| !a.blocked && info.domain_of(t) == d))
            .collect();
        let (running, waiting): (Vec<&Active>, Vec<&Active>) =
            eligible.into_iter().partition(|a| k.running.contains(&Some(a.job.id)));
        if work_conserving && !waiting.is_empty() {
            for &c in cpus {
                assert!(
                    k.running[c as usize].is_some(),
                    "CPU {c} idles while {:?} waits at {}",
                    waiting[0].job.id,
                    k.now
                );
            }
        }
        if !preemptive {
            continue;
        }
        for w in &waiting {
            let pw = policy.priority(&view(w)).unwrap();
            for r in &running {
                let pr = policy.priority(&view(r)).unwrap();
                assert!(
                    (pw.major + hysteresis as i128, pw.minor, pw.tie) >= (pr.major, pr.minor, pr.tie),
                    "at {}: waiting {:?} {pw:?} beats running {:?} {pr:?}",
                    k.now,
                    w.job.id,
                    r.job.id
                );
            }
        }
    }
}

/// A placement by CPU.
pub fn on_cpus(cpus: &[u32]) -> Vec<Placement> {
    cpus.iter().map(|&cpu| Placement::Cpu { cpu }).collect()
}
