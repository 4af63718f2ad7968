//! Multithreaded tasks in the simulator: without cache pressure an `mtt:`
//! section changes no schedule, and the summary reports each MTT's jobs
//! (span, misses, miss rate).

use proptest::prelude::*;
use schedlab_model::{load_str, Spec};
use schedlab_sim::{simulate_collect, SimConfig, SimSummary};
use schedlab_trace::Event;

fn load(text: &str) -> Spec {
    load_str(text, None, "t.yaml").unwrap().spec
}

fn run(spec: &Spec) -> (Vec<Event>, SimSummary) {
    let mut policy = schedlab_policy::build(spec, None).unwrap();
    let config = SimConfig { horizon: Some(200_000_000), ..SimConfig::default() };
    simulate_collect(spec, policy.as_mut(), &config).unwrap()
}

/// The schedule: the events without policy samples (counter readings differ).
fn schedule(events: &[Event]) -> Vec<&Event> {
    events.iter().filter(|e| !matches!(e, Event::Policy { .. })).collect()
}

const POLICIES: &[&str] = &["gedf", "pedf", "gfp", "llf"];

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Working sets that together fit the cache: grouping tasks of one
    /// period into MTTs gives the same schedule, event for event.
    #[test]
    fn without_cache_pressure_mtts_change_no_schedule(
        groups in prop::collection::vec((1usize..4, 1u64..6, 2u64..6, 8u64..128), 1..4),
        policy in 0usize..POLICIES.len(),
        cpus in 1u32..4,
    ) {
        let mut body = String::new();
        let mut mtt = String::new();
        for (g, &(threads, wcet, mult, wss_kib)) in groups.iter().enumerate() {
            let names: Vec<String> = (0..threads).map(|k| format!("g{g}t{k}")).collect();
            for (k, n) in names.iter().enumerate() {
                let w = (wcet + k as u64) * 250_000;
                body.push_str(&format!("  - {{name: {n}, wcet: {w}ns, period: {}ns, wss: {wss_kib}KiB}}\n", wcet * mult * 1_000_000));
            }
            mtt.push_str(&format!("  - {{name: g{g}, tasks: [{}]}}\n", names.join(", ")));
        }
        let name = POLICIES[policy];
        let partitioning = if name == "pedf" { ", partitioning: wfd" } else { "" };
        let head = format!("platform: {{cpus: {cpus}, cache: {{size: 8MiB, ways: 16, line: 64B}}}}\npolicy: {{name: {name}{partitioning}}}\ntasks:\n{body}");
        let plain = load(&head);
        let grouped = load(&format!("{head}mtt:\n{mtt}"));
        let Ok(_) = schedlab_policy::build(&plain, None) else { return Ok(()) };
        let (a, _) = run(&plain);
        let (b, _) = run(&grouped);
        prop_assert_eq!(schedule(&a), schedule(&b));
    }
}

fn run_model(spec: &Spec, horizon: u64) -> SimSummary {
    let mut policy = schedlab_policy::build(spec, None).unwrap();
    let config = SimConfig { horizon: Some(horizon), ..SimConfig::default() };
    simulate_collect(spec, policy.as_mut(), &config).unwrap().1
}

/// Random MTT sets on a shared 1 MiB cache under G-EDF: MTTs of 1–3
/// threads with working sets of 32–512 KiB next to single-threaded tasks,
/// 2–4 CPUs, task utilisations 5–29 %. Returns (converged
/// estimates' errors against the declared WSS, MTTs profiled, MTTs).
fn campaign(sets: usize, seed: u64) -> (Vec<f64>, usize, usize) {
    let mut rng = schedlab_model::rng::Rng::new(seed);
    let mut next = |n: u64| rng.below(n);
    let (mut errors, mut profiled, mut total) = (Vec::new(), 0, 0);
    for _ in 0..sets {
        let cpus = 2 + next(3);
        let mut body = String::new();
        let mut mtt = String::new();
        let groups = 1 + next(3);
        let periods = [10u64, 20, 25, 40, 50];
        for g in 0..groups {
            let threads = 1 + next(3);
            let period = periods[next(5) as usize];
            let wss = 32 + next(481);
            let names: Vec<String> = (0..threads).map(|k| format!("m{g}t{k}")).collect();
            for n in &names {
                let wcet = period * 1000 * (5 + next(25)) / 100;
                body.push_str(&format!("  - {{name: {n}, wcet: {wcet}us, period: {period}ms}}\n"));
            }
            mtt.push_str(&format!("  - {{name: m{g}, tasks: [{}], wss: {wss}KiB}}\n", names.join(", ")));
        }
        for k in 0..next(3) {
            let period = periods[next(5) as usize];
            let wcet = period * 1000 * (5 + next(25)) / 100;
            body.push_str(&format!(
                "  - {{name: s{k}, wcet: {wcet}us, period: {period}ms, wss: {}KiB}}\n",
                32 + next(481)
            ));
        }
        let spec = load(&format!("platform: {{cpus: {cpus}, cache: {{size: 1MiB, ways: 16, line: 64B}}}}\npolicy: {{name: gedf}}\ntasks:\n{body}mtt:\n{mtt}"));
        let s = run_model(&spec, 2_000_000_000);
        for m in &s.mtts {
            total += 1;
            if m.profiled > 0 {
                profiled += 1;
            }
            if m.converged {
                errors.push(m.estimate_error().expect("a declared WSS"));
            }
        }
    }
    (errors, profiled, total)
}

