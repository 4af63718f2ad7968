//! Simulator throughput, in process, trace off (events counted and dropped).
//!
//! The task sets are the ones `bench/simso_compare.py` runs in SimSo:
//! `bench/sets/gedf_m{4,8,16,32,64}.json` (seeded UUniFast-discard,
//! n = 2.5·m tasks, U = 0.6·m, implicit deadlines, periods in whole ms).
//!
//! Groups (filter with `cargo bench -p schedlab-sim --bench sim -- GROUP/`):
//! - `sim/`: G-EDF on the 10-task, 4-CPU set for 10 s (the run compared with
//!   SimSo) and 1000 s (steady state), and 1000 s with the CLI's streaming
//!   metrics accumulator as the sink (what `schedlab simulate` does per event);
//! - `scaling/`: G-EDF from m = 4 to m = 64 (horizon 4000/m s, so every run
//!   has about the same number of events): ns per event;
//! - `policies/`: G-EDF, P-EDF, G-FP, LLF, EDZL, NP-G-EDF on the 10-task set, 1000 s;
//! - `optimal/`: PD^2 and RUN for 10 s on `bench/sets/optimal_{pd2,run}_m4.json`
//!   (10 tasks, m = 4, U = 3.8, the run compared with SimSo's PD2 and RUN) and
//!   `…_m4_u4.json` (the same at U = 4), as the files say (PD^2 with SimSo's
//!   0.1 ms quantum, RUN with first-fit packing); `pd2_m4_10s_q1ms` is the
//!   U = 3.8 set with PD^2's default 1 ms quantum, for scale, and
//!   `run_m4_10s_no_notes` RUN without policy events. A policy that does not
//!   build (not implemented yet) is skipped with a note on stderr. After each
//!   benchmark, about 1 s of runs measures the thread's CPU time per run
//!   (`/proc/thread-self/schedstat`) and prints `bench-cpu {json}`: on a
//!   shared machine it moves much less with the load than the wall time.
//!
//! - `platform/`: the platform model's cost: G-EDF on the 10-task, 4-CPU
//!   and 20-task, 8-CPU sets with an 8 MiB cache and 64 KiB working sets,
//!   100 s, the model off (`off`), on with every task in its own colours
//!   (`private`: bookkeeping only, the schedule of `off`) and on with every
//!   task in the same 16 colours (1 MiB: evictions between jobs) and one
//!   data group writing 2 % (`shared`: every CPU's rate changes at every
//!   switch, about 20 % slower, no overload; `colours`: the same colours
//!   without the group, so rates stay 1.0 and only the CPMD of what was
//!   evicted between jobs is charged); `bench-cpu` gives CPU ns per
//!   run, `bench-counts` the events, so ns per event compare across the three.
//!
//! Before each benchmark one line `bench-counts {json}` goes to stdout with
//! the jobs released and the simulator's events (`SimSummary::events`, queue
//! entries processed) and trace events of one run; the throughput criterion
//! prints is in jobs (elements) per second.

use criterion::measurement::WallTime;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion, SamplingMode, Throughput};
use schedlab_model::{load_path, PolicyName, PolicySpec, Spec};
use schedlab_sim::{simulate, SimConfig, SimSummary};
use schedlab_trace::Metrics;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

const S: u64 = 1_000_000_000;

fn set(m: usize) -> Spec {
    named_set(&format!("gedf_m{m}"))
}

fn named_set(name: &str) -> Spec {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("../../bench/sets/{name}.json"));
    load_path(&p).unwrap_or_else(|e| panic!("{}: {e} (run `python3 bench/simso_compare.py sets`)", p.display())).spec
}

fn with_policy(spec: &Spec, name: PolicyName) -> Spec {
    let mut s = spec.clone();
    s.policy = Some(PolicySpec::named(name));
    s
}

fn run_counting(spec: &Spec, config: &SimConfig) -> (u64, SimSummary) {
    let mut policy = schedlab_policy::build(spec, None).expect("the policy admits the set");
    let mut n = 0u64;
    let s = simulate(spec, policy.as_mut(), config, &mut |_| n += 1).expect("simulation");
    (n, s)
}

