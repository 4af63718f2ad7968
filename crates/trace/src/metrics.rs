//! Schedule metrics: one streaming accumulator, [`Metrics`], that consumes
//! events in time order and produces per-job records, per-task aggregates,
//! per-CPU busy time and overheads, and totals ([`MetricsReport`]).
//!
//! Memory holds only the jobs in flight (released, not yet completed) plus a
//! fixed amount per task and per CPU: each finished job's [`JobRecord`] goes
//! to a [`JobSink`] (a closure, a `Vec` to collect them, or `()` to drop
//! them) and is folded into its task's aggregates. Per event the cost is a
//! hash-map look-up; nothing is allocated in steady state.
//!
//! Definitions (see `docs/trace-format.md`):
//! - response time = finish − release, for jobs that completed normally;
//! - tardiness = max(0, finish − deadline); for an unfinished job, max(0,
//!   end − deadline), a lower bound;
//! - a job missed its deadline if it completed after its deadline, was
//!   aborted (a forced completion), has a `deadline-miss` event, or is
//!   unfinished at the end with its deadline ≤ the end;
//! - a preemption is a `switch-away` with reason `preempt`;
//! - a migration is a `switch-to` on another CPU than the job last ran on;
//! - execution time and CPU busy time are measured from `switch-to` to the
//!   matching `switch-away` or `completion` (or the end of the trace);
//!   overheads are reported separately, per CPU and per kind;
//! - the end of the trace is max(header horizon, last event time), and
//!   utilisation is busy time / end.
//!
//! The accumulator does not validate the schedule (that is the validator's
//! job) but never panics on a malformed one: a `switch-to` on a busy CPU ends
//! the previous job's interval there, a `switch-to` of a job running on
//! another CPU ends it there, events about unknown jobs are counted as
//! anomalies, and a job that runs without a `release` is given one at its
//! first event (release = that time, deadline = release + the task's
//! relative deadline from the spec).

use crate::fasthash::FastMap;
use crate::{Event, Header, JobRef, OverheadKind, SwitchReason, Time};
use schedlab_model::Spec;
use serde::Serialize;
use std::collections::BTreeMap;

/// How a job ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum JobStatus {
    /// It completed normally.
    Completed,
    /// It was ended by the system (a forced completion).
    Aborted,
    /// It had not completed by the end of the trace.
    Unfinished,
}

impl JobStatus {
    pub fn name(self) -> &'static str {
        match self {
            JobStatus::Completed => "completed",
            JobStatus::Aborted => "aborted",
            JobStatus::Unfinished => "unfinished",
        }
    }
}

/// One job's outcome. Times in ns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct JobRecord {
    pub task: u32,
    pub job: u64,
    pub release: Time,
    /// Absolute deadline.
    pub deadline: Time,
    /// First time it ran.
    pub start: Option<Time>,
    /// Completion (or abort) time.
    pub finish: Option<Time>,
    /// finish − release, for a job that completed normally.
    pub response: Option<Time>,
    /// max(0, finish − deadline); for an unfinished job max(0, end − deadline).
    pub tardiness: Time,
    pub missed: bool,
    pub status: JobStatus,
    /// Times it was switched away with reason `preempt`.
    pub preemptions: u32,
    /// Times it resumed on another CPU than it last ran on.
    pub migrations: u32,
    /// Time it ran on CPUs.
    pub exec: Time,
}

impl JobRecord {
    pub fn job_ref(&self) -> JobRef {
        JobRef { task: self.task, job: self.job }
    }
}

/// A stretch of time one job ran on one CPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Interval {
    pub cpu: u32,
    pub task: u32,
    pub job: u64,
    pub start: Time,
    pub end: Time,
    /// Why it ended: the `switch-away` reason; `complete` / `abort` for a
    /// completion without a switch-away; `None` when the next `switch-to`
    /// or the end of the trace ended it.
    pub reason: Option<SwitchReason>,
}

