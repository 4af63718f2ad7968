//! The policy's own activities on real threads (`Kernel::occupy`;
//! `schedlab_policy::Activity`): one thread per CPU the policy names
//! (`Policy::activity_cpus`), pinned there, SCHED_FIFO at the workers'
//! priority. It waits on its gate; when the dispatcher says "run" (the
//! policy occupied the CPU: under `mcs`, the memory-phase worker holds the
//! memory token) it does the task's part of the activity through the task's
//! job body ([`ActivityWork`]; `prem`: copies a Section between the data
//! and a sub-partition), 4 KiB at a time, checking its gate between steps;
//! when the gate says "hold" (the activity ended or its token was taken)
//! it stops within a step and waits. The policy keeps the activity's length
//! (its timer), so the thread's work is what it managed in that time.
//!
//! Since all the workers share one priority, the task worker the
//! dispatcher holds for the activity stops first (its preemption signal),
//! and a task worker dispatched after the activity queues behind the thread
//! until it stops: the CPU never runs both. The thread logs its stints
//! (activity, CPU, from, to, bytes, chunks finished), which become
//! `activity` notes in the trace.

use super::sync;
use crate::clock;
use crate::stop::Stop;
use crate::workload::activity::ActivityWork;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;

/// How often a holding activity thread checks for the end of the run.
const POLL_NS: u64 = 2_000_000;

/// What the dispatcher and an activity thread share.
#[derive(Debug, Default)]
pub struct ActivityShared {
    /// The gate (as a worker's: `sync::HOLD`, "run on CPU c", `sync::EXIT`).
    pub gate: AtomicU32,
    pub tid: std::sync::atomic::AtomicI32,
    /// The activity to run, written before the gate: task, job, segment.
    pub task: AtomicU32,
    pub job: AtomicU64,
    pub segment: AtomicU32,
    /// When the dispatcher last said "run" (absolute ns).
    pub run_cmd_t: AtomicU64,
}

/// One stint of an activity thread: it worked for `task`'s job `job`,
/// segment `segment`, on `cpu` in [from, to) (absolute ns), moving `bytes`
/// and finishing `chunks` whole chunks in `cpu_ns` of CPU time; `run_cmd`:
/// the dispatcher's command that started it.
#[derive(Debug, Clone, Copy)]
pub struct ActivityStint {
    pub task: u32,
    pub job: u64,
    pub segment: u32,
    pub cpu: u32,
    pub from: u64,
    pub to: u64,
    pub bytes: u64,
    pub chunks: u64,
    pub cpu_ns: u64,
    pub run_cmd: u64,
}

/// An activity thread's context.
pub(super) struct ActivityCtx {
    pub shared: Arc<ActivityShared>,
    /// Per task: its part of the activities (none: the thread keeps the CPU busy).
    pub work: Vec<Option<Arc<dyn ActivityWork>>>,
    pub stop: Arc<Stop>,
    pub log_cap: usize,
}

impl ActivityCtx {
    /// The thread's loop: wait for "run", work until "hold", log the stint.
    pub fn run(self) -> Vec<ActivityStint> {
        let sh = &self.shared;
        let mut log = Vec::with_capacity(self.log_cap);
        // The activity in progress and its position (a re-granted activity goes on where it stopped).
        let mut current: Option<(u32, u64, u32)> = None;
        let mut at = 0usize;
        loop {
            let g = sh.gate.load(Ordering::Acquire);
            if sync::state(g) == sync::EXIT {
                break;
            }
            if sync::run_cpu(g).is_none() {
                if self.stop.is_set() {
                    break;
                }
                sync::futex_wait(&sh.gate, g, Some(clock::now() + POLL_NS));
                continue;
            }
            let key =
                (sh.task.load(Ordering::Acquire), sh.job.load(Ordering::Acquire), sh.segment.load(Ordering::Acquire));
            if current != Some(key) {
                current = Some(key);
                at = 0;
            }
            let work = self.work.get(key.0 as usize).and_then(|w| w.as_deref());
            let (from, cpu0, cpu) = (clock::now(), clock::thread_cpu(), clock::current_cpu());
            let (mut bytes, mut chunks) = (0u64, 0u64);
            while sh.gate.load(Ordering::Acquire) == g && !self.stop.is_set() {
                match work {
                    Some(w) => {
                        for _ in 0..4 {
                            let (b, done) = w.step(key.2, &mut at);
                            bytes += b;
                            chunks += done as u64;
                        }
                    }
                    None => std::hint::spin_loop(),
                }
            }
            let cpu_ns = clock::thread_cpu() - cpu0;
            if let Some(w) = work {
                w.account(key.2, bytes, cpu_ns);
            }
            if log.len() < log.capacity() {
                let run_cmd = sh.run_cmd_t.load(Ordering::Relaxed);
                log.push(ActivityStint {
                    task: key.0,
                    job: key.1,
                    segment: key.2,
                    cpu,
                    from,
                    to: clock::now(),
                    bytes,
                    chunks,
                    cpu_ns,
                    run_cmd,
                });
            }
        }
        log
    }
}
