//! Colour-aware partitioning (CAP, CAP-GS) through `partition`, `analyze`
//! and `simulate`: the EPOS thesis' Tables 14 and 15, the same placement in
//! every verb, and constraint violations as bad input (exit 2).

use std::path::PathBuf;
use std::process::{Command, Output};

fn schedlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_schedlab")).args(args).output().expect("run schedlab")
}

fn text(b: &[u8]) -> String {
    String::from_utf8(b.to_vec()).unwrap()
}

fn example(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples").join(name).to_str().unwrap().to_string()
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}{}", text(&o.stdout), text(&o.stderr)))
}

/// Each CPU's task names from a `colour` JSON section.
fn colour_cpus(v: &serde_json::Value) -> Vec<Vec<String>> {
    v["colour"]["cpus"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["tasks"].as_array().unwrap().iter().map(|t| t.as_str().unwrap().to_string()).collect())
        .collect()
}

#[test]
fn table_14_partition_prints_the_groups_and_each_cpus_colours() {
    let o = schedlab(&["partition", &example("cap-table14.yaml")]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("pedf.qpa by cap (schedulable)"), "{out}");
    assert!(out.contains("group G0: {T0, T1, T2, T3, T4}"), "{out}");
    assert!(out.contains("CPU 0: T0, T1, T2, T3, T4 (load 0.985), colours 0-1, 3-5"), "{out}");
    assert!(out.contains("CPU 1: T6, T7 (load 0.74), colours 7-10"), "{out}");
    assert!(out.contains("CPU 2: T5 (load 0.52), colours 6"), "{out}");
    let v = json(&schedlab(&["partition", &example("cap-table14.yaml"), "--json"]));
    assert_eq!(v["heuristic"], "cap");
    assert_eq!(v["colour"]["scheme"], "cap");
    assert_eq!(colour_cpus(&v), [vec!["T0", "T1", "T2", "T3", "T4"], vec!["T6", "T7"], vec!["T5"]]);
    assert_eq!(v["colour"]["cpus"][1]["colors"], serde_json::json!([7, 8, 9, 10]));
    // Plain WFD, asked for, splits T6 and T7.
    let v = json(&schedlab(&["partition", &example("cap-table14.yaml"), "--heuristic", "wfd", "--json"]));
    assert_eq!(v["heuristic"], "wfd");
    assert!(v["colour"].is_null());
    let bins: Vec<Vec<String>> = v["bins"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["tasks"].as_array().unwrap().iter().map(|t| t.as_str().unwrap().to_string()).collect())
        .collect();
    assert_eq!(bins, [vec!["T3", "T4", "T6"], vec!["T5", "T7"], vec!["T0", "T1", "T2"]]);
}

#[test]
fn table_15_partition_analyze_and_simulate_agree_on_cap_gs() {
    let spec = example("cap-gs-table15.yaml");
    let v = json(&schedlab(&["partition", &spec, "--json"]));
    assert_eq!(v["heuristic"], "cap-gs");
    assert_eq!(colour_cpus(&v), [vec!["T1", "T0", "T2"], vec!["T3", "T5", "T6"], vec!["T8", "T4", "T7", "T9"]]);
    assert_eq!(v["colour"]["split"], serde_json::json!(["T8"]));
    let a = schedlab(&["analyze", &spec, "--json"]);
    assert_eq!(a.status.code(), Some(0), "{}{}", text(&a.stdout), text(&a.stderr));
    assert_eq!(colour_cpus(&json(&a)), colour_cpus(&v));
    // The simulated schedule runs each task on the CPU CAP-GS gave it.
    let dir = std::env::temp_dir().join(format!("schedlab-colour-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("t.jsonl");
    let s = schedlab(&["simulate", &spec, "--horizon", "60ms", "--trace", trace.to_str().unwrap()]);
    assert_eq!(s.status.code(), Some(0), "{}", text(&s.stderr));
    let want = [0, 0, 0, 1, 2, 1, 1, 2, 2, 2];
    let mut seen = 0;
    for line in std::fs::read_to_string(&trace).unwrap().lines() {
        let e: serde_json::Value = serde_json::from_str(line).unwrap();
        if e["ev"] == "switch-to" {
            let task = e["task"].as_u64().unwrap() as usize;
            assert_eq!(e["cpu"].as_u64().unwrap(), want[task], "{line}");
            seen += 1;
        }
    }
    assert!(seen > 20, "{seen} switches");
}

#[test]
fn constraint_violations_are_bad_input_naming_the_tasks_and_the_fix() {
    let spec = example("cap-gs-table15.yaml");
    // CAP keeps {T3, T5, T6, T8} (0.8) on one CPU of capacity 0.75.
    for verb in ["partition", "analyze", "simulate"] {
        let o = schedlab(&[verb, &spec, "--set", "partitioning=cap"]);
        assert_eq!(o.status.code(), Some(2), "{verb}: {}", text(&o.stdout));
        let err = text(&o.stderr);
        assert!(err.contains("tasks[3].colors: the tasks {T3, T5, T6, T8} share colours"), "{verb}: {err}");
        assert!(err.contains("Eq. 7.3") && err.contains("cap-gs"), "{verb}: {err}");
    }
    // Memory per colour (Eq. 7.4).
    let o = schedlab(&["partition", &example("cap-table14.yaml"), "--set", "memory_total=2MiB", "--json"]);
    assert_eq!(o.status.code(), Some(2));
    let e = json(&o);
    assert_eq!(e["error"]["path"], "policy.memory_total");
    assert!(e["error"]["message"].as_str().unwrap().contains("colour 1"), "{e}");
    // An option of CAP without CAP.
    let o =
        schedlab(&["partition", &example("cap-table14.yaml"), "--set", "partitioning=wfd", "--set", "capacity=0.7"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("policy.capacity: applies to colour-aware partitioning only"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn partition_output_pins_reproduce_the_placement() {
    let dir = std::env::temp_dir().join(format!("schedlab-colour-pins-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("pinned.yaml");
    let o = schedlab(&["partition", &example("cap-gs-table15.yaml"), "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let pinned = std::fs::read_to_string(&out).unwrap();
    assert!(pinned.contains("partitioning: cap-gs"), "{pinned}");
    let v = json(&schedlab(&["partition", out.to_str().unwrap(), "--json"]));
    let mut cpus = colour_cpus(&v);
    for c in &mut cpus {
        c.sort();
    }
    assert_eq!(cpus, [vec!["T0", "T1", "T2"], vec!["T3", "T5", "T6"], vec!["T4", "T7", "T8", "T9"]]);
}

#[test]
fn set_takes_the_throttles_numbers_and_lists() {
    let spec = example("cap-gs-dynamic.yaml");
    for set in [["threshold=5000", "throttle=yield"], ["throttle_range=[1, 2]", "quantum=5ms"]] {
        let o = schedlab(&["simulate", &spec, "--horizon", "50ms", "--set", set[0], "--set", set[1]]);
        assert_eq!(o.status.code(), Some(0), "{set:?}: {}", text(&o.stderr));
    }
    let o = schedlab(&["simulate", &spec, "--set", "threshold=many"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("threshold=many"), "{}", text(&o.stderr));
}
