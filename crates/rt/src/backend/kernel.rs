//! Backend `kernel`: the policy mapped onto Linux scheduling classes.
//!
//! | policy | mapping |
//! |---|---|
//! | P-FP | SCHED_FIFO, one priority per task in the policy's order (89 downward), affinity to the task's CPU |
//! | G-FP | the same, affinity to the platform's CPUs (the kernel's RT push/pull is global FP) |
//! | C-FP | the same, affinity to the task's cluster |
//! | G-EDF | SCHED_DEADLINE (runtime = WCET + slack, deadline, period) — one root domain |
//! | P-EDF / C-EDF | SCHED_DEADLINE inside exclusive cpuset partitions, one root domain per CPU / cluster |
//! | H-CBS | SCHED_FIFO by the priorities inside the groups, affinity to the platform's CPUs, each group a cgroup with RT group scheduling |
//!
//! Under `hcbs`, each group of the spec's `reservations:` becomes a cgroup
//! with RT group scheduling and its tasks join it ([`crate::rtgroup`]);
//! other policies ignore the reservations, as everywhere.
//!
//! A SCHED_DEADLINE set is checked against the kernel's admission test
//! before anything is touched (per root domain: the sum of runtime/period
//! ≤ `sched_rt_runtime_us / sched_rt_period_us` × CPUs, minus the bandwidth
//! of deadline threads already on the machine); a refusal (EBUSY) that
//! still happens is reported with the same numbers.

use super::{Backend, Executed, Services};
use crate::clock;
use crate::cpuset;
use crate::error::RunError;
use crate::plan::Plan;
use crate::privilege::Needs;
use crate::sched::{self, Class, CpuSet};
use crate::worker::{StartGate, Worker};
use schedlab_model::{Family, PolicyName, PreemptionKind};
use std::sync::Arc;

/// Highest SCHED_FIFO priority given to a task (the watchdog is above).
pub const TOP_PRIORITY: u32 = 89;

#[derive(Default)]
pub struct KernelBackend {}

/// The policies that map onto SCHED_DEADLINE: the preemptive EDF ones.
fn is_edf(p: PolicyName) -> bool {
    maps_onto_linux(p) && p.descriptor().family == Family::Edf
}

/// The policies Linux's classes implement: preemptive EDF (SCHED_DEADLINE)
/// and preemptive fixed priority (SCHED_FIFO), from the policy descriptors;
/// and H-CBS as Linux's own version of it, RT group scheduling with
/// SCHED_FIFO inside the groups; not `cap-gs-dynamic`, whose throttle takes
/// jobs off their CPU by counters.
fn maps_onto_linux(p: PolicyName) -> bool {
    let d = p.descriptor();
    matches!(d.family, Family::Edf | Family::Fp | Family::Hcbs)
        && d.preemption == PreemptionKind::Full
        && !counter_driven(p)
        && p != PolicyName::Mcs
}

/// Policies whose decisions depend on counters as well as priorities.
fn counter_driven(p: PolicyName) -> bool {
    p == PolicyName::CapGsDynamic
}

/// Each task's rank in the fixed-priority order its SCHED_FIFO priority
/// follows: the plan's, and for H-CBS the order inside its groups (the
/// policy section's `priorities`, as G-FP would give them).
fn fifo_ranks(plan: &Plan) -> Vec<usize> {
    if plan.policy.descriptor().family != Family::Hcbs {
        return plan.tasks.iter().map(|t| t.rank).collect();
    }
    let mut s = plan.spec.clone();
    if let Some(p) = s.policy.as_mut() {
        p.name = PolicyName::Gfp;
    }
    s.reservations = None;
    let Ok(fp) = schedlab_policy::build(&s, None) else {
        return plan.tasks.iter().map(|t| t.rank).collect();
    };
    let mut keys: Vec<(schedlab_policy::Priority, usize)> = plan
        .tasks
        .iter()
        .map(|t| {
            let v = schedlab_policy::JobView {
                id: schedlab_policy::JobId { task: t.index as u32, seq: 0 },
                release: 0,
                deadline: t.deadline,
                consumed: 0,
                now: 0,
            };
            let p = fp.priority(&v).unwrap_or(schedlab_policy::Priority::new(
                t.deadline as i128,
                t.period as i128,
                t.index as u32,
            ));
            (p, t.index)
        })
        .collect();
    keys.sort();
    let mut rank = vec![0; keys.len()];
    for (r, (_, i)) in keys.into_iter().enumerate() {
        rank[i] = r;
    }
    rank
}

