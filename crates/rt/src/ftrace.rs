//! The kernel's own scheduling events, read from tracefs during a run: a
//! private tracefs *instance* (`instances/schedlab-PID`: its own ring
//! buffer and event switches, so the top-level trace and other users are
//! untouched) with `sched_switch` and `sched_wakeup` enabled, filtered to
//! the run's threads (`set_event_pid`), on the `mono` trace clock (the same
//! time base as CLOCK_MONOTONIC). tracefs is mounted if it is not, and
//! unmounted afterwards; the instance is removed (the restore guard does
//! both). The buffer is sized for the run and read once at the end; the
//! per-CPU `overrun` / `dropped events` counters prove nothing was lost.
//!
//! The text output gives µs resolution (the kernel prints `sec.usec` for
//! ns clocks); times are read as the middle of their µs.

use crate::error::RunError;
use crate::guard::{Guard, Undo};
use std::path::{Path, PathBuf};

/// Where tracefs is mounted, if it is.
pub fn find_mount() -> Option<PathBuf> {
    let mounts = std::fs::read_to_string("/proc/mounts").ok()?;
    let mut debugfs = None;
    for l in mounts.lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() >= 3 {
            if f[2] == "tracefs" {
                return Some(PathBuf::from(f[1]));
            }
            if f[2] == "debugfs" && Path::new(f[1]).join("tracing/instances").exists() {
                debugfs = Some(PathBuf::from(f[1]).join("tracing"));
            }
        }
    }
    debugfs
}

/// A context switch on a CPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Switch {
    pub t: u64,
    pub cpu: u32,
    pub prev: i32,
    /// The previous thread was still runnable (preempted), not sleeping.
    pub prev_runnable: bool,
    pub next: i32,
}

/// A wake-up: `pid` becomes runnable on `target`, woken from `cpu`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wakeup {
    pub t: u64,
    pub cpu: u32,
    pub pid: i32,
    pub target: u32,
}

/// What the kernel recorded.
#[derive(Debug, Clone, Default)]
pub struct KernelEvents {
    pub switches: Vec<Switch>,
    pub wakeups: Vec<Wakeup>,
    /// Events the kernel's buffer lost (overrun + dropped), over all CPUs.
    pub lost: u64,
    /// Lines that could not be parsed.
    pub unparsed: u64,
}

pub struct KernelTrace {
    instance: PathBuf,
}

fn sys(what: &str, p: &Path, e: std::io::Error) -> RunError {
    RunError::system(format!("{what} {}", p.display()), e)
}

impl KernelTrace {
    /// Sets up the instance (mounting tracefs when needed), traced threads
    /// `pids`, `buffer_kb` per CPU, and starts recording.
    pub fn start(guard: &Guard, pids: &[i32], buffer_kb: u64) -> Result<KernelTrace, RunError> {
        let root = match find_mount() {
            Some(p) => p,
            None => {
                let p = PathBuf::from("/sys/kernel/tracing");
                let c = std::ffi::CString::new("/sys/kernel/tracing").expect("no NUL");
                let (src, fs) = (c"nodev", c"tracefs");
                guard
                    .record(Undo::Mount { path: p.clone() })
                    .map_err(|e| sys("journal the mount of tracefs on", &p, e))?;
                // SAFETY: valid NUL-terminated strings; no mount data.
                let r = unsafe { libc::mount(src.as_ptr(), c.as_ptr(), fs.as_ptr(), 0, std::ptr::null()) };
                if r != 0 {
                    return Err(sys("mount tracefs on", &p, std::io::Error::last_os_error()));
                }
                p
            }
        };
        let instance = root.join("instances").join(format!("schedlab-{}", std::process::id()));
        guard.mkdir(&instance, None, None).map_err(|e| sys("create tracefs instance", &instance, e))?;
        let w = |f: &str, v: &str| -> Result<(), RunError> {
            std::fs::write(instance.join(f), v).map_err(|e| sys("write", &instance.join(f), e))
        };
        w("tracing_on", "0")?;
        w("trace_clock", "mono")?;
        w("buffer_size_kb", &buffer_kb.to_string())?;
        let list: Vec<String> = pids.iter().map(|p| p.to_string()).collect();
        w("set_event_pid", &list.join(" "))?;
        w("events/sched/sched_switch/enable", "1")?;
        w("events/sched/sched_wakeup/enable", "1")?;
        w("tracing_on", "1")?;
        Ok(KernelTrace { instance })
    }

