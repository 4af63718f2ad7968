//! `ca-gedf`, the cache-aware heuristic framework of Calandrino 2009
//! (Fig. 4.2), with the tiny driver: the golden schedules of Fig. 4.6
//! (notes §9.2, G9/G10), the parameters' effects, and the rules' properties
//! (notes §8.2 item 10) on random sets.

mod common;

use common::{run, run_traced, spec, Run};
use schedlab_model::{Cache, Duration, Mtt, PolicyEvent, PolicyName, Size, Spec};
use schedlab_policy::{build, Time};

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

/// Fig. 4.1 (notes §2.6; the WSSs and the cache are the thesis', the
/// periods and costs inferred): three CPUs, J and K of 768 KiB have the
/// earliest deadlines but would thrash together; V and W, one MTT of
/// 128 KiB, run instead of K, both promoted. Under the Fig. 4.3 heuristic
/// (threshold 50 %, policy (1), duration (1)) and under the default
/// (threshold 0): at 0 the CPUs run J, V and W, and K waits.
#[test]
fn fig_4_1_runs_the_mtt_instead_of_the_second_large_job() {
    for threshold in [50, 0] {
        let mut s = set(3, PolicyName::CaGedf, &[(1, 3, 768), (1, 3, 768), (1, 6, 0), (1, 6, 0)]);
        s.tasks[2].wss = None;
        s.tasks[3].wss = None;
        s.mtt = Some(vec![Mtt::new("VW", &["t2", "t3"], Some(Size(128 * KIB)))]);
        let p = s.policy.as_mut().unwrap();
        p.cache_threshold = Some(threshold);
        if threshold == 50 {
            p.promotion_duration = Some(1);
        }
        let r = run_traced(&s, build(&s, None).unwrap(), 3 * Q);
        let (j, k, v, w) = (0, 1, 2, 3);
        assert_eq!(quanta(&r, 2), vec![vec![j, v, w], vec![k]], "threshold {threshold}");
        let promoted: Vec<u32> = events(&r, "priority-promotion")
            .into_iter()
            .filter(|n| n.0 == 0)
            .filter_map(|n| match n.2 {
                PolicyEvent::PriorityPromotion { task, .. } if task != j => Some(task),
                _ => None,
            })
            .collect();
        assert_eq!(promoted, vec![v, w], "threshold {threshold}: V by the cache-aware policy, W as urgent");
    }
}

/// Fig. 4.3(b)'s narrative (notes §2.6; threshold 50 %, infinite
/// lost-cause threshold, policy (1), promotion duration (1); the task
/// parameters are inferred, the figure is not in the text): T = (1, 3,
/// 768K), U = (1, 3, 512K), V = (1, 4, 256K), MTT {W, X} = (2, 6) of 256K,
/// two CPUs. At 0, T1 runs by G-EDF, the threshold is reached and V1 (the
/// smallest WSS, tied with {W, X} and first by task index) is promoted and
/// runs; at 1, U1 runs by G-EDF and W1 is promoted, which makes X1 urgent;
/// X1 runs at the next boundary, 2.
#[test]
fn fig_4_3_promotes_v1_then_w1_and_x1_runs_next() {
    let mut s = set(2, PolicyName::CaGedf, &[(1, 3, 768), (1, 3, 512), (1, 4, 256), (2, 6, 0), (2, 6, 0)]);
    s.tasks[3].wss = None;
    s.tasks[4].wss = None;
    s.mtt = Some(vec![Mtt::new("WX", &["t3", "t4"], Some(Size(256 * KIB)))]);
    let p = s.policy.as_mut().unwrap();
    p.cache_threshold = Some(50);
    p.promotion_duration = Some(1);
    p.phantoms = Some(false);
    let r = run_traced(&s, build(&s, None).unwrap(), 3 * Q);
    let (t, u, v, w, x) = (0, 1, 2, 3, 4);
    assert_eq!(quanta(&r, 3), vec![vec![t, v], vec![u, w], vec![w, x]]);
    let promotions: Vec<(u64, u32, String)> = events(&r, "priority-promotion")
        .into_iter()
        .filter(|n| n.0 < 3 * Q)
        .map(|(at, _, e)| match e {
            PolicyEvent::PriorityPromotion { task, reason, .. } => (at / Q, task, reason),
            _ => unreachable!(),
        })
        .collect();
    let p = |at: u64, task: u32, why: &str| (at, task, why.to_string());
    assert_eq!(promotions, vec![p(0, v, "cache"), p(1, w, "cache"), p(1, x, "urgent")]);
}

