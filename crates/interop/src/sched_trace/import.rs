//! sched_trace → schedlab trace. Two streaming passes over the per-CPU
//! files: the first collects the tasks (`name`, `param`, the first
//! `release` of each PID), the time zero and the horizon; the second merges
//! the files by time and converts the records to events. Memory holds the
//! tasks and the jobs in flight, never the records.

use super::{Kind, Record, RecordReader};
use crate::error::{At, InteropError};
use schedlab_model::{Duration, PolicySpec, Spec, Task};
use schedlab_trace::{Event, Header, Source, SwitchReason};
use std::collections::{BTreeMap, BinaryHeap, HashMap};
use std::fs::File;
use std::io::BufReader;
use std::path::PathBuf;

/// LITMUS^RT plugin names and the schedlab policy each one is.
pub const PLUGINS: &[(&str, &str)] =
    &[("GSN-EDF", "gedf"), ("PSN-EDF", "pedf"), ("P-FP", "pfp"), ("PFAIR", "pd2"), ("C-EDF", "cedf")];

/// The schedlab policy of a LITMUS^RT plugin name (case-insensitive), or a
/// schedlab policy name as it is.
pub fn plugin_policy(name: &str) -> Result<PolicySpec, InteropError> {
    let policy = PLUGINS.iter().find(|(p, _)| p.eq_ignore_ascii_case(name)).map(|(_, s)| *s).unwrap_or(name);
    serde_json::from_value(serde_json::json!({ "name": policy })).map_err(|_| {
        let known: Vec<String> = PLUGINS.iter().map(|(p, s)| format!("{p} ({s})")).collect();
        InteropError::usage(format!(
            "unknown LITMUS^RT plugin `{name}`; known plugins: {}; or give a schedlab policy name",
            known.join(", ")
        ))
    })
}

/// How to import.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The plugin (or schedlab policy) the trace was recorded under.
    pub policy: Option<PolicySpec>,
    /// The CPU count [default: the highest CPU in the records + 1].
    pub cpus: Option<u32>,
    /// Clusters of `cluster_size` consecutive CPUs (C-EDF).
    pub cluster_size: Option<u32>,
}

/// What the import did not carry over.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Stats {
    /// Records read, over all files.
    pub records: u64,
    /// Events written.
    pub events: u64,
    /// Records with no schedlab counterpart (`assigned`, `action`,
    /// `np-enter`, `np-exit`), by type.
    pub dropped: BTreeMap<String, u64>,
    /// Records before the time zero, or of LITMUS^RT's job 0 (before the
    /// task's first release).
    pub before_start: u64,
    /// `switch-away` records of a job that had already left the CPU (the
    /// one that follows a `completion`).
    pub redundant: u64,
}

struct TaskInfo {
    name: Option<String>,
    param: Option<super::Param>,
    first_release: Option<(u64, u64)>,
    at: u64,
    file: usize,
}

/// The scan of the files: the header, and what the second pass needs.
pub struct Scan {
    pub header: Header,
    files: Vec<(String, PathBuf)>,
    zero: u64,
    task_of: HashMap<u16, u32>,
}

fn open(file: &str, path: &PathBuf) -> Result<RecordReader<BufReader<File>>, InteropError> {
    let f = File::open(path).map_err(|e| InteropError::io(file, e))?;
    Ok(RecordReader::new(BufReader::with_capacity(1 << 16, f), file))
}