/// The kernel's deadline bandwidth limit (runtime/period of
/// /proc/sys/kernel/sched_rt_*), as (runtime_us, period_us); runtime -1
/// means unlimited.
pub fn rt_limits() -> (i64, i64) {
    let r = |f: &str| {
        std::fs::read_to_string(format!("/proc/sys/kernel/{f}")).ok().and_then(|s| s.trim().parse::<i64>().ok())
    };
    (r("sched_rt_runtime_us").unwrap_or(950_000), r("sched_rt_period_us").unwrap_or(1_000_000))
}

/// Bandwidth (runtime/period) of SCHED_DEADLINE threads already on the machine.
pub fn existing_deadline_bandwidth() -> f64 {
    let mut bw = 0.0;
    let Ok(procs) = std::fs::read_dir("/proc") else { return 0.0 };
    for p in procs.flatten() {
        let name = p.file_name();
        if !name.to_string_lossy().bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let Ok(tasks) = std::fs::read_dir(p.path().join("task")) else { continue };
        for t in tasks.flatten() {
            let Ok(tid) = t.file_name().to_string_lossy().parse::<i32>() else { continue };
            if let Ok(a) = sched::get_attr(tid) {
                if a.policy == sched::SCHED_DEADLINE && a.period > 0 {
                    bw += a.runtime as f64 / a.period as f64;
                }
            }
        }
    }
    bw
}

struct Mapping {
    class: Class,
    cpus: Vec<u32>,
    /// Index of the cpuset partition (EDF with partitions).
    partition: Option<usize>,
}

impl KernelBackend {
    fn partitions(plan: &Plan) -> Option<Vec<Vec<u32>>> {
        if !is_edf(plan.policy) {
            return None;
        }
        let domains = &plan.info.domains;
        let whole = domains.len() == 1 && domains[0].len() == plan.online.len();
        (!whole).then(|| domains.clone())
    }

    fn map(plan: &Plan) -> Vec<Mapping> {
        let ranks = fifo_ranks(plan);
        plan.tasks
            .iter()
            .map(|t| {
                let cpus = plan.cpus_of(t.index);
                if is_edf(plan.policy) {
                    let partition = Self::partitions(plan).map(|_| plan.info.domain_of(t.index));
                    Mapping {
                        class: Class::Deadline {
                            runtime: plan.config.dl_runtime(t.wcet, t.deadline),
                            deadline: t.deadline,
                            period: t.period,
                            reclaim: plan.config.dl_reclaim,
                        },
                        cpus,
                        partition,
                    }
                } else {
                    Mapping {
                        class: Class::Fifo { priority: TOP_PRIORITY - ranks[t.index] as u32 },
                        cpus,
                        partition: None,
                    }
                }
            })
            .collect()
    }

    fn admission_numbers(plan: &Plan, task: Option<usize>) -> String {
        let (rt, per) = rt_limits();
        let maps = Self::map(plan);
        let mut lines = Vec::new();
        if let Some(i) = task {
            if let Class::Deadline { runtime, period, .. } = maps[i].class {
                lines.push(format!(
                    "task '{}' asks for runtime {:.3} ms every {:.3} ms = bandwidth {:.4}",
                    plan.tasks[i].name,
                    runtime as f64 / 1e6,
                    period as f64 / 1e6,
                    runtime as f64 / period as f64
                ));
            }
        }
        let doms: Vec<Vec<u32>> = Self::partitions(plan).unwrap_or_else(|| vec![plan.online.clone()]);
        for (d, cpus) in doms.iter().enumerate() {
            let total: f64 = maps
                .iter()
                .filter(|m| m.partition.unwrap_or(0) == d)
                .map(|m| match m.class {
                    Class::Deadline { runtime, period, .. } => runtime as f64 / period as f64,
                    _ => 0.0,
                })
                .sum();
            let cap = if rt < 0 { f64::INFINITY } else { rt as f64 / per as f64 * cpus.len() as f64 };
            lines.push(format!("root domain CPUs {}: schedlab's tasks need {total:.4}, the kernel allows {cap:.4} ({} CPU(s) x sched_rt_runtime_us {rt} / sched_rt_period_us {per})", sched::format_cpu_list(cpus), cpus.len()));
        }
        let other = existing_deadline_bandwidth();
        lines.push(format!("SCHED_DEADLINE threads already on the machine use {other:.4}"));
        lines.join("; ")
    }
}