/// Receives each job's record when the job's outcome is known (at its
/// completion, or at the end of the trace for unfinished jobs, in
/// (task, job) order), and optionally each execution interval.
pub trait JobSink {
    fn job(&mut self, rec: &JobRecord);
    fn interval(&mut self, _iv: &Interval) {}
    /// Whether the sink uses the records (false for `()` and `None`: a
    /// producer that has the aggregates by other means may then skip
    /// [`Metrics`] altogether).
    fn wants_records(&self) -> bool {
        true
    }
}

/// Drop the records (aggregates only).
impl JobSink for () {
    fn job(&mut self, _rec: &JobRecord) {}
    fn wants_records(&self) -> bool {
        false
    }
}

/// An optional sink: records go to it when present.
impl<S: JobSink> JobSink for Option<S> {
    fn job(&mut self, rec: &JobRecord) {
        if let Some(s) = self {
            s.job(rec);
        }
    }
    fn interval(&mut self, iv: &Interval) {
        if let Some(s) = self {
            s.interval(iv);
        }
    }
    fn wants_records(&self) -> bool {
        self.as_ref().is_some_and(|s| s.wants_records())
    }
}

/// Collect the records.
impl JobSink for Vec<JobRecord> {
    fn job(&mut self, rec: &JobRecord) {
        self.push(rec.clone());
    }
}

/// Call a closure with each record.
impl<F: FnMut(&JobRecord)> JobSink for F {
    fn job(&mut self, rec: &JobRecord) {
        self(rec)
    }
}

/// Per-task aggregates.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskStats {
    pub task: u32,
    pub name: String,
    /// Jobs seen (released, or running without a release).
    pub jobs: u64,
    pub completed: u64,
    pub aborted: u64,
    pub unfinished: u64,
    pub misses: u64,
    /// misses / jobs (0 when there are no jobs).
    pub miss_ratio: f64,
    /// Over jobs that completed normally.
    pub max_response: Option<Time>,
    /// Over jobs that completed normally, in ns (for reporting).
    pub mean_response: Option<f64>,
    pub max_tardiness: Time,
    pub preemptions: u64,
    pub migrations: u64,
    /// Total execution time of its jobs.
    pub exec: Time,
}

/// Overhead time of one kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct OverheadStats {
    pub kind: OverheadKind,
    pub count: u64,
    pub total: Time,
    pub max: Time,
}

/// Per-CPU figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CpuStats {
    pub cpu: u32,
    /// Job execution time on this CPU.
    pub busy: Time,
    /// busy / end of the trace.
    pub utilization: f64,
    /// Number of `switch-to`s on this CPU.
    pub switches: u64,
    /// Total overhead time on this CPU.
    pub overhead: Time,
    /// Overhead by kind (kinds that occurred, in kind order).
    pub overheads: Vec<OverheadStats>,
}

/// Figures over the whole trace.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Totals {
    pub events: u64,
    pub jobs: u64,
    pub completed: u64,
    pub aborted: u64,
    pub unfinished: u64,
    pub misses: u64,
    pub miss_ratio: f64,
    pub max_response: Option<Time>,
    pub max_tardiness: Time,
    pub preemptions: u64,
    pub migrations: u64,
    /// Job execution time over all CPUs.
    pub busy: Time,
    /// busy / end: the average number of busy CPUs.
    pub utilization: f64,
    /// Overhead time over all CPUs.
    pub overhead: Time,
    /// Jobs that ran or completed without a `release` event.
    pub implicit_releases: u64,
    /// Events that did not fit the schedule so far (a switch-away of a job
    /// not running there, a second release of a job in flight, ...). The
    /// validator says what is wrong; the metrics only count them.
    pub anomalies: u64,
}

