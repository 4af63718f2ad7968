//! A run's plan: the spec and configuration checked against this machine and
//! the backend, the policy admitted (placement, priority order), and every
//! task's workload built — all before anything on the machine is touched,
//! so bad input stops here with exit code 2.

use crate::calibrate::Calibration;
use crate::colour::{ColouredBuffer, ColouredTask, Colouring, Geometry};
use crate::config::RunConfig;
use crate::error::RunError;
use crate::workload::{self, JobBody, WorkloadSpec};
use schedlab_model::{Placement, PolicyName, Spec};
use schedlab_policy::{JobId, JobView, PolicyInfo};

/// A task as the runtime runs it.
#[derive(Debug, Clone)]
pub struct TaskPlan {
    pub index: usize,
    pub name: String,
    pub wcet: u64,
    pub period: u64,
    pub deadline: u64,
    pub placement: Placement,
    /// Rank in the policy's fixed-priority order (0: highest); for dynamic
    /// priority policies, the deadline-monotonic rank.
    pub rank: usize,
    pub workload: WorkloadSpec,
    /// Job timeout for the watchdog (ns).
    pub timeout: u64,
}

pub struct Plan {
    pub spec: Spec,
    pub config: RunConfig,
    pub policy: PolicyName,
    pub info: PolicyInfo,
    pub tasks: Vec<TaskPlan>,
    /// Online CPUs of this machine.
    pub online: Vec<u32>,
    pub calibration: Calibration,
    /// The job bodies, built (libraries loaded, buffers prefaulted); taken by the workers.
    pub bodies: Vec<Option<Box<dyn JobBody>>>,
    /// What page colouring found and did, when a task has `colors`.
    pub colouring: Option<Colouring>,
    /// Per MTT of the spec, the address range of the working set its
    /// threads walk (`None`: its workload has no buffer the runtime knows).
    pub mtt_ranges: Vec<Option<(usize, usize)>>,
}

impl std::fmt::Debug for Plan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Plan").field("policy", &self.policy).field("tasks", &self.tasks).finish()
    }
}

fn bad(m: impl Into<String>) -> RunError {
    RunError::BadInput(m.into())
}

