//! The machine-wide run lock: a run changes machine-global state (cpuset
//! load balancing, deadline bandwidth, tracefs), so runs are serialised with
//! an `flock` on `/run/lock/schedlab.lock` (or `/tmp/schedlab.lock`;
//! `$SCHEDLAB_LOCK` overrides). The holder writes its PID into the file. A
//! second run fails at once, naming the holder's PID, unless it asked to
//! wait (`--wait`); then it says whom it waits for and blocks until the
//! lock is free. The kernel drops the lock when its holder dies, however it
//! dies.

use crate::error::RunError;
use std::io::{Read, Seek, Write};
use std::os::fd::AsRawFd;

pub struct RunLock {
    _file: std::fs::File,
}

/// The lock file.
pub fn path() -> std::path::PathBuf {
    if let Some(p) = std::env::var_os("SCHEDLAB_LOCK") {
        return p.into();
    }
    let d = std::path::Path::new("/run/lock");
    if d.is_dir() && crate::privilege::writable(d) {
        d.join("schedlab.lock")
    } else {
        std::env::temp_dir().join("schedlab.lock")
    }
}

fn holder(f: &mut std::fs::File) -> String {
    let mut s = String::new();
    let _ = f.seek(std::io::SeekFrom::Start(0));
    let _ = f.read_to_string(&mut s);
    match s.trim().parse::<i32>() {
        // A PID left by an earlier holder that is gone: the holder did not write its own.
        Ok(pid) if !std::path::Path::new(&format!("/proc/{pid}")).exists() => {
            "a process that has not written its PID".to_string()
        }
        Ok(pid) => {
            let cmd = std::fs::read(format!("/proc/{pid}/cmdline"))
                .map(|b| {
                    b.split(|&c| c == 0)
                        .filter(|a| !a.is_empty())
                        .map(|a| String::from_utf8_lossy(a).into_owned())
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .unwrap_or_default();
            if cmd.is_empty() {
                format!("PID {pid}")
            } else {
                format!("PID {pid}, `{cmd}`")
            }
        }
        Err(_) => "a process that has not written its PID".to_string(),
    }
}

impl RunLock {
    /// Takes the lock. When another run holds it: an error naming that
    /// run's PID at once, or with `wait`, a line on stderr naming it and a
    /// wait until it ends.
    pub fn acquire(wait: bool) -> Result<RunLock, RunError> {
        let p = path();
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&p)
            .map_err(|e| RunError::system(format!("opening the run lock {}", p.display()), e))?;
        // SAFETY: a valid open descriptor.
        if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            let who = holder(&mut f);
            if !wait {
                return Err(RunError::Busy(format!(
                    "another schedlab run ({who}) holds the run lock {}: runs change machine-wide state and run one at a time; wait for it to end, or pass --wait to wait for it",
                    p.display()
                )));
            }
            eprintln!("schedlab: waiting for the schedlab run ({who}) that holds {} to end", p.display());
            loop {
                // SAFETY: a valid open descriptor.
                if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX) } == 0 {
                    break;
                }
                let e = std::io::Error::last_os_error();
                if e.raw_os_error() != Some(libc::EINTR) {
                    return Err(RunError::system(format!("waiting for the run lock {}", p.display()), e));
                }
            }
        }
        let _ = f.set_len(0);
        let _ = f.seek(std::io::SeekFrom::Start(0));
        let _ = writeln!(f, "{}", std::process::id());
        let _ = f.flush();
        Ok(RunLock { _file: f })
    }
}
