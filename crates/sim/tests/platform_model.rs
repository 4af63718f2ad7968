//! The platform model in the simulator: exactly today's schedules when
//! nothing is shared, slowdowns and CPMD when colours or data are.

use proptest::prelude::*;
use schedlab_model::{load_str, Spec};
use schedlab_sim::{simulate_collect, SimConfig, SimSummary};
use schedlab_trace::Event;

fn load(text: &str) -> Spec {
    load_str(text, None, "t.yaml").unwrap().spec
}

fn run(spec: &Spec, model: bool) -> (Vec<Event>, SimSummary) {
    let mut policy = schedlab_policy::build(spec, None).unwrap();
    let config = SimConfig { platform_model: model, horizon: Some(200_000_000), ..SimConfig::default() };
    simulate_collect(spec, policy.as_mut(), &config).unwrap()
}

/// Without its events' policy samples (a run with a model answers counter
/// reads the other does not).
fn schedule(events: &[Event]) -> Vec<&Event> {
    events.iter().filter(|e| !matches!(e, Event::Policy { .. })).collect()
}

const POLICIES: &[&str] = &["gedf", "pedf", "gfp", "llf", "edzl"];

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Removing all sharing (colour-disjoint working sets that fit their
    /// colours, no data groups) gives today's schedule exactly, event for
    /// event, under every policy tried, including the spec without a cache.
    #[test]
    fn no_sharing_gives_todays_schedule(
        tasks in prop::collection::vec((1u64..20, 2u64..8, 1u64..512, 0u32..2), 2..7),
        policy in 0usize..POLICIES.len(),
        cpus in 1u32..4,
    ) {
        let mut body = String::new();
        let mut plain = String::new();
        for (i, &(wcet, mult, wss_kib, width)) in tasks.iter().enumerate() {
            let (lo, hi) = (8 * i as u32, 8 * i as u32 + width);
            let (wcet, period) = (wcet * 1_000_000 / 4, wcet * mult * 1_000_000 / 2);
            body.push_str(&format!("  - {{name: t{i}, wcet: {wcet}ns, period: {period}ns, wss: {}KiB, colors: [{lo}-{hi}], write_ratio: 0.3}}\n", wss_kib.min(64 * (width as u64 + 1))));
            plain.push_str(&format!("  - {{name: t{i}, wcet: {wcet}ns, period: {period}ns}}\n"));
        }
        let name = POLICIES[policy];
        let partitioning = if name == "pedf" { ", partitioning: wfd" } else { "" };
        let cached = load(&format!("platform: {{cpus: {cpus}, cache: {{size: 8MiB, ways: 16, line: 64B}}}}\npolicy: {{name: {name}{partitioning}}}\ntasks:\n{body}"));
        let bare = load(&format!("platform: {{cpus: {cpus}}}\npolicy: {{name: {name}{partitioning}}}\ntasks:\n{plain}"));
        let Ok(_) = schedlab_policy::build(&bare, None) else { return Ok(()) };
        let (a, sa) = run(&cached, true);
        let (b, _) = run(&cached, false);
        let (c, _) = run(&bare, false);
        prop_assert_eq!(schedule(&a), schedule(&b));
        prop_assert_eq!(schedule(&a), schedule(&c));
        prop_assert!(sa.tasks.iter().all(|t| t.cpmd == 0 && t.cache_misses == 0));
    }
}

const SHARED: &str = "platform: {cpus: 2, cache: {size: 8MiB, ways: 16, line: 64B}}\npolicy: {name: pedf, partitioning: wfd}\ntasks:\n  - {name: a, wcet: 4ms, period: 10ms, wss: 128KiB, colors: [COLOR_A]}\n  - {name: b, wcet: 4ms, period: 10ms, wss: 128KiB, colors: [COLOR_B]}\n  - {name: c, wcet: 2ms, period: 10ms, wss: 128KiB, colors: [COLOR_C]}\n";

fn shared(a: &str, b: &str, c: &str) -> Spec {
    load(&SHARED.replace("COLOR_A", a).replace("COLOR_B", b).replace("COLOR_C", c))
}

fn max_response(s: &SimSummary) -> Vec<u64> {
    s.tasks.iter().map(|t| t.max_response).collect()
}

#[test]
fn shared_colours_slow_jobs_and_private_ones_do_not() {
    // 128 KiB each: two colours (128 KiB) hold one task.
    let private = shared("0-1", "2-3", "4-5");
    let common = shared("0-1", "0-1", "0-1");
    let (_, p) = run(&private, true);
    let (_, s) = run(&common, true);
    let (_, off) = run(&common, false);
    assert_eq!(max_response(&p), max_response(&off), "private colours: the model changes nothing");
    assert!(p.tasks.iter().all(|t| t.cache_misses == 0 && t.cpmd == 0));
    // Shared: a and b run at once on the two CPUs (capacity contention), c
    // shares a CPU with one of them (CPMD when it comes back).
    for (i, (sh, pr)) in max_response(&s).iter().zip(max_response(&p)).enumerate() {
        assert!(*sh > pr, "task {i}: {sh} vs {pr}");
    }
    assert!(s.tasks.iter().all(|t| t.cache_misses > 0));
    assert!(s.tasks.iter().any(|t| t.cpmd > 0));
    assert!(s.cpus.iter().all(|c| c.cache_misses > 0));
}

