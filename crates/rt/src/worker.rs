//! The job loop of a task thread, shared by backends whose workers release
//! their own jobs (the kernel backend): absolute-timer releases
//! (`clock_nanosleep(TIMER_ABSTIME)` on CLOCK_MONOTONIC) from the
//! synchronous release `t0`, the job body run under `catch_unwind`,
//! per-job deadline-miss detection, the overrun policy, and a trace record
//! for every step. [`run_job`] (one job: context, body, outcome) is the
//! piece a dispatcher-driven backend reuses.

use crate::calibrate::Calibration;
use crate::clock;
use crate::config::RunConfig;
use crate::job::{JobCtx, JobError};
use crate::point::PointHost;
use crate::record::Kind;
use crate::stop::{Stop, StopReason};
use crate::timing::{Limit, Mode};
use crate::tracebuf::Producer;
use crate::watchdog::Heartbeat;
use crate::workload::JobBody;
use schedlab_jobs::{Arrival, Demands, MissPolicy, Releases, SegmentDemand};
use std::sync::{Arc, Condvar, Mutex};

/// How one job ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobOutcome {
    Completed,
    /// Ended by the system: aborted at its deadline, an unhandled timing
    /// exception, or a stopping run.
    Forced(String),
    /// The body panicked or failed: the run must end.
    Failed(String),
}

/// Runs one job's body and records its completion (and miss, exceptions).
/// `release` and `deadline` are absolute CLOCK_MONOTONIC ns.
#[allow(clippy::too_many_arguments)]
pub fn run_job(
    body: &mut dyn JobBody,
    out: &mut Producer,
    task: u32,
    job: u64,
    release: u64,
    deadline: u64,
    exec: u64,
    wcet: u64,
    abort_at: Option<u64>,
    timing: Mode,
    stop: &Stop,
    calibration: &Calibration,
    segments: &[SegmentDemand],
    points: Option<&dyn PointHost>,
) -> JobOutcome {
    let cpu0 = clock::thread_cpu();
    let mut ctx = JobCtx::new(task, job, release, deadline, exec, wcet, stop, abort_at, calibration)
        .with_points(segments, points);
    ctx.set_timing_mode(timing);
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| body.run(&mut ctx)));
    let end = clock::now();
    let cpu = clock::current_cpu();
    let used = clock::thread_cpu() - cpu0;
    for t in &ctx.scope_times {
        out.push(Kind::ScopeTime, end, cpu, job, crate::timing::pack_scope(t), t.ns);
    }
    for v in &ctx.raised {
        out.push(Kind::Exception, v.noticed, cpu, job, (v.limit == Limit::Wcet) as u64, v.value);
        if v.limit == Limit::Wcet {
            out.push(Kind::Budget, v.noticed, cpu, job, v.value, 0);
        }
    }
    // A SCHED_DEADLINE overrun the body never checked for.
    if ctx.overran() && !ctx.overrun_reported {
        let v = ctx.overrun_violation();
        out.push(Kind::Exception, v.noticed, cpu, job, 1, v.value);
        out.push(Kind::Budget, v.noticed, cpu, job, v.value, 0);
    }
    let outcome = match r {
        Ok(Ok(())) => JobOutcome::Completed,
        Ok(Err(JobError::Timing(v))) => {
            out.push(Kind::Exception, v.noticed, cpu, job, (v.limit == Limit::Wcet) as u64, v.value);
            if v.limit == Limit::Wcet {
                out.push(Kind::Budget, v.noticed, cpu, job, v.value, 0);
            }
            JobOutcome::Forced(format!("unhandled {v}"))
        }
        Ok(Err(JobError::Aborted)) => JobOutcome::Forced("aborted at its deadline".into()),
        Ok(Err(JobError::Stopped)) => JobOutcome::Forced("the run ended".into()),
        Ok(Err(JobError::Failed(m))) => JobOutcome::Failed(m),
        Err(p) => {
            let msg = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "panic".into());
            JobOutcome::Failed(format!("panicked: {msg}"))
        }
    };
    if end > deadline {
        out.push(Kind::Miss, deadline, cpu, job, 0, 0);
    }
    out.push(Kind::Complete, end, cpu, job, used, (outcome != JobOutcome::Completed) as u64);
    outcome
}

