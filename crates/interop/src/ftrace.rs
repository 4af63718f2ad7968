//! Linux scheduler events as text → a schedlab trace: the tracefs `trace`
//! file, `trace-cmd report` and `perf script` (of `perf sched record`) all
//! print one event per line with the task, the CPU, the time in seconds and
//! the event; the payload of `sched_switch` / `sched_wakeup` is either
//! `key=value` (tracefs, older perf) or the libtraceevent form
//! `comm:pid [prio] S ==> comm:pid [prio]` (trace-cmd, newer perf).
//!
//! Threads map to the tasks of a spec (`--map PATTERN=TASK`, by thread name
//! glob or `pid:N`; by default a thread named like a task is that task).
//! While a mapped thread has a real-time priority, a job starts when it is
//! woken (or at a `trace_marker` line it writes, with `release` from
//! markers; or as rt-app's own markers delimit its steps, see
//! [`Release::RtApp`]), runs while it is switched in, is preempted when it is
//! switched out runnable, and completes when it is switched out sleeping (or
//! blocks, under rt-app's markers, when the step is not done). The schedule
//! starts once every mapped thread has slept once as a real-time thread (its
//! set-up is not a job), plus an optional warm-up, and time zero is the first
//! release after that. A wake-up is `sched_wakeup` or `sched_waking` (what
//! `perf sched record` records). The import measures each wait of a job
//! while a CPU it may use runs no mapped job ([`Stats::free_cpu_wait`]), the
//! decision lag a validator must tolerate.
//!
//! Two streaming passes over the file: the first finds the threads and the
//! start, the second converts. Memory holds per-thread state only.

use crate::error::{At, InteropError};
use schedlab_model::Spec;
use schedlab_trace::{Event, Header, Source, SwitchReason};
use std::collections::HashMap;
use std::io::BufRead;
use std::path::Path;

/// Longest line accepted.
pub const MAX_LINE: usize = 64 * 1024;

/// How releases are found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Release {
    /// At each wake-up of the thread.
    Wakeup,
    /// At each `trace_marker` line the thread writes that starts with the prefix.
    Marker(String),
    /// rt-app's own markers (its `global.ftrace`): a job is released at the
    /// wake-up that ends the thread's sleep between two jobs (or, when the
    /// thread did not sleep, at its `[N] begins loop` marker), and completes
    /// at the first sleep after its `[N] executing E` marker for the last
    /// event E of the step (the timer or sleep); a sleep before that marker
    /// blocks the job, and the next wake-up resumes it.
    RtApp,
}

/// An rt-app marker: `[N] begins loop L phase P step S` or `[N] executing E`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RtAppMarker {
    Begin,
    Executing(u32),
}

/// The rt-app marker in a `trace_marker` text, if it is one (rt-app 1.0's
/// format: `[thread index] begins loop ...` / `[thread index] executing E`).
pub fn rtapp_marker(text: &str) -> Option<RtAppMarker> {
    let rest = text.strip_prefix('[')?;
    let (ind, rest) = rest.split_once("] ")?;
    if ind.is_empty() || !ind.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if rest.starts_with("begins loop ") {
        return Some(RtAppMarker::Begin);
    }
    let e = rest.strip_prefix("executing ")?.trim_end();
    e.parse().ok().map(RtAppMarker::Executing)
}

/// Options of the import.
#[derive(Debug, Clone)]
pub struct Options {
    /// `(pattern, task name)`: a thread name glob (`*`, `?`) or `pid:N`.
    pub map: Vec<(String, String)>,
    pub release: Release,
    /// Leave out this much of the schedule after the set-up (a warm-up), ns.
    pub skip: u64,
}

impl Default for Options {
    fn default() -> Options {
        Options { map: Vec::new(), release: Release::Wakeup, skip: 0 }
    }
}

/// One parsed line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    Switch {
        t: u64,
        cpu: u32,
        prev_comm: String,
        prev_pid: i32,
        prev_prio: i32,
        prev_runnable: bool,
        next_comm: String,
        next_pid: i32,
        next_prio: i32,
    },
    Wakeup {
        t: u64,
        cpu: u32,
        comm: String,
        pid: i32,
        prio: i32,
    },
    Exit {
        t: u64,
        pid: i32,
    },
    Marker {
        t: u64,
        /// The CPU the writer runs on.
        cpu: u32,
        pid: i32,
        text: String,
    },
    Lost {
        count: u64,
    },
}

fn glob(p: &[u8], s: &[u8]) -> bool {
    match (p.first(), s.first()) {
        (None, None) => true,
        (Some(b'*'), _) => glob(&p[1..], s) || (!s.is_empty() && glob(p, &s[1..])),
        (Some(b'?'), Some(_)) => glob(&p[1..], &s[1..]),
        (Some(a), Some(b)) if a == b => glob(&p[1..], &s[1..]),
        _ => false,
    }
}

fn parse_time(s: &str) -> Option<u64> {
    let s = s.trim_end_matches(':');
    let (sec, frac) = s.split_once('.').unwrap_or((s, ""));
    if sec.is_empty() || !sec.bytes().all(|b| b.is_ascii_digit()) || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if frac.len() > 9 {
        return None;
    }
    let sec: u64 = sec.parse().ok()?;
    let mut ns: u64 = if frac.is_empty() { 0 } else { frac.parse().ok()? };
    for _ in frac.len()..9 {
        ns *= 10;
    }
    sec.checked_mul(1_000_000_000)?.checked_add(ns)
}

