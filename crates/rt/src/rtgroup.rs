//! Reservations on the kernel backend (policy `hcbs`): each group of the
//! spec's `reservations:` tree becomes a cgroup with Linux's RT group scheduling
//! (`cpu.rt_runtime_us` every `cpu.rt_period_us`, `CONFIG_RT_GROUP_SCHED`),
//! its tasks SCHED_FIFO inside — the mechanism the OSPERT 2009 H-CBS paper
//! reinterpreted (notes `seed-003-ospert.md` §2).
//!
//! What Linux does with it: per CPU, each group has a run queue with the
//! budget `rt_runtime_us` every `rt_period_us` (replicated on every CPU, as
//! an H-CBS reservation); a group whose queue used its budget is throttled
//! until its period timer refills it; groups are ordered among themselves
//! by the priority of their highest-priority task (not by server deadlines,
//! as H-CBS orders its servers by EDF); an idle group lends unused runtime
//! to the others (`RT_RUNTIME_SHARE`, off by default since 5.x). Groups
//! nest: a child's bandwidth counts against its parent's, and the kernel
//! refuses a tree whose children need more than their parent
//! (`tg_rt_schedulable`). A group with subgroups and tasks of its own gets
//! its leaf queue as a child cgroup `leaf` with `leaf_budget` every
//! `leaf_period`.
//!
//! Created under `schedlab-PID` in the `cpu` hierarchy (cgroup v1; cgroup
//! v2 only where its root has `cpu.rt_runtime_us`, which mainline v2 does
//! not expose), parent first, each directory journalled before it is made
//! (the restore guard removes them, children first, moving threads still
//! inside to the root). The `schedlab-PID` cgroup holds the sum of its
//! children's bandwidth (every 1 s); a new cgroup starts with no runtime,
//! so each gets its period, then its runtime, before a thread joins.
//!
//! Linux takes one budget for all CPUs: a spec with per-CPU `budgets` that
//! differ is refused (exit 2), as are durations that are not whole
//! microseconds.

use crate::control_file::{io, write};
use crate::error::RunError;
use crate::guard::Guard;
use schedlab_model::Spec;
use std::path::{Path, PathBuf};

/// Where RT group scheduling is configured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RtGroupFs {
    pub root: PathBuf,
    pub version: u32,
}

impl RtGroupFs {
    /// The file a thread id is written to.
    pub fn tasks_file(&self) -> &'static str {
        if self.version == 1 {
            "tasks"
        } else {
            "cgroup.threads"
        }
    }
}

/// Finds the `cpu` controller with `cpu.rt_runtime_us`, or says why there is none.
pub fn detect() -> Result<RtGroupFs, String> {
    let mounts = std::fs::read_to_string("/proc/mounts").map_err(|e| format!("reading /proc/mounts: {e}"))?;
    let mut seen = Vec::new();
    for l in mounts.lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() < 4 {
            continue;
        }
        let v = match f[2] {
            "cgroup" if f[3].split(',').any(|o| o == "cpu") => 1,
            "cgroup2" => 2,
            _ => continue,
        };
        let root = PathBuf::from(f[1]);
        if root.join("cpu.rt_runtime_us").exists() {
            return Ok(RtGroupFs { root, version: v });
        }
        seen.push(format!("{} (cgroup v{v})", root.display()));
    }
    Err(if seen.is_empty() {
        "no cgroup hierarchy with the cpu controller is mounted; mount one (`mount -t cgroup -o cpu cgroup /sys/fs/cgroup/cpu`)".into()
    } else {
        format!(
            "no cpu.rt_runtime_us in {}: the kernel has no RT group scheduling there (CONFIG_RT_GROUP_SCHED, and on cgroup v2 a kernel that exposes it)",
            seen.join(", ")
        )
    })
}

/// One cgroup to create.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cgroup {
    /// The spec's group (`video`) or leaf queue (`video/leaf`).
    pub name: String,
    /// Path relative to the run's `schedlab-PID` cgroup, e.g. `video/leaf`.
    pub rel: PathBuf,
    pub runtime_us: u64,
    pub period_us: u64,
    /// Tasks (indices) that join it.
    pub tasks: Vec<usize>,
    /// The spec path of the group, for messages.
    pub at: String,
}

impl Cgroup {
    /// Bandwidth runtime / period.
    pub fn bandwidth(&self) -> f64 {
        self.runtime_us as f64 / self.period_us as f64
    }
}

