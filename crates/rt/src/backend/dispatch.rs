//! Backend `dispatch`: a user-space dispatcher drives the policy of crate
//! `policy` — the same object the simulator and the validator's replay
//! drive — on real threads (see `docs/runtime.md`, "dispatch backend").
//!
//! - **One central dispatcher thread**, SCHED_FIFO [`DISPATCHER_PRIORITY`]
//!   (above every worker, below the watchdog), pinned to
//!   [`DISPATCHER_CPU`]. It owns the policy and is its [`Kernel`]: it
//!   releases jobs on absolute timers, delivers completions, fires the
//!   policy's timers, calls `schedule` for the CPUs marked for rescheduling
//!   and performs the switches (all switch-aways, then all switch-tos). It
//!   sleeps in a futex wait with an absolute CLOCK_MONOTONIC timeout (the
//!   next release or policy timer); a completing worker rings its doorbell.
//! - **One worker thread per task**, SCHED_FIFO [`WORKER_PRIORITY`], that
//!   executes only while dispatched: it waits on its gate (a futex) for a
//!   "run on CPU c" command; a preempted worker gets [`preempt_signal`]
//!   and waits in the handler until dispatched again. A switch-to is an
//!   affinity change (a migration when the CPU differs) and a gate store;
//!   since all workers share one priority, a worker dispatched to a CPU
//!   where the preempted one has not yet stopped queues behind it, so a CPU
//!   never executes two jobs.
//! - **The trace is the workers' truth**: each worker logs its running
//!   stints (first instruction after a dispatch → stop in the handler or
//!   completion), and these become the switch-to / switch-away events;
//!   the dispatcher records releases, deadline misses, policy notes and
//!   overheads.

use super::dispatch_sync::{self as sync, End, Local, Shared, Stint};
use super::{Backend, Executed, Services};
use crate::clock;
use crate::error::RunError;
use crate::overheads::{Samples, Stats};
use crate::plan::Plan;
use crate::privilege::Needs;
use crate::sched::{self, Class, CpuSet};
use crate::stop::{Stop, StopReason};
use crate::watchdog::Heartbeat;
use crate::worker::{run_job, JobOutcome, StartGate};
use crate::workload::JobBody;
use schedlab_jobs::{Demands, MissPolicy, Releases};
use schedlab_model::Placement;
use schedlab_policy::{Cpu, Job, JobId, Kernel, Policy, Time, TimerId};
use schedlab_trace::{Event, OverheadKind, SwitchReason};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

/// The dispatcher's SCHED_FIFO priority (the watchdog has 95).
pub const DISPATCHER_PRIORITY: u32 = 90;
/// Every worker's SCHED_FIFO priority.
pub const WORKER_PRIORITY: u32 = 80;
/// The CPU the dispatcher is pinned to.
pub const DISPATCHER_CPU: u32 = 0;
/// Rounds of timers-then-schedule at one instant before giving up.
const MAX_ROUNDS: usize = 64;
/// The dispatcher's heartbeat timeout: one decision may not take longer.
const DECISION_TIMEOUT: u64 = 500_000_000;

pub use sync::preempt_signal;

#[derive(Default)]
pub struct DispatchBackend {}

