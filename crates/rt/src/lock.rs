//! The machine-wide run lock: a run changes machine-global state (cpuset
//! load balancing, deadline bandwidth, tracefs), so runs are serialised with
//! an `flock` on `/run/lock/schedlab.lock` (or `/tmp/schedlab.lock`). A
//! second run waits for the first, up to a timeout.

use crate::error::RunError;
use std::os::fd::AsRawFd;

pub struct RunLock {
    _file: std::fs::File,
}

fn path() -> std::path::PathBuf {
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

impl RunLock {
    /// Takes the lock, waiting up to `timeout`.
    pub fn acquire(timeout: std::time::Duration) -> Result<RunLock, RunError> {
        let p = path();
        let f = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&p)
            .map_err(|e| RunError::system(format!("opening the run lock {}", p.display()), e))?;
        let start = std::time::Instant::now();
        loop {
            // SAFETY: a valid open descriptor.
            if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
                return Ok(RunLock { _file: f });
            }
            if start.elapsed() > timeout {
                return Err(RunError::Busy(format!(
                    "another schedlab run holds {} (waited {:?})",
                    p.display(),
                    timeout
                )));
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}
