//! Every constraint a spec must meet, checked on the typed values. Errors make
//! a spec unusable; warnings describe legal but notable input (an infeasible
//! task set is legal: such sets are studied).

use crate::exact::Ratio;
use crate::spec::{Domains, Group, MemoryMode, Packing, PolicyName, Priorities, SegmentKind, Spec, Task};
use crate::units::{Duration, Size};
use std::collections::HashMap;

/// Largest platform accepted.
pub const MAX_CPUS: u32 = 4096;
/// Longest task name accepted.
pub const MAX_NAME: usize = 128;

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

/// A finding with its field path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issue {
    pub severity: Severity,
    pub path: String,
    pub message: String,
}

struct Findings(Vec<Issue>);

impl Findings {
    fn error(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.0.push(Issue { severity: Severity::Error, path: path.into(), message: message.into() });
    }
    fn warn(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.0.push(Issue { severity: Severity::Warning, path: path.into(), message: message.into() });
    }
}

/// A task's `segments` or `subjobs`: one of the two, not empty, every
/// length above 0, some CPU time, and the CPU lengths adding up to `wcet`
/// (which the loader derives from them when it is left out).
fn segments(f: &mut Findings, i: usize, t: &Task) {
    let at = |field: &str| format!("tasks[{i}].{field}");
    match (&t.segments, &t.subjobs) {
        (None, None) => return,
        (Some(_), Some(_)) => {
            f.error(
                at("subjobs"),
                "cannot be given with `segments`; write each subjob as an `{exec: ...}` segment, or keep one of the two keys",
            );
            return;
        }
        (Some(list), None) => {
            if list.is_empty() {
                f.error(
                    at("segments"),
                    "is empty; give at least one segment, e.g. `[{exec: 2ms}]`, or leave the key out",
                );
                return;
            }
            for (j, s) in list.iter().enumerate() {
                if s.length.0 == 0 {
                    f.error(
                        format!("tasks[{i}].segments[{j}].{}", s.kind.name()),
                        "must be more than 0, e.g. `1ms`; remove the segment if the job has no such phase",
                    );
                }
            }
            if !list.iter().any(|s| s.kind.on_cpu()) {
                f.error(
                    at("segments"),
                    "has only suspensions; a job needs at least one `exec` or `memory` segment, e.g. `{exec: 1ms}`",
                );
                return;
            }
        }
        (None, Some(list)) => {
            if list.is_empty() {
                f.error(
                    at("subjobs"),
                    "is empty; give at least one subjob length, e.g. `[1ms, 2ms]`, or leave the key out",
                );
                return;
            }
            for (j, d) in list.iter().enumerate() {
                if d.0 == 0 {
                    f.error(format!("tasks[{i}].subjobs[{j}]"), "must be more than 0, e.g. `1ms`; remove the subjob");
                }
            }
        }
    }
    let key = if t.segments.is_some() { "segments" } else { "subjobs" };
    let cpu = t.segments_cpu().unwrap_or(0);
    if cpu > u64::MAX as u128 {
        f.error(at(key), format!("the CPU lengths add up to more than the largest duration, {}", Duration(u64::MAX)));
    } else if t.wcet.0 > 0 && cpu != t.wcet.0 as u128 {
        f.error(
            at("wcet"),
            format!(
                "is {} but the {} add up to {} of CPU time (exec and memory); make them equal, or leave `wcet` out to take the total",
                t.wcet,
                if key == "segments" { "CPU segments" } else { "subjobs" },
                Duration(cpu as u64)
            ),
        );
    }
}

/// Memory-centric scheduling: the master CPU exists, memory priorities are
/// on every task or none and at least 1, every task's segments form PREM
/// Sections, an `amp` task starts with a prefetch; the PREM fields under
/// another policy are ignored (a warning).
fn mcs(f: &mut Findings, spec: &Spec) {
    let Some(pol) = &spec.policy else { return };
    let m = spec.platform.cpus;
    if pol.name != PolicyName::Mcs {
        for (i, t) in spec.tasks.iter().enumerate() {
            if t.memory_mode() == MemoryMode::Amp {
                f.error(
                    format!("tasks[{i}].memory_mode"),
                    format!(
                        "`amp` needs the memory-phase worker of `mcs` (it runs the job's later memory phases), and `{}` has none; use `smp` or the `mcs` policy",
                        pol.name.name()
                    ),
                );
            }
        }
        let prem_fields = |t: &Task| t.memory_priority.is_some() || t.memory_mode == Some(MemoryMode::Smp);
        let named: Vec<&str> = spec.tasks.iter().filter(|t| prem_fields(t)).map(|t| t.name.as_str()).collect();
        if !named.is_empty() {
            f.warn(
                "tasks",
                format!(
                    "`{}` has no memory-phase scheduler: the `memory_priority` and `memory_mode` of {} are ignored (use `mcs`, or remove them)",
                    pol.name.name(),
                    named.join(", ")
                ),
            );
        }
        return;
    }
    if let Some(c) = pol.master {
        if c >= m && m > 0 {
            f.error("policy.master", format!("CPU {c} does not exist; the platform has CPUs 0 to {}", m - 1));
        }
    }
    let given = spec.tasks.iter().filter(|t| t.memory_priority.is_some()).count();
    if given > 0 && given < spec.tasks.len() {
        let without: Vec<&str> =
            spec.tasks.iter().filter(|t| t.memory_priority.is_none()).map(|t| t.name.as_str()).collect();
        f.error(
            "tasks",
            format!(
                "some tasks have a `memory_priority` and {} do not ({}); give every task one, or none (the task priorities' order)",
                without.len(),
                without.join(", ")
            ),
        );
    }
    let amp_count = spec.tasks.iter().filter(|t| t.memory_mode() == MemoryMode::Amp).count();
    for (i, t) in spec.tasks.iter().enumerate() {
        if t.memory_priority == Some(0) {
            f.error(format!("tasks[{i}].memory_priority"), "must be at least 1 (1 is the highest memory priority)");
        }
        let segs = t.segments();
        match crate::spec::prem::sections(&segs) {
            Err(e) => {
                let field = if t.segments.is_some() { "segments" } else { "subjobs" };
                f.error(format!("tasks[{i}].{field}[{}]", e.segment), e.message);
            }
            Ok(secs) => {
                if t.memory_mode() == MemoryMode::Amp && secs.first().is_none_or(|s| s.prefetch.0 == 0) {
                    f.error(
                        format!("tasks[{i}].memory_mode"),
                        "`amp` needs a job that starts with a prefetch (`{memory: ..}` before the first `exec`): the job runs it, the worker the later phases; add one or use `smp`",
                    );
                }
            }
        }
    }
    if amp_count > 0 && pol.mps == Some(false) {
        f.error(
            "policy.mps",
            "is false (the Contention baseline, no memory-phase scheduler), so nothing runs the memory-phase worker of the `amp` tasks; set `memory_mode: smp` on them or remove `mps: false`",
        );
    }
}