impl Totals {
    /// The totals of per-task and per-CPU figures over `[0, end)`, `events`
    /// events long; the two counts of irregular events are added after.
    pub fn of(tasks: &[TaskStats], cpus: &[CpuStats], end: Time, events: u64) -> Totals {
        let ratio = |num: u64, den: u64| if den == 0 { 0.0 } else { num as f64 / den as f64 };
        let sum = |f: &dyn Fn(&TaskStats) -> u64| tasks.iter().map(f).sum::<u64>();
        let jobs = sum(&|t| t.jobs);
        let misses = sum(&|t| t.misses);
        let busy = cpus.iter().fold(0u64, |s, c| s.saturating_add(c.busy));
        Totals {
            events,
            jobs,
            completed: sum(&|t| t.completed),
            aborted: sum(&|t| t.aborted),
            unfinished: sum(&|t| t.unfinished),
            misses,
            miss_ratio: ratio(misses, jobs),
            max_response: tasks.iter().filter_map(|t| t.max_response).max(),
            max_tardiness: tasks.iter().map(|t| t.max_tardiness).max().unwrap_or(0),
            preemptions: sum(&|t| t.preemptions),
            migrations: sum(&|t| t.migrations),
            busy,
            utilization: if end == 0 { 0.0 } else { busy as f64 / end as f64 },
            overhead: cpus.iter().fold(0u64, |s, c| s.saturating_add(c.overhead)),
            implicit_releases: 0,
            anomalies: 0,
        }
    }
}

/// Everything [`Metrics`] computes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetricsReport {
    /// The end of the trace: max(header horizon, last event time).
    pub horizon: Time,
    pub tasks: Vec<TaskStats>,
    pub cpus: Vec<CpuStats>,
    /// Overheads by kind over all CPUs (kinds that occurred, in kind order).
    pub overheads: Vec<OverheadStats>,
    pub totals: Totals,
    /// Per MTT (the spec's `mtt` groups): the spans of its jobs (left out
    /// of the JSON without MTTs).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub mtts: Vec<crate::mtt_span::MttStats>,
    /// The memory token of memory-centric scheduling (left out of the JSON
    /// without `token-*` events).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_token: Option<crate::memory_token::TokenStats>,
}

#[derive(Debug, Clone)]
struct JobState {
    release: Time,
    deadline: Time,
    start: Option<Time>,
    last_cpu: Option<u32>,
    /// CPU it is running on and since when.
    running: Option<(u32, Time)>,
    exec: Time,
    preemptions: u32,
    migrations: u32,
    miss_event: bool,
}

#[derive(Debug, Clone, Copy, Default)]
struct KindAcc {
    count: u64,
    total: Time,
    max: Time,
}

#[derive(Debug, Clone, Default)]
struct CpuAcc {
    running: Option<(JobRef, Time)>,
    /// Overhead intervals [start, end) on this CPU not yet behind the
    /// running stint: they stall the job, so they are not its execution.
    stalls: Vec<(Time, Time)>,
    busy: Time,
    switches: u64,
    overhead: [KindAcc; 7],
}

#[derive(Debug, Clone, Default)]
struct TaskAcc {
    jobs: u64,
    completed: u64,
    aborted: u64,
    unfinished: u64,
    misses: u64,
    sum_response: u128,
    max_response: Option<Time>,
    max_tardiness: Time,
    preemptions: u64,
    migrations: u64,
    exec: Time,
}

/// Dense storage for small indices, a map beyond (a corrupt trace with CPU
/// 4 000 000 000 must not allocate gigabytes).
#[derive(Debug, Clone)]
struct Slots<T> {
    dense: Vec<T>,
    sparse: BTreeMap<u32, T>,
}

const DENSE_LIMIT: u32 = 1 << 16;

impl<T: Default> Slots<T> {
    fn new(n: u32) -> Slots<T> {
        let mut dense = Vec::new();
        dense.resize_with(n.min(DENSE_LIMIT) as usize, T::default);
        Slots { dense, sparse: BTreeMap::new() }
    }
    #[inline]
    fn get_mut(&mut self, i: u32) -> &mut T {
        if (i as usize) < self.dense.len() {
            return &mut self.dense[i as usize];
        }
        self.grow(i)
    }
    /// An index beyond the spec's tasks or CPUs (a trace that does not fit its header).
    #[cold]
    #[inline(never)]
    fn grow(&mut self, i: u32) -> &mut T {
        if i < DENSE_LIMIT {
            self.dense.resize_with(i as usize + 1, T::default);
            return &mut self.dense[i as usize];
        }
        self.sparse.entry(i).or_default()
    }
    fn iter(&self) -> impl Iterator<Item = (u32, &T)> {
        self.dense.iter().enumerate().map(|(i, t)| (i as u32, t)).chain(self.sparse.iter().map(|(i, t)| (*i, t)))
    }
    fn iter_mut(&mut self) -> impl Iterator<Item = (u32, &mut T)> {
        self.dense
            .iter_mut()
            .enumerate()
            .map(|(i, t)| (i as u32, t))
            .chain(self.sparse.iter_mut().map(|(i, t)| (*i, t)))
    }
}

