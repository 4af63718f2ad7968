//! Segmented tasks (`segments`, `subjobs`): the checks name each bad segment
//! by its path and say the fix, `wcet` is derived from the segments when left
//! out, and a spec with segments is written back as it was read.

use schedlab_model::emit::{to_json, to_yaml};
use schedlab_model::{load_str, Diagnostic, Duration, Format, SegmentKind, Spec};

fn spec(tasks: &str) -> String {
    format!("platform: {{cpus: 1}}\npolicy: {{name: pfp}}\ntasks:\n{tasks}")
}

fn load(tasks: &str) -> Result<(Spec, Vec<Diagnostic>), Vec<Diagnostic>> {
    load_str(&spec(tasks), None, "t.yaml").map(|l| (l.spec, l.warnings)).map_err(|e| e.diagnostics)
}

/// The one error of a bad spec: (line, path, message).
fn error(tasks: &str) -> (usize, String, String) {
    let e = load(tasks).expect_err(tasks);
    assert_eq!(e.len(), 1, "{e:?}");
    (e[0].line.unwrap(), e[0].path.clone(), e[0].message.clone())
}

#[test]
fn bad_segments_are_named_by_path_with_the_fix() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "  - {name: a, wcet: 3ms, period: 10ms}\n  - name: b\n    period: 10ms\n    segments: [{exec: 1ms}, {memory: 0}, {exec: 1ms}]\n",
            "tasks[1].segments[1].memory",
            "must be more than 0",
        ),
        ("  - {name: a, period: 10ms, segments: [{suspend: 0}, {exec: 1ms}]}\n", "tasks[0].segments[0].suspend", "remove the segment"),
        ("  - {name: a, period: 10ms, subjobs: [1ms, 0, 2ms]}\n", "tasks[0].subjobs[1]", "must be more than 0"),
        ("  - {name: a, period: 10ms, segments: []}\n", "tasks[0].segments", "is empty"),
        ("  - {name: a, wcet: 1ms, period: 10ms, subjobs: []}\n", "tasks[0].subjobs", "is empty"),
        (
            "  - {name: a, period: 10ms, segments: [{exec: 1ms}], subjobs: [1ms]}\n",
            "tasks[0].subjobs",
            "cannot be given with `segments`",
        ),
        ("  - {name: a, period: 10ms, segments: [{suspend: 1ms}, {suspend: 2ms}]}\n", "tasks[0].segments", "only suspensions"),
        (
            "  - {name: a, wcet: 3ms, period: 10ms, segments: [{memory: 300us}, {suspend: 1ms}, {exec: 2ms}]}\n",
            "tasks[0].wcet",
            "is 3ms but the CPU segments add up to 2.3ms",
        ),
        ("  - {name: a, wcet: 3ms, period: 10ms, subjobs: [1ms, 1ms]}\n", "tasks[0].wcet", "subjobs add up to 2ms"),
        ("  - {name: a, wcet: 0, period: 10ms, subjobs: [1ms, 1ms]}\n", "tasks[0].wcet", "leave it out"),
        ("  - {name: a, period: 10ms}\n", "tasks[0]", "the required key `wcet` is missing"),
        (
            "  - {name: a, period: 10ms, subjobs: [18446744073709551615ns, 1ns]}\n",
            "tasks[0].subjobs",
            "more than the largest duration",
        ),
    ];
    for (tasks, path, want) in cases {
        let (_, got_path, msg) = error(tasks);
        assert_eq!(&got_path, path, "{tasks}: {msg}");
        assert!(msg.contains(want), "{tasks}: {msg}");
    }
    // The position is the bad segment's line.
    let (line, _, _) = error(cases[0].0);
    assert_eq!(line, 7);
}

