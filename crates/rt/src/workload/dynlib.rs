//! `c:LIBRARY:SYMBOL[:ARG]`: a C-ABI function from a shared library, loaded
//! with `dlopen` before the run and called once per job (the liblitmus-style
//! job loop, with schedlab doing the loop). The struct is declared in the
//! header the Python package ships (`schedlab/include/schedlab.h`;
//! `python -c "import schedlab, pathlib; print(pathlib.Path(schedlab.__file__).parent / 'include')"`):
//!
//! ```c
//! struct schedlab_segment { uint32_t kind; uint64_t demand_ns; };  /* kind: 0 exec, 1 memory, 2 suspend */
//! struct schedlab_job {
//!     uint32_t task;          /* the task's index in the spec */
//!     uint64_t job;           /* 0-based job number */
//!     uint64_t release_ns;    /* CLOCK_MONOTONIC */
//!     uint64_t deadline_ns;   /* CLOCK_MONOTONIC */
//!     uint64_t exec_ns;       /* CPU time this job should consume */
//!     uint64_t wcet_ns;
//!     const char *arg;        /* ARG from the workload, or NULL */
//!     /* the job's segments as the job model drew them (dispatch backend; else 0, NULL) */
//!     uint32_t n_segments;
//!     const struct schedlab_segment *segments;
//!     /* a preemption point / a self-suspension of ns: 0 go on, other: the job must end now */
//!     int (*preemption_point)(const struct schedlab_job *job);
//!     int (*suspend)(const struct schedlab_job *job, uint64_t ns);
//!     void *schedlab;         /* schedlab's, do not touch */
//!     /* timing scopes (OML): begin returns the scope's id, 0 if the job must end */
//!     uint64_t (*within_abs)(const struct schedlab_job *job, uint64_t deadline_ns, const char *label);
//!     uint64_t (*within_rel)(const struct schedlab_job *job, uint64_t rel_ns, const char *label);
//!     uint64_t (*wcet)(const struct schedlab_job *job, uint64_t budget_ns, const char *label);
//!     /* 1: this scope was violated (*v filled), 0: not, -1: propagate (outer scope or the job ends) */
//!     int (*end)(const struct schedlab_job *job, uint64_t scope, struct schedlab_violation *v);
//!     int (*check)(const struct schedlab_job *job);   /* 0 go on, 1 a scope is violated, -1 end the job */
//!     void (*protect_begin)(const struct schedlab_job *job);
//!     int (*protect_end)(const struct schedlab_job *job);   /* as check */
//! };
//! int my_job(const struct schedlab_job *job);  /* 0: done; other: failed */
//! ```
//!
//! The fields up to `arg` are as before the segments came, and those up to
//! `schedlab` as before the timing scopes: a body that reads only them
//! keeps working.

use crate::job::{JobCtx, JobError};
use crate::timing::{Limit, Violation};
use crate::workload::JobBody;
use std::ffi::{CStr, CString};

/// The C view of a segment.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CSegment {
    /// 0 exec, 1 memory, 2 suspend.
    pub kind: u32,
    pub demand_ns: u64,
}

/// The C view of a job.
#[repr(C)]
pub struct CJob {
    pub task: u32,
    pub job: u64,
    pub release_ns: u64,
    pub deadline_ns: u64,
    pub exec_ns: u64,
    pub wcet_ns: u64,
    pub arg: *const libc::c_char,
    pub n_segments: u32,
    pub segments: *const CSegment,
    pub preemption_point: unsafe extern "C" fn(*const CJob) -> libc::c_int,
    pub suspend: unsafe extern "C" fn(*const CJob, u64) -> libc::c_int,
    pub schedlab: *mut libc::c_void,
    pub within_abs: unsafe extern "C" fn(*const CJob, u64, *const libc::c_char) -> u64,
    pub within_rel: unsafe extern "C" fn(*const CJob, u64, *const libc::c_char) -> u64,
    pub wcet: unsafe extern "C" fn(*const CJob, u64, *const libc::c_char) -> u64,
    pub end: unsafe extern "C" fn(*const CJob, u64, *mut CViolation) -> libc::c_int,
    pub check: unsafe extern "C" fn(*const CJob) -> libc::c_int,
    pub protect_begin: unsafe extern "C" fn(*const CJob),
    pub protect_end: unsafe extern "C" fn(*const CJob) -> libc::c_int,
}

/// The C view of a violation (`struct schedlab_violation`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct CViolation {
    /// 0 deadline, 1 WCET.
    pub kind: u32,
    /// Nesting depth of the scope (0: outermost).
    pub depth: u32,
    pub scope: u64,
    /// The absolute deadline (CLOCK_MONOTONIC ns) or the budget (CPU ns).
    pub limit_ns: u64,
    /// Wall ns past the deadline / CPU ns past the budget when noticed.
    pub lateness_ns: u64,
}

