//! The two-phase colour-aware scheduler (`cap-gs-dynamic`) in the simulator
//! with a test counter source: a best-effort job that drives its CPU's
//! coherence-miss counter up is kept off the CPU while the SRT task it
//! shares a colour with has unfinished work (`hold`), is let back when that
//! work is done, leaves for a quantum under the thesis' literal `yield`, and
//! without counters the policy schedules as P-FP and says so. Then with the
//! platform model's synthetic counters (docs/platform-model.md): tasks that
//! write shared lines raise HITM, the policy throttles, and the SRT task's
//! tardiness falls below P-FP's; with private data nothing is throttled.

use schedlab_model::{load_str, PolicyEvent, Spec};
use schedlab_policy::{build, Counters, CountersUnavailable};
use schedlab_sim::{simulate_collect, CounterSource, CpuView, SimConfig};
use schedlab_trace::Event;
use std::sync::Arc;

const MS: u64 = 1_000_000;

/// s (SRT, colour 1) on CPU 0; b (BE, colour 1) and h (HRT, colour 2) on CPU 1.
fn spec(policy: &str, with_h: bool) -> Spec {
    let h = if with_h { "  - {name: h, wcet: 1ms, period: 10ms, colors: [2], cpu: 1}\n" } else { "" };
    let yaml = format!(
        "platform: {{cpus: 2, cache: {{size: 1MiB, ways: 16, line: 64B}}}}\npolicy: {policy}\ntasks:\n  - {{name: s, wcet: 4ms, period: 10ms, colors: [1], class: srt, cpu: 0}}\n  - {{name: b, wcet: 50ms, period: 100ms, colors: [1], class: be, cpu: 1}}\n{h}"
    );
    load_str(&yaml, None, "t.yaml").unwrap().spec
}

/// Coherence misses of CPU 1: one per 10 µs it was busy (b's writes to the
/// lines s reads); CPU 0: none.
#[derive(Debug)]
struct Hitm;

impl CounterSource for Hitm {
    fn read(&self, view: &CpuView) -> Result<Counters, CountersUnavailable> {
        let hitm = if view.cpu == 1 { view.busy / 10_000 } else { 0 };
        Ok(Counters { coherence_misses: Some(hitm), ..Counters::default() })
    }
}

fn run(spec: &Spec, counters: bool) -> Vec<Event> {
    let mut policy = build(spec, None).unwrap();
    let config = SimConfig {
        horizon: Some(100 * MS),
        policy_events: true,
        counters: counters.then(|| Arc::new(Hitm) as Arc<dyn CounterSource>),
        // The test source alone: no platform model (its rates, its counters).
        platform_model: false,
        ..SimConfig::default()
    };
    simulate_collect(spec, policy.as_mut(), &config).unwrap().0
}

/// (task, cpu, start, end) of every stint.
fn stints(ev: &[Event]) -> Vec<(u32, u32, u64, u64)> {
    let mut open = std::collections::HashMap::new();
    let mut out = Vec::new();
    for e in ev {
        match *e {
            Event::SwitchTo { t, cpu, task, .. } => {
                open.insert(cpu, (task, t));
            }
            Event::SwitchAway { t, cpu, task, .. } => {
                let (tk, s) = open.remove(&cpu).unwrap();
                assert_eq!(tk, task);
                out.push((task, cpu, s, t));
            }
            _ => {}
        }
    }
    out
}

/// Time in [from, to) during which b (task 1) and s (task 0) both ran.
fn overlap(ev: &[Event], from: u64, to: u64) -> u64 {
    let st = stints(ev);
    let mut total = 0;
    for &(_, _, s0, e0) in st.iter().filter(|x| x.0 == 0) {
        for &(_, _, s1, e1) in st.iter().filter(|x| x.0 == 1) {
            let (a, b) = (s0.max(s1).max(from), e0.min(e1).min(to));
            total += b.saturating_sub(a);
        }
    }
    total
}

