//! PD^2 megatasks (`policy.megatasks`, Calandrino 2009 §3.2.1) with the
//! tiny driver: at most ⌈u⌉ tasks of a megatask run in any quantum, tasks in
//! no megatask meet every deadline (the top level is PD^2 on the CPUs the
//! whole allocations leave), reweighting meets every deadline, and the
//! admission errors.

mod common;

use common::{run, spec, Run};
use schedlab_model::rng::Rng;
use schedlab_model::{Cache, Duration, MegataskPacking, Megatasks, PolicyName, Size, Spec};
use schedlab_policy::build;

const Q: u64 = 1_000;
const PERIODS: [u64; 5] = [4, 5, 6, 10, 12];

fn pd2(cpus: u32, tasks: &[(u64, u64)], groups: &[&[usize]], reweight: bool) -> Spec {
    let ns: Vec<(u64, u64)> = tasks.iter().map(|&(e, p)| (e * Q, p * Q)).collect();
    let mut s = spec(cpus, PolicyName::Pd2, &ns);
    let names: Vec<String> = s.tasks.iter().map(|t| t.name.clone()).collect();
    let p = s.policy.as_mut().unwrap();
    p.quantum = Some(Duration(Q));
    p.megatasks =
        Some(Megatasks::Groups(groups.iter().map(|g| g.iter().map(|&i| names[i].clone()).collect()).collect()));
    p.reweight = Some(reweight);
    s
}

/// Per quantum, how many of `members` ran in it.
fn together(r: &Run, members: &[usize], quanta: u64) -> Vec<usize> {
    let mut out = vec![0; quanta as usize];
    for s in &r.segs {
        if members.contains(&(s.task as usize)) {
            for k in s.start / Q..s.end.div_ceil(Q).min(quanta) {
                out[k as usize] += 1;
            }
        }
    }
    out
}

