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
use schedlab_trace::{Event, Header, Source};
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
    // CPU-time gaps (`stall::cpu_time_gaps`): on the dispatch backend less
    // the dispatcher's own work on its CPU.
    let used: std::collections::HashMap<(u32, u64), u64> = collected
        .iter()
        .filter_map(|c| Some((c.task?, c)))
        .flat_map(|(task, c)| {
            c.records.iter().filter(|r| r.kind == crate::record::Kind::Complete).map(move |r| ((task, r.job), r.a))
        })
        .collect();
    let dispatcher_cpu = (backend.name() == "dispatch").then_some(backend::dispatch::DISPATCHER_CPU);
    let gaps = crate::stall::cpu_time_gaps(&a.events, &used, dispatcher_cpu);
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
