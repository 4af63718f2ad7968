//! rt-app workloads (JSON), both ways.
//!
//! - [`import`]: a workload → a spec. Each thread object (times
//!   `instance`) becomes a task: the `run`/`runtime` events of its phase
//!   are its WCET, a `timer` event its period (a periodic task), or a `sleep`
//!   its minimum separation after the run (a sporadic task); `policy` and
//!   `priority`, `dl-*`, `cpus` and `delay` give the policy, the priority,
//!   the deadline, the CPU and the offset. What the model cannot express
//!   (mode changes over several phases, locks, barriers, signals, memory and
//!   I/O events, mixed policies) is refused with the key and its byte offset.
//! - [`export`]: a spec → a workload rt-app runs: SCHED_FIFO threads with
//!   the spec's priority order for fixed-priority policies (pinned for
//!   `pfp`), SCHED_DEADLINE threads for `gedf`, each running once one phase
//!   of ⌈duration / period⌉ steps, a step being one `runtime` of the WCET
//!   (times a fill factor) and an absolute `timer` of the period.

use crate::error::{At, InteropError};
use crate::lenient_json::{self, Node, Value};
use schedlab_model::{Duration, PolicyName, Spec, Task};

/// Largest workload file read.
pub const MAX_BYTES: u64 = 16 << 20;

const US: u64 = 1000;

/// What an import left out or assumed.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Notes {
    pub notes: Vec<String>,
}

/// Options of the import.
#[derive(Debug, Clone, Default)]
pub struct ImportOptions {
    /// The platform's CPU count [default: the highest CPU of any `cpus` + 1].
    pub cpus: Option<u32>,
}

fn err(file: &str, n: &Node, msg: impl Into<String>) -> InteropError {
    InteropError::at(file, At::Byte(n.at), msg)
}

fn int(file: &str, key: &str, n: &Node) -> Result<i64, InteropError> {
    match n.value {
        Value::Number(x) if x.fract() == 0.0 && x.abs() < 9.0e15 => Ok(x as i64),
        _ => Err(err(file, n, format!("`{key}` must be an integer, found {}", n.describe()))),
    }
}

fn micros(file: &str, key: &str, n: &Node) -> Result<u64, InteropError> {
    let v = int(file, key, n)?;
    if v < 0 {
        return Err(err(file, n, format!("`{key}` must not be negative (µs)")));
    }
    (v as u64).checked_mul(US).ok_or_else(|| err(file, n, format!("`{key}` is too large")))
}

/// The event kind of a key inside a phase (rt-app matches by prefix, so
/// `run0`, `run1` are runs).
fn event_kind(key: &str) -> &str {
    const KINDS: &[&str] = &[
        "runtime",
        "run",
        "sleep",
        "timer",
        "lock",
        "unlock",
        "wait",
        "signal",
        "broad",
        "sync",
        "barrier",
        "suspend",
        "resume",
        "mem",
        "iorun",
        "yield",
        "fork",
        "pi_enabled",
    ];
    KINDS.iter().find(|k| key.starts_with(**k)).copied().unwrap_or(key)
}

/// Keys of a thread object that are not events.
const THREAD_KEYS: &[&str] =
    &["instance", "policy", "priority", "dl-runtime", "dl-period", "dl-deadline", "cpus", "delay", "loop", "phases"];
/// Keys a phase may hold besides events.
const PHASE_KEYS: &[&str] = &["loop", "cpus", "policy", "priority", "dl-runtime", "dl-period", "dl-deadline"];

struct Thread {
    name: String,
    policy: Option<(String, u64)>,
    priority: Option<i64>,
    dl: [Option<u64>; 3],
    cpus: Option<Vec<u32>>,
    delay: u64,
    run: u64,
    timer: Option<u64>,
    sleep: Option<u64>,
    at: u64,
}

/// Read a workload file into a spec.
pub fn import(path: &std::path::Path, opts: &ImportOptions) -> Result<(Spec, Notes), InteropError> {
    let file = path.display().to_string();
    let meta = std::fs::metadata(path).map_err(|e| InteropError::io(&file, e))?;
    if meta.len() > MAX_BYTES {
        return Err(InteropError::file(
            &file,
            format!("{} bytes: larger than the {MAX_BYTES} bytes an rt-app workload may have", meta.len()),
        ));
    }
    let text = std::fs::read(path).map_err(|e| InteropError::io(&file, e))?;
    import_bytes(&text, &file, opts)
}

