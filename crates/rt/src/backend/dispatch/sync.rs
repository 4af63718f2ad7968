//! The dispatch backend's synchronisation with its workers: futexes (a
//! worker's gate, the dispatcher's doorbell), the preemption signal and its
//! handler, and each worker's log of running stints (written only by the
//! worker thread, from its job loop with the preemption signal blocked or
//! from the signal handler, so it needs no lock).

use crate::clock;
use std::cell::Cell;
use std::sync::atomic::{AtomicI32, AtomicU32, AtomicU64, Ordering};

/// Gate states (low 8 bits of the gate word; the upper 24 bits count the
/// dispatcher's stores, so a futex wait never misses a change).
pub const HOLD: u32 = 0;
pub const EXIT: u32 = 255;

pub fn state(g: u32) -> u32 {
    g & 0xff
}
/// `Some(cpu)` when the gate says "run on `cpu`".
pub fn run_cpu(g: u32) -> Option<u32> {
    let s = state(g);
    (s != HOLD && s != EXIT).then(|| s - 1)
}

/// Waits while `*word == val`, until `deadline` (absolute CLOCK_MONOTONIC
/// ns; `None`: no timeout). Returns on a change, a wake-up, a signal or
/// the timeout.
pub fn futex_wait(word: &AtomicU32, val: u32, deadline: Option<u64>) {
    let ts = deadline.map(clock::timespec);
    let tsp = ts.as_ref().map_or(std::ptr::null(), |t| t as *const libc::timespec);
    // SAFETY: `word` is a valid aligned u32 for the duration of the call;
    // FUTEX_WAIT_BITSET takes an absolute CLOCK_MONOTONIC timeout.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAIT_BITSET | libc::FUTEX_PRIVATE_FLAG,
            val,
            tsp,
            std::ptr::null::<u32>(),
            u32::MAX,
        );
    }
}

pub fn futex_wake(word: &AtomicU32) {
    // SAFETY: as above; wakes every waiter.
    unsafe {
        libc::syscall(libc::SYS_futex, word.as_ptr(), libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG, i32::MAX);
    }
}

/// The signal that tells a worker it was preempted (SIGRTMIN+5; timing
/// exceptions use +4).
pub fn preempt_signal() -> i32 {
    libc::SIGRTMIN() + 5
}

