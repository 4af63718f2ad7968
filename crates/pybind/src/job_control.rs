//! What a Python job body reaches the runtime's preemption points,
//! self-suspensions and timing scopes through (`schedlab.Job.preemption_point()`
//! / `suspend(ns)` / `within(...)` / `wcet(...)` / `protected()` / `check()`,
//! `python/schedlab/_run.py`): the running job's `JobCtx`, valid for one
//! call of the body. While it waits for the dispatcher at a
//! point or sleeps through a suspension, the GIL is released, so the
//! Python bodies of other tasks may run meanwhile.

use pyo3::prelude::*;
use schedlab_rt::timing::{Limit, Violation};
use schedlab_rt::{JobCtx, JobError};

/// A violation as Python sees it: (kind, scope, depth, limit ns, lateness ns).
type PyViolation = (&'static str, u64, usize, u64, u64);

fn py_violation(v: &Violation) -> PyViolation {
    (if v.limit == Limit::Wcet { "wcet" } else { "deadline" }, v.scope, v.depth, v.value, v.lateness)
}

/// A timing call's answer: 0 go on, 1 this scope's own violation, 2 unwind
/// to the scope of the violation given, -1 the job must end (the reason is
/// kept for the job's end).
type Answer = (i32, Option<PyViolation>);

/// The job's context for one call of its Python body.
#[pyclass(module = "schedlab._native")]
pub(crate) struct JobControl {
    /// The running job's context; null once the body returned.
    ctx: *mut JobCtx<'static>,
    /// The first reason the job must end (a stop, an abort at the
    /// deadline, a timing exception), met at a point or a suspension.
    pub(crate) err: Option<JobError>,
    segments: Vec<(String, u64)>,
    /// The job's thread: the only one that may reach `ctx`.
    owner: std::thread::ThreadId,
}

// SAFETY: `ctx` is dereferenced only on the job's own thread while the body
// runs (`gone` checks both); a `Job` that escapes the body, to another
// thread or into a reference cycle the collector frees elsewhere, reaches
// nothing and may be dropped anywhere.
unsafe impl Send for JobControl {}
unsafe impl Sync for JobControl {}

/// The context pointer, handed to the code that runs without the GIL.
struct Ctx(*mut JobCtx<'static>);
// SAFETY: the pointer is used only by the thread that owns the job (the
// closure runs on the calling thread; `detach` only releases the GIL).
unsafe impl Send for Ctx {}

impl JobControl {
    pub(crate) fn new(ctx: &mut JobCtx) -> JobControl {
        let segments = ctx.segments.iter().map(|s| (s.kind.name().to_string(), s.demand)).collect();
        JobControl {
            ctx: (ctx as *mut JobCtx).cast::<JobCtx<'static>>(),
            err: None,
            segments,
            owner: std::thread::current().id(),
        }
    }

    /// The context is not reachable: the body returned, or this is not the job's thread.
    fn gone(&self) -> bool {
        self.ctx.is_null() || std::thread::current().id() != self.owner
    }

    /// The body returned: the context is no longer reachable.
    pub(crate) fn close(&mut self) -> Option<JobError> {
        self.ctx = std::ptr::null_mut();
        self.err.take()
    }

    fn step(&mut self, py: Python<'_>, f: impl FnOnce(&mut JobCtx<'static>) -> Result<(), JobError> + Send) -> bool {
        if self.err.is_some() || self.gone() {
            return false;
        }
        let p = Ctx(self.ctx);
        // SAFETY: `ctx` points to the job's context for the duration of the
        // body's call (`close` nulls it after), and nothing else touches it
        // while the body runs.
        let r = py.detach(move || {
            let p = p;
            f(unsafe { &mut *p.0 })
        });
        match r {
            Ok(()) => true,
            Err(e) => {
                self.err = Some(e);
                false
            }
        }
    }

    /// Runs a timing call on the context (with the GIL: they do not block).
    fn timing(&mut self, f: impl FnOnce(&mut JobCtx<'static>) -> Result<Option<Violation>, JobError>) -> Answer {
        if self.err.is_some() || self.gone() {
            return (-1, None);
        }
        // SAFETY: as in `step`.
        match f(unsafe { &mut *self.ctx }) {
            Ok(None) => (0, None),
            Ok(Some(v)) => (1, Some(py_violation(&v))),
            // Scope 0 is the whole job (a SCHED_DEADLINE overrun): it ends the job.
            Err(JobError::Timing(v)) if v.scope != 0 => (2, Some(py_violation(&v))),
            Err(e) => {
                self.err = Some(e);
                (-1, None)
            }
        }
    }
}

#[pymethods]
impl JobControl {
    /// A preemption point (`JobCtx::preemption_point`): True to go on,
    /// False when the job must end now.
    fn preemption_point(&mut self, py: Python<'_>) -> bool {
        self.step(py, |ctx| ctx.preemption_point())
    }

    /// A self-suspension of `ns` nanoseconds (`JobCtx::suspend`): True to
    /// go on, False when the job must end now.
    fn suspend(&mut self, py: Python<'_>, ns: u64) -> bool {
        self.step(py, move |ctx| ctx.suspend(ns))
    }

    /// Opens a timing scope (`JobCtx::scope_begin`): `kind` "deadline"
    /// (`ns` relative, or absolute CLOCK_MONOTONIC with `absolute`) or
    /// "wcet" (`ns` of thread CPU time). Returns its id, 0 when the job must end.
    fn begin(&mut self, kind: &str, ns: u64, absolute: bool, label: &str) -> PyResult<u64> {
        if self.err.is_some() || self.gone() {
            return Ok(0);
        }
        // SAFETY: as in `step`.
        let ctx = unsafe { &mut *self.ctx };
        Ok(match (kind, absolute) {
            ("deadline", true) => ctx.scope_begin(label, Limit::Deadline, ns, 0),
            ("deadline", false) => ctx.scope_begin_within_rel(label, ns),
            ("wcet", _) => ctx.scope_begin_wcet(label, ns),
            _ => return Err(pyo3::exceptions::PyValueError::new_err(format!("timing scope kind {kind:?}"))),
        })
    }

    /// Ends scope `id` (`JobCtx::scope_end`).
    fn end(&mut self, id: u64) -> Answer {
        if self.err.is_some() && !self.gone() {
            // The job is ending: still end the scope (its timer goes).
            // SAFETY: as in `step`.
            let _ = unsafe { &mut *self.ctx }.scope_end(id);
        }
        self.timing(|ctx| ctx.scope_end(id))
    }

    /// `JobCtx::check`.
    fn check(&mut self) -> Answer {
        self.timing(|ctx| ctx.check().map(|()| None))
    }

    fn protect_begin(&mut self) {
        if !self.gone() {
            // SAFETY: as in `step`.
            unsafe { &mut *self.ctx }.protect_begin();
        }
    }

    fn protect_end(&mut self) -> Answer {
        if self.err.is_some() && !self.gone() {
            // SAFETY: as in `step`.
            let _ = unsafe { &mut *self.ctx }.protect_end();
        }
        self.timing(|ctx| ctx.protect_end().map(|()| None))
    }

    /// The body let scope `id`'s violation escape: the job ends with it
    /// (an unhandled timing exception, as in Rust), not as a failure.
    fn unhandled(&mut self, id: u64) {
        if self.err.is_none() && !self.gone() {
            // SAFETY: as in `step`.
            if let Some(v) = unsafe { &mut *self.ctx }.unhandled(id) {
                self.err = Some(JobError::Timing(v));
            }
        }
    }

    /// The job's segments as (kind, demand in ns).
    #[getter]
    fn segments(&self) -> Vec<(String, u64)> {
        self.segments.clone()
    }
}