/// Lists of CPU numbers that must hold every CPU of `m` exactly once.
fn cpu_groups(f: &mut Findings, path: &str, groups: &[Vec<u32>], m: u32) {
    if groups.is_empty() {
        f.error(path, "is empty; give at least one list of CPUs or leave the key out");
        return;
    }
    let mut owner: HashMap<u32, usize> = HashMap::new();
    for (k, group) in groups.iter().enumerate() {
        if group.is_empty() {
            f.error(format!("{path}[{k}]"), "needs at least one CPU");
        }
        for (j, &c) in group.iter().enumerate() {
            if c >= m {
                f.error(
                    format!("{path}[{k}][{j}]"),
                    format!("CPU {c} does not exist; CPUs are 0 to {}", m.saturating_sub(1)),
                );
            } else if let Some(prev) = owner.insert(c, k) {
                f.error(
                    format!("{path}[{k}][{j}]"),
                    format!("CPU {c} is already in {path}[{prev}]; the lists must not overlap"),
                );
            }
        }
    }
    if m <= MAX_CPUS {
        let missing: Vec<String> = (0..m).filter(|c| !owner.contains_key(c)).map(|c| c.to_string()).take(8).collect();
        if !missing.is_empty() {
            f.error(
                path,
                format!("CPU(s) {} are in no list; the lists must hold every CPU exactly once", missing.join(", ")),
            );
        }
    }
}

