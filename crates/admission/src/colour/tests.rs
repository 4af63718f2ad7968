//! The EPOS thesis' worked examples (Tables 14 and 15) and the refusals.

use super::*;
use crate::partition::{pack, pack_with, Heuristic, PinnedCheck, Problem, Share};
use schedlab_model::{load_path, Capacity, Packing, Spec};
use std::path::PathBuf;

fn example(name: &str) -> Spec {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples").join(name);
    load_path(&path).unwrap_or_else(|e| panic!("{name}: {e:?}")).spec
}

/// Each CPU's tasks by name, in task order.
fn cpus(spec: &Spec, bins: &[usize]) -> Vec<Vec<String>> {
    let m = spec.platform.cpus as usize;
    let mut out = vec![Vec::new(); m];
    for (t, &b) in bins.iter().enumerate() {
        out[b].push(spec.tasks[t].name.clone());
    }
    out
}

fn names(v: &[&[&str]]) -> Vec<Vec<String>> {
    v.iter().map(|c| c.iter().map(|s| s.to_string()).collect()).collect()
}

#[test]
fn table_14_under_cap_keeps_each_colour_group_on_one_cpu() {
    let spec = example("cap-table14.yaml");
    let part = colour_partition(&spec).unwrap().unwrap();
    // G0 = {T0..T4}, G1 = {T5}, G2 = {T6, T7}; placed G0, G2, G1.
    assert_eq!(part.groups, vec![vec![0, 1, 2, 3, 4], vec![5], vec![6, 7]]);
    assert_eq!(part.order, vec![0, 2, 1]);
    assert_eq!(part.bins, vec![0, 0, 0, 0, 0, 2, 1, 1]);
    let loads: Vec<String> = part.loads.iter().map(fit::shown).collect();
    assert_eq!(loads, ["0.985", "0.74", "0.52"]);
    assert_eq!(part.cpu_colours, vec![vec![0, 1, 3, 4, 5], vec![7, 8, 9, 10], vec![6]]);
    assert_eq!(colours_text(&part.cpu_colours[1]), "7-10");
}

#[test]
fn table_14_under_plain_wfd_splits_t6_and_t7() {
    let spec = example("cap-table14.yaml");
    let problem = crate::partition::problem_for(&spec, crate::partition::Target::Cpus, Default::default()).unwrap();
    let a = pack(&problem, Heuristic::WFD, PinnedCheck::Check).unwrap();
    assert_eq!(cpus(&spec, &a.bins), names(&[&["T3", "T4", "T6"], &["T5", "T7"], &["T0", "T1", "T2"]]));
    assert_ne!(a.bins[6], a.bins[7]);
}

#[test]
fn table_15_under_cap_gs_splits_t8_off_its_group() {
    let spec = example("cap-gs-table15.yaml");
    let part = colour_partition(&spec).unwrap().unwrap();
    // Placement order per CPU as the thesis lists it.
    let placed: Vec<Vec<&str>> =
        part.placed.iter().map(|ts| ts.iter().map(|&t| spec.tasks[t].name.as_str()).collect()).collect();
    assert_eq!(placed, vec![vec!["T1", "T0", "T2"], vec!["T3", "T5", "T6"], vec!["T8", "T4", "T7", "T9"]]);
    assert_eq!(part.split, vec![8]);
    // Groups {T3, T5, T6, T8}, {T4, T7, T9} and the HRT singletons.
    assert!(part.groups.contains(&vec![3, 5, 6, 8]));
    assert!(part.groups.contains(&vec![4, 7, 9]));
}

#[test]
fn table_15_with_srt_on_hrt_cores_is_strict_best_fit() {
    let mut spec = example("cap-gs-table15.yaml");
    spec.policy.as_mut().unwrap().srt_on_hrt_cores = Some(true);
    let part = colour_partition(&spec).unwrap().unwrap();
    // {T3, T5, T6} (0.7) still cannot join the HRT CPU (0.6); T8 then best-fits CPU 0 (0.7).
    assert_eq!(part.bins[8], 0);
    assert_eq!(part.bins[3], 1);
}

#[test]
fn table_15_under_cap_fails_on_the_group_above_capacity() {
    let mut spec = example("cap-gs-table15.yaml");
    spec.policy.as_mut().unwrap().partitioning = Some(Packing::Cap);
    let e = colour_partition(&spec).unwrap().unwrap_err();
    assert_eq!(e.kind, ColourErrorKind::Constraint);
    assert_eq!((e.path.as_str(), e.tasks.clone()), ("tasks[3].colors", vec![3, 5, 6, 8]));
    assert!(e.message.contains("{T3, T5, T6, T8}") && e.message.contains("0.8") && e.message.contains("0.75"), "{e}");
    assert!(e.message.contains("cap-gs"), "{e}");
}

