//! The `mtt` section: a valid one loads with its accessors (the MTT of a
//! task, the group's working set, the working-set owner) and survives a
//! round trip; every kind of bad group is refused with the field path and
//! the fix.

use schedlab_model::emit::{to_json, to_yaml};
use schedlab_model::{load_str, Diagnostic, Format, Size, Spec, WssOwner};

const TASKS: &str = "tasks:\n  - {name: t, wcet: 1ms, period: 2ms, wss: 768KiB}\n  - {name: w1, wcet: 2ms, period: 8ms}\n  - {name: w2, wcet: 1ms, period: 8ms}\n  - {name: x, wcet: 1ms, period: 8ms, wss: 64KiB}\n";

fn spec(tasks: &str, mtt: &str) -> String {
    format!("platform: {{cpus: 2, cache: {{size: 1MiB, ways: 16, line: 64B, colors: 4}}}}\n{tasks}mtt:\n{mtt}")
}

fn load(tasks: &str, mtt: &str) -> Result<(Spec, Vec<Diagnostic>), Vec<Diagnostic>> {
    load_str(&spec(tasks, mtt), None, "t.yaml").map(|l| (l.spec, l.warnings)).map_err(|e| e.diagnostics)
}

fn one_error(tasks: &str, mtt: &str) -> (String, String) {
    let e: Vec<(String, String)> = load(tasks, mtt).expect_err(mtt).into_iter().map(|d| (d.path, d.message)).collect();
    assert_eq!(e.len(), 1, "{e:?}");
    e[0].clone()
}

const KIB: u64 = 1024;

#[test]
fn a_group_gives_its_tasks_one_working_set_and_owner() {
    let (s, warnings) = load(TASKS, "  - {name: video, tasks: [w1, w2], wss: 768KiB}\n").unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(s.mtt_of_tasks(), [None, Some(0), Some(0), None]);
    assert_eq!((s.mtt_of(0), s.mtt_of(1), s.mtt_of(2), s.mtt_of(9)), (None, Some(0), Some(0), None));
    assert_eq!(s.mtt_tasks(0), [1, 2]);
    assert_eq!(s.mtt_wss(0), Some(Size(768 * KIB)));
    assert_eq!(s.wss_owner(1), WssOwner::Mtt(0));
    assert_eq!(s.wss_owner(2), WssOwner::Mtt(0));
    assert_eq!(s.wss_owner(3), WssOwner::Task(3));
    // A thread's owner has the group's working set, not the thread's (none here).
    assert_eq!(s.owner_wss(s.wss_owner(1)), Some(Size(768 * KIB)));
    assert_eq!(s.owner_wss(s.wss_owner(3)), Some(Size(64 * KIB)));
    assert_eq!(s.owner_name(WssOwner::Mtt(0)), "video");
    assert_eq!(s.owner_name(WssOwner::Task(0)), "t");
    // `schedlab check` lists the group with its working set.
    let rows = schedlab_model::Summary::of(&s).mtts;
    assert_eq!(rows.len(), 1);
    assert_eq!(
        (rows[0].name.as_str(), rows[0].tasks.as_slice(), rows[0].wss),
        ("video", &["w1".to_string(), "w2".to_string()][..], Some(Size(768 * KIB)))
    );
    // Written back and read again, the groups are the same.
    for (text, format) in [(to_yaml(&s), Format::Yaml), (to_json(&s), Format::Json)] {
        let again = load_str(&text, Some(format), "back").unwrap().spec;
        assert_eq!(again, s, "{text}");
    }
}

#[test]
fn without_its_own_wss_a_group_takes_the_one_its_tasks_declare() {
    let tasks = TASKS.replace("{name: w2, wcet: 1ms, period: 8ms}", "{name: w2, wcet: 1ms, period: 8ms, wss: 96KiB}");
    let (s, _) = load(&tasks, "  - {name: video, tasks: [w1, w2]}\n").unwrap();
    assert_eq!(s.mtt_wss(0), Some(Size(96 * KIB)));
    // A task restating the group's size is accepted.
    let (s, _) = load(&tasks, "  - {name: video, tasks: [w1, w2], wss: 96KiB}\n").unwrap();
    assert_eq!(s.owner_wss(s.wss_owner(2)), Some(Size(96 * KIB)));
    // Neither: the group has no working-set size.
    let (s, _) = load(TASKS, "  - {name: video, tasks: [w1, w2]}\n").unwrap();
    assert_eq!(s.mtt_wss(0), None);
}

