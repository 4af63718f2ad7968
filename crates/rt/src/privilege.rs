//! Privilege checks, made before anything is touched: a run that lacks a
//! privilege stops with a clear message and exit code 3.
//!
//! Read-only probes only: the effective capability set (`CapEff` of
//! `/proc/self/status`), `RLIMIT_RTPRIO`, and `faccessat(AT_EACCESS)` on the
//! files a run would write.

use crate::error::RunError;
use std::ffi::CString;
use std::path::{Path, PathBuf};

pub const CAP_SYS_ADMIN: u32 = 21;
pub const CAP_SYS_NICE: u32 = 23;

/// What a run needs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Needs {
    /// Highest SCHED_FIFO priority used (0: none).
    pub fifo_priority: u32,
    /// SCHED_DEADLINE threads.
    pub deadline: bool,
    /// Directories (cpuset roots) the run creates entries in.
    pub write_dirs: Vec<PathBuf>,
    /// Files the run writes.
    pub write_files: Vec<PathBuf>,
    /// tracefs access (mount it if needed, create an instance).
    pub tracefs: bool,
}

/// The calling process's effective capability mask.
pub fn effective_caps() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find_map(|l| l.strip_prefix("CapEff:").map(|v| u64::from_str_radix(v.trim(), 16).unwrap_or(0)))
        })
        .unwrap_or(0)
}

pub fn has_cap(cap: u32) -> bool {
    effective_caps() & (1u64 << cap) != 0
}

fn rtprio_limit() -> u64 {
    let mut r = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: valid out-pointer.
    unsafe { libc::getrlimit(libc::RLIMIT_RTPRIO, &mut r) };
    r.rlim_cur
}

/// May the effective user write `path`?
pub fn writable(path: &Path) -> bool {
    let Ok(c) = CString::new(path.as_os_str().as_encoded_bytes()) else { return false };
    // SAFETY: valid NUL-terminated path.
    unsafe { libc::faccessat(libc::AT_FDCWD, c.as_ptr(), libc::W_OK, libc::AT_EACCESS) == 0 }
}

/// Checks every need; the error lists all that are missing and how to get them.
pub fn check(needs: &Needs) -> Result<(), RunError> {
    let mut missing = Vec::new();
    let nice = has_cap(CAP_SYS_NICE);
    if needs.fifo_priority > 0 && !nice && rtprio_limit() < needs.fifo_priority as u64 {
        missing.push(format!(
            "SCHED_FIFO priority {} needs CAP_SYS_NICE or RLIMIT_RTPRIO >= {} (have {})",
            needs.fifo_priority,
            needs.fifo_priority,
            rtprio_limit()
        ));
    }
    if needs.deadline && !nice {
        missing.push("SCHED_DEADLINE needs CAP_SYS_NICE".to_string());
    }
    for d in &needs.write_dirs {
        if !writable(d) {
            missing.push(format!("creating cpusets needs write access to {}", d.display()));
        }
    }
    for f in &needs.write_files {
        if !writable(f) {
            missing.push(format!("writing {} needs write access to it", f.display()));
        }
    }
    if needs.tracefs && !tracefs_usable() {
        missing.push("reading the kernel's sched events needs tracefs (mounted and writable, or CAP_SYS_ADMIN to mount it); pass --no-kernel-trace to run without them".to_string());
    }
    if missing.is_empty() {
        Ok(())
    } else {
        Err(RunError::Privilege(format!(
            "{}; run as root (sudo schedlab run ...) or grant the capabilities (setcap cap_sys_nice,cap_sys_admin+ep $(which schedlab)). Nothing was changed.",
            missing.join("; ")
        )))
    }
}

fn tracefs_usable() -> bool {
    match crate::ftrace::find_mount() {
        Some(p) => writable(&p.join("instances")),
        None => has_cap(CAP_SYS_ADMIN),
    }
}
