//! The global job-level priority-driven scheduler of one domain, after
//! LITMUS^RT's GSN-EDF "linking" design (Brandenburg & Anderson): the policy
//! keeps, for each CPU of the domain, the job that CPU *should* run (its
//! linked job); the driver makes the CPUs run their linked jobs when it calls
//! [`Domain::schedule`].
//!
//! State, all preallocated at construction (at most one eligible job per
//! task, so storage is per task):
//! - a ready queue of waiting jobs by the order's waiting key
//!   ([`crate::ready`]): an indexed binary min-heap (task ids, so removal
//!   is O(log n)), in small domains a flat array with the most urgent kept
//!   at hand, or for fixed priorities the O(1) level bitmap;
//! - the linked job of each CPU;
//! - the CPU order ([`crate::cpu_order`]), whose first is the CPU to give
//!   work to first: idle CPUs (lowest index first), then linked CPUs from
//!   the lowest-priority job (largest running key) up. Found in O(1);
//!   updated in O(log k) by a heap, or in small domains in O(1) (a rescan
//!   of the few linked CPUs now and then).
//!
//! Which design a domain uses is a type parameter, chosen for all domains
//! of a policy at once ([`crate::engine`]); both make the same choices.
//!
//! Events:
//! - release / resume: the job joins the ready queue, then [`balance`];
//! - completion / block: the job leaves its CPU (which goes idle) or the ready
//!   queue, then [`balance`];
//! - balance: while a job waits, give the top-of-CPU-heap CPU to the top
//!   waiting job if that CPU is idle, or if the order says the waiting job
//!   displaces the CPU's linked job (which goes back to the ready queue);
//!   otherwise stop. From a balanced state one event needs at most one or
//!   two rounds, so each event costs O(log n + log k).
//!
//! Only CPUs whose linked job changed are marked for rescheduling. A job that
//! is still running on a CPU of the domain when it is linked again (it was
//! displaced and comes back within the same instant) is linked to that CPU,
//! swapping with the job linked there, so that it does not migrate for
//! nothing.
//!
//! Non-preemptive policies use an order that never displaces: only idle
//! CPUs take work.
//!
//! Deferred preemption (FPDS, G-FPDS), push model: a release is queued at
//! once, as under full preemption, but a started job's CPU is committed
//! like a non-preemptive one, so the release cannot displace it. At the
//! job's preemption point ([`Domain::segment_end`]) its CPU is uncommitted
//! (its real running key) and rebalanced: it yields only if a more urgent
//! job is waiting then, and otherwise is committed again when the driver
//! asks `schedule` at the end of the instant (so a release at the very
//! instant of the point still gets in, as under the response-time
//! analysis). Under G-FPDS the first running job to reach a point while a
//! more urgent job waits is the one that yields (not necessarily the
//! lowest-priority running job, whose CPU is committed). The final segment
//! has no point after it: it runs to completion. LLF arms one domain timer for the instant the top waiting
//! job would displace the lowest-priority linked job ([`Order::displaces_at`]);
//! EDZL arms a timer per waiting job for the instant its key changes
//! ([`Order::rekey_at`]).
//!
//! [`balance`]: Domain::balance

use crate::cpu_order::CpuOrder;
use crate::interface::{Cpu, Job, JobId, Kernel, PolicyEvent, Preemption, Time, TimerId};
use crate::order::Order;
use crate::ready::ReadyQueue;
use std::marker::PhantomData;

/// Timer tags: a job timer carries its task index, a domain timer this bit
/// and the domain index.
pub(crate) const DOMAIN_TAG: u64 = 1 << 63;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// No current job.
    Absent,
    /// In the ready queue.
    Waiting,
    /// Linked to this local CPU.
    Linked(u32),
    /// Blocked: not eligible.
    Blocked,
}

#[derive(Debug, Clone)]
struct Slot {
    job: Option<Job>,
    state: State,
    /// The job's key-change timer (EDZL), while it waits.
    timer: Option<TimerId>,
    /// The local CPU `schedule` last handed this job to.
    last_cpu: Option<u32>,
}

/// The consumed execution of a job, if the order uses it.
#[inline]
fn consumed<O: Order>(k: &dyn Kernel, id: JobId) -> Time {
    if O::USES_CONSUMED {
        k.consumed(id)
    } else {
        0
    }
}

