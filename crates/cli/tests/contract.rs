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
        if args.get(1) == Some(&"--no-such-option") {
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

// -- completions and man page (finding: none shipped) ----------------------------------------

#[test]
fn the_shipped_completions_and_man_page_are_what_the_command_generates() {
    let share = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../python/schedlab.data/data/share");
    let cases: [(&[&str], &str); 4] = [
        (&["completions", "bash"], "bash-completion/completions/schedlab"),
        (&["completions", "zsh"], "zsh/site-functions/_schedlab"),
        (&["completions", "fish"], "fish/vendor_completions.d/schedlab.fish"),
        (&["man"], "man/man1/schedlab.1"),
    ];
    for (args, file) in cases {
        let o = schedlab(args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        let shipped = std::fs::read_to_string(share.join(file)).unwrap_or_default();
        assert!(
            shipped == stdout(&o),
            "python/schedlab.data/data/share/{file} is not what `schedlab {}` prints: run `make share`",
            args.join(" ")
        );
    }
    let man = stdout(&schedlab(&["man"]));
    for verb in ["analyze", "simulate", "partition", "completions"] {
        assert!(man.contains(&format!("schedlab\\-{verb}")) || man.contains(&format!("schedlab {verb}")), "{verb}");
    }
    assert!(stdout(&schedlab(&["completions", "bash"])).contains("--fail-on-miss"));
    assert_eq!(schedlab(&["completions", "tcsh"]).status.code(), Some(2));
}

// -- finding 1: "schedulable" meant "tardiness is bounded" -----------------------------------

/// Five tasks of u = 0.65 and three light ones, U = 3.8 on 4 CPUs, all `hrt`:
/// no hard G-EDF test proves it, the tardiness bound exists.
fn hard_set(d: &Path, class: &str) -> PathBuf {
    let mut y = String::from("platform: {cpus: 4}\npolicy: {name: gedf}\ntasks:\n");
    for i in 0..5 {
        y += &format!("  - {{name: h{i}, wcet: 6.5ms, period: 10ms, class: {class}}}\n");
    }
    y += &format!("  - {{name: a, wcet: 2ms, period: 10ms, class: {class}}}\n");
    y += &format!("  - {{name: b, wcet: 2ms, period: 10ms, class: {class}}}\n");
    y += &format!("  - {{name: c, wcet: 1.5ms, period: 10ms, class: {class}}}\n");
    let p = d.join(format!("hard-{class}.yaml"));
    std::fs::write(&p, y).unwrap();
    p
}

#[test]
fn a_bounded_tardiness_does_not_prove_hard_deadlines() {
    let d = scratch("verdict");
    let hrt = hard_set(&d, "hrt");
    let o = schedlab(&["analyze", hrt.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let text = stdout(&o);
    assert!(text.trim_end().lines().last().unwrap().starts_with("not proven (inconclusive)"), "{text}");
    assert!(text.contains("soft real-time (soft.gedf.tardiness): tardiness bounded"), "{text}");
    let v = json(&schedlab(&["analyze", hrt.to_str().unwrap(), "--json"]));
    assert_eq!(v["proven"], false);
    assert_eq!(v["schedulable"], false);
    assert_eq!(v["decision"], "inconclusive");
    assert_eq!(v["soft"]["bounded"], true);
    // The simulation agrees that hard deadlines are missed.
    let s = schedlab(&["simulate", hrt.to_str().unwrap(), "--horizon", "1s", "--json"]);
    assert!(json(&s)["totals"]["misses"].as_u64().unwrap() > 0);
    // For srt tasks the bound is the promise asked for.
    let srt = hard_set(&d, "srt");
    let v = json(&schedlab(&["analyze", srt.to_str().unwrap(), "--json"]));
    assert_eq!(v["decision"], "proven", "{v}");
    assert_eq!(v["decided_by"], "soft.gedf.tardiness");
}

#[test]
fn tests_of_other_policies_never_decide() {
    let d = scratch("other");
    let hrt = hard_set(&d, "hrt");
    // RUN and PD^2 accept U = 3.8 <= 4, but the spec is G-EDF.
    let o = schedlab(&["analyze", hrt.to_str().unwrap(), "--all", "--json"]);
    assert_eq!(o.status.code(), Some(1));
    let v = json(&o);
    let run = v["outcomes"].as_array().unwrap().iter().find(|o| o["test"] == "run.feasibility").unwrap();
    assert_eq!(run["verdict"], "schedulable");
    assert_eq!(run["decides"], false);
    assert_eq!(v["proven"], false);
    let text = stdout(&schedlab(&["analyze", hrt.to_str().unwrap(), "--all"]));
    assert!(text.lines().any(|l| l.starts_with("run.feasibility") && l.ends_with("[other policy]")), "{text}");
}

// -- finding 2: a task's priority was silently ignored ---------------------------------------

#[test]
fn a_priority_on_the_tasks_means_explicit_priorities() {
    let d = scratch("prio");
    // Rate monotonic would put `fast` first; the explicit priorities put `slow` first.
    let spec = d.join("p.yaml");
    std::fs::write(
        &spec,
        "platform: {cpus: 1}\npolicy: {name: pfp}\ntasks:\n  - {name: fast, wcet: 1ms, period: 4ms, priority: 2}\n  - {name: slow, wcet: 3ms, period: 8ms, priority: 1}\n",
    )
    .unwrap();
    let o = schedlab(&["check", spec.to_str().unwrap()]);
    assert!(stdout(&o).contains("priorities explicit"), "{}", stdout(&o));
    assert_eq!(
        json(&schedlab(&["check", spec.to_str().unwrap(), "--json"]))["priorities"],
        "explicit (the tasks' `priority`)"
    );
    let trace = d.join("p.jsonl");
    let o = schedlab(&["simulate", spec.to_str().unwrap(), "--horizon", "8ms", "--trace", trace.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let first =
        std::fs::read_to_string(&trace).unwrap().lines().find(|l| l.contains("\"switch-to\"")).unwrap().to_string();
    assert!(first.contains("\"task\":1"), "the explicit priority 1 (`slow`) runs first: {first}");
    // Without priorities: derived, rate monotonic.
    let rm = d.join("rm.yaml");
    std::fs::write(&rm, "platform: {cpus: 1}\npolicy: {name: pfp}\ntasks:\n  - {name: a, wcet: 1ms, period: 4ms}\n")
        .unwrap();
    assert!(stdout(&schedlab(&["check", rm.to_str().unwrap()])).contains("priorities derived: rate monotonic"));
    // A mix is an error naming the tasks without one.
    let mix = d.join("mix.yaml");
    std::fs::write(
        &mix,
        "platform: {cpus: 1}\npolicy: {name: pfp}\ntasks:\n  - {name: a, wcet: 1ms, period: 4ms, priority: 1}\n  - {name: lonely, wcet: 1ms, period: 8ms}\n",
    )
    .unwrap();
    let o = schedlab(&["check", mix.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("lonely"), "{}", stderr(&o));
}

// -- finding 3: no way to ask about another policy -------------------------------------------

#[test]
fn policy_and_set_replace_the_policy_for_one_call() {
    let d = scratch("policy");
    let spec = d.join("q.yaml");
    std::fs::write(
        &spec,
        "platform: {cpus: 2}\npolicy: {name: pd2, quantum: 1ms}\ntasks:\n  - {name: a, wcet: 2ms, period: 4ms}\n  - {name: b, wcet: 3ms, period: 6ms}\n",
    )
    .unwrap();
    let spec = spec.to_str().unwrap();
    for p in ["gedf", "pedf", "gfp", "pd2", "run", "llf"] {
        let o = schedlab(&["analyze", spec, "--policy", p, "--json"]);
        assert!(matches!(o.status.code(), Some(0 | 1)), "{p}: {}", stderr(&o));
        assert_eq!(json(&o)["policy"], p);
        if p != "pd2" {
            assert!(stderr(&o).contains("policy.quantum: dropped"), "{p}: {}", stderr(&o));
        }
    }
    let o = schedlab(&["simulate", spec, "--policy", "pedf", "--horizon", "12ms"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = schedlab(&["simulate", spec, "--set", "quantum=500us", "--horizon", "12ms", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = schedlab(&["analyze", spec, "--policy", "gedf", "--set", "quantum=1ms", "--json"]);
    assert_eq!(o.status.code(), Some(2));
    let e = json(&o);
    assert_eq!(e["error"]["path"], "--set");
    assert!(e["error"]["message"].as_str().unwrap().contains("it takes none"), "{e}");
    let o = schedlab(&["analyze", spec, "--policy", "pedf", "--set", "slack=greedy"]);
    assert!(stderr(&o).contains("it takes partitioning"), "{}", stderr(&o));
    let o = schedlab(&["partition", spec, "--policy", "nope"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("gedf, pedf"), "{}", stderr(&o));
}

// -- finding 4: partition -o wrote a spec simulate refused -----------------------------------

#[test]
fn the_first_session_runs_on_a_generated_set_each_output_feeding_the_next() {
    let d = scratch("session");
    let at = |f: &str| d.join(f).to_str().unwrap().to_string();
    let step = |args: Vec<String>, code: i32| {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = schedlab(&a);
        assert_eq!(o.status.code(), Some(code), "{args:?}\n{}\n{}", stdout(&o), stderr(&o));
        o
    };
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    step(s(&["gen", "--seed", "7", "-o", &at("set.yaml")]), 0);
    step(s(&["check", &at("set.yaml")]), 0);
    step(s(&["analyze", &at("set.yaml")]), 0);
    step(s(&["analyze", &at("set.yaml"), "--policy", "np-gedf"]), 1);
    let o = step(s(&["partition", &at("set.yaml")]), 2);
    assert!(stderr(&o).contains("--policy pedf"), "{}", stderr(&o));
    step(s(&["partition", &at("set.yaml"), "--policy", "pedf", "-o", &at("pinned.yaml")]), 0);
    let pinned = std::fs::read_to_string(d.join("pinned.yaml")).unwrap();
    assert!(pinned.contains("name: pedf") && pinned.contains("partitioning:"), "{pinned}");
    step(
        s(&[
            "simulate",
            &at("pinned.yaml"),
            "--horizon",
            "1s",
            "--svg",
            &at("demo.svg"),
            "--trace",
            &at("demo.jsonl"),
            "--fail-on-miss",
        ]),
        0,
    );
    step(s(&["validate", &at("demo.jsonl")]), 0);
    let v = json(&step(s(&["analyze", &at("pinned.yaml"), "--json"]), 0));
    assert_eq!(v["policy"], "pedf");
    step(s(&["reduce", &at("set.yaml")]), 0);
}

// -- finding 5: exit codes did not report outcomes -------------------------------------------

#[test]
fn simulate_fails_on_hard_misses_when_asked() {
    let d = scratch("missexit");
    let hrt = hard_set(&d, "hrt");
    let hrt = hrt.to_str().unwrap();
    assert_eq!(schedlab(&["simulate", hrt, "--horizon", "1s"]).status.code(), Some(0));
    let o = schedlab(&["simulate", hrt, "--horizon", "1s", "--fail-on-miss"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("--fail-on-miss") && stderr(&o).contains("hrt"), "{}", stderr(&o));
    let v = json(&schedlab(&["simulate", hrt, "--horizon", "1s", "--fail-on-miss", "--json"]));
    assert!(v["hrt_misses"].as_u64().unwrap() > 0);
    assert!(v["failed"].as_str().unwrap().contains("--fail-on-miss"));
    // Misses of srt tasks do not fail it.
    let srt = hard_set(&d, "srt");
    assert_eq!(
        schedlab(&["simulate", srt.to_str().unwrap(), "--horizon", "1s", "--fail-on-miss"]).status.code(),
        Some(0)
    );
}

// -- finding 6: explanations leaked internals ------------------------------------------------

#[test]
fn explanations_are_readable_and_exact_only_on_request() {
    let d = scratch("readable");
    let hrt = hard_set(&d, "hrt");
    let hrt = hrt.to_str().unwrap();
    let fraction = |t: &str| {
        t.split(|c: char| c.is_whitespace() || c == '(' || c == ')' || c == ',').any(|w| {
            w.split_once('/').is_some_and(|(a, b)| {
                !a.is_empty()
                    && a.chars().all(|c| c.is_ascii_digit())
                    && !b.is_empty()
                    && b.chars().all(|c| c.is_ascii_digit())
            })
        })
    };
    for args in [vec!["analyze", hrt], vec!["analyze", hrt, "--explain"], vec!["analyze", hrt, "--all", "--explain"]] {
        let t = stdout(&schedlab(&args));
        assert!(!fraction(&t), "{args:?} prints a fraction:\n{t}");
        let raw_ns = t.as_bytes().windows(4).any(|w| w[0].is_ascii_digit() && &w[1..] == b" ns");
        assert!(!raw_ns, "{args:?} prints raw ns:\n{t}");
    }
    let short = stdout(&schedlab(&["analyze", hrt]));
    let tests = json(&schedlab(&["analyze", hrt, "--json"]))["outcomes"].as_array().unwrap().len();
    // One line per test, the soft result, the decision, and a header.
    assert!(short.lines().filter(|l| !l.trim().is_empty()).count() <= tests + 3, "{short}");
    assert!(short.contains("13.166667ms"), "the tardiness bound as a duration: {short}");
    let exact = stdout(&schedlab(&["analyze", hrt, "--explain", "--exact"]));
    assert!(fraction(&exact), "{exact}");
    // A P-EDF failure: no 2^-62 fixed-point value anywhere.
    let o = schedlab(&["analyze", hrt, "--policy", "pedf", "--all", "--explain", "--exact", "--json"]);
    let everything = stdout(&o) + &stdout(&schedlab(&["analyze", hrt, "--policy", "pedf", "--explain", "--exact"]));
    assert!(!everything.contains("4611686018427387904"), "{everything}");
}

// -- finding 10: silent surprises ------------------------------------------------------------

#[test]
fn surprises_are_announced() {
    let d = scratch("surprise");
    let set = d.join("set.yaml");
    assert_eq!(schedlab(&["gen", "--seed", "7", "-o", set.to_str().unwrap()]).status.code(), Some(0));
    let o = schedlab(&["simulate", set.to_str().unwrap(), "--horizon-cap", "1s"]);
    assert!(stderr(&o).contains("the hyperperiod is 857497.2s, longer than the horizon cap 1s"), "{}", stderr(&o));
    let o = schedlab(&["simulate", set.to_str().unwrap(), "--horizon", "100ms", "--exec", "uniform"]);
    assert!(stderr(&o).contains("no task has a `bcet`"), "{}", stderr(&o));
    let c = d.join("c.yaml");
    std::fs::write(
        &c,
        "platform: {cpus: 4, clusters: [[0, 1], [2, 3]]}\npolicy: {name: cedf}\ntasks:\n  - {name: a, wcet: 1ms, period: 4ms, cpu: 0}\n",
    )
    .unwrap();
    let o = schedlab(&["simulate", c.to_str().unwrap(), "--horizon", "8ms"]);
    assert!(stderr(&o).contains("tasks[0].cpu") && stderr(&o).contains("cluster: 0"), "{}", stderr(&o));
    let oh = d.join("oh.csv");
    std::fs::write(&oh, "TASK-COUNT,RELEASE,SCHEDULE,CXS,IPI-LATENCY,TICK,RELEASE-LATENCY\n2,1,1,1,1,0,1\n").unwrap();
    let o = schedlab(&["analyze", set.to_str().unwrap(), "--overheads", oh.to_str().unwrap()]);
    assert!(stderr(&o).contains("the tick term is missing"), "{}", stderr(&o));
    assert!(stdout(&o).contains("not measured (the tick term is missing)"), "{}", stdout(&o));
}

#[test]
fn a_closed_standard_output_ends_the_verb_quietly_as_sigpipe_would() {
    use std::os::fd::FromRawFd;
    // A pipe whose reading end is closed before the verb starts: its first
    // write to stdout fails with EPIPE.
    let mut fds = [0; 2];
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    unsafe { libc::close(fds[0]) };
    let out = unsafe { std::process::Stdio::from_raw_fd(fds[1]) };
    let o = Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args(["simulate", &repo("examples/demo.yaml")])
        .stdout(out)
        .output()
        .expect("run schedlab");
    assert_eq!(o.status.code(), Some(141), "{}", stderr(&o));
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
}
