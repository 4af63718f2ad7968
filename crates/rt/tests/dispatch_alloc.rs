//! The dispatcher loop allocates nothing after start-up: a counting global
//! allocator counts allocations per thread (by kernel thread id), and over
//! the middle of a real dispatch run (root) the dispatcher thread's count
//! does not move while it makes decisions. (Own test binary: the allocator
//! counts every allocation of the process.) ~10 s.

mod common;
use common::*;
use schedlab_rt::{run, BackendKind, Execution, RunConfig, WorkloadSpec};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::time::Duration;

const SLOTS: usize = 4096;
static TIDS: [AtomicI32; SLOTS] = [const { AtomicI32::new(0) }; SLOTS];
static COUNTS: [AtomicU64; SLOTS] = [const { AtomicU64::new(0) }; SLOTS];
/// The thread whose allocation sizes are kept (0: none), and the sizes of
/// its first allocations once watched: they name what grew.
static WATCHED: AtomicI32 = AtomicI32::new(0);
static SIZES: [AtomicU64; 16] = [const { AtomicU64::new(0) }; 16];
static SIZES_N: AtomicU64 = AtomicU64::new(0);

fn keep_size(n: usize) {
    let w = WATCHED.load(Ordering::Relaxed);
    if w != 0 && w == gettid() {
        let i = SIZES_N.fetch_add(1, Ordering::Relaxed) as usize;
        if i < SIZES.len() {
            SIZES[i].store(n as u64, Ordering::Relaxed);
        }
    }
}

fn gettid() -> i32 {
    // SAFETY: a plain system call without arguments.
    unsafe { libc::syscall(libc::SYS_gettid) as i32 }
}

/// The counter slot of thread `tid` (claimed on first use; open addressing).
fn slot(tid: i32) -> Option<usize> {
    let h = tid as usize % SLOTS;
    for i in 0..SLOTS {
        let s = (h + i) % SLOTS;
        match TIDS[s].compare_exchange(0, tid, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => return Some(s),
            Err(t) if t == tid => return Some(s),
            Err(_) => {}
        }
    }
    None
}

fn allocs(tid: i32) -> u64 {
    slot(tid).map_or(0, |s| COUNTS[s].load(Ordering::Acquire))
}

struct Counting;

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        if let Some(s) = slot(gettid()) {
            COUNTS[s].fetch_add(1, Ordering::Relaxed);
        }
        keep_size(l.size());
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        if let Some(s) = slot(gettid()) {
            COUNTS[s].fetch_add(1, Ordering::Relaxed);
        }
        keep_size(n);
        System.realloc(p, l, n)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The kernel thread id of this process's thread named `name`.
fn thread_named(name: &str) -> Option<i32> {
    for e in std::fs::read_dir("/proc/self/task").ok()?.flatten() {
        let comm = std::fs::read_to_string(e.path().join("comm")).unwrap_or_default();
        if comm.trim_end() == name {
            return e.file_name().to_str()?.parse().ok();
        }
    }
    None
}

const TASKS: &str = "  - {name: a, wcet: 1ms, period: 5ms}
  - {name: b, wcet: 2ms, period: 10ms}
  - {name: c, wcet: 3ms, period: 20ms}
  - {name: d, wcet: 1ms, period: 4ms}
";

#[test]
fn the_dispatcher_loop_does_not_allocate() {
    check_no_allocation(&[("{name: gedf}", TASKS), ("{name: pedf}", TASKS)]);
}

/// PD^2 on its own set: every job has at least 4 quanta for its 2 ms, so
/// the dispatch latency each quantum loses (0.05–0.7 ms here) does not
/// leave a job unfinished at its last quantum. With `TASKS` (1 ms WCETs,
/// one quantum per job for 0.5 ms of work), a job dispatched 0.6 ms late
/// did not finish in its quantum; as each task's weight is exactly its
/// demand, its later jobs never caught up, and the driver's hold queue
/// grew (the allocations this test saw, 384 and 768 bytes: queues of 8
/// and 16 held jobs).
const PD2_TASKS: &str = "  - {name: a, wcet: 4ms, period: 20ms}
  - {name: b, wcet: 4ms, period: 25ms}
  - {name: c, wcet: 6ms, period: 40ms}
  - {name: d, wcet: 4ms, period: 16ms}
