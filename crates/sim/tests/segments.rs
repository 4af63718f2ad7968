//! Segmented jobs in the simulator: CPU segments run in order with a
//! `segment-end` event and `Policy::segment_end` at each boundary, and
//! suspension segments take a job off its CPU for their length. FPDS
//! (OSPERT 2009, Bergsma et al.) on the paper's kind of example: a
//! low-priority video task split into subjobs and a high-priority network
//! task.

use schedlab_model::load_str;
use schedlab_sim::{simulate_collect, SimConfig};
use schedlab_trace::{Event, PolicyEvent, SwitchReason};

const MS: u64 = 1_000_000;

fn run(yaml: &str) -> Vec<Event> {
    let spec = load_str(yaml, None, "t.yaml").unwrap().spec;
    let mut policy = schedlab_policy::build(&spec, None).unwrap();
    simulate_collect(&spec, policy.as_mut(), &SimConfig::default()).unwrap().0
}

/// (task, start, end) of every stint on CPU 0, in ms.
fn stints(ev: &[Event]) -> Vec<(u32, f64, f64)> {
    let mut open = None;
    let mut out = Vec::new();
    for e in ev {
        match *e {
            Event::SwitchTo { t, cpu: 0, task, .. } => open = Some((task, t)),
            Event::SwitchAway { t, cpu: 0, task, .. } => {
                let (tk, s) = open.take().unwrap();
                assert_eq!(tk, task);
                if t > s {
                    out.push((task, s as f64 / MS as f64, t as f64 / MS as f64));
                }
            }
            _ => {}
        }
    }
    out
}

fn camera(policy: &str) -> String {
    format!(
        "platform: {{cpus: 1}}\npolicy: {{name: {policy}}}\ntasks:\n  \
         - {{name: network, wcet: 1ms, period: 5ms, offset: 1ms}}\n  \
         - {{name: video, wcet: 6ms, period: 20ms, subjobs: [2ms, 2ms, 2ms]}}\n"
    )
}

