//! A trace of schema version 1 (a RUN simulation with `server` policy
//! events, as schedlab wrote it before version 2) through the binary:
//! `validate` passes it, `export` draws its server lanes and re-encodes it
//! as version 2 with typed policy events, and the binary re-encoding reads
//! back to the same events.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn schedlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_schedlab")).args(args).output().expect("run schedlab")
}

fn text(b: &[u8]) -> String {
    String::from_utf8(b.to_vec()).unwrap()
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("schedlab-cli-trace-v1-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

fn fixture() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../trace/tests/fixtures/v1-run.jsonl").to_str().unwrap().to_string()
}

#[test]
fn a_v1_trace_validates_exports_and_reencodes_as_v2() {
    let o = schedlab(&["validate", &fixture()]);
    assert_eq!(o.status.code(), Some(0), "{}{}", text(&o.stdout), text(&o.stderr));
    assert!(text(&o.stdout).starts_with("PASS"), "{}", text(&o.stdout));

    let (svg, jsonl, bin) = (tmp("run.svg"), tmp("run.jsonl"), tmp("run.sltrace"));
    let o = schedlab(&["export", &fixture(), "--svg", svg.to_str().unwrap(), "--trace", jsonl.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let drawn = std::fs::read_to_string(&svg).unwrap();
    assert!(drawn.contains(">CPU 0 server</text>") && drawn.contains(">CPU 1 server</text>"), "server lanes");
    assert!(drawn.contains(">RUN on 2 CPUs,"), "the descriptor's title");
    let v2 = std::fs::read_to_string(&jsonl).unwrap();
    assert!(v2.starts_with("{\"schedlab_trace\":2,"));
    assert_eq!(v2.matches("\"kind\":\"server\"").count(), 7);
    assert_eq!(v2.matches("\"ev\":\"note\",\"t\":0,\"name\":\"platform-stall\"").count(), 1);
    assert_eq!(v2.lines().count(), std::fs::read_to_string(fixture()).unwrap().lines().count());

    let o = schedlab(&["export", jsonl.to_str().unwrap(), "--trace", bin.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let back = tmp("back.jsonl");
    let o = schedlab(&["export", bin.to_str().unwrap(), "--trace", back.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(std::fs::read_to_string(&back).unwrap(), v2, "binary and JSON Lines carry the same v2 trace");
}