#[test]
fn bad_groups_are_named_by_path_with_the_fix() {
    let cases: &[(&str, &str, &str, &str)] = &[
        (TASKS, "  - {name: video, tasks: [w1, nope]}\n", "mtt[0].tasks[1]", "no task is named `nope`"),
        (TASKS, "  - {name: video, tasks: []}\n", "mtt[0].tasks", "is empty"),
        (TASKS, "  - {name: video, tasks: [w1]}\n  - {name: video, tasks: [w2]}\n", "mtt[1].name", "must be unique"),
        (TASKS, "  - {name: t, tasks: [w1]}\n", "mtt[0].name", "is the name of tasks[0]"),
        (TASKS, "  - {name: '', tasks: [w1]}\n", "mtt[0].name", "printable characters"),
        (
            TASKS,
            "  - {name: a, tasks: [w1]}\n  - {name: b, tasks: [w2, w1]}\n",
            "mtt[1].tasks[1]",
            "already in an MTT (mtt[0].tasks[0])",
        ),
        (TASKS, "  - {name: a, tasks: [w1, w1]}\n", "mtt[0].tasks[1]", "at most one MTT"),
        (TASKS, "  - {name: a, tasks: [w1, t]}\n", "tasks[0].period", "share their period"),
        (TASKS, "  - {name: a, tasks: [w1, x], wss: 1KiB}\n", "tasks[3].wss", "share one working set"),
        (TASKS, "  - {name: a, tasks: [w1], wss: 0B}\n", "mtt[0].wss", "more than 0"),
        (
            &TASKS.replace("{name: w2, wcet: 1ms, period: 8ms}", "{name: w2, wcet: 1ms, period: 8ms, deadline: 6ms}"),
            "  - {name: a, tasks: [w1, w2]}\n",
            "tasks[2].deadline",
            "share their deadline",
        ),
        (
            &TASKS.replace("{name: w2, wcet: 1ms, period: 8ms}", "{name: w2, wcet: 1ms, period: 8ms, offset: 1ms}"),
            "  - {name: a, tasks: [w1, w2]}\n",
            "tasks[2].offset",
            "share their offset",
        ),
        (
            &TASKS.replace("{name: w2, wcet: 1ms, period: 8ms}", "{name: w2, wcet: 1ms, period: 8ms, colors: [1]}"),
            "  - {name: a, tasks: [w1, w2]}\n",
            "tasks[2].colors",
            "share their colours",
        ),
        (
            // Without a group size, two tasks declaring different sizes.
            &TASKS.replace("{name: w2, wcet: 1ms, period: 8ms}", "{name: w2, wcet: 1ms, period: 8ms, wss: 8KiB}"),
            "  - {name: a, tasks: [w2, x]}\n",
            "tasks[3].wss",
            "(tasks[2].wss)",
        ),
    ];
    for (tasks, mtt, path, text) in cases {
        let (p, m) = one_error(tasks, mtt);
        assert_eq!(&p, path, "{mtt}: {m}");
        assert!(m.contains(text), "{mtt}: `{m}` lacks `{text}`");
    }
    // An empty section.
    let e = load_str(&format!("platform: {{cpus: 1}}\n{TASKS}mtt: []\n"), None, "t.yaml").unwrap_err();
    assert_eq!(e.diagnostics[0].path, "mtt");
    // An unknown key in a group.
    let e = load(TASKS, "  - {name: a, tasks: [w1], period: 8ms}\n").unwrap_err();
    assert_eq!(e[0].path, "mtt[0].period", "{e:?}");
}

#[test]
fn more_threads_than_cpus_is_legal_with_a_warning() {
    let tasks = format!("{TASKS}  - {{name: w3, wcet: 1ms, period: 8ms}}\n");
    let (_, warnings) = load(&tasks, "  - {name: video, tasks: [w1, w2, w3]}\n").unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(warnings[0].path, "mtt[0].tasks");
    assert!(warnings[0].message.contains("3 tasks on 2 CPUs"), "{}", warnings[0].message);
}

#[test]
fn the_shipped_example_loads_with_one_group() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/mtt.yaml");
    let s = schedlab_model::load_path(&path).unwrap().spec;
    assert_eq!(s.mtts().len(), 1);
    let w1 = s.tasks.iter().position(|t| t.name == "w1").unwrap();
    assert_eq!(s.owner_wss(s.wss_owner(w1)), Some(Size(768 * KIB)));
}