/// The `key=value` pairs of a payload, in order. A value runs to the next
/// ` word=` or ` ==>`, so names with spaces survive.
fn pairs(body: &str) -> Vec<(&str, &str)> {
    let mut out: Vec<(&str, &str)> = Vec::with_capacity(8);
    let mut cur: Option<(&str, usize, usize)> = None; // key, value start, value end
    let mut pos = 0;
    for tok in body.split(' ') {
        let start = pos;
        pos += tok.len() + 1;
        if tok.is_empty() {
            continue;
        }
        let key = tok
            .split_once('=')
            .map(|(k, _)| k)
            .filter(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'));
        if tok == "==>" || key.is_some() {
            if let Some((k, vs, ve)) = cur.take() {
                out.push((k, &body[vs..ve]));
            }
            if let Some(k) = key {
                let vs = start + k.len() + 1;
                cur = Some((k, vs, start + tok.len()));
            }
        } else if let Some((_, _, ve)) = cur.as_mut() {
            *ve = start + tok.len();
        }
    }
    if let Some((k, vs, ve)) = cur {
        out.push((k, &body[vs..ve]));
    }
    out
}

fn kv<'a>(pairs: &[(&str, &'a str)], key: &str) -> Option<&'a str> {
    pairs.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
}

/// A priority; trace-cmd prints SCHED_DEADLINE's -1 as the unsigned 4294967295.
fn prio_of(s: &str) -> Option<i32> {
    let v: i64 = s.trim().parse().ok()?;
    Some(if (i64::from(i32::MAX) + 1..=i64::from(u32::MAX)).contains(&v) {
        v as u32 as i32
    } else {
        i32::try_from(v).ok()?
    })
}

/// `comm:pid [prio]` (libtraceevent form); returns (comm, pid, prio, rest).
fn comm_pid_prio(s: &str) -> Option<(String, i32, i32, &str)> {
    let s = s.trim_start();
    let open = s.find(" [")?;
    let close = s[open..].find(']')? + open;
    let (comm, pid) = s[..open].rsplit_once(':')?;
    let prio = prio_of(&s[open + 2..close])?;
    Some((comm.to_string(), pid.trim().parse().ok()?, prio, &s[close + 1..]))
}

const EVENTS: &[&str] = &[
    "sched_switch",
    "sched_wakeup",
    "sched_waking",
    "sched_wakeup_new",
    "sched_process_exit",
    "tracing_mark_write",
    "print",
];

/// Parse one line; `Ok(None)` for lines that are not scheduler events.
pub fn parse_line(line: &str) -> Result<Option<Line>, String> {
    // tracefs / trace-cmd: `CPU:1 [LOST 42 EVENTS]`; `perf script
    // --show-lost-events`: `... PERF_RECORD_LOST lost 42`.
    for mark in ["[LOST ", "PERF_RECORD_LOST lost "] {
        if let Some(i) = line.find(mark) {
            let n: String = line[i + mark.len()..].chars().take_while(|c| c.is_ascii_digit()).collect();
            return Ok(Some(Line::Lost { count: n.parse().unwrap_or(1) }));
        }
    }
    let trimmed = line.trim_start();
    if trimmed.is_empty() || trimmed.starts_with('#') {
        return Ok(None);
    }
    // Find the event token: `name:` or `sched:name:` / `ftrace:print:`.
    let mut pos = 0;
    let mut found = None;
    for tok in line.split(' ') {
        if !tok.is_empty() && tok.ends_with(':') {
            let name = tok.trim_end_matches(':');
            let name = name.rsplit(':').next().unwrap_or(name);
            if EVENTS.contains(&name) {
                found = Some((pos, tok.len(), name));
                break;
            }
        }
        pos += tok.len() + 1;
    }
    let Some((at, len, name)) = found else { return Ok(None) };
    let left = &line[..at];
    let body = line[at + len..].trim();
    let toks: Vec<&str> = left.split_whitespace().collect();
    let t = toks.last().and_then(|s| parse_time(s)).ok_or("no time (seconds) before the event name")?;
    let cpu_i = toks
        .iter()
        .rposition(|s| s.starts_with('[') && s.ends_with(']') && s[1..s.len() - 1].bytes().all(|b| b.is_ascii_digit()));
    let cpu: u32 =
        cpu_i.and_then(|i| toks[i][1..toks[i].len() - 1].parse().ok()).ok_or("no CPU (`[NNN]`) before the time")?;
    let writer_pid = || -> Option<i32> {
        let i = cpu_i?;
        let before = toks.get(i.checked_sub(1)?)?;
        if before.bytes().all(|b| b.is_ascii_digit()) {
            return before.parse().ok(); // perf: `comm pid [cpu]`
        }
        before.rsplit_once('-').and_then(|(_, p)| p.parse().ok()) // `comm-pid [cpu]`
    };
    match name {
        "sched_switch" => {
            if body.contains("prev_pid=") {
                let kvs = pairs(body);
                let g = |k: &str| kv(&kvs, k).ok_or_else(|| format!("sched_switch without `{k}=`"));
                let num = |k: &str| g(k).and_then(|v| prio_of(v).ok_or_else(|| format!("`{k}` is not a number")));
                let state = g("prev_state")?;
                Ok(Some(Line::Switch {
                    t,
                    cpu,
                    prev_comm: g("prev_comm")?.to_string(),
                    prev_pid: num("prev_pid")?,
                    prev_prio: num("prev_prio")?,
                    prev_runnable: state.starts_with('R'),
                    next_comm: g("next_comm")?.to_string(),
                    next_pid: num("next_pid")?,
                    next_prio: num("next_prio")?,
                }))
            } else {
                let (l, r) = body.split_once(" ==> ").ok_or("sched_switch without `==>`")?;
                let (pc, pp, ppr, rest) = comm_pid_prio(l).ok_or("cannot read `comm:pid [prio]` before `==>`")?;
                let (nc, np, npr, _) = comm_pid_prio(r).ok_or("cannot read `comm:pid [prio]` after `==>`")?;
                Ok(Some(Line::Switch {
                    t,
                    cpu,
                    prev_comm: pc,
                    prev_pid: pp,
                    prev_prio: ppr,
                    prev_runnable: rest.trim().starts_with('R'),
                    next_comm: nc,
                    next_pid: np,
                    next_prio: npr,
                }))
            }
        }
        "sched_wakeup" | "sched_waking" | "sched_wakeup_new" => {
            let (comm, pid, prio) = if body.contains("pid=") {
                let kvs = pairs(body);
                let comm = kv(&kvs, "comm").ok_or("sched_wakeup without `comm=`")?.to_string();
                let pid = kv(&kvs, "pid").and_then(|v| v.trim().parse().ok()).ok_or("sched_wakeup without `pid=`")?;
                let prio = kv(&kvs, "prio").and_then(prio_of).ok_or("sched_wakeup without `prio=`")?;
                (comm, pid, prio)
            } else {
                let (c, p, pr, _) = comm_pid_prio(body).ok_or("cannot read `comm:pid [prio]` of sched_wakeup")?;
                (c, p, pr)
            };
            if name == "sched_wakeup_new" {
                return Ok(None);
            }
            Ok(Some(Line::Wakeup { t, cpu, comm, pid, prio }))
        }
        "sched_process_exit" => {
            let pid = match kv(&pairs(body), "pid") {
                Some(v) => v.trim().parse().map_err(|_| "`pid` is not a number")?,
                None => comm_pid_prio(body).map(|x| x.1).ok_or("cannot read the pid of sched_process_exit")?,
            };
            Ok(Some(Line::Exit { t, pid }))
        }
        _ => {
            let text = body.strip_prefix("tracing_mark_write:").map(str::trim_start).unwrap_or(body);
            match writer_pid() {
                Some(pid) => Ok(Some(Line::Marker { t, cpu, pid, text: text.to_string() })),
                None => Ok(None),
            }
        }
    }
}

