//! Schedules without overheads: EDF optimality at U = 1, arrivals,
//! execution models, horizon, trace invariants, metrics.

mod common;

use common::*;
use schedlab_model::Duration;
use schedlab_sim::{horizon, simulate, simulate_collect, Arrivals, Execution, SimConfig, Sporadic};
use schedlab_trace::metrics::Metrics;
use schedlab_trace::Event;

#[test]
fn uniprocessor_edf_at_full_utilisation_meets_every_deadline() {
    let sets: Vec<Vec<(u64, u64)>> = vec![
        vec![(1_000, 2_000), (1_000, 3_000), (1_000, 6_000)],
        vec![(3_000, 10_000), (4_000, 10_000), (6_000, 20_000)],
        vec![(2_000_000, 5_000_000), (3_000_000, 10_000_000), (4_000_000, 20_000_000), (1_000_000, 20_000_000)],
        vec![(1, 3), (1, 4), (5, 12)],
    ];
    for set in sets {
        let tasks: Vec<_> = set.iter().enumerate().map(|(i, &(c, p))| task(&format!("t{i}"), c, p)).collect();
        let s = spec(1, tasks);
        let h = horizon(&s, &SimConfig::default());
        let mut p = TopM::edf(&s);
        let (ev, sum) = simulate_collect(&s, &mut p, &SimConfig::default()).unwrap();
        check_trace(&ev, 1);
        assert!(misses(&ev).is_empty(), "{set:?}: {:?}", misses(&ev));
        assert_eq!(sum.missed(), 0);
        // Every job released in the hyperperiod completes by it.
        assert_eq!(sum.released(), sum.completed(), "{set:?}");
        assert_eq!(sum.incomplete, 0);
        let used: u64 = set.iter().map(|&(c, p)| c * (h / p)).sum();
        let busy: u64 = sum.cpus.iter().map(|c| c.busy).sum();
        if used == h {
            assert_eq!(busy, h, "U = 1 keeps the CPU busy over the hyperperiod");
        }
        for (i, &(c, p)) in set.iter().enumerate() {
            assert_eq!(sum.tasks[i].released, h / p);
            for (t, job, exec, forced) in completions(&ev, i as u32) {
                assert_eq!(exec, c);
                assert!(!forced);
                assert!(t <= (job + 1) * p);
            }
        }
    }
}

#[test]
fn the_trace_starts_with_the_system_release() {
    let s = spec(1, vec![task("a", 1_000, 4_000)]);
    let (ev, _) = simulate_collect(&s, &mut TopM::edf(&s), &SimConfig::default()).unwrap();
    assert_eq!(ev[0], Event::SysRelease { t: 0 });
    assert_eq!(ev[1], Event::Release { t: 0, task: 0, job: 0, deadline: 4_000 });
    assert_eq!(ev[2], Event::SwitchTo { t: 0, cpu: 0, task: 0, job: 0 });
    assert_eq!(
        ev[3],
        Event::SwitchAway {
            t: 1_000,
            cpu: 0,
            task: 0,
            job: 0,
            reason: schedlab_trace::SwitchReason::Complete,
            exec: 1_000
        }
    );
    assert_eq!(ev[4], Event::Completion { t: 1_000, cpu: 0, task: 0, job: 0, exec: 1_000, forced: false });
}

#[test]
fn periodic_releases_follow_offsets_and_deadlines() {
    let mut a = task("a", 1_000, 10_000);
    a.offset = Duration(2_500);
    a.deadline = Some(Duration(7_000));
    let b = task("b", 2_000, 15_000);
    let s = spec(2, vec![a, b]);
    let config = SimConfig { horizon: Some(100_000), ..SimConfig::default() };
    let (ev, _) = simulate_collect(&s, &mut TopM::edf(&s), &config).unwrap();
    check_trace(&ev, 2);
    let ra = releases(&ev, 0);
    assert_eq!(ra.len(), 10); // 2.5, 12.5, ..., 92.5 µs
    for (k, &(t, job, d)) in ra.iter().enumerate() {
        assert_eq!((t, job, d), (2_500 + 10_000 * k as u64, k as u64, 9_500 + 10_000 * k as u64));
    }
    let rb = releases(&ev, 1);
    assert_eq!(rb.iter().map(|r| r.0).collect::<Vec<_>>(), (0..7).map(|k| 15_000 * k).collect::<Vec<_>>());
}