/// Checks every constraint; errors first, in document order, then warnings.
pub fn validate(spec: &Spec) -> Vec<Issue> {
    let mut f = Findings(Vec::new());
    let p = &spec.platform;
    let m = p.cpus;
    if m == 0 || m > MAX_CPUS {
        f.error("platform.cpus", format!("must be between 1 and {MAX_CPUS}, got {m}"));
    }
    if let Some(clusters) = &p.clusters {
        let mut owner: HashMap<u32, usize> = HashMap::new();
        for (k, cluster) in clusters.iter().enumerate() {
            if cluster.is_empty() {
                f.error(format!("platform.clusters[{k}]"), "a cluster needs at least one CPU");
            }
            for (j, &c) in cluster.iter().enumerate() {
                if c >= m && m > 0 {
                    f.error(
                        format!("platform.clusters[{k}][{j}]"),
                        format!("CPU {c} does not exist; CPUs are 0 to {}", m.saturating_sub(1)),
                    );
                } else if c >= m {
                    // Reported through platform.cpus.
                } else if let Some(prev) = owner.insert(c, k) {
                    f.error(
                        format!("platform.clusters[{k}][{j}]"),
                        format!("CPU {c} is already in cluster {prev}; clusters must not overlap"),
                    );
                }
            }
        }
        if m > 0 && m <= MAX_CPUS {
            let missing: Vec<String> =
                (0..m).filter(|c| !owner.contains_key(c)).map(|c| c.to_string()).take(8).collect();
            if !missing.is_empty() && !clusters.is_empty() {
                f.error(
                    "platform.clusters",
                    format!(
                        "CPU(s) {} are in no cluster; the clusters must hold every CPU exactly once",
                        missing.join(", ")
                    ),
                );
            }
        }
        if clusters.is_empty() {
            f.error("platform.clusters", "is empty; give at least one cluster or leave the key out");
        }
    }
    if let Some(cache) = &p.cache {
        if cache.size.0 == 0 {
            f.error("platform.cache.size", "must be more than 0, e.g. `8MiB`");
        }
        if cache.ways == 0 {
            f.error("platform.cache.ways", "must be at least 1, e.g. `16`");
        }
        if !cache.line.0.is_power_of_two() {
            f.error("platform.cache.line", format!("must be a power of two, e.g. `64B`, got {}", cache.line));
        }
        let page = cache.page();
        if !page.0.is_power_of_two() || page.0 < cache.line.0 {
            f.error(
                "platform.cache.page",
                format!("must be a power of two no smaller than the line, e.g. `4KiB`, got {page}"),
            );
        }
        let way_bytes = cache.ways as u64 * cache.line.0;
        if cache.size.0 != 0 && way_bytes != 0 && cache.size.0 % way_bytes != 0 {
            f.error(
                "platform.cache.size",
                format!("{} is not a multiple of ways × line ({} × {})", cache.size, cache.ways, cache.line),
            );
        }
        if let Some(c) = cache.colors {
            let g = cache.geometric_colors();
            if c == 0 {
                f.error("platform.cache.colors", "must be at least 1");
            } else if g != 0 && c as u64 > g {
                f.error(
                    "platform.cache.colors",
                    format!("{c} colours exceed what the geometry gives (size / (ways × page) = {g}); use at most {g}"),
                );
            }
        }
        if let Some(groups) = &cache.shared_by {
            cpu_groups(&mut f, "platform.cache.shared_by", groups, m);
        }
        if cache.private == Some(crate::units::Size(0)) {
            f.error("platform.cache.private", "must be more than 0, e.g. `256KiB`, or left out (no private level)");
        }
    }
    if let Some(mem) = &p.memory {
        if mem.bandwidth.is_some_and(|b| b.0 == 0) {
            f.error("platform.memory.bandwidth", "must be more than 0, e.g. `16GiB/s`, or left out (unlimited)");
        }
        if p.cache.is_none() && mem.bandwidth.is_some() {
            f.error(
                "platform.memory.bandwidth",
                "needs `platform.cache` (only cache misses use memory bandwidth in the platform model); describe the cache or remove the bandwidth",
            );
        }
    }

    if spec.tasks.is_empty() {
        f.error("tasks", "the task set is empty; add at least one task");
    }
    let mut names: HashMap<&str, usize> = HashMap::new();
    for (i, t) in spec.tasks.iter().enumerate() {
        let at = |field: &str| format!("tasks[{i}].{field}");
        if t.name.trim().is_empty() {
            f.error(at("name"), "must not be empty");
        } else if t.name.chars().count() > MAX_NAME || t.name.chars().any(char::is_control) {
            f.error(at("name"), format!("must be at most {MAX_NAME} printable characters"));
        } else if let Some(prev) = names.insert(t.name.as_str(), i) {
            f.error(at("name"), format!("`{}` is already the name of tasks[{prev}]; names must be unique", t.name));
        }
        if t.wcet.0 == 0 && t.segmented() {
            // A derived 0 (segments without CPU time) is reported on the segments.
            if t.segments_cpu() != Some(0) {
                f.error(at("wcet"), "must be more than 0; leave it out to take the CPU total of the segments");
            }
        } else if t.wcet.0 == 0 {
            f.error(at("wcet"), "must be more than 0, e.g. `1ms`");
        }
        segments(&mut f, i, t);
        if t.period.0 == 0 {
            f.error(at("period"), "must be more than 0, e.g. `10ms`");
        }
        if t.deadline == Some(crate::units::Duration::ZERO) {
            f.error(at("deadline"), "must be more than 0 (leave it out for deadline = period)");
        }
        if let Some(b) = t.bcet {
            if b > t.wcet {
                f.error(
                    at("bcet"),
                    format!("{b} exceeds the WCET {}; the best case is at most the worst case", t.wcet),
                );
            }
        }
        if let Some(list) = &t.executions {
            if list.is_empty() {
                f.error(at("executions"), "is empty; give at least one execution time or leave the key out");
            }
            for (j, e) in list.iter().enumerate() {
                if e.0 == 0 {
                    f.error(format!("tasks[{i}].executions[{j}]"), "must be more than 0");
                }
            }
        }
        if let Some(c) = t.cpu {
            if c >= m && m > 0 {
                f.error(
                    at("cpu"),
                    format!("CPU {c} does not exist; the platform has CPUs 0 to {}", m.saturating_sub(1)),
                );
            }
        }
        if let Some(k) = t.cluster {
            match &p.clusters {
                None => f.error(at("cluster"), "needs `platform.clusters`; define the clusters or pin with `cpu`"),
                Some(cl) if k as usize >= cl.len() => f.error(
                    at("cluster"),
                    format!("cluster {k} does not exist; clusters are 0 to {}", cl.len().saturating_sub(1)),
                ),
                Some(cl) => {
                    if let Some(c) = t.cpu {
                        if !cl[k as usize].contains(&c) {
                            f.error(
                                at("cpu"),
                                format!(
                                    "CPU {c} is not in the task's cluster {k} ({:?}); pick a CPU of that cluster",
                                    cl[k as usize]
                                ),
                            );
                        }
                    }
                }
            }
        }
        if let Some(g) = &t.data_group {
            if g.trim().is_empty() || g.chars().count() > MAX_NAME || g.chars().any(char::is_control) {
                f.error(at("data_group"), format!("must be a name of 1 to {MAX_NAME} printable characters, e.g. `g0`"));
            } else if p.cache.is_none() {
                f.error(
                    at("data_group"),
                    "needs `platform.cache` (shared data is modelled in the shared cache); describe the cache or remove the group",
                );
            }
        }
        if t.write_ratio.is_some() && p.cache.is_none() {
            f.error(
                at("write_ratio"),
                "needs `platform.cache` (writes matter only to the cache model); describe the cache or remove the ratio",
            );
        }
        if let Some(colors) = &t.colors {
            match &p.cache {
                None => f.error(at("colors"), "needs `platform.cache`; describe the cache or remove the colours"),
                Some(cache) => {
                    let n = cache.colors();
                    if let Some(max) = colors.max() {
                        if max as u64 >= n {
                            f.error(
                                at("colors"),
                                format!(
                                    "colour {max} does not exist; the cache has colours 0 to {}",
                                    n.saturating_sub(1)
                                ),
                            );
                        }
                    }
                }
            }
        }
    }

    if let Some(pol) = &spec.policy {
        let name = pol.name.name();
        let domains = pol.name.domains();
        // Each policy takes only its own parameters (its descriptor's).
        if let Ok(serde_json::Value::Object(set)) = serde_json::to_value(pol) {
            for key in set.keys().filter(|k| *k != "name") {
                if pol.name.descriptor().param(key).is_none() {
                    f.error(format!("policy.{key}"), format!("{}; remove the key", not_a_param(key, pol.name)));
                }
            }
        }
        if pol.name == PolicyName::Run && matches!(pol.partitioning, Some(Packing::Cap | Packing::CapGs)) {
            f.error(
                "policy.partitioning",
                "`run` packs servers by utilisation; use one of ff, bf, wf, nf, ffd, bfd, wfd, nfd (default wfd)",
            );
        }
        // CAP's options mean something only under CAP (or CAP-GS).
        let dynamic = pol.name == PolicyName::CapGsDynamic;
        let colour_aware = matches!(pol.partitioning, Some(Packing::Cap | Packing::CapGs)) || dynamic;
        if dynamic && !matches!(pol.partitioning, None | Some(Packing::Cap | Packing::CapGs)) {
            f.error(
                "policy.partitioning",
                "`cap-gs-dynamic` partitions colour-aware; use `cap-gs` (the default) or `cap`",
            );
        }
        mcs(&mut f, spec);
        if let Some([lo, hi]) = pol.throttle_range {
            if lo > hi {
                f.error("policy.throttle_range", format!("[{lo}, {hi}] is empty; write it as [{hi}, {lo}]"));
            }
        }
        for (key, set) in [
            ("capacity", pol.capacity.is_some()),
            ("group_packing", pol.group_packing.is_some()),
            ("memory_total", pol.memory_total.is_some()),
        ] {
            if set && !colour_aware {
                f.error(
                    format!("policy.{key}"),
                    "applies to colour-aware partitioning only; add `partitioning: cap` (or `cap-gs`) or remove the key",
                );
            }
        }
        let cap_gs = pol.partitioning == Some(Packing::CapGs) || (dynamic && pol.partitioning.is_none());
        if pol.srt_on_hrt_cores.is_some() && !cap_gs {
            f.error("policy.srt_on_hrt_cores", "applies to `partitioning: cap-gs` only; add it or remove the key");
        }
        if matches!(pol.group_packing, Some(Packing::Cap | Packing::CapGs)) {
            f.error(
                "policy.group_packing",
                "packs the colour groups with a bin-packing rule; use one of ff, bf, wf, nf, ffd, bfd, wfd, nfd",
            );
        }
        if pol.memory_total.is_some_and(|m| m.0 == 0) {
            f.error("policy.memory_total", "must be more than 0, e.g. `64MiB`");
        }
        match pol.quantum {
            Some(q) if q.0 == 0 && (matches!(pol.name, PolicyName::Pd2 | PolicyName::CaGedf) || dynamic) => {
                f.error("policy.quantum", "must be more than 0, e.g. `1ms`")
            }
            _ => {}
        }
        if pol.name == PolicyName::CaGedf {
            if p.cache.is_none() {
                f.error(
                    "platform.cache",
                    "`ca-gedf` needs the shared cache (its size is what the working sets scheduled in a quantum are compared with); add e.g. `cache: {size: 1MiB}`",
                );
            }
            for (key, value, max) in [
                ("cache_policy", pol.cache_policy, 5),
                ("lost_cause_policy", pol.lost_cause_policy, 3),
                ("promotion_duration", pol.promotion_duration, 2),
            ] {
                if value.is_some_and(|v| v == 0 || v > max) {
                    let range = if max == 2 { "1 or 2".to_string() } else { format!("1 to {max}") };
                    f.error(
                        format!("policy.{key}"),
                        format!("{} is not a policy of Fig. 4.2; use {range}", value.unwrap_or(0)),
                    );
                }
            }
            if pol.lost_cause_policy.is_some() && pol.lost_cause_threshold.is_none() {
                f.error(
                    "policy.lost_cause_policy",
                    "has no effect without `lost_cause_threshold` (no lost-cause policy by default); add e.g. `lost_cause_threshold: 110` or remove the key",
                );
            }
        }
        if domains == Domains::PerCluster && p.clusters.is_none() {
            f.error(
                "policy.name",
                format!("`{name}` is clustered and needs `platform.clusters`, e.g. `clusters: [[0, 1], [2, 3]]`"),
            );
        }
        let with: Vec<&str> = spec.tasks.iter().filter(|t| t.priority.is_some()).map(|t| t.name.as_str()).collect();
        let without: Vec<&str> = spec.tasks.iter().filter(|t| t.priority.is_none()).map(|t| t.name.as_str()).collect();
        if !with.is_empty() {
            if !pol.name.is_fixed_priority() {
                f.warn(
                    "tasks",
                    format!(
                        "`{name}` does not use fixed priorities: the `priority` of {} is ignored (use gfp, pfp, cfp, fpds, g-fpds or fpns, or remove it)",
                        with.join(", ")
                    ),
                );
            } else if pol.priorities.is_none() && !without.is_empty() {
                f.error(
                    "tasks",
                    format!(
                        "some tasks have a `priority` and {} do not ({}); give every task a priority (explicit priorities) or none (rate monotonic), or set `policy.priorities: rm` or `dm` to ignore them",
                        without.len(),
                        without.join(", ")
                    ),
                );
            } else if matches!(pol.priorities, Some(Priorities::Rm | Priorities::Dm)) {
                f.warn(
                    "policy.priorities",
                    "the tasks' `priority` values are ignored: the priorities are derived (rm or dm); remove the key to use them",
                );
            }
        }
        if domains == Domains::PerCluster {
            if let Some(cl) = &p.clusters {
                for (i, t) in spec.tasks.iter().enumerate() {
                    if let (Some(c), None) = (t.cpu, t.cluster) {
                        if let Some(k) = cl.iter().position(|x| x.contains(&c)) {
                            f.warn(
                                format!("tasks[{i}].cpu"),
                                format!(
                                    "under `{name}` a task pinned to CPU {c} runs anywhere in the cluster holding it (cluster {k}, CPUs {:?}); write `cluster: {k}` to say so",
                                    cl[k]
                                ),
                            );
                        }
                    }
                }
            }
        }
        for (i, t) in spec.tasks.iter().enumerate() {
            let (Some(list), None) = (&t.segments, &t.subjobs) else { continue };
            let suspends = list.iter().any(|s| s.kind == SegmentKind::Suspend);
            // `hcbs` runs them as non-preemptive sections (boosted, Fig. 2 of its paper).
            // `mcs` reads a non-preemptive memory segment as a non-preemptive memory phase.
            let regions = !pol.name.preempts_at_points_only()
                && pol.name != PolicyName::Hcbs
                && list
                    .iter()
                    .any(|s| !(s.preemptible || (pol.name == PolicyName::Mcs && s.kind == SegmentKind::Memory)));
            let ignored: Vec<&str> = [
                suspends.then_some(
                    "self-suspensions only in a simulation and on `schedlab run --backend dispatch` (the kernel backend runs the job's CPU segments back to back)",
                ),
                regions.then_some(
                    "non-preemptive segments nowhere (it may preempt a job inside one; fpds, g-fpds and fpns preempt only between segments, hcbs never inside one)",
                ),
            ]
            .into_iter()
            .flatten()
            .collect();
            if !ignored.is_empty() {
                f.warn(
                    format!("tasks[{i}].segments"),
                    format!(
                        "`{name}` runs {}; the analyses other than uni.fpds.rta take the WCET alone",
                        ignored.join(", and ")
                    ),
                );
            }
        }
        match (pol.name, &spec.reservations) {
            (PolicyName::Hcbs, None) => f.warn(
                "policy.name",
                "`hcbs` without `reservations`: every task runs in the background, by fixed priority as under `gfp`; add groups (docs/spec.md)",
            ),
            (PolicyName::Hcbs, _) | (_, None) => {}
            (_, Some(_)) => f.warn(
                "reservations",
                format!("`{name}` does not use reservations: they are ignored (the `hcbs` policy schedules them)"),
            ),
        }
        if pol.priorities == Some(Priorities::Explicit) {
            for (i, t) in spec.tasks.iter().enumerate() {
                if t.priority.is_none() {
                    f.error(
                        format!("tasks[{i}].priority"),
                        "is required with `priorities: explicit` (1 is the highest)",
                    );
                }
            }
        }
    }
    reservations(&mut f, spec);
    mtts(&mut f, spec);
    if let Some(o) = &spec.overheads {
        if o.trim().is_empty() {
            f.error("overheads", "is empty; give the path of an overhead CSV or leave the key out");
        }
    }

    // Legal but notable.
    for (i, t) in spec.tasks.iter().enumerate() {
        let span = t.segments_span();
        if t.wcet.0 > 0 && t.wcet > t.deadline() {
            f.warn(
                format!("tasks[{i}].wcet"),
                format!("{} exceeds the deadline {}: no schedule can meet this task's deadlines", t.wcet, t.deadline()),
            );
        } else if t.wcet.0 > 0 && span > t.deadline().0 as u128 && span <= u64::MAX as u128 {
            f.warn(
                format!("tasks[{i}].segments"),
                format!(
                    "the segments take {} with their suspensions, more than the deadline {}: no schedule can meet this task's deadlines",
                    Duration(span as u64),
                    t.deadline()
                ),
            );
        } else if t.period.0 > 0 && t.wcet > t.period {
            f.warn(
                format!("tasks[{i}].wcet"),
                format!("{} exceeds the period {}: utilisation above 1", t.wcet, t.period),
            );
        }
    }
    if spec.tasks.iter().all(|t| t.period.0 > 0) && m > 0 {
        // The float sum's error is below (n + 2)·4ε of it: clearly under m,
        // the exact sum (big-integer gcds, ~25k instructions a task) is not needed.
        let approx: f64 = spec.tasks.iter().map(|t| t.wcet.0 as f64 / t.period.0 as f64).sum();
        let margin = (spec.tasks.len() + 2) as f64 * 4.0 * f64::EPSILON * approx;
        let over = approx + margin >= m as f64
            && crate::exact::Ratio::sum(spec.tasks.iter().map(|t| (t.wcet.0 as u128, t.period.0 as u128)))
                .gt_int(m as u128);
        if over {
            let u = crate::exact::Ratio::sum(spec.tasks.iter().map(|t| (t.wcet.0 as u128, t.period.0 as u128)));
            f.warn(
                "tasks",
                format!("total utilisation {:.4} exceeds the {m} CPUs: the task set is infeasible", u.to_f64()),
            );
        }
    }
    f.0.sort_by_key(|x| x.severity == Severity::Warning);
    f.0
}