/// [`import`] of text in memory; `file` names it in messages.
pub fn import_bytes(text: &[u8], file: &str, opts: &ImportOptions) -> Result<(Spec, Notes), InteropError> {
    let root = lenient_json::parse(text, file)?;
    let mut notes = Notes::default();
    let Value::Object(top) = &root.value else {
        return Err(err(
            file,
            &root,
            format!("an rt-app workload is an object with `tasks`, found {}", root.describe()),
        ));
    };
    let tasks = root.get("tasks").ok_or_else(|| err(file, &root, "no `tasks` object: not an rt-app workload"))?;
    let Value::Object(thread_objs) = &tasks.value else {
        return Err(err(file, tasks, format!("`tasks` must be an object of threads, found {}", tasks.describe())));
    };
    let mut default_policy = "SCHED_OTHER".to_string();
    if let Some(g) = root.get("global") {
        if let Some(p) = g.get("default_policy") {
            if let Value::String(s) = &p.value {
                default_policy = s.clone();
            }
        }
        if let Some(d) = g.get("duration") {
            notes.notes.push(format!("global.duration ({}) is not part of a spec: left out", describe_num(d)));
        }
    }
    for (k, _) in top {
        if k != "tasks" && k != "global" && k != "resources" {
            notes.notes.push(format!("top-level `{k}` ignored"));
        }
    }
    let mut threads = Vec::new();
    for (name, t) in thread_objs {
        let Value::Object(fields) = &t.value else {
            return Err(err(file, t, format!("thread `{name}` must be an object, found {}", t.describe())));
        };
        let mut th = Thread {
            name: name.clone(),
            policy: None,
            priority: None,
            dl: [None; 3],
            cpus: None,
            delay: 0,
            run: 0,
            timer: None,
            sleep: None,
            at: t.at,
        };
        let mut instances = 1;
        let mut events_node: Vec<(&String, &Node)> = Vec::new();
        for (k, v) in fields {
            match k.as_str() {
                "instance" => {
                    instances = int(file, k, v)?;
                    if !(1..=1024).contains(&instances) {
                        return Err(err(file, v, "`instance` must be between 1 and 1024"));
                    }
                }
                "policy" => match &v.value {
                    Value::String(s) => th.policy = Some((s.clone(), v.at)),
                    _ => return Err(err(file, v, "`policy` must be a string such as \"SCHED_FIFO\"")),
                },
                "priority" => th.priority = Some(int(file, k, v)?),
                "dl-runtime" => th.dl[0] = Some(micros(file, k, v)?),
                "dl-period" => th.dl[1] = Some(micros(file, k, v)?),
                "dl-deadline" => th.dl[2] = Some(micros(file, k, v)?),
                "cpus" => th.cpus = Some(cpu_list(file, v)?),
                "delay" => th.delay = micros(file, k, v)?,
                "loop" => {
                    int(file, k, v)?;
                }
                "phases" => {
                    let Value::Object(ph) = &v.value else {
                        return Err(err(file, v, "`phases` must be an object of phases"));
                    };
                    if ph.len() != 1 {
                        return Err(err(
                            file,
                            v,
                            format!(
                                "thread `{name}` has {} phases: a spec task has one behaviour (no mode changes); \
                                 keep one phase, or split the thread into one task per phase",
                                ph.len()
                            ),
                        ));
                    }
                    let (_, phase) = &ph[0];
                    let Value::Object(pf) = &phase.value else {
                        return Err(err(file, phase, "a phase must be an object of events"));
                    };
                    for (pk, pv) in pf {
                        if PHASE_KEYS.contains(&pk.as_str()) {
                            match pk.as_str() {
                                "cpus" => th.cpus = Some(cpu_list(file, pv)?),
                                "priority" => th.priority = Some(int(file, pk, pv)?),
                                "policy" => {
                                    if let Value::String(s) = &pv.value {
                                        th.policy = Some((s.clone(), pv.at))
                                    }
                                }
                                "dl-runtime" => th.dl[0] = Some(micros(file, pk, pv)?),
                                "dl-period" => th.dl[1] = Some(micros(file, pk, pv)?),
                                "dl-deadline" => th.dl[2] = Some(micros(file, pk, pv)?),
                                _ => {}
                            }
                        } else {
                            events_node.push((pk, pv));
                        }
                    }
                }
                _ => events_node.push((k, v)),
            }
        }
        for (k, v) in events_node {
            if THREAD_KEYS.contains(&k.as_str()) {
                continue;
            }
            match event_kind(k) {
                "run" | "runtime" => th.run += micros(file, k, v)?,
                "timer" => {
                    if th.timer.is_some() {
                        return Err(err(file, v, format!("thread `{name}`: a second timer; a task has one period")));
                    }
                    let p = v.get("period").ok_or_else(|| err(file, v, "a `timer` needs a `period` (µs)"))?;
                    th.timer = Some(micros(file, "period", p)?);
                }
                "sleep" => th.sleep = Some(th.sleep.unwrap_or(0) + micros(file, k, v)?),
                other => {
                    return Err(err(
                        file,
                        v,
                        format!(
                            "thread `{name}`: the event `{k}` ({other}) cannot be expressed in a spec (only run, \
                             runtime, timer and sleep can); remove it or model its effect in the WCET"
                        ),
                    ))
                }
            }
        }
        if th.run == 0 {
            return Err(err(file, t, format!("thread `{name}` has no `run` event: it has no execution time")));
        }
        if th.timer.is_some() && th.sleep.is_some() {
            return Err(err(file, t, format!("thread `{name}` has both a timer and a sleep: give one period source")));
        }
        if th.timer.is_none() && th.sleep.is_none() {
            return Err(err(
                file,
                t,
                format!("thread `{name}` has neither a `timer` nor a `sleep`: it never waits, so it has no period"),
            ));
        }
        if instances == 1 {
            threads.push(th);
        } else {
            for i in 0..instances {
                let mut c = Thread { name: format!("{name}-{i}"), policy: th.policy.clone(), ..th.clone_shallow() };
                c.cpus = th.cpus.clone();
                threads.push(c);
            }
        }
    }
    if threads.is_empty() {
        return Err(err(file, tasks, "`tasks` is empty"));
    }
    // One policy for all.
    let pol_of = |t: &Thread| t.policy.as_ref().map(|p| p.0.clone()).unwrap_or_else(|| default_policy.clone());
    let first = pol_of(&threads[0]);
    for t in &threads {
        let p = pol_of(t);
        if p != first {
            return Err(InteropError::at(
                file,
                At::Byte(t.policy.as_ref().map(|p| p.1).unwrap_or(t.at)),
                format!("thread `{}` uses {p} but `{}` uses {first}: a spec has one policy", t.name, threads[0].name),
            ));
        }
    }
    let max_cpu = threads.iter().filter_map(|t| t.cpus.as_ref()).flatten().max().copied();
    let cpus = match (opts.cpus, max_cpu) {
        (Some(c), Some(m)) if m >= c => {
            return Err(InteropError::usage(format!("a thread uses CPU {m} but --cpus is {c}")));
        }
        (Some(c), _) => c,
        (None, Some(m)) => m + 1,
        (None, None) => {
            return Err(InteropError::file(
                file,
                "no thread names its CPUs, so the CPU count is unknown: give --cpus N",
            ))
        }
    };
    let pinned = threads.iter().all(|t| t.cpus.as_ref().is_some_and(|c| c.len() == 1));
    let policy = match first.as_str() {
        "SCHED_FIFO" | "SCHED_RR" => {
            if first == "SCHED_RR" {
                notes.notes.push("SCHED_RR's round robin among equal priorities is not modelled".to_string());
            }
            if pinned {
                "pfp"
            } else {
                "gfp"
            }
        }
        "SCHED_DEADLINE" => "gedf",
        other => {
            return Err(InteropError::file(
                file,
                format!(
                    "the threads' policy is {other}: the model has no real-time policy for it; rt-app workloads \
                     with SCHED_FIFO, SCHED_RR or SCHED_DEADLINE threads can be imported"
                ),
            ))
        }
    };
    let mut spec_tasks = Vec::new();
    for t in &threads {
        let period = t.timer.unwrap_or(t.run + t.sleep.unwrap_or(0));
        if t.sleep.is_some() {
            notes.notes.push(format!(
                "`{}`: run then sleep: a sporadic task whose minimum separation is run + sleep ({} µs)",
                t.name,
                period / US
            ));
        }
        let mut task = Task::new(t.name.clone(), Duration(t.run), Duration(period));
        if policy == "gedf" {
            if let Some(p) = t.dl[1] {
                if t.timer.is_none() {
                    task.period = Duration(p);
                }
            }
            if let Some(d) = t.dl[2].filter(|&d| d != task.period.0) {
                task.deadline = Some(Duration(d));
            }
            if let Some(r) = t.dl[0] {
                if r < t.run {
                    notes.notes.push(format!(
                        "`{}`: dl-runtime {} µs is below the run of {} µs: the kernel throttles it",
                        t.name,
                        r / US,
                        t.run / US
                    ));
                }
            }
        } else {
            task.priority = Some((100 - t.priority.unwrap_or(10).clamp(1, 99)) as u32);
        }
        if pinned {
            task.cpu = t.cpus.as_ref().map(|c| c[0]);
        } else if t.cpus.as_ref().is_some_and(|c| c.len() as u32 != cpus) {
            notes.notes.push(format!("`{}`: its affinity {:?} is not modelled (global)", t.name, t.cpus));
        }
        task.offset = Duration(t.delay);
        spec_tasks.push(task);
    }
    let mut pol = serde_json::json!({ "name": policy });
    if policy != "gedf" {
        pol["priorities"] = serde_json::json!("explicit");
    }
    let spec = Spec {
        meta: Some(schedlab_model::Meta {
            description: Some(format!("imported from the rt-app workload {file}")),
            ..Default::default()
        }),
        platform: schedlab_model::Platform { cpus, clusters: None, cache: None, memory: None },
        policy: Some(serde_json::from_value(pol).expect("a known policy")),
        overheads: None,
        reservations: None,
        mtt: None,
        tasks: spec_tasks,
    };
    check(&spec, file)?;
    Ok((spec, notes))
}