";

#[test]
fn the_pd2_dispatcher_loop_does_not_allocate() {
    check_no_allocation(&[("{name: pd2}", PD2_TASKS)]);
}

/// Segmented jobs: preemption points the dispatcher asks for (`a` is
/// released inside `c`'s and `d`'s subjobs), blocks and resumes (`b`
/// suspends) go through the dispatcher loop without allocating either.
const SEGMENTED_TASKS: &str = "  - {name: a, wcet: 1ms, period: 5ms}
  - {name: b, period: 10ms, segments: [{exec: 1ms}, {suspend: 2ms}, {exec: 1ms}]}
  - {name: c, period: 20ms, subjobs: [1ms, 1ms, 1ms, 1ms]}
  - {name: d, period: 8ms, subjobs: [1ms, 1ms]}
";

#[test]
fn the_dispatcher_loop_does_not_allocate_at_points_and_suspensions() {
    check_no_allocation(&[("{name: fpds}", SEGMENTED_TASKS), ("{name: g-fpds}", SEGMENTED_TASKS)]);
}

fn check_no_allocation(policies: &[(&str, &str)]) {
    require_root();
    let _s = serial();
    for &(policy, tasks) in policies {
        let spec = spec(&format!("platform: {{cpus: 2}}\npolicy: {policy}\ntasks:\n{tasks}"));
        let cfg = RunConfig {
            backend: BackendKind::Dispatch,
            duration: 2_000_000_000,
            execution: Execution::Fraction(0.5),
            workload: WorkloadSpec::SpinCpu,
            start_margin: 200_000_000,
            ..RunConfig::default()
        };
        let done = AtomicBool::new(false);
        let (window, outcome) = std::thread::scope(|s| {
            let watcher = s.spawn(|| {
                // The dispatcher thread exists from set-up on; its loop
                // starts at t0 (≤ set-up + start margin).
                let tid = loop {
                    if let Some(t) = thread_named("sl-dispatcher") {
                        break t;
                    }
                    if done.load(Ordering::Acquire) {
                        return None;
                    }
                    std::thread::sleep(Duration::from_millis(1));
                };
                std::thread::sleep(Duration::from_millis(600));
                SIZES_N.store(0, Ordering::Relaxed);
                WATCHED.store(tid, Ordering::Relaxed);
                let a = allocs(tid);
                std::thread::sleep(Duration::from_millis(1000));
                let b = allocs(tid);
                WATCHED.store(0, Ordering::Relaxed);
                Some((a, b))
            });
            let o = run(&spec, &cfg);
            done.store(true, Ordering::Release);
            (watcher.join().unwrap(), o)
        });
        let o = outcome.unwrap_or_else(|e| panic!("{policy}: {e}"));
        let (a, b) = window.unwrap_or_else(|| panic!("{policy}: the dispatcher thread was not seen"));
        let decisions = count_events(&o.events);
        let misses = count(&o.events, |e| matches!(e, schedlab_trace::Event::DeadlineMiss { .. }));
        eprintln!(
            "{policy}: dispatcher allocations: {a} by 0.6 s after set-up, {b} 1 s later; {decisions} schedule overheads, {misses} deadline misses"
        );
        assert!(a > 0, "{policy}: the counter saw no allocation on the dispatcher thread (start-up allocates)");
        assert!(decisions > 100, "{policy}: the dispatcher made too few decisions ({decisions})");
        let n = (SIZES_N.load(Ordering::Relaxed) as usize).min(SIZES.len());
        let sizes: Vec<u64> = SIZES[..n].iter().map(|s| s.load(Ordering::Relaxed)).collect();
        assert_eq!(b, a, "{policy}: the dispatcher loop allocated {} times in 1 s (sizes in bytes: {sizes:?})", b - a);
    }
}

fn count_events(events: &[schedlab_trace::Event]) -> usize {
    count(events, |e| matches!(e, schedlab_trace::Event::Overhead { kind: schedlab_trace::OverheadKind::Schedule, .. }))
}
