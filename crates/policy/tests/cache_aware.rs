//! `ca-gedf`, the cache-aware heuristic framework of Calandrino 2009
//! (Fig. 4.2), with the tiny driver: the golden schedules of Fig. 4.6
//! (notes §9.2, G9/G10), the parameters' effects, and the rules' properties
//! (notes §8.2 item 10) on random sets.

mod common;

use common::{run, spec, Run};
use schedlab_model::{Cache, Duration, PolicyName, Size, Spec};
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
