//! Deadline-miss handling: continue (default), abort, skip.

mod common;

use common::*;
use schedlab_model::Duration;
use schedlab_sim::{simulate_collect, MissPolicy, SimConfig};
use schedlab_trace::{Event, SwitchReason};

fn overloaded() -> schedlab_model::Spec {
    spec(1, vec![task("a", 6_000, 4_000)])
}

#[test]
fn continue_lets_late_jobs_finish_and_queues_successors() {
    let s = overloaded();
    let config = SimConfig { horizon: Some(24_000), ..SimConfig::default() };
    let (ev, sum) = simulate_collect(&s, &mut TopM::edf(&s), &config).unwrap();
    check_trace(&ev, 1);
    assert_eq!(releases(&ev, 0).iter().map(|r| r.0).collect::<Vec<_>>(), vec![0, 4_000, 8_000, 12_000, 16_000, 20_000]);
    let c = completions(&ev, 0);
    assert_eq!(
        c.iter().map(|c| (c.0, c.1)).collect::<Vec<_>>(),
        vec![(6_000, 0), (12_000, 1), (18_000, 2), (24_000, 3)]
    );
    assert!(c.iter().all(|c| c.2 == 6_000 && !c.3));
    let m = misses(&ev);
    assert_eq!(m, (0..6).map(|k| (4_000 * (k + 1), 0, k)).collect::<Vec<_>>());
    assert_eq!(sum.tasks[0].max_tardiness, 24_000 - 16_000);
    assert_eq!(sum.incomplete, 2);
}

#[test]
fn abort_stops_the_job_at_its_deadline() {
    let mut a = task("a", 3_000, 4_000);
    a.deadline = Some(Duration(2_000));
    let s = spec(1, vec![a]);
    let config = SimConfig { horizon: Some(12_000), miss: MissPolicy::Abort, ..SimConfig::default() };
    let (ev, sum) = simulate_collect(&s, &mut TopM::edf(&s), &config).unwrap();
    check_trace(&ev, 1);
    let expect_job0 = [
        Event::Release { t: 0, task: 0, job: 0, deadline: 2_000 },
        Event::SwitchTo { t: 0, cpu: 0, task: 0, job: 0 },
        Event::DeadlineMiss { t: 2_000, task: 0, job: 0 },
        Event::SwitchAway { t: 2_000, cpu: 0, task: 0, job: 0, reason: SwitchReason::Abort, exec: 2_000 },
        Event::Completion { t: 2_000, cpu: 0, task: 0, job: 0, exec: 2_000, forced: true },
        Event::Release { t: 4_000, task: 0, job: 1, deadline: 6_000 },
    ];
    assert_eq!(&ev[1..7], &expect_job0);
    assert_eq!(sum.tasks[0].aborted, 3);
    assert_eq!(sum.tasks[0].missed, 3);
    assert_eq!(sum.tasks[0].completed, 3);
    assert_eq!(sum.incomplete, 0);
}

#[test]
fn abort_drops_a_queued_job_that_never_ran() {
    // D > T: job 1 waits behind job 0; both are past their deadlines.
    let mut a = task("a", 10_000, 1_000);
    a.deadline = Some(Duration(1_500));
    let s = spec(1, vec![a]);
    let config = SimConfig { horizon: Some(5_000), miss: MissPolicy::Abort, ..SimConfig::default() };
    let (ev, _) = simulate_collect(&s, &mut TopM::edf(&s), &config).unwrap();
    check_trace(&ev, 1);
    let c = completions(&ev, 0);
    assert!(c.iter().all(|c| c.3), "all forced");
    assert_eq!(
        c.iter().map(|c| (c.0, c.1, c.2)).collect::<Vec<_>>(),
        vec![(1_500, 0, 1_500), (2_500, 1, 1_000), (3_500, 2, 1_000), (4_500, 3, 1_000)]
    );
}

#[test]
fn skip_drops_releases_while_a_job_is_late() {
    let s = overloaded();
    let config = SimConfig { horizon: Some(24_000), miss: MissPolicy::Skip, ..SimConfig::default() };
    let (ev, sum) = simulate_collect(&s, &mut TopM::edf(&s), &config).unwrap();
    check_trace(&ev, 1);
    assert_eq!(releases(&ev, 0), vec![(0, 0, 4_000), (8_000, 1, 12_000), (16_000, 2, 20_000)]);
    assert_eq!(completions(&ev, 0).iter().map(|c| c.0).collect::<Vec<_>>(), vec![6_000, 14_000, 22_000]);
    assert_eq!(misses(&ev), vec![(4_000, 0, 0), (12_000, 0, 1), (20_000, 0, 2)]);
    assert_eq!(sum.tasks[0].skipped, 3);
    assert_eq!(sum.tasks[0].released, 3);
}

#[test]
fn a_job_completing_exactly_at_its_deadline_meets_it() {
    let s = spec(1, vec![task("a", 2_000, 4_000), task("b", 2_000, 4_000)]);
    let config = SimConfig { horizon: Some(40_000), ..SimConfig::default() };
    let (ev, _) = simulate_collect(&s, &mut TopM::edf(&s), &config).unwrap();
    assert!(misses(&ev).is_empty());
    assert!(completions(&ev, 1).iter().all(|c| c.0 % 4_000 == 0));
}
