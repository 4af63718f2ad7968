//! `schedlab simulate`, `validate`, `stats` and `export` end to end.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn schedlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_schedlab")).args(args).output().expect("run schedlab")
}
fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}
fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("schedlab-cli-sched-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}
fn demo() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/demo.yaml").to_str().unwrap().to_string()
}

#[test]
fn simulate_writes_a_trace_that_validates_and_exports() {
    let trace = tmp("demo.jsonl");
    let bin = tmp("demo.sltrace");
    let svg = tmp("demo.svg");
    let perfetto = tmp("demo.perfetto.json");
    let csv = tmp("demo.csv");
    let o = schedlab(&[
        "simulate",
        &demo(),
        "--trace",
        trace.to_str().unwrap(),
        "--svg",
        svg.to_str().unwrap(),
        "--perfetto",
        perfetto.to_str().unwrap(),
        "--csv",
        csv.to_str().unwrap(),
        "--validate",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.lines().any(|l| l.starts_with("all ") && l.contains(" 88 ")), "{out}");
    assert!(out.contains("PASS"), "{out}");

    // The written trace validates on its own, and re-encoded in binary too.
    let v = schedlab(&["validate", trace.to_str().unwrap()]);
    assert_eq!(v.status.code(), Some(0), "{}", text(&v.stdout));
    let e = schedlab(&["export", trace.to_str().unwrap(), "--trace", bin.to_str().unwrap()]);
    assert_eq!(e.status.code(), Some(0), "{}", text(&e.stderr));
    let v = schedlab(&["validate", bin.to_str().unwrap(), "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&v.stdout).unwrap();
    assert_eq!(report["pass"], true);
    assert!(std::fs::metadata(&bin).unwrap().len() * 4 < std::fs::metadata(&trace).unwrap().len());

    // Stats of the trace agree with the simulation's own.
    let s = schedlab(&["--json", "stats", trace.to_str().unwrap()]);
    let stats: serde_json::Value = serde_json::from_slice(&s.stdout).unwrap();
    assert_eq!(stats["totals"]["jobs"], 88, "{stats}");

    let svg = std::fs::read_to_string(&svg).unwrap();
    assert!(svg.starts_with("<svg") || svg.starts_with("<?xml"));
    assert!(svg.contains("capture") && svg.contains("logger"));
    let p: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&perfetto).unwrap()).unwrap();
    assert!(p["traceEvents"].as_array().unwrap().len() > 88);
    assert_eq!(std::fs::read_to_string(&csv).unwrap().lines().count(), 89);
}

#[test]
fn simulation_is_deterministic() {
    let a = tmp("a.jsonl");
    let b = tmp("b.jsonl");
    for p in [&a, &b] {
        let o = schedlab(&[
            "simulate",
            &demo(),
            "--seed",
            "5",
            "--exec",
            "uniform",
            "--sporadic",
            "uniform:3ms",
            "--trace",
            p.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    }
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
}

#[test]
fn a_corrupted_trace_fails_validation_with_the_first_violation() {
    let trace = tmp("c.jsonl");
    assert_eq!(schedlab(&["simulate", &demo(), "--trace", trace.to_str().unwrap()]).status.code(), Some(0));
    // Move the control task (pinned to CPU 0) onto CPU 3.
    let t = std::fs::read_to_string(&trace).unwrap();
    let mut lines: Vec<String> = t.lines().map(String::from).collect();
    let i = lines.iter().position(|l| l.contains("\"switch-to\"") && l.contains("\"task\":4")).unwrap();
    let cpu =
        |l: &str| l.split("\"cpu\":").nth(1).unwrap().split(|c: char| !c.is_ascii_digit()).next().unwrap().to_string();
    let c = cpu(&lines[i]);
    lines[i] = lines[i].replace(&format!("\"cpu\":{c}"), "\"cpu\":3");
    let j = (i + 1..lines.len())
        .find(|&j| lines[j].contains("\"task\":4") && lines[j].contains(&format!("\"cpu\":{c}")))
        .unwrap();
    lines[j] = lines[j].replace(&format!("\"cpu\":{c}"), "\"cpu\":3");
    std::fs::write(&trace, lines.join("\n") + "\n").unwrap();
    let v = schedlab(&["validate", trace.to_str().unwrap()]);
    assert_eq!(v.status.code(), Some(1), "{}", text(&v.stdout));
    assert!(text(&v.stdout).contains("FAIL"), "{}", text(&v.stdout));
    assert!(text(&v.stdout).contains("placement"), "{}", text(&v.stdout));
}

#[test]
fn bad_input_exits_2() {
    let junk = tmp("junk.jsonl");
    std::fs::write(&junk, "not a trace").unwrap();
    for args in [
        vec!["validate", junk.to_str().unwrap()],
        vec!["stats", junk.to_str().unwrap()],
        vec!["export", junk.to_str().unwrap(), "--csv", "/dev/null"],
        vec!["simulate", "/nonexistent.yaml"],
        vec!["simulate", &demo(), "--exec", "average"],
        vec!["simulate", &demo(), "--sporadic", "poisson"],
        vec!["simulate", &demo(), "--miss", "ignore"],
        vec!["validate", junk.to_str().unwrap(), "--mode", "strict"],
    ] {
        let o = schedlab(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o.stderr));
        assert!(!text(&o.stderr).is_empty());
    }
    let nopolicy = tmp("nopolicy.yaml");
    std::fs::write(&nopolicy, "platform: {cpus: 1}\ntasks:\n  - {name: a, wcet: 1ms, period: 10ms}\n").unwrap();
    let o = schedlab(&["simulate", nopolicy.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("no `policy`"));
    let unpackable = tmp("unpackable.yaml");
    std::fs::write(&unpackable, "platform: {cpus: 2}\npolicy: {name: pedf, partitioning: ffd}\ntasks:\n  - {name: a, wcet: 2ms, period: 3ms}\n  - {name: b, wcet: 2ms, period: 3ms}\n  - {name: c, wcet: 2ms, period: 3ms}\n").unwrap();
    let o = schedlab(&["simulate", unpackable.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("tasks[2]") || text(&o.stderr).contains("`c`"), "{}", text(&o.stderr));
}