/// A random MTT set for the property tests: 2 to 4 CPUs, harmonic periods
/// of 2 to 16 quanta, WCETs that may end mid-quantum, WSSs of 0 to 1 MiB,
/// some MTTs of 2 or 3 tasks; random parameters of Fig. 4.2.
fn random_set(seed: u64) -> Spec {
    let mut r = schedlab_model::rng::Rng::new(seed);
    let m = r.range_u64(2, 4) as u32;
    let target = r.range_u64(m as u64 * 8, m as u64 * 18);
    let (mut tasks, mut total, mut groups) = (Vec::new(), 0, Vec::new());
    while total < target && tasks.len() < 10 {
        let p = *r.choose(&[2u64, 4, 8, 16]).unwrap();
        let threads = if r.below(3) == 0 { r.range_u64(2, 3.min(m as u64)) } else { 1 };
        let wss = r.range_u64(0, 16) * 64;
        let first = tasks.len();
        for _ in 0..threads {
            let e = r.range_u64(1, p.min(3));
            total += e * (16 / p);
            tasks.push((e, p, if threads == 1 { wss } else { 0 }));
        }
        if threads > 1 {
            groups.push((first, threads as usize, wss));
        }
    }
    let mut s = set(m, PolicyName::CaGedf, &tasks);
    for t in &mut s.tasks {
        t.wcet = Duration(t.wcet.0 - r.range_u64(0, Q - 1));
        if t.wss == Some(Size(0)) {
            t.wss = None;
        }
    }
    let mtts: Vec<Mtt> = groups
        .iter()
        .enumerate()
        .map(|(g, &(first, k, wss))| {
            let names: Vec<String> = (first..first + k).map(|i| format!("t{i}")).collect();
            let refs: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
            Mtt::new(format!("m{g}"), &refs, Some(Size(wss * KIB)))
        })
        .collect();
    s.mtt = (!mtts.is_empty()).then_some(mtts);
    let p = s.policy.as_mut().unwrap();
    p.cache_threshold = Some(*r.choose(&[0, 0, 50, 75]).unwrap());
    p.cache_policy = Some(r.range_u64(1, 5) as u8);
    if r.below(2) == 0 {
        p.lost_cause_threshold = Some(110);
        p.lost_cause_policy = Some(r.range_u64(1, 3) as u8);
    }
    p.phantoms = Some(r.below(4) != 0);
    p.avoid_partially_eligible = Some(r.below(2) == 0);
    p.promotion_duration = Some(r.range_u64(1, 2) as u8);
    s
}

