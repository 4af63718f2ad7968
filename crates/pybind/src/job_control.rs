//! What a Python job body reaches the runtime's preemption points and
//! self-suspensions through (`schedlab.Job.preemption_point()` /
//! `suspend(ns)`, `python/schedlab/_run.py`): the running job's `JobCtx`,
//! valid for one call of the body. While it waits for the dispatcher at a
//! point or sleeps through a suspension, the GIL is released, so the
//! Python bodies of other tasks may run meanwhile.

use pyo3::prelude::*;
use schedlab_rt::{JobCtx, JobError};

/// The job's context for one call of its Python body.
#[pyclass(unsendable, module = "schedlab._native")]
pub(crate) struct JobControl {
    /// The running job's context; null once the body returned.
    ctx: *mut JobCtx<'static>,
    /// The first reason the job must end (a stop, an abort at the
    /// deadline, a timing exception), met at a point or a suspension.
    pub(crate) err: Option<JobError>,
    segments: Vec<(String, u64)>,
}

/// The context pointer, handed to the code that runs without the GIL.
struct Ctx(*mut JobCtx<'static>);
// SAFETY: the pointer is used only by the thread that owns the job (the
// closure runs on the calling thread; `detach` only releases the GIL).
unsafe impl Send for Ctx {}

impl JobControl {
    pub(crate) fn new(ctx: &mut JobCtx) -> JobControl {
        let segments = ctx.segments.iter().map(|s| (s.kind.name().to_string(), s.demand)).collect();
        JobControl { ctx: (ctx as *mut JobCtx).cast::<JobCtx<'static>>(), err: None, segments }
    }

    /// The body returned: the context is no longer reachable.
    pub(crate) fn close(&mut self) -> Option<JobError> {
        self.ctx = std::ptr::null_mut();
        self.err.take()
    }

    fn step(&mut self, py: Python<'_>, f: impl FnOnce(&mut JobCtx<'static>) -> Result<(), JobError> + Send) -> bool {
        if self.err.is_some() || self.ctx.is_null() {
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

    /// The job's segments as (kind, demand in ns).
    #[getter]
    fn segments(&self) -> Vec<(String, u64)> {
        self.segments.clone()
    }
}
