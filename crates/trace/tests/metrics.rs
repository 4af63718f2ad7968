//! Exact metrics of the hand-written trace (2 CPUs, 3 tasks, a preemption,
//! a migration, a miss and an unfinished job).

mod common;

use common::{MS, US};
use schedlab_trace::metrics::{compute, compute_with_jobs};
use schedlab_trace::{Event, Interval, JobRecord, JobSink, JobStatus, Metrics, OverheadKind, SwitchReason};

fn rec(task: u32, job: u64, release: u64, deadline: u64, start: Option<u64>, finish: Option<u64>) -> JobRecord {
    let status = if finish.is_some() { JobStatus::Completed } else { JobStatus::Unfinished };
    JobRecord {
        task,
        job,
        release,
        deadline,
        start,
        finish,
        response: finish.map(|f| f - release),
        tardiness: finish.map_or(0, |f| f.saturating_sub(deadline)),
        missed: finish.is_some_and(|f| f > deadline),
        status,
        preemptions: 0,
        migrations: 0,
        exec: 0,
    }
}

#[test]
fn per_job_records_are_exact() {
    let (_, jobs) = compute_with_jobs(&common::header(), &common::events());
    // Execution excludes the overhead intervals that stall a job's stints:
    // A#0 loses the 10us schedule at 0, A#1 the 3us release at 5 ms, B#0 the
    // 5us context switches at 2 ms (CPU 0) and 8 ms (CPU 1).
    let a0 = JobRecord { exec: 2 * MS - 10 * US, ..rec(0, 0, 0, 5 * MS, Some(0), Some(2 * MS)) };
    let a1 = JobRecord { exec: 2 * MS - 3 * US, ..rec(0, 1, 5 * MS, 10 * MS, Some(5 * MS), Some(7 * MS)) };
    let c0 = JobRecord { exec: 8 * MS, ..rec(2, 0, 0, 7 * MS, Some(0), Some(8 * MS)) };
    let b0 = JobRecord {
        exec: 4 * MS - 10 * US,
        preemptions: 1,
        migrations: 1,
        ..rec(1, 0, 0, 10 * MS, Some(2 * MS), Some(9 * MS))
    };
    let a2 = rec(0, 2, 10 * MS, 15 * MS, None, None);
    assert_eq!(c0.tardiness, MS);
    assert!(c0.missed);
    // In completion order, then the unfinished jobs.
    assert_eq!(jobs, vec![a0, a1, c0, b0, a2]);
}

#[test]
fn per_task_cpu_and_total_figures_are_exact() {
    let r = compute(&common::header(), &common::events());
    assert_eq!(r.horizon, 10 * MS);
    let names: Vec<&str> = r.tasks.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["A", "B", "C <&\"q\">, x"]);

    let a = &r.tasks[0];
    assert_eq!((a.jobs, a.completed, a.unfinished, a.misses, a.aborted), (3, 2, 1, 0, 0));
    assert_eq!((a.max_response, a.mean_response, a.max_tardiness), (Some(2 * MS), Some(2e6), 0));
    assert_eq!((a.preemptions, a.migrations, a.exec), (0, 0, 4 * MS - 13 * US));
    assert_eq!(a.miss_ratio, 0.0);

    let b = &r.tasks[1];
    assert_eq!(
        (b.jobs, b.completed, b.misses, b.max_response, b.preemptions, b.migrations, b.exec),
        (1, 1, 0, Some(9 * MS), 1, 1, 4 * MS - 10 * US)
    );

    let c = &r.tasks[2];
    assert_eq!(
        (c.jobs, c.completed, c.misses, c.miss_ratio, c.max_response, c.max_tardiness),
        (1, 1, 1, 1.0, Some(8 * MS), MS)
    );

    assert_eq!(r.cpus.len(), 2);
    let (c0, c1) = (&r.cpus[0], &r.cpus[1]);
    assert_eq!((c0.busy, c0.utilization, c0.switches), (7 * MS - 18 * US, 0.6982, 3));
    assert_eq!((c1.busy, c1.utilization, c1.switches), (9 * MS - 5 * US, 0.8995, 2));
    assert_eq!(c0.overhead, 18 * US);
    assert_eq!(
        c0.overheads.iter().map(|o| (o.kind, o.count, o.total)).collect::<Vec<_>>(),
        [
            (OverheadKind::Release, 1, 3 * US),
            (OverheadKind::Schedule, 1, 10 * US),
            (OverheadKind::ContextSwitch, 1, 5 * US)
        ]
    );
    assert_eq!(c1.overhead, 5 * US);
    let cxs = r.overheads.iter().find(|o| o.kind == OverheadKind::ContextSwitch).unwrap();
    assert_eq!((cxs.count, cxs.total, cxs.max), (2, 10 * US, 5 * US));

    let t = &r.totals;
    assert_eq!((t.events, t.jobs, t.completed, t.unfinished, t.misses), (26, 5, 4, 1, 1));
    assert_eq!((t.preemptions, t.migrations, t.busy, t.overhead), (1, 1, 16 * MS - 23 * US, 23 * US));
    assert_eq!((t.max_response, t.max_tardiness, t.utilization, t.miss_ratio), (Some(9 * MS), MS, 1.5977, 0.2));
    assert_eq!((t.implicit_releases, t.anomalies), (0, 0));
}

