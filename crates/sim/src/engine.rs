//! The event loop.
//!
//! Each iteration handles one *pass* at the earliest pending instant `t`:
//!
//! 1. emit held-back overhead intervals that start at or before `t`;
//! 2. pop every queue entry due at `t`, in (class, sub-order) order —
//!    completions (CPU order), deadline checks (task order), the horizon
//!    (which ends the run), releases (task order), the tick — and report
//!    them to the policy driver (`schedlab_policy::driver`);
//! 3. let the driver run the protocol of the instant: it delivers the
//!    callbacks in order, hands held jobs over, fires the policy's timers,
//!    asks `schedule` in rounds and checks the answers; this module's
//!    [`Host`] implementation (in `kernel.rs`) performs each round's
//!    switches (all switch-aways, then all switch-tos);
//! 4. charge overheads (IPI, release, schedule, context switch, CPMD, tick)
//!    and update the completion predictions of the CPUs concerned.
//!
//! A pass may leave new entries at the same `t` (a job with nothing left to
//! execute completes at once); they are handled by a further pass at `t`.

use crate::config::{ReleaseCpu, SimConfig};
use crate::error::SimError;
use crate::horizon::horizon;
use crate::kernel::{emit, State};
use crate::queue::{ord, Kind, CLASS_DEADLINE, CLASS_HORIZON, CLASS_RELEASE, CLASS_SUSPEND, CLASS_TICK};
use crate::segments::Segments;
use crate::state::TaskState;
use crate::summary::SimSummary;
use schedlab_jobs::MissPolicy;
use schedlab_model::overheads::{Costs, Overheads};
use schedlab_model::{SegmentKind, Spec};
use schedlab_platform::PlatformModel;
use schedlab_policy::{Driver, Job, JobId, Policy, Time};
use schedlab_trace::{Event, OverheadKind, SwitchReason};

/// Passes at one instant before the run is declared stuck (jobs that keep
/// completing at once).
const MAX_PASSES_PER_INSTANT: u32 = 100_000;
/// Queue entries at one instant, beyond those of every task and CPU, before
/// the run is declared stuck.
const MAX_ENTRIES_PER_INSTANT: u64 = 1_000_000;

/// Sub-orders within the release class: arrivals, then release latency markers.
fn release_ord(task: u32, phase: u64) -> u64 {
    ord(CLASS_RELEASE, (task as u64) << 2 | phase)
}
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
    run(spec, policy, config, Some(sink))
}

/// Runs like [`simulate`] without passing the events anywhere (they are
/// only counted): for a caller that needs only the summary, which is then
/// spared building each event and calling a sink with it.
pub fn simulate_summary(spec: &Spec, policy: &mut dyn Policy, config: &SimConfig) -> Result<SimSummary, SimError> {
    run(spec, policy, config, None)
}

fn run(
    spec: &Spec,
    policy: &mut dyn Policy,
    config: &SimConfig,
    sink: Option<&mut dyn FnMut(&Event)>,
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
        events: engine.events + st.timers_fired,
        trace_events: st.trace_events,
        ..Default::default()
    };
    for (i, ts) in st.tasks.iter_mut().enumerate() {
        summary.incomplete += ts.active.is_some() as u64 + engine.drv.held_len(i as u32) as u64;
        // The unfinished jobs' tardiness at the end (a lower bound).
        let deadlines =
            ts.active.map(|a| a.deadline).into_iter().chain(engine.drv.held(i as u32).map(|h| h.job.deadline));
        for d in deadlines {
            ts.sum.max_late_end = ts.sum.max_late_end.max(horizon.saturating_sub(d));
        }
    }
    summary.tasks = st.tasks.iter().map(|t| t.sum.clone()).collect();
    summary.cpus = st.cpus.iter().map(|c| c.sum.clone()).collect();
    if let Some(m) = st.model.as_deref() {
        for (i, t) in summary.tasks.iter_mut().enumerate() {
            t.cache_misses = m.task_reading(i as u32).misses;
        }
        for (c, s) in summary.cpus.iter_mut().enumerate() {
            s.cache_misses = m.cpu_reading(c as u32).misses;
        }
    }
    if let Some(t) = st.mtt.as_deref() {
        summary.mtts = t.summaries();
    }
    Ok(summary)
}

