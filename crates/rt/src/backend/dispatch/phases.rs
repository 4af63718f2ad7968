//! Where a decision's time goes (the diagnosis behind docs/performance.md,
//! "Dispatcher decision time: where the tail goes"). With
//! `SCHEDLAB_DISPATCH_PHASES=<file.csv>` in its environment, the dispatcher
//! stamps the phases of each decision-making wake-up — inputs reported
//! (completions, requests, releases), the driver's instant, the switches
//! carried out (`apply`), the rest (runs reported, requests answered, `want`
//! flags) — counts the system calls it made in the window (preemption
//! signals, futex wakes, affinity changes, thread CPU clock reads), and
//! reads its own CPU time and context-switch counts just outside the
//! window, so work and interruption are told apart: wall − CPU is time the
//! thread did not run (preempted, or its vCPU stolen; on a kernel without
//! `IRQ_TIME_ACCOUNTING` interrupt handlers count as CPU time). One row per
//! decision is written at the end of the run. Without the variable nothing
//! is stamped or read.

use crate::clock;

/// The variable that names the file.
pub const ENV: &str = "SCHEDLAB_DISPATCH_PHASES";

/// The columns of the file, in order (ns, or counts).
pub const COLUMNS: [&str; 15] = [
    "wall_ns",
    "inputs_ns",
    "instant_ns",
    "apply_ns",
    "rest_ns",
    "cpu_ns",
    "involuntary",
    "voluntary",
    "signals",
    "futex_wakes",
    "affinity",
    "cpu_clock_reads",
    "signal_ns",
    "futex_wake_ns",
    "affinity_ns",
];

/// System calls the dispatcher makes in a decision's window, counted as
/// they are made (cumulative over the run), and the time spent in those
/// that carry out switches (stamped only while phases are recorded).
#[derive(Debug, Default, Clone, Copy)]
pub struct Syscalls {
    pub signals: u64,
    pub futex_wakes: u64,
    pub affinity: u64,
    pub cpu_clock_reads: u64,
    /// ns in tgkill, futex wakes of the workers' gates, sched_setaffinity.
    pub signal_ns: u64,
    pub futex_wake_ns: u64,
    pub affinity_ns: u64,
}

/// The stamps of one wake-up while it is decided.
#[derive(Debug, Default, Clone, Copy)]
pub struct Stamps {
    cpu: u64,
    ivcsw: u64,
    vcsw: u64,
    calls: Syscalls,
    pub inputs: u64,
    pub instant: u64,
    pub apply: u64,
}

/// The per-decision rows of a run, reserved at start-up.
pub struct Phases {
    path: String,
    rows: Vec<[u64; 15]>,
    pub now: Stamps,
}

impl Phases {
    /// From the environment: `None` without the variable.
    pub fn from_env(capacity: usize) -> Option<Phases> {
        let path = std::env::var(ENV).ok().filter(|p| !p.is_empty())?;
        let mut rows = Vec::with_capacity(capacity);
        super::prefault::spare(&mut rows);
        Some(Phases { path, rows, now: Stamps::default() })
    }

    /// Before the wake-up's clock read: the thread's CPU time and switches so far.
    pub fn begin(&mut self, calls: Syscalls) {
        let (ivcsw, vcsw) = switches();
        self.now = Stamps { cpu: clock::thread_cpu(), ivcsw, vcsw, calls, ..Stamps::default() };
    }

    /// After the decision's end stamp `decided` (the wake-up at `wake`):
    /// a row, when the wake-up made decisions and there is room.
    pub fn end(&mut self, decided: bool, wake: u64, end: u64, calls: Syscalls) {
        let cpu = clock::thread_cpu();
        let (ivcsw, vcsw) = switches();
        if !decided || self.rows.len() == self.rows.capacity() {
            return;
        }
        let s = self.now;
        self.rows.push([
            end - wake,
            s.inputs.saturating_sub(wake),
            s.instant.saturating_sub(s.inputs),
            s.apply.saturating_sub(s.instant),
            end.saturating_sub(s.apply),
            cpu.saturating_sub(s.cpu),
            ivcsw.saturating_sub(s.ivcsw),
            vcsw.saturating_sub(s.vcsw),
            calls.signals - s.calls.signals,
            calls.futex_wakes - s.calls.futex_wakes,
            calls.affinity - s.calls.affinity,
            calls.cpu_clock_reads - s.calls.cpu_clock_reads,
            calls.signal_ns - s.calls.signal_ns,
            calls.futex_wake_ns - s.calls.futex_wake_ns,
            calls.affinity_ns - s.calls.affinity_ns,
        ]);
    }

    /// Writes the rows (CSV with a header); what went wrong, if anything.
    pub fn write(&self) -> Result<String, String> {
        use std::fmt::Write;
        let mut out = COLUMNS.join(",");
        out.push('\n');
        for r in &self.rows {
            let cells: Vec<String> = r.iter().map(|v| v.to_string()).collect();
            let _ = writeln!(out, "{}", cells.join(","));
        }
        std::fs::write(&self.path, out)
            .map(|()| format!("decision phases of {} decisions written to {} ({ENV})", self.rows.len(), self.path))
            .map_err(|e| format!("{ENV}: cannot write {}: {e}", self.path))
    }
}

/// The calling thread's involuntary and voluntary context switches so far.
fn switches() -> (u64, u64) {
    // SAFETY: getrusage fills the zeroed struct it is given; RUSAGE_THREAD
    // reads the calling thread's usage.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut u) };
    (u.ru_nivcsw as u64, u.ru_nvcsw as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_splits_the_window_into_its_phases_and_counts_the_calls_made_in_it() {
        let mut p = Phases { path: String::new(), rows: Vec::with_capacity(2), now: Stamps::default() };
        p.begin(Syscalls { signals: 1, futex_wakes: 2, affinity: 3, cpu_clock_reads: 4, ..Syscalls::default() });
        p.now.inputs = 1_100;
        p.now.instant = 1_500;
        p.now.apply = 2_600;
        let calls = Syscalls {
            signals: 2,
            futex_wakes: 4,
            affinity: 3,
            cpu_clock_reads: 4,
            futex_wake_ns: 900,
            ..Syscalls::default()
        };
        p.end(true, 1_000, 3_000, calls);
        let r = p.rows[0];
        assert_eq!(&r[..5], &[2_000, 100, 400, 1_100, 400]);
        assert_eq!(r[1] + r[2] + r[3] + r[4], r[0], "the phases add up to the window");
        assert_eq!(&r[8..], &[1, 2, 0, 0, 0, 900, 0]);
        // A wake-up that decided nothing is not a row.
        p.begin(Syscalls::default());
        p.end(false, 0, 10, Syscalls::default());
        assert_eq!(p.rows.len(), 1);
    }
}