    /// Stops recording and parses everything recorded.
    pub fn stop_and_read(&self) -> Result<KernelEvents, RunError> {
        let _ = std::fs::write(self.instance.join("tracing_on"), "0");
        let text = std::fs::read_to_string(self.instance.join("trace"))
            .map_err(|e| sys("read", &self.instance.join("trace"), e))?;
        let mut ev = parse(&text);
        if let Ok(rd) = std::fs::read_dir(self.instance.join("per_cpu")) {
            for d in rd.flatten() {
                if let Ok(s) = std::fs::read_to_string(d.path().join("stats")) {
                    for l in s.lines() {
                        if let Some(v) = l.strip_prefix("overrun:").or_else(|| l.strip_prefix("dropped events:")) {
                            ev.lost += v.trim().parse::<u64>().unwrap_or(0);
                        }
                    }
                }
            }
        }
        Ok(ev)
    }
}

fn field<'a>(body: &'a str, key: &str, last: bool) -> Option<&'a str> {
    let pat = format!(" {key}=");
    let at = if body.starts_with(&pat[1..]) && !last {
        0
    } else if last {
        body.rfind(&pat)? + 1
    } else {
        body.find(&pat)? + 1
    };
    let v = &body[at + key.len() + 1..];
    Some(v.split_whitespace().next().unwrap_or(""))
}

fn parse_ts(s: &str) -> Option<u64> {
    let s = s.trim_end_matches(':');
    let (a, b) = s.split_once('.')?;
    let us: u64 = b.parse().ok()?;
    let scale = 10u64.pow(6u32.saturating_sub(b.len() as u32));
    Some(a.parse::<u64>().ok()? * 1_000_000_000 + us * scale * 1000 + 500)
}

/// Parses the text of a tracefs `trace` file.
pub fn parse(text: &str) -> KernelEvents {
    let mut ev = KernelEvents::default();
    for line in text.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let (kind, at) = match (line.find(": sched_switch: "), line.find(": sched_wakeup: ")) {
            (Some(i), _) => (0, i),
            (None, Some(i)) => (1, i),
            _ => {
                ev.unparsed += 1;
                continue;
            }
        };
        let left: Vec<&str> = line[..at].split_whitespace().rev().take(3).collect();
        let body = &line[at + 16..]; // both event names are 16 bytes with their ": "
        let parsed = (|| {
            let t = parse_ts(left.first()?)?;
            let cpu: u32 = left.get(2)?.trim_start_matches('[').trim_end_matches(']').parse().ok()?;
            if kind == 0 {
                let prev: i32 = field(body, "prev_pid", false)?.parse().ok()?;
                let state = field(body, "prev_state", false)?;
                let next: i32 = field(body, "next_pid", true)?.parse().ok()?;
                ev.switches.push(Switch { t, cpu, prev, prev_runnable: state.starts_with('R'), next });
            } else {
                let pid: i32 = field(body, "pid", true)?.parse().ok()?;
                let target: u32 = field(body, "target_cpu", true)?.parse().ok()?;
                ev.wakeups.push(Wakeup { t, cpu, pid, target });
            }
            Some(())
        })();
        if parsed.is_none() {
            ev.unparsed += 1;
        }
    }
    ev
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn parses_switch_and_wakeup_lines() {
        let text = "# tracer: nop\n\
            \x20memfd:sealed-91-12352   [001] d..2.  9273.710395: sched_switch: prev_comm=memfd:sealed-91 prev_pid=12352 prev_prio=120 prev_state=R+ ==> next_comm=sl w0 next_pid=77 next_prio=10\n\
            \x20         <idle>-0       [000] dNh4.  9273.710623: sched_wakeup: comm=sl-w0 pid=77 prio=10 target_cpu=001\n";
        let ev = parse(text);
        assert_eq!(ev.unparsed, 0);
        assert_eq!(
            ev.switches,
            vec![Switch { t: 9_273_710_395_500, cpu: 1, prev: 12352, prev_runnable: true, next: 77 }]
        );
        assert_eq!(ev.wakeups, vec![Wakeup { t: 9_273_710_623_500, cpu: 0, pid: 77, target: 1 }]);
    }
}
