//! Segmented jobs on the dispatch backend, run for real (root): under FPDS
//! and G-FPDS a lower-priority job is preempted only at its preemption
//! points (the validator's point checks pass and the preemptions at points
//! are counted: the sets are built to need them), a higher-priority job
//! released inside a subjob waits for the next point, FPNS never preempts,
//! and a `suspend` segment is a real block / resume that gives the CPU to
//! another job. Tolerance and retries as in `dispatch.rs` (see `common.rs`).
//! Whole file: ~15 s.

mod common;
use common::*;
use schedlab_rt::{run, Execution, RunConfig, RunOutcome, WorkloadSpec};
use schedlab_trace::{Event, SwitchReason};

fn run_checked(name: &str, spec: &schedlab_model::Spec, ms: u64) -> Result<RunOutcome, Failure> {
    let o = run(spec, &dispatch_cfg(ms)).map_err(|e| format!("{name}: {e}"))?;
    eprintln!("{name}: {}", o.notes.join("; "));
    if o.stop != schedlab_rt::StopReason::Finished {
        return Err(Failure::Hard(format!("{name}: stopped: {:?} {:?}", o.stop, o.notes)));
    }
    if !o.integrity.complete() {
        return Err(Failure::Hard(format!("{name}: trace integrity {:?}", o.integrity)));
    }
    let misses = count(&o.events, |e| matches!(e, Event::DeadlineMiss { .. }));
    if misses > 0 {
        let tol = min_exec(spec) / 5;
        return Err(Failure::of_run(&o, spec, 0.8, tol, format!("{name}: {misses} deadline misses")));
    }
    Ok(o)
}

/// The preemptions of `task`'s jobs, each with the time of that job's last
/// preemption point before it (None: none).
fn preemptions(events: &[Event], task: u32) -> Vec<(u64, Option<u64>)> {
    let mut out = Vec::new();
    for (k, e) in events.iter().enumerate() {
        if let Event::SwitchAway { t, task: tk, job, reason: SwitchReason::Preempt, .. } = e {
            if *tk != task {
                continue;
            }
            let point = events[..k].iter().rev().find_map(|p| match p {
                Event::SegmentEnd { t: pt, task: pk, job: pj, .. } if (*pk, *pj) == (task, *job) => Some(*pt),
                _ => None,
            });
            out.push((*t, point));
        }
    }
    out
}

/// Per job of `task`: release → first instruction.
fn waits(events: &[Event], task: u32) -> Vec<u64> {
    let mut rel = std::collections::BTreeMap::new();
    let mut out = Vec::new();
    for e in events {
        match e {
            Event::Release { t, task: tk, job, .. } if *tk == task => {
                rel.insert(*job, *t);
            }
            Event::SwitchTo { t, task: tk, job, .. } if *tk == task => {
                if let Some(r) = rel.remove(job) {
                    out.push(t - r);
                }
            }
            _ => {}
        }
    }
    out
}

/// On CPU 1: `low` runs three subjobs of 30 ms (24 ms at 80 %) from 0 every
/// 400 ms; `high` (20 ms every 100 ms, offset 10 ms) is released inside a
/// subjob of `low` in each period: it waits for `low`'s next point (at 24,
/// 48 or 72 ms into the job), where `low` is preempted.
const PARTITIONED: &str = "  - {name: high, wcet: 20ms, period: 100ms, offset: 10ms, cpu: 1}
  - {name: low, period: 400ms, subjobs: [30ms, 30ms, 30ms], cpu: 1}
";

