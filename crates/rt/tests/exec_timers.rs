//! Execution-time timers and counters on the dispatch backend, run for
//! real (root): the shared test policy `Overrun` (crates/policy/tests/common:
//! fixed priority by task index, a job that exhausts its CPU-time budget
//! drops to the background) with budgets below the jobs' execution, so
//! every job's budget timer fires — armed at each switch-in for the budget
//! left, disarmed at each switch-out — with the job's measured CPU time
//! within the run's tolerance of its budget; counters are read at every
//! release and come from the source the trace names: this machine's perf
//! events, or (without hardware events) the workloads' published counts,
//! the same at every reading. Retries: see `common.rs`.

mod common;
#[path = "../../policy/tests/common/overrun.rs"]
mod overrun;

use common::*;
use overrun::{Overrun, OverrunLog};
use schedlab_policy::CountersUnavailable;
use schedlab_rt::{run, BackendKind, Execution, PolicyFactory, RunConfig, WorkloadSpec};
use schedlab_trace::Event;
use std::sync::{Arc, Mutex};

const MS: u64 = 1_000_000;
/// 80 % of the WCETs (16 and 32 ms) run; the budgets are 10 and 20 ms.
const BUDGETS: [u64; 2] = [10 * MS, 20 * MS];

#[test]
fn budgets_expire_on_real_threads_and_counters_answer_or_say_why_not() {
    require_root();
    let _s = serial();
    let before = state();
    let spec = spec(
        "platform: {cpus: 1}\npolicy: {name: pfp}\ntasks:\n  - {name: a, wcet: 20ms, period: 200ms, offset: 10ms}\n  - {name: b, wcet: 40ms, period: 400ms}\n",
    );
    let result = retry_stalls("exec timers", || {
        let log = Arc::new(Mutex::new(OverrunLog::default()));
        let shared = log.clone();
        let factory = PolicyFactory(Arc::new(move |_spec: &schedlab_model::Spec| {
            let mut p = Overrun::new(BUDGETS.to_vec());
            p.log = shared.clone();
            Box::new(p) as Box<dyn schedlab_policy::Policy>
        }));
        let config = RunConfig {
            backend: BackendKind::Dispatch,
            duration: 2000 * MS,
            execution: Execution::Fraction(0.8),
            workload: WorkloadSpec::SpinCpu,
            start_margin: 200 * MS,
            wait: true,
            policy: Some(factory),
            ..RunConfig::default()
        };
        let o = run(&spec, &config).map_err(|e| Failure::Hard(e.to_string()))?;
        eprintln!("exec timers: {}", o.notes.join("; "));
        if o.stop != schedlab_rt::StopReason::Finished || o.notes.iter().any(|n| n.starts_with("policy protocol")) {
            return Err(Failure::Hard(format!("stopped: {:?} {:?}", o.stop, o.notes)));
        }
        let tol = tolerance_of(&o, 16 * MS)?;
        let completed: Vec<(u32, u64)> = o
            .events
            .iter()
            .filter_map(|e| match *e {
                Event::Completion { task, job, forced: false, .. } => Some((task, job)),
                _ => None,
            })
            .collect();
        let log = log.lock().unwrap().clone();
        let worst = log.expiries.iter().map(|x| x.2.abs_diff(BUDGETS[x.0.task as usize])).max().unwrap_or(0);
        eprintln!(
            "exec timers: {} expiries, {} completions, CPU time at expiry off its budget by at most {:.1} µs; counters {:?}",
            log.expiries.len(),
            completed.len(),
            worst as f64 / 1e3,
            log.counters.first()
        );
        // 10 jobs of a and 5 of b, each running past its budget.
        if completed.len() < 14 {
            return Err(Failure::Hard(format!("{} jobs completed, want 15 (± 1)", completed.len())));
        }
        for &(task, job) in &completed {
            let fired: Vec<_> = log.expiries.iter().filter(|x| x.0.task == task && x.0.seq == job).collect();
            if fired.len() != 1 {
                return Err(Failure::Hard(format!("job {task}:{job}: {} budget expiries, want 1", fired.len())));
            }
            let (_, _, consumed) = *fired[0];
            let budget = BUDGETS[task as usize];
            if consumed.abs_diff(budget) > tol {
                let msg = format!(
                    "job {task}:{job}: budget {budget} ns expired at {consumed} ns of CPU time (tolerance {tol} ns)"
                );
                return Err(Failure::of_run(&o, &spec, 0.8, tol, msg));
            }
        }
        // Counters: the source the trace names (this machine's perf events,
        // or the workloads' published counts where it has no hardware
        // events), the same kind at every release.
        let hardware = schedlab_rt::counters::PerfCounters::open(1).hardware();
        let source = o
            .events
            .iter()
            .find_map(|e| match e {
                Event::Note { t: 0, name, data, .. } if name == "counter-source" => {
                    data["source"].as_str().map(String::from)
                }
                _ => None,
            })
            .ok_or_else(|| Failure::Hard("no counter-source note in the trace".into()))?;
        let want = if hardware { "perf_event_open" } else { "workload" };
        if source != want {
            return Err(Failure::Hard(format!("counter source {source}, want {want} (hardware events: {hardware})")));
        }
        for c in &log.counters {
            match c {
                Ok(c) if hardware && c.has_hardware() => {}
                // spin-cpu publishes nothing: the published counts stay 0.
                Ok(c) if !hardware && c.cache_references == Some(0) && c.instructions.is_none() => {}
                Err(CountersUnavailable::Refused { .. }) if hardware => {}
                other => return Err(Failure::Hard(format!("counters: {other:?} (source {source})"))),
            }
        }
        if log.counters.len() != log.rates.len() || log.counters.is_empty() {
            return Err(Failure::Hard(format!("{} counter readings", log.counters.len())));
        }
        // Each reading the policy got is a `counter-sample` in the trace, for replay.
        let readings = log.counters.iter().filter(|c| c.is_ok()).count();
        let samples = o
            .events
            .iter()
            .filter(|e| matches!(e, Event::Policy { event: schedlab_trace::PolicyEvent::CounterSample(_), .. }))
            .count();
        if samples != readings {
            return Err(Failure::Hard(format!("{samples} counter samples in the trace for {readings} readings")));
        }
        Ok(())
    });
    assert_eq!(state(), before, "the machine's state is restored");
    result.unwrap();
}
