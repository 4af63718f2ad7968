//! Cache allocation (Intel RDT CAT / AMD PQoS L3 allocation) through the
//! resctrl file system: what this machine offers, the L3 capacity bit
//! masks a run's colour groups get, and programming them for the run.
//!
//! One resctrl control group per colour group of the run (tasks whose
//! `colors` overlap, transitively); tasks without `colors` stay in the
//! default group, whose schemata is left as it is. A group's mask is
//! contiguous (CAT requires it), sized in proportion to the colours its
//! tasks use out of the cache's colours, at least `info/L3/min_cbm_bits`
//! wide, and disjoint from the other groups' masks. The masks are laid
//! out from the low end of the longest run of `cbm_mask` bits outside
//! `shareable_bits` (ways other agents, such as I/O, may also fill); only
//! when that run is too short for every group's minimum is the whole mask
//! used, with a note. When the ways or the CLOSIDs do not last for one
//! disjoint mask per group, the run is refused before anything is changed
//! (exit 2, naming the groups' tasks): overlapping masks would not give
//! the partition the colours ask for.
//!
//! Each group is `ROOT/schedlab-PID-gK`, journalled before it is created
//! (so a killed run's groups are removed by the next run or `schedlab
//! restore`); its `schemata` gets one `L3:<domain>=<mask>` entry for every
//! L3 domain of the default group's schemata; the job threads' TIDs are
//! written to its `tasks` when the workers start. Removing a group (rmdir)
//! moves its threads back to the default group.
//!
//! Everything takes the resctrl root as a parameter (default
//! `/sys/fs/resctrl`) and is tested on a fake tree; no machine this
//! project is tested on has resctrl, so on real hardware it is untested.

use crate::guard::{Guard, Undo};
use schedlab_admission::colour::groups;
use schedlab_model::ColorSet;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The resctrl root of a stock kernel.
pub const ROOT: &str = "/sys/fs/resctrl";

/// `statfs` magic of the resctrl file system (`RDTGROUP_SUPER_MAGIC`).
const RESCTRL_MAGIC: i64 = 0x7655821;

/// L3 allocation as resctrl offers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct L3 {
    pub root: PathBuf,
    /// `info/L3/cbm_mask`: every way.
    pub cbm_mask: u64,
    /// `info/L3/min_cbm_bits`.
    pub min_cbm_bits: u32,
    /// `info/L3/shareable_bits`: ways other agents may use too.
    pub shareable_bits: u64,
    /// `info/L3/num_closids`, the default group's included.
    pub num_closids: u32,
    /// The L3 domain ids of the default group's schemata.
    pub domains: Vec<String>,
}

/// What resctrl offers here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resctrl {
    L3(L3),
    /// Not usable, and why.
    Absent(String),
}

/// One resctrl group of a run: a colour group and its mask.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatGroup {
    /// Directory name under the root (`schedlab-PID-gK`).
    pub name: String,
    /// Task indices.
    pub tasks: Vec<usize>,
    /// Task names (for messages).
    pub names: Vec<String>,
    /// Colours its tasks use.
    pub colours: u64,
    pub mask: u64,
}

/// The run's groups and masks, decided before anything is changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Allocation {
    pub root: PathBuf,
    pub domains: Vec<String>,
    /// Colours of the cache the shares are taken of.
    pub total_colours: u64,
    pub groups: Vec<CatGroup>,
    /// Remarks (e.g. masks overlapping the shareable bits).
    pub notes: Vec<String>,
}

fn hex(p: &Path) -> Result<u64, String> {
    let s = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
    u64::from_str_radix(s.trim(), 16).map_err(|_| format!("{} holds `{}`, not a hex mask", p.display(), s.trim()))
}

fn dec(p: &Path, default: u32) -> Result<u32, String> {
    match std::fs::read_to_string(p) {
        Ok(s) => s.trim().parse().map_err(|_| format!("{} holds `{}`, not a number", p.display(), s.trim())),
        Err(_) => Ok(default),
    }
}