/// The time, if the order uses it (a call through the kernel otherwise spared).
#[inline]
fn now<O: Order>(k: &dyn Kernel) -> Time {
    if O::USES_NOW {
        k.now()
    } else {
        0
    }
}

/// One scheduling domain: its CPUs and its tasks, by local index.
pub(crate) struct Domain<K: Ord + Copy, R: Ord + Copy, Q, C> {
    index: u32,
    /// Local CPU → CPU number.
    cpus: Vec<Cpu>,
    /// Local task → task index in the spec.
    tasks: Vec<u32>,
    slots: Vec<Slot>,
    /// Local CPU → local task linked to it.
    linked: Vec<Option<u32>>,
    ready: Q,
    /// The CPU to give work to first: idle CPUs (lowest index first), then
    /// linked CPUs from the lowest-priority linked job up ([`Order::rank`];
    /// ties by local CPU index).
    cpu_order: C,
    /// Local CPU → key of its linked job (`O::COMMITTED` once a
    /// non-preemptive job started; meaningless while idle).
    cpu_key: Vec<K>,
    /// The domain timer and its expiry.
    timer: Option<(TimerId, Time)>,
    /// A job is committed when it starts (non-preemptive and deferred
    /// preemption).
    commits: bool,
    _rank: PhantomData<R>,
}

impl<K: Ord + Copy, R: Ord + Copy, Q: ReadyQueue<K>, C: CpuOrder<R>> Domain<K, R, Q, C> {
    /// A domain with these CPUs and tasks and this (empty) ready queue for
    /// the tasks.
    pub fn new<O: Order<Key = K, Rank = R>>(
        index: u32,
        cpus: Vec<Cpu>,
        tasks: Vec<u32>,
        ready: Q,
        order: &O,
    ) -> Domain<K, R, Q, C> {
        let n = tasks.len();
        let k = cpus.len();
        let cpu_order = C::new(k, O::rank(None));
        Domain {
            index,
            cpus,
            tasks,
            slots: vec![Slot { job: None, state: State::Absent, timer: None, last_cpu: None }; n],
            linked: vec![None; k],
            ready,
            cpu_order,
            cpu_key: vec![O::COMMITTED; k],
            timer: None,
            commits: order.conformance().preemption() != Preemption::Full,
            _rank: PhantomData,
        }
    }

    fn holds(&self, t: u32, id: JobId) -> bool {
        self.slots[t as usize].job.is_some_and(|j| j.id == id)
    }

    pub fn release<O: Order<Key = K, Rank = R>>(&mut self, t: u32, job: Job, o: &O, k: &mut dyn Kernel) {
        if self.slots[t as usize].job.is_some() {
            // The driver releases a job only after its predecessor completed;
            // should it not, the predecessor is dropped.
            self.leave::<O>(t, k);
        }
        self.slots[t as usize].job = Some(job);
        if !O::USES_NOW && self.ready.peek().is_none() {
            if let Some(c) = self.cpu_order.first() {
                if self.linked[c as usize].is_none() {
                    // What `balance` would do with the job alone in the
                    // ready queue and an idle CPU on top: link it there
                    // (without a key that changes with time, entering the
                    // ready queue leaves no trace).
                    self.link(t, c, o, k);
                    return;
                }
            }
        }
        self.enqueue(t, o, k);
        self.balance(o, k);
    }

    pub fn complete<O: Order<Key = K, Rank = R>>(&mut self, t: u32, id: JobId, o: &O, k: &mut dyn Kernel) {
        if !self.holds(t, id) {
            return;
        }
        self.leave::<O>(t, k);
        let s = &mut self.slots[t as usize];
        s.job = None;
        s.state = State::Absent;
        s.last_cpu = None;
        self.balance(o, k);
    }

    pub fn block<O: Order<Key = K, Rank = R>>(&mut self, t: u32, id: JobId, o: &O, k: &mut dyn Kernel) {
        if !self.holds(t, id) || self.slots[t as usize].state == State::Blocked {
            return;
        }
        self.leave::<O>(t, k);
        self.slots[t as usize].state = State::Blocked;
        self.balance(o, k);
    }

    pub fn resume<O: Order<Key = K, Rank = R>>(&mut self, t: u32, id: JobId, o: &O, k: &mut dyn Kernel) {
        if !self.holds(t, id) || self.slots[t as usize].state != State::Blocked {
            return;
        }
        self.enqueue(t, o, k);
        self.balance(o, k);
    }