/// The synchronous release: workers wait here until the backend has set
/// the machine up, then all get the same `t0` (or are told to leave).
#[derive(Debug, Default)]
pub struct StartGate {
    state: Mutex<Option<Option<u64>>>,
    cv: Condvar,
}

impl StartGate {
    pub fn new() -> StartGate {
        StartGate::default()
    }
    /// Opens the gate with time zero `t0` (`None`: setup failed, leave).
    pub fn open(&self, t0: Option<u64>) {
        *self.state.lock().unwrap_or_else(|p| p.into_inner()) = Some(t0);
        self.cv.notify_all();
    }
    pub fn wait(&self) -> Option<u64> {
        let mut g = self.state.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if let Some(v) = *g {
                return v;
            }
            g = self.cv.wait(g).unwrap_or_else(|p| p.into_inner());
        }
    }
}

/// Everything a self-releasing worker needs.
pub struct Worker {
    pub task: u32,
    pub wcet: u64,
    pub releases: Releases,
    pub exec: Demands,
    pub body: Box<dyn JobBody>,
    pub out: Producer,
    pub heartbeat: Arc<Heartbeat>,
    pub stop: Arc<Stop>,
    pub calibration: Calibration,
    pub overrun: MissPolicy,
    pub duration: u64,
    pub timing: Mode,
}

impl Worker {
    pub fn new(
        plan: &crate::plan::Plan,
        task: usize,
        body: Box<dyn JobBody>,
        out: Producer,
        heartbeat: Arc<Heartbeat>,
        stop: Arc<Stop>,
    ) -> Worker {
        let c: &RunConfig = &plan.config;
        let t = &plan.spec.tasks[task];
        Worker {
            task: task as u32,
            wcet: t.wcet.0,
            releases: c.job_model().releases(t, task),
            exec: c.job_model().demands(t, task),
            body,
            out,
            heartbeat,
            stop,
            calibration: plan.calibration.clone(),
            overrun: c.overrun,
            duration: c.duration,
            timing: c.timing,
        }
    }

    /// The job loop from time zero `t0` until the duration ends or the run stops.
    pub fn run(mut self, t0: u64) -> Producer {
        let mut busy_until = 0u64; // absolute completion of the previous job
        let mut job = 0u64;
        for Arrival { release, deadline, .. } in self.releases.by_ref() {
            if release >= self.duration || self.stop.is_set() {
                break;
            }
            let (rel, dl) = (t0 + release, t0 + deadline);
            if self.overrun == MissPolicy::Skip && busy_until > rel {
                self.out.push(Kind::Skip, rel, clock::current_cpu(), job, 0, 0);
                continue;
            }
            let slept = clock::now() < rel;
            if slept {
                clock::sleep_until(rel);
            }
            let start = clock::now();
            if self.stop.is_set() {
                break;
            }
            let cpu = clock::current_cpu();
            self.out.push(Kind::Release, rel, cpu, job, dl, 0);
            self.out.push(Kind::Start, start, cpu, job, slept as u64, 0);
            self.heartbeat.busy(start);
            let exec = self.exec.draw();
            let abort_at = (self.overrun == MissPolicy::Abort).then_some(dl);
            let o = run_job(
                self.body.as_mut(),
                &mut self.out,
                self.task,
                job,
                rel,
                dl,
                exec,
                self.wcet,
                abort_at,
                self.timing,
                &self.stop,
                &self.calibration,
                &[],
                None,
            );
            self.heartbeat.idle();
            busy_until = clock::now();
            if let JobOutcome::Failed(m) = o {
                self.stop.request(StopReason::JobFailed(format!("task {} job {job}: {m}", self.task)));
                break;
            }
            job += 1;
        }
        self.out
    }
}
