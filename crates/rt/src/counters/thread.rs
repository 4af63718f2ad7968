//! Per-thread counters for per-job counts: a `perf_event_open(2)` event
//! of the calling thread (pid 0, any CPU), read at a job's start and end,
//! so that the difference is what that thread's job caused wherever it
//! ran — the working-set profiler's per-job shared-cache misses
//! (Calandrino 2009, Fig. 5.3, which reads and resets a per-CPU counter at
//! a job's boundaries; a per-thread event needs no reset and no pinning).
//!
//! Each reading comes with the thread's *voluntary* context switches
//! (`getrusage(RUSAGE_THREAD)`), so a job that waited in between is known:
//! the dispatch backend stops a preempted worker by making it wait, and a
//! body that suspends or blocks waits too; Fig. 5.3 discards such jobs.
//! Involuntary switches are not counted: on the dispatch backend they are
//! the dispatcher's own thread waking on the job's CPU (one per job on the
//! dispatcher's CPU here), not another job, and the per-thread event does
//! not count what ran meanwhile.
//!
//! The cache-miss event (`PERF_COUNT_HW_CACHE_MISSES`) needs a PMU; most
//! VMs have none and the kernel answers ENOENT or EOPNOTSUPP ([`probe`]
//! says so). The software events ([`PAGE_FAULTS`], [`TASK_CLOCK`]) open
//! everywhere: the tests drive the same path with them.

use super::perf::{open_event, read_event};

const PERF_TYPE_HARDWARE: u32 = 0;
const PERF_TYPE_SOFTWARE: u32 = 1;

/// A per-thread event: its perf type and config, and its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThreadEvent {
    pub kind: u32,
    pub config: u64,
    pub name: &'static str,
}

/// `PERF_COUNT_HW_CACHE_MISSES`: last-level cache misses.
pub const CACHE_MISSES: ThreadEvent =
    ThreadEvent { kind: PERF_TYPE_HARDWARE, config: 3, name: "cache-misses (PERF_COUNT_HW_CACHE_MISSES)" };
/// `PERF_COUNT_SW_PAGE_FAULTS`: page faults (software).
pub const PAGE_FAULTS: ThreadEvent =
    ThreadEvent { kind: PERF_TYPE_SOFTWARE, config: 2, name: "page-faults (PERF_COUNT_SW_PAGE_FAULTS)" };
/// `PERF_COUNT_SW_TASK_CLOCK`: the thread's CPU time, ns (software).
pub const TASK_CLOCK: ThreadEvent =
    ThreadEvent { kind: PERF_TYPE_SOFTWARE, config: 1, name: "task-clock (PERF_COUNT_SW_TASK_CLOCK)" };

/// Why an event cannot be opened, from its errno.
pub fn refusal(event: ThreadEvent, errno: i32) -> String {
    let why = match errno {
        2 | 95 => "no PMU on this machine",
        1 | 13 => "not permitted, see /proc/sys/kernel/perf_event_paranoid",
        _ => "see perf_event_open(2)",
    };
    format!("perf_event_open refused the per-thread {} event (errno {errno}: {why})", event.name)
}

/// Whether `event` opens for the calling thread: `Err(reason)` when not.
pub fn probe(event: ThreadEvent) -> Result<(), String> {
    ThreadCounter::open(event).map(drop)
}

/// A reading: the event's count and the thread's voluntary context switches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reading {
    pub count: u64,
    pub switches: u64,
}

/// What a job caused, from two readings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobCount {
    pub count: u64,
    /// The thread waited in between (preempted by the dispatcher, or blocked).
    pub switched: bool,
}

impl Reading {
    /// The job that ran from `self` to `end`.
    pub fn until(self, end: Reading) -> JobCount {
        JobCount { count: end.count.saturating_sub(self.count), switched: end.switches > self.switches }
    }
}

/// The calling thread's voluntary context switches so far.
fn voluntary_switches() -> Option<u64> {
    // SAFETY: getrusage fills the zeroed struct it is given.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: RUSAGE_THREAD reads the calling thread's usage into `u`.
    let r = unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut u) };
    (r == 0).then_some(u.ru_nvcsw as u64)
}

/// One thread's event, opened on that thread. Read it on that thread too:
/// the event counts the thread that opened it, and the switches read are
/// the reading thread's.
#[derive(Debug)]
pub struct ThreadCounter {
    fd: i32,
}

impl ThreadCounter {
    /// Opens `event` for the calling thread.
    pub fn open(event: ThreadEvent) -> Result<ThreadCounter, String> {
        let fd = open_event(event.kind, event.config, 0, -1).map_err(|e| refusal(event, e))?;
        Ok(ThreadCounter { fd })
    }

    /// The counts so far, `None` when a read fails.
    pub fn read(&self) -> Option<Reading> {
        Some(Reading { count: read_event(self.fd)?, switches: voluntary_switches()? })
    }
}

impl Drop for ThreadCounter {
    fn drop(&mut self) {
        // SAFETY: closes the fd this value opened and owns.
        unsafe { libc::close(self.fd) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reading path with a software event: the page faults of touching
    /// fresh pages are this thread's, counted between two readings.
    #[test]
    fn a_threads_page_faults_between_two_readings_are_its_jobs() {
        let c = ThreadCounter::open(PAGE_FAULTS).expect("software events open without a PMU");
        let a = c.read().unwrap();
        let pages = 64;
        let mut v = vec![0u8; pages * 4096];
        for p in 0..pages {
            // SAFETY: a volatile write into the vector, so the touch is not elided.
            unsafe { std::ptr::write_volatile(&mut v[p * 4096], 1) };
        }
        let b = c.read().unwrap();
        let job = a.until(b);
        assert!(job.count >= pages as u64 / 2 && job.count <= pages as u64 * 4, "{job:?}");
        drop(v);
        // task-clock counts the thread's CPU time: a 2 ms spin reads ≥ 1 ms.
        let c = ThreadCounter::open(TASK_CLOCK).unwrap();
        let a = c.read().unwrap();
        let spin = std::time::Instant::now();
        while spin.elapsed() < std::time::Duration::from_millis(2) {}
        let job = a.until(c.read().unwrap());
        assert!(job.count >= 1_000_000, "{job:?}");
    }

    /// Sleeping is a voluntary switch: the job is known to have waited.
    #[test]
    fn a_switch_in_between_is_seen() {
        let c = ThreadCounter::open(TASK_CLOCK).unwrap();
        // Two readings back to back are not switched (on a noisy host one
        // pair in ten may be: a preemption is a switch too).
        assert!((0..10).any(|_| {
            let a = c.read().unwrap();
            !a.until(c.read().unwrap()).switched
        }));
        let b = c.read().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(2));
        assert!(b.until(c.read().unwrap()).switched);
    }

    /// On this machine: the hardware cache-miss event opens (a PMU), or the
    /// refusal names the event and the reason.
    #[test]
    fn the_cache_miss_event_opens_or_says_why_not() {
        match probe(CACHE_MISSES) {
            Ok(()) => eprintln!("per-thread cache misses: available"),
            Err(why) => {
                eprintln!("per-thread cache misses: {why}");
                assert!(why.contains("PERF_COUNT_HW_CACHE_MISSES") && why.contains("errno"), "{why}");
            }
        }
    }
}
