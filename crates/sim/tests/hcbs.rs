//! H-CBS (`hcbs`) in the simulator: the golden schedule of two groups on
//! two CPUs (worked by hand in crates/policy/tests/hcbs.rs), with every
//! server event at its hand-computed instant, and the simulated schedules
//! of the spec's example pass the validator (replay and the reservation
//! checks) with and without overheads.

use schedlab_model::load_str;
use schedlab_sim::{header, simulate_collect, Costs, Overheads, SimConfig};
use schedlab_trace::{Event, PolicyEvent};
use schedlab_validate::{validate, Options};

const MS: u64 = 1_000_000;

const TWO_GROUPS: &str = "platform: {cpus: 2}\npolicy: {name: hcbs}\ntasks:\n  - {name: a0, wcet: 6ms, period: 20ms}\n  - {name: a1, wcet: 2ms, period: 20ms}\n  - {name: b0, wcet: 3ms, period: 10ms}\nreservations:\n  - {name: A, budget: 4ms, period: 10ms, tasks: [a0, a1]}\n  - {name: B, budget: 2ms, period: 5ms, tasks: [b0]}\n";

/// (task, start, end) of every stint on `cpu`, in ms.
fn stints(ev: &[Event], cpu: u32) -> Vec<(u32, u64, u64)> {
    let mut open = None;
    let mut out = Vec::new();
    for e in ev {
        match *e {
            Event::SwitchTo { t, cpu: c, task, .. } if c == cpu => open = Some((task, t)),
            Event::SwitchAway { t, cpu: c, task, .. } if c == cpu => {
                let (tk, s) = open.take().unwrap();
                assert_eq!(tk, task);
                out.push((task, s / MS, t / MS));
            }
            _ => {}
        }
    }
    out
}

/// The server events as (ms, server, what), sorted within an instant.
fn servers(ev: &[Event], until: u64) -> Vec<(u64, String, String)> {
    let mut out: Vec<(u64, String, String)> = ev
        .iter()
        .filter_map(|e| match e {
            Event::Policy { t, event: PolicyEvent::ServerReplenish { server, budget, deadline }, .. }
                if *t <= until =>
            {
                Some((*t / MS, server.clone(), format!("replenish {} {}", budget / MS, deadline / MS)))
            }
            Event::Policy { t, event: PolicyEvent::ServerExhaust { server, deadline }, .. } if *t <= until => {
                Some((*t / MS, server.clone(), format!("exhaust {}", deadline / MS)))
            }
            _ => None,
        })
        .collect();
    out.sort();
    out
}

#[test]
fn two_groups_on_two_cpus_golden() {
    let spec = load_str(TWO_GROUPS, None, "t.yaml").unwrap().spec;
    let mut policy = schedlab_policy::build(&spec, None).unwrap();
    let config = SimConfig { horizon: Some(14 * MS), ..SimConfig::default() };
    let (ev, _) = simulate_collect(&spec, policy.as_mut(), &config).unwrap();
    assert_eq!(stints(&ev, 0), [(2, 0, 2), (0, 2, 6), (2, 10, 12)]);
    assert_eq!(stints(&ev, 1), [(0, 0, 2), (2, 2, 3), (1, 3, 5), (2, 12, 13)]);
    // By hand: both groups wake at 0 on both CPUs; B@0 runs out at 2
    // (throttled to 5, then (2, 10)); A@1 at 5 (a0 0–2, a1 3–5) and A@0 at 6
    // (a0 2–6), both throttled to 10, then (4, 20); at 10 b0's release wakes
    // B on both CPUs past their deadlines: (2, 15); B@0 runs out at 12.
    let s = |t: u64, server: &str, what: &str| (t, server.to_string(), what.to_string());
    assert_eq!(
        servers(&ev, 13 * MS),
        [
            s(0, "A@0", "replenish 4 10"),
            s(0, "A@1", "replenish 4 10"),
            s(0, "B@0", "replenish 2 5"),
            s(0, "B@1", "replenish 2 5"),
            s(2, "B@0", "exhaust 5"),
            s(5, "A@1", "exhaust 10"),
            s(5, "B@0", "replenish 2 10"),
            s(6, "A@0", "exhaust 10"),
            s(10, "A@0", "replenish 4 20"),
            s(10, "A@1", "replenish 4 20"),
            s(10, "B@0", "replenish 2 15"),
            s(10, "B@1", "replenish 2 15"),
            s(12, "B@0", "exhaust 15"),
        ]
    );
}

#[test]
fn the_example_passes_the_validator_with_and_without_overheads() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/reservations.yaml");
    let spec = schedlab_model::load_path(&root).unwrap().spec;
    let o = Overheads::constant(Costs {
        release: 30_000,
        schedule: 50_000,
        context_switch: 40_000,
        ipi: 25_000,
        tick: 10_000,
        release_latency: 15_000,
    });
    for config in [
        SimConfig { horizon: Some(200 * MS), ..SimConfig::default() },
        SimConfig { horizon: Some(200 * MS), overheads: Some(o), ..SimConfig::default() },
    ] {
        let mut p = schedlab_policy::build(&spec, None).unwrap();
        let h = header(&spec, p.info(), &config);
        let (ev, _) = simulate_collect(&spec, p.as_mut(), &config).unwrap();
        assert!(ev.iter().any(|e| matches!(e, Event::Policy { event: PolicyEvent::ServerExhaust { .. }, .. })));
        let r = validate(&h, ev, &Options::default()).unwrap();
        assert!(r.pass, "{}", r.render());
        assert!(r.checks.iter().any(|c| c.check == schedlab_validate::Check::Budget));
    }
}
