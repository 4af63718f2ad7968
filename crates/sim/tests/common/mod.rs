//! Small policies and spec builders for the simulator's tests (the real
//! policies live in schedlab-policy).
#![allow(dead_code)]

use schedlab_model::{Duration, Placement, Platform, Spec, Task};
use schedlab_policy::{Conformance, Cpu, Job, JobId, JobView, Kernel, Policy, PolicyInfo, Priority, Time, TimerId};
use schedlab_trace::Event;

pub fn task(name: &str, wcet: u64, period: u64) -> Task {
    Task::new(name, Duration(wcet), Duration(period))
}

pub fn spec(cpus: u32, tasks: Vec<Task>) -> Spec {
    Spec {
        meta: None,
        platform: Platform { cpus, clusters: None, cache: None, memory: None },
        policy: None,
        overheads: None,
        tasks,
        reservations: None,
        mtt: None,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    Edf,
    Fifo,
}

/// Global top-m scheduling by EDF or FIFO order (m = 1: uniprocessor). Jobs
/// already running keep their CPU when they stay in the top m.
pub struct TopM {
    info: PolicyInfo,
    order: Order,
    m: u32,
    ready: Vec<Job>,
    assignment: Vec<Option<JobId>>,
    cache: Option<(Time, u64)>,
    version: u64,
}

impl TopM {
    pub fn new(spec: &Spec, order: Order) -> TopM {
        let m = spec.platform.cpus;
        TopM {
            info: PolicyInfo {
                name: "test-top-m",
                domains: vec![(0..m).collect()],
                placement: vec![Placement::Global; spec.tasks.len()],
                conformance: Conformance::PriorityDriven { preemptive: true, work_conserving: true, hysteresis: 0 },
                quantum: None,
            },
            order,
            m,
            ready: Vec::with_capacity(spec.tasks.len()),
            assignment: vec![None; m as usize],
            cache: None,
            version: 0,
        }
    }
    pub fn edf(spec: &Spec) -> TopM {
        TopM::new(spec, Order::Edf)
    }
    pub fn fifo(spec: &Spec) -> TopM {
        TopM::new(spec, Order::Fifo)
    }
    fn key(&self, j: &Job) -> (Time, u32, u64) {
        match self.order {
            Order::Edf => (j.deadline, j.id.task, j.id.seq),
            Order::Fifo => (j.release, j.id.task, j.id.seq),
        }
    }
    fn compute(&mut self, k: &dyn Kernel) {
        let mut sorted: Vec<Job> = self.ready.clone();
        sorted.sort_by_key(|j| self.key(j));
        sorted.truncate(self.m as usize);
        let top: Vec<JobId> = sorted.iter().map(|j| j.id).collect();
        let mut taken = vec![false; top.len()];
        for c in 0..self.m {
            self.assignment[c as usize] = None;
            if let Some(r) = k.running(c) {
                if let Some(i) = top.iter().position(|&t| t == r) {
                    self.assignment[c as usize] = Some(r);
                    taken[i] = true;
                }
            }
        }
        let mut rest = top.iter().zip(&taken).filter(|(_, &t)| !t).map(|(j, _)| *j);
        for c in 0..self.m as usize {
            if self.assignment[c].is_none() {
                self.assignment[c] = rest.next();
            }
        }
    }
    fn all(&self, k: &mut dyn Kernel) {
        for c in 0..self.m {
            k.resched(c);
        }
    }
}

impl Policy for TopM {
    fn info(&self) -> &PolicyInfo {
        &self.info
    }
    fn release(&mut self, job: Job, k: &mut dyn Kernel) {
        self.ready.push(job);
        self.version += 1;
        self.all(k);
    }
    fn complete(&mut self, job: JobId, k: &mut dyn Kernel) {
        self.ready.retain(|j| j.id != job);
        self.version += 1;
        self.all(k);
    }
    fn block(&mut self, _job: JobId, _k: &mut dyn Kernel) {}
    fn resume(&mut self, _job: JobId, _k: &mut dyn Kernel) {}
    fn timer(&mut self, _timer: TimerId, _tag: u64, _k: &mut dyn Kernel) {}
    fn schedule(&mut self, cpu: Cpu, k: &mut dyn Kernel) -> Option<JobId> {
        if self.cache != Some((k.now(), self.version)) {
            self.compute(k);
            self.cache = Some((k.now(), self.version));
        }
        self.assignment[cpu as usize]
    }
    fn priority(&self, job: &JobView) -> Option<Priority> {
        Some(Priority::new(job.deadline as i128, 0, job.id.task))
    }
}

/// Releases of a task: (time, job, deadline).
pub fn releases(events: &[Event], task: u32) -> Vec<(Time, u64, Time)> {
    events
        .iter()
        .filter_map(|e| match *e {
            Event::Release { t, task: tk, job, deadline } if tk == task => Some((t, job, deadline)),
            _ => None,
        })
        .collect()
}

/// Completions of a task: (time, job, exec, forced).
pub fn completions(events: &[Event], task: u32) -> Vec<(Time, u64, Time, bool)> {
    events
        .iter()
        .filter_map(|e| match *e {
            Event::Completion { t, task: tk, job, exec, forced, .. } if tk == task => Some((t, job, exec, forced)),
            _ => None,
        })
        .collect()
}

pub fn misses(events: &[Event]) -> Vec<(Time, u32, u64)> {
    events
        .iter()
        .filter_map(|e| match *e {
            Event::DeadlineMiss { t, task, job } => Some((t, task, job)),
            _ => None,
        })
        .collect()
}

/// Checks invariants every simulated trace has: sorted by time, no job on
/// two CPUs, no CPU running two jobs, switch-to only of released,
/// incomplete jobs.
pub fn check_trace(events: &[Event], cpus: usize) {
    use std::collections::HashMap;
    let mut last = 0;
    let mut on: Vec<Option<(u32, u64)>> = vec![None; cpus];
    let mut where_: HashMap<(u32, u64), u32> = HashMap::new();
    let mut released: std::collections::HashSet<(u32, u64)> = Default::default();
    let mut done: std::collections::HashSet<(u32, u64)> = Default::default();
    for e in events {
        assert!(e.t() >= last, "trace not sorted at {e:?}");
        last = e.t();
        match *e {
            Event::Release { task, job, .. } => {
                released.insert((task, job));
            }
            Event::SwitchTo { cpu, task, job, .. } => {
                assert!(released.contains(&(task, job)) && !done.contains(&(task, job)), "{e:?}");
                assert!(on[cpu as usize].is_none(), "CPU busy: {e:?}");
                assert!(!where_.contains_key(&(task, job)), "job on two CPUs: {e:?}");
                on[cpu as usize] = Some((task, job));
                where_.insert((task, job), cpu);
            }
            Event::SwitchAway { cpu, task, job, .. } => {
                assert_eq!(on[cpu as usize], Some((task, job)), "{e:?}");
                on[cpu as usize] = None;
                where_.remove(&(task, job));
            }
            Event::Completion { task, job, .. } => {
                assert!(!where_.contains_key(&(task, job)), "completed while running: {e:?}");
                done.insert((task, job));
            }
            _ => {}
        }
    }
}