impl Thread {
    fn clone_shallow(&self) -> Thread {
        Thread {
            name: self.name.clone(),
            policy: self.policy.clone(),
            priority: self.priority,
            dl: self.dl,
            cpus: None,
            delay: self.delay,
            run: self.run,
            timer: self.timer,
            sleep: self.sleep,
            at: self.at,
        }
    }
}

fn describe_num(n: &Node) -> String {
    match n.value {
        Value::Number(x) => format!("{x}"),
        _ => n.describe().to_string(),
    }
}

fn cpu_list(file: &str, n: &Node) -> Result<Vec<u32>, InteropError> {
    let Value::Array(a) = &n.value else {
        return Err(err(file, n, "`cpus` must be an array of CPU numbers, e.g. [0, 1]"));
    };
    let mut v = Vec::new();
    for c in a {
        let x = int(file, "cpus", c)?;
        if !(0..4096).contains(&x) {
            return Err(err(file, c, "a CPU number must be between 0 and 4095"));
        }
        v.push(x as u32);
    }
    if v.is_empty() {
        return Err(err(file, n, "`cpus` is empty"));
    }
    Ok(v)
}

/// The spec must pass the model's own checks (via its loader, for the same
/// messages).
fn check(spec: &Spec, file: &str) -> Result<(), InteropError> {
    let text = schedlab_model::emit::to_json(spec);
    schedlab_model::load_str(&text, Some(schedlab_model::Format::Json), file)
        .map(|_| ())
        .map_err(|e| InteropError::file(file, format!("the imported spec is not valid: {e}")))
}

