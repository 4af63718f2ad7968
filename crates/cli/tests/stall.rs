//! A run stopped with SIGSTOP and continued (root): the stop is reported as
//! a platform stall, not as overhead, and no CPU's overhead total exceeds
//! the run's length.

use std::process::{Command, Stdio};

#[test]
fn a_stopped_run_reports_a_stall_not_overhead() {
    assert_eq!(unsafe { libc::geteuid() }, 0, "this test runs real-time threads: run it as root");
    let d = std::env::temp_dir().join(format!("schedlab-stall-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let spec = d.join("s.yaml");
    std::fs::write(&spec, "platform: {cpus: 2}\npolicy: {name: gedf}\ntasks:\n  - {name: a, wcet: 1ms, period: 10ms}\n  - {name: b, wcet: 2ms, period: 20ms}\n").unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args(["run", spec.to_str().unwrap(), "--duration", "2s", "--wait", "--json", "--workload", "spin-cpu"])
        .args(["--start-margin", "200ms"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id() as i32;
    std::thread::sleep(std::time::Duration::from_millis(900));
    unsafe { libc::kill(pid, libc::SIGSTOP) };
    std::thread::sleep(std::time::Duration::from_millis(1000));
    unsafe { libc::kill(pid, libc::SIGCONT) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let stalls = v["run"]["stalls"].as_array().unwrap();
    let worst = stalls.iter().filter_map(|s| s["ns"].as_u64()).max().unwrap_or(0);
    assert!(worst > 800_000_000, "the 1 s stop is a stall of about 1 s: {stalls:?}");
    for o in v["run"]["overheads"].as_array().unwrap() {
        assert!(o["max_ns"].as_u64().unwrap() <= 1_000_000, "no overhead sample is a stall: {o}");
    }
    let horizon = v["horizon"].as_u64().or_else(|| v["totals"]["horizon"].as_u64());
    for c in v["cpus"].as_array().into_iter().flatten() {
        if let (Some(oh), Some(h)) = (c["overhead"].as_u64(), horizon) {
            assert!(oh <= h, "cpu overhead total {oh} within the run's {h} ns");
        }
    }
    assert!(v["run"]["notes"].as_array().unwrap().iter().any(|n| n.as_str().unwrap().contains("platform stall")));
    std::fs::remove_dir_all(&d).unwrap();
}
