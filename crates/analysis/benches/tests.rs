//! Schedulability tests, time per task set.
//!
//! The issue's workload (SchedCAT's comparison, issue 5): 10,000 sets of 10
//! tasks on m = 4 CPUs, periods uniform in 10–100 ms (whole µs),
//! utilisations uniform in [0.1, 0.4], implicit deadlines ([`issue_sets`]).
//! Criterion's throughput is per set, so "thrpt" reads sets per second and
//! time / 10,000 is the time per set. Uniprocessor tests run on 1,000
//! 5-task sets on one CPU with utilisations in [0.05, 0.2].
//!
//! `cargo bench -p schedlab-analysis --bench tests -- GROUP/` with GROUP
//! `partitioned` (verdicts, FFD), `partitioned-explained`, `uni`, `global`
//! (verdicts: `decide`, no explanation), `global-explained` (registry
//! entries), `batch` (`schedlab_analysis::batch` on 1 and 2 threads).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use schedlab_admission::partition::Heuristic;
use schedlab_analysis::batch;
use schedlab_analysis::schedulability::{find, Input, TaskParams};
use schedlab_model::rng::Rng;
use std::hint::black_box;

const SETS: usize = 1000;

/// `SETS` sets of `n` implicit-deadline tasks, periods 10–100 ms in whole
/// µs, utilisations uniform in [lo, hi].
pub fn sets(seed: u64, cpus: u32, n: usize, lo: f64, hi: f64) -> Vec<Input> {
    let mut r = Rng::new(seed);
    (0..SETS)
        .map(|_| {
            let tasks = (0..n)
                .map(|_| {
                    let p = r.range_u64(10_000, 100_000) * 1000;
                    let c = ((r.uniform(lo, hi) * p as f64) as u64).max(1);
                    TaskParams::implicit(c, p)
                })
                .collect();
            Input::new(cpus, tasks)
        })
        .collect()
}

/// The issue's 10,000 sets: 10 tasks, m = 4, periods 10–100 ms, u in [0.1, 0.4].
pub fn issue_sets() -> Vec<Input> {
    (0..10).flat_map(|k| sets(30 + k, 4, 10, 0.1, 0.4)).collect()
}

/// Explained outcomes (the registry entries' `run`).
fn run_group(c: &mut Criterion, group: &str, ids: &[&str], inputs: &[Input]) {
    let mut g = c.benchmark_group(group);
    g.throughput(Throughput::Elements(inputs.len() as u64));
    for id in ids {
        let test = find(id).unwrap_or_else(|| panic!("{id} is registered"));
        g.bench_function(*id, |b| {
            b.iter(|| inputs.iter().map(|i| (test.run)(black_box(i)).verdict as usize).sum::<usize>())
        });
    }
    g.finish();
}

/// Verdicts (the registry's fast paths, `Test::verdict`).
fn verdict_group(c: &mut Criterion, group: &str, ids: &[&str], inputs: &[Input]) {
    let mut g = c.benchmark_group(group);
    g.throughput(Throughput::Elements(inputs.len() as u64));
    for id in ids {
        let test = find(id).unwrap_or_else(|| panic!("{id} is registered"));
        g.bench_function(*id, |b| b.iter(|| inputs.iter().map(|i| test.verdict(black_box(i)) as usize).sum::<usize>()));
    }
    g.finish();
}

const PARTITIONED: &[&str] = &["pedf.qpa", "pedf.util", "pedf.density", "pfp.rta", "pfp.util-rta", "pfp.hyperbolic"];

/// P-EDF / P-FP with first-fit decreasing on the issue's sets.
fn partitioned(c: &mut Criterion) {
    let mut inputs = issue_sets();
    for i in &mut inputs {
        i.options.heuristics = vec![Heuristic::FFD];
    }
    verdict_group(c, "partitioned", PARTITIONED, &inputs);
    run_group(c, "partitioned-explained", PARTITIONED, &inputs[..1000]);
}

