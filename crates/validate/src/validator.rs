//! The streaming validator: events go in one at a time (in file order), the
//! report comes out at the end. Memory is proportional to the jobs in flight.
//!
//! Events are grouped into instants (all events with the same time). After
//! the last event of an instant the schedule is *settled*: the conditions
//! that may be resolved within the tolerance (a CPU running two jobs, a job
//! running before its release, a waiting job outranking a running one) are
//! evaluated then, and become violations only if they last longer than the
//! tolerance. With tolerance 0 a condition is a violation if it lasts any
//! positive time, so a job preempted and replaced at the same instant, or a
//! switch-to written before the switch-away it pairs with, is fine.

use crate::budget::Budgets;
use crate::check::Check;
use crate::conformance::{Conf, Wrong};
use crate::error::ValidateError;
use crate::latency::{Latencies, LatencyKind};
use crate::memory::MemoryPhases;
use crate::names::{policy_title, time, Names};
use crate::options::{Mode, Options};
use crate::recorder::{Detail, Recorder};
use crate::replay::ReplayCore;
use crate::report::{CheckReport, JobCounts, Miss, Misses, Overrun, Overruns, PolicyChecks, Report};
use crate::state::State;
use schedlab_model::SegmentKind;
use schedlab_policy::{Conformance, Policy, Preemption};
use schedlab_trace::{Event, Header, JobRef, OverheadKind, Placement, Source, SwitchReason, Time, SCHEMA_VERSION};
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

/// Most open latency events kept per domain; older ones count as unresolved.
const MAX_OPEN: usize = 100_000;

/// A task's parameters, in ns.
#[derive(Debug, Clone)]
pub(crate) struct TaskParams {
    pub wcet: Time,
    pub period: Time,
    pub deadline: Time,
    pub jitter: Time,
    pub offset: Time,
    pub executions: Option<Vec<Time>>,
    /// The kinds of the task's segments (for replaying segment ends).
    pub segments: Vec<SegmentKind>,
    /// The longest worst-case length of its CPU segments (its longest subjob).
    pub longest_subjob: Time,
}

/// A condition that is a violation only if it lasts longer than the tolerance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Cond {
    CpuBusy(u32),
    TwoCpus(JobRef),
    Release(JobRef),
    Eligibility(JobRef),
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Pending {
    pub since: Time,
    pub reported: bool,
}

/// The events of the current instant the replay needs, and what changed.
#[derive(Debug, Default)]
pub(crate) struct InstantBuf {
    pub dirty_cpus: Vec<u32>,
    pub dirty_jobs: Vec<JobRef>,
    /// Switch-tos of the instant: (CPU, job).
    pub picks: Vec<(u32, JobRef)>,
    /// Preemption points of the instant: (CPU, job).
    pub points: Vec<(u32, JobRef)>,
}

/// A small copy of an event's fields, for handling after the event itself
/// went into the history.
#[derive(Debug, Clone, Copy)]
enum Ev {
    Release {
        t: Time,
        j: JobRef,
        deadline: Time,
    },
    To {
        t: Time,
        cpu: u32,
        j: JobRef,
    },
    Away {
        t: Time,
        cpu: u32,
        j: JobRef,
        reason: SwitchReason,
    },
    Done {
        t: Time,
        cpu: u32,
        j: JobRef,
    },
    Block {
        t: Time,
        j: JobRef,
    },
    Resume {
        t: Time,
        j: JobRef,
    },
    Overhead {
        t: Time,
        cpu: u32,
        dur: Time,
    },
    /// A release-latency interval: it delays a release and does not occupy its CPU.
    ReleaseLatency {
        t: Time,
        dur: Time,
    },
    /// A job reached the end of a segment (a preemption point).
    Point {
        t: Time,
        cpu: u32,
        j: JobRef,
        segment: u32,
    },
    Other,
}

impl Ev {
    fn of(e: &Event) -> Ev {
        let r = |task, job| JobRef { task, job };
        match *e {
            Event::Release { t, task, job, deadline } => Ev::Release { t, j: r(task, job), deadline },
            Event::SwitchTo { t, cpu, task, job } => Ev::To { t, cpu, j: r(task, job) },
            Event::SwitchAway { t, cpu, task, job, reason, .. } => Ev::Away { t, cpu, j: r(task, job), reason },
            Event::Completion { t, cpu, task, job, .. } => Ev::Done { t, cpu, j: r(task, job) },
            Event::Block { t, task, job } => Ev::Block { t, j: r(task, job) },
            Event::Resume { t, task, job } => Ev::Resume { t, j: r(task, job) },
            Event::SegmentEnd { t, cpu, task, job, segment } => Ev::Point { t, cpu, j: r(task, job), segment },
            Event::Overhead { t, kind: OverheadKind::ReleaseLatency, dur, .. } => Ev::ReleaseLatency { t, dur },
            Event::Overhead { t, cpu, dur, .. } => Ev::Overhead { t, cpu, dur },
            _ => Ev::Other,
        }
    }
}

