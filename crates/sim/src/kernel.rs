//! The simulator's side of the policy driver: the run's mutable state, the
//! [`Host`] services the driver needs from it (virtual clock, execution
//! accounting, switching, attribution of rescheduling to CPUs), and the
//! helpers that emit trace events, charge overheads and predict completions.

use crate::error::SimError;
use crate::platform::CpuView;
use crate::queue::{ord, Kind, Queue, CLASS_COMPLETION, CLASS_DEADLINE, CLASS_SUSPEND};
use crate::state::{Active, CpuState, TaskState};
use schedlab_model::overheads::{Costs, Overheads, Resume};
use schedlab_model::SegmentKind;
use schedlab_platform::{PlatformModel, MICROS};
use schedlab_policy::{
    Counters, CountersUnavailable, Cpu, Delivery, Host, JobId, PolicyEvent, ProtocolError, Rate, Run, Time,
};
use schedlab_trace::{Event, OverheadKind, SwitchReason};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Counts a trace event of the run `$st` and, when the run has a sink,
/// builds the event `$e` and passes it on: a run without a sink builds none.
macro_rules! emit {
    ($st:expr, $e:expr) => {{
        $st.trace_events += 1;
        if $st.sink.is_some() {
            let e = $e;
            $st.send(&e);
        }
    }};
}
pub(crate) use emit;

/// Who is handling the callback being delivered (for IPI attribution).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ctx {
    /// Handled on this CPU.
    Cpu(u32),
    /// The release at this index of `State::releases` (its CPU is known
    /// only after the instant's switches).
    Release(u32),
    /// A timer: handled on the lowest-numbered CPU it marks.
    Timer,
}

/// An overhead interval that starts later than the current instant, held
/// back so the trace stays sorted by time.
type Deferred = Reverse<(Time, u64, u32, u8, Time)>;

pub(crate) struct State<'a> {
    /// The run's counter source (`crate::platform`).
    pub counters: Option<std::sync::Arc<dyn crate::platform::CounterSource>>,
    /// The platform model (`schedlab-platform`), when the spec has a cache.
    pub model: Option<Box<PlatformModel>>,
    /// Per-MTT metrics and the profiler, with a model and MTTs (`crate::mtt`).
    pub mtt: Option<Box<crate::mtt::MttTracker>>,
    /// Each CPU's rate from the configuration, which the model's rate scales.
    pub base_rates: Vec<Rate>,
    pub now: Time,
    pub tasks: Vec<TaskState>,
    pub cpus: Vec<CpuState>,
    pub queue: Queue,
    pub ctx: Ctx,
    /// (CPU, release index) marks made during release callbacks.
    pub release_marks: Vec<(u32, u32)>,
    /// CPUs marked during the current timer callback.
    pub timer_marks: Vec<u32>,
    /// Arrivals processed in this pass: (task, seq).
    pub releases: Vec<(u32, u64)>,
    /// Handling CPU of each entry of `releases`.
    pub release_cpu: Vec<u32>,
    /// CPUs whose state changed in this pass.
    pub touched: Vec<u32>,
    /// Tasks whose `DeadlineArrival` entry came up at this instant.
    pub rode: Vec<u32>,
    /// Where the events go (`None`: nowhere, only counted).
    pub sink: Option<&'a mut dyn FnMut(&Event)>,
    pub trace_events: u64,
    pub policy_events: bool,
    pub overheads: Option<Overheads>,
    pub costs: Costs,
    deferred: BinaryHeap<Deferred>,
    deferred_seq: u64,
    /// Policy timers fired (counted with the queue entries as events).
    pub timers_fired: u64,
}

fn kind_code(k: OverheadKind) -> u8 {
    match k {
        OverheadKind::Release => 0,
        OverheadKind::Schedule => 1,
        OverheadKind::ContextSwitch => 2,
        OverheadKind::Ipi => 3,
        OverheadKind::Tick => 4,
        OverheadKind::Cpmd => 5,
        OverheadKind::ReleaseLatency => 6,
    }
}

