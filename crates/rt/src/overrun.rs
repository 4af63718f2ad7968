//! SCHED_DEADLINE's runtime-overrun signal: the kernel backend sets
//! `SCHED_FLAG_DL_OVERRUN` on its SCHED_DEADLINE threads, and the kernel
//! sends SIGXCPU when such a thread exhausts its runtime (from the tick:
//! the check runs in `run_posix_cpu_timers`, so the signal comes up to one
//! tick late unless HRTICK shortens the slice). The signal is
//! process-directed but goes to the overrunning thread (it is running and
//! does not block it); the handler here only counts it in a thread-local
//! counter — never the default action, which kills the process. A job
//! reads the counter in [`crate::job::JobCtx::check`] and sees a WCET
//! violation of the whole job (scope 0), recorded as `budget-exhausted`.

use std::cell::Cell;
use std::sync::Once;

thread_local! {
    /// SIGXCPU signals this thread received.
    static COUNT: Cell<u64> = const { Cell::new(0) };
}

extern "C" fn on_sigxcpu(_sig: libc::c_int) {
    // Async-signal-safe: a const-initialised thread-local without a destructor.
    COUNT.with(|c| c.set(c.get() + 1));
}

/// Installs the SIGXCPU handler (once per process; before any thread gets
/// `SCHED_FLAG_DL_OVERRUN`). SA_RESTART: the signal does not make the
/// body's system calls fail.
pub fn install() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY: a plain handler that only touches a thread-local Cell.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_sigxcpu as *const () as usize;
            sa.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(libc::SIGXCPU, &sa, std::ptr::null_mut());
        }
    });
}

/// SIGXCPU signals the calling thread has received so far.
#[inline]
pub fn count() -> u64 {
    COUNT.with(|c| c.get())
}
