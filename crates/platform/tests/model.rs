//! The platform model's properties and its causes one by one.

use proptest::prelude::*;
use schedlab_model::Spec;
use schedlab_platform::{Calibration, PlatformModel, MICROS};

const CACHE: &str = "cache: {size: 8MiB, ways: 16, line: 64B";

fn spec(cpus: u32, platform_extra: &str, tasks: &str) -> Spec {
    let text = format!("platform: {{cpus: {cpus}, {CACHE}{platform_extra}}}\ntasks:\n{tasks}");
    schedlab_model::load_str(&text, None, "t.yaml").unwrap().spec
}

fn model(s: &Spec) -> PlatformModel {
    PlatformModel::new(s, Calibration::default()).unwrap()
}

#[test]
fn no_cache_no_model() {
    let s =
        schedlab_model::load_str("platform: {cpus: 1}\ntasks:\n  - {name: a, wcet: 1ms, period: 10ms}\n", None, "t")
            .unwrap()
            .spec;
    assert!(PlatformModel::new(&s, Calibration::default()).is_none());
}

#[test]
fn sharing_a_colour_slows_jobs_running_at_once_and_evicts_the_one_away() {
    // Two tasks of 64 KiB each in colour 0 (64 KiB): together twice its size.
    let s = spec(
        2,
        "}",
        "  - {name: a, wcet: 1ms, period: 10ms, wss: 64KiB, colors: [0]}\n  - {name: b, wcet: 1ms, period: 10ms, wss: 64KiB, colors: [0]}\n",
    );
    let mut m = model(&s);
    assert_eq!(m.enter(0, 0, 0).ns, 0, "the run starts warm");
    m.update_rates(|_, _| {});
    assert_eq!(m.micros(0), MICROS, "alone: full speed");
    m.enter(1, 1, 0);
    let mut changed = Vec::new();
    m.update_rates(|c, r| changed.push((c, r)));
    assert_eq!(changed.len(), 2, "{changed:?}");
    let (p_cap, _, _) = m.causes(0);
    assert!((p_cap - 0.5).abs() < 1e-9, "half of each working set is lost: {p_cap}");
    assert!(m.micros(0) < MICROS / 2 && m.micros(0) == m.micros(1));
    // b leaves; a runs alone again at full speed.
    m.leave(1, 1, 1_000_000);
    m.update_rates(|_, _| {});
    assert_eq!(m.micros(0), MICROS);
    // a leaves CPU 0; b comes back to CPU 1 after a ran on: a's 64 KiB
    // pushed all of b's out of the colour.
    m.leave(0, 0, 2_000_000);
    let r = m.enter(1, 1, 3_000_000);
    assert!((r.misses - 1024.0).abs() < 1e-9, "{r:?}");
    let c = Calibration::default();
    assert_eq!(r.ns, (1024.0 * c.miss_cycles / c.clock_ghz).round() as u64);
    // a comes back while b runs: evicted too.
    assert!(m.enter(0, 0, 4_000_000).misses > 0.0);
}

#[test]
fn coherence_needs_the_same_group_on_another_cpu() {
    let s = spec(
        3,
        "}",
        "  - {name: a, wcet: 1ms, period: 10ms, wss: 4KiB, colors: [0], data_group: g, write_ratio: 0.2}\n  - {name: b, wcet: 1ms, period: 10ms, wss: 4KiB, colors: [1], data_group: g, write_ratio: 0.33}\n  - {name: c, wcet: 1ms, period: 10ms, wss: 4KiB, colors: [2], data_group: h, write_ratio: 1}\n",
    );
    let mut m = model(&s);
    m.enter(0, 0, 0);
    m.enter(2, 2, 0);
    m.update_rates(|_, _| {});
    assert_eq!((m.micros(0), m.micros(2)), (MICROS, MICROS), "another group does not disturb");
    m.enter(1, 1, 0);
    m.update_rates(|_, _| {});
    let (_, coh_a, _) = m.causes(0);
    let (_, coh_b, _) = m.causes(1);
    assert!((coh_a - 0.33).abs() < 1e-9 && (coh_b - 0.2).abs() < 1e-9, "{coh_a} {coh_b}");
    assert!(m.micros(0) < m.micros(1), "a suffers b's larger write ratio");
    assert_eq!(m.micros(2), MICROS);
    m.account(0, 1_000_000);
    assert!(m.cpu_reading(0).hitm > 0);
    assert_eq!(m.cpu_reading(0).misses, 0, "coherence is not a capacity miss");
}

#[test]
fn bandwidth_stretches_misses() {
    let tasks = "  - {name: a, wcet: 1ms, period: 10ms, wss: 128KiB, colors: [0]}\n  - {name: b, wcet: 1ms, period: 10ms, wss: 128KiB, colors: [0]}\n";
    let rate = |extra: &str| {
        let mut m = model(&spec(2, extra, tasks));
        m.enter(0, 0, 0);
        m.enter(1, 1, 0);
        m.update_rates(|_, _| {});
        m.micros(0)
    };
    let free = rate("}");
    let tight = rate("}, memory: {bandwidth: 100MiB/s}");
    assert!(tight < free && free < MICROS, "{tight} {free}");
}