fn is_rt(prio: i32) -> bool {
    prio < 100
}

/// What the import measured and left out.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Stats {
    pub lines: u64,
    /// Lines that are scheduler events.
    pub events_read: u64,
    pub events_written: u64,
    /// Threads mapped to tasks: (task, pid, thread name).
    pub threads: Vec<(String, i32, String)>,
    /// Absolute time (ns, the recording's clock) of time zero.
    pub zero: u64,
    pub jobs: u64,
    /// Each wait of a job for a CPU (from its release, resumption or
    /// preemption to its switch-in) during which a CPU it may run on ran no
    /// mapped job: the time that CPU stayed free of it. A validator reads
    /// such a CPU as idle, so this is the decision lag the recording shows
    /// (the kernel's wake-up and migration latency, and the time threads
    /// outside the map held the CPU), whatever the policy.
    pub free_cpu_wait: LatencySummary,
    /// Lines whose time went backwards (set to the previous time).
    pub reordered: u64,
    /// Switch-ins missing from the recording (a thread switched out of a
    /// CPU it was not seen switched into), inserted at the CPU's previous
    /// switch or the job's release, whichever is later.
    pub inferred_switches: u64,
    /// With rt-app markers: jobs that did not hold exactly one of rt-app's
    /// `begins loop` markers (0 when every job imported is one rt-app ran).
    pub unconfirmed_jobs: u64,
    /// The longest of those waits, with what ran on the free CPU.
    pub longest_wait: Option<LongestWait>,
    /// How far each task's releases stray from its period grid: per task,
    /// the spread (max − min) of release(job k) − k × period over the jobs
    /// imported, ns; the largest over the tasks. For a periodic program it is
    /// the jitter of its timer's wake-ups (a late release shortens the next
    /// separation by as much); a sporadic program, or releases cut in
    /// several by wake-ups inside jobs, makes it large.
    pub release_jitter: u64,
    /// Switches of mapped threads the recording lost: a CPU switched away
    /// from a thread it was not seen switching to, where either is a mapped
    /// thread (perf drops events without a LOST record, and a dropped
    /// switch-in may take a wake-up, hence a job, with it).
    pub missing_switches: u64,
    /// The line of the first of them.
    pub first_missing_switch: Option<u64>,
}

/// The longest wait with a free CPU: the evidence of a recording's stall.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct LongestWait {
    pub task: String,
    /// When the wait ended (the job's switch-in), ns from time zero.
    pub until: u64,
    /// Its time with a free CPU, ns.
    pub free: u64,
    /// The thread (`comm:pid`, or `idle (swapper/N)`) that ran on the free
    /// CPU when the wait's (last) free stretch began.
    pub holder: String,
}

/// Count, max, mean and 99th percentile (ns).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct LatencySummary {
    pub count: u64,
    pub max: u64,
    pub mean: f64,
    pub p99: u64,
}

struct Reader<R: BufRead> {
    r: R,
    file: String,
    line_no: u64,
    buf: Vec<u8>,
}