/// The golden FPDS schedule: network's job released at 1 ms, during the
/// video job's first subjob, waits for the preemption point at 2 ms; the one
/// released at 6 ms, during the final subjob (5..7 ms), waits for its end.
#[test]
fn a_release_waits_for_the_next_point_and_the_final_subjob_runs_to_its_end() {
    let ev = run(&camera("fpds"));
    assert_eq!(&stints(&ev)[..5], [(1, 0.0, 2.0), (0, 2.0, 3.0), (1, 3.0, 7.0), (0, 7.0, 8.0), (0, 11.0, 12.0)]);
    let points: Vec<(u64, u32, u64, u32)> = ev
        .iter()
        .filter_map(|e| match *e {
            Event::SegmentEnd { t, task, job, segment, .. } => Some((t, task, job, segment)),
            _ => None,
        })
        .collect();
    assert_eq!(&points[..2], [(2 * MS, 1, 0, 0), (5 * MS, 1, 0, 1)]);
    // The video job left its CPU once, at its first point; never in its final subjob.
    let aways: Vec<(u64, SwitchReason)> = ev
        .iter()
        .filter_map(|e| match *e {
            Event::SwitchAway { t, task: 1, reason, .. } => Some((t, reason)),
            _ => None,
        })
        .collect();
    assert_eq!(aways[..2], [(2 * MS, SwitchReason::Preempt), (7 * MS, SwitchReason::Complete)]);
    // The policy recorded the point it took (at 2 ms, after segment 0), and
    // not the one at 5 ms where nobody waited.
    let taken: Vec<(u64, Option<u32>, PolicyEvent)> = ev
        .iter()
        .filter_map(|e| match e {
            Event::Policy { t, cpu, event } => Some((*t, *cpu, event.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(taken[0], (2 * MS, Some(0), PolicyEvent::PreemptionPoint { task: 1, job: 0, segment: 0 }));
    assert!(taken.iter().all(|(t, ..)| *t != 5 * MS), "{taken:?}");
    let aways_at_points =
        ev.iter().filter(|e| matches!(e, Event::SwitchAway { task: 1, reason: SwitchReason::Preempt, .. })).count();
    assert_eq!(taken.len(), aways_at_points, "one event per point taken: {taken:?}");
    // Without policy events recorded, no event is built.
    let spec = load_str(&camera("fpds"), None, "t.yaml").unwrap().spec;
    let mut policy = schedlab_policy::build(&spec, None).unwrap();
    let quiet = SimConfig { policy_events: false, ..SimConfig::default() };
    let ev_quiet = simulate_collect(&spec, policy.as_mut(), &quiet).unwrap().0;
    assert!(!ev_quiet.iter().any(|e| matches!(e, Event::Policy { .. })));
    // The same set under P-FP: preempted at each release, at once.
    let ev = run(&camera("pfp"));
    assert_eq!(&stints(&ev)[..5], [(1, 0.0, 1.0), (0, 1.0, 2.0), (1, 2.0, 6.0), (0, 6.0, 7.0), (1, 7.0, 8.0)]);
    // And under FPNS: the video job runs in one piece.
    let ev = run(&camera("fpns"));
    assert_eq!(&stints(&ev)[..3], [(1, 0.0, 6.0), (0, 6.0, 7.0), (0, 7.0, 8.0)]);
}

/// A point with nobody waiting costs nothing: the job runs on (one stint).
#[test]
fn a_point_without_a_waiting_job_does_not_switch() {
    let ev = run(
        "platform: {cpus: 1}\npolicy: {name: fpds}\ntasks:\n  - {name: v, wcet: 6ms, period: 20ms, subjobs: [1ms, 2ms, 3ms]}\n",
    );
    assert_eq!(stints(&ev), [(0, 0.0, 6.0)]);
    assert_eq!(ev.iter().filter(|e| matches!(e, Event::SegmentEnd { .. })).count(), 2);
    assert!(!ev.iter().any(|e| matches!(e, Event::Policy { .. })), "no point taken");
}

/// Tasks without segments produce no segment events.
#[test]
fn unsegmented_tasks_have_no_segment_events() {
    let ev = run("platform: {cpus: 1}\npolicy: {name: pfp}\ntasks:\n  - {name: a, wcet: 1ms, period: 4ms}\n  - {name: b, wcet: 2ms, period: 8ms}\n");
    assert!(!ev.iter().any(|e| matches!(e, Event::SegmentEnd { .. } | Event::Block { .. })));
}

/// A suspension takes the job off its CPU for its length; another job runs
/// meanwhile; the job resumes with its next segment and completes on time.
#[test]
fn a_suspension_blocks_the_job_for_its_length() {
    let ev = run("platform: {cpus: 1}\npolicy: {name: pfp}\ntasks:\n  \
         - {name: io, wcet: 2ms, period: 10ms, segments: [{exec: 1ms}, {suspend: 3ms}, {exec: 1ms}]}\n  \
         - {name: bg, wcet: 4ms, period: 10ms}\n");
    assert_eq!(stints(&ev), [(0, 0.0, 1.0), (1, 1.0, 4.0), (0, 4.0, 5.0), (1, 5.0, 6.0)]);
    let io: Vec<&Event> = ev.iter().filter(|e| e.job().is_some_and(|j| j.task == 0)).collect();
    assert!(io.iter().any(|e| matches!(e, Event::Block { t, .. } if *t == MS)));
    assert!(io.iter().any(|e| matches!(e, Event::Resume { t, .. } if *t == 4 * MS)));
    assert!(io.iter().any(
        |e| matches!(e, Event::SwitchAway { t, reason: SwitchReason::Block, exec, .. } if *t == MS && *exec == MS)
    ));
    assert!(io.iter().any(|e| matches!(e, Event::Completion { t, exec, .. } if *t == 5 * MS && *exec == 2 * MS)));
}

/// Leading and trailing suspensions: the job is blocked from its release
/// for the first, and completes when the last ends.
#[test]
fn leading_and_trailing_suspensions() {
    let ev = run(
        "platform: {cpus: 1}\npolicy: {name: gedf}\ntasks:\n  \
         - {name: s, wcet: 1ms, period: 10ms, segments: [{suspend: 2ms}, {exec: 1ms}, {suspend: 1ms}, {suspend: 1ms}]}\n",
    );
    assert_eq!(stints(&ev), [(0, 2.0, 3.0)]);
    let done: Vec<(u64, u64)> = ev
        .iter()
        .filter_map(|e| match *e {
            Event::Completion { t, exec, .. } => Some((t, exec)),
            _ => None,
        })
        .collect();
    assert_eq!(done, [(5 * MS, MS)]);
}
