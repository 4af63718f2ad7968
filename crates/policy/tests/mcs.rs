//! Memory-centric scheduling (`mcs`; Rivas et al., ECRTS 2019) through the
//! driver: the memory-phase scheduler's golden walk-throughs (Figures 5/6
//! and 7 of the paper, seed notes 002 §A2.1–A2.2) as schedules and typed
//! token events, the corrected listings' rules (non-preemptive phases, FIFO
//! among equal memory priorities), and the Contention baseline (`mps:
//! false`) as plain P-FP.

mod common;

use common::*;
use schedlab_model::{Duration, PolicyName, Segment, SegmentKind, Spec};
use schedlab_policy::{build, PolicyEvent};

fn mem(ns: u64) -> Segment {
    Segment { kind: SegmentKind::Memory, length: Duration(ns), preemptible: true }
}
fn exec(ns: u64) -> Segment {
    Segment::exec(Duration(ns))
}

/// One task per CPU (task i on CPU i), each with `segments`, period 100,
/// an `offset` and a memory priority.
fn prem(tasks: &[(&[Segment], u64, u32)]) -> Spec {
    let mut s = spec(tasks.len() as u32 + 1, PolicyName::Mcs, &vec![(1, 100); tasks.len()]);
    for (i, (segs, offset, mp)) in tasks.iter().enumerate() {
        let t = &mut s.tasks[i];
        t.segments = Some(segs.to_vec());
        t.wcet = Duration(segs.iter().map(|g| g.length.0).sum());
        t.offset = Duration(*offset);
        t.cpu = Some(i as u32);
        t.memory_priority = Some(*mp);
    }
    s
}

/// The token events as (time, kind, task).
fn tokens(r: &Run) -> Vec<(u64, &'static str, u32)> {
    r.notes
        .iter()
        .filter_map(|(t, _, e)| match *e {
            PolicyEvent::TokenRequest { task, .. } => Some((*t, "request", task)),
            PolicyEvent::TokenGrant { task, .. } => Some((*t, "grant", task)),
            PolicyEvent::TokenPreempt { task, .. } => Some((*t, "preempt", task)),
            PolicyEvent::TokenRelease { task, .. } => Some((*t, "release", task)),
            _ => None,
        })
        .collect()
}

/// Figures 5 and 6: τ2 (here task 1, memory priority 2) is granted at 0;
/// τ1 (task 0, memory priority 1) asks at 1 and takes the token, τ2 is
/// suspended in [1, 2); at τ1's `memphase_end` at 2, τ2 resumes its phase.
#[test]
fn figures_5_and_6_tau2_runs_is_suspended_and_resumes_at_2() {
    let s = prem(&[(&[mem(1), exec(2)], 1, 1), (&[mem(2), exec(1)], 0, 2)]);
    let r = run_traced(&s, build(&s, None).unwrap(), 10);
    assert_eq!(r.cpu(0), [(0, 1, 4)]);
    assert_eq!(r.cpu(1), [(1, 0, 1), (1, 2, 4)], "τ2: [0,1), suspended [1,2), resumes at 2");
    assert_eq!(
        tokens(&r),
        [
            (0, "request", 1),
            (0, "grant", 1),
            (1, "request", 0),
            (1, "preempt", 1),
            (1, "grant", 0),
            (2, "release", 0),
            (2, "grant", 1),
            (3, "release", 1),
        ]
    );
    assert!(r.misses().is_empty());
}

/// Figure 7 (S-MP): τ1, τ2, τ3 in decreasing memory priority, one CPU each,
/// τ1 released one unit after the others. The figure survives as a caption
/// only, so the phase lengths are ours: one Section P = 2, E = 4, W = 2.
/// Worked by hand: at 0 τ2 is granted, τ3 waits; τ1 preempts τ2 at 1 and
/// prefetches in [1, 3); τ2 finishes its P in [3, 4), τ3 prefetches in
/// [4, 6); the write-backs go τ1 [7, 9), τ2 [9, 11) (asked at 8, blocked
/// until τ1's end), τ3 [11, 13) (asked at 10, blocked until τ2's end). At every instant at most
/// one memory phase runs, the most urgent pending one.
#[test]
fn figure_7_the_most_urgent_memory_phase_runs_preempting_when_needed() {
    let sec: &[Segment] = &[mem(2), exec(4), mem(2)];
    let s = prem(&[(sec, 1, 1), (sec, 0, 2), (sec, 0, 3)]);
    let r = run_traced(&s, build(&s, None).unwrap(), 20);
    assert_eq!(r.cpu(0), [(0, 1, 9)]);
    assert_eq!(r.cpu(1), [(1, 0, 1), (1, 3, 8), (1, 9, 11)]);
    assert_eq!(r.cpu(2), [(2, 4, 10), (2, 11, 13)]);
    let grants: Vec<(u64, u32)> =
        tokens(&r).into_iter().filter(|e| e.1 == "grant").map(|(t, _, task)| (t, task)).collect();
    assert_eq!(grants, [(0, 1), (1, 0), (3, 1), (4, 2), (7, 0), (9, 1), (11, 2)]);
    assert_eq!(tokens(&r).iter().filter(|e| e.1 == "preempt").count(), 1);
}