fn whole_us(ns: u64, at: &str) -> Result<u64, String> {
    if !ns.is_multiple_of(1000) {
        return Err(format!(
            "{at}: {ns} ns is not a whole number of microseconds, which is what cpu.rt_runtime_us / cpu.rt_period_us take; round it"
        ));
    }
    Ok(ns / 1000)
}

/// The cgroups for `spec`'s reservations, parents before children (empty
/// without reservations). Errors name the group's field.
pub fn cgroups_of(spec: &Spec) -> Result<Vec<Cgroup>, String> {
    let nodes = spec.reservation_nodes();
    let mut out: Vec<Cgroup> = Vec::new();
    let mut rel_of: Vec<PathBuf> = Vec::new();
    for n in &nodes {
        let first = n.budgets.first().copied().unwrap_or_default();
        if let Some((c, b)) = n.budgets.iter().enumerate().find(|(_, b)| **b != first) {
            return Err(format!(
                "{}.budgets: Linux's RT group scheduling gives a group one budget on every CPU, but CPU {c} has {b} and CPU 0 {first}; give one `budget`, or run on --backend dispatch",
                n.path
            ));
        }
        if first.0 == 0 {
            return Err(format!(
                "{}: a budget of 0 gives the group no CPU time, and Linux refuses SCHED_FIFO threads in a group without runtime; give it a budget",
                n.path
            ));
        }
        let rel = match n.parent {
            Some(p) => rel_of[p].join(&n.name),
            None => PathBuf::from(&n.name),
        };
        rel_of.push(rel.clone());
        let at = n.path.clone();
        let runtime_us = whole_us(first.0, &format!("{at}.budget"))?;
        let period_us = whole_us(n.period.0, &format!("{at}.period"))?;
        match n.leaf {
            Some(l) => {
                out.push(Cgroup {
                    name: n.name.clone(),
                    rel: rel.clone(),
                    runtime_us,
                    period_us,
                    tasks: vec![],
                    at: at.clone(),
                });
                out.push(Cgroup {
                    name: format!("{}/leaf", n.name),
                    rel: rel.join("leaf"),
                    runtime_us: whole_us(l.budget.0, &format!("{at}.leaf_budget"))?,
                    period_us: whole_us(l.period.0, &format!("{at}.leaf_period"))?,
                    tasks: n.tasks.clone(),
                    at: format!("{at}.leaf_budget"),
                });
            }
            None => out.push(Cgroup { name: n.name.clone(), rel, runtime_us, period_us, tasks: n.tasks.clone(), at }),
        }
    }
    Ok(out)
}

/// The `schedlab-PID` cgroup's runtime every 1 s: the sum of the
/// top-level groups' bandwidth, rounded up.
fn top_runtime_us(groups: &[Cgroup]) -> u64 {
    let sum: f64 = groups.iter().filter(|g| g.rel.components().count() == 1).map(|g| g.bandwidth()).sum();
    (sum * 1e6).ceil() as u64
}

/// Checks, before anything is touched, that the kernel will take the
/// groups: the run's bandwidth fits in what the root leaves (its
/// `cpu.rt_runtime_us / cpu.rt_period_us` less its other children's).
pub fn check_capacity(fs: &RtGroupFs, groups: &[Cgroup]) -> Result<(), String> {
    let read = |p: &Path| std::fs::read_to_string(p).ok().and_then(|s| s.trim().parse::<i64>().ok());
    let rr = read(&fs.root.join("cpu.rt_runtime_us")).unwrap_or(-1);
    let rp = read(&fs.root.join("cpu.rt_period_us")).unwrap_or(1_000_000);
    if rr < 0 {
        return Ok(());
    }
    let mut others = 0.0;
    let mut named = Vec::new();
    if let Ok(rd) = std::fs::read_dir(&fs.root) {
        // A schedlab run's groups are gone before this run starts: a live
        // run holds the run lock until it removed them, a dead run's are
        // removed from its journal first.
        for e in rd
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .filter(|e| !e.file_name().to_string_lossy().starts_with("schedlab-"))
        {
            let (r, p) = (read(&e.path().join("cpu.rt_runtime_us")), read(&e.path().join("cpu.rt_period_us")));
            if let (Some(r), Some(p)) = (r, p) {
                if r > 0 && p > 0 {
                    others += r as f64 / p as f64;
                    named.push(format!("{} {r}/{p}", e.file_name().to_string_lossy()));
                }
            }
        }
    }
    let need = top_runtime_us(groups) as f64 / 1e6;
    let cap = rr as f64 / rp as f64 - others;
    if need > cap + 1e-9 {
        return Err(format!(
            "the reservations need {need:.4} of each CPU, and the kernel has {cap:.4} left for RT groups ({} cpu.rt_runtime_us {rr} / cpu.rt_period_us {rp}{}); lower the budgets",
            fs.root.display(),
            if named.is_empty() { String::new() } else { format!(", less other groups: {}", named.join(", ")) }
        ));
    }
    // Each group's children within its own bandwidth (the spec's validation
    // checks the same exactly; here with the microsecond values written).
    for g in groups {
        let kids: f64 = groups.iter().filter(|c| c.rel.parent() == Some(g.rel.as_path())).map(|c| c.bandwidth()).sum();
        if kids > g.bandwidth() + 1e-9 {
            return Err(format!(
                "{}: its subgroups need {kids:.4} of each CPU, more than its {:.4}; the kernel would refuse them",
                g.at,
                g.bandwidth()
            ));
        }
    }
    Ok(())
}

