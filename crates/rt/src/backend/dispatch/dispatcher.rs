//! The dispatcher loop: one SCHED_FIFO thread that owns the policy and
//! drives it through `policy::driver` in real time. At each wake-up it
//! reports the workers' completions and the releases due to the driver,
//! which runs the protocol of the instant (callbacks, timers, rounds of
//! `schedule`, checks); [`KernelServices`] then carries out the instant's
//! final decisions, one command per worker; then it
//! sleeps in a futex wait until the next release or policy timer, or until
//! a worker rings its doorbell. Nothing is allocated after start-up: every
//! buffer is reserved for the run's expected jobs.
//!
//! Execution-time timers (`Kernel::arm_exec`): after each instant's
//! switches the driver hears which job each CPU now runs, from the wake-up
//! with the job's CPU time then (`Driver::runs`), so a running job's timer
//! is a wall-clock expiry for the budget left, re-armed at each switch-in
//! and disarmed at each switch-out; it fires when the dispatcher wakes for
//! it, with its real lateness (and the worker's own start-up latency after
//! a switch-in counts as consumed).

use super::services::KernelServices;
use super::sync::{self, Shared};
use super::{drain_limit, DISPATCHER_CPU};
use crate::clock;
use crate::counters::PerfCounters;
use crate::overheads::Samples;
use crate::plan::Plan;
use crate::stall::THRESHOLD_NS;
use crate::stop::{Stop, StopReason};
use crate::watchdog::Heartbeat;
use schedlab_jobs::{Demands, MissPolicy, Releases};
use schedlab_policy::{Cpu, Driver, Host, Job, JobId, Policy, ProtocolError, Run};
use schedlab_trace::{Event, OverheadKind};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

/// A task's release stream as the dispatcher tracks it.
pub(super) struct TaskSt {
    releases: Releases,
    exec: Demands,
    /// The next release and its absolute deadline (ns from t0).
    next: Option<(u64, u64)>,
    seq: u64,
    done_seen: u64,
}

/// The dispatcher: the policy, its driver and the real-time host.
pub struct Dispatcher {
    policy: Box<dyn Policy>,
    pub(super) drv: Driver<u64>,
    pub(super) host: KernelServices,
    pub(super) tasks: Vec<TaskSt>,
    shared: Vec<Arc<Shared>>,
    bell: Arc<AtomicU32>,
    stop: Arc<Stop>,
    hb: Arc<Heartbeat>,
    duration: u64,
    drain: u64,
    overrun: MissPolicy,
    pub(super) events: Vec<(u64, u8, Event)>,
    /// Releases skipped by the overrun policy: (release, task, seq).
    pub(super) skipped: Vec<(u64, u32, u64)>,
    pub(super) samples: Samples,
    /// Per decision-making wake-up: wake-up → decisions done (ns).
    pub(super) decisions: Vec<u64>,
    /// The policy broke the protocol: the run stops.
    pub(super) error: Option<ProtocolError>,
    pub(super) ended_at: u64,
    /// The absolute instant the last futex wait was due to time out.
    slept_until: Option<u64>,
    /// The dispatcher's own late wake-ups: (due, ns from t0; lateness, ns),
    /// at most its capacity (see [`Dispatcher::own_lateness`]).
    pub(super) late_wakeups: Vec<(u64, u64)>,
    /// Per CPU: the job last reported to the driver as running there.
    reported: Vec<Option<JobId>>,
}

