//! The handler-activation latency of timing exceptions (OML, OSPERT 2009,
//! §5.3 of the notes), for `bench/handler_latency.py`: one task τ = (C, D, T)
//! = (50, 50, 100) ms whose body overruns its scope every job, and the time
//! from the ideal violation instant to the first instruction of the
//! body's handler code (the `Err` arm of the scope).
//!
//! `cargo run -p schedlab-rt --example handler_latency -- CONFIG JOBS [CPU]`
//! prints one JSON object with the latencies (ns). CONFIG:
//!
//! - `deadline-coop`, `deadline-async`: Exp. 1, `try_within_abs(release + D)`
//!   around 70 ms of CPU; latency = wall time past the deadline.
//! - `wcet-coop`, `wcet-async` (the precise re-armed monotonic timer):
//!   Exp. 2, `try_wcet(C)` around 70 ms of CPU; latency = thread CPU time
//!   past the budget (the thread runs alone at SCHED_FIFO, so CPU time and
//!   wall time advance together).
//! - `wcet-tick`: the baseline OML used, a POSIX timer on
//!   `CLOCK_THREAD_CPUTIME_ID` (expired from the scheduler tick) whose
//!   signal sets the flag the body polls.
//!
//! Every body polls every ~1 µs of work (a check), so up to ~1 µs of each
//! latency is the polling grain. Job i is released at i·T plus a phase
//! (i · 0.613 ms mod 10 ms): T is a multiple of the tick, and without it
//! every violation would fall at the same phase of the tick. Run as root: SCHED_FIFO 80 on CPU (default 1), holding the run lock
//! (it waits for other schedlab runs).

use schedlab_rt::calibrate;
use schedlab_rt::clock;
use schedlab_rt::job::{JobCtx, JobError};
use schedlab_rt::sched::{self, Class, CpuSet};
use schedlab_rt::stop::Stop;
use schedlab_rt::timing::Mode;
use schedlab_rt::workload::spin;
use std::sync::atomic::{AtomicBool, Ordering};

const MS: u64 = 1_000_000;
const C: u64 = 50 * MS;
const D: u64 = 50 * MS;
const T: u64 = 100 * MS;
/// What the body would run without the exception.
const WORK: u64 = 70 * MS;

static TICK_FIRED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_tick_timer(_sig: libc::c_int) {
    TICK_FIRED.store(true, Ordering::Release);
}

/// Spins `ns` of CPU time in ~1 µs steps, checking after each.
fn work(ctx: &mut JobCtx, step: u64, ns: u64) -> Result<(), JobError> {
    let end = clock::thread_cpu() + ns;
    while clock::thread_cpu() < end {
        spin::kernel(step);
        ctx.check()?;
    }
    Ok(())
}

/// The baseline: a CPU-clock timer for the budget; returns the CPU time past it at the handler.
fn tick_job(step: u64) -> u64 {
    // SAFETY: a thread-directed CPU-clock timer, deleted before returning.
    unsafe {
        let mut sev: libc::sigevent = std::mem::zeroed();
        sev.sigev_notify = libc::SIGEV_THREAD_ID;
        sev.sigev_signo = libc::SIGRTMIN() + 5;
        sev.sigev_notify_thread_id = clock::gettid();
        let mut timer: libc::timer_t = std::ptr::null_mut();
        assert_eq!(libc::timer_create(libc::CLOCK_THREAD_CPUTIME_ID, &mut sev, &mut timer), 0);
        TICK_FIRED.store(false, Ordering::Release);
        let cpu_end = clock::thread_cpu() + C;
        let zero = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        let c = libc::timespec { tv_sec: (C / 1_000_000_000) as i64, tv_nsec: (C % 1_000_000_000) as i64 };
        let its = libc::itimerspec { it_interval: zero, it_value: c };
        libc::timer_settime(timer, 0, &its, std::ptr::null_mut());
        let end = cpu_end - C + WORK;
        let mut late = None;
        while clock::thread_cpu() < end {
            spin::kernel(step);
            if TICK_FIRED.load(Ordering::Acquire) {
                late = Some(clock::thread_cpu().saturating_sub(cpu_end)); // the handler starts
                break;
            }
        }
        libc::timer_delete(timer);
        late.expect("the CPU-clock timer fired within the job")
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let config = args.get(1).map(String::as_str).unwrap_or("deadline-coop");
    let jobs: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1000);
    let cpu: u32 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1);
    let (limit, mode) = match config {
        "deadline-coop" => ("deadline", Mode::Cooperative),
        "deadline-async" => ("deadline", Mode::Async),
        "wcet-coop" => ("wcet", Mode::Cooperative),
        "wcet-async" => ("wcet", Mode::Async),
        "wcet-tick" => ("tick", Mode::Cooperative),
        other => {
            eprintln!("handler_latency: unknown CONFIG {other:?}: deadline-coop, deadline-async, wcet-coop, wcet-async or wcet-tick");
            std::process::exit(2);
        }
    };
    // Runs of schedlab (other test binaries) would share the CPU: wait for them.
    let _lock = schedlab_rt::lock::RunLock::acquire(true).unwrap_or_else(|e| {
        eprintln!("handler_latency: {e}");
        std::process::exit(1);
    });
    let fifo = sched::set_affinity(0, &CpuSet::of(&[cpu])).is_ok()
        && sched::set_class(0, Class::Fifo { priority: 80 }).is_ok();
    // SAFETY: a handler that only stores an atomic.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_tick_timer as *const () as usize;
        libc::sigemptyset(&mut sa.sa_mask);
        libc::sigaction(libc::SIGRTMIN() + 5, &sa, std::ptr::null_mut());
    }
    let cal = calibrate::measure();
    let step = cal.iterations(1000).max(1);
    let stop = Stop::new();
    let mut ctx = JobCtx::detached(C, &cal, &stop);
    ctx.set_timing_mode(mode);
    let mut lat = Vec::with_capacity(jobs as usize);
    let t0 = clock::now() + 50 * MS;
    for i in 0..jobs {
        // T is a multiple of the tick, so strictly periodic releases would
        // put every violation at the same phase of the tick; a sweep of
        // 0-10 ms (a tick at HZ=100 or less) samples every phase.
        let release = t0 + i * T + (i * 613_000) % (10 * MS);
        clock::sleep_until(release);
        let l = match limit {
            "deadline" => {
                let r = ctx.try_within_abs(release + D, |ctx| work(ctx, step, WORK)).unwrap();
                let h = clock::now(); // the handler starts
                assert!(r.is_err(), "job {i}: the deadline was not violated");
                h.saturating_sub(release + D)
            }
            "wcet" => {
                let cpu_end = clock::thread_cpu() + C;
                let r = ctx.try_wcet(C, |ctx| work(ctx, step, WORK)).unwrap();
                let h = clock::thread_cpu(); // the handler starts
                assert!(r.is_err(), "job {i}: the budget was not violated");
                h.saturating_sub(cpu_end)
            }
            _ => tick_job(step),
        };
        lat.push(l);
    }
    let hz = clock_ticks();
    println!(
        "{}",
        serde_json::json!({"config": config, "jobs": jobs, "cpu": cpu, "sched_fifo": fifo, "poll_ns": cal.ns_per_iter * step as f64, "latency_ns": lat, "user_hz": hz})
    );
}

fn clock_ticks() -> i64 {
    // SAFETY: sysconf has no preconditions.
    unsafe { libc::sysconf(libc::_SC_CLK_TCK) }
}