#[test]
fn coherence_slows_a_data_group_across_cpus_only() {
    let text = "platform: {cpus: 2, cache: {size: 8MiB, ways: 16, line: 64B}}\npolicy: {name: pedf, partitioning: wfd}\ntasks:\n  - {name: a, wcet: 4ms, period: 10ms, wss: 16KiB, colors: [0], data_group: g, write_ratio: 0.33}\n  - {name: b, wcet: 4ms, period: 10ms, wss: 16KiB, colors: [1], data_group: G, write_ratio: 0.33}\n";
    let apart = load(text);
    let together = load(&text.replace("data_group: G", "data_group: g"));
    let (_, x) = run(&apart, true);
    let (_, y) = run(&together, true);
    assert_eq!(max_response(&x), vec![4_000_000, 4_000_000]);
    assert!(y.tasks.iter().all(|t| t.max_response > 4_000_000), "{:?}", max_response(&y));
    // On one CPU they never run at once: no coherence traffic.
    let one = load(&text.replace("cpus: 2", "cpus: 1").replace("data_group: G", "data_group: g"));
    assert_eq!(max_response(&run(&one, true).1), vec![4_000_000, 8_000_000]);
}

#[test]
fn every_schedule_with_the_model_passes_the_validator() {
    for colours in [["0-1", "0-1", "0-1"], ["0", "0-3", "2-5"]] {
        for policy in ["pedf, partitioning: wfd", "gedf", "gfp"] {
            let text = SHARED.replace("pedf, partitioning: wfd", policy);
            let spec = load(
                &text.replace("COLOR_A", colours[0]).replace("COLOR_B", colours[1]).replace("COLOR_C", colours[2]),
            );
            let mut p = schedlab_policy::build(&spec, None).unwrap();
            let config = SimConfig { horizon: Some(200_000_000), ..SimConfig::default() };
            let h = schedlab_sim::header(&spec, p.info(), &config);
            // The header says so: the validator then takes CPU time beyond a
            // WCET as an overrun. With the model off the jobs are not slowed.
            assert!(h.slowed);
            let off = SimConfig { platform_model: false, ..config.clone() };
            assert!(!schedlab_sim::header(&spec, p.info(), &off).slowed);
            let (events, _) = simulate_collect(&spec, p.as_mut(), &config).unwrap();
            let report = schedlab_validate::validate(&h, events, &schedlab_validate::Options::default()).unwrap();
            assert!(
                report.pass,
                "{policy} {colours:?}: {}",
                serde_json::to_string(&report.checks.iter().filter(|c| c.violations > 0).collect::<Vec<_>>()).unwrap()
            );
        }
    }
}

/// A job's rate is low while a writer of its data group runs on the other
/// CPU (b from 0, c from 5 ms) and back to 1.0 in between and after: the
/// job completes at the nanosecond the rate arithmetic gives — its
/// completion is predicted anew when the rate rises (earlier than the entry
/// queued at the low rate), and, however lazily the simulator re-predicts,
/// not later.
#[test]
fn a_rate_that_rises_and_falls_mid_job_moves_its_completion_exactly() {
    use schedlab_platform::{Calibration, PlatformModel};
    use schedlab_policy::Rate;
    let spec = load("platform: {cpus: 2, cache: {size: 8MiB, ways: 16, line: 64B}}\npolicy: {name: gedf}\ntasks:\n  - {name: a, wcet: 10ms, period: 100ms, wss: 16KiB, colors: [0], data_group: g, write_ratio: 0.2}\n  - {name: b, wcet: 2ms, period: 100ms, wss: 16KiB, colors: [1], data_group: g, write_ratio: 0.2}\n  - {name: c, wcet: 2ms, period: 100ms, offset: 5ms, wss: 16KiB, colors: [2], data_group: g, write_ratio: 0.2}\n");
    // The rate of each of two jobs running at once, from the model alone.
    let mut m = PlatformModel::new(&spec, Calibration::default()).unwrap();
    m.enter(0, 0, 0);
    m.enter(1, 1, 0);
    m.update_rates(|_, _| {});
    let r = Rate::from_micros(m.micros(0));
    assert_eq!(m.micros(1), r.micros());
    assert!(r.micros() < 900_000, "{r}");
    // a and b at r until b's 2 ms of work are done, a alone at 1.0 until
    // 5 ms, a and c at r for c's 2 ms, then a alone again.
    let d = r.cpu_for(2_000_000, 0).unwrap();
    let mut carry = 0;
    let mut a_work = r.advance(d, &mut carry);
    a_work += 5_000_000 - d;
    a_work += r.advance(d, &mut carry);
    let t_a = 5_000_000 + d + (10_000_000 - a_work);
    let (events, s) = run(&spec, true);
    let done: Vec<(u32, u64)> = events
        .iter()
        .filter_map(|e| match e {
            Event::Completion { t, task, .. } if *t < 100_000_000 => Some((*task, *t)),
            _ => None,
        })
        .collect();
    assert_eq!(done, vec![(1, d), (2, 5_000_000 + d), (0, t_a)]);
    // Slowed twice, but less than at r throughout.
    assert!(t_a > 10_000_000 && t_a < r.cpu_for(10_000_000, 0).unwrap());
    assert!(s.tasks.iter().all(|t| t.cpmd == 0));
}