impl From<Violation> for CViolation {
    fn from(v: Violation) -> CViolation {
        CViolation {
            kind: (v.limit == Limit::Wcet) as u32,
            depth: v.depth as u32,
            scope: v.scope,
            limit_ns: v.value,
            lateness_ns: v.lateness,
        }
    }
}

/// What the callbacks reach through `CJob::schedlab`: the job's context
/// and the first error a callback met (the body's result then).
struct Call<'c, 'a> {
    ctx: &'c mut JobCtx<'a>,
    err: Option<JobError>,
}

unsafe fn call_of<'x>(job: *const CJob) -> Option<&'x mut Call<'x, 'x>> {
    // SAFETY (caller): `job` is the CJob schedlab passed to the body, whose
    // `schedlab` points to the live Call of this job.
    job.as_ref().and_then(|j| (j.schedlab as *mut Call).as_mut())
}

impl Call<'_, '_> {
    /// 0 for Ok, 1 for a timing violation (the body unwinds to a scope's
    /// end), -1 for an error that ends the job (kept as the body's result).
    fn code(&mut self, r: Result<(), JobError>) -> libc::c_int {
        match r {
            Ok(()) => 0,
            // Scope 0 is the whole job (a SCHED_DEADLINE overrun): no scope
            // of the body owns it, the job ends.
            Err(JobError::Timing(v)) if v.scope != 0 => 1,
            Err(e) => {
                self.err = Some(e);
                -1
            }
        }
    }
}

unsafe extern "C" fn c_preemption_point(job: *const CJob) -> libc::c_int {
    let Some(c) = call_of(job) else { return -1 };
    if c.err.is_some() {
        return 1;
    }
    let r = c.ctx.preemption_point();
    c.code(r).abs()
}

unsafe extern "C" fn c_suspend(job: *const CJob, ns: u64) -> libc::c_int {
    let Some(c) = call_of(job) else { return -1 };
    if c.err.is_some() {
        return 1;
    }
    let r = c.ctx.suspend(ns);
    c.code(r).abs()
}

unsafe fn label_of<'x>(label: *const libc::c_char) -> std::borrow::Cow<'x, str> {
    if label.is_null() {
        "".into()
    } else {
        CStr::from_ptr(label).to_string_lossy()
    }
}

unsafe extern "C" fn c_within_abs(job: *const CJob, deadline: u64, label: *const libc::c_char) -> u64 {
    match call_of(job) {
        Some(c) if c.err.is_none() => c.ctx.scope_begin(&label_of(label), Limit::Deadline, deadline, 0),
        _ => 0,
    }
}

unsafe extern "C" fn c_within_rel(job: *const CJob, rel: u64, label: *const libc::c_char) -> u64 {
    match call_of(job) {
        Some(c) if c.err.is_none() => c.ctx.scope_begin_within_rel(&label_of(label), rel),
        _ => 0,
    }
}

unsafe extern "C" fn c_wcet(job: *const CJob, budget: u64, label: *const libc::c_char) -> u64 {
    match call_of(job) {
        Some(c) if c.err.is_none() => c.ctx.scope_begin_wcet(&label_of(label), budget),
        _ => 0,
    }
}

unsafe extern "C" fn c_end(job: *const CJob, scope: u64, v: *mut CViolation) -> libc::c_int {
    let Some(c) = call_of(job) else { return -1 };
    if c.err.is_some() {
        // The job is ending: still end the scope (its timer goes).
        let _ = c.ctx.scope_end(scope);
        return -1;
    }
    match c.ctx.scope_end(scope) {
        Ok(None) => 0,
        Ok(Some(violation)) => {
            if let Some(v) = v.as_mut() {
                *v = violation.into();
            }
            1
        }
        Err(JobError::Timing(_)) => -1,
        Err(e) => {
            c.err = Some(e);
            -1
        }
    }
}

unsafe extern "C" fn c_check(job: *const CJob) -> libc::c_int {
    let Some(c) = call_of(job) else { return -1 };
    if c.err.is_some() {
        return -1;
    }
    let r = c.ctx.check();
    c.code(r)
}

unsafe extern "C" fn c_protect_begin(job: *const CJob) {
    if let Some(c) = call_of(job) {
        c.ctx.protect_begin();
    }
}

unsafe extern "C" fn c_protect_end(job: *const CJob) -> libc::c_int {
    let Some(c) = call_of(job) else { return -1 };
    let r = c.ctx.protect_end();
    if c.err.is_some() {
        return -1;
    }
    c.code(r)
}

