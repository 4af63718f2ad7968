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

use super::points::kind_of;
use super::services::KernelServices;
use super::sync::{self, Request, Shared, NO_SEGMENT};
use super::{drain_limit, DISPATCHER_CPU};
use crate::clock;
use crate::counters::Source;
use crate::overheads::Samples;
use crate::plan::Plan;
use crate::stall::THRESHOLD_NS;
use crate::stop::{Stop, StopReason};
use crate::watchdog::Heartbeat;
use schedlab_jobs::{Demands, MissPolicy, Releases, SegmentDemand, SegmentDemands};
use schedlab_policy::{Cpu, Driver, Host, Job, JobId, JobView, Policy, Preemption, ProtocolError, Run};
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
    /// A segmented task's segment demands (the same draws as the
    /// simulator's; their CPU total is the job's execution time).
    segs: Option<SegmentDemands>,
    scratch: Vec<SegmentDemand>,
    /// The worker's last request seen (`points.rs`).
    req_seen: u64,
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
    /// The policy preempts only at preemption points (it wants a CPU at a
    /// job's next point, `points.rs`).
    at_points: bool,
    /// Per task: it reports every segment boundary (a task with memory
    /// segments: the boundaries of its memory phases are what `mcs`'s
    /// memory token hears, as in the simulator), its `want` flag always up.
    reports_all: Vec<bool>,
    /// Per task: its job is suspended (blocked).
    blocked: Vec<bool>,
    /// Per task: its running job's `want` flag as last stored.
    wants: Vec<bool>,
    /// Workers' requests of this wake-up, answered once its switches are
    /// carried out: (task, request number).
    acks: Vec<(usize, u64)>,
    /// Preemption points reported and, of them, taken (the job switched away there).
    pub(super) points: [u64; 2],
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
                let segs = t.segmented().then(|| c.job_model().segment_demands(t, i));
                let per_job = segs.as_ref().map_or(0, |s| s.segments_per_job());
                TaskSt {
                    releases,
                    exec: c.job_model().demands(t, i),
                    next,
                    seq: 0,
                    done_seen: 0,
                    segs,
                    scratch: Vec::with_capacity(per_job),
                    req_seen: 0,
                }
            })
            .collect::<Vec<TaskSt>>();
        let per_job: Vec<usize> =
            tasks.iter().map(|t: &TaskSt| t.segs.as_ref().map_or(0, |s| s.segments_per_job())).collect();
        let jobs = (0..n).map(|i| plan.expected_jobs(i)).sum::<u64>() as usize;
        // Decision-making wake-ups: about three per job (release,
        // completion, a preemption), and one per quantum for a
        // quantum-driven policy (PD^2 wakes at every boundary while busy).
        let quanta = policy.info().quantum.map_or(0, |q| (c.duration + drain_limit(plan)) / q.max(1)) as usize;
        // Segment boundaries (points, blocks, resumes) are wake-ups too.
        let boundaries: usize = (0..n).map(|i| 3 * per_job[i] * plan.expected_jobs(i) as usize).sum();
        let wakeups = 3 * jobs + quanta + 64 + boundaries;
        // Memory phases (`mcs`): each is up to four token events (request,
        // grant, preempt, release), the task's own or the worker's, and an
        // activity note.
        let phases: usize = (0..n)
            .map(|i| {
                let t = &plan.spec.tasks[i];
                let mem = t.segments().iter().filter(|s| s.kind == schedlab_model::SegmentKind::Memory).count();
                5 * mem * plan.expected_jobs(i) as usize
            })
            .sum();
        let mut samples = Samples::default();
        samples.by_kind.push((OverheadKind::Release, Vec::with_capacity(jobs + 64)));
        samples.by_kind.push((OverheadKind::Schedule, Vec::with_capacity(wakeups)));
        let policy_at_points = policy.info().conformance.preemption() == Preemption::AtPoints;
        let reports_all: Vec<bool> = plan
            .spec
            .tasks
            .iter()
            .map(|t| t.segmented() && t.job_segments().iter().any(|s| s.kind == schedlab_model::SegmentKind::Memory))
            .collect();
        for (sh, &all) in shared.iter().zip(&reports_all) {
            sh.want.store(all as u32, Ordering::Relaxed);
        }
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
                note_budget: 4 * jobs + 64 + phases,
                notes_dropped: 0,
                seg_queue: (0..n)
                    .map(|i| {
                        std::collections::VecDeque::with_capacity(per_job[i] * (plan.expected_jobs(i) as usize + 4))
                    })
                    .collect(),
                seg_active: per_job.iter().map(|&k| vec![0; k]).collect(),
                counters: Source::open(c.counters, m as u32),
                occupy: vec![None; m],
                occupied: vec![None; m],
                activities: vec![None; m],
                activity_commands: [0; 2],
            },
            tasks,
            shared,
            bell,
            stop,
            hb,
            duration: c.duration,
            drain: drain_limit(plan),
            overrun: c.overrun,
            // Per job: release, its overhead, a miss; per wake-up: a schedule overhead; notes;
            // per segment boundary: a segment end, a block and a resume.
            events: Vec::with_capacity(9 * jobs + wakeups + boundaries + phases),
            skipped: Vec::with_capacity(jobs + 64),
            samples,
            decisions: Vec::with_capacity(wakeups),
            error: None,
            ended_at: 0,
            slept_until: None,
            late_wakeups: Vec::with_capacity(256),
            at_points: policy_at_points,
            wants: reports_all.clone(),
            reports_all,
            blocked: vec![false; n],
            acks: Vec::with_capacity(n),
            points: [0; 2],
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
            let requested = self.requests(t0, real);
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
            self.answer();
            self.update_wants();
            let decided = clock::now();
            if completed || requested || released || timers || self.host.changed {
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

    /// Tells the driver what changed on the CPUs, while it keeps
    /// execution-time timers: a job switched in runs from now with its CPU
    /// time now.
    fn report_runs(&mut self, real: u64) {
        for c in 0..self.reported.len() {
            let now = self.host.running[c];
            if now == self.reported[c] {
                continue;
            }
            self.reported[c] = now;
            if self.drv.wants_runs() {
                let run = now.map(|job| Run { job, from: real, consumed: Host::<u64>::consumed(&self.host, job) });
                self.drv.runs(c as Cpu, run);
            }
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
            if self.shared[i].req.load(Ordering::Acquire) != ts.req_seen {
                let t = self.shared[i].req_t.load(Ordering::Acquire).saturating_sub(t0).min(real);
                nominal = Some(nominal.map_or(t, |n: u64| n.max(t)));
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

    /// Reports the workers' requests at segment boundaries (`points.rs`):
    /// a preemption point, a block or a resume of the task's running job,
    /// to the driver and the trace (as the simulator writes them); each is
    /// answered after the instant's switches ([`Dispatcher::answer`]).
    fn requests(&mut self, t0: u64, real: u64) -> bool {
        let mut any = false;
        for i in 0..self.tasks.len() {
            let sh = &self.shared[i];
            let n = sh.req.load(Ordering::Acquire);
            if n == self.tasks[i].req_seen {
                continue;
            }
            self.tasks[i].req_seen = n;
            self.acks.push((i, n));
            let Some((j, _)) = self.drv.delivered(i as u32) else { continue };
            if sh.started.load(Ordering::Acquire) != j.id.seq + 1 {
                continue;
            }
            any = true;
            let t = sh.req_t.load(Ordering::Relaxed).saturating_sub(t0).min(real);
            let cpu = sh.req_cpu.load(Ordering::Relaxed);
            let seg = sh.req_seg.load(Ordering::Relaxed);
            let kind = kind_of(sh.req_kind.load(Ordering::Relaxed));
            let (task, job) = (i as u32, j.id.seq);
            if seg != NO_SEGMENT {
                self.events.push((t, 0, Event::SegmentEnd { t, cpu, task, job, segment: seg }));
                self.drv.segment_end(j.id, seg, kind);
            }
            match Request::of(sh.req_what.load(Ordering::Relaxed)) {
                Some(Request::Point) => self.points[0] += 1,
                Some(Request::Block) => {
                    self.events.push((t, 0, Event::Block { t, task, job }));
                    self.drv.block(j.id);
                    self.blocked[i] = true;
                }
                Some(Request::Resume) => {
                    self.events.push((t, 2, Event::Resume { t, task, job }));
                    self.drv.resume(j.id);
                    self.blocked[i] = false;
                }
                None => {}
            }
        }
        any
    }

    /// Answers the wake-up's requests: the switches are carried out (a job
    /// the policy took off its CPU at a point was held first).
    fn answer(&mut self) {
        for k in 0..self.acks.len() {
            let (i, n) = self.acks[k];
            let sh = &self.shared[i];
            if sh.req_what.load(Ordering::Relaxed) == Request::Point as u32
                && !self.host.running.iter().any(|r| r.is_some_and(|j| j.task == i as u32))
            {
                self.points[1] += 1;
            }
            sh.ack.store(n as u32, Ordering::Release);
            sync::futex_wake(&sh.ack);
        }
        self.acks.clear();
    }

    /// Under a policy that preempts only at points: raises the `want` flag
    /// of each running job that a waiting job of its domain outranks (the
    /// policy's priority; any waiting job when it has none), lowers the
    /// others. A job not asked pays one load per point.
    fn update_wants(&mut self) {
        if !self.at_points {
            return;
        }
        let now = self.host.now;
        let info = self.policy.info();
        let view = |j: &Job| JobView { id: j.id, release: j.release, deadline: j.deadline, consumed: 0, now };
        for r in 0..self.tasks.len() {
            if self.reports_all[r] {
                continue;
            }
            let cpu = self.host.running.iter().position(|x| x.is_some_and(|j| j.task == r as u32));
            let want = match (cpu, self.drv.delivered(r as u32)) {
                (Some(c), Some((rj, _))) => {
                    let pr = self.policy.priority(&view(&rj));
                    (0..self.tasks.len()).any(|w| {
                        if w == r
                            || self.blocked[w]
                            || self.host.running.iter().any(|x| x.is_some_and(|j| j.task == w as u32))
                        {
                            return false;
                        }
                        let Some((wj, _)) = self.drv.delivered(w as u32) else { return false };
                        if info.domain_of(w) != info.domain_of(r) || !info.placement[w].allows(c as u32) {
                            return false;
                        }
                        match (self.policy.priority(&view(&wj)), pr) {
                            (Some(pw), Some(pr)) => (pw.major, pw.minor) < (pr.major, pr.minor),
                            _ => true,
                        }
                    })
                }
                _ => false,
            };
            if want != self.wants[r] {
                self.wants[r] = want;
                self.shared[r].want.store(want as u32, Ordering::Relaxed);
            }
        }
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
                let exec = match ts.segs.as_mut() {
                    Some(sd) => {
                        sd.draw_into(&mut ts.scratch);
                        self.host.seg_queue[i].extend(ts.scratch.iter().map(|s| s.demand));
                        ts.scratch.iter().filter(|s| s.kind.on_cpu()).fold(0u64, |a, s| a.saturating_add(s.demand))
                    }
                    None => ts.exec.draw(),
                };
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
