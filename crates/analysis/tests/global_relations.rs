//! Relations between the global tests on thousands of random task sets
//! (fixed seed): fast and explained paths agree; BCL ⊆ BCL-iterative ⊆ RTA;
//! `gedf.any` accepts iff some G-EDF test does; lowering a WCET never turns
//! an accepting sustainable test into a rejecting one; G-FP: Guan accepts
//! everything Bertogna–Cirinei accepts (Guan et al. 2009 prove dominance);
//! sufficient tests say "unschedulable" only when a necessary condition
//! fails; a schedulable verdict never has a negative slack.

use schedlab_analysis::schedulability::gedf::{bak, bar, bcl, bcl_iterative, combined, ffdbf, gfb, load, rta};
use schedlab_analysis::schedulability::gfp::{bertogna, guan};
use schedlab_analysis::schedulability::{Outcome, TaskParams, Verdict};
use schedlab_model::rng::Rng;

const SETS: usize = 4000;

type Decide = fn(&[TaskParams], u32) -> Verdict;
type Check = fn(&[TaskParams], u32) -> Outcome;

const GEDF: &[(&str, Decide, Check)] = &[
    (gfb::ID, gfb::decide, gfb::check),
    (bak::ID, bak::decide, bak::check),
    (bar::ID, bar::decide, bar::check),
    (bcl::ID, bcl::decide, bcl::check),
    (bcl_iterative::ID, bcl_iterative::decide, bcl_iterative::check),
    (rta::ID, rta::decide, rta::check),
    (ffdbf::ID, ffdbf::decide, ffdbf::check),
    (load::ID, load::decide, load::check),
];

/// A random set: m = 1..8 CPUs, 1..12 tasks, utilisation 0.1·m..1.05·m
/// split at random, periods 10–100 ms (sometimes tiny integers, where
/// ties and zero laxity are frequent), implicit, constrained or (a fifth)
/// arbitrary deadlines.
fn random_set(r: &mut Rng) -> (Vec<TaskParams>, u32) {
    let m = if r.below(10) == 0 { 1 } else { r.range_u64(2, 8) as u32 };
    let n = r.range_u64(1, 12) as usize;
    let target = r.uniform(0.1, 1.05) * m as f64;
    let tiny = r.below(4) == 0;
    let kind = r.below(5);
    let mut w: Vec<f64> = (0..n).map(|_| r.uniform(0.05, 1.0)).collect();
    let s: f64 = w.iter().sum();
    w.iter_mut().for_each(|x| *x = (*x / s * target).min(1.0));
    let tasks = w
        .iter()
        .map(|&u| {
            let t = if tiny { r.range_u64(2, 30) } else { r.range_u64(10, 100) * 1_000_000 };
            let c = ((u * t as f64).round() as u64).clamp(1, t);
            let d = match kind {
                0 | 1 => t,
                2 | 3 => r.range_u64(c, t),
                _ => r.range_u64(c, 2 * t),
            };
            TaskParams::constrained(c, d, t)
        })
        .collect();
    (tasks, m)
}

fn sets() -> impl Iterator<Item = (Vec<TaskParams>, u32)> {
    let mut r = Rng::new(0x6ed7_2024);
    (0..SETS).map(move |_| random_set(&mut r))
}

fn necessary_fails(tasks: &[TaskParams], m: u32) -> bool {
    tasks.iter().any(|t| t.wcet > t.deadline.min(t.period))
        || schedlab_analysis::schedulability::gedf::model::cmp_util(tasks, m) == std::cmp::Ordering::Greater
}

#[test]
fn fast_and_explained_paths_agree_and_verdicts_explain_themselves() {
    let mut accepted = vec![0usize; GEDF.len()];
    for (tasks, m) in sets() {
        for (j, (id, decide, check)) in GEDF.iter().enumerate() {
            let v = decide(&tasks, m);
            let o = check(&tasks, m);
            assert_eq!(v, o.verdict, "{id}: fast {v} vs explained {o:?} on m = {m}, {tasks:?}");
            assert!(!o.reason.is_empty(), "{id}: {o:?}");
            if v == Verdict::Unschedulable {
                assert!(
                    necessary_fails(&tasks, m),
                    "{id} says unschedulable without a failed necessary condition: {o:?} {tasks:?}"
                );
            }
            if v == Verdict::Schedulable {
                accepted[j] += 1;
                if let Some(s) = o.slack() {
                    assert!(s.0 >= schedlab_model::exact::Ratio::zero().0, "{id}: negative slack on accept: {o:?}");
                }
            }
            if v == Verdict::Inconclusive {
                assert!(
                    o.slack().is_none_or(|s| s.0 <= schedlab_model::exact::Ratio::zero().0)
                        || *id == load::ID
                        || *id == bar::ID,
                    "{id}: {o:?}"
                );
            }
        }
    }
    println!("accepted of {SETS}: {:?}", GEDF.iter().map(|g| g.0).zip(&accepted).collect::<Vec<_>>());
    assert!(
        accepted.iter().all(|&a| a > SETS / 20 && a < SETS),
        "each test accepts some sets and not all: {accepted:?}"
    );
}

