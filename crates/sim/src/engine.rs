//! The event loop.
//!
//! Each iteration handles one *pass* at the earliest pending instant `t`:
//!
//! 1. emit held-back overhead intervals that start at or before `t`;
//! 2. pop every queue entry due at `t`, in (class, sub-order) order —
//!    completions (CPU order), deadline checks (task order), the horizon
//!    (which ends the run), hand-overs and releases (task order), policy
//!    timers (arming order), the tick — delivering the policy callbacks;
//! 3. call `Policy::schedule` for every marked CPU in increasing CPU order,
//!    check the answers, then perform all switch-aways, then all switch-tos;
//! 4. charge overheads (IPI, release, schedule, context switch, CPMD, tick)
//!    and update the completion predictions of the CPUs concerned.
//!
//! A pass may leave new entries at the same `t` (a timer armed for now from
//! `schedule`); they are handled by a further pass at `t`.

use crate::config::{ReleaseCpu, SimConfig};
use crate::error::SimError;
use crate::horizon::horizon;
use crate::kernel::{Ctx, State};
use crate::queue::{ord, Kind, CLASS_DEADLINE, CLASS_HORIZON, CLASS_RELEASE, CLASS_TICK};
use crate::state::{Active, Pending, TaskState};
use crate::summary::SimSummary;
use schedlab_jobs::MissPolicy;
use schedlab_model::overheads::{Costs, Overheads, Resume};
use schedlab_model::Spec;
use schedlab_policy::{Job, JobId, Policy, Time};
use schedlab_trace::{Event, OverheadKind, SwitchReason};
use std::collections::VecDeque;

/// Passes at one instant before the run is declared stuck (a policy that
/// keeps arming timers for "now" from `schedule`).
const MAX_PASSES_PER_INSTANT: u32 = 100_000;
/// Queue entries at one instant, beyond those of every task and CPU, before
/// the run is declared stuck (a timer callback re-arming itself for "now").
const MAX_ENTRIES_PER_INSTANT: u64 = 1_000_000;

/// Sub-orders within the release class: a hand-over before an arrival of
/// the same task; release latency markers last.
fn release_ord(task: u32, phase: u64) -> u64 {
    ord(CLASS_RELEASE, (task as u64) << 2 | phase)
}
const PHASE_HANDOVER: u64 = 0;
const PHASE_ARRIVAL: u64 = 1;
const PHASE_DUE: u64 = 2;

/// Simulates `spec` under `policy` (already admitted, e.g. by
/// `schedlab_policy::build`) and passes every trace event, in time order, to
/// `sink`. Returns the run's summary, or an error when the configuration or
/// overhead file is unusable or the policy breaks the protocol.
pub fn simulate(
    spec: &Spec,
    policy: &mut dyn Policy,
    config: &SimConfig,
    sink: &mut dyn FnMut(&Event),
) -> Result<SimSummary, SimError> {
    let horizon = horizon(spec, config);
    let (mut st, mut engine) = prepare(spec, policy, config, sink)?;
    engine.run(&mut st, policy, horizon)?;
    st.flush_overheads(horizon);
    // Account the progress of the jobs running at the end.
    st.now = st.now.max(horizon);
    for c in 0..st.cpus.len() as u32 {
        st.settle(c);
    }
    let mut summary = SimSummary {
        horizon,
        seed: config.seed,
        events: engine.events,
        trace_events: st.trace_events,
        ..Default::default()
    };
    for ts in &st.tasks {
        summary.incomplete += ts.active.is_some() as u64 + ts.queue.len() as u64;
    }
    summary.tasks = st.tasks.iter().map(|t| t.sum.clone()).collect();
    summary.cpus = st.cpus.iter().map(|c| c.sum.clone()).collect();
    Ok(summary)
}

