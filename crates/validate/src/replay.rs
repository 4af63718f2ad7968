//! Replay: the policy is driven by the trace's releases, completions, blocks
//! and resumes through a replay [`Kernel`] (execution consumed as the trace
//! shows it, the CPUs running what the trace runs, timers fired at their
//! times), and its per-CPU decisions are compared with the trace at each
//! settled instant. This checks policies that are not "top-m by priority"
//! (PD^2, RUN), and any other policy too.
//!
//! The policy is driven through `schedlab_policy::driver`, like in the
//! simulator and the runtime: the trace's events of an instant are reported
//! to the driver, which delivers them in protocol order (completions, blocks
//! and resumes, releases in task order with the hold-until-the-predecessor-
//! completes queue, timers in arming order), runs the rounds of `schedule`
//! and checks every answer. An illegal answer is a `ProtocolError`, the
//! same as in every other driver: the replay stops and the validation
//! reports it.
//!
//! Execution-time timers (`Kernel::arm_exec`) fire from the trace's
//! execution intervals: after each instant the driver hears what each CPU
//! of the trace runs, from when (the end of any overhead interval covering
//! the instant) and with how much consumed (`Driver::runs`). Counters are
//! an input the trace records: `Kernel::counters(cpu)` answers the latest
//! `counter-sample` policy event of that CPU at or before the instant, and
//! `CountersUnavailable::NotRecorded` before the first one (the simulator
//! and the dispatcher write one per reading they give a policy); the rate
//! is 1.0.
//!
//! The policy's own events (every kind but `counter-sample`, which a driver
//! records as an input) are read back too, in a simulated trace: from
//! the first instant at which the trace records a `policy` event (a trace
//! may have been written without them) until before the horizon, the typed
//! events the replayed policy records at each instant (`Kernel::note`, e.g.
//! RUN's `server`) must be the trace's of that instant, in any order; a
//! difference is a `replay` violation. A runtime trace's events are stamped
//! when the dispatcher decided, not at the trace's instants, so they are
//! not compared.
//!
//! A CPU whose trace assignment differs from the policy's choice for longer
//! than the tolerance is a violation. The comparison is per CPU: a trace that
//! runs the right jobs on permuted CPUs fails the replay.

use crate::check::Check;
use crate::names::time;
use crate::recorder::Detail;
use crate::state::State;
use crate::validator::{Pending, Validator};
use schedlab_policy::{Counters, CountersUnavailable, Cpu, Driver, Host, Job, JobId, PolicyEvent, ProtocolError, Run};
use schedlab_trace::{JobRef, Time};

/// A policy event and its CPU, as the trace and the replayed policy record it.
type Note = (Option<Cpu>, PolicyEvent);

/// The events of an instant the policy hears about.
#[derive(Debug, Clone, Copy)]
pub(crate) enum RelEv {
    Release {
        j: JobRef,
        release: Time,
        deadline: Time,
    },
    Complete(JobRef),
    Block(JobRef),
    Resume(JobRef),
    /// The job reached the end of this segment (a `segment-end` event).
    SegmentEnd(JobRef, u32, schedlab_model::SegmentKind),
}

/// The replay driver's state.
#[derive(Debug)]
pub(crate) struct ReplayCore {
    drv: Driver,
    mismatch: Vec<Option<Pending>>,
    /// The first protocol violation (the replay stopped there).
    pub error: Option<ProtocolError>,
    /// The trace's policy events are compared with the policy's (a simulated trace).
    compare_notes: bool,
    /// The trace has recorded a policy event: compare from this instant on.
    noting: bool,
    /// The trace's policy events of the current instant.
    trace_notes: Vec<Note>,
    /// The replayed policy's events of the current instant.
    policy_notes: Vec<Note>,
    /// Per CPU, the trace's latest counter sample (`Kernel::counters`).
    counters: Vec<Option<Counters>>,
}

impl ReplayCore {
    /// `compare_notes`: read the trace's policy events back (see the module comment).
    pub fn new(cpus: u32, placement: Vec<schedlab_model::Placement>, compare_notes: bool) -> ReplayCore {
        ReplayCore {
            drv: Driver::new(cpus, placement),
            mismatch: vec![None; cpus as usize],
            error: None,
            compare_notes,
            noting: false,
            trace_notes: Vec::new(),
            policy_notes: Vec::new(),
            counters: vec![None; cpus as usize],
        }
    }

