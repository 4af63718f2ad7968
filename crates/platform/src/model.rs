//! The platform model's state and its per-event steps.
//!
//! The simulator tells the model what runs where ([`PlatformModel::enter`],
//! [`PlatformModel::leave`]), asks it for the progress rate of every CPU
//! after a change ([`PlatformModel::update_rates`]) and lets it count what
//! a CPU did in a stretch of CPU time ([`PlatformModel::account`]). The
//! equations and their sources are in `docs/platform-model.md`:
//!
//! * **occupancy and CPMD** — each colour class is an LRU stack: a task
//!   that comes back finds evicted what the tasks that touched the class on
//!   its cache since it left pushed out,
//!   `evicted_c = clamp(D_c + r_c − S_c, 0, r_c)` with `D_c` their bytes in
//!   the class, `r_c = min(w_c, S_c)` its resident bytes, `S_c` the class
//!   capacity; reloading costs `evicted / line × miss`; a migration also
//!   reloads the private level (`min(wss − evicted, private) / line × hit`);
//!   the first time a task runs on a cache other than the one it ran on
//!   everything is cold;
//! * **capacity contention** — jobs running at once on one cache share a
//!   class in proportion to their bytes there once they exceed it: the
//!   misses beyond what the job would have alone,
//!   `p_cap = Σ_c max(0, r_c − S_c·w_c/R_c) / wss`;
//! * **coherence** — `p_coh = min(1, κ · Σ write_ratio_j)` over the jobs
//!   of the same data group running on other CPUs;
//! * **bandwidth** — the miss traffic of the running jobs over the memory
//!   bandwidth, `f = max(1, Σ refs·(p_cap + p_alone)·line / B)`, stretches
//!   every miss;
//!   (and the memory phases of PREM tasks add `μ · B` each, [`prem_traffic`]);
//! * **rate** — `1 / (1 + refs · (p_cap·miss·f + p_alone·miss·(f − 1) + p_coh·hitm) + μ·(f − 1))`.
//!
//! **Multithreaded tasks.** The cache state belongs to working-set
//! *owners*: a task in no MTT owns its working set, the tasks (threads) of
//! an MTT share their MTT's (`Spec::wss_owner`). The model is built on the
//! owners — an MTT is one entry with the MTT's WSS and colours — so its
//! bytes occupy the cache once however many of its threads run, threads of
//! one MTT running at once do not contend with each other, and a thread
//! coming back finds evicted only what other owners pushed out since the
//! MTT's last thread left the cache (none while another of its threads runs
//! there). An MTT's job references new data (the thesis' assumption that
//! job i's data is unique to job i): a thread's first dispatch in a job
//! reloads nothing, and the job's compulsory misses, WSS / line per MTT job
//! shared by its threads in proportion to their WCETs, are counted (not
//! charged: they are in the WCET). Without `mtt:` the owners are the tasks
//! in order and nothing changes.
//!
//! A task's WCET is its time alone with a warm cache: the model adds only
//! what other jobs cause (what a task's own working set misses when it
//! exceeds its colours is in its WCET already and costs extra only through
//! bandwidth contention). So tasks that share nothing run at exactly 1.0
//! and pay no CPMD: the simulator's schedule is today's.

use crate::calibration::Calibration;
use crate::counters::{Counts, Reading};
use crate::layout::{Layout, Part};
use crate::rate_class::{Clock, Mark};
use schedlab_model::Spec;
use std::collections::HashMap;

const NONE: u32 = u32::MAX;
/// Millionths in 1.0 (the simulator's `Rate`).
pub const MICROS: u32 = 1_000_000;

/// What a working-set owner (a task, or an MTT) keeps of the model's state.
#[derive(Debug, Clone)]
struct TaskModel {
    wss: f64,
    /// Bytes it keeps in the cache alone: Σ min(w_c, S_c).
    resident: f64,
    /// Its own miss fraction alone (working set beyond its colours).
    alone_miss: f64,
    /// Tasks with which it shares a colour class.
    neighbours: Vec<u32>,
    /// Per neighbour (same order): its bytes in the classes the two share,
    /// as (index into this task's parts, bytes) in `Overlaps::parts[start..end]`,
    /// and their sum (added in that order), so the eviction scan adds
    /// without merging the two part lists again.
    overlaps: Vec<Overlap>,
    /// Σ capacity of its classes: once the others' bytes reach it, the scan can stop.
    full: f64,
    /// Whether it has run anywhere.
    ran_anywhere: bool,
}

/// Per task: what is its own rather than its working-set owner's.
#[derive(Debug, Clone)]
struct Thread {
    /// Index of its owner in `PlatformModel::tasks`.
    owner: u32,
    /// Its shared-data group.
    group: Option<u32>,
    write: f64,
    /// Compulsory misses per ns of demand (an MTT's new data each job); 0
    /// for a task in no MTT.
    fresh: f64,
    /// Its memory-phase traffic, as a fraction of the bandwidth its job
    /// uses per ns of demand: (in a memory segment, in any other).
    prem: (f64, f64),
    /// Whether its job is in a memory segment (the simulator says, [`PlatformModel::phase`]).
    in_memory: bool,
    /// The CPU it last ran on (`NONE`: none yet; it runs there now if that
    /// CPU's `running` is this task).
    last_cpu: u32,
}

/// Task `j`'s footprint in the classes it shares with a task (see
/// [`TaskModel::overlaps`]).
#[derive(Debug, Clone, Copy)]
struct Overlap {
    j: u32,
    start: u32,
    end: u32,
    added: f64,
}

/// What a job's arrival on a CPU costs: the CPMD.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Reload {
    /// Stall (ns) before the job makes progress.
    pub ns: u64,
    /// Lines reloaded from memory (evicted while away).
    pub misses: f64,
}

/// A set of indices below a bound with the list of its members, for marks
/// cleared in bulk; marking appends without a branch.
#[derive(Debug, Clone)]
struct Marks {
    has: Vec<bool>,
    /// The members in `list[..len]`; one slot more than indices, which a
    /// repeated mark writes and leaves outside.
    list: Vec<u32>,
    len: usize,
}

impl Marks {
    fn new(n: usize) -> Marks {
        Marks { has: vec![false; n], list: vec![0; n + 1], len: 0 }
    }

    /// Marks `i`; whether it was not marked before.
    #[inline(always)]
    fn mark(&mut self, i: usize) -> bool {
        let first = !self.has[i];
        self.has[i] = true;
        self.list[self.len] = i as u32;
        self.len += first as usize;
        first
    }

    #[inline(always)]
    fn list(&self) -> &[u32] {
        &self.list[..self.len]
    }

    #[inline]
    fn sort(&mut self) {
        match self.len {
            0 | 1 => {}
            2 => {
                if self.list[0] > self.list[1] {
                    self.list.swap(0, 1);
                }
            }
            n => self.list[..n].sort_unstable(),
        }
    }

    fn clear(&mut self) {
        for &i in &self.list[..self.len] {
            self.has[i as usize] = false;
        }
        self.len = 0;
    }
}

/// The running jobs' bytes in one colour class of one cache instance, and
/// how many jobs they are (at 0 the sum is reset: no drift).
#[derive(Debug, Clone, Copy, Default)]
struct Occupancy {
    bytes: f64,
    jobs: u32,
}

impl Occupancy {
    /// Whether the bytes exceed `over_at` with two jobs or more: only then
    /// does the class add capacity misses ([`PlatformModel::capacity_misses`]).
    #[inline(always)]
    fn over(self, over_at: f64) -> bool {
        self.jobs >= 2 && self.bytes > over_at
    }
}

/// What an owner's tasks do on one cache instance.
#[derive(Debug, Clone, Copy, Default)]
struct Here {
    /// How many of them run there now.
    running: u32,
    /// Whether one has run there.
    ran: bool,
    /// When the last of them left a CPU of the instance.
    left: u64,
}

/// A shared-data group's running jobs: their write ratios added, and how
/// many they are (at 0 the sum is reset: no drift).
#[derive(Debug, Clone, Copy, Default)]
struct Group {
    write: f64,
    jobs: u32,
}