impl<R: BufRead> Reader<R> {
    fn next(&mut self) -> Result<Option<(u64, Option<Line>)>, InteropError> {
        self.buf.clear();
        let n = std::io::Read::take(&mut self.r, MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut self.buf)
            .map_err(|e| InteropError::io(&self.file, e))?;
        if n == 0 {
            return Ok(None);
        }
        self.line_no += 1;
        if self.buf.len() > MAX_LINE {
            return Err(InteropError::at(
                &self.file,
                At::Line(self.line_no),
                format!("a line longer than {MAX_LINE} bytes: not a scheduler trace"),
            ));
        }
        let text = String::from_utf8_lossy(&self.buf);
        let line = parse_line(text.trim_end_matches(['\n', '\r']))
            .map_err(|m| InteropError::at(&self.file, At::Line(self.line_no), m))?;
        Ok(Some((self.line_no, line)))
    }
}

fn open(path: &Path) -> Result<Reader<std::io::BufReader<std::fs::File>>, InteropError> {
    let file = path.display().to_string();
    let f = std::fs::File::open(path).map_err(|e| InteropError::io(&file, e))?;
    Ok(Reader { r: std::io::BufReader::with_capacity(1 << 16, f), file, line_no: 0, buf: Vec::new() })
}

/// Which task a thread is.
fn task_of(spec: &Spec, opts: &Options, comm: &str, pid: i32) -> Result<Option<u32>, InteropError> {
    for (pat, task) in &opts.map {
        let hit = match pat.strip_prefix("pid:") {
            Some(p) => p.parse::<i32>().ok() == Some(pid),
            None => glob(pat.as_bytes(), comm.as_bytes()),
        };
        if hit {
            return match spec.tasks.iter().position(|t| &t.name == task) {
                Some(i) => Ok(Some(i as u32)),
                None => Err(InteropError::usage(format!("--map {pat}={task}: the spec has no task `{task}`"))),
            };
        }
    }
    if opts.map.is_empty() {
        // Thread names are at most 15 bytes.
        return Ok(spec
            .tasks
            .iter()
            .position(|t| t.name == comm || (t.name.len() > 15 && t.name.as_bytes()[..15] == *comm.as_bytes()))
            .map(|i| i as u32));
    }
    Ok(None)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum St {
    Idle,
    Ready,
    Running(u32),
}

struct Thr {
    task: u32,
    state: St,
    in_job: Option<u64>,
    skip_job: bool,
    exec: u64,
    run_start: u64,
    jobs: u64,
    /// The job's current wait for a CPU.
    wait: Option<Wait>,
    /// The least and greatest release(job k) − k × period, ns.
    grid: Option<(i128, i128)>,
    released: u64,
    /// With `Release::RtApp`: the step (job) the thread is in, written or not.
    rt: Option<RtJob>,
}

/// A job's wait for a CPU: the free-CPU time so far, since when a CPU it may
/// use is free, and whether one was.
#[derive(Clone, Copy, Default)]
struct Wait {
    free: u64,
    since: Option<u64>,
    seen: bool,
    holder: Option<(u32, i32)>,
}

/// Bring every waiting job's free-CPU time up to `t` (the CPUs' state from
/// `t` on is `cpu_busy`).
/// `on_cpu`: the PID each CPU runs.
fn refresh_waits(
    thr: &mut HashMap<i32, Thr>,
    spec: &Spec,
    cpu_busy: &HashMap<u32, i32>,
    on_cpu: &HashMap<u32, i32>,
    t: u64,
) {
    for th in thr.values_mut() {
        if let Some(w) = th.wait.as_mut() {
            let task = &spec.tasks[th.task as usize];
            let free = (0..spec.platform.cpus).find(|c| task.cpu.is_none_or(|p| p == *c) && !cpu_busy.contains_key(c));
            match (free, w.since) {
                (Some(c), None) => {
                    w.since = Some(t);
                    w.seen = true;
                    w.holder = on_cpu.get(&c).map(|p| (c, *p));
                }
                (None, Some(s)) => {
                    w.free += t.saturating_sub(s);
                    w.since = None;
                }
                _ => {}
            }
        }
    }
}

/// An rt-app step in progress.
#[derive(Clone, Copy, Default)]
struct RtJob {
    /// Its `executing E` marker of the step's last event was written: its
    /// next sleep completes it.
    done: bool,
    /// `begins loop` markers seen in it (1 when the import found rt-app's job).
    begins: u32,
}

/// Start the thread's next job at `t` (≥ `z`): its release, and its
/// switch-in when the thread is running (a marker release).
fn start_job(
    th: &mut Thr,
    t: u64,
    z: u64,
    spec: &Spec,
    stats: &mut Stats,
    out: &mut dyn FnMut(Event, &mut Stats) -> Result<(), InteropError>,
) -> Result<(), InteropError> {
    let job = th.jobs;
    th.jobs += 1;
    th.in_job = Some(job);
    th.exec = 0;
    th.released = t;
    stats.jobs += 1;
    th.wait = Some(Wait::default());
    let x = i128::from(t) - i128::from(job) * i128::from(spec.tasks[th.task as usize].period.0);
    let (lo, hi) = th.grid.map_or((x, x), |(lo, hi)| (lo.min(x), hi.max(x)));
    th.grid = Some((lo, hi));
    stats.release_jitter = stats.release_jitter.max(u64::try_from(hi - lo).unwrap_or(u64::MAX));
    let (task, t0) = (th.task, t - z);
    let deadline = t0 + spec.tasks[task as usize].deadline().0;
    out(Event::Release { t: t0, task, job, deadline }, stats)?;
    if let St::Running(cpu) = th.state {
        // Marker releases come from the running thread itself.
        th.run_start = t;
        th.wait = None;
        out(Event::SwitchTo { t: t0, cpu, task, job }, stats)?;
    }
    Ok(())
}

/// Where an import's output goes: first the header (with `None`), then
/// every event in order.
pub type Sink<'a> = dyn FnMut(&Header, Option<Event>) -> Result<(), InteropError> + 'a;

/// Import a recording for `spec`.
pub fn import(path: &Path, spec: &Spec, opts: &Options, sink: &mut Sink<'_>) -> Result<Stats, InteropError> {
    let file = path.display().to_string();
    // Pass 1: the mapped threads and the start.
    let mut pids: HashMap<i32, (u32, String)> = HashMap::new();
    let mut slept: HashMap<i32, u64> = HashMap::new();
    // rt-app markers (with `Release::RtApp`): per writer PID, the index of the
    // last event of a step (the highest `executing E`) and the time of the
    // last `begins loop` (a wake-up after it ends the thread's last step).
    let mut last_event: HashMap<i32, u32> = HashMap::new();
    let mut last_begin: HashMap<i32, u64> = HashMap::new();
    let rtapp = opts.release == Release::RtApp;
    let mut last_t = 0;
    let mut r = open(path)?;
    let see = |pid: i32, comm: &str, pids: &mut HashMap<i32, (u32, String)>| -> Result<(), InteropError> {
        if pid <= 0 || pids.contains_key(&pid) {
            return Ok(());
        }
        if let Some(task) = task_of(spec, opts, comm, pid)? {
            pids.insert(pid, (task, comm.to_string()));
        }
        Ok(())
    };
    while let Some((line_no, l)) = r.next()? {
        match l {
            Some(Line::Lost { count }) => {
                return Err(InteropError::at(
                    &file,
                    At::Line(line_no),
                    format!(
                        "the recording lost {count} events (ring buffer overrun): record again with a larger buffer \
                         (tracefs buffer_size_kb, trace-cmd -b, perf -m)"
                    ),
                ))
            }
            Some(Line::Switch { t, prev_comm, prev_pid, prev_prio, prev_runnable, next_comm, next_pid, .. }) => {
                see(prev_pid, &prev_comm, &mut pids)?;
                see(next_pid, &next_comm, &mut pids)?;
                if pids.contains_key(&prev_pid) && is_rt(prev_prio) && !prev_runnable {
                    slept.entry(prev_pid).or_insert(t);
                }
                last_t = t;
            }
            Some(Line::Wakeup { pid, comm, t, prio, .. }) => {
                see(pid, &comm, &mut pids)?;
                let _ = prio;
                last_t = t;
            }
            Some(Line::Marker { t, pid, text, .. }) => {
                if rtapp {
                    match rtapp_marker(&text) {
                        Some(RtAppMarker::Begin) => {
                            last_begin.insert(pid, t);
                        }
                        Some(RtAppMarker::Executing(e)) => {
                            let m = last_event.entry(pid).or_insert(e);
                            *m = (*m).max(e);
                        }
                        None => {}
                    }
                }
                last_t = t
            }
            Some(Line::Exit { t, .. }) => last_t = t,
            None => {}
        }
    }
    // Two threads for one task?
    let mut by_task: HashMap<u32, i32> = HashMap::new();
    for (pid, (task, comm)) in &pids {
        if let Some(other) = by_task.insert(*task, *pid) {
            return Err(InteropError::file(&file, format!(
                "task `{}` matches two threads (PIDs {other} and {pid}, `{comm}`); map them apart with --map pid:N=TASK",
                spec.tasks[*task as usize].name
            )));
        }
    }
    for (i, t) in spec.tasks.iter().enumerate() {
        if !by_task.contains_key(&(i as u32)) {
            return Err(InteropError::file(
                &file,
                format!(
                "no thread of the recording is task `{}`: name it with --map PATTERN={} (a thread name glob or pid:N)",
                t.name, t.name
            ),
            ));
        }
    }
    if rtapp {
        let mut missing: Vec<&str> = pids
            .iter()
            .filter(|(p, _)| !last_begin.contains_key(p) || !last_event.contains_key(p))
            .map(|(_, (_, comm))| comm.as_str())
            .collect();
        missing.sort();
        if let Some(comm) = missing.first() {
            return Err(InteropError::file(
                &file,
                format!(
                    "thread `{comm}` wrote no rt-app job markers (`[N] begins loop ...`, `[N] executing E`): run the \
                     workload with \"ftrace\": true in its `global` (schedlab export rt-app --ftrace) and let its \
                     trace_marker writes reach the recording, or import with --release wakeup"
                ),
            ));
        }
    }
    let start = match pids.keys().map(|p| slept.get(p).copied()).collect::<Option<Vec<u64>>>() {
        Some(v) => v.into_iter().max().unwrap_or(0).saturating_add(opts.skip),
        None => {
            return Err(InteropError::file(&file, "a mapped thread never slept with a real-time priority: it ran no periodic jobs in the recording (is it SCHED_FIFO / SCHED_DEADLINE?)"));
        }
    };
    // Pass 1b: time zero, the first release after the start.
    let mut zero_at = None;
    let mut r = open(path)?;
    while let Some((_, l)) = r.next()? {
        let hit = match l {
            Some(Line::Wakeup { t, pid, prio, .. }) => {
                t > start && (opts.release == Release::Wakeup || rtapp) && is_rt(prio) && pids.contains_key(&pid)
            }
            Some(Line::Marker { t, pid, ref text, .. }) => {
                t > start
                    && match &opts.release {
                        Release::Marker(p) => text.starts_with(p.as_str()),
                        Release::RtApp => rtapp_marker(text) == Some(RtAppMarker::Begin),
                        Release::Wakeup => false,
                    }
                    && pids.contains_key(&pid)
            }
            _ => false,
        };
        if hit {
            zero_at = match l {
                Some(Line::Wakeup { t, .. }) | Some(Line::Marker { t, .. }) => Some(t),
                _ => None,
            };
            break;
        }
    }
    let z = zero_at.ok_or_else(|| {
        InteropError::file(
            &file,
            "no job of a mapped thread was released after every mapped thread's set-up: the recording holds no schedule",
        )
    })?;
    let mut out_spec = spec.clone();
    out_spec.meta.get_or_insert_with(Default::default).description =
        Some(format!("imported from the scheduler recording {file}"));
    let mut h = Header::new(out_spec, Source::Import, 0, last_t.saturating_sub(z));
    h.clock = "recording".to_string();
    h.placement = crate::placement::of_spec(&h.spec);
    sink(&h, None)?;
    // Pass 2.
    let mut stats = Stats {
        threads: pids.iter().map(|(p, (t, c))| (spec.tasks[*t as usize].name.clone(), *p, c.clone())).collect(),
        ..Stats::default()
    };
    stats.threads.sort();
    let mut thr: HashMap<i32, Thr> = pids
        .iter()
        .map(|(p, (task, _))| {
            (
                *p,
                Thr {
                    task: *task,
                    state: St::Idle,
                    in_job: None,
                    skip_job: false,
                    exec: 0,
                    run_start: 0,
                    jobs: 0,
                    wait: None,
                    grid: None,
                    released: 0,
                    rt: None,
                },
            )
        })
        .collect();
    let mut cpu_busy: HashMap<u32, i32> = HashMap::new();
    let mut cpu_last: HashMap<u32, u64> = HashMap::new();
    // What each CPU runs, and the names of the threads seen switched in.
    let mut on_cpu: HashMap<u32, i32> = HashMap::new();
    let mut names: HashMap<i32, String> = HashMap::new();
    let mut lat = schedlab_trace::histogram::Histogram::default();
    let mut prev_t = 0u64;
    let mut r = open(path)?;
    let last_out = std::cell::Cell::new(z);
    let mut out = |ev: Event, stats: &mut Stats| -> Result<(), InteropError> {
        stats.events_written += 1;
        last_out.set(ev.t() + z);
        sink(&h, Some(ev))
    };
    while let Some((line_no, l)) = r.next()? {
        stats.lines = line_no;
        let Some(l) = l else { continue };
        stats.events_read += 1;
        let mut t = match &l {
            Line::Switch { t, .. } | Line::Wakeup { t, .. } | Line::Exit { t, .. } | Line::Marker { t, .. } => *t,
            Line::Lost { .. } => continue,
        };
        if t < prev_t {
            stats.reordered += 1;
            t = prev_t;
        }
        // The CPUs' state changed at the previous line.
        refresh_waits(&mut thr, spec, &cpu_busy, &on_cpu, prev_t);
        prev_t = t;
        let is_release = match &l {
            Line::Wakeup { pid, prio, .. } => {
                opts.release == Release::Wakeup && is_rt(*prio) && thr.get(pid).is_some_and(|th| th.state == St::Idle)
            }
            Line::Marker { pid, text, .. } => {
                matches!(&opts.release, Release::Marker(p) if text.starts_with(p.as_str())) && thr.contains_key(pid)
            }
            _ => false,
        };
        if is_release {
            let pid = match &l {
                Line::Wakeup { pid, .. } | Line::Marker { pid, .. } => *pid,
                _ => unreachable!("a release is a wake-up or a marker"),
            };
            let th = thr.get_mut(&pid).expect("a mapped thread");
            if matches!(l, Line::Wakeup { .. }) {
                th.state = St::Ready;
            }
            if t >= z && th.in_job.is_none() && !th.skip_job {
                start_job(th, t, z, spec, &mut stats, &mut out)?;
            }
            continue;
        }
        if rtapp {
            // rt-app's job boundaries: markers, and the wake-ups between jobs.
            match &l {
                Line::Marker { pid, text, cpu, .. } if thr.contains_key(pid) => {
                    let cpu = *cpu;
                    let other_runs = thr.iter().any(|(p, o)| p != pid && o.state == St::Running(cpu));
                    let th = thr.get_mut(pid).expect("a mapped thread");
                    if th.state == St::Ready && cpu < spec.platform.cpus && !other_runs {
                        // Its writer runs: the recording lost the switch-in of a
                        // woken thread, which took place before this line.
                        stats.missing_switches += 1;
                        stats.first_missing_switch.get_or_insert(line_no);
                        th.state = St::Running(cpu);
                        on_cpu.insert(cpu, *pid);
                        cpu_last.insert(cpu, t);
                        if let Some(job) = th.in_job {
                            cpu_busy.insert(cpu, *pid);
                            th.run_start = t;
                            th.wait = None;
                            stats.inferred_switches += 1;
                            out(Event::SwitchTo { t: t - z, cpu, task: th.task, job }, &mut stats)?;
                        }
                    }
                    match rtapp_marker(text) {
                        Some(RtAppMarker::Begin) => match (&mut th.rt, th.state) {
                            (Some(j), St::Running(cpu)) if j.done => {
                                // The step began without a sleep (its timer had
                                // expired): the job ends and the next one starts here.
                                if let Some(job) = th.in_job.take() {
                                    th.exec += t - th.run_start;
                                    let (task, exec, t0) = (th.task, th.exec, t - z);
                                    let reason = SwitchReason::Complete;
                                    out(Event::SwitchAway { t: t0, cpu, task, job, reason, exec }, &mut stats)?;
                                    out(Event::Completion { t: t0, cpu, task, job, exec, forced: false }, &mut stats)?;
                                    cpu_busy.remove(&cpu);
                                    stats.unconfirmed_jobs += u64::from(j.begins != 1);
                                }
                                th.rt = Some(RtJob { begins: 1, ..RtJob::default() });
                                if t >= z {
                                    start_job(th, t, z, spec, &mut stats, &mut out)?;
                                    cpu_busy.insert(cpu, *pid);
                                }
                            }
                            (Some(j), _) => j.begins += 1,
                            (None, St::Running(cpu)) => {
                                // The first step (no sleep before it).
                                th.rt = Some(RtJob { begins: 1, ..RtJob::default() });
                                if t >= z {
                                    start_job(th, t, z, spec, &mut stats, &mut out)?;
                                    cpu_busy.insert(cpu, *pid);
                                }
                            }
                            (None, _) => {}
                        },
                        Some(RtAppMarker::Executing(e)) if last_event.get(pid) == Some(&e) => {
                            if let Some(j) = th.rt.as_mut() {
                                j.done = true;
                            }
                        }
                        _ => {}
                    }
                    continue;
                }
                Line::Wakeup { pid, prio, .. }
                    if is_rt(*prio) && thr.get(pid).is_some_and(|th| th.state == St::Idle) =>
                {
                    let th = thr.get_mut(pid).expect("a mapped thread");
                    th.state = St::Ready;
                    if th.rt.is_some() {
                        // A job blocked inside its step resumes.
                        if let Some(job) = th.in_job {
                            out(Event::Resume { t: t - z, task: th.task, job }, &mut stats)?;
                            th.wait = Some(Wait::default());
                        }
                    } else if last_begin.get(pid).is_some_and(|&b| t <= b) {
                        // The wake-up that ends the sleep between two steps
                        // (after the thread's last step, a wake-up only leads to its exit).
                        th.rt = Some(RtJob::default());
                        if t >= z {
                            start_job(th, t, z, spec, &mut stats, &mut out)?;
                        }
                    }
                    continue;
                }
                _ => {}
            }
        }
        match l {
            Line::Switch { cpu, prev_pid, prev_prio, prev_runnable, next_pid, next_comm, .. } => {
                if cpu >= spec.platform.cpus {
                    return Err(InteropError::at(
                        &file,
                        At::Line(line_no),
                        format!(
                            "CPU {cpu}, but the spec's platform has {} CPUs: give the spec the machine's CPU count",
                            spec.platform.cpus
                        ),
                    ));
                }
                cpu_busy.remove(&cpu);
                let since = cpu_last.insert(cpu, t).unwrap_or(z);
                let cur = on_cpu.insert(cpu, next_pid);
                if cur.is_some_and(|c| c != prev_pid && (thr.contains_key(&c) || thr.contains_key(&prev_pid))) {
                    stats.missing_switches += 1;
                    stats.first_missing_switch.get_or_insert(line_no);
                }
                names.entry(next_pid).or_insert_with(|| next_comm.clone());
                if let Some(th) = thr.get_mut(&prev_pid) {
                    let was = th.state;
                    th.state = if prev_runnable { St::Ready } else { St::Idle };
                    match th.in_job {
                        Some(job) => {
                            if was != St::Running(cpu) {
                                // Its switch-in is missing from the recording (the kernel
                                // dropped the event): it ran on this CPU since the CPU's
                                // previous switch, or its release, or the last event written,
                                // whichever is latest.
                                let t0 = since.max(th.released).max(z).max(last_out.get()).min(t);
                                th.run_start = t0;
                                // Its wait ended at an unknown time: not measured.
                                th.wait = None;
                                stats.inferred_switches += 1;
                                out(Event::SwitchTo { t: t0 - z, cpu, task: th.task, job }, &mut stats)?;
                            }
                            th.exec += t - th.run_start;
                            let (task, exec) = (th.task, th.exec);
                            if prev_runnable && is_rt(prev_prio) {
                                let reason = SwitchReason::Preempt;
                                out(Event::SwitchAway { t: t - z, cpu, task, job, reason, exec }, &mut stats)?;
                                th.wait = Some(Wait::default());
                            } else if th.rt.is_some_and(|j| !j.done) && !prev_runnable && is_rt(prev_prio) {
                                // rt-app: a sleep inside the step blocks the job.
                                let reason = SwitchReason::Block;
                                out(Event::SwitchAway { t: t - z, cpu, task, job, reason, exec }, &mut stats)?;
                                out(Event::Block { t: t - z, task, job }, &mut stats)?;
                            } else {
                                let reason = SwitchReason::Complete;
                                out(Event::SwitchAway { t: t - z, cpu, task, job, reason, exec }, &mut stats)?;
                                out(Event::Completion { t: t - z, cpu, task, job, exec, forced: false }, &mut stats)?;
                                th.in_job = None;
                                stats.unconfirmed_jobs += u64::from(th.rt.take().is_some_and(|j| j.begins != 1));
                            }
                        }
                        None => {
                            if !prev_runnable {
                                th.skip_job = false;
                                // rt-app: a step begun before time zero ends at its sleep.
                                if th.rt.is_some_and(|j| j.done) {
                                    th.rt = None;
                                }
                            }
                        }
                    }
                }
                if let Some(th) = thr.get_mut(&next_pid) {
                    th.state = St::Running(cpu);
                    if t < start || th.in_job.is_none() {
                        // Running outside a job (its set-up, or a job begun before the start).
                        if th.in_job.is_none() && t < z {
                            th.skip_job = true;
                        }
                    }
                    if let Some(job) = th.in_job {
                        cpu_busy.insert(cpu, next_pid);
                        th.run_start = t;
                        if let Some(w) = th.wait.take() {
                            if w.seen {
                                let free = w.free + w.since.map_or(0, |s| t.saturating_sub(s));
                                lat.add(free);
                                if stats.longest_wait.as_ref().is_none_or(|l| free > l.free) {
                                    let holder = match w.holder {
                                        Some((c, 0)) => format!("idle (swapper/{c})"),
                                        Some((_, pid)) => {
                                            format!("{}:{pid}", names.get(&pid).map_or("?", String::as_str))
                                        }
                                        None => "?".to_string(),
                                    };
                                    let task = spec.tasks[th.task as usize].name.clone();
                                    stats.longest_wait = Some(LongestWait { task, until: t - z, free, holder });
                                }
                            }
                        }
                        out(Event::SwitchTo { t: t - z, cpu, task: th.task, job }, &mut stats)?;
                    }
                }
            }
            Line::Exit { pid, .. } => {
                if let Some(th) = thr.get_mut(&pid) {
                    if let (Some(job), St::Running(cpu)) = (th.in_job, th.state) {
                        th.exec += t - th.run_start;
                        let (task, exec) = (th.task, th.exec);
                        let reason = SwitchReason::Complete;
                        out(Event::SwitchAway { t: t - z, cpu, task, job, reason, exec }, &mut stats)?;
                        out(Event::Completion { t: t - z, cpu, task, job, exec, forced: false }, &mut stats)?;
                        cpu_busy.remove(&cpu);
                    }
                    thr.remove(&pid);
                }
            }
            _ => {}
        }
    }
    stats.zero = z;
    stats.free_cpu_wait =
        LatencySummary { count: lat.count(), max: lat.max(), mean: lat.mean(), p99: lat.quantile(0.99) };
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_three_text_forms_parse_alike() {
        let tracefs = "              hi-835     [000] d..2.  1233.292217: sched_switch: prev_comm=hi prev_pid=835 prev_prio=9 prev_state=R+ ==> next_comm=opt cgu.2 next_pid=15 next_prio=120";
        let tracecmd =
            "slx:              hi-835 [000]  1233.292217: sched_switch:         hi:835 [9] R+ ==> opt cgu.2:15 [120]";
        let perf = "              hi   835 [000]  1233.292217:       sched:sched_switch: prev_comm=hi prev_pid=835 prev_prio=9 prev_state=R+ ==> next_comm=opt cgu.2 next_pid=15 next_prio=120";
        let want = Line::Switch {
            t: 1_233_292_217_000,
            cpu: 0,
            prev_comm: "hi".into(),
            prev_pid: 835,
            prev_prio: 9,
            prev_runnable: true,
            next_comm: "opt cgu.2".into(),
            next_pid: 15,
            next_prio: 120,
        };
        for l in [tracefs, tracecmd, perf] {
            assert_eq!(parse_line(l).unwrap(), Some(want.clone()), "{l}");
        }
        let w1 = "rustc-834 [001] d.s4. 1233.292383: sched_wakeup: comm=dl pid=836 prio=-1 target_cpu=000";
        let w2 = "slx: python-28485 [000]  1233.292383: sched_wakeup:         dl:836 [4294967295] CPU:000";
        for l in [w1, w2] {
            assert!(
                matches!(parse_line(l).unwrap(), Some(Line::Wakeup { pid: 836, prio: -1, cpu, .. }) if cpu == 1 || cpu == 0),
                "{l}"
            );
        }
        let m = "  ctrl-77 [001] ..... 5.000001: tracing_mark_write: release ctrl";
        assert_eq!(
            parse_line(m).unwrap(),
            Some(Line::Marker { t: 5_000_001_000, cpu: 1, pid: 77, text: "release ctrl".into() })
        );
        assert_eq!(parse_line("CPU:1 [LOST 42 EVENTS]").unwrap(), Some(Line::Lost { count: 42 }));
        let perf_lost = "            perf 18628 [000] 12872.618441: PERF_RECORD_LOST lost 818";
        assert_eq!(parse_line(perf_lost).unwrap(), Some(Line::Lost { count: 818 }));
        assert_eq!(rtapp_marker("[3] begins loop 0 phase 0 step 27"), Some(RtAppMarker::Begin));
        assert_eq!(rtapp_marker("[12] executing 1"), Some(RtAppMarker::Executing(1)));
        assert_eq!(rtapp_marker("[3] end loop 0 phase 0 step 27"), None);
        assert_eq!(rtapp_marker("release ctrl"), None);
        assert_eq!(parse_line("# tracer: nop").unwrap(), None);
        assert!(parse_line("x-1 [000] 1.0: sched_switch: garbage").is_err());
    }

    #[test]
    fn globs() {
        assert!(glob(b"worker-*", b"worker-12"));
        assert!(glob(b"w?rk*", b"work"));
        assert!(!glob(b"worker-*", b"work"));
    }
}
