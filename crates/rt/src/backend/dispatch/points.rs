//! A dispatch worker's segment boundaries ([`PointHost`]): preemption
//! points and self-suspensions, reported to the dispatcher, which delivers
//! them to the policy through the driver (`segment_end`, `block`, `resume`)
//! and records them in the trace (`segment-end`, `block`, `resume`, as the
//! simulator does).
//!
//! - A **preemption point** costs one relaxed load of the job's `want`
//!   flag, which the dispatcher raises only while a job that outranks it
//!   waits for its domain (under a policy that preempts at points only). A
//!   wanted point is a numbered request (its segment, time and CPU, then its
//!   number, then the doorbell); the worker waits for the dispatcher's
//!   answer, with the preemption signal blocked. If the policy takes the
//!   CPU, the dispatcher holds the worker (gate, preemption signal) before
//!   it answers; the worker sees the changed gate, ends its running stint
//!   at the point and waits until the job is dispatched again. Otherwise
//!   the job goes on.
//! - A **self-suspension** ends the running stint itself (a `block`
//!   switch-away), with the preemption signal blocked, reports the block and
//!   waits until it was carried out (the CPU is given away and the worker
//!   held), sleeps for the suspension's length, reports the resume and
//!   waits to be dispatched again; then it opens a stint on its new CPU.
//!
//! Every wait also ends when the run stops (the gate says exit or the stop
//! flag is set), checked every millisecond.

use super::sync::{self, End, Local, Request, Shared, NO_SEGMENT};
use crate::clock;
use crate::point::PointHost;
use crate::stop::Stop;
use schedlab_model::SegmentKind;
use std::cell::Cell;
use std::sync::atomic::{AtomicU32, Ordering};

/// How often a waiting worker checks for the end of the run.
const POLL_NS: u64 = 1_000_000;

/// The segment kind's code in `Shared::req_kind`.
pub(super) fn kind_code(k: SegmentKind) -> u32 {
    match k {
        SegmentKind::Exec => 0,
        SegmentKind::Memory => 1,
        SegmentKind::Suspend => 2,
    }
}

pub(super) fn kind_of(code: u32) -> SegmentKind {
    match code {
        1 => SegmentKind::Memory,
        2 => SegmentKind::Suspend,
        _ => SegmentKind::Exec,
    }
}

/// A worker's side of its job's segment boundaries.
pub(super) struct WorkerPoints<'a> {
    pub shared: &'a Shared,
    pub bell: &'a AtomicU32,
    pub stop: &'a Stop,
    /// The worker's local state (stints); touched only with the preemption
    /// signal blocked, as the job loop does.
    pub local: *mut Local,
    /// Requests made so far (the next one's number is this + 1).
    pub made: Cell<u64>,
}

impl WorkerPoints<'_> {
    fn ending(&self) -> bool {
        self.stop.is_set() || sync::state(self.shared.gate.load(Ordering::Acquire)) == sync::EXIT
    }

    /// Posts a request and waits until the dispatcher carried it out.
    fn request(&self, what: Request, t: u64, ended: Option<(u32, SegmentKind)>) {
        let sh = self.shared;
        let n = self.made.get() + 1;
        self.made.set(n);
        sh.req_what.store(what as u32, Ordering::Relaxed);
        sh.req_t.store(t, Ordering::Relaxed);
        sh.req_cpu.store(clock::current_cpu(), Ordering::Relaxed);
        sh.req_seg.store(ended.map_or(NO_SEGMENT, |e| e.0), Ordering::Relaxed);
        sh.req_kind.store(ended.map_or(0, |e| kind_code(e.1)), Ordering::Relaxed);
        sh.req.store(n, Ordering::Release);
        self.bell.fetch_add(1, Ordering::Release);
        sync::futex_wake(self.bell);
        loop {
            let a = sh.ack.load(Ordering::Acquire);
            if a == n as u32 || self.ending() {
                break;
            }
            sync::futex_wait(&sh.ack, a, Some(clock::now() + POLL_NS));
        }
    }

    /// Waits until the gate says "run" (or the run ends).
    fn dispatched(&self) {
        let sh = self.shared;
        loop {
            let g = sh.gate.load(Ordering::Acquire);
            if sync::run_cpu(g).is_some() || self.ending() {
                break;
            }
            sync::futex_wait(&sh.gate, g, Some(clock::now() + POLL_NS));
        }
    }
}

impl PointHost for WorkerPoints<'_> {
    #[inline]
    fn wanted(&self) -> bool {
        self.shared.want.load(Ordering::Relaxed) != 0
    }

    fn reached(&self, segment: u32, kind: SegmentKind) {
        // The worker waits for the answer off the CPU (a futex wait), so
        // when the policy takes its CPU the job it gets may run there
        // before this worker is scheduled again, at the same priority:
        // the preemption signal's handler would then end the stint only
        // when that job stops (a real G-FPDS run recorded the switch-away
        // 16 ms late, two jobs on one CPU in the trace). The worker
        // therefore handles its own preemption at a point, with the signal
        // blocked: a gate changed while it waited means it was held, and
        // its stint ends at the point.
        sync::block_preempt(true);
        let sh = self.shared;
        let before = sh.gate.load(Ordering::Acquire);
        let t = clock::now();
        self.request(Request::Point, t, Some((segment, kind)));
        let after = sh.gate.load(Ordering::Acquire);
        if after != before && !self.ending() {
            // SAFETY: the worker's Local outlives the job body; the
            // preemption signal (whose handler also touches it) is blocked.
            let local = unsafe { &mut *self.local };
            local.close(t, End::Preempt, sh.hold_cmd_t.load(Ordering::Relaxed));
            self.dispatched();
            let local = unsafe { &mut *self.local };
            local.open(clock::now(), clock::current_cpu(), sh.run_cmd_t.load(Ordering::Relaxed));
        }
        // A preemption signal sent meanwhile finds the worker dispatched on
        // the CPU of its open stint: the handler does nothing.
        sync::block_preempt(false);
    }

    fn suspend(&self, ended: Option<(u32, SegmentKind)>, ns: u64) {
        sync::block_preempt(true);
        let t = clock::now();
        // SAFETY: the worker's Local outlives the job body; the preemption
        // signal (whose handler also touches it) is blocked.
        let local = unsafe { &mut *self.local };
        local.close(t, End::Block, 0);
        self.request(Request::Block, t, ended);
        clock::sleep_until(t + ns);
        self.request(Request::Resume, clock::now(), None);
        self.dispatched();
        let local = unsafe { &mut *self.local };
        local.open(clock::now(), clock::current_cpu(), self.shared.run_cmd_t.load(Ordering::Relaxed));
        // A preemption signal sent meanwhile (the switch-away after the
        // block) finds the worker dispatched on the CPU of its open stint:
        // the handler does nothing.
        sync::block_preempt(false);
    }
}