/// The properties of the notes' §8.2 item 10 on 300 random sets over 48
/// quanta: every promotion's priority point (its instant) lies in the job's
/// [release, deadline) — tardy jobs are never promoted; once a job is made
/// urgent no other job is promoted by a cache-aware or lost-cause policy
/// until it has run (it is not demoted before it is scheduled); a phantom
/// job runs only where its CPU would otherwise idle (no eligible job
/// waits) or instead of an eligible job whose MTT's WSS exceeds the cache
/// the other MTTs of that quantum leave.
#[test]
fn promotions_urgency_and_phantoms_keep_the_rules() {
    let (mut promotions, mut urgent, mut phantoms) = (0, 0, 0);
    for seed in 0..300u64 {
        let s = random_set(seed);
        let h = 48 * Q;
        let r = run_traced(&s, build(&s, None).unwrap(), h);
        let of = s.mtt_of_tasks();
        let owner = |t: u32| match of[t as usize] {
            Some(k) => (1usize << 32) + k,
            None => t as usize,
        };
        let wss = |t: u32| match of[t as usize] {
            Some(k) => s.mtt_wss(k).map_or(0, |w| w.0),
            None => s.tasks[t as usize].wss.map_or(0, |w| w.0),
        };
        let period = |t: u32| s.tasks[t as usize].period.0;
        let finish =
            |t: u32, j: u64| r.done.iter().find(|d| d.id.task == t && d.id.seq == j).map_or(Time::MAX, |d| d.finish);
        // Eligible at t: released, predecessor done, not done.
        let eligible =
            |t: u32, j: u64, at: u64| j * period(t) <= at && (j == 0 || finish(t, j - 1) <= at) && finish(t, j) > at;
        let running = |at: u64| -> Vec<(u32, u64)> {
            r.segs.iter().filter(|g| g.start <= at && at < g.end).map(|g| (g.task, g.seq)).collect()
        };
        let ctx = format!("seed {seed}: {:?}", s.policy);
        for (i, (at, _, e)) in r.notes.iter().enumerate() {
            if *at >= h {
                continue;
            }
            match e {
                PolicyEvent::PriorityPromotion { task, job, reason } => {
                    promotions += 1;
                    let release = job * period(*task);
                    assert!(release <= *at && *at < release + period(*task), "{ctx}: {e:?} at {at}");
                    if reason != "urgent" {
                        continue;
                    }
                    urgent += 1;
                    let first_run = r
                        .segs
                        .iter()
                        .filter(|g| g.task == *task && g.seq == *job && g.end > *at)
                        .map(|g| g.start.max(*at))
                        .min()
                        .unwrap_or(Time::MAX);
                    let later = r.notes[i + 1..].iter().find(|n| {
                        n.0 < first_run
                            && matches!(&n.2, PolicyEvent::PriorityPromotion { reason, .. } if reason != "urgent")
                    });
                    assert!(later.is_none(), "{ctx}: {e:?} at {at} runs at {first_run}, but {later:?}");
                }
                PolicyEvent::Phantom { task, job } => {
                    phantoms += 1;
                    let run_now = running(*at);
                    match task.zip(*job) {
                        None => {
                            for t in 0..s.tasks.len() as u32 {
                                for j in 0..=(*at / period(t)) {
                                    if eligible(t, j, *at) {
                                        assert!(
                                            run_now.contains(&(t, j)),
                                            "{ctx}: phantom at {at} while {t}#{j} waits"
                                        );
                                    }
                                }
                            }
                        }
                        Some((t, j)) => {
                            // The WSS at the decision is at most what runs in
                            // the whole quantum besides the MTT-job itself (it
                            // may still run later in the quantum if the
                            // phantoms run out).
                            assert!(eligible(t, j, *at), "{ctx}: {e:?} at {at}");
                            let mut owners: Vec<(usize, u64)> =
                                run_now.iter().map(|&(u, k)| (owner(u), k)).filter(|&o| o != (owner(t), j)).collect();
                            owners.sort();
                            owners.dedup();
                            let used: u64 = owners
                                .iter()
                                .map(|&(o, _)| {
                                    let u = run_now.iter().find(|x| owner(x.0) == o).unwrap().0;
                                    wss(u)
                                })
                                .sum();
                            assert!(used + wss(t) > 1024 * KIB, "{ctx}: {e:?} at {at}: {used} + {} fits", wss(t));
                        }
                    }
                }
                _ => {}
            }
        }
    }
    println!("{promotions} promotions ({urgent} urgent), {phantoms} phantom jobs checked");
    assert!(promotions > 1000 && urgent > 50 && phantoms > 200, "{promotions} {urgent} {phantoms}");
}

/// The lost-cause policy: on three CPUs C (128 KiB) and D (512 KiB) go
/// first by the smallest WSS; the third CPU finds the cache 62.5 % used.
/// Policy (1) alone takes B (700 KiB), the smaller of the two left; with a
/// lost-cause threshold of 60 % and policy (2), A (900 KiB), the largest.
#[test]
fn the_lost_cause_policy_takes_over_at_its_threshold() {
    for lost in [None, Some(2u8)] {
        let mut s = set(3, PolicyName::CaGedf, &[(1, 4, 900), (1, 4, 700), (1, 4, 128), (1, 4, 512)]);
        let p = s.policy.as_mut().unwrap();
        p.phantoms = Some(false);
        if let Some(l) = lost {
            p.lost_cause_threshold = Some(60);
            p.lost_cause_policy = Some(l);
        }
        let r = run_traced(&s, build(&s, None).unwrap(), Q);
        let want = if lost.is_some() { vec![0, 2, 3] } else { vec![1, 2, 3] };
        assert_eq!(quanta(&r, 1)[0], want, "{lost:?}");
        let reasons: Vec<String> = events(&r, "priority-promotion")
            .into_iter()
            .filter(|n| n.0 == 0)
            .map(|n| match n.2 {
                PolicyEvent::PriorityPromotion { reason, .. } => reason,
                _ => unreachable!(),
            })
            .collect();
        let last = if lost.is_some() { "lost-cause" } else { "cache" };
        assert_eq!(reasons, vec!["cache", "cache", last], "{lost:?}");
    }
}

