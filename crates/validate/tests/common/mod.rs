//! Test helpers: specs, headers, a trace builder, and small policies written
//! here (so the validator is tested independently of `schedlab_policy`'s).
#![allow(dead_code)]

use schedlab_model::{Duration, Placement, Platform, PolicyName, PolicySpec, Spec, Task};
use schedlab_policy::{
    Conformance, Cpu, Job, JobId, JobView, Kernel, Policy, PolicyInfo, Preemption, Priority, TimerId,
};
use schedlab_trace::{Event, Header, Source, SwitchReason, Time};
use schedlab_validate::{validate_with, Check, Options, Report};
use std::collections::{BTreeMap, HashSet};

pub const MS: Time = 1_000_000;
pub const US: Time = 1_000;

/// Milliseconds, with decimals: `ms(3.5)`.
pub fn ms(x: f64) -> Time {
    (x * 1e6).round() as Time
}

/// A task: (name, wcet, period); deadline = period.
pub fn task(name: &str, wcet: Time, period: Time) -> Task {
    Task::new(name, Duration(wcet), Duration(period))
}

pub fn spec(cpus: u32, tasks: Vec<Task>, policy: Option<PolicyName>) -> Spec {
    Spec {
        meta: None,
        platform: Platform { cpus, clusters: None, cache: None, memory: None },
        policy: policy.map(PolicySpec::named),
        overheads: None,
        reservations: None,
        mtt: None,
        tasks,
    }
}

pub fn header(spec: Spec, placement: Vec<Placement>, horizon: Time) -> Header {
    Header {
        schedlab_trace: schedlab_trace::SCHEMA_VERSION,
        tool: "test".into(),
        source: Source::Simulator,
        clock: "virtual".into(),
        seed: 0,
        placement: if placement.is_empty() { vec![Placement::Global; spec.tasks.len()] } else { placement },
        spec,
        horizon,
        slowed: false,
    }
}

/// Builds event lists; deadlines default to release + the task's deadline.
pub struct Trace {
    pub deadlines: Vec<Time>,
    pub events: Vec<Event>,
}

impl Trace {
    pub fn new(spec: &Spec) -> Trace {
        Trace { deadlines: spec.tasks.iter().map(|t| t.deadline().0).collect(), events: Vec::new() }
    }
    pub fn rel(mut self, t: Time, task: u32, job: u64) -> Trace {
        let deadline = t + self.deadlines[task as usize];
        self.events.push(Event::Release { t, task, job, deadline });
        self
    }
    pub fn rel_d(mut self, t: Time, task: u32, job: u64, deadline: Time) -> Trace {
        self.events.push(Event::Release { t, task, job, deadline });
        self
    }
    pub fn to(mut self, t: Time, cpu: u32, task: u32, job: u64) -> Trace {
        self.events.push(Event::SwitchTo { t, cpu, task, job });
        self
    }
    pub fn away(self, t: Time, cpu: u32, task: u32, job: u64) -> Trace {
        self.away_r(t, cpu, task, job, SwitchReason::Preempt)
    }
    pub fn away_r(mut self, t: Time, cpu: u32, task: u32, job: u64, reason: SwitchReason) -> Trace {
        self.events.push(Event::SwitchAway { t, cpu, task, job, reason, exec: 0 });
        self
    }
    pub fn done(mut self, t: Time, cpu: u32, task: u32, job: u64) -> Trace {
        self.events.push(Event::Completion { t, cpu, task, job, exec: 0, forced: false });
        self
    }
    pub fn block(mut self, t: Time, task: u32, job: u64) -> Trace {
        self.events.push(Event::Block { t, task, job });
        self
    }
    pub fn resume(mut self, t: Time, task: u32, job: u64) -> Trace {
        self.events.push(Event::Resume { t, task, job });
        self
    }
    pub fn ev(mut self, e: Event) -> Trace {
        self.events.push(e);
        self
    }
}

/// How the test policy orders jobs.
#[derive(Debug, Clone)]
pub enum Order {
    Edf,
    /// Fixed priority per task (smaller is more urgent).
    Fp(Vec<i128>),
    /// Least laxity; the WCETs of the tasks.
    Llf(Vec<Time>),
}

/// A small job-level priority-driven policy with its own linking state, so
/// that replay compares real decisions, not the trace's.
pub struct TestPolicy {
    info: PolicyInfo,
    order: Order,
    preemptive: bool,
    jobs: BTreeMap<JobId, Job>,
    blocked: HashSet<JobId>,
    linked: Vec<Option<JobId>>,
    cpus: u32,
}

impl TestPolicy {
    pub fn new(
        name: &'static str,
        cpus: u32,
        domains: Vec<Vec<u32>>,
        placement: Vec<Placement>,
        order: Order,
        conformance: Conformance,
    ) -> TestPolicy {
        let preemptive = conformance.preemption() == Preemption::Full;
        TestPolicy {
            info: PolicyInfo { name, domains, placement, conformance, quantum: None },
            order,
            preemptive,
            jobs: BTreeMap::new(),
            blocked: HashSet::new(),
            linked: vec![None; cpus as usize],
            cpus,
        }
    }

