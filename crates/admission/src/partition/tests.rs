//! Hand-computed packings.

use super::*;
use schedlab_model::{Duration, Packing, Platform, Spec, Task};

/// Sizes in tenths.
fn tenths(v: &[u64]) -> Vec<Share> {
    v.iter().map(|&x| Share::new(x, 10)).collect()
}

fn bins_of(sizes: &[u64], m: usize, h: Heuristic) -> Vec<usize> {
    pack(&Problem::uniform(tenths(sizes), m), h, PinnedCheck::Check).unwrap().bins
}

// Items 0.5, 0.7, 0.2, 0.4 on three CPUs, in task order.
//  FF: .5→0, .7→1 (not 0), .2→0 (first that fits), .4→2 (0 at .7, 1 at .7 full for .4)
//  BF: .5→0, .7→1, .2→1 (room .1 < .3 < .8), .4→0 (room .1 < .6)
//  WF: .5→0, .7→1 (1 and 2 tie at .3: lower), .2→2 (room .8), .4→2 (room .4 > .1)
//  NF: .5→0, .7→1 (0 is left), .2→1, .4→2 (1 would hold 1.3)
#[test]
fn the_four_rules_in_task_order() {
    let items = [5, 7, 2, 4];
    assert_eq!(bins_of(&items, 3, Heuristic::FF), vec![0, 1, 0, 2]);
    assert_eq!(bins_of(&items, 3, Heuristic::BF), vec![0, 1, 1, 0]);
    assert_eq!(bins_of(&items, 3, Heuristic::WF), vec![0, 1, 2, 2]);
    assert_eq!(bins_of(&items, 3, Heuristic::NF), vec![0, 1, 1, 2]);
}

// Same items sorted: .7 (t1), .5 (t0), .4 (t3), .2 (t2).
//  FFD: .7→0, .5→1, .4→1, .2→0
//  BFD: .7→0, .5→1 (1, 2 tie), .4→1 (room .1 < .6), .2→0 (room .1 < .8)
//  WFD: .7→0, .5→1, .4→2 (room .6 > .1), .2→2 (room .4 > .3 > .1)
//  NFD: .7→0, .5→1, .4→1, .2→2 (1 would hold 1.1)
#[test]
fn the_decreasing_variants() {
    let items = [5, 7, 2, 4];
    assert_eq!(bins_of(&items, 3, Heuristic::FFD), vec![1, 0, 0, 1]);
    assert_eq!(bins_of(&items, 3, Heuristic::BFD), vec![1, 0, 0, 1]);
    assert_eq!(bins_of(&items, 3, Heuristic::WFD), vec![1, 0, 2, 2]);
    assert_eq!(bins_of(&items, 3, Heuristic::NFD), vec![1, 0, 2, 1]);
}

// .7, .4, .4, .2 sorted already: FFD puts .2 in bin 0 (first fit, room .1 left),
// BFD in bin 1 (.8 + .2 leaves 0).
#[test]
fn best_fit_decreasing_differs_from_first_fit_decreasing() {
    let items = [7, 4, 4, 2];
    assert_eq!(bins_of(&items, 3, Heuristic::FFD), vec![0, 1, 1, 0]);
    assert_eq!(bins_of(&items, 3, Heuristic::BFD), vec![0, 1, 1, 1]);
}

#[test]
fn decreasing_ties_go_to_the_lower_task_index() {
    // Three equal tasks and WFD on three bins: task 0 → bin 0, 1 → 1, 2 → 2.
    assert_eq!(bins_of(&[3, 3, 3], 3, Heuristic::WFD), vec![0, 1, 2]);
    // Equal sizes keep task order under FFD: .6 (t0), .6 (t2), .4 (t1), .4 (t3).
    assert_eq!(bins_of(&[6, 4, 6, 4], 2, Heuristic::FFD), vec![0, 0, 1, 1]);
}

#[test]
fn three_two_thirds_do_not_fit_two_cpus() {
    let p = Problem::uniform(vec![Share::new(2, 3); 3], 2);
    for h in [
        Heuristic::FF,
        Heuristic::BF,
        Heuristic::WF,
        Heuristic::NF,
        Heuristic::FFD,
        Heuristic::BFD,
        Heuristic::WFD,
        Heuristic::NFD,
    ] {
        let e = pack(&p, h, PinnedCheck::Check).unwrap_err();
        assert_eq!(e.kind, PackErrorKind::NoFit);
        assert_eq!(e.task, Some(2), "{}", h.name());
        assert_eq!(e.loads_text(), "[0.6667 of 1, 0.6667 of 1]");
        assert!(e.to_string().contains("task 2 (size 0.6667)"), "{e}");
    }
}