impl Backend for KernelBackend {
    fn name(&self) -> &'static str {
        "kernel"
    }

    fn check(&self, plan: &Plan) -> Result<(), RunError> {
        let bad = |m: String| Err(RunError::BadInput(m));
        if !maps_onto_linux(plan.policy) {
            if plan.policy.preempts_at_points_only() {
                return bad(format!(
                    "policy.name: `{}` preempts a job only at its preemption points (between its segments), which Linux's scheduling classes cannot do; run it with --backend dispatch (its workers stop at the points the dispatcher asks for)",
                    plan.policy.name()
                ));
            }
            if counter_driven(plan.policy) {
                return bad(format!(
                    "policy.name: `{}` takes best-effort jobs off their CPU when a cache counter rises, which Linux's scheduling classes cannot do; run it with --backend dispatch",
                    plan.policy.name()
                ));
            }
            if plan.policy == PolicyName::Mcs {
                return bad(
                    "policy.name: `mcs` blocks a job when the memory-phase scheduler withholds or takes back the memory token, which Linux's scheduling classes cannot do; run it with --backend dispatch".to_string(),
                );
            }
            let names = |f: Family| {
                PolicyName::ALL
                    .iter()
                    .filter(|p| maps_onto_linux(**p) && p.descriptor().family == f)
                    .map(|p| p.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            return bad(format!(
                "policy.name: `{}` cannot be mapped onto Linux's scheduling classes; the kernel backend runs {} (SCHED_FIFO), {} (SCHED_DEADLINE) and hcbs (RT groups); use --backend dispatch for the others",
                plan.policy.name(),
                names(Family::Fp),
                names(Family::Edf)
            ));
        }
        if has_reservations(plan) {
            let groups = crate::rtgroup::cgroups_of(&plan.spec).map_err(RunError::BadInput)?;
            let fs = crate::rtgroup::detect().map_err(|e| RunError::BadInput(format!("reservations: {e}")))?;
            crate::rtgroup::check_capacity(&fs, &groups)
                .map_err(|e| RunError::BadInput(format!("reservations: {e}")))?;
        }
        if !is_edf(plan.policy) {
            if plan.tasks.len() > TOP_PRIORITY as usize {
                return bad(format!("{} tasks need {} distinct SCHED_FIFO priorities; the kernel backend has {TOP_PRIORITY} (1..={TOP_PRIORITY})", plan.tasks.len(), plan.tasks.len()));
            }
            return Ok(());
        }
        let min = std::fs::read_to_string("/proc/sys/kernel/sched_deadline_period_min_us")
            .ok()
            .and_then(|s| s.trim().parse::<u64>().ok())
            .unwrap_or(100)
            * 1000;
        let max = std::fs::read_to_string("/proc/sys/kernel/sched_deadline_period_max_us")
            .ok()
            .and_then(|s| s.trim().parse::<u64>().ok())
            .unwrap_or(4_194_304)
            * 1000;
        for (t, m) in plan.tasks.iter().zip(Self::map(plan)) {
            let Class::Deadline { runtime, deadline, period, .. } = m.class else { continue };
            if deadline > period {
                return bad(format!("task '{}': SCHED_DEADLINE needs deadline ≤ period (deadline {} ns, period {} ns); arbitrary deadlines run on --backend dispatch", t.name, deadline, period));
            }
            if runtime > deadline {
                return bad(format!(
                    "task '{}': SCHED_DEADLINE runtime {} ns (WCET {} ns + slack) exceeds its deadline {} ns; lower the WCET",
                    t.name, runtime, t.wcet, deadline
                ));
            }
            if period < min || period > max {
                return bad(format!("task '{}': period {} ns is outside the kernel's SCHED_DEADLINE range [{min}, {max}] ns (sched_deadline_period_min_us / _max_us)", t.name, period));
            }
        }
        // The kernel's admission test, per root domain.
        let (rt, per) = rt_limits();
        if rt >= 0 {
            let maps = Self::map(plan);
            let doms: Vec<Vec<u32>> = Self::partitions(plan).unwrap_or_else(|| vec![plan.online.clone()]);
            let other = existing_deadline_bandwidth();
            for (d, cpus) in doms.iter().enumerate() {
                let total: f64 = maps
                    .iter()
                    .filter(|m| m.partition.unwrap_or(0) == d)
                    .map(|m| match m.class {
                        Class::Deadline { runtime, period, .. } => runtime as f64 / period as f64,
                        _ => 0.0,
                    })
                    .sum();
                let cap = rt as f64 / per as f64 * cpus.len() as f64;
                if total + if doms.len() == 1 { other } else { 0.0 } > cap + 1e-9 {
                    return bad(format!(
                        "the kernel would refuse this SCHED_DEADLINE set: {}",
                        Self::admission_numbers(plan, None)
                    ));
                }
            }
        }
        Ok(())
    }

    fn needs(&self, plan: &Plan) -> Needs {
        let mut n = Needs { tracefs: plan.config.kernel_trace, ..Needs::default() };
        if is_edf(plan.policy) {
            n.deadline = true;
            if Self::partitions(plan).is_some() {
                match cpuset::detect() {
                    Some(fs) => {
                        n.write_dirs.push(fs.root().to_path_buf());
                        if let cpuset::CpusetFs::V1 { root } = &fs {
                            n.write_files.push(root.join("cpuset.sched_load_balance"));
                        }
                    }
                    None => n.write_dirs.push("/sys/fs/cgroup/cpuset (no cpuset hierarchy is mounted)".into()),
                }
            }
        } else {
            n.fifo_priority = TOP_PRIORITY;
        }
        if has_reservations(plan) {
            if let Ok(fs) = crate::rtgroup::detect() {
                n.write_dirs.push(fs.root);
            }
        }
        n
    }

    fn execute(&mut self, plan: &mut Plan, sv: &Services) -> Result<Executed, RunError> {
        let maps = Self::map(plan);
        let n = plan.tasks.len();
        let gate = Arc::new(StartGate::new());
        let (tx, rx) = std::sync::mpsc::channel::<(usize, i32)>();
        let mut handles = Vec::new();
        for i in 0..n {
            let body = plan.bodies[i].take().ok_or_else(|| RunError::System("job body already taken".into()))?;
            let cap = (plan.expected_jobs(i) * 8 + 64).min(1 << 20) as usize;
            let name = format!("sl-{i}-{}", plan.tasks[i].name);
            let out = sv.collector.register(name.clone(), Some(i as u32), cap);
            let hb = sv.watchdog.watch(format!("task '{}' (its job body)", plan.tasks[i].name), plan.tasks[i].timeout);
            let worker = Worker::new(plan, i, body, out, hb.clone(), sv.stop.clone());
            let (gate, tx) = (gate.clone(), tx.clone());
            let h = std::thread::Builder::new()
                .name(name.chars().take(15).collect())
                .spawn(move || {
                    let tid = clock::gettid();
                    hb.set_tid(tid);
                    let _ = tx.send((i, tid));
                    gate.wait().map(|t0| worker.run(t0))
                })
                .map_err(|e| RunError::system("spawning a worker", e))?;
            handles.push(h);
        }
        drop(tx);
        let mut tids = vec![0i32; n];
        for _ in 0..n {
            let (i, tid) = rx.recv().map_err(|_| RunError::System("a worker thread died during setup".into()))?;
            tids[i] = tid;
        }
        let mut ex = Executed { tids: tids.clone(), ..Executed::default() };
        // Setup, part 1 (threads still SCHED_OTHER, blocked at the gate):
        // record, trace, cpusets, affinities.
        #[allow(clippy::type_complexity)]
        let setup = (|| -> Result<(Option<crate::ftrace::KernelTrace>, Option<crate::rtgroup::Groups>), RunError> {
            for &tid in &tids {
                sv.guard
                    .record_thread(tid)
                    .map_err(|e| RunError::system(format!("reading thread {tid}'s scheduling class"), e))?;
            }
            let ktrace = sv.kernel_trace(plan, &tids)?;
            if let Some(a) = plan.colouring.as_ref().and_then(|c| c.allocation.as_ref()) {
                a.program(&sv.guard, &tids)?;
            }
            let parts = match Self::partitions(plan) {
                Some(doms) => {
                    let fs = cpuset::detect().ok_or_else(|| {
                        RunError::System(
                            "no cpuset hierarchy is mounted (cgroup v1 cpuset or cgroup v2 with cpuset)".into(),
                        )
                    })?;
                    Some(cpuset::create(&fs, &sv.guard, &doms)?)
                }
                None => None,
            };
            // Reservations: the groups' cgroups, each thread in its group.
            let groups = if has_reservations(plan) {
                let fs = crate::rtgroup::detect().map_err(|e| RunError::System(format!("reservations: {e}")))?;
                let list = crate::rtgroup::cgroups_of(&plan.spec).map_err(RunError::BadInput)?;
                let g = crate::rtgroup::create(&fs, &sv.guard, &list)?;
                for (i, &tid) in tids.iter().enumerate() {
                    g.attach(i, tid)?;
                }
                Some(g)
            } else {
                None
            };
            for (i, m) in maps.iter().enumerate() {
                let tid = tids[i];
                if let (Some(p), Some(d)) = (&parts, m.partition) {
                    p.attach(d, tid)?;
                } else if !matches!(m.class, Class::Deadline { .. }) {
                    sched::set_affinity(tid, &CpuSet::of(&m.cpus)).map_err(|e| {
                        RunError::system(format!("setting the affinity of task '{}'", plan.tasks[i].name), e)
                    })?;
                }
            }
            Ok((ktrace, groups))
        })();
        let fail = |e: RunError, handles: Vec<std::thread::JoinHandle<_>>| {
            sv.stop.request(crate::stop::StopReason::Finished);
            gate.open(Some(clock::now()));
            for h in handles {
                let _ = h.join();
            }
            Err(e)
        };
        let (ktrace, groups) = match setup {
            Ok(k) => k,
            Err(e) => return fail(e, handles),
        };
        // Part 2: time zero is fixed and the workers go to sleep until their
        // first release; the classes are set while they sleep, so each
        // thread's first wake-up under its class is its first release. (A
        // SCHED_DEADLINE thread woken earlier would start a CBS period then,
        // and the constrained-deadline rules would throttle its first job.)
        let t0 = clock::now() + plan.config.start_margin;
        gate.open(Some(t0));
        let asleep_by = clock::now() + plan.config.start_margin / 2;
        while !tids.iter().all(|&t| thread_sleeping(t)) && clock::now() < asleep_by {
            clock::sleep_until(clock::now() + 200_000);
        }
        for (i, m) in maps.iter().enumerate() {
            if let Err(e) = sched::set_class(tids[i], m.class) {
                let e = match e.raw_os_error() {
                    Some(libc::EBUSY) => RunError::Admission(format!(
                        "sched_setattr: EBUSY (deadline bandwidth): {}",
                        Self::admission_numbers(plan, Some(i))
                    )),
                    Some(libc::EPERM) => RunError::Privilege(format!(
                        "the kernel refused {} for task '{}' (EPERM)",
                        m.class.describe(),
                        plan.tasks[i].name
                    )),
                    _ => {
                        RunError::system(format!("setting {} for task '{}'", m.class.describe(), plan.tasks[i].name), e)
                    }
                };
                return fail(e, handles);
            }
        }
        if clock::now() + 1_000_000 > t0 {
            return fail(
                RunError::System(format!(
                    "setting the threads up took longer than the start margin ({} ms); raise it",
                    plan.config.start_margin / 1_000_000
                )),
                handles,
            );
        }
        ex.mapping = maps
            .iter()
            .map(|m| match m.partition {
                Some(d) => format!(
                    "{} in cpuset partition {} (CPUs {})",
                    m.class.describe(),
                    d,
                    sched::format_cpu_list(&m.cpus)
                ),
                None => format!("{} on CPUs {}", m.class.describe(), sched::format_cpu_list(&m.cpus)),
            })
            .collect();
        if let Some(g) = &groups {
            ex.throttled = true;
            for (i, m) in ex.mapping.iter_mut().enumerate() {
                if let Some(c) = g.of_task(i) {
                    m.push_str(&format!(
                        ", in RT group {} ({} µs every {} µs on each CPU)",
                        c.name, c.runtime_us, c.period_us
                    ));
                }
            }
            let enforcement = crate::rtgroup::enforcement();
            ex.notes.push(format!(
                "reservations: {} RT group(s) under {} (cgroup v{}); {enforcement}",
                g.groups.len(),
                g.parent.display(),
                g.fs.version
            ));
            ex.events.push(schedlab_trace::Event::Note {
                t: 0,
                cpu: None,
                name: "rt-groups".into(),
                data: serde_json::json!({
                    "cgroup": g.parent.display().to_string(),
                    "version": g.fs.version,
                    "enforcement": enforcement,
                    "groups": g.groups.iter().map(|c| serde_json::json!({
                        "name": c.name, "runtime_us": c.runtime_us, "period_us": c.period_us, "tasks": c.tasks,
                    })).collect::<Vec<_>>(),
                }),
            });
        }
        let longest = plan.tasks.iter().map(|t| t.timeout).max().unwrap_or(0);
        sv.watchdog.end_by(t0 + plan.config.duration + longest + 2_000_000_000);
        ex.t0 = t0;
        // Wait for the workers; after a stop request give them a grace period.
        let mut stop_seen: Option<u64> = None;
        sv.join_workers(handles, plan, &mut ex.notes, |now| {
            sv.stop.is_set() && now - *stop_seen.get_or_insert(now) > 500_000_000
        });
        ex.end = clock::now();
        if let Some(k) = ktrace {
            match k.stop_and_read() {
                Ok(ev) => ex.kernel = Some(ev),
                Err(e) => ex.notes.push(format!("kernel trace not read: {e}")),
            }
        }
        Ok(ex)
    }
}

/// The run maps reservation groups: the `hcbs` policy with at least one
/// group (under other policies the spec's reservations are ignored, as in
/// the simulator; `schedlab check` warns).
fn has_reservations(plan: &Plan) -> bool {
    plan.policy.descriptor().family == Family::Hcbs && plan.spec.reservations.as_ref().is_some_and(|r| !r.is_empty())
}

/// Is thread `tid` of this process asleep (state S)?
fn thread_sleeping(tid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/self/task/{tid}/stat"))
        .ok()
        .and_then(|s| s.rsplit_once(')').map(|(_, r)| r.trim_start().starts_with('S')))
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The descriptors give Linux's classes exactly the preemptive EDF and
    /// FP policies.
    #[test]
    fn linux_runs_the_preemptive_edf_and_fp_policies() {
        let mapped: Vec<&str> = PolicyName::ALL.iter().filter(|p| maps_onto_linux(**p)).map(|p| p.name()).collect();
        assert_eq!(mapped, ["gedf", "pedf", "cedf", "gfp", "pfp", "cfp", "hcbs"]);
        assert!(!is_edf(PolicyName::NpGedf) && !maps_onto_linux(PolicyName::NpGedf));
        assert!(is_edf(PolicyName::Cedf) && !is_edf(PolicyName::Cfp));
        assert!(!maps_onto_linux(PolicyName::Fpds) && !maps_onto_linux(PolicyName::Edzl));
        assert!(!maps_onto_linux(PolicyName::CapGsDynamic));
    }
}
