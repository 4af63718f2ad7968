//! Every kind of bad spec is rejected with the field path, the position and
//! what would be valid.

use schedlab_model::{load_str, Format, SpecError};

fn err(text: &str) -> SpecError {
    match load_str(text, None, "t.yaml") {
        Ok(l) => panic!("accepted: {text}\n{:?}", l.spec),
        Err(e) => e,
    }
}

/// The first diagnostic as `line:col path: message`.
fn first(text: &str) -> (usize, usize, String, String) {
    let e = err(text);
    let d = e.first().clone();
    (d.line.unwrap_or(0), d.column.unwrap_or(0), d.path, d.message)
}

const OK: &str = "platform: {cpus: 2}\ntasks:\n  - {name: a, wcet: 1ms, period: 10ms}\n";

#[test]
fn a_valid_spec_loads_in_both_formats() {
    let y = load_str(OK, None, "t.yaml").unwrap();
    let j = load_str(
        r#"{"platform": {"cpus": 2}, "tasks": [{"name": "a", "wcet": "1ms", "period": "10ms"}]}"#,
        None,
        "t.json",
    )
    .unwrap();
    assert_eq!(y.spec, j.spec);
    assert_eq!(y.spec.tasks[0].wcet.0, 1_000_000);
    assert_eq!(y.spec.tasks[0].deadline().0, 10_000_000);
}

#[test]
fn unknown_keys_get_a_did_you_mean_hint() {
    let (l, c, path, msg) = first("platform: {cpus: 2}\ntasks:\n  - {name: a, wcet: 1ms, perod: 10ms}\n");
    assert_eq!((l, c), (3, 26));
    assert_eq!(path, "tasks[0].perod");
    assert!(msg.contains("did you mean `period`"), "{msg}");
    let (_, _, path, msg) = first("platfrom: {cpus: 2}\ntasks: []\n");
    assert_eq!(path, "platfrom");
    assert!(msg.contains("did you mean `platform`"), "{msg}");
    let (_, _, path, msg) =
        first("platform: {cpus: 2}\npolicy: {name: gefd}\ntasks:\n  - {name: a, wcet: 1ms, period: 10ms}\n");
    assert_eq!(path, "policy.name");
    assert!(msg.contains("did you mean `gedf`"), "{msg}");
}

#[test]
fn missing_required_keys_point_at_their_parent() {
    let (l, _, path, msg) = first("platform: {cpus: 2}\ntasks:\n  - name: a\n    wcet: 1ms\n");
    assert_eq!(l, 3);
    assert_eq!(path, "tasks[0]");
    assert!(msg.contains("`period`"), "{msg}");
}

#[test]
fn units_are_exact_and_required() {
    let cases = [
        ("wcet: 2.5ns", "whole number"),
        ("wcet: 10", "no unit"),
        ("wcet: 1.5", "no unit"),
        ("wcet: -1ms", "negative"),
        ("wcet: 3parsecs", "unknown unit"),
        ("wcet: 99999999999999999999999s", "too large"),
        ("wcet: 18446744073709551616ns", "too large"),
        ("wcet: 100000000000000000000000000000000000000000", "no unit"),
        ("wss: 64KB", "KiB"),
        ("wss: 0.5B", "whole number"),
    ];
    for (field, want) in cases {
        let text = format!("platform: {{cpus: 2, cache: {{size: 8MiB, ways: 16, line: 64B}}}}\ntasks:\n  - {{name: a, period: 10ms, {}{}}}\n", field, if field.starts_with("wcet") { "" } else { ", wcet: 1ms" });
        let (l, _, path, msg) = first(&text);
        assert_eq!(l, 3, "{field}");
        assert_eq!(path, format!("tasks[0].{}", field.split(':').next().unwrap()), "{field}");
        assert!(msg.contains(want), "{field}: {msg}");
    }
}