/// The streaming validator. Feed it with [`Validator::push`], then call
/// [`Validator::finish`]; [`crate::validate`] does both.
pub struct Validator<'p> {
    pub(crate) params: Vec<TaskParams>,
    pub(crate) placement: Vec<Placement>,
    pub(crate) cpus: u32,
    pub(crate) horizon: Time,
    pub(crate) tol: Time,
    pub(crate) opts: Options,
    source: Source,
    /// The header says jobs ran slowed (`Header::slowed`): their CPU time
    /// may exceed the WCET (reported as overruns, not violations).
    slowed: bool,
    pub(crate) policy: Option<Box<dyn Policy + 'p>>,
    policy_name: Option<String>,
    pub(crate) checks: PolicyChecks,
    pub(crate) conf: Option<Conf>,
    pub(crate) domains: Vec<Vec<u32>>,
    pub(crate) state: State,
    pub(crate) rec: Recorder,
    conds: HashMap<Cond, Pending>,
    zombies: HashSet<(JobRef, u32)>,
    /// Release-latency intervals not yet reached by a release: their end
    /// (the delayed release instant) and the longest such delay.
    latencies: BTreeMap<Time, Time>,
    pub(crate) wrongs: HashMap<JobRef, Wrong>,
    /// Per job: its latest preemption point (deferred preemption).
    pub(crate) points: HashMap<JobRef, Time>,
    /// Preemption points whose decision is checked once the tolerance has
    /// passed: (instant, CPU, job).
    pub(crate) point_checks: Vec<(Time, u32, JobRef)>,
    /// Picks of non-preemptive and deferred-preemption policies, checked
    /// once the tolerance has passed: (instant, cpu, job).
    pub(crate) pick_checks: Vec<(Time, u32, JobRef)>,
    /// Per domain: the longest subjob of its tasks, the longest a waiting
    /// job may wait for a preemption point under deferred preemption.
    pub(crate) longest_subjob: Vec<Time>,
    pub(crate) lat: Latencies,
    pub(crate) open: Vec<VecDeque<(Time, LatencyKind)>>,
    pub(crate) replay: Option<ReplayCore>,
    /// The reservation checks (`hcbs` with `reservations`).
    budgets: Option<Budgets>,
    /// The memory-phase checks (`mcs` with its memory-phase scheduler).
    memory: Option<MemoryPhases>,
    pub(crate) inst: InstantBuf,
    now: Option<Time>,
    index: u64,
    released: u64,
    completed: u64,
    misses: Misses,
    overruns: Overruns,
    notes: Vec<String>,
}

/// The domain of a task: the domain holding the first CPU its placement allows.
fn domain_of(p: &Placement, domains: &[Vec<u32>], cpus: u32) -> Option<usize> {
    let first = (0..cpus).find(|&c| p.allows(c))?;
    domains.iter().position(|d| d.contains(&first))
}