/// Builds the run's state: overhead model, per-task and per-CPU state.
fn prepare<'a>(
    spec: &Spec,
    policy: &mut dyn Policy,
    config: &SimConfig,
    sink: &'a mut dyn FnMut(&Event),
) -> Result<(State<'a>, Engine), SimError> {
    let overheads = match (&config.overheads, config.spec_overheads) {
        (Some(o), _) => Some(o.clone()),
        (None, true) => Overheads::for_spec(spec, &config.spec_dir)?,
        (None, false) => None,
    };
    let m = spec.platform.cpus as usize;
    let n = spec.tasks.len();
    let info = policy.info();
    if info.placement.len() != n {
        return Err(SimError::Config(format!(
            "the policy `{}` places {} tasks but the spec has {n}",
            info.name,
            info.placement.len()
        )));
    }
    if m == 0 {
        return Err(SimError::Config("the platform has no CPU".into()));
    }
    let placement = info.placement.clone();
    let jobs = config.job_model();
    let mut tasks = Vec::with_capacity(n);
    for (i, t) in spec.tasks.iter().enumerate() {
        let home = (0..m as u32).find(|&c| placement[i].allows(c)).ok_or_else(|| {
            SimError::Config(format!("the policy places task {i} (`{}`) on no CPU of the platform", t.name))
        })?;
        tasks.push(TaskState {
            arrivals: jobs.releases(t, i),
            exec: jobs.demands(t, i),
            rel_deadline: t.deadline().0,
            wss: t.wss.map_or(0, |w| w.0),
            home,
            pending_arrival: 0,
            next_seq: 0,
            active: None,
            queue: VecDeque::with_capacity(4),
            dl_seq: 0,
            dl_gen: 0,
            handover_cpu: home,
            assigned_epoch: 0,
            sum: Default::default(),
        });
    }
    let costs = match &overheads {
        Some(o) => o.costs(config.overhead_task_count.unwrap_or(n as u64)),
        None => Costs::default(),
    };
    let st = State::new(tasks, m, placement, sink, config.policy_events, overheads, costs);
    let engine = Engine { miss: config.miss, tick: config.tick, release_cpu: config.release_cpu, epoch: 0, events: 0 };
    Ok((st, engine))
}

/// Runs like [`simulate`] with a discarding sink and reports the capacities
/// of the simulator's internal collections, for tests that check that memory
/// does not grow with the number of jobs.
#[doc(hidden)]
pub fn capacities_after(spec: &Spec, policy: &mut dyn Policy, config: &SimConfig) -> Result<Vec<usize>, SimError> {
    let mut sink = |_: &Event| {};
    let (mut st, mut engine) = prepare(spec, policy, config, &mut sink)?;
    engine.run(&mut st, policy, horizon(spec, config))?;
    let mut caps = vec![
        st.queue.capacity(),
        st.timers.capacity(),
        st.marked.capacity(),
        st.release_marks.capacity(),
        st.timer_marks.capacity(),
        st.releases.capacity(),
        st.release_cpu.capacity(),
        st.touched.capacity(),
        st.deferred_capacity(),
    ];
    caps.extend(st.tasks.iter().map(|t| t.queue.capacity()));
    Ok(caps)
}

struct Engine {
    miss: MissPolicy,
    tick: Time,
    release_cpu: ReleaseCpu,
    /// Pass counter, stamps task assignments for duplicate detection.
    epoch: u64,
    /// Queue entries processed.
    events: u64,
}

