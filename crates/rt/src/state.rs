//! A snapshot of the machine state a run may touch, to check that a run
//! left the machine as it found it: real-time threads of this process,
//! schedlab cpusets, RT groups and resctrl groups, tracefs mount and schedlab instances, the root
//! cpuset's load balancing, the RT throttling settings and the CPU wake-up latency limit (PM QoS); and for the
//! crash tests every cpuset with its CPUs and flags and the crash journals left in `/run/schedlab`.

use crate::sched;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MachineState {
    /// (tid, policy, priority, affinity) of this process's threads at a real-time policy.
    pub realtime_threads: Vec<(i32, u32, u32, Vec<u32>)>,
    pub cpusets: Vec<String>,
    /// schedlab RT groups (cgroups of the `cpu` hierarchy) left on the machine.
    pub rt_groups: Vec<String>,
    /// schedlab resctrl groups (cache allocation) left on the machine.
    pub cache_groups: Vec<String>,
    pub tracefs_mounted: bool,
    pub trace_instances: Vec<String>,
    pub root_load_balance: Option<String>,
    pub rt_runtime_us: Option<String>,
    pub rt_period_us: Option<String>,
    /// The CPU wake-up latency limit in force (µs, `/dev/cpu_dma_latency`).
    pub idle_latency_limit_us: Option<i32>,
    /// Every cpuset (two levels below the root): `path cpus=.. cpu_exclusive=.. sched_load_balance=..`.
    pub cpuset_tree: Vec<String>,
    /// Crash journals in the journal directory.
    pub journals: Vec<String>,
}

fn cpuset_tree() -> Vec<String> {
    let Some(fs) = crate::cpuset::detect() else { return Vec::new() };
    let root = fs.root().to_path_buf();
    let mut out = Vec::new();
    let mut todo = vec![(root.clone(), 0)];
    while let Some((d, depth)) = todo.pop() {
        let f = |name: &str| read(&d.join(name).to_string_lossy()).unwrap_or_default();
        out.push(format!(
            "{} cpus={} cpu_exclusive={} sched_load_balance={} partition={}",
            d.strip_prefix(&root).map(|p| p.display().to_string()).unwrap_or_default(),
            f("cpuset.cpus"),
            f("cpuset.cpu_exclusive"),
            f("cpuset.sched_load_balance"),
            f("cpuset.cpus.partition"),
        ));
        if depth < 2 {
            if let Ok(rd) = std::fs::read_dir(&d) {
                for e in rd.flatten() {
                    if e.file_type().is_ok_and(|t| t.is_dir()) {
                        todo.push((e.path(), depth + 1));
                    }
                }
            }
        }
    }
    out.sort();
    out
}

fn read(p: &str) -> Option<String> {
    std::fs::read_to_string(p).ok().map(|s| s.trim().to_string())
}

impl MachineState {
    pub fn capture() -> MachineState {
        let mut rt = Vec::new();
        if let Ok(rd) = std::fs::read_dir("/proc/self/task") {
            for t in rd.flatten() {
                if let Ok(tid) = t.file_name().to_string_lossy().parse::<i32>() {
                    if let Ok(a) = sched::get_attr(tid) {
                        if sched::is_realtime(a.policy) {
                            rt.push((
                                tid,
                                a.policy,
                                a.priority,
                                sched::get_affinity(tid).map(|s| s.cpus()).unwrap_or_default(),
                            ));
                        }
                    }
                }
            }
        }
        let tracefs = crate::ftrace::find_mount();
        let instances = tracefs
            .as_ref()
            .and_then(|p| std::fs::read_dir(p.join("instances")).ok())
            .map(|rd| {
                rd.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .filter(|n| n.starts_with("schedlab-"))
                    .collect()
            })
            .unwrap_or_default();
        let lb = crate::cpuset::detect().and_then(|fs| match fs {
            crate::cpuset::CpusetFs::V1 { root } => read(&root.join("cpuset.sched_load_balance").to_string_lossy()),
            crate::cpuset::CpusetFs::V2 { .. } => None,
        });
        MachineState {
            realtime_threads: rt,
            cpusets: crate::cpuset::leftovers().iter().map(|p| p.display().to_string()).collect(),
            rt_groups: crate::rtgroup::leftovers().iter().map(|p| p.display().to_string()).collect(),
            cache_groups: crate::colour::resctrl::leftovers(std::path::Path::new(crate::colour::resctrl::ROOT))
                .iter()
                .map(|p| p.display().to_string())
                .collect(),
            tracefs_mounted: tracefs.is_some(),
            trace_instances: instances,
            root_load_balance: lb,
            rt_runtime_us: read("/proc/sys/kernel/sched_rt_runtime_us"),
            rt_period_us: read("/proc/sys/kernel/sched_rt_period_us"),
            idle_latency_limit_us: crate::idle::current_limit_us(),
            cpuset_tree: cpuset_tree(),
            journals: {
                let mut v: Vec<String> = std::fs::read_dir(crate::journal::dir())
                    .map(|rd| rd.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
                    .unwrap_or_default();
                v.sort();
                v
            },
        }
    }
}