fn ran(ev: &[Event], task: u32) -> u64 {
    stints(ev).iter().filter(|x| x.0 == task).map(|x| x.3 - x.2).sum()
}

fn policy_events(ev: &[Event]) -> Vec<(u64, PolicyEvent)> {
    ev.iter()
        .filter_map(|e| match e {
            Event::Policy { t, event, .. } if !matches!(event, PolicyEvent::CounterSample(_)) => {
                Some((*t, event.clone()))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn hold_keeps_the_best_effort_job_off_while_the_srt_task_sharing_its_colour_runs() {
    let spec = spec("{name: cap-gs-dynamic}", true);
    let ev = run(&spec, true);
    // Before the first sample (10 ms) nothing is known: they overlap
    // (s runs [0, 4 ms), b from 1 ms after h).
    assert_eq!(overlap(&ev, 0, 10 * MS), 3 * MS);
    // From then on, never together.
    assert_eq!(overlap(&ev, 10 * MS, 100 * MS), 0);
    // Held at each quantum boundary while s's job runs, let back when it completes at +4 ms.
    let pe = policy_events(&ev);
    let throttles: Vec<u64> =
        pe.iter().filter(|(_, e)| matches!(e, PolicyEvent::Throttle { task: 1, .. })).map(|x| x.0).collect();
    let back: Vec<u64> =
        pe.iter().filter(|(_, e)| matches!(e, PolicyEvent::Unthrottle { task: 1, .. })).map(|x| x.0).collect();
    assert_eq!(throttles[..3], [10 * MS, 20 * MS, 30 * MS], "{pe:?}");
    assert_eq!(back[..3], [14 * MS, 24 * MS, 34 * MS], "{pe:?}");
    // The count recorded is the rise over the quantum: b and h kept CPU 1 busy 10 ms → 1000.
    assert!(
        matches!(
            pe.iter().find(|(_, e)| matches!(e, PolicyEvent::Throttle { .. })),
            Some((_, PolicyEvent::Throttle { count: 1000, .. }))
        ),
        "{pe:?}"
    );
    // b still makes progress when s is idle, and the SRT task meets every deadline.
    assert!(ran(&ev, 1) >= 40 * MS, "{}", ran(&ev, 1));
    assert!(!ev.iter().any(|e| matches!(e, Event::DeadlineMiss { task: 0, .. })));
}

#[test]
fn a_threshold_above_the_counts_never_throttles_and_is_plain_p_fp() {
    let throttled = run(&spec("{name: cap-gs-dynamic, threshold: 5000}", true), true);
    let pfp = run(&spec("{name: pfp}", true), false);
    assert_eq!(stints(&throttled), stints(&pfp));
    assert!(overlap(&pfp, 10 * MS, 100 * MS) > 0);
}

#[test]
fn without_counters_it_schedules_as_p_fp_and_says_so() {
    let ev = run(&spec("{name: cap-gs-dynamic}", true), false);
    let pfp = run(&spec("{name: pfp}", true), false);
    assert_eq!(stints(&ev), stints(&pfp));
    let pe = policy_events(&ev);
    assert_eq!(pe.len(), 1, "{pe:?}");
    assert!(
        matches!(&pe[0], (0, PolicyEvent::CountersUnavailable { reason }) if reason.contains("no counter source")),
        "{pe:?}"
    );
}

#[test]
fn yield_is_the_theses_literal_rule_off_until_the_next_quantum() {
    // Only b on CPU 1: no other event there, so a yield lasts the quantum,
    // and a quantum b did not run shows no count: b alternates.
    let ev = run(&spec("{name: cap-gs-dynamic, throttle: yield}", false), true);
    let b: Vec<(u64, u64)> = stints(&ev).iter().filter(|x| x.0 == 1).map(|x| (x.2, x.3)).collect();
    assert_eq!(b[..3], [(0, 10 * MS), (20 * MS, 30 * MS), (40 * MS, 50 * MS)], "{b:?}");
}

/// The Table-16 situation in the platform model: s (SRT) on CPU 0 and b
/// (BE) on CPU 1 read and write the same lines (`data_group`).
fn shared(policy: &str, group: bool) -> Spec {
    let g = if group { ", data_group: g" } else { "" };
    let yaml = format!(
        "platform: {{cpus: 2, cache: {{size: 1MiB, ways: 16, line: 64B}}}}\npolicy: {policy}\ntasks:\n  - {{name: s, wcet: 4ms, period: 10ms, colors: [1], class: srt, cpu: 0, wss: 128KiB, write_ratio: 0.33{g}}}\n  - {{name: b, wcet: 50ms, period: 100ms, colors: [1], class: be, cpu: 1, wss: 512KiB, write_ratio: 0.33{g}}}\n"
    );
    load_str(&yaml, None, "t.yaml").unwrap().spec
}

fn with_model(spec: &Spec) -> Vec<Event> {
    let mut policy = build(spec, None).unwrap();
    let config = SimConfig { horizon: Some(200 * MS), policy_events: true, ..SimConfig::default() };
    simulate_collect(spec, policy.as_mut(), &config).unwrap().0
}

/// The largest completion time beyond the deadline of task 0 (s), and its misses.
fn tardiness(ev: &[Event]) -> (u64, usize) {
    let mut deadline = std::collections::HashMap::new();
    let mut worst = 0;
    for e in ev {
        match *e {
            Event::Release { task: 0, job, deadline: d, .. } => {
                deadline.insert(job, d);
            }
            Event::Completion { t, task: 0, job, .. } => worst = worst.max(t.saturating_sub(deadline[&job])),
            _ => {}
        }
    }
    (worst, ev.iter().filter(|e| matches!(e, Event::DeadlineMiss { task: 0, .. })).count())
}

#[test]
fn with_the_platform_models_counters_shared_writes_are_throttled_and_the_srt_task_gains() {
    let dynamic = with_model(&shared("{name: cap-gs-dynamic}", true));
    let pfp = with_model(&shared("{name: pfp, partitioning: cap-gs}", true));
    let throttles = policy_events(&dynamic).iter().filter(|(_, e)| matches!(e, PolicyEvent::Throttle { .. })).count();
    assert!(throttles >= 10, "{throttles} throttles");
    let (dyn_tard, dyn_miss) = tardiness(&dynamic);
    let (pfp_tard, pfp_miss) = tardiness(&pfp);
    assert!(dyn_tard < pfp_tard, "tardiness: dynamic {dyn_tard} ns, P-FP {pfp_tard} ns");
    assert!(dyn_miss <= pfp_miss, "misses: dynamic {dyn_miss}, P-FP {pfp_miss}");
    // Private data: no coherence misses, nothing throttled, P-FP's schedule.
    let private = with_model(&shared("{name: cap-gs-dynamic}", false));
    assert!(!policy_events(&private).iter().any(|(_, e)| matches!(e, PolicyEvent::Throttle { .. })));
    assert_eq!(stints(&private), stints(&with_model(&shared("{name: pfp, partitioning: cap-gs}", false))));
}

#[test]
fn a_yield_ends_at_the_cpus_next_scheduling_event() {
    // With h on CPU 1, b yields at each sample (10, 20, ... ms: h's releases
    // too), h runs its 1 ms, and h's completion is the event that lets b back.
    let ev = run(&spec("{name: cap-gs-dynamic, throttle: yield}", true), true);
    let b: Vec<(u64, u64)> = stints(&ev).iter().filter(|x| x.0 == 1).map(|x| (x.2, x.3)).collect();
    assert_eq!(b[..3], [(MS, 10 * MS), (11 * MS, 20 * MS), (21 * MS, 30 * MS)], "{b:?}");
    let pe = policy_events(&ev);
    let back: Vec<u64> = pe.iter().filter(|(_, e)| matches!(e, PolicyEvent::Unthrottle { .. })).map(|x| x.0).collect();
    assert_eq!(back[..3], [11 * MS, 21 * MS, 31 * MS], "{pe:?}");
}