#[test]
fn fpds_preempts_only_at_points_and_a_release_waits_for_the_next_point() {
    require_root();
    let _s = serial();
    let before = state();
    let spec = spec(&format!("platform: {{cpus: 2}}\npolicy: {{name: fpds}}\ntasks:\n{PARTITIONED}"));
    retry_stalls("fpds", || {
        let o = run_checked("fpds", &spec, 2000)?;
        let tol = validate_dispatch(&o, &spec, "fpds")?;
        let pre = preemptions(&o.events, 1);
        // Every 400 ms `high` arrives inside `low`'s first subjob (10 ms
        // into it): five jobs of `low`, each preempted at a point.
        ensure!(pre.len() >= 4, "low was preempted {} times at points, want at least 4", pre.len());
        for &(t, p) in &pre {
            ensure!(
                p.is_some_and(|p| t >= p && t - p <= tol),
                "low preempted at {t} not at a point ({p:?}, tolerance {tol})"
            );
        }
        // `high` released 10 ms into `low`'s first subjob waits ~14 ms
        // (under full preemption it would start within the latency).
        let w = waits(&o.events, 0);
        let deferred = w.iter().filter(|&&d| d > 8_000_000).count();
        ensure!(deferred >= 4, "high waited for a point {deferred} times: {w:?}");
        let stats = o.notes.iter().find(|n| n.contains("preemption points reported")).cloned().unwrap_or_default();
        ensure!(!stats.is_empty(), "the dispatcher reported no preemption point: {:?}", o.notes);
        eprintln!("fpds: {} preemptions at points; {stats}", pre.len());
        Ok(())
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(state(), before, "the machine is as before");
}

#[test]
fn g_fpds_yields_at_the_first_point_and_fpns_never_preempts() {
    require_root();
    let _s = serial();
    let before = state();
    // Global: both CPUs run a subjob of 30 ms when `high` arrives; the
    // first of the two to reach a point yields.
    let tasks = "  - {name: high, wcet: 20ms, period: 100ms, offset: 10ms}
  - {name: l1, period: 400ms, subjobs: [30ms, 30ms, 30ms]}
  - {name: l2, period: 400ms, subjobs: [30ms, 30ms, 30ms]}
";
    let g = spec(&format!("platform: {{cpus: 2}}\npolicy: {{name: g-fpds}}\ntasks:\n{tasks}"));
    retry_stalls("g-fpds", || {
        let o = run_checked("g-fpds", &g, 2000)?;
        let tol = validate_dispatch(&o, &g, "g-fpds")?;
        let mut n = 0;
        for task in [1, 2] {
            for (t, p) in preemptions(&o.events, task) {
                ensure!(p.is_some_and(|p| t >= p && t - p <= tol), "task {task} preempted at {t} not at a point");
                n += 1;
            }
        }
        ensure!(n >= 4, "{n} preemptions at points, want at least 4");
        Ok(())
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let np = spec(&format!("platform: {{cpus: 2}}\npolicy: {{name: fpns}}\ntasks:\n{PARTITIONED}"));
    retry_stalls("fpns", || {
        let o = run_checked("fpns", &np, 2000)?;
        validate_dispatch(&o, &np, "fpns")?;
        ensure!(preemptions(&o.events, 1).is_empty(), "fpns preempted low");
        // `high` released inside `low` waits for the whole job (to 72 ms).
        let w = waits(&o.events, 0);
        ensure!(w.iter().filter(|&&d| d > 50_000_000).count() >= 4, "high did not wait for low's end: {w:?}");
        Ok(())
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(state(), before, "the machine is as before");
}

#[test]
fn a_suspension_blocks_gives_the_cpu_away_and_resumes() {
    require_root();
    let _s = serial();
    let before = state();
    // `io` computes 16 ms, suspends 30 ms, computes 16 ms; `bg` (lower
    // priority, released 5 ms in) gets CPU 1 during the suspension and is
    // preempted when `io` resumes (P-FP, full preemption).
    let tasks = "  - {name: io, period: 200ms, segments: [{exec: 20ms}, {suspend: 30ms}, {exec: 20ms}], cpu: 1}
  - {name: bg, wcet: 40ms, period: 400ms, offset: 5ms, cpu: 1}
";
    for policy in ["pfp", "fpds"] {
        let s = spec(&format!("platform: {{cpus: 2}}\npolicy: {{name: {policy}}}\ntasks:\n{tasks}"));
        retry_stalls(policy, || {
            let o = run_checked(policy, &s, 2000)?;
            validate_dispatch(&o, &s, policy)?;
            let jobs = count(&o.events, |e| matches!(e, Event::Release { task: 0, .. }));
            let blocks = count(&o.events, |e| matches!(e, Event::Block { task: 0, .. }));
            let resumes = count(&o.events, |e| matches!(e, Event::Resume { task: 0, .. }));
            let aways =
                count(&o.events, |e| matches!(e, Event::SwitchAway { task: 0, reason: SwitchReason::Block, .. }));
            ensure!(
                jobs >= 9 && blocks == jobs && resumes == jobs && aways == jobs,
                "{jobs} jobs of io: {blocks} blocks, {resumes} resumes, {aways} block switch-aways"
            );
            // Each block is after io's first segment (a segment-end at the same instant).
            let ends = count(&o.events, |e| matches!(e, Event::SegmentEnd { task: 0, segment: 0, .. }));
            ensure!(ends == jobs, "{ends} segment-end events of io's first segment for {jobs} jobs");
            // bg ran while io was suspended: its first switch-to follows a block of io.
            let mut suspended = false;
            let mut ran_in_suspension = 0;
            for e in &o.events {
                match e {
                    Event::Block { task: 0, .. } => suspended = true,
                    Event::Resume { task: 0, .. } => suspended = false,
                    Event::SwitchTo { task: 1, .. } if suspended => ran_in_suspension += 1,
                    _ => {}
                }
            }
            ensure!(ran_in_suspension >= 4, "bg ran {ran_in_suspension} times during io's suspensions");
            // A suspension of 30 ms: io's jobs respond in about 16 + 30 + 16 ms.
            let resp: Vec<u64> = o
                .events
                .iter()
                .filter_map(|e| match e {
                    Event::Completion { t, task: 0, job, .. } => Some(t - 200_000_000 * job),
                    _ => None,
                })
                .collect();
            ensure!(
                resp.iter().all(|&r| r >= 62_000_000),
                "an io job responded before its suspension could end: {resp:?}"
            );
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
    }
    assert_eq!(state(), before, "the machine is as before");
}

/// A C job body (`c:LIB:SYMBOL`, built here against the header the Python
/// package ships) runs its job's segments and calls `preemption_point`
/// between them: under FPDS `low` is preempted at those points only, and a
/// body that reads only the fields before the segments still works (`high`).
/// The same body's `suspend` segments block and resume (P-FP).
#[test]
fn a_c_body_takes_its_preemption_points() {
    require_root();
    let _s = serial();
    let before = state();
    let d = std::env::temp_dir().join(format!("schedlab-c-points-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let src = d.join("job.c");
    std::fs::write(
        &src,
        r#"#include <schedlab.h>
#include <time.h>
static uint64_t cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
static void spin(uint64_t ns) { uint64_t end = cpu_ns() + ns; while (cpu_ns() < end) {} }
int segmented(const struct schedlab_job *job) {
    for (uint32_t i = 0; i < job->n_segments; i++) {
        if (i > 0 && job->segments[i].kind != SCHEDLAB_SUSPEND && job->segments[i - 1].kind != SCHEDLAB_SUSPEND
            && job->preemption_point(job)) return 0;
        if (job->segments[i].kind == SCHEDLAB_SUSPEND) {
            if (job->suspend(job, job->segments[i].demand_ns)) return 0;
        } else {
            spin(job->segments[i].demand_ns);
        }
    }
    return job->n_segments > 0 ? 0 : 9;
}
int whole(const struct schedlab_job *job) { spin(job->exec_ns); return 0; }
"#,
    )
    .unwrap();
    let lib = d.join("libjob.so");
    let include = concat!(env!("CARGO_MANIFEST_DIR"), "/../../python/schedlab/include");
    let cc = std::process::Command::new("cc")
        .args(["-shared", "-fPIC", "-O1", "-I", include, "-o"])
        .arg(&lib)
        .arg(&src)
        .output()
        .expect("cc runs");
    assert!(cc.status.success(), "cc: {}", String::from_utf8_lossy(&cc.stderr));
    let s = spec(&format!("platform: {{cpus: 2}}\npolicy: {{name: fpds}}\ntasks:\n{PARTITIONED}"));
    let c = |symbol: &str| WorkloadSpec::CFunction {
        library: lib.to_str().unwrap().into(),
        symbol: symbol.into(),
        arg: None,
    };
    retry_stalls("fpds, C bodies", || {
        let config = RunConfig { workloads: vec![(0, c("whole")), (1, c("segmented"))], ..dispatch_cfg(2000) };
        let o = run(&s, &config).map_err(|e| format!("fpds, C bodies: {e}"))?;
        ensure!(o.stop == schedlab_rt::StopReason::Finished, "stopped: {:?} {:?}", o.stop, o.notes);
        let tol = validate_dispatch(&o, &s, "fpds, C bodies")?;
        let pre = preemptions(&o.events, 1);
        ensure!(pre.len() >= 4, "low (C) was preempted {} times at points, want at least 4", pre.len());
        for &(t, p) in &pre {
            ensure!(p.is_some_and(|p| t >= p && t - p <= tol), "low preempted at {t} not at a point ({p:?})");
        }
        Ok(())
    })
    .unwrap_or_else(|e| panic!("{e}"));
    // The same body suspends itself through `job->suspend` (P-FP).
    let io = spec(
        "platform: {cpus: 2}\npolicy: {name: pfp}\ntasks:
  - {name: io, period: 200ms, segments: [{exec: 20ms}, {suspend: 30ms}, {exec: 20ms}], cpu: 1}
  - {name: bg, wcet: 40ms, period: 400ms, offset: 5ms, cpu: 1}
",
    );
    retry_stalls("pfp, a C body suspends", || {
        let config = RunConfig { workloads: vec![(0, c("segmented")), (1, c("whole"))], ..dispatch_cfg(1000) };
        let o = run(&io, &config).map_err(|e| format!("pfp, C suspension: {e}"))?;
        ensure!(o.stop == schedlab_rt::StopReason::Finished, "stopped: {:?} {:?}", o.stop, o.notes);
        validate_dispatch(&o, &io, "pfp, a C body suspends")?;
        let jobs = count(&o.events, |e| matches!(e, Event::Release { task: 0, .. }));
        let blocks = count(&o.events, |e| matches!(e, Event::Block { task: 0, .. }));
        let resumes = count(&o.events, |e| matches!(e, Event::Resume { task: 0, .. }));
        ensure!(
            jobs >= 4 && blocks == jobs && resumes == jobs,
            "{jobs} jobs of io: {blocks} blocks, {resumes} resumes"
        );
        Ok(())
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let _ = std::fs::remove_dir_all(&d);
    assert_eq!(state(), before, "the machine is as before");
}

/// A job's task, number and segments as its body saw them.
type Recorded = (u32, u64, Vec<schedlab_jobs::SegmentDemand>);

/// The segments a job body gets are the job model's draws, job by job —
/// the draws `schedlab simulate` makes with the same seed (the run's and
/// the simulator's job models are the same: `jobs_match_simulation.rs`):
/// uniform execution and suspensions, seed 7, a Rust body recording them.
#[test]
fn a_job_gets_the_segments_the_simulation_draws() {
    require_root();
    let _s = serial();
    let s = spec(
        "platform: {cpus: 2}\npolicy: {name: fpds}\ntasks:
  - {name: a, bcet: 2ms, period: 20ms, segments: [{exec: 2ms}, {suspend: 3ms}, {memory: 1ms}, {exec: 2ms}], cpu: 1}
  - {name: b, period: 10ms, subjobs: [1ms, 2ms, 1ms], cpu: 1}
",
    );
    let seen: std::sync::Arc<std::sync::Mutex<Vec<Recorded>>> = Default::default();
    let rec = seen.clone();
    let body = WorkloadSpec::rust("recorder", move |_task| {
        let rec = rec.clone();
        Box::new(move |ctx: &mut schedlab_rt::JobCtx| {
            rec.lock().unwrap().push((ctx.task, ctx.job, ctx.segments.to_vec()));
            ctx.run_segments(|ctx, ns, _| ctx.spin_cpu(ns))
        })
    });
    let config = RunConfig { seed: 7, execution: Execution::Uniform, workload: body, ..dispatch_cfg(500) };
    let o = run(&s, &config).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(o.stop, schedlab_rt::StopReason::Finished, "{:?}", o.notes);
    let seen = seen.lock().unwrap();
    for (i, t) in s.tasks.iter().enumerate() {
        let mut model = config.job_model().segment_demands(t, i);
        let jobs: Vec<_> = seen.iter().filter(|(task, _, _)| *task == i as u32).collect();
        assert!(jobs.len() >= 20, "task {i}: {} jobs", jobs.len());
        for (k, (_, job, segs)) in jobs.iter().enumerate() {
            assert_eq!(*job, k as u64, "task {i}: jobs in order");
            assert_eq!(segs.as_slice(), model.next_job(), "task {i} job {job}");
        }
    }
    // Uniform draws differ from job to job (not every job at its WCET).
    let a: Vec<_> = seen.iter().filter(|(task, _, _)| *task == 0).map(|(_, _, s)| s).collect();
    assert!(a.windows(2).any(|w| w[0] != w[1]), "task a's segments never changed");
}