#[test]
fn unfinished_jobs_past_their_deadline_are_misses() {
    let h = common::header();
    let mut evs = common::events();
    evs.truncate(19); // stop at 7ms, before C#0 (deadline 7ms) leaves CPU 1
    let (r, jobs) = compute_with_jobs(&h, &evs);
    // The header's horizon (10ms) is the end.
    let c0 = jobs.iter().find(|j| j.task == 2).unwrap();
    assert_eq!((c0.status, c0.missed, c0.finish, c0.tardiness), (JobStatus::Unfinished, true, None, 3 * MS));
    assert_eq!(c0.exec, 10 * MS, "still running: counted until the end");
    let b0 = jobs.iter().find(|j| j.task == 1).unwrap();
    assert_eq!((b0.status, b0.missed, b0.tardiness), (JobStatus::Unfinished, true, 0), "deadline 10ms <= end 10ms");
    assert_eq!(r.cpus[1].busy, 10 * MS);
}

#[test]
fn aborted_jobs_and_completions_without_switch_away() {
    let h = common::header();
    use Event::*;
    let evs = [
        Release { t: 0, task: 0, job: 0, deadline: 5 * MS },
        SwitchTo { t: 0, cpu: 1, task: 0, job: 0 },
        // Completion alone ends the interval.
        Completion { t: 5 * MS, cpu: 1, task: 0, job: 0, exec: 5 * MS, forced: true },
    ];
    let (r, jobs) = compute_with_jobs(&h, &evs);
    assert_eq!(jobs[0].status, JobStatus::Aborted);
    assert!(jobs[0].missed);
    assert_eq!((jobs[0].response, jobs[0].finish, jobs[0].exec), (None, Some(5 * MS), 5 * MS));
    assert_eq!((r.tasks[0].aborted, r.tasks[0].max_response), (1, None));
    assert_eq!(r.cpus[1].busy, 5 * MS);
}

#[test]
fn malformed_schedules_are_counted_not_fatal() {
    let h = common::header();
    use Event::*;
    let evs = [
        SwitchTo { t: 0, cpu: 0, task: 0, job: 0 }, // no release: implicit, deadline from the spec (5ms)
        SwitchTo { t: MS, cpu: 0, task: 1, job: 0 }, // CPU 0 busy: A#0's interval ends
        SwitchTo { t: 2 * MS, cpu: 1, task: 1, job: 0 }, // B#0 running on CPU 0: moved
        SwitchAway { t: 3 * MS, cpu: 0, task: 9, job: 9, reason: SwitchReason::Preempt, exec: 0 },
        DeadlineMiss { t: 3 * MS, task: 7, job: 7 },
        Overhead { t: 3 * MS, cpu: 4_000_000_000, kind: OverheadKind::Tick, dur: 1 },
        SwitchTo { t: 1, cpu: 3, task: 5, job: 0 }, // back in time, unknown task and CPU
    ];
    let (r, jobs) = compute_with_jobs(&h, &evs);
    assert_eq!(r.totals.implicit_releases, 3);
    assert_eq!(r.totals.anomalies, 4);
    let a0 = jobs.iter().find(|j| j.task == 0).unwrap();
    assert_eq!((a0.deadline, a0.exec, a0.status), (5 * MS, MS, JobStatus::Unfinished));
    let b0 = jobs.iter().find(|j| j.task == 1).unwrap();
    assert_eq!(b0.migrations, 1);
    assert_eq!(r.tasks.len(), 6);
    assert_eq!(r.tasks[5].name, "T5");
    assert_eq!(r.cpus.last().unwrap().cpu, 4_000_000_000);
    assert_eq!(r.cpus.len(), 5);
}

#[test]
fn sinks_receive_records_and_intervals_and_memory_holds_only_jobs_in_flight() {
    #[derive(Default)]
    struct Both(Vec<JobRecord>, Vec<Interval>);
    impl JobSink for Both {
        fn job(&mut self, r: &JobRecord) {
            self.0.push(r.clone())
        }
        fn interval(&mut self, iv: &Interval) {
            self.1.push(*iv)
        }
    }
    let h = common::header();
    let mut m = Metrics::from_header(&h).with_sink(Both::default());
    let mut max_in_flight = 0;
    for e in common::events() {
        m.push(&e);
        max_in_flight = max_in_flight.max(m.in_flight());
    }
    assert_eq!(max_in_flight, 3);
    assert_eq!(m.in_flight(), 1);
    let (_, Both(jobs, ivs)) = m.finish();
    assert_eq!(jobs.len(), 5);
    let b: Vec<(u32, u64, u64, Option<SwitchReason>)> =
        ivs.iter().filter(|i| i.task == 1).map(|i| (i.cpu, i.start, i.end, i.reason)).collect();
    assert_eq!(
        b,
        [(0, 2 * MS, 5 * MS, Some(SwitchReason::Preempt)), (1, 8 * MS, 9 * MS, Some(SwitchReason::Complete))]
    );

    // A closure as sink; and a long trace keeps a bounded job table.
    let mut count = 0;
    let mut m = Metrics::from_header(&h).with_sink(|_: &JobRecord| count += 1);
    for k in 0..100_000u64 {
        m.push(&Event::Release { t: k * 10, task: 0, job: k, deadline: k * 10 + 10 });
        m.push(&Event::SwitchTo { t: k * 10, cpu: 0, task: 0, job: k });
        m.push(&Event::Completion { t: k * 10 + 5, cpu: 0, task: 0, job: k, exec: 5, forced: false });
        assert!(m.in_flight() <= 1);
    }
    let (r, _) = m.finish();
    assert_eq!(count, 100_000);
    assert_eq!(r.tasks[0].completed, 100_000);
}

#[test]
fn report_serialises_to_json() {
    let r = compute(&common::header(), &common::events());
    let v = serde_json::to_value(&r).unwrap();
    assert_eq!(v["totals"]["misses"], 1);
    assert_eq!(v["tasks"][2]["max_tardiness"], 1_000_000);
    assert_eq!(v["cpus"][0]["overheads"][0]["kind"], "release");
}
