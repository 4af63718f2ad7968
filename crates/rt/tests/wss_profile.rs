//! The working-set profiler on real threads (root, dispatch backend): an
//! MTT's threads walk its working set under `memwalk`, the profiler
//! measures the page-reference footprint of each MTT-job
//! (`schedlab_rt::footprint`) — or, on a machine with a PMU, each thread's
//! per-job cache misses — and the run reports the estimate, its source
//! and its error against the declared `wss`.

mod common;
use common::*;
use schedlab_rt::{run, WorkloadSpec};

/// One MTT of two threads over 256 KiB (64 pages), beside a task of its own.
const SPEC: &str = "platform: {cpus: 2, cache: {size: 1MiB, ways: 16, line: 64B}}\npolicy: {name: gedf}\ntasks:\n  - {name: a, wcet: 2ms, period: 20ms}\n  - {name: b, wcet: 2ms, period: 20ms}\n  - {name: o, wcet: 1ms, period: 10ms, wss: 64KiB}\nmtt:\n  - {name: w, tasks: [a, b], wss: 256KiB}\n";

#[test]
fn the_footprint_of_an_mtts_jobs_estimates_its_declared_working_set() {
    require_root();
    let _s = serial();
    let spec = spec(SPEC);
    let config = schedlab_rt::RunConfig { workload: "memwalk".parse::<WorkloadSpec>().unwrap(), ..dispatch_cfg(400) };
    let o = run(&spec, &config).unwrap_or_else(|e| panic!("{e}"));
    let data = o
        .events
        .iter()
        .find_map(|e| match e {
            schedlab_trace::Event::Note { name, data, .. } if name == "wss-profile" => Some(data.clone()),
            _ => None,
        })
        .expect("a wss-profile note in the trace");
    log(&format!("wss-profile: {data}"));
    if schedlab_rt::counters::thread::probe(schedlab_rt::counters::thread::CACHE_MISSES).is_ok() {
        // A PMU: per-job cache misses of each thread, whatever the cache's
        // real behaviour; the estimate is checked only for being measured.
        assert_eq!(data["source"], "perf-event", "{data}");
        assert!(data["mtts"][0]["profiled"].as_u64().unwrap() >= 3, "{data}");
        return;
    }
    // No PMU (this VM): the footprint, and the note says why not perf.
    assert!(
        o.notes
            .iter()
            .any(|n| n
                .starts_with("wss profiler: source footprint (perf_event_open refused the per-thread cache-misses")),
        "{:?}",
        o.notes
    );
    assert_eq!(data["source"], "footprint", "{data}");
    let w = &data["mtts"][0];
    let (declared, estimate) = (w["declared"].as_u64().unwrap(), w["estimate"].as_u64().unwrap());
    assert_eq!(declared, 256 * 1024);
    // 400 ms of 20 ms periods: about 20 MTT-jobs; the helper runs only when
    // the real-time threads leave a CPU idle, and a job it could not clear
    // for in time is not measured, so ask for a few measured jobs.
    let samples: Vec<u64> = w["samples"].as_array().unwrap().iter().map(|s| s.as_u64().unwrap()).collect();
    assert!(samples.len() >= 3, "{w}");
    // The footprint counts the set's own memory area only, so no sample can
    // exceed the set rounded up to pages (here exactly 64 pages).
    for &s in &samples {
        assert!(s <= declared, "a sample over the set's area: {w}");
    }
    assert!(estimate > 0 && estimate <= declared, "{w}");
    // A DAMON monitor clears the same accessed bits (paddr sampling): on a
    // machine running one, whole stretches of jobs read 10–60 of 64 pages,
    // so consecutive jobs rarely agree within the convergence threshold
    // (the profiler then keeps replacing its first job: `profiled` stays 1)
    // and neither the average nor the maximum is a property of the profiler
    // there. The run's note names the monitor; the test prints it and
    // checks the rest.
    if let Some(damon) = schedlab_rt::footprint::damon_running() {
        assert!(data["why"].as_str().unwrap().contains("DAMON"), "the caveat is in the note: {data}");
        log(&format!("the average footprint is not checked: {damon}; estimate {estimate} of {declared}"));
        return;
    }
    // Without a monitor: a job walks for about 1.6 ms of CPU, many passes
    // over the 4,096 lines, so every page is referenced after the clear —
    // except pages reached through translations the CPU cached before the
    // clear, which the kernel sometimes does not mark again
    // (docs/runtime.md, "The working-set profiler on Linux"): a sample may
    // then fall short (one of 20 read 19 of 64 pages on this VM; under a
    // loaded make test most samples read 54–62). So some job reads the
    // whole set exactly, the profiler converges, and the average stays
    // within 10 %.
    assert_eq!(samples.iter().max(), Some(&declared), "some job's footprint is the whole set: {w}");
    assert!(w["profiled"].as_u64().unwrap() >= 2, "{w}");
    assert!(estimate >= declared * 90 / 100, "{w}");
    let error = w["error"].as_f64().unwrap();
    assert!(error.abs() <= 0.10, "{w}");
}