/// The streaming metrics accumulator. Feed it events in trace order with
/// [`Metrics::push`], then call [`Metrics::finish`].
///
/// ```
/// # use schedlab_trace::{Event, Metrics, JobRecord};
/// # let spec: schedlab_model::Spec = serde_json::from_str(
/// #     r#"{"platform":{"cpus":1},"tasks":[{"name":"a","wcet":"1ms","period":"4ms"}]}"#).unwrap();
/// let mut jobs: Vec<JobRecord> = Vec::new();
/// let mut m = Metrics::new(&spec, 4_000_000).with_sink(|r: &JobRecord| jobs.push(r.clone()));
/// m.push(&Event::Release { t: 0, task: 0, job: 0, deadline: 4_000_000 });
/// m.push(&Event::SwitchTo { t: 0, cpu: 0, task: 0, job: 0 });
/// m.push(&Event::Completion { t: 1_000_000, cpu: 0, task: 0, job: 0, exec: 1_000_000, forced: false });
/// let (report, _) = m.finish();
/// assert_eq!(report.tasks[0].max_response, Some(1_000_000));
/// assert_eq!(jobs.len(), 1);
/// ```
pub struct Metrics<S: JobSink = ()> {
    sink: S,
    horizon: Time,
    last_t: Time,
    events: u64,
    jobs: FastMap<JobRef, JobState>,
    tasks: Slots<TaskAcc>,
    cpus: Slots<CpuAcc>,
    names: Vec<String>,
    rel_deadlines: Vec<Time>,
    implicit_releases: u64,
    anomalies: u64,
    mtts: crate::mtt_span::MttSpans,
    tokens: crate::memory_token::Tokens,
}

impl Metrics<()> {
    /// An accumulator for a schedule of `spec` observed until `horizon`
    /// (ns), dropping per-job records (see [`Metrics::with_sink`]).
    pub fn new(spec: &Spec, horizon: Time) -> Metrics<()> {
        Metrics {
            sink: (),
            horizon,
            last_t: 0,
            events: 0,
            jobs: FastMap::default(),
            tasks: Slots::new(spec.tasks.len() as u32),
            cpus: Slots::new(spec.platform.cpus),
            names: spec.tasks.iter().map(|t| t.name.clone()).collect(),
            rel_deadlines: spec.tasks.iter().map(|t| t.deadline().0).collect(),
            implicit_releases: 0,
            anomalies: 0,
            mtts: crate::mtt_span::MttSpans::new(spec),
            tokens: Default::default(),
        }
    }

    /// An accumulator for the trace that `header` starts.
    pub fn from_header(header: &Header) -> Metrics<()> {
        Metrics::new(&header.spec, header.horizon)
    }
}

impl<S: JobSink> Metrics<S> {
    /// Send per-job records (and intervals) to `sink` instead.
    pub fn with_sink<S2: JobSink>(self, sink: S2) -> Metrics<S2> {
        Metrics {
            sink,
            horizon: self.horizon,
            last_t: self.last_t,
            events: self.events,
            jobs: self.jobs,
            tasks: self.tasks,
            cpus: self.cpus,
            names: self.names,
            rel_deadlines: self.rel_deadlines,
            implicit_releases: self.implicit_releases,
            anomalies: self.anomalies,
            mtts: self.mtts,
            tokens: self.tokens,
        }
    }

    /// The sink.
    pub fn sink_mut(&mut self) -> &mut S {
        &mut self.sink
    }

