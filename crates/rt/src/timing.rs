//! Timing exceptions, after OML (Cucinotta, Faggioli & Evangelista,
//! "Exception-based management of timing constraints violations for soft
//! real-time applications", OSPERT 2009): a job body runs a block under a
//! deadline (`try_within_abs`, `try_within_rel`, on `CLOCK_MONOTONIC`) or a
//! WCET budget (`try_wcet`, on `CLOCK_THREAD_CPUTIME_ID`) and gets a Rust
//! `Result` error when the limit is violated.
//!
//! **Cooperative (default).** [`crate::job::JobCtx::check`] reads the clocks
//! and reports the outermost violated scope. The thread CPU clock is read
//! with `clock_gettime`, which adds the not-yet-accounted part of the
//! current stint, so WCET detection is precise to the check interval and
//! does not depend on the tick. Nothing is interrupted: safe with locks,
//! allocation and destructors.
//!
//! **Asynchronous notification (opt-in, [`Mode::Async`]).** A per-scope
//! POSIX timer on `CLOCK_MONOTONIC` targets the thread (`SIGEV_THREAD_ID`).
//! Its handler only reads the thread CPU clock, re-arms itself for the
//! remaining budget when the thread was preempted (the precise-WCET re-arm
//! technique: CPU-clock timers are tick-bound, monotonic hrtimers are not)
//! and sets an atomic flag. `check` then costs one atomic load, and the
//! signal interrupts blocking system calls (`EINTR`). The body still
//! unwinds by returning the error: there is no `siglongjmp` (it would skip
//! destructors and can leave a lock held by the interrupted code, e.g.
//! malloc's — undefined behaviour in Rust). Code that never checks is
//! aborted for real only as an external command (killed at the limit).
//!
//! Nesting follows OML's rule: a violation belongs to the scope whose limit
//! was violated; an inner `try_*` returns `Ok(Err(violation))` for its own
//! violation and `Err(..)` (to be propagated with `?`) for an outer one.

use crate::clock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Once;

/// Which limit a scope enforces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Limit {
    /// A deadline on CLOCK_MONOTONIC (absolute ns).
    Deadline,
    /// A WCET budget on the thread CPU clock.
    Wcet,
}

/// How violations are noticed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// The body's checks read the clocks.
    #[default]
    Cooperative,
    /// A thread-directed timer signal sets a flag the checks read.
    Async,
}

/// A violated timing constraint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Violation {
    pub limit: Limit,
    /// The scope that owns the violated limit.
    pub scope: u64,
    /// Nesting depth of that scope (0: outermost).
    pub depth: usize,
    /// The limit: absolute deadline (CLOCK_MONOTONIC ns) or budget (CPU ns).
    pub value: u64,
    /// When it was noticed (CLOCK_MONOTONIC ns).
    pub noticed: u64,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.limit {
            Limit::Deadline => write!(f, "deadline violated (scope {}, depth {})", self.scope, self.depth),
            Limit::Wcet => {
                write!(f, "WCET budget of {} ns exceeded (scope {}, depth {})", self.value, self.scope, self.depth)
            }
        }
    }
}

/// State shared with the signal handler of an async scope. Lives in a Box
/// until the timer is deleted.
struct AsyncState {
    fired: AtomicBool,
    /// For a WCET scope: the thread CPU time at which the budget is spent.
    cpu_end: u64,
    timer: libc::timer_t,
}

/// One active scope.
pub(crate) struct Scope {
    pub id: u64,
    pub limit: Limit,
    /// Deadline: absolute monotonic ns. WCET: absolute thread CPU ns.
    pub end: u64,
    pub budget: u64,
    asynch: Option<Box<AsyncState>>,
}

fn signo() -> i32 {
    libc::SIGRTMIN() + 4
}