/// The model's state of one CPU (one bounds check per CPU reached, where
/// one array per field cost one per field).
#[derive(Debug, Clone, Copy)]
struct CpuModel {
    /// Its cache instance.
    instance: u32,
    /// The task running there (`NONE`: none).
    running: u32,
    /// Its current values: capacity miss fraction, HITM fraction,
    /// bandwidth stretch, rate, and the rate in millionths (while its job
    /// is in a rate class, the class's clock has them: `values`).
    p_cap: f64,
    p_coh: f64,
    bw: f64,
    rate: f64,
    micros: u32,
    /// The same as `recompute` computed them, until `commit`.
    next: (f64, f64, f64, f64, u32),
    /// The rate class of its job (`NONE`: none), whether its jobs may have
    /// one (the simulator's own rate of the CPU is 1.0), and its mark.
    class_on: u32,
    classable: bool,
    mark: Mark,
}

/// The platform model of one run.
#[derive(Debug, Clone)]
pub struct PlatformModel {
    cal: Calibration,
    line: f64,
    private: Option<f64>,
    /// Bytes per ns, if limited.
    bandwidth: Option<f64>,
    /// (ns per miss, ns per HITM load, references per ns, ns per hit),
    /// and whether the rates are computed in one pass (no bandwidth limit,
    /// finite costs), as rate classes need.
    costs: (f64, f64, f64, f64),
    one_pass: bool,
    /// The owners' parts (index: owner).
    layout: Layout,
    /// Per CPU: its cache instance, job, values and rate class.
    cpus: Vec<CpuModel>,
    instances: usize,
    /// Per working-set owner (a task in no MTT, or an MTT), in the order
    /// their first task appears; the owners' arrays below are indexed so.
    tasks: Vec<TaskModel>,
    threads: Vec<Thread>,
    /// Per (owner, instance): its tasks there ([`Here`]).
    here: Vec<Here>,
    /// Per (instance, owner) — instance-major, so that the eviction scan
    /// reads one instance's slice: when the owner last touched the
    /// instance's cache, `u64::MAX` while it runs there (read as now), else
    /// when it left (0 if it never ran there, which no `since` is before).
    touch: Vec<u64>,
    /// The (part index, bytes) pairs of every [`Overlap`].
    shared: Vec<(u32, f64)>,
    /// Per (instance, class): the running jobs' working sets there.
    occ: Vec<Occupancy>,
    /// Per class: the bytes above which it is over its capacity (the
    /// capacity with a relative margin for the sums' rounding: exactly
    /// full is not over).
    over_at: Vec<f64>,
    /// Per data group: its running writers ([`Group`]).
    groups: Vec<Group>,
    /// The CPUs whose values `recompute` changed.
    pending: Vec<u32>,
    /// Rates by stall (bits): (stall bits, rate, millionths); 0 (a stall
    /// never looked up) marks an empty slot.
    rates: [(u64, f64, u32); 32],
    dirty: bool,
    /// What changed since the last [`PlatformModel::recompute`], so that
    /// it recomputes only the CPUs whose values can change: the CPUs whose
    /// job changed; whether a data group's running writers changed; whether
    /// a class changed that was or became over its capacity (only such a
    /// class changes anyone's capacity misses). Without either, the other
    /// CPUs' inputs are as they were.
    cpu_changed: Marks,
    group_touched: bool,
    over_touched: bool,
    cpu_counts: Vec<Counts>,
    task_counts: Vec<Counts>,
    scratch: Vec<f64>,
    /// Rate classes ([`crate::rate_class`]): per (task, instance) its class
    /// (`NONE`: none, its CPU is recomputed and accounted alone); per class
    /// its clock and next values; the classes whose values change.
    class_of: Vec<u32>,
    clocks: Vec<Clock>,
    class_next: Vec<(f64, f64, f64, u32)>,
    pending_classes: Vec<u32>,
    /// Per class: a task of it and its cache instance (what its values are
    /// computed from); the classes with a CPU (`active`, each at
    /// `active_at`, `NONE` for the others; a class's CPUs are `class_cpus`),
    /// and how many running CPUs are in no class. While that is 0, a change of a data group's writers
    /// or of a class over its capacity recomputes the active classes and
    /// the CPUs whose job changed, not every CPU.
    class_rep: Vec<(u32, u32)>,
    /// Per class: the `over_epoch` at which its capacity misses were last
    /// computed. They change only where a class was or became over its
    /// capacity (`over_touched`), which starts a new epoch; within one
    /// epoch the class's last value stands.
    cap_epoch: Vec<u64>,
    over_epoch: u64,
    /// Per class: its CPUs, as a bit set of `words` words (the commit of
    /// its values visits them in CPU order, and no other CPU).
    class_cpus: Vec<u64>,
    words: usize,
    active: Vec<u32>,
    active_at: Vec<u32>,
    loose: u32,
    pass: u32,
    /// The latest instant the model was told of.
    latest: u64,
}