#[test]
fn semantic_constraints() {
    let cases: &[(&str, &str, &str)] = &[
        ("platform: {cpus: 0}\ntasks:\n  - {name: a, wcet: 1ms, period: 10ms}\n", "platform.cpus", "between 1"),
        ("platform: {cpus: 2}\ntasks:\n  - {name: a, wcet: 0ms, period: 10ms}\n", "tasks[0].wcet", "more than 0"),
        ("platform: {cpus: 2}\ntasks:\n  - {name: a, wcet: 1ms, period: 0}\n", "tasks[0].period", "more than 0"),
        ("platform: {cpus: 2}\ntasks:\n  - {name: a, wcet: 1ms, period: 10ms, cpu: 2}\n", "tasks[0].cpu", "does not exist"),
        ("platform: {cpus: 2}\ntasks:\n  - {name: a, wcet: 1ms, period: 10ms}\n  - {name: a, wcet: 1ms, period: 10ms}\n", "tasks[1].name", "unique"),
        ("platform: {cpus: 4, clusters: [[0, 1], [1, 2, 3]]}\ntasks:\n  - {name: a, wcet: 1ms, period: 10ms}\n", "platform.clusters[1][0]", "already in cluster 0"),
        ("platform: {cpus: 4, clusters: [[0, 1], [2]]}\ntasks:\n  - {name: a, wcet: 1ms, period: 10ms}\n", "platform.clusters", "3 are in no cluster"),
        ("platform: {cpus: 4, clusters: [[0, 1], [2, 3]]}\ntasks:\n  - {name: a, wcet: 1ms, period: 10ms, cluster: 1, cpu: 0}\n", "tasks[0].cpu", "not in the task's cluster 1"),
        ("platform: {cpus: 4}\ntasks:\n  - {name: a, wcet: 1ms, period: 10ms, cluster: 0}\n", "tasks[0].cluster", "needs `platform.clusters`"),
        ("platform: {cpus: 4}\ntasks:\n  - {name: a, wcet: 1ms, period: 10ms, colors: [0-3]}\n", "tasks[0].colors", "needs `platform.cache`"),
        ("platform: {cpus: 4, cache: {size: 8MiB, ways: 16, line: 64B}}\ntasks:\n  - {name: a, wcet: 1ms, period: 10ms, colors: [0-15, 128]}\n", "tasks[0].colors", "colour 128 does not exist"),
        ("platform: {cpus: 4, cache: {size: 8MiB, ways: 16, line: 60B}}\ntasks:\n  - {name: a, wcet: 1ms, period: 10ms}\n", "platform.cache.line", "power of two"),
        ("platform: {cpus: 4}\npolicy: {name: cedf}\ntasks:\n  - {name: a, wcet: 1ms, period: 10ms}\n", "policy.name", "needs `platform.clusters`"),
        ("platform: {cpus: 4}\npolicy: {name: gedf, partitioning: ffd}\ntasks:\n  - {name: a, wcet: 1ms, period: 10ms}\n", "policy.partitioning", "global policy"),
        ("platform: {cpus: 4}\npolicy: {name: pfp, priorities: explicit}\ntasks:\n  - {name: a, wcet: 1ms, period: 10ms}\n", "tasks[0].priority", "required"),
        ("platform: {cpus: 4}\ntasks: []\n", "tasks", "empty"),
        ("platform: {cpus: 4}\ntasks:\n  - {name: \"\", wcet: 1ms, period: 10ms}\n", "tasks[0].name", "empty"),
        ("platform: {cpus: 4}\ntasks:\n  - {name: a, wcet: 1ms, period: 10ms, class: hard}\n", "tasks[0].class", "valid values"),
        ("platform: {cpus: 4}\ntasks:\n  - {name: a, wcet: 1ms, period: 10ms, colors: [5-1]}\n", "tasks[0].colors[0]", "empty"),
        ("platform: {cpus: -1}\ntasks: []\n", "platform.cpus", "out of range"),
        ("platform: {cpus: 4294967296}\ntasks: []\n", "platform.cpus", "out of range"),
        ("platform: {cpus: four}\ntasks: []\n", "platform.cpus", "expected u32"),
        ("platform: [4]\ntasks: []\n", "platform", "mapping"),
        ("platform: {cpus: 2}\npolicy: {name: ca-gedf}\ntasks:\n  - {name: a, wcet: 1ms, period: 10ms}\n", "platform.cache", "`ca-gedf` needs the shared cache"),
        ("platform: {cpus: 2, cache: {size: 1MiB, ways: 16, line: 64B}}\npolicy: {name: ca-gedf, cache_policy: 6}\ntasks:\n  - {name: a, wcet: 1ms, period: 10ms}\n", "policy.cache_policy", "use 1 to 5"),
        ("platform: {cpus: 2, cache: {size: 1MiB, ways: 16, line: 64B}}\npolicy: {name: ca-gedf, promotion_duration: 0}\ntasks:\n  - {name: a, wcet: 1ms, period: 10ms}\n", "policy.promotion_duration", "use 1 or 2"),
        ("platform: {cpus: 2, cache: {size: 1MiB, ways: 16, line: 64B}}\npolicy: {name: ca-gedf, lost_cause_policy: 2}\ntasks:\n  - {name: a, wcet: 1ms, period: 10ms}\n", "policy.lost_cause_policy", "without `lost_cause_threshold`"),
        ("platform: {cpus: 2, cache: {size: 1MiB, ways: 16, line: 64B}}\npolicy: {name: ca-gedf, quantum: 0ms}\ntasks:\n  - {name: a, wcet: 1ms, period: 10ms}\n", "policy.quantum", "more than 0"),
    ];
    for (text, path, want) in cases {
        let e = err(text);
        let d = e.diagnostics.iter().find(|d| d.path == *path).unwrap_or_else(|| panic!("{path} not in {e}"));
        assert!(d.message.contains(want), "{path}: {}", d.message);
        assert!(d.line.is_some(), "{path} has no line");
    }
}

