//! Segment demands (`docs/jobs.md`, Segments): per execution mode, each
//! segment's demand keeps its model; a job's CPU demands add up to its
//! demand; draws are reproducible and come from a stream of their own, so
//! tasks without segments draw exactly what they drew before.

use schedlab_jobs::{Arrivals, Execution, JobModel, SegmentDemand, Sporadic};
use schedlab_model::rng::Rng;
use schedlab_model::{Duration, Segment, SegmentKind, Task};

/// A random segmented task: 1–6 segments, at least one on the CPU, with
/// `wcet` their CPU total (as the loader derives it), maybe a BCET and an
/// executions list.
fn segmented(r: &mut Rng) -> Task {
    let n = r.range_u64(1, 6) as usize;
    let mut segments: Vec<Segment> = (0..n)
        .map(|_| Segment {
            kind: [SegmentKind::Exec, SegmentKind::Memory, SegmentKind::Suspend][r.range_u64(0, 2) as usize],
            length: Duration(r.range_u64(1, 5_000_000)),
            preemptible: r.range_u64(0, 3) != 0,
        })
        .collect();
    if segments.iter().all(|s| s.kind == SegmentKind::Suspend) {
        segments[0].kind = SegmentKind::Exec;
    }
    // The short form: every subjob executes.
    let subjobs = r.range_u64(0, 3) == 0;
    let wcet: u64 = segments.iter().filter(|s| subjobs || s.kind.on_cpu()).map(|s| s.length.0).sum();
    Task {
        bcet: (r.range_u64(0, 1) == 0).then(|| Duration(r.range_u64(1, wcet))),
        executions: (r.range_u64(0, 3) == 0)
            .then(|| (0..r.range_u64(1, 4)).map(|_| Duration(r.range_u64(1, 2 * wcet))).collect()),
        subjobs: subjobs.then(|| segments.iter().map(|s| s.length).collect()),
        segments: (!subjobs).then_some(segments),
        ..Task::new("t", Duration(wcet), Duration(100_000_000))
    }
}

fn execution(r: &mut Rng) -> Execution {
    match r.range_u64(0, 2) {
        0 => Execution::Wcet,
        1 => Execution::Uniform,
        _ => Execution::Fraction(r.range_u64(1, 200) as f64 / 100.0),
    }
}

fn cpu(job: &[SegmentDemand]) -> u64 {
    job.iter().filter(|s| s.kind.on_cpu()).map(|s| s.demand).sum()
}

#[test]
fn each_segment_keeps_its_model() {
    let mut r = Rng::new(21);
    for _ in 0..500 {
        let t = segmented(&mut r);
        let m = JobModel { seed: r.next_u64(), execution: execution(&mut r), ..JobModel::default() };
        let segs = t.segments();
        let w = t.wcet.0 as u128;
        let mut d = m.segment_demands(&t, 3);
        assert_eq!(d.segments_per_job(), segs.len());
        for k in 0..30 {
            let job = d.next_job().to_vec();
            assert_eq!(job.len(), segs.len());
            let total = match (&t.executions, m.execution) {
                (Some(l), _) => Some(l[k % l.len()].0),
                (None, Execution::Fraction(f)) => Some((t.wcet.0 as f64 * f).round() as u64),
                _ => None,
            };
            let mut cum = 0u128;
            for (s, j) in segs.iter().zip(&job) {
                assert_eq!((j.kind, j.preemptible), (s.kind, s.preemptible), "the segment's kind and region stay");
                let len = s.length.0;
                if !s.kind.on_cpu() {
                    if m.execution == Execution::Uniform {
                        assert!(j.demand <= len, "a suspension is drawn in [0, length]: {j:?} of {s:?}");
                    } else {
                        assert_eq!(j.demand, len, "a suspension takes its length");
                    }
                    continue;
                }
                match total {
                    Some(tot) => {
                        // Its proportional share of the job's total, within rounding.
                        let before = cum * tot as u128 / w;
                        cum += len as u128;
                        let share = (cum * tot as u128 / w - before) as u64;
                        assert_eq!(j.demand, share.max(1), "{s:?} of a job of {tot}");
                    }
                    None if m.execution == Execution::Uniform => {
                        let lo = (len as u128 * t.bcet().0 as u128).div_ceil(w) as u64;
                        assert!(j.demand >= lo && j.demand <= len, "{j:?} in [{lo}, {len}]");
                    }
                    None => assert_eq!(j.demand, len),
                }
            }
            let c = cpu(&job);
            match total {
                // Exactly the total unless a share below 1 ns was raised to 1.
                Some(tot) => assert!(c >= tot && c <= tot + segs.len() as u64, "{c} for {tot}"),
                None if m.execution == Execution::Uniform => assert!(c >= t.bcet().0 && c <= t.wcet.0),
                None => assert_eq!(c, t.wcet.0),
            }
        }
    }
}