    fn want(&self, cpu: usize) -> Option<JobRef> {
        self.drv.chosen(cpu as Cpu).map(|j| JobRef { task: j.task, job: j.seq })
    }
}

/// What the replayed policy's kernel reads: the trace's time, execution
/// and CPUs. The replay carries out no switch: it compares.
struct ReplayHost<'a> {
    now: Time,
    state: &'a State,
    /// Where the policy's events go, when they are compared.
    notes: Option<&'a mut Vec<Note>>,
    /// Per CPU, the trace's latest counter sample.
    counters: &'a [Option<Counters>],
}

fn id(j: JobRef) -> JobId {
    JobId { task: j.task, seq: j.job }
}

impl Host for ReplayHost<'_> {
    fn now(&self) -> Time {
        self.now
    }
    fn consumed(&self, job: JobId) -> Time {
        self.state.consumed_at(JobRef { task: job.task, job: job.seq }, self.now)
    }
    fn running(&self, cpu: Cpu) -> Option<JobId> {
        self.state.cpus.get(cpu as usize).and_then(|c| c.jobs.first()).map(|&j| id(j))
    }
    fn switch(&mut self, _cpus: &[Cpu], _chosen: &[Option<JobId>]) {}
    fn progress(&self, cpu: Cpu) -> Option<Run> {
        let &j = self.state.cpus.get(cpu as usize)?.jobs.first()?;
        Some(Run {
            job: id(j),
            from: self.state.progress_from(cpu, self.now),
            consumed: self.state.consumed_at(j, self.now),
        })
    }
    fn counters(&mut self, cpu: Cpu) -> Result<Counters, CountersUnavailable> {
        match self.counters.get(cpu as usize) {
            Some(Some(c)) => Ok(*c),
            Some(None) => Err(CountersUnavailable::NotRecorded),
            None => Err(CountersUnavailable::UnknownCpu { cpu, cpus: self.counters.len() as u32 }),
        }
    }
    fn tracing(&self) -> bool {
        self.notes.is_some()
    }
    fn note(&mut self, cpu: Option<Cpu>, event: PolicyEvent) {
        // Counter samples are the driver's inputs, not compared.
        if let (Some(n), false) = (self.notes.as_mut(), matches!(event, PolicyEvent::CounterSample(_))) {
            n.push((cpu, event));
        }
    }
}

