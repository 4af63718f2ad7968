//! Shared helpers for the runtime's integration tests (run for real, as root).
//!
//! **Honest retries.** A run on a shared VM can be failed by a platform
//! stall (the vCPU not running, a timer delivered milliseconds late) that
//! no tolerance covers while still checking the policy. An attempt is
//! repeated (at most `ATTEMPTS` in all) only when it fails with
//! [`Failure::Stall`]: a validation failure (or a deadline miss) of a run
//! that itself measured a platform stall — timer lateness or a CPU-time gap
//! above the validator's tolerance (a fifth of the shortest job), or a
//! stall of `RunOutcome::stalls` (the dispatcher's late wake-ups among
//! them) longer than half that tolerance — or whose own measured
//! latency does not fit twice in that tolerance (see [`tolerance_of`]). The evidence is printed. A trace whose
//! kernel part lacked events the kernel never recorded is a stall too
//! ([`Failure::of_integrity`]). Protocol, count and other integrity
//! errors, and validation failures without such evidence, fail at once.
//! Every test prints how many retries it took, past cargo's output capture.

#![allow(dead_code)]

use schedlab_model::{load_str, Spec};
use schedlab_rt::state::MachineState;
use schedlab_rt::{BackendKind, Execution, RunConfig, RunOutcome, WorkloadSpec};
use schedlab_trace::{Event, OverheadKind};
use std::io::Write;
use std::sync::Mutex;

/// Runs touch machine-wide state: one at a time within a test binary.
pub static SERIAL: Mutex<()> = Mutex::new(());

pub fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

pub fn spec(yaml: &str) -> Spec {
    load_str(yaml, None, "test.yaml").unwrap_or_else(|e| panic!("{e}")).spec
}

/// The tests need root (CI runs them as root): fail loudly otherwise.
pub fn require_root() {
    assert!(
        schedlab_rt::privilege::has_cap(schedlab_rt::privilege::CAP_SYS_NICE)
            && schedlab_rt::privilege::has_cap(schedlab_rt::privilege::CAP_SYS_ADMIN),
        "these tests run real-time threads: run them as root (CAP_SYS_NICE and CAP_SYS_ADMIN)"
    );
}

/// Machine state without this process's real-time threads that are not ours to judge.
pub fn state() -> MachineState {
    MachineState::capture()
}

pub fn count(events: &[schedlab_trace::Event], pred: impl Fn(&schedlab_trace::Event) -> bool) -> usize {
    events.iter().filter(|e| pred(e)).count()
}

/// A line in the test log, written past cargo's output capture.
pub fn log(s: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{s}");
}

/// A check that is never retried: fails the attempt at once.
#[allow(unused_macros)]
macro_rules! ensure {
    ($c:expr, $($f:tt)+) => {
        if !$c {
            return Err(Failure::Hard(format!($($f)+)));
        }
    };
}
#[allow(unused_imports)]
pub(crate) use ensure;

/// A run of `duration_ms` on the dispatch backend: spin-cpu jobs of 80 % of
/// each segment's length (exact CPU time, leaving room for the wall-clock
/// execution the validator measures, IRQs included), a start margin for a
/// SCHED_OTHER main thread under load, and waiting for another run on this
/// machine (another test binary) rather than failing.
pub fn dispatch_cfg(duration_ms: u64) -> RunConfig {
    RunConfig {
        backend: BackendKind::Dispatch,
        duration: duration_ms * 1_000_000,
        execution: Execution::Fraction(0.8),
        workload: WorkloadSpec::SpinCpu,
        start_margin: 200_000_000,
        wait: true,
        ..RunConfig::default()
    }
}

/// The shortest CPU segment of `spec` at 80 % (`dispatch_cfg`'s execution):
/// the validator's tolerance is a fifth of it.
pub fn min_exec(spec: &Spec) -> u64 {
    spec.tasks
        .iter()
        .flat_map(|t| t.segments().iter().filter(|s| s.kind.on_cpu()).map(|s| s.length.0).collect::<Vec<_>>())
        .map(|l| l * 8 / 10)
        .min()
        .unwrap_or(0)
}

/// Validates dispatch run `o` with a fifth of the shortest job as the
/// tolerance ([`tolerance_of`]), which it returns; a failure is a stall only
/// with the run's evidence.
pub fn validate_dispatch(o: &RunOutcome, spec: &Spec, name: &str) -> Result<u64, Failure> {
    let tol = tolerance_of(o, min_exec(spec))?;
    let r = schedlab_validate::validate(
        &o.header,
        o.events.iter().cloned(),
        &schedlab_validate::Options::with_tolerance(tol),
    )
    .expect("validator runs");
    if r.pass {
        return Ok(tol);
    }
    Err(Failure::of_run(o, spec, 0.8, tol, format!("{name} (tolerance {:.0} µs): {}", tol as f64 / 1e3, r.render())))
}