    /// Number of jobs in flight (released and not completed).
    pub fn in_flight(&self) -> usize {
        self.jobs.len()
    }

    /// Account for one event.
    pub fn push(&mut self, ev: &Event) {
        self.events += 1;
        let t = ev.t();
        if t > self.last_t {
            self.last_t = t;
        }
        match *ev {
            Event::SysRelease { .. }
            | Event::Block { .. }
            | Event::Resume { .. }
            | Event::SegmentEnd { .. }
            | Event::BudgetExhausted { .. }
            | Event::Note { .. } => {}
            Event::Policy { t, ref event, .. } => {
                let jobs = &self.jobs;
                self.tokens.policy(t, event, |k| jobs.get(&k).is_some_and(|j| j.running.is_some()));
            }
            Event::Release { t, task, job, deadline } => match self.jobs.entry(JobRef { task, job }) {
                std::collections::hash_map::Entry::Occupied(_) => self.anomalies += 1,
                std::collections::hash_map::Entry::Vacant(v) => {
                    v.insert(JobState::new(t, deadline));
                }
            },
            Event::SwitchTo { t, cpu, task, job } => self.switch_to(t, cpu, JobRef { task, job }),
            Event::SwitchAway { t, cpu, task, job, reason, .. } => {
                let key = JobRef { task, job };
                let c = self.cpus.get_mut(cpu);
                match c.running {
                    Some((k, _)) if k == key => {
                        self.stop(cpu, t, Some(reason));
                        if reason == SwitchReason::Preempt {
                            if let Some(j) = self.jobs.get_mut(&key) {
                                j.preemptions += 1;
                            }
                        }
                    }
                    _ => self.anomalies += 1,
                }
            }
            Event::Completion { t, cpu, task, job, forced, .. } => {
                let key = JobRef { task, job };
                let reason = if forced { SwitchReason::Abort } else { SwitchReason::Complete };
                match self.jobs.get(&key).map(|j| j.running) {
                    Some(Some((c, _))) => {
                        if c != cpu {
                            self.anomalies += 1;
                        }
                        self.stop(c, t, Some(reason));
                    }
                    Some(None) => {}
                    None => {
                        self.implicit(key, t);
                    }
                }
                if let Some(j) = self.jobs.remove(&key) {
                    let status = if forced { JobStatus::Aborted } else { JobStatus::Completed };
                    let rec = j.record(key, Some(t), status, t);
                    self.mtts.ended(task, job, rec.start, t, !forced);
                    self.tokens.ended(key);
                    emit(&mut self.tasks, &mut self.sink, &rec);
                }
            }
            Event::DeadlineMiss { task, job, .. } => match self.jobs.get_mut(&JobRef { task, job }) {
                Some(j) => j.miss_event = true,
                None => self.anomalies += 1,
            },
            Event::Overhead { t, cpu, kind, dur } => {
                let c = self.cpus.get_mut(cpu);
                // Release latency delays a release; it does not occupy the CPU.
                if kind != OverheadKind::ReleaseLatency && dur > 0 {
                    // Keep the intervals the running stint may still overlap.
                    let floor = c.running.map_or(t, |(_, since)| since.min(t));
                    c.stalls.retain(|&(_, b)| b > floor);
                    c.stalls.push((t, t.saturating_add(dur)));
                }
                let k = &mut c.overhead[kind.index()];
                k.count += 1;
                k.total = k.total.saturating_add(dur);
                k.max = k.max.max(dur);
            }
        }
    }

    /// Create a job seen without a release.
    fn implicit(&mut self, key: JobRef, t: Time) {
        let d = self.rel_deadlines.get(key.task as usize).copied().unwrap_or(u64::MAX);
        self.jobs.insert(key, JobState::new(t, t.saturating_add(d)));
        self.implicit_releases += 1;
    }

