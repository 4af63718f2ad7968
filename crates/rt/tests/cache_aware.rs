//! `ca-gedf` on real threads (backend `dispatch`, root): Calandrino's
//! Fig. 4.6 set (notes §9.2 G9) with 10 ms quanta
//! (`examples/ca-gedf-threads.yaml`), jobs at 80 % of their WCETs. Every hyperperiod of 80 ms runs the golden schedule of the
//! heuristic: (U,V), (T,φ), (T,φ), (W1,W2), (W1,W2), (U,V), (T,φ), (T,φ),
//! with its promotions and phantom jobs recorded; the trace passes the
//! validator's replay (tolerance as in `common.rs`); the machine is
//! restored. Retries: a failure with a platform stall's evidence only
//! (`common.rs`). About 2 s.

mod common;
use common::*;
use schedlab_rt::run;
use schedlab_trace::{Event, PolicyEvent};

const Q: u64 = 10_000_000;

/// The tasks switched in during each quantum of the first `n` (from the
/// first release), sorted: a job keeps its CPU across quanta without a new
/// switch, so this lists the quanta where each stint starts.
fn starts(events: &[Event], n: u64) -> Vec<Vec<u32>> {
    let t0 = events.iter().filter_map(|e| if let Event::Release { t, .. } = e { Some(*t) } else { None }).min();
    let t0 = t0.unwrap_or(0);
    let mut q = vec![Vec::new(); n as usize];
    for e in events {
        if let Event::SwitchTo { t, task, .. } = e {
            let i = (t.saturating_sub(t0) / Q) as usize;
            if i < q.len() {
                q[i].push(*task);
                q[i].sort();
            }
        }
    }
    q
}

#[test]
fn fig_4_6_runs_the_golden_schedule_on_real_threads_and_replays() {
    require_root();
    let _s = serial();
    let before = state();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/ca-gedf-threads.yaml");
    let spec = schedlab_model::load_path(&path).unwrap().spec;
    let attempt = || -> Result<(), Failure> {
        let o = run(&spec, &dispatch_cfg(1600)).map_err(|e| format!("ca-gedf: {e}"))?;
        eprintln!("ca-gedf: {}", o.notes.join("; "));
        if o.stop != schedlab_rt::StopReason::Finished || !o.integrity.complete() {
            return Err(Failure::Hard(format!("stopped {:?}, integrity {:?}", o.stop, o.integrity)));
        }
        let tol = validate_dispatch(&o, &spec, "ca-gedf")?;
        // Stints start: (U,V) at 0, T at 1 and 2, (W1,W2) at 3 (they keep
        // their CPUs at 4), (U,V) at 5, T at 6 and 7; the same from 8.
        let golden = [vec![1, 2], vec![0], vec![0], vec![3, 4], vec![], vec![1, 2], vec![0], vec![0]];
        let got = starts(&o.events, 16);
        for hp in 0..2 {
            if got[hp * 8..hp * 8 + 8] != golden[..] {
                return Err(Failure::of_run(&o, &spec, 0.8, tol, format!("hyperperiod {hp}: {got:?}")));
            }
        }
        let phantoms = count(&o.events, |e| matches!(e, Event::Policy { event: PolicyEvent::Phantom { .. }, .. }));
        let promotions =
            count(&o.events, |e| matches!(e, Event::Policy { event: PolicyEvent::PriorityPromotion { .. }, .. }));
        eprintln!("ca-gedf: {phantoms} phantom jobs, {promotions} promotions, tolerance {tol} ns");
        // 20 hyperperiods of 4 phantom jobs and 9 promotions each.
        if !(76..=84).contains(&phantoms) || !(170..=190).contains(&promotions) {
            return Err(Failure::of_run(&o, &spec, 0.8, tol, format!("{phantoms} phantoms, {promotions} promotions")));
        }
        Ok(())
    };
    retry_stalls("ca-gedf", attempt).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(state(), before, "the machine is as before");
}

/// `profile: true` on real threads: where the counter source has no cache
/// misses (this VM: no PMU, the workloads' published counts), the policy
/// says so once in the trace (`counters-unavailable`) and schedules with
/// the declared WSSs — the golden schedule — and the replay agrees. Where
/// the CPUs' hardware cache misses are read (a PMU), it learns the MTTs'
/// WSSs from them: only the replay is asserted then.
#[test]
fn with_profile_and_no_cache_miss_counters_it_schedules_the_declared_wss() {
    require_root();
    let _s = serial();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/ca-gedf-threads.yaml");
    let mut spec = schedlab_model::load_path(&path).unwrap().spec;
    spec.policy.as_mut().unwrap().profile = Some(true);
    let hardware = schedlab_rt::counters::PerfCounters::open(1).hardware();
    let attempt = || -> Result<(), Failure> {
        let o = run(&spec, &dispatch_cfg(800)).map_err(|e| format!("ca-gedf profile: {e}"))?;
        if o.stop != schedlab_rt::StopReason::Finished || !o.integrity.complete() {
            return Err(Failure::Hard(format!("stopped {:?}, integrity {:?}", o.stop, o.integrity)));
        }
        let tol = validate_dispatch(&o, &spec, "ca-gedf profile")?;
        let said =
            count(&o.events, |e| matches!(e, Event::Policy { event: PolicyEvent::CountersUnavailable { .. }, .. }));
        eprintln!("ca-gedf profile: hardware counters {hardware}, {said} counters-unavailable, tolerance {tol} ns");
        if hardware {
            return Ok(());
        }
        if said != 1 {
            return Err(Failure::Hard(format!("{said} counters-unavailable events, not 1")));
        }
        let golden = [vec![1, 2], vec![0], vec![0], vec![3, 4], vec![], vec![1, 2], vec![0], vec![0]];
        let got = starts(&o.events, 8);
        if got[..] != golden[..] {
            return Err(Failure::of_run(&o, &spec, 0.8, tol, format!("the declared wss's schedule: {got:?}")));
        }
        Ok(())
    };
    retry_stalls("ca-gedf profile", attempt).unwrap_or_else(|e| panic!("{e}"));
}
