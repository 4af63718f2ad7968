//! Clocks and absolute sleeps: `CLOCK_MONOTONIC` for releases, deadlines and
//! trace times, `CLOCK_THREAD_CPUTIME_ID` for execution time (precise to the
//! nanosecond: the kernel adds the not-yet-accounted part of the current
//! stint, so it does not depend on the tick).

/// Nanoseconds on `CLOCK_MONOTONIC`.
pub fn now() -> u64 {
    read(libc::CLOCK_MONOTONIC)
}

/// CPU time consumed by the calling thread, in ns.
pub fn thread_cpu() -> u64 {
    read(libc::CLOCK_THREAD_CPUTIME_ID)
}

fn read(clock: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid out-pointer; both clocks exist on Linux.
    unsafe { libc::clock_gettime(clock, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

pub(crate) fn timespec(ns: u64) -> libc::timespec {
    libc::timespec { tv_sec: (ns / 1_000_000_000) as libc::time_t, tv_nsec: (ns % 1_000_000_000) as libc::c_long }
}

/// Sleeps until `CLOCK_MONOTONIC` reaches `at` (an absolute timer, so a
/// late wake-up does not shift later releases). Restarts after signals.
pub fn sleep_until(at: u64) {
    let ts = timespec(at);
    loop {
        // SAFETY: `ts` is valid; a null remainder is allowed with TIMER_ABSTIME.
        let r = unsafe { libc::clock_nanosleep(libc::CLOCK_MONOTONIC, libc::TIMER_ABSTIME, &ts, std::ptr::null_mut()) };
        if r != libc::EINTR {
            return;
        }
    }
}

/// The CPU the calling thread runs on now.
pub fn current_cpu() -> u32 {
    // SAFETY: no arguments; returns -1 only on kernels without getcpu.
    let c = unsafe { libc::sched_getcpu() };
    c.max(0) as u32
}

/// The calling thread's kernel thread id.
pub fn gettid() -> i32 {
    // SAFETY: gettid cannot fail.
    unsafe { libc::syscall(libc::SYS_gettid) as i32 }
}
