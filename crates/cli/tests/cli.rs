//! The `schedlab` binary end to end: exit codes, outputs, determinism.

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

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("schedlab-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

fn repo(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(p)
}

#[test]
fn gen_is_byte_identical_for_a_seed() {
    let a = schedlab(&["gen", "--seed", "7"]);
    let b = schedlab(&["gen", "--seed", "7"]);
    let c = schedlab(&["gen", "--seed", "8"]);
    assert_eq!(a.status.code(), Some(0), "{}", stderr(&a));
    assert_eq!(a.stdout, b.stdout);
    assert_ne!(a.stdout, c.stdout);
    assert!(stdout(&a).contains("seed: 7"));
    let j1 = schedlab(&["gen", "--seed", "7", "--format", "json"]);
    let j2 = schedlab(&["gen", "--seed", "7", "--format", "json"]);
    assert_eq!(j1.stdout, j2.stdout);
}

#[test]
fn the_recorded_options_reproduce_the_set() {
    let first = schedlab(&[
        "gen",
        "--seed",
        "11",
        "--utils",
        "bimo-medium",
        "--util",
        "3",
        "--periods",
        "short",
        "--deadlines",
        "constrained",
    ]);
    let text = stdout(&first);
    let line = text.lines().find(|l| l.trim_start().starts_with("generator:")).unwrap();
    let options = line.split_once(':').unwrap().1.trim().trim_matches('"').to_string();
    let mut args = vec!["gen", "--seed", "11"];
    args.extend(options.split(' '));
    let again = schedlab(&args);
    assert_eq!(stdout(&again), text);
}

#[test]
fn generated_sets_check_in_both_formats() {
    for (fmt, ext) in [("yaml", "yaml"), ("json", "json")] {
        let f = tmp(&format!("g.{ext}"));
        let o = schedlab(&[
            "gen",
            "--seed",
            "3",
            "--cpus",
            "8",
            "--cluster-size",
            "4",
            "--policy",
            "cedf",
            "--cache",
            "8MiB/16/64B",
            "--colors-per-task",
            "4",
            "--wss",
            "uniform:32KiB-256KiB",
            "--format",
            fmt,
            "-o",
            f.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert!(o.stdout.is_empty());
        let c = schedlab(&["check", f.to_str().unwrap()]);
        assert_eq!(c.status.code(), Some(0), "{}", stderr(&c));
        assert!(stdout(&c).contains("valid spec"));
        assert!(stdout(&c).contains("10 tasks on 8 CPUs, policy cedf"));
    }
}

#[test]
fn check_prints_the_summary() {
    let o = schedlab(&["check", repo("examples/demo.yaml").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let s = stdout(&o);
    assert!(s.contains("7 tasks on 4 CPUs, policy cedf, constrained deadlines"), "{s}");
    assert!(s.contains("exact 233/200"), "{s}");
    assert!(s.contains("hyperperiod 200ms"), "{s}");
    assert!(
        s.lines().any(|l| l.trim_start().starts_with("filter") && l.contains("3.5ms") && l.contains("15ms")),
        "{s}"
    );

    let j = schedlab(&["--json", "check", repo("examples/demo.yaml").to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_slice(&j.stdout).unwrap();
    assert_eq!(v["valid"], true);
    assert_eq!(v["summary"]["tasks"], 7);
    assert_eq!(v["summary"]["hyperperiod"], "200ms");
}

#[test]
fn gen_mtt_sets_load_and_their_recorded_options_reproduce_them() {
    let args = [
        "gen",
        "--seed",
        "4",
        "--cpus",
        "4",
        "--util",
        "2",
        "--cache",
        "1MiB/16/64B",
        "--mtt",
        "threads=1-4,util=0.1-0.4,wss=tc:4KiB-128KiB",
    ];
    let first = schedlab(&args);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let text = stdout(&first);
    assert!(text.contains("mtt:\n  - {name: M1, tasks: [M1T1"), "{text}");
    let f = tmp("mtt-set.yaml");
    std::fs::write(&f, &text).unwrap();
    let check = schedlab(&["check", f.to_str().unwrap()]);
    assert_eq!(check.status.code(), Some(0), "{}", stderr(&check));
    let line = text.lines().find(|l| l.trim_start().starts_with("generator:")).unwrap();
    let options = line.split_once(':').unwrap().1.trim().trim_matches('"').to_string();
    let mut again = vec!["gen", "--seed", "4"];
    again.extend(options.split(' '));
    assert_eq!(schedlab(&again).stdout, first.stdout);
    // A bad value names the option; an option that does not apply is refused.
    let o = schedlab(&["gen", "--mtt", "util=0.5-2"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--mtt: `util=0.5-2` needs 0 < LO ≤ HI ≤ 1"), "{}", stderr(&o));
    let o = schedlab(&["gen", "--mtt", "default", "--tasks", "5"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--tasks does not apply with --mtt"), "{}", stderr(&o));
}

#[test]
fn simulate_reports_each_mtt_with_the_profilers_estimate() {
    let f = tmp("mtt-alone.yaml");
    std::fs::write(
        &f,
        "platform: {cpus: 2, cache: {size: 1MiB, ways: 16, line: 64B}}\npolicy: {name: gedf}\ntasks:\n  - {name: a, wcet: 2ms, period: 10ms}\n  - {name: b, wcet: 1ms, period: 10ms}\nmtt:\n  - {name: w, tasks: [a, b], wss: 640KiB}\n",
    )
    .unwrap();
    let o = schedlab(&["simulate", "--json", f.to_str().unwrap(), "--horizon", "50ms"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let m = &v["platform_model"]["mtts"][0];
    assert_eq!(m["mtt"], "w");
    assert_eq!(m["jobs"], 5);
    assert_eq!(m["max_span_ns"], 2_000_000);
    assert_eq!(m["source"], "platform-model");
    assert_eq!(m["converged"], true);
    assert_eq!(m["wss"], 640 * 1024);
    let err = m["estimate_error"].as_f64().unwrap();
    assert!(err.abs() < 0.001, "{m}");
    let text = stdout(&schedlab(&["simulate", f.to_str().unwrap(), "--horizon", "50ms"]));
    assert!(text.contains("source: platform-model"), "{text}");
    assert!(text.lines().any(|l| l.starts_with("w ") && l.contains("640KiB") && l.contains("5/5")), "{text}");
}

/// The paper's Figures 5/6 through `simulate` and `stats`: b (lower memory
/// priority) holds the token from 0, a asks at 1 ms and takes it, gives it
/// back at 2 ms, and b is granted again while off its CPU.
#[test]
fn stats_report_the_memory_token() {
    let f = tmp("mcs-fig5.yaml");
    std::fs::write(
        &f,
        "platform: {cpus: 3}\npolicy: {name: mcs, master: 2}\ntasks:\n  - {name: a, period: 10ms, offset: 1ms, cpu: 0, memory_priority: 1, segments: [{memory: 1ms}, {exec: 1ms}]}\n  - {name: b, period: 10ms, cpu: 1, memory_priority: 2, segments: [{memory: 2ms}, {exec: 1ms}]}\n",
    )
    .unwrap();
    let trace = tmp("mcs-fig5.jsonl");
    let o = schedlab(&["simulate", f.to_str().unwrap(), "--horizon", "10ms", "--trace", trace.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = schedlab(&["stats", "--json", trace.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let k = &v["memory_token"];
    assert_eq!(
        (&k["requests"], &k["grants"], &k["preemptions"], &k["worker_grants"]),
        (&2.into(), &3.into(), &1.into(), &0.into()),
        "{k}"
    );
    assert_eq!(k["wait"]["max"], 0, "both were granted when they asked: {k}");
    // Every grant found its job off its CPU (b and a at their releases, before
    // their dispatch; b again while blocked), and a simulation acts at once.
    assert_eq!((&k["grant_to_run"]["count"], &k["grant_to_run"]["max"]), (&3.into(), &0.into()), "{k}");
    let text = stdout(&schedlab(&["stats", trace.to_str().unwrap()]));
    assert!(text.contains("memory token: 2 requests, 3 grants, 0 to the worker, 1 phases preempted"), "{text}");
}

#[test]
fn a_bad_spec_exits_2_with_the_position() {
    let f = tmp("bad.yaml");
    std::fs::write(&f, "platform: {cpus: 2}\ntasks:\n  - {name: a, wcet: 1ms, perod: 10ms}\n").unwrap();
    let o = schedlab(&["check", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    let e = stderr(&o);
    assert!(e.contains("bad.yaml:3:26: tasks[0].perod: unknown key `perod`; did you mean `period`?"), "{e}");
    assert!(!e.contains("panicked"));

    let j = schedlab(&["check", "--json", f.to_str().unwrap()]);
    assert_eq!(j.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&j.stdout).unwrap();
    assert_eq!(v["error"]["path"], "tasks[0].perod");
    assert_eq!(v["error"]["line"], 3);
    assert_eq!(v["error"]["column"], 26);

    for (content, want) in [
        (&b"\xff\xfe\x00binary"[..], "not UTF-8"),
        (b"", "empty"),
        (b"{\"platform\": {\"cpus\": 2}, \"tasks\": [", "truncated"),
    ] {
        let f = tmp("junk.json");
        std::fs::write(&f, content).unwrap();
        let o = schedlab(&["check", f.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2));
        assert!(stderr(&o).contains(want), "{}", stderr(&o));
    }
    let o = schedlab(&["check", "/nonexistent/spec.yaml"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot read"));
}

#[test]
fn a_bad_mtt_exits_2_with_the_field_path_and_the_fix() {
    let f = tmp("bad-mtt.yaml");
    std::fs::write(
        &f,
        "platform: {cpus: 2}\ntasks:\n  - {name: a, wcet: 1ms, period: 10ms}\n  - {name: b, wcet: 1ms, period: 10ms, wss: 4KiB}\nmtt:\n  - {name: w, tasks: [a, b], wss: 8KiB}\n",
    )
    .unwrap();
    let o = schedlab(&["check", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    let e = stderr(&o);
    assert!(e.contains("bad-mtt.yaml:4:"), "{e}");
    assert!(
        e.contains("tasks[1].wss: is 4KiB but task `b` is in MTT `w`, whose working set is 8KiB (mtt[0].wss)"),
        "{e}"
    );
    let j = schedlab(&["check", "--json", f.to_str().unwrap()]);
    assert_eq!(j.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&j.stdout).unwrap();
    assert_eq!(v["error"]["path"], "tasks[1].wss");
}

#[test]
fn bad_options_exit_2_and_write_nothing() {
    let f = tmp("never.yaml");
    let _ = std::fs::remove_file(&f);
    for args in [
        vec!["gen", "--utils", "uunifast-dicard"],
        vec!["gen", "--periods", "medium"],
        vec!["gen", "--util", "9", "--tasks", "3"],
        vec!["gen", "--format", "toml"],
        vec!["gen", "--cpus", "abc"],
        vec!["gen", "--policy", "edf"],
        vec!["frobnicate"],
    ] {
        let mut a = args.clone();
        a.extend(["-o", f.to_str().unwrap()]);
        let o = schedlab(&a);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(!f.exists(), "{args:?} wrote a file");
        assert!(!stderr(&o).is_empty());
    }
    let o = schedlab(&["gen", "--utils", "uunifast-dicard"]);
    assert!(stderr(&o).contains("did you mean `uunifast-discard`"), "{}", stderr(&o));
}

#[test]
fn help_version_and_schema() {
    let v = schedlab(&["--version"]);
    assert_eq!(v.status.code(), Some(0));
    assert!(stdout(&v).starts_with("schedlab "));
    let h = schedlab(&["--help"]);
    assert_eq!(h.status.code(), Some(0));
    assert!(stdout(&h).contains("Examples:"));
    let h = schedlab(&["gen", "--help"]);
    assert!(stdout(&h).contains("schedlab gen --seed 7"));
    let s = schedlab(&["schema"]);
    assert_eq!(s.stdout, std::fs::read(repo("docs/spec.schema.json")).unwrap());
}

#[test]
fn simulate_reports_the_platform_model_and_can_turn_it_off() {
    let json = |args: &[&str]| -> serde_json::Value {
        let o = schedlab(args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        serde_json::from_str(&stdout(&o)).unwrap()
    };
    let shared = repo("examples/cache-shared.yaml");
    let private = repo("examples/cache-private.yaml");
    let on = json(&["--json", "simulate", shared.to_str().unwrap(), "--horizon", "50ms"]);
    let model = &on["platform_model"];
    assert_eq!(model["tasks"].as_array().unwrap().len(), 4);
    assert!(model["tasks"].as_array().unwrap().iter().all(|t| t["cache_misses"].as_u64().unwrap() > 0));
    assert!(on["totals"]["misses"].as_u64().unwrap() > 0);
    let off = json(&["--json", "simulate", shared.to_str().unwrap(), "--horizon", "50ms", "--no-platform-model"]);
    assert!(off["platform_model"].is_null());
    assert_eq!(off["totals"]["misses"].as_u64(), Some(0));
    // Private colours: the model runs and charges nothing; the schedule is the one without it.
    let p = json(&["--json", "simulate", private.to_str().unwrap(), "--horizon", "50ms"]);
    assert!(p["platform_model"]["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .all(|t| t["cache_misses"] == 0 && t["cpmd_ns"] == 0));
    assert_eq!(p["tasks"], off["tasks"]);
    let text = stdout(&schedlab(&["simulate", shared.to_str().unwrap(), "--horizon", "50ms"]));
    assert!(text.contains("cache misses") && text.contains("(platform model)"), "{text}");
}
