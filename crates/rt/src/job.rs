//! What a job body sees: [`JobCtx`] (the job's identity, release, deadline,
//! the execution time it should consume, calibrated spinning, cooperative
//! checks and timing-exception scopes) and [`JobError`].
//!
//! ```no_run
//! use schedlab_rt::job::{JobCtx, JobError};
//! fn body(ctx: &mut JobCtx) -> Result<(), JobError> {
//!     // The decoder gets 2 ms of CPU; on a violation, fall back.
//!     match ctx.try_wcet(2_000_000, |ctx| { ctx.spin(1_500_000)?; Ok(()) })? {
//!         Ok(()) => {}
//!         Err(violation) => eprintln!("{violation}"),
//!     }
//!     ctx.check() // stop, abort-at-deadline and outer scopes
//! }
//! ```
//!
//! A labelled scope (benchmark mode records its duration under the label)
//! with a protected section, whose violation is raised at its end:
//!
//! ```no_run
//! use schedlab_rt::job::{JobCtx, JobError};
//! fn body(ctx: &mut JobCtx) -> Result<(), JobError> {
//!     match ctx.try_wcet_labelled("decode", 2_000_000, |ctx| {
//!         ctx.spin(500_000)?;
//!         ctx.protected(|ctx| ctx.spin(100_000))?; // not interrupted
//!         ctx.spin(1_000_000)
//!     })? {
//!         Ok(()) => Ok(()),
//!         Err(v) => {
//!             eprintln!("fallback: {v}, {} ns late", v.lateness);
//!             Ok(())
//!         }
//!     }
//! }
//! ```

use crate::calibrate::Calibration;
use crate::clock;
use crate::point::PointHost;
use crate::stop::Stop;
use crate::timing::{Limit, Mode, Scope, ScopeTime, Violation};
use crate::workload::spin;
use schedlab_jobs::SegmentDemand;
use schedlab_model::SegmentKind;

/// Why a job body ended early.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobError {
    /// A timing constraint of an enclosing scope was violated.
    Timing(Violation),
    /// The overrun policy `abort` ended the job at its deadline.
    Aborted,
    /// The run is ending.
    Stopped,
    /// The body failed (its message); the run ends.
    Failed(String),
}

impl std::fmt::Display for JobError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JobError::Timing(v) => write!(f, "timing exception: {v}"),
            JobError::Aborted => write!(f, "aborted at its deadline"),
            JobError::Stopped => write!(f, "the run is ending"),
            JobError::Failed(m) => write!(f, "{m}"),
        }
    }
}

/// Spin granularity between checks: about 20 µs of CPU time.
const CHUNK_NS: u64 = 20_000;

/// A running job.
pub struct JobCtx<'a> {
    /// The task's index in the spec.
    pub task: u32,
    /// The job's 0-based number.
    pub job: u64,
    /// Release (CLOCK_MONOTONIC ns).
    pub release: u64,
    /// Absolute deadline (CLOCK_MONOTONIC ns).
    pub deadline: u64,
    /// The execution time this job should consume (ns of thread CPU time).
    pub exec: u64,
    /// The task's WCET (ns).
    pub wcet: u64,
    /// The job's segments as the job model drew them (the same demands as
    /// in a simulation with the same seed; their CPU demands add up to
    /// `exec`); empty when the task declares none or the backend does not
    /// run segments (see [`JobCtx::run_segments`]).
    pub segments: &'a [SegmentDemand],
    /// The segment the job is in (0-based; a preemption point ends it).
    pub segment: u32,
    pub(crate) points: Option<&'a dyn PointHost>,
    pub(crate) stop: &'a Stop,
    pub(crate) abort_at: Option<u64>,
    pub(crate) calibration: &'a Calibration,
    pub(crate) mode: Mode,
    pub(crate) scopes: Vec<Scope>,
    next_scope: u64,
    /// Protected-section nesting depth (0: not in one).
    protect: u32,
    /// SIGXCPU count of the thread when the job started ([`crate::overrun`]).
    overruns0: u64,
    /// Thread CPU time when the job started.
    cpu0: u64,
    /// Whether `check` reported the SCHED_DEADLINE overrun.
    pub(crate) overrun_reported: bool,
    /// Timing exceptions raised (the worker records them in the trace).
    pub(crate) raised: Vec<Violation>,
    /// Benchmark mode: the durations of the scopes that ended.
    pub(crate) scope_times: Vec<ScopeTime>,
}

