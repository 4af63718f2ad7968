//! Policies driven by the tiny in-test driver: hand-worked schedules and
//! textbook cases. Times are in ns; every task has an implicit deadline
//! unless set.

mod common;

use common::{on_cpus, run, spec};
use schedlab_model::rng::Rng;
use schedlab_model::{Duration, PolicyName, Priorities};
use schedlab_policy::{build, build_with, BuildOptions, Policy};

fn policy(s: &schedlab_model::Spec) -> Box<dyn Policy> {
    build(s, None).unwrap_or_else(|e| panic!("{e}"))
}

/// Dhall's effect (Dhall & Liu 1978): on m = 2, two light tasks with early
/// deadlines take both CPUs at 0 and the heavy task (10 of every 11) starts
/// at 2, finishing at 12 > 11. U = 0.2 + 0.2 + 10/11 ≈ 1.31 of 2.
#[test]
fn dhall_effect_gedf_misses_pedf_does_not() {
    let tasks = [(2, 10), (2, 10), (10, 11)];
    let g = run(&spec(2, PolicyName::Gedf, &tasks), policy(&spec(2, PolicyName::Gedf, &tasks)), 110, &[]);
    let misses = g.misses();
    assert_eq!(misses[0].id.task, 2);
    assert_eq!((misses[0].deadline, misses[0].finish), (11, 12));
    // P-EDF with WFD puts the heavy task alone: no misses over the hyperperiod.
    let s = spec(2, PolicyName::Pedf, &tasks);
    let p = run(&s, policy(&s), 110, &[]);
    assert!(p.misses().is_empty());
    assert_eq!(p.info.placement, on_cpus(&[1, 1, 0]));
}

/// Uniprocessor EDF at U = 1 exactly (1/3 + 1/4 + 5/12): no miss, no idle time.
#[test]
fn uniprocessor_edf_at_full_utilisation() {
    let s = spec(1, PolicyName::Pedf, &[(1, 3), (1, 4), (5, 12)]);
    let r = run(&s, policy(&s), 120, &[]);
    assert!(r.misses().is_empty());
    let busy: u64 = r.segs.iter().map(|s| s.end - s.start).sum();
    assert_eq!(busy, 120);
    assert_eq!(r.done.len(), 40 + 30 + 10);
}

/// Calandrino 2009, Fig. 2.6 task set under G-EDF on 2 CPUs: T0 = T1 =
/// (2, 3), T2 = (4, 7). Worked by hand (see docs/policies.md):
/// t=3 T1 preempts T2 (d 6 < 7); t=5 T2 resumes on CPU 0; t=8 T2 finishes
/// 1 late; t=9 T0 preempts T2's second job on CPU 1; t=10 T2 is linked to
/// the freed CPU 0 and displaced at once by T1's deferred release (d 12 < 14);
/// t=11 T2 resumes on CPU 1 and finishes at its deadline 14.
#[test]
fn gedf_hand_worked_three_tasks_two_cpus() {
    let s = spec(2, PolicyName::Gedf, &[(2, 3), (2, 3), (4, 7)]);
    let r = run(&s, policy(&s), 14, &[]);
    assert_eq!(r.cpu(0), vec![(0, 0, 2), (2, 2, 3), (1, 3, 5), (2, 5, 8), (1, 8, 10), (1, 10, 12), (0, 12, 14)]);
    assert_eq!(r.cpu(1), vec![(1, 0, 2), (0, 3, 5), (0, 6, 8), (2, 8, 9), (0, 9, 11), (2, 11, 14)]);
    let late: Vec<_> = r.misses().iter().map(|d| (d.id.task, d.id.seq, d.finish - d.deadline)).collect();
    assert_eq!(late, vec![(2, 0, 1), (1, 2, 1)]);
}

