//! PD^2's spread minimisation for MTTs (`policy.spread`, Calandrino 2009
//! §3.2.2) with the tiny driver: Theorem 3.1's bound X on every MTT's
//! spread, lateness within the X − 1 quanta of the shifted schedule, and a
//! smaller spread than plain PD^2's on the same sets.

mod common;

use common::{run, spec, Run};
use schedlab_model::rng::Rng;
use schedlab_model::{Duration, Mtt, PolicyName, Spec};
use schedlab_policy::build;

const Q: u64 = 1_000;
const M: u32 = 4;
const PERIODS: [u64; 6] = [6, 8, 10, 12, 15, 20];

/// MTTs of 1–4 tasks with one (e, p) each (in quanta), weights ≤ cap_num /
/// cap_den, total ≤ M.
fn set(rng: &mut Rng, cap: (u64, u64)) -> Vec<(usize, u64, u64)> {
    let mut out = Vec::new();
    let (mut num, mut den) = (0u64, 1u64);
    loop {
        let n = 1 + rng.below(4) as usize;
        let p = PERIODS[rng.below(PERIODS.len() as u64) as usize];
        let e = 1 + rng.below((cap.0 * p / cap.1).max(1));
        // total + n·e/p ≤ M
        let (nn, nd) = (num * p + n as u64 * e * den, den * p);
        if nn > M as u64 * nd {
            return out;
        }
        let g = gcd(nn, nd);
        (num, den) = (nn / g, nd / g);
        out.push((n, e, p));
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

fn to_spec(mtts: &[(usize, u64, u64)], spread: bool) -> Spec {
    let mut tasks = Vec::new();
    let mut groups = Vec::new();
    for (k, &(n, e, p)) in mtts.iter().enumerate() {
        let first = tasks.len();
        tasks.extend(std::iter::repeat_n((e * Q, p * Q), n));
        groups.push((k, first, n));
    }
    let mut s = spec(M, PolicyName::Pd2, &tasks);
    let names: Vec<String> = s.tasks.iter().map(|t| t.name.clone()).collect();
    s.mtt = Some(
        groups
            .iter()
            .map(|&(k, first, n)| {
                let members: Vec<&str> = names[first..first + n].iter().map(|s| s.as_str()).collect();
                Mtt::new(format!("m{k}"), &members, None)
            })
            .collect(),
    );
    let p = s.policy.as_mut().unwrap();
    p.quantum = Some(Duration(Q));
    p.spread = Some(spread);
    s
}

/// Per task, the quanta it ran in.
fn quanta(r: &Run, tasks: usize) -> Vec<Vec<u64>> {
    let mut out = vec![Vec::new(); tasks];
    let mut segs = r.segs.clone();
    segs.sort_by_key(|s| s.start);
    for s in segs {
        let q: &mut Vec<u64> = &mut out[s.task as usize];
        for k in s.start / Q..s.end.div_ceil(Q) {
            if q.last().is_none_or(|&l| l < k) {
                q.push(k);
            }
        }
    }
    out
}

/// Each MTT's spread (largest last − first + 1 over its tasks' i-th quanta).
fn spreads(mtts: &[(usize, u64, u64)], r: &Run) -> Vec<u64> {
    let q = quanta(r, mtts.iter().map(|m| m.0).sum());
    let mut first = 0;
    let mut out = Vec::new();
    for &(n, _, _) in mtts {
        let members = first..first + n;
        first += n;
        let units = members.clone().map(|t| q[t].len()).min().unwrap();
        let worst = (0..units)
            .map(|i| {
                let v: Vec<u64> = members.clone().map(|t| q[t][i]).collect();
                v.iter().max().unwrap() - v.iter().min().unwrap() + 1
            })
            .max()
            .unwrap_or(1);
        out.push(worst);
    }
    out
}

/// Theorem 3.1's X for the largest weight e/p.
fn x(mtts: &[(usize, u64, u64)]) -> u64 {
    let &(_, e, p) = mtts.iter().max_by(|a, b| (a.1 * b.2).cmp(&(b.1 * a.2))).unwrap();
    if 3 * e <= p {
        3
    } else if 2 * e <= p {
        4
    } else {
        2 * p.div_ceil(p - e) - 1
    }
}

fn hyperperiod(mtts: &[(usize, u64, u64)]) -> u64 {
    mtts.iter().fold(1, |l, m| l / gcd(l, m.2) * m.2)
}

/// Over random sets with caps 1/3, 1/2, 3/4: with the method every MTT's
/// spread is at most X and every job ends at most X − 1 quanta after its
/// deadline (the (X − 1)-shifted schedule meets every shifted deadline);
/// plain PD^2 meets every deadline and its spreads are larger overall,
/// with some MTT above X.
#[test]
fn the_spread_is_at_most_x_and_smaller_than_plain_pd2s() {
    let mut rng = Rng::new(15);
    let (mut with, mut without, mut above_x, mut mtts_seen) = (0u64, 0u64, 0, 0);
    for cap in [(1, 3), (1, 2), (3, 4)] {
        for _ in 0..40 {
            let mtts = set(&mut rng, cap);
            let h = hyperperiod(&mtts) * Q;
            let x = x(&mtts);
            let on = to_spec(&mtts, true);
            let r = run(&on, build(&on, None).unwrap(), 2 * h, &[]);
            for d in &r.done {
                assert!(
                    d.finish <= d.deadline + (x - 1) * Q,
                    "job {:?} late by more than X − 1 = {} quanta",
                    d.id,
                    x - 1
                );
            }
            let s_on = spreads(&mtts, &r);
            let off = to_spec(&mtts, false);
            let r = run(&off, build(&off, None).unwrap(), 2 * h, &[]);
            assert!(r.misses().is_empty(), "plain PD^2 with U ≤ m meets every deadline");
            let s_off = spreads(&mtts, &r);
            for (k, &(n, _, _)) in mtts.iter().enumerate() {
                if n < 2 {
                    continue;
                }
                mtts_seen += 1;
                assert!(s_on[k] <= x, "MTT {k} of {mtts:?}: spread {} > X = {x}", s_on[k]);
                with += s_on[k];
                without += s_off[k];
                above_x += (s_off[k] > x) as u32;
            }
        }
    }
    assert!(mtts_seen > 100, "{mtts_seen}");
    assert!(with < without, "total spread with the method {with}, without {without}");
    assert!(above_x > 0, "plain PD^2 never exceeded X: the campaign does not exercise the method");
}

/// M = 2; MTT {A1, A2} of (1, 4) each, B (1, 2), and C, D (1, 2)
/// released at 1. At 0, B (deadline 2) and A1 run (A2 loses the tie to A1
/// by task index). At 1, C and D (deadline 3) outrank A2 (deadline 4):
/// plain PD^2 runs them and A2 waits until 2, a spread of 3. With the
/// method (X = 4: C and D are early until 4) A2 is urgent, only
/// m − |𝒰| = 1 early subtask may join it, and A2 runs at 1 with C: spread 2.
#[test]
fn an_urgent_sibling_keeps_early_work_from_delaying_it() {
    let mk = |spread: bool| {
        let mut s = to_spec(&[(2, 1, 4), (1, 1, 2), (1, 1, 2), (1, 1, 2)], spread);
        s.platform.cpus = 2;
        s.tasks[3].offset = Duration(Q);
        s.tasks[4].offset = Duration(Q);
        s
    };
    let at = |r: &Run, task: u32| -> Vec<u64> {
        let mut v: Vec<u64> =
            r.segs.iter().filter(|s| s.task == task && s.start < 3 * Q).map(|s| s.start / Q).collect();
        v.sort();
        v
    };
    let off = mk(false);
    let r = run(&off, build(&off, None).unwrap(), 4 * Q, &[]);
    assert_eq!((at(&r, 0), at(&r, 1), at(&r, 3), at(&r, 4)), (vec![0], vec![2], vec![1], vec![1]));
    let on = mk(true);
    let r = run(&on, build(&on, None).unwrap(), 4 * Q, &[]);
    assert_eq!((at(&r, 0), at(&r, 1), at(&r, 3), at(&r, 4)), (vec![0], vec![1], vec![1], vec![2]));
    assert!(r.misses().is_empty());
}

#[test]
fn admission_refuses_stagger_early_release_and_weight_one() {
    let mtts = [(2usize, 1u64, 4u64)];
    let mut s = to_spec(&mtts, true);
    s.policy.as_mut().unwrap().stagger = Some(true);
    let e = build(&s, None).err().expect("refused").to_string();
    assert!(e.contains("policy.spread") && e.contains("stagger"), "{e}");
    let mut s = to_spec(&mtts, true);
    s.policy.as_mut().unwrap().early_release = Some(true);
    let e = build(&s, None).err().expect("refused").to_string();
    assert!(e.contains("policy.spread") && e.contains("early_release"), "{e}");
    // No task at all: admitted (the validator's campaigns draw such sets).
    assert!(build(&to_spec(&[], true), None).is_ok());
    let s = to_spec(&[(2, 4, 4)], true);
    let e = build(&s, None).err().expect("refused").to_string();
    assert!(e.contains("tasks[0].wcet") && e.contains("Theorem 3.1"), "{e}");
}