    /// A job timer fired: the waiting job's key changed.
    pub fn job_timer<O: Order<Key = K, Rank = R>>(&mut self, t: u32, timer: TimerId, o: &O, k: &mut dyn Kernel) {
        let s = &mut self.slots[t as usize];
        if s.timer != Some(timer) {
            return;
        }
        s.timer = None;
        if s.state == State::Waiting {
            let job = s.job.expect("waiting job");
            let key = o.waiting(&job, consumed::<O>(k, job.id), k.now());
            self.ready.set(t, key);
            self.arm_rekey(t, o, k);
            self.balance(o, k);
        }
    }

    /// The job reached a preemption point (under deferred preemption): its
    /// CPU is uncommitted and rebalanced (see the module comment). When the
    /// job loses its CPU there, the point was taken: a `preemption-point`
    /// policy event on that CPU.
    pub fn segment_end<O: Order<Key = K, Rank = R>>(
        &mut self,
        t: u32,
        id: JobId,
        segment: u32,
        o: &O,
        k: &mut dyn Kernel,
    ) {
        if !self.holds(t, id) {
            return;
        }
        let State::Linked(c) = self.slots[t as usize].state else { return };
        let job = self.slots[t as usize].job.expect("linked job");
        let key = o.running(&job, consumed::<O>(k, job.id), now::<O>(k));
        self.cpu_key[c as usize] = key;
        self.cpu_order.set_linked(c, O::rank(Some(key)));
        k.resched(self.cpus[c as usize]);
        self.balance(o, k);
        if k.tracing() && self.slots[t as usize].state != State::Linked(c) {
            k.note(Some(self.cpus[c as usize]), PolicyEvent::PreemptionPoint { task: id.task, job: id.seq, segment });
        }
    }

    /// The domain timer fired.
    pub fn domain_timer<O: Order<Key = K, Rank = R>>(&mut self, timer: TimerId, o: &O, k: &mut dyn Kernel) {
        if self.timer.map(|(id, _)| id) != Some(timer) {
            return;
        }
        self.timer = None;
        self.balance(o, k);
    }

    /// The job linked to local CPU `c`; the driver runs it from now on.
    ///
    /// Under a non-preemptive order the job is committed here, when it
    /// starts, not when it was linked: until the end of the instant a more
    /// urgent job released at the same instant may still take its place
    /// (NP-G-EDF picks the most urgent job among all of the instant's
    /// releases). A committed job's CPU gets the most urgent possible key, so
    /// it is never displaced.
    pub fn schedule<O: Order<Key = K, Rank = R>>(&mut self, c: u32, _o: &O) -> Option<JobId> {
        let t = self.linked[c as usize]?;
        let s = &mut self.slots[t as usize];
        s.last_cpu = Some(c);
        if self.commits {
            self.cpu_key[c as usize] = O::COMMITTED;
            self.cpu_order.set_linked(c, O::rank(Some(O::COMMITTED)));
        }
        s.job.map(|j| j.id)
    }

    /// The job makes room: off its CPU or out of the ready queue.
    #[inline]
    fn leave<O: Order<Key = K, Rank = R>>(&mut self, t: u32, k: &mut dyn Kernel) {
        match self.slots[t as usize].state {
            State::Waiting => {
                self.ready.remove(t);
                self.cancel_rekey(t, k);
            }
            State::Linked(c) => self.unlink::<O>(c, k),
            State::Absent | State::Blocked => {}
        }
    }

    #[inline]
    fn enqueue<O: Order<Key = K, Rank = R>>(&mut self, t: u32, o: &O, k: &mut dyn Kernel) {
        let job = self.slots[t as usize].job.expect("enqueued job");
        let key = o.waiting(&job, consumed::<O>(k, job.id), now::<O>(k));
        self.slots[t as usize].state = State::Waiting;
        self.ready.set(t, key);
        self.arm_rekey(t, o, k);
    }

    #[inline]
    fn arm_rekey<O: Order<Key = K, Rank = R>>(&mut self, t: u32, o: &O, k: &mut dyn Kernel) {
        self.cancel_rekey(t, k);
        if !O::USES_NOW {
            // A key that does not change with time is never re-keyed.
            return;
        }
        let job = self.slots[t as usize].job.expect("waiting job");
        let now = k.now();
        if let Some(at) = o.rekey_at(&job, consumed::<O>(k, job.id), now) {
            let id = k.arm(at.max(now), self.tasks[t as usize] as u64);
            self.slots[t as usize].timer = Some(id);
        }
    }

