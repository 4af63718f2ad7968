//! `schedlab analyze` and `schedlab tests` end to end.

use std::path::PathBuf;
use std::process::{Command, Output};

fn schedlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_schedlab")).args(args).output().expect("run schedlab")
}

fn text(b: &[u8]) -> String {
    String::from_utf8(b.to_vec()).unwrap()
}

fn write(name: &str, body: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("schedlab-analyze-test-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let p = d.join(name);
    std::fs::write(&p, body).unwrap();
    p
}

const FULL: &str = "platform: {cpus: 2}\npolicy: {name: run}\ntasks:\n- {name: a, wcet: 2ms, period: 3ms}\n- {name: b, wcet: 2ms, period: 3ms}\n- {name: c, wcet: 2ms, period: 3ms}\n";

#[test]
fn tests_lists_the_registry() {
    let o = schedlab(&["tests", "--json"]);
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let ids: Vec<&str> = v.as_array().unwrap().iter().map(|t| t["id"].as_str().unwrap()).collect();
    assert!(ids.contains(&"run.feasibility") && ids.contains(&"pfair.pd2"), "{ids:?}");
    assert!(text(&schedlab(&["tests"]).stdout).contains("run.feasibility"));
}

#[test]
fn analyze_explains_the_verdict_and_exit_code_follows_it() {
    let spec = write("full.yaml", FULL);
    let o = schedlab(&["analyze", spec.to_str().unwrap(), "--explain"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("run.feasibility") && out.contains("schedulable") && out.contains("slack 0"), "{out}");
    assert!(out.trim_end().ends_with("proven: `run.feasibility` shows every deadline is met under run"), "{out}");
    let v: serde_json::Value =
        serde_json::from_slice(&schedlab(&["analyze", spec.to_str().unwrap(), "--json"]).stdout).unwrap();
    assert_eq!(v["schedulable"], true);
    assert_eq!(v["outcomes"][0]["value"]["exact"], "2/1");
}

#[test]
fn overheads_are_charged_before_the_tests() {
    let spec = write("full-oh.yaml", FULL);
    let csv = write("oh.csv", "TASK-COUNT,SCHEDULE\n1,1\n");
    let o = schedlab(&[
        "analyze",
        spec.to_str().unwrap(),
        "--overheads",
        csv.to_str().unwrap(),
        "--tick",
        "0",
        "--explain",
    ]);
    assert_eq!(o.status.code(), Some(1), "no test proves it schedulable: {}", text(&o.stdout));
    let out = text(&o.stdout);
    assert!(out.contains("wcet 2ms -> 2.002ms") && out.contains("unschedulable"), "{out}");
}

#[test]
fn bad_input_exits_2_and_names_the_problem() {
    let spec = write("full-bad.yaml", FULL);
    let o = schedlab(&["analyze", spec.to_str().unwrap(), "--test", "run.feasibilty"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("did you mean `run.feasibility`"), "{}", text(&o.stderr));
    let o = schedlab(&["analyze", spec.to_str().unwrap(), "--accounting", "magic"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("per-task-release"));
    let o = schedlab(&["analyze", spec.to_str().unwrap(), "--overheads", "/nonexistent.csv"]);
    assert_eq!(o.status.code(), Some(2));
    let broken = write("broken.yaml", "platform: {cpus: 0}\ntasks: []\n");
    assert_eq!(schedlab(&["analyze", broken.to_str().unwrap()]).status.code(), Some(2));
}

const PARTITIONED: &str = "platform: {cpus: 2}\npolicy: {name: pedf}\ntasks:\n- {name: a, wcet: 6ms, period: 10ms}\n- {name: b, wcet: 6ms, period: 10ms}\n- {name: c, wcet: 3ms, period: 10ms, cpu: 1}\n- {name: d, wcet: 3ms, period: 10ms}\n";

#[test]
fn partition_respects_pins_and_writes_them_back() {
    let spec = write("part.yaml", PARTITIONED);
    let out = spec.with_file_name("pinned.yaml");
    let o =
        schedlab(&["partition", spec.to_str().unwrap(), "--heuristic", "ffd", "-o", out.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", text(&o.stdout), text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["test"], "pedf.qpa");
    let bin_of = |name: &str| {
        v["bins"]
            .as_array()
            .unwrap()
            .iter()
            .position(|b| b["tasks"].as_array().unwrap().iter().any(|t| t == name))
            .unwrap()
    };
    assert_eq!(bin_of("c"), 1, "c is pinned to CPU 1");
    assert_ne!(bin_of("a"), bin_of("b"), "0.6 + 0.6 does not fit one CPU");
    // The written spec pins every task where the partition put it, and simulates without a miss.
    let pinned = text(&std::fs::read(&out).unwrap());
    assert_eq!(pinned.matches("cpu: ").count(), 4, "{pinned}");
    let sim = schedlab(&["simulate", out.to_str().unwrap(), "--json"]);
    let s: serde_json::Value = serde_json::from_slice(&sim.stdout).unwrap();
    assert_eq!(s["totals"]["misses"], 0);
}

#[test]
fn partition_failures_and_bad_input() {
    let spec = write(
        "part-over.yaml",
        &PARTITIONED.replace("wcet: 3ms, period: 10ms, cpu: 1", "wcet: 5ms, period: 10ms, cpu: 1"),
    );
    let o = schedlab(&["partition", spec.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "0.6+0.6+0.5+0.3 = 2.0 with a pin that blocks a fit: {}", text(&o.stdout));
    let g = write("part-global.yaml", FULL);
    let o = schedlab(&["partition", g.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("does not partition"), "{}", text(&o.stderr));
    let o = schedlab(&["partition", spec.to_str().unwrap(), "--heuristic", "best"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("ffd"));
}