/// The L3 domain ids of a schemata file's `L3:` line (`L3:0=7ff;1=7ff`).
fn domains(schemata: &str) -> Vec<String> {
    schemata
        .lines()
        .map(str::trim)
        .find_map(|l| l.strip_prefix("L3:"))
        .map(|l| l.split(';').filter_map(|d| Some(d.split_once('=')?.0.trim().to_string())).collect())
        .unwrap_or_default()
}

impl Resctrl {
    pub fn detect() -> Resctrl {
        Resctrl::detect_at(Path::new(ROOT))
    }

    pub fn detect_at(root: &Path) -> Resctrl {
        if !root.is_dir() {
            let cpu = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
            let flag = cpu.split_whitespace().any(|f| f == "cat_l3" || f == "rdt_a");
            return Resctrl::Absent(if flag {
                format!(
                    "{} is not mounted (the CPU has cat_l3/rdt_a: `mount -t resctrl resctrl {}`)",
                    root.display(),
                    root.display()
                )
            } else {
                format!(
                    "{} does not exist and the CPU shows no cat_l3/rdt_a flag: no cache allocation on this machine",
                    root.display()
                )
            });
        }
        let info = root.join("info/L3");
        if !info.join("cbm_mask").exists() {
            return Resctrl::Absent(format!(
                "{} is mounted without L3 allocation ({} missing)",
                root.display(),
                info.join("cbm_mask").display()
            ));
        }
        let read = || -> Result<L3, String> {
            let schemata = root.join("schemata");
            let text = std::fs::read_to_string(&schemata).map_err(|e| format!("{}: {e}", schemata.display()))?;
            let domains = domains(&text);
            if domains.is_empty() {
                return Err(format!("{} has no `L3:` line", schemata.display()));
            }
            Ok(L3 {
                root: root.to_path_buf(),
                cbm_mask: hex(&info.join("cbm_mask"))?,
                min_cbm_bits: dec(&info.join("min_cbm_bits"), 1)?.max(1),
                shareable_bits: if info.join("shareable_bits").exists() {
                    hex(&info.join("shareable_bits"))?
                } else {
                    0
                },
                num_closids: dec(&info.join("num_closids"), 1)?,
                domains,
            })
        };
        match read() {
            Ok(l3) => Resctrl::L3(l3),
            Err(e) => Resctrl::Absent(e),
        }
    }

    /// One line for the run's report (when nothing was allocated).
    pub fn describe(&self) -> String {
        match self {
            Resctrl::L3(l) => format!(
                "cache allocation (resctrl): {} offers L3 allocation ({} ways, {} CLOSIDs); no task has colours to allocate",
                l.root.display(),
                l.cbm_mask.count_ones(),
                l.num_closids
            ),
            Resctrl::Absent(why) => format!("cache allocation (resctrl): {why}"),
        }
    }
}

/// The longest run of contiguous set bits of `m`: (lowest bit, length).
fn longest_run(m: u64) -> (u32, u32) {
    let (mut best, mut len, mut start) = ((0, 0), 0u32, 0u32);
    for b in 0..64 {
        if m >> b & 1 == 1 {
            if len == 0 {
                start = b;
            }
            len += 1;
            if len > best.1 {
                best = (start, len);
            }
        } else {
            len = 0;
        }
    }
    best
}

fn list(g: &CatGroup) -> String {
    g.names.join(", ")
}

/// One colour group: its tasks (indices and names) and the colours they use.
pub struct ColourGroup {
    pub tasks: Vec<usize>,
    pub names: Vec<String>,
    pub colours: u64,
}