#[test]
fn default_horizon_is_hyperperiod_plus_largest_offset_capped() {
    let mut a = task("a", 1, 4_000);
    a.offset = Duration(300);
    let s = spec(1, vec![a, task("b", 1, 6_000)]);
    assert_eq!(horizon(&s, &SimConfig::default()), 12_300);
    assert_eq!(horizon(&s, &SimConfig { horizon: Some(5), ..SimConfig::default() }), 5);
    let s = spec(1, vec![task("a", 1, 999_999_937), task("b", 1, 999_999_929)]);
    assert_eq!(horizon(&s, &SimConfig::default()), 10_000_000_000);
    assert_eq!(horizon(&s, &SimConfig { horizon_cap: 1_000, ..SimConfig::default() }), 1_000);
}

#[test]
fn jitter_delays_releases_within_bounds_and_keeps_the_grid() {
    let mut a = task("a", 100, 1_000);
    a.jitter = Duration(400);
    a.offset = Duration(50);
    let s = spec(1, vec![a]);
    let config = SimConfig { horizon: Some(1_000_000), seed: 3, ..SimConfig::default() };
    let (ev, _) = simulate_collect(&s, &mut TopM::edf(&s), &config).unwrap();
    let r = releases(&ev, 0);
    assert_eq!(r.len(), 1_000);
    let mut delays = std::collections::BTreeSet::new();
    for (k, &(t, job, d)) in r.iter().enumerate() {
        let grid = 50 + 1_000 * k as u64;
        assert_eq!(job, k as u64);
        assert_eq!(d, grid + 1_000, "the deadline is counted from the arrival grid");
        assert!(t >= grid && t <= grid + 400, "release {t} of job {k} outside [{grid}, {}]", grid + 400);
        delays.insert(t - grid);
    }
    assert!(delays.len() > 100, "jitter draws vary");
    assert!(delays.contains(&0) || delays.iter().next().unwrap() < &10);
    // Ignoring jitter releases on the grid.
    let config = SimConfig { arrivals: Arrivals { ignore_jitter: true, ..Arrivals::default() }, ..config };
    let (ev, _) = simulate_collect(&s, &mut TopM::edf(&s), &config).unwrap();
    assert!(releases(&ev, 0).iter().enumerate().all(|(k, r)| r.0 == 50 + 1_000 * k as u64));
}

#[test]
fn sporadic_arrivals_are_never_closer_than_the_period() {
    for sporadic in [Sporadic::Uniform { max: 5_000 }, Sporadic::Exponential { mean: 2_000 }] {
        let s = spec(2, vec![task("a", 500, 3_000), task("b", 700, 4_000)]);
        let config = SimConfig {
            horizon: Some(5_000_000),
            seed: 11,
            arrivals: Arrivals { sporadic, ..Arrivals::default() },
            ..SimConfig::default()
        };
        let (ev, _) = simulate_collect(&s, &mut TopM::edf(&s), &config).unwrap();
        check_trace(&ev, 2);
        for (i, p) in [(0u32, 3_000u64), (1, 4_000)] {
            let r = releases(&ev, i);
            assert!(r.len() > 100);
            let gaps: Vec<u64> = r.windows(2).map(|w| w[1].0 - w[0].0).collect();
            assert!(gaps.iter().all(|&g| g >= p), "{sporadic:?}: gap below the period");
            assert!(gaps.iter().any(|&g| g > p), "{sporadic:?}: no extra delay drawn");
            assert!(r.iter().all(|&(t, _, d)| d == t + p));
            let mean = gaps.iter().sum::<u64>() as f64 / gaps.len() as f64 - p as f64;
            let expect = match sporadic {
                Sporadic::Uniform { max } => max as f64 / 2.0,
                Sporadic::Exponential { mean } => mean as f64,
                Sporadic::None => 0.0,
            };
            assert!((mean - expect).abs() < expect * 0.25, "{sporadic:?}: mean extra {mean}, expected {expect}");
        }
    }
}

#[test]
fn execution_lists_are_used_cyclically() {
    let mut a = task("a", 3_000, 10_000);
    a.executions = Some(vec![Duration(1_000), Duration(3_000), Duration(2_000)]);
    let s = spec(1, vec![a]);
    let config = SimConfig { horizon: Some(70_000), execution: Execution::Uniform, ..SimConfig::default() };
    let (ev, _) = simulate_collect(&s, &mut TopM::edf(&s), &config).unwrap();
    let c = completions(&ev, 0);
    let execs: Vec<u64> = c.iter().map(|c| c.2).collect();
    assert_eq!(execs, vec![1_000, 3_000, 2_000, 1_000, 3_000, 2_000, 1_000]);
    let times: Vec<u64> = c.iter().map(|c| c.0).collect();
    assert_eq!(times, vec![1_000, 13_000, 22_000, 31_000, 43_000, 52_000, 61_000]);
}