impl Validator<'_> {
    /// Reports an event of the current instant to the replayed policy's driver.
    pub(crate) fn replay_note(&mut self, e: RelEv) {
        let Some(core) = self.replay.as_mut() else { return };
        match e {
            RelEv::Release { j, release, deadline } => {
                core.drv.release(Job { id: id(j), release, deadline }, (), release)
            }
            RelEv::Complete(j) => {
                core.drv.complete(id(j));
            }
            RelEv::Block(j) => core.drv.block(id(j)),
            RelEv::Resume(j) => core.drv.resume(id(j)),
            RelEv::SegmentEnd(j, segment, kind) => core.drv.segment_end(id(j), segment, kind),
        }
    }

    /// A policy event of the trace at the current instant: a counter
    /// sample is the CPU's reading from now on; any other kind is compared
    /// with the policy's.
    pub(crate) fn replay_trace_note(&mut self, cpu: Option<Cpu>, event: &PolicyEvent) {
        let Some(core) = self.replay.as_mut() else { return };
        if let Some(reading) = Counters::of_sample(event) {
            if let Some(slot) = cpu.and_then(|c| core.counters.get_mut(c as usize)) {
                *slot = Some(reading);
            }
        } else if core.compare_notes {
            core.noting = true;
            core.trace_notes.push((cpu, event.clone()));
        }
    }

    /// Runs the driver's protocol for instant `t`: the events reported,
    /// the timers due, the rounds of `schedule`; then compares the policy's
    /// events of the instant with the trace's.
    pub(crate) fn replay_instant(&mut self, t: Time) {
        let (Some(policy), Some(core)) = (self.policy.as_deref_mut(), self.replay.as_mut()) else { return };
        if core.error.is_some() {
            return;
        }
        let notes = core.compare_notes.then_some(&mut core.policy_notes);
        let mut host = ReplayHost { now: t, state: &self.state, notes, counters: &core.counters };
        if let Err(e) = core.drv.instant(policy, &mut host, t) {
            let (since, cpu, text) = (e.t, e.cpu, e.to_string());
            core.error = Some(e);
            self.rec.violation(Check::Replay, since, since, cpu, |_| Detail::new(text));
            return;
        }
        // What the trace's CPUs run from now on, for execution-time timers.
        if core.drv.wants_runs() {
            for c in 0..self.state.cpus.len() as Cpu {
                core.drv.runs(c, host.progress(c));
            }
        }
        // Nothing is compared before the trace's first policy event, nor at
        // the horizon, where the producer stopped recording.
        if !core.noting || t >= self.horizon {
            core.trace_notes.clear();
            core.policy_notes.clear();
            return;
        }
        core.trace_notes.sort();
        core.policy_notes.sort();
        if core.trace_notes != core.policy_notes {
            let only =
                |a: &[Note], b: &[Note]| -> Vec<String> { a.iter().filter(|n| !b.contains(n)).map(describe).collect() };
            let (traced, noted) =
                (only(&core.trace_notes, &core.policy_notes), only(&core.policy_notes, &core.trace_notes));
            let cpu = core.trace_notes.iter().chain(&core.policy_notes).find_map(|n| n.0);
            let text = format!(
                "the trace records the policy events [{}], the policy records [{}]",
                traced.join("; "),
                noted.join("; ")
            );
            self.rec.violation(Check::Replay, t, t, cpu, |_| Detail::new(text));
        }
        core.trace_notes.clear();
        core.policy_notes.clear();
    }

    /// Fires the timers due strictly between instants `t` and `next`, each
    /// due time being an instant of its own.
    pub(crate) fn replay_timers(&mut self, _t: Time, next: Time) {
        loop {
            let due = match self.replay.as_mut().filter(|c| c.error.is_none()).and_then(|c| c.drv.next_timer()) {
                Some(d) if d < next => d,
                _ => break,
            };
            self.replay_compare(due, false);
            self.replay_instant(due);
            self.replay_compare(due, true);
        }
    }

    /// Compares the trace's assignment with the policy's. `settled`: the
    /// schedule of instant `now` is new; otherwise the current schedule has
    /// lasted until `now`.
    pub(crate) fn replay_compare(&mut self, now: Time, settled: bool) {
        let Some(core) = self.replay.as_mut() else { return };
        let tol = self.tol;
        let mut report = Vec::new();
        if core.error.is_some() {
            return;
        }
        for c in 0..core.mismatch.len() {
            let actual = &self.state.cpus[c].jobs;
            let want = core.want(c);
            let ok = match want {
                Some(j) => actual.as_slice() == [j],
                None => actual.is_empty(),
            };
            if settled {
                if ok {
                    core.mismatch[c] = None;
                } else if core.mismatch[c].is_none() {
                    core.mismatch[c] = Some(Pending { since: now, reported: false });
                }
            } else if let Some(p) = core.mismatch[c].as_mut() {
                if !p.reported && now - p.since > tol {
                    p.reported = true;
                    report.push((c as u32, p.since, actual.clone(), want));
                }
            }
        }
        let ok_cpu: Vec<bool> = core.mismatch.iter().map(|m| m.is_none()).collect();
        for (cpu, since, actual, want) in report {
            let tail = if tol > 0 { format!(" (for longer than the tolerance {})", time(tol)) } else { String::new() };
            self.rec.violation(Check::Replay, since, now, Some(cpu), |n| {
                let ran: Vec<String> = actual.iter().map(|&j| n.job(j)).collect();
                let runs = if ran.is_empty() { "idles".to_string() } else { format!("runs {}", ran.join(" and ")) };
                let chose = want.map_or("to idle".to_string(), |j| n.job(j));
                Detail::new(format!("cpu {cpu} {runs}, the policy chose {chose}{tail}"))
                    .ran(ran)
                    .expected(want.map(|j| n.job(j)).into_iter().collect())
            });
        }
        for d in 0..self.domains.len() {
            if self.domains[d].iter().all(|&c| ok_cpu.get(c as usize).copied().unwrap_or(true)) {
                self.conforms(d, now);
            }
        }
    }
}

/// `cpu 1 server {"server":"S3"}`: a policy event for a report.
fn describe(n: &Note) -> String {
    let mut fields = serde_json::to_value(&n.1).unwrap_or_default();
    if let Some(o) = fields.as_object_mut() {
        o.remove("kind");
    }
    let cpu = n.0.map(|c| format!("cpu {c} ")).unwrap_or_default();
    format!("{cpu}{} {fields}", n.1.kind())
}