/// One untimed run: prints the counts the script reads, returns the jobs.
fn counts(group: &str, id: &str, spec: &Spec, config: &SimConfig) -> u64 {
    let (trace_events, s) = run_counting(spec, config);
    assert_eq!(trace_events, s.trace_events);
    println!(
        "bench-counts {{\"id\":\"{group}/{id}\",\"m\":{},\"tasks\":{},\"horizon_s\":{},\"jobs\":{},\"completed\":{},\"misses\":{},\"events\":{},\"trace_events\":{}}}",
        spec.platform.cpus,
        spec.tasks.len(),
        config.horizon.unwrap() as f64 / S as f64,
        s.released(),
        s.completed(),
        s.missed(),
        s.events,
        s.trace_events
    );
    s.released()
}

fn bench_one(g: &mut BenchmarkGroup<'_, WallTime>, group: &str, id: &str, spec: &Spec, horizon: u64) {
    let config = SimConfig { horizon: Some(horizon), ..SimConfig::default() };
    let jobs = counts(group, id, spec, &config);
    g.throughput(Throughput::Elements(jobs));
    g.bench_function(id, |b| b.iter(|| black_box(run_counting(spec, &config))));
}

fn configure(g: &mut BenchmarkGroup<'_, WallTime>) {
    // Runs of 10–300 ms: flat sampling, 10 samples, short warm-up, so that a
    // group stays within a minute or two on a loaded 2-core machine.
    g.sampling_mode(SamplingMode::Flat);
    g.sample_size(10);
    g.warm_up_time(Duration::from_secs(1));
    g.measurement_time(Duration::from_secs(3));
}

fn sim(c: &mut Criterion) {
    let spec = set(4);
    let mut g = c.benchmark_group("sim");
    configure(&mut g);
    bench_one(&mut g, "sim", "gedf_m4_10s", &spec, 10 * S);
    bench_one(&mut g, "sim", "gedf_m4_1000s", &spec, 1000 * S);

    // The same run with the CLI's per-event work: the streaming metrics
    // accumulator (per-task response times, tardiness, preemptions, ...).
    let config = SimConfig { horizon: Some(1000 * S), ..SimConfig::default() };
    let jobs = counts("sim", "gedf_m4_1000s_metrics", &spec, &config);
    g.throughput(Throughput::Elements(jobs));
    g.bench_function("gedf_m4_1000s_metrics", |b| {
        b.iter(|| {
            let mut policy = schedlab_policy::build(&spec, None).expect("G-EDF admits the set");
            let header = schedlab_sim::header(&spec, policy.info(), &config);
            let mut metrics = Metrics::from_header(&header);
            let s = simulate(&spec, policy.as_mut(), &config, &mut |e| metrics.push(e)).expect("simulation");
            black_box((metrics.finish().0, s.events))
        })
    });
    g.finish();
}

fn scaling(c: &mut Criterion) {
    let mut g = c.benchmark_group("scaling");
    configure(&mut g);
    for m in [4usize, 8, 16, 32, 64] {
        let spec = set(m);
        bench_one(&mut g, "scaling", &format!("gedf_m{m:02}"), &spec, 4000 * S / m as u64);
    }
    g.finish();
}

fn policies(c: &mut Criterion) {
    let base = set(4);
    let mut g = c.benchmark_group("policies");
    configure(&mut g);
    for (id, name) in [
        ("gedf", PolicyName::Gedf),
        ("pedf", PolicyName::Pedf),
        ("gfp", PolicyName::Gfp),
        ("llf", PolicyName::Llf),
        ("edzl", PolicyName::Edzl),
        ("np-gedf", PolicyName::NpGedf),
    ] {
        bench_one(&mut g, "policies", id, &with_policy(&base, name), 1000 * S);
    }
    g.finish();
}

/// On-CPU time of this thread in ns (`/proc/thread-self/schedstat`, Linux),
/// `None` elsewhere.
fn thread_cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat").ok()?.split_whitespace().next()?.parse().ok()
}

/// CPU time per run, beside criterion's wall time: on a shared machine the
/// wall time of a run grows with the load, its CPU time much less. Runs for
/// about a second and prints `bench-cpu {json}` for the script.
fn cpu_time(id: &str, spec: &Spec, config: &SimConfig) {
    // Only for benchmarks the command line selects (criterion's filter is a
    // regex; a substring test is enough for the ids here).
    let filters: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    if !filters.is_empty() && !filters.iter().any(|f| id.contains(f.trim_end_matches('$'))) {
        return;
    }
    let (Some(c0), t0) = (thread_cpu_ns(), std::time::Instant::now()) else { return };
    let mut iters = 0u64;
    while iters < 3 || t0.elapsed() < Duration::from_secs(1) {
        black_box(run_counting(spec, config));
        iters += 1;
    }
    let (cpu, wall) = (thread_cpu_ns().unwrap_or(c0) - c0, t0.elapsed().as_nanos() as u64);
    println!("bench-cpu {{\"id\":\"{id}\",\"iters\":{iters},\"cpu_ns\":{cpu},\"wall_ns\":{wall}}}");
}

