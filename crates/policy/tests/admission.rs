//! `build`: admission, parameters, placement, declared info.

mod common;

use common::{on_cpus, spec};
use schedlab_model::{Packing, Placement, PolicyName, Priorities};
use schedlab_policy::{build, build_with, BuildOptions, Conformance, DEFAULT_LLF_HYSTERESIS};

fn err(s: &schedlab_model::Spec, placement: Option<&[Placement]>) -> String {
    match build(s, placement) {
        Ok(_) => panic!("admitted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_policy_without_what_it_needs_is_refused() {
    let mut s = spec(2, PolicyName::Pedf, &[(1, 10)]);
    s.policy.as_mut().unwrap().partitioning = Some(Packing::CapGs);
    // Colour-aware partitioning needs the cache's colours.
    assert!(err(&s, None).starts_with("platform.cache: `cap-gs` needs the cache's colours"), "{}", err(&s, None));
    let mut s = spec(2, PolicyName::Gedf, &[(1, 10)]);
    s.policy = None;
    assert!(err(&s, None).starts_with("policy: "));
}

#[test]
fn failed_partitioning_names_the_task() {
    let s = spec(2, PolicyName::Pedf, &[(2, 3), (2, 3), (2, 3)]);
    assert_eq!(
        err(&s, None),
        "policy.partitioning: tasks[2] `t2` (utilisation 0.6667) cannot be placed by wfd: it fits in no CPU it may go to; loads [0.6667 of 1, 0.6667 of 1]"
    );
    // Clustered: capacity 2 per cluster of 2 takes all three.
    let mut s = spec(2, PolicyName::Cedf, &[(2, 3), (2, 3), (2, 3)]);
    assert!(err(&s, None).starts_with("platform.clusters: "));
    s.platform.clusters = Some(vec![vec![0, 1]]);
    assert!(build(&s, None).is_ok());
}

#[test]
fn fixed_priorities_are_validated() {
    let mut s = spec(1, PolicyName::Pfp, &[(1, 10), (1, 10)]);
    s.policy.as_mut().unwrap().priorities = Some(Priorities::Explicit);
    s.tasks[0].priority = Some(1);
    assert!(err(&s, None).starts_with("tasks[1].priority: is required"));
    s.tasks[1].priority = Some(0);
    assert!(err(&s, None).starts_with("tasks[1].priority: must be at least 1"));
    s.tasks[1].priority = Some(1);
    assert!(build(&s, None).is_ok());
    let mut s = spec(1, PolicyName::Gedf, &[(1, 10)]);
    s.policy.as_mut().unwrap().priorities = Some(Priorities::Rm);
    assert!(err(&s, None).starts_with("policy.priorities: "));
    let mut s = spec(1, PolicyName::Edzl, &[(1, 10)]);
    s.policy.as_mut().unwrap().partitioning = Some(Packing::Ff);
    assert!(err(&s, None).starts_with("policy.partitioning: "));
}

#[test]
fn global_policies_refuse_pins() {
    let mut s = spec(2, PolicyName::Gedf, &[(1, 10), (1, 10)]);
    s.tasks[1].cpu = Some(0);
    assert!(err(&s, None).starts_with("tasks[1].cpu: a global policy"));
}

#[test]
fn placement_override_is_honoured_and_checked() {
    let s = spec(2, PolicyName::Pedf, &[(2, 3), (2, 3), (2, 3)]);
    // Packing would fail; the given placement is used as is.
    let given = on_cpus(&[0, 0, 1]);
    let p = build(&s, Some(&given)).unwrap();
    assert_eq!(p.info().placement, given);
    assert!(err(&s, Some(&on_cpus(&[0, 1]))).starts_with("placement: has 2 entries for 3 tasks"));
    assert!(err(&s, Some(&on_cpus(&[0, 1, 2]))).starts_with("placement[2]: must be a CPU"));
    assert!(err(&s, Some(&[Placement::Global, Placement::Global, Placement::Global])).starts_with("placement[0]"));
    let mut s = spec(4, PolicyName::Cedf, &[(1, 3)]);
    s.platform.clusters = Some(vec![vec![0, 1], vec![2, 3]]);
    let given = [Placement::Cluster { cluster: 1, cpus: vec![2, 3] }];
    assert_eq!(build(&s, Some(&given)).unwrap().info().placement, given);
    assert!(err(&s, Some(&[Placement::Cluster { cluster: 1, cpus: vec![2] }])).starts_with("placement[0]"));
}

#[test]
fn info_declares_domains_placement_and_conformance() {
    let s = spec(3, PolicyName::Gedf, &[(1, 10), (1, 10)]);
    let p = build(&s, None).unwrap();
    let i = p.info();
    assert_eq!(
        (i.name, i.domains.clone(), i.placement.clone()),
        ("gedf", vec![vec![0, 1, 2]], vec![Placement::Global; 2])
    );
    assert_eq!(i.conformance, Conformance::PriorityDriven { preemptive: true, work_conserving: true, hysteresis: 0 });
    let s = spec(3, PolicyName::NpGedf, &[(1, 10)]);
    assert_eq!(
        build(&s, None).unwrap().info().conformance,
        Conformance::PriorityDriven { preemptive: false, work_conserving: true, hysteresis: 0 }
    );
    let s = spec(3, PolicyName::Llf, &[(1, 10)]);
    assert_eq!(
        build(&s, None).unwrap().info().conformance,
        Conformance::PriorityDriven { preemptive: true, work_conserving: true, hysteresis: DEFAULT_LLF_HYSTERESIS }
    );
    let p = build_with(&s, None, &BuildOptions { llf_hysteresis: 7 }).unwrap();
    assert_eq!(
        p.info().conformance,
        Conformance::PriorityDriven { preemptive: true, work_conserving: true, hysteresis: 7 }
    );
    // P-FP with WFD: .5 → CPU 0, .4 → 1, .3 → 2, .2 → 2 (room left .5 beats .4 and .3).
    let s = spec(3, PolicyName::Pfp, &[(5, 10), (4, 10), (3, 10), (2, 10)]);
    let p = build(&s, None).unwrap();
    assert_eq!(p.info().domains, vec![vec![0], vec![1], vec![2]]);
    assert_eq!(p.info().placement, on_cpus(&[0, 1, 2, 2]));
    assert_eq!(p.info().domain_of(3), 2);
}

#[test]
fn colour_aware_partitioning_places_tasks_as_admission_reports() {
    // The EPOS thesis' Table 15 under CAP-GS: the policy runs each task
    // where `partition` and `analyze` report it.
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/cap-gs-table15.yaml");
    let mut s = schedlab_model::load_path(&path).unwrap().spec;
    let p = build(&s, None).unwrap();
    assert_eq!(p.info().placement, on_cpus(&[0, 0, 0, 1, 2, 1, 1, 2, 2, 2]));
    // Under CAP the same set is refused, naming the group and the fix.
    s.policy.as_mut().unwrap().partitioning = Some(Packing::Cap);
    s.policy.as_mut().unwrap().srt_on_hrt_cores = None;
    let e = err(&s, None);
    assert!(e.starts_with("tasks[3].colors: the tasks {T3, T5, T6, T8} share colours"), "{e}");
    assert!(e.contains("cap-gs"), "{e}");
}
