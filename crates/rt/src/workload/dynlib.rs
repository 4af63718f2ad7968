//! `c:LIBRARY:SYMBOL[:ARG]`: a C-ABI function from a shared library, loaded
//! with `dlopen` before the run and called once per job (the liblitmus-style
//! job loop, with schedlab doing the loop):
//!
//! ```c
//! struct schedlab_job {
//!     uint32_t task;          /* the task's index in the spec */
//!     uint64_t job;           /* 0-based job number */
//!     uint64_t release_ns;    /* CLOCK_MONOTONIC */
//!     uint64_t deadline_ns;   /* CLOCK_MONOTONIC */
//!     uint64_t exec_ns;       /* CPU time this job should consume */
//!     uint64_t wcet_ns;
//!     const char *arg;        /* ARG from the workload, or NULL */
//! };
//! int my_job(const struct schedlab_job *job);  /* 0: done; other: failed */
//! ```

use crate::job::{JobCtx, JobError};
use crate::workload::JobBody;
use std::ffi::{CStr, CString};

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
}

type JobFn = unsafe extern "C" fn(*const CJob) -> libc::c_int;

pub struct CFunction {
    handle: *mut libc::c_void,
    f: JobFn,
    arg: Option<CString>,
    name: String,
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
        let j = CJob {
            task: ctx.task,
            job: ctx.job,
            release_ns: ctx.release,
            deadline_ns: ctx.deadline,
            exec_ns: ctx.exec,
            wcet_ns: ctx.wcet,
            arg: self.arg.as_ref().map_or(std::ptr::null(), |a| a.as_ptr()),
        };
        // SAFETY: the symbol was declared with this signature by the user.
        let rc = unsafe { (self.f)(&j) };
        if rc == 0 {
            Ok(())
        } else {
            Err(JobError::Failed(format!("{} returned {rc} for job {}", self.name, ctx.job)))
        }
    }
}

impl Drop for CFunction {
    fn drop(&mut self) {
        // SAFETY: the handle came from dlopen and is closed once.
        unsafe { libc::dlclose(self.handle) };
    }
}
