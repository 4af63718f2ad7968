//! Execution-time timers (`Kernel::arm_exec`) and counters
//! (`Kernel::counters`) through the one driver, run by the policy tests'
//! host: a budget runs down only while its job runs, and expires at the
//! exact instant the job's consumption reaches it, preemptions included.

mod common;

use common::overrun::Overrun;
use common::*;
use schedlab_model::{Duration, PolicyName};
use schedlab_policy::{CountersUnavailable, JobId, Rate};

const MS: u64 = 1_000_000;

fn job(task: u32, seq: u64) -> JobId {
    JobId { task, seq }
}

/// t1 (C = 6, budget 3) from 0; t0 (C = 4, budget 2, higher priority) from 1.
fn two_tasks() -> schedlab_model::Spec {
    let mut s = spec(1, PolicyName::Pfp, &[(4 * MS, 20 * MS), (6 * MS, 20 * MS)]);
    s.tasks[0].offset = Duration(MS);
    s
}

#[test]
fn a_budget_expires_at_the_exact_consumption_under_preemption() {
    let policy = Overrun::new(vec![2 * MS, 3 * MS]);
    let log = policy.log.clone();
    let r = run(&two_tasks(), Box::new(policy), 19 * MS, &[]);
    // t1 runs 0-1, is preempted by t0 (1-3, whose budget expires at 3 with
    // 2 consumed: background), resumes 3-5 (its budget of 3 expires at 5:
    // 1 before the preemption, 2 after), then both overran: by index.
    assert_eq!(
        r.cpu(0),
        vec![(1, 0, MS), (0, MS, 3 * MS), (1, 3 * MS, 5 * MS), (0, 5 * MS, 7 * MS), (1, 7 * MS, 10 * MS)]
    );
    let log = log.lock().unwrap();
    assert_eq!(log.expiries, vec![(job(0, 0), 3 * MS, 2 * MS), (job(1, 0), 5 * MS, 3 * MS)]);
    assert!(log.rates.iter().all(|&r| r == Rate::ONE));
}

#[test]
fn a_budget_beyond_the_demand_never_expires_and_dies_with_its_job() {
    // Budgets above the WCETs: no expiry in three hyperperiods, and no
    // timer of a completed job fires later.
    let policy = Overrun::new(vec![4 * MS + 1, 6 * MS + 1]);
    let log = policy.log.clone();
    let r = run(&two_tasks(), Box::new(policy), 60 * MS, &[]);
    assert!(r.misses().is_empty());
    assert_eq!(log.lock().unwrap().expiries, vec![]);
}

#[test]
fn a_blocked_job_does_not_consume_its_budget() {
    // t1 blocks at 0.5 for 4 (t0 runs 1-3 and expires meanwhile); t1's
    // budget of 3 then expires at 4.5 + 2.5 = 7 (t0, background, waits).
    let policy = Overrun::new(vec![2 * MS, 3 * MS]);
    let log = policy.log.clone();
    run(&two_tasks(), Box::new(policy), 19 * MS, &[(MS / 2, 1, 4 * MS)]);
    let log = log.lock().unwrap();
    assert_eq!(log.expiries, vec![(job(0, 0), 3 * MS, 2 * MS), (job(1, 0), 7 * MS, 3 * MS)]);
}

#[test]
fn counters_are_read_when_the_host_has_them_and_their_absence_is_handled() {
    let with = Overrun::new(vec![2 * MS, 3 * MS]);
    let without = Overrun::new(vec![2 * MS, 3 * MS]);
    let (lw, lo) = (with.log.clone(), without.log.clone());
    let a = try_run_with(&two_tasks(), Box::new(with), 39 * MS, &[], true).unwrap();
    let b = try_run_with(&two_tasks(), Box::new(without), 39 * MS, &[], false).unwrap();
    // The same schedule either way.
    assert_eq!(a.table(), b.table());
    let (lw, lo) = (lw.lock().unwrap(), lo.lock().unwrap());
    // Releases at 0, 1, 20, 21 ms: the host's instructions count is its clock.
    let got: Vec<Option<u64>> = lw.counters.iter().map(|c| c.as_ref().unwrap().instructions).collect();
    assert_eq!(got, vec![Some(0), Some(MS), Some(20 * MS), Some(21 * MS)]);
    assert!(lw.counters.iter().all(|c| c.unwrap().has_hardware() && c.unwrap().cache_misses.is_none()));
    assert_eq!(lo.counters, vec![Err(CountersUnavailable::NoSource { what: "the test host" }); 4]);
}

/// `docs/writing-a-policy.md` prints the test policy's `release` verbatim.
#[test]
fn the_guide_prints_the_budget_arming() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let me = std::fs::read_to_string(root.join("crates/policy/tests/common/overrun.rs")).unwrap();
    let start = me.find("    fn release(&mut self, job: Job").unwrap();
    let end = start + me[start..].find("\n    }\n").unwrap() + "\n    }".len();
    let guide = std::fs::read_to_string(root.join("docs/writing-a-policy.md")).unwrap();
    assert!(guide.contains(&me[start..end]), "docs/writing-a-policy.md no longer prints:\n{}", &me[start..end]);
}