    fn switch_to(&mut self, t: Time, cpu: u32, key: JobRef) {
        if self.cpus.get_mut(cpu).running.is_some() {
            self.anomalies += 1;
            self.stop(cpu, t, None);
        }
        let running = match self.jobs.get(&key) {
            Some(j) => j.running,
            None => {
                self.implicit(key, t);
                None
            }
        };
        if let Some((other, _)) = running {
            self.anomalies += 1;
            self.stop(other, t, None);
        }
        let Some(j) = self.jobs.get_mut(&key) else { return };
        if j.start.is_none() {
            j.start = Some(t);
        }
        if matches!(j.last_cpu, Some(c) if c != cpu) {
            j.migrations += 1;
        }
        j.last_cpu = Some(cpu);
        j.running = Some((cpu, t));
        let c = self.cpus.get_mut(cpu);
        c.running = Some((key, t));
        c.switches += 1;
        self.tokens.switched_to(t, key);
    }

    /// End the interval running on `cpu` at `t`.
    fn stop(&mut self, cpu: u32, t: Time, reason: Option<SwitchReason>) {
        let c = self.cpus.get_mut(cpu);
        let Some((key, since)) = c.running.take() else { return };
        // Execution is the stint minus the overhead intervals that overlap it.
        let stalled: Time = c.stalls.iter().map(|&(a, b)| b.min(t).saturating_sub(a.max(since))).sum();
        c.stalls.retain(|&(_, b)| b > t);
        let d = t.saturating_sub(since).saturating_sub(stalled);
        c.busy = c.busy.saturating_add(d);
        if let Some(j) = self.jobs.get_mut(&key) {
            j.exec = j.exec.saturating_add(d);
            j.running = None;
        }
        self.sink.interval(&Interval { cpu, task: key.task, job: key.job, start: since, end: t.max(since), reason });
    }

    /// End of the trace: close running intervals, report unfinished jobs,
    /// and build the report. Gives the sink back.
    pub fn finish(mut self) -> (MetricsReport, S) {
        let end = self.horizon.max(self.last_t);
        let running: Vec<u32> = self.cpus.iter().filter(|(_, c)| c.running.is_some()).map(|(i, _)| i).collect();
        for cpu in running {
            self.stop(cpu, end, None);
        }
        let mut left: Vec<(JobRef, JobState)> = self.jobs.drain().collect();
        left.sort_unstable_by_key(|(k, _)| *k);
        for (key, j) in left {
            let rec = j.record(key, None, JobStatus::Unfinished, end);
            emit(&mut self.tasks, &mut self.sink, &rec);
        }

        let ratio = |num: u64, den: u64| if den == 0 { 0.0 } else { num as f64 / den as f64 };
        let tasks: Vec<TaskStats> = self
            .tasks
            .iter()
            .map(|(i, a)| TaskStats {
                task: i,
                name: self.names.get(i as usize).cloned().unwrap_or_else(|| format!("T{i}")),
                jobs: a.jobs,
                completed: a.completed,
                aborted: a.aborted,
                unfinished: a.unfinished,
                misses: a.misses,
                miss_ratio: ratio(a.misses, a.jobs),
                max_response: a.max_response,
                mean_response: if a.completed == 0 { None } else { Some(a.sum_response as f64 / a.completed as f64) },
                max_tardiness: a.max_tardiness,
                preemptions: a.preemptions,
                migrations: a.migrations,
                exec: a.exec,
            })
            .collect();
        let mut by_kind = [KindAcc::default(); 7];
        let cpus: Vec<CpuStats> = self
            .cpus
            .iter_mut()
            .map(|(i, c)| {
                for (k, acc) in c.overhead.iter().enumerate() {
                    by_kind[k].count += acc.count;
                    by_kind[k].total = by_kind[k].total.saturating_add(acc.total);
                    by_kind[k].max = by_kind[k].max.max(acc.max);
                }
                CpuStats {
                    cpu: i,
                    busy: c.busy,
                    utilization: ratio(c.busy, end),
                    switches: c.switches,
                    // CPU time spent on kernel work (release latency is a delay, not CPU work).
                    overhead: OverheadKind::ALL
                        .iter()
                        .zip(c.overhead.iter())
                        .filter(|(kind, _)| **kind != OverheadKind::ReleaseLatency)
                        .fold(0u64, |s, (_, k)| s.saturating_add(k.total)),
                    overheads: overhead_list(&c.overhead),
                }
            })
            .collect();
        let totals = Totals {
            implicit_releases: self.implicit_releases,
            anomalies: self.anomalies,
            ..Totals::of(&tasks, &cpus, end, self.events)
        };
        let report = MetricsReport {
            horizon: end,
            tasks,
            cpus,
            overheads: overhead_list(&by_kind),
            totals,
            mtts: self.mtts.stats(),
            memory_token: self.tokens.stats(),
        };
        (report, self.sink)
    }