/// Avoiding partially-eligible MTTs: two CPUs; X (50 KiB) takes the
/// first. For the second (N = 1) the smallest WSS is the MTT {m1, m2}
/// (100 KiB), partially eligible as tc = 2 > N: with the option Y
/// (200 KiB), which fits, runs instead; without it m1 runs and m2, urgent,
/// follows at the next boundary.
#[test]
fn a_partially_eligible_mtt_is_avoided_when_another_fits() {
    for avoid in [true, false] {
        let mut s = set(2, PolicyName::CaGedf, &[(1, 4, 50), (1, 4, 0), (1, 4, 0), (1, 4, 200)]);
        s.tasks[1].wss = None;
        s.tasks[2].wss = None;
        s.mtt = Some(vec![Mtt::new("M", &["t1", "t2"], Some(Size(100 * KIB)))]);
        let p = s.policy.as_mut().unwrap();
        p.phantoms = Some(false);
        p.avoid_partially_eligible = Some(avoid);
        let r = run(&s, build(&s, None).unwrap(), 2 * Q, &[]);
        let got = quanta(&r, 2);
        if avoid {
            assert_eq!(got, vec![vec![0, 3], vec![1, 2]], "the MTT runs whole at 1");
        } else {
            assert_eq!(got, vec![vec![0, 1], vec![2, 3]], "m1 at 0, m2 (urgent) at 1");
        }
    }
}

/// Promotion duration: A (3 quanta, 100 KiB) is promoted at 0; B (1
/// quantum, deadline 4, 50 KiB) arrives at 1. With (2) A keeps its
/// promotion and runs to completion, B after it; with (1) the promotion
/// ends at the next decision and B, the smaller WSS, is promoted at 1.
#[test]
fn promotion_duration_two_runs_a_promoted_job_to_completion() {
    for duration in [2u8, 1] {
        let mut s = set(1, PolicyName::CaGedf, &[(3, 10, 100), (1, 3, 50)]);
        s.tasks[1].offset = Duration(Q);
        let p = s.policy.as_mut().unwrap();
        p.phantoms = Some(false);
        p.promotion_duration = Some(duration);
        let r = run(&s, build(&s, None).unwrap(), 4 * Q, &[]);
        let got: Vec<Vec<u32>> = quanta(&r, 4);
        if duration == 2 {
            assert_eq!(got, vec![vec![0], vec![0], vec![0], vec![1]]);
        } else {
            assert_eq!(got, vec![vec![0], vec![1], vec![0], vec![0]]);
        }
    }
}

/// Admission: phantom tasks count whole quanta, so a period that is not a
/// multiple of the quantum is refused (naming the task and the fix) unless
/// phantoms are off; a spec without a cache is refused; `profile: true`
/// without an `mtt` group (nothing the profiler can measure) is refused.
#[test]
fn admission_names_the_field_and_the_fix() {
    let mut s = set(2, PolicyName::CaGedf, &[(1, 4, 100), (1, 4, 100)]);
    s.tasks[1].period = Duration(4 * Q + Q / 2);
    let e = build(&s, None).err().expect("refused");
    assert_eq!(e.path, "tasks[1].period");
    assert!(e.message.contains("`policy.phantoms: false`"), "{}", e.message);
    s.policy.as_mut().unwrap().phantoms = Some(false);
    assert!(build(&s, None).is_ok());
    s.policy.as_mut().unwrap().profile = Some(true);
    let e = build(&s, None).err().expect("refused");
    assert_eq!(e.path, "policy.profile");
    assert!(e.message.contains("`mtt:`"), "{}", e.message);
    s.mtt = Some(vec![schedlab_model::Mtt { name: "m".into(), tasks: vec![s.tasks[0].name.clone()], wss: None }]);
    assert!(build(&s, None).is_ok(), "a group of one task is an MTT");
    s.platform.cache = None;
    let e = build(&s, None).err().expect("refused");
    assert_eq!(e.path, "platform.cache");
}