/// Why an attempt failed.
#[derive(Debug)]
pub enum Failure {
    /// The run measured a platform stall; `evidence` says which, `failure` what failed.
    Stall { evidence: String, failure: String },
    /// Anything else: fails the test at once.
    Hard(String),
}

impl From<String> for Failure {
    fn from(s: String) -> Failure {
        Failure::Hard(s)
    }
}

impl Failure {
    /// The run's trace integrity: complete, or why not. Only one defect is
    /// a platform's rather than the runtime's: on this VM the kernel's
    /// trace sometimes lacks a switch *to* a thread with no loss recorded
    /// (`kernel_lost` 0, `entries-written` equal to `entries-in-buffer`);
    /// the assembly repairs such a switch from the thread's wake-up, and a
    /// job whose wake-up is missing too falls outside every recorded run
    /// (`kernel_unmatched_jobs`). A run whose only defect is unmatched
    /// jobs, and whose kernel trace needed repairs, is a [`Failure::Stall`]
    /// with that evidence; any other incompleteness is hard.
    pub fn of_integrity(i: &schedlab_rt::assemble::Integrity) -> Result<(), Failure> {
        if i.complete() {
            return Ok(());
        }
        let only_unmatched = i.threads.iter().all(|t| t.contiguous)
            && i.kernel_lost.unwrap_or(0) == 0
            && i.kernel_unparsed == 0
            && !i.kernel_unmatched_jobs.is_empty();
        if only_unmatched && i.kernel_switches_repaired > 0 {
            return Err(Failure::Stall {
                evidence: format!(
                    "the kernel's trace lacked {} switch(es) to a thread (repaired from wake-ups) and job(s) {:?} \
                     fell outside every recorded run: events the kernel did not record",
                    i.kernel_switches_repaired, i.kernel_unmatched_jobs
                ),
                failure: format!("trace integrity {i:?}"),
            });
        }
        Err(Failure::Hard(format!("trace integrity {i:?}")))
    }

    /// A validation failure or deadline miss of run `o` (spec `spec`, jobs of
    /// `fraction` × WCET of `spin-cpu`, validated with tolerance `tol`): a
    /// stall when the run measured one — a platform stall above half of
    /// `tol` (`RunOutcome::stalls`), a timer lateness (release → first
    /// instruction, or a kernel-side part of it, on a free CPU) above `tol`,
    /// or a CPU-time gap (a job's running time in the trace beyond the CPU
    /// time `spin-cpu` gave it, and on the dispatcher's CPU beyond all the
    /// dispatcher's recorded work too) above `tol`; otherwise hard.
    pub fn of_run(o: &RunOutcome, spec: &Spec, fraction: f64, tol: u64, failure: String) -> Failure {
        let mut evidence = Vec::new();
        // A stall of at most half the tolerance cannot explain a violation
        // beyond it: `tolerance_of` leaves the other half to the run's
        // latency.
        let long: Vec<_> = o.stalls.iter().filter(|s| s.ns > tol / 2).cloned().collect();
        if let Some(e) = schedlab_rt::stall::evidence(&long) {
            evidence.push(e);
        }
        for kind in [OverheadKind::ReleaseLatency, OverheadKind::Release, OverheadKind::Schedule, OverheadKind::Ipi] {
            let late = o.overheads.get(kind).iter().filter(|&&d| d > tol).count();
            if late > 0 {
                let max = o.overheads.get(kind).iter().max().copied().unwrap_or(0);
                evidence.push(format!(
                    "{late} timer lateness sample(s) ({}) above the tolerance {:.0} µs, max {:.0} µs",
                    kind.name(),
                    tol as f64 / 1e3,
                    max as f64 / 1e3
                ));
            }
        }
        // On the dispatch backend a job that ran on CPU 0 shares it with the
        // dispatcher (above the workers): its gap counts only beyond all the
        // work the dispatcher recorded in the whole run (releases, decisions,
        // switches), which it cannot exceed on that CPU.
        let on_dispatcher_cpu: std::collections::HashSet<(u32, u64)> = o
            .events
            .iter()
            .filter_map(|e| match e {
                Event::SwitchTo { task, job, cpu, .. }
                    if o.backend == "dispatch" && *cpu == schedlab_rt::backend::dispatch::DISPATCHER_CPU =>
                {
                    Some((*task, *job))
                }
                _ => None,
            })
            .collect();
        let dispatcher_work: u64 = [OverheadKind::Release, OverheadKind::Schedule, OverheadKind::ContextSwitch]
            .iter()
            .map(|&k| o.overheads.get(k).iter().sum::<u64>())
            .sum();
        let gaps: Vec<u64> = o
            .events
            .iter()
            .filter_map(|e| match e {
                Event::Completion { task, exec, forced: false, job, .. } => {
                    let planned = (spec.tasks[*task as usize].wcet.0 as f64 * fraction) as u64;
                    let shared = if on_dispatcher_cpu.contains(&(*task, *job)) { dispatcher_work } else { 0 };
                    exec.checked_sub(planned + shared).filter(|g| *g > tol)
                }
                _ => None,
            })
            .collect();
        if let Some(max) = gaps.iter().max() {
            evidence.push(format!(
                "{} job(s) with a CPU-time gap above the tolerance {:.0} µs, max {:.0} µs",
                gaps.len(),
                tol as f64 / 1e3,
                *max as f64 / 1e3
            ));
        }
        if evidence.is_empty() {
            Failure::Hard(format!("{failure}\n(no platform stall measured: not retried)"))
        } else {
            Failure::Stall { evidence: evidence.join("; "), failure }
        }
    }
}