impl Backend for DispatchBackend {
    fn name(&self) -> &'static str {
        "dispatch"
    }

    fn check(&self, plan: &Plan) -> Result<(), RunError> {
        let m = plan.spec.platform.cpus;
        if m > 254 {
            return Err(RunError::BadInput(format!(
                "the dispatch backend drives at most 254 CPUs (platform.cpus is {m})"
            )));
        }
        if !plan.online.contains(&DISPATCHER_CPU) {
            return Err(RunError::BadInput(format!("the dispatcher runs on CPU {DISPATCHER_CPU}, which is offline")));
        }
        schedlab_policy::build(&plan.spec, Some(&plan.info.placement))
            .map_err(|e| RunError::BadInput(e.to_string()))?;
        Ok(())
    }

    fn needs(&self, _plan: &Plan) -> Needs {
        // The dispatcher records its own switches: no kernel trace needed.
        Needs { fifo_priority: DISPATCHER_PRIORITY, ..Needs::default() }
    }

    fn execute(&mut self, plan: &mut Plan, sv: &Services) -> Result<Executed, RunError> {
        let policy = schedlab_policy::build(&plan.spec, Some(&plan.info.placement))
            .map_err(|e| RunError::BadInput(e.to_string()))?;
        let n = plan.tasks.len();
        let m = plan.spec.platform.cpus;
        sync::install_handler();
        let bell = Arc::new(AtomicU32::new(0));
        let shared: Vec<Arc<Shared>> = (0..n).map(|_| Arc::new(Shared::default())).collect();
        let (tx, rx) = std::sync::mpsc::channel::<(usize, i32)>();
        let mut workers = Vec::new();
        for i in 0..n {
            let body = plan.bodies[i].take().ok_or_else(|| RunError::System("job body already taken".into()))?;
            let jobs = plan.expected_jobs(i) as usize;
            let name = format!("sl-{i}-{}", plan.tasks[i].name);
            let out = sv.collector.register(name.clone(), Some(i as u32), (jobs * 8 + 64).min(1 << 20));
            let hb = sv.watchdog.watch(format!("task '{}' (its job body)", plan.tasks[i].name), plan.tasks[i].timeout);
            let w = WorkerCtx {
                task: i as u32,
                wcet: plan.tasks[i].wcet,
                body,
                out,
                hb: hb.clone(),
                stop: sv.stop.clone(),
                calibration: plan.calibration.clone(),
                abort: plan.config.overrun == MissPolicy::Abort,
                shared: shared[i].clone(),
                bell: bell.clone(),
                log_cap: jobs * 16 + 1024,
            };
            let tx = tx.clone();
            let h = std::thread::Builder::new()
                .name(name.chars().take(15).collect())
                .spawn(move || {
                    let tid = clock::gettid();
                    hb.set_tid(tid);
                    w.shared.tid.store(tid, Ordering::Release);
                    let _ = tx.send((i, tid));
                    w.run()
                })
                .map_err(|e| RunError::system("spawning a worker", e))?;
            workers.push(h);
        }
        // The dispatcher thread: owns the policy, waits for time zero.
        let gate = Arc::new(StartGate::new());
        let dhb = sv.watchdog.watch("the dispatcher", DECISION_TIMEOUT);
        let disp = Dispatcher::new(plan, policy, shared.clone(), bell.clone(), sv.stop.clone(), dhb.clone());
        let dgate = gate.clone();
        let dtx = tx.clone();
        let dh = std::thread::Builder::new()
            .name("sl-dispatcher".into())
            .spawn(move || {
                let tid = clock::gettid();
                dhb.set_tid(tid);
                let _ = dtx.send((usize::MAX, tid));
                let mut d = disp;
                match dgate.wait() {
                    Some(t0) => {
                        d.run(t0);
                        Some(d)
                    }
                    None => None,
                }
            })
            .map_err(|e| RunError::system("spawning the dispatcher", e))?;
        drop(tx);
        let mut tids = vec![0i32; n];
        let mut dtid = 0;
        for _ in 0..=n {
            let (i, tid) = rx.recv().map_err(|_| RunError::System("a thread died during setup".into()))?;
            if i == usize::MAX {
                dtid = tid;
            } else {
                tids[i] = tid;
            }
        }
        let release_workers = |shared: &[Arc<Shared>]| {
            for s in shared {
                s.gate.store(sync::EXIT, Ordering::Release);
                sync::futex_wake(&s.gate);
            }
        };
        let setup = (|| -> Result<(), RunError> {
            sv.guard
                .record_thread(dtid)
                .map_err(|e| RunError::system("reading the dispatcher's scheduling class", e))?;
            for &tid in &tids {
                sv.guard
                    .record_thread(tid)
                    .map_err(|e| RunError::system(format!("reading thread {tid}'s scheduling class"), e))?;
            }
            sched::set_affinity(dtid, &CpuSet::of(&[DISPATCHER_CPU]))
                .map_err(|e| RunError::system("pinning the dispatcher", e))?;
            sched::set_class(dtid, Class::Fifo { priority: DISPATCHER_PRIORITY })
                .map_err(|e| RunError::system("making the dispatcher SCHED_FIFO", e))?;
            let all: Vec<u32> = (0..m).collect();
            for (i, &tid) in tids.iter().enumerate() {
                sched::set_affinity(tid, &CpuSet::of(&all)).map_err(|e| {
                    RunError::system(format!("setting the affinity of task '{}'", plan.tasks[i].name), e)
                })?;
                sched::set_class(tid, Class::Fifo { priority: WORKER_PRIORITY })
                    .map_err(|e| RunError::system(format!("making task '{}' SCHED_FIFO", plan.tasks[i].name), e))?;
            }
            Ok(())
        })();
        if let Err(e) = setup {
            sv.stop.request(StopReason::Finished);
            gate.open(None);
            release_workers(&shared);
            let _ = dh.join();
            for h in workers {
                let _ = h.join();
            }
            return Err(e);
        }
        let t0 = clock::now() + plan.config.start_margin;
        let longest = plan.tasks.iter().map(|t| t.timeout).max().unwrap_or(0);
        sv.watchdog.end_by(t0 + plan.config.duration + drain_limit(plan) + longest + 2_000_000_000);
        gate.open(Some(t0));
        let mut ex = Executed { t0, tids: tids.clone(), switches_recorded: true, ..Executed::default() };
        ex.mapping = (0..n)
            .map(|i| {
                format!(
                    "worker SCHED_FIFO {WORKER_PRIORITY}, dispatched on CPUs {} by the user-space dispatcher (SCHED_FIFO {DISPATCHER_PRIORITY} on CPU {DISPATCHER_CPU})",
                    sched::format_cpu_list(&plan.cpus_of(i))
                )
            })
            .collect();
        // The dispatcher ends the run; then the workers are told to exit.
        let disp = loop {
            if dh.is_finished() {
                break dh.join().ok().flatten();
            }
            if sv.stop.is_set() && clock::now() > t0 {
                // A stop from outside (signal, watchdog, failed job): give
                // the dispatcher a moment to notice, then go on without it.
                let since = clock::now();
                while !dh.is_finished() && clock::now() - since < 500_000_000 {
                    clock::sleep_until(clock::now() + 2_000_000);
                }
                if dh.is_finished() {
                    break dh.join().ok().flatten();
                }
                sv.guard.demote_threads();
                ex.notes.push("abandoned the dispatcher thread (it did not stop), demoted to SCHED_OTHER".into());
                break None;
            }
            clock::sleep_until(clock::now() + 2_000_000);
        };
        release_workers(&shared);
        let mut logs: Vec<Option<WorkerLog>> = (0..n).map(|_| None).collect();
        let mut handles: Vec<Option<std::thread::JoinHandle<WorkerLog>>> = workers.into_iter().map(Some).collect();
        let since = clock::now();
        loop {
            for (i, h) in handles.iter_mut().enumerate() {
                if h.as_ref().is_some_and(|h| h.is_finished()) {
                    logs[i] = h.take().and_then(|h| h.join().ok());
                }
            }
            if handles.iter().all(|h| h.is_none()) {
                break;
            }
            if clock::now() - since > 500_000_000 {
                sv.stop.request(StopReason::Finished);
            }
            if clock::now() - since > 1_000_000_000 {
                sv.guard.demote_threads();
                let left: Vec<String> = handles
                    .iter()
                    .enumerate()
                    .filter(|(_, h)| h.is_some())
                    .map(|(i, _)| plan.tasks[i].name.clone())
                    .collect();
                ex.notes.push(format!(
                    "abandoned the thread(s) of {} (still inside a job body), demoted to SCHED_OTHER",
                    left.join(", ")
                ));
                break;
            }
            clock::sleep_until(clock::now() + 2_000_000);
        }
        ex.end = clock::now();
        let Some(d) = disp else {
            return Ok(ex);
        };
        d.finish(&logs, &mut ex);
        Ok(ex)
    }
}

