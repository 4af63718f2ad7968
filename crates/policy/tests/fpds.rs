//! FPDS, G-FPDS and FPNS (fixed priority with deferred preemption and
//! without preemption; Bergsma et al., OSPERT 2009): a higher-priority
//! release waits for the running job's next preemption point, the final
//! subjob runs to completion, and at a point the job yields only to a
//! waiting higher-priority job. The test host (tests/common) also checks at
//! every instant that a job leaves its CPU only at a point, when it completes
//! or when it blocks.

mod common;

use common::*;
use schedlab_model::rng::Rng;
use schedlab_model::{Duration, PolicyName, Spec};
use schedlab_policy::{build, Conformance, Preemption};

/// Task 0 (high priority by rate): wcet `c`, period `p`, offset `o`; task 1
/// (low priority): subjobs `subjobs`, period 100.
fn two(policy: PolicyName, c: u64, p: u64, o: u64, subjobs: &[u64]) -> Spec {
    let mut s = spec(1, policy, &[(c, p), (subjobs.iter().sum(), 100)]);
    s.tasks[0].offset = Duration(o);
    s.tasks[1].subjobs = Some(subjobs.iter().map(|&d| Duration(d)).collect());
    s
}

fn cpu0(s: &Spec, horizon: u64) -> Vec<(u32, u64, u64)> {
    run(s, build(s, None).unwrap(), horizon, &[]).cpu(0)
}

/// The golden schedule: low-priority subjobs [2, 2, 2] from 0; high-priority
/// jobs of 1 released at 1 and 6. The first waits for the point at 2; the
/// second is released during the final subjob (5..7) and waits for its end.
#[test]
fn a_release_waits_for_the_next_point_and_the_final_subjob_is_not_preempted() {
    let s = two(PolicyName::Fpds, 1, 5, 1, &[2, 2, 2]);
    assert_eq!(cpu0(&s, 9), [(1, 0, 2), (0, 2, 3), (1, 3, 7), (0, 7, 8)]);
    // The same set under P-FP: preempted at once, twice.
    let s = two(PolicyName::Pfp, 1, 5, 1, &[2, 2, 2]);
    assert_eq!(cpu0(&s, 9), [(1, 0, 1), (0, 1, 2), (1, 2, 6), (0, 6, 7), (1, 7, 8)]);
    // FPNS: the low job's six units run in one piece; both high jobs wait (the second is held behind the first).
    let s = two(PolicyName::Fpns, 1, 5, 1, &[2, 2, 2]);
    assert_eq!(cpu0(&s, 9), [(1, 0, 6), (0, 6, 7), (0, 7, 8)]);
}

/// At a point with no higher-priority job waiting the job goes on (one
/// stint), and a release at the very instant of a point gets in there.
#[test]
fn a_point_yields_only_to_a_waiting_job_and_a_release_at_the_point_gets_in() {
    let s = two(PolicyName::Fpds, 1, 50, 4, &[2, 2, 2]);
    // Released exactly at the point at 4 (end of the second subjob).
    assert_eq!(cpu0(&s, 9), [(1, 0, 4), (0, 4, 5), (1, 5, 7)]);
    let s = two(PolicyName::Fpds, 1, 50, 60, &[2, 2, 2]);
    let r = run(&s, build(&s, None).unwrap(), 9, &[]);
    assert_eq!(r.cpu(0), [(1, 0, 6)]);
    assert_eq!(r.switches, 1);
}

/// G-FPDS on two CPUs: both run low-priority jobs with points at different
/// instants; a high-priority release takes the CPU of the first job to reach
/// a point, even when that job is not the lowest-priority one running.
#[test]
fn g_fpds_takes_the_first_cpu_to_reach_a_point() {
    // t0: high, wcet 1 at 1. t1: subjobs [5, 5]. t2 (lowest): subjobs [3, 3].
    let mut s = spec(2, PolicyName::GFpds, &[(1, 50), (10, 100), (6, 200)]);
    s.tasks[0].offset = Duration(1);
    s.tasks[1].subjobs = Some(vec![Duration(5), Duration(5)]);
    s.tasks[2].subjobs = Some(vec![Duration(3), Duration(3)]);
    let r = run(&s, build(&s, None).unwrap(), 20, &[]);
    // t2 (the lowest) reaches its point at 3 first and yields there; t1's
    // point at 5 then finds nobody waiting.
    assert_eq!(r.table(), [(0, 1, 0, 10), (1, 2, 0, 3), (1, 0, 3, 4), (1, 2, 4, 7)]);
    // Under G-FP the lowest-priority job (t2) is preempted at once.
    s.policy.as_mut().unwrap().name = PolicyName::Gfp;
    let r = run(&s, build(&s, None).unwrap(), 20, &[]);
    assert_eq!(r.table(), [(0, 1, 0, 10), (1, 2, 0, 1), (1, 0, 1, 2), (1, 2, 2, 7)]);
}

/// A job with no declared subjobs is one subjob: FPDS runs it without
/// preemption, like FPNS.
#[test]
fn an_unsegmented_job_is_one_subjob() {
    let mut s = two(PolicyName::Fpds, 1, 5, 1, &[6]);
    s.tasks[1].subjobs = None;
    assert_eq!(cpu0(&s, 9), [(1, 0, 6), (0, 6, 7), (0, 7, 8)]);
}

#[test]
fn the_policies_declare_their_preemption() {
    let c = |name| build(&spec(2, name, &[(1, 10), (1, 10)]), None).unwrap().info().conformance;
    assert_eq!(c(PolicyName::Fpds), Conformance::Deferred { work_conserving: true });
    assert_eq!(c(PolicyName::GFpds), Conformance::Deferred { work_conserving: true });
    assert_eq!(c(PolicyName::Fpds).preemption(), Preemption::AtPoints);
    assert_eq!(c(PolicyName::Fpns).preemption(), Preemption::None);
    assert_eq!(c(PolicyName::Pfp).preemption(), Preemption::Full);
    let p = build(&spec(2, PolicyName::Fpds, &[(1, 10), (1, 10)]), None).unwrap();
    assert_eq!((p.info().name, p.info().domains.len()), ("fpds", 2));
    let p = build(&spec(2, PolicyName::GFpds, &[(1, 10), (1, 10)]), None).unwrap();
    assert_eq!((p.info().name, p.info().domains.len()), ("g-fpds", 1));
}

/// Random uniprocessor sets with subjobs under FPDS: the host's checks hold
/// at every instant (no switch away from a running job but at a point, at
/// completion or at a block; no idle CPU while a job waits; a CPU's answer
/// changes only when it is rescheduled).
#[test]
fn random_sets_preempt_only_at_points() {
    let mut rng = Rng::new(0x5eed_f9d5);
    for _ in 0..200 {
        let n = 2 + rng.below(3) as usize;
        let tasks: Vec<(u64, u64)> = (0..n).map(|_| (0, 20 + rng.below(80))).collect();
        let mut s = spec(1, PolicyName::Fpds, &tasks);
        for t in &mut s.tasks {
            let k = 1 + rng.below(3);
            let subjobs: Vec<Duration> = (0..k).map(|_| Duration(1 + rng.below(4))).collect();
            t.wcet = Duration(subjobs.iter().map(|d| d.0).sum());
            t.subjobs = Some(subjobs);
        }
        let r = run(&s, build(&s, None).unwrap(), 400, &[]);
        assert!(!r.done.is_empty());
    }
}