/// Pass 1: tasks, CPUs, time zero, horizon.
pub fn scan(files: &[PathBuf], opts: &Options) -> Result<Scan, InteropError> {
    if files.is_empty() {
        return Err(InteropError::usage("give the sched_trace files (st-*.bin, one per CPU)"));
    }
    let names: Vec<(String, PathBuf)> = files.iter().map(|p| (p.display().to_string(), p.clone())).collect();
    let mut tasks: BTreeMap<u16, TaskInfo> = BTreeMap::new();
    let mut max_cpu = 0u8;
    let mut sys_release: Option<u64> = None;
    let mut min_release: Option<u64> = None;
    let mut max_time = 0u64;
    let mut first_unknown: Option<(usize, u64, u16)> = None;
    for (fi, (file, path)) in names.iter().enumerate() {
        let mut r = open(file, path)?;
        while let Some((at, rec)) = r.next_record()? {
            max_cpu = max_cpu.max(rec.cpu);
            fn entry(tasks: &mut BTreeMap<u16, TaskInfo>, pid: u16, at: u64, file: usize) -> &mut TaskInfo {
                tasks.entry(pid).or_insert(TaskInfo { name: None, param: None, first_release: None, at, file })
            }
            match rec.kind {
                Kind::Name => entry(&mut tasks, rec.pid, at, fi).name = Some(rec.name()),
                Kind::Param => entry(&mut tasks, rec.pid, at, fi).param = Some(rec.param()),
                Kind::SysRelease => {
                    if sys_release.is_none() {
                        sys_release = Some(rec.second());
                    }
                }
                Kind::Release => {
                    let e = entry(&mut tasks, rec.pid, at, fi);
                    let (rel, dl) = (rec.when().unwrap_or(0), rec.second());
                    if rec.job > 0 && e.first_release.is_none_or(|(r0, _)| rel < r0) {
                        e.first_release = Some((rel, dl));
                    }
                    min_release = Some(min_release.map_or(rel, |m| m.min(rel)));
                }
                _ => {
                    if !tasks.contains_key(&rec.pid) && first_unknown.is_none() && rec.pid != 0 {
                        first_unknown = Some((fi, at, rec.pid));
                    }
                }
            }
            if let Some(t) = rec.when() {
                max_time = max_time.max(t);
            }
        }
    }
    for (pid, t) in &tasks {
        if t.param.is_none() {
            return Err(InteropError::at(
                &names[t.file].0,
                At::Byte(t.at),
                format!(
                    "PID {pid} has records but no `param` record in any file: its period and WCET are unknown \
                     (give every CPU's file of the recording)"
                ),
            ));
        }
    }
    if tasks.is_empty() {
        return Err(InteropError::file(
            &names[0].0,
            "no task in the recording: no `param` record in any of the files (is it a sched_trace recording?)",
        ));
    }
    let _ = first_unknown;
    let zero = sys_release.or(min_release).unwrap_or(0);
    let cpus = opts.cpus.unwrap_or(u32::from(max_cpu) + 1);
    let policy = opts.policy.clone();
    let mut spec_tasks = Vec::new();
    let mut task_of = HashMap::new();
    let mut used: HashMap<String, u32> = HashMap::new();
    for (i, (pid, t)) in tasks.iter().enumerate() {
        let p = t.param.expect("checked above");
        let base = t.name.clone().filter(|n| !n.is_empty()).unwrap_or_else(|| format!("pid{pid}"));
        let n = used.entry(base.clone()).or_insert(0);
        *n += 1;
        let name = if *n == 1 { base } else { format!("{base}-{pid}") };
        if p.period == 0 {
            return Err(InteropError::at(
                &names[t.file].0,
                At::Byte(t.at),
                format!("PID {pid} ({name}): its `param` record has period 0"),
            ));
        }
        let mut task = Task::new(name, Duration(u64::from(p.wcet)), Duration(u64::from(p.period)));
        if let Some((rel, dl)) = t.first_release {
            let rel_dl = dl.saturating_sub(rel);
            if rel_dl != u64::from(p.period) && rel_dl > 0 {
                task.deadline = Some(Duration(rel_dl));
            }
        }
        task.offset = Duration(u64::from(p.phase));
        task.class = match p.class {
            1 => schedlab_model::Class::Srt,
            2 => schedlab_model::Class::Be,
            _ => schedlab_model::Class::Hrt,
        };
        match policy.as_ref().map(|p| p.name.domains()) {
            Some(schedlab_model::spec::Domains::PerCpu) => task.cpu = Some(u32::from(p.partition)),
            Some(schedlab_model::spec::Domains::PerCluster) => task.cluster = Some(u32::from(p.partition)),
            _ => {}
        }
        task_of.insert(*pid, i as u32);
        spec_tasks.push(task);
    }
    let clusters = opts
        .cluster_size
        .filter(|&k| k > 0)
        .map(|k| (0..cpus).collect::<Vec<u32>>().chunks(k as usize).map(|c| c.to_vec()).collect::<Vec<Vec<u32>>>());
    let spec = Spec {
        meta: Some(schedlab_model::Meta {
            description: Some(format!("imported from LITMUS^RT sched_trace ({} files)", names.len())),
            ..Default::default()
        }),
        platform: schedlab_model::Platform { cpus, clusters, cache: None, memory: None },
        policy,
        overheads: None,
        reservations: None,
        mtt: None,
        tasks: spec_tasks,
    };
    let mut header = Header::new(spec, Source::Import, 0, max_time.saturating_sub(zero));
    header.clock = "litmus_clock".to_string();
    header.placement = crate::placement::of_spec(&header.spec);
    Ok(Scan { header, files: names, zero, task_of })
}