/// The colour groups of tasks with colours (`(index, name, colours)`,
/// colours already reduced to the cache's): tasks sharing a colour,
/// transitively, in order of their first task — admission's colour groups
/// (the ones CAP places), each with the number of colours it uses.
pub fn colour_groups(tasks: &[(usize, String, Vec<u32>)]) -> Vec<ColourGroup> {
    let sets: Vec<ColorSet> =
        tasks.iter().map(|(_, _, cs)| ColorSet::from_ranges(cs.iter().map(|&c| (c, c)).collect())).collect();
    let refs: Vec<&ColorSet> = sets.iter().collect();
    groups::colour_groups(&refs)
        .into_iter()
        .map(|members| {
            let colours: std::collections::BTreeSet<u32> =
                members.iter().flat_map(|&k| tasks[k].2.iter().copied()).collect();
            ColourGroup {
                tasks: members.iter().map(|&k| tasks[k].0).collect(),
                names: members.iter().map(|&k| tasks[k].1.clone()).collect(),
                colours: colours.len() as u64,
            }
        })
        .collect()
}

/// The allocation for `spec`'s tasks with `colors` (taken modulo the
/// cache's `colours`, as page colouring takes them); tasks without stay in
/// the default group.
pub fn for_spec(spec: &schedlab_model::Spec, colours: u64, l3: &L3, run: u32) -> Result<Allocation, String> {
    let n = colours.max(1);
    let coloured: Vec<(usize, String, Vec<u32>)> = spec
        .tasks
        .iter()
        .enumerate()
        .filter_map(|(i, t)| {
            let cs = t.colors.as_ref()?;
            let mut v: Vec<u32> = cs.iter().map(|c| (c as u64 % n) as u32).collect();
            v.sort_unstable();
            v.dedup();
            Some((i, t.name.clone(), v))
        })
        .collect();
    allocate(l3, colour_groups(&coloured), n, run)
}

/// schedlab's resctrl groups under `root` (for checks: none after a run).
pub fn leftovers(root: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir() && p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("schedlab-")))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// Decides each colour group's mask (see the module documentation).
/// An error (the run's bad input on this machine) names the groups' tasks.
pub fn allocate(l3: &L3, groups: Vec<ColourGroup>, total_colours: u64, run: u32) -> Result<Allocation, String> {
    let n = groups.len() as u32;
    let named =
        |gs: &[ColourGroup]| gs.iter().map(|g| format!("[{}]", g.names.join(", "))).collect::<Vec<_>>().join(" ");
    if n >= l3.num_closids.max(1) {
        return Err(format!(
            "cache allocation: the run has {n} colour groups ({}), one resctrl group each, and {}/info/L3/num_closids allows {} besides the default group; give tasks fewer distinct colour groups (tasks sharing a colour share a group), or unmount resctrl to rely on page colouring alone",
            named(&groups),
            l3.root.display(),
            l3.num_closids.saturating_sub(1)
        ));
    }
    let min = l3.min_cbm_bits.max(1);
    let mut notes = Vec::new();
    let (mut lo, mut ways) = longest_run(l3.cbm_mask & !l3.shareable_bits);
    if ways < n * min {
        let (l, w) = longest_run(l3.cbm_mask);
        if l3.shareable_bits & l3.cbm_mask != 0 && w >= n * min {
            notes.push(format!(
                "the ways outside shareable_bits ({:#x}) are too few for {n} groups: the masks include ways other agents may fill",
                l3.shareable_bits
            ));
        }
        (lo, ways) = (l, w);
    }
    if ways < n * min {
        return Err(format!(
            "cache allocation: the run has {n} colour groups ({}), each needing at least {min} ways (info/L3/min_cbm_bits) in a mask of its own, {} in all, and {}/info/L3/cbm_mask ({:#x}) has {ways}; give tasks fewer distinct colour groups, or unmount resctrl to rely on page colouring alone",
            named(&groups),
            n * min,
            l3.root.display(),
            l3.cbm_mask
        ));
    }
    let total = total_colours.max(1);
    let mut sizes: Vec<u32> =
        groups.iter().map(|g| ((ways as u64 * g.colours.min(total)) / total).max(min as u64) as u32).collect();
    // The minimum may push the sum over: take from the widest above the minimum.
    while sizes.iter().sum::<u32>() > ways {
        let (k, _) = sizes
            .iter()
            .enumerate()
            .filter(|(_, &s)| s > min)
            .max_by_key(|(k, &s)| (s, usize::MAX - k))
            .expect("n * min fits");
        sizes[k] -= 1;
    }
    let mut at = lo;
    let mut out = Vec::new();
    for (k, (g, s)) in groups.into_iter().zip(sizes).enumerate() {
        let mask = if s >= 64 { u64::MAX } else { ((1u64 << s) - 1) << at };
        at += s;
        out.push(CatGroup {
            name: format!("schedlab-{run}-g{k}"),
            tasks: g.tasks,
            names: g.names,
            colours: g.colours,
            mask,
        });
    }
    Ok(Allocation { root: l3.root.clone(), domains: l3.domains.clone(), total_colours: total, groups: out, notes })
}