impl<'a> JobCtx<'a> {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        task: u32,
        job: u64,
        release: u64,
        deadline: u64,
        exec: u64,
        wcet: u64,
        stop: &'a Stop,
        abort_at: Option<u64>,
        calibration: &'a Calibration,
    ) -> JobCtx<'a> {
        JobCtx {
            task,
            job,
            release,
            deadline,
            exec,
            wcet,
            segments: &[],
            segment: 0,
            points: None,
            stop,
            abort_at,
            calibration,
            mode: Mode::Cooperative,
            scopes: Vec::new(),
            next_scope: 1,
            protect: 0,
            overruns0: crate::overrun::count(),
            cpu0: clock::thread_cpu(),
            overrun_reported: false,
            raised: Vec::new(),
            scope_times: Vec::new(),
        }
    }

    /// A context for using job bodies outside a run (tests, benchmarks).
    pub fn detached(exec: u64, calibration: &'a Calibration, stop: &'a Stop) -> JobCtx<'a> {
        let now = clock::now();
        JobCtx::new(0, 0, now, u64::MAX, exec, exec, stop, None, calibration)
    }

    /// The job's segments and the backend's preemption points (the dispatch backend).
    pub(crate) fn with_points(
        mut self,
        segments: &'a [SegmentDemand],
        points: Option<&'a dyn PointHost>,
    ) -> JobCtx<'a> {
        self.segments = segments;
        self.points = points;
        self
    }

    /// A preemption point: the job ends its current segment here and goes
    /// on with the next. On the dispatch backend under a policy that
    /// preempts only at points (`fpds`, `g-fpds`), a job that no
    /// higher-priority job waits for pays one atomic load; otherwise the
    /// worker reports the point to the dispatcher, whose policy decides
    /// (`Policy::segment_end`), and the job is switched away here or goes
    /// on. Elsewhere it only counts the segment. Then [`JobCtx::check`].
    #[inline]
    pub fn preemption_point(&mut self) -> Result<(), JobError> {
        let seg = self.segment;
        self.segment += 1;
        if let Some(h) = self.points {
            if h.wanted() {
                h.reached(seg, self.kind_of(seg));
            }
        }
        self.check()
    }

    /// A self-suspension of `ns` (wall-clock time): on the dispatch
    /// backend the job ends its current CPU segment, blocks (the policy's
    /// `block`; its CPU goes to another job), sleeps, resumes (`resume`)
    /// and returns once dispatched again. Called in a CPU segment, the
    /// suspension is the next segment; called at a declared `suspend`
    /// segment ([`JobCtx::run_segments`]), it is that one. Without the
    /// dispatch backend it returns at once (the CPU segments run back to
    /// back, as the kernel backend runs them).
    pub fn suspend(&mut self, ns: u64) -> Result<(), JobError> {
        let seg = self.segment;
        let at_declared = self.segments.get(seg as usize).is_some_and(|s| s.kind == SegmentKind::Suspend);
        let ended = if at_declared {
            (seg > 0 && self.kind_of(seg - 1).on_cpu()).then(|| (seg - 1, self.kind_of(seg - 1)))
        } else {
            Some((seg, self.kind_of(seg)))
        };
        self.segment = if at_declared { seg + 1 } else { seg + 2 };
        if let Some(h) = self.points {
            h.suspend(ended, ns);
        }
        self.check()
    }

    /// Runs the job's segments in order: `cpu(ctx, demand, kind)` for each
    /// execution or memory segment, a preemption point between two CPU
    /// segments, [`JobCtx::suspend`] for each `suspend` segment. A job
    /// without segments runs `cpu(ctx, exec, exec)` once.
    pub fn run_segments(
        &mut self,
        mut cpu: impl FnMut(&mut Self, u64, SegmentKind) -> Result<(), JobError>,
    ) -> Result<(), JobError> {
        let segs = self.segments;
        if segs.is_empty() {
            return cpu(self, self.exec, SegmentKind::Exec);
        }
        for (i, s) in segs.iter().enumerate() {
            if i > 0 && s.kind.on_cpu() && segs[i - 1].kind.on_cpu() {
                self.segment = i as u32 - 1;
                self.preemption_point()?;
            }
            self.segment = i as u32;
            if s.kind.on_cpu() {
                cpu(self, s.demand, s.kind)?;
            } else {
                self.suspend(s.demand)?;
            }
        }
        Ok(())
    }

    fn kind_of(&self, seg: u32) -> SegmentKind {
        self.segments.get(seg as usize).map_or(SegmentKind::Exec, |s| s.kind)
    }

    /// How the timing scopes opened from now on behave: cooperative,
    /// asynchronous notification or benchmark (see [`crate::timing`]).
    pub fn set_timing_mode(&mut self, mode: Mode) {
        self.mode = mode;
    }

    /// The timing mode scopes open in (the run's `--timing`, unless the body set one).
    pub fn timing_mode(&self) -> Mode {
        self.mode
    }

    /// Benchmark mode: the durations of the scopes that ended in this job so far.
    pub fn scope_times(&self) -> &[ScopeTime] {
        &self.scope_times
    }

    /// Runs `f` as a protected section (OML's `oml_within_disable` /
    /// `oml_within_enable`): inside it [`JobCtx::check`] reports no timing
    /// violation (a stopping run and an abort still end it) and the
    /// asynchronous timing signal is blocked; at the end of the outermost
    /// section a violation that came meanwhile is reported: `Err(Timing(v))`
    /// (for the enclosing `try_*` to catch), even if `f` succeeded.
    /// Sections nest.
    pub fn protected<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T, JobError>) -> Result<T, JobError> {
        self.protect_begin();
        let r = f(self);
        let deferred = self.protect_end();
        match (r, deferred) {
            (Ok(_), Err(e)) => Err(e),
            (r, _) => r,
        }
    }

    /// Enters a protected section (the C and Python bindings; prefer
    /// [`JobCtx::protected`]).
    pub fn protect_begin(&mut self) {
        if self.protect == 0 {
            crate::timing::block_signal(true);
        }
        self.protect += 1;
    }

    /// Leaves a protected section; at the outermost, unblocks the signal
    /// (a pending one is handled now) and returns [`JobError::Timing`] for
    /// a violation that came meanwhile. Unbalanced calls are ignored.
    pub fn protect_end(&mut self) -> Result<(), JobError> {
        if self.protect == 0 {
            return Ok(());
        }
        self.protect -= 1;
        if self.protect > 0 {
            return Ok(());
        }
        crate::timing::block_signal(false);
        self.check()
    }

    /// Whether the body is in a protected section.
    pub fn in_protected(&self) -> bool {
        self.protect > 0
    }

    /// Whether the thread overran its SCHED_DEADLINE runtime in this job
    /// (SIGXCPU; the kernel backend with an EDF policy).
    pub fn overran(&self) -> bool {
        crate::overrun::count() != self.overruns0
    }

    /// The job's SCHED_DEADLINE overrun as a WCET violation of scope 0 (the
    /// whole job, outside every `try_*`): `value` the task's WCET,
    /// `lateness` the CPU time the job used past it.
    pub fn overrun_violation(&self) -> Violation {
        let used = clock::thread_cpu().saturating_sub(self.cpu0);
        Violation {
            limit: Limit::Wcet,
            scope: 0,
            depth: 0,
            value: self.wcet,
            noticed: clock::now(),
            lateness: used.saturating_sub(self.wcet),
        }
    }

    /// Returns an error if the run is stopping, the job is being aborted at
    /// its deadline, the thread overran its SCHED_DEADLINE runtime
    /// ([`JobCtx::overrun_violation`]), or a timing scope's limit is
    /// violated (the outermost; the last two not inside a protected section).
    #[inline]
    pub fn check(&mut self) -> Result<(), JobError> {
        if self.stop.is_set() {
            return Err(JobError::Stopped);
        }
        if self.protect == 0 && !self.overrun_reported && self.overran() {
            self.overrun_reported = true;
            return Err(JobError::Timing(self.overrun_violation()));
        }
        if self.abort_at.is_none() && (self.scopes.is_empty() || self.protect > 0) {
            return Ok(());
        }
        let now = clock::now();
        if let Some(a) = self.abort_at {
            if now >= a {
                return Err(JobError::Aborted);
            }
        }
        if self.protect > 0 {
            return Ok(());
        }
        self.violated_from(0, now)
    }

    /// The outermost violated scope at depth `from` or deeper, as an error.
    fn violated_from(&self, from: usize, now: u64) -> Result<(), JobError> {
        for (depth, s) in self.scopes.iter().enumerate().skip(from) {
            if s.violated(now) {
                return Err(JobError::Timing(s.violation(depth, now)));
            }
        }
        Ok(())
    }

    /// Spins for `ns` of CPU time: the calibrated loop in ~20 µs chunks,
    /// held to the thread's CPU clock in both directions — it stops when
    /// the clock has advanced by `ns` (interference that slows the loop
    /// never makes a job use more CPU time than it was given) and, if the
    /// calibrated work is done sooner (the loop ran faster than when it was
    /// calibrated), it goes on until then. On a quiet machine the two agree;
    /// on a noisy VM the loop's speed moves by tens of per cent.
    pub fn spin(&mut self, ns: u64) -> Result<(), JobError> {
        let total = self.calibration.iterations(ns);
        let chunk = self.calibration.iterations(CHUNK_NS.min(ns)).max(1);
        let end = clock::thread_cpu() + ns;
        let mut done = 0;
        while done < total || clock::thread_cpu() < end {
            spin::kernel(chunk);
            done += chunk;
            self.check()?;
            if clock::thread_cpu() >= end {
                break;
            }
        }
        Ok(())
    }

    /// Spins until the thread's CPU clock advanced by `ns` (exact CPU time,
    /// whatever the interference), checking every ~20 µs.
    pub fn spin_cpu(&mut self, ns: u64) -> Result<(), JobError> {
        let end = clock::thread_cpu() + ns;
        let chunk = self.calibration.iterations(CHUNK_NS.min(ns)).max(1);
        while clock::thread_cpu() < end {
            spin::kernel(chunk);
            self.check()?;
        }
        Ok(())
    }

    fn scoped<T>(
        &mut self,
        label: &str,
        limit: Limit,
        end: u64,
        budget: u64,
        f: impl FnOnce(&mut Self) -> Result<T, JobError>,
    ) -> Result<Result<T, Violation>, JobError> {
        let id = self.scope_begin(label, limit, end, budget);
        let r = f(self);
        let ended = self.scope_end(id);
        match (r, ended) {
            // The body saw this scope's violation (and returned it).
            (Err(JobError::Timing(v)), ended) if v.scope == id => {
                if !matches!(ended, Ok(Some(_))) {
                    self.raised.push(v);
                }
                Ok(Err(v))
            }
            (Err(e), _) => Err(e),
            // A body that finished without noticing still gets its violation.
            (Ok(_), Ok(Some(v))) => Ok(Err(v)),
            (Ok(x), Ok(None)) => Ok(Ok(x)),
            (Ok(_), Err(e)) => Err(e),
        }
    }

    /// Opens a timing scope and returns its id (for the C and Python
    /// bindings, which cannot pass a closure; prefer `try_*`). `end` is the
    /// absolute deadline (CLOCK_MONOTONIC ns) of a deadline scope or the
    /// thread CPU time at which a WCET scope's `budget` is spent.
    pub fn scope_begin(&mut self, label: &str, limit: Limit, end: u64, budget: u64) -> u64 {
        let id = self.next_scope;
        self.next_scope += 1;
        self.scopes.push(Scope::new(id, label, limit, end, budget, self.mode));
        id
    }

    /// Takes back the violation scope `id`'s end returned (the C and
    /// Python bindings: a body that let it escape; the job then ends with it
    /// as an unhandled exception, recorded once).
    pub fn unhandled(&mut self, id: u64) -> Option<Violation> {
        let i = self.raised.iter().rposition(|v| v.scope == id)?;
        Some(self.raised.remove(i))
    }

    /// The outermost open scope's id.
    pub fn outermost_scope(&self) -> Option<u64> {
        self.scopes.first().map(|s| s.id)
    }

    /// Opens a deadline scope `rel` ns from now (see [`JobCtx::scope_begin`]).
    pub fn scope_begin_within_rel(&mut self, label: &str, rel: u64) -> u64 {
        self.scope_begin(label, Limit::Deadline, clock::now().saturating_add(rel), 0)
    }

    /// Opens a WCET scope of `budget` ns of thread CPU time (see [`JobCtx::scope_begin`]).
    pub fn scope_begin_wcet(&mut self, label: &str, budget: u64) -> u64 {
        self.scope_begin(label, Limit::Wcet, clock::thread_cpu().saturating_add(budget), budget)
    }

    /// Ends scope `id` and every scope opened inside it that is still open
    /// (their enforcement ends; benchmark mode records their durations).
    /// `Ok(Some(v))`: this scope's limit was violated (OML's rule: its
    /// handler runs); `Ok(None)`: it was not (or `id` is not open);
    /// `Err(..)`: an outer scope is violated, the run is stopping or the job
    /// is aborted — propagate it. Inside a protected section nothing is
    /// reported (the section's end reports an outer scope's violation).
    pub fn scope_end(&mut self, id: u64) -> Result<Option<Violation>, JobError> {
        let Some(depth) = self.scopes.iter().position(|s| s.id == id) else {
            return Ok(None);
        };
        for s in self.scopes[depth..].iter().rev() {
            if let Some(t) = s.bench_time() {
                self.scope_times.push(t);
            }
        }
        let now = clock::now();
        let own =
            (self.protect == 0 && self.scopes[depth].violated(now)).then(|| self.scopes[depth].violation(depth, now));
        self.scopes.truncate(depth + 1);
        let outer = self.check();
        self.scopes.truncate(depth);
        match outer {
            Err(JobError::Timing(v)) if v.scope == id => {}
            Err(e) => return Err(e),
            Ok(()) => {}
        }
        if let Some(v) = own {
            self.raised.push(v);
        }
        Ok(own)
    }

    /// Runs `f` under an absolute deadline (CLOCK_MONOTONIC ns).
    pub fn try_within_abs<T>(
        &mut self,
        deadline: u64,
        f: impl FnOnce(&mut Self) -> Result<T, JobError>,
    ) -> Result<Result<T, Violation>, JobError> {
        self.scoped("", Limit::Deadline, deadline, 0, f)
    }

    /// Runs `f` under a deadline `rel` ns from now.
    pub fn try_within_rel<T>(
        &mut self,
        rel: u64,
        f: impl FnOnce(&mut Self) -> Result<T, JobError>,
    ) -> Result<Result<T, Violation>, JobError> {
        self.scoped("", Limit::Deadline, clock::now() + rel, 0, f)
    }

    /// Runs `f` under a WCET budget of `budget` ns of thread CPU time.
    pub fn try_wcet<T>(
        &mut self,
        budget: u64,
        f: impl FnOnce(&mut Self) -> Result<T, JobError>,
    ) -> Result<Result<T, Violation>, JobError> {
        self.scoped("", Limit::Wcet, clock::thread_cpu() + budget, budget, f)
    }

    /// [`JobCtx::try_within_abs`] with a label (benchmark mode records the
    /// scope's duration under it).
    pub fn try_within_abs_labelled<T>(
        &mut self,
        label: &str,
        deadline: u64,
        f: impl FnOnce(&mut Self) -> Result<T, JobError>,
    ) -> Result<Result<T, Violation>, JobError> {
        self.scoped(label, Limit::Deadline, deadline, 0, f)
    }

    /// [`JobCtx::try_within_rel`] with a label.
    pub fn try_within_rel_labelled<T>(
        &mut self,
        label: &str,
        rel: u64,
        f: impl FnOnce(&mut Self) -> Result<T, JobError>,
    ) -> Result<Result<T, Violation>, JobError> {
        self.scoped(label, Limit::Deadline, clock::now() + rel, 0, f)
    }

    /// [`JobCtx::try_wcet`] with a label.
    pub fn try_wcet_labelled<T>(
        &mut self,
        label: &str,
        budget: u64,
        f: impl FnOnce(&mut Self) -> Result<T, JobError>,
    ) -> Result<Result<T, Violation>, JobError> {
        self.scoped(label, Limit::Wcet, clock::thread_cpu() + budget, budget, f)
    }
}