    /// Global EDF over all CPUs.
    pub fn gedf(h: &Header) -> Box<TestPolicy> {
        let m = h.spec.platform.cpus;
        Box::new(TestPolicy::new("gedf", m, vec![(0..m).collect()], h.placement.clone(), Order::Edf, pd(true, true, 0)))
    }

    /// Non-preemptive global EDF.
    pub fn np_gedf(h: &Header) -> Box<TestPolicy> {
        let m = h.spec.platform.cpus;
        Box::new(TestPolicy::new(
            "np-gedf",
            m,
            vec![(0..m).collect()],
            h.placement.clone(),
            Order::Edf,
            pd(false, true, 0),
        ))
    }

    /// Partitioned EDF: one domain per CPU.
    pub fn pedf(h: &Header) -> Box<TestPolicy> {
        let m = h.spec.platform.cpus;
        Box::new(TestPolicy::new(
            "pedf",
            m,
            (0..m).map(|c| vec![c]).collect(),
            h.placement.clone(),
            Order::Edf,
            pd(true, true, 0),
        ))
    }

    /// Global LLF with hysteresis.
    pub fn llf(h: &Header, hysteresis: Time) -> Box<TestPolicy> {
        let m = h.spec.platform.cpus;
        let wcet = h.spec.tasks.iter().map(|t| t.wcet.0).collect();
        Box::new(TestPolicy::new(
            "llf",
            m,
            vec![(0..m).collect()],
            h.placement.clone(),
            Order::Llf(wcet),
            pd(true, true, hysteresis),
        ))
    }

    /// Global fixed priority.
    pub fn gfp(h: &Header, prios: Vec<i128>, work_conserving: bool) -> Box<TestPolicy> {
        let m = h.spec.platform.cpus;
        Box::new(TestPolicy::new(
            "gfp",
            m,
            vec![(0..m).collect()],
            h.placement.clone(),
            Order::Fp(prios),
            pd(true, work_conserving, 0),
        ))
    }

    /// The same policy declaring `Conformance::Replay`.
    pub fn as_replay(mut self: Box<Self>) -> Box<TestPolicy> {
        self.info.conformance = Conformance::Replay;
        self
    }

    fn prio(&self, id: JobId, release: Time, deadline: Time, consumed: Time, now: Time) -> Priority {
        match &self.order {
            Order::Edf => Priority::new(deadline as i128, 0, id.task),
            Order::Fp(p) => Priority::new(p[id.task as usize], 0, id.task),
            Order::Llf(w) => {
                let _ = release;
                Priority::new(
                    deadline as i128 - now as i128 - (w[id.task as usize] as i128 - consumed as i128),
                    0,
                    id.task,
                )
            }
        }
    }

    fn resched_all(&self, k: &mut dyn Kernel) {
        for c in 0..self.cpus {
            k.resched(c);
        }
    }

    /// Relinks the domain of `cpu`: keep linked jobs that stay in the top
    /// (or, non-preemptive, keep every linked job), fill the other CPUs in
    /// increasing order with the best waiting jobs.
    fn relink(&mut self, cpu: Cpu, k: &mut dyn Kernel) {
        let Some(dom) = self.info.domains.iter().find(|d| d.contains(&cpu)).cloned() else { return };
        let now = k.now();
        let mut ready: Vec<(Priority, JobId)> = self
            .jobs
            .values()
            .filter(|j| !self.blocked.contains(&j.id))
            .filter(|j| dom.iter().any(|&c| self.info.placement[j.id.task as usize].allows(c)))
            .map(|j| (self.prio(j.id, j.release, j.deadline, k.consumed(j.id), now), j.id))
            .collect();
        ready.sort();
        // Drop links to jobs that are gone.
        for &c in &dom {
            if let Some(j) = self.linked[c as usize] {
                if !self.jobs.contains_key(&j) || self.blocked.contains(&j) {
                    self.linked[c as usize] = None;
                }
            }
        }
        let top: Vec<JobId> = if self.preemptive {
            ready.iter().take(dom.len()).map(|x| x.1).collect()
        } else {
            let mut t: Vec<JobId> = dom.iter().filter_map(|&c| self.linked[c as usize]).collect();
            for &(_, j) in &ready {
                if t.len() >= dom.len() {
                    break;
                }
                if !t.contains(&j) {
                    t.push(j);
                }
            }
            t
        };
        for &c in &dom {
            if let Some(j) = self.linked[c as usize] {
                if !top.contains(&j) {
                    self.linked[c as usize] = None;
                }
            }
        }
        for j in top {
            if dom.iter().any(|&c| self.linked[c as usize] == Some(j)) {
                continue;
            }
            if let Some(&c) = dom.iter().find(|&&c| self.linked[c as usize].is_none()) {
                self.linked[c as usize] = Some(j);
            }
        }
    }
}

