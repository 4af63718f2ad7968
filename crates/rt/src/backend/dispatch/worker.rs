//! The dispatch backend's workers: one thread per task that executes only
//! while dispatched. It waits on its gate for a "run on CPU c" command,
//! runs the posted job's body, logs its running stints (the trace's truth)
//! and rings the dispatcher's doorbell when the job ends.

use super::points::WorkerPoints;
use super::sync::{self, End, Local, Shared, Stint};
use crate::clock;
use crate::stop::{Stop, StopReason};
use crate::watchdog::Heartbeat;
use crate::worker::{run_job, JobOutcome};
use crate::workload::JobBody;
use schedlab_jobs::SegmentDemand;
use schedlab_model::Segment;
use std::cell::Cell;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

/// What a worker thread hands back.
pub struct WorkerLog {
    pub stints: Vec<Stint>,
    pub dropped: u64,
}

pub(super) struct WorkerCtx {
    pub task: u32,
    pub wcet: u64,
    pub body: Box<dyn JobBody>,
    pub out: crate::tracebuf::Producer,
    pub hb: Arc<Heartbeat>,
    pub stop: Arc<Stop>,
    pub calibration: crate::calibrate::Calibration,
    pub abort: bool,
    /// The run's timing mode (`--timing`).
    pub timing: crate::timing::Mode,
    pub shared: Arc<Shared>,
    pub bell: Arc<AtomicU32>,
    pub log_cap: usize,
    /// The task's declared segments (empty: none).
    pub segments: Vec<Segment>,
    /// Its MTT's page-reference footprint helper ([`crate::footprint`]).
    pub footprint: Option<crate::footprint::Poster>,
}

impl WorkerCtx {
    /// The worker's loop: wait for a dispatched job, run it, report it.
    pub fn run(mut self) -> WorkerLog {
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
        let local_ptr: *mut Local = &mut *local;
        let points =
            WorkerPoints { shared: &sh, bell: &self.bell, stop: &self.stop, local: local_ptr, made: Cell::new(0) };
        let mut segs: Vec<SegmentDemand> = Vec::with_capacity(self.segments.len());
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
            segs.clear();
            segs.extend(self.segments.iter().zip(sh.segs.iter()).map(|(s, d)| SegmentDemand {
                kind: s.kind,
                demand: d.load(Ordering::Acquire),
                preemptible: s.preemptible,
            }));
            let cmd = sh.run_cmd_t.load(Ordering::Acquire);
            let t = clock::now();
            sh.cpu0.store(clock::thread_cpu(), Ordering::Release);
            sh.started.store(job + 1, Ordering::Release);
            local.job = job;
            local.in_job = true;
            local.open(t, clock::current_cpu(), cmd);
            self.hb.busy(t);
            if let Some(f) = &self.footprint {
                f.started(job, t);
            }
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
                self.timing,
                &self.stop,
                &self.calibration,
                &segs,
                Some(&points),
            );
            sync::block_preempt(true);
            let end = clock::now();
            let forced = o != JobOutcome::Completed;
            local.close(end, if forced { End::Forced } else { End::Complete }, 0);
            local.in_job = false;
            if let Some(f) = &self.footprint {
                f.ended(job, !forced);
            }
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