impl Plan {
    /// Checks and admits. `calibration` is the spin calibration to use.
    pub fn new(spec: &Spec, config: &RunConfig, calibration: Calibration) -> Result<Plan, RunError> {
        let Some(pol) = &spec.policy else {
            return Err(bad("the spec has no `policy`; add e.g. `policy: {name: gedf}`"));
        };
        if config.duration == 0 {
            return Err(bad("--duration must be positive"));
        }
        if spec.tasks.is_empty() {
            return Err(bad("the spec has no tasks"));
        }
        let online = crate::sched::online_cpus();
        let m = spec.platform.cpus;
        for c in 0..m {
            if !online.contains(&c) {
                return Err(bad(format!(
                    "platform.cpus is {m} but this machine has {} online CPU(s) ({}); a run needs CPUs 0..{} online",
                    online.len(),
                    crate::sched::format_cpu_list(&online),
                    m - 1
                )));
            }
        }
        let policy = schedlab_policy::build(spec, None).map_err(|e| bad(e.to_string()))?;
        let info = policy.info().clone();
        // Priority order (the policy's own, at a job's release; deadline-monotonic for EDF-like ones).
        let mut keys: Vec<(schedlab_policy::Priority, usize)> = spec
            .tasks
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let v = JobView {
                    id: JobId { task: i as u32, seq: 0 },
                    release: 0,
                    deadline: t.deadline().0,
                    consumed: 0,
                    now: 0,
                };
                let p = policy.priority(&v).unwrap_or(schedlab_policy::Priority::new(
                    t.deadline().0 as i128,
                    t.period.0 as i128,
                    i as u32,
                ));
                (p, i)
            })
            .collect();
        keys.sort();
        let mut rank = vec![0; spec.tasks.len()];
        for (r, (_, i)) in keys.iter().enumerate() {
            rank[*i] = r;
        }
        let line = spec.platform.cache.as_ref().map_or(64, |c| c.line.0.max(8));
        let mut colouring = match &spec.platform.cache {
            Some(c) if spec.tasks.iter().any(|t| t.colors.is_some()) => Some(Colouring::detect(Geometry::of_spec(c))),
            _ => None,
        };
        // Cache allocation: the colour groups' resctrl masks, decided (and a
        // machine that cannot give them refused) before anything is changed.
        if let Some(col) = &mut colouring {
            if let crate::colour::Resctrl::L3(l3) = &col.resctrl {
                let a = crate::colour::resctrl::for_spec(spec, col.geometry.colours, l3, std::process::id());
                col.allocation = Some(a.map_err(bad)?);
            }
        }
        // Shared-data groups: one set of lines per group, as large as the
        // group's largest working set (memwalk tasks write it at their write ratio).
        let mut groups: std::collections::HashMap<&str, std::sync::Arc<workload::memwalk::SharedLines>> =
            Default::default();
        for t in &spec.tasks {
            if let Some(g) = &t.data_group {
                let size = spec
                    .tasks
                    .iter()
                    .filter(|u| u.data_group.as_ref() == Some(g))
                    .filter_map(|u| u.wss.map(|w| w.0))
                    .max()
                    .unwrap_or(4096)
                    .min(4 << 30);
                groups.entry(g.as_str()).or_insert_with(|| workload::memwalk::SharedLines::new(size, line));
            }
        }
        // Multithreaded tasks: one working set per MTT, walked by its threads.
        let mtt_of = spec.mtt_of_tasks();
        let mut mtt_sets: std::collections::HashMap<
            usize,
            (workload::memwalk::Pattern, std::sync::Arc<workload::memwalk::SharedSet>),
        > = Default::default();
        let mut tasks = Vec::new();
        let mut bodies: Vec<Option<Box<dyn JobBody>>> = Vec::new();
        for (i, t) in spec.tasks.iter().enumerate() {
            let w = config.workload_of(i).clone();
            let body: Box<dyn JobBody> = match &w {
                WorkloadSpec::Spin => Box::new(workload::spin::Spin),
                WorkloadSpec::SpinCpu => Box::new(workload::spin::SpinCpu),
                WorkloadSpec::MemWalk(p) if mtt_of[i].is_some() => {
                    let k = mtt_of[i].expect("guarded");
                    let m = &spec.mtts()[k];
                    let Some(wss) = spec.mtt_wss(k) else {
                        return Err(bad(format!(
                            "tasks[{i}] ({}): the memwalk workload walks the working set of its MTT `{}`, which has no `wss`; give mtt[{k}] a `wss`",
                            t.name, m.name
                        )));
                    };
                    if wss.0 > 4 << 30 {
                        return Err(bad(format!("mtt[{k}].wss: {} bytes is over the runtime's 4 GiB limit", wss.0)));
                    }
                    if t.colors.is_some() {
                        return Err(bad(format!(
                            "tasks[{i}] ({}): the memwalk workload does not colour the shared working set of an MTT (`{}`); remove the task's `colors` or take it out of the MTT",
                            t.name, m.name
                        )));
                    }
                    let (pattern, set) = mtt_sets.entry(k).or_insert_with(|| {
                        (*p, workload::memwalk::SharedSet::new(wss.0, line, *p, config.seed ^ (k as u64) << 32))
                    });
                    if pattern != p {
                        return Err(bad(format!(
                            "tasks[{i}] ({}): the threads of MTT `{}` walk one working set, in one pattern; give them the same memwalk pattern",
                            t.name, m.name
                        )));
                    }
                    let threads = spec.mtt_tasks(k);
                    let at = threads.iter().position(|&j| j == i).unwrap_or(0);
                    let walk = workload::memwalk::MemWalk::shared_set(set.clone(), at, threads.len());
                    let r = t.write_ratio().as_f64();
                    match t.data_group.as_deref().and_then(|g| groups.get(g)) {
                        Some(shared) if r > 0.0 => {
                            Box::new(walk.with_shared(shared.clone(), workload::memwalk::every_for_ratio(r)))
                        }
                        _ => Box::new(walk),
                    }
                }
                WorkloadSpec::MemWalk(p) => {
                    let Some(wss) = t.wss else {
                        return Err(bad(format!(
                            "tasks[{i}] ({}): the memwalk workload needs the task's `wss`",
                            t.name
                        )));
                    };
                    if wss.0 > 4 << 30 {
                        return Err(bad(format!("tasks[{i}].wss: {} bytes is over the runtime's 4 GiB limit", wss.0)));
                    }
                    let walk: workload::memwalk::MemWalk = match (&t.colors, &mut colouring) {
                        (Some(colors), Some(col)) => {
                            let buf = coloured_buffer(i, &t.name, wss.0, colors, &col.geometry)?;
                            let verification = buf.verify(colors, &col.geometry).map_err(|e| {
                                RunError::System(format!("tasks[{i}] ({}): verifying its colours: {e}", t.name))
                            })?;
                            col.tasks.push(ColouredTask {
                                task: i,
                                name: t.name.clone(),
                                wanted: colors.to_string(),
                                verification,
                                scanned: buf.scanned,
                            });
                            workload::memwalk::MemWalk::coloured(buf, wss.0, line, *p, config.seed ^ i as u64)
                        }
                        _ => workload::memwalk::MemWalk::new(wss.0, line, *p, config.seed ^ i as u64),
                    };
                    let r = t.write_ratio().as_f64();
                    match t.data_group.as_deref().and_then(|g| groups.get(g)) {
                        Some(shared) if r > 0.0 => {
                            Box::new(walk.with_shared(shared.clone(), workload::memwalk::every_for_ratio(r)))
                        }
                        _ => Box::new(walk),
                    }
                }
                WorkloadSpec::Prem => {
                    let Some(wss) = t.wss else {
                        return Err(bad(format!(
                            "tasks[{i}] ({}): the prem workload needs the task's `wss` (its data, cut into its Sections)",
                            t.name
                        )));
                    };
                    if wss.0 > 4 << 30 {
                        return Err(bad(format!("tasks[{i}].wss: {} bytes is over the runtime's 4 GiB limit", wss.0)));
                    }
                    let amp = t.memory_mode() == schedlab_model::MemoryMode::Amp;
                    Box::new(workload::prem::Prem::new(wss.0, &t.segments(), amp))
                }
                WorkloadSpec::CFunction { library, symbol, arg } => {
                    let lib = if library.contains('/') && !library.starts_with('/') {
                        config.spec_dir.join(library).to_string_lossy().into_owned()
                    } else {
                        library.clone()
                    };
                    Box::new(
                        workload::dynlib::CFunction::load(&lib, symbol, arg.as_deref())
                            .map_err(|e| bad(format!("tasks[{i}] ({}): {e}", t.name)))?,
                    )
                }
                WorkloadSpec::Command { argv } => {
                    if !config.allow_command {
                        return Err(bad(format!(
                            "tasks[{i}] ({}): the workload runs an external command ({}); pass --allow-command to allow it",
                            t.name,
                            argv.join(" ")
                        )));
                    }
                    Box::new(workload::command::Command { argv: argv.clone() })
                }
                WorkloadSpec::Rust { make, .. } => make(i as u32),
            };
            if let (Some(col), Some(_), false) = (&mut colouring, &t.colors, matches!(w, WorkloadSpec::MemWalk(_))) {
                col.uncoloured.push(t.name.clone());
            }
            bodies.push(Some(body));
            let period = t.period.0;
            let deadline = t.deadline().0;
            tasks.push(TaskPlan {
                index: i,
                name: t.name.clone(),
                wcet: t.wcet.0,
                period,
                deadline,
                placement: info.placement[i].clone(),
                rank: rank[i],
                workload: w,
                timeout: config.job_timeout.unwrap_or_else(|| (20 * period + deadline).max(5_000_000_000)),
            });
        }
        let mtt_ranges = (0..spec.mtts().len()).map(|k| mtt_sets.get(&k).map(|(_, set)| set.range())).collect();
        Ok(Plan {
            spec: spec.clone(),
            config: config.clone(),
            policy: pol.name,
            info,
            tasks,
            online,
            calibration,
            bodies,
            colouring,
            mtt_ranges,
        })
    }

    /// CPUs a task may run on.
    pub fn cpus_of(&self, task: usize) -> Vec<u32> {
        match &self.tasks[task].placement {
            Placement::Global => (0..self.spec.platform.cpus).collect(),
            Placement::Cpu { cpu } => vec![*cpu],
            Placement::Cluster { cpus, .. } => cpus.clone(),
        }
    }

    /// Expected records per task (ring sizing).
    pub fn expected_jobs(&self, task: usize) -> u64 {
        let t = &self.tasks[task];
        self.config.duration / t.period.max(1) + 2
    }
}