/// The profiler fed by the platform model converges to the declared WSS:
/// every converged estimate within 1 % of it (the model counts an MTT job's
/// compulsory misses exactly, and the jobs it profiles neither were
/// preempted nor ran while the cache was over-full by the estimates).
#[test]
fn the_profilers_converged_estimates_are_within_one_percent_of_the_declared_wss() {
    let (errors, profiled, total) = campaign(60, 15);
    let converged = errors.len();
    let worst = errors.iter().fold(0.0f64, |w, e| w.max(e.abs()));
    let mean = errors.iter().map(|e| e.abs()).sum::<f64>() / converged.max(1) as f64;
    eprintln!("{total} MTTs, {profiled} profiled, {converged} converged; |error| mean {mean:.5}, worst {worst:.5}");
    assert!(converged * 2 > total, "most MTTs converge: {converged} of {total}");
    assert!(worst < 0.01, "worst converged error {worst}");
}

#[test]
fn the_example_reports_its_mtt_and_the_profiler_estimate() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/mtt.yaml");
    let spec = schedlab_model::load_path(&path).unwrap().spec;
    let s = run_model(&spec, 800_000_000);
    assert_eq!(s.mtts.len(), 1);
    let m = &s.mtts[0];
    assert_eq!((m.name.as_str(), m.tasks.as_slice(), m.wss), ("video", &[3u32, 4][..], Some(768 * 1024)));
    assert_eq!(m.source, "platform-model");
    assert!(m.jobs > 0 && m.max_span >= 2_000_000, "a job spans at least a thread's WCET: {m:?}");
    // Under G-EDF the working sets (768 + 512 + 512 + 768 KiB) thrash the
    // 1 MiB cache: jobs miss more than their working set, most are
    // discarded, and the bootstrap estimate stays at the cap.
    assert!(m.max_job_misses > 768 * 1024 / 64, "{m:?}");
    assert!(m.discarded > m.profiled, "{m:?}");
    assert_eq!(m.estimate, 1024 * 1024, "capped at the cache size");
    assert!(!m.converged);
}

#[test]
fn an_mtt_alone_on_its_cache_is_measured_exactly() {
    // Two threads of a 600 KiB MTT; the other task runs half a period
    // later: every MTT job is profiled, its misses are its working set in
    // lines, its span the longer thread.
    let spec = load("platform: {cpus: 2, cache: {size: 1MiB, ways: 16, line: 64B}}\npolicy: {name: gedf}\ntasks:\n  - {name: a, wcet: 2ms, period: 10ms}\n  - {name: b, wcet: 1ms, period: 10ms}\n  - {name: o, wcet: 1ms, period: 10ms, offset: 5ms, wss: 512KiB}\nmtt:\n  - {name: w, tasks: [a, b], wss: 600KiB}\n");
    let s = run_model(&spec, 100_000_000);
    let m = &s.mtts[0];
    assert_eq!((m.jobs, m.profiled, m.discarded), (10, 10, 0), "{m:?}");
    assert!(m.converged);
    assert_eq!(m.max_span, 2_000_000);
    let lines = 600 * 1024 / 64;
    assert!(m.max_job_misses.abs_diff(lines) <= 2, "{m:?}");
    assert!(m.estimate.abs_diff(600 * 1024) <= 2 * 64, "{m:?}");
    assert!(m.max_miss_rate_ppm > 0 && m.miss_rate() > 0.0);
}

/// The trace's metrics compute each MTT's spans from the events alone; on
/// random MTT sets they agree with the simulator's own accounting.
#[test]
fn the_traces_mtt_spans_agree_with_the_simulators() {
    for seed in 0..12u64 {
        let o = schedlab_gen::GenOptions {
            seed: Some(seed),
            cpus: Some(2 + (seed % 3) as u32),
            util: Some(1.0 + (seed % 4) as f64 * 0.3),
            cache: Some("1MiB/16/64B".into()),
            mtt: Some("threads=1-3,util=0.05-0.3,wss=uni:16KiB-400KiB".into()),
            ..Default::default()
        };
        let spec = schedlab_gen::generate(&o.into_params().unwrap()).unwrap();
        let horizon = 500_000_000;
        let mut policy = schedlab_policy::build(&spec, None).unwrap();
        let config = SimConfig { horizon: Some(horizon), ..SimConfig::default() };
        let (events, s) = simulate_collect(&spec, policy.as_mut(), &config).unwrap();
        let mut m = schedlab_trace::metrics::Metrics::new(&spec, horizon);
        for e in &events {
            m.push(e);
        }
        let (report, _) = m.finish();
        assert_eq!(report.mtts.len(), s.mtts.len());
        for (t, sim) in report.mtts.iter().zip(&s.mtts) {
            assert_eq!(t.name, sim.name);
            assert_eq!(t.jobs, sim.jobs, "seed {seed} {}", t.name);
            if sim.jobs > 0 {
                assert_eq!(t.max_span, Some(sim.max_span), "seed {seed} {}", t.name);
            }
        }
    }
}