impl Allocation {
    /// The schemata a group is given: its mask on every L3 domain.
    pub fn schemata(&self, g: &CatGroup) -> String {
        let d: Vec<String> = self.domains.iter().map(|d| format!("{d}={:x}", g.mask)).collect();
        format!("L3:{}\n", d.join(";"))
    }

    /// Creates the groups (each journalled first) and moves the job
    /// threads in (`tids` by task index).
    pub fn program(&self, guard: &Guard, tids: &[i32]) -> Result<(), crate::RunError> {
        let sys = |what: String, e: std::io::Error| crate::RunError::system(what, e);
        for g in &self.groups {
            let d = self.root.join(&g.name);
            if d.exists() {
                return Err(crate::RunError::System(format!(
                    "cache allocation: {} exists already and is not this run's; remove it (`schedlab restore`, or rmdir)",
                    d.display()
                )));
            }
            guard
                .record(Undo::CacheGroup { path: d.clone() })
                .map_err(|e| sys("journalling a resctrl group".into(), e))?;
            std::fs::create_dir(&d).map_err(|e| sys(format!("creating resctrl group {}", d.display()), e))?;
            let schemata = self.schemata(g);
            write_file(&d.join("schemata"), &schemata, false)
                .map_err(|e| sys(format!("writing `{}` to {}/schemata", schemata.trim(), d.display()), e))?;
            for &t in &g.tasks {
                let Some(&tid) = tids.get(t).filter(|&&t| t > 0) else { continue };
                write_file(&d.join("tasks"), &format!("{tid}\n"), true)
                    .map_err(|e| sys(format!("moving thread {tid} into {}/tasks", d.display()), e))?;
            }
        }
        Ok(())
    }

    /// The report's lines.
    pub fn lines(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .groups
            .iter()
            .map(|g| {
                format!(
                    "cache allocation (resctrl): {} for tasks {} ({} of {} colours): L3 mask {:#x} ({} ways) on domains {}",
                    self.root.join(&g.name).display(),
                    list(g),
                    g.colours,
                    self.total_colours,
                    g.mask,
                    g.mask.count_ones(),
                    self.domains.join(",")
                )
            })
            .collect();
        v.extend(self.notes.iter().map(|n| format!("cache allocation (resctrl): {n}")));
        v.push("cache allocation (resctrl): tasks without colours stay in the default group; the groups are removed when the run ends".into());
        v
    }

    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "root": self.root,
            "domains": self.domains,
            "groups": self.groups.iter().map(|g| serde_json::json!({
                "name": g.name, "tasks": g.tasks, "colours": g.colours, "mask": format!("{:x}", g.mask),
            })).collect::<Vec<_>>(),
            "notes": self.notes,
        })
    }
}

/// Writes a control file: created when absent (a test tree), appended for
/// `tasks` (the kernel takes one TID per write).
fn write_file(p: &Path, s: &str, append: bool) -> std::io::Result<()> {
    let mut f = std::fs::OpenOptions::new().create(true).write(true).append(append).truncate(!append).open(p)?;
    f.write_all(s.as_bytes())
}