#[test]
fn uniform_execution_times_lie_between_bcet_and_wcet() {
    let mut a = task("a", 3_000, 10_000);
    a.bcet = Some(Duration(1_000));
    let s = spec(1, vec![a]);
    let config =
        SimConfig { horizon: Some(10_000_000), execution: Execution::Uniform, seed: 5, ..SimConfig::default() };
    let (ev, _) = simulate_collect(&s, &mut TopM::edf(&s), &config).unwrap();
    let execs: Vec<u64> = completions(&ev, 0).iter().map(|c| c.2).collect();
    assert_eq!(execs.len(), 1_000);
    assert!(execs.iter().all(|&e| (1_000..=3_000).contains(&e)));
    let mean = execs.iter().sum::<u64>() as f64 / 1_000.0;
    assert!((mean - 2_000.0).abs() < 100.0, "{mean}");
    // WCET model by default.
    let (ev, _) =
        simulate_collect(&s, &mut TopM::edf(&s), &SimConfig { horizon: Some(100_000), ..SimConfig::default() })
            .unwrap();
    assert!(completions(&ev, 0).iter().all(|c| c.2 == 3_000));
}

#[test]
fn global_fifo_on_two_cpus_is_consistent_and_migrates() {
    let tasks =
        vec![task("a", 3_000, 5_000), task("b", 4_000, 7_000), task("c", 2_000, 4_000), task("d", 1_000, 9_000)];
    let s = spec(2, tasks);
    let config = SimConfig { horizon: Some(2_000_000), ..SimConfig::default() };
    for order in [Order::Fifo, Order::Edf] {
        let (ev, sum) = simulate_collect(&s, &mut TopM::new(&s, order), &config).unwrap();
        check_trace(&ev, 2);
        assert!(sum.released() > 1_000);
        // Total busy time equals the execution of every completed job (no overheads).
        let exec: u64 =
            ev.iter().filter_map(|e| if let Event::Completion { exec, .. } = e { Some(*exec) } else { None }).sum();
        let busy: u64 = sum.cpus.iter().map(|c| c.busy).sum();
        assert!(busy >= exec);
    }
}

#[test]
fn a_late_job_delays_its_successor_which_keeps_its_true_release() {
    // Job 0 of `a` cannot finish before job 1 arrives (1 CPU, `b` first by EDF).
    let mut a = task("a", 3_000, 4_000);
    a.deadline = Some(Duration(10_000));
    let mut b = task("b", 3_000, 100_000);
    b.deadline = Some(Duration(3_000));
    let s = spec(1, vec![a, b]);
    let config = SimConfig { horizon: Some(12_000), ..SimConfig::default() };
    let (ev, _) = simulate_collect(&s, &mut TopM::edf(&s), &config).unwrap();
    check_trace(&ev, 1);
    assert_eq!(releases(&ev, 0), vec![(0, 0, 10_000), (4_000, 1, 14_000), (8_000, 2, 18_000)]);
    // b runs [0, 3000), a0 [3000, 6000), a1 handed over at 6000 and runs [6000, 9000), a2 [9000, 12000).
    let c = completions(&ev, 0);
    assert_eq!(c.iter().map(|c| c.0).collect::<Vec<_>>(), vec![6_000, 9_000, 12_000]);
    let first_a1 = ev.iter().position(|e| matches!(e, Event::SwitchTo { task: 0, job: 1, .. })).unwrap();
    assert_eq!(ev[first_a1].t(), 6_000);
}

#[test]
fn trace_crate_metrics_agree_with_the_summary() {
    let tasks = vec![task("a", 3_000, 5_000), task("b", 4_000, 7_000), task("c", 2_000, 4_000)];
    let s = spec(2, tasks);
    let config = SimConfig { horizon: Some(1_000_003), ..SimConfig::default() };
    let h = horizon(&s, &config);
    let mut metrics = Metrics::new(&s, h);
    let sum = simulate(&s, &mut TopM::edf(&s), &config, &mut |e| metrics.push(e)).unwrap();
    let (report, ()) = metrics.finish();
    assert_eq!(report.totals.anomalies, 0);
    assert_eq!(report.totals.implicit_releases, 0);
    assert_eq!(report.totals.events, sum.trace_events);
    for (i, t) in report.tasks.iter().enumerate() {
        let mine = &sum.tasks[i];
        assert_eq!(t.jobs, mine.released);
        assert_eq!(t.completed, mine.completed);
        assert_eq!(t.max_response, Some(mine.max_response), "{:?} {:?}", report.tasks, sum.tasks);
        assert_eq!(t.preemptions, mine.preemptions);
        assert_eq!(t.migrations, mine.migrations);
        assert_eq!(t.misses, mine.missed);
    }
    for (c, stats) in report.cpus.iter().enumerate() {
        assert_eq!(stats.busy, sum.cpus[c].busy, "CPU {c}");
        assert_eq!(stats.switches, sum.cpus[c].switches);
    }
}
