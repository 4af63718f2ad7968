//! `ca-gedf`, the cache-aware heuristic framework of Calandrino 2009
//! (Fig. 4.2), with the tiny driver: the golden schedules of Fig. 4.6
//! (notes §9.2, G9/G10), the parameters' effects, and the rules' properties
//! (notes §8.2 item 10) on random sets.

mod common;

use common::{run, run_traced, spec, Run};
use schedlab_model::{Cache, Duration, Mtt, PolicyEvent, PolicyName, Size, Spec};
use schedlab_policy::build;

/// The quantum of these tests, in ns.
const Q: u64 = 1_000;
const KIB: u64 = 1024;

/// A spec of (wcet, period) in quanta with per-task WSS (KiB), on `cpus`
/// CPUs sharing a 1 MiB cache, quantum Q.
fn set(cpus: u32, policy: PolicyName, tasks: &[(u64, u64, u64)]) -> Spec {
    let t: Vec<(u64, u64)> = tasks.iter().map(|&(e, p, _)| (e * Q, p * Q)).collect();
    let mut s = spec(cpus, policy, &t);
    for (task, &(_, _, w)) in s.tasks.iter_mut().zip(tasks) {
        task.wss = Some(Size(w * KIB));
    }
    let mut cache: Cache =
        serde_json::from_value(serde_json::json!({"size": "1MiB", "ways": 16, "line": "64B"})).unwrap();
    cache.size = Size(1024 * KIB);
    s.platform.cache = Some(cache);
    if policy == PolicyName::CaGedf {
        s.policy.as_mut().unwrap().quantum = Some(Duration(Q));
    }
    s
}

/// Per quantum of [0, h): the tasks running (sorted), from the segments.
fn quanta(r: &Run, h: u64) -> Vec<Vec<u32>> {
    (0..h)
        .map(|i| {
            let mut v: Vec<u32> =
                r.segs.iter().filter(|s| s.start <= i * Q && s.end >= (i + 1) * Q).map(|s| s.task).collect();
            v.sort();
            v
        })
        .collect()
}

/// The quanta in which the working sets running exceed the cache (owner
/// per task: an MTT's tasks share one), as indices.
fn thrashing(q: &[Vec<u32>], owner: &[usize], wss: &[u64]) -> Vec<usize> {
    q.iter()
        .enumerate()
        .filter(|(_, tasks)| {
            let mut owners: Vec<usize> = tasks.iter().map(|&t| owner[t as usize]).collect();
            owners.sort();
            owners.dedup();
            owners.iter().map(|&o| wss[o]).sum::<u64>() > 1024 * KIB
        })
        .map(|x| x.0)
        .collect()
}

/// Fig. 4.6 under G-EDF (G9, ties by task index): (T1,U1), (V1,W1),
/// (T2,W1), (X1), (T3,U2), (V2,X1), (T4), idle — thrashing in 5 of 8
/// quanta, 62.5 %. W and X (one MTT in the thesis) are two tasks here: the
/// schedule of G-EDF does not depend on it, the thrashing count does.
#[test]
fn fig_4_6_under_gedf_thrashes_in_five_quanta_of_eight() {
    let tasks = [(1, 2, 768), (1, 4, 512), (1, 4, 512), (2, 8, 768), (2, 8, 768)];
    let s = set(2, PolicyName::Gedf, &tasks);
    let r = run(&s, build(&s, None).unwrap(), 8 * Q, &[]);
    let (t, u, v, w, x) = (0, 1, 2, 3, 4);
    let want: Vec<Vec<u32>> =
        vec![vec![t, u], vec![v, w], vec![t, w], vec![x], vec![t, u], vec![v, x], vec![t], vec![]];
    let got = quanta(&r, 8);
    assert_eq!(got, want);
    let owner = [0, 1, 2, 3, 3];
    let wss = [768 * KIB, 512 * KIB, 512 * KIB, 768 * KIB];
    assert_eq!(thrashing(&got, &owner, &wss), vec![0, 1, 2, 4, 5], "62.5 % of the quanta");
}

/// The Fig. 4.6 set with W and X one MTT of 768 KiB (G9).
fn fig_4_6(policy: PolicyName) -> Spec {
    let mut s = set(2, policy, &[(1, 2, 768), (1, 4, 512), (1, 4, 512), (2, 8, 0), (2, 8, 0)]);
    for t in &mut s.tasks[3..] {
        t.wss = None;
    }
    s.mtt = Some(vec![Mtt::new("WX", &["t3", "t4"], Some(Size(768 * KIB)))]);
    s
}

