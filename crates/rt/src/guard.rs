//! The restore guard: every change a run makes to the machine is recorded
//! here *before* it is made, with what undoes it, and undone in reverse
//! order exactly once — on normal exit, on error, on SIGINT / SIGTERM (the
//! signal thread), after a panicking job body, and when the guard is dropped
//! during an unwinding panic of the run itself.
//!
//! What is recorded: thread scheduling classes and affinities, files written
//! (cpuset flags, `/proc/sys` settings, tracefs settings), directories
//! created (cpusets, tracefs instances; tasks still inside a cpuset are
//! moved to a fallback cpuset first), resctrl groups created (cache
//! allocation), and file systems mounted.
//!
//! A run's guard is journalled ([`Guard::journalled`]): each change is also
//! appended to the crash journal ([`crate::journal`]) and on disk before it
//! is made, so a run killed before it could restore is restored by the next
//! run or `schedlab restore`. The journal is removed once all is undone.

use crate::journal::{Entry, Journal};
use crate::sched::{self, CpuSet, SchedAttr};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// One recorded change and how to undo it.
#[derive(Debug)]
pub enum Undo {
    /// A thread of this process got a new class or affinity: put back `attr`
    /// and `affinity` (only while the thread still belongs to this process).
    Thread { tid: i32, attr: SchedAttr, affinity: CpuSet },
    /// A file was overwritten: write `original` back.
    File { path: PathBuf, original: String },
    /// A directory was created: move the tasks still in it to `evacuate`
    /// (a cgroup `tasks` / `cgroup.threads` file), then remove it.
    Dir { path: PathBuf, tasks_file: Option<String>, evacuate: Option<PathBuf> },
    /// A file system was mounted: unmount it.
    Mount { path: PathBuf },
    /// A resctrl group was created: remove it (its threads go back to the
    /// default group).
    CacheGroup { path: PathBuf },
}

/// The guard (shared by the run, its signal thread and its watchdog).
#[derive(Debug, Default)]
pub struct Guard {
    undo: Mutex<Vec<Undo>>,
    journal: Mutex<Option<Journal>>,
    restored: AtomicBool,
}

impl Undo {
    fn entry(&self) -> Entry {
        match self {
            Undo::Thread { tid, .. } => Entry::Thread { tid: *tid },
            Undo::File { path, original } => Entry::File { path: path.clone(), original: original.clone() },
            Undo::Dir { path, tasks_file, evacuate } => {
                Entry::Dir { path: path.clone(), tasks_file: tasks_file.clone(), evacuate: evacuate.clone() }
            }
            Undo::Mount { path } => Entry::Mount { path: path.clone() },
            Undo::CacheGroup { path } => Entry::CacheGroup { path: path.clone() },
        }
    }
}

impl Guard {
    /// A guard in memory only (undone by this process, not after a crash).
    pub fn new() -> Guard {
        Guard::default()
    }

    /// A guard that also journals every change to disk before it is made
    /// (`/run/schedlab/PID.journal`).
    pub fn journalled() -> std::io::Result<Guard> {
        let g = Guard::default();
        *g.journal.lock().unwrap_or_else(|p| p.into_inner()) = Some(Journal::create()?);
        Ok(g)
    }

    /// The journal file, when journalled.
    pub fn journal_path(&self) -> Option<PathBuf> {
        self.journal.lock().unwrap_or_else(|p| p.into_inner()).as_ref().map(|j| j.path().to_path_buf())
    }

    /// Records a change before it is made (journalled first, when the guard
    /// has a journal: a change that cannot be journalled must not be made).
    pub fn record(&self, u: Undo) -> std::io::Result<()> {
        if let Some(j) = self.journal.lock().unwrap_or_else(|p| p.into_inner()).as_mut() {
            j.append(&u.entry())?;
        }
        self.undo.lock().unwrap_or_else(|p| p.into_inner()).push(u);
        Ok(())
    }

    /// Records thread `tid`'s current class and affinity (call before changing them).
    pub fn record_thread(&self, tid: i32) -> std::io::Result<()> {
        let attr = sched::get_attr(tid)?;
        let affinity = sched::get_affinity(tid)?;
        self.record(Undo::Thread { tid, attr, affinity })
    }

    /// Writes `value` to `path`, recording the old content first. A write
    /// of the value already there is not recorded.
    pub fn write(&self, path: impl AsRef<Path>, value: &str) -> std::io::Result<()> {
        let path = path.as_ref();
        let original = std::fs::read_to_string(path)?.trim_end().to_string();
        if original == value {
            return Ok(());
        }
        self.record(Undo::File { path: path.to_path_buf(), original })?;
        std::fs::write(path, value)
    }

    /// Creates directory `path`, recording its removal.
    pub fn mkdir(
        &self,
        path: impl AsRef<Path>,
        tasks_file: Option<&str>,
        evacuate: Option<PathBuf>,
    ) -> std::io::Result<()> {
        let path = path.as_ref();
        if path.exists() {
            // Not ours: never recorded, so never removed.
            return Err(std::io::Error::from(std::io::ErrorKind::AlreadyExists));
        }
        self.record(Undo::Dir { path: path.to_path_buf(), tasks_file: tasks_file.map(String::from), evacuate })?;
        std::fs::create_dir(path)
    }

