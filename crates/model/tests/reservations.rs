//! The `reservations` tree: a valid tree loads and flattens in pre-order
//! with its task indices and per-CPU budgets, and every kind of bad tree is
//! refused with the field path and the fix.

use schedlab_model::emit::{to_json, to_yaml};
use schedlab_model::{load_str, Diagnostic, Duration, Format, Spec};

const TASKS: &str = "tasks:\n  - {name: a, wcet: 1ms, period: 10ms}\n  - {name: b, wcet: 1ms, period: 20ms}\n  - {name: c, wcet: 1ms, period: 40ms}\n";

fn spec(reservations: &str) -> String {
    format!("platform: {{cpus: 2}}\n{TASKS}reservations:\n{reservations}")
}

fn load(reservations: &str) -> Result<(Spec, Vec<Diagnostic>), Vec<Diagnostic>> {
    load_str(&spec(reservations), None, "t.yaml").map(|l| (l.spec, l.warnings)).map_err(|e| e.diagnostics)
}

/// The errors of a bad tree as (path, message).
fn errors(reservations: &str) -> Vec<(String, String)> {
    load(reservations).expect_err(reservations).into_iter().map(|d| (d.path, d.message)).collect()
}

fn one_error(reservations: &str) -> (String, String) {
    let e = errors(reservations);
    assert_eq!(e.len(), 1, "{e:?}");
    e[0].clone()
}

const MS: u64 = 1_000_000;

#[test]
fn a_nested_tree_flattens_in_pre_order() {
    let (s, warnings) = load(
        "  - name: top\n    budget: 6ms\n    period: 10ms\n    tasks: [a]\n    leaf_budget: 2ms\n    groups:\n      - {name: x, budgets: [2ms, 0ms], period: 10ms, tasks: [b]}\n      - {name: y, budget: 1ms, period: 5ms}\n  - {name: other, budget: 2ms, period: 20ms, tasks: [c]}\n",
    )
    .unwrap();
    // `y` serves nothing: legal, with a warning naming it.
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(warnings[0].path, "reservations[0].groups[1]");
    let nodes = s.reservation_nodes();
    let names: Vec<&str> = nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["top", "x", "y", "other"]);
    assert_eq!(nodes[0].children, [1, 2]);
    assert_eq!(nodes[1].parent, Some(0));
    assert_eq!(nodes[3].parent, None);
    assert_eq!(nodes[1].path, "reservations[0].groups[0]");
    assert_eq!(nodes[1].depth, 1);
    assert_eq!(nodes[1].budgets, [Duration(2 * MS), Duration(0)]);
    assert_eq!(nodes[0].budgets, [Duration(6 * MS), Duration(6 * MS)]);
    assert_eq!(nodes[0].tasks, [0]);
    assert_eq!(nodes[1].tasks, [1]);
    assert_eq!(nodes[3].tasks, [2]);
    let leaf = nodes[0].leaf.unwrap();
    assert_eq!((leaf.budget, leaf.period), (Duration(2 * MS), Duration(10 * MS)));
    assert_eq!(nodes[0].leaf_budget_on(1), Duration(2 * MS));
    assert_eq!(nodes[1].leaf, None);
    // Written back and read again, the tree is the same.
    for (text, format) in [(to_yaml(&s), Format::Yaml), (to_json(&s), Format::Json)] {
        let again = load_str(&text, Some(format), "back").unwrap().spec;
        assert_eq!(again, s, "{text}");
    }
}

#[test]
fn bad_budgets_and_periods_are_named_by_path() {
    let cases: &[(&str, &str, &str)] = &[
        ("  - {name: g, budget: 11ms, period: 10ms, tasks: [a]}\n", "reservations[0].budget", "exceeds the period"),
        ("  - {name: g, budget: 0ms, period: 10ms, tasks: [a]}\n", "reservations[0].budget", "more than 0"),
        ("  - {name: g, budget: 1ms, period: 0ms, tasks: [a]}\n", "reservations[0].period", "more than 0"),
        ("  - {name: g, period: 10ms, tasks: [a]}\n", "reservations[0].budget", "is required"),
        (
            "  - {name: g, budget: 1ms, budgets: [1ms, 1ms], period: 10ms, tasks: [a]}\n",
            "reservations[0].budgets",
            "cannot be given with `budget`",
        ),
        ("  - {name: g, budgets: [1ms], period: 10ms, tasks: [a]}\n", "reservations[0].budgets", "1 entries for 2 CPUs"),
        (
            "  - {name: g, budgets: [1ms, 12ms], period: 10ms, tasks: [a]}\n",
            "reservations[0].budgets[1]",
            "exceeds the period",
        ),
        ("  - {name: g, budgets: [0ms, 0ms], period: 10ms, tasks: [a]}\n", "reservations[0].budgets", "all 0"),
        (
            "  - {name: g, budget: 5ms, period: 10ms, tasks: [a]}\n  - name: h\n    budget: 5ms\n    period: 10ms\n    groups: [{name: k, budget: 2ms, period: 10ms, tasks: [b]}]\n    tasks: [c]\n",
            "reservations[1].leaf_budget",
            "is required",
        ),
        (
            "  - {name: g, budget: 5ms, period: 10ms, tasks: [a], leaf_budget: 1ms}\n",
            "reservations[0].leaf_budget",
            "only to a group with subgroups",
        ),
        (
            "  - {name: g, budget: 5ms, period: 10ms, tasks: [a], leaf_period: 10ms}\n",
            "reservations[0].leaf_period",
            "needs `leaf_budget`",
        ),
        ("  - {name: '', budget: 5ms, period: 10ms, tasks: [a]}\n", "reservations[0].name", "must not be empty"),
    ];
    for (tree, path, msg) in cases {
        let e = errors(tree);
        assert!(e.iter().any(|(p, m)| p == path && m.contains(msg)), "{tree}: want {path}: {msg}; got {e:?}");
    }
}

