//! One run, start to end: calibrate, plan (bad input → exit 2), select and
//! check the backend, check privileges (exit 3) — all before anything is
//! touched — then take the run lock, restore what a killed run left behind
//! (its crash journal), install the journalled restore guard, the signal
//! thread, the watchdog and the trace collector, let the backend execute,
//! restore the machine, and assemble the trace.

use crate::assemble::{assemble, Integrity};
use crate::backend::{self, Services};
use crate::calibrate::{self, Calibration};
use crate::config::RunConfig;
use crate::error::RunError;
use crate::guard::Guard;
use crate::overheads::Samples;
use crate::plan::Plan;
use crate::signals::SignalScope;
use crate::stall::{Stall, PLATFORM_STALL, THRESHOLD_NS};
use crate::stop::{Stop, StopReason};
use crate::tracebuf::Collector;
use crate::watchdog::Watchdog;
use schedlab_model::Spec;
use schedlab_trace::{Event, Header, OverheadKind, Source};
use std::sync::Arc;

/// What a run produced.
pub struct RunOutcome {
    pub header: Header,
    /// The trace, in time order.
    pub events: Vec<Event>,
    pub stop: StopReason,
    pub integrity: Integrity,
    pub overheads: Samples,
    /// How each task was mapped by the backend.
    pub mapping: Vec<String>,
    pub calibration: Calibration,
    pub backend: &'static str,
    /// Whether the kernel's own events were merged.
    pub kernel_trace: bool,
    /// Remarks (restore problems, abandoned threads, ...).
    pub notes: Vec<String>,
    /// Platform stalls the run measured (not counted as overheads; see [`crate::stall`]).
    pub stalls: Vec<crate::stall::Stall>,
}

/// Checks everything that can be checked without touching the machine:
/// the plan and the backend. Returns the plan.
pub fn prepare(spec: &Spec, config: &RunConfig) -> Result<(Plan, Box<dyn backend::Backend>), RunError> {
    let backend = backend::select(config.backend)?;
    let calibration = calibrate::load_or_measure(config.cache_dir.clone(), config.recalibrate);
    let plan = Plan::new(spec, config, calibration)?;
    backend.check(&plan)?;
    Ok((plan, backend))
}