/// Builds the run's state: overhead model, per-task and per-CPU state.
fn prepare<'a>(
    spec: &Spec,
    policy: &mut dyn Policy,
    config: &SimConfig,
    sink: Option<&'a mut dyn FnMut(&Event)>,
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
            segments: Segments::of(&jobs, t, i),
            rel_deadline: t.deadline().0,
            wss: t.wss.map_or(0, |w| w.0),
            home,
            pending_arrival: 0,
            next_seq: 0,
            active: None,
            lost: 0,
            carry: 0,
            release_idx: 0,
            dl_seq: 0,
            dl_gen: 0,
            handover_cpu: home,
            sum: Default::default(),
        });
    }
    let costs = match &overheads {
        Some(o) => o.costs(config.overhead_task_count.unwrap_or(n as u64)),
        None => Costs::default(),
    };
    let drv = Driver::new(m as u32, placement);
    let mut st = State::new(tasks, m, sink, config.policy_events, overheads, costs);
    for (c, &r) in st.cpus.iter_mut().zip(&config.rates) {
        c.rate = r;
    }
    st.counters = config.counters.clone();
    st.base_rates.iter_mut().zip(&config.rates).for_each(|(b, &r)| *b = r);
    if config.platform_model {
        st.model = PlatformModel::new(spec, config.calibration).map(Box::new);
        if let Some(model) = st.model.as_deref_mut() {
            // A CPU of another rate than 1.0 computes its own (its rate
            // is the model's times its own, rounded).
            for (c, b) in st.base_rates.iter().enumerate() {
                model.set_classable(c as u32, b.is_one());
            }
        }
        if st.model.is_some() {
            st.mtt = crate::mtt::MttTracker::new(spec).map(Box::new);
        }
    }
    let engine = Engine {
        miss: config.miss,
        tick: config.tick,
        release_cpu: config.release_cpu,
        events: 0,
        drv,
        deferred: Vec::with_capacity(m),
    };
    Ok((st, engine))
}

/// Runs like [`simulate`] with a discarding sink and reports the capacities
/// of the simulator's internal collections, for tests that check that memory
/// does not grow with the number of jobs.
#[doc(hidden)]
pub fn capacities_after(spec: &Spec, policy: &mut dyn Policy, config: &SimConfig) -> Result<Vec<usize>, SimError> {
    let mut sink = |_: &Event| {};
    let (mut st, mut engine) = prepare(spec, policy, config, Some(&mut sink))?;
    engine.run(&mut st, policy, horizon(spec, config))?;
    let caps = vec![
        st.queue.capacity(),
        engine.drv.capacity(),
        st.release_marks.capacity(),
        st.timer_marks.capacity(),
        st.releases.capacity(),
        st.release_cpu.capacity(),
        st.touched.capacity(),
        st.deferred_capacity(),
        st.tasks.iter().filter_map(|t| t.segments.as_ref()).map(|s| s.capacity()).sum(),
    ];
    Ok(caps)
}

struct Engine {
    miss: MissPolicy,
    tick: Time,
    release_cpu: ReleaseCpu,
    /// Queue entries processed.
    events: u64,
    /// The policy driver (its payload: a job's actual execution time).
    drv: Driver<Time>,
    /// CPUs whose completion entry is deferred ([`Engine::predict_or_defer`];
    /// each marked `CpuState::deferred`).
    deferred: Vec<u32>,
}