#[test]
fn infeasible_input_is_legal_but_warned() {
    let l = load_str(
        "platform: {cpus: 1}\ntasks:\n  - {name: a, wcet: 5ms, period: 10ms, deadline: 4ms}\n  - {name: b, wcet: 7ms, period: 10ms}\n",
        None,
        "t.yaml",
    )
    .unwrap();
    let w: Vec<String> = l.warnings.iter().map(|d| format!("{} {}", d.path, d.message)).collect();
    assert!(w.iter().any(|x| x.starts_with("tasks[0].wcet") && x.contains("exceeds the deadline")), "{w:?}");
    assert!(w.iter().any(|x| x.starts_with("tasks ") && x.contains("exceeds the 1 CPUs")), "{w:?}");
    assert_eq!(l.warnings[0].line, Some(3));
}

#[test]
fn exact_utilisation_at_the_boundary_is_not_warned() {
    // 1/3 + 1/3 + 1/3 = 1 exactly: no "exceeds" warning.
    let l = load_str(
        "platform: {cpus: 1}\ntasks:\n  - {name: a, wcet: 1ms, period: 3ms}\n  - {name: b, wcet: 1ms, period: 3ms}\n  - {name: c, wcet: 1ms, period: 3ms}\n",
        None,
        "t.yaml",
    )
    .unwrap();
    assert!(l.warnings.is_empty(), "{:?}", l.warnings);
}

#[test]
fn syntax_errors_carry_positions() {
    let e = err("platform:\n  cpus: [1, 2\ntasks: []\n");
    assert!(e.first().line.is_some());
    assert!(e.first().message.contains("not valid YAML"));
    let e = load_str("{\"platform\": {\"cpus\": 2},\n \"tasks\": [}", Some(Format::Json), "t.json").unwrap_err();
    assert_eq!(e.first().line, Some(2));
    assert!(e.to_string().starts_with("t.json:2:"), "{e}");
}

#[test]
fn optional_fields_and_colour_ranges() {
    let l = load_str(
        "platform: {cpus: 4, clusters: [[0, 1], [2, 3]], cache: {size: 8MiB, ways: 16, line: 64B}}\npolicy: {name: pfp, priorities: explicit, partitioning: ffd}\novertime: 1\n",
        None,
        "t.yaml",
    );
    assert!(l.is_err());
    let l = load_str(
        "platform: {cpus: 4, clusters: [[0, 1], [2, 3]], cache: {size: 8MiB, ways: 16, line: 64B}}\npolicy: {name: pfp, priorities: explicit, partitioning: ffd}\ntasks:\n  - {name: a, wcet: 1ms, period: 10ms, priority: 2, cpu: 3, cluster: 1, offset: 1ms, jitter: 100us, wss: 1.5MiB, colors: [0-15, 32, 127], class: srt}\n",
        None,
        "t.yaml",
    )
    .unwrap();
    let t = &l.spec.tasks[0];
    assert_eq!(t.colors.as_ref().unwrap().count(), 18);
    assert_eq!(t.wss.unwrap().0, 1_572_864);
    assert_eq!(t.jitter.0, 100_000);
    assert_eq!(l.spec.platform.cache.as_ref().unwrap().colors(), 128);
}

