//! The contract every verb keeps with scripts: files written atomically into
//! folders that are created, announced on stderr; one JSON error shape on
//! stdout under `--json` with the same exit code as without it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn schedlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_schedlab")).args(args).output().expect("run schedlab")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}
fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("schedlab-contract-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn repo(p: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(p).display().to_string()
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_str(&stdout(o)).unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {}", stdout(o)))
}

/// The error shape: every key present, `message` non-empty.
fn assert_error_shape(v: &serde_json::Value) -> &serde_json::Value {
    let e = &v["error"];
    for k in ["file", "line", "column", "path", "message", "hint"] {
        assert!(e.get(k).is_some(), "error without `{k}`: {v}");
    }
    assert!(!e["message"].as_str().unwrap().is_empty());
    e
}

#[test]
fn outputs_go_into_folders_that_are_created_and_are_announced() {
    let d = scratch("folders");
    let spec = d.join("a/b/set.yaml");
    let o = schedlab(&["gen", "--seed", "7", "-o", spec.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(spec.is_file());
    assert!(stderr(&o).contains(&format!("wrote {}", spec.display())), "{}", stderr(&o));
    let trace = d.join("out/deeper/t.jsonl");
    let svg = d.join("svg/t.svg");
    let o = schedlab(&[
        "simulate",
        &repo("examples/demo.yaml"),
        "--horizon",
        "50ms",
        "--trace",
        trace.to_str().unwrap(),
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(trace.is_file() && svg.is_file());
    assert!(stderr(&o).contains(&format!("wrote {}", trace.display())), "{}", stderr(&o));
    // No temporary file is left beside the outputs.
    for dir in [d.join("out/deeper"), d.join("svg")] {
        for f in std::fs::read_dir(dir).unwrap() {
            let name = f.unwrap().file_name().to_string_lossy().into_owned();
            assert!(!name.ends_with(".tmp"), "left behind: {name}");
        }
    }
}

#[test]
fn a_failed_export_leaves_an_existing_file_as_it_was() {
    let d = scratch("export");
    let out = d.join("chart.svg");
    std::fs::write(&out, "previous").unwrap();
    let bad = d.join("broken.jsonl");
    std::fs::write(&bad, "{\"not\": \"a trace\"}\n").unwrap();
    let o = schedlab(&["export", bad.to_str().unwrap(), "--svg", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "previous");
    let names: Vec<String> =
        std::fs::read_dir(&d).unwrap().map(|f| f.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

#[test]
fn json_errors_have_one_shape_and_the_same_exit_code() {
    let d = scratch("errors");
    let bad = d.join("broken.jsonl");
    std::fs::write(&bad, "garbage\n").unwrap();
    let bad = bad.to_str().unwrap();
    let spec_bad = d.join("bad.yaml");
    std::fs::write(&spec_bad, "platform: {cpus: 2}\ntasks:\n  - {name: a, wcet: 1ms, period: -3ms}\n").unwrap();
    let spec_bad = spec_bad.to_str().unwrap();
    let cases: Vec<Vec<&str>> = vec![
        vec!["validate", bad],
        vec!["stats", bad],
        vec!["export", bad, "--svg", "x.svg"],
        vec!["check", spec_bad],
        vec!["analyze", spec_bad],
        vec!["simulate", spec_bad],
        vec!["partition", spec_bad],
        vec!["reduce", spec_bad],
        vec!["gen", "--format", "toml"],
        vec!["simulate", "--no-such-option", "x.yaml"],
        vec!["no-such-verb"],
    ];
    for args in cases {
        let text = schedlab(&args);
        let mut with_json = args.clone();
        with_json.push("--json");
        let o = schedlab(&with_json);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert_eq!(text.status.code(), o.status.code(), "{args:?}");
        let v = json(&o);
        let e = assert_error_shape(&v);
        if args[0] == "check" {
            assert_eq!(e["path"], "tasks[0].period", "{v}");
            assert_eq!(e["line"], 3, "{v}");
            assert!(e["file"].as_str().unwrap().ends_with("bad.yaml"));
        }
        if args[1] == "--no-such-option" {
            assert_eq!(e["path"], "--no-such-option", "{v}");
        }
    }
}

#[test]
fn gen_and_export_speak_json_when_asked() {
    let o = schedlab(&["gen", "--seed", "7", "--json"]);
    assert_eq!(o.status.code(), Some(0));
    let v = json(&o);
    assert_eq!(v["spec"]["meta"]["seed"], 7, "{v}");
    assert!(v["spec"]["tasks"].as_array().unwrap().len() > 1);
    let d = scratch("exportjson");
    let trace = d.join("t.jsonl");
    let o =
        schedlab(&["simulate", &repo("examples/demo.yaml"), "--horizon", "20ms", "--trace", trace.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let csv = d.join("j.csv");
    let o = schedlab(&["export", trace.to_str().unwrap(), "--csv", csv.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(json(&o)["written"][0], csv.to_str().unwrap());
}