/// The bandwidth `budget / period` of each CPU's server, exactly.
fn bandwidths(budget: impl Fn(usize) -> Duration, period: Duration, cpus: usize) -> Vec<Ratio> {
    (0..cpus).map(|c| Ratio::new(budget(c).0 as u128, period.0.max(1) as u128)).collect()
}

/// The CPUs (with the summed bandwidth) where `sum` exceeds `cap`.
fn over(sum: &[Ratio], cap: &[Ratio]) -> Vec<String> {
    sum.iter()
        .zip(cap)
        .enumerate()
        .filter(|(_, (s, c))| s > c)
        .map(|(cpu, (s, _))| format!("CPU {cpu}: {:.4}", s.to_f64()))
        .collect()
}

/// The `reservations` tree: names, budgets against periods, task
/// membership, and the bandwidth of each level on each CPU (at most 1 at
/// the top, at most the parent's inside a group).
fn reservations(f: &mut Findings, spec: &Spec) {
    let Some(top) = &spec.reservations else { return };
    if top.is_empty() {
        f.error("reservations", "is empty; give at least one group, e.g. `[{name: g, budget: 2ms, period: 10ms, tasks: [t1]}]`, or leave the key out");
        return;
    }
    let cpus = spec.platform.cpus.min(MAX_CPUS) as usize;
    let task_names: HashMap<&str, usize> = spec.tasks.iter().enumerate().map(|(i, t)| (t.name.as_str(), i)).collect();
    let mut group_names: HashMap<&str, String> = HashMap::new();
    let mut member_of: HashMap<&str, String> = HashMap::new();
    let mut ok = true;
    struct Walk<'a, 'f> {
        f: &'f mut Findings,
        cpus: usize,
        task_names: &'f HashMap<&'a str, usize>,
        group_names: &'f mut HashMap<&'a str, String>,
        member_of: &'f mut HashMap<&'a str, String>,
        ok: &'f mut bool,
    }
    impl<'a> Walk<'a, '_> {
        fn error(&mut self, path: impl Into<String>, message: impl Into<String>) {
            *self.ok = false;
            self.f.error(path, message);
        }
        fn group(&mut self, g: &'a Group, path: &str) {
            let at = |field: &str| format!("{path}.{field}");
            if g.name.trim().is_empty() {
                self.error(at("name"), "must not be empty");
            } else if g.name.chars().count() > MAX_NAME || g.name.chars().any(char::is_control) {
                self.error(at("name"), format!("must be at most {MAX_NAME} printable characters"));
            } else if let Some(prev) = self.group_names.insert(g.name.as_str(), path.to_string()) {
                self.error(
                    at("name"),
                    format!("`{}` is already the name of {prev}; group names must be unique", g.name),
                );
            }
            if g.period.0 == 0 {
                self.error(at("period"), "must be more than 0, e.g. `10ms`");
            }
            match (g.budget, &g.budgets) {
                (Some(_), Some(_)) => self.error(
                    at("budgets"),
                    "cannot be given with `budget`; keep `budget` for the same budget on every CPU, or `budgets` for one per CPU",
                ),
                (None, None) => self.error(at("budget"), "is required, e.g. `budget: 2ms` (or `budgets:` one per CPU)"),
                (Some(b), None) => {
                    if b.0 == 0 {
                        self.error(at("budget"), "must be more than 0, e.g. `2ms`");
                    } else if b > g.period && g.period.0 > 0 {
                        self.error(at("budget"), format!("{b} exceeds the period {}; a budget is at most its period", g.period));
                    }
                }
                (None, Some(list)) => {
                    if list.len() != self.cpus {
                        self.error(
                            at("budgets"),
                            format!("has {} entries for {} CPUs; give one budget per CPU, in CPU order (`0ms` for none)", list.len(), self.cpus),
                        );
                    }
                    for (c, b) in list.iter().enumerate() {
                        if *b > g.period && g.period.0 > 0 {
                            self.error(format!("{path}.budgets[{c}]"), format!("{b} exceeds the period {}; a budget is at most its period", g.period));
                        }
                    }
                    if list.iter().all(|b| b.0 == 0) {
                        self.error(at("budgets"), "are all 0: the group has no server on any CPU; give at least one budget above 0");
                    }
                }
            }
            match (g.groups.is_empty(), g.tasks.is_empty(), g.leaf_budget) {
                (false, false, None) => self.error(
                    at("leaf_budget"),
                    "is required: the group has tasks and subgroups, and its own tasks run in a leaf queue with its own budget, e.g. `leaf_budget: 1ms`",
                ),
                (true, _, Some(_)) => self.error(
                    at("leaf_budget"),
                    "applies only to a group with subgroups and tasks of its own; a group without subgroups serves its tasks with `budget`; remove the key",
                ),
                (false, true, Some(_)) => self.error(
                    at("leaf_budget"),
                    "applies only to a group with tasks of its own; list them in `tasks` or remove the key",
                ),
                _ => {}
            }
            if g.leaf_period.is_some() && g.leaf_budget.is_none() {
                self.error(at("leaf_period"), "needs `leaf_budget`; give both or neither");
            }
            if let Some(b) = g.leaf_budget {
                let p = g.leaf_period.unwrap_or(g.period);
                if p.0 == 0 {
                    self.error(at("leaf_period"), "must be more than 0, e.g. `10ms`");
                } else if b.0 == 0 {
                    self.error(at("leaf_budget"), "must be more than 0, e.g. `1ms`");
                } else if b > p {
                    self.error(
                        at("leaf_budget"),
                        format!("{b} exceeds the leaf period {p}; a budget is at most its period"),
                    );
                }
            }
            for (j, t) in g.tasks.iter().enumerate() {
                let tp = format!("{path}.tasks[{j}]");
                if !self.task_names.contains_key(t.as_str()) {
                    let mut known: Vec<&str> = self.task_names.keys().copied().collect();
                    known.sort_by_key(|n| self.task_names[n]);
                    known.truncate(8);
                    self.error(tp, format!("no task is named `{t}`; the tasks are {}", known.join(", ")));
                } else if let Some(prev) = self.member_of.insert(t.as_str(), tp.clone()) {
                    self.error(
                        tp,
                        format!("task `{t}` is already in a group ({prev}); a task belongs to at most one group"),
                    );
                }
            }
            if g.tasks.is_empty() && g.groups.is_empty() {
                self.f.warn(
                    path.to_string(),
                    format!("group `{}` has no tasks and no subgroups: its servers serve nothing", g.name),
                );
            }
            for (k, child) in g.groups.iter().enumerate() {
                self.group(child, &format!("{path}.groups[{k}]"));
            }
        }
    }
    let mut w = Walk {
        f,
        cpus,
        task_names: &task_names,
        group_names: &mut group_names,
        member_of: &mut member_of,
        ok: &mut ok,
    };
    for (k, g) in top.iter().enumerate() {
        w.group(g, &format!("reservations[{k}]"));
    }
    if !ok || cpus == 0 {
        return;
    }
    // Bandwidth on each CPU: the top level within 1, each group's children
    // (and its leaf queue) within the group's own.
    let one = vec![Ratio::new(1, 1); cpus];
    fn level(g: &[Group], leaf: Option<(Duration, Duration, &[Ratio])>, cpus: usize) -> Vec<Ratio> {
        let mut sum = vec![Ratio::zero(); cpus];
        for child in g {
            for (c, r) in bandwidths(|c| child.budget_on(c), child.period, cpus).into_iter().enumerate() {
                sum[c].0 += r.0;
            }
        }
        if let Some((b, p, parent)) = leaf {
            for c in 0..cpus {
                if parent[c] > Ratio::zero() {
                    sum[c].0 += Ratio::new(b.0 as u128, p.0 as u128).0;
                }
            }
        }
        sum
    }
    fn check(f: &mut Findings, groups: &[Group], path: &str, cpus: usize) {
        for (k, g) in groups.iter().enumerate() {
            if g.groups.is_empty() {
                continue;
            }
            let here = format!("{path}[{k}]");
            let own = bandwidths(|c| g.budget_on(c), g.period, cpus);
            let leaf = g.leaf_budget.map(|b| (b, g.leaf_period.unwrap_or(g.period), own.as_slice()));
            let bad = over(&level(&g.groups, leaf, cpus), &own);
            if !bad.is_empty() {
                f.error(
                    format!("{here}.groups"),
                    format!(
                        "the subgroups{} of `{}` need more bandwidth than the group has ({}) on {}; lower their budgets or raise the group's",
                        if leaf.is_some() { " and the leaf queue" } else { "" },
                        g.name,
                        own.iter().map(|r| format!("{:.4}", r.to_f64())).collect::<Vec<_>>().join(", "),
                        bad.join(", ")
                    ),
                );
            }
            check(f, &g.groups, &format!("{here}.groups"), cpus);
        }
    }
    let bad = over(&level(top, None, cpus), &one);
    if !bad.is_empty() {
        f.error(
            "reservations",
            format!(
                "the top-level groups need more than one CPU's bandwidth (budget/period summed) on {}; lower their budgets",
                bad.join(", ")
            ),
        );
    }
    check(f, top, "reservations", cpus);
}