impl PlatformModel {
    /// The model of `spec`'s platform, `None` when the spec has no cache.
    pub fn new(spec: &Spec, cal: Calibration) -> Option<PlatformModel> {
        let cache = spec.platform.cache.as_ref()?;
        // The owners as a task list: an MTT is its first task with the
        // MTT's working set (validation gives its tasks one colour set).
        let of = spec.mtt_of_tasks();
        let mut owner_of_mtt = vec![NONE; spec.mtts().len()];
        let mut owner = Vec::with_capacity(spec.tasks.len());
        let mut owners = spec.clone();
        owners.tasks.clear();
        owners.mtt = None;
        for (i, t) in spec.tasks.iter().enumerate() {
            match of[i] {
                Some(k) if owner_of_mtt[k] != NONE => owner.push(owner_of_mtt[k]),
                mtt => {
                    let mut t = t.clone();
                    if let Some(k) = mtt {
                        owner_of_mtt[k] = owners.tasks.len() as u32;
                        t.wss = spec.mtt_wss(k);
                    }
                    owner.push(owners.tasks.len() as u32);
                    owners.tasks.push(t);
                }
            }
        }
        // Compulsory misses per ns: WSS / line per MTT job over the WCETs of its tasks.
        let line = cache.line.0.max(1) as f64;
        let fresh: Vec<f64> = (0..spec.mtts().len())
            .map(|k| {
                let wcets: f64 = spec.mtt_tasks(k).iter().map(|&i| spec.tasks[i].wcet.0 as f64).sum();
                let wss = spec.mtt_wss(k).map_or(0, |w| w.0) as f64;
                if wcets > 0.0 {
                    wss / line / wcets
                } else {
                    0.0
                }
            })
            .collect();
        let spec_tasks = &spec.tasks;
        let spec = &owners;
        let layout = Layout::of(spec)?;
        let m = spec.platform.cpus as usize;
        let n = spec.tasks.len();
        let tasks_n = spec_tasks.len();
        let idle = CpuModel {
            instance: 0,
            running: NONE,
            p_cap: 0.0,
            p_coh: 0.0,
            bw: 1.0,
            rate: 1.0,
            micros: MICROS,
            next: (0.0, 0.0, 1.0, 1.0, MICROS),
            class_on: NONE,
            classable: true,
            mark: Mark::default(),
        };
        let mut cpus = vec![idle; m];
        let groups = cache.instances(spec.platform.cpus);
        for (k, g) in groups.iter().enumerate() {
            for &c in g {
                if (c as usize) < m {
                    cpus[c as usize].instance = k as u32;
                }
            }
        }
        let mut names: HashMap<&str, u32> = HashMap::new();
        let threads: Vec<Thread> = spec_tasks
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let next = names.len() as u32;
                Thread {
                    owner: owner[i],
                    group: t.data_group.as_deref().map(|g| *names.entry(g).or_insert(next)),
                    write: t.write_ratio().as_f64(),
                    fresh: of[i].map_or(0.0, |k| fresh[k]),
                    prem: prem_traffic(spec, t),
                    in_memory: false,
                    last_cpu: NONE,
                }
            })
            .collect();
        let mut tasks = Vec::with_capacity(n);
        // Tasks by class, to find neighbours without comparing every pair.
        let mut by_class: Vec<Vec<u32>> = vec![Vec::new(); layout.capacity.len()];
        for (i, parts) in layout.parts.iter().enumerate() {
            for p in parts {
                by_class[p.class as usize].push(i as u32);
            }
        }
        let mut seen = vec![NONE; n];
        let mut shared = Vec::new();
        for (i, t) in spec.tasks.iter().enumerate() {
            let wss = t.wss.map_or(0, |w| w.0) as f64;
            let parts = &layout.parts[i];
            let resident: f64 = parts.iter().map(|p| p.bytes.min(layout.capacity[p.class as usize])).sum();
            let alone_miss = if wss > 0.0 { (wss - resident).max(0.0) / wss } else { 0.0 };
            let mut neighbours = Vec::new();
            for p in parts {
                for &j in &by_class[p.class as usize] {
                    if j as usize != i && seen[j as usize] != i as u32 {
                        seen[j as usize] = i as u32;
                        neighbours.push(j);
                    }
                }
            }
            let overlaps = neighbours
                .iter()
                .map(|&j| {
                    let start = shared.len() as u32;
                    let added = overlap_pairs(parts, &layout.parts[j as usize], &mut shared);
                    Overlap { j, start, end: shared.len() as u32, added }
                })
                .collect();
            let full = parts.iter().map(|p| layout.capacity[p.class as usize]).sum();
            tasks.push(TaskModel { wss, resident, alone_miss, neighbours, overlaps, full, ran_anywhere: false });
        }
        let instances = groups.len().max(1);
        let classes = layout.capacity.len();
        let groups = names.len();
        let max_parts = layout.parts.iter().map(Vec::len).max().unwrap_or(0);
        // Rate classes: only where the rates are computed in one pass (no
        // bandwidth limit, whose stretch couples every CPU, finite costs),
        // for tasks that can be slowed at all (sharing a colour class or in
        // a data group of two or more) and that are not threads of an MTT
        // (their compulsory misses are their own); the key is everything
        // their CPU's values are computed from.
        let bandwidth = spec.platform.memory.as_ref().and_then(|m| m.bandwidth).map(|b| b.0 as f64 / 1e9);
        let mut class_of = vec![NONE; tasks_n * instances];
        let mut clocks = Vec::new();
        let mut class_rep = Vec::new();
        let costs = (cal.miss_ns(), cal.hitm_ns(), cal.refs_per_ns, cal.hit_ns());
        let one_pass = bandwidth.is_none() && costs.0.is_finite() && costs.1.is_finite() && costs.2.is_finite();
        if one_pass {
            let mut in_group = vec![0u32; groups];
            for t in &threads {
                if let Some(g) = t.group {
                    in_group[g as usize] += 1;
                }
            }
            let mut keys: HashMap<Vec<u64>, u32> = HashMap::new();
            for (t, th) in threads.iter().enumerate() {
                let o = th.owner as usize;
                let grouped = th.group.is_some_and(|g| in_group[g as usize] >= 2);
                let shares = grouped || !tasks[o].neighbours.is_empty();
                if th.fresh != 0.0 || !shares {
                    continue;
                }
                for k in 0..instances {
                    let mut key = vec![
                        k as u64,
                        th.group.map_or(u64::MAX, u64::from),
                        th.write.to_bits(),
                        tasks[o].wss.to_bits(),
                    ];
                    key.extend(layout.parts[o].iter().flat_map(|p| [p.class as u64, p.bytes.to_bits()]));
                    let next = clocks.len() as u32;
                    let id = *keys.entry(key).or_insert(next);
                    if id == next {
                        clocks.push(Clock::new(tasks[o].alone_miss, MICROS));
                        class_rep.push((t as u32, k as u32));
                    }
                    class_of[t * instances + k] = id;
                }
            }
        }
        let classes_n = clocks.len();
        let over_at = layout.capacity.iter().map(|c| c * (1.0 + 1e-9)).collect();
        Some(PlatformModel {
            cal,
            line,
            private: cache.private.map(|p| p.0 as f64),
            bandwidth,
            costs,
            one_pass,
            layout,
            cpus,
            instances,
            tasks,
            threads,
            here: vec![Here::default(); n * instances],
            touch: vec![0; n * instances],
            shared,
            occ: vec![Occupancy::default(); instances * classes],
            over_at,
            groups: vec![Group::default(); groups],
            pending: Vec::with_capacity(m),
            rates: [(0, 1.0, MICROS); 32],
            dirty: false,
            cpu_changed: Marks::new(m),
            group_touched: false,
            over_touched: false,
            cpu_counts: vec![Counts::default(); m],
            task_counts: vec![Counts::default(); tasks_n],
            scratch: vec![0.0; max_parts],
            class_of,
            clocks,
            class_next: vec![(0.0, 0.0, 1.0, MICROS); classes_n],
            pending_classes: Vec::with_capacity(classes_n),
            class_rep,
            cap_epoch: vec![u64::MAX; classes_n],
            over_epoch: 0,
            class_cpus: vec![0; classes_n * m.div_ceil(64)],
            words: m.div_ceil(64),
            active: Vec::with_capacity(classes_n),
            active_at: vec![NONE; classes_n],
            loose: 0,
            pass: 0,
            latest: 0,
        })
    }

    pub fn calibration(&self) -> &Calibration {
        &self.cal
    }

    /// Whether what runs changed since the last [`PlatformModel::update_rates`].
    #[inline]
    pub fn dirty(&self) -> bool {
        self.dirty
    }

    /// The task's job starts running on `cpu` at `now`: returns what it
    /// reloads (the CPMD), counted as misses of the CPU and the task.
    pub fn enter(&mut self, task: u32, cpu: u32, now: u64) -> Reload {
        self.enter_job(task, cpu, now, false)
    }

    /// [`PlatformModel::enter`], saying whether this is the job's first
    /// dispatch: then a task of an MTT reloads nothing (its job's data is
    /// new, counted as compulsory misses as it runs); a task in no MTT
    /// reloads what was evicted either way.
    pub fn enter_job(&mut self, task: u32, cpu: u32, now: u64, first: bool) -> Reload {
        let c = cpu as usize;
        let th = &self.threads[task as usize];
        let (i, last_cpu, fresh) = (th.owner as usize, th.last_cpu, first && th.fresh > 0.0);
        let k = self.cpus[c].instance as usize;
        let at = i * self.instances + k;
        self.dirty = true;
        self.latest = self.latest.max(now);
        let owner = &self.tasks[i];
        let (wss, resident, ran_anywhere) = (owner.wss, owner.resident, owner.ran_anywhere);
        let here = self.here[at];
        let evicted = if here.running > 0 || fresh {
            // Another thread of its MTT keeps the working set touched, or
            // the job's data is new.
            0.0
        } else if ran_anywhere && !here.ran {
            // First time on this cache: everything is cold.
            resident
        } else {
            self.evicted(i, k, now)
        };
        let mut bytes_hit = 0.0;
        if let Some(p) = self.private {
            if ran_anywhere && last_cpu != cpu && !fresh {
                bytes_hit = (wss - evicted).max(0.0).min(p);
            }
        }
        let (misses, hits) = (evicted / self.line, bytes_hit / self.line);
        let ns = misses * self.costs.0 + hits * self.costs.3;
        for counts in [&mut self.cpu_counts[c], &mut self.task_counts[task as usize]] {
            counts.misses += misses;
            counts.references += misses + hits;
        }
        debug_assert_eq!(self.cpus[c].running, NONE, "a CPU's job leaves before another enters");
        self.cpus[c].running = task;
        let class = if self.cpus[c].classable { self.class_of[task as usize * self.instances + k] } else { NONE };
        self.cpus[c].class_on = class;
        self.join(class, c);
        self.cpu_moved(c);
        if here.running == 0 {
            self.touch[k * self.tasks.len() + i] = u64::MAX;
            self.occupy(i, k, true);
        }
        self.here[at].running += 1;
        self.group(task as usize, true);
        self.tasks[i].ran_anywhere = true;
        self.threads[task as usize].last_cpu = cpu;
        Reload { ns: round_ns(ns), misses }
    }

    /// The task's job is now in a memory segment (`memory`) or not: its
    /// memory-phase traffic changes ([`prem_traffic`]).
    pub fn phase(&mut self, task: u32, memory: bool) {
        let t = &mut self.threads[task as usize];
        if t.in_memory != memory {
            t.in_memory = memory;
            let on = self.cpus.get(t.last_cpu as usize);
            if t.prem.0 != t.prem.1 && on.is_some_and(|c| c.running == task) {
                self.dirty = true;
            }
        }
    }

    /// Task `t`'s memory-phase traffic now, as a fraction of the bandwidth.
    #[inline]
    fn prem_now(&self, t: usize) -> f64 {
        let m = &self.threads[t];
        if m.in_memory {
            m.prem.0
        } else {
            m.prem.1
        }
    }

    /// Bytes of owner `i` evicted from instance `k` since it left it. Out
    /// of line: inlined into the simulator's event loop, its scan kept its
    /// values on the stack.
    #[inline(never)]
    fn evicted(&mut self, i: usize, k: usize, now: u64) -> f64 {
        let parts = &self.layout.parts[i];
        if parts.is_empty() || self.tasks[i].neighbours.is_empty() {
            return 0.0;
        }
        let since = self.here[i * self.instances + k].left;
        let n = self.tasks.len();
        let touch = &self.touch[k * n..(k + 1) * n];
        if let [part] = parts[..] {
            // One class (the common case): the others' bytes add up in a
            // register, in the same order, so to the same sum as below.
            let cap = self.layout.capacity[part.class as usize];
            let mut d = 0.0;
            // A neighbour counts if it touched the cache after `since`:
            // `touch.min(now) > since`, which is `touch > since` when
            // `since < now` and never when it left just now.
            if since < now {
                for o in &self.tasks[i].overlaps {
                    if d >= cap {
                        break;
                    }
                    // Without a branch (which neighbours touched the cache
                    // follows no pattern): `added` or +0.0, and adding
                    // +0.0 to the non-negative sum leaves it as it is.
                    let touched = touch[o.j as usize] > since;
                    d += f64::from_bits(std::hint::select_unpredictable(touched, o.added.to_bits(), 0));
                }
            }
            let resident = part.bytes.min(cap);
            return 0.0 + (d + resident - cap).clamp(0.0, resident);
        }
        let scratch = &mut self.scratch[..parts.len()];
        scratch.fill(0.0);
        // Once the others fill every class the task uses, all of it is
        // evicted: the rest of the neighbours need not be looked at.
        let full = self.tasks[i].full;
        let mut seen = 0.0;
        for o in &self.tasks[i].overlaps {
            if seen >= full
                && parts.iter().zip(scratch.iter()).all(|(p, &d)| d >= self.layout.capacity[p.class as usize])
            {
                break;
            }
            // A neighbour running on this cache touches it now.
            let touched = touch[o.j as usize].min(now);
            if touched <= since {
                continue;
            }
            for &(a, bytes) in &self.shared[o.start as usize..o.end as usize] {
                scratch[a as usize] += bytes;
            }
            seen += o.added;
        }
        let mut evicted = 0.0;
        for (p, &d) in parts.iter().zip(scratch.iter()) {
            let cap = self.layout.capacity[p.class as usize];
            let resident = p.bytes.min(cap);
            evicted += (d + resident - cap).clamp(0.0, resident);
        }
        evicted
    }

    /// The task's job leaves `cpu` at `now` (preempted, blocked, completed).
    pub fn leave(&mut self, task: u32, cpu: u32, now: u64) {
        let c = cpu as usize;
        let i = self.threads[task as usize].owner as usize;
        let cs = &mut self.cpus[c];
        let (k, class) = (cs.instance as usize, cs.class_on);
        cs.running = NONE;
        if class != NONE {
            // The CPU keeps its class's values as its own.
            let clock = &self.clocks[class as usize];
            (cs.p_cap, cs.p_coh, cs.bw, cs.rate) = (clock.p_cap, clock.p_coh, 1.0, clock.rate);
            cs.class_on = NONE;
        }
        let at = i * self.instances + k;
        self.latest = self.latest.max(now);
        let here = &mut self.here[at];
        here.running -= 1;
        if here.running == 0 {
            (here.left, here.ran) = (now, true);
            self.touch[k * self.tasks.len() + i] = now;
            self.occupy(i, k, false);
        }
        self.group(task as usize, false);
        self.part(class, c);
        self.cpu_moved(c);
        self.dirty = true;
    }

    /// Adds (or removes) owner `i`'s bytes in instance `k`, the aggregates
    /// the rates are computed from.
    #[inline(always)]
    fn occupy(&mut self, i: usize, k: usize, add: bool) {
        let classes = self.over_at.len();
        let mut touched = false;
        for p in &self.layout.parts[i] {
            let over_at = self.over_at[p.class as usize];
            let o = &mut self.occ[k * classes + p.class as usize];
            let before = o.over(over_at);
            if add {
                o.bytes += p.bytes;
                o.jobs += 1;
            } else {
                o.jobs -= 1;
                o.bytes = if o.jobs == 0 { 0.0 } else { o.bytes - p.bytes };
            }
            touched |= before | o.over(over_at);
        }
        self.over_touched |= touched;
    }

    /// Adds (or removes) task `t`'s writes to its shared-data group's.
    fn group(&mut self, t: usize, add: bool) {
        if let Some(g) = self.threads[t].group {
            let g = g as usize;
            self.group_touched = true;
            let (write, group) = (self.threads[t].write, &mut self.groups[g]);
            if add {
                group.write += write;
                group.jobs += 1;
            } else {
                group.jobs -= 1;
                group.write = if group.jobs == 0 { 0.0 } else { group.write - write };
            }
        }
    }

    /// A CPU now runs a job of `class` (`NONE`: of none).
    #[inline]
    fn join(&mut self, class: u32, c: usize) {
        if class == NONE {
            self.loose += 1;
            return;
        }
        let k = class as usize;
        self.class_cpus[k * self.words + c / 64] |= 1 << (c % 64);
        if self.active_at[k] == NONE {
            self.active_at[k] = self.active.len() as u32;
            self.active.push(class);
        }
    }

    /// A CPU no longer runs a job of `class` (`NONE`: of none).
    #[inline]
    fn part(&mut self, class: u32, c: usize) {
        if class == NONE {
            self.loose -= 1;
            return;
        }
        let k = class as usize;
        let cpus = &mut self.class_cpus[k * self.words..(k + 1) * self.words];
        cpus[c / 64] &= !(1 << (c % 64));
        if cpus.iter().all(|&w| w == 0) {
            let at = self.active_at[k] as usize;
            self.active.swap_remove(at);
            if let Some(&moved) = self.active.get(at) {
                self.active_at[moved as usize] = at as u32;
            }
            self.active_at[k] = NONE;
        }
    }

    /// CPU `c`'s job changed: its values are recomputed.
    #[inline]
    fn cpu_moved(&mut self, c: usize) {
        self.cpu_changed.mark(c);
    }

    /// Clears the change marks.
    fn clear_changes(&mut self) {
        self.cpu_changed.clear();
        self.group_touched = false;
        self.over_touched = false;
    }

    /// Computes every running CPU's slowdown after changes (from the
    /// aggregates: O(its colour classes) per CPU) and lists the CPUs whose
    /// values change ([`PlatformModel::pending`]); nothing is applied until
    /// [`PlatformModel::commit`], so the counts of those CPUs up to now can
    /// be [accounted](PlatformModel::account) at their old values first.
    pub fn recompute(&mut self) {
        self.dirty = false;
        self.pending.clear();
        self.pending_classes.clear();
        self.pass = self.pass.wrapping_add(1);
        let m = self.cpus.len();
        let (miss, hitm, refs, _) = self.costs;
        if self.one_pass {
            if self.over_touched {
                self.over_epoch += 1;
            }
            // Without a bandwidth limit f = 1, so one pass: with finite
            // costs `cap·miss·f + alone·miss·(f − 1)` is `cap·miss` bit for
            // bit (times 1 is exact, and adding the zero changes no sum).
            // And unless a group's writers or a class over its capacity
            // changed, only the CPUs whose job changed can change: only
            // they are recomputed (in CPU order, as in the full loop).
            let mut wide = self.group_touched || self.over_touched;
            if wide && self.loose == 0 {
                // Every running CPU is in a rate class: each class with a
                // CPU is computed here, and only the CPUs whose job changed
                // (to take their class's values, or an idle CPU's) below.
                for i in 0..self.active.len() {
                    let class = self.active[i];
                    let (t, k) = self.class_rep[class as usize];
                    self.class_values(class, k as usize, t as usize, refs, miss, hitm);
                }
                wide = false;
            }
            if !wide {
                self.cpu_changed.sort();
            }
            let n = if wide { m } else { self.cpu_changed.list().len() };
            for i in 0..n {
                let c = if wide { i } else { self.cpu_changed.list()[i] as usize };
                let t = self.cpus[c].running;
                let class = self.cpus[c].class_on;
                if class != NONE {
                    // Once per class: its CPUs' values are equal by
                    // construction, and change together (`commit`).
                    let k = class as usize;
                    if self.clocks[k].stamp != self.pass {
                        self.class_values(class, self.cpus[c].instance as usize, t as usize, refs, miss, hitm);
                    }
                    // A CPU that joined the class takes its values (its job
                    // starts now: nothing to account at the old ones).
                    if self.cpu_changed.has[c] {
                        // (The class's rate is `rate_of` of the same stall.)
                        let (cap, coh, rate, micros) = self.class_next[k];
                        self.set_next(c, (cap, coh, 1.0, rate, micros));
                    }
                    continue;
                }
                let (cap, coh, stall) = if t == NONE {
                    // An idle CPU has its idle values since the pass after
                    // its job left (which recomputed it): only that pass
                    // has anything to do.
                    if !self.cpu_changed.has[c] {
                        continue;
                    }
                    (0.0, 0.0, 0.0)
                } else {
                    let (cap, coh) = (
                        self.capacity_misses(self.cpus[c].instance as usize, self.threads[t as usize].owner as usize),
                        self.coherence(t as usize),
                    );
                    (cap, coh, refs * (cap * miss + coh * hitm))
                };
                self.settle_next(c, cap, coh, 1.0, stall);
            }
            self.clear_changes();
            return;
        }
        self.clear_changes();
        let mut traffic = 0.0;
        for c in 0..m {
            let t = self.cpus[c].running;
            let (cap, coh) = if t == NONE {
                (0.0, 0.0)
            } else {
                (
                    self.capacity_misses(self.cpus[c].instance as usize, self.threads[t as usize].owner as usize),
                    self.coherence(t as usize),
                )
            };
            self.cpus[c].next = (cap, coh, 1.0, 1.0, MICROS);
            if let (true, Some(b)) = (t != NONE, self.bandwidth) {
                traffic +=
                    self.cal.refs_per_ns * (cap + self.owner(t).alone_miss) * self.line + self.prem_now(t as usize) * b;
            }
        }
        let f = match self.bandwidth {
            Some(b) if traffic > b => traffic / b,
            _ => 1.0,
        };
        for c in 0..m {
            let (cap, coh, ..) = self.cpus[c].next;
            let t = self.cpus[c].running;
            let stall = if t == NONE {
                0.0
            } else {
                let alone = self.owner(t).alone_miss;
                refs * (cap * miss * f + alone * miss * (f - 1.0) + coh * hitm) + self.prem_now(t as usize) * (f - 1.0)
            };
            self.settle_next(c, cap, coh, f, stall);
        }
    }

    /// Rate class `class`'s next values (computed for task `t` on cache
    /// instance `k`, as for any of its tasks there); listed as pending when
    /// they differ from its clock's. Once per pass (`stamp`).
    #[inline(always)]
    fn class_values(&mut self, class: u32, k: usize, t: usize, refs: f64, miss: f64, hitm: f64) {
        let i = class as usize;
        self.clocks[i].stamp = self.pass;
        let cap = if self.cap_epoch[i] == self.over_epoch {
            self.class_next[i].0
        } else {
            self.cap_epoch[i] = self.over_epoch;
            self.capacity_misses(k, self.threads[t].owner as usize)
        };
        let coh = self.coherence(t);
        let (rate, micros) = self.rate_of(refs * (cap * miss + coh * hitm));
        self.class_next[i] = (cap, coh, rate, micros);
        let ck = &self.clocks[i];
        if (cap, coh, rate, micros) != (ck.p_cap, ck.p_coh, ck.rate, ck.micros) {
            self.pending_classes.push(class);
        }
    }

    /// CPU `c`'s next values from its causes and stall per ns of demand;
    /// marks it pending when they differ from the current ones.
    #[inline(always)]
    fn settle_next(&mut self, c: usize, cap: f64, coh: f64, f: f64, stall: f64) {
        let (rate, micros) = self.rate_of(stall);
        self.set_next(c, (cap, coh, f, rate, micros));
    }

    /// CPU `c`'s next values; marks it pending when they differ from the
    /// current ones.
    #[inline(always)]
    fn set_next(&mut self, c: usize, next: (f64, f64, f64, f64, u32)) {
        let cs = &mut self.cpus[c];
        cs.next = next;
        if next != (cs.p_cap, cs.p_coh, cs.bw, cs.rate, cs.micros) {
            self.pending.push(c as u32);
        }
    }

    /// The rate of a stall per ns of demand, and in millionths.
    #[inline(always)]
    fn rate_of(&mut self, stall: f64) -> (f64, u32) {
        if stall > 0.0 {
            // The rate is a function of the stall alone, and few stalls
            // recur (one per number of sharers running): a small table
            // spares the division and the rounding.
            let bits = stall.to_bits();
            let slot = &mut self.rates[(bits.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 59) as usize];
            if slot.0 != bits {
                let r = 1.0 / (1.0 + stall);
                *slot = (bits, r, round_micros(r * MICROS as f64).clamp(1, MICROS));
            }
            (slot.1, slot.2)
        } else {
            (1.0, MICROS)
        }
    }

    /// The CPUs whose values [`PlatformModel::recompute`] changed and
    /// whose progress is to be [accounted](PlatformModel::account) at the
    /// old ones first (the CPUs of a rate class whose values change are not
    /// listed: their class's clock accounts them, [`PlatformModel::progress`]).
    pub fn pending(&self) -> &[u32] {
        &self.pending
    }

    /// Applies what [`PlatformModel::recompute`] computed at `now`; calls
    /// `changed(cpu, old, new, in_class)` for each CPU whose rate (in
    /// millionths) changed, saying whether its job is in a rate class
    /// ([`PlatformModel::in_class`]: its rate is then its class's, which
    /// [`PlatformModel::micros`] reads at any time) — except a CPU whose job
    /// was in a rate class before and whose class's rate dropped: a lower
    /// rate only delays its job, and is read from the class when needed.
    pub fn commit(&mut self, now: u64, mut changed: impl FnMut(u32, u32, u32, bool)) {
        for &c in &self.pending {
            let c = c as usize;
            let cs = &mut self.cpus[c];
            let (cap, coh, f, rate, micros) = cs.next;
            (cs.p_cap, cs.p_coh, cs.bw, cs.rate) = (cap, coh, f, rate);
            if micros != cs.micros {
                let old = cs.micros;
                cs.micros = micros;
                changed(c as u32, old, micros, cs.class_on != NONE);
            }
        }
        self.pending.clear();
        for i in 0..self.pending_classes.len() {
            let k = self.pending_classes[i] as usize;
            let (cap, coh, rate, micros) = self.class_next[k];
            let before = self.clocks[k];
            self.clocks[k].change(now, cap, coh, rate, micros);
            // Its CPUs' values are the clock's (`PlatformModel::values`);
            // their rates were the clock's before (a CPU that joined in
            // this pass has the new one already, from the loop above).
            // Only a rise is told, for the class at once: whether the rate
            // rose or dropped follows no pattern from pass to pass.
            let rose = micros > before.micros;
            for w in 0..self.words {
                let mut bits = self.class_cpus[k * self.words + w];
                while bits != 0 {
                    let c = w * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    let cpu = &mut self.cpus[c];
                    let (mark, m) = (&mut cpu.mark, &mut cpu.micros);
                    // The clock's reading at the CPU's mark, taken now that
                    // the values it was taken at end (a CPU whose job
                    // progresses only later, after overheads, keeps its mark
                    // unread: it is read at the values it will start at).
                    if mark.lazy && mark.from <= now {
                        *mark = before.at(mark.from);
                    }
                    if rose && micros != *m {
                        changed(c as u32, *m, micros, true);
                    }
                    *m = micros;
                }
            }
        }
        self.pending_classes.clear();
    }

    /// [`PlatformModel::recompute`] then [`PlatformModel::commit`] at the
    /// latest instant the model was told of (when the counts need no
    /// accounting in between, as in tests), calling `changed(cpu, rate)`
    /// for every CPU whose rate changed (a drop in a rate class too).
    pub fn update_rates(&mut self, mut changed: impl FnMut(u32, u32)) {
        let before: Vec<u32> = self.cpus.iter().map(|c| c.micros).collect();
        self.recompute();
        self.commit(self.latest, |_, _, _, _| {});
        for (c, (cpu, old)) in self.cpus.iter().zip(before).enumerate() {
            if cpu.micros != old {
                changed(c as u32, cpu.micros);
            }
        }
    }

    /// Whether the job on `cpu` is in a rate class: its progress is then
    /// [`PlatformModel::progress`], its completion [`PlatformModel::finish`].
    #[inline(always)]
    pub fn in_class(&self, cpu: u32) -> bool {
        self.cpus[cpu as usize].class_on != NONE
    }

    /// `cpu` may (or may not) have its jobs in rate classes: only a CPU
    /// whose own rate is 1.0 may (the simulator's `SimConfig::rates`).
    pub fn set_classable(&mut self, cpu: u32, classable: bool) {
        self.cpus[cpu as usize].classable = classable;
    }

    /// The job on `cpu` progresses from `from` on (its switch-to, a
    /// settlement, the end of overheads charged to it): its mark, read from
    /// its rate class's clock only if the class's values change after it
    /// ([`PlatformModel::commit`]; until then its rate is the CPU's own).
    #[inline]
    pub fn mark(&mut self, cpu: u32, from: u64) {
        self.cpus[cpu as usize].mark = Mark { from, lazy: true, ..Mark::default() };
    }

    /// Whether the job on `cpu` is in a rate class whose values changed
    /// since its mark: its progress since is then [`PlatformModel::progress`]
    /// and its completion [`PlatformModel::finish`]. Otherwise its rate was
    /// the CPU's own throughout, and the simulator accounts it as any CPU's
    /// ([`PlatformModel::account`], after [`PlatformModel::mark`]).
    #[inline(always)]
    pub fn changed_since_mark(&self, cpu: u32) -> bool {
        let c = cpu as usize;
        let class = self.cpus[c].class_on;
        class != NONE && self.clocks[class as usize].t > self.cpus[c].mark.from
    }

    /// The job on `cpu` (in a rate class, marked at an instant before
    /// `now`) ran until `now`: counts what it did and returns the demand it
    /// retired in millionths of a ns (exactly what the simulator's `Rate`
    /// arithmetic gives stint by stint at the class's rates); marks it at `now`.
    #[inline]
    pub fn progress(&mut self, cpu: u32, now: u64) -> u128 {
        let c = cpu as usize;
        let (k, t) = (self.cpus[c].class_on as usize, self.cpus[c].running as usize);
        let clock = &self.clocks[k];
        let (mark, cur) = (self.cpus[c].mark, clock.at(now));
        debug_assert!(!mark.lazy, "a class changed after the mark: it was read then");
        self.cpus[c].mark = cur;
        let d = now - mark.from;
        let demand = cur.e - mark.e;
        let refs = demand * self.cal.refs_per_ns;
        let add = Counts {
            instructions: demand * self.cal.instructions_per_ns,
            cycles: d as f64 * self.cal.clock_ghz,
            references: refs,
            misses: (cur.cap - mark.cap) * self.cal.refs_per_ns + refs * clock.alone,
            hitm: (cur.coh - mark.coh) * self.cal.refs_per_ns,
        };
        for counts in [&mut self.cpu_counts[c], &mut self.task_counts[t]] {
            counts.instructions += add.instructions;
            counts.cycles += add.cycles;
            counts.references += add.references;
            counts.misses += add.misses;
            counts.hitm += add.hitm;
        }
        cur.v - mark.v
    }

    /// When the job on `cpu` (in a rate class) retires `need` millionths of
    /// a ns of demand more than it had at its mark, if the class's values
    /// stay as they are.
    #[inline]
    pub fn finish(&self, cpu: u32, need: u128) -> u128 {
        let c = cpu as usize;
        self.clocks[self.cpus[c].class_on as usize].finish(&self.cpus[c].mark, need)
    }

    /// The working-set owner of task `t`.
    #[inline(always)]
    fn owner(&self, t: u32) -> &TaskModel {
        &self.tasks[self.threads[t as usize].owner as usize]
    }

    /// Owner `t` on cache instance `k`: its miss fraction beyond what it has alone,
    /// from the jobs running at once on the same cache (the aggregates).
    #[inline(always)]
    fn capacity_misses(&self, k: usize, t: usize) -> f64 {
        let parts = &self.layout.parts[t];
        let wss = self.tasks[t].wss;
        if parts.is_empty() || wss == 0.0 {
            return 0.0;
        }
        let base = k * self.layout.capacity.len();
        let mut extra = 0.0;
        for p in parts {
            let o = self.occ[base + p.class as usize];
            if o.over(self.over_at[p.class as usize]) {
                let (cap, total) = (self.layout.capacity[p.class as usize], o.bytes);
                extra += (p.bytes.min(cap) - cap * p.bytes / total).max(0.0);
            }
        }
        // Nothing over: skip the division (0 / wss is the same +0).
        if extra == 0.0 {
            return 0.0;
        }
        extra / wss
    }

    /// Task `t`: the fraction of its references that are HITM, from the
    /// writers of its data group running on other CPUs.
    fn coherence(&self, t: usize) -> f64 {
        let Some(g) = self.threads[t].group else { return 0.0 };
        let g = g as usize;
        let group = self.groups[g];
        if group.jobs < 2 {
            return 0.0;
        }
        let others = (group.write - self.threads[t].write).max(0.0);
        (self.cal.coherence * others).min(1.0)
    }

    /// The progress rate of `cpu` in millionths (1_000_000 = full speed).
    pub fn micros(&self, cpu: u32) -> u32 {
        self.cpus[cpu as usize].micros
    }

    /// `cpu` ran its job for `d` ns of CPU time at its current rate: counts.
    #[inline]
    pub fn account(&mut self, cpu: u32, d: u64) {
        let c = cpu as usize;
        let t = self.cpus[c].running;
        if t == NONE || d == 0 {
            return;
        }
        let (p_cap, p_coh, _, rate) = self.values(c);
        let demand = d as f64 * rate;
        let refs = demand * self.cal.refs_per_ns;
        let fresh = self.threads[t as usize].fresh;
        let mut add = Counts {
            instructions: demand * self.cal.instructions_per_ns,
            cycles: d as f64 * self.cal.clock_ghz,
            references: refs,
            misses: refs * (p_cap + self.owner(t).alone_miss),
            hitm: refs * p_coh,
        };
        if fresh > 0.0 {
            // An MTT job's compulsory misses (its new data), as it runs.
            add.misses += demand * fresh;
            add.references += demand * fresh;
        }
        for counts in [&mut self.cpu_counts[c], &mut self.task_counts[t as usize]] {
            counts.instructions += add.instructions;
            counts.cycles += add.cycles;
            counts.references += add.references;
            counts.misses += add.misses;
            counts.hitm += add.hitm;
        }
    }

    /// The counts of `cpu` so far.
    pub fn cpu_reading(&self, cpu: u32) -> Reading {
        self.cpu_counts[cpu as usize].reading()
    }

    /// The counts of `task`'s jobs so far.
    pub fn task_reading(&self, task: u32) -> Reading {
        self.task_counts[task as usize].reading()
    }

    /// The current slowdown causes on `cpu`: (capacity miss fraction,
    /// HITM fraction, bandwidth stretch).
    pub fn causes(&self, cpu: u32) -> (f64, f64, f64) {
        let (cap, coh, f, _) = self.values(cpu as usize);
        (cap, coh, f)
    }

    /// CPU `c`'s current (capacity misses, HITM fraction, stretch, rate):
    /// its rate class's if its job is in one, else its own.
    #[inline(always)]
    fn values(&self, c: usize) -> (f64, f64, f64, f64) {
        match self.cpus[c].class_on {
            NONE => (self.cpus[c].p_cap, self.cpus[c].p_coh, self.cpus[c].bw, self.cpus[c].rate),
            k => {
                let k = &self.clocks[k as usize];
                (k.p_cap, k.p_coh, 1.0, k.rate)
            }
        }
    }
}