#[test]
fn exact_boundary_three_thirds_fill_one_bin() {
    // 1/3 + 1/3 + 1/3 = 1 exactly: first fit keeps them all on bin 0.
    let p = Problem::uniform(vec![Share::new(1, 3); 3], 2);
    let a = pack(&p, Heuristic::FF, PinnedCheck::Check).unwrap();
    assert_eq!(a.bins, vec![0, 0, 0]);
    assert_eq!(a.loads[0].to_fraction(), "1/1");
    // A fourth third goes to bin 1; one ns more on bin 0 would not fit.
    let p = Problem::uniform(vec![Share::new(1, 3), Share::new(1, 3), Share::new(1, 3), Share::new(1, 3)], 2);
    assert_eq!(pack(&p, Heuristic::FF, PinnedCheck::Check).unwrap().bins, vec![0, 0, 0, 1]);
    let p = Problem::uniform(vec![Share::new(1, 3), Share::new(1, 3), Share::new(333_333_334, 1_000_000_000)], 1);
    assert!(pack(&p, Heuristic::FF, PinnedCheck::Check).is_err());
}

#[test]
fn huge_coprime_periods_fall_back_to_rationals() {
    // Denominators whose LCM overflows u64: still exact.
    let p1 = 18_446_744_073_709_551_557u64; // a prime near 2^64
    let p2 = 18_446_744_073_709_551_533u64; // another prime
    let third = |p: u64| Share::new(p / 3, p);
    // ⌊p/3⌋/p + ⌊q/3⌋/q + 1/3 falls short of 1 by about 1e-19, less than
    // 1/1000000007: the fourth task does not fit, though f64 sums say 1.0.
    let p = Problem::uniform(vec![third(p1), third(p2), Share::new(1, 3), Share::new(1, 1_000_000_007)], 2);
    let a = pack(&p, Heuristic::FF, PinnedCheck::Check).unwrap();
    assert_eq!(a.bins, vec![0, 0, 0, 1]);
    assert!(!a.loads[0].gt_int(1));
    assert_eq!(a.loads[0].to_f64(), 1.0);
    assert_ne!(a.loads[0].to_fraction(), "1/1");
}

#[test]
fn pinned_tasks_are_placed_first_and_count() {
    // Task 2 (.6) pinned to bin 0 first; then FF: .5 → 1, .5 → 1, .3 → 0.
    let mut p = Problem::uniform(tenths(&[5, 5, 6, 3]), 2);
    p.pins[2] = Pin::Bin(0);
    let a = pack(&p, Heuristic::FF, PinnedCheck::Check).unwrap();
    assert_eq!(a.bins, vec![1, 1, 0, 0]);
    assert_eq!(a.loads.iter().map(|l| l.to_fraction()).collect::<Vec<_>>(), ["9/10", "1/1"]);
    // Restricted to bin 1 only: .3 must go to 1, which is full → failure names task 3.
    p.pins[3] = Pin::Among(vec![1]);
    let e = pack(&p, Heuristic::FF, PinnedCheck::Check).unwrap_err();
    assert_eq!(e.task, Some(3));
    // An overloaded pin: refused when checked, placed when trusted.
    let mut p = Problem::uniform(tenths(&[6, 6]), 2);
    p.pins = vec![Pin::Bin(1), Pin::Bin(1)];
    assert_eq!(pack(&p, Heuristic::WFD, PinnedCheck::Check).unwrap_err().task, Some(1));
    assert_eq!(pack(&p, Heuristic::WFD, PinnedCheck::Trust).unwrap().bins, vec![1, 1]);
}