fn code_kind(c: u8) -> OverheadKind {
    match c {
        0 => OverheadKind::Release,
        1 => OverheadKind::Schedule,
        2 => OverheadKind::ContextSwitch,
        3 => OverheadKind::Ipi,
        4 => OverheadKind::Tick,
        5 => OverheadKind::Cpmd,
        _ => OverheadKind::ReleaseLatency,
    }
}

/// A stint of `d` ns on a CPU of rate `rate` other than 1.0: the CPU time
/// that retired no demand (kept out of the common path).
#[cold]
#[inline(never)]
fn slow_progress(rate: Rate, d: Time, lost: &mut Time, carry: &mut u32) {
    let work = rate.advance(d, carry);
    *lost = lost.wrapping_add(d.wrapping_sub(work));
}

/// A stint of `d` ns in a rate class that retired `v` millionths of a ns
/// (`PlatformModel::progress`): `Rate::advance` over the stint's rates.
#[inline]
fn class_progress(v: u128, d: Time, lost: &mut Time, carry: &mut u32) {
    let work = match u64::try_from(v).ok().and_then(|v| v.checked_add(*carry as u64)) {
        // In u64 when it fits (stints below ~5 h): no 128-bit division.
        Some(total) => {
            *carry = (total % MICROS as u64) as u32;
            total / MICROS as u64
        }
        None => {
            let total = v + *carry as u128;
            *carry = (total % MICROS as u128) as u32;
            u64::try_from(total / MICROS as u128).unwrap_or(Time::MAX)
        }
    };
    *lost = lost.wrapping_add(d.wrapping_sub(work));
}

/// When a job of a rate class with `left` ns of demand to go (and `carry`
/// millionths retired beyond them) completes on `cpu`, by its class's clock
/// (`PlatformModel::finish`): if the class's rate did not change since
/// the CPU's mark (which is its `run_from`), the same as `Rate::cpu_for` at
/// the class's rate from there. Out of line, so that the common case of
/// [`State::completion_time`] stays small enough to inline.
#[inline(never)]
fn class_finish(m: &PlatformModel, cpu: u32, left: Time, carry: u32) -> Time {
    let need = (left as u128 * MICROS as u128).saturating_sub(carry as u128);
    u64::try_from(m.finish(cpu, need)).unwrap_or(Time::MAX)
}

/// The rate of a CPU of base rate `b` at the platform model's `micros`.
#[inline(always)]
fn scaled(b: Rate, micros: u32) -> Rate {
    if micros == MICROS {
        b
    } else if b.is_one() {
        // (10^6 · micros + 10^6 / 2) / 10^6, and micros >= 1.
        Rate::from_micros(micros)
    } else {
        let r = (b.micros() as u64 * micros as u64 + MICROS as u64 / 2) / MICROS as u64;
        Rate::from_micros(r.clamp(1, u32::MAX as u64) as u32)
    }
}

/// The rate of `cpu` while its job is in one of the model's rate classes:
/// the class's, which the model keeps (the simulator is told only when it
/// rises, `State::update_model_rates`; such a CPU's own rate is 1.0,
/// `PlatformModel::set_classable`).
#[inline(always)]
fn class_rate(m: &PlatformModel, cpu: u32) -> Option<Rate> {
    m.in_class(cpu).then(|| Rate::from_micros(m.micros(cpu)))
}

/// The CPU time `left` ns of demand take at `rate` other than 1.0.
#[cold]
#[inline(never)]
fn slow_cpu_for(rate: Rate, left: Time, carry: u32) -> Option<Time> {
    rate.cpu_for(left, carry)
}