/// A task's memory-phase traffic as a fraction μ of the memory bandwidth,
/// (in a memory segment, in any other segment): a memory phase (PREM
/// prefetch or write-back) alone uses the whole bandwidth, so its length is
/// its time alone, and μ = 1 in its memory segments and 0 in its execution
/// segments, which work on cached data. Under `mcs` with `mps: false` (the
/// paper's Contention baseline) the same task has no phases: its memory
/// accesses are interleaved with its execution, μ = M / (M + E) throughout
/// (M, E its memory and execution lengths). A task without memory segments
/// has none. The running jobs' μ add to the traffic; `f = max(1, traffic)`
/// stretches the memory part of each job: `μ · (f − 1)` stall per ns.
fn prem_traffic(spec: &Spec, t: &schedlab_model::Task) -> (f64, f64) {
    use schedlab_model::SegmentKind;
    let segs = t.segments();
    let sum = |k: SegmentKind| segs.iter().filter(|s| s.kind == k).map(|s| s.length.0 as f64).sum::<f64>();
    let (m, e) = (sum(SegmentKind::Memory), sum(SegmentKind::Exec));
    if m == 0.0 {
        return (0.0, 0.0);
    }
    let contention =
        spec.policy.as_ref().is_some_and(|p| p.name == schedlab_model::PolicyName::Mcs && p.mps == Some(false));
    if contention {
        let mu = m / (m + e);
        (mu, mu)
    } else {
        (1.0, 0.0)
    }
}