/// The policy's events of one kind, as (instant, CPU, event).
fn events(r: &Run, kind: &str) -> Vec<(u64, Option<u32>, PolicyEvent)> {
    r.notes.iter().filter(|n| n.2.kind() == kind).cloned().collect()
}

/// Fig. 4.6 under the heuristic of the LITMUS^RT implementation (G9,
/// G10): (U1,V1), (T1,φ), (T2,φ), (W1,X1), (W1,X1), (U2,V2), (T3 tardy,φ),
/// (T4,φ): four phantom jobs — m·H − Σ e·H/p = 16 − 12 — and no quantum
/// thrashes. At 1 and 2 the MTT {W, X} does not fit beside T and a phantom
/// runs instead; at 3, W1 is promoted and X1 made urgent; at 4 both keep
/// their promotion (duration (2)) and run again; T3 (deadline 6) is tardy
/// at 6 and runs first; T4 waits for it, so 6 and 7 idle on phantoms.
#[test]
fn fig_4_6_under_the_heuristic_idles_on_four_phantoms_and_never_thrashes() {
    let s = fig_4_6(PolicyName::CaGedf);
    let r = run_traced(&s, build(&s, None).unwrap(), 8 * Q);
    let (t, u, v, w, x) = (0, 1, 2, 3, 4);
    let want: Vec<Vec<u32>> = vec![vec![u, v], vec![t], vec![t], vec![w, x], vec![w, x], vec![u, v], vec![t], vec![t]];
    let got = quanta(&r, 8);
    assert_eq!(got, want);
    let owner = [0, 1, 2, 3, 3];
    let wss = [768 * KIB, 512 * KIB, 512 * KIB, 768 * KIB];
    assert_eq!(thrashing(&got, &owner, &wss), Vec::<usize>::new(), "0 % thrashing");
    let phantoms: Vec<(u64, Option<(u32, u64)>)> = events(&r, "phantom")
        .into_iter()
        .filter(|n| n.0 < 8 * Q)
        .map(|(at, cpu, e)| {
            assert!(cpu.is_some(), "a phantom job runs on a CPU");
            match e {
                PolicyEvent::Phantom { task, job } => (at / Q, task.zip(job)),
                _ => unreachable!(),
            }
        })
        .collect();
    assert_eq!(phantoms, vec![(1, Some((w, 0))), (2, Some((w, 0))), (6, None), (7, None)]);
    let promotions: Vec<(u64, u32, u64, String)> = events(&r, "priority-promotion")
        .into_iter()
        .filter(|n| n.0 < 8 * Q)
        .map(|(at, _, e)| match e {
            PolicyEvent::PriorityPromotion { task, job, reason } => (at / Q, task, job, reason),
            _ => unreachable!(),
        })
        .collect();
    let p = |at: u64, task: u32, job: u64, why: &str| (at, task, job, why.to_string());
    assert_eq!(
        promotions,
        vec![
            p(0, u, 0, "cache"),
            p(0, v, 0, "cache"),
            p(1, t, 0, "cache"),
            p(2, t, 1, "cache"),
            p(3, w, 0, "cache"),
            p(3, x, 0, "urgent"),
            p(5, u, 1, "cache"),
            p(5, v, 1, "cache"),
            p(7, t, 3, "cache"),
        ]
    );
    let tardy: Vec<(u32, u64)> = r.misses().iter().map(|d| (d.id.task, d.finish / Q)).collect();
    assert_eq!(tardy, vec![(t, 7)], "T3 completes at 7, one quantum late");
}

/// Without phantom tasks the heuristic co-schedules the MTT beside T at 1
/// and thrashes there; the schedule is work-conserving then.
#[test]
fn without_phantoms_the_mtt_runs_beside_t_and_thrashes() {
    let mut s = fig_4_6(PolicyName::CaGedf);
    s.policy.as_mut().unwrap().phantoms = Some(false);
    let r = run_traced(&s, build(&s, None).unwrap(), 8 * Q);
    let got = quanta(&r, 8);
    assert_eq!(got[0], vec![1, 2]);
    assert_eq!(got[1], vec![0, 3], "T1 and W1 (its MTT's first job) share quantum 1");
    assert!(events(&r, "phantom").is_empty());
    let owner = [0, 1, 2, 3, 3];
    let wss = [768 * KIB, 512 * KIB, 512 * KIB, 768 * KIB];
    assert!(thrashing(&got, &owner, &wss).contains(&1));
}