    /// Has the guard already restored everything?
    pub fn is_restored(&self) -> bool {
        self.restored.load(Ordering::SeqCst)
    }

    /// How many changes are recorded and not yet undone.
    pub fn pending(&self) -> usize {
        self.undo.lock().unwrap_or_else(|p| p.into_inner()).len()
    }

    /// Undoes every recorded change, last first. Safe to call more than once
    /// and from any thread; the changes are undone once. Returns what could
    /// not be undone.
    pub fn restore(&self) -> Vec<String> {
        let list = std::mem::take(&mut *self.undo.lock().unwrap_or_else(|p| p.into_inner()));
        let mut errors = Vec::new();
        for u in list.into_iter().rev() {
            if let Err(e) = undo(&u) {
                errors.push(e);
            }
        }
        if errors.is_empty() {
            if let Some(j) = self.journal.lock().unwrap_or_else(|p| p.into_inner()).take() {
                j.remove();
            }
        }
        self.restored.store(true, Ordering::SeqCst);
        errors
    }

    /// Demotes every recorded thread that is still alive to its original
    /// class at once (the watchdog's first action), keeping the records.
    pub fn demote_threads(&self) {
        let list = self.undo.lock().unwrap_or_else(|p| p.into_inner());
        for u in list.iter() {
            if let Undo::Thread { tid, attr, .. } = u {
                if own_thread(*tid) {
                    let _ = sched::set_attr(*tid, attr);
                }
            }
        }
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        for e in self.restore() {
            eprintln!("schedlab: could not restore: {e}");
        }
    }
}

/// Does `tid` still name a thread of this process (not a recycled id)?
pub fn own_thread(tid: i32) -> bool {
    Path::new(&format!("/proc/self/task/{tid}")).exists()
}

fn undo(u: &Undo) -> Result<(), String> {
    match u {
        Undo::Thread { tid, attr, affinity } => {
            if !own_thread(*tid) {
                return Ok(());
            }
            // Class first (a SCHED_DEADLINE thread cannot change affinity).
            match sched::set_attr(*tid, attr) {
                Ok(()) => {}
                Err(e) if e.raw_os_error() == Some(libc::ESRCH) => return Ok(()),
                Err(e) => return Err(format!("thread {tid}: scheduling class: {e}")),
            }
            match sched::set_affinity(*tid, affinity) {
                Ok(()) => Ok(()),
                Err(e) if e.raw_os_error() == Some(libc::ESRCH) => Ok(()),
                Err(e) => Err(format!("thread {tid}: affinity: {e}")),
            }
        }
        Undo::File { path, original } => std::fs::write(path, original).map_err(|e| format!("{}: {e}", path.display())),
        Undo::Dir { path, tasks_file, evacuate } => {
            if !path.exists() {
                return Ok(());
            }
            remove_dir(path, tasks_file.as_deref(), evacuate.as_deref())
        }
        Undo::Mount { path } => unmount(path),
        Undo::CacheGroup { path } => crate::colour::resctrl::remove_group(path),
    }
}

/// Removes a directory the run created; for a cgroup, moves the tasks
/// still inside (a hung or panicked worker) to `evacuate` first.
pub(crate) fn remove_dir(path: &Path, tasks_file: Option<&str>, evacuate: Option<&Path>) -> Result<(), String> {
    if let (Some(f), Some(to)) = (tasks_file, evacuate) {
        for _ in 0..3 {
            let Ok(list) = std::fs::read_to_string(path.join(f)) else { break };
            let ids: Vec<&str> = list.split_whitespace().collect();
            if ids.is_empty() {
                break;
            }
            for id in ids {
                let _ = std::fs::write(to, id);
            }
        }
    }
    let mut last = None;
    for _ in 0..50 {
        match std::fs::remove_dir(path) {
            Ok(()) => return Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            // A cgroup with exiting tasks is briefly busy.
            Err(e) => last = Some(e),
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    Err(format!("{}: {}", path.display(), last.map(|e| e.to_string()).unwrap_or_default()))
}

/// Is a file system mounted on `path`?
pub(crate) fn mounted(path: &Path) -> bool {
    std::fs::read_to_string("/proc/mounts")
        .map(|m| m.lines().any(|l| l.split_whitespace().nth(1).is_some_and(|p| Path::new(p) == path)))
        .unwrap_or(false)
}

/// Unmounts a file system the run mounted (nothing to do when it is not mounted).
pub(crate) fn unmount(path: &Path) -> Result<(), String> {
    if !mounted(path) {
        return Ok(());
    }
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).map_err(|e| e.to_string())?;
    // SAFETY: valid NUL-terminated path.
    let r = unsafe { libc::umount(c.as_ptr()) };
    if r == 0 {
        Ok(())
    } else {
        Err(format!("unmount {}: {}", path.display(), std::io::Error::last_os_error()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn files_are_restored_in_reverse_order_once() {
        let dir = std::env::temp_dir().join(format!("schedlab-guard-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("setting");
        std::fs::write(&f, "1\n").unwrap();
        let g = Guard::new();
        g.write(&f, "0").unwrap();
        g.write(&f, "2").unwrap();
        g.mkdir(dir.join("sub"), None, None).unwrap();
        assert_eq!(g.pending(), 3);
        assert!(g.restore().is_empty());
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "1");
        assert!(!dir.join("sub").exists());
        assert!(g.restore().is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
