//! Backend `dispatch`: a user-space dispatcher drives the policy of crate
//! `policy` — the same object the simulator and the validator's replay
//! drive — on real threads (see `docs/runtime.md`, "dispatch backend").
//!
//! - **One central dispatcher thread** (`dispatcher.rs`), SCHED_FIFO
//!   [`DISPATCHER_PRIORITY`] (above every worker, below the watchdog),
//!   pinned to [`DISPATCHER_CPU`]. It owns the policy and drives it through
//!   `schedlab_policy::driver` (the protocol the simulator and the
//!   validator's replay use too), supplying the kernel services of
//!   `services.rs`: the real-time clock, the workers' CPU clocks, and the
//!   switches (all switch-aways, then all switch-tos). It releases jobs on
//!   absolute timers and sleeps in a futex wait with an absolute
//!   CLOCK_MONOTONIC timeout (the next release or policy timer); a
//!   completing worker rings its doorbell. A policy that breaks the
//!   protocol stops the run with [`RunError::Protocol`].
//! - **One worker thread per task** (`worker.rs`), SCHED_FIFO [`WORKER_PRIORITY`], that
//!   executes only while dispatched: it waits on its gate (a futex) for a
//!   "run on CPU c" command; a preempted worker gets [`preempt_signal`]
//!   and waits in the handler until dispatched again. A switch-to is an
//!   affinity change (a migration when the CPU differs) and a gate store;
//!   since all workers share one priority, a worker dispatched to a CPU
//!   where the preempted one has not yet stopped queues behind it, so a CPU
//!   never executes two jobs.
//! - **The trace is the workers' truth** (`assembly.rs`): each worker logs its running
//!   stints (first instruction after a dispatch → stop in the handler or
//!   completion), and these become the switch-to / switch-away events;
//!   the dispatcher records releases, deadline misses, policy notes and
//!   overheads.
//!
//! - **One activity thread per CPU the policy does work of its own on**
//!   (`activity.rs`; `Policy::activity_cpus`, `Kernel::occupy`: `mcs`'s
//!   memory-phase worker on the master CPU), pinned there at the workers'
//!   priority, that works (the task's part through its job body) while the
//!   policy occupies the CPU.
//!
//! This file assembles the backend: the threads, their scheduling classes,
//! the start and the end of the run. `sync.rs` holds the futexes, the
//! preemption signal and the stint log the threads share.

mod activity;
mod assembly;
mod dispatcher;
mod phases;
mod points;
mod prefault;
mod services;
mod sync;
mod worker;

use super::{Backend, Executed, Services};
use crate::clock;
use crate::error::RunError;
use crate::plan::Plan;
use crate::privilege::Needs;
use crate::sched::{self, Class, CpuSet};
use crate::stop::StopReason;
use crate::worker::StartGate;
use dispatcher::Dispatcher;
use schedlab_jobs::MissPolicy;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use sync::Shared;
use worker::WorkerCtx;