extern "C" fn on_timer(_sig: libc::c_int, info: *mut libc::siginfo_t, _ctx: *mut libc::c_void) {
    // Async-signal-safe: clock_gettime, timer_settime and an atomic store.
    // SAFETY: the kernel passes a valid siginfo; sival_ptr is the AsyncState
    // the scope keeps alive until after timer_delete.
    unsafe {
        let st = (*info).si_value().sival_ptr as *const AsyncState;
        if st.is_null() {
            return;
        }
        let st = &*st;
        if st.cpu_end != 0 {
            let used = clock::thread_cpu();
            if used < st.cpu_end {
                // Preempted meanwhile: CPU time lags wall time; wait for the rest.
                let its = libc::itimerspec {
                    it_interval: clock::timespec(0),
                    it_value: clock::timespec((st.cpu_end - used).max(1000)),
                };
                libc::timer_settime(st.timer, 0, &its, std::ptr::null_mut());
                return;
            }
        }
        st.fired.store(true, Ordering::Release);
    }
}

fn install_handler() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY: a handler with SA_SIGINFO and no SA_RESTART (so blocking calls see EINTR).
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_timer as *const () as usize;
            sa.sa_flags = libc::SA_SIGINFO;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(signo(), &sa, std::ptr::null_mut());
        }
    });
}

impl Scope {
    pub(crate) fn new(id: u64, limit: Limit, end: u64, budget: u64, mode: Mode) -> Scope {
        let mut s = Scope { id, limit, end, budget, asynch: None };
        if mode == Mode::Async {
            install_handler();
            let mut st = Box::new(AsyncState {
                fired: AtomicBool::new(false),
                cpu_end: if limit == Limit::Wcet { end } else { 0 },
                timer: std::ptr::null_mut(),
            });
            // SAFETY: sigevent targets this thread; the state outlives the timer.
            unsafe {
                let mut sev: libc::sigevent = std::mem::zeroed();
                sev.sigev_notify = libc::SIGEV_THREAD_ID;
                sev.sigev_signo = signo();
                sev.sigev_value = libc::sigval { sival_ptr: &*st as *const AsyncState as *mut libc::c_void };
                sev.sigev_notify_thread_id = clock::gettid();
                let mut timer: libc::timer_t = std::ptr::null_mut();
                if libc::timer_create(libc::CLOCK_MONOTONIC, &mut sev, &mut timer) == 0 {
                    st.timer = timer;
                    let its = match limit {
                        Limit::Deadline => {
                            libc::itimerspec { it_interval: clock::timespec(0), it_value: clock::timespec(end.max(1)) }
                        }
                        Limit::Wcet => libc::itimerspec {
                            it_interval: clock::timespec(0),
                            it_value: clock::timespec(budget.max(1)),
                        },
                    };
                    let flags = if limit == Limit::Deadline { libc::TIMER_ABSTIME } else { 0 };
                    libc::timer_settime(timer, flags, &its, std::ptr::null_mut());
                    s.asynch = Some(st);
                }
            }
        }
        s
    }

    /// Is the limit violated now?
    #[inline]
    pub(crate) fn violated(&self, now: u64) -> bool {
        match &self.asynch {
            Some(st) => st.fired.load(Ordering::Acquire),
            None => match self.limit {
                Limit::Deadline => now >= self.end,
                Limit::Wcet => clock::thread_cpu() >= self.end,
            },
        }
    }
}

impl Drop for Scope {
    fn drop(&mut self) {
        if let Some(st) = &self.asynch {
            // SAFETY: block the signal, delete the timer, consume a signal
            // that is already pending, unblock: no handler can run on the
            // state after it is freed.
            unsafe {
                let mut set: libc::sigset_t = std::mem::zeroed();
                libc::sigemptyset(&mut set);
                libc::sigaddset(&mut set, signo());
                let mut old: libc::sigset_t = std::mem::zeroed();
                libc::pthread_sigmask(libc::SIG_BLOCK, &set, &mut old);
                libc::timer_delete(st.timer);
                let zero = clock::timespec(0);
                while libc::sigtimedwait(&set, std::ptr::null_mut(), &zero) > 0 {}
                libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
            }
        }
    }
}
