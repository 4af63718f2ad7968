//! Overheads charged where a kernel pays them, with exact times.

mod common;

use common::*;
use schedlab_model::overheads::{Cpmd, Overheads};
use schedlab_model::{Duration, Size};
use schedlab_sim::{simulate_collect, Costs, ReleaseCpu, SimConfig, SimError};
use schedlab_trace::{Event, OverheadKind as K, SwitchReason};

fn oh(costs: Costs) -> Option<Overheads> {
    Some(Overheads::constant(costs))
}

#[test]
fn hand_computed_uniprocessor_example() {
    let mut t0 = task("t0", 1_000, 10_000);
    t0.wss = Some(Size(640)); // 10 lines of 64 B
    let mut t1 = task("t1", 3_000, 10_000);
    t1.offset = Duration(500);
    t1.deadline = Some(Duration(4_000));
    let s = spec(1, vec![t0, t1]);
    let mut o = Overheads::constant(Costs { release: 10, schedule: 20, context_switch: 30, ..Costs::default() });
    o.cpmd = Cpmd::Bound { line: 64, miss_num: 1, miss_den: 1 }; // 1 ns per line
    let config = SimConfig { horizon: Some(10_000), overheads: Some(o), ..SimConfig::default() };
    let (ev, sum) = simulate_collect(&s, &mut TopM::edf(&s), &config).unwrap();
    check_trace(&ev, 1);
    use Event::*;
    let expected = vec![
        SysRelease { t: 0 },
        Release { t: 0, task: 0, job: 0, deadline: 10_000 },
        SwitchTo { t: 0, cpu: 0, task: 0, job: 0 },
        Overhead { t: 0, cpu: 0, kind: K::Release, dur: 10 },
        Overhead { t: 10, cpu: 0, kind: K::Schedule, dur: 20 },
        Overhead { t: 30, cpu: 0, kind: K::ContextSwitch, dur: 30 },
        // t0 runs from 60; t1 arrives at 500 and preempts it (earlier deadline).
        Release { t: 500, task: 1, job: 0, deadline: 4_500 },
        SwitchAway { t: 500, cpu: 0, task: 0, job: 0, reason: SwitchReason::Preempt, exec: 440 },
        SwitchTo { t: 500, cpu: 0, task: 1, job: 0 },
        Overhead { t: 500, cpu: 0, kind: K::Release, dur: 10 },
        Overhead { t: 510, cpu: 0, kind: K::Schedule, dur: 20 },
        Overhead { t: 530, cpu: 0, kind: K::ContextSwitch, dur: 30 },
        // t1 runs from 560 for 3000.
        SwitchAway { t: 3_560, cpu: 0, task: 1, job: 0, reason: SwitchReason::Complete, exec: 3_000 },
        Completion { t: 3_560, cpu: 0, task: 1, job: 0, exec: 3_000, forced: false },
        SwitchTo { t: 3_560, cpu: 0, task: 0, job: 0 },
        Overhead { t: 3_560, cpu: 0, kind: K::Schedule, dur: 20 },
        Overhead { t: 3_580, cpu: 0, kind: K::ContextSwitch, dur: 30 },
        // t0 resumes after a preemption: CPMD 10 lines × 1 ns before its remaining 560.
        Overhead { t: 3_610, cpu: 0, kind: K::Cpmd, dur: 10 },
        SwitchAway { t: 4_180, cpu: 0, task: 0, job: 0, reason: SwitchReason::Complete, exec: 1_000 },
        Completion { t: 4_180, cpu: 0, task: 0, job: 0, exec: 1_000, forced: false },
    ];
    assert_eq!(ev, expected);
    assert_eq!(sum.cpus[0].overhead, 10 + 20 + 30 + 10 + 20 + 30 + 20 + 30 + 10);
    assert_eq!(sum.cpus[0].busy, 1_000 + 3_000);
    assert_eq!(sum.tasks[0].cpmd, 10);
    assert_eq!(sum.tasks[0].preemptions, 1);
}