/// Runs `spec` under `config`.
pub fn run(spec: &Spec, config: &RunConfig) -> Result<RunOutcome, RunError> {
    let (mut plan, mut backend) = prepare(spec, config)?;
    crate::privilege::check(&backend.needs(&plan))?;
    let _lock = crate::lock::RunLock::acquire(config.wait)?;
    // What a killed run left behind is put back before this run records
    // anything as "original".
    let mut notes = Vec::new();
    for r in crate::journal::restore_dead() {
        eprintln!("schedlab: {}", r.render());
        if !r.errors.is_empty() {
            return Err(RunError::System(format!(
                "{}; nothing of this run was started (put the rest back by hand, then `schedlab restore`)",
                r.render()
            )));
        }
        notes.push(r.render());
    }
    let guard = Arc::new(Guard::journalled().map_err(|e| {
        RunError::system(format!("creating the crash journal in {}", crate::journal::dir().display()), e)
    })?);
    // Held to the end of this function; the kernel drops it with the file.
    let idle = crate::idle::IdleHold::hold(config.idle);
    notes.extend(idle.note.clone());
    let stop = Arc::new(Stop::new());
    let signals = SignalScope::install(stop.clone(), guard.clone(), config.exit_on_signal_timeout);
    let watchdog = Watchdog::start(stop.clone(), guard.clone(), true);
    let collector = Collector::start(5_000_000);
    let sv = Services { guard: guard.clone(), stop: stop.clone(), watchdog, collector };
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| backend.execute(&mut plan, &sv)));
    let Services { watchdog, collector, .. } = sv;
    drop(watchdog);
    for e in guard.restore() {
        notes.push(format!("could not restore: {e}"));
    }
    drop(signals);
    let collected = collector.finish();
    let ex = match result {
        Ok(r) => r?,
        Err(p) => {
            let msg = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            return Err(RunError::System(format!("the runtime panicked (the machine was restored): {msg}")));
        }
    };
    notes.extend(ex.notes.iter().cloned());
    let kernel = if ex.switches_recorded { None } else { ex.kernel.as_ref() };
    let mut a = assemble(&collected, &ex.tids, kernel, ex.t0, ex.end);
    if !ex.events.is_empty() {
        // A backend's own overhead intervals above the stall threshold are
        // stalls too (see `stall`).
        for e in &ex.events {
            match e {
                Event::Overhead { t, kind, dur, .. } if *dur > THRESHOLD_NS => {
                    let kind = format!("timer-lateness ({})", kind.name());
                    a.events.push(Event::Note {
                        t: *t,
                        cpu: None,
                        name: PLATFORM_STALL.into(),
                        data: serde_json::json!({"kind": kind, "ns": dur}),
                    });
                    a.stalls.push(Stall { t: *t, kind, job: None, ns: *dur });
                }
                // A stall the backend measured itself (the dispatcher's late wake-ups).
                Event::Note { t, name, data, .. } if name == PLATFORM_STALL => {
                    let kind = data["kind"].as_str().unwrap_or("timer-lateness").to_string();
                    a.stalls.push(Stall { t: *t, kind, job: None, ns: data["ns"].as_u64().unwrap_or(0) });
                    a.events.push(e.clone());
                }
                e => a.events.push(e.clone()),
            }
        }
        a.events.sort_by_key(|e| e.t());
    }
    if let Some(k) = &ex.kernel {
        a.integrity.kernel_lost = Some(k.lost);
    }
    if ex.throttled {
        // Throttled jobs wait while other threads run: the reservation, not a stall.
        let foreign = |kind: &str| kind.starts_with("foreign-thread");
        a.stalls.retain(|s| !foreign(&s.kind));
        a.events.retain(|e| {
            !matches!(e, Event::Note { name, data, .. } if name == PLATFORM_STALL && data["kind"].as_str().is_some_and(foreign))
        });
    }
    // CPU-time gaps: a job's running time in the trace (the kernel's
    // intervals, or the dispatcher's stints) beyond the thread CPU time it
    // used. On the dispatch backend a stint on the dispatcher's CPU also holds the
    // dispatcher's own work (it runs there, above the workers): for a job
    // that ran there, the dispatcher's overhead intervals on that CPU from
    // the job's first dispatch to its completion are not counted in its gap
    // (all of them, overlapping or not: a gap is only ever made smaller).
    let dispatcher = if backend.name() == "dispatch" {
        Some(DispatcherTime::of(&a.events, backend::dispatch::DISPATCHER_CPU))
    } else {
        None
    };
    let used: std::collections::HashMap<(u32, u64), u64> = collected
        .iter()
        .filter_map(|c| Some((c.task?, c)))
        .flat_map(|(task, c)| {
            c.records.iter().filter(|r| r.kind == crate::record::Kind::Complete).map(move |r| ((task, r.job), r.a))
        })
        .collect();
    let mut gaps = Vec::new();
    for e in &a.events {
        if let Event::Completion { t, task, job, exec, .. } = e {
            if let Some(&u) = used.get(&(*task, *job)) {
                let theirs = dispatcher.as_ref().map_or(0, |d| d.during(*task, *job, *t));
                let gap = exec.saturating_sub(u).saturating_sub(theirs);
                if gap > THRESHOLD_NS {
                    gaps.push(Stall { t: *t, kind: "cpu-time-gap".into(), job: Some((*task, *job)), ns: gap });
                }
            }
        }
    }
    for g in gaps {
        a.events.push(Event::Note {
            t: g.t,
            cpu: None,
            name: PLATFORM_STALL.into(),
            data: serde_json::json!({"kind": g.kind, "task": g.job.map(|j| j.0), "job": g.job.map(|j| j.1), "ns": g.ns}),
        });
        a.stalls.push(g);
    }
    // What page colouring found and did, in the report and the trace.
    if let Some(c) = &plan.colouring {
        notes.extend(c.lines());
        a.events.push(Event::Note { t: 0, cpu: None, name: "page-colouring".into(), data: c.to_json() });
    }
    a.events.sort_by_key(|e| e.t());
    if let Some(e) = crate::stall::evidence(&a.stalls) {
        notes.push(e);
    }
    for (kind, v) in &ex.overheads.by_kind {
        for &d in v.iter().filter(|&&d| d <= THRESHOLD_NS) {
            a.overheads.push(*kind, d);
        }
    }
    let mut header = Header::new(spec.clone(), Source::Runtime, config.seed, a.horizon.max(ex.horizon));
    header.placement = plan.info.placement.clone();
    Ok(RunOutcome {
        header,
        events: a.events,
        stop: stop.reason(),
        integrity: a.integrity,
        overheads: a.overheads,
        mapping: ex.mapping,
        calibration: plan.calibration.clone(),
        backend: backend.name(),
        kernel_trace: ex.kernel.is_some(),
        notes,
        stalls: a.stalls,
    })
}

