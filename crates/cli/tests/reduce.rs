//! `schedlab reduce` end to end.

use std::path::PathBuf;
use std::process::{Command, Output};

fn schedlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_schedlab")).args(args).output().expect("run schedlab")
}

fn text(b: &[u8]) -> String {
    String::from_utf8(b.to_vec()).unwrap()
}

fn write(name: &str, body: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("schedlab-reduce-test-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let p = d.join(name);
    std::fs::write(&p, body).unwrap();
    p
}

fn example() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/run.yaml").to_str().unwrap().to_string()
}

/// The thesis-shaped example: two levels, the root S6 over S1 (itself),
/// S5* and S3 (itself); S5 over the duals of S2 and S4.
#[test]
fn the_example_tree() {
    let o = schedlab(&["reduce", &example()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("RUN reduction of 6 tasks on 2 CPUs"), "{out}");
    assert!(out.contains("packing wf, slack greedy; utilisation 2/1 (2.000000)"), "{out}");
    assert!(out.contains("2 reduction levels; root S6"), "{out}");
    let tree: Vec<&str> = out.lines().skip_while(|l| !l.starts_with("S6")).collect();
    assert_eq!(
        tree,
        [
            "S6  level 2  rate 1/1 (1.000000)  root",
            "├─ S1  level 0  rate 2/5 (0.400000)",
            "│  ├─ t1  2ms / 20ms  rate 1/10 (0.100000)",
            "│  └─ t5  6ms / 20ms  rate 3/10 (0.300000)",
            "├─ S5*  level 1  rate 4/5 (0.800000)  dual rate 1/5 (0.200000)",
            "│  ├─ S2*  level 0  rate 9/10 (0.900000)  dual rate 1/10 (0.100000)",
            "│  │  ├─ t2  1ms / 5ms  rate 1/5 (0.200000)",
            "│  │  └─ t6  7ms / 10ms  rate 7/10 (0.700000)",
            "│  └─ S4*  level 0  rate 3/10 (0.300000)  dual rate 7/10 (0.700000)",
            "│     └─ t4  3ms / 10ms  rate 3/10 (0.300000)",
            "└─ S3  level 0  rate 2/5 (0.400000)",
            "   └─ t3  4ms / 10ms  rate 2/5 (0.400000)",
        ]
    );
    let o = schedlab(&["reduce", &example(), "--json"]);
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["levels"], 2);
    assert_eq!(v["roots"], serde_json::json!(["S6"]));
    assert_eq!(v["slack_policy"], "greedy");
    assert_eq!(v["packing"], "wf");
    assert!(v["file"].as_str().unwrap().ends_with("run.yaml"));
    let s5 = &v["servers"][4];
    assert_eq!(
        (&s5["name"], &s5["level"], &s5["rate"], &s5["parent"]),
        (&"S5".into(), &1.into(), &"4/5".into(), &"S6".into())
    );
    assert_eq!(s5["children"][0]["name"], "S2*");
    assert_eq!(s5["children"][0]["rate"], "1/10");
}

/// A spec whose policy is not RUN is reduced with the defaults (wfd,
/// greedy); a perfect packing is reported as partitioned EDF.
#[test]
fn other_policies_use_the_defaults() {
    let spec = write("pedf.yaml", "platform: {cpus: 2}\npolicy: {name: pedf, partitioning: ff}\ntasks:\n- {name: a, wcet: 6ms, period: 10ms}\n- {name: b, wcet: 4ms, period: 10ms}\n- {name: c, wcet: 1ms, period: 2ms}\n");
    let o = schedlab(&["reduce", spec.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("packing wfd, slack greedy"), "{out}");
    assert!(
        out.contains("0 reduction levels: every level-0 server is a unit server (S1, S2); RUN is partitioned EDF"),
        "{out}"
    );
}

#[test]
fn bad_input_exits_2_naming_the_field_and_the_fix() {
    let over = write(
        "over.yaml",
        "platform: {cpus: 1}\ntasks:\n- {name: a, wcet: 2ms, period: 3ms}\n- {name: b, wcet: 2ms, period: 3ms}\n",
    );
    let o = schedlab(&["reduce", over.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains("over.yaml: tasks: total utilisation 4/3")
            && err.contains("exceeds the 1 CPUs")
            && err.contains("add CPUs"),
        "{err}"
    );
    let o = schedlab(&["reduce", over.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["error"]["path"], "tasks");

    let dl = write("dl.yaml", "platform: {cpus: 2}\ntasks:\n- {name: a, wcet: 1ms, period: 3ms, deadline: 2ms}\n");
    let err = text(&schedlab(&["reduce", dl.to_str().unwrap()]).stderr);
    assert!(
        err.contains("tasks[0].deadline: `a` has deadline 2ms ≠ period 3ms: RUN needs implicit deadlines"),
        "{err}"
    );

    let heavy = write("heavy.yaml", "platform: {cpus: 2}\ntasks:\n- {name: a, wcet: 4ms, period: 3ms}\n");
    let err = text(&schedlab(&["reduce", heavy.to_str().unwrap()]).stderr);
    assert!(err.contains("tasks[0].wcet: tasks[0] `a` has utilisation") && err.contains("lower its wcet"), "{err}");

    let o = schedlab(&["reduce", "/nonexistent/set.yaml"]);
    assert_eq!(o.status.code(), Some(2));
    let broken = write("broken.yaml", "platform: {cpus: 2}\ntasks:\n- {name: a, wcet: 1ms, perod: 3ms}\n");
    let o = schedlab(&["reduce", broken.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("perod"));
}