#[test]
fn cluster_capacity_is_its_cpu_count_and_tasks_stay_at_most_one() {
    // Bins of 2 and 1 CPUs: three 2/3 sum to exactly 2 and all fit the pair
    // under FF; the fourth goes to the single CPU.
    let p = Problem { capacities: vec![2, 1], ..Problem::uniform(vec![Share::new(2, 3); 4], 2) };
    assert_eq!(pack(&p, Heuristic::FF, PinnedCheck::Check).unwrap().bins, vec![0, 0, 0, 1]);
    // WF: t0 → pair (room 4/3 > 1/3), t1 → pair (2/3 > 1/3), t2: pair room 0, single 1/3 → single, t3 → pair.
    assert_eq!(pack(&p, Heuristic::WF, PinnedCheck::Check).unwrap().bins, vec![0, 0, 1, 0]);
    // A task of utilisation 3/2 fits no bin, even one of 2 CPUs.
    let p = Problem { capacities: vec![2], ..Problem::uniform(vec![Share::new(3, 2)], 1) };
    let e = pack(&p, Heuristic::FF, PinnedCheck::Check).unwrap_err();
    assert!(e.message.contains("larger than one CPU"), "{e}");
}

#[test]
fn next_fit_never_goes_back() {
    // .6 → 0, .6 → 1, .3: FF would go back to 0; NF stays on 1.
    assert_eq!(bins_of(&[6, 6, 3], 2, Heuristic::FF), vec![0, 1, 0]);
    assert_eq!(bins_of(&[6, 6, 3], 2, Heuristic::NF), vec![0, 1, 1]);
    // .6, .6, .6 on 2: fails at task 2 and says why.
    let e = pack(&Problem::uniform(tenths(&[6, 6, 6]), 2), Heuristic::NF, PinnedCheck::Check).unwrap_err();
    assert!(e.message.contains("never revisits"), "{e}");
}

#[test]
fn the_admission_predicate_vetoes_bins() {
    // At most two tasks per bin: FF of four .1 on two bins → 0, 0, 1, 1.
    let p = Problem::uniform(tenths(&[1, 1, 1, 1]), 2);
    let admit = |_bin: usize, members: &[usize], _t: usize| members.len() < 2;
    assert_eq!(pack_with(&p, Heuristic::FF, PinnedCheck::Check, &admit).unwrap().bins, vec![0, 0, 1, 1]);
    let admit_none = |_: usize, _: &[usize], _: usize| false;
    assert_eq!(pack_with(&p, Heuristic::FF, PinnedCheck::Check, &admit_none).unwrap_err().task, Some(0));
    // The predicate sees the bin's members in task order.
    let p = Problem::uniform(tenths(&[1, 5, 3]), 1);
    let seen = std::cell::RefCell::new(Vec::new());
    let spy = |b: usize, m: &[usize], t: usize| {
        seen.borrow_mut().push((b, m.to_vec(), t));
        true
    };
    pack_with(&p, Heuristic::FFD, PinnedCheck::Check, &spy).unwrap();
    assert_eq!(*seen.borrow(), vec![(0, vec![], 1), (0, vec![1], 2), (0, vec![1, 2], 0)]);
}

#[test]
fn invalid_problems_are_reported() {
    let mut p = Problem::uniform(tenths(&[1]), 1);
    p.pins[0] = Pin::Bin(3);
    assert_eq!(pack(&p, Heuristic::FF, PinnedCheck::Check).unwrap_err().kind, PackErrorKind::Invalid);
    let p = Problem::uniform(tenths(&[1]), 0);
    assert_eq!(pack(&p, Heuristic::FF, PinnedCheck::Check).unwrap_err().kind, PackErrorKind::Invalid);
}

fn spec(cpus: u32, clusters: Option<Vec<Vec<u32>>>, tasks: &[(u64, u64)]) -> Spec {
    Spec {
        meta: None,
        platform: Platform { cpus, clusters, cache: None, memory: None },
        policy: None,
        overheads: None,
        reservations: None,
        mtt: None,
        tasks: tasks
            .iter()
            .enumerate()
            .map(|(i, &(c, p))| Task::new(format!("t{i}"), Duration::from_ms(c), Duration::from_ms(p)))
            .collect(),
    }
}