fn check(st: &mut State) -> Result<(), SimError> {
    match st.error.take() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

impl Engine {
    fn run(&mut self, st: &mut State, policy: &mut dyn Policy, horizon: Time) -> Result<(), SimError> {
        st.emit(&Event::SysRelease { t: 0 });
        for i in 0..st.tasks.len() as u32 {
            let ts = &mut st.tasks[i as usize];
            let first = ts.arrivals.next().expect("releases are endless");
            self.queue_release(st, i, first.arrival, first.release);
        }
        st.queue.push(horizon, ord(CLASS_HORIZON, 0), Kind::Horizon, 0, 0);
        if self.tick > 0 && st.costs.tick > 0 {
            st.queue.push(self.tick, ord(CLASS_TICK, 0), Kind::Tick, 0, 0);
        }
        let mut last_t = Time::MAX;
        let mut passes = 0u32;
        let mut entries = 0u64;
        let entry_limit = MAX_ENTRIES_PER_INSTANT + 64 * (st.tasks.len() + st.cpus.len()) as u64;
        while let Some(t) = st.queue.peek_time() {
            if t == last_t {
                passes += 1;
                if passes > MAX_PASSES_PER_INSTANT {
                    return Err(SimError::Policy {
                        t,
                        cpu: None,
                        message: format!("more than {MAX_PASSES_PER_INSTANT} scheduling passes at one instant (a timer re-armed for now forever?)"),
                    });
                }
            } else {
                last_t = t;
                passes = 0;
                entries = 0;
            }
            st.now = t;
            st.flush_overheads(t);
            let mut tick_now = false;
            // Arrivals whose entry came up in the deadline class (in task
            // order), each handled where its own release-class entry would
            // have been: before the first queued entry that sorts after it.
            let mut rode = 0;
            loop {
                if rode < st.rode.len() {
                    let ord = release_ord(st.rode[rode], PHASE_ARRIVAL);
                    if !matches!(st.queue.peek(), Some(e) if e.t == t && e.ord < ord) {
                        let task = st.rode[rode];
                        rode += 1;
                        self.events += 1;
                        self.arrival(st, policy, task)?;
                        continue;
                    }
                }
                if st.queue.peek_time() != Some(t) {
                    break;
                }
                let e = st.queue.pop().expect("peeked");
                entries += 1;
                if entries > entry_limit {
                    return Err(SimError::Policy {
                        t,
                        cpu: None,
                        message: format!(
                            "more than {entry_limit} events at one instant (a timer re-armed for now forever?)"
                        ),
                    });
                }
                match e.kind {
                    Kind::Completion => {
                        if st.completion_due(e.idx, e.gen) {
                            self.events += 1;
                            self.complete(st, policy, e.idx)?;
                        }
                    }
                    Kind::Deadline => {
                        if st.tasks[e.idx as usize].dl_gen == e.gen {
                            self.events += 1;
                            self.deadline(st, policy, e.idx)?;
                        }
                    }
                    Kind::DeadlineArrival => {
                        if st.tasks[e.idx as usize].dl_gen == e.gen {
                            self.events += 1;
                            self.deadline(st, policy, e.idx)?;
                        }
                        st.rode.push(e.idx);
                    }
                    Kind::Horizon => {
                        self.events += 1;
                        return Ok(());
                    }
                    Kind::Handover => {
                        self.events += 1;
                        self.handover(st, policy, e.idx)?;
                    }
                    Kind::Due => {
                        self.events += 1;
                        let task = e.idx;
                        let (home, lat) = (st.tasks[task as usize].home, st.costs.release_latency);
                        st.emit_overhead(t, home, OverheadKind::ReleaseLatency, lat);
                        st.queue.push(t.saturating_add(lat), release_ord(task, PHASE_ARRIVAL), Kind::Arrival, task, 0);
                    }
                    Kind::Arrival => {
                        self.events += 1;
                        self.arrival(st, policy, e.idx)?;
                    }
                    Kind::Timer => {
                        if let Some((id, tag)) = st.timers.fire(e.idx, e.gen) {
                            self.events += 1;
                            st.ctx = Ctx::Timer;
                            st.timer_marks.clear();
                            policy.timer(id, tag, st);
                            check(st)?;
                            if let Some(&h) = st.timer_marks.iter().min() {
                                for i in 0..st.timer_marks.len() {
                                    let c = st.timer_marks[i];
                                    let cs = &mut st.cpus[c as usize];
                                    if c == h {
                                        cs.local = true;
                                    } else {
                                        cs.remote = true;
                                    }
                                }
                            }
                        }
                    }
                    Kind::Tick => {
                        self.events += 1;
                        tick_now = true;
                        st.queue.push(t.saturating_add(self.tick), ord(CLASS_TICK, 0), Kind::Tick, 0, 0);
                    }
                }
            }
            st.rode.clear();
            // Schedule, switch and charge until no CPU is marked.
            while !st.marked.is_empty() {
                self.schedule_pass(st, policy)?;
            }
            self.charge_pass(st);
            if tick_now {
                let tick = st.costs.tick;
                for c in 0..st.cpus.len() as u32 {
                    if st.cpus[c as usize].job.is_some() {
                        st.charge(c, OverheadKind::Tick, tick);
                        st.predict(c);
                    }
                }
            }
        }
        Ok(())
    }

    /// Queues the release of the task's next job (grid arrival `a`, due at `due`).
    fn queue_release(&mut self, st: &mut State, task: u32, a: Time, due: Time) {
        st.tasks[task as usize].pending_arrival = a;
        if st.costs.release_latency > 0 {
            st.queue.push(due, release_ord(task, PHASE_DUE), Kind::Due, task, 0);
        } else {
            st.queue.push(due, release_ord(task, PHASE_ARRIVAL), Kind::Arrival, task, 0);
        }
    }

    /// A job of `task` arrives at its release time.
    fn arrival(&mut self, st: &mut State, policy: &mut dyn Policy, task: u32) -> Result<(), SimError> {
        let now = st.now;
        let ts = &mut st.tasks[task as usize];
        let a = ts.pending_arrival;
        let next = ts.arrivals.next().expect("releases are endless");
        let (next_a, next_due) = (next.arrival, next.release.max(now));
        if self.miss == MissPolicy::Skip && ts.busy() {
            ts.sum.skipped += 1;
            self.queue_release(st, task, next_a, next_due);
            return Ok(());
        }
        let seq = ts.next_seq;
        ts.next_seq += 1;
        let exec = ts.exec.draw();
        let deadline = a.saturating_add(ts.rel_deadline);
        ts.sum.released += 1;
        let handed = !ts.busy();
        if handed {
            ts.active = Some(Active { seq, release: now, deadline, exec, consumed: 0, cpu: None, last_cpu: None });
        } else {
            ts.queue.push_back(Pending { seq, release: now, deadline, exec });
        }
        let arm = ts.dl_seq == seq;
        // With an implicit deadline (no release latency), the new job's
        // deadline check and its successor's arrival fall at the same instant:
        // one queue entry serves both (`Kind::DeadlineArrival`).
        let ride = arm && deadline == next_due && next_due > now && st.costs.release_latency == 0;
        st.emit(&Event::Release { t: now, task, job: seq, deadline });
        if ride {
            let ts = &mut st.tasks[task as usize];
            ts.pending_arrival = next_a;
            ts.dl_gen = ts.dl_gen.wrapping_add(1);
            let gen = ts.dl_gen;
            st.queue.push(next_due, ord(CLASS_DEADLINE, task as u64), Kind::DeadlineArrival, task, gen);
        } else {
            self.queue_release(st, task, next_a, next_due);
            if arm {
                st.arm_deadline(task);
            }
        }
        let idx = st.releases.len() as u32;
        if st.overheads.is_some() {
            st.releases.push((task, seq));
        }
        if handed {
            st.ctx = Ctx::Release(idx);
            policy.release(Job { id: JobId { task, seq }, release: now, deadline }, st);
            check(st)?;
        }
        Ok(())
    }

    /// The task's oldest queued job is handed to the policy (its predecessor completed).
    fn handover(&mut self, st: &mut State, policy: &mut dyn Policy, task: u32) -> Result<(), SimError> {
        let ts = &mut st.tasks[task as usize];
        if ts.active.is_some() {
            return Ok(());
        }
        let Some(p) = ts.queue.pop_front() else { return Ok(()) };
        ts.active = Some(Active {
            seq: p.seq,
            release: p.release,
            deadline: p.deadline,
            exec: p.exec,
            consumed: 0,
            cpu: None,
            last_cpu: None,
        });
        st.ctx = Ctx::Cpu(ts.handover_cpu);
        policy.release(Job { id: JobId { task, seq: p.seq }, release: p.release, deadline: p.deadline }, st);
        check(st)
    }

    /// Bookkeeping when the task's active job ends (completed or aborted on
    /// `cpu`): metrics, deadline chain, hand-over of the next job.
    fn finish(&mut self, st: &mut State, task: u32, cpu: u32, forced: bool) {
        let now = st.now;
        let ts = &mut st.tasks[task as usize];
        let a = ts.active.take().expect("active job");
        ts.sum.completed += 1;
        if forced {
            ts.sum.aborted += 1;
        } else {
            let r = now - a.release;
            ts.sum.max_response = ts.sum.max_response.max(r);
            ts.sum.total_response += r as u128;
            ts.sum.max_tardiness = ts.sum.max_tardiness.max(now.saturating_sub(a.deadline));
        }
        ts.handover_cpu = cpu;
        let advance = ts.dl_seq == a.seq;
        let handover = !ts.queue.is_empty();
        if advance {
            ts.dl_seq += 1;
            st.arm_deadline(task);
        }
        if handover {
            st.queue.push(now, release_ord(task, PHASE_HANDOVER), Kind::Handover, task, 0);
        }
    }

    fn complete(&mut self, st: &mut State, policy: &mut dyn Policy, cpu: u32) -> Result<(), SimError> {
        let now = st.now;
        st.settle(cpu);
        let task = st.cpus[cpu as usize].job.take().expect("completion on an idle CPU");
        st.cpus[cpu as usize].predicted = None;
        let a = st.tasks[task as usize].active.expect("active job");
        let job = a.seq;
        st.emit(&Event::SwitchAway { t: now, cpu, task, job, reason: SwitchReason::Complete, exec: a.consumed });
        st.emit(&Event::Completion { t: now, cpu, task, job, exec: a.consumed, forced: false });
        self.finish(st, task, cpu, false);
        st.ctx = Ctx::Cpu(cpu);
        st.mark(cpu);
        policy.complete(JobId { task, seq: job }, st);
        check(st)
    }

    /// The deadline of the task's oldest unchecked job has come and it is not complete.
    fn deadline(&mut self, st: &mut State, policy: &mut dyn Policy, task: u32) -> Result<(), SimError> {
        let now = st.now;
        let ts = &mut st.tasks[task as usize];
        let seq = ts.dl_seq;
        ts.sum.missed += 1;
        st.emit(&Event::DeadlineMiss { t: now, task, job: seq });
        if self.miss != MissPolicy::Abort {
            st.tasks[task as usize].dl_seq += 1;
            st.arm_deadline(task);
            return Ok(());
        }
        let ts = &mut st.tasks[task as usize];
        match ts.active {
            Some(a) if a.seq == seq => {
                let cpu = match a.cpu {
                    Some(c) => {
                        st.settle(c);
                        let consumed = st.tasks[task as usize].active.expect("active").consumed;
                        st.emit(&Event::SwitchAway {
                            t: now,
                            cpu: c,
                            task,
                            job: seq,
                            reason: SwitchReason::Abort,
                            exec: consumed,
                        });
                        let cs = &mut st.cpus[c as usize];
                        cs.job = None;
                        cs.predicted = None;
                        c
                    }
                    None => a.last_cpu.unwrap_or(ts.home),
                };
                let consumed = st.tasks[task as usize].active.expect("active").consumed;
                st.emit(&Event::Completion { t: now, cpu, task, job: seq, exec: consumed, forced: true });
                self.finish(st, task, cpu, true);
                st.ctx = Ctx::Cpu(cpu);
                if a.cpu.is_some() {
                    st.mark(cpu);
                }
                policy.complete(JobId { task, seq }, st);
                check(st)?;
            }
            _ => {
                // A queued job the policy never saw: dropped.
                let p = ts.queue.pop_front().expect("the oldest incomplete job is queued");
                debug_assert_eq!(p.seq, seq);
                ts.sum.completed += 1;
                ts.sum.aborted += 1;
                let home = ts.home;
                ts.dl_seq += 1;
                st.emit(&Event::Completion { t: now, cpu: home, task, job: seq, exec: 0, forced: true });
                st.arm_deadline(task);
            }
        }
        Ok(())
    }

    /// Calls `schedule` for the marked CPUs and performs the switches.
    fn schedule_pass(&mut self, st: &mut State, policy: &mut dyn Policy) -> Result<(), SimError> {
        self.epoch += 1;
        let epoch = self.epoch;
        let now = st.now;
        st.marked.sort_unstable();
        let count = st.marked.len();
        for i in 0..count {
            let c = st.marked[i];
            st.ctx = Ctx::Cpu(c);
            let r = policy.schedule(c, st);
            check(st)?;
            let next = match r {
                None => None,
                Some(j) => {
                    let bad = |m: String| Err(SimError::Policy { t: now, cpu: Some(c), message: m });
                    let Some(ts) = st.tasks.get(j.task as usize) else {
                        return bad(format!(
                            "schedule returned job {}:{} of a task the spec does not have",
                            j.task, j.seq
                        ));
                    };
                    match ts.active {
                        Some(a) if a.seq == j.seq => {}
                        _ => {
                            return bad(format!(
                                "schedule returned job {}:{}, which is not eligible (not released to the policy, already completed, or waiting for its predecessor)",
                                j.task, j.seq
                            ))
                        }
                    }
                    if !st.placement[j.task as usize].allows(c) {
                        return bad(format!(
                            "schedule returned job {}:{}, whose task may not run on CPU {c} ({:?})",
                            j.task, j.seq, st.placement[j.task as usize]
                        ));
                    }
                    Some(j.task)
                }
            };
            st.cpus[c as usize].next = next;
        }
        // The new assignment must put each job on at most one CPU.
        for i in 0..count {
            let c = st.marked[i];
            if let Some(task) = st.cpus[c as usize].next {
                let ts = &mut st.tasks[task as usize];
                let seq = ts.active.expect("checked").seq;
                if ts.assigned_epoch == epoch {
                    return Err(SimError::Policy {
                        t: now,
                        cpu: Some(c),
                        message: format!("schedule returned job {task}:{seq} for two CPUs"),
                    });
                }
                ts.assigned_epoch = epoch;
                if let Some(other) = ts.active.expect("checked").cpu {
                    if other != c && !st.cpus[other as usize].marked {
                        return Err(SimError::Policy {
                            t: now,
                            cpu: Some(c),
                            message: format!("schedule returned job {task}:{seq}, which is running on CPU {other} and that CPU was not rescheduled"),
                        });
                    }
                }
            }
        }
        // All switch-aways, then all switch-tos.
        for i in 0..count {
            let c = st.marked[i];
            let cs = &st.cpus[c as usize];
            if cs.next == cs.job {
                continue;
            }
            st.cpus[c as usize].changed = true;
            if let Some(old) = st.cpus[c as usize].job {
                st.settle(c);
                let a = st.tasks[old as usize].active.as_mut().expect("running job is active");
                a.cpu = None;
                a.last_cpu = Some(c);
                let (job, exec) = (a.seq, a.consumed);
                st.tasks[old as usize].sum.preemptions += 1;
                let cs = &mut st.cpus[c as usize];
                cs.job = None;
                cs.predicted = None;
                st.emit(&Event::SwitchAway { t: now, cpu: c, task: old, job, reason: SwitchReason::Preempt, exec });
            }
        }
        for i in 0..count {
            let c = st.marked[i];
            let cs = &mut st.cpus[c as usize];
            cs.marked = false;
            if !cs.touched {
                cs.touched = true;
                st.touched.push(c);
            }
            let Some(task) = cs.next.take() else { continue };
            if cs.job == Some(task) {
                continue;
            }
            cs.job = Some(task);
            cs.run_from = now.max(cs.stall_until);
            cs.switched_to = true;
            cs.sum.switches += 1;
            let ts = &mut st.tasks[task as usize];
            let a = ts.active.as_mut().expect("checked");
            a.cpu = Some(c);
            let resume = match a.last_cpu {
                None => None,
                Some(l) if l == c => Some(Resume::Preemption),
                Some(_) => Some(Resume::Migration),
            };
            if resume == Some(Resume::Migration) {
                ts.sum.migrations += 1;
            }
            let job = a.seq;
            st.cpus[c as usize].resume = resume;
            st.emit(&Event::SwitchTo { t: now, cpu: c, task, job });
        }
        st.marked.drain(..count);
        Ok(())
    }

    /// Charges the pass's overheads (in CPU order; on a CPU: IPI, releases,
    /// schedule, context switch, then CPMD) and updates completion predictions.
    fn charge_pass(&mut self, st: &mut State) {
        if st.overheads.is_some() {
            // Which CPU handled each release.
            st.release_cpu.clear();
            for i in 0..st.releases.len() {
                let (task, seq) = st.releases[i];
                let ts = &st.tasks[task as usize];
                let h = match ts.active {
                    _ if self.release_cpu == ReleaseCpu::DomainFirst => ts.home,
                    Some(a) if a.seq == seq => match a.cpu {
                        Some(c) if st.cpus[c as usize].switched_to => c,
                        _ => ts.home,
                    },
                    _ => ts.home,
                };
                st.release_cpu.push(h);
                let cs = &mut st.cpus[h as usize];
                cs.releases += 1;
                if !cs.touched {
                    cs.touched = true;
                    st.touched.push(h);
                }
            }
            for i in 0..st.release_marks.len() {
                let (c, r) = st.release_marks[i];
                let cs = &mut st.cpus[c as usize];
                if st.release_cpu[r as usize] == c {
                    cs.local = true;
                } else {
                    cs.remote = true;
                }
            }
            st.touched.sort_unstable();
            let costs = st.costs;
            for i in 0..st.touched.len() {
                let c = st.touched[i];
                let cs = &st.cpus[c as usize];
                let (ipi, releases, switched, resume) =
                    (cs.changed && cs.remote && !cs.local, cs.releases, cs.switched_to, cs.resume);
                if ipi {
                    st.charge(c, OverheadKind::Ipi, costs.ipi);
                }
                for _ in 0..releases {
                    st.charge(c, OverheadKind::Release, costs.release);
                }
                if switched {
                    st.charge(c, OverheadKind::Schedule, costs.schedule);
                    st.charge(c, OverheadKind::ContextSwitch, costs.context_switch);
                    if let Some(kind) = resume {
                        let task = st.cpus[c as usize].job.expect("switched to a job");
                        let ts = &mut st.tasks[task as usize];
                        let d = st.overheads.as_ref().map_or(0, |o| o.cpmd(ts.wss, kind));
                        ts.sum.cpmd += d;
                        st.charge(c, OverheadKind::Cpmd, d);
                    }
                }
            }
            st.releases.clear();
            st.release_marks.clear();
        }
        for i in 0..st.touched.len() {
            let c = st.touched[i];
            st.predict(c);
            let cs = &mut st.cpus[c as usize];
            cs.touched = false;
            cs.local = false;
            cs.remote = false;
            cs.changed = false;
            cs.switched_to = false;
            cs.resume = None;
            cs.releases = 0;
        }
        st.touched.clear();
    }
}
