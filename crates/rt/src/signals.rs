//! SIGINT / SIGTERM during a run: blocked in every run thread (the mask is
//! set before any thread is spawned, and threads inherit it) and received by
//! one signal thread with `sigtimedwait`, which asks the run to stop. The
//! run then ends its jobs and the restore guard undoes every change. A
//! second signal, or a run that does not end within the grace period,
//! makes the signal thread restore the machine itself and exit the process
//! with 128 + the signal number.

use crate::guard::Guard;
use crate::stop::{Stop, StopReason};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

/// How long the run may take to end after a signal before the signal thread
/// restores the machine itself and exits.
pub const GRACE: std::time::Duration = std::time::Duration::from_secs(3);

fn set() -> libc::sigset_t {
    // SAFETY: sigset operations on a local set.
    unsafe {
        let mut s: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut s);
        libc::sigaddset(&mut s, libc::SIGINT);
        libc::sigaddset(&mut s, libc::SIGTERM);
        s
    }
}

/// Blocks SIGINT and SIGTERM in the calling thread while it lives (and in
/// the threads it spawns), and runs the signal thread.
pub struct SignalScope {
    old: libc::sigset_t,
    done: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl SignalScope {
    /// `exit_on_grace`: whether the signal thread may exit the process when
    /// the run does not end in time (the CLI: yes; a library caller: no).
    pub fn install(stop: Arc<Stop>, guard: Arc<Guard>, exit_on_grace: bool) -> SignalScope {
        let s = set();
        // SAFETY: valid sets; pthread_sigmask affects the calling thread only.
        let mut old: libc::sigset_t = unsafe { std::mem::zeroed() };
        unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &s, &mut old) };
        let done = Arc::new(AtomicBool::new(false));
        let d = done.clone();
        let thread = std::thread::Builder::new()
            .name("sl-signals".into())
            .spawn(move || {
                let s = set();
                let ts = crate::clock::timespec(50_000_000);
                let mut first: Option<(i32, std::time::Instant)> = None;
                while !d.load(Ordering::SeqCst) {
                    // SAFETY: valid set and timeout; a null info pointer is allowed.
                    let sig = unsafe { libc::sigtimedwait(&s, std::ptr::null_mut(), &ts) };
                    if sig > 0 {
                        if first.is_some() {
                            // Second signal: restore now and leave.
                            guard.demote_threads();
                            for e in guard.restore() {
                                eprintln!("schedlab: could not restore: {e}");
                            }
                            if exit_on_grace {
                                std::process::exit(128 + sig);
                            }
                        }
                        eprintln!(
                            "schedlab: {} received; ending the run and restoring the machine",
                            if sig == libc::SIGINT { "SIGINT" } else { "SIGTERM" }
                        );
                        stop.request(StopReason::Signal(sig));
                        first = Some((sig, std::time::Instant::now()));
                    }
                    if let Some((sig, at)) = first {
                        if at.elapsed() > GRACE && exit_on_grace && !d.load(Ordering::SeqCst) {
                            eprintln!("schedlab: the run did not end within {GRACE:?}; restoring and exiting");
                            guard.demote_threads();
                            for e in guard.restore() {
                                eprintln!("schedlab: could not restore: {e}");
                            }
                            std::process::exit(128 + sig);
                        }
                    }
                }
            })
            .expect("spawning the signal thread");
        SignalScope { old, done, thread: Some(thread) }
    }
}

impl Drop for SignalScope {
    fn drop(&mut self) {
        self.done.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        // SAFETY: restores the caller's previous mask.
        unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &self.old, std::ptr::null_mut()) };
    }
}