#[test]
fn specs_pack_onto_cpus_and_clusters() {
    let mut s = spec(4, Some(vec![vec![0, 1], vec![2, 3]]), &[(2, 3), (2, 3), (2, 3), (1, 10)]);
    // WFD onto CPUs: the three 2/3 on 0, 1, 2, then 1/10 on 3.
    let a = pack_spec(&s, Target::Cpus, Packing::Wfd, Metric::Utilization, PinnedCheck::Check).unwrap();
    assert_eq!(a.bins, vec![0, 1, 2, 3]);
    // Onto clusters: FF puts the first two in cluster 0 (4/3 ≤ 2), the third too? 2 ≤ 2: yes.
    let a = pack_spec(&s, Target::Clusters, Packing::Ff, Metric::Utilization, PinnedCheck::Check).unwrap();
    assert_eq!(a.bins, vec![0, 0, 0, 1]);
    // Pins: task 3 pinned to CPU 1 (cluster 0 when packing clusters), task 0 to cluster 1.
    s.tasks[3].cpu = Some(1);
    s.tasks[0].cluster = Some(1);
    let a = pack_spec(&s, Target::Clusters, Packing::Ff, Metric::Utilization, PinnedCheck::Check).unwrap();
    assert_eq!(a.bins, vec![1, 0, 0, 0]);
    // Onto CPUs, task 0 may only use CPUs 2 and 3 (its cluster); t3 sits on
    // CPU 1 first; FF: t0 → 2, t1 → 0, t2 → 1 (1/10 + 2/3 fits).
    let a = pack_spec(&s, Target::Cpus, Packing::Ff, Metric::Utilization, PinnedCheck::Check).unwrap();
    assert_eq!(a.bins, vec![2, 0, 1, 1]);
    // Errors name the task.
    let s = spec(2, None, &[(2, 3), (2, 3), (2, 3)]);
    let e = pack_spec(&s, Target::Cpus, Packing::Ffd, Metric::Utilization, PinnedCheck::Check).unwrap_err();
    assert!(
        e.to_string().starts_with("tasks[2] `t2` (utilisation 0.6667) cannot be placed by ffd: it fits in no CPU"),
        "{e}"
    );
    let e = pack_spec(&s, Target::Cpus, Packing::Cap, Metric::Utilization, PinnedCheck::Check).unwrap_err();
    assert_eq!(e.kind, PackErrorKind::ColourAware);
    assert!(e.to_string().contains("colour-aware"));
}

#[test]
fn density_uses_the_shorter_of_deadline_and_period() {
    let mut s = spec(1, None, &[(1, 4), (1, 4)]);
    s.tasks[0].deadline = Some(Duration::from_ms(2));
    assert_eq!(Metric::Density.of(&s.tasks[0]), Share::new(1_000_000, 2_000_000));
    // By utilisation 1/4 + 1/4 fits; by density 1/2 + 1/4 too; three of them by density not.
    s.tasks.push(s.tasks[0].clone());
    s.tasks[2].name = "t2".into();
    assert!(pack_spec(&s, Target::Cpus, Packing::Ff, Metric::Utilization, PinnedCheck::Check).is_ok());
    assert_eq!(
        pack_spec(&s, Target::Cpus, Packing::Ff, Metric::Density, PinnedCheck::Check).unwrap_err().task,
        Some(2)
    );
}

#[test]
fn float_screened_rationals_pack_as_the_exact_ones() {
    // Periods of whole ms in 10–100 ms (their LCM exceeds 64 bits, so the
    // sizes are rationals screened by floats): every rule places every task
    // where the plain rational arithmetic (RUN's pack_exact) does, including
    // sums that land exactly on a bin's capacity.
    let mut rng = schedlab_model::rng::Rng::new(7);
    let mut next = |n: u64| rng.below(n);
    for round in 0..60 {
        let n = 20 + next(60) as usize;
        let m = 2 + next(10) as usize;
        let sizes: Vec<Share> = (0..n)
            .map(|i| {
                let period = 1_000_000 * (10 + next(91));
                // Some exact halves and quarters, so that bins fill exactly.
                let wcet = if i % 7 == 0 { period / 4 } else { 1 + next(period * 9 / 10) };
                Share::new(wcet, period)
            })
            .collect();
        let exact: Vec<_> = sizes.iter().map(|s| s.to_ratio()).collect();
        for h in Heuristic::ALL {
            let p = Problem::uniform(sizes.clone(), m);
            let ours = pack(&p, h, PinnedCheck::Check).map(|a| a.bins).map_err(|e| e.task);
            let plain = pack_exact(&exact, m, h).map(|a| a.bins).map_err(|e| e.task);
            assert_eq!(ours, plain, "round {round}, {}", h.name());
        }
    }
}
