//! The two-phase colour-aware scheduler of the EPOS thesis (Gracioli 2014,
//! Ch.8; `cap-gs-dynamic`): CAP-GS places the tasks offline
//! (`schedlab_admission::colour`), each CPU runs fixed priority with the
//! classes banded (HRT above SRT above BE, the spec's order inside a class),
//! and every quantum each CPU's counter (HITM, i.e. coherence misses, by
//! default) is read: when it rose by more than the threshold over the last
//! quantum and the job running there may be throttled (a BE task, or one
//! whose `priority` is in `throttle_range`), that job leaves the CPU.
//!
//! What "leaves" means is `throttle`:
//! - `hold` (default, the semantics the seed notes recommend): the job is
//!   kept off its CPU while a real-time task that shares a colour with it
//!   has an unfinished job; it is let back as soon as the last such job
//!   completes, or at a quantum boundary where none is unfinished. A job
//!   that shares no colour with a real-time task is never held (nothing
//!   it disturbs);
//! - `yield` (the thesis' literal `Thread::yield()`, Fig. 96): the job is
//!   off its CPU until the CPU's next scheduling event (a release or a
//!   completion of one of its tasks) or the next quantum boundary.
//!
//! A throttled job is to its CPU's scheduler a blocked job: the CPU runs
//! the next job or idles (the thesis: "another thread, idle included").
//! Each CPU samples on its own timer (the thesis arms one timer on CPU 0
//! and decides per CPU; the notes' fix, §1.7). When the driver has no
//! counters the policy says so once (a `counters-unavailable` event) and
//! schedules as plain class-banded P-FP. Throttle decisions are typed
//! trace events (`throttle`, `unthrottle`), and the readings are recorded
//! by the driver as `counter-sample` events, so the validator checks a
//! schedule by replaying the policy (its decisions depend on counters, not
//! on priorities alone).

use crate::engine::Engine;
use crate::fp::Fp;
use crate::interface::{
    Conformance, Counters, Cpu, Job, JobId, JobView, Kernel, Policy, PolicyEvent, PolicyInfo, Priority, Time, TimerId,
};
use schedlab_admission::colour::groups::share;
use schedlab_model::{Class, SegmentKind, Spec, ThrottleCounter, ThrottleMode};

/// Tags of the sampling timers: bit 62 and the CPU (the engine uses bit 63
/// and task indices below 2³²). Public for benchmarks of the hook.
pub const SAMPLE_TAG: u64 = 1 << 62;

/// The sampling quantum when the spec gives none (the thesis' 10 ms).
pub const DEFAULT_QUANTUM: Time = 10_000_000;
/// The threshold when the spec gives none (the thesis' experiments: 4).
pub const DEFAULT_THRESHOLD: u64 = 4;

pub(crate) struct Throttle {
    inner: Engine<Fp>,
    info: PolicyInfo,
    quantum: Time,
    threshold: u64,
    counter: ThrottleCounter,
    mode: ThrottleMode,
    /// Per task: may be throttled.
    throttleable: Vec<bool>,
    /// Per task: the real-time tasks sharing a colour with it.
    sharers: Vec<Vec<u32>>,
    /// Per task: its CPU.
    cpu_of: Vec<Cpu>,
    /// Per task: its released, unfinished job.
    active: Vec<Option<JobId>>,
    /// Per CPU: the counter at the last sample.
    last: Vec<Option<u64>>,
    /// Per CPU: the job held off it.
    held: Vec<Option<JobId>>,
    /// Per CPU: the job the last `schedule` gave it (the job running there
    /// as the policy decided it; a driver's own view may already show the
    /// instant's switches, a replay's does).
    current: Vec<Option<JobId>>,
    started: bool,
    unavailable: bool,
}

