//! Backends: how a plan becomes running threads. The runtime
//! ([`crate::runtime`]) owns everything backends share — the plan (checked
//! spec, policy admission, workloads, calibration), privileges, the restore
//! guard, signals, the watchdog, the trace collector, trace assembly and
//! the outcome; a backend owns its threads and the kernel settings its
//! mapping needs.
//!
//! # Adding a backend (the seam)
//!
//! 1. Implement [`Backend`] in `backend/<name>.rs`:
//!    - [`Backend::check`]: reject what it cannot run as
//!      `RunError::BadInput` (exit 2) — nothing may be touched here;
//!    - [`Backend::needs`]: the privileges its mapping needs (checked by
//!      the runtime before anything is touched, exit 3);
//!    - [`Backend::execute`]: create the threads, record every change in
//!      `sv.guard` *before* making it, register one trace ring per thread
//!      with `sv.collector` (a worker's ring with `Some(task)`), a
//!      heartbeat per party with `sv.watchdog`, release the set
//!      synchronously at `t0`, stop at `plan.config.duration` or when
//!      `sv.stop` is set, join (or demote and abandon) the threads, and
//!      return [`Executed`]. Use [`Services::kernel_trace`] for tracefs.
//!
//!    A backend whose workers do not release their own jobs (a user-space
//!    dispatcher) records the same [`crate::record::Record`]s per job
//!    (`Release`, `Start`, `Complete`, `Miss`, ...) and runs bodies with
//!    [`crate::worker::run_job`]; policy-side events (its decisions, switch
//!    instants it chose) go in [`Executed::events`], already relative to
//!    `t0`, and `Executed::switches_recorded = true` tells assembly not to
//!    derive switches from the kernel.
//! 2. Add a variant to [`crate::config::BackendKind`] and a line to [`select`].

pub mod dispatch;
pub mod kernel;

use crate::config::BackendKind;
use crate::error::RunError;
use crate::ftrace::{KernelEvents, KernelTrace};
use crate::guard::Guard;
use crate::plan::Plan;
use crate::privilege::Needs;
use crate::stop::Stop;
use crate::tracebuf::Collector;
use crate::watchdog::Watchdog;
use std::sync::Arc;

/// What the runtime lends a backend for one run.
pub struct Services {
    pub guard: Arc<Guard>,
    pub stop: Arc<Stop>,
    pub watchdog: Watchdog,
    pub collector: Collector,
}

impl Services {
    /// Starts the kernel's sched event trace for `pids` when the run asks
    /// for it (`None` otherwise), sized for the plan.
    pub fn kernel_trace(&self, plan: &Plan, pids: &[i32]) -> Result<Option<KernelTrace>, RunError> {
        if !plan.config.kernel_trace {
            return Ok(None);
        }
        let jobs: u64 = (0..plan.tasks.len()).map(|i| plan.expected_jobs(i)).sum();
        // ~8 events of ~120 bytes per job (switches, wake-ups, preemptions), x4 margin.
        let kb = (jobs * 8 * 120 * 4 / 1024 / plan.online.len().max(1) as u64).clamp(1024, 64 * 1024);
        KernelTrace::start(&self.guard, pids, kb).map(Some)
    }

    /// Joins the workers' threads (by task index), looking every 2 ms,
    /// until all have ended or `give_up(now)` answers true; the threads
    /// still inside a job body then are demoted to SCHED_OTHER and named
    /// in a note pushed onto `notes`. What each joined thread returned,
    /// by task index (`None`: abandoned or panicked).
    pub fn join_workers<T>(
        &self,
        handles: Vec<std::thread::JoinHandle<T>>,
        plan: &Plan,
        notes: &mut Vec<String>,
        mut give_up: impl FnMut(u64) -> bool,
    ) -> Vec<Option<T>> {
        let mut handles: Vec<Option<std::thread::JoinHandle<T>>> = handles.into_iter().map(Some).collect();
        let mut out: Vec<Option<T>> = handles.iter().map(|_| None).collect();
        loop {
            for (i, h) in handles.iter_mut().enumerate() {
                if h.as_ref().is_some_and(|h| h.is_finished()) {
                    out[i] = h.take().and_then(|h| h.join().ok());
                }
            }
            if handles.iter().all(|h| h.is_none()) {
                return out;
            }
            if give_up(crate::clock::now()) {
                self.guard.demote_threads();
                let left: Vec<&str> = handles
                    .iter()
                    .enumerate()
                    .filter(|(_, h)| h.is_some())
                    .map(|(i, _)| plan.tasks[i].name.as_str())
                    .collect();
                notes.push(format!(
                    "abandoned the thread(s) of {} (still inside a job body), demoted to SCHED_OTHER",
                    left.join(", ")
                ));
                return out;
            }
            crate::clock::sleep_until(crate::clock::now() + 2_000_000);
        }
    }
}

/// What a backend hands back.
#[derive(Debug, Default)]
pub struct Executed {
    /// The synchronous release (CLOCK_MONOTONIC ns).
    pub t0: u64,
    /// When the last thread stopped (CLOCK_MONOTONIC ns).
    pub end: u64,
    /// The thread of each task, by task index (0: none).
    pub tids: Vec<i32>,
    /// The kernel's events, when traced.
    pub kernel: Option<KernelEvents>,
    /// How each task was mapped (for the report), by task index.
    pub mapping: Vec<String>,
    /// Backend-produced trace events (relative to t0), merged as they are.
    pub events: Vec<schedlab_trace::Event>,
    /// The backend recorded switch events itself (do not derive them).
    pub switches_recorded: bool,
    /// Remarks for the report (e.g. threads abandoned).
    pub notes: Vec<String>,
    /// Overhead samples the backend measured itself (merged with assembly's).
    pub overheads: crate::overheads::Samples,
    /// The end of the backend's own events (ns from t0), when it records
    /// them: the trace's horizon covers them.
    pub horizon: u64,
    /// The backend holds the run's threads off their CPUs on purpose (RT
    /// group budgets): another thread running while a job waits is then no
    /// platform stall.
    pub throttled: bool,
}

/// A way of running a plan on this machine.
pub trait Backend {
    fn name(&self) -> &'static str;
    /// Can this backend run the plan? Nothing is touched.
    fn check(&self, plan: &Plan) -> Result<(), RunError>;
    /// The privileges the run needs.
    fn needs(&self, plan: &Plan) -> Needs;
    /// Runs the plan (see the module documentation for the contract).
    fn execute(&mut self, plan: &mut Plan, sv: &Services) -> Result<Executed, RunError>;
}

/// The backend of a configured kind.
pub fn select(kind: BackendKind) -> Result<Box<dyn Backend>, RunError> {
    match kind {
        BackendKind::Kernel => Ok(Box::new(kernel::KernelBackend::default())),
        BackendKind::Dispatch => Ok(Box::new(dispatch::DispatchBackend::default())),
    }
}
