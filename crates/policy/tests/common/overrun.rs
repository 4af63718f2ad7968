//! A test policy for execution-time timers, counters and progress rates,
//! shared by the policy, simulator, validator and runtime tests (included
//! with `#[path]`): preemptive fixed priority on CPU 0 by task index (task
//! 0 first); each job gets an execution-time budget (`Kernel::arm_exec` at
//! its release), and a job that exhausts it (a WCET-overrun notice) drops
//! to the background, below every job within its budget (by task index
//! among the background jobs). It logs every expiry with the time and the
//! job's consumption, and at each release the CPU's counters (or why there
//! are none) and rate; it schedules the same whether counters are
//! available or not.

#![allow(dead_code)]

use schedlab_model::Placement;
use schedlab_policy::{
    Conformance, Counters, CountersUnavailable, Cpu, Job, JobId, JobView, Kernel, Policy, PolicyInfo, Priority, Rate,
    Time, TimerId,
};
use std::sync::{Arc, Mutex};

/// What the policy saw.
#[derive(Debug, Default, Clone)]
pub struct OverrunLog {
    /// (job, now, consumed) at each budget expiry.
    pub expiries: Vec<(JobId, Time, Time)>,
    /// At each release: the counters of CPU 0 or why there are none.
    pub counters: Vec<Result<Counters, CountersUnavailable>>,
    /// At each release: the rate of CPU 0.
    pub rates: Vec<Rate>,
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    job: JobId,
    /// It exhausted its budget.
    over: bool,
    blocked: bool,
}

pub struct Overrun {
    info: PolicyInfo,
    budget: Vec<Time>,
    /// Per task: its released job.
    ready: Vec<Option<Entry>>,
    /// Per task: the budget timer of its job.
    timer: Vec<Option<TimerId>>,
    pub log: Arc<Mutex<OverrunLog>>,
}

impl Overrun {
    /// `budget[i]`: task i's budget per job (CPU time).
    pub fn new(budget: Vec<Time>) -> Overrun {
        let n = budget.len();
        Overrun {
            info: PolicyInfo {
                name: "overrun-test",
                domains: vec![vec![0]],
                placement: vec![Placement::Cpu { cpu: 0 }; n],
                conformance: Conformance::Replay,
                quantum: None,
            },
            budget,
            ready: vec![None; n],
            timer: vec![None; n],
            log: Arc::default(),
        }
    }
}

impl Policy for Overrun {
    fn info(&self) -> &PolicyInfo {
        &self.info
    }
    fn release(&mut self, job: Job, k: &mut dyn Kernel) {
        let t = job.id.task as usize;
        self.ready[t] = Some(Entry { job: job.id, over: false, blocked: false });
        self.timer[t] = Some(k.arm_exec(job.id, self.budget[t], t as u64));
        let mut log = self.log.lock().unwrap();
        log.counters.push(k.counters(0));
        log.rates.push(k.rate(0));
        k.resched(0);
    }
    fn complete(&mut self, job: JobId, k: &mut dyn Kernel) {
        let t = job.task as usize;
        self.ready[t] = None;
        // The driver dropped the timer with the job: cancelling is a no-op.
        if let Some(id) = self.timer[t].take() {
            k.cancel(id);
        }
        k.resched(0);
    }
    fn block(&mut self, job: JobId, k: &mut dyn Kernel) {
        if let Some(r) = self.ready[job.task as usize].as_mut() {
            r.blocked = true;
        }
        k.resched(0);
    }
    fn resume(&mut self, job: JobId, k: &mut dyn Kernel) {
        if let Some(r) = self.ready[job.task as usize].as_mut() {
            r.blocked = false;
        }
        k.resched(0);
    }
    fn timer(&mut self, _timer: TimerId, tag: u64, k: &mut dyn Kernel) {
        let t = tag as usize;
        self.timer[t] = None;
        if let Some(r) = self.ready[t].as_mut() {
            r.over = true;
            let consumed = k.consumed(r.job);
            self.log.lock().unwrap().expiries.push((r.job, k.now(), consumed));
        }
        k.resched(0);
    }
    fn schedule(&mut self, _cpu: Cpu, _k: &mut dyn Kernel) -> Option<JobId> {
        self.ready
            .iter()
            .enumerate()
            .filter_map(|(t, r)| r.filter(|r| !r.blocked).map(|r| (r.over, t, r.job)))
            .min()
            .map(|(_, _, j)| j)
    }
    fn priority(&self, _job: &JobView) -> Option<Priority> {
        None
    }
}