/// The working set of task `i` in frames of `colors`: needs CAP_SYS_ADMIN
/// (physical frames), checked before anything is allocated.
fn coloured_buffer(
    i: usize,
    name: &str,
    wss: u64,
    colors: &schedlab_model::ColorSet,
    g: &Geometry,
) -> Result<ColouredBuffer, RunError> {
    if !crate::privilege::has_cap(crate::privilege::CAP_SYS_ADMIN) {
        return Err(RunError::Privilege(format!(
            "tasks[{i}].colors ({name}): page colouring reads physical frames from /proc/self/pagemap, which needs CAP_SYS_ADMIN; run as root, or remove the task's `colors`. Nothing was changed."
        )));
    }
    ColouredBuffer::allocate(wss, colors, g).map_err(|e| match e {
        crate::colour::ColourError::TooLarge { .. }
        | crate::colour::ColourError::NoColour
        | crate::colour::ColourError::Memory { .. } => bad(format!("tasks[{i}].colors ({name}): {e}")),
        crate::colour::ColourError::Pagemap(crate::colour::pagemap::PagemapError::Hidden) => {
            RunError::Privilege(format!("tasks[{i}].colors ({name}): {e}; run as root. Nothing was changed."))
        }
        e => RunError::System(format!("tasks[{i}].colors ({name}): allocating its working set in its colours: {e}")),
    })
}
