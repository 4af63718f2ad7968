//! The dispatcher writes the policy's typed events into the run's trace:
//! under FPDS on real threads (root), each preemption point the policy takes
//! is a `preemption-point` policy event on the job's CPU, at the job's
//! `segment-end` for that segment, and the job leaves its CPU there
//! (`switch-away`, reason `preempt`) within the run's tolerance. The set is
//! `points.rs`'s: `high` is released inside `low`'s first subjob each 400 ms.
//! Tolerance and retries as in `dispatch.rs` (see `common.rs`). ~3 s.

mod common;
use common::*;
use schedlab_rt::{run, BackendKind, Execution, RunConfig, WorkloadSpec};
use schedlab_trace::{Event, PolicyEvent, SwitchReason};

#[test]
fn the_dispatcher_records_the_preemption_points_fpds_takes() {
    require_root();
    let _s = serial();
    let before = state();
    let spec = spec(
        "platform: {cpus: 2}\npolicy: {name: fpds}\ntasks:\n  \
         - {name: high, wcet: 20ms, period: 100ms, offset: 10ms, cpu: 1}\n  \
         - {name: low, period: 400ms, subjobs: [30ms, 30ms, 30ms], cpu: 1}\n",
    );
    let config = RunConfig {
        backend: BackendKind::Dispatch,
        duration: 2000 * 1_000_000,
        execution: Execution::Fraction(0.8),
        workload: WorkloadSpec::SpinCpu,
        start_margin: 200_000_000,
        wait: true,
        ..RunConfig::default()
    };
    retry_stalls("fpds policy events", || {
        let o = run(&spec, &config).map_err(|e| Failure::Hard(e.to_string()))?;
        if o.stop != schedlab_rt::StopReason::Finished {
            return Err(Failure::Hard(format!("stopped: {:?} {:?}", o.stop, o.notes)));
        }
        // The shortest CPU segment at 80 %: high's 16 ms.
        let tol = tolerance_of(&o, 16_000_000)?;
        let points: Vec<(u64, Option<u32>, u32, u64, u32)> = o
            .events
            .iter()
            .filter_map(|e| match *e {
                Event::Policy { t, cpu, event: PolicyEvent::PreemptionPoint { task, job, segment } } => {
                    Some((t, cpu, task, job, segment))
                }
                _ => None,
            })
            .collect();
        let preempted = count(&o.events, |e| matches!(e, Event::SwitchAway { task: 1, reason: SwitchReason::Preempt, .. }));
        if points.len() < 4 || points.len() != preempted {
            return Err(Failure::Hard(format!(
                "{} preemption-point events for {preempted} preemptions of low: {points:?}",
                points.len()
            )));
        }
        for &(t, cpu, task, job, segment) in &points {
            let at_end = o.events.iter().any(|e| {
                matches!(*e, Event::SegmentEnd { t: s, cpu: c, task: k, job: j, segment: g }
                    if (k, j, g) == (task, job, segment) && Some(c) == cpu && t >= s && t - s <= tol)
            });
            let left = o.events.iter().any(|e| {
                matches!(*e, Event::SwitchAway { t: s, cpu: c, task: k, job: j, reason: SwitchReason::Preempt, .. }
                    if (k, j) == (task, job) && Some(c) == cpu && s.abs_diff(t) <= tol)
            });
            if task != 1 || !at_end || !left {
                return Err(Failure::Hard(format!(
                    "preemption-point of {task}#{job} after segment {segment} at {t} on {cpu:?}: at its segment end {at_end}, left its CPU {left} (tolerance {tol})"
                )));
            }
        }
        eprintln!("fpds policy events: {} preemption points recorded, tolerance {tol} ns", points.len());
        Ok(())
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(state(), before, "the machine is as before");
}