impl Engine {
    fn run(&mut self, st: &mut State, policy: &mut dyn Policy, horizon: Time) -> Result<(), SimError> {
        emit!(st, Event::SysRelease { t: 0 });
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
        while let Some(q) = st.queue.peek_time() {
            let t = match self.drv.next_timer() {
                Some(d) if d < q => d,
                _ => q,
            };
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
            let events = self.events;
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
                        self.arrival(st, task);
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
                            self.complete(st, e.idx);
                        }
                    }
                    Kind::Deadline => {
                        if st.tasks[e.idx as usize].dl_gen == e.gen {
                            self.events += 1;
                            self.deadline(st, e.idx);
                        }
                    }
                    Kind::DeadlineArrival => {
                        if st.tasks[e.idx as usize].dl_gen == e.gen {
                            self.events += 1;
                            self.deadline(st, e.idx);
                        }
                        st.rode.push(e.idx);
                    }
                    Kind::Horizon => {
                        self.events += 1;
                        return Ok(());
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
                        self.arrival(st, e.idx);
                    }
                    Kind::Suspend => {
                        if st.tasks[e.idx as usize].active.is_some_and(|a| a.seq as u32 == e.gen && !a.suspended) {
                            self.events += 1;
                            self.suspend(st, e.idx);
                        }
                    }
                    Kind::Resume => {
                        if st.tasks[e.idx as usize].active.is_some_and(|a| a.seq as u32 == e.gen && a.suspended) {
                            self.events += 1;
                            self.resume(st, e.idx);
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
            // Only stale entries came up (completions queued early, by a
            // rate that dropped, and queued again): nothing to deliver and
            // no timer due, so the instant would do nothing but look at the
            // deferred completions again.
            if self.events == events && self.drv.next_timer().is_none_or(|d| d > t) {
                if !self.deferred.is_empty() {
                    let next = self.next_instant(st);
                    self.recheck_deferred(st, next);
                }
                continue;
            }
            // The protocol of the instant: callbacks, timers, rounds of
            // schedule with their switches (`Host::switch`).
            self.drv.instant(policy, st, t)?;
            self.charge_pass(st);
            if tick_now {
                let tick = st.costs.tick;
                for c in 0..st.cpus.len() as u32 {
                    if st.cpus[c as usize].job.is_some() {
                        st.charge(c, OverheadKind::Tick, tick);
                        st.predict(c);
                        if self.drv.wants_runs() {
                            self.drv.runs(c, st.run_of(c));
                        }
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

    /// A job of `task` arrives at its release time: it is reported to the
    /// driver, which releases it to the policy now or holds it until its
    /// predecessor completes.
    fn arrival(&mut self, st: &mut State, task: u32) {
        let now = st.now;
        let ts = &mut st.tasks[task as usize];
        let a = ts.pending_arrival;
        let next = ts.arrivals.next().expect("releases are endless");
        let (next_a, next_due) = (next.arrival, next.release.max(now));
        if self.miss == MissPolicy::Skip && (ts.active.is_some() || self.drv.held_len(task) > 0) {
            ts.sum.skipped += 1;
            self.queue_release(st, task, next_a, next_due);
            return;
        }
        let seq = ts.next_seq;
        ts.next_seq += 1;
        let exec = match ts.segments.as_mut() {
            Some(s) => s.arrive(),
            None => ts.exec.draw(),
        };
        let deadline = a.saturating_add(ts.rel_deadline);
        ts.sum.released += 1;
        let arm = ts.dl_seq == seq;
        // With an implicit deadline (no release latency), the new job's
        // deadline check and its successor's arrival fall at the same instant:
        // one queue entry serves both (`Kind::DeadlineArrival`).
        let ride = arm && deadline == next_due && next_due > now && st.costs.release_latency == 0;
        emit!(st, Event::Release { t: now, task, job: seq, deadline });
        let idx = st.releases.len() as u32;
        st.tasks[task as usize].release_idx = idx;
        if st.overheads.is_some() {
            st.releases.push((task, seq));
        }
        self.drv.release(Job { id: JobId { task, seq }, release: now, deadline }, exec, now);
        if ride {
            let ts = &mut st.tasks[task as usize];
            ts.pending_arrival = next_a;
            ts.dl_gen = ts.dl_gen.wrapping_add(1);
            let gen = ts.dl_gen;
            st.queue.push(next_due, ord(CLASS_DEADLINE, task as u64), Kind::DeadlineArrival, task, gen);
        } else {
            self.queue_release(st, task, next_a, next_due);
            if arm {
                self.arm_deadline(st, task);
            }
        }
    }

    /// The deadline of the task's job `seq` if it is released and not complete.
    fn deadline_of(&self, st: &State, task: u32, seq: u64) -> Option<Time> {
        match st.tasks[task as usize].active {
            Some(a) if a.seq == seq => Some(a.deadline),
            _ => self.drv.held_job(task, seq).map(|h| h.job.deadline),
        }
    }

    /// Queues the deadline check of the task's oldest unchecked job, if released.
    fn arm_deadline(&self, st: &mut State, task: u32) {
        let d = self.deadline_of(st, task, st.tasks[task as usize].dl_seq);
        st.arm_deadline(task, d);
    }

    /// Bookkeeping when the task's active job ends (completed or aborted on
    /// `cpu`): metrics, deadline chain; the driver is told.
    fn finish(&mut self, st: &mut State, task: u32, cpu: u32, forced: bool) {
        let now = st.now;
        let ts = &mut st.tasks[task as usize];
        let a = ts.active.take().expect("active job");
        ts.sum.completed += 1;
        if let (Some(t), Some(m)) = (st.mtt.as_deref_mut(), st.model.as_deref()) {
            t.completed(task, a.seq, cpu, forced, now, m);
        }
        if forced {
            ts.sum.aborted += 1;
            ts.sum.max_late_end = ts.sum.max_late_end.max(now.saturating_sub(a.deadline));
        } else {
            let r = now - a.release;
            ts.sum.max_response = ts.sum.max_response.max(r);
            ts.sum.total_response += r as u128;
            ts.sum.max_tardiness = ts.sum.max_tardiness.max(now.saturating_sub(a.deadline));
        }
        ts.handover_cpu = cpu;
        if ts.dl_seq == a.seq {
            ts.dl_seq += 1;
            self.arm_deadline(st, task);
        }
        self.drv.complete(JobId { task, seq: a.seq });
    }

    fn complete(&mut self, st: &mut State, cpu: u32) {
        let now = st.now;
        st.settle(cpu);
        let task = st.cpus[cpu as usize].job.expect("completion on an idle CPU");
        if st.tasks[task as usize].segments.is_some() && self.segment_boundary(st, cpu, task) {
            return;
        }
        st.cpus[cpu as usize].job = None;
        st.cpus[cpu as usize].bound = 0;
        st.left_cpu(cpu, task);
        let a = st.tasks[task as usize].active.expect("active job");
        let job = a.seq;
        emit!(st, Event::SwitchAway { t: now, cpu, task, job, reason: SwitchReason::Complete, exec: a.consumed });
        emit!(st, Event::Completion { t: now, cpu, task, job, exec: a.consumed, forced: false });
        self.finish(st, task, cpu, false);
    }

    /// The job running on `cpu` reached the end of its current CPU segment:
    /// each boundary passed is reported (trace and driver). Returns false
    /// when the job has also reached its end (the caller completes it).
    /// A job whose next segment is a suspension leaves its CPU and blocks.
    fn segment_boundary(&mut self, st: &mut State, cpu: u32, task: u32) -> bool {
        let now = st.now;
        loop {
            let ts = &mut st.tasks[task as usize];
            let a = ts.active.as_mut().expect("running job is active");
            let segs = ts.segments.as_ref().expect("a segmented task");
            if a.consumed.wrapping_sub(ts.lost) < a.seg_until {
                break;
            }
            if a.seg >= segs.last() {
                return false;
            }
            let (seg, kind) = (a.seg, segs.kind(a.seg));
            a.seg += 1;
            a.seg_until = segs.until(a.seg);
            let (seq, next) = (a.seq, segs.kind(a.seg));
            if let Some(m) = st.model.as_deref_mut() {
                m.phase(task, next == SegmentKind::Memory);
            }
            emit!(st, Event::SegmentEnd { t: now, cpu, task, job: seq, segment: seg });
            self.drv.segment_end(JobId { task, seq }, seg, kind);
            if next == SegmentKind::Suspend {
                self.suspend(st, task);
                return true;
            }
        }
        let cs = &mut st.cpus[cpu as usize];
        cs.bound = 0;
        if !cs.touched {
            cs.touched = true;
            st.touched.push(cpu);
        }
        true
    }

    /// The task's active job starts a suspension segment: off its CPU (if
    /// on one), blocked until the segment's length has passed.
    fn suspend(&mut self, st: &mut State, task: u32) {
        let now = st.now;
        let a = st.tasks[task as usize].active.expect("active job");
        if let Some(c) = a.cpu {
            st.vacate(c, task, a.seq, SwitchReason::Block);
            let cs = &mut st.cpus[c as usize];
            if !cs.touched {
                cs.touched = true;
                st.touched.push(c);
            }
        }
        let ts = &mut st.tasks[task as usize];
        let a = ts.active.as_mut().expect("active job");
        if let Some(c) = a.cpu.take() {
            a.last_cpu = Some(c);
        }
        a.suspended = true;
        let until = now.saturating_add(ts.segments.as_ref().expect("a segmented task").suspension(a.seg));
        let seq = a.seq;
        emit!(st, Event::Block { t: now, task, job: seq });
        self.drv.block(JobId { task, seq });
        st.queue.push(until, ord(CLASS_SUSPEND, task as u64), Kind::Resume, task, seq as u32);
    }

    /// The task's active job ends its suspension segment: it resumes with
    /// its next segment, suspends again, or completes (a trailing suspension).
    fn resume(&mut self, st: &mut State, task: u32) {
        let now = st.now;
        let ts = &mut st.tasks[task as usize];
        let a = ts.active.as_mut().expect("active job");
        let segs = ts.segments.as_ref().expect("a segmented task");
        let seq = a.seq;
        if a.seg >= segs.last() {
            a.suspended = false;
            let (cpu, exec) = (a.last_cpu.unwrap_or(ts.home), a.consumed);
            emit!(st, Event::Resume { t: now, task, job: seq });
            emit!(st, Event::Completion { t: now, cpu, task, job: seq, exec, forced: false });
            self.finish(st, task, cpu, false);
            return;
        }
        let seg = a.seg;
        a.seg += 1;
        a.seg_until = segs.until(a.seg);
        self.drv.segment_end(JobId { task, seq }, seg, SegmentKind::Suspend);
        if segs.kind(a.seg) == SegmentKind::Suspend {
            // Suspended on: the next suspension starts at once.
            let until = now.saturating_add(segs.suspension(a.seg));
            st.queue.push(until, ord(CLASS_SUSPEND, task as u64), Kind::Resume, task, seq as u32);
        } else {
            a.suspended = false;
            emit!(st, Event::Resume { t: now, task, job: seq });
            self.drv.resume(JobId { task, seq });
        }
    }

    /// The deadline of the task's oldest unchecked job has come and it is not complete.
    fn deadline(&mut self, st: &mut State, task: u32) {
        let now = st.now;
        let ts = &mut st.tasks[task as usize];
        let seq = ts.dl_seq;
        ts.sum.missed += 1;
        emit!(st, Event::DeadlineMiss { t: now, task, job: seq });
        if self.miss != MissPolicy::Abort {
            st.tasks[task as usize].dl_seq += 1;
            self.arm_deadline(st, task);
            return;
        }
        let ts = &mut st.tasks[task as usize];
        match ts.active {
            Some(a) if a.seq == seq => {
                let cpu = match a.cpu {
                    Some(c) => {
                        st.vacate(c, task, seq, SwitchReason::Abort);
                        c
                    }
                    None => a.last_cpu.unwrap_or(ts.home),
                };
                let consumed = st.tasks[task as usize].active.expect("active").consumed;
                emit!(st, Event::Completion { t: now, cpu, task, job: seq, exec: consumed, forced: true });
                self.finish(st, task, cpu, true);
            }
            _ => {
                // A held job the policy never saw: dropped.
                let late = self.drv.held_job(task, seq).map_or(0, |h| now.saturating_sub(h.job.deadline));
                let known = self.drv.complete(JobId { task, seq });
                if let Some(s) = st.tasks[task as usize].segments.as_mut() {
                    s.drop_oldest();
                }
                debug_assert!(!known, "the oldest incomplete job is held");
                let ts = &mut st.tasks[task as usize];
                ts.sum.completed += 1;
                ts.sum.aborted += 1;
                ts.sum.max_late_end = ts.sum.max_late_end.max(late);
                let home = ts.home;
                ts.dl_seq += 1;
                emit!(st, Event::Completion { t: now, cpu: home, task, job: seq, exec: 0, forced: true });
                self.arm_deadline(st, task);
            }
        }
    }

    /// Charges the pass's overheads (in CPU order; on a CPU: IPI, releases,
    /// schedule, context switch, then CPMD) and updates completion predictions.
    fn charge_pass(&mut self, st: &mut State) {
        if st.model.is_some() {
            st.update_model_rates();
        }
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
                    if st.model.is_some() {
                        // The platform model's CPMD replaces the overhead file's.
                        st.charge_reload(c);
                    } else if let (Some(kind), Some(task)) = (resume, st.cpus[c as usize].job) {
                        // (A job switched to and away again in a later round
                        // of the instant, e.g. `mcs` taking the memory token
                        // back, left nothing to reload.)
                        let ts = &mut st.tasks[task as usize];
                        let d = st.overheads.as_ref().map_or(0, |o| o.cpmd(ts.wss, kind));
                        ts.sum.cpmd += d;
                        st.charge(c, OverheadKind::Cpmd, d);
                    }
                }
            }
            st.releases.clear();
            st.release_marks.clear();
        } else if st.model.is_some() {
            for i in 0..st.touched.len() {
                let c = st.touched[i];
                if st.cpus[c as usize].switched_to {
                    st.charge_reload(c);
                }
            }
        }
        let next = self.next_instant(st);
        for i in 0..st.touched.len() {
            let c = st.touched[i];
            self.predict_or_defer(st, c, next);
            if self.drv.wants_runs() {
                self.drv.runs(c, st.run_of(c));
            }
            let cs = &mut st.cpus[c as usize];
            cs.touched = false;
            cs.local = false;
            cs.remote = false;
            cs.changed = false;
            cs.switched_to = false;
            cs.resume = None;
            cs.reload = 0;
            cs.releases = 0;
        }
        st.touched.clear();
        if !self.deferred.is_empty() {
            self.recheck_deferred(st, next);
        }
    }

    /// No instant comes before this one (entries queued from here on can
    /// only make the next one earlier).
    #[inline]
    fn next_instant(&mut self, st: &State) -> Time {
        match (st.queue.peek_time(), self.drv.next_timer()) {
            (Some(q), Some(d)) => q.min(d),
            (q, d) => q.or(d).unwrap_or(Time::MAX),
        }
    }

    /// [`State::predict`], lazily: a CPU whose job cannot complete before
    /// `next` (the earliest instant the run can come to next) gets no
    /// completion entry now; it is deferred and looked at again at the end
    /// of every pass ([`Engine::recheck_deferred`]) until its completion
    /// comes before the next instant (it is then queued) or an entry
    /// exists. A job preempted at the next quantum boundary, the common
    /// case under a quantum-driven policy, so never costs a queue entry
    /// that would go stale. Completions are handled at the same instants,
    /// computed from the same state, either way.
    #[inline]
    fn predict_or_defer(&mut self, st: &mut State, c: u32, next: Time) {
        let cs = &st.cpus[c as usize];
        if cs.prediction_current() {
            return;
        }
        if cs.bound <= next {
            // The known bound is not enough: the exact completion, queued
            // if it comes before the next instant.
            let p = st.completion_time(c);
            if p.is_some_and(|p| p <= next) {
                st.queue_completion(c, p);
                return;
            }
            st.cpus[c as usize].bound = p.unwrap_or(Time::MAX);
        }
        let cs = &mut st.cpus[c as usize];
        if !cs.deferred {
            cs.deferred = true;
            self.deferred.push(c);
        }
    }

    /// The deferred CPUs at the end of a pass: those whose job changed,
    /// completed or got an entry leave the list; those whose completion is
    /// no longer after `next` are predicted (and queued). Inlined into both
    /// callers: called out of line it costs every instant a call and what
    /// the caller knew (4 % more instructions for G-EDF at m = 64).
    #[inline(always)]
    fn recheck_deferred(&mut self, st: &mut State, next: Time) {
        let mut i = 0;
        while i < self.deferred.len() {
            let c = self.deferred[i];
            let cs = &st.cpus[c as usize];
            let settled = cs.prediction_current();
            if !settled && cs.bound > next {
                i += 1;
                continue;
            }
            self.deferred.swap_remove(i);
            st.cpus[c as usize].deferred = false;
            if !settled {
                // Queued now, or deferred again (at the end of the list).
                self.predict_or_defer(st, c, next);
            }
        }
    }
}