/// The groups of one run.
#[derive(Debug)]
pub struct Groups {
    pub fs: RtGroupFs,
    pub parent: PathBuf,
    pub groups: Vec<Cgroup>,
}

/// Gives a fresh cgroup its period, then its runtime.
fn set_bandwidth(d: &Path, runtime_us: u64, period_us: u64) -> Result<(), RunError> {
    write(&d.join("cpu.rt_period_us"), &period_us.to_string())?;
    write(&d.join("cpu.rt_runtime_us"), &runtime_us.to_string())
}

/// Creates the cgroups (journalled), parents first.
pub fn create(fs: &RtGroupFs, guard: &Guard, groups: &[Cgroup]) -> Result<Groups, RunError> {
    let parent = fs.root.join(format!("schedlab-{}", std::process::id()));
    let evacuate = Some(fs.root.join(fs.tasks_file()));
    guard.mkdir(&parent, Some(fs.tasks_file()), evacuate.clone()).map_err(|e| io("create cgroup", &parent, e))?;
    set_bandwidth(&parent, top_runtime_us(groups), 1_000_000)?;
    for g in groups {
        let d = parent.join(&g.rel);
        guard.mkdir(&d, Some(fs.tasks_file()), evacuate.clone()).map_err(|e| io("create cgroup", &d, e))?;
        set_bandwidth(&d, g.runtime_us, g.period_us)?;
    }
    Ok(Groups { fs: fs.clone(), parent, groups: groups.to_vec() })
}

impl Groups {
    /// The cgroup task `task` joins, if any.
    pub fn of_task(&self, task: usize) -> Option<&Cgroup> {
        self.groups.iter().find(|g| g.tasks.contains(&task))
    }

    /// Moves thread `tid` of task `task` into its group (none: stays where it is).
    pub fn attach(&self, task: usize, tid: i32) -> Result<(), RunError> {
        match self.of_task(task) {
            Some(g) => write(&self.parent.join(&g.rel).join(self.fs.tasks_file()), &tid.to_string()),
            None => Ok(()),
        }
    }
}

/// How this kernel enforces RT group budgets: deadline servers for RT
/// groups (the hierarchical CBS posted for mainline in 2025) where its
/// symbols are present, else RT bandwidth throttling.
pub fn enforcement() -> String {
    let syms = std::fs::read_to_string("/proc/kallsyms").unwrap_or_default();
    let has = |s: &str| syms.lines().any(|l| l.split_whitespace().nth(2).is_some_and(|n| n.contains(s)));
    if has("rt_server_pick") || has("dl_server_rt") {
        "RT groups are served by deadline servers (the kernel's hierarchical CBS): the same cpu.rt_* files configure them".into()
    } else if has("fair_server_init") {
        "RT groups are throttled by RT bandwidth control (no deadline servers for RT groups in this kernel; its deadline server is the fair server, for SCHED_OTHER)".into()
    } else {
        "RT groups are throttled by RT bandwidth control (no deadline servers in this kernel)".into()
    }
}

