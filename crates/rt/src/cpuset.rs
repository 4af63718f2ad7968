//! Exclusive cpuset partitions for P-EDF and C-EDF on SCHED_DEADLINE: one
//! partition per scheduling domain, each its own root domain, so the
//! kernel's deadline scheduler (global within a root domain) runs EDF per
//! CPU or per cluster. Created under `schedlab-PID` and removed after the
//! run (the restore guard moves any thread still inside out first).
//!
//! - **cgroup v1** (detected from `/proc/mounts`, a `cgroup` mount with the
//!   `cpuset` option): children with `cpuset.cpu_exclusive = 1`, and
//!   `cpuset.sched_load_balance = 0` in the root and in schedlab's parent
//!   (the root's old value is restored), so each child forms a root domain.
//!   While the run lasts, tasks left in the root cpuset are not balanced
//!   across the partitions.
//! - **cgroup v2** (a `cgroup2` mount whose `cgroup.controllers` lists
//!   `cpuset`): `+cpuset` in the parent's `cgroup.subtree_control`,
//!   threaded children (`cgroup.type = threaded`, threads join through
//!   `cgroup.threads`) with `cpuset.cpus.partition = root`.

use crate::control_file::{io, write};
use crate::error::RunError;
use crate::guard::Guard;
use crate::sched::format_cpu_list;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CpusetFs {
    V1 { root: PathBuf },
    V2 { root: PathBuf },
}

impl CpusetFs {
    pub fn root(&self) -> &Path {
        match self {
            CpusetFs::V1 { root } | CpusetFs::V2 { root } => root,
        }
    }
    pub fn version(&self) -> u32 {
        match self {
            CpusetFs::V1 { .. } => 1,
            CpusetFs::V2 { .. } => 2,
        }
    }
    /// The file a thread id is written to, to move the thread into a cgroup.
    pub fn tasks_file(&self) -> &'static str {
        match self {
            CpusetFs::V1 { .. } => "tasks",
            CpusetFs::V2 { .. } => "cgroup.threads",
        }
    }
}

/// Finds the cpuset hierarchy (v1 preferred when both are mounted, since
/// the cpuset controller can be bound to one hierarchy only).
pub fn detect() -> Option<CpusetFs> {
    let mounts = std::fs::read_to_string("/proc/mounts").ok()?;
    let mut v2 = None;
    for l in mounts.lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() < 4 {
            continue;
        }
        if f[2] == "cgroup" && f[3].split(',').any(|o| o == "cpuset") {
            return Some(CpusetFs::V1 { root: PathBuf::from(f[1]) });
        }
        if f[2] == "cgroup2" {
            let ctl = std::fs::read_to_string(Path::new(f[1]).join("cgroup.controllers")).unwrap_or_default();
            if ctl.split_whitespace().any(|c| c == "cpuset") {
                v2 = Some(CpusetFs::V2 { root: PathBuf::from(f[1]) });
            }
        }
    }
    v2
}

/// The partitions of one run.
#[derive(Debug)]
pub struct Partitions {
    pub fs: CpusetFs,
    pub parent: PathBuf,
    /// One per domain, in domain order.
    pub children: Vec<PathBuf>,
}

/// Creates one exclusive partition per entry of `domains`.
pub fn create(fs: &CpusetFs, guard: &Guard, domains: &[Vec<u32>]) -> Result<Partitions, RunError> {
    let root = fs.root().to_path_buf();
    let parent = root.join(format!("schedlab-{}", std::process::id()));
    let all: Vec<u32> = domains.iter().flatten().copied().collect();
    let evacuate = Some(root.join(fs.tasks_file()));
    let mut children = Vec::new();
    match fs {
        CpusetFs::V1 { .. } => {
            let mems = std::fs::read_to_string(root.join("cpuset.mems"))
                .map_err(|e| io("read", &root.join("cpuset.mems"), e))?
                .trim()
                .to_string();
            guard.mkdir(&parent, Some("tasks"), evacuate.clone()).map_err(|e| io("create cpuset", &parent, e))?;
            write(&parent.join("cpuset.cpus"), &format_cpu_list(&all))?;
            write(&parent.join("cpuset.mems"), &mems)?;
            write(&parent.join("cpuset.cpu_exclusive"), "1")?;
            write(&parent.join("cpuset.sched_load_balance"), "0")?;
            for (i, d) in domains.iter().enumerate() {
                let c = parent.join(format!("d{i}"));
                guard.mkdir(&c, Some("tasks"), evacuate.clone()).map_err(|e| io("create cpuset", &c, e))?;
                write(&c.join("cpuset.cpus"), &format_cpu_list(d))?;
                write(&c.join("cpuset.mems"), &mems)?;
                write(&c.join("cpuset.cpu_exclusive"), "1")?;
                write(&c.join("cpuset.sched_load_balance"), "1")?;
                children.push(c);
            }
            // Last: the root stops balancing across the partitions (restored first).
            guard
                .write(root.join("cpuset.sched_load_balance"), "0")
                .map_err(|e| io("write", &root.join("cpuset.sched_load_balance"), e))?;
        }
        CpusetFs::V2 { .. } => {
            let ctl = root.join("cgroup.subtree_control");
            let cur = std::fs::read_to_string(&ctl).unwrap_or_default();
            if !cur.split_whitespace().any(|c| c == "cpuset") {
                guard
                    .record(crate::guard::Undo::File { path: ctl.clone(), original: "-cpuset".into() })
                    .map_err(|e| io("journal", &ctl, e))?;
                write(&ctl, "+cpuset")?;
            }
            guard
                .mkdir(&parent, Some("cgroup.threads"), evacuate.clone())
                .map_err(|e| io("create cgroup", &parent, e))?;
            write(&parent.join("cpuset.cpus"), &format_cpu_list(&all))?;
            write(&parent.join("cgroup.subtree_control"), "+cpuset")?;
            for (i, d) in domains.iter().enumerate() {
                let c = parent.join(format!("d{i}"));
                guard.mkdir(&c, Some("cgroup.threads"), evacuate.clone()).map_err(|e| io("create cgroup", &c, e))?;
                write(&c.join("cgroup.type"), "threaded")?;
                write(&c.join("cpuset.cpus"), &format_cpu_list(d))?;
                write(&c.join("cpuset.cpus.partition"), "root")?;
                let state = std::fs::read_to_string(c.join("cpuset.cpus.partition")).unwrap_or_default();
                if !state.trim().starts_with("root") {
                    return Err(RunError::System(format!(
                        "{}: the kernel did not make it a partition root ({})",
                        c.display(),
                        state.trim()
                    )));
                }
                children.push(c);
            }
        }
    }
    Ok(Partitions { fs: fs.clone(), parent, children })
}

impl Partitions {
    /// Moves thread `tid` into partition `domain`.
    pub fn attach(&self, domain: usize, tid: i32) -> Result<(), RunError> {
        write(&self.children[domain].join(self.fs.tasks_file()), &tid.to_string())
    }
}

/// schedlab cpusets left on the machine (for checks: none after a run).
pub fn leftovers() -> Vec<PathBuf> {
    let Some(fs) = detect() else { return Vec::new() };
    std::fs::read_dir(fs.root())
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("schedlab-")))
                .collect()
        })
        .unwrap_or_default()
}
