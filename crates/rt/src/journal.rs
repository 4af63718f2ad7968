//! The crash journal: what a run changed on the machine, written to disk
//! *before* each change, so that what a killed run (SIGKILL, a crash, a
//! power-cut of the process) left behind is put back by the next run or by
//! `schedlab restore`.
//!
//! One file per run, `/run/schedlab/PID.journal` (see [`dir`]): a header line naming the run (PID and its
//! start time in clock ticks since boot, from `/proc/PID/stat`, so a
//! recycled PID is not mistaken for the run), then one JSON line per change
//! with the original state, appended and `fsync`ed before the change is
//! made. The restore guard ([`crate::guard`]) writes it; a run that ends
//! normally (or is stopped by a signal it handles) undoes its changes and
//! removes its journal.
//!
//! A journal whose run is gone is a dead run's: [`restore_dead`] undoes its
//! changes, last first, each only if the machine still shows it (a file
//! still different from its original, a directory still present, a file
//! system still mounted), reports what it did, and removes the journal once
//! everything is undone. Thread classes and affinities are journalled too,
//! but a dead run's threads died with it: nothing of them is left to undo.

use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The journal directory: `$SCHEDLAB_JOURNAL_DIR`, else `/run/schedlab`
/// when this user may write there (root), else
/// `$TMPDIR/schedlab-journal-UID` (a user running with CAP_SYS_NICE only,
/// whose changes are its own threads' classes).
pub fn dir() -> PathBuf {
    if let Some(d) = std::env::var_os("SCHEDLAB_JOURNAL_DIR") {
        return d.into();
    }
    let run = Path::new("/run/schedlab");
    let usable = if run.is_dir() {
        crate::privilege::writable(run)
    } else {
        Path::new("/run").is_dir() && crate::privilege::writable(Path::new("/run"))
    };
    if usable {
        run.to_path_buf()
    } else {
        // SAFETY: getuid has no failure mode.
        std::env::temp_dir().join(format!("schedlab-journal-{}", unsafe { libc::getuid() }))
    }
}

/// One journalled change: the original state, enough to undo it without
/// the process that made it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "change", rename_all = "kebab-case")]
pub enum Entry {
    /// A thread of the run got a new class or affinity.
    Thread { tid: i32 },
    /// `path` was overwritten; `original` is what it held.
    File { path: PathBuf, original: String },
    /// Directory `path` was created (a cpuset or a tracefs instance); tasks
    /// still in it are moved to `evacuate` (a cgroup tasks file) first.
    Dir { path: PathBuf, tasks_file: Option<String>, evacuate: Option<PathBuf> },
    /// A file system was mounted on `path`.
    Mount { path: PathBuf },
    /// A resctrl group (cache allocation) was created at `path`.
    CacheGroup { path: PathBuf },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Head {
    schedlab_journal: u32,
    pid: i32,
    /// Field 22 of `/proc/PID/stat` (clock ticks after boot).
    start: u64,
}

/// The journal of the running process.
#[derive(Debug)]
pub struct Journal {
    file: std::fs::File,
    path: PathBuf,
}

fn start_time(pid: i32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces and parentheses: fields
    // after it start behind the last ')'.
    let rest = &s[s.rfind(')')? + 1..];
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// Is the process that wrote a journal still running (the same process,
/// not a later one with a recycled PID)?
fn alive(pid: i32, start: u64) -> bool {
    start_time(pid) == Some(start)
}

fn sync_dir(d: &Path) {
    if let Ok(f) = std::fs::File::open(d) {
        let _ = f.sync_all();
    }
}

impl Journal {
    /// Creates this process's journal (the directory too, mode 0700).
    pub fn create() -> std::io::Result<Journal> {
        let d = dir();
        {
            use std::os::unix::fs::DirBuilderExt;
            std::fs::DirBuilder::new().recursive(true).mode(0o700).create(&d)?;
        }
        let pid = std::process::id() as i32;
        let path = d.join(format!("{pid}.journal"));
        let file = std::fs::OpenOptions::new().create(true).write(true).truncate(true).open(&path)?;
        let mut j = Journal { file, path };
        let head = Head { schedlab_journal: 1, pid, start: start_time(pid).unwrap_or(0) };
        j.line(&serde_json::to_string(&head).expect("serialisable"))?;
        sync_dir(&d);
        Ok(j)
    }

    fn line(&mut self, s: &str) -> std::io::Result<()> {
        self.file.write_all(format!("{s}\n").as_bytes())?;
        self.file.sync_data()
    }

    /// Appends one change and waits until it is on disk (call before making it).
    pub fn append(&mut self, e: &Entry) -> std::io::Result<()> {
        self.line(&serde_json::to_string(e).expect("serialisable"))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Everything was undone: the journal is no longer needed.
    pub fn remove(self) {
        let _ = std::fs::remove_file(&self.path);
        sync_dir(&dir());
    }
}

/// What was done about one dead run's journal.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Restored {
    /// The dead run's PID.
    pub pid: i32,
    pub journal: PathBuf,
    /// What was put back, one line each (empty: the run had left nothing).
    pub actions: Vec<String>,
    /// What could not be put back (the journal is kept for the next try).
    pub errors: Vec<String>,
}

/// A journal found in the directory.
struct Found {
    path: PathBuf,
    head: Option<Head>,
    entries: Vec<Entry>,
}

fn read(path: &Path) -> std::io::Result<Found> {
    let text = std::fs::read_to_string(path)?;
    let mut lines = text.lines();
    let head = lines.next().and_then(|l| serde_json::from_str::<Head>(l).ok());
    // A line cut short by the crash was never followed by its change: skip it.
    let entries = lines.filter_map(|l| serde_json::from_str::<Entry>(l).ok()).collect();
    Ok(Found { path: path.to_path_buf(), head, entries })
}

fn journals(d: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(d)
        .map(|rd| rd.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "journal")).collect())
        .unwrap_or_default();
    v.sort();
    v
}