fn kind_code(k: schedlab_model::SegmentKind) -> u32 {
    match k {
        schedlab_model::SegmentKind::Exec => 0,
        schedlab_model::SegmentKind::Memory => 1,
        schedlab_model::SegmentKind::Suspend => 2,
    }
}

type JobFn = unsafe extern "C" fn(*const CJob) -> libc::c_int;

pub struct CFunction {
    handle: *mut libc::c_void,
    f: JobFn,
    arg: Option<CString>,
    name: String,
    /// The current job's segments (reused).
    segs: Vec<CSegment>,
}

// SAFETY: the handle and function pointer are process-wide; the body is
// called from one worker thread at a time.
unsafe impl Send for CFunction {}

impl CFunction {
    pub fn load(library: &str, symbol: &str, arg: Option<&str>) -> Result<CFunction, String> {
        let lib = CString::new(library).map_err(|_| format!("{library}: contains NUL"))?;
        let sym = CString::new(symbol).map_err(|_| format!("{symbol}: contains NUL"))?;
        // SAFETY: valid C strings; dlerror is read right after a failure.
        unsafe {
            let handle = libc::dlopen(lib.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL);
            if handle.is_null() {
                return Err(format!("cannot load {library}: {}", dlerror()));
            }
            let p = libc::dlsym(handle, sym.as_ptr());
            if p.is_null() {
                let e = dlerror();
                libc::dlclose(handle);
                return Err(format!("{library} has no symbol {symbol}: {e}"));
            }
            let f: JobFn = std::mem::transmute::<*mut libc::c_void, JobFn>(p);
            Ok(CFunction {
                handle,
                f,
                arg: arg.map(|a| CString::new(a).unwrap_or_default()),
                name: format!("{library}:{symbol}"),
                segs: Vec::new(),
            })
        }
    }
}

unsafe fn dlerror() -> String {
    let e = libc::dlerror();
    if e.is_null() {
        "unknown error".into()
    } else {
        CStr::from_ptr(e).to_string_lossy().into_owned()
    }
}

impl JobBody for CFunction {
    fn run(&mut self, ctx: &mut JobCtx) -> Result<(), JobError> {
        ctx.check()?;
        self.segs.clear();
        self.segs.extend(ctx.segments.iter().map(|s| CSegment { kind: kind_code(s.kind), demand_ns: s.demand }));
        let (task, job, exec) = (ctx.task, ctx.job, ctx.exec);
        let (release_ns, deadline_ns, wcet_ns) = (ctx.release, ctx.deadline, ctx.wcet);
        let mut call = Call { ctx, err: None };
        let j = CJob {
            task,
            job,
            release_ns,
            deadline_ns,
            exec_ns: exec,
            wcet_ns,
            arg: self.arg.as_ref().map_or(std::ptr::null(), |a| a.as_ptr()),
            n_segments: self.segs.len() as u32,
            segments: if self.segs.is_empty() { std::ptr::null() } else { self.segs.as_ptr() },
            preemption_point: c_preemption_point,
            suspend: c_suspend,
            schedlab: &mut call as *mut Call as *mut libc::c_void,
            within_abs: c_within_abs,
            within_rel: c_within_rel,
            wcet: c_wcet,
            end: c_end,
            check: c_check,
            protect_begin: c_protect_begin,
            protect_end: c_protect_end,
        };
        // SAFETY: the symbol was declared with this signature by the user;
        // `call` outlives the call and is reached only through `j`.
        let rc = unsafe { (self.f)(&j) };
        // Sections and scopes the body left open end with it; a violation
        // of a scope it left open is unhandled (the job is ended).
        while call.ctx.in_protected() {
            let _ = call.ctx.protect_end();
        }
        let left_open = call.ctx.outermost_scope();
        if let Some(e) = call.err {
            if let Some(id) = left_open {
                let _ = call.ctx.scope_end(id);
            }
            return Err(e);
        }
        if let Some(id) = left_open {
            match call.ctx.scope_end(id) {
                Ok(Some(v)) => {
                    call.ctx.unhandled(v.scope); // recorded as the job's unhandled exception
                    return Err(JobError::Timing(v));
                }
                Ok(None) => {}
                Err(e) => return Err(e),
            }
        }
        if rc == 0 {
            Ok(())
        } else {
            Err(JobError::Failed(format!("{} returned {rc} for job {job}", self.name)))
        }
    }
}

impl Drop for CFunction {
    fn drop(&mut self) {
        // SAFETY: the handle came from dlopen and is closed once.
        unsafe { libc::dlclose(self.handle) };
    }
}