/// A non-preemptive memory phase (`preemptible: false`, Listing 1's
/// `memphase_start(true)`) keeps the token against a more urgent caller;
/// with `memory_preemption: false` every phase does.
#[test]
fn a_non_preemptive_phase_is_not_preempted() {
    let np = Segment { preemptible: false, ..mem(2) };
    let s = prem(&[(&[mem(1), exec(2)], 1, 1), (&[np, exec(1)], 0, 2)]);
    let r = run_traced(&s, build(&s, None).unwrap(), 10);
    assert_eq!(r.cpu(1), [(1, 0, 3)], "τ2's phase runs through");
    assert_eq!(r.cpu(0), [(0, 2, 5)], "τ1 waits for the token until 2");
    let mut s = prem(&[(&[mem(1), exec(2)], 1, 1), (&[mem(2), exec(1)], 0, 2)]);
    s.policy.as_mut().unwrap().memory_preemption = Some(false);
    let r = run_traced(&s, build(&s, None).unwrap(), 10);
    assert_eq!((r.cpu(0), r.cpu(1)), (vec![(0, 2, 5)], vec![(1, 0, 3)]));
}

/// Equal memory priorities: first come, first served, never preempting.
#[test]
fn equal_memory_priorities_are_served_in_request_order() {
    let s = prem(&[(&[mem(2), exec(1)], 1, 1), (&[mem(2), exec(1)], 0, 1), (&[mem(2), exec(1)], 1, 1)]);
    let r = run_traced(&s, build(&s, None).unwrap(), 20);
    assert_eq!(r.cpu(1), [(1, 0, 3)]);
    // Task 0 and task 2 both ask at 1 (CPU order): task 0 first.
    assert_eq!(r.cpu(0), [(0, 2, 5)]);
    assert_eq!(r.cpu(2), [(2, 4, 7)]);
}

/// A job refused the token is blocked, so its CPU runs the next local job;
/// the refused one runs when granted (local fixed priority permitting).
#[test]
fn a_waiting_job_leaves_its_cpu_to_local_work() {
    // Task 0 on CPU 0 owns the token in [0, 4); task 1 (CPU 1, high local
    // priority by period) waits; task 2 (CPU 1, lower) runs meanwhile.
    let mut s = prem(&[(&[mem(4), exec(1)], 0, 1), (&[mem(1), exec(1)], 0, 2), (&[exec(3)], 0, 3)]);
    s.tasks[1].period = Duration(50);
    s.tasks[2].cpu = Some(1);
    let r = run_traced(&s, build(&s, None).unwrap(), 20);
    assert_eq!(r.cpu(1), [(2, 0, 3), (1, 4, 6)]);
}

/// `mps: false` (the Contention baseline) is plain P-FP: memory phases run
/// together, no token events.
#[test]
fn without_the_mps_memory_phases_run_together() {
    let mut s = prem(&[(&[mem(1), exec(2)], 1, 1), (&[mem(2), exec(1)], 0, 2)]);
    s.policy.as_mut().unwrap().mps = Some(false);
    let r = run_traced(&s, build(&s, None).unwrap(), 10);
    assert_eq!((r.cpu(0), r.cpu(1)), (vec![(0, 1, 4)], vec![(1, 0, 3)]));
    assert!(tokens(&r).is_empty());
}

/// `amp` tasks (A-MP): one task per CPU, the worker on `master`.
fn amp(tasks: &[(&[Segment], u64, u32)], master: u32) -> Spec {
    let mut s = prem(tasks);
    for t in &mut s.tasks {
        t.memory_mode = Some(schedlab_model::MemoryMode::Amp);
    }
    s.policy.as_mut().unwrap().master = Some(master);
    s
}

/// The worker's token grants as (time, the task it serves).
fn worker_grants(r: &Run) -> Vec<(u64, u32)> {
    r.notes
        .iter()
        .filter_map(|(t, _, e)| match *e {
            PolicyEvent::TokenGrant { task, worker: true, .. } => Some((*t, task)),
            _ => None,
        })
        .collect()
}

