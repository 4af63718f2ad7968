//! RUN driven by the tiny in-test driver (exact WCETs, periodic releases,
//! every instant checked: stable answers without resched, no job on two
//! CPUs). The oracle tests with the simulator and the validator are in
//! crates/validate/tests/run.rs.

mod common;

use common::{run, spec};
use schedlab_model::rng::Rng;
use schedlab_model::{Packing, PolicyName};
use schedlab_policy::{build, Policy};

fn policy(s: &schedlab_model::Spec) -> Box<dyn Policy> {
    build(s, None).unwrap_or_else(|e| panic!("{e}"))
}

/// Three tasks (2, 3) on two CPUs (U = 2; no partitioning exists): the duals
/// (1/3 each) take turns on the root, one ns each per period, so each
/// server runs 2 of every 3 ns; both CPUs are always busy, no deadline is
/// missed, and each CPU's answer changes only with a resched.
#[test]
fn three_two_thirds_on_two_cpus() {
    let s = spec(2, PolicyName::Run, &[(2, 3), (2, 3), (2, 3)]);
    let p = policy(&s);
    assert_eq!(p.info().name, "run");
    assert_eq!(p.info().domains, vec![vec![0, 1]]);
    assert_eq!(p.info().conformance, schedlab_policy::Conformance::Replay);
    let r = run(&s, p, 30, &[]);
    assert!(r.misses().is_empty(), "{:?}", r.misses());
    assert_eq!(r.done.len(), 30);
    let busy: u64 = r.segs.iter().map(|s| s.end - s.start).sum();
    assert_eq!(busy, 60, "U = m: no CPU ever idles");
    // By hand: the root runs S1* at [0, 1), S2* at [1, 2), S3* at [2, 4)
    // (at 3 it keeps the current one on the deadline tie), then S1*, ...;
    // a server runs while its dual does not, on the CPU its predecessor
    // freed: S2 (t1) and S3 (t2) start on CPUs 0 and 1, S1 (t0) takes CPU 0
    // at 1, S2 takes CPU 1 at 2, S3 takes CPU 0 at 4.
    assert_eq!(&r.cpu(0)[..4], &[(1, 0, 1), (0, 1, 3), (0, 3, 4), (2, 4, 6)]);
    assert_eq!(&r.cpu(1)[..4], &[(2, 0, 2), (1, 2, 3), (1, 3, 5), (0, 5, 6)]);
}

/// When the first PACK gives m unit servers RUN is partitioned EDF: no
/// task ever changes CPU.
#[test]
fn perfect_packing_never_migrates() {
    let s = spec(2, PolicyName::Run, &[(6, 10), (4, 10), (5, 10), (3, 6)]);
    let r = run(&s, policy(&s), 300, &[]);
    assert!(r.misses().is_empty());
    for t in 0..4 {
        let cpus: std::collections::BTreeSet<u32> = r.segs.iter().filter(|g| g.task == t).map(|g| g.cpu).collect();
        assert_eq!(cpus.len(), 1, "task {t} ran on {cpus:?}");
    }
}

/// Random sets at U = m exactly on a 1 µs grid (a task of period H absorbs
/// the rest), every utilisation at least 1 %: no deadline miss, CPUs always
/// busy (docs/policies.md: windows with fluid slack below 2 ns are excluded
/// by the grid and the smallest utilisation).
#[test]
fn random_full_utilisation() {
    const US: u64 = 1_000;
    let mut g = Rng::new(7);
    for case in 0..60 {
        let m = 2 + g.below(3) as u32;
        let h = 120 * US;
        let periods = [10, 12, 15, 20, 24, 30, 40, 60, 120].map(|p| p * US);
        let mut tasks = Vec::new();
        let mut work = 0;
        for _ in 0..(m + 1 + g.below(2 * m as u64) as u32) {
            let p = periods[g.below(periods.len() as u64) as usize];
            let c = p / 100 + g.below(p * 9 / 10);
            if work + c * (h / p) > m as u64 * h {
                break;
            }
            work += c * (h / p);
            tasks.push((c, p));
        }
        let mut rest = m as u64 * h - work;
        while rest > 0 {
            let c = if rest > h + h / 100 {
                h
            } else if rest > h {
                rest - h / 100
            } else {
                rest
            };
            tasks.push((c, h));
            rest -= c;
        }
        if tasks.iter().any(|&(c, p)| c * 100 < p) {
            continue; // a filler below 1 %
        }
        let mut s = spec(m, PolicyName::Run, &tasks);
        s.policy.as_mut().unwrap().partitioning = Some([Packing::Wfd, Packing::Ff, Packing::Wf, Packing::Nf][case % 4]);
        let r = run(&s, policy(&s), 2 * h, &[]);
        assert!(r.misses().is_empty(), "case {case}: {tasks:?} on {m}: {:?}", r.misses());
        let busy: u64 = r.segs.iter().map(|s| s.end - s.start).sum();
        assert_eq!(busy, 2 * h * m as u64, "case {case}: {tasks:?} on {m}");
    }
}

/// A blocked job leaves its server's time unused: no other server runs in
/// it. Task 1's second job runs on CPU 1 from 3; blocked at 4 for 1 ns, it
/// loses that ns and misses; the other tasks are untouched.
#[test]
fn blocking_idles_the_server() {
    let s = spec(2, PolicyName::Run, &[(2, 3), (2, 3), (2, 3)]);
    let free = run(&s, policy(&s), 30, &[]);
    let r = run(&s, policy(&s), 30, &[(4, 1, 1)]);
    let busy = |r: &common::Run| r.segs.iter().map(|s| s.end - s.start).sum::<u64>();
    assert_eq!(busy(&free), 60);
    assert_eq!(busy(&r), 59, "the blocked ns is idle");
    assert!(!r.misses().is_empty() && r.misses().iter().all(|d| d.id.task == 1), "{:?}", r.misses());
    // The tree does not depend on the jobs: the other servers' time is the same.
    let time_of = |r: &common::Run, t: u32| r.segs.iter().filter(|g| g.task == t).map(|g| g.end - g.start).sum::<u64>();
    assert_eq!((time_of(&r, 0), time_of(&r, 2)), (time_of(&free, 0), time_of(&free, 2)));
}

#[test]
fn admission() {
    let err = |s: &schedlab_model::Spec| build(s, None).err().expect("refused").to_string();
    let mut s = spec(2, PolicyName::Run, &[(2, 3), (2, 3), (2, 3), (1, 100)]);
    assert!(err(&s).starts_with("tasks: total utilisation"), "{}", err(&s));
    s.tasks.truncate(3);
    s.tasks[1].deadline = Some(schedlab_model::Duration(2));
    assert!(err(&s).starts_with("tasks[1].deadline: `t1` has deadline"), "{}", err(&s));
    s.tasks[1].deadline = None;
    s.tasks[0].cpu = Some(1);
    assert!(err(&s).starts_with("tasks[0].cpu:"), "{}", err(&s));
    s.tasks[0].cpu = None;
    s.policy.as_mut().unwrap().partitioning = Some(Packing::Cap);
    assert!(err(&s).starts_with("policy.partitioning:"), "{}", err(&s));
    s.policy.as_mut().unwrap().partitioning = None;
    let placement = vec![schedlab_model::Placement::Cpu { cpu: 0 }; 3];
    assert!(build(&s, Some(&placement)).is_err());
}
