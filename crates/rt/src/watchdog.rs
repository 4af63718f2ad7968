//! The watchdog: a SCHED_FIFO thread above every worker that ends the run
//! when a party stops making progress — a job body that runs longer than its
//! timeout (a body that never returns), a dispatcher that stops deciding,
//! or a run that overstays its end. It demotes the stuck thread to
//! SCHED_OTHER at once (so the machine stays responsive) and asks the run
//! to stop; the restore guard does the rest.

use crate::clock;
use crate::guard::Guard;
use crate::sched::{self, Class};
use crate::stop::{Stop, StopReason};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// The watchdog's SCHED_FIFO priority: above every worker (schedlab's
/// workers use 1..=89), below the kernel's migration threads (99).
pub const PRIORITY: u32 = 95;
/// How often it looks.
pub const PERIOD_NS: u64 = 10_000_000;

/// A monitored party: busy since an instant (0: idle, waiting legitimately).
#[derive(Debug)]
pub struct Heartbeat {
    pub name: String,
    busy_since: AtomicU64,
    timeout: u64,
    tid: AtomicI32,
}

impl Heartbeat {
    /// The party started a unit of work (a job, a decision) at `now`.
    #[inline]
    pub fn busy(&self, now: u64) {
        self.busy_since.store(now.max(1), Ordering::Release);
    }
    /// The unit of work ended.
    #[inline]
    pub fn idle(&self) {
        self.busy_since.store(0, Ordering::Release);
    }
    /// The party's thread (to demote it).
    pub fn set_tid(&self, tid: i32) {
        self.tid.store(tid, Ordering::Release);
    }
}

#[derive(Debug)]
struct Shared {
    parties: Mutex<Vec<Arc<Heartbeat>>>,
    end: AtomicU64,
    done: AtomicBool,
}

pub struct Watchdog {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl Watchdog {
    /// Starts the watchdog thread (at SCHED_FIFO [`PRIORITY`] when
    /// `realtime`; its class is recorded in the guard).
    pub fn start(stop: Arc<Stop>, guard: Arc<Guard>, realtime: bool) -> Watchdog {
        let shared =
            Arc::new(Shared { parties: Mutex::new(Vec::new()), end: AtomicU64::new(0), done: AtomicBool::new(false) });
        let s = shared.clone();
        let (tx, rx) = std::sync::mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("sl-watchdog".into())
            .spawn(move || {
                sched::name_thread("sl-watchdog");
                if realtime {
                    let tid = clock::gettid();
                    if guard.record_thread(tid).is_ok() {
                        let _ = sched::set_class(tid, Class::Fifo { priority: PRIORITY });
                    }
                }
                let _ = tx.send(());
                let mut fired = false;
                while !s.done.load(Ordering::SeqCst) {
                    clock::sleep_until(clock::now() + PERIOD_NS);
                    if fired {
                        continue;
                    }
                    let now = clock::now();
                    let end = s.end.load(Ordering::Acquire);
                    if end != 0 && now > end {
                        fired = true;
                        guard.demote_threads();
                        stop.request(StopReason::Watchdog(format!("the run did not end {} ms after its end", (now - end) / 1_000_000)));
                        continue;
                    }
                    for p in s.parties.lock().unwrap_or_else(|p| p.into_inner()).iter() {
                        let since = p.busy_since.load(Ordering::Acquire);
                        if since != 0 && now > since && now - since > p.timeout {
                            fired = true;
                            let tid = p.tid.load(Ordering::Acquire);
                            if tid > 0 && crate::guard::own_thread(tid) {
                                let _ = sched::set_class(tid, Class::Other { nice: 0 });
                            }
                            stop.request(StopReason::Watchdog(format!(
                                "{} made no progress for {} ms (timeout {} ms); it was demoted to SCHED_OTHER and abandoned",
                                p.name,
                                (now - since) / 1_000_000,
                                p.timeout / 1_000_000
                            )));
                            break;
                        }
                    }
                }
            })
            .expect("spawning the watchdog");
        let _ = rx.recv();
        Watchdog { shared, thread: Some(thread) }
    }

    /// Monitors a new party with this timeout (ns).
    pub fn watch(&self, name: impl Into<String>, timeout: u64) -> Arc<Heartbeat> {
        let h =
            Arc::new(Heartbeat { name: name.into(), busy_since: AtomicU64::new(0), timeout, tid: AtomicI32::new(0) });
        self.shared.parties.lock().unwrap_or_else(|p| p.into_inner()).push(h.clone());
        h
    }

    /// The run must have ended by `at` (CLOCK_MONOTONIC ns).
    pub fn end_by(&self, at: u64) {
        self.shared.end.store(at, Ordering::Release);
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.shared.done.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