/// `schedlab_analysis::batch` on the issue's sets: one test at a time on 1
/// and 2 threads, and all of them in one call.
fn batches(c: &mut Criterion) {
    let mut inputs = issue_sets();
    for i in &mut inputs {
        i.options.heuristics = vec![Heuristic::FFD];
    }
    let all =
        ["gedf.gfb", "gedf.bak", "gedf.bcl", "gedf.bcl-iterative", "gedf.rta", "gedf.bar", "gedf.any", "pedf.qpa"];
    let mut g = c.benchmark_group("batch");
    g.throughput(Throughput::Elements(inputs.len() as u64));
    for id in ["gedf.rta", "gedf.any", "pedf.qpa"] {
        let tests = batch::tests(&[id]).expect("registered");
        for threads in [1, 2] {
            g.bench_function(format!("{id}/{threads}-threads"), |b| {
                b.iter(|| batch::run(black_box(&inputs), &tests, Some(threads)).len())
            });
        }
    }
    let tests = batch::tests(&all).expect("registered");
    for threads in [1, 2] {
        g.bench_function(format!("all-8/{threads}-threads"), |b| {
            b.iter(|| batch::run(black_box(&inputs), &tests, Some(threads)).len())
        });
    }
    g.finish();
}

fn uni(c: &mut Criterion) {
    let inputs = sets(2, 1, 5, 0.05, 0.2);
    run_group(
        c,
        "uni",
        &[
            "uni.edf.util",
            "uni.edf.density",
            "uni.edf.qpa",
            "uni.fp.ll",
            "uni.fp.hyperbolic",
            "uni.fp.rta",
            "uni.fpds.rta",
        ],
        &inputs,
    );
}

/// The global tests on the issue's 10,000 sets: `global/` times the fast
/// path (`decide`, no explanation), `global-explained/` the registry entry
/// (explained outcome, on the first 1,000 of them).
fn global(c: &mut Criterion) {
    use schedlab_analysis::schedulability::gedf::{bak, bar, bcl, bcl_iterative, combined, ffdbf, gfb, load, rta};
    use schedlab_analysis::schedulability::gfp::{bertogna, guan};
    use schedlab_analysis::schedulability::Verdict;
    let inputs = issue_sets();
    type Decide = fn(&[TaskParams], u32) -> Verdict;
    let tests: &[(&str, Decide)] = &[
        (gfb::ID, gfb::decide),
        (bak::ID, bak::decide),
        (bcl::ID, bcl::decide),
        (bcl_iterative::ID, bcl_iterative::decide),
        (rta::ID, rta::decide),
        (bar::ID, bar::decide),
        (load::ID, load::decide),
        (ffdbf::ID, ffdbf::decide),
        (combined::ID, combined::decide),
    ];
    let mut g = c.benchmark_group("global");
    g.throughput(Throughput::Elements(inputs.len() as u64));
    for (id, decide) in tests {
        g.bench_function(*id, |b| {
            b.iter(|| inputs.iter().map(|i| decide(black_box(&i.tasks), i.cpus) as usize).sum::<usize>())
        });
    }
    let orders: Vec<Vec<usize>> = inputs
        .iter()
        .map(|i| {
            let mut o: Vec<usize> = (0..i.tasks.len()).collect();
            o.sort_by_key(|&k| (i.tasks[k].period, k));
            o
        })
        .collect();
    g.bench_function(bertogna::ID, |b| {
        b.iter(|| {
            inputs
                .iter()
                .zip(&orders)
                .map(|(i, o)| bertogna::decide(black_box(&i.tasks), i.cpus, o) as usize)
                .sum::<usize>()
        })
    });
    g.bench_function(guan::ID, |b| {
        b.iter(|| {
            inputs
                .iter()
                .zip(&orders)
                .map(|(i, o)| guan::decide(black_box(&i.tasks), i.cpus, o) as usize)
                .sum::<usize>()
        })
    });
    g.finish();
    let ids: Vec<&str> = tests.iter().map(|t| t.0).collect();
    run_group(c, "global-explained", &ids, &inputs[..1000]);
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).warm_up_time(std::time::Duration::from_millis(500)).measurement_time(std::time::Duration::from_secs(2));
    targets = partitioned, uni, global, batches
}
criterion_main!(benches);