#[test]
fn names_and_membership_are_checked() {
    let (path, msg) = one_error(
        "  - {name: g, budget: 2ms, period: 10ms, tasks: [a]}\n  - name: h\n    budget: 2ms\n    period: 10ms\n    groups: [{name: g, budget: 1ms, period: 10ms, tasks: [b]}]\n",
    );
    assert_eq!(path, "reservations[1].groups[0].name");
    assert!(msg.contains("already the name of reservations[0]"), "{msg}");
    let (path, msg) = one_error("  - {name: g, budget: 2ms, period: 10ms, tasks: [a, zz]}\n");
    assert_eq!(path, "reservations[0].tasks[1]");
    assert!(msg.contains("no task is named `zz`; the tasks are a, b, c"), "{msg}");
    let (path, msg) =
        one_error("  - {name: g, budget: 2ms, period: 10ms, tasks: [a]}\n  - {name: h, budget: 2ms, period: 10ms, tasks: [b, a]}\n");
    assert_eq!(path, "reservations[1].tasks[1]");
    assert!(msg.contains("already in a group (reservations[0].tasks[0])"), "{msg}");
    let e = load_str(&format!("platform: {{cpus: 1}}\n{TASKS}reservations: []\n"), None, "t.yaml").unwrap_err();
    assert_eq!(e.first().path, "reservations");
}

#[test]
fn bandwidth_is_bounded_per_cpu_at_each_level() {
    // Top level: 0.6 + 0.5 on each CPU.
    let (path, msg) = one_error(
        "  - {name: g, budget: 6ms, period: 10ms, tasks: [a]}\n  - {name: h, budget: 10ms, period: 20ms, tasks: [b]}\n",
    );
    assert_eq!(path, "reservations");
    assert!(msg.contains("CPU 0: 1.1000") && msg.contains("CPU 1: 1.1000"), "{msg}");
    // Per-CPU budgets: only CPU 1 is over (0.6 + 0.5), CPU 0 has 0.1 + 0.5.
    let (path, msg) = one_error(
        "  - {name: g, budgets: [1ms, 6ms], period: 10ms, tasks: [a]}\n  - {name: h, budget: 10ms, period: 20ms, tasks: [b]}\n",
    );
    assert_eq!(path, "reservations");
    assert!(msg.contains("CPU 1: 1.1000") && !msg.contains("CPU 0"), "{msg}");
    // Exactly 1 is accepted (exact arithmetic: 1/3 + 1/3 + 1/3).
    load("  - {name: g, budget: 1ms, period: 3ms, tasks: [a]}\n  - {name: h, budget: 1ms, period: 3ms, tasks: [b]}\n  - {name: k, budget: 1ms, period: 3ms, tasks: [c]}\n").unwrap();
    // Inside a group: the children and the leaf queue within the parent's 0.5.
    let (path, msg) = one_error(
        "  - name: g\n    budget: 5ms\n    period: 10ms\n    tasks: [a]\n    leaf_budget: 2ms\n    groups: [{name: k, budget: 4ms, period: 10ms, tasks: [b]}]\n",
    );
    assert_eq!(path, "reservations[0].groups");
    assert!(msg.contains("subgroups and the leaf queue of `g`") && msg.contains("CPU 0: 0.6000"), "{msg}");
    // Nested two deep: the grandchild over its parent's bandwidth.
    let (path, _) = one_error(
        "  - name: g\n    budget: 5ms\n    period: 10ms\n    groups:\n      - name: k\n        budget: 2ms\n        period: 10ms\n        groups: [{name: z, budget: 3ms, period: 10ms, tasks: [b]}]\n",
    );
    assert_eq!(path, "reservations[0].groups[0].groups");
    // A child on a CPU where its parent has no server.
    let (path, msg) = one_error(
        "  - name: g\n    budgets: [5ms, 0ms]\n    period: 10ms\n    groups: [{name: k, budget: 1ms, period: 10ms, tasks: [b]}]\n",
    );
    assert_eq!(path, "reservations[0].groups");
    assert!(msg.contains("CPU 1") && !msg.contains("CPU 0"), "{msg}");
}
