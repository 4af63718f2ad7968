//! `schedlab.run`: the Linux runtime (crate `rt`) from Python, with the
//! options of `schedlab run` (less the `--`). The recorded schedule becomes a
//! [`SimRun`] (the object `schedlab.simulate` returns: metrics, job table,
//! exports, validation), and what only a real run has (backend, mapping,
//! overheads, trace integrity, notes, how it stopped) comes as JSON beside it.
//!
//! Job bodies may be Python callables: each job calls one on the task's
//! real-time thread, holding the GIL for the call. That is not real-time
//! (the GIL serialises the tasks' bodies and the interpreter's pauses are
//! unbounded); the default workloads and `c:` / `cmd:` ones are.

use crate::job_control::JobControl;
use crate::sim::{self, SimRun};
use pyo3::exceptions::{PyKeyboardInterrupt, PyPermissionError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;
use schedlab_model::Spec;
use schedlab_rt::{
    BackendKind, Execution, JobCtx, JobError, MissPolicy, RunConfig, RunError, Sporadic, StopReason, WorkloadSpec,
};
use serde_json::json;
use std::path::PathBuf;

mod py {
    pyo3::import_exception!(schedlab._run, RunError);
}

fn run_error(e: RunError) -> PyErr {
    match e {
        RunError::BadInput(m) => PyValueError::new_err(m),
        RunError::Privilege(m) => PyPermissionError::new_err(format!("insufficient privileges: {m}")),
        e => py::RunError::new_err(e.to_string()),
    }
}

/// The options of `schedlab run` as `run()` receives them (durations as text).
pub(crate) struct RunOptions<'a> {
    pub duration: &'a str,
    pub backend: &'a str,
    pub seed: u64,
    pub exec: &'a str,
    pub sporadic: &'a str,
    pub jitter: bool,
    pub miss: &'a str,
    pub allow_command: bool,
    pub kernel_trace: bool,
    pub job_timeout: Option<&'a str>,
    pub dl_slack: &'a str,
    pub dl_slack_ratio: f64,
    pub start_margin: &'a str,
    pub recalibrate: bool,
    pub wait: bool,
    pub timing: &'a str,
    pub counters: &'a str,
    pub idle: &'a str,
}

fn dur(name: &str, text: &str) -> PyResult<u64> {
    text.parse::<schedlab_model::Duration>().map(|d| d.0).map_err(|e| PyValueError::new_err(format!("{name}: {}", e.0)))
}

/// A Python callable as a task's job body: called as
/// `f(task, job, release, deadline, exec, wcet, control)` (ints, ns of
/// CLOCK_MONOTONIC; `control` the job's [`JobControl`]: its segments, its
/// preemption points and suspensions) with the GIL held; an exception fails
/// the job and ends the run with its traceback, unless a point or a
/// suspension found that the job must end (that reason is the job's end).
fn python_body(f: Py<PyAny>) -> WorkloadSpec {
    let f = std::sync::Arc::new(f);
    WorkloadSpec::rust("python", move |_task| {
        let f = f.clone();
        Box::new(move |ctx: &mut JobCtx| -> Result<(), JobError> {
            ctx.check()?;
            let args = (ctx.task, ctx.job, ctx.release, ctx.deadline, ctx.exec, ctx.wcet);
            Python::attach(|py| {
                let failed = |e: PyErr| {
                    let tb = e.traceback(py).and_then(|t| t.format().ok()).unwrap_or_default();
                    JobError::Failed(format!(
                        "the Python job body raised {}{}",
                        e,
                        if tb.is_empty() { String::new() } else { format!("\n{tb}") }
                    ))
                };
                let control = Py::new(py, JobControl::new(ctx)).map_err(failed)?;
                let r = f.call1(py, (args.0, args.1, args.2, args.3, args.4, args.5, control.clone_ref(py)));
                if let Some(e) = control.borrow_mut(py).close() {
                    return Err(e);
                }
                r.map(|_| ()).map_err(failed)
            })
        })
    })
}

/// A workload argument: a kind (`"spin"`, `"c:LIB:SYM"`, ...) or a callable.
fn workload(name: &str, w: &Bound<'_, PyAny>) -> PyResult<WorkloadSpec> {
    if let Ok(s) = w.cast::<PyString>() {
        s.to_str()?.parse::<WorkloadSpec>().map_err(|e| PyValueError::new_err(format!("{name}: {e}")))
    } else if w.is_callable() {
        Ok(python_body(w.clone().unbind()))
    } else {
        Err(PyValueError::new_err(format!(
            "{name}: expected a workload kind (str) or a callable, got {}",
            w.get_type().name()?
        )))
    }
}