/// Options of the export.
#[derive(Debug, Clone)]
pub struct ExportOptions {
    /// How long the workload runs: each thread runs ⌈duration / period⌉ steps.
    pub duration: u64,
    /// Ask rt-app to write its ftrace markers (`global.ftrace`).
    pub ftrace: bool,
    /// The share of the WCET each job executes (1.0: all of it). Below 1
    /// leaves room for the kernel work a recording charges to the thread.
    pub fill: f64,
}

impl Default for ExportOptions {
    fn default() -> ExportOptions {
        ExportOptions { duration: 1_000_000_000, ftrace: false, fill: 1.0 }
    }
}

/// The rt-app priority (SCHED_FIFO, 1..99, higher first) of every task: the
/// spec's priority order mapped onto 90, 89, ... (equal spec priorities get
/// equal rt-app priorities).
pub fn fifo_priorities(spec: &Spec) -> Result<Vec<u32>, InteropError> {
    let pol = spec.policy.as_ref().ok_or_else(|| InteropError::usage("the spec names no policy"))?;
    let n = spec.tasks.len();
    // Rank key: lower is more important.
    let key: Vec<(u64, usize)> = match pol.priorities.unwrap_or_default() {
        schedlab_model::Priorities::Explicit => {
            spec.tasks.iter().enumerate().map(|(i, t)| (u64::from(t.priority.unwrap_or(u32::MAX)), i)).collect()
        }
        schedlab_model::Priorities::Rm => spec.tasks.iter().enumerate().map(|(i, t)| (t.period.0, i)).collect(),
        schedlab_model::Priorities::Dm => spec.tasks.iter().enumerate().map(|(i, t)| (t.deadline().0, i)).collect(),
        #[allow(unreachable_patterns)]
        other => {
            return Err(InteropError::usage(format!(
                "priorities `{other:?}` cannot be exported to rt-app; use rm, dm or explicit"
            )))
        }
    };
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| key[i]);
    let mut prio = vec![0u32; n];
    let mut level = 90i64;
    for (r, &i) in order.iter().enumerate() {
        if r > 0 && key[order[r - 1]].0 != key[i].0 {
            level -= 1;
        }
        if level < 1 {
            return Err(InteropError::usage("more than 90 priority levels: SCHED_FIFO has 99"));
        }
        prio[i] = level as u32;
    }
    Ok(prio)
}