fn p90(v: &[u64]) -> u64 {
    let mut v = v.to_vec();
    v.sort_unstable();
    v.get(((v.len().saturating_sub(1)) as f64 * 0.9).round() as usize).copied().unwrap_or(0)
}

/// The validator's tolerance for run `o`: a fifth of its shortest job
/// (`min_exec`), so the jobs are five times the tolerance and a priority
/// inversion of a fifth of a job is seen. The run's own measured latency
/// must fit in it: twice the larger of the p90 release latency (release →
/// first instruction on a free CPU: the decision reaching the CPU) and, on
/// the dispatch backend, the median preemption latency (hold → the worker
/// stopped). A run noisier than that fails as a stall, with its measured
/// latency as the evidence.
pub fn tolerance_of(o: &RunOutcome, min_exec: u64) -> Result<u64, Failure> {
    let release = p90(o.overheads.get(OverheadKind::ReleaseLatency));
    let preempt = o
        .events
        .iter()
        .find_map(|e| match e {
            Event::Note { name, data, .. } if name == "dispatch-stats" => data["preemption"]["p50"].as_u64(),
            _ => None,
        })
        .unwrap_or(0);
    let tol = min_exec / 5;
    if 2 * release.max(preempt) > tol {
        return Err(Failure::Stall {
            evidence: format!(
                "measured p90 release latency {:.1} µs, median preemption latency {:.1} µs: twice that is more than the tolerance {:.1} µs (a fifth of the shortest job)",
                release as f64 / 1e3,
                preempt as f64 / 1e3,
                tol as f64 / 1e3
            ),
            failure: "the run was too noisy to check the policy".into(),
        });
    }
    Ok(tol)
}

/// How many times a run may be made when every failure is a platform stall:
/// this VM stalls for 1-8 ms several times a second even when idle, so three
/// attempts of a 1-2 s run failed in a row on a quiet machine, and on a day
/// of CPU-time gaps of 4-20 ms in every run six did (EDZL, each attempt's
/// evidence printed).
pub const ATTEMPTS: u32 = 10;

/// Runs `f` until it passes, at most [`ATTEMPTS`] times; only a
/// [`Failure::Stall`] is retried (its evidence printed). Prints the number
/// of retries.
pub fn retry_stalls(name: &str, f: impl Fn() -> Result<(), Failure>) -> Result<(), String> {
    let mut stalls = Vec::new();
    for attempt in 1..=ATTEMPTS {
        match f() {
            Ok(()) => {
                log(&format!("{name}: passed on attempt {attempt} ({} retries)", attempt - 1));
                return Ok(());
            }
            Err(Failure::Hard(e)) => {
                log(&format!("{name}: failed on attempt {attempt} ({} retries before)", attempt - 1));
                return Err(format!("{name}: {e}"));
            }
            Err(Failure::Stall { evidence, failure }) => {
                log(&format!("{name}: attempt {attempt} failed under a platform stall: {evidence}"));
                stalls.push(format!("{failure}\n  evidence: {evidence}"));
            }
        }
    }
    log(&format!("{name}: failed {ATTEMPTS} attempts, each under a platform stall ({} retries)", ATTEMPTS - 1));
    Err(format!("{name}: every attempt failed under a platform stall:\n{}", stalls.join("\n\n")))
}