pub(crate) fn config(
    o: &RunOptions<'_>,
    spec: &Spec,
    spec_dir: PathBuf,
    default: &Bound<'_, PyAny>,
    per_task: &[(String, Bound<'_, PyAny>)],
) -> PyResult<RunConfig> {
    let v = |name: &str, e: String| PyValueError::new_err(format!("{name}: {e}"));
    let backend: BackendKind = o.backend.parse().map_err(|e| v("backend", e))?;
    let execution: Execution = o.exec.parse().map_err(|e| v("exec", e))?;
    let sporadic: Sporadic = o.sporadic.parse().map_err(|e| v("sporadic", e))?;
    let overrun: MissPolicy = o.miss.parse().map_err(|e| v("miss", e))?;
    let timing: schedlab_rt::timing::Mode = o.timing.parse().map_err(|e| v("timing", e))?;
    let counters: schedlab_rt::counters::CounterChoice = o.counters.parse().map_err(|e| v("counters", e))?;
    let idle: schedlab_rt::idle::IdleMode = o.idle.parse().map_err(|e| v("idle", e))?;
    let mut cfg = RunConfig {
        duration: dur("duration", o.duration)?,
        backend,
        seed: o.seed,
        sporadic,
        ignore_jitter: !o.jitter,
        execution,
        overrun,
        timing,
        counters,
        idle,
        allow_command: o.allow_command,
        kernel_trace: o.kernel_trace,
        job_timeout: o.job_timeout.map(|t| dur("job_timeout", t)).transpose()?,
        dl_slack: dur("dl_slack", o.dl_slack)?,
        dl_slack_ratio: if o.dl_slack_ratio.is_finite() && (0.0..=1.0).contains(&o.dl_slack_ratio) {
            o.dl_slack_ratio
        } else {
            return Err(PyValueError::new_err(format!(
                "dl_slack_ratio: expected a number in [0, 1], got {}",
                o.dl_slack_ratio
            )));
        },
        start_margin: dur("start_margin", o.start_margin)?.max(1_000_000),
        recalibrate: o.recalibrate,
        spec_dir,
        exit_on_signal_timeout: false,
        wait: o.wait,
        workload: workload("workload", default)?,
        ..RunConfig::default()
    };
    for (t, w) in per_task {
        let i = spec
            .tasks
            .iter()
            .position(|x| &x.name == t)
            .or_else(|| t.parse::<usize>().ok().filter(|&i| i < spec.tasks.len()))
            .ok_or_else(|| PyValueError::new_err(format!("workload: no task named `{t}`")))?;
        cfg.workloads.push((i, workload(&format!("workload[{t:?}]"), w)?));
    }
    Ok(cfg)
}

/// Runs `spec` (without the GIL; Python job bodies take it per call) and
/// returns the schedule as a [`SimRun`] and the run's own facts as JSON.
pub(crate) fn run(
    py: Python<'_>,
    spec: Spec,
    cfg: RunConfig,
    trace: Option<PathBuf>,
    keep_events: bool,
) -> PyResult<(SimRun, String)> {
    let o = py.detach(|| schedlab_rt::run(&spec, &cfg)).map_err(run_error)?;
    match &o.stop {
        StopReason::Finished => {}
        StopReason::Signal(2) => {
            return Err(PyKeyboardInterrupt::new_err("schedlab.run: interrupted (SIGINT); the machine was restored"))
        }
        StopReason::Signal(s) => {
            return Err(py::RunError::new_err(format!("stopped by signal {s}; the machine was restored")))
        }
        StopReason::Watchdog(m) => return Err(py::RunError::new_err(format!("watchdog: {m}"))),
        StopReason::JobFailed(m) => return Err(py::RunError::new_err(format!("job failed: {m}"))),
    }
    let overheads: Vec<serde_json::Value> = o
        .overheads
        .report()
        .iter()
        .map(|(k, s)| json!({"kind": k.name(), "count": s.count, "min": s.min, "p50": s.p50, "p99": s.p99, "p999": s.p999, "max": s.max, "mean": s.mean}))
        .collect();
    let info = json!({
        "backend": o.backend,
        "mapping": o.mapping,
        "kernel_trace": o.kernel_trace,
        "integrity": o.integrity,
        "complete": o.integrity.complete(),
        "overheads": overheads,
        "overheads_csv": schedlab_rt::overheads::csv(spec.tasks.len(), &o.overheads),
        "calibration": {"ns_per_iter": o.calibration.ns_per_iter, "cached": o.calibration.cached, "spread": o.calibration.spread},
        "notes": o.notes,
        "stalls": o.stalls,
    })
    .to_string();
    let run = py.detach(move || sim::from_events(o.header, o.events, trace, keep_events)).map_err(PyErr::from)?;
    Ok((run, info))
}