/// `x.round()` for `0 <= x <= 1e6` (a rate in millionths), without the
/// call to libm's `round` that `f64::round` compiles to on baseline x86-64.
#[inline]
fn round_micros(x: f64) -> u32 {
    debug_assert!((0.0..=MICROS as f64).contains(&x));
    round_ns(x) as u32
}

/// `x.round() as u64` for `x >= 0` (a CPMD in ns), without libm: below
/// 2^52 `x - trunc(x)` is exact, so halves round up as `round` does;
/// above, every `f64` is whole; the cast saturates as `round`'s does.
#[inline]
fn round_ns(x: f64) -> u64 {
    let t = x as u64;
    if x - t as f64 >= 0.5 {
        t.saturating_add(1)
    } else {
        t
    }
}

/// Pushes `(index in parts, bytes)` for `other`'s bytes in each class of
/// `parts` (both sorted by class) to `out`; returns the bytes, added in
/// that order.
fn overlap_pairs(parts: &[Part], other: &[Part], out: &mut Vec<(u32, f64)>) -> f64 {
    let (mut a, mut b, mut added) = (0, 0, 0.0);
    while a < parts.len() && b < other.len() {
        match parts[a].class.cmp(&other[b].class) {
            std::cmp::Ordering::Less => a += 1,
            std::cmp::Ordering::Greater => b += 1,
            std::cmp::Ordering::Equal => {
                out.push((a as u32, other[b].bytes));
                added += other[b].bytes;
                a += 1;
                b += 1;
            }
        }
    }
    added
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_ns_is_f64_round_for_non_negative_values() {
        let mut rng = schedlab_model::rng::Rng::new(11);
        let mut xs = vec![0.0, 0.5, 1.5, 2.5, 0.49999999999999994, 4503599627370495.5, 4503599627370497.0];
        xs.extend([1e6, 1e15 + 0.5, 2f64.powi(63), 2f64.powi(64), 1e30, f64::INFINITY, f64::NAN]);
        for _ in 0..100_000 {
            let x = rng.f64() * 10f64.powi(rng.below(17) as i32);
            xs.extend([x, x.floor() + 0.5]);
        }
        for x in xs {
            assert_eq!(round_ns(x), x.round() as u64, "{x}");
        }
    }

    /// The eviction scan as first written (every neighbour's part list
    /// merged with the task's, three lookups per neighbour), kept to check
    /// the faster one against: same bytes, added in the same order.
    fn evicted_reference(
        m: &PlatformModel,
        ran: &[bool],
        left: &[u64],
        on: &[u32],
        i: usize,
        k: usize,
        now: u64,
    ) -> f64 {
        let parts = &m.layout.parts[i];
        if parts.is_empty() || m.tasks[i].neighbours.is_empty() {
            return 0.0;
        }
        let since = left[i * m.instances + k];
        let mut acc = vec![0.0; parts.len()];
        let full: f64 = parts.iter().map(|p| m.layout.capacity[p.class as usize]).sum();
        let mut seen = 0.0;
        for &j in &m.tasks[i].neighbours {
            if seen >= full && parts.iter().zip(&acc).all(|(p, &d)| d >= m.layout.capacity[p.class as usize]) {
                break;
            }
            let j = j as usize;
            let touched = if on[j] != NONE && m.cpus[on[j] as usize].instance as usize == k {
                now
            } else if ran[j * m.instances + k] {
                left[j * m.instances + k]
            } else {
                continue;
            };
            if touched <= since {
                continue;
            }
            let mut scratch = Vec::new();
            seen += overlap_pairs(parts, &m.layout.parts[j], &mut scratch);
            for (a, b) in scratch {
                acc[a as usize] += b;
            }
        }
        let mut evicted = 0.0;
        for (p, &d) in parts.iter().zip(&acc) {
            let cap = m.layout.capacity[p.class as usize];
            let resident = p.bytes.min(cap);
            evicted += (d + resident - cap).clamp(0.0, resident);
        }
        evicted
    }

    #[test]
    fn the_eviction_scan_matches_the_plain_merge_bit_for_bit() {
        // Tasks in one class and in several, odd working sets (fractional
        // bytes per class), two cache instances; random switches.
        let mut body = String::new();
        let mut rng = schedlab_model::rng::Rng::new(14);
        let mut next = |n: u64| rng.below(n);
        for t in 0..12 {
            let lo = next(20);
            let hi = lo + next(12);
            let colors = if t % 5 == 4 { String::new() } else { format!(", colors: [{lo}-{hi}]") };
            body.push_str(&format!(
                "  - {{name: t{t}, wcet: 1ms, period: 10ms, wss: {}B{colors}}}\n",
                1000 + next(900_000)
            ));
        }
        let text = format!(
            "platform: {{cpus: 4, cache: {{size: 8MiB, ways: 16, line: 64B, shared_by: [[0, 1], [2, 3]]}}}}\ntasks:\n{body}"
        );
        let spec = schedlab_model::load_str(&text, None, "t.yaml").unwrap().spec;
        let mut m = PlatformModel::new(&spec, Calibration::default()).unwrap();
        let n = spec.tasks.len();
        let (mut ran, mut left, mut on) = (vec![false; n * 2], vec![0u64; n * 2], vec![NONE; n]);
        let mut running = [NONE; 4];
        let (mut now, mut checked, mut evicting) = (0u64, 0, 0);
        let (mut back, mut back_task) = (NONE, 0);
        for _ in 0..4000 {
            now += if back != NONE { 0 } else { next(3) * 1000 };
            let cpu = if back != NONE { back as usize } else { next(4) as usize };
            let k = cpu / 2;
            if running[cpu] != NONE {
                let t = running[cpu] as usize;
                m.leave(t as u32, cpu as u32, now);
                (ran[t * 2 + k], left[t * 2 + k], on[t], running[cpu]) = (true, now, NONE, NONE);
                // Half the time the same task comes back at once (a
                // preemption undone in the same instant).
                back = if next(2) == 0 { cpu as u32 } else { NONE };
                if back != NONE {
                    back_task = t;
                }
            } else {
                let t = if back != NONE { back_task } else { next(n as u64) as usize };
                back = NONE;
                if on[t] != NONE {
                    continue;
                }
                let want = evicted_reference(&m, &ran, &left, &on, t, k, now);
                let fast = m.evicted(t, k, now);
                assert_eq!(fast.to_bits(), want.to_bits(), "task {t} on cache {k} at {now}");
                m.enter(t as u32, cpu as u32, now);
                (on[t], running[cpu]) = (cpu as u32, t as u32);
                checked += 1;
                evicting += usize::from(want > 0.0);
            }
        }
        // The walk exercised the scan, with and without evictions.
        assert!(checked > 500 && evicting > 100 && evicting < checked, "{checked} checked, {evicting} evicting");
    }

    /// Every CPU's values as a full recompute gives them (each CPU marked
    /// changed).
    fn full_recompute(m: &PlatformModel) -> PlatformModel {
        let mut f = m.clone();
        for c in 0..f.cpus.len() {
            f.cpu_moved(c);
        }
        f.recompute();
        f
    }

    /// A simulator's side of the model in a test: each CPU's job retires
    /// demand (in millionths of a ns) from `from` on; `classes` says whether
    /// the model may put jobs in rate classes.
    struct Host {
        m: PlatformModel,
        from: Vec<u64>,
        retired: Vec<u128>,
        running: Vec<u32>,
    }

    impl Host {
        fn new(spec: &Spec, classes: bool) -> Host {
            let mut m = PlatformModel::new(spec, Calibration::default()).unwrap();
            let cpus = spec.platform.cpus as usize;
            for c in 0..cpus {
                m.set_classable(c as u32, classes);
            }
            Host { m, from: vec![0; cpus], retired: vec![0; spec.tasks.len()], running: vec![NONE; cpus] }
        }

        /// What the simulator's `State::settle` does.
        fn settle(&mut self, c: usize, now: u64) {
            let t = self.running[c];
            if t == NONE || now <= self.from[c] {
                return;
            }
            let d = now - self.from[c];
            self.from[c] = now;
            if self.m.in_class(c as u32) && self.m.changed_since_mark(c as u32) {
                self.retired[t as usize] += self.m.progress(c as u32, now);
                return;
            }
            self.m.mark(c as u32, now);
            self.retired[t as usize] += d as u128 * self.m.micros(c as u32) as u128;
            self.m.account(c as u32, d);
        }

        fn update(&mut self, now: u64) {
            if !self.m.dirty() {
                return;
            }
            let n = self.running.len();
            // Each CPU's rate, whether its job was in a class, and whether
            // its job changed (in this pass, before `recompute` clears it).
            let before: Vec<(u32, bool, bool)> = (0..n)
                .map(|c| (self.m.micros(c as u32), self.m.in_class(c as u32), self.m.cpu_changed.has[c]))
                .collect();
            self.m.recompute();
            for i in 0..self.m.pending().len() {
                let c = self.m.pending()[i] as usize;
                self.settle(c, now);
            }
            let mut told = vec![None; n];
            self.m.commit(now, |c, old, new, in_class| {
                assert!(told[c as usize].replace((old, new, in_class)).is_none(), "CPU {c} told twice");
            });
            // Told of every change of a CPU's rate, except a drop while its
            // job stays in its class; with the old and new rates.
            for (c, &(old, was_in, moved)) in before.iter().enumerate() {
                let (new, in_class) = (self.m.micros(c as u32), self.m.in_class(c as u32));
                let stays = was_in && !moved && in_class;
                let expected = (new != old && !(stays && new < old)).then_some((old, new, in_class));
                assert_eq!(told[c], expected, "CPU {c} at {now}");
            }
        }

        /// Overheads: the job on `c` progresses only from `until` on.
        fn stall(&mut self, c: usize, now: u64, until: u64) {
            self.settle(c, now);
            self.from[c] = self.from[c].max(until);
            self.m.mark(c as u32, self.from[c]);
        }
    }

    #[test]
    fn rate_classes_retire_exactly_what_per_cpu_settlement_does() {
        // Alike tasks (rate classes: same colours, working set, data group
        // and write ratio) among others, two cache instances; random
        // switches and overheads; with and without classes.
        let mut body = String::new();
        let mut rng = schedlab_model::rng::Rng::new(11);
        let mut next = |n: u64| rng.below(n);
        for t in 0..14 {
            if t % 3 != 2 {
                body.push_str(&format!(
                    "  - {{name: t{t}, wcet: 1ms, period: 10ms, wss: 96KiB, colors: [0-1], write_ratio: 0.1, data_group: g}}\n"
                ));
            } else {
                let lo = next(4);
                let wss = [16, 64, 200][next(3) as usize];
                body.push_str(&format!(
                    "  - {{name: t{t}, wcet: 1ms, period: 10ms, wss: {wss}KiB, colors: [{lo}-{}], write_ratio: 0.33, data_group: h}}\n",
                    lo + next(3)
                ));
            }
        }
        let text = format!(
            "platform: {{cpus: 6, cache: {{size: 4MiB, ways: 16, line: 64B, colors: 16, shared_by: [[0, 1, 2], [3, 4, 5]]}}}}\ntasks:\n{body}"
        );
        let spec = schedlab_model::load_str(&text, None, "t.yaml").unwrap().spec;
        let (mut a, mut b) = (Host::new(&spec, true), Host::new(&spec, false));
        assert!(!a.m.clocks.is_empty());
        let mut now = 0u64;
        let (mut classed, mut through_clock) = (0, 0);
        for _ in 0..4000 {
            now += next(4) * 1000 + next(1000);
            let c = next(6) as usize;
            let pick = next(14) as u32;
            let stall = next(5) == 0;
            for h in [&mut a, &mut b] {
                if stall {
                    if h.running[c] != NONE {
                        h.stall(c, now, now + 5000);
                    }
                } else if h.running[c] != NONE {
                    h.settle(c, now);
                    h.m.leave(h.running[c], c as u32, now);
                    h.running[c] = NONE;
                } else if !h.running.contains(&pick) {
                    h.m.enter(pick, c as u32, now);
                    h.running[c] = pick;
                    h.from[c] = h.from[c].max(now);
                    h.m.mark(c as u32, h.from[c]);
                }
                h.update(now);
            }
            classed += a.m.cpus.iter().filter(|c| c.class_on != NONE).count();
            through_clock += (0..6).filter(|&c| a.m.changed_since_mark(c)).count();
            for c in 0..6 {
                assert_eq!(a.m.micros(c), b.m.micros(c), "cpu {c} at {now}");
            }
        }
        for c in 0..6 {
            a.settle(c, now + 1);
            b.settle(c, now + 1);
        }
        // The demand retired is exact; the counts round differently (sums
        // of integrals instead of stint by stint).
        assert_eq!(a.retired, b.retired);
        let close = |x: u64, y: u64| x.abs_diff(y) <= 1 + x.max(y) / 1_000_000_000;
        for t in 0..14 {
            let (ra, rb) = (a.m.task_reading(t), b.m.task_reading(t));
            assert!(close(ra.instructions, rb.instructions) && close(ra.misses, rb.misses), "{ra:?} {rb:?}");
            assert!(close(ra.hitm, rb.hitm) && close(ra.references, rb.references), "{ra:?} {rb:?}");
            assert!(close(ra.cycles, rb.cycles), "{ra:?} {rb:?}");
        }
        assert!(classed > 1000 && through_clock > 100, "{classed} classed, {through_clock} through the clock");
    }

    #[test]
    fn recomputing_only_what_changed_matches_a_full_recompute_bit_for_bit() {
        // Classes filled past their capacity and not, tasks in no group and
        // in three data groups with odd write ratios, two cache instances;
        // random switches, several per recompute.
        let mut body = String::new();
        let mut rng = schedlab_model::rng::Rng::new(7);
        let mut next = |n: u64| rng.below(n);
        for t in 0..14 {
            let lo = next(6);
            let hi = lo + next(3);
            let wss = [16, 64, 200, 640][next(4) as usize];
            let group = ["", ", data_group: g", ", data_group: h", ", data_group: i"][next(4) as usize];
            let write = [0.02, 0.1, 0.33][next(3) as usize];
            body.push_str(&format!(
                "  - {{name: t{t}, wcet: 1ms, period: 10ms, wss: {wss}KiB, colors: [{lo}-{hi}], write_ratio: {write}{group}}}\n"
            ));
        }
        let text = format!(
            "platform: {{cpus: 6, cache: {{size: 4MiB, ways: 16, line: 64B, colors: 16, shared_by: [[0, 1, 2], [3, 4, 5]]}}}}\ntasks:\n{body}"
        );
        let spec = schedlab_model::load_str(&text, None, "t.yaml").unwrap().spec;
        let mut m = PlatformModel::new(&spec, Calibration::default()).unwrap();
        let mut running = [NONE; 6];
        let (mut now, mut changed, mut skipped) = (0u64, 0, 0);
        for _ in 0..3000 {
            for _ in 0..1 + next(3) {
                now += next(3) * 1000;
                let cpu = next(6) as usize;
                if running[cpu] != NONE {
                    m.leave(running[cpu], cpu as u32, now);
                    running[cpu] = NONE;
                } else {
                    let t = next(14) as u32;
                    if !running.contains(&t) {
                        m.enter(t, cpu as u32, now);
                        running[cpu] = t;
                    }
                }
            }
            if !m.dirty() {
                continue;
            }
            let want = full_recompute(&m);
            let marked = m.cpu_changed.list().len();
            m.recompute();
            m.commit(now, |_, _, _, _| {});
            let mut f = want;
            f.commit(now, |_, _, _, _| {});
            for c in 0..6 {
                let bits = |v: &PlatformModel| {
                    let (cap, coh, f, rate) = v.values(c);
                    (cap.to_bits(), coh.to_bits(), f.to_bits(), rate.to_bits(), v.cpus[c].micros)
                };
                assert_eq!(bits(&m), bits(&f), "cpu {c} at {now}");
            }
            changed += usize::from(m.cpus.iter().any(|c| c.micros != MICROS));
            skipped += usize::from(marked < 6);
        }
        // Slowdowns happened, and recomputes that skipped CPUs were checked.
        assert!(changed > 300 && skipped > 300, "{changed} slowed, {skipped} partial");
    }
}