    /// Feed every event of a reader, then finish; stops at the first error.
    pub fn run<I: IntoIterator<Item = Result<Event, crate::TraceError>>>(
        mut self,
        events: I,
    ) -> Result<(MetricsReport, S), crate::TraceError> {
        for ev in events {
            self.push(&ev?);
        }
        Ok(self.finish())
    }
}

fn overhead_list(accs: &[KindAcc; 7]) -> Vec<OverheadStats> {
    OverheadKind::ALL
        .iter()
        .zip(accs)
        .filter(|(_, a)| a.count > 0)
        .map(|(&kind, a)| OverheadStats { kind, count: a.count, total: a.total, max: a.max })
        .collect()
}

fn emit<S: JobSink>(tasks: &mut Slots<TaskAcc>, sink: &mut S, rec: &JobRecord) {
    let a = tasks.get_mut(rec.task);
    a.jobs += 1;
    match rec.status {
        JobStatus::Completed => a.completed += 1,
        JobStatus::Aborted => a.aborted += 1,
        JobStatus::Unfinished => a.unfinished += 1,
    }
    if rec.missed {
        a.misses += 1;
    }
    if let Some(r) = rec.response {
        a.sum_response += r as u128;
        a.max_response = Some(a.max_response.map_or(r, |m| m.max(r)));
    }
    a.max_tardiness = a.max_tardiness.max(rec.tardiness);
    a.preemptions += rec.preemptions as u64;
    a.migrations += rec.migrations as u64;
    a.exec = a.exec.saturating_add(rec.exec);
    sink.job(rec);
}

impl JobState {
    fn new(release: Time, deadline: Time) -> JobState {
        JobState {
            release,
            deadline,
            start: None,
            last_cpu: None,
            running: None,
            exec: 0,
            preemptions: 0,
            migrations: 0,
            miss_event: false,
        }
    }

    /// The record of a job that finished at `finish` (None: unfinished at `end`).
    fn record(&self, key: JobRef, finish: Option<Time>, status: JobStatus, end: Time) -> JobRecord {
        let reference = finish.unwrap_or(end);
        let missed = match status {
            JobStatus::Completed => reference > self.deadline || self.miss_event,
            JobStatus::Aborted => true,
            JobStatus::Unfinished => self.deadline <= end || self.miss_event,
        };
        JobRecord {
            task: key.task,
            job: key.job,
            release: self.release,
            deadline: self.deadline,
            start: self.start,
            finish,
            response: if status == JobStatus::Completed {
                finish.map(|f| f.saturating_sub(self.release))
            } else {
                None
            },
            tardiness: reference.saturating_sub(self.deadline),
            missed,
            status,
            preemptions: self.preemptions,
            migrations: self.migrations,
            exec: self.exec,
        }
    }
}

/// The metrics of a whole trace held in memory.
pub fn compute<'a>(header: &Header, events: impl IntoIterator<Item = &'a Event>) -> MetricsReport {
    let mut m = Metrics::from_header(header);
    for ev in events {
        m.push(ev);
    }
    m.finish().0
}

/// The metrics and every job record of a whole trace held in memory.
pub fn compute_with_jobs<'a>(
    header: &Header,
    events: impl IntoIterator<Item = &'a Event>,
) -> (MetricsReport, Vec<JobRecord>) {
    let mut m = Metrics::from_header(header).with_sink(Vec::new());
    for ev in events {
        m.push(ev);
    }
    m.finish()
}