/// The per-job counter path on the real workers, with a software event
/// (`SCHEDLAB_WSS_EVENT=page-faults`; this VM has no PMU for the cache
/// misses): each MTT worker opens the event on its own thread and reads it
/// at its jobs' boundaries; jobs the dispatcher does not preempt are not
/// switched away in between, so most MTT-jobs are profiled. The walk's
/// pages are faulted in by its first job, so the later jobs fault little:
/// the estimate is small (pages), not the working set.
#[test]
fn the_workers_count_their_jobs_with_a_per_thread_event() {
    require_root();
    let _s = serial();
    let spec = spec(SPEC);
    let config = schedlab_rt::RunConfig { workload: "memwalk".parse::<WorkloadSpec>().unwrap(), ..dispatch_cfg(400) };
    let data = counted(&spec, &config).1;
    assert_eq!(data["source"], "perf-event", "{data}");
    assert!(data["why"].as_str().unwrap().contains("page-faults"), "{data}");
    let w = &data["mtts"][0];
    let (profiled, discarded) = (w["profiled"].as_u64().unwrap(), w["discarded"].as_u64().unwrap());
    // 400 ms of 20 ms periods: about 20 MTT-jobs, all counted (no overlap
    // rule here); a preempted one is discarded.
    assert!(profiled + discarded >= 15, "{w}");
    assert!(profiled >= 10, "{w}");
    assert!(w["estimate"].as_u64().unwrap() <= 256 * 1024, "{w}");
}

/// Runs `spec` with `SCHEDLAB_WSS_EVENT=page-faults`: the outcome and its
/// `wss-profile` note.
fn counted(
    spec: &schedlab_model::Spec,
    config: &schedlab_rt::RunConfig,
) -> (schedlab_rt::RunOutcome, serde_json::Value) {
    std::env::set_var("SCHEDLAB_WSS_EVENT", "page-faults");
    let o = run(spec, config);
    std::env::remove_var("SCHEDLAB_WSS_EVENT");
    let o = o.unwrap_or_else(|e| panic!("{e}"));
    let data = o
        .events
        .iter()
        .find_map(|e| match e {
            schedlab_trace::Event::Note { name, data, .. } if name == "wss-profile" => Some(data.clone()),
            _ => None,
        })
        .expect("a wss-profile note in the trace");
    log(&format!("wss-profile: {data}"));
    (o, data)
}

/// A job the dispatcher preempts waits on its gate (a voluntary switch of
/// its thread), so the per-job path discards its MTT-job: two 1 ms tasks
/// every 3 ms preempt the MTT's 4 ms jobs.
#[test]
fn the_workers_per_job_counts_discard_preempted_jobs() {
    require_root();
    let _s = serial();
    let spec = spec("platform: {cpus: 2, cache: {size: 1MiB, ways: 16, line: 64B}}\npolicy: {name: gedf}\ntasks:\n  - {name: a, wcet: 4ms, period: 20ms}\n  - {name: b, wcet: 4ms, period: 20ms}\n  - {name: o, wcet: 1ms, period: 3ms, wss: 64KiB}\n  - {name: p, wcet: 1ms, period: 3ms, wss: 64KiB}\nmtt:\n  - {name: w, tasks: [a, b], wss: 256KiB}\n");
    let config = schedlab_rt::RunConfig { workload: "memwalk".parse::<WorkloadSpec>().unwrap(), ..dispatch_cfg(400) };
    let (o, data) = counted(&spec, &config);
    // The MTT-jobs with a stint of a or b that ended other than by completing.
    let mut preempted: Vec<u64> = o
        .events
        .iter()
        .filter_map(|e| match e {
            schedlab_trace::Event::SwitchAway { task, job, reason, .. }
                if *task < 2 && *reason != schedlab_trace::SwitchReason::Complete =>
            {
                Some(*job)
            }
            _ => None,
        })
        .collect();
    preempted.sort_unstable();
    preempted.dedup();
    let w = &data["mtts"][0];
    let (profiled, discarded) = (w["profiled"].as_u64().unwrap(), w["discarded"].as_u64().unwrap());
    log(&format!("{} MTT-jobs preempted; profiled {profiled}, discarded {discarded}", preempted.len()));
    assert!(!preempted.is_empty(), "the set preempts the MTT's jobs");
    assert!(discarded >= preempted.len() as u64, "{w}");
}