impl Throttle {
    pub fn new(inner: Engine<Fp>, spec: &Spec) -> Throttle {
        let pol = spec.policy.as_ref().expect("built from a policy");
        let n = spec.tasks.len();
        let m = spec.platform.cpus as usize;
        let throttleable = spec
            .tasks
            .iter()
            .map(|t| match pol.throttle_range {
                Some([lo, hi]) => t.priority.is_some_and(|p| lo <= p && p <= hi),
                None => t.class == Class::Be,
            })
            .collect();
        let sharers = (0..n)
            .map(|i| {
                let Some(ci) = &spec.tasks[i].colors else { return Vec::new() };
                (0..n)
                    .filter(|&j| j != i && spec.tasks[j].class != Class::Be)
                    .filter(|&j| spec.tasks[j].colors.as_ref().is_some_and(|cj| share(ci, cj)))
                    .map(|j| j as u32)
                    .collect()
            })
            .collect();
        let cpu_of = inner.info().placement.iter().map(|p| p.cpu().unwrap_or(0)).collect();
        let quantum = pol.quantum.map_or(DEFAULT_QUANTUM, |q| q.0.max(1));
        let mut info = inner.info().clone();
        info.name = "cap-gs-dynamic";
        info.conformance = Conformance::Replay;
        info.quantum = Some(quantum);
        Throttle {
            inner,
            info,
            quantum,
            threshold: pol.threshold.unwrap_or(DEFAULT_THRESHOLD),
            counter: pol.counter.unwrap_or_default(),
            mode: pol.throttle.unwrap_or_default(),
            throttleable,
            sharers,
            cpu_of,
            active: vec![None; n],
            last: vec![None; m],
            held: vec![None; m],
            current: vec![None; m],
            started: false,
            unavailable: false,
        }
    }

    fn value(&self, c: &Counters) -> Option<u64> {
        match self.counter {
            ThrottleCounter::CoherenceMisses => c.coherence_misses,
            ThrottleCounter::CacheMisses => c.cache_misses,
        }
    }

    /// The counter of `cpu` now, or `None` (said once in the trace).
    fn read(&mut self, cpu: Cpu, k: &mut dyn Kernel) -> Option<u64> {
        let got = k.counters(cpu);
        let value = got.as_ref().ok().and_then(|c| self.value(c));
        if value.is_none() && !self.unavailable {
            self.unavailable = true;
            if k.tracing() {
                let reason = match got {
                    Err(e) => e.to_string(),
                    Ok(_) => format!("the counter source does not count {}", self.counter.text()),
                };
                k.note(Some(cpu), PolicyEvent::CountersUnavailable { reason });
            }
        }
        value
    }

    /// Whether a real-time task sharing a colour with `task` has unfinished work.
    fn disturbed(&self, task: u32) -> bool {
        self.sharers[task as usize].iter().any(|&s| self.active[s as usize].is_some())
    }

    fn hold(&mut self, cpu: Cpu, job: JobId, count: u64, k: &mut dyn Kernel) {
        self.held[cpu as usize] = Some(job);
        if k.tracing() {
            k.note(Some(cpu), PolicyEvent::Throttle { task: job.task, job: job.seq, count });
        }
        self.inner.block(job, k);
    }

    fn unhold(&mut self, cpu: Cpu, k: &mut dyn Kernel) {
        if let Some(job) = self.held[cpu as usize].take() {
            if k.tracing() {
                k.note(Some(cpu), PolicyEvent::Unthrottle { task: job.task, job: job.seq });
            }
            self.inner.resume(job, k);
        }
    }