fn optimal(c: &mut Criterion) {
    let mut g = c.benchmark_group("optimal");
    configure(&mut g);
    let pd2_q1ms = {
        let mut s = named_set("optimal_pd2_m4");
        s.policy.as_mut().expect("the set names its policy").quantum = None;
        s
    };
    for (id, spec) in [
        ("pd2_m4_10s", named_set("optimal_pd2_m4")),
        ("run_m4_10s", named_set("optimal_run_m4")),
        ("pd2_m4_u4_10s", named_set("optimal_pd2_m4_u4")),
        ("run_m4_u4_10s", named_set("optimal_run_m4_u4")),
        ("pd2_m4_10s_q1ms", pd2_q1ms),
    ] {
        // Until PD^2 and RUN exist, the other groups must still run.
        if let Err(e) = schedlab_policy::build(&spec, None) {
            eprintln!("optimal/{id}: skipped, the policy does not build: {e}");
            continue;
        }
        bench_one(&mut g, "optimal", id, &spec, 10 * S);
        cpu_time(&format!("optimal/{id}"), &spec, &SimConfig { horizon: Some(10 * S), ..SimConfig::default() });
    }
    // RUN as above without its policy events (`Kernel::note`, one JSON
    // payload per server (de)allocation): `schedlab simulate` records them
    // even without a trace, so `run_m4_10s` includes them; this measures
    // what they cost.
    let spec = named_set("optimal_run_m4");
    if schedlab_policy::build(&spec, None).is_ok() {
        let config = SimConfig { horizon: Some(10 * S), policy_events: false, ..SimConfig::default() };
        let jobs = counts("optimal", "run_m4_10s_no_notes", &spec, &config);
        g.throughput(Throughput::Elements(jobs));
        g.bench_function("run_m4_10s_no_notes", |b| b.iter(|| black_box(run_counting(&spec, &config))));
        cpu_time("optimal/run_m4_10s_no_notes", &spec, &config);
    }
    g.finish();
}

/// `spec` with an 8 MiB cache and 64 KiB working sets: `shared` puts every
/// task in colours 0–15 and one data group (2 % writes), otherwise task `i`
/// gets colours 4i–4i+3 (nothing shared).
fn cached(spec: &Spec, shared: bool) -> Spec {
    cached_with(spec, shared, shared)
}

/// [`cached`] with the colours and the data group chosen apart.
fn cached_with(spec: &Spec, shared: bool, group: bool) -> Spec {
    let mut s = spec.clone();
    s.platform.cache = Some(schedlab_model::Cache {
        size: schedlab_model::Size(8 << 20),
        ways: 16,
        line: schedlab_model::Size(64),
        page: None,
        colors: None,
        shared_by: None,
        private: None,
    });
    for (i, t) in s.tasks.iter_mut().enumerate() {
        let (lo, hi) = if shared { (0, 15) } else { (4 * i as u32, 4 * i as u32 + 3) };
        t.wss = Some(schedlab_model::Size(64 << 10));
        t.colors = Some(format!("{lo}-{hi}").parse().expect("a colour range"));
        if group {
            t.data_group = Some("g".into());
            t.write_ratio = Some("0.02".parse().expect("a ratio"));
        }
    }
    s
}

fn platform(c: &mut Criterion) {
    let mut g = c.benchmark_group("platform");
    configure(&mut g);
    for m in [4, 8] {
        let base = set(m);
        let horizon = 100 * S;
        for (id, spec, model) in [
            (format!("gedf_m{m}_off"), cached(&base, false), false),
            (format!("gedf_m{m}_private"), cached(&base, false), true),
            (format!("gedf_m{m}_colours"), cached_with(&base, true, false), true),
            (format!("gedf_m{m}_shared"), cached(&base, true), true),
        ] {
            let config = SimConfig { horizon: Some(horizon), platform_model: model, ..SimConfig::default() };
            let jobs = counts("platform", &id, &spec, &config);
            g.throughput(Throughput::Elements(jobs));
            g.bench_function(id.as_str(), |b| b.iter(|| black_box(run_counting(&spec, &config))));
            cpu_time(&format!("platform/{id}"), &spec, &config);
        }
    }
    g.finish();
}

criterion_group!(benches, sim, scaling, policies, optimal, platform);
criterion_main!(benches);
