//! `schedlab` with `reservations` (H-CBS) end to end: `check` lists the
//! group tree and the tasks in no group, in text and JSON; `simulate
//! --validate` runs the reservation checks; a bad group exits 2 naming the
//! field path. (What the kernel backend cannot map onto Linux's RT groups
//! exits 2 too: `run.rs`.)

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn schedlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_schedlab")).args(args).output().expect("run schedlab")
}

fn repo(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(p)
}

fn example() -> String {
    repo("examples/reservations.yaml").to_str().unwrap().to_string()
}

#[test]
fn check_lists_the_group_tree() {
    let o = schedlab(&["check", &example()]);
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(out.contains("  media    4ms / 10ms  0.4000  video (leaf queue 2ms / 10ms)\n"), "{out}");
    assert!(out.contains("    sound  1ms / 5ms   0.2000  audio, mixer\n"), "{out}");
    assert!(out.contains("  in no group (background): logger\n"), "{out}");
    let o = schedlab(&["--json", "check", &example()]);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let groups = j["summary"]["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 3);
    assert_eq!(groups[1]["name"], "sound");
    assert_eq!(groups[1]["depth"], 1);
    assert_eq!(groups[1]["tasks"], serde_json::json!(["audio", "mixer"]));
}

#[test]
fn simulate_validates_the_reservations() {
    let o = schedlab(&["simulate", &example(), "--validate"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8(o.stdout).unwrap();
    for check in ["replay", "budget", "throttle", "group-priority"] {
        assert!(out.lines().any(|l| l.split_whitespace().collect::<Vec<_>>() == [check, "ok"]), "{check}: {out}");
    }
}

#[test]
fn bad_groups_exit_2_with_the_path() {
    let d = std::env::temp_dir().join(format!("schedlab-res-test-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let bad = d.join("bad.yaml");
    std::fs::write(
        &bad,
        "platform: {cpus: 1}\ntasks:\n  - {name: a, wcet: 1ms, period: 10ms}\nreservations:\n  - {name: g, budget: 2ms, period: 10ms, tasks: [a, b]}\n",
    )
    .unwrap();
    let o = schedlab(&["check", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(err.contains("reservations[0].tasks[1]: no task is named `b`; the tasks are a"), "{err}");
}
