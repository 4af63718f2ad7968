//! `schedlab import` and the other-tool formats of `schedlab export`, end to
//! end: a simulated trace through LITMUS^RT sched_trace and back validates;
//! specs through rt-app JSON and SimSo XML come back the same; damaged input
//! exits 2, names the file and the byte, and writes nothing.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn schedlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_schedlab")).args(args).output().expect("run schedlab")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("schedlab-cli-interop-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

fn repo(p: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(p).display().to_string()
}

fn ok(o: &Output) {
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn sched_trace_round_trip_validates() {
    let trace = tmp("demo.jsonl");
    let st = tmp("st");
    let back = tmp("back.jsonl");
    ok(&schedlab(&["simulate", &repo("examples/demo.yaml"), "--trace", trace.to_str().unwrap()]));
    ok(&schedlab(&["export", "sched-trace", trace.to_str().unwrap(), "-o", st.to_str().unwrap()]));
    let files: Vec<String> = (0..4).map(|c| st.join(format!("st-{c}.bin")).display().to_string()).collect();
    let mut args = vec!["import", "sched-trace"];
    args.extend(files.iter().map(String::as_str));
    args.extend(["--plugin", "C-EDF", "--cluster-size", "2", "-o", back.to_str().unwrap()]);
    ok(&schedlab(&args));
    let v = schedlab(&["validate", back.to_str().unwrap()]);
    ok(&v);
    assert!(String::from_utf8_lossy(&v.stdout).starts_with("PASS: cedf"));
}

#[test]
fn damaged_input_exits_2_and_writes_nothing() {
    let bad = tmp("bad.bin");
    std::fs::write(&bad, [3u8; 30]).unwrap();
    let out = tmp("never.jsonl");
    let o = schedlab(&[
        "--json",
        "import",
        "sched-trace",
        bad.to_str().unwrap(),
        "--plugin",
        "GSN-EDF",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("bad.bin: byte 24: the file ends inside a record"), "{err}");
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["error"]["path"], "byte 24");
    assert!(j["error"]["file"].as_str().unwrap().ends_with("bad.bin"));
    assert!(!out.exists());
    let dir = out.parent().unwrap();
    assert!(std::fs::read_dir(dir).unwrap().all(|e| !e
        .unwrap()
        .file_name()
        .to_string_lossy()
        .starts_with(".never.jsonl")));
    let x = tmp("bad.xml");
    std::fs::write(&x, "<simulation><sched class=\"simso.schedulers.EDF\"/><processors>").unwrap();
    let o = schedlab(&["import", "simso", x.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("bad.xml: byte"));
}

#[test]
fn rt_app_and_simso_round_trips() {
    let spec = tmp("set.yaml");
    std::fs::write(&spec, "platform: {cpus: 2}\npolicy: {name: gfp, priorities: rm}\ntasks:\n  - {name: a, wcet: 1ms, period: 4ms}\n  - {name: b, wcet: 2ms, period: 10ms}\n").unwrap();
    let w = tmp("w.json");
    ok(&schedlab(&["export", "rt-app", spec.to_str().unwrap(), "--duration", "2s", "-o", w.to_str().unwrap()]));
    let text = std::fs::read_to_string(&w).unwrap();
    assert!(text.contains("\"policy\": \"SCHED_FIFO\"") && text.contains("\"loop\": 500"), "{text}");
    let back = tmp("back.yaml");
    ok(&schedlab(&["import", "rt-app", w.to_str().unwrap(), "--cpus", "2", "-o", back.to_str().unwrap()]));
    let a = schedlab(&["analyze", back.to_str().unwrap()]);
    ok(&a);
    let x = tmp("c.xml");
    ok(&schedlab(&["export", "simso", spec.to_str().unwrap(), "-o", x.to_str().unwrap()]));
    let s2 = tmp("s2.yaml");
    ok(&schedlab(&["import", "simso", x.to_str().unwrap(), "-o", s2.to_str().unwrap()]));
    let y = std::fs::read_to_string(&s2).unwrap();
    assert!(y.contains("name: gfp") && y.contains("priorities: rm") && y.contains("wcet: 2ms"), "{y}");
}