#[test]
fn table_15_under_bfd_as_the_thesis_gives_it() {
    // Plain BFD, BE weighing 0, capacity 0.75 (the fit test), ties to the lower CPU.
    let spec = example("cap-gs-table15.yaml");
    let sizes = spec
        .tasks
        .iter()
        .map(|t| if t.class == schedlab_model::Class::Be { Share::new(0, 1) } else { Share::new(t.wcet.0, t.period.0) })
        .collect::<Vec<_>>();
    let problem = Problem::uniform(sizes.clone(), 3);
    let three_quarters = |_: usize, members: &[usize], t: usize| {
        let u: f64 = members.iter().chain([&t]).map(|&i| sizes[i].to_f64()).sum();
        u <= 0.75 + 1e-12
    };
    let a = pack_with(&problem, Heuristic::BFD, PinnedCheck::Check, &three_quarters).unwrap();
    assert_eq!(cpus(&spec, &a.bins), names(&[&["T1", "T5", "T9"], &["T0", "T3", "T4"], &["T2", "T6", "T7", "T8"]]));
}

#[test]
fn hrt_tasks_sharing_colours_are_refused_by_cap_gs() {
    let mut spec = example("cap-gs-table15.yaml");
    spec.tasks[2].colors = Some("[4]".parse().unwrap()); // T2 now shares colour 4 with T0
    let e = colour_partition(&spec).unwrap().unwrap_err();
    assert_eq!(e.kind, ColourErrorKind::Constraint);
    assert_eq!(e.path, "tasks[0].colors");
    assert!(e.message.contains("`T0` is HRT and shares colours with {T2}"), "{e}");
}

#[test]
fn memory_constraints_name_the_colour_and_the_tasks() {
    let mut spec = example("cap-table14.yaml");
    // 16 colours of 128 KiB: colour 1 holds T0's 512 + T1's 32 + T3's 64 KiB.
    spec.policy.as_mut().unwrap().memory_total = Some(schedlab_model::Size(2 * 1024 * 1024));
    let e = colour_partition(&spec).unwrap().unwrap_err();
    assert_eq!(e.path, "policy.memory_total");
    assert!(
        e.message.contains("colour 1") && e.message.contains("{T0, T1, T3}") && e.message.contains("Eq. 7.4"),
        "{e}"
    );
    // Σ wss = 2036 KiB > 2000 KiB: Eq. 7.1 first.
    spec.policy.as_mut().unwrap().memory_total = Some(schedlab_model::Size(2000 * 1024));
    let e = colour_partition(&spec).unwrap().unwrap_err();
    assert!(e.message.contains("Eq. 7.1"), "{e}");
    // Enough memory: CAP places as before.
    spec.policy.as_mut().unwrap().memory_total = Some(schedlab_model::Size(64 * 1024 * 1024));
    assert!(colour_partition(&spec).unwrap().is_ok());
}

#[test]
fn a_task_without_colours_or_a_partial_pinning_is_refused() {
    let mut spec = example("cap-table14.yaml");
    spec.tasks[3].colors = None;
    let e = colour_partition(&spec).unwrap().unwrap_err();
    assert_eq!(e.path, "tasks[3].colors");
    let mut spec = example("cap-table14.yaml");
    spec.tasks[1].cpu = Some(2);
    let e = colour_partition(&spec).unwrap().unwrap_err();
    assert_eq!(e.path, "tasks[1].cpu");
    // Every task pinned: the pins are the placement.
    for (t, c) in spec.tasks.iter_mut().zip([0, 0, 0, 0, 0, 2, 1, 1]) {
        t.cpu = Some(c);
    }
    let part = colour_partition(&spec).unwrap().unwrap();
    assert_eq!(part.bins, vec![0, 0, 0, 0, 0, 2, 1, 1]);
}

#[test]
fn liu_layland_capacity_counts_real_time_tasks_only() {
    let mut spec = example("cap-gs-table15.yaml");
    spec.policy.as_mut().unwrap().capacity = Some(Capacity::Ll);
    let p = problem_of(&spec).unwrap().unwrap();
    // LL(3) ≈ 0.7798: T1, T0, T2 (0.6) fit; with T9 (BE) added n stays 3.
    assert!(fit::fits(&p, &[1, 0, 2]));
    assert!(fit::fits(&p, &[1, 0, 2, 9]));
    // 0.3 + 0.3 + 0.2 = 0.8 > LL(3).
    assert!(!fit::fits(&p, &[1, 4, 0]));
    // Two tasks of 0.4 and 0.4: 0.8 < LL(2) ≈ 0.8284.
    assert!(fit::fits(&p, &[5, 5]));
}

#[test]
fn cap_packs_groups_with_the_chosen_heuristic_and_fails_when_a_group_fits_nowhere() {
    let mut spec = example("cap-table14.yaml");
    spec.policy.as_mut().unwrap().group_packing = Some(Packing::Ffd);
    // FFD: G0 (0.985) → CPU 0, G2 (0.74) → CPU 1, G1 (0.52) → CPU 2 (CPU 1 would be 1.26).
    assert_eq!(colour_partition(&spec).unwrap().unwrap().bins, vec![0, 0, 0, 0, 0, 2, 1, 1]);
    spec.platform.cpus = 2;
    let e = colour_partition(&spec).unwrap().unwrap_err();
    assert_eq!(e.kind, ColourErrorKind::NoFit);
    assert_eq!(e.tasks, vec![5]);
    assert!(e.message.contains("{T5}"), "{e}");
}
