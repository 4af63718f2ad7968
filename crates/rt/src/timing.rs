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
//!
//! **Protected sections** ([`crate::job::JobCtx::protected`], OML's
//! `oml_within_disable`/`enable`): inside one, `check` reports no timing
//! violation and the async signal is blocked (a pending one is delivered when
//! the outermost section ends); the section's end reports what was deferred.
//!
//! **Benchmark mode ([`Mode::Benchmark`], OML's compile-time benchmarking
//! switch, a run option here).** Scopes never raise; each records its
//! duration ([`ScopeTime`]: thread CPU time for a WCET scope, wall time for
//! a deadline scope) under its label, for WCET and budget estimation.

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
    /// Scopes never raise; each records its duration ([`ScopeTime`]).
    Benchmark,
}

impl std::str::FromStr for Mode {
    type Err = String;
    fn from_str(s: &str) -> Result<Mode, String> {
        match s {
            "cooperative" => Ok(Mode::Cooperative),
            "async" => Ok(Mode::Async),
            "benchmark" => Ok(Mode::Benchmark),
            _ => Err(format!("{s:?}: expected cooperative, async or benchmark")),
        }
    }
}

/// The measured duration of one scope in benchmark mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopeTime {
    /// The scope's label (`""` for an unlabelled scope).
    pub label: String,
    pub limit: Limit,
    /// Thread CPU ns (WCET scope) or wall-clock ns (deadline scope).
    pub ns: u64,
    /// The limit the scope would have enforced: the budget (WCET) or the
    /// time from the scope's start to its deadline (deadline).
    pub limit_ns: u64,
}

/// Count, max, mean and 99th percentile of one label's durations.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ScopeStats {
    pub label: String,
    pub limit: Limit,
    pub count: usize,
    pub max_ns: u64,
    pub mean_ns: f64,
    /// The nearest-rank 99th percentile.
    pub p99_ns: u64,
    /// How many of them exceeded the scope's limit.
    pub over_limit: usize,
}

/// The labels of benchmark-mode scopes, interned for the fixed-size trace
/// records (at most 65536 distinct labels a process).
static LABELS: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

/// `label`'s number (taken once per new label; benchmark mode only).
fn intern(label: &str) -> u64 {
    let mut l = LABELS.lock().unwrap_or_else(|p| p.into_inner());
    match l.iter().position(|x| x == label) {
        Some(i) => i as u64,
        None if l.len() < 1 << 16 => {
            l.push(label.to_string());
            l.len() as u64 - 1
        }
        None => 0,
    }
}

/// A label by its number.
pub(crate) fn label_of(id: u64) -> String {
    let l = LABELS.lock().unwrap_or_else(|p| p.into_inner());
    l.get(id as usize).cloned().unwrap_or_default()
}

/// Packs a scope time's label, limit and limit length into one word:
/// bits 0 (WCET), 1..17 (label number), 17.. (limit length, ns; saturated).
pub(crate) fn pack_scope(t: &ScopeTime) -> u64 {
    let len = t.limit_ns.min((1 << 47) - 1);
    (len << 17) | (intern(&t.label) << 1) | (t.limit == Limit::Wcet) as u64
}

/// The inverse of [`pack_scope`] (with the duration `ns`).
pub(crate) fn unpack_scope(a: u64, ns: u64) -> ScopeTime {
    ScopeTime {
        label: label_of((a >> 1) & 0xffff),
        limit: if a & 1 == 1 { Limit::Wcet } else { Limit::Deadline },
        ns,
        limit_ns: a >> 17,
    }
}

/// The scope durations in a trace's `scope-time` events (benchmark mode),
/// with the task's index.
pub fn scope_times_in(events: &[schedlab_trace::Event]) -> Vec<(u32, ScopeTime)> {
    events
        .iter()
        .filter_map(|e| match e {
            schedlab_trace::Event::Note { name, data, .. } if name == "scope-time" => Some((
                data["task"].as_u64()? as u32,
                ScopeTime {
                    label: data["label"].as_str()?.to_string(),
                    limit: if data["limit"] == "wcet" { Limit::Wcet } else { Limit::Deadline },
                    ns: data["ns"].as_u64()?,
                    limit_ns: data["limit_ns"].as_u64()?,
                },
            )),
            _ => None,
        })
        .collect()
}

/// Per (label, limit) statistics of scope durations, sorted by label.
pub fn scope_stats(times: &[ScopeTime]) -> Vec<ScopeStats> {
    let mut by: std::collections::BTreeMap<(String, bool), (Vec<u64>, usize)> = Default::default();
    for t in times {
        let e = by.entry((t.label.clone(), t.limit == Limit::Wcet)).or_default();
        e.0.push(t.ns);
        e.1 += (t.ns > t.limit_ns) as usize;
    }
    by.into_iter()
        .map(|((label, wcet), (mut v, over_limit))| {
            v.sort_unstable();
            let n = v.len();
            let rank = (n * 99).div_ceil(100).max(1);
            ScopeStats {
                label,
                limit: if wcet { Limit::Wcet } else { Limit::Deadline },
                count: n,
                max_ns: v[n - 1],
                mean_ns: v.iter().map(|&x| x as f64).sum::<f64>() / n as f64,
                p99_ns: v[rank - 1],
                over_limit,
            }
        })
        .collect()
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
    /// How far past the limit it was noticed: wall-clock ns past the
    /// deadline, or thread CPU ns past the budget.
    pub lateness: u64,
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
    /// Benchmark mode: the clock reading at the start (monotonic for a
    /// deadline scope, thread CPU for a WCET scope); never violated.
    pub bench_start: Option<u64>,
    /// Benchmark mode: the label the duration is recorded under.
    pub label: Box<str>,
    asynch: Option<Box<AsyncState>>,
}

