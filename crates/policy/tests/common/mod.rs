//! A tiny in-test driver: periodic releases, exact WCET execution, scripted
//! blocking, the interface's event order, and checks on every instant
//! (a CPU's answer is stable without resched, no job on two CPUs, jobs stay
//! in their placement, and — as an oracle for `priority()` — the running jobs
//! of each domain are its top jobs by priority). Not a simulator: no
//! overheads, no sporadic arrivals.

#![allow(dead_code)]

use schedlab_model::{Duration, Placement, Platform, PolicyName, PolicySpec, Spec, Task};
use schedlab_policy::{Conformance, Cpu, Job, JobId, JobView, Kernel, Policy, PolicyInfo, Time, TimerId};
use std::collections::{BTreeMap, BTreeSet, HashMap};

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

struct K {
    now: Time,
    running: Vec<Option<JobId>>,
    since: Vec<Time>,
    acc: HashMap<JobId, Time>,
    timers: BTreeMap<(Time, u64), u64>,
    timer_at: HashMap<u64, Time>,
    next_timer: u64,
    resched: BTreeSet<Cpu>,
}

impl Kernel for K {
    fn now(&self) -> Time {
        self.now
    }
    fn consumed(&self, job: JobId) -> Time {
        let base = self.acc.get(&job).copied().unwrap_or(0);
        match self.running.iter().position(|r| *r == Some(job)) {
            Some(c) => base + (self.now - self.since[c]),
            None => base,
        }
    }
    fn running(&self, cpu: Cpu) -> Option<JobId> {
        self.running[cpu as usize]
    }
    fn resched(&mut self, cpu: Cpu) {
        self.resched.insert(cpu);
    }
    fn arm(&mut self, at: Time, tag: u64) -> TimerId {
        let id = self.next_timer;
        self.next_timer += 1;
        let at = at.max(self.now);
        self.timers.insert((at, id), tag);
        self.timer_at.insert(id, at);
        TimerId(id)
    }
    fn cancel(&mut self, timer: TimerId) {
        if let Some(at) = self.timer_at.remove(&timer.0) {
            self.timers.remove(&(at, timer.0));
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
        platform: Platform { cpus, clusters: None, cache: None },
        policy: Some(PolicySpec::named(policy)),
        overheads: None,
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
pub fn run(spec: &Spec, mut policy: Box<dyn Policy>, horizon: Time, blocks: &[(Time, u32, Time)]) -> Run {
    let m = spec.platform.cpus as usize;
    let n = spec.tasks.len();
    let info = policy.info().clone();
    let mut k = K {
        now: 0,
        running: vec![None; m],
        since: vec![0; m],
        acc: HashMap::new(),
        timers: BTreeMap::new(),
        timer_at: HashMap::new(),
        next_timer: 0,
        resched: BTreeSet::new(),
    };
    let mut next_rel: Vec<Time> = spec.tasks.iter().map(|t| t.offset.0).collect();
    let mut seq = vec![0u64; n];
    let mut active: Vec<Option<Active>> = vec![None; n];
    let mut resumes: Vec<(Time, u32)> = Vec::new();
    let mut pending_blocks: Vec<(Time, u32, Time)> = blocks.to_vec();
    let mut open: Vec<Option<Seg>> = vec![None; m];
    let mut segs = Vec::new();
    let mut done = Vec::new();
    let mut switches = 0;
    let wcet = |t: u32| spec.tasks[t as usize].wcet.0;

    let close = |k: &mut K, open: &mut Vec<Option<Seg>>, segs: &mut Vec<Seg>, c: usize| {
        if let Some(j) = k.running[c].take() {
            *k.acc.entry(j).or_insert(0) += k.now - k.since[c];
            let mut s = open[c].take().unwrap();
            s.end = k.now;
            if s.end > s.start {
                segs.push(s);
            }
        }
    };

    loop {
        // The next instant.
        let mut next = Time::MAX;
        for c in 0..m {
            if let Some(j) = k.running[c] {
                next = next.min(k.now + (wcet(j.task) - k.consumed(j)));
            }
        }
        for t in 0..n {
            if active[t].is_none() {
                next = next.min(next_rel[t]);
            }
        }
        if let Some((&(at, _), _)) = k.timers.iter().next() {
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
                close(&mut k, &mut open, &mut segs, c);
            }
            break;
        }
        assert!(next >= k.now, "time went back");
        // Advance (consumed grows implicitly through `since`).
        k.now = next;
        let now = next;

        // 1. Completions, in CPU order.
        for c in 0..m {
            if let Some(j) = k.running[c] {
                if k.consumed(j) >= wcet(j.task) {
                    close(&mut k, &mut open, &mut segs, c);
                    let a = active[j.task as usize].take().unwrap();
                    done.push(Done { id: j, deadline: a.job.deadline, finish: now });
                    policy.complete(j, &mut k);
                }
            }
        }
        // 2. Blocks, then resumes.
        let due_blocks: Vec<(Time, u32, Time)> = pending_blocks.iter().copied().filter(|b| b.0 == now).collect();
        pending_blocks.retain(|b| b.0 != now);
        for (_, t, dur) in due_blocks {
            if let Some(a) = active[t as usize].as_mut() {
                if !a.blocked {
                    a.blocked = true;
                    let id = a.job.id;
                    if let Some(c) = k.running.iter().position(|r| *r == Some(id)) {
                        close(&mut k, &mut open, &mut segs, c);
                    }
                    policy.block(id, &mut k);
                    resumes.push((now + dur, t));
                }
            }
        }
        let due: Vec<u32> = resumes.iter().filter(|r| r.0 == now).map(|r| r.1).collect();
        resumes.retain(|r| r.0 != now);
        for t in due {
            if let Some(a) = active[t as usize].as_mut() {
                a.blocked = false;
                policy.resume(a.job.id, &mut k);
            }
        }
        // 3. Releases, in task order.
        for t in 0..n {
            if active[t].is_none() && next_rel[t] <= now {
                let r = next_rel[t];
                let job = Job {
                    id: JobId { task: t as u32, seq: seq[t] },
                    release: r,
                    deadline: r + spec.tasks[t].deadline().0,
                };
                seq[t] += 1;
                next_rel[t] = r + spec.tasks[t].period.0;
                active[t] = Some(Active { job, blocked: false });
                policy.release(job, &mut k);
            }
        }
        // 4. Timers due, in arm order.
        let mut guard = 0;
        while let Some((&(at, id), &tag)) = k.timers.iter().next() {
            if at > now {
                break;
            }
            k.timers.remove(&(at, id));
            k.timer_at.remove(&id);
            policy.timer(TimerId(id), tag, &mut k);
            guard += 1;
            assert!(guard < 10_000, "timer storm at {now}");
        }
        // 5. Schedule the marked CPUs, then switch.
        let marked: Vec<Cpu> = std::mem::take(&mut k.resched).into_iter().filter(|&c| (c as usize) < m).collect();
        let decisions: Vec<(usize, Option<JobId>)> =
            marked.iter().map(|&c| (c as usize, policy.schedule(c, &mut k))).collect();
        for &(c, d) in &decisions {
            if k.running[c] != d {
                if let (Some(j), Conformance::PriorityDriven { preemptive: false, .. }) =
                    (k.running[c], info.conformance)
                {
                    let a = active[j.task as usize];
                    assert!(
                        a.is_none() || a.unwrap().blocked,
                        "non-preemptive policy preempted {j:?} on CPU {c} at {now}"
                    );
                }
                close(&mut k, &mut open, &mut segs, c);
            }
        }
        for &(c, d) in &decisions {
            if let Some(j) = d {
                if k.running[c] == Some(j) {
                    continue;
                }
                let a = active[j.task as usize]
                    .unwrap_or_else(|| panic!("CPU {c} got {j:?}, which is not released or completed, at {now}"));
                assert_eq!(a.job.id, j, "stale job at {now}");
                assert!(!a.blocked, "CPU {c} got blocked {j:?} at {now}");
                assert!(!k.running.contains(&Some(j)), "{j:?} on two CPUs at {now}");
                assert!(
                    info.placement[j.task as usize].allows(c as u32),
                    "{j:?} outside its placement on CPU {c} at {now}"
                );
                k.running[c] = Some(j);
                k.since[c] = now;
                open[c] = Some(Seg { cpu: c as Cpu, task: j.task, seq: j.seq, start: now, end: now });
                switches += 1;
            }
        }
        // Unmarked CPUs must answer what they run (no missed resched).
        for c in 0..m {
            assert_eq!(
                policy.schedule(c as Cpu, &mut k),
                k.running[c],
                "CPU {c} would change without resched at {now}"
            );
        }
        check_priorities(&info, &*policy, &k, &active);
    }
    Run { segs, done, info, switches }
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
            consumed: k.consumed(a.job.id),
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

/// A small deterministic generator (LCG) for task sets.
pub struct Lcg(pub u64);
impl Lcg {
    pub fn next(&mut self, below: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) % below
    }
}