/// Figure 9: Figure 7's set with A-MP (two Sections each, P = 1, E = 6,
/// W = 1: A-MP phases work on half the data). Each task starts with a
/// synchronous prefetch; τ1's E^A starts at 2 and, the worker having
/// prefetched B meanwhile (at 4), E^B follows at 8 without delay. Every
/// job takes its initial prefetch plus its E phases (13) in one stint; the
/// worker serves its FIFO one phase at a time when no task phase wants
/// the token. Worked by hand: τ2 P [0, 1), τ1 P [1, 2) (preempting τ3's
/// grant), τ3 P [2, 3); the worker: τ2's P^B [3, 4), τ1's [4, 5), τ3's
/// [5, 6), then the write-backs W^A at 7, 8, 9 and W^B at 13, 14, 15.
#[test]
fn figure_9_execution_phases_follow_each_other_while_the_worker_prepares_the_other_half() {
    let sec: &[Segment] = &[mem(1), exec(6), mem(1), mem(1), exec(6), mem(1)];
    let s = amp(&[(sec, 1, 1), (sec, 0, 2), (sec, 0, 3)], 3);
    let r = run_traced(&s, build(&s, None).unwrap(), 30);
    assert_eq!(r.cpu(0), [(0, 1, 14)]);
    assert_eq!(r.cpu(1), [(1, 0, 13)]);
    assert_eq!(r.cpu(2), [(2, 2, 15)]);
    assert_eq!(r.cpu(3), []);
    assert_eq!(worker_grants(&r), [(3, 1), (4, 0), (5, 2), (7, 1), (8, 0), (9, 2), (13, 1), (14, 0), (15, 2)]);
    let own: Vec<(u64, u32)> = r
        .notes
        .iter()
        .filter_map(|(t, _, e)| match *e {
            PolicyEvent::TokenGrant { task, worker: false, .. } => Some((*t, task)),
            _ => None,
        })
        .collect();
    // τ3 is handed the token at 1 and loses it to τ1 at once.
    assert_eq!(own, [(0, 1), (1, 2), (1, 0), (2, 2)], "only the first prefetches are the jobs' own");
    assert!(r.misses().is_empty());
    // The master CPU does the worker's phases (`Kernel::occupy`): each grant
    // names the task's segment it copies (P^B is segment 3, W^A 2, W^B 5),
    // and the CPU is given back when the phase ends.
    assert_eq!(
        occupied(&r, 3),
        [
            (3, 4, 1, 3),
            (4, 5, 0, 3),
            (5, 6, 2, 3),
            (7, 8, 1, 2),
            (8, 9, 0, 2),
            (9, 10, 2, 2),
            (13, 14, 1, 5),
            (14, 15, 0, 5),
            (15, 16, 2, 5),
        ]
    );
}

/// The policy's activities on `cpu` as (from, to, task, segment), the last
/// call of an instant counting.
fn occupied(r: &Run, cpu: u32) -> Vec<(u64, u64, u32, u32)> {
    let mut last: Vec<(u64, Option<schedlab_policy::Activity>)> = Vec::new();
    for &(t, c, a) in &r.occupied {
        if c != cpu {
            continue;
        }
        match last.last_mut() {
            Some(l) if l.0 == t => l.1 = a,
            _ => last.push((t, a)),
        }
    }
    let mut out = Vec::new();
    for (i, &(t, a)) in last.iter().enumerate() {
        if let Some(a) = a {
            let to = last.get(i + 1).map_or(u64::MAX, |n| n.0);
            out.push((t, to, a.job.task, a.segment));
        }
    }
    out
}

/// A worker slower than the execution: E^B waits (blocked) until the
/// worker's prefetch of B is done; the worker runs above the master CPU's
/// task; the next job's first prefetch waits for the last write-back.
#[test]
fn the_next_execution_waits_for_the_worker_which_runs_above_the_master_cpus_tasks() {
    let sec: &[Segment] = &[mem(1), exec(1), mem(1), mem(3), exec(1), mem(1)];
    let mut s = amp(&[(sec, 0, 1)], 1);
    // A plain task on the master CPU (1).
    s.tasks.push(schedlab_model::Task::new("m", Duration(3), Duration(100)));
    s.tasks[1].cpu = Some(1);
    s.tasks[1].memory_priority = Some(2);
    s.tasks[0].period = Duration(5);
    let r = run_traced(&s, build(&s, None).unwrap(), 12);
    // Job 0: P [0, 1), E^A [1, 2), waits for P^B (worker [1, 4)), E^B [4, 5);
    // W^A [4, 5), W^B [5, 6) on the worker. Job 1 (released at 5) waits for
    // W^B, prefetches [6, 7), E^A [7, 8), waits for P^B (worker [7, 10)), E^B
    // [10, 11); W^A [10, 11), W^B [11, 12).
    assert_eq!(r.cpu(0), [(0, 0, 2), (0, 4, 5), (0, 6, 8), (0, 10, 11)]);
    assert_eq!(worker_grants(&r), [(1, 0), (4, 0), (5, 0), (7, 0), (10, 0), (11, 0)]);
    // The master CPU's task (3 units) runs only when the worker does not.
    assert_eq!(r.cpu(1), [(1, 0, 1), (1, 6, 7)]);
    // The worker's phases occupy the master CPU: P^B (segment 3) [1, 4),
    // W^A (2) [4, 5), W^B (5) [5, 6), and again for job 1.
    assert_eq!(
        occupied(&r, 1),
        [(1, 4, 0, 3), (4, 5, 0, 2), (5, 6, 0, 5), (7, 10, 0, 3), (10, 11, 0, 2), (11, 12, 0, 5)]
    );
}