/// How long the run goes on after its duration so that jobs released
/// before it can finish (then the run stops and they are ended).
fn drain_limit(plan: &Plan) -> u64 {
    plan.tasks.iter().map(|t| t.deadline.max(t.period)).max().unwrap_or(0).max(100_000_000)
}

/// What a worker thread hands back.
pub struct WorkerLog {
    pub stints: Vec<Stint>,
    pub dropped: u64,
}

struct WorkerCtx {
    task: u32,
    wcet: u64,
    body: Box<dyn JobBody>,
    out: crate::tracebuf::Producer,
    hb: Arc<Heartbeat>,
    stop: Arc<Stop>,
    calibration: crate::calibrate::Calibration,
    abort: bool,
    shared: Arc<Shared>,
    bell: Arc<AtomicU32>,
    log_cap: usize,
}

impl WorkerCtx {
    /// The worker's loop: wait for a dispatched job, run it, report it.
    fn run(mut self) -> WorkerLog {
        sync::block_preempt(true);
        let sh = self.shared.clone();
        let mut local = Box::new(Local {
            shared: Arc::as_ptr(&sh),
            in_job: false,
            job: 0,
            stints: Vec::with_capacity(self.log_cap),
            dropped: 0,
        });
        sync::set_local(&mut *local);
        let mut taken = 0u64;
        loop {
            let g = sh.gate.load(Ordering::Acquire);
            if sync::state(g) == sync::EXIT {
                break;
            }
            let posted = sh.posted.load(Ordering::Acquire);
            if sync::run_cpu(g).is_none() || posted <= taken {
                sync::futex_wait(&sh.gate, g, None);
                continue;
            }
            taken = posted;
            let job = posted - 1;
            let (rel, dl, exec) = (
                sh.release.load(Ordering::Acquire),
                sh.deadline.load(Ordering::Acquire),
                sh.exec.load(Ordering::Acquire),
            );
            let cmd = sh.run_cmd_t.load(Ordering::Acquire);
            let t = clock::now();
            sh.cpu0.store(clock::thread_cpu(), Ordering::Release);
            sh.started.store(job + 1, Ordering::Release);
            local.job = job;
            local.in_job = true;
            local.open(t, clock::current_cpu(), cmd);
            self.hb.busy(t);
            sync::block_preempt(false);
            let o = run_job(
                self.body.as_mut(),
                &mut self.out,
                self.task,
                job,
                rel,
                dl,
                exec,
                self.wcet,
                self.abort.then_some(dl),
                &self.stop,
                &self.calibration,
            );
            sync::block_preempt(true);
            let end = clock::now();
            let forced = o != JobOutcome::Completed;
            local.close(end, if forced { End::Forced } else { End::Complete }, 0);
            local.in_job = false;
            self.hb.idle();
            sh.done_t.store(end, Ordering::Relaxed);
            sh.done_forced.store(forced as u64, Ordering::Relaxed);
            sh.done.store(job + 1, Ordering::Release);
            self.bell.fetch_add(1, Ordering::Release);
            sync::futex_wake(&self.bell);
            if let JobOutcome::Failed(msg) = o {
                self.stop.request(StopReason::JobFailed(format!("task {} job {job}: {msg}", self.task)));
                self.bell.fetch_add(1, Ordering::Release);
                sync::futex_wake(&self.bell);
                break;
            }
        }
        sync::set_local(std::ptr::null_mut());
        let Local { stints, dropped, .. } = *local;
        WorkerLog { stints, dropped }
    }
}