#[test]
fn uniform_spans_each_segments_range() {
    let t = Task {
        bcet: Some(Duration(1_000_000)),
        segments: Some(vec![
            Segment { kind: SegmentKind::Memory, length: Duration(1_000_000), preemptible: true },
            Segment { kind: SegmentKind::Suspend, length: Duration(2_000_000), preemptible: true },
            Segment { kind: SegmentKind::Exec, length: Duration(3_000_000), preemptible: false },
        ]),
        ..Task::new("t", Duration(4_000_000), Duration(10_000_000))
    };
    let mut d = JobModel { seed: 1, execution: Execution::Uniform, ..JobModel::default() }.segment_demands(&t, 0);
    let jobs: Vec<Vec<SegmentDemand>> = (0..2000).map(|_| d.next_job().to_vec()).collect();
    for (i, (lo, hi)) in [(250_000, 1_000_000), (0, 2_000_000), (750_000, 3_000_000)].into_iter().enumerate() {
        let v: Vec<u64> = jobs.iter().map(|j| j[i].demand).collect();
        let (min, max) = (*v.iter().min().unwrap(), *v.iter().max().unwrap());
        assert!(min >= lo && max <= hi, "segment {i}: [{min}, {max}] outside [{lo}, {hi}]");
        // 2000 uniform draws come within 1% of both ends of the range.
        let slack = (hi - lo) / 100;
        assert!(min <= lo + slack && max >= hi - slack, "segment {i}: [{min}, {max}] does not span [{lo}, {hi}]");
    }
}

#[test]
fn a_jobs_cpu_segments_add_up_to_its_demand() {
    let mut r = Rng::new(22);
    for _ in 0..300 {
        let t = segmented(&mut r);
        let m = JobModel { seed: r.next_u64(), execution: execution(&mut r), ..JobModel::default() };
        let (mut whole, mut parts) = (m.demands(&t, 1), m.segment_demands(&t, 1));
        for _ in 0..20 {
            assert_eq!(whole.draw(), cpu(parts.next_job()));
        }
    }
}

#[test]
fn tasks_without_segments_draw_as_before() {
    let mut r = Rng::new(23);
    for _ in 0..300 {
        let wcet = r.range_u64(1, 10_000_000);
        let t = Task {
            bcet: (r.range_u64(0, 1) == 0).then(|| Duration(r.range_u64(1, wcet))),
            executions: (r.range_u64(0, 3) == 0).then(|| vec![Duration(r.range_u64(1, wcet)), Duration(wcet)]),
            ..Task::new("t", Duration(wcet), Duration(20_000_000))
        };
        let m = JobModel { seed: r.next_u64(), execution: execution(&mut r), ..JobModel::default() };
        let (mut whole, mut parts) = (m.demands(&t, 4), m.segment_demands(&t, 4));
        assert_eq!(parts.segments_per_job(), 1);
        for _ in 0..20 {
            let job = parts.next_job();
            assert_eq!(job, [SegmentDemand { kind: SegmentKind::Exec, demand: whole.draw(), preemptible: true }]);
        }
    }
}

#[test]
fn segment_draws_are_reproducible_and_their_own() {
    let mut r = Rng::new(24);
    for _ in 0..200 {
        let t = segmented(&mut r);
        let m = JobModel {
            seed: r.next_u64(),
            arrivals: Arrivals { sporadic: Sporadic::Uniform { max: 1_000_000 }, ignore_jitter: false },
            execution: Execution::Uniform,
        };
        let draw = |m: &JobModel| {
            let mut d = m.segment_demands(&t, 2);
            (0..10).map(|_| d.next_job().to_vec()).collect::<Vec<_>>()
        };
        let first = draw(&m);
        assert_eq!(first, draw(&m), "same seed, same segments");
        let periodic = JobModel { arrivals: Arrivals::default(), ..m };
        assert_eq!(first, draw(&periodic), "the arrival model does not move segment demands");
        // A task's segments do not move its arrivals.
        let plain = Task { segments: None, subjobs: None, ..t.clone() };
        assert_eq!(m.releases(&t, 2).take(10).collect::<Vec<_>>(), m.releases(&plain, 2).take(10).collect::<Vec<_>>());
    }
    // A draw_into buffer and next_job give the same jobs.
    let t = segmented(&mut r);
    let m = JobModel { seed: 9, execution: Execution::Uniform, ..JobModel::default() };
    let (mut a, mut b) = (m.segment_demands(&t, 0), m.segment_demands(&t, 0));
    let mut buf = Vec::new();
    for _ in 0..10 {
        b.draw_into(&mut buf);
        assert_eq!(a.next_job(), &buf[..]);
    }
}

/// The segment stream is part of the reproducibility guarantee: these are
/// the first jobs of a task with a memory phase, a non-preemptive execution
/// and a suspension under `--seed 5 --exec uniform`, as first drawn.
#[test]
fn the_segment_stream_is_frozen() {
    let t = Task {
        bcet: Some(Duration(1_000_000)),
        segments: Some(vec![
            Segment { kind: SegmentKind::Memory, length: Duration(500_000), preemptible: true },
            Segment { kind: SegmentKind::Exec, length: Duration(2_500_000), preemptible: false },
            Segment { kind: SegmentKind::Suspend, length: Duration(1_000_000), preemptible: true },
        ]),
        ..Task::new("b", Duration(3_000_000), Duration(8_000_000))
    };
    let m = JobModel { seed: 5, execution: Execution::Uniform, ..JobModel::default() };
    let mut d = m.segment_demands(&t, 1);
    let got: Vec<Vec<u64>> = (0..3).map(|_| d.next_job().iter().map(|s| s.demand).collect()).collect();
    assert_eq!(got, FROZEN);
}

const FROZEN: [[u64; 3]; 3] =
    [[239_985, 1_980_282, 161_645], [319_745, 1_946_534, 22_149], [342_271, 1_991_181, 832_868]];