impl<'p> Validator<'p> {
    /// A validator for the trace described by `header`. `policy` is the
    /// policy to check against (a fresh instance: replay drives it); `None`
    /// checks the generic invariants only.
    pub fn new(
        header: &Header,
        options: &Options,
        policy: Option<Box<dyn Policy + 'p>>,
    ) -> Result<Validator<'p>, ValidateError> {
        if header.schedlab_trace != SCHEMA_VERSION {
            return Err(ValidateError::Malformed {
                index: None,
                message: format!(
                    "trace schema version {} (this validator reads version {SCHEMA_VERSION})",
                    header.schedlab_trace
                ),
            });
        }
        let spec = &header.spec;
        let n = spec.tasks.len();
        let cpus = spec.platform.cpus;
        let mut notes = Vec::new();
        let placement = if header.placement.is_empty() {
            vec![Placement::Global; n]
        } else if header.placement.len() != n {
            return Err(ValidateError::Malformed {
                index: None,
                message: format!("the placement lists {} tasks, the spec has {n}", header.placement.len()),
            });
        } else {
            header.placement.clone()
        };
        for (i, p) in placement.iter().enumerate() {
            if !(0..cpus).any(|c| p.allows(c)) {
                return Err(ValidateError::Malformed {
                    index: None,
                    message: format!("placement[{i}] allows no CPU of the {cpus}-CPU platform"),
                });
            }
        }
        let params: Vec<TaskParams> = spec
            .tasks
            .iter()
            .map(|t| TaskParams {
                wcet: t.wcet.0,
                period: t.period.0,
                deadline: t.deadline().0,
                jitter: t.jitter.0,
                offset: t.offset.0,
                executions: t.executions.as_ref().map(|v| v.iter().map(|d| d.0).collect()),
                segments: t.job_segments().iter().map(|g| g.kind).collect(),
                // The longest subjob, scaled up when the `executions` list
                // lets a job run longer than its WCET.
                longest_subjob: {
                    let longest =
                        t.job_segments().iter().filter(|g| g.kind.on_cpu()).map(|g| g.length.0).max().unwrap_or(0);
                    let most = t.executions.iter().flatten().map(|d| d.0).max().unwrap_or(0).max(t.wcet.0);
                    (longest as u128 * most as u128).div_ceil(t.wcet.0.max(1) as u128) as Time
                },
            })
            .collect();
        let policy = if options.mode == Mode::Generic { None } else { policy };
        let (mut checks, mut conf, mut domains, mut policy_name) = (PolicyChecks::None, None, Vec::new(), None);
        if let Some(p) = policy.as_deref() {
            let info = p.info();
            policy_name = Some(info.name.to_string());
            domains = if info.domains.is_empty() { vec![(0..cpus).collect()] } else { info.domains.clone() };
            match (info.conformance, options.mode) {
                (Conformance::PriorityDriven { .. } | Conformance::Deferred { .. }, Mode::Replay)
                | (Conformance::Replay, Mode::Auto | Mode::Replay) => {
                    checks = PolicyChecks::Replay;
                }
                (Conformance::PriorityDriven { work_conserving, hysteresis, .. }, _) => {
                    checks = PolicyChecks::PriorityDriven;
                    conf = Some(Conf { preemption: info.conformance.preemption(), work_conserving, hysteresis });
                }
                (Conformance::Deferred { work_conserving }, _) => {
                    checks = PolicyChecks::PriorityDriven;
                    conf = Some(Conf { preemption: Preemption::AtPoints, work_conserving, hysteresis: 0 });
                }
                (Conformance::Replay, _) => {
                    return Err(ValidateError::Policy {
                        path: "policy.name".into(),
                        message: format!("{} is not priority-driven: it can only be checked by replay", info.name),
                    });
                }
            }
        } else if options.mode != Mode::Generic {
            notes.push("no policy to check against: generic invariants only".to_string());
        }
        let task_domain: Vec<Option<usize>> = placement.iter().map(|p| domain_of(p, &domains, cpus)).collect();
        let mut longest_subjob = vec![0; domains.len()];
        for (i, d) in task_domain.iter().enumerate() {
            if let Some(d) = *d {
                longest_subjob[d] = longest_subjob[d].max(params[i].longest_subjob);
            }
        }
        let state = State::new(n, cpus, &domains, task_domain);
        let names = Names::new(spec.tasks.iter().map(|t| t.name.clone()).collect());
        let title = policy_name.as_deref().map(policy_title).unwrap_or_default();
        let replay = (checks == PolicyChecks::Replay).then(|| {
            let declared = policy.as_deref().map(|p| p.info().placement.clone()).filter(|p| p.len() == n);
            ReplayCore::new(cpus, declared.unwrap_or_else(|| placement.clone()), header.source == Source::Simulator)
        });
        let budgets = if checks == PolicyChecks::None { None } else { Budgets::new(spec, options.tolerance) };
        let memory = if checks == PolicyChecks::None { None } else { MemoryPhases::new(spec, options.tolerance) };
        Ok(Validator {
            budgets,
            memory,
            params,
            placement,
            cpus,
            horizon: header.horizon,
            tol: options.tolerance,
            opts: options.clone(),
            source: header.source,
            slowed: header.slowed,
            policy,
            policy_name,
            checks,
            conf,
            open: vec![VecDeque::new(); domains.len()],
            domains,
            state,
            rec: Recorder::new(names, options.history, title),
            conds: HashMap::new(),
            zombies: HashSet::new(),
            latencies: BTreeMap::new(),
            wrongs: HashMap::new(),
            points: HashMap::new(),
            point_checks: Vec::new(),
            pick_checks: Vec::new(),
            longest_subjob,
            lat: Latencies::default(),
            replay,
            inst: InstantBuf::default(),
            now: None,
            index: 0,
            released: 0,
            completed: 0,
            misses: Misses::default(),
            overruns: Overruns::default(),
            notes,
        })
    }

    /// Checks the next event of the trace.
    pub fn push(&mut self, e: Event) -> Result<(), ValidateError> {
        let t = e.t();
        if let Some(now) = self.now {
            if t < now {
                return Err(ValidateError::OutOfOrder { index: self.index, t, previous: now });
            }
            if t > now {
                self.end_instant(now);
                self.advance(now, t);
            }
        }
        self.now = Some(t);
        let ntasks = self.params.len() as u64;
        if let Some(j) = e.job() {
            if j.task as u64 >= ntasks {
                return Err(self.malformed(format!("task {} does not exist (the spec has {ntasks} tasks)", j.task)));
            }
        }
        if let Some(c) = e.cpu() {
            if c >= self.cpus {
                return Err(self.malformed(format!("cpu {c} does not exist (the platform has {} CPUs)", self.cpus)));
            }
        }
        let ev = Ev::of(&e);
        if let Event::Policy { cpu, event, .. } = &e {
            self.replay_trace_note(*cpu, event);
        }
        if let Some(b) = self.budgets.as_mut() {
            b.push(&e, &mut self.rec);
        }
        if let Some(m) = self.memory.as_mut() {
            m.push(&e, &mut self.rec);
        }
        self.rec.push(e);
        if t > self.horizon {
            let h = self.horizon;
            self.rec.violation(Check::Accounting, t, t, None, |_| {
                Detail::new(format!("event after the trace's horizon {}", time(h)))
            });
        }
        self.handle(ev);
        self.index += 1;
        Ok(())
    }

    fn malformed(&self, message: String) -> ValidateError {
        ValidateError::Malformed { index: Some(self.index), message }
    }

    fn dirty_job(&mut self, j: JobRef) {
        self.inst.dirty_jobs.push(j);
    }

    fn dirty_cpu(&mut self, c: u32) {
        self.inst.dirty_cpus.push(c);
    }

    /// Opens a latency measurement for an event of a task's domain.
    fn latency_event(&mut self, task: u32, kind: LatencyKind, t: Time) {
        if self.checks == PolicyChecks::None {
            return;
        }
        if let Some(d) = self.state.task_domain[task as usize] {
            let q = &mut self.open[d];
            if q.len() >= MAX_OPEN {
                q.pop_front();
                self.lat.unresolved += 1;
            }
            q.push_back((t, kind));
        }
    }

    fn handle(&mut self, ev: Ev) {
        match ev {
            Ev::Release { t, j, deadline } => self.on_release(t, j, deadline),
            Ev::To { t, cpu, j } => self.on_switch_to(t, cpu, j),
            Ev::Away { t, cpu, j, reason } => self.on_switch_away(t, cpu, j, reason),
            Ev::Done { t, cpu, j } => self.on_completion(t, cpu, j),
            Ev::Block { t, j } => {
                let pending = self.state.tasks[j.task as usize].pending.contains(&j.job);
                if pending {
                    self.state.job_mut(j).blocked = true;
                    self.state.refresh_eligibility(j.task, t);
                    self.dirty_job(j);
                    self.replay_note(ev_block(j));
                }
            }
            Ev::Resume { t, j } => {
                let blocked = self.state.jobs.get(&j).is_some_and(|s| s.blocked);
                if blocked {
                    self.state.job_mut(j).blocked = false;
                    self.state.refresh_eligibility(j.task, t);
                    self.dirty_job(j);
                    self.latency_event(j.task, LatencyKind::Resume, t);
                    self.replay_note(ev_resume(j));
                }
            }
            Ev::Point { t, cpu, j, segment } => {
                if self.state.jobs.get(&j).is_some_and(|s| s.runs_on(cpu)) {
                    self.points.insert(j, t);
                    self.inst.points.push((cpu, j));
                    let kind = self.params[j.task as usize].segments.get(segment as usize).copied();
                    self.replay_note(ev_segment_end(j, segment, kind.unwrap_or(SegmentKind::Exec)));
                }
            }
            Ev::Overhead { t, cpu, dur } => self.state.overhead(cpu, t, dur),
            Ev::ReleaseLatency { t, dur } => {
                let d = self.latencies.entry(t.saturating_add(dur)).or_default();
                *d = (*d).max(dur);
            }
            Ev::Other => {}
        }
    }

    fn on_release(&mut self, t: Time, j: JobRef, deadline: Time) {
        let tol = self.tol;
        let p = self.params[j.task as usize].clone();
        // A release-latency interval ending now delayed this release: the
        // job was due that much earlier (its deadline counts from then).
        self.latencies = self.latencies.split_off(&t);
        let late = self.latencies.get(&t).copied().unwrap_or(0);
        let due = t - late.min(t);
        let ts = &self.state.tasks[j.task as usize];
        if let Some(m) = ts.max_released.filter(|&m| m >= j.job) {
            self.rec.violation(Check::Accounting, t, t, None, |n| {
                Detail::new(format!(
                    "{} is released again or out of order (last release: {})",
                    n.job(j),
                    n.job(JobRef { task: j.task, job: m })
                ))
            });
            return;
        }
        match ts.last_release {
            Some(last) => {
                let min = p.period.saturating_sub(p.jitter).saturating_sub(tol);
                if due.saturating_sub(last) < min {
                    self.rec.violation(Check::Sporadic, t, t, None, |n| {
                        Detail::new(format!(
                            "{} is released {} after the previous job of its task, less than its period {} (jitter {}, tolerance {})",
                            n.job(j),
                            time(due.saturating_sub(last)),
                            time(p.period),
                            time(p.jitter),
                            time(tol)
                        ))
                    });
                }
            }
            None => {
                if t + tol < p.offset {
                    self.rec.violation(Check::Sporadic, t, t, None, |n| {
                        Detail::new(format!("{} is released before its task's offset {}", n.job(j), time(p.offset)))
                    });
                }
            }
        }
        let lo = due.saturating_add(p.deadline).saturating_sub(p.jitter).saturating_sub(tol);
        let hi = t.saturating_add(p.deadline).saturating_add(tol);
        if deadline < lo || deadline > hi {
            self.rec.violation(Check::Sporadic, t, t, None, |n| {
                Detail::new(format!(
                    "{} has deadline {}, but release {} + relative deadline {} (less up to jitter {}) does not give it",
                    n.job(j),
                    time(deadline),
                    time(t),
                    time(p.deadline),
                    time(p.jitter)
                ))
            });
        }
        let ts = &mut self.state.tasks[j.task as usize];
        ts.max_released = Some(j.job);
        ts.last_release = Some(due);
        ts.pending.push_back(j.job);
        let js = self.state.job_mut(j);
        js.release = Some(t);
        js.deadline = deadline;
        self.released += 1;
        self.state.refresh_eligibility(j.task, t);
        self.dirty_job(j);
        self.latency_event(j.task, LatencyKind::Release, t);
        self.replay_note(crate::replay::RelEv::Release { j, release: t, deadline });
    }

    fn on_switch_to(&mut self, t: Time, cpu: u32, j: JobRef) {
        if self.state.tasks[j.task as usize].completed(j.job) {
            self.rec.violation(Check::Completion, t, t, Some(cpu), |n| {
                Detail::new(format!("{} runs after its completion", n.job(j))).ran(vec![n.job(j)])
            });
            self.zombies.insert((j, cpu));
            return;
        }
        let pl = &self.placement[j.task as usize];
        if !pl.allows(cpu) {
            let where_ = match pl {
                Placement::Global => "any CPU".to_string(),
                Placement::Cpu { cpu } => format!("cpu {cpu}"),
                Placement::Cluster { cluster, cpus } => format!("cluster {cluster} (cpus {cpus:?})"),
            };
            self.rec.violation(Check::Placement, t, t, Some(cpu), |n| {
                Detail::new(format!("{} runs on cpu {cpu}, outside its placement: {where_}", n.job(j)))
                    .ran(vec![n.job(j)])
            });
        }
        if self.state.jobs.get(&j).is_some_and(|s| s.runs_on(cpu)) {
            self.rec.violation(Check::Matching, t, t, Some(cpu), |n| {
                Detail::new(format!("switch-to {} on cpu {cpu}, where it already runs", n.job(j)))
            });
            return;
        }
        self.state.start(j, cpu, t);
        self.dirty_cpu(cpu);
        self.dirty_job(j);
        self.inst.picks.push((cpu, j));
    }

    fn on_switch_away(&mut self, t: Time, cpu: u32, j: JobRef, reason: SwitchReason) {
        let preemption = self.conf.map(|c| c.preemption);
        if reason == SwitchReason::Preempt && preemption == Some(Preemption::None) {
            self.rec.violation(Check::NpPreemption, t, t, Some(cpu), |n| {
                Detail::new(format!("{} is preempted on cpu {cpu}; the policy is non-preemptive", n.job(j)))
                    .ran(vec![n.job(j)])
            });
        }
        if reason == SwitchReason::Preempt && preemption == Some(Preemption::AtPoints) {
            let point = self.points.get(&j).copied();
            if !point.is_some_and(|p| p <= t && t - p <= self.tol) {
                let tol = self.tol;
                self.rec.violation(Check::PointPreemption, t, t, Some(cpu), |n| {
                    let last = match point {
                        Some(p) => format!("its last preemption point was at {}", time(p)),
                        None => "it reached no preemption point".to_string(),
                    };
                    let within = if tol > 0 { format!(" within the tolerance {}", time(tol)) } else { String::new() };
                    Detail::new(format!(
                        "{} is preempted on cpu {cpu} at no preemption point{within} ({last})",
                        n.job(j)
                    ))
                    .ran(vec![n.job(j)])
                });
            }
        }
        if self.state.stop(j, cpu, t) {
            self.dirty_cpu(cpu);
            self.dirty_job(j);
            self.check_wcet(j, t, Some(cpu), false);
            return;
        }
        if self.zombies.remove(&(j, cpu)) {
            return;
        }
        let tol = self.tol;
        if let Some((cj, ct)) = self.state.cpus[cpu as usize].last_completed {
            if cj == j && t <= ct + tol {
                return;
            }
        }
        let runs = self.state.cpus[cpu as usize].jobs.clone();
        self.rec.violation(Check::Matching, t, t, Some(cpu), |n| {
            let r: Vec<String> = runs.iter().map(|&x| n.job(x)).collect();
            let now = if r.is_empty() { "nothing".to_string() } else { r.join(", ") };
            Detail::new(format!("switch-away {} on cpu {cpu}, which runs {now}", n.job(j))).ran(r)
        });
    }

    fn on_completion(&mut self, t: Time, cpu: u32, j: JobRef) {
        let ts = &self.state.tasks[j.task as usize];
        if ts.completed(j.job) {
            self.rec.violation(Check::Accounting, t, t, Some(cpu), |n| {
                Detail::new(format!("{} completes again", n.job(j)))
            });
            return;
        }
        if !ts.pending.contains(&j.job) {
            self.rec.violation(Check::Accounting, t, t, Some(cpu), |n| {
                Detail::new(format!("{} completes but was never released", n.job(j)))
            });
            for c in self.state.stop_all(j, t) {
                self.dirty_cpu(c);
            }
            self.state.jobs.remove(&j);
            return;
        }
        self.points.remove(&j);
        let cpus = self.state.stop_all(j, t);
        for &c in &cpus {
            self.state.cpus[c as usize].last_completed = Some((j, t));
            self.dirty_cpu(c);
        }
        if !cpus.contains(&cpu) {
            self.state.cpus[cpu as usize].last_completed = Some((j, t));
        }
        self.check_wcet(j, t, cpus.last().copied().or(Some(cpu)), true);
        let deadline = self.state.jobs[&j].deadline;
        if t > deadline {
            self.miss(j, deadline, Some(t));
        }
        let ts = &mut self.state.tasks[j.task as usize];
        if let Some(i) = ts.pending.iter().position(|&x| x == j.job) {
            ts.pending.remove(i);
        }
        self.state.jobs.remove(&j);
        self.wrongs.remove(&j);
        self.completed += 1;
        self.state.refresh_eligibility(j.task, t);
        self.dirty_job(j);
        self.latency_event(j.task, LatencyKind::Completion, t);
        self.replay_note(crate::replay::RelEv::Complete(j));
    }

    fn miss(&mut self, j: JobRef, deadline: Time, completed: Option<Time>) {
        self.misses.count += 1;
        match completed {
            Some(c) => self.misses.max_tardiness = self.misses.max_tardiness.max(c - deadline),
            None => self.misses.unfinished += 1,
        }
        if self.misses.first.len() < self.opts.list {
            self.misses.first.push(Miss { job: self.rec.names.job(j), deadline, completed });
        }
    }

    /// Execution beyond the WCET: a violation beyond what the spec allows,
    /// information (at completion) when the `executions` list allows it or
    /// the trace's jobs ran slowed (`Header::slowed`).
    fn check_wcet(&mut self, j: JobRef, at: Time, cpu: Option<u32>, last: bool) {
        let Some(js) = self.state.jobs.get(&j) else { return };
        if js.wcet_reported {
            return;
        }
        let net = self.state.consumed_at(j, at);
        let p = &self.params[j.task as usize];
        let listed = p.executions.as_ref().filter(|v| !v.is_empty()).map(|v| v[(j.job % v.len() as u64) as usize]);
        let allowed = if self.slowed { Time::MAX / 2 } else { p.wcet.max(listed.unwrap_or(0)) };
        let (tol, wcet) = (self.tol, p.wcet);
        if net > allowed + tol {
            let crossed = at - (net - allowed - tol).min(at);
            self.state.job_mut(j).wcet_reported = true;
            self.rec.violation(Check::Wcet, crossed, at, cpu, |n| {
                let what = if allowed > wcet {
                    format!("its listed execution time {}", time(allowed))
                } else {
                    format!("its WCET {}", time(wcet))
                };
                Detail::new(format!(
                    "{} executes {} by {}, more than {what} (tolerance {})",
                    n.job(j),
                    time(net),
                    time(at),
                    time(tol)
                ))
                .ran(vec![n.job(j)])
            });
        } else if last && net > wcet + tol {
            self.overruns.count += 1;
            if self.overruns.first.len() < self.opts.list {
                self.overruns.first.push(Overrun { job: self.rec.names.job(j), executed: net, wcet });
            }
        }
    }

    /// After the last event of instant `t`.
    fn end_instant(&mut self, t: Time) {
        if self.checks == PolicyChecks::Replay {
            self.replay_instant(t);
        }
        if let Some(b) = self.budgets.as_mut() {
            b.settle(t);
        }
        if let Some(m) = self.memory.as_mut() {
            m.settle(t);
        }
        let cpus = std::mem::take(&mut self.inst.dirty_cpus);
        for &c in &cpus {
            let busy = self.state.cpus[c as usize].jobs.len() >= 2;
            self.set_cond(Cond::CpuBusy(c), busy, t);
        }
        let jobs = std::mem::take(&mut self.inst.dirty_jobs);
        for &j in &jobs {
            let (two, unrel, inel) = match self.state.jobs.get(&j) {
                Some(js) => {
                    let run = js.running();
                    (
                        js.runs.len() >= 2,
                        run && js.release.is_none(),
                        run && js.release.is_some() && !self.state.is_eligible(j),
                    )
                }
                None => (false, false, false),
            };
            self.set_cond(Cond::TwoCpus(j), two, t);
            self.set_cond(Cond::Release(j), unrel, t);
            self.set_cond(Cond::Eligibility(j), inel, t);
        }
        // Keep the buffers' capacity.
        self.inst.dirty_cpus = cpus;
        self.inst.dirty_cpus.clear();
        self.inst.dirty_jobs = jobs;
        self.inst.dirty_jobs.clear();
        match self.checks {
            PolicyChecks::PriorityDriven => {
                self.conformance_settled(t);
                self.np_decisions(t);
                self.note_points(t);
            }
            PolicyChecks::Replay => self.replay_compare(t, true),
            PolicyChecks::None => {}
        }
        self.inst.picks.clear();
        self.inst.points.clear();
    }

    fn set_cond(&mut self, c: Cond, on: bool, t: Time) {
        if on {
            self.conds.entry(c).or_insert(Pending { since: t, reported: false });
        } else {
            self.conds.remove(&c);
        }
    }

    /// Time passes from instant `t` to `next` with the schedule unchanged.
    fn advance(&mut self, t: Time, next: Time) {
        if self.checks == PolicyChecks::Replay {
            self.replay_timers(t, next);
        }
        if let Some(b) = self.budgets.as_mut() {
            b.elapsed(next, &mut self.rec);
        }
        if let Some(m) = self.memory.as_mut() {
            m.elapsed(next, &mut self.rec);
        }
        let tol = self.tol;
        if !self.conds.is_empty() {
            let mut due: Vec<(Cond, Time)> = self
                .conds
                .iter()
                .filter(|(_, p)| !p.reported && next - p.since > tol)
                .map(|(c, p)| (*c, p.since))
                .collect();
            due.sort_by_key(|&(c, s)| (s, format!("{c:?}")));
            for (c, since) in due {
                self.report_cond(c, since, next);
                if let Some(p) = self.conds.get_mut(&c) {
                    p.reported = true;
                }
            }
        }
        match self.checks {
            PolicyChecks::PriorityDriven => {
                self.conformance_elapsed(t, next);
                self.point_decisions(next);
                self.pick_decisions(next);
            }
            PolicyChecks::Replay => self.replay_compare(next, false),
            PolicyChecks::None => {}
        }
    }

    fn tol_note(&self) -> String {
        if self.tol > 0 {
            format!(" (for longer than the tolerance {})", time(self.tol))
        } else {
            String::new()
        }
    }

    fn report_cond(&mut self, c: Cond, since: Time, detected: Time) {
        let note = self.tol_note();
        match c {
            Cond::CpuBusy(cpu) => {
                let jobs = self.state.cpus[cpu as usize].jobs.clone();
                self.rec.violation(Check::CpuBusy, since, detected, Some(cpu), |n| {
                    let r: Vec<String> = jobs.iter().map(|&j| n.job(j)).collect();
                    Detail::new(format!("cpu {cpu} runs {} at once{note}", r.join(" and "))).ran(r)
                });
            }
            Cond::TwoCpus(j) => {
                let cpus: Vec<u32> =
                    self.state.jobs.get(&j).map(|s| s.runs.iter().map(|&(c, _)| c).collect()).unwrap_or_default();
                let cpu = cpus.first().copied();
                self.rec.violation(Check::TwoCpus, since, detected, cpu, |n| {
                    let cs: Vec<String> = cpus.iter().map(|c| c.to_string()).collect();
                    Detail::new(format!("{} runs on cpus {} at once{note}", n.job(j), cs.join(" and ")))
                        .ran(vec![n.job(j)])
                });
            }
            Cond::Release(j) => {
                let cpu = self.state.jobs.get(&j).and_then(|s| s.runs.first().map(|&(c, _)| c));
                self.rec.violation(Check::Release, since, detected, cpu, |n| {
                    Detail::new(format!("{} runs before its release{note}", n.job(j))).ran(vec![n.job(j)])
                });
            }
            Cond::Eligibility(j) => {
                let cpu = self.state.jobs.get(&j).and_then(|s| s.runs.first().map(|&(c, _)| c));
                let blocked = self.state.jobs.get(&j).is_some_and(|s| s.blocked);
                let front = self.state.tasks[j.task as usize].pending.front().copied();
                self.rec.violation(Check::Eligibility, since, detected, cpu, |n| {
                    if blocked {
                        Detail::new(format!("{} runs while blocked{note}", n.job(j))).ran(vec![n.job(j)])
                    } else {
                        let pred = front.map(|f| n.job(JobRef { task: j.task, job: f })).unwrap_or_default();
                        Detail::new(format!("{} runs before its predecessor {pred} completed{note}", n.job(j)))
                            .ran(vec![n.job(j)])
                            .expected(vec![pred])
                    }
                });
            }
        }
    }

    /// Ends the trace and returns the report.
    /// The replayed policy's protocol violation, if it broke the protocol.
    pub fn protocol_error(&self) -> Option<&schedlab_policy::ProtocolError> {
        self.replay.as_ref().and_then(|r| r.error.as_ref())
    }

    /// Like [`Validator::finish`], with the replayed policy's protocol
    /// violation (also a replay violation in the report), if any.
    pub fn finish_replay(self) -> (Report, Option<schedlab_policy::ProtocolError>) {
        let mut error = None;
        let report = self.finish_into(&mut error);
        (report, error)
    }

    pub fn finish(self) -> Report {
        self.finish_into(&mut None)
    }

    fn finish_into(mut self, error: &mut Option<schedlab_policy::ProtocolError>) -> Report {
        if let Some(now) = self.now {
            self.end_instant(now);
            if self.horizon > now {
                self.advance(now, self.horizon);
            }
        }
        *error = self.replay.as_mut().and_then(|r| r.error.take());
        let end = self.now.unwrap_or(0).max(self.horizon);
        if let Some(b) = self.budgets.as_mut() {
            b.finish(end, &mut self.rec);
        }
        let running: Vec<(JobRef, Option<u32>)> = self
            .state
            .jobs
            .iter()
            .filter(|(_, s)| s.running())
            .map(|(j, s)| (*j, s.runs.first().map(|&(c, _)| c)))
            .collect();
        for (j, c) in running {
            self.check_wcet(j, end, c, false);
        }
        let mut pending = 0;
        let mut unfinished: Vec<(JobRef, Time)> = Vec::new();
        for (task, ts) in self.state.tasks.iter().enumerate() {
            for &job in &ts.pending {
                pending += 1;
                let j = JobRef { task: task as u32, job };
                if let Some(js) = self.state.jobs.get(&j) {
                    if js.deadline <= self.horizon {
                        unfinished.push((j, js.deadline));
                    }
                }
            }
        }
        unfinished.sort_by_key(|&(j, d)| (d, j));
        for (j, d) in unfinished {
            self.miss(j, d, None);
        }
        for q in &self.open {
            self.lat.unresolved += q.len() as u64;
        }
        let applies: Vec<Check> = Check::ALL.iter().copied().filter(|&c| self.check_applies(c)).collect();
        let checks: Vec<CheckReport> = applies
            .into_iter()
            .map(|c| CheckReport {
                check: c,
                rule: c.rule(),
                violations: self.rec.counts[c.index()],
                first: self.rec.first[c.index()].take(),
            })
            .collect();
        Report {
            pass: checks.iter().all(|c| c.violations == 0),
            policy: self.policy_name,
            policy_checks: self.checks,
            source: self.source,
            tolerance: self.tol,
            horizon: self.horizon,
            events: self.index,
            jobs: JobCounts {
                released: self.released,
                completed: self.completed,
                pending,
                peak_in_flight: self.state.peak as u64,
            },
            checks,
            misses: self.misses,
            overruns: self.overruns,
            latency: (self.checks != PolicyChecks::None).then(|| self.lat.report()),
            notes: self.notes,
        }
    }

    fn check_applies(&self, c: Check) -> bool {
        match c {
            Check::Conformance => self.checks == PolicyChecks::PriorityDriven,
            Check::WorkConserving => self.conf.is_some_and(|c| c.work_conserving),
            Check::NpPreemption => self.conf.is_some_and(|c| c.preemption == Preemption::None),
            Check::NpDecision => self.conf.is_some_and(|c| c.preemption != Preemption::Full),
            Check::PointPreemption | Check::PointDecision => {
                self.conf.is_some_and(|c| c.preemption == Preemption::AtPoints)
            }
            Check::Replay => self.checks == PolicyChecks::Replay,
            Check::Budget | Check::Throttle | Check::GroupPriority => self.budgets.is_some(),
            Check::MemoryExclusive | Check::MemoryGrantOrder | Check::MemoryNp => self.memory.is_some(),
            _ => true,
        }
    }
}

fn ev_block(j: JobRef) -> crate::replay::RelEv {
    crate::replay::RelEv::Block(j)
}

fn ev_resume(j: JobRef) -> crate::replay::RelEv {
    crate::replay::RelEv::Resume(j)
}

fn ev_segment_end(j: JobRef, segment: u32, kind: SegmentKind) -> crate::replay::RelEv {
    crate::replay::RelEv::SegmentEnd(j, segment, kind)
}