/// A host that records the policy's answers and notes, for a hand-driven
/// sequence of events (what a real-time dispatcher reports).
struct Hand {
    now: u64,
    running: Vec<Option<schedlab_policy::JobId>>,
    notes: Vec<(u64, PolicyEvent)>,
}

impl schedlab_policy::Host for Hand {
    fn now(&self) -> u64 {
        self.now
    }
    fn consumed(&self, _job: schedlab_policy::JobId) -> u64 {
        0
    }
    fn running(&self, cpu: u32) -> Option<schedlab_policy::JobId> {
        self.running[cpu as usize]
    }
    fn switch(&mut self, cpus: &[u32], chosen: &[Option<schedlab_policy::JobId>]) {
        for &c in cpus {
            self.running[c as usize] = chosen[c as usize];
        }
    }
    fn tracing(&self) -> bool {
        true
    }
    fn note(&mut self, _cpu: Option<u32>, event: PolicyEvent) {
        self.notes.push((self.now, event));
    }
}

/// On real threads the hold of a preempted memory phase can reach the job's
/// thread after it passed the phase's end, so the driver hears the end of a
/// preempted phase: the phase is done (a `token-release`), the job leaves
/// the queue and runs its execution phase while the other job owns the
/// token, and it is not granted the token again for that phase.
#[test]
fn a_preempted_phase_whose_end_arrives_is_done() {
    use schedlab_policy::{Driver, Job, JobId};
    let s = prem(&[(&[mem(4), exec(4)], 0, 1), (&[mem(4), exec(4)], 0, 2)]);
    let mut p = build(&s, None).unwrap();
    let mut drv: Driver = Driver::new(3, p.info().placement.clone());
    let mut h = Hand { now: 0, running: vec![None; 3], notes: Vec::new() };
    let job = |task| Job { id: JobId { task, seq: 0 }, release: 0, deadline: 100 };
    // τ2 (task 1) asks and is granted at 0.
    drv.release(job(1), (), 0);
    drv.instant(p.as_mut(), &mut h, 0).unwrap();
    assert_eq!(h.running[1], Some(job(1).id));
    // τ1 (task 0) takes the token at 1: task 1's CPU idles.
    h.now = 1;
    drv.release(job(0), (), 1);
    drv.instant(p.as_mut(), &mut h, 1).unwrap();
    assert_eq!((h.running[0], h.running[1]), (Some(job(0).id), None));
    // Task 1's thread had reached the end of its phase: it goes on with its execution.
    h.now = 2;
    drv.segment_end(job(1).id, 0, SegmentKind::Memory);
    drv.instant(p.as_mut(), &mut h, 2).unwrap();
    assert_eq!(h.running[1], Some(job(1).id), "its execution phase runs");
    // Task 0's phase ends at 5: nobody waits for the token.
    h.now = 5;
    drv.segment_end(job(0).id, 0, SegmentKind::Memory);
    drv.instant(p.as_mut(), &mut h, 5).unwrap();
    let kinds: Vec<(u64, &str, u32)> = h
        .notes
        .iter()
        .filter_map(|(t, e)| match *e {
            PolicyEvent::TokenRequest { task, .. } => Some((*t, "request", task)),
            PolicyEvent::TokenGrant { task, .. } => Some((*t, "grant", task)),
            PolicyEvent::TokenPreempt { task, .. } => Some((*t, "preempt", task)),
            PolicyEvent::TokenRelease { task, .. } => Some((*t, "release", task)),
            _ => None,
        })
        .collect();
    assert_eq!(
        kinds,
        [
            (0, "request", 1),
            (0, "grant", 1),
            (1, "request", 0),
            (1, "preempt", 1),
            (1, "grant", 0),
            (2, "release", 1),
            (5, "release", 0)
        ]
    );
}
