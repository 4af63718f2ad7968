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
//! };
//! int my_job(const struct schedlab_job *job);  /* 0: done; other: failed */
//! ```
//!
//! The fields up to `arg` are as before the segments came: a body that
//! reads only them keeps working.

use crate::job::{JobCtx, JobError};
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

unsafe extern "C" fn c_preemption_point(job: *const CJob) -> libc::c_int {
    let Some(c) = call_of(job) else { return -1 };
    if c.err.is_some() {
        return 1;
    }
    match c.ctx.preemption_point() {
        Ok(()) => 0,
        Err(e) => {
            c.err = Some(e);
            1
        }
    }
}

unsafe extern "C" fn c_suspend(job: *const CJob, ns: u64) -> libc::c_int {
    let Some(c) = call_of(job) else { return -1 };
    if c.err.is_some() {
        return 1;
    }
    match c.ctx.suspend(ns) {
        Ok(()) => 0,
        Err(e) => {
            c.err = Some(e);
            1
        }
    }
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
        };
        // SAFETY: the symbol was declared with this signature by the user;
        // `call` outlives the call and is reached only through `j`.
        let rc = unsafe { (self.f)(&j) };
        if let Some(e) = call.err {
            return Err(e);
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