impl Drop for JobCtx<'_> {
    fn drop(&mut self) {
        // A body that left a protected section open: the thread's next
        // jobs must not inherit the blocked signal.
        if self.protect > 0 {
            crate::timing::block_signal(false);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;
    use std::sync::atomic::{AtomicU32, Ordering};

    /// A suspension as the host heard of it: the segment that ended, the length.
    type Suspension = (Option<(u32, SegmentKind)>, u64);

    /// A point host whose flag the test sets; it counts what reaches it.
    #[derive(Default)]
    struct Flag {
        want: AtomicU32,
        reached: Cell<Vec<(u32, SegmentKind)>>,
        suspended: Cell<Vec<Suspension>>,
    }

    impl PointHost for Flag {
        fn wanted(&self) -> bool {
            self.want.load(Ordering::Relaxed) != 0
        }
        fn reached(&self, segment: u32, kind: SegmentKind) {
            let mut v = self.reached.take();
            v.push((segment, kind));
            self.reached.set(v);
        }
        fn suspend(&self, ended: Option<(u32, SegmentKind)>, ns: u64) {
            let mut v = self.suspended.take();
            v.push((ended, ns));
            self.suspended.set(v);
        }
    }

    fn calibration() -> Calibration {
        Calibration { ns_per_iter: 1.0, ..crate::calibrate::measure() }
    }

    fn seg(kind: SegmentKind, demand: u64) -> SegmentDemand {
        SegmentDemand { kind, demand, preemptible: true }
    }

    #[test]
    fn run_segments_puts_points_between_cpu_segments_and_suspends_at_suspensions() {
        let (c, stop, host) = (calibration(), Stop::default(), Flag::default());
        host.want.store(1, Ordering::Relaxed);
        let segs = [
            seg(SegmentKind::Memory, 10),
            seg(SegmentKind::Exec, 20),
            seg(SegmentKind::Suspend, 30),
            seg(SegmentKind::Exec, 40),
            seg(SegmentKind::Exec, 50),
        ];
        let mut ctx = JobCtx::detached(150, &c, &stop).with_points(&segs, Some(&host));
        let mut ran = Vec::new();
        ctx.run_segments(|_, ns, kind| {
            ran.push((kind, ns));
            Ok(())
        })
        .unwrap();
        use SegmentKind::*;
        assert_eq!(ran, [(Memory, 10), (Exec, 20), (Exec, 40), (Exec, 50)]);
        // Points between memory → exec and exec → exec, none around the suspension.
        assert_eq!(host.reached.take(), [(0, Memory), (3, Exec)]);
        assert_eq!(host.suspended.take(), [(Some((1, Exec)), 30)]);
    }

    #[test]
    fn a_point_nobody_asked_for_reaches_no_one_and_costs_well_under_100_ns() {
        let (c, stop, host) = (calibration(), Stop::default(), Flag::default());
        let mut ctx = JobCtx::detached(0, &c, &stop).with_points(&[], Some(&host));
        // The best of 9 batches (a shared machine); 100 ns is the release
        // budget (one load, the stop flag, two branches), debug gets 10x.
        let n = 100_000u64;
        let mut best = f64::MAX;
        for _ in 0..9 {
            let t0 = std::time::Instant::now();
            for _ in 0..n {
                ctx.preemption_point().unwrap();
            }
            best = best.min(t0.elapsed().as_nanos() as f64 / n as f64);
        }
        assert!(host.reached.take().is_empty(), "nobody asked: nothing reported");
        assert_eq!(ctx.segment, 9 * n as u32, "each point ends a segment");
        let budget = if cfg!(debug_assertions) { 1000.0 } else { 100.0 };
        eprintln!("preemption point, not wanted: {best:.1} ns");
        assert!(best < budget, "{best} ns per point");
        host.want.store(1, Ordering::Relaxed);
        ctx.preemption_point().unwrap();
        assert_eq!(host.reached.take(), [(9 * n as u32, SegmentKind::Exec)]);
        // Stopping: the point returns the stop.
        stop.request(crate::stop::StopReason::Finished);
        assert_eq!(ctx.preemption_point(), Err(JobError::Stopped));
    }
}