/// CPU time consumed by thread `tid` of this process (ns).
pub fn thread_cpu_of(tid: i32) -> u64 {
    // MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED): (~tid << 3) | 4 | 2.
    let clk: libc::clockid_t = ((!tid) << 3) | 6;
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: valid out-pointer; an invalid clock leaves ts at 0.
    unsafe { libc::clock_gettime(clk, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// What a worker and the dispatcher share (all atomics).
#[derive(Debug, Default)]
pub struct Shared {
    pub gate: AtomicU32,
    pub tid: AtomicI32,
    /// Dispatcher → worker: jobs posted (the last posted job's seq + 1) and its parameters.
    pub posted: AtomicU64,
    pub release: AtomicU64,
    pub deadline: AtomicU64,
    pub exec: AtomicU64,
    /// When the dispatcher last said "run" / "hold" (absolute ns).
    pub run_cmd_t: AtomicU64,
    pub hold_cmd_t: AtomicU64,
    /// Worker → dispatcher: the job whose CPU clock origin is `cpu0` (seq + 1).
    pub started: AtomicU64,
    pub cpu0: AtomicU64,
    /// Worker → dispatcher: jobs completed (the last one's seq + 1) and how.
    pub done: AtomicU64,
    pub done_t: AtomicU64,
    pub done_forced: AtomicU64,
    /// Dispatcher → worker: the dispatcher wants the CPU at the running
    /// job's next preemption point (`points.rs`).
    pub want: AtomicU32,
    /// Worker → dispatcher: the last request at a segment boundary (its
    /// number, written last) and what it says: [`Request`] code, when,
    /// on which CPU, the segment that ended and its kind
    /// ([`NO_SEGMENT`]: none).
    pub req: AtomicU64,
    pub req_what: AtomicU32,
    pub req_t: AtomicU64,
    pub req_cpu: AtomicU32,
    pub req_seg: AtomicU32,
    pub req_kind: AtomicU32,
    /// Dispatcher → worker: the number of the last request carried out (a
    /// futex word; low 32 bits).
    pub ack: AtomicU32,
    /// Dispatcher → worker: the posted job's segment demands (ns; as many
    /// as the task has segments, none without segments).
    pub segs: Vec<AtomicU64>,
}

impl Shared {
    /// A worker's shared state for a task with `segments` segments (0: none declared).
    pub fn new(segments: usize) -> Shared {
        Shared { segs: (0..segments).map(|_| AtomicU64::new(0)).collect(), ..Shared::default() }
    }
}

/// What a worker asks at a segment boundary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum Request {
    /// A preemption point the dispatcher wanted.
    Point = 1,
    /// A self-suspension begins (the job blocks).
    Block = 2,
    /// The suspension ended (the job resumes).
    Resume = 3,
}

impl Request {
    pub fn of(code: u32) -> Option<Request> {
        match code {
            1 => Some(Request::Point),
            2 => Some(Request::Block),
            3 => Some(Request::Resume),
            _ => None,
        }
    }
}

/// `req_seg` when no segment ended (a leading suspension).
pub const NO_SEGMENT: u32 = u32::MAX;

/// How a stint ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    Open,
    Preempt,
    /// Suspended itself (a `suspend` segment).
    Block,
    Complete,
    Forced,
}

/// A worker's running stint: job `job` ran user code on `cpu` in [from, to).
#[derive(Debug, Clone, Copy)]
pub struct Stint {
    pub job: u64,
    pub cpu: u32,
    pub from: u64,
    pub to: u64,
    pub end: End,
    /// The dispatcher's "run" command that started it (0: none), and its
    /// "hold" command that ended it (0: none).
    pub run_cmd: u64,
    pub hold_cmd: u64,
}

/// A worker thread's own state, reachable from its signal handler.
pub struct Local {
    pub shared: *const Shared,
    pub in_job: bool,
    pub job: u64,
    pub stints: Vec<Stint>,
    pub dropped: u64,
}

impl Local {
    pub fn open(&mut self, t: u64, cpu: u32, run_cmd: u64) {
        if self.stints.len() < self.stints.capacity() {
            self.stints.push(Stint { job: self.job, cpu, from: t, to: t, end: End::Open, run_cmd, hold_cmd: 0 });
        } else {
            self.dropped += 1;
        }
    }
    pub fn close(&mut self, t: u64, end: End, hold_cmd: u64) {
        if let Some(s) = self.stints.last_mut() {
            if s.end == End::Open && s.job == self.job {
                s.to = t;
                s.end = end;
                s.hold_cmd = hold_cmd;
            }
        }
    }
    fn cpu(&self) -> Option<u32> {
        self.stints.last().filter(|s| s.end == End::Open).map(|s| s.cpu)
    }
}

thread_local! {
    static LOCAL: Cell<*mut Local> = const { Cell::new(std::ptr::null_mut()) };
}

/// Makes `l` the calling thread's local state (for the handler).
pub fn set_local(l: *mut Local) {
    LOCAL.with(|c| c.set(l));
}

/// The preemption handler: ends the current stint and waits (a futex wait,
/// async-signal-safe) while the gate says "hold"; then opens a stint on the
/// CPU the worker now runs on. Outside a job it returns at once (the job
/// loop reads the gate itself).
extern "C" fn on_preempt(_sig: libc::c_int) {
    let p = LOCAL.with(|c| c.get());
    if p.is_null() {
        return;
    }
    // SAFETY: `p` points to the worker's Local, alive while the thread runs
    // its job loop; the job loop touches it only with this signal blocked.
    let l = unsafe { &mut *p };
    if !l.in_job {
        return;
    }
    // SAFETY: the Shared outlives the worker thread (an Arc held by it).
    let sh = unsafe { &*l.shared };
    let g = sh.gate.load(Ordering::Acquire);
    if state(g) != HOLD {
        // Already dispatched again (perhaps elsewhere): record a move only.
        let cpu = clock::current_cpu();
        if l.cpu() != Some(cpu) {
            let t = clock::now();
            l.close(t, End::Preempt, sh.hold_cmd_t.load(Ordering::Relaxed));
            l.open(t, cpu, sh.run_cmd_t.load(Ordering::Relaxed));
        }
        return;
    }
    let t = clock::now();
    l.close(t, End::Preempt, sh.hold_cmd_t.load(Ordering::Relaxed));
    loop {
        let g = sh.gate.load(Ordering::Acquire);
        if state(g) != HOLD {
            break;
        }
        futex_wait(&sh.gate, g, None);
    }
    let t = clock::now();
    l.open(t, clock::current_cpu(), sh.run_cmd_t.load(Ordering::Relaxed));
}

/// Installs the preemption handler (process-wide, once; a thread without
/// local state ignores the signal).
pub fn install_handler() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: a plain handler with SA_RESTART (interrupted system calls
        // of job bodies restart).
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_preempt as extern "C" fn(libc::c_int) as usize;
            sa.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(preempt_signal(), &sa, std::ptr::null_mut());
        }
    });
}

/// Blocks (`true`) or unblocks the preemption signal in the calling thread.
pub fn block_preempt(block: bool) {
    // SAFETY: plain signal-mask manipulation of the calling thread.
    unsafe {
        let mut s: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut s);
        libc::sigaddset(&mut s, preempt_signal());
        libc::pthread_sigmask(if block { libc::SIG_BLOCK } else { libc::SIG_UNBLOCK }, &s, std::ptr::null_mut());
    }
}

/// Sends the preemption signal to thread `tid` of this process.
/// `pid` is this process's (read once: `getpid` is a system call of its
/// own in glibc, which no longer caches it).
pub fn signal(pid: i32, tid: i32) {
    // SAFETY: tgkill to a thread of this process.
    unsafe {
        libc::syscall(libc::SYS_tgkill, pid, tid, preempt_signal());
    }
}
/// The next gate word: a new generation with state `s`.
pub fn next_gen(g: u32, s: u32) -> u32 {
    (g & !0xff).wrapping_add(0x100) | s
}