/// A job as the dispatcher tracks it (times relative to t0).
#[derive(Debug, Clone, Copy)]
struct JobRec {
    seq: u64,
    release: u64,
    deadline: u64,
    exec: u64,
}

struct TaskSt {
    releases: Releases,
    exec: Demands,
    next: Option<(u64, u64)>,
    seq: u64,
    queue: VecDeque<JobRec>,
    active: Option<JobRec>,
    done_seen: u64,
    /// The CPU the worker is pinned to (None: the platform's CPUs).
    affinity: Option<u32>,
    placement: Placement,
    /// The job released to the policy at its release time, and the
    /// dispatcher's wake-up that did it (for release latency).
    prompt: Option<(u64, u64)>,
}

/// The dispatcher: the policy's [`Kernel`] in real time.
pub struct Dispatcher {
    policy: Box<dyn Policy>,
    k: DKernel,
    tasks: Vec<TaskSt>,
    shared: Vec<Arc<Shared>>,
    bell: Arc<AtomicU32>,
    stop: Arc<Stop>,
    hb: Arc<Heartbeat>,
    duration: u64,
    drain: u64,
    overrun: MissPolicy,
    events: Vec<(u64, u8, Event)>,
    samples: Samples,
    /// Per instant: wake-up → decisions done (ns).
    decisions: Vec<u64>,
    /// Switch commands given (switch-aways, switch-tos, migrations).
    commands: [u64; 3],
    protocol: Vec<String>,
    ended_at: u64,
    /// Jobs dispatched in the instant they were released: their absolute release.
    prompt: HashMap<(u32, u64), u64>,
}

/// The part of the dispatcher the policy sees.
struct DKernel {
    t0: u64,
    now: Time,
    running: Vec<Option<JobId>>,
    resched: Vec<bool>,
    timers: BTreeMap<(Time, u64), u64>,
    due: HashMap<u64, Time>,
    next_timer: u64,
    tids: Vec<i32>,
    shared: Vec<Arc<Shared>>,
    notes: Vec<(u64, u8, Event)>,
}

impl Kernel for DKernel {
    fn now(&self) -> Time {
        self.now
    }
    fn consumed(&self, job: JobId) -> Time {
        let Some(sh) = self.shared.get(job.task as usize) else { return 0 };
        if sh.started.load(Ordering::Acquire) != job.seq + 1 {
            return 0;
        }
        if sh.done.load(Ordering::Acquire) > job.seq {
            return 0;
        }
        let tid = sh.tid.load(Ordering::Acquire);
        sync::thread_cpu_of(tid).saturating_sub(sh.cpu0.load(Ordering::Acquire))
    }
    fn running(&self, cpu: Cpu) -> Option<JobId> {
        self.running.get(cpu as usize).copied().flatten()
    }
    fn resched(&mut self, cpu: Cpu) {
        if let Some(r) = self.resched.get_mut(cpu as usize) {
            *r = true;
        }
    }
    fn arm(&mut self, at: Time, tag: u64) -> TimerId {
        let at = at.max(self.now);
        let id = self.next_timer;
        self.next_timer += 1;
        self.timers.insert((at, id), tag);
        self.due.insert(id, at);
        TimerId(id)
    }
    fn cancel(&mut self, timer: TimerId) {
        if let Some(at) = self.due.remove(&timer.0) {
            self.timers.remove(&(at, timer.0));
        }
    }
    fn tracing(&self) -> bool {
        true
    }
    fn note(&mut self, cpu: Option<Cpu>, name: &'static str, data: serde_json::Value) {
        self.notes.push((self.now, 6, Event::Policy { t: self.now, cpu, name: name.to_string(), data }));
    }
}

