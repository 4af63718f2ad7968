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

/// Two groups on two CPUs: `fast` (its tasks need a short-period server)
/// and `slow`.
const GROUPS: &str = "platform: {cpus: 2}\ntasks:\n- {name: a, wcet: 1ms, period: 20ms}\n- {name: b, wcet: 2ms, period: 40ms}\n- {name: c, wcet: 1ms, period: 50ms}\nreservations:\n- {name: fast, budget: 2ms, period: 4ms, tasks: [a, b]}\n- {name: slow, budget: 1ms, period: 10ms, tasks: [c]}\n";

#[test]
fn reservations_are_tested_per_group_and_budgets_chosen() {
    let spec = write("groups.yaml", GROUPS);
    let s = spec.to_str().unwrap();
    // The spec's budgets: each group explained, with its supply.
    let o = schedlab(&["analyze", s, "--test", "hcbs.msf", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let groups = v["outcomes"][0]["groups"].as_array().expect("groups");
    assert_eq!(groups.len(), 2, "{v}");
    assert_eq!(groups[0]["group"], "fast");
    assert_eq!(groups[0]["supplies"][1], "H-CBS 2ms/4ms");
    assert_eq!(groups[0]["outcome"]["verdict"], "schedulable", "{v}");
    let text_out = text(&schedlab(&["analyze", s, "--test", "hcbs.msf", "--explain"]).stdout);
    assert!(text_out.contains("group slow (reservations[1]): "), "{text_out}");
    // The least budgets: `slow` at 10ms needs Z(50ms) ≥ 1ms on one of two
    // servers with no higher-priority work: 50 − 6(10 − Q) ≥ 1 or 4Q ≥ 1.
    let o = schedlab(&["analyze", s, "--select-budgets", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["found"], true);
    assert_eq!(v["groups"][1]["group"], "slow");
    assert_eq!(v["groups"][1]["budget_ns"], 250_000, "{v}");
    assert!(v["groups"][0]["budget_ns"].as_u64().unwrap() < 4_000_000);
    // One period for all: the text names it, and the exit code says whether
    // the chosen budgets fit the CPUs.
    let o = schedlab(&["analyze", s, "--select-budgets", "--period", "40ms"]);
    let out = text(&o.stdout);
    assert!(out.contains("period 40ms"), "{out}");
    assert_eq!(o.status.code(), Some(if out.contains("fit every CPU") { 0 } else { 1 }), "{out}");
    // Bad input: no reservations, a zero period, --period alone.
    let plain = write("plain.yaml", FULL);
    let o = schedlab(&["analyze", plain.to_str().unwrap(), "--select-budgets"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("no `reservations`"), "{}", text(&o.stderr));
    assert_eq!(schedlab(&["analyze", s, "--select-budgets", "--period", "0ms"]).status.code(), Some(2));
    assert_eq!(schedlab(&["analyze", s, "--period", "5ms"]).status.code(), Some(2));
}