/// RM vs DM on one CPU: T0 (3 every 10), T1 (2 every 20, deadline 4).
/// RM runs T0 first and T1 misses at 4; DM runs T1 first and both meet.
#[test]
fn rm_versus_dm() {
    let mut s = spec(1, PolicyName::Pfp, &[(3, 10), (2, 20)]);
    s.tasks[1].deadline = Some(Duration(4));
    let r = run(&s, policy(&s), 20, &[]);
    assert_eq!(r.cpu(0), vec![(0, 0, 3), (1, 3, 5), (0, 10, 13)]);
    assert_eq!(r.misses().len(), 1);
    s.policy.as_mut().unwrap().priorities = Some(Priorities::Dm);
    let r = run(&s, policy(&s), 20, &[]);
    assert_eq!(r.cpu(0), vec![(1, 0, 2), (0, 2, 5), (0, 10, 13)]);
    assert!(r.misses().is_empty());
    // Explicit: T0 = 2, T1 = 1 (highest) gives DM's order.
    s.policy.as_mut().unwrap().priorities = Some(Priorities::Explicit);
    s.tasks[0].priority = Some(2);
    s.tasks[1].priority = Some(1);
    assert_eq!(run(&s, policy(&s), 20, &[]).cpu(0), vec![(1, 0, 2), (0, 2, 5), (0, 10, 13)]);
    // Global FP on 2 CPUs with equal periods: ties to the lower task index.
    let s = spec(2, PolicyName::Gfp, &[(2, 10), (2, 10), (2, 10)]);
    let r = run(&s, policy(&s), 10, &[]);
    assert_eq!(r.table(), vec![(0, 0, 0, 2), (0, 2, 2, 4), (1, 1, 0, 2)]);
}

/// NP-G-EDF: a job released with an earlier deadline waits for a CPU to free.
#[test]
fn np_gedf_never_preempts() {
    let mut s = spec(1, PolicyName::NpGedf, &[(5, 20), (1, 20)]);
    s.tasks[1].offset = Duration(1);
    s.tasks[1].deadline = Some(Duration(3));
    let r = run(&s, policy(&s), 20, &[]);
    assert_eq!(r.cpu(0), vec![(0, 0, 5), (1, 5, 6)]);
    assert_eq!(r.misses().len(), 1);
    s.policy.as_mut().unwrap().name = PolicyName::Gedf;
    let r = run(&s, policy(&s), 20, &[]);
    assert_eq!(r.cpu(0), vec![(0, 0, 1), (1, 1, 2), (0, 2, 6)]);
    // On random sets the driver's check (no incomplete job is switched away) holds.
    let mut g = Rng::new(7);
    for _ in 0..20 {
        let tasks: Vec<(u64, u64)> = (0..5).map(|_| (1 + g.below(5), 6 + g.below(10))).collect();
        let s = spec(2, PolicyName::NpGedf, &tasks);
        run(&s, policy(&s), 500, &[]);
    }
}

/// NP-G-EDF commits a job when it starts, not when it is released: among
/// jobs released at the same instant the most urgent ones start, whatever
/// order the releases arrive in.
#[test]
fn np_gedf_starts_the_most_urgent_of_simultaneous_releases() {
    let mut s = spec(2, PolicyName::NpGedf, &[(4, 20), (4, 20), (4, 20)]);
    s.tasks[0].deadline = Some(Duration(12));
    s.tasks[1].deadline = Some(Duration(9));
    s.tasks[2].deadline = Some(Duration(8));
    let r = run(&s, policy(&s), 20, &[]);
    let mut first: Vec<u32> = r.segs.iter().filter(|g| g.start == 0).map(|g| g.task).collect();
    first.sort();
    assert_eq!(first, vec![1, 2]);
    assert!(r.segs.iter().any(|g| g.task == 0 && g.start == 4));
}