/// The dispatcher's own time on its CPU, as its overhead intervals there
/// (release latency excluded: that is the timer's, not the dispatcher's
/// work), and when each job was first dispatched to that CPU.
struct DispatcherTime {
    /// (start, cumulative duration up to and including it), by start.
    intervals: Vec<(u64, u64)>,
    first_on_cpu: std::collections::HashMap<(u32, u64), u64>,
}

impl DispatcherTime {
    fn of(events: &[Event], cpu: u32) -> DispatcherTime {
        let mut starts: Vec<(u64, u64)> = events
            .iter()
            .filter_map(|e| match e {
                Event::Overhead { t, cpu: c, kind, dur } if *c == cpu && *kind != OverheadKind::ReleaseLatency => {
                    Some((*t, *dur))
                }
                _ => None,
            })
            .collect();
        starts.sort_unstable();
        let mut sum = 0u64;
        let intervals = starts
            .into_iter()
            .map(|(t, d)| {
                sum = sum.saturating_add(d);
                (t, sum)
            })
            .collect();
        let mut first_on_cpu = std::collections::HashMap::new();
        for e in events {
            if let Event::SwitchTo { t, cpu: c, task, job } = e {
                if *c == cpu {
                    first_on_cpu.entry((*task, *job)).and_modify(|f: &mut u64| *f = (*f).min(*t)).or_insert(*t);
                }
            }
        }
        DispatcherTime { intervals, first_on_cpu }
    }

    /// The dispatcher's time on its CPU from the job's first dispatch there
    /// to `end` (0 for a job that never ran there).
    fn during(&self, task: u32, job: u64, end: u64) -> u64 {
        let Some(&from) = self.first_on_cpu.get(&(task, job)) else { return 0 };
        let upto = |t: u64| {
            let i = self.intervals.partition_point(|&(s, _)| s <= t);
            if i == 0 {
                0
            } else {
                self.intervals[i - 1].1
            }
        };
        upto(end).saturating_sub(upto(from.saturating_sub(1)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_trace::OverheadKind as K;

    #[test]
    fn the_dispatchers_time_counts_only_its_cpu_from_the_jobs_first_dispatch() {
        let o = |t, cpu, kind, dur| Event::Overhead { t, cpu, kind, dur };
        let events = vec![
            o(5, 0, K::Schedule, 100),
            Event::SwitchTo { t: 10, cpu: 0, task: 1, job: 0 },
            o(20, 0, K::Schedule, 30),
            o(25, 1, K::Schedule, 1_000),
            o(30, 0, K::ReleaseLatency, 5_000),
            o(40, 0, K::Release, 7),
            Event::SwitchTo { t: 50, cpu: 1, task: 2, job: 0 },
            o(60, 0, K::ContextSwitch, 2),
        ];
        let d = DispatcherTime::of(&events, 0);
        assert_eq!(d.during(1, 0, 45), 37, "CPU 0's schedule and release between 10 and 45");
        assert_eq!(d.during(1, 0, 60), 39, "and the context switch at 60");
        assert_eq!(d.during(2, 0, 60), 0, "a job that never ran on CPU 0");
        assert_eq!(DispatcherTime::of(&events, 0).during(1, 0, 9), 0, "nothing before the dispatch");
    }
}