/// The platform model's fields: every one optional, each bad value named by
/// its path with the fix.
#[test]
fn platform_model_fields() {
    const CACHE: &str = "cache: {size: 8MiB, ways: 16, line: 64B";
    let l = load_str(
        &format!("platform: {{cpus: 4, {CACHE}, shared_by: [[0, 1], [2, 3]], private: 256KiB}}, memory: {{bandwidth: 16GiB/s}}}}\ntasks:\n  - {{name: a, wcet: 1ms, period: 10ms, wss: 64KiB, write_ratio: 0.2, data_group: g0}}\n  - {{name: b, wcet: 1ms, period: 10ms, write_ratio: 33%}}\n"),
        None,
        "t.yaml",
    )
    .unwrap();
    let p = &l.spec.platform;
    assert_eq!(p.cache.as_ref().unwrap().instances(4), vec![vec![0, 1], vec![2, 3]]);
    assert_eq!(p.cache.as_ref().unwrap().private.unwrap().0, 256 << 10);
    assert_eq!(p.memory.as_ref().unwrap().bandwidth.unwrap().0, 16 << 30);
    assert_eq!(l.spec.tasks[0].write_ratio().millionths(), 200_000);
    assert_eq!(l.spec.tasks[1].write_ratio().millionths(), 330_000);
    assert_eq!(l.spec.tasks[0].data_group.as_deref(), Some("g0"));
    // Defaults: one cache shared by all CPUs, no writes, no group.
    let d = load_str(
        &format!("platform: {{cpus: 3, {CACHE}}}}}\ntasks:\n  - {{name: a, wcet: 1ms, period: 10ms}}\n"),
        None,
        "t.yaml",
    )
    .unwrap();
    assert_eq!(d.spec.platform.cache.as_ref().unwrap().instances(3), vec![vec![0, 1, 2]]);
    assert_eq!(d.spec.tasks[0].write_ratio().millionths(), 0);
    let task = "tasks:\n  - {name: a, wcet: 1ms, period: 10ms";
    let cases: Vec<(String, &str, &str)> = vec![
        (
            format!("platform: {{cpus: 4, {CACHE}, shared_by: [[0, 1], [1, 2, 3]]}}}}\n{task}}}\n"),
            "platform.cache.shared_by[1][0]",
            "already in",
        ),
        (
            format!("platform: {{cpus: 4, {CACHE}, shared_by: [[0, 1], [2]]}}}}\n{task}}}\n"),
            "platform.cache.shared_by",
            "3 are in no list",
        ),
        (
            format!("platform: {{cpus: 4, {CACHE}, shared_by: [[0, 1, 2, 3, 4]]}}}}\n{task}}}\n"),
            "platform.cache.shared_by[0][4]",
            "does not exist",
        ),
        (format!("platform: {{cpus: 4, {CACHE}, private: 0}}}}\n{task}}}\n"), "platform.cache.private", "more than 0"),
        (
            format!("platform: {{cpus: 4, {CACHE}}}, memory: {{bandwidth: 0B/s}}}}\n{task}}}\n"),
            "platform.memory.bandwidth",
            "more than 0",
        ),
        (
            format!("platform: {{cpus: 4, {CACHE}}}, memory: {{bandwidth: 16GiB}}}}\n{task}}}\n"),
            "platform.memory.bandwidth",
            "per second",
        ),
        (
            format!("platform: {{cpus: 4, memory: {{bandwidth: 16GiB/s}}}}\n{task}}}\n"),
            "platform.memory.bandwidth",
            "needs `platform.cache`",
        ),
        (
            format!("platform: {{cpus: 4, {CACHE}}}}}\n{task}, write_ratio: 1.2}}\n"),
            "tasks[0].write_ratio",
            "more than 1",
        ),
        (
            format!("platform: {{cpus: 4, {CACHE}}}}}\n{task}, write_ratio: 120%}}\n"),
            "tasks[0].write_ratio",
            "more than 1",
        ),
        (
            format!("platform: {{cpus: 4}}\n{task}, write_ratio: 0.2}}\n"),
            "tasks[0].write_ratio",
            "needs `platform.cache`",
        ),
        (format!("platform: {{cpus: 4}}\n{task}, data_group: g0}}\n"), "tasks[0].data_group", "needs `platform.cache`"),
        (
            format!("platform: {{cpus: 4, {CACHE}}}}}\n{task}, data_group: \" \"}}\n"),
            "tasks[0].data_group",
            "printable",
        ),
    ];
    for (text, path, want) in &cases {
        let e = err(text);
        let d = e.diagnostics.iter().find(|d| d.path == *path).unwrap_or_else(|| panic!("{path} not in {e}"));
        assert!(d.message.contains(want), "{path}: {}", d.message);
    }
}