#[test]
fn ticks_are_charged_on_busy_cpus_only() {
    let s = spec(1, vec![task("a", 2_500, 10_000)]);
    let config = SimConfig {
        horizon: Some(10_000),
        tick: 1_000,
        overheads: oh(Costs { tick: 100, ..Costs::default() }),
        ..SimConfig::default()
    };
    let (ev, _) = simulate_collect(&s, &mut TopM::edf(&s), &config).unwrap();
    use Event::*;
    assert_eq!(
        &ev[3..],
        &[
            Overhead { t: 1_000, cpu: 0, kind: K::Tick, dur: 100 },
            Overhead { t: 2_000, cpu: 0, kind: K::Tick, dur: 100 },
            SwitchAway { t: 2_700, cpu: 0, task: 0, job: 0, reason: SwitchReason::Complete, exec: 2_500 },
            Completion { t: 2_700, cpu: 0, task: 0, job: 0, exec: 2_500, forced: false },
        ]
    );
}

#[test]
fn ipi_is_charged_to_remote_cpus() {
    let mut t2 = task("t2", 1_000, 20_000);
    t2.offset = Duration(1_000);
    t2.deadline = Some(Duration(2_000));
    let s = spec(2, vec![task("t0", 5_000, 20_000), task("t1", 5_000, 20_000), t2]);
    let costs = Costs { release: 10, schedule: 20, context_switch: 30, ipi: 7, ..Costs::default() };
    let ohs = |ev: &[Event], cpu: u32, upto: u64| -> Vec<(u64, K, u64)> {
        ev.iter()
            .filter_map(|e| match *e {
                Event::Overhead { t, cpu: c, kind, dur } if c == cpu && t < upto => Some((t, kind, dur)),
                _ => None,
            })
            .collect()
    };
    // Releases handled on the domain's first CPU: CPU 1 pays IPIs.
    let config = SimConfig {
        horizon: Some(20_000),
        overheads: oh(costs),
        release_cpu: ReleaseCpu::DomainFirst,
        ..SimConfig::default()
    };
    let (ev, _) = simulate_collect(&s, &mut TopM::edf(&s), &config).unwrap();
    check_trace(&ev, 2);
    assert_eq!(
        ohs(&ev, 0, 2_000),
        vec![
            (0, K::Release, 10),
            (10, K::Release, 10),
            (20, K::Schedule, 20),
            (40, K::ContextSwitch, 30),
            (1_000, K::Release, 10)
        ]
    );
    assert_eq!(
        ohs(&ev, 1, 2_000),
        vec![
            (0, K::Ipi, 7),
            (7, K::Schedule, 20),
            (27, K::ContextSwitch, 30),
            (1_000, K::Ipi, 7),
            (1_007, K::Schedule, 20),
            (1_027, K::ContextSwitch, 30)
        ]
    );
    assert!(ev.contains(&Event::SwitchAway {
        t: 1_000,
        cpu: 1,
        task: 1,
        job: 0,
        reason: SwitchReason::Preempt,
        exec: 1_000 - 57
    }));
    assert!(ev.contains(&Event::Completion { t: 2_057, cpu: 1, task: 2, job: 0, exec: 1_000, forced: false }));
    // t0 on CPU 0 lost 10 ns to t2's release: 70 + 10 + 5000.
    assert!(ev.contains(&Event::Completion { t: 5_080, cpu: 0, task: 0, job: 0, exec: 5_000, forced: false }));
    // Releases handled where the job is scheduled: no IPI at all here.
    let config = SimConfig { release_cpu: ReleaseCpu::Scheduled, ..config };
    let (ev, _) = simulate_collect(&s, &mut TopM::edf(&s), &config).unwrap();
    assert!(!ev.iter().any(|e| matches!(e, Event::Overhead { kind: K::Ipi, .. })));
    assert_eq!(
        ohs(&ev, 1, 2_000),
        vec![
            (0, K::Release, 10),
            (10, K::Schedule, 20),
            (30, K::ContextSwitch, 30),
            (1_000, K::Release, 10),
            (1_010, K::Schedule, 20),
            (1_030, K::ContextSwitch, 30)
        ]
    );
}

