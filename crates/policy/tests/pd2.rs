//! PD^2 with the tiny driver (exact execution times, scripted blocking):
//! quantum waste, overruns, blocking, staggered boundaries.

mod common;

use common::{run, spec};
use schedlab_model::{Duration, PolicyName, Spec};
use schedlab_policy::build;

/// The quantum of these tests, in ns.
const Q: u64 = 1_000;

/// A PD^2 spec of (wcet, period) in ns with quantum Q.
fn pd2(cpus: u32, tasks: &[(u64, u64)], stagger: bool, early_release: bool) -> Spec {
    let mut s = spec(cpus, PolicyName::Pd2, tasks);
    let p = s.policy.as_mut().unwrap();
    p.quantum = Some(Duration(Q));
    p.stagger = Some(stagger);
    p.early_release = Some(early_release);
    s
}

/// Segments of one task as (cpu, start, end), by start.
fn of(r: &common::Run, task: u32) -> Vec<(u32, u64, u64)> {
    let mut v: Vec<_> = r.table().into_iter().filter(|s| s.1 == task).map(|s| (s.0, s.2, s.3)).collect();
    v.sort_by_key(|s| s.1);
    v
}

/// Two tasks of weight 2/4 on one CPU; A needs 1.5 quanta, rounded up to 2.
/// A's second subtask ends its job half-way through quantum 2, and the CPU
/// idles until 3 although B waits: Pfair's quantum waste.
#[test]
fn a_job_completing_mid_quantum_leaves_the_rest_of_it_idle() {
    let s = pd2(1, &[(3 * Q / 2, 4 * Q), (2 * Q, 4 * Q)], false, false);
    let r = run(&s, build(&s, None).unwrap(), 4 * Q, &[]);
    assert_eq!(of(&r, 0), vec![(0, 0, Q), (0, 2 * Q, 2 * Q + Q / 2)]);
    assert_eq!(of(&r, 1), vec![(0, Q, 2 * Q), (0, 3 * Q, 4 * Q)]);
    assert!(r.misses().is_empty());
}

/// The policy believes 2 quanta every 4; the job runs 3. After its two
/// subtasks (quanta 0 and 2) it goes on with subtask 3, whose window starts
/// at 4; the next job, handed over when it completes at 5, starts at
/// subtask 4 (window [6, 8)). With early release the first job runs at once.
#[test]
fn an_overrunning_job_continues_with_the_following_subtasks() {
    let believed = pd2(1, &[(2 * Q, 4 * Q)], false, false);
    let actual = pd2(1, &[(3 * Q, 4 * Q)], false, false);
    let r = run(&actual, build(&believed, None).unwrap(), 8 * Q, &[]);
    assert_eq!(of(&r, 0), vec![(0, 0, Q), (0, 2 * Q, 3 * Q), (0, 4 * Q, 5 * Q), (0, 6 * Q, 7 * Q)]);
    assert_eq!(r.done[0].finish, 5 * Q);

    let mut believed = believed;
    believed.policy.as_mut().unwrap().early_release = Some(true);
    let r = run(&actual, build(&believed, None).unwrap(), 8 * Q, &[]);
    assert_eq!(of(&r, 0)[0], (0, 0, 3 * Q));
}

/// A (3/4) blocks at 0.5 for one quantum: its CPU idles to the boundary, B
/// runs quantum 1, and A, resumed at 1.5, is back from the boundary at 2.
#[test]
fn a_blocked_job_idles_its_quantum_and_returns_at_a_boundary() {
    let s = pd2(1, &[(3 * Q, 4 * Q), (Q, 4 * Q)], false, false);
    let r = run(&s, build(&s, None).unwrap(), 4 * Q + Q / 2, &[(Q / 2, 0, Q)]);
    assert_eq!(of(&r, 0), vec![(0, 0, Q / 2), (0, 2 * Q, 4 * Q + Q / 2)]);
    assert_eq!(of(&r, 1), vec![(0, Q, 2 * Q)]);
}

/// Staggered quanta on 2 CPUs: CPU 1's boundaries are at nQ + Q/2. Two
/// weight-1 tasks: A takes CPU 0 at 0; B waits for CPU 1's first boundary
/// and each of its jobs ends Q/2 late, the largest offset.
#[test]
fn staggered_boundaries_shift_the_second_cpu_by_half_a_quantum() {
    let s = pd2(2, &[(Q, Q), (Q, Q)], true, false);
    let r = run(&s, build(&s, None).unwrap(), 3 * Q, &[]);
    assert_eq!(of(&r, 0), vec![(0, 0, Q), (0, Q, 2 * Q), (0, 2 * Q, 3 * Q)]);
    assert_eq!(of(&r, 1), vec![(1, Q / 2, 3 * Q / 2), (1, 3 * Q / 2, 5 * Q / 2), (1, 5 * Q / 2, 3 * Q)]);
    let late: Vec<u64> = r.done.iter().filter(|d| d.id.task == 1).map(|d| d.finish - d.deadline).collect();
    assert_eq!(late, vec![Q / 2, Q / 2]);
    // Aligned: both from 0, on time.
    let s = pd2(2, &[(Q, Q), (Q, Q)], false, false);
    let r = run(&s, build(&s, None).unwrap(), 3 * Q, &[]);
    assert!(r.misses().is_empty());
    assert_eq!(of(&r, 1)[0], (1, 0, Q));
}

/// A task selected in two consecutive quanta stays on its CPU; the others
/// take the CPUs that are left. Three tasks of 2/3 on 2 CPUs (total weight
/// 2): each runs two quanta of every three, and the schedule is fixed by
/// the tie rules (equal windows: lower index first).
#[test]
fn selected_tasks_stay_on_their_cpu() {
    let s = pd2(2, &[(2 * Q, 3 * Q), (2 * Q, 3 * Q), (2 * Q, 3 * Q)], false, false);
    let r = run(&s, build(&s, None).unwrap(), 12 * Q, &[]);
    assert!(r.misses().is_empty());
    let busy: u64 = r.segs.iter().map(|s| s.end - s.start).sum();
    assert_eq!(busy, 24 * Q, "both CPUs busy in every quantum");
    for t in 0..3 {
        for w in of(&r, t).windows(2) {
            if w[0].2 == w[1].1 {
                assert_eq!(w[0].0, w[1].0, "task {t} ran back to back on two CPUs: {:?}", of(&r, t));
            }
        }
    }
    // Quantum 3: task 1 (ran in 2 on CPU 0, selected again) keeps CPU 0, so
    // task 0 (last on CPU 0, idle in 2) takes CPU 1.
    assert_eq!(of(&r, 0)[..2], [(0, 0, 2 * Q), (1, 3 * Q, 5 * Q)]);
    assert_eq!(of(&r, 1)[..3], [(1, 0, Q), (0, 2 * Q, 3 * Q), (0, 3 * Q, 4 * Q)]);
    assert_eq!(of(&r, 2)[..2], [(1, Q, 3 * Q), (0, 4 * Q, 6 * Q)]);
}