/// The dispatcher's SCHED_FIFO priority (the watchdog has 95).
pub const DISPATCHER_PRIORITY: u32 = 90;
/// Every worker's SCHED_FIFO priority.
pub const WORKER_PRIORITY: u32 = 80;
/// The CPU the dispatcher is pinned to.
pub const DISPATCHER_CPU: u32 = 0;
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
        let policy = match &plan.config.policy {
            Some(factory) => (factory.0)(&plan.spec),
            None => schedlab_policy::build(&plan.spec, Some(&plan.info.placement))
                .map_err(|e| RunError::BadInput(e.to_string()))?,
        };
        let n = plan.tasks.len();
        let m = plan.spec.platform.cpus;
        sync::install_handler();
        // The CPUs the policy works on itself, and the tasks' part of that work.
        let activity_cpus: Vec<u32> = {
            let mut v: Vec<u32> = policy.activity_cpus().into_iter().filter(|&c| c < m).collect();
            v.sort_unstable();
            v.dedup();
            v
        };
        let work: Vec<_> = plan.bodies.iter().map(|b| b.as_ref().and_then(|b| b.activity_work())).collect();
        let bell = Arc::new(AtomicU32::new(0));
        let segments: Vec<Vec<schedlab_model::Segment>> = plan
            .spec
            .tasks
            .iter()
            .map(|t| if t.segmented() { t.job_segments().into_owned() } else { Vec::new() })
            .collect();
        let shared: Vec<Arc<Shared>> = segments.iter().map(|s| Arc::new(Shared::new(s.len()))).collect();
        let (tx, rx) = std::sync::mpsc::channel::<(usize, i32)>();
        // The MTTs' working-set profiler, in its own helper thread.
        let meter = (!plan.spec.mtts().is_empty()).then(|| {
            let hardware = crate::counters::PerfCounters::open(m).hardware();
            crate::footprint::Meter::start(&plan.spec, &plan.mtt_ranges, hardware)
        });
        let mut workers = Vec::new();
        for (i, sh) in shared.iter().enumerate() {
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
                timing: plan.config.timing,
                shared: sh.clone(),
                bell: bell.clone(),
                log_cap: jobs * 16 + 1024,
                segments: segments[i].clone(),
                footprint: meter.as_ref().and_then(|f| f.posters[i].clone()),
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
        // The activity threads (held until the policy occupies their CPU).
        let jobs_all: usize = (0..n).map(|i| plan.expected_jobs(i) as usize).sum();
        let mut activities = Vec::new();
        let mut activity_threads = Vec::new();
        for &c in &activity_cpus {
            let sh = Arc::new(activity::ActivityShared::default());
            let ctx = activity::ActivityCtx {
                shared: sh.clone(),
                work: work.clone(),
                stop: sv.stop.clone(),
                log_cap: 8 * jobs_all + 1024,
            };
            let tx = tx.clone();
            let h = std::thread::Builder::new()
                .name(format!("sl-activity-{c}"))
                .spawn(move || {
                    let tid = clock::gettid();
                    ctx.shared.tid.store(tid, Ordering::Release);
                    let _ = tx.send((usize::MAX - 1, tid));
                    ctx.run()
                })
                .map_err(|e| RunError::system("spawning an activity thread", e))?;
            activities.push((c, sh));
            activity_threads.push((c, h));
        }
        // The dispatcher thread: owns the policy, waits for time zero.
        let gate = Arc::new(StartGate::new());
        let dhb = sv.watchdog.watch("the dispatcher", DECISION_TIMEOUT);
        let mut disp = Dispatcher::new(plan, policy, shared.clone(), bell.clone(), sv.stop.clone(), dhb.clone());
        for (c, sh) in &activities {
            disp.host.activities[*c as usize] = Some(sh.clone());
        }
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
        for _ in 0..=n + activities.len() {
            let (i, tid) = rx.recv().map_err(|_| RunError::System("a thread died during setup".into()))?;
            if i == usize::MAX {
                dtid = tid;
            } else if i < n {
                tids[i] = tid;
            }
        }
        let release_workers = |shared: &[Arc<Shared>]| {
            for s in shared {
                s.gate.store(sync::EXIT, Ordering::Release);
                sync::futex_wake(&s.gate);
            }
            for (_, a) in &activities {
                a.gate.store(sync::EXIT, Ordering::Release);
                sync::futex_wake(&a.gate);
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
            if let Some(a) = plan.colouring.as_ref().and_then(|c| c.allocation.as_ref()) {
                a.program(&sv.guard, &tids)?;
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
            for (c, a) in &activities {
                let tid = a.tid.load(Ordering::Acquire);
                sv.guard
                    .record_thread(tid)
                    .map_err(|e| RunError::system(format!("reading thread {tid}'s scheduling class"), e))?;
                sched::set_affinity(tid, &CpuSet::of(&[*c]))
                    .map_err(|e| RunError::system(format!("pinning the activity thread to CPU {c}"), e))?;
                sched::set_class(tid, Class::Fifo { priority: WORKER_PRIORITY })
                    .map_err(|e| RunError::system("making the activity thread SCHED_FIFO", e))?;
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
            for (_, h) in activity_threads {
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
        // The workers end once released; a thread still inside a job body
        // after 0.5 s is asked to stop, after 1 s abandoned.
        let since = clock::now();
        let logs = sv.join_workers(workers, plan, &mut ex.notes, |now| {
            if now - since > 500_000_000 {
                sv.stop.request(StopReason::Finished);
            }
            now - since > 1_000_000_000
        });
        ex.end = clock::now();
        let profile = meter.map(|meter| meter.finish());
        if let Some(p) = &profile {
            ex.notes.extend(p.lines());
        }
        let Some(d) = disp else {
            return Ok(ex);
        };
        if let Some(e) = d.error.clone() {
            return Err(RunError::Protocol(e));
        }
        let activity_logs: Vec<(u32, Vec<activity::ActivityStint>)> =
            activity_threads.into_iter().filter_map(|(c, h)| h.join().ok().map(|l| (c, l))).collect();
        let reports: Vec<Option<serde_json::Value>> = work.iter().map(|w| w.as_ref().map(|w| w.report())).collect();
        d.finish(&logs, &activity_logs, &reports, &mut ex);
        if let Some(p) = profile {
            // At the trace's end, after every job it measured.
            let t = ex.events.last().map_or(0, |e| e.t()).max(ex.horizon);
            ex.events.push(schedlab_trace::Event::Note { t, cpu: None, name: "wss-profile".into(), data: p.to_json() });
        }
        Ok(ex)
    }
}

/// How long the run goes on after its duration so that jobs released
/// before it can finish (then the run stops and they are ended).
pub(super) fn drain_limit(plan: &Plan) -> u64 {
    plan.tasks.iter().map(|t| t.deadline.max(t.period)).max().unwrap_or(0).max(100_000_000)
}