/// Partitioned and clustered policies keep every job in its domain (the
/// driver asserts each switch against the placement).
#[test]
fn partitions_and_clusters_are_kept() {
    let tasks = [(3, 10), (4, 10), (5, 10), (2, 10), (6, 10), (1, 10)];
    let s = spec(3, PolicyName::Pedf, &tasks);
    let r = run(&s, policy(&s), 100, &[]);
    for seg in &r.segs {
        assert!(r.info.placement[seg.task as usize].allows(seg.cpu));
    }
    assert_eq!(r.info.domains, vec![vec![0], vec![1], vec![2]]);
    let mut s = spec(4, PolicyName::Cedf, &tasks);
    s.platform.clusters = Some(vec![vec![0, 1], vec![2, 3]]);
    let r = run(&s, policy(&s), 100, &[]);
    assert_eq!(r.info.domains, vec![vec![0, 1], vec![2, 3]]);
    let cluster_of = |c: u32| c / 2;
    for seg in &r.segs {
        match &r.info.placement[seg.task as usize] {
            schedlab_model::Placement::Cluster { cluster, .. } => assert_eq!(*cluster, cluster_of(seg.cpu)),
            p => panic!("{p:?}"),
        }
    }
    // Same for C-FP and P-FP, and P-LLF.
    for name in [PolicyName::Cfp, PolicyName::Pfp, PolicyName::Pllf] {
        let mut s = spec(4, name, &tasks);
        s.platform.clusters = Some(vec![vec![0, 1], vec![2, 3]]);
        run(&s, policy(&s), 100, &[]);
    }
}

/// P-EDF with every task pinned runs as pinned, even an overloaded CPU.
#[test]
fn pinned_pedf_runs_as_pinned() {
    let mut s = spec(2, PolicyName::Pedf, &[(2, 3), (2, 3), (1, 10)]);
    for (t, c) in [(0, 1), (1, 1), (2, 0)] {
        s.tasks[t].cpu = Some(c);
    }
    let r = run(&s, policy(&s), 30, &[]);
    assert_eq!(r.info.placement, on_cpus(&[1, 1, 0]));
    assert!(r.segs.iter().all(|seg| seg.cpu == [1, 1, 0][seg.task as usize]));
    assert!(!r.misses().is_empty());
}

/// LLF on one CPU with Δ = 1 ns. At 0: T0 (4, deadline 10) has laxity 6,
/// T1 (2, deadline 9) laxity 7: T0 runs. T1's laxity falls (7 − t) while
/// T0's stays 6; T1 displaces T0 once 7 − t + 1 < 6, i.e. at t = 3, by the
/// domain timer (no other event happens at 3). Then T0 (1 left) has laxity
/// 9 − t against T1's 4: it would displace T1 at t = 6, but T1 finishes at 5.
#[test]
fn llf_timer_preempts() {
    let mut s = spec(1, PolicyName::Llf, &[(4, 100), (2, 100)]);
    s.tasks[0].deadline = Some(Duration(10));
    s.tasks[1].deadline = Some(Duration(9));
    let p = build_with(&s, None, &BuildOptions { llf_hysteresis: 1 }).unwrap();
    let r = run(&s, p, 20, &[]);
    assert_eq!(r.cpu(0), vec![(0, 0, 3), (1, 3, 5), (0, 5, 6)]);
    // Strict LLF (Δ = 0) thrashes: T1 at 2, T0 at 3, T1 at 4, T0 at 5.
    let p = build_with(&s, None, &BuildOptions { llf_hysteresis: 0 }).unwrap();
    let r = run(&s, p, 20, &[]);
    assert_eq!(r.cpu(0), vec![(0, 0, 2), (1, 2, 3), (0, 3, 4), (1, 4, 5), (0, 5, 6)]);
    // Δ = 2: T1 would displace T0 at 4, when T0 completes anyway.
    let p = build_with(&s, None, &BuildOptions { llf_hysteresis: 2 }).unwrap();
    assert_eq!(run(&s, p, 20, &[]).cpu(0), vec![(0, 0, 4), (1, 4, 6)]);
}

/// The default Δ bounds the thrashing of two tied jobs: two jobs of 5 ms
/// with the same deadline on one CPU alternate every 2Δ + 2 ns at most.
#[test]
fn llf_default_hysteresis_bounds_switches() {
    let s = spec(1, PolicyName::Llf, &[(5_000_000, 20_000_000), (5_000_000, 20_000_000)]);
    let r = run(&s, policy(&s), 20_000_000, &[]);
    assert!(r.misses().is_empty());
    let d = schedlab_policy::DEFAULT_LLF_HYSTERESIS;
    assert!(r.switches as u64 <= 10_000_000 / (2 * d) + 3, "{} switches", r.switches);
    assert!(r.switches > 2);
}

