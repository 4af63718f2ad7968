//! Simulator throughput: a G-EDF workload of 10 tasks on 4 CPUs, 10 s of
//! simulated time, trace off (events counted and dropped).

use criterion::{criterion_group, criterion_main, Criterion};
use schedlab_model::{Duration, Platform, PolicyName, PolicySpec, Spec, Task};
use schedlab_sim::{simulate, SimConfig};
use std::hint::black_box;

fn workload() -> Spec {
    // Total utilisation 3.2 on 4 CPUs; periods 2–50 ms.
    let params: [(u64, u64); 10] = [
        (1_000_000, 2_000_000),
        (1_500_000, 5_000_000),
        (2_000_000, 8_000_000),
        (3_000_000, 10_000_000),
        (2_500_000, 10_000_000),
        (4_000_000, 16_000_000),
        (6_000_000, 20_000_000),
        (5_000_000, 25_000_000),
        (9_000_000, 40_000_000),
        (5_000_000, 50_000_000),
    ];
    Spec {
        meta: None,
        platform: Platform { cpus: 4, clusters: None, cache: None },
        policy: Some(PolicySpec::named(PolicyName::Gedf)),
        overheads: None,
        tasks: params.iter().enumerate().map(|(i, &(c, p))| Task::new(format!("t{i}"), Duration(c), Duration(p))).collect(),
    }
}

fn bench(c: &mut Criterion) {
    let spec = workload();
    let config = SimConfig { horizon: Some(10_000_000_000), ..SimConfig::default() };
    let mut g = c.benchmark_group("sim");
    g.sample_size(10);
    g.bench_function("gedf_10_tasks_4_cpus_10s", |b| {
        b.iter(|| {
            let mut policy = schedlab_policy::build(&spec, None).expect("G-EDF admits the workload");
            let mut n = 0u64;
            let s = simulate(&spec, policy.as_mut(), &config, &mut |_| n += 1).expect("simulation");
            black_box((n, s.events))
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