#[test]
fn migration_reloads_the_private_level_and_another_cache_is_cold() {
    let s = spec(
        4,
        ", shared_by: [[0, 1], [2, 3]], private: 256KiB}",
        "  - {name: a, wcet: 1ms, period: 10ms, wss: 64KiB, colors: [0-3]}\n",
    );
    let mut m = model(&s);
    assert_eq!(m.enter(0, 0, 0).ns, 0);
    m.leave(0, 0, 10);
    assert_eq!(m.enter(0, 0, 20).ns, 0, "same CPU, nothing evicted");
    m.leave(0, 0, 30);
    let same_cache = m.enter(0, 1, 40);
    assert_eq!(same_cache.misses, 0.0);
    let c = Calibration::default();
    assert_eq!(same_cache.ns, (1024.0 * c.hit_cycles / c.clock_ghz).round() as u64, "64 KiB from the shared cache");
    m.leave(0, 1, 50);
    let other = m.enter(0, 2, 60);
    assert_eq!(other.misses, 1024.0, "cold on the other cache");
}

#[test]
fn counters_are_zero_when_nothing_runs() {
    let s = spec(2, "}", "  - {name: a, wcet: 1ms, period: 10ms, wss: 64KiB}\n");
    let mut m = model(&s);
    m.account(0, 1_000_000);
    m.account(1, 1_000_000);
    assert_eq!(m.cpu_reading(0), Default::default());
    m.enter(0, 0, 0);
    m.update_rates(|_, _| {});
    m.account(0, 1_000_000);
    let r = m.cpu_reading(0);
    assert_eq!(r.cycles, 3_400_000);
    assert_eq!(r.instructions, 3_400_000);
    assert_eq!(r.references, 110_000);
    assert_eq!(m.cpu_reading(1), Default::default());
    assert_eq!(m.task_reading(0), r);
}

/// A random task set on 4 CPUs: task `i` gets colours `[4i, 4i + width)`
/// (disjoint) or, when `shared`, colours drawn anywhere.
fn tasks(sizes: &[(u32, u32, u32)], disjoint: bool) -> String {
    let mut out = String::new();
    for (i, &(wss_kib, width, start)) in sizes.iter().enumerate() {
        let lo = if disjoint { 4 * i as u32 } else { start % 124 };
        let hi = lo + width.min(3);
        out.push_str(&format!(
            "  - {{name: t{i}, wcet: 1ms, period: 10ms, wss: {wss_kib}KiB, colors: [{lo}-{hi}], write_ratio: 0.5}}\n"
        ));
    }
    out
}

/// A random schedule: (task, CPU) entries; a task already running leaves first.
fn drive(m: &mut PlatformModel, steps: &[(usize, u32)], n: usize, mut each: impl FnMut(&mut PlatformModel, u64)) {
    let mut on: Vec<Option<u32>> = vec![None; n];
    let mut cpu_task: Vec<Option<usize>> = vec![None; 4];
    let mut now = 0;
    for &(t, c) in steps {
        let t = t % n;
        now += 100_000;
        for cc in 0..4u32 {
            m.account(cc, 100_000);
        }
        if let Some(c0) = on[t] {
            m.leave(t as u32, c0, now);
            cpu_task[c0 as usize] = None;
            on[t] = None;
        }
        if let Some(old) = cpu_task[c as usize] {
            m.leave(old as u32, c, now);
            on[old] = None;
        }
        let r = m.enter(t as u32, c, now);
        each(m, r.ns);
        on[t] = Some(c);
        cpu_task[c as usize] = Some(t);
        m.update_rates(|_, _| {});
        each(m, 0);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Colour-disjoint tasks never slow each other through the cache: every
    /// rate stays 1.0 and no resume costs anything, whatever their sizes.
    #[test]
    fn colour_disjoint_tasks_never_slow_each_other(
        sizes in prop::collection::vec((1u32..2048, 0u32..4, 0u32..128), 1..12),
        steps in prop::collection::vec((0usize..12, 0u32..4), 1..60),
    ) {
        let n = sizes.len();
        let s = spec(4, "}", &tasks(&sizes, true));
        let mut m = model(&s);
        drive(&mut m, &steps, n, |m, cpmd| {
            assert_eq!(cpmd, 0);
            for c in 0..4 {
                assert_eq!(m.micros(c), MICROS);
            }
        });
    }

    /// Counters never decrease, whatever runs where.
    #[test]
    fn counters_are_monotone(
        sizes in prop::collection::vec((1u32..2048, 0u32..4, 0u32..128), 1..12),
        steps in prop::collection::vec((0usize..12, 0u32..4), 1..60),
    ) {
        let n = sizes.len();
        let s = spec(4, "}", &tasks(&sizes, false).replace("write_ratio: 0.5", "write_ratio: 0.5, data_group: g"));
        let mut m = model(&s);
        let mut last = [schedlab_platform::Reading::default(); 4];
        drive(&mut m, &steps, n, |m, _| {
            for c in 0..4u32 {
                let r = m.cpu_reading(c);
                let l = &mut last[c as usize];
                assert!(r.instructions >= l.instructions && r.cycles >= l.cycles && r.references >= l.references
                    && r.misses >= l.misses && r.hitm >= l.hitm, "{r:?} after {l:?}");
                *l = r;
            }
        });
    }
}
