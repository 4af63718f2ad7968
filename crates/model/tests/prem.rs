//! PREM tasks under `mcs`: the Sections P → E → W told apart by position,
//! the memory priority and mode, the master CPU; each bad input refused
//! with its field path and the fix.

use schedlab_model::spec::prem::{roles, sections, Role};
use schedlab_model::{load_str, MemoryMode};

fn spec(policy: &str, tasks: &str) -> String {
    format!("platform: {{cpus: 4}}\npolicy: {policy}\ntasks:\n{tasks}")
}

fn errors(yaml: &str) -> Vec<(String, String)> {
    match load_str(yaml, None, "t.yaml") {
        Ok(_) => Vec::new(),
        Err(e) => e.diagnostics.iter().map(|d| (d.path.clone(), d.message.clone())).collect(),
    }
}

const TWO_SECTIONS: &str = "[{memory: 1ms}, {exec: 4ms}, {memory: 1ms}, {memory: 1ms}, {exec: 4ms}, {memory: 1ms}]";

#[test]
fn a_prem_task_loads_with_its_sections_priority_and_mode() {
    let tasks = format!(
        "  - {{name: a, period: 20ms, cpu: 0, memory_priority: 2, segments: {TWO_SECTIONS}}}\n  - {{name: b, period: 40ms, cpu: 1, memory_priority: 1, memory_mode: amp, segments: {TWO_SECTIONS}}}\n"
    );
    let l = load_str(&spec("{name: mcs, master: 3, memory_preemption: false}", &tasks), None, "t.yaml").unwrap();
    let (a, b) = (&l.spec.tasks[0], &l.spec.tasks[1]);
    assert_eq!((a.memory_priority, a.memory_mode()), (Some(2), MemoryMode::Smp));
    assert_eq!((b.memory_priority, b.memory_mode()), (Some(1), MemoryMode::Amp));
    assert_eq!(a.wcet.0, 12_000_000, "P, E and W are CPU time");
    let secs = sections(&a.segments()).unwrap();
    assert_eq!(secs.len(), 2);
    assert_eq!(roles(&a.segments())[2..4], [Role::Writeback, Role::Prefetch]);
    let pol = l.spec.policy.unwrap();
    assert_eq!((pol.master, pol.memory_preemption, pol.mps), (Some(3), Some(false), None));
    // Written back as read.
    let json = serde_json::to_value(b).unwrap();
    assert_eq!(json["memory_mode"], "amp");
    assert_eq!(json["memory_priority"], 1);
}

#[test]
fn bad_prem_input_names_the_field_and_the_fix() {
    let cases = [
        (
            "{name: mcs, master: 4}",
            "  - {name: a, period: 20ms, segments: [{exec: 1ms}]}\n".to_string(),
            "policy.master",
            "CPU 4 does not exist",
        ),
        (
            "{name: mcs}",
            "  - {name: a, period: 20ms, memory_priority: 0, segments: [{exec: 1ms}]}\n".to_string(),
            "tasks[0].memory_priority",
            "at least 1",
        ),
        (
            "{name: mcs}",
            "  - {name: a, period: 20ms, memory_priority: 1, segments: [{exec: 1ms}]}\n  - {name: b, period: 20ms, wcet: 1ms}\n"
                .to_string(),
            "tasks",
            "(b)",
        ),
        (
            "{name: mcs}",
            "  - {name: a, period: 20ms, segments: [{memory: 1ms}, {exec: 4ms}, {memory: 1ms}, {memory: 1ms}]}\n".to_string(),
            "tasks[0].segments[3]",
            "second write-back",
        ),
        (
            "{name: mcs}",
            "  - {name: a, period: 20ms, segments: [{exec: 4ms}, {suspend: 1ms}]}\n".to_string(),
            "tasks[0].segments[1]",
            "no self-suspensions",
        ),
        (
            "{name: mcs}",
            "  - {name: a, period: 20ms, memory_mode: amp, segments: [{exec: 4ms}, {memory: 1ms}]}\n".to_string(),
            "tasks[0].memory_mode",
            "starts with a prefetch",
        ),
        (
            "{name: mcs, mps: false}",
            format!("  - {{name: a, period: 20ms, memory_mode: amp, segments: {TWO_SECTIONS}}}\n"),
            "policy.mps",
            "memory-phase worker",
        ),
        (
            "{name: pfp}",
            format!("  - {{name: a, period: 20ms, memory_mode: amp, segments: {TWO_SECTIONS}}}\n"),
            "tasks[0].memory_mode",
            "needs the memory-phase worker of `mcs`",
        ),
        (
            "{name: pfp, master: 1}",
            "  - {name: a, period: 20ms, wcet: 1ms}\n".to_string(),
            "policy.master",
            "not a parameter of `pfp`",
        ),
    ];
    for (policy, tasks, path, want) in cases {
        let errs = errors(&spec(policy, &tasks));
        assert!(
            errs.iter().any(|(p, m)| p == path && m.contains(want)),
            "{policy} {tasks}: want {path}: {want}, got {errs:?}"
        );
    }
}

#[test]
fn prem_fields_under_another_policy_are_ignored_with_a_warning() {
    let l = load_str(
        &spec("{name: pfp}", "  - {name: a, period: 20ms, wcet: 1ms, memory_priority: 1, memory_mode: smp}\n"),
        None,
        "t.yaml",
    )
    .unwrap();
    assert!(
        l.warnings.iter().any(|w| w.path == "tasks" && w.message.contains("are ignored") && w.message.contains("a")),
        "{:?}",
        l.warnings
    );
    // A non-preemptive memory segment is a non-preemptive memory phase under mcs: no warning.
    let l = load_str(
        &spec(
            "{name: mcs}",
            "  - {name: a, period: 20ms, segments: [{memory: 1ms, preemptible: false}, {exec: 1ms}]}\n",
        ),
        None,
        "t.yaml",
    )
    .unwrap();
    assert!(l.warnings.iter().all(|w| !w.message.contains("non-preemptive")), "{:?}", l.warnings);
}