impl<'a> State<'a> {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        tasks: Vec<TaskState>,
        cpus: usize,
        sink: Option<&'a mut dyn FnMut(&Event)>,
        policy_events: bool,
        overheads: Option<Overheads>,
        costs: Costs,
    ) -> State<'a> {
        let n = tasks.len();
        State {
            counters: None,
            model: None,
            mtt: None,
            base_rates: vec![Rate::ONE; cpus],
            now: 0,
            tasks,
            cpus: vec![CpuState::default(); cpus],
            queue: Queue::with_capacity(4 * (n + cpus) + 16),
            ctx: Ctx::Timer,
            release_marks: Vec::with_capacity(n),
            timer_marks: Vec::with_capacity(cpus),
            releases: Vec::with_capacity(n),
            release_cpu: Vec::with_capacity(n),
            touched: Vec::with_capacity(cpus),
            rode: Vec::with_capacity(n),
            sink,
            trace_events: 0,
            policy_events,
            overheads,
            costs,
            deferred: BinaryHeap::with_capacity(4 * cpus + 4),
            deferred_seq: 0,
            timers_fired: 0,
        }
    }

    #[inline]
    pub fn emit(&mut self, e: &Event) {
        self.trace_events += 1;
        self.send(e);
    }

    /// Passes an event counted already to the sink, if any (see `emit!`).
    #[inline]
    pub fn send(&mut self, e: &Event) {
        if let Some(sink) = self.sink.as_mut() {
            sink(e);
        }
    }

    /// Emits an overhead interval now, or holds it back until its start.
    pub fn emit_overhead(&mut self, t: Time, cpu: u32, kind: OverheadKind, dur: Time) {
        if t <= self.now {
            self.emit_overhead_now(t, cpu, kind, dur);
        } else {
            self.deferred_seq += 1;
            self.deferred.push(Reverse((t, self.deferred_seq, cpu, kind_code(kind), dur)));
        }
    }

    pub fn deferred_capacity(&self) -> usize {
        self.deferred.capacity()
    }

    /// Emits the held-back overhead intervals that start at or before `upto`.
    #[inline]
    pub fn flush_overheads(&mut self, upto: Time) {
        if !self.deferred.is_empty() {
            self.flush_deferred(upto);
        }
    }

    fn flush_deferred(&mut self, upto: Time) {
        while let Some(&Reverse((t, _, cpu, k, dur))) = self.deferred.peek() {
            if t > upto {
                break;
            }
            self.deferred.pop();
            self.emit_overhead_now(t, cpu, code_kind(k), dur);
        }
    }

    /// Writes an overhead interval and counts it in the CPU's summary.
    fn emit_overhead_now(&mut self, t: Time, cpu: u32, kind: OverheadKind, dur: Time) {
        let k = &mut self.cpus[cpu as usize].sum.overheads[kind.index()];
        k.count += 1;
        k.total = k.total.saturating_add(dur);
        k.max = k.max.max(dur);
        emit!(self, Event::Overhead { t, cpu, kind, dur });
    }

    /// Accounts the running job's progress on `cpu` up to now.
    #[inline(always)]
    pub fn settle(&mut self, cpu: u32) {
        let c = &mut self.cpus[cpu as usize];
        if let Some(task) = c.job {
            if self.now > c.run_from {
                let d = self.now - c.run_from;
                c.run_from = self.now;
                c.sum.busy += d;
                if self.model.is_some() {
                    self.settle_modelled(cpu, task, d);
                    return;
                }
                let ts = &mut self.tasks[task as usize];
                if let Some(a) = ts.active.as_mut() {
                    a.consumed += d;
                    ts.sum.exec += d;
                    if !c.rate.is_one() {
                        slow_progress(c.rate, d, &mut ts.lost, &mut ts.carry);
                    }
                }
            }
        }
    }

    /// [`State::settle`] with the platform model: the job of `task` ran
    /// `d` ns on `cpu` until now. Out of line, so that `settle`, inlined
    /// into every switch and settlement, stays small without a model.
    #[inline(never)]
    fn settle_modelled(&mut self, cpu: u32, task: u32, d: Time) {
        let rate = self.rate_now(cpu);
        let ts = &mut self.tasks[task as usize];
        let m = self.model.as_deref_mut().expect("called with a model");
        if m.in_class(cpu) {
            if m.changed_since_mark(cpu) {
                // Its rate class's clock: the demand retired since the
                // last settlement, through every rate it had meanwhile.
                let v = m.progress(cpu, self.now);
                if let Some(a) = ts.active.as_mut() {
                    a.consumed += d;
                    ts.sum.exec += d;
                    class_progress(v, d, &mut ts.lost, &mut ts.carry);
                }
                return;
            }
            // One rate throughout, the CPU's: accounted below.
            m.mark(cpu, self.now);
        }
        if let Some(a) = ts.active.as_mut() {
            a.consumed += d;
            ts.sum.exec += d;
            if !rate.is_one() {
                slow_progress(rate, d, &mut ts.lost, &mut ts.carry);
            }
        }
        m.account(cpu, d);
    }

    /// `cpu`'s progress rate now: its own, or its rate class's ([`class_rate`]).
    #[inline(always)]
    fn rate_now(&self, cpu: u32) -> Rate {
        self.model.as_deref().and_then(|m| class_rate(m, cpu)).unwrap_or(self.cpus[cpu as usize].rate)
    }

    /// The job of `task` left `cpu` now: the platform model is told.
    #[inline]
    pub fn left_cpu(&mut self, cpu: u32, task: u32) {
        if let Some(m) = self.model.as_deref_mut() {
            if let Some(rate) = class_rate(m, cpu) {
                // Out of its class the CPU's own rate is read again: the
                // class's now, which it keeps until the model changes it.
                self.cpus[cpu as usize].rate = rate;
            }
            m.leave(task, cpu, self.now);
        }
    }

    /// After a pass changed what runs where: the platform model recomputes
    /// the CPUs' slowdowns, the progress of those that change is accounted
    /// at the old ones, the new ones apply, and CPUs whose rate changed
    /// have their completion's bound rescaled and, if their queued entry may
    /// now be late, are marked for a new prediction. O(m) CPUs, each O(its
    /// colour classes). Out of line: once per pass with a model, and
    /// inlined it made the event loop larger for every run.
    #[inline(never)]
    pub fn update_model_rates(&mut self) {
        let Some(model) = self.model.as_deref_mut().filter(|m| m.dirty()) else { return };
        if let Some(t) = self.mtt.as_deref_mut() {
            t.running(self.cpus.iter().filter_map(|c| c.job));
        }
        model.recompute();
        for i in 0..model.pending().len() {
            let c = self.model.as_deref().expect("checked").pending()[i];
            self.settle(c);
        }
        let model = self.model.as_deref_mut().expect("checked");
        let (cpus, touched, base, now) = (&mut self.cpus, &mut self.touched, &self.base_rates, self.now);
        model.commit(now, |c, old, new, in_class| {
            // In a rate class the CPU's rate is read from the model
            // (`State::rate_now`), and a lower one only delays the
            // completion: nothing to do.
            if in_class && new < old {
                return;
            }
            let cs = &mut cpus[c as usize];
            // (A CPU whose job is in a class has base rate 1.0.)
            let (old, rate) = if in_class {
                (Rate::from_micros(old), Rate::from_micros(new))
            } else {
                let b = base[c as usize];
                (scaled(b, old), scaled(b, new))
            };
            // A lower rate only delays the completion: its known lower
            // bound stays. A higher one moves the bound with it: the CPU
            // time left after `from` (the job progresses from then on)
            // scaled by old / new, without computing the completion (an
            // exact one is computed only if the bound comes before the
            // next instant, `Engine::predict_or_defer`).
            let from = cs.run_from.max(now);
            if rate > old && cs.bound > from && cs.bound != Time::MAX {
                cs.bound = from.saturating_add(old.cpu_at_least(cs.bound - from, rate));
            } else if cs.bound == Time::MAX && rate > old {
                cs.bound = 0;
            }
            cs.rate = rate;
            // A new prediction only if the queued entry may now be late:
            // a deferred CPU is looked at again after the pass anyway.
            if !cs.touched && !cs.deferred && !cs.prediction_current() {
                cs.touched = true;
                touched.push(c);
            }
        });
    }

    /// The job of `task` (number `job`) leaves `cpu` now for `reason`: its
    /// progress is settled, the switch-away written and the CPU emptied.
    pub fn vacate(&mut self, cpu: u32, task: u32, job: u64, reason: SwitchReason) {
        if let Some(t) = self.mtt.as_deref_mut() {
            t.preempted(task);
        }
        self.settle(cpu);
        self.left_cpu(cpu, task);
        let exec = self.tasks[task as usize].active.expect("an active job on the CPU").consumed;
        emit!(self, Event::SwitchAway { t: self.now, cpu, task, job, reason, exec });
        let c = &mut self.cpus[cpu as usize];
        c.job = None;
        c.bound = 0;
    }

    /// Charges `dur` of kernel work of `kind` to `cpu` from now (after any
    /// overhead already charged): the CPU's job does not progress meanwhile.
    pub fn charge(&mut self, cpu: u32, kind: OverheadKind, dur: Time) {
        if dur == 0 {
            return;
        }
        self.settle(cpu);
        let c = &mut self.cpus[cpu as usize];
        let start = c.stall_until.max(self.now);
        c.stall_until = start.saturating_add(dur);
        c.run_from = c.run_from.max(c.stall_until);
        c.sum.overhead += dur;
        let from = c.run_from;
        if let Some(m) = self.model.as_deref_mut() {
            m.mark(cpu, from);
        }
        self.emit_overhead(start, cpu, kind, dur);
    }

    /// Charges the platform model's CPMD of the job switched to on `cpu`.
    pub fn charge_reload(&mut self, cpu: u32) {
        let d = self.cpus[cpu as usize].reload;
        if d > 0 {
            if let Some(task) = self.cpus[cpu as usize].job {
                self.tasks[task as usize].sum.cpmd += d;
                self.charge(cpu, OverheadKind::Cpmd, d);
            }
        }
    }

    /// When the job running on `cpu` completes its current CPU segment if
    /// nothing changes (`None`: idle, or never at rate 0): a function of
    /// the CPU's state, which a settlement does not change (`Rate`'s
    /// arithmetic carries exactly across a split).
    #[inline(always)]
    pub(crate) fn completion_time(&self, cpu: u32) -> Option<Time> {
        let c = &self.cpus[cpu as usize];
        let t = c.job?;
        let ts = &self.tasks[t as usize];
        let a = ts.active.as_ref()?;
        let left = a.seg_until.saturating_sub(ts.work(a));
        if let Some(m) = self.model.as_deref().filter(|m| m.in_class(cpu)) {
            // A class at full speed since the mark: as any CPU at 1.0.
            // Otherwise its clock, whether or not its rate changed since
            // the mark (which did, from pass to pass, follows no pattern;
            // whether the rate is 1.0 mostly stays).
            if m.micros(cpu) != MICROS || m.changed_since_mark(cpu) {
                return Some(class_finish(m, cpu, left, ts.carry));
            }
            return Some(c.run_from.saturating_add(left));
        }
        let cpu = if c.rate.is_one() { left } else { slow_cpu_for(c.rate, left, ts.carry)? };
        Some(c.run_from.saturating_add(cpu))
    }

    /// Keeps a completion entry of `cpu` queued no later than its job's
    /// completion after its state changed. One current entry per CPU: a
    /// completion that moves later keeps the entry (it pops early and is
    /// re-queued, [`State::completion_due`]); only an earlier one pushes
    /// anew. Lazy: while the entry is not later than the CPU's `bound` (a
    /// known lower bound of the completion: the last prediction, kept
    /// through changes that can only delay it — settlements, overheads, a
    /// lower rate), the completion is not computed at all, so a rate that
    /// only drops costs nothing here. The completion handled is the same
    /// either way: it is computed exactly, from the same state, when the
    /// entry pops.
    #[inline(always)]
    pub fn predict(&mut self, cpu: u32) {
        let c = &self.cpus[cpu as usize];
        if c.prediction_current() {
            return;
        }
        let p = self.completion_time(cpu);
        self.queue_completion(cpu, p);
    }

    /// `cpu`'s completion is `p` (`State::completion_time`, `None`: never):
    /// its bound, and a new entry unless the queued one is not later.
    #[inline(always)]
    pub fn queue_completion(&mut self, cpu: u32, p: Option<Time>) {
        let c = &mut self.cpus[cpu as usize];
        c.bound = p.unwrap_or(Time::MAX);
        if let Some(p) = p {
            if !matches!(c.entry_t, Some(e) if e <= p) {
                c.gen = c.gen.wrapping_add(1);
                c.entry_t = Some(p);
                self.queue.push(p, ord(CLASS_COMPLETION, cpu as u64), Kind::Completion, cpu, c.gen);
            }
        }
    }

    /// What `cpu` runs, for the driver's execution-time timers: its job,
    /// progressing from `run_from` with the CPU time it had then.
    #[inline]
    pub fn run_of(&self, cpu: u32) -> Option<Run> {
        let c = &self.cpus[cpu as usize];
        let task = c.job?;
        let a = self.tasks[task as usize].active.as_ref()?;
        Some(Run { job: JobId { task, seq: a.seq }, from: c.run_from, consumed: a.consumed })
    }

    /// A completion entry of `cpu` popped: is it the job's completion now?
    /// If not, the entry is queued again at the completion.
    #[inline]
    pub fn completion_due(&mut self, cpu: u32, gen: u32) -> bool {
        if self.cpus[cpu as usize].gen != gen {
            return false;
        }
        let p = self.completion_time(cpu);
        let c = &mut self.cpus[cpu as usize];
        c.entry_t = None;
        match p {
            Some(p) if p <= self.now => true,
            Some(p) => {
                c.bound = p;
                c.gen = c.gen.wrapping_add(1);
                c.entry_t = Some(p);
                self.queue.push(p, ord(CLASS_COMPLETION, cpu as u64), Kind::Completion, cpu, c.gen);
                false
            }
            None => false,
        }
    }

    /// Queues the deadline check of the task's oldest unchecked job (due at
    /// `deadline`, if released).
    pub fn arm_deadline(&mut self, task: u32, deadline: Option<Time>) {
        let ts = &mut self.tasks[task as usize];
        ts.dl_gen = ts.dl_gen.wrapping_add(1);
        if let Some(d) = deadline {
            let gen = ts.dl_gen;
            self.queue.push(d.max(self.now), ord(CLASS_DEADLINE, task as u64), Kind::Deadline, task, gen);
        }
    }

    /// Attributes a rescheduling mark of `cpu` to the handling context.
    fn attribute(&mut self, cpu: u32) {
        let c = &mut self.cpus[cpu as usize];
        match self.ctx {
            Ctx::Cpu(h) => {
                if h == cpu {
                    c.local = true;
                } else {
                    c.remote = true;
                }
            }
            Ctx::Release(i) => {
                if self.overheads.is_some() {
                    self.release_marks.push((cpu, i));
                }
            }
            Ctx::Timer => self.timer_marks.push(cpu),
        }
    }

    /// The switch-aways of a round: CPUs whose job changes stop it.
    #[inline(always)]
    fn switch_away(&mut self, c: u32, next: Option<u32>) {
        let now = self.now;
        let cs = &self.cpus[c as usize];
        if next == cs.job {
            return;
        }
        self.cpus[c as usize].changed = true;
        if let Some(old) = self.cpus[c as usize].job {
            self.settle(c);
            self.left_cpu(c, old);
            let a = self.tasks[old as usize].active.as_mut().expect("running job is active");
            a.cpu = None;
            a.last_cpu = Some(c);
            let (job, exec) = (a.seq, a.consumed);
            self.tasks[old as usize].sum.preemptions += 1;
            if let Some(t) = self.mtt.as_deref_mut() {
                t.preempted(old);
            }
            let cs = &mut self.cpus[c as usize];
            cs.job = None;
            cs.bound = 0;
            emit!(self, Event::SwitchAway { t: now, cpu: c, task: old, job, reason: SwitchReason::Preempt, exec });
        }
    }

    /// The switch-tos of a round.
    #[inline(always)]
    fn switch_to(&mut self, c: u32, next: Option<u32>) {
        let now = self.now;
        let cs = &mut self.cpus[c as usize];
        if !cs.touched {
            cs.touched = true;
            self.touched.push(c);
        }
        let Some(task) = next else { return };
        if cs.job == Some(task) {
            return;
        }
        cs.job = Some(task);
        cs.bound = 0;
        cs.run_from = now.max(cs.stall_until);
        cs.switched_to = true;
        cs.sum.switches += 1;
        let ts = &mut self.tasks[task as usize];
        let a = ts.active.as_mut().expect("the driver checked the answer");
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
        let cs = &mut self.cpus[c as usize];
        cs.resume = resume;
        if let Some(m) = self.model.as_deref_mut() {
            if let Some(t) = self.mtt.as_deref_mut() {
                t.dispatched(task, job, c, resume.is_none(), now, m);
            }
            cs.reload = m.enter_job(task, c, now, resume.is_none()).ns;
            m.mark(c, cs.run_from);
        }
        emit!(self, Event::SwitchTo { t: now, cpu: c, task, job });
    }
}