#[test]
fn release_latency_delays_the_release_not_the_deadline() {
    let s = spec(1, vec![task("a", 1_000, 10_000)]);
    let config = SimConfig {
        horizon: Some(30_000),
        overheads: oh(Costs { release_latency: 100, ..Costs::default() }),
        ..SimConfig::default()
    };
    let (ev, _) = simulate_collect(&s, &mut TopM::edf(&s), &config).unwrap();
    assert_eq!(releases(&ev, 0), vec![(100, 0, 10_000), (10_100, 1, 20_000), (20_100, 2, 30_000)]);
    assert_eq!(ev[1], Event::Overhead { t: 0, cpu: 0, kind: K::ReleaseLatency, dur: 100 });
}

#[test]
fn migration_charges_cpmd_and_is_counted() {
    // EDF on 2 CPUs: t2 preempts t1 on CPU 1 at 500; t0 completes on CPU 0
    // at 1000 and t1 resumes there (a migration).
    let mut t1 = task("t1", 4_000, 100_000);
    t1.wss = Some(Size(6_400)); // 100 lines
    let mut t2 = task("t2", 1_000, 100_000);
    t2.offset = Duration(500);
    t2.deadline = Some(Duration(1_000));
    let s = spec(2, vec![task("t0", 1_000, 100_000), t1, t2]);
    let mut o = Overheads::constant(Costs::default());
    o.cpmd = Cpmd::Bound { line: 64, miss_num: 2, miss_den: 1 };
    let config = SimConfig { horizon: Some(100_000), overheads: Some(o), ..SimConfig::default() };
    let (ev, sum) = simulate_collect(&s, &mut TopM::edf(&s), &config).unwrap();
    check_trace(&ev, 2);
    assert!(ev.contains(&Event::SwitchAway {
        t: 500,
        cpu: 1,
        task: 1,
        job: 0,
        reason: SwitchReason::Preempt,
        exec: 500
    }));
    assert!(ev.contains(&Event::SwitchTo { t: 1_000, cpu: 0, task: 1, job: 0 }));
    assert!(ev.contains(&Event::Overhead { t: 1_000, cpu: 0, kind: K::Cpmd, dur: 200 }));
    assert!(ev.contains(&Event::Completion { t: 4_700, cpu: 0, task: 1, job: 0, exec: 4_000, forced: false }));
    assert_eq!(sum.tasks[1].migrations, 1);
}

#[test]
fn the_spec_overhead_file_is_loaded_relative_to_the_spec_dir() {
    let dir = std::env::temp_dir().join(format!("schedlab-sim-oh-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("oh.csv"), "TASK-COUNT,SCHEDULE,CXS\n1,0.02,0.03\n10,1,1\n").unwrap();
    let mut s = spec(1, vec![task("a", 1_000, 10_000)]);
    s.overheads = Some("oh.csv".into());
    let config = SimConfig { horizon: Some(10_000), spec_dir: dir.clone(), ..SimConfig::default() };
    let (ev, _) = simulate_collect(&s, &mut TopM::edf(&s), &config).unwrap();
    assert!(ev.contains(&Event::Overhead { t: 0, cpu: 0, kind: K::Schedule, dur: 20 }));
    assert!(ev.contains(&Event::Completion { t: 1_050, cpu: 0, task: 0, job: 0, exec: 1_000, forced: false }));
    // Overheads off on request.
    let (ev, _) =
        simulate_collect(&s, &mut TopM::edf(&s), &SimConfig { spec_overheads: false, ..config.clone() }).unwrap();
    assert!(!ev.iter().any(|e| matches!(e, Event::Overhead { .. })));
    // A bad file is an input error naming file, line and column.
    std::fs::write(dir.join("oh.csv"), "TASK-COUNT,SCHEDULE\n1,fast\n").unwrap();
    match simulate_collect(&s, &mut TopM::edf(&s), &config) {
        Err(SimError::Overheads(e)) => assert!(e.to_string().contains("oh.csv:2:3: SCHEDULE:"), "{e}"),
        other => panic!("{other:?}"),
    }
    std::fs::remove_dir_all(&dir).ok();
}