    #[inline]
    fn cancel_rekey(&mut self, t: u32, k: &mut dyn Kernel) {
        if let Some(id) = self.slots[t as usize].timer.take() {
            k.cancel(id);
        }
    }

    #[inline(always)]
    fn unlink<O: Order<Key = K, Rank = R>>(&mut self, c: u32, k: &mut dyn Kernel) {
        if let Some(t) = self.linked[c as usize].take() {
            self.slots[t as usize].state = State::Absent;
        }
        self.cpu_order.set_idle(c, O::rank(None));
        k.resched(self.cpus[c as usize]);
    }

    #[inline(always)]
    fn set_link<O: Order<Key = K, Rank = R>>(&mut self, t: u32, c: u32, o: &O, k: &mut dyn Kernel) {
        let job = self.slots[t as usize].job.expect("linked job");
        let key = o.running(&job, consumed::<O>(k, job.id), now::<O>(k));
        self.linked[c as usize] = Some(t);
        self.slots[t as usize].state = State::Linked(c);
        self.cpu_key[c as usize] = key;
        self.cpu_order.set_linked(c, O::rank(Some(key)));
        k.resched(self.cpus[c as usize]);
    }

    /// Links waiting job `t` (already out of the ready queue) to CPU `c`,
    /// which is idle; if `t` still runs on another CPU of the domain, it goes
    /// there instead and that CPU's linked job (if any) comes to `c`.
    #[inline]
    fn link<O: Order<Key = K, Rank = R>>(&mut self, t: u32, c: u32, o: &O, k: &mut dyn Kernel) {
        self.cancel_rekey(t, k);
        let mut target = c;
        let s = &self.slots[t as usize];
        if let (Some(c2), Some(job)) = (s.last_cpu, s.job) {
            if c2 != c && k.running(self.cpus[c2 as usize]) == Some(job.id) {
                match self.linked[c2 as usize] {
                    None => target = c2,
                    Some(other) if other != t => {
                        self.set_link(other, c, o, k);
                        target = c2;
                    }
                    Some(_) => {}
                }
            }
        }
        self.set_link(t, target, o, k);
    }

    /// Gives CPUs to waiting jobs while one should have one (see the module
    /// comment), then re-arms the domain timer. With no job waiting and no
    /// timer to re-arm (orders whose keys do not change with time) there is
    /// nothing to do, which is decided here without a call.
    #[inline(always)]
    fn balance<O: Order<Key = K, Rank = R>>(&mut self, o: &O, k: &mut dyn Kernel) {
        if !O::USES_NOW && self.ready.peek().is_none() {
            return;
        }
        self.rebalance(o, k);
    }

    /// [`Domain::balance`]'s work.
    fn rebalance<O: Order<Key = K, Rank = R>>(&mut self, o: &O, k: &mut dyn Kernel) {
        let now = now::<O>(k);
        while let (Some((t, w)), Some(c)) = (self.ready.peek(), self.cpu_order.first()) {
            if self.linked[c as usize].is_some() {
                if !o.displaces(&w, &self.cpu_key[c as usize], now) {
                    break;
                }
                let victim = self.linked[c as usize].expect("linked CPU");
                self.ready.pop();
                self.unlink::<O>(c, k);
                self.link(t, c, o, k);
                self.enqueue(victim, o, k);
            } else {
                self.ready.pop();
                self.link(t, c, o, k);
            }
        }
        self.rearm(o, k);
    }

    fn rearm<O: Order<Key = K, Rank = R>>(&mut self, o: &O, k: &mut dyn Kernel) {
        if !O::USES_NOW {
            // No domain timer: the order never displaces later by itself.
            return;
        }
        let now = k.now();
        let want = match (self.ready.peek(), self.cpu_order.first()) {
            (Some((_, w)), Some(c)) if self.linked[c as usize].is_some() => {
                o.displaces_at(&w, &self.cpu_key[c as usize], now).map(|at| at.max(now + 1))
            }
            _ => None,
        };
        match (self.timer, want) {
            (Some((_, at)), Some(w)) if at == w => {}
            (current, want) => {
                if let Some((id, _)) = current {
                    k.cancel(id);
                }
                self.timer = want.map(|at| (k.arm(at, DOMAIN_TAG | self.index as u64), at));
            }
        }
    }
}