impl Dispatcher {
    pub(super) fn new(
        plan: &Plan,
        policy: Box<dyn Policy>,
        shared: Vec<Arc<Shared>>,
        bell: Arc<AtomicU32>,
        stop: Arc<Stop>,
        hb: Arc<Heartbeat>,
    ) -> Dispatcher {
        let c = &plan.config;
        let m = plan.spec.platform.cpus as usize;
        let n = plan.tasks.len();
        let tasks = plan
            .spec
            .tasks
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let mut releases = c.job_model().releases(t, i);
                let next = releases.next().map(|a| (a.release, a.deadline));
                TaskSt { releases, exec: c.job_model().demands(t, i), next, seq: 0, done_seen: 0 }
            })
            .collect();
        let jobs = (0..n).map(|i| plan.expected_jobs(i)).sum::<u64>() as usize;
        // Decision-making wake-ups: about three per job (release,
        // completion, a preemption), and one per quantum for a
        // quantum-driven policy (PD^2 wakes at every boundary while busy).
        let quanta = policy.info().quantum.map_or(0, |q| (c.duration + drain_limit(plan)) / q.max(1)) as usize;
        let wakeups = 3 * jobs + quanta + 64;
        let mut samples = Samples::default();
        samples.by_kind.push((OverheadKind::Release, Vec::with_capacity(jobs + 64)));
        samples.by_kind.push((OverheadKind::Schedule, Vec::with_capacity(wakeups)));
        let mut drv = Driver::new(m as u32, policy.info().placement.clone());
        drv.reserve(4 * (n + m) + 16);
        for i in 0..n {
            drv.reserve_held(i as u32, plan.expected_jobs(i) as usize);
        }
        Dispatcher {
            policy,
            drv,
            host: KernelServices {
                t0: 0,
                now: 0,
                real: 0,
                wake: 0,
                running: vec![None; m],
                tids: Vec::with_capacity(n),
                shared: shared.clone(),
                active: vec![None; n],
                affinity: vec![None; n],
                prompt: vec![None; n],
                prompts: Vec::with_capacity(jobs + 64),
                commands: [0; 3],
                changed: false,
                notes: Vec::with_capacity(64),
                note_budget: 4 * jobs + 64,
                notes_dropped: 0,
                counters: PerfCounters::open(m as u32),
            },
            tasks,
            shared,
            bell,
            stop,
            hb,
            duration: c.duration,
            drain: drain_limit(plan),
            overrun: c.overrun,
            // Per job: release, its overhead, a miss; per wake-up: a schedule overhead; notes.
            events: Vec::with_capacity(9 * jobs + wakeups),
            skipped: Vec::with_capacity(jobs + 64),
            samples,
            decisions: Vec::with_capacity(wakeups),
            error: None,
            ended_at: 0,
            slept_until: None,
            late_wakeups: Vec::with_capacity(256),
            reported: vec![None; m],
        }
    }

    pub(super) fn incomplete(&self) -> bool {
        (0..self.tasks.len() as u32).any(|i| self.drv.busy(i))
    }

    /// The dispatcher loop, from time zero `t0` until the duration ended
    /// and the jobs released before it finished (or the run stops).
    pub(super) fn run(&mut self, t0: u64) {
        self.host.t0 = t0;
        self.host.tids.extend(self.shared.iter().map(|s| s.tid.load(Ordering::Acquire)));
        clock::sleep_until(t0);
        loop {
            let bell = self.bell.load(Ordering::Acquire);
            let wake = clock::now();
            self.hb.busy(wake);
            let real = wake.saturating_sub(t0);
            self.own_lateness(t0, wake);
            self.host.now = self.nominal(t0, real);
            self.host.real = real;
            self.host.wake = wake;
            self.host.changed = false;
            if self.stop.is_set() {
                break;
            }
            let completed = self.completions(t0);
            let released = self.releases(real);
            let timers = self.drv.next_timer().is_some_and(|d| d <= real);
            // The protocol of the instant, with the switches.
            if let Err(e) = self.drv.instant(self.policy.as_mut(), &mut self.host, real) {
                self.error = Some(e);
                break;
            }
            let drv = &self.drv;
            self.host.apply(|c| drv.chosen(c));
            self.report_runs(real);
            let decided = clock::now();
            if completed || released || timers || self.host.changed {
                self.decisions.push(decided - wake);
                let ev =
                    Event::Overhead { t: real, cpu: DISPATCHER_CPU, kind: OverheadKind::Schedule, dur: decided - wake };
                self.events.push((real, 5, ev));
                self.samples.push(OverheadKind::Schedule, decided - wake);
            }
            self.events.append(&mut self.host.notes);
            // The end: the duration is over and every released job finished.
            if real >= self.duration && (!self.incomplete() || real >= self.duration + self.drain) {
                break;
            }
            self.hb.idle();
            let next = self.next_wake(t0, real);
            self.slept_until = None;
            if next > clock::now() {
                self.slept_until = Some(next);
                sync::futex_wait(&self.bell, bell, Some(next));
            }
        }
        self.hb.idle();
        self.ended_at = clock::now().saturating_sub(t0);
        if self.incomplete() || self.error.is_some() {
            // Jobs still running at the end of the drain (or a protocol
            // error): end them.
            self.stop.request(StopReason::Finished);
        }
    }

    /// Tells the driver what changed on the CPUs (for execution-time
    /// timers): a job switched in runs from now with its CPU time now.
    fn report_runs(&mut self, real: u64) {
        for c in 0..self.reported.len() {
            let now = self.host.running[c];
            if now == self.reported[c] {
                continue;
            }
            self.reported[c] = now;
            let run = now.map(|job| Run { job, from: real, consumed: Host::<u64>::consumed(&self.host, job) });
            self.drv.runs(c as Cpu, run);
        }
    }

    /// The dispatcher's own wake-up: woken later than its timeout by more
    /// than [`THRESHOLD_NS`], it did not run when its clock said it should
    /// have (its CPU was not running the guest, or a kernel section held
    /// it), so every decision due meanwhile was late by as much: a platform
    /// stall (see `crate::stall`). Without this, a quantum boundary decided
    /// 8 ms late looked like the policy's own choice.
    fn own_lateness(&mut self, t0: u64, wake: u64) {
        let Some(due) = self.slept_until.take() else { return };
        let late = wake.saturating_sub(due);
        if late > THRESHOLD_NS && self.late_wakeups.len() < self.late_wakeups.capacity() {
            self.late_wakeups.push((due.saturating_sub(t0), late));
        }
    }

    /// What the policy sees as now: the nominal time of the latest event
    /// due (a completion's instant, a release's or timer's due time), so a
    /// late wake-up does not shift the policy's notion of the instant
    /// (PD^2's quantum boundaries, LLF's laxities); the wake-up when
    /// nothing is due.
    fn nominal(&mut self, t0: u64, real: u64) -> u64 {
        let mut nominal: Option<u64> = None;
        for (i, ts) in self.tasks.iter().enumerate() {
            if self.shared[i].done.load(Ordering::Acquire) > ts.done_seen {
                let t = self.shared[i].done_t.load(Ordering::Acquire).saturating_sub(t0).min(real);
                nominal = Some(nominal.map_or(t, |n: u64| n.max(t)));
            }
            if let Some((rel, _)) = ts.next {
                if rel <= real && rel < self.duration {
                    nominal = Some(nominal.map_or(rel, |n: u64| n.max(rel)));
                }
            }
        }
        if let Some(due) = self.drv.next_timer() {
            if due <= real && nominal.is_none() {
                nominal = Some(due);
            }
        }
        nominal.unwrap_or(real)
    }

    /// Reports the jobs the workers completed since the last wake-up.
    fn completions(&mut self, t0: u64) -> bool {
        let mut any = false;
        for i in 0..self.tasks.len() {
            let done = self.shared[i].done.load(Ordering::Acquire);
            if done <= self.tasks[i].done_seen {
                continue;
            }
            self.tasks[i].done_seen = done;
            let Some((j, _)) = self.drv.delivered(i as u32) else { continue };
            if j.id.seq + 1 != done {
                continue;
            }
            any = true;
            for r in self.host.running.iter_mut() {
                if *r == Some(j.id) {
                    *r = None;
                }
            }
            let end = self.shared[i].done_t.load(Ordering::Acquire).saturating_sub(t0);
            if end > j.deadline {
                self.events.push((j.deadline, 1, Event::DeadlineMiss { t: j.deadline, task: i as u32, job: j.id.seq }));
            }
            self.drv.complete(j.id);
        }
        any
    }

    /// Reports the releases due by `real`, in task order (the driver holds
    /// a job behind an incomplete predecessor).
    fn releases(&mut self, real: u64) -> bool {
        let mut any = false;
        for (i, ts) in self.tasks.iter_mut().enumerate() {
            while let Some((rel, dl)) = ts.next {
                if rel > real || rel >= self.duration {
                    break;
                }
                ts.next = ts.releases.next().map(|a| (a.release, a.deadline));
                any = true;
                if self.overrun == MissPolicy::Skip && self.drv.busy(i as u32) {
                    if self.skipped.len() < self.skipped.capacity() {
                        self.skipped.push((rel, i as u32, ts.seq));
                    }
                    continue;
                }
                let seq = ts.seq;
                ts.seq += 1;
                let exec = ts.exec.draw();
                self.events.push((rel, 2, Event::Release { t: rel, task: i as u32, job: seq, deadline: dl }));
                self.samples.push(OverheadKind::Release, real - rel);
                let ev = Event::Overhead { t: rel, cpu: DISPATCHER_CPU, kind: OverheadKind::Release, dur: real - rel };
                self.events.push((rel, 5, ev));
                self.drv.release(Job { id: JobId { task: i as u32, seq }, release: rel, deadline: dl }, exec, rel);
            }
        }
        any
    }

    /// When to wake up next at the latest (absolute): the next release
    /// or policy timer, the end of the duration or of the drain.
    fn next_wake(&mut self, t0: u64, real: u64) -> u64 {
        let mut next = t0 + self.duration.max(real + 1);
        if real >= self.duration {
            next = t0 + self.duration + self.drain;
        }
        for ts in &self.tasks {
            if let Some((rel, _)) = ts.next {
                if rel < self.duration {
                    next = next.min(t0 + rel);
                }
            }
        }
        if let Some(due) = self.drv.next_timer() {
            next = next.min(t0 + due);
        }
        next
    }
}