fn on_resctrl(p: &Path) -> bool {
    let Ok(c) = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()) else { return false };
    // SAFETY: a valid path and a zeroed statfs buffer.
    let mut s: libc::statfs = unsafe { std::mem::zeroed() };
    (unsafe { libc::statfs(c.as_ptr(), &mut s) } == 0) && s.f_type as i64 == RESCTRL_MAGIC
}

/// Removes a resctrl group (the kernel moves its threads back to the
/// default group). Outside resctrl (a test tree) the directory's plain
/// files, which the kernel would drop with it, are removed first.
pub(crate) fn remove_group(path: &Path) -> Result<(), String> {
    if !path.exists() {
        return Ok(());
    }
    if !on_resctrl(path) {
        if let Ok(rd) = std::fs::read_dir(path) {
            for e in rd.flatten().filter(|e| e.file_type().is_ok_and(|t| t.is_file())) {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
    std::fs::remove_dir(path).map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A resctrl tree as the kernel lays it out, in a temp dir.
    struct Fake(PathBuf);

    impl Fake {
        fn new(tag: &str, cbm: &str, min: u32, shareable: &str, closids: u32, domains: &[u32]) -> Fake {
            let d = std::env::temp_dir().join(format!("schedlab-resctrl-{tag}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&d);
            std::fs::create_dir_all(d.join("info/L3")).unwrap();
            for (f, v) in [
                ("cbm_mask", cbm.to_string()),
                ("min_cbm_bits", min.to_string()),
                ("shareable_bits", shareable.to_string()),
                ("num_closids", closids.to_string()),
            ] {
                std::fs::write(d.join("info/L3").join(f), format!("{v}\n")).unwrap();
            }
            let l: Vec<String> = domains.iter().map(|x| format!("{x}={cbm}")).collect();
            std::fs::write(d.join("schemata"), format!("    L3:{}\n", l.join(";"))).unwrap();
            std::fs::write(d.join("tasks"), "1\n").unwrap();
            Fake(d)
        }

        fn l3(&self) -> L3 {
            match Resctrl::detect_at(&self.0) {
                Resctrl::L3(l) => l,
                r => panic!("{r:?}"),
            }
        }
    }

    impl Drop for Fake {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn group(tasks: &[usize], colours: u64) -> ColourGroup {
        ColourGroup { tasks: tasks.to_vec(), names: tasks.iter().map(|t| format!("t{t}")).collect(), colours }
    }

    fn contiguous(m: u64) -> bool {
        m != 0 && (m >> m.trailing_zeros()).count_ones() == 64 - (m >> m.trailing_zeros()).leading_zeros()
    }

    #[test]
    fn a_mounted_resctrl_reports_its_geometry_and_a_missing_one_says_why() {
        let d = std::env::temp_dir().join(format!("schedlab-resctrl-{}", std::process::id()));
        assert!(
            matches!(Resctrl::detect_at(&d), Resctrl::Absent(w) if w.contains("does not exist") || w.contains("not mounted"))
        );
        std::fs::create_dir_all(d.join("info/L3")).unwrap();
        assert!(matches!(Resctrl::detect_at(&d), Resctrl::Absent(w) if w.contains("without L3")));
        std::fs::remove_dir_all(&d).unwrap();
        let f = Fake::new("detect", "7ff", 2, "600", 16, &[0, 1]);
        assert_eq!(
            f.l3(),
            L3 {
                root: f.0.clone(),
                cbm_mask: 0x7ff,
                min_cbm_bits: 2,
                shareable_bits: 0x600,
                num_closids: 16,
                domains: vec!["0".into(), "1".into()]
            }
        );
    }

    #[test]
    fn colour_groups_join_tasks_sharing_colours_transitively() {
        let t = |i: usize, c: &[u32]| (i, format!("t{i}"), c.to_vec());
        let g = colour_groups(&[t(0, &[0, 1]), t(2, &[5]), t(3, &[1, 2]), t(5, &[2, 3]), t(6, &[9])]);
        let got: Vec<(Vec<usize>, u64)> = g.iter().map(|g| (g.tasks.clone(), g.colours)).collect();
        assert_eq!(got, vec![(vec![0, 3, 5], 4), (vec![2], 1), (vec![6], 1)]);
    }

    /// Masks proportional to the colours used, at least min_cbm_bits,
    /// contiguous, disjoint, outside the shareable bits.
    #[test]
    fn masks_are_sized_by_colours_contiguous_and_disjoint() {
        // 20 ways, the top 2 shareable; 64 colours.
        let f = Fake::new("sizes", "fffff", 2, "c0000", 16, &[0, 1]);
        let a = allocate(&f.l3(), vec![group(&[0, 1], 32), group(&[2], 16), group(&[3], 1)], 64, 7).unwrap();
        let m: Vec<u64> = a.groups.iter().map(|g| g.mask).collect();
        // 18 usable ways: 32/64 -> 9, 16/64 -> 4, 1/64 -> 0, raised to 2.
        assert_eq!(m, vec![0x1ff, 0x1e00, 0x6000]);
        for (i, x) in m.iter().enumerate() {
            assert!(contiguous(*x), "{x:#x}");
            assert_eq!(x & 0xc0000, 0, "no shareable way");
            for y in &m[i + 1..] {
                assert_eq!(x & y, 0, "{x:#x} and {y:#x} overlap");
            }
        }
        assert_eq!(a.groups[0].name, "schedlab-7-g0");
        assert!(a.notes.is_empty());
        // The minimum pushes the sum over: the widest gives way.
        let f = Fake::new("squeeze", "ff", 2, "0", 16, &[0]);
        let a = allocate(&f.l3(), vec![group(&[0], 63), group(&[1], 1)], 64, 1).unwrap();
        let m: Vec<u64> = a.groups.iter().map(|g| g.mask).collect();
        assert_eq!(m, vec![0x3f, 0xc0]);
        // Too few ways outside the shareable bits: the whole mask, with a note.
        let f = Fake::new("share", "ff", 2, "f0", 16, &[0]);
        let a = allocate(&f.l3(), vec![group(&[0], 1), group(&[1], 1), group(&[2], 1)], 64, 1).unwrap();
        assert!(a.notes[0].contains("shareable_bits"), "{:?}", a.notes);
        assert!(a.groups.iter().all(|g| contiguous(g.mask)));
    }

    #[test]
    fn too_few_ways_or_closids_refuse_the_run_naming_the_tasks() {
        let f = Fake::new("few", "f", 2, "0", 16, &[0]);
        let e = allocate(&f.l3(), vec![group(&[0], 1), group(&[1, 4], 1), group(&[2], 1)], 64, 1).unwrap_err();
        assert!(e.contains("[t1, t4]") && e.contains("min_cbm_bits") && e.contains("has 4"), "{e}");
        let f = Fake::new("closids", "fffff", 1, "0", 3, &[0]);
        let e = allocate(&f.l3(), vec![group(&[0], 1), group(&[1], 1), group(&[2], 1)], 64, 1).unwrap_err();
        assert!(e.contains("num_closids allows 2") && e.contains("[t2]"), "{e}");
    }

    /// A spec's tasks with colours become groups, those without stay out;
    /// a spec with more colour groups than ways is refused naming its tasks.
    #[test]
    fn a_specs_coloured_tasks_get_the_groups_and_the_rest_stay_out() {
        let spec = |tasks: &str| {
            schedlab_model::load_str(
                &format!("platform: {{cpus: 2, cache: {{size: 1MiB, ways: 16, line: 64B}}}}\npolicy: {{name: gfp}}\ntasks:\n{tasks}"),
                None,
                "t.yaml",
            )
            .unwrap_or_else(|e| panic!("{e}"))
            .spec
        };
        let s = spec(
            "  - {name: a, wcet: 1ms, period: 10ms, colors: [0-3]}\n  - {name: free, wcet: 1ms, period: 10ms}\n  - {name: b, wcet: 1ms, period: 10ms, colors: [3-5]}\n  - {name: c, wcet: 1ms, period: 10ms, colors: [8-15]}\n",
        );
        let f = Fake::new("spec", "ffff", 1, "0", 16, &[0]);
        let a = for_spec(&s, 16, &f.l3(), 3).unwrap();
        let got: Vec<(Vec<usize>, u64, u64)> = a.groups.iter().map(|g| (g.tasks.clone(), g.colours, g.mask)).collect();
        // a and b share colour 3: 6 of 16 colours -> 6 ways; c 8 -> 8 ways.
        assert_eq!(got, vec![(vec![0, 2], 6, 0x3f), (vec![3], 8, 0x3fc0)]);
        let f = Fake::new("spec-few", "3", 2, "0", 16, &[0]);
        let e = for_spec(&s, 16, &f.l3(), 3).unwrap_err();
        assert!(e.contains("[a, b]") && e.contains("[c]") && !e.contains("free"), "{e}");
    }

    /// Programming writes every domain and the TIDs; the guard removes the
    /// groups; a killed run's journal entry removes what it left.
    #[test]
    fn programmed_groups_are_removed_by_the_guard_and_by_a_dead_runs_journal() {
        let f = Fake::new("program", "fff", 1, "0", 16, &[0, 1, 3]);
        let a = allocate(&f.l3(), vec![group(&[0, 2], 64), group(&[1], 32)], 128, 9).unwrap();
        let guard = Guard::new();
        a.program(&guard, &[101, 102, 103]).unwrap();
        assert_eq!(leftovers(&f.0), vec![f.0.join("schedlab-9-g0"), f.0.join("schedlab-9-g1")]);
        let d0 = f.0.join("schedlab-9-g0");
        assert_eq!(std::fs::read_to_string(d0.join("schemata")).unwrap(), "L3:0=3f;1=3f;3=3f\n");
        assert_eq!(std::fs::read_to_string(d0.join("tasks")).unwrap(), "101\n103\n");
        assert_eq!(std::fs::read_to_string(f.0.join("schedlab-9-g1/schemata")).unwrap(), "L3:0=1c0;1=1c0;3=1c0\n");
        assert_eq!(guard.pending(), 2);
        assert!(guard.restore().is_empty());
        assert!(!d0.exists() && !f.0.join("schedlab-9-g1").exists(), "cleanup removes every group");
        assert!(leftovers(&f.0).is_empty());
        assert_eq!(std::fs::read_to_string(f.0.join("tasks")).unwrap(), "1\n", "the default group is untouched");
        // A run killed after creating its group: its journal removes it.
        let jdir = f.0.join("journal");
        std::fs::create_dir(&jdir).unwrap();
        std::fs::create_dir(&d0).unwrap();
        std::fs::write(d0.join("schemata"), "L3:0=3f\n").unwrap();
        let lines = [
            r#"{"schedlab_journal":1,"pid":2147483647,"start":0}"#.to_string(),
            serde_json::to_string(&crate::journal::Entry::CacheGroup { path: d0.clone() }).unwrap(),
        ];
        std::fs::write(jdir.join("2147483647.journal"), lines.join("\n")).unwrap();
        let r = crate::journal::restore_dead_in(&jdir);
        assert_eq!(r.len(), 1);
        assert!(r[0].errors.is_empty(), "{r:?}");
        assert_eq!(r[0].actions, vec![format!("removed resctrl group {}", d0.display())]);
        assert!(!d0.exists());
        assert!(!jdir.join("2147483647.journal").exists());
    }
}