fn signo() -> i32 {
    libc::SIGRTMIN() + 4
}

/// Blocks (`true`) or unblocks the async timing signal in the calling
/// thread: a protected section. A signal that comes while it is blocked
/// stays pending and its handler runs at the unblock.
pub(crate) fn block_signal(block: bool) {
    // SAFETY: sigset operations on a local set; pthread_sigmask on this thread.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, signo());
        let how = if block { libc::SIG_BLOCK } else { libc::SIG_UNBLOCK };
        libc::pthread_sigmask(how, &set, std::ptr::null_mut());
    }
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
    pub(crate) fn new(id: u64, label: &str, limit: Limit, end: u64, budget: u64, mode: Mode) -> Scope {
        let mut s = Scope { id, limit, end, budget, bench_start: None, label: Box::default(), asynch: None };
        if mode == Mode::Benchmark {
            s.label = label.into();
            s.bench_start = Some(match limit {
                Limit::Deadline => clock::now(),
                Limit::Wcet => end - budget,
            });
        } else if mode == Mode::Async {
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
        if self.bench_start.is_some() {
            return false;
        }
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
                let me = &**st as *const AsyncState as *mut libc::c_void;
                let mut info: libc::siginfo_t = std::mem::zeroed();
                while libc::sigtimedwait(&set, &mut info, &zero) > 0 {
                    // Another scope's signal (deferred by a protected
                    // section): handle it as the handler would have.
                    if info.si_value().sival_ptr != me {
                        on_timer(signo(), &mut info, std::ptr::null_mut());
                    }
                }
                libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
            }
        }
    }
}

impl Scope {
    /// This scope's violation, noticed at `now`, at nesting depth `depth`.
    pub(crate) fn violation(&self, depth: usize, now: u64) -> Violation {
        let lateness = match self.limit {
            Limit::Deadline => now.saturating_sub(self.end),
            Limit::Wcet => clock::thread_cpu().saturating_sub(self.end),
        };
        Violation {
            limit: self.limit,
            scope: self.id,
            depth,
            value: if self.limit == Limit::Wcet { self.budget } else { self.end },
            noticed: now,
            lateness,
        }
    }

    /// Benchmark mode: the scope's duration so far (None otherwise).
    pub(crate) fn bench_time(&self) -> Option<ScopeTime> {
        let label: &str = &self.label;
        let start = self.bench_start?;
        let (ns, limit_ns) = match self.limit {
            Limit::Deadline => (clock::now().saturating_sub(start), self.end.saturating_sub(start)),
            Limit::Wcet => (clock::thread_cpu().saturating_sub(start), self.budget),
        };
        Some(ScopeTime { label: label.to_string(), limit: self.limit, ns, limit_ns })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(label: &str, limit: Limit, ns: u64, limit_ns: u64) -> ScopeTime {
        ScopeTime { label: label.into(), limit, ns, limit_ns }
    }

    #[test]
    fn stats_per_label_and_limit_with_a_nearest_rank_p99() {
        let mut v: Vec<ScopeTime> = (1..=200).map(|i| t("a", Limit::Wcet, i, 150)).collect();
        v.push(t("a", Limit::Deadline, 7, 10));
        v.push(t("b", Limit::Wcet, 5, 10));
        let s = scope_stats(&v);
        assert_eq!(s.len(), 3);
        let a = &s[1];
        assert_eq!(
            (a.label.as_str(), a.limit, a.count, a.max_ns, a.p99_ns, a.over_limit),
            ("a", Limit::Wcet, 200, 200, 198, 50)
        );
        assert!((a.mean_ns - 100.5).abs() < 1e-9);
        assert_eq!((s[0].limit, s[0].count, s[0].over_limit), (Limit::Deadline, 1, 0));
        assert_eq!((s[2].label.as_str(), s[2].p99_ns), ("b", 5));
    }

    #[test]
    fn a_scope_time_survives_the_trace_record_packing() {
        let x = t("decode", Limit::Wcet, 1234, 2_000_000);
        let back = unpack_scope(pack_scope(&x), 1234);
        assert_eq!(back, x);
        let y = t("frame", Limit::Deadline, 5, 7);
        assert_eq!(unpack_scope(pack_scope(&y), 5), y);
    }

    #[test]
    fn modes_parse_and_bad_ones_are_named() {
        assert_eq!("benchmark".parse::<Mode>(), Ok(Mode::Benchmark));
        assert_eq!("async".parse::<Mode>(), Ok(Mode::Async));
        assert!("fast".parse::<Mode>().unwrap_err().contains("cooperative, async or benchmark"));
    }
}