/// PIDs of live runs that have a journal (other than this process).
pub fn live_runs() -> Vec<i32> {
    let me = std::process::id() as i32;
    journals(&dir())
        .iter()
        .filter_map(|p| read(p).ok()?.head)
        .filter(|h| h.pid != me && alive(h.pid, h.start))
        .map(|h| h.pid)
        .collect()
}

/// Undoes one change of a dead run if the machine still shows it:
/// `Ok(Some(what was done))`, `Ok(None)` when there was nothing to undo.
fn undo_dead(e: &Entry) -> Result<Option<String>, String> {
    match e {
        Entry::Thread { .. } => Ok(None),
        Entry::File { path, original } => {
            let now = match std::fs::read_to_string(path) {
                Ok(s) => s.trim_end().to_string(),
                // Gone with a directory that was removed: nothing to put back.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
                Err(e) => return Err(format!("{}: {e}", path.display())),
            };
            // cgroup v2's `cgroup.subtree_control` reads as a list, its original as "-cpuset".
            if now == *original || (original.starts_with('-') && !now.split_whitespace().any(|c| c == &original[1..])) {
                return Ok(None);
            }
            std::fs::write(path, original).map_err(|e| format!("{}: write `{original}`: {e}", path.display()))?;
            Ok(Some(format!("{}: `{now}` -> `{original}`", path.display())))
        }
        Entry::Dir { path, tasks_file, evacuate } => {
            if !path.exists() {
                return Ok(None);
            }
            crate::guard::remove_dir(path, tasks_file.as_deref(), evacuate.as_deref())?;
            Ok(Some(format!("removed {}", path.display())))
        }
        Entry::Mount { path } => {
            if !crate::guard::mounted(path) {
                return Ok(None);
            }
            crate::guard::unmount(path)?;
            Ok(Some(format!("unmounted {}", path.display())))
        }
        Entry::CacheGroup { path } => {
            if !path.exists() {
                return Ok(None);
            }
            crate::colour::resctrl::remove_group(path)?;
            Ok(Some(format!("removed resctrl group {}", path.display())))
        }
    }
}

/// Restores what every dead run left behind (see the module
/// documentation), oldest journal first. Journals of live runs are left
/// alone. Call with the run lock held, before changing anything.
pub fn restore_dead() -> Vec<Restored> {
    restore_dead_in(&dir())
}