/// schedlab RT groups left on the machine (for checks: none after a run).
pub fn leftovers() -> Vec<PathBuf> {
    let Ok(fs) = detect() else { return Vec::new() };
    std::fs::read_dir(&fs.root)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("schedlab-")))
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(y: &str) -> Spec {
        schedlab_model::load_str(y, None, "t.yaml").unwrap_or_else(|e| panic!("{e}")).spec
    }

    #[test]
    fn groups_become_cgroups_parents_first_with_their_leaf() {
        let s = spec(
            "platform: {cpus: 2}\npolicy: {name: gfp}\ntasks:\n  - {name: a, wcet: 1ms, period: 10ms}\n  - {name: b, wcet: 1ms, period: 10ms}\n  - {name: c, wcet: 1ms, period: 10ms}\nreservations:\n  - {name: top, budget: 6ms, period: 10ms, tasks: [a], leaf_budget: 2ms, groups: [{name: sub, budget: 3ms, period: 10ms, tasks: [b]}]}\n",
        );
        let g = cgroups_of(&s).unwrap();
        let names: Vec<(&str, String, u64, u64, Vec<usize>)> = g
            .iter()
            .map(|c| (c.name.as_str(), c.rel.display().to_string(), c.runtime_us, c.period_us, c.tasks.clone()))
            .collect();
        assert_eq!(
            names,
            [
                ("top", "top".into(), 6000, 10000, vec![]),
                ("top/leaf", "top/leaf".into(), 2000, 10000, vec![0]),
                ("sub", "top/sub".into(), 3000, 10000, vec![1]),
            ]
        );
        assert_eq!(top_runtime_us(&g), 600_000);
    }

    #[test]
    fn per_cpu_budgets_that_differ_and_fractions_of_a_microsecond_are_refused() {
        let s = spec(
            "platform: {cpus: 2}\npolicy: {name: gfp}\ntasks:\n  - {name: a, wcet: 1ms, period: 10ms}\nreservations:\n  - {name: g, budgets: [2ms, 3ms], period: 10ms, tasks: [a]}\n",
        );
        let e = cgroups_of(&s).unwrap_err();
        assert!(e.starts_with("reservations[0].budgets:") && e.contains("CPU 1"), "{e}");
        let s = spec(
            "platform: {cpus: 1}\npolicy: {name: gfp}\ntasks:\n  - {name: a, wcet: 1ms, period: 10ms}\nreservations:\n  - {name: g, budget: 2500ns, period: 10ms, tasks: [a]}\n",
        );
        let e = cgroups_of(&s).unwrap_err();
        assert!(e.starts_with("reservations[0].budget:") && e.contains("microseconds"), "{e}");
    }

    #[test]
    fn capacity_counts_the_roots_other_groups() {
        let d = std::env::temp_dir().join(format!("schedlab-rtg-{}", std::process::id()));
        std::fs::create_dir_all(d.join("other")).unwrap();
        std::fs::write(d.join("cpu.rt_runtime_us"), "950000\n").unwrap();
        std::fs::write(d.join("cpu.rt_period_us"), "1000000\n").unwrap();
        std::fs::write(d.join("other/cpu.rt_runtime_us"), "500000\n").unwrap();
        std::fs::write(d.join("other/cpu.rt_period_us"), "1000000\n").unwrap();
        let fs = RtGroupFs { root: d.clone(), version: 1 };
        let g = |r: u64| {
            vec![Cgroup {
                name: "g".into(),
                rel: "g".into(),
                runtime_us: r,
                period_us: 10_000,
                tasks: vec![],
                at: "reservations[0]".into(),
            }]
        };
        assert!(check_capacity(&fs, &g(4000)).is_ok());
        let e = check_capacity(&fs, &g(5000)).unwrap_err();
        assert!(e.contains("0.5000") && e.contains("0.4500") && e.contains("other 500000/1000000"), "{e}");
        // A schedlab run's groups do not count: they are removed before the run.
        std::fs::create_dir_all(d.join("schedlab-1")).unwrap();
        std::fs::write(d.join("schedlab-1/cpu.rt_runtime_us"), "400000\n").unwrap();
        std::fs::write(d.join("schedlab-1/cpu.rt_period_us"), "1000000\n").unwrap();
        assert!(check_capacity(&fs, &g(4000)).is_ok());
        std::fs::remove_dir_all(&d).unwrap();
    }
}