/// The workload of a spec.
pub fn export(spec: &Spec, o: &ExportOptions) -> Result<String, InteropError> {
    let pol = spec
        .policy
        .as_ref()
        .ok_or_else(|| InteropError::usage("the spec names no policy; rt-app needs one (gfp, pfp or gedf)"))?;
    let fifo = match pol.name {
        PolicyName::Gfp | PolicyName::Pfp => true,
        PolicyName::Gedf => false,
        other => {
            return Err(InteropError::usage(format!(
                "policy `{}` has no Linux scheduling class rt-app can use: export gfp or pfp (SCHED_FIFO) or gedf \
                 (SCHED_DEADLINE); pedf and cedf need exclusive cpusets, which rt-app does not create",
                other.name()
            )))
        }
    };
    let prio = if fifo { fifo_priorities(spec)? } else { Vec::new() };
    let us = |ns: u64, what: &str, t: &Task| -> Result<u64, InteropError> {
        if !ns.is_multiple_of(US) {
            return Err(InteropError::usage(format!(
                "task `{}`: {what} {ns} ns is not a whole number of µs, rt-app's unit",
                t.name
            )));
        }
        Ok(ns / US)
    };
    let mut tasks = serde_json::Map::new();
    let secs = o.duration.div_ceil(1_000_000_000).max(1);
    for (i, t) in spec.tasks.iter().enumerate() {
        if tasks.contains_key(&t.name) {
            return Err(InteropError::usage(format!("two tasks are named `{}`", t.name)));
        }
        let mut th = serde_json::Map::new();
        let period = us(t.period.0, "period", t)?;
        let wcet = us(t.wcet.0, "wcet", t)?;
        if fifo {
            th.insert("policy".into(), "SCHED_FIFO".into());
            th.insert("priority".into(), prio[i].into());
        } else {
            th.insert("policy".into(), "SCHED_DEADLINE".into());
            th.insert("dl-runtime".into(), wcet.into());
            th.insert("dl-period".into(), period.into());
            th.insert("dl-deadline".into(), us(t.deadline().0, "deadline", t)?.into());
        }
        if pol.name == PolicyName::Pfp {
            let c = t.cpu.ok_or_else(|| {
                InteropError::usage(format!(
                    "task `{}` is not pinned: run `schedlab partition` first, so every pfp task has a `cpu`",
                    t.name
                ))
            })?;
            th.insert("cpus".into(), serde_json::json!([c]));
        }
        if t.offset.0 > 0 {
            th.insert("delay".into(), us(t.offset.0, "offset", t)?.into());
        }
        if !(o.fill > 0.0 && o.fill <= 1.0) {
            return Err(InteropError::usage("the fill must be in (0, 1]"));
        }
        // One phase of ⌈duration / period⌉ steps, run once: a thread whose
        // events sit in the thread object loops until `global.duration`
        // instead (its `loop` counts the steps of the phase, repeated).
        th.insert("loop".into(), 1.into());
        let job = serde_json::json!({
            "loop": o.duration.div_ceil(t.period.0).max(1),
            "runtime": ((wcet as f64 * o.fill).round() as u64).max(1),
            "timer": { "ref": format!("tick-{}", t.name), "period": period, "mode": "absolute" },
        });
        th.insert("phases".into(), serde_json::json!({ "job": job }));
        tasks.insert(t.name.clone(), serde_json::Value::Object(th));
    }
    let doc = serde_json::json!({
        "tasks": tasks,
        "global": {
            "duration": secs + 1,
            // `runtime` events spin on the clock, so no calibration is needed
            // (a number skips rt-app's slow calibration loop).
            "calibration": 100,
            "default_policy": "SCHED_OTHER",
            "pi_enabled": false,
            "lock_pages": true,
            "ftrace": o.ftrace,
            "gnuplot": false,
        }
    });
    let mut s = serde_json::to_string_pretty(&doc).expect("JSON values serialize");
    s.push('\n');
    Ok(s)
}
