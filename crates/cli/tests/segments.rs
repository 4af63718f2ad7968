//! Segmented jobs through the `schedlab` binary: `check` shows them and
//! refuses bad ones (exit 2, nothing written), `partition -o` writes them
//! back, and simulations of specs without segments are byte for byte what
//! they were before segments existed.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn schedlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_schedlab")).args(args).output().expect("run schedlab")
}

fn text(b: &[u8]) -> String {
    String::from_utf8(b.to_vec()).unwrap()
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("schedlab-cli-segments-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

fn example() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/segments.yaml").to_str().unwrap().to_string()
}

#[test]
fn check_shows_the_segments_and_the_policys_notice() {
    let o = schedlab(&["check", &example()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("camera: memory 300us, exec 2.4ms non-preemptive, suspend 1ms, memory 300us"), "{out}");
    assert!(out.contains("control: subjobs 1ms, 1.5ms, 500us"), "{out}");
    assert!(out.contains("tasks[0].segments: `pfp` runs self-suspensions only in a simulation"), "{out}");
    let j = schedlab(&["check", "--json", &example()]);
    let v: serde_json::Value = serde_json::from_slice(&j.stdout).unwrap();
    let rows = &v["summary"]["rows"];
    assert_eq!(rows[0]["wcet"], "3ms", "the WCET is the segments' CPU total");
    assert_eq!(rows[1]["segments"], "subjobs 1ms, 1.5ms, 500us");
    assert!(rows[2].get("segments").is_none());
}

#[test]
fn a_bad_segment_exits_2_with_its_path_and_nothing_is_written() {
    let bad = tmp("bad.yaml");
    std::fs::write(
        &bad,
        "platform: {cpus: 1}\npolicy: {name: pfp}\ntasks:\n  - {name: a, wcet: 1ms, period: 10ms}\n  - {name: b, wcet: 1ms, period: 10ms}\n  - name: c\n    period: 10ms\n    segments: [{exec: 1ms}, {memory: 0}]\n",
    )
    .unwrap();
    let o = schedlab(&["check", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let e = text(&o.stderr);
    assert!(e.contains("bad.yaml:8:") && e.contains("tasks[2].segments[1].memory: must be more than 0"), "{e}");
    let out = tmp("never.yaml");
    let o = schedlab(&["partition", bad.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!out.exists());
}

#[test]
fn partition_writes_the_segments_back() {
    let out = tmp("placed.yaml");
    let o = schedlab(&["partition", &example(), "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let original = schedlab_model::load_path(Path::new(&example())).unwrap().spec;
    let placed = schedlab_model::load_path(&out).unwrap().spec;
    for (a, b) in original.tasks.iter().zip(&placed.tasks) {
        assert_eq!((&a.segments, &a.subjobs, a.wcet), (&b.segments, &b.subjobs, b.wcet), "{}", a.name);
        assert!(b.cpu.is_some(), "placed");
    }
}

#[test]
fn a_simulation_runs_each_jobs_segment_total() {
    let csv = tmp("jobs.csv");
    for (exec, lo, hi) in [("wcet", 3_000_000, 3_000_000), ("uniform", 2_000_000, 3_000_000)] {
        let o = schedlab(&["simulate", &example(), "--exec", exec, "--seed", "4", "--csv", csv.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        let table = std::fs::read_to_string(&csv).unwrap();
        let camera: Vec<u64> = table
            .lines()
            .filter(|l| l.starts_with("camera,"))
            .map(|l| l.split(',').nth(12).unwrap().parse().unwrap())
            .collect();
        assert_eq!(camera.len(), 5, "{table}");
        assert!(camera.iter().all(|&e| e >= lo && e <= hi), "{exec}: {camera:?}");
    }
}

/// 64-bit FNV-1a, to pin a file's bytes.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

/// The per-job tables of two simulations of a spec without segments (random
/// releases, jitter, BCETs, an executions list), recorded with `schedlab`
/// as it was before segments entered the job model: length and FNV-1a hash.
#[test]
fn simulations_without_segments_are_unchanged() {
    let spec = tmp("plain.yaml");
    std::fs::write(
        &spec,
        "platform: {cpus: 2}\npolicy: {name: gedf}\ntasks:\n  - {name: a, wcet: 1ms, bcet: 0.2ms, period: 4ms, jitter: 1ms, offset: 0.5ms}\n  - {name: b, wcet: 3ms, bcet: 1ms, period: 8ms, jitter: 3ms}\n  - {name: c, wcet: 5ms, period: 10ms, executions: [2ms, 5ms, 3.5ms]}\n  - {name: d, wcet: 2ms, bcet: 0.1ms, period: 5ms, deadline: 4ms}\n",
    )
    .unwrap();
    let csv = tmp("plain.csv");
    let runs: [(&[&str], usize, u64); 2] = [
        (&["--seed", "5", "--exec", "uniform", "--sporadic", "uniform:2ms"], 9448, 0x20f5_d842_c26a_8896),
        (
            &["--policy", "pfp", "--seed", "9", "--exec", "fraction:0.7", "--sporadic", "exponential:1ms"],
            9707,
            0x73bf_3c6d_a23a_c0a3,
        ),
    ];
    for (options, len, hash) in runs {
        let mut args = vec!["simulate", spec.to_str().unwrap(), "--horizon", "200ms", "--csv", csv.to_str().unwrap()];
        args.extend_from_slice(options);
        let o = schedlab(&args);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        let bytes = std::fs::read(&csv).unwrap();
        assert_eq!((bytes.len(), fnv1a(&bytes)), (len, hash), "{options:?}:\n{}", text(&bytes));
    }
}