pub fn pd(preemptive: bool, work_conserving: bool, hysteresis: Time) -> Conformance {
    Conformance::PriorityDriven { preemptive, work_conserving, hysteresis }
}

impl Policy for TestPolicy {
    fn info(&self) -> &PolicyInfo {
        &self.info
    }
    fn release(&mut self, job: Job, k: &mut dyn Kernel) {
        self.jobs.insert(job.id, job);
        self.resched_all(k);
    }
    fn complete(&mut self, job: JobId, k: &mut dyn Kernel) {
        self.jobs.remove(&job);
        self.blocked.remove(&job);
        self.resched_all(k);
    }
    fn block(&mut self, job: JobId, k: &mut dyn Kernel) {
        self.blocked.insert(job);
        self.resched_all(k);
    }
    fn resume(&mut self, job: JobId, k: &mut dyn Kernel) {
        self.blocked.remove(&job);
        self.resched_all(k);
    }
    fn timer(&mut self, _timer: TimerId, _tag: u64, k: &mut dyn Kernel) {
        self.resched_all(k);
    }
    fn schedule(&mut self, cpu: Cpu, k: &mut dyn Kernel) -> Option<JobId> {
        self.relink(cpu, k);
        self.linked[cpu as usize]
    }
    fn priority(&self, v: &JobView) -> Option<Priority> {
        Some(self.prio(v.id, v.release, v.deadline, v.consumed, v.now))
    }
}

/// Validates with the given policy (or generic only with `None`), tolerance 0.
pub fn check(h: &Header, t: &Trace, policy: Option<Box<dyn Policy>>) -> Report {
    check_opts(h, t, policy, &Options::default())
}

pub fn check_opts(h: &Header, t: &Trace, policy: Option<Box<dyn Policy>>, o: &Options) -> Report {
    validate_with(h, t.events.clone(), o, policy).expect("the trace can be validated")
}

/// Asserts the report passes, printing it otherwise.
pub fn assert_pass(r: &Report) {
    assert!(r.pass, "expected a pass:\n{}", r.render());
}

/// Asserts exactly the given checks failed.
pub fn assert_fails(r: &Report, checks: &[Check]) {
    let mut want = checks.to_vec();
    want.sort();
    let mut got = r.failed();
    got.sort();
    assert_eq!(got, want, "report:\n{}", r.render());
}

/// The G-EDF example on 2 CPUs used by several tests:
///
/// tasks T1 (3ms/10ms), T2 (4ms/10ms), T3 (5ms/20ms), T4 (1ms/20ms, deadline 2ms).
///
/// ```text
/// t=0    release T1#0 (d10) T2#0 (d10) T3#0 (d20); cpu0 T1#0, cpu1 T2#0
/// t=3    T1#0 completes; cpu0 T3#0
/// t=3.5  release T4#0 (d5.5): preempts T3#0 (latest deadline) on cpu0
/// t=4    T2#0 completes; cpu1 T3#0 (migrates)
/// t=4.5  T4#0 completes; cpu0 idle
/// t=8.5  T3#0 completes (0.5 + 4.5 = 5ms)
/// t=10   release T1#1 T2#1 (d20); cpu0 T1#1, cpu1 T2#1
/// t=13   T1#1 completes; t=14 T2#1 completes. Horizon 20ms.
/// ```
pub fn gedf_example() -> (Header, Trace) {
    let mut t4 = task("T4", MS, 20 * MS);
    t4.deadline = Some(Duration(2 * MS));
    let s = spec(
        2,
        vec![task("T1", 3 * MS, 10 * MS), task("T2", 4 * MS, 10 * MS), task("T3", 5 * MS, 20 * MS), t4],
        Some(PolicyName::Gedf),
    );
    let tr = Trace::new(&s)
        .rel(0, 0, 0)
        .rel(0, 1, 0)
        .rel(0, 2, 0)
        .to(0, 0, 0, 0)
        .to(0, 1, 1, 0)
        .done(3 * MS, 0, 0, 0)
        .to(3 * MS, 0, 2, 0)
        .rel(ms(3.5), 3, 0)
        .away(ms(3.5), 0, 2, 0)
        .to(ms(3.5), 0, 3, 0)
        .done(4 * MS, 1, 1, 0)
        .to(4 * MS, 1, 2, 0)
        .done(ms(4.5), 0, 3, 0)
        .done(ms(8.5), 1, 2, 0)
        .rel(10 * MS, 0, 1)
        .rel(10 * MS, 1, 1)
        .to(10 * MS, 0, 0, 1)
        .to(10 * MS, 1, 1, 1)
        .done(13 * MS, 0, 0, 1)
        .done(14 * MS, 1, 1, 1);
    (header(s, vec![], 20 * MS), tr)
}