/// Merge order at equal times: departures, then the system release, then
/// releases and resumes, then switch-tos; then the CPU.
pub fn rank(kind: Kind) -> u8 {
    match kind {
        Kind::SwitchAway | Kind::Completion | Kind::Block => 0,
        Kind::SysRelease => 1,
        Kind::Release | Kind::Resume => 2,
        Kind::SwitchTo => 3,
        _ => 2,
    }
}

#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct Key {
    t: u64,
    rank: u8,
    cpu: u8,
    file: usize,
}

struct Head {
    key: Key,
    at: u64,
    rec: Record,
}

impl PartialEq for Head {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
    }
}
impl Eq for Head {}
impl PartialOrd for Head {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Head {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        o.key.cmp(&self.key) // min-heap
    }
}

fn next_timed<R: std::io::Read>(r: &mut RecordReader<R>, file: usize) -> Result<Option<Head>, InteropError> {
    while let Some((at, rec)) = r.next_record()? {
        if let Some(t) = rec.when() {
            return Ok(Some(Head { key: Key { t, rank: rank(rec.kind), cpu: rec.cpu, file }, at, rec }));
        }
    }
    Ok(None)
}

/// The state of a job on a CPU.
struct Running {
    cpu: u32,
    job: u64,
}

impl Scan {
    /// Pass 2: the events, in order, to `sink`.
    pub fn events(&self, sink: &mut dyn FnMut(Event) -> Result<(), InteropError>) -> Result<Stats, InteropError> {
        let mut readers = Vec::new();
        for (file, path) in &self.files {
            readers.push(open(file, path)?);
        }
        let mut heap = BinaryHeap::new();
        for (i, r) in readers.iter_mut().enumerate() {
            if let Some(h) = next_timed(r, i)? {
                heap.push(h);
            }
        }
        let mut stats = Stats::default();
        // Releases recorded ahead of their time wait here (keyed by time).
        let mut pending: BinaryHeap<std::cmp::Reverse<(u64, u32, u64, u64)>> = BinaryHeap::new();
        let mut running: HashMap<u16, Running> = HashMap::new();
        let mut blocking: HashMap<u16, u64> = HashMap::new();
        let mut last_t = 0u64;
        let mut emit = |ev: Event, stats: &mut Stats| -> Result<(), InteropError> {
            stats.events += 1;
            sink(ev)
        };
        loop {
            let head = heap.pop();
            // Flush the releases due before this record.
            while let Some(std::cmp::Reverse((t, task, job, deadline))) = pending.peek().copied() {
                let due = match &head {
                    Some(h) => {
                        let ht = h.key.t.saturating_sub(self.zero);
                        t < ht || (t == ht && h.key.rank >= 2)
                    }
                    None => true,
                };
                if !due {
                    break;
                }
                pending.pop();
                last_t = last_t.max(t);
                emit(Event::Release { t, task, job, deadline }, &mut stats)?;
            }
            let Some(h) = head else { break };
            let fi = h.key.file;
            if let Some(n) = next_timed(&mut readers[fi], fi)? {
                heap.push(n);
            }
            stats.records += 1;
            let rec = h.rec;
            let file = &self.files[fi].0;
            if h.key.t < self.zero {
                stats.before_start += 1;
                continue;
            }
            let t = h.key.t - self.zero;
            let task = || {
                self.task_of.get(&rec.pid).copied().ok_or_else(|| {
                    InteropError::at(
                        file,
                        At::Byte(h.at),
                        format!("`{}` record of PID {} which has no `param` record", rec.kind.name(), rec.pid),
                    )
                })
            };
            let needs_job = matches!(
                rec.kind,
                Kind::Release | Kind::SwitchTo | Kind::SwitchAway | Kind::Completion | Kind::Block | Kind::Resume
            );
            if needs_job && rec.job == 0 {
                stats.before_start += 1;
                continue;
            }
            let job = u64::from(rec.job).saturating_sub(1);
            match rec.kind {
                Kind::Name | Kind::Param => {}
                Kind::SysRelease => {
                    emit(Event::SysRelease { t }, &mut stats)?;
                }
                Kind::Release => {
                    let deadline = rec.second().saturating_sub(self.zero);
                    pending.push(std::cmp::Reverse((t, task()?, job, deadline)));
                    continue;
                }
                Kind::SwitchTo => {
                    let task = task()?;
                    let cpu = u32::from(rec.cpu);
                    running.insert(rec.pid, Running { cpu, job });
                    emit(Event::SwitchTo { t, cpu, task, job }, &mut stats)?;
                }
                Kind::SwitchAway => {
                    let task = task()?;
                    match running.remove(&rec.pid) {
                        Some(r) => {
                            let reason = if blocking.remove(&rec.pid).is_some() {
                                SwitchReason::Block
                            } else {
                                SwitchReason::Preempt
                            };
                            emit(
                                Event::SwitchAway { t, cpu: r.cpu, task, job: r.job, reason, exec: rec.second() },
                                &mut stats,
                            )?;
                            if reason == SwitchReason::Block {
                                emit(Event::Block { t, task, job: r.job }, &mut stats)?;
                            }
                        }
                        None => stats.redundant += 1,
                    }
                }
                Kind::Completion => {
                    let task = task()?;
                    let (forced, exec) = rec.completion();
                    let cpu = match running.remove(&rec.pid) {
                        Some(r) => {
                            let reason = if forced { SwitchReason::Abort } else { SwitchReason::Complete };
                            emit(Event::SwitchAway { t, cpu: r.cpu, task, job: r.job, reason, exec }, &mut stats)?;
                            r.cpu
                        }
                        None => u32::from(rec.cpu),
                    };
                    blocking.remove(&rec.pid);
                    emit(Event::Completion { t, cpu, task, job, exec, forced }, &mut stats)?;
                }
                Kind::Block => {
                    let task = task()?;
                    if running.contains_key(&rec.pid) {
                        blocking.insert(rec.pid, t);
                    } else {
                        emit(Event::Block { t, task, job }, &mut stats)?;
                    }
                }
                Kind::Resume => {
                    let task = task()?;
                    emit(Event::Resume { t, task, job }, &mut stats)?;
                }
                Kind::Assigned | Kind::Action | Kind::NpEnter | Kind::NpExit => {
                    *stats.dropped.entry(rec.kind.name().to_string()).or_insert(0) += 1;
                }
            }
            last_t = last_t.max(t);
        }
        let _ = last_t;
        Ok(stats)
    }
}
