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