impl Dispatcher {
    fn new(
        plan: &Plan,
        policy: Box<dyn Policy>,
        shared: Vec<Arc<Shared>>,
        bell: Arc<AtomicU32>,
        stop: Arc<Stop>,
        hb: Arc<Heartbeat>,
    ) -> Dispatcher {
        let c = &plan.config;
        let m = plan.spec.platform.cpus as usize;
        let tasks = plan
            .spec
            .tasks
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let mut releases = c.job_model().releases(t, i);
                let next = releases.next().map(|a| (a.release, a.deadline));
                TaskSt {
                    releases,
                    exec: c.job_model().demands(t, i),
                    next,
                    seq: 0,
                    queue: VecDeque::new(),
                    active: None,
                    done_seen: 0,
                    affinity: None,
                    placement: plan.info.placement[i].clone(),
                    prompt: None,
                }
            })
            .collect();
        let jobs: u64 = (0..plan.tasks.len()).map(|i| plan.expected_jobs(i)).sum();
        Dispatcher {
            policy,
            k: DKernel {
                t0: 0,
                now: 0,
                running: vec![None; m],
                resched: vec![false; m],
                timers: BTreeMap::new(),
                due: HashMap::new(),
                next_timer: 0,
                tids: Vec::new(),
                shared: shared.clone(),
                notes: Vec::new(),
            },
            tasks,
            shared,
            bell,
            stop,
            hb,
            duration: c.duration,
            drain: drain_limit(plan),
            overrun: c.overrun,
            events: Vec::with_capacity(jobs as usize * 4 + 64),
            samples: Samples::default(),
            decisions: Vec::with_capacity(jobs as usize * 3 + 64),
            commands: [0; 3],
            protocol: Vec::new(),
            ended_at: 0,
            prompt: HashMap::new(),
        }
    }

    fn incomplete(&self) -> bool {
        self.tasks.iter().any(|t| t.active.is_some() || !t.queue.is_empty())
    }

    /// The dispatcher loop, from time zero `t0` until the duration ended
    /// and the jobs released before it finished (or the run stops).
    fn run(&mut self, t0: u64) {
        self.k.t0 = t0;
        self.k.tids = self.shared.iter().map(|s| s.tid.load(Ordering::Acquire)).collect();
        clock::sleep_until(t0);
        let n = self.tasks.len();
        let m = self.k.running.len();
        loop {
            let bell = self.bell.load(Ordering::Acquire);
            let wake = clock::now();
            self.hb.busy(wake);
            // `real`: the wake-up; `now`, what the policy sees: the nominal
            // time of the latest event handled (a release's or timer's due
            // time, a completion's instant), so a late wake-up does not
            // shift the policy's notion of the instant (PD^2's quantum
            // boundaries, LLF's laxities); the wake-up when nothing is due.
            let now = wake.saturating_sub(t0);
            let real = now;
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
            if let Some(&(due, _)) = self.k.timers.keys().next() {
                if due <= real && nominal.is_none() {
                    nominal = Some(due);
                }
            }
            let now = nominal.unwrap_or(real);
            self.k.now = now;
            if self.stop.is_set() {
                break;
            }
            let mut touched: Vec<usize> = Vec::new();
            let mut any = false;
            // 1. Completions.
            for i in 0..n {
                let done = self.shared[i].done.load(Ordering::Acquire);
                if done <= self.tasks[i].done_seen {
                    continue;
                }
                self.tasks[i].done_seen = done;
                let Some(j) = self.tasks[i].active else { continue };
                if j.seq + 1 != done {
                    continue;
                }
                any = true;
                let id = JobId { task: i as u32, seq: j.seq };
                for c in 0..m {
                    if self.k.running[c] == Some(id) {
                        self.k.running[c] = None;
                        self.k.resched[c] = true;
                    }
                }
                let end = self.shared[i].done_t.load(Ordering::Acquire).saturating_sub(t0);
                if end > j.deadline {
                    self.events.push((
                        j.deadline,
                        1,
                        Event::DeadlineMiss { t: j.deadline, task: i as u32, job: j.seq },
                    ));
                }
                self.tasks[i].active = None;
                self.policy.complete(id, &mut self.k);
                touched.push(i);
            }
            // 2. Releases, in task order (queued behind an incomplete predecessor).
            for (i, ts) in self.tasks.iter_mut().enumerate() {
                while let Some((rel, dl)) = ts.next {
                    if rel > real || rel >= self.duration {
                        break;
                    }
                    ts.next = ts.releases.next().map(|a| (a.release, a.deadline));
                    any = true;
                    if self.overrun == MissPolicy::Skip && (ts.active.is_some() || !ts.queue.is_empty()) {
                        self.events.push((
                            rel,
                            6,
                            Event::Policy {
                                t: rel,
                                cpu: None,
                                name: "skipped-release".into(),
                                data: serde_json::json!({"task": i, "job": ts.seq}),
                            },
                        ));
                        continue;
                    }
                    let seq = ts.seq;
                    ts.seq += 1;
                    let exec = ts.exec.draw();
                    self.events.push((rel, 2, Event::Release { t: rel, task: i as u32, job: seq, deadline: dl }));
                    self.samples.push(OverheadKind::Release, real - rel);
                    self.events.push((
                        rel,
                        5,
                        Event::Overhead { t: rel, cpu: DISPATCHER_CPU, kind: OverheadKind::Release, dur: real - rel },
                    ));
                    ts.queue.push_back(JobRec { seq, release: rel, deadline: dl, exec });
                    touched.push(i);
                }
            }
            touched.sort_unstable();
            touched.dedup();
            for &i in &touched {
                if self.tasks[i].active.is_none() {
                    if let Some(j) = self.tasks[i].queue.pop_front() {
                        self.tasks[i].active = Some(j);
                        // Released to the policy in this instant, at its release time (not queued behind its predecessor).
                        self.tasks[i].prompt = (j.release + 1_000_000 >= real).then_some((j.seq, wake));
                        self.policy.release(
                            Job { id: JobId { task: i as u32, seq: j.seq }, release: j.release, deadline: j.deadline },
                            &mut self.k,
                        );
                    }
                }
            }
            // 3. Timers and decisions.
            let mut want = self.k.running.clone();
            for _ in 0..MAX_ROUNDS {
                while let Some((&(due, id), &tag)) = self.k.timers.iter().next() {
                    if due > real {
                        break;
                    }
                    any = true;
                    self.k.now = self.k.now.max(due);
                    self.k.timers.remove(&(due, id));
                    self.k.due.remove(&id);
                    self.policy.timer(TimerId(id), tag, &mut self.k);
                }
                let mut marked = false;
                for c in 0..m {
                    if std::mem::take(&mut self.k.resched[c]) {
                        marked = true;
                        want[c] = self.policy.schedule(c as Cpu, &mut self.k);
                    }
                }
                let due_now = self.k.timers.keys().next().is_some_and(|&(d, _)| d <= real);
                if !due_now && !marked {
                    break;
                }
            }
            let now = self.k.now;
            self.check_answers(&mut want, now);
            // 4. Switches: all switch-aways, then all switch-tos.
            let changed = self.switch(&want, t0, wake);
            let decided = clock::now();
            if any || changed {
                self.decisions.push(decided - wake);
                self.events.push((
                    real,
                    5,
                    Event::Overhead { t: real, cpu: DISPATCHER_CPU, kind: OverheadKind::Schedule, dur: decided - wake },
                ));
                self.samples.push(OverheadKind::Schedule, decided - wake);
            }
            self.events.append(&mut self.k.notes);
            // 5. The end: the duration is over and every released job finished.
            if real >= self.duration && (!self.incomplete() || real >= self.duration + self.drain) {
                break;
            }
            self.hb.idle();
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
            if let Some(&(due, _)) = self.k.timers.keys().next() {
                next = next.min(t0 + due);
            }
            if next > clock::now() {
                sync::futex_wait(&self.bell, bell, Some(next));
            }
        }
        self.hb.idle();
        self.ended_at = clock::now().saturating_sub(t0);
        if self.incomplete() {
            // Jobs still running at the end of the drain: end them.
            self.stop.request(StopReason::Finished);
        }
    }

    /// Drops answers that break the protocol (recorded as notes).
    fn check_answers(&mut self, want: &mut [Option<JobId>], now: u64) {
        for c in 0..want.len() {
            let Some(j) = want[c] else { continue };
            let ok_job = self.tasks.get(j.task as usize).is_some_and(|t| t.active.is_some_and(|a| a.seq == j.seq));
            let ok_cpu = ok_job && self.tasks[j.task as usize].placement.allows(c as u32);
            let dup = want[..c].contains(&Some(j));
            if !ok_job || !ok_cpu || dup {
                self.protocol.push(format!(
                    "t={now} ns: schedule({c}) returned job {}:{} ({})",
                    j.task,
                    j.seq,
                    if !ok_job {
                        "not eligible"
                    } else if !ok_cpu {
                        "placement"
                    } else {
                        "also chosen for another CPU"
                    }
                ));
                want[c] = None;
            }
        }
    }

    /// Performs the switches from `running` to `want`; true if any.
    fn switch(&mut self, want: &[Option<JobId>], t0: u64, wake: u64) -> bool {
        let m = want.len();
        let mut changed = false;
        for c in 0..m {
            let Some(old) = self.k.running[c] else { continue };
            if want[c] == Some(old) {
                continue;
            }
            changed = true;
            self.commands[0] += 1;
            // Preempted, or moving to another CPU: hold it and tell it
            // (a move is then a quick hold → run on the new CPU).
            let sh = &self.shared[old.task as usize];
            sh.hold_cmd_t.store(clock::now(), Ordering::Relaxed);
            let g = sh.gate.load(Ordering::Relaxed);
            if sync::state(g) != sync::EXIT {
                sh.gate.store(next_gen(g, sync::HOLD), Ordering::Release);
            }
            sync::signal(self.k.tids[old.task as usize]);
        }
        for c in 0..m {
            let Some(new) = want[c] else { continue };
            if self.k.running[c] == Some(new) {
                continue;
            }
            changed = true;
            self.commands[1] += 1;
            let i = new.task as usize;
            let tid = self.k.tids[i];
            let ts = &mut self.tasks[i];
            if ts.affinity != Some(c as u32) {
                if ts.affinity.is_some() {
                    self.commands[2] += 1;
                }
                let _ = sched::set_affinity(tid, &CpuSet::of(&[c as u32]));
                ts.affinity = Some(c as u32);
            }
            let sh = &self.shared[i];
            if sh.posted.load(Ordering::Relaxed) != new.seq + 1 {
                let j = ts.active.expect("checked");
                sh.release.store(t0 + j.release, Ordering::Relaxed);
                sh.deadline.store(t0 + j.deadline, Ordering::Relaxed);
                sh.exec.store(j.exec, Ordering::Relaxed);
                sh.posted.store(new.seq + 1, Ordering::Release);
                if ts.prompt == Some((new.seq, wake)) {
                    self.prompt.insert((i as u32, new.seq), t0 + j.release);
                }
            }
            sh.run_cmd_t.store(clock::now(), Ordering::Release);
            let g = sh.gate.load(Ordering::Relaxed);
            if sync::state(g) != sync::EXIT {
                sh.gate.store(next_gen(g, c as u32 + 1), Ordering::Release);
            }
            sync::futex_wake(&sh.gate);
        }
        for c in 0..m {
            self.k.running[c] = want[c];
        }
        changed
    }

    /// Turns the workers' stint logs and the dispatcher's records into the
    /// trace, overheads and notes.
    fn finish(mut self, logs: &[Option<WorkerLog>], ex: &mut Executed) {
        let t0 = self.k.t0;
        let rel = |t: u64| t.saturating_sub(t0);
        let mut preempt_lat: Vec<u64> = Vec::new();
        let mut horizon = self.ended_at;
        for (i, log) in logs.iter().enumerate() {
            let Some(log) = log else { continue };
            let task = i as u32;
            if log.dropped > 0 {
                ex.notes.push(format!("task {task}: {} running stints not logged (log full)", log.dropped));
            }
            let mut exec_of: HashMap<u64, u64> = HashMap::new();
            let mut first_of: HashMap<u64, u64> = HashMap::new();
            for s in &log.stints {
                let (from, mut to) = (rel(s.from), rel(s.to));
                if s.end == End::Open {
                    to = rel(ex.end).max(from);
                }
                if to == from && s.end == End::Preempt {
                    continue; // stopped before its first instruction
                }
                let exec = exec_of.entry(s.job).or_insert(0);
                *exec += to - from;
                first_of.entry(s.job).or_insert(s.from);
                self.events.push((from, 4, Event::SwitchTo { t: from, cpu: s.cpu, task, job: s.job }));
                if s.run_cmd != 0 && s.from >= s.run_cmd {
                    let lat = s.from - s.run_cmd;
                    let kind = if s.cpu == DISPATCHER_CPU { OverheadKind::ContextSwitch } else { OverheadKind::Ipi };
                    self.samples.push(kind, lat);
                    self.events.push((
                        rel(s.run_cmd),
                        5,
                        Event::Overhead { t: rel(s.run_cmd), cpu: s.cpu, kind, dur: lat },
                    ));
                }
                match s.end {
                    End::Preempt => {
                        if s.hold_cmd != 0 && s.to >= s.hold_cmd {
                            preempt_lat.push(s.to - s.hold_cmd);
                        }
                        self.events.push((
                            to,
                            0,
                            Event::SwitchAway {
                                t: to,
                                cpu: s.cpu,
                                task,
                                job: s.job,
                                reason: SwitchReason::Preempt,
                                exec: *exec,
                            },
                        ));
                    }
                    End::Complete | End::Forced => {
                        let forced = s.end == End::Forced;
                        let reason = if forced { SwitchReason::Abort } else { SwitchReason::Complete };
                        self.events.push((
                            to,
                            1,
                            Event::SwitchAway { t: to, cpu: s.cpu, task, job: s.job, reason, exec: *exec },
                        ));
                        self.events.push((
                            to,
                            1,
                            Event::Completion { t: to, cpu: s.cpu, task, job: s.job, exec: *exec, forced },
                        ));
                    }
                    End::Open => {}
                }
                horizon = horizon.max(to);
            }
            // Release latency: release → first instruction, for jobs
            // dispatched in the instant they were released.
            for (job, first) in first_of {
                if let Some(&release) = self.prompt.get(&(task, job)) {
                    if first >= release {
                        self.samples.push(OverheadKind::ReleaseLatency, first - release);
                        let cpu = log.stints.iter().find(|s| s.job == job).map_or(0, |s| s.cpu);
                        self.events.push((
                            rel(release),
                            5,
                            Event::Overhead {
                                t: rel(release),
                                cpu,
                                kind: OverheadKind::ReleaseLatency,
                                dur: first - release,
                            },
                        ));
                    }
                }
            }
        }
        // Unfinished jobs whose deadline passed.
        for (i, ts) in self.tasks.iter().enumerate() {
            for j in ts.active.iter().chain(ts.queue.iter()) {
                if j.deadline <= horizon {
                    self.events.push((
                        j.deadline,
                        1,
                        Event::DeadlineMiss { t: j.deadline, task: i as u32, job: j.seq },
                    ));
                }
            }
        }
        let d = Stats::of(&self.decisions);
        let p = Stats::of(&preempt_lat);
        let cs = Stats::of(self.samples.get(OverheadKind::ContextSwitch));
        let ipi = Stats::of(self.samples.get(OverheadKind::Ipi));
        let us = |v: u64| v as f64 / 1000.0;
        ex.notes.push(format!(
            "dispatcher: {} decisions (p50 {:.1} µs, p99 {:.1} µs, max {:.1} µs); {} switch-aways, {} switch-tos, {} migrations; preemption (hold → the worker stopped): n={} p50 {:.1} µs p99 {:.1} µs max {:.1} µs; dispatch (run → first instruction) same CPU p50 {:.1} / p99 {:.1} µs, other CPU p50 {:.1} / p99 {:.1} µs",
            d.count, us(d.p50), us(d.p99), us(d.max), self.commands[0], self.commands[1], self.commands[2], p.count, us(p.p50), us(p.p99), us(p.max), us(cs.p50), us(cs.p99), us(ipi.p50), us(ipi.p99)
        ));
        for msg in self.protocol.iter().take(10) {
            ex.notes.push(format!("policy protocol: {msg}"));
        }
        let stats = serde_json::json!({
            "decision": stats_json(&d), "preemption": stats_json(&p), "dispatch-same-cpu": stats_json(&cs), "dispatch-other-cpu": stats_json(&ipi),
            "switch-aways": self.commands[0], "switch-tos": self.commands[1], "migrations": self.commands[2], "protocol-errors": self.protocol.len(),
        });
        self.events.push((
            horizon,
            7,
            Event::Policy { t: horizon, cpu: None, name: "dispatch-stats".into(), data: stats },
        ));
        self.events.sort_by_key(|(t, r, _)| (*t, *r));
        ex.events = self.events.into_iter().map(|(_, _, e)| e).collect();
        ex.overheads = self.samples;
        ex.horizon = horizon;
    }
}

fn stats_json(s: &Stats) -> serde_json::Value {
    serde_json::json!({"n": s.count, "p50": s.p50, "p99": s.p99, "p999": s.p999, "max": s.max})
}

/// The next gate word: a new generation with state `s`.
fn next_gen(g: u32, s: u32) -> u32 {
    (g & !0xff).wrapping_add(0x100) | s
}
