//! The report built from the simulator's own accounting
//! (`schedlab_sim::report::report`, what `schedlab simulate` prints when
//! nothing else needs the events) equals the streaming metrics' report over
//! the same run's trace events, and a run without a sink
//! (`schedlab_sim::simulate_summary`) has the same summary: the examples and random sets under several
//! policies, overheads (release latency, ticks, CPMD), overruns, miss
//! policies and sporadic arrivals.

use schedlab_model::overheads::{Cpmd, Overheads};
use schedlab_sim::{simulate_collect, Arrivals, Costs, Execution, MissPolicy, SimConfig, Sporadic};
use schedlab_trace::MetricsReport;
use std::path::Path;

/// Both reports of one run; `None` when the policy does not admit the set.
fn both(spec: &schedlab_model::Spec, config: &SimConfig) -> Option<(MetricsReport, MetricsReport)> {
    let mut policy = schedlab_policy::build(spec, None).ok()?;
    let header = schedlab_sim::header(spec, policy.info(), config);
    let (events, summary) = simulate_collect(spec, policy.as_mut(), config).ok()?;
    // Without a sink the simulator builds no events; its summary is the same.
    let mut again = schedlab_policy::build(spec, None).ok()?;
    assert_eq!(schedlab_sim::simulate_summary(spec, again.as_mut(), config).unwrap(), summary);
    let mut streamed = schedlab_trace::metrics::compute(&header, &events);
    // Only the streaming metrics follow MTT spans and the memory token.
    streamed.mtts.clear();
    streamed.memory_token = None;
    Some((streamed, schedlab_sim::report::report(&header, &summary)))
}

fn configs(horizon: u64, dir: &Path) -> Vec<(&'static str, SimConfig)> {
    let base = SimConfig { horizon: Some(horizon), policy_events: false, spec_dir: dir.into(), ..SimConfig::default() };
    vec![
        ("default", base.clone()),
        ("abort", SimConfig { miss: MissPolicy::Abort, ..base.clone() }),
        ("skip", SimConfig { miss: MissPolicy::Skip, ..base.clone() }),
        (
            "uniform-sporadic",
            SimConfig {
                seed: 5,
                execution: Execution::Uniform,
                arrivals: Arrivals { sporadic: Sporadic::Exponential { mean: 2_000_000 }, ignore_jitter: false },
                ..base.clone()
            },
        ),
        (
            "overheads",
            SimConfig {
                overheads: Some({
                    let mut o = Overheads::constant(Costs {
                        release: 3_000,
                        schedule: 2_000,
                        context_switch: 5_000,
                        ipi: 1_000,
                        tick: 700,
                        release_latency: 4_000,
                    });
                    o.cpmd = Cpmd::Bound { line: 64, miss_num: 2, miss_den: 1 };
                    o
                }),
                tick: 1_000_000,
                ..base.clone()
            },
        ),
        (
            "overheads-abort",
            SimConfig {
                overheads: Some(Overheads::constant(Costs {
                    release: 20_000,
                    schedule: 10_000,
                    context_switch: 30_000,
                    ipi: 5_000,
                    tick: 9_000,
                    release_latency: 0,
                })),
                miss: MissPolicy::Abort,
                ..base
            },
        ),
    ]
}

fn check(name: &str, spec: &schedlab_model::Spec, dir: &Path, horizon: u64) -> usize {
    let mut runs = 0;
    for (what, config) in configs(horizon, dir) {
        if let Some((streamed, ours)) = both(spec, &config) {
            assert_eq!(ours, streamed, "{name} under {what}: the reports differ");
            runs += 1;
        }
    }
    runs
}

#[test]
fn the_examples_give_the_streaming_metrics_report() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut runs = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let p = entry.unwrap().path();
        if p.extension().is_none_or(|e| e != "yaml") {
            continue;
        }
        let Ok(loaded) = schedlab_model::load_path(&p) else { continue };
        if loaded.spec.policy.is_none() {
            continue;
        }
        runs += check(&p.display().to_string(), &loaded.spec, &dir, 300_000_000);
    }
    assert!(runs >= 60, "only {runs} runs of the examples compared");
}

#[test]
fn random_sets_give_the_streaming_metrics_report() {
    let policies = ["gedf", "pedf", "gfp", "pfp", "np-gedf", "llf", "edzl", "pd2", "run", "fpds"];
    let mut rng = schedlab_model::rng::Rng::new(2026);
    let mut runs = 0;
    for i in 0..40 {
        let cpus = 1 + rng.below(4);
        let n = cpus + 1 + rng.below(6);
        // From light to overloaded (misses, aborts, skips, held jobs).
        let load = 40 + rng.below(90);
        let mut tasks = String::new();
        for k in 0..n {
            let period = 1_000 * (2 + rng.below(30));
            let wcet = (period * load * cpus / 100 / n).clamp(1, period);
            let deadline = match rng.below(3) {
                0 => period,
                1 => (period * (50 + rng.below(50)) / 100).max(wcet),
                _ => period * (100 + rng.below(100)) / 100,
            };
            let bcet = wcet / 2 + 1;
            let offset = rng.below(3) * 700;
            tasks.push_str(&format!(
                "  - {{name: t{k}, wcet: {wcet}us, bcet: {bcet}us, period: {period}us, deadline: {deadline}us, offset: {offset}us, wss: 64KiB}}\n"
            ));
        }
        let policy = policies[i % policies.len()];
        let text = format!("platform: {{cpus: {cpus}}}\npolicy: {{name: {policy}}}\ntasks:\n{tasks}");
        let spec = schedlab_model::load_str(&text, None, "random.yaml").unwrap().spec;
        runs += check(&format!("random set {i} ({policy})\n{text}"), &spec, Path::new("."), 200_000_000);
    }
    assert!(runs >= 100, "only {runs} random runs compared");
}