/// The `mtt` groups: unique names apart from the tasks', known tasks, a
/// task in at most one MTT, and, inside an MTT, one period, deadline,
/// offset, colour set and working-set size (see `spec/mtt.rs` for why).
fn mtts(f: &mut Findings, spec: &Spec) {
    let Some(list) = &spec.mtt else { return };
    if list.is_empty() {
        f.error(
            "mtt",
            "is empty; give at least one group, e.g. `[{name: w, tasks: [w1, w2], wss: 768KiB}]`, or leave the key out",
        );
        return;
    }
    let task_names: HashMap<&str, usize> = spec.tasks.iter().enumerate().map(|(i, t)| (t.name.as_str(), i)).collect();
    let mut names: HashMap<&str, usize> = HashMap::new();
    let mut member_of: HashMap<usize, String> = HashMap::new();
    for (k, m) in list.iter().enumerate() {
        let at = |field: &str| format!("mtt[{k}].{field}");
        if m.name.trim().is_empty() || m.name.chars().count() > MAX_NAME || m.name.chars().any(char::is_control) {
            f.error(at("name"), format!("must be a name of 1 to {MAX_NAME} printable characters, e.g. `video`"));
        } else if let Some(prev) = names.insert(m.name.as_str(), k) {
            f.error(at("name"), format!("`{}` is already the name of mtt[{prev}]; MTT names must be unique", m.name));
        } else if let Some(&i) = task_names.get(m.name.as_str()) {
            f.error(
                at("name"),
                format!("`{}` is the name of tasks[{i}]; give the MTT a name of its own (metrics and the profiler report by it)", m.name),
            );
        }
        if m.tasks.is_empty() {
            f.error(at("tasks"), "is empty; list the MTT's tasks by name, e.g. `[w1, w2]`");
            continue;
        }
        if m.wss.is_some_and(|w| w.0 == 0) {
            f.error(at("wss"), "must be more than 0, e.g. `768KiB`; leave the key out when the working set is unknown");
        }
        // The first member is the reference for the shared parameters.
        let mut first: Option<(usize, &Task)> = None;
        let mut wss: Option<(Size, String)> = m.wss.map(|w| (w, at("wss")));
        for (j, name) in m.tasks.iter().enumerate() {
            let tp = format!("mtt[{k}].tasks[{j}]");
            let Some(&i) = task_names.get(name.as_str()) else {
                let mut known: Vec<&str> = task_names.keys().copied().collect();
                known.sort_by_key(|n| task_names[n]);
                known.truncate(8);
                f.error(tp, format!("no task is named `{name}`; the tasks are {}", known.join(", ")));
                continue;
            };
            if let Some(prev) = member_of.insert(i, tp.clone()) {
                f.error(tp, format!("task `{name}` is already in an MTT ({prev}); a task belongs to at most one MTT"));
                continue;
            }
            let t = &spec.tasks[i];
            if let (Some(w), Some((ref_w, ref_at))) = (t.wss, &wss) {
                if w != *ref_w {
                    f.error(
                        format!("tasks[{i}].wss"),
                        format!(
                            "is {w} but task `{name}` is in MTT `{}`, whose working set is {ref_w} ({ref_at}); the MTT's tasks share one working set: remove the task's `wss` or make it {ref_w}",
                            m.name
                        ),
                    );
                }
            } else if let Some(w) = t.wss {
                wss = Some((w, format!("tasks[{i}].wss")));
            }
            let Some((i0, t0)) = first else {
                first = Some((i, t));
                continue;
            };
            let n0 = &t0.name;
            let same = |what: &str, field: &str, a: String, b: String, f: &mut Findings| {
                f.error(
                    format!("tasks[{i}].{field}"),
                    format!(
                        "is {b} but `{n0}` (tasks[{i0}]), in the same MTT `{}`, has {what} {a}; the tasks of an MTT share their {what}: make them equal",
                        m.name
                    ),
                );
            };
            if t.period != t0.period {
                same("period", "period", t0.period.to_string(), t.period.to_string(), f);
            }
            // A deadline defaulting to a different period would repeat the period's error.
            else if t.deadline() != t0.deadline() {
                same("deadline", "deadline", t0.deadline().to_string(), t.deadline().to_string(), f);
            }
            if t.offset != t0.offset {
                same("offset", "offset", t0.offset.to_string(), t.offset.to_string(), f);
            }
            if t.colors != t0.colors {
                let show =
                    |c: &Option<crate::units::ColorSet>| c.as_ref().map_or("none".to_string(), |c| format!("{c}"));
                same("colours", "colors", show(&t0.colors), show(&t.colors), f);
            }
        }
        if m.tasks.len() as u64 > spec.platform.cpus as u64 && spec.platform.cpus > 0 {
            f.warn(
                at("tasks"),
                format!(
                    "MTT `{}` has {} tasks on {} CPUs: its threads can never all run together (the thesis bounds an MTT at one task per CPU)",
                    m.name,
                    m.tasks.len(),
                    spec.platform.cpus
                ),
            );
        }
    }
}

/// Why `policy.KEY` is refused under policy `p`: the policies that take it
/// and the keys `p` takes, from the policy descriptors.
pub fn not_a_param(key: &str, p: PolicyName) -> String {
    let name = p.name();
    let owners: Vec<&str> =
        PolicyName::ALL.iter().filter(|q| q.descriptor().param(key).is_some()).map(|q| q.name()).collect();
    let why = if key == "partitioning" && p.domains() == Domains::Global {
        format!("`{name}` is a global policy and does not partition")
    } else if owners.is_empty() {
        "no policy takes it".to_string()
    } else {
        format!("`{key}` applies to {}", owners.join(", "))
    };
    format!("`{key}` is not a parameter of `{name}`: it takes {} ({why})", p.descriptor().keys())
}