#[test]
fn wcet_is_the_cpu_total_of_the_segments() {
    let (s, _) = load(
        "  - {name: a, period: 10ms, segments: [{memory: 300us}, {exec: 2.4ms, preemptible: false}, {suspend: 1ms}, {memory: 300us}]}\n  - {name: b, period: 10ms, subjobs: [1ms, 1.5ms, 0.5ms]}\n  - {name: c, wcet: 3ms, bcet: 1ms, period: 10ms, subjobs: [2ms, 1ms]}\n",
    )
    .unwrap();
    assert_eq!(s.tasks[0].wcet, Duration(3_000_000));
    assert_eq!(s.tasks[1].wcet, Duration(3_000_000));
    assert_eq!(s.tasks[2].wcet, Duration(3_000_000));
    // A bcet is checked against the derived WCET.
    let (_, path, msg) = error("  - {name: a, bcet: 4ms, period: 10ms, subjobs: [2ms, 1ms]}\n");
    assert_eq!(path, "tasks[0].bcet");
    assert!(msg.contains("exceeds the WCET 3ms"), "{msg}");
}

#[test]
fn suspensions_count_against_the_deadline() {
    let (_, w) =
        load("  - {name: a, period: 10ms, deadline: 4ms, segments: [{exec: 2ms}, {suspend: 3ms}, {exec: 1ms}]}\n")
            .unwrap();
    let w: Vec<_> = w.iter().filter(|d| d.message.contains("with their suspensions")).collect();
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0].path, "tasks[0].segments");
    assert!(w[0].message.contains("take 6ms") && w[0].message.contains("deadline 4ms"), "{}", w[0].message);
    let (_, w) = load("  - {name: a, period: 10ms, segments: [{exec: 2ms}, {suspend: 3ms}]}\n").unwrap();
    assert!(w.iter().all(|d| !d.message.contains("with their suspensions")), "{w:?}");
}

#[test]
fn a_policy_that_does_not_run_suspensions_or_regions_says_so() {
    let (_, w) = load("  - {name: a, period: 10ms, segments: [{exec: 1ms}, {suspend: 1ms}, {exec: 1ms, preemptible: false}]}\n  - {name: b, period: 10ms, segments: [{memory: 1ms}, {exec: 1ms}]}\n  - {name: c, period: 10ms, subjobs: [1ms, 1ms]}\n").unwrap();
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0].path, "tasks[0].segments");
    assert!(
        w[0].message.contains("`pfp` runs self-suspensions only in a simulation and on `schedlab run --backend dispatch` (the kernel backend runs the job's CPU segments back to back), and non-preemptive segments nowhere"),
        "{}",
        w[0].message
    );
    // Without a policy nothing runs: no notice.
    let text = "platform: {cpus: 1}\ntasks:\n  - {name: a, period: 10ms, segments: [{exec: 1ms}, {suspend: 1ms}]}\n";
    assert!(load_str(text, None, "t.yaml").unwrap().warnings.is_empty());
}

#[test]
fn segments_are_written_back_as_read() {
    let text = spec("  - {name: a, period: 10ms, segments: [{memory: 300us}, {exec: 2.4ms, preemptible: false}, {suspend: 1ms}, {memory: 300us}], priority: 2}\n  - {name: b, period: 20ms, subjobs: [1ms, 1.5ms, 0.5ms], priority: 1}\n");
    let first = load_str(&text, None, "t.yaml").unwrap().spec;
    for (out, format) in [(to_yaml(&first), Format::Yaml), (to_json(&first), Format::Json)] {
        let again = load_str(&out, Some(format), "again").unwrap().spec;
        assert_eq!(again, first, "{out}");
        assert_eq!(
            again.tasks[0].segments().iter().map(|s| s.kind).collect::<Vec<_>>(),
            [SegmentKind::Memory, SegmentKind::Exec, SegmentKind::Suspend, SegmentKind::Memory]
        );
        assert!(!again.tasks[0].segments()[1].preemptible);
        assert_eq!(again.tasks[1].subjobs.as_ref().map(Vec::len), Some(3), "subjobs stay in their short form");
        // The derived WCET is written out, and agrees with the segments.
        assert!(out.contains("3ms"), "{out}");
    }
}