fn ceil_weight(tasks: &[(u64, u64)], members: &[usize]) -> usize {
    let l: u64 = members.iter().fold(1, |l, &i| l / gcd(l, tasks[i].1) * tasks[i].1);
    let sum: u64 = members.iter().map(|&i| tasks[i].0 * (l / tasks[i].1)).sum();
    sum.div_ceil(l) as usize
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Table 3.1's BASIC set: three tasks (3, 5) on 4 CPUs in one megatask
/// (u = 9/5): never more than 2 run together (plain PD^2 runs all 3 at 0).
#[test]
fn basic_runs_at_most_two_of_three() {
    let tasks = [(3, 5), (3, 5), (3, 5)];
    let s = pd2(4, &tasks, &[&[0, 1, 2]], false);
    let r = run(&s, build(&s, None).unwrap(), 20 * Q, &[]);
    let t = together(&r, &[0, 1, 2], 20);
    assert!(t.iter().all(|&k| k <= 2), "{t:?}");
    assert_eq!(t.iter().sum::<usize>(), 36, "every job's 3 quanta ran: {t:?}");
    let mut plain = s.clone();
    plain.policy.as_mut().unwrap().megatasks = None;
    plain.policy.as_mut().unwrap().reweight = None;
    let r = run(&plain, build(&plain, None).unwrap(), 20 * Q, &[]);
    assert_eq!(together(&r, &[0, 1, 2], 20)[0], 3);
}

/// Random sets on 4 CPUs, total weight ≤ 4, two random megatasks: every
/// quantum runs at most ⌈u⌉ tasks of each megatask, the tasks in none meet
/// every deadline, and with reweighting (when it fits) every task does.
#[test]
fn random_sets_keep_megatasks_within_their_weight() {
    let mut rng = Rng::new(3);
    let (mut runs, mut reweighted) = (0, 0);
    while runs < 150 {
        let n = 4 + rng.below(5) as usize;
        let tasks: Vec<(u64, u64)> = (0..n)
            .map(|_| {
                let p = PERIODS[rng.below(PERIODS.len() as u64) as usize];
                (1 + rng.below(p - 1), p)
            })
            .collect();
        let l: u64 = tasks.iter().fold(1, |l, t| l / gcd(l, t.1) * t.1);
        if tasks.iter().map(|t| t.0 * (l / t.1)).sum::<u64>() > 4 * l {
            continue;
        }
        let cut = 1 + rng.below(n as u64 - 2) as usize;
        let a: Vec<usize> = (0..cut).collect();
        let b: Vec<usize> = (cut..n - 1).collect(); // the last task is in none
        let groups: Vec<&[usize]> = if b.is_empty() { vec![&a] } else { vec![&a, &b] };
        for reweight in [false, true] {
            let s = pd2(4, &tasks, &groups, reweight);
            let Ok(policy) = build(&s, None) else {
                assert!(reweight, "exact megatasks of a set with weight ≤ 4 are admitted");
                continue;
            };
            let r = run(&s, policy, 2 * l * Q, &[]);
            for g in &groups {
                let t = together(&r, g, 2 * l);
                let cap = ceil_weight(&tasks, g);
                assert!(t.iter().all(|&k| k <= cap), "{tasks:?} {g:?}: more than ⌈u⌉ = {cap} together: {t:?}");
            }
            for d in r.misses() {
                assert!(reweight || d.id.task as usize != n - 1, "{tasks:?}: a task in no megatask missed: {:?}", d.id);
                assert!(!reweight, "{tasks:?} {groups:?}: reweighted, yet {:?} missed", d.id);
            }
            runs += 1;
            reweighted += reweight as usize;
        }
    }
    assert!(reweighted > 30, "{reweighted}");
}

/// The greedy packing from the spec: G7's set (8 CPUs, 1 MB) packs into
/// two megatasks, and at most ⌈2.3⌉ = 3 of the first ever run together.
#[test]
fn greedy_packing_from_the_spec() {
    let tasks = [(5, 10), (5, 10), (2, 10), (2, 10), (9, 10), (9, 10), (3, 10)];
    let mut s = pd2(8, &tasks, &[], false);
    let wss = [300, 300, 299, 299, 298, 298, 297];
    for (t, w) in s.tasks.iter_mut().zip(wss) {
        t.wss = Some(Size(w * 1000));
    }
    s.platform.cache = Some(Cache {
        size: Size(1_000_000),
        ways: 16,
        line: Size(64),
        page: None,
        colors: None,
        shared_by: None,
        private: None,
    });
    s.policy.as_mut().unwrap().megatasks = Some(Megatasks::Packing(MegataskPacking::Greedy));
    let r = run(&s, build(&s, None).unwrap(), 20 * Q, &[]);
    let t = together(&r, &[0, 1, 2, 3, 4], 20);
    assert!(t.iter().all(|&k| k <= 3) && t.contains(&3), "{t:?}");
    assert!(together(&r, &[5, 6], 20).iter().all(|&k| k <= 2));
    // Without WSS or cache: refused, naming the field.
    s.tasks[2].wss = None;
    let e = build(&s, None).err().expect("refused").to_string();
    assert!(e.contains("tasks[2].wss"), "{e}");
    s.platform.cache = None;
    let e = build(&s, None).err().expect("refused").to_string();
    assert!(e.contains("policy.megatasks") && e.contains("platform.cache"), "{e}");
}

#[test]
fn admission_names_the_megatask_field() {
    let tasks = [(1, 4), (1, 4), (1, 4)];
    let mut s = pd2(2, &tasks, &[&[0, 1], &[1, 2]], false);
    let e = build(&s, None).err().expect("refused").to_string();
    assert!(e.contains("policy.megatasks[1][0]") && e.contains("at most one megatask"), "{e}");
    s.policy.as_mut().unwrap().megatasks = Some(Megatasks::Groups(vec![vec!["t0".into(), "nope".into()]]));
    let e = build(&s, None).err().expect("refused").to_string();
    assert!(e.contains("policy.megatasks[0][1]") && e.contains("`nope`"), "{e}");
    // Rounding up three megatasks of 1/4 needs 3 CPUs of 2.
    let s = pd2(2, &tasks, &[&[0], &[1], &[2]], true);
    let e = build(&s, None).err().expect("refused").to_string();
    assert!(e.contains("policy.reweight"), "{e}");
    let mut s = pd2(2, &tasks, &[&[0, 1]], false);
    s.policy.as_mut().unwrap().spread = Some(true);
    let e = build(&s, None).err().expect("refused").to_string();
    assert!(e.contains("policy.megatasks") && e.contains("spread"), "{e}");
}
