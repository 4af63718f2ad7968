//! The simulator's side of the policy interface: the run's mutable state,
//! the `Kernel` services a policy calls, and the helpers that emit trace
//! events, charge overheads and predict completions.

use crate::error::SimError;
use crate::queue::{ord, Kind, Queue, CLASS_COMPLETION, CLASS_DEADLINE, CLASS_TIMER};
use crate::state::{CpuState, TaskState};
use crate::timers::Timers;
use schedlab_model::overheads::{Costs, Overheads};
use schedlab_model::Placement;
use schedlab_policy::{Cpu, JobId, Kernel, Time, TimerId};
use schedlab_trace::{Event, OverheadKind};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

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
    pub now: Time,
    pub tasks: Vec<TaskState>,
    pub cpus: Vec<CpuState>,
    pub placement: Vec<Placement>,
    pub queue: Queue,
    pub timers: Timers,
    /// CPUs marked for rescheduling in this pass, in marking order.
    pub marked: Vec<u32>,
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
    pub sink: &'a mut dyn FnMut(&Event),
    pub trace_events: u64,
    pub policy_events: bool,
    pub overheads: Option<Overheads>,
    pub costs: Costs,
    deferred: BinaryHeap<Deferred>,
    deferred_seq: u64,
    /// First protocol violation seen inside a Kernel call.
    pub error: Option<SimError>,
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

impl<'a> State<'a> {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        tasks: Vec<TaskState>,
        cpus: usize,
        placement: Vec<Placement>,
        sink: &'a mut dyn FnMut(&Event),
        policy_events: bool,
        overheads: Option<Overheads>,
        costs: Costs,
    ) -> State<'a> {
        let n = tasks.len();
        State {
            now: 0,
            tasks,
            cpus: vec![CpuState::default(); cpus],
            placement,
            queue: Queue::with_capacity(4 * (n + cpus) + 16),
            timers: Timers::default(),
            marked: Vec::with_capacity(cpus),
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
            error: None,
        }
    }

    #[inline]
    pub fn emit(&mut self, e: &Event) {
        self.trace_events += 1;
        (self.sink)(e);
    }

    /// Emits an overhead interval now, or holds it back until its start.
    pub fn emit_overhead(&mut self, t: Time, cpu: u32, kind: OverheadKind, dur: Time) {
        if t <= self.now {
            self.emit(&Event::Overhead { t, cpu, kind, dur });
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
            self.emit(&Event::Overhead { t, cpu, kind: code_kind(k), dur });
        }
    }

    /// Accounts the running job's progress on `cpu` up to now.
    pub fn settle(&mut self, cpu: u32) {
        let c = &mut self.cpus[cpu as usize];
        if let Some(task) = c.job {
            if self.now > c.run_from {
                let d = self.now - c.run_from;
                c.run_from = self.now;
                c.sum.busy += d;
                if let Some(a) = self.tasks[task as usize].active.as_mut() {
                    a.consumed += d;
                }
            }
        }
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
        self.emit_overhead(start, cpu, kind, dur);
    }

    /// Updates the completion prediction of `cpu` after its state changed.
    /// One current entry per CPU: a prediction that moves later keeps the
    /// entry (re-queued when it pops early); only an earlier one pushes anew.
    pub fn predict(&mut self, cpu: u32) {
        let c = &mut self.cpus[cpu as usize];
        c.predicted = c.job.and_then(|t| {
            let a = self.tasks[t as usize].active.as_ref()?;
            Some(c.run_from.saturating_add(a.exec.saturating_sub(a.consumed)))
        });
        if let Some(p) = c.predicted {
            if !matches!(c.entry_t, Some(e) if e <= p) {
                c.gen = c.gen.wrapping_add(1);
                c.entry_t = Some(p);
                self.queue.push(p, ord(CLASS_COMPLETION, cpu as u64), Kind::Completion, cpu, c.gen);
            }
        }
    }

    /// A completion entry of `cpu` popped: is it the job's completion now?
    pub fn completion_due(&mut self, cpu: u32, gen: u32) -> bool {
        let c = &mut self.cpus[cpu as usize];
        if c.gen != gen {
            return false;
        }
        c.entry_t = None;
        match c.predicted {
            Some(p) if p <= self.now => true,
            Some(p) => {
                c.gen = c.gen.wrapping_add(1);
                c.entry_t = Some(p);
                self.queue.push(p, ord(CLASS_COMPLETION, cpu as u64), Kind::Completion, cpu, c.gen);
                false
            }
            None => false,
        }
    }

    /// Queues the deadline check of the task's oldest unchecked job, if released.
    pub fn arm_deadline(&mut self, task: u32) {
        let ts = &mut self.tasks[task as usize];
        ts.dl_gen = ts.dl_gen.wrapping_add(1);
        if let Some(d) = ts.deadline_of(ts.dl_seq) {
            let gen = ts.dl_gen;
            self.queue.push(d.max(self.now), ord(CLASS_DEADLINE, task as u64), Kind::Deadline, task, gen);
        }
    }

    fn policy_error(&mut self, message: String) {
        if self.error.is_none() {
            self.error = Some(SimError::Policy { t: self.now, cpu: None, message });
        }
    }

    /// Marks `cpu` for rescheduling with the current handling context.
    pub fn mark(&mut self, cpu: u32) {
        let c = &mut self.cpus[cpu as usize];
        if !c.marked {
            c.marked = true;
            self.marked.push(cpu);
        }
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
}

impl Kernel for State<'_> {
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
    fn resched(&mut self, cpu: Cpu) {
        if (cpu as usize) < self.cpus.len() {
            self.mark(cpu);
        } else {
            let m = self.cpus.len();
            self.policy_error(format!("resched({cpu}) names a CPU the platform does not have (CPUs 0..{m})"));
        }
    }
    fn arm(&mut self, at: Time, tag: u64) -> TimerId {
        let (slot, gen, id) = self.timers.arm(tag);
        let seq = self.timers.next_seq;
        self.timers.next_seq += 1;
        self.queue.push(at.max(self.now), ord(CLASS_TIMER, seq & ((1 << 56) - 1)), Kind::Timer, slot, gen);
        id
    }
    fn cancel(&mut self, timer: TimerId) {
        self.timers.cancel(timer);
    }
    fn tracing(&self) -> bool {
        self.policy_events
    }
    fn note(&mut self, cpu: Option<Cpu>, name: &'static str, data: serde_json::Value) {
        if self.policy_events {
            let e = Event::Policy { t: self.now, cpu, name: name.to_string(), data };
            self.emit(&e);
        }
    }
}