    /// The quantum boundary of `cpu`: the hook of the thesis' Fig. 96–97.
    fn sample(&mut self, cpu: Cpu, k: &mut dyn Kernel) {
        let now = k.now();
        k.arm(now + self.quantum, SAMPLE_TAG | cpu as u64);
        match self.mode {
            ThrottleMode::Yield => self.unhold(cpu, k),
            ThrottleMode::Hold => {
                if let Some(h) = self.held[cpu as usize] {
                    if !self.disturbed(h.task) {
                        self.unhold(cpu, k);
                    }
                }
            }
        }
        let Some(value) = self.read(cpu, k) else { return };
        let before = self.last[cpu as usize].replace(value);
        let count = value.saturating_sub(before.unwrap_or(value));
        if count <= self.threshold {
            return;
        }
        let Some(job) = self.current[cpu as usize] else { return };
        if !self.throttleable.get(job.task as usize).copied().unwrap_or(false) || self.held[cpu as usize].is_some() {
            return;
        }
        if self.mode == ThrottleMode::Yield || self.disturbed(job.task) {
            self.hold(cpu, job, count, k);
        }
    }

    /// First release: every CPU's sampling starts (baseline reading, timer).
    fn start(&mut self, k: &mut dyn Kernel) {
        self.started = true;
        let now = k.now();
        for cpu in 0..self.last.len() as Cpu {
            self.last[cpu as usize] = self.read(cpu, k);
            k.arm(now + self.quantum, SAMPLE_TAG | cpu as u64);
        }
    }

    /// A scheduling event on the task's CPU ends a `yield`.
    fn event_on(&mut self, task: u32, k: &mut dyn Kernel) {
        if self.mode == ThrottleMode::Yield {
            let cpu = self.cpu_of.get(task as usize).copied().unwrap_or(0);
            if self.held[cpu as usize].is_some_and(|h| h.task != task) {
                self.unhold(cpu, k);
            }
        }
    }
}

impl Policy for Throttle {
    fn info(&self) -> &PolicyInfo {
        &self.info
    }
    fn release(&mut self, job: Job, k: &mut dyn Kernel) {
        if !self.started {
            self.start(k);
        }
        if let Some(a) = self.active.get_mut(job.id.task as usize) {
            *a = Some(job.id);
        }
        self.inner.release(job, k);
        self.event_on(job.id.task, k);
    }
    fn complete(&mut self, job: JobId, k: &mut dyn Kernel) {
        if let Some(a) = self.active.get_mut(job.task as usize) {
            *a = None;
        }
        for c in self.current.iter_mut().filter(|c| **c == Some(job)) {
            *c = None;
        }
        // A held job that ends (aborted at its deadline) is no longer held.
        for h in self.held.iter_mut().filter(|h| **h == Some(job)) {
            *h = None;
        }
        self.inner.complete(job, k);
        self.event_on(job.task, k);
        if self.mode == ThrottleMode::Hold {
            // A hold ends with the last unfinished job of the tasks it protects.
            for cpu in 0..self.held.len() as Cpu {
                if let Some(h) = self.held[cpu as usize] {
                    if !self.disturbed(h.task) {
                        self.unhold(cpu, k);
                    }
                }
            }
        }
    }
    fn block(&mut self, job: JobId, k: &mut dyn Kernel) {
        self.inner.block(job, k);
    }
    fn resume(&mut self, job: JobId, k: &mut dyn Kernel) {
        self.inner.resume(job, k);
    }
    fn segment_end(&mut self, job: JobId, segment: u32, kind: SegmentKind, k: &mut dyn Kernel) {
        self.inner.segment_end(job, segment, kind, k);
    }
    fn timer(&mut self, timer: TimerId, tag: u64, k: &mut dyn Kernel) {
        if tag & SAMPLE_TAG != 0 && tag & (1 << 63) == 0 {
            self.sample((tag & !SAMPLE_TAG) as Cpu, k);
        } else {
            self.inner.timer(timer, tag, k);
        }
    }
    fn schedule(&mut self, cpu: Cpu, k: &mut dyn Kernel) -> Option<JobId> {
        let job = self.inner.schedule(cpu, k);
        if let Some(c) = self.current.get_mut(cpu as usize) {
            *c = job;
        }
        job
    }
    fn priority(&self, _job: &JobView) -> Option<Priority> {
        None
    }
}