impl From<ProtocolError> for SimError {
    fn from(e: ProtocolError) -> SimError {
        SimError::Policy { t: e.t, cpu: e.cpu, message: e.violation.to_string() }
    }
}

impl Host<Time> for State<'_> {
    fn now(&self) -> Time {
        self.now
    }
    fn consumed(&self, job: JobId) -> Time {
        let Some(ts) = self.tasks.get(job.task as usize) else { return 0 };
        match &ts.active {
            Some(a) if a.seq == job.seq => {
                let running = a.cpu.map_or(0, |c| self.now.saturating_sub(self.cpus[c as usize].run_from));
                a.consumed + running
            }
            _ => 0,
        }
    }
    fn running(&self, cpu: Cpu) -> Option<JobId> {
        let t = self.cpus.get(cpu as usize)?.job?;
        self.tasks[t as usize].active.map(|a| JobId { task: t, seq: a.seq })
    }
    fn switch(&mut self, cpus: &[Cpu], chosen: &[Option<JobId>]) {
        for &c in cpus {
            self.switch_away(c, chosen[c as usize].map(|j| j.task));
        }
        for &c in cpus {
            self.switch_to(c, chosen[c as usize].map(|j| j.task));
        }
    }
    fn delivering(&mut self, what: &Delivery<Time>) {
        match *what {
            Delivery::Complete(j) => self.ctx = Ctx::Cpu(self.tasks[j.task as usize].handover_cpu),
            Delivery::Release { job, x, waited } => {
                let ts = &mut self.tasks[job.id.task as usize];
                // In a leading suspension the job has no CPU segment to end.
                let (seg_until, leading) = match ts.segments.as_mut() {
                    None => (x, false),
                    Some(s) => {
                        s.activate();
                        if let Some(m) = self.model.as_deref_mut() {
                            m.phase(job.id.task, s.kind(0) == SegmentKind::Memory);
                        }
                        match s.kind(0) {
                            SegmentKind::Suspend => (Time::MAX, true),
                            _ => (s.until(0), false),
                        }
                    }
                };
                (ts.lost, ts.carry) = (0, 0);
                ts.active = Some(Active {
                    seq: job.id.seq,
                    release: job.release,
                    deadline: job.deadline,
                    consumed: 0,
                    cpu: None,
                    last_cpu: None,
                    seg: 0,
                    seg_until,
                    suspended: false,
                });
                if leading {
                    // The job blocks in a further pass at this instant, once
                    // the policy knows it.
                    let (t, task) = (self.now, job.id.task);
                    self.queue.push(t, ord(CLASS_SUSPEND, task as u64), Kind::Suspend, task, job.id.seq as u32);
                }
                let ts = &self.tasks[job.id.task as usize];
                // A job handed over after its predecessor completed is
                // handled where the predecessor completed.
                self.ctx = if waited { Ctx::Cpu(ts.handover_cpu) } else { Ctx::Release(ts.release_idx) };
            }
            Delivery::Timer { .. } => {
                self.timers_fired += 1;
                self.ctx = Ctx::Timer;
                self.timer_marks.clear();
            }
            // A preemption point, a suspension and a resumption are handled
            // on the CPU the job runs or last ran on.
            Delivery::Block(j) | Delivery::Resume(j) | Delivery::SegmentEnd { job: j, .. } => {
                let ts = &self.tasks[j.task as usize];
                let cpu = ts.active.and_then(|a| a.cpu.or(a.last_cpu)).unwrap_or(ts.home);
                self.ctx = Ctx::Cpu(cpu);
            }
        }
    }
    fn delivered(&mut self, what: &Delivery<Time>) {
        // (The attribution only decides IPIs, charged with overheads only.)
        if self.overheads.is_none() {
            return;
        }
        if let Delivery::Timer { .. } = what {
            // A timer is handled on the lowest-numbered CPU it marks.
            if let Some(&h) = self.timer_marks.iter().min() {
                for i in 0..self.timer_marks.len() {
                    let c = self.timer_marks[i];
                    let cs = &mut self.cpus[c as usize];
                    if c == h {
                        cs.local = true;
                    } else {
                        cs.remote = true;
                    }
                }
            }
        }
    }
    #[inline]
    fn marked(&mut self, cpu: Cpu) {
        // Who marked whom decides IPIs, which only an overhead model charges.
        if self.overheads.is_some() {
            self.attribute(cpu);
        }
    }
    fn progress(&self, cpu: Cpu) -> Option<Run> {
        self.run_of(cpu)
    }
    fn counters(&mut self, cpu: Cpu) -> Result<Counters, CountersUnavailable> {
        if cpu as usize >= self.cpus.len() {
            return Err(CountersUnavailable::NoSource { what: "the simulator (no such CPU)" });
        }
        let running = self.running(cpu);
        let read = match (self.counters.as_ref(), self.model.is_some()) {
            (Some(source), _) => {
                let c = &self.cpus[cpu as usize];
                let busy = c.sum.busy + if c.job.is_some() { self.now.saturating_sub(c.run_from) } else { 0 };
                source.read(&CpuView { cpu, now: self.now, running, busy })
            }
            (None, true) => {
                // The platform model's counts, up to now.
                self.settle(cpu);
                let r = self.model.as_ref().expect("checked").cpu_reading(cpu);
                Ok(Counters {
                    instructions: Some(r.instructions),
                    cycles: Some(r.cycles),
                    cache_references: Some(r.references),
                    cache_misses: Some(r.misses),
                    coherence_misses: Some(r.hitm),
                    cpu_clock: Some(self.cpus[cpu as usize].sum.busy),
                    context_switches: Some(self.cpus[cpu as usize].sum.switches),
                })
            }
            (None, false) => return Err(CountersUnavailable::NoSource { what: "the simulator" }),
        };
        // Each reading goes into the trace, so replay answers the same.
        if let (Ok(c), true) = (&read, self.policy_events) {
            let event = c.sample(running);
            emit!(self, Event::Policy { t: self.now, cpu: Some(cpu), event });
        }
        read
    }
    fn rate(&self, cpu: Cpu) -> Rate {
        if (cpu as usize) < self.cpus.len() {
            self.rate_now(cpu)
        } else {
            Rate::ONE
        }
    }
    fn tracing(&self) -> bool {
        self.policy_events
    }
    fn note(&mut self, cpu: Option<Cpu>, event: PolicyEvent) {
        if self.policy_events {
            let e = Event::Policy { t: self.now, cpu, event };
            self.emit(&e);
        }
    }
}