/// EDZL vs G-EDF on m = 2 with three tasks (2, 3) (U = 2). G-EDF: T0 and
/// T1 take both CPUs, T2 starts at 2 and finishes at 4 > 3. EDZL: T2's
/// laxity 3 − 0 − 2 = 1 reaches 0 at t = 1, so it displaces the
/// lowest-priority running job T1 (same deadline, higher index); at 2 T0
/// completes and T1 (laxity now 0) takes CPU 0. Everyone finishes at 3,
/// every period.
#[test]
fn edzl_schedules_what_gedf_misses() {
    let tasks = [(2, 3), (2, 3), (2, 3)];
    let s = spec(2, PolicyName::Gedf, &tasks);
    assert!(!run(&s, policy(&s), 30, &[]).misses().is_empty());
    let s = spec(2, PolicyName::Edzl, &tasks);
    let r = run(&s, policy(&s), 30, &[]);
    assert!(r.misses().is_empty());
    assert_eq!(r.cpu(0)[..2], [(0, 0, 2), (1, 2, 3)]);
    assert_eq!(r.cpu(1)[..2], [(1, 0, 1), (2, 1, 3)]);
}

/// Blocking and resumption under G-EDF on one CPU: T0 blocks at 1 for 2,
/// T1 runs meanwhile, T0 preempts it back on resumption at 3.
#[test]
fn block_and_resume() {
    let mut s = spec(1, PolicyName::Gedf, &[(3, 10), (3, 20)]);
    s.tasks[1].deadline = Some(Duration(15));
    let r = run(&s, policy(&s), 10, &[(1, 0, 2)]);
    assert_eq!(r.cpu(0), vec![(0, 0, 1), (1, 1, 3), (0, 3, 5), (1, 5, 6)]);
}

/// Random task sets, every policy: the driver's checks hold (top-k by
/// `priority()` in every domain, no job on two CPUs, placement kept,
/// stable answers) and the same input gives the same schedule.
#[test]
fn every_policy_conforms_and_is_deterministic() {
    let names = [
        PolicyName::Gedf,
        PolicyName::Pedf,
        PolicyName::Cedf,
        PolicyName::Gfp,
        PolicyName::Pfp,
        PolicyName::Cfp,
        PolicyName::NpGedf,
        PolicyName::Llf,
        PolicyName::Pllf,
        PolicyName::Edzl,
    ];
    let mut g = Rng::new(2024);
    for round in 0..12 {
        let n = 4 + g.below(5) as usize;
        let tasks: Vec<(u64, u64)> = (0..n).map(|_| (1 + g.below(40), 40 + 10 * g.below(12))).collect();
        for &name in &names {
            let mut s = spec(4, name, &tasks);
            s.platform.clusters = Some(vec![vec![0, 1], vec![2, 3]]);
            for (i, t) in s.tasks.iter_mut().enumerate() {
                if i % 3 == 0 {
                    t.deadline = Some(Duration(t.period.0 - t.period.0 / 4));
                }
            }
            let Ok(p) = build_with(&s, None, &BuildOptions { llf_hysteresis: round % 3 }) else { continue };
            let a = run(&s, p, 2000, &[(17, 1, 5), (230, 2, 40)]);
            let b = run(
                &s,
                build_with(&s, None, &BuildOptions { llf_hysteresis: round % 3 }).unwrap(),
                2000,
                &[(17, 1, 5), (230, 2, 40)],
            );
            assert_eq!(a.segs, b.segs, "{name:?} is not deterministic");
        }
    }
}

/// Larger global domains (8 CPUs, 24 tasks, U ≈ 6): the same checks.
#[test]
fn larger_global_domains_conform() {
    let mut g = Rng::new(99);
    for name in [PolicyName::Gedf, PolicyName::NpGedf, PolicyName::Gfp, PolicyName::Llf, PolicyName::Edzl] {
        let tasks: Vec<(u64, u64)> = (0..24).map(|_| (5 + g.below(40), 100 + 10 * g.below(20))).collect();
        let s = spec(8, name, &tasks);
        let r = run(
            &s,
            build_with(&s, None, &BuildOptions { llf_hysteresis: 3 }).unwrap(),
            5000,
            &[(40, 3, 30), (41, 5, 7)],
        );
        assert!(r.done.len() > 24 * 20, "{name:?}");
    }
}