#[test]
fn iterative_slack_and_rta_accept_whatever_bcl_accepts() {
    let (mut bcl_n, mut bcli_n, mut rta_n) = (0, 0, 0);
    for (tasks, m) in sets() {
        let b = bcl::decide(&tasks, m) == Verdict::Schedulable;
        let bi = bcl_iterative::decide(&tasks, m) == Verdict::Schedulable;
        let r = rta::decide(&tasks, m) == Verdict::Schedulable;
        assert!(!b || bi, "BCL accepts, BCL-iterative does not: m = {m}, {tasks:?}");
        assert!(!bi || r, "BCL-iterative accepts, RTA does not: m = {m}, {tasks:?}");
        (bcl_n, bcli_n, rta_n) = (bcl_n + b as usize, bcli_n + bi as usize, rta_n + r as usize);
    }
    println!("accepted: BCL {bcl_n}, BCL-iterative {bcli_n}, RTA {rta_n}");
    assert!(bcl_n < bcli_n && bcli_n < rta_n, "the refinements accept strictly more here: {bcl_n} {bcli_n} {rta_n}");
}

#[test]
fn any_accepts_iff_some_test_accepts_and_names_it() {
    let mut by = std::collections::BTreeMap::new();
    for (tasks, m) in sets() {
        let some = GEDF.iter().find(|g| (g.1)(&tasks, m) == Verdict::Schedulable).map(|g| g.0);
        let (v, which) = combined::decide_which(&tasks, m);
        assert_eq!(
            v == Verdict::Schedulable,
            some.is_some(),
            "any = {v}, first accepting test {some:?}: m = {m}, {tasks:?}"
        );
        assert_eq!(combined::decide(&tasks, m), v);
        if let Some(w) = which {
            let test = GEDF.iter().find(|g| g.0 == w).expect("a G-EDF test");
            assert_eq!((test.1)(&tasks, m), Verdict::Schedulable);
            *by.entry(w).or_insert(0) += 1;
        }
        if necessary_fails(&tasks, m) {
            assert_eq!(v, Verdict::Unschedulable);
        }
    }
    println!("gedf.any accepted by: {by:?}");
    assert!(by.len() >= 3, "several tests do the accepting: {by:?}");
}

/// The tests whose verdict is sustainable in the WCET: GFB, BCL,
/// BCL-iterative, RTA and LOAD by their monotone formulas; BAR and FF-DBF
/// observed here (no counterexample on these sets). BAK is not: lowering
/// Cₖ lowers λₖ, which raises (Cᵢ − λₖTᵢ)/Dₖ for every uᵢ > λₖ (see
/// `bak::tests::not_sustainable`).
const SUSTAINABLE: &[&str] = &[gfb::ID, bcl::ID, bcl_iterative::ID, rta::ID, load::ID, bar::ID, ffdbf::ID];

#[test]
fn lowering_a_wcet_keeps_an_accepting_sustainable_test_accepting() {
    let mut r = Rng::new(0x5057_a1e5);
    let mut checked = vec![0usize; GEDF.len()];
    let mut broken: Vec<(usize, String)> = Vec::new();
    for (tasks, m) in sets() {
        for (j, (id, decide, _)) in GEDF.iter().enumerate() {
            if decide(&tasks, m) != Verdict::Schedulable {
                continue;
            }
            let mut lower = tasks.clone();
            let i = r.below(tasks.len() as u64) as usize;
            if lower[i].wcet <= 1 {
                continue;
            }
            lower[i].wcet = r.range_u64(1, lower[i].wcet - 1);
            checked[j] += 1;
            if decide(&lower, m) != Verdict::Schedulable {
                broken.push((j, format!("{id}: m = {m}, {tasks:?} → task {i} WCET {}", lower[i].wcet)));
            }
        }
    }
    for (j, (id, ..)) in GEDF.iter().enumerate() {
        let n = broken.iter().filter(|b| b.0 == j).count();
        println!("{id}: {} lowered sets, {n} turned to reject", checked[j]);
        if let Some(b) = broken.iter().find(|b| b.0 == j) {
            println!("  e.g. {}", b.1);
        }
    }
    let bad: Vec<&String> = broken.iter().filter(|b| SUSTAINABLE.contains(&GEDF[b.0].0)).map(|b| &b.1).collect();
    assert!(bad.is_empty(), "{} sustainability violations; the first: {}", bad.len(), bad[0]);
}

#[test]
fn guan_accepts_whatever_bertogna_accepts() {
    let mut r = Rng::new(2009);
    let (mut b_n, mut g_n, mut n) = (0, 0, 0);
    for (tasks, m) in sets() {
        if tasks.iter().any(|t| t.deadline > t.period) {
            continue;
        }
        // RM, DM and a random order.
        let mut rm: Vec<usize> = (0..tasks.len()).collect();
        rm.sort_by_key(|&i| (tasks[i].period, i));
        let mut dm = rm.clone();
        dm.sort_by_key(|&i| (tasks[i].deadline, i));
        let mut rnd = rm.clone();
        r.shuffle(&mut rnd);
        for order in [rm, dm, rnd] {
            n += 1;
            let b = bertogna::decide(&tasks, m, &order) == Verdict::Schedulable;
            let g = guan::decide(&tasks, m, &order) == Verdict::Schedulable;
            assert_eq!(bertogna::check(&tasks, m, &order).verdict, bertogna::decide(&tasks, m, &order));
            assert_eq!(guan::check(&tasks, m, &order).verdict, guan::decide(&tasks, m, &order));
            assert!(!b || g, "Bertogna accepts, Guan does not: m = {m}, order {order:?}, {tasks:?}");
            b_n += b as usize;
            g_n += g as usize;
        }
    }
    println!("G-FP over {n} (set, order) pairs: Bertogna {b_n}, Guan {g_n}");
    assert!(b_n > n / 20 && b_n < g_n, "{b_n} {g_n} of {n}");
}