pub(crate) fn restore_dead_in(d: &Path) -> Vec<Restored> {
    let me = std::process::id() as i32;
    let mut out = Vec::new();
    for p in journals(d) {
        let f = match read(&p) {
            Ok(f) => f,
            Err(e) => {
                out.push(Restored {
                    journal: p.clone(),
                    errors: vec![format!("{}: {e}", p.display())],
                    ..Default::default()
                });
                continue;
            }
        };
        let pid = f.head.as_ref().map_or(0, |h| h.pid);
        if let Some(h) = &f.head {
            if h.pid == me || alive(h.pid, h.start) {
                continue;
            }
        }
        let mut r = Restored { pid, journal: f.path.clone(), ..Default::default() };
        for e in f.entries.iter().rev() {
            match undo_dead(e) {
                Ok(Some(a)) => r.actions.push(a),
                Ok(None) => {}
                Err(e) => r.errors.push(e),
            }
        }
        if r.errors.is_empty() {
            let _ = std::fs::remove_file(&f.path);
        }
        out.push(r);
    }
    sync_dir(d);
    out
}

/// `schedlab restore`: takes the run lock (a live run holding it is an
/// error naming its PID, or with `wait` is waited for), then
/// [`restore_dead`].
pub fn restore(wait: bool) -> Result<Vec<Restored>, crate::RunError> {
    let _lock = crate::lock::RunLock::acquire(wait)?;
    Ok(restore_dead())
}

impl Restored {
    /// One line for the user.
    pub fn render(&self) -> String {
        let what = if self.actions.is_empty() {
            "it had left nothing to restore".to_string()
        } else {
            format!("restored {}", self.actions.join("; "))
        };
        let mut s = format!("schedlab run {} ended without restoring the machine: {what}", self.pid);
        if !self.errors.is_empty() {
            s.push_str(&format!(
                "; could not restore: {} (journal kept: {})",
                self.errors.join("; "),
                self.journal.display()
            ));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_time_reads_past_a_command_name_with_spaces() {
        let me = std::process::id() as i32;
        assert!(start_time(me).is_some_and(|t| t > 0));
        assert!(alive(me, start_time(me).unwrap()));
        assert!(!alive(me, start_time(me).unwrap() + 1), "a recycled PID is not the run");
    }

    #[test]
    fn a_dead_runs_journal_is_undone_last_first_and_removed() {
        let base = std::env::temp_dir().join(format!("schedlab-journal-test-{}", std::process::id()));
        let jdir = base.join("journal");
        std::fs::create_dir_all(&jdir).unwrap();
        let setting = base.join("setting");
        std::fs::write(&setting, "0\n").unwrap();
        let made = base.join("made");
        std::fs::create_dir(&made).unwrap();
        let untouched = base.join("never-created");
        // A run that wrote `setting` (from 1) and created `made`, then died.
        // PID i32::MAX is never a live process; a torn last line is skipped.
        let lines = [
            serde_json::to_string(&Head { schedlab_journal: 1, pid: i32::MAX, start: 0 }).unwrap(),
            serde_json::to_string(&Entry::File { path: setting.clone(), original: "1".into() }).unwrap(),
            serde_json::to_string(&Entry::Dir { path: made.clone(), tasks_file: None, evacuate: None }).unwrap(),
            serde_json::to_string(&Entry::Dir { path: untouched.clone(), tasks_file: None, evacuate: None }).unwrap(),
            serde_json::to_string(&Entry::Thread { tid: 1 }).unwrap(),
            "{\"change\":\"fi".to_string(),
        ];
        let jpath = jdir.join("2147483647.journal");
        std::fs::write(&jpath, lines.join("\n")).unwrap();
        let r = restore_dead_in(&jdir);
        assert_eq!(r.len(), 1, "{r:?}");
        assert_eq!(r[0].pid, i32::MAX);
        assert!(r[0].errors.is_empty(), "{r:?}");
        assert_eq!(
            r[0].actions,
            vec![format!("removed {}", made.display()), format!("{}: `0` -> `1`", setting.display())],
            "last change first; nothing for what was never made or for threads"
        );
        assert_eq!(std::fs::read_to_string(&setting).unwrap(), "1");
        assert!(!made.exists());
        assert!(!jpath.exists(), "the journal is removed once everything is undone");
        std::fs::remove_dir_all(&base).unwrap();
    }
}
