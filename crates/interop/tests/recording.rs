//! Real recordings made on this machine (root): a schedlab spec is exported
//! as an rt-app workload, rt-app runs it under SCHED_FIFO (validated as
//! G-FP) and under SCHED_DEADLINE (validated as G-EDF) while a private
//! tracefs instance records `sched_switch`, `sched_wakeup` and
//! `sched_process_exit`; the text is imported and validated with a
//! tolerance taken from the recording's own wake-up latencies. The instance
//! is removed (and tracefs unmounted if it was not mounted) even when the
//! test fails.
//!
//! Needs root and rt-app (`make test` installs rt-app from Debian).

mod common;

use schedlab_interop::{ftrace, rtapp};
use schedlab_trace::Event;
use std::path::{Path, PathBuf};
use std::process::Command;

fn tracefs() -> (PathBuf, bool) {
    let mounts = std::fs::read_to_string("/proc/mounts").unwrap();
    if let Some(l) = mounts.lines().find(|l| l.split_whitespace().nth(2) == Some("tracefs")) {
        return (PathBuf::from(l.split_whitespace().nth(1).unwrap()), false);
    }
    let p = PathBuf::from("/sys/kernel/tracing");
    let ok = Command::new("mount").args(["-t", "tracefs", "nodev"]).arg(&p).status().unwrap().success();
    assert!(ok, "cannot mount tracefs at {} (root is needed)", p.display());
    (p, true)
}

/// A tracefs instance, removed (and tracefs unmounted if mounted here) on drop.
struct Instance {
    root: PathBuf,
    dir: PathBuf,
    mounted: bool,
}

impl Instance {
    fn new(name: &str) -> Instance {
        let (root, mounted) = tracefs();
        let dir = root.join("instances").join(format!("{name}-{}", std::process::id()));
        std::fs::create_dir(&dir).unwrap();
        let i = Instance { root, dir, mounted };
        for ev in ["sched_switch", "sched_wakeup", "sched_process_exit"] {
            i.write(&format!("events/sched/{ev}/enable"), "1");
        }
        i.write("trace_clock", "mono");
        i.write("buffer_size_kb", "8192");
        i
    }
    fn write(&self, f: &str, v: &str) {
        std::fs::write(self.dir.join(f), v).unwrap_or_else(|e| panic!("write {v} to {f}: {e}"));
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        let _ = std::fs::write(self.dir.join("tracing_on"), "0");
        let _ = std::fs::remove_dir(&self.dir);
        if self.mounted {
            let _ = Command::new("umount").arg(&self.root).status();
        }
    }
}

fn record(name: &str, workload: &Path, out: &Path) {
    assert!(
        Command::new("rt-app").arg("--help").output().is_ok(),
        "rt-app is not installed: `apt-get install rt-app` (make test does it)"
    );
    let inst = Instance::new(name);
    inst.write("tracing_on", "1");
    let r = Command::new("rt-app").arg(workload).output().unwrap();
    inst.write("tracing_on", "0");
    assert!(r.status.success(), "rt-app failed: {}", String::from_utf8_lossy(&r.stderr));
    std::fs::copy(inst.dir.join("trace"), out).unwrap();
    drop(inst);
}

fn cpus() -> u32 {
    std::thread::available_parallelism().map(|n| n.get() as u32).unwrap_or(1)
}

fn run_case(name: &str, policy: &str) {
    let m = cpus();
    let prio = if policy == "gfp" { ", priorities: rm" } else { "" };
    let yaml = format!(
        "platform: {{cpus: {m}}}\npolicy: {{name: {policy}{prio}}}\ntasks:\n  - {{name: fast, wcet: 1ms, period: 5ms}}\n  - {{name: mid, wcet: 2ms, period: 8ms}}\n  - {{name: slow, wcet: 3ms, period: 12ms}}\n  - {{name: long, wcet: 4ms, period: 20ms}}\n"
    );
    let spec = schedlab_model::load_str(&yaml, None, "<test>").unwrap().spec;
    let dir = common::tmpdir(name);
    let w = dir.join("workload.json");
    // A 1.5 s workload; jobs run 70 % of their WCET (the rest is left for
    // the kernel work the recording charges to the threads).
    let opts = rtapp::ExportOptions { duration: 1_500_000_000, ftrace: false, fill: 0.7 };
    std::fs::write(&w, rtapp::export(&spec, &opts).unwrap()).unwrap();
    // The exported workload imports back as the same task set.
    let (back, _) = rtapp::import(&w, &rtapp::ImportOptions { cpus: Some(m) }).unwrap();
    assert_eq!(back.tasks.len(), 4);
    assert_eq!(back.tasks[3].period.0, 20 * common::MS);
    assert_eq!(back.policy.unwrap().name.name(), policy);
    let mut attempt = 0;
    loop {
        attempt += 1;
        let txt = dir.join("trace.txt");
        record(name, &w, &txt);
        let mut header = None;
        let mut events: Vec<Event> = Vec::new();
        let stats = ftrace::import(&txt, &spec, &ftrace::Options::default(), &mut |h, e| {
            if header.is_none() {
                header = Some(h.clone());
            }
            if let Some(e) = e {
                events.push(e);
            }
            Ok(())
        })
        .unwrap();
        let h = header.unwrap();
        // The tolerance: twice the largest wake-up latency seen when a CPU
        // was free, i.e. the kernel's own decision latency on this machine.
        let tol = 2 * stats.wakeup_latency.max;
        eprintln!(
            "{name}: {} lines, {} jobs, wake-up latency (free CPU) n={} max={} ns mean={:.0} ns p99={} ns; tolerance {} ns",
            stats.lines, stats.jobs, stats.wakeup_latency.count, stats.wakeup_latency.max, stats.wakeup_latency.mean,
            stats.wakeup_latency.p99, tol
        );
        assert!(stats.wakeup_latency.count > 20, "too few latency samples");
        // Every task ran most of its jobs (≥ 80 % of 1.5 s / period).
        for (i, t) in spec.tasks.iter().enumerate() {
            let jobs =
                events.iter().filter(|e| matches!(e, Event::Completion { task, .. } if *task == i as u32)).count();
            let expect = 1_500_000_000 / t.period.0;
            assert!(jobs as u64 * 10 >= expect * 8, "{}: {jobs} completed jobs of ~{expect}", t.name);
        }
        let report = common::validate(&h, &events, tol);
        if report.pass {
            return;
        }
        let text = report.render();
        // A VM stall (a latency far above the kernel's usual one) may fail a
        // run; up to three attempts, with the evidence printed.
        eprintln!("{name}: attempt {attempt} failed validation:\n{text}");
        assert!(attempt < 3, "{name}: validation failed three times; last report:\n{text}");
    }
}

fn require_root() {
    assert_eq!(unsafe_geteuid(), 0, "this test records with tracefs and needs root (make test runs as root)");
}

fn unsafe_geteuid() -> u32 {
    // Without libc: the effective uid from /proc.
    let s = std::fs::read_to_string("/proc/self/status").unwrap();
    let l = s.lines().find(|l| l.starts_with("Uid:")).unwrap();
    l.split_whitespace().nth(2).unwrap().parse().unwrap()
}

#[test]
fn sched_fifo_recording_validates_as_gfp() {
    require_root();
    run_case("fifo", "gfp");
}

#[test]
fn sched_deadline_recording_validates_as_gedf() {
    require_root();
    run_case("deadline", "gedf");
}
