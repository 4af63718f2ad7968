//! Real recordings made on this machine (root): a schedlab spec is exported
//! as an rt-app workload and rt-app runs it while the kernel's scheduler
//! events are recorded, three ways:
//!
//! - SCHED_FIFO, global (validated as G-FP): a private tracefs instance with
//!   `sched_switch`, `sched_wakeup` and `sched_process_exit`, read as the
//!   instance's `trace` text;
//! - SCHED_DEADLINE (validated as G-EDF): the same instance, saved with
//!   `trace-cmd extract` and printed with `trace-cmd report`;
//! - SCHED_FIFO, pinned (validated as P-FP): `perf sched record`, printed
//!   with `perf script` (`#[ignore]`d: see the test).
//!
//! rt-app writes its own job markers (`global.ftrace`) into
//! `/sys/kernel/debug/tracing/trace_marker`, a fixed path; it runs in a
//! private mount namespace where that folder is the instance, so its markers
//! reach the instance (and the tracefs and trace-cmd recordings) and nothing
//! else. The text is imported with releases from rt-app's markers
//! (`--release rt-app`); perf cannot record `trace_marker` writes, so its
//! recording is imported with releases from wake-ups. Every thread maps to
//! its task, every imported job is one step rt-app ran (one `begins loop`
//! marker each) and the jobs imported match the steps of rt-app's own
//! per-thread logs from time zero on; the schedule validates against the
//! spec's policy with the tolerance taken from the recording (the largest of
//! the longest wait of a job while a CPU it may use ran no mapped job, the
//! release jitter, and the longest a job stayed switched in beyond the run it
//! asked for; plus 1 ms), which must stay within a fifth of the shortest
//! WCET. A recording is classified a platform stall, its evidence printed,
//! and made again (five recordings at most) when that tolerance is larger,
//! or when it lost switches of the workload's threads (the kernel and perf
//! drop events without a LOST record) and its jobs do not match rt-app's,
//! too few waits were measured or the validation fails; without lost
//! switches, those are failures. Under the fixed-priority policies, the same
//! schedule against the reversed priority order must fail. The instance is
//! removed (and tracefs unmounted if it was not mounted) even when the test
//! fails.
//!
//! Needs root, rt-app, trace-cmd and perf (`make test` installs them from
//! Debian).

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

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Recorder {
    Tracefs,
    TraceCmd,
    Perf,
}

fn tool(name: &str, package: &str) {
    assert!(
        Command::new(name).arg("--help").output().is_ok(),
        "{name} is not installed: `apt-get install {package}` (make test does it)"
    );
}

fn run_ok(c: &mut Command) -> Vec<u8> {
    let r = c.output().unwrap_or_else(|e| panic!("{c:?}: {e}"));
    assert!(r.status.success(), "{c:?} failed: {}", String::from_utf8_lossy(&r.stderr));
    r.stdout
}

fn record(name: &str, how: Recorder, workload: &Path, out: &Path) {
    tool("rt-app", "rt-app");
    if how == Recorder::Perf {
        tool("perf", "linux-perf");
        let data = out.with_extension("data");
        // CLOCK_MONOTONIC (as rt-app's logs), 4 MB of buffer per CPU (the
        // default 512 kB may overflow while the real-time threads hold the
        // CPUs and perf cannot drain it), and the losses printed, so that an
        // import fails instead of silently missing events.
        let r = Command::new("perf")
            .current_dir(out.parent().unwrap())
            .args(["sched", "record", "-k", "mono", "-m", "4M", "-o"])
            .arg(&data)
            .arg("--")
            .arg("rt-app")
            .arg(workload)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&r.stderr);
        assert!(r.status.success(), "perf sched record failed: {err}");
        if let Some(l) = err.lines().find(|l| l.contains(" lost ")) {
            eprintln!("{name}: perf sched record: {l}");
        }
        let text = run_ok(Command::new("perf").args(["script", "--show-lost-events", "-i"]).arg(&data));
        std::fs::write(out, text).unwrap();
        return;
    }
    let inst = Instance::new(name);
    inst.write("tracing_on", "1");
    // rt-app writes its per-thread logs into its current folder, and its job
    // markers into /sys/kernel/debug/tracing/trace_marker (a fixed path): in
    // a private mount namespace, that folder is the instance, so the markers
    // reach the instance and nothing else.
    let stage = out.parent().unwrap().join("instance");
    std::fs::create_dir_all(&stage).unwrap();
    let script = format!(
        "mount --bind '{inst}' '{stage}' && mount -t tmpfs none /sys/kernel/debug && \
         mkdir /sys/kernel/debug/tracing && mount --move '{stage}' /sys/kernel/debug/tracing && exec rt-app '{w}'",
        inst = inst.dir.display(),
        stage = stage.display(),
        w = workload.display()
    );
    run_ok(
        Command::new("unshare")
            .args(["--mount", "--propagation", "private", "--", "sh", "-c", &script])
            .current_dir(out.parent().unwrap()),
    );
    inst.write("tracing_on", "0");
    if how == Recorder::TraceCmd {
        tool("trace-cmd", "trace-cmd");
        let data = out.with_extension("dat");
        let instance = inst.dir.file_name().unwrap().to_str().unwrap().to_string();
        run_ok(Command::new("trace-cmd").args(["extract", "-B", &instance, "-o"]).arg(&data));
        let text = run_ok(Command::new("trace-cmd").arg("report").arg("-i").arg(&data));
        std::fs::write(out, text).unwrap();
    } else {
        std::fs::copy(inst.dir.join("trace"), out).unwrap();
    }
    drop(inst);
}

fn cpus() -> u32 {
    std::thread::available_parallelism().map(|n| n.get() as u32).unwrap_or(1)
}

/// Recordings made at most: a stalled one (its evidence printed) is made
/// again.
const ATTEMPTS: u32 = 5;

/// The share of its WCET a job runs.
const FILL: f64 = 0.7;

/// How long rt-app runs the workload.
const DURATION: u64 = 2_000_000_000;

/// Records the workload, imports it, checks the jobs against rt-app's logs
/// and validates the schedule against the policy.
fn run_case(name: &str, policy: &str, how: Recorder) {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let m = cpus();
    let prio = if policy == "gedf" { "" } else { ", priorities: rm" };
    // P-FP: the tasks pinned round-robin over the CPUs.
    let pin = |i: u32| if policy == "pfp" { format!(", cpu: {}", i % m) } else { String::new() };
    // The recordings hold every thread of the machine: the threads' names
    // (the tasks') carry this process's id, so that no other thread has them.
    let tag = std::process::id() % 100_000;
    let yaml = format!(
        "platform: {{cpus: {m}}}\npolicy: {{name: {policy}{prio}}}\ntasks:\n  - {{name: fast{tag}, wcet: 40ms, period: 100ms{}}}\n  - {{name: mid{tag}, wcet: 50ms, period: 150ms{}}}\n  - {{name: slow{tag}, wcet: 60ms, period: 200ms{}}}\n  - {{name: long{tag}, wcet: 80ms, period: 400ms{}}}\n",
        pin(0), pin(1), pin(2), pin(3)
    );
    let spec = schedlab_model::load_str(&yaml, None, "<test>").unwrap().spec;
    let dir = common::tmpdir(name);
    let w = dir.join("workload.json");
    // A 2 s workload; jobs run 70 % of their WCET (the rest is left for
    // the kernel work the recording charges to the threads). rt-app writes
    // its job markers, except under perf, which cannot record them.
    let opts = rtapp::ExportOptions { duration: DURATION, ftrace: how != Recorder::Perf, fill: FILL };
    std::fs::write(&w, rtapp::export(&spec, &opts).unwrap()).unwrap();
    // The exported workload imports back as the same task set.
    let (back, _) = rtapp::import(&w, &rtapp::ImportOptions { cpus: Some(m) }).unwrap();
    assert_eq!(back.tasks.len(), 4);
    assert_eq!(back.tasks[3].period.0, 400 * common::MS);
    assert_eq!(back.policy.unwrap().name.name(), policy);
    let mut attempt = 0;
    loop {
        attempt += 1;
        // Each attempt keeps its recording (the evidence of a stall).
        let txt = dir.join(format!("trace-{attempt}.txt"));
        record(name, how, &w, &txt);
        let mut header = None;
        let mut events: Vec<Event> = Vec::new();
        // The first 400 ms (the longest period) after the threads' set-up
        // are a warm-up: a SCHED_DEADLINE thread that overran its runtime in
        // its set-up may stay throttled until its next period.
        // perf cannot record rt-app's markers: its releases are wake-ups.
        let release = if how == Recorder::Perf { ftrace::Release::Wakeup } else { ftrace::Release::RtApp };
        let iopts = ftrace::Options { skip: 400_000_000, release, ..Default::default() };
        let stats = ftrace::import(&txt, &spec, &iopts, &mut |h, e| {
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
        assert_eq!(h.spec.policy.as_ref().map(|p| p.name.name()), Some(policy));
        // Jobs imported against the steps rt-app ran (its per-thread log, one
        // row per step with its start in µs of CLOCK_MONOTONIC, the
        // recording's clock) from time zero on: a step released just before
        // time zero may be left out; with releases from wake-ups, the wake-up
        // that ends a thread's last sleep (it then exits) counts as one more.
        let mut wrong = Vec::new();
        if stats.unconfirmed_jobs > 0 {
            wrong.push(format!("{} jobs without exactly one rt-app begin marker", stats.unconfirmed_jobs));
        }
        for (i, t) in spec.tasks.iter().enumerate() {
            let jobs = events.iter().filter(|e| matches!(e, Event::Release { task, .. } if *task == i as u32)).count();
            let done =
                events.iter().filter(|e| matches!(e, Event::Completion { task, .. } if *task == i as u32)).count();
            let steps = rtapp_steps(&dir.join(format!("rt-app-{}-{i}.log", t.name)), stats.zero);
            let extra = usize::from(how == Recorder::Perf);
            eprintln!("  {}: {jobs} jobs imported ({done} completed), rt-app ran {steps} steps from time zero", t.name);
            if !(jobs + 1 >= steps && jobs <= steps + extra && done == jobs) {
                wrong.push(format!("{}: {jobs} jobs imported ({done} completed) for {steps} steps", t.name));
            }
        }
        if !wrong.is_empty() {
            // Jobs that do not match rt-app's are the recorder's loss when it
            // lost switches of the workload's threads (the kernel drops some
            // under load, perf more, both without a LOST record): a platform
            // stall; else the import is wrong.
            let Some(line) = stats.first_missing_switch else {
                panic!("{name}: the imported jobs do not match rt-app's: {}", wrong.join("; "));
            };
            eprintln!(
                "{name}: attempt {attempt}: platform stall: the recording lost {} switches of the workload's threads \
                 (the first at line {line} of {}), and the jobs do not match rt-app's: {}",
                stats.missing_switches,
                txt.display(),
                wrong.join("; ")
            );
            assert!(attempt < ATTEMPTS, "{name}: {ATTEMPTS} recordings, each stalled");
            continue;
        }
        // The tolerance comes from the recording's measured latencies, and
        // 1 ms: the longest a job waited while a CPU it may use ran no mapped
        // job (what the validator reads as an idle CPU: the kernel's wake-up
        // and migration latency, other threads holding the CPU), the jitter
        // of the timers' wake-ups against each task's period grid (a late
        // release), and the most a job stayed switched in beyond the run it
        // asked for (the CPU did not run it while the kernel saw it running:
        // interrupts, or the VM's host holding the CPU). It must stay small
        // against the jobs it checks (at most a fifth of the shortest WCET),
        // or the recording is a platform stall.
        let wait = &stats.free_cpu_wait;
        let mut stretch = (0u64, String::new(), 0u64, 0u64);
        for e in &events {
            if let Event::Completion { t, task, job, exec, .. } = e {
                let asked = (spec.tasks[*task as usize].wcet.0 as f64 * FILL / 1000.0).round() as u64 * 1000;
                if exec.saturating_sub(asked) > stretch.0 {
                    stretch = (exec - asked, spec.tasks[*task as usize].name.clone(), *job, *t);
                }
            }
        }
        let tol = wait.max.max(stats.release_jitter).max(stretch.0) + common::MS;
        let bound = spec.tasks.iter().map(|t| t.wcet.0).min().unwrap() / 5;
        eprintln!(
            "{name} ({how:?}, attempt {attempt}): {} lines, {} jobs ({} without exactly one rt-app begin marker); \
             {} switches lost; waits with a free CPU n={} max={} ns mean={:.0} ns p99={} ns; release jitter {} ns; \
             longest run beyond its request {} ns; tolerance {tol} ns (bound {bound} ns)",
            stats.lines,
            stats.jobs,
            stats.unconfirmed_jobs,
            stats.missing_switches,
            wait.count,
            wait.max,
            wait.mean,
            wait.p99,
            stats.release_jitter,
            stretch.0
        );
        if wait.count < 20 {
            // Few waits closed: switch-ins were lost (else a panic below).
            let Some(line) = stats.first_missing_switch else { panic!("{name}: only {} waits measured", wait.count) };
            eprintln!(
                "{name}: attempt {attempt}: platform stall: the recording lost {} switches of the workload's threads \
                 (the first at line {line} of {}), and only {} waits were measured",
                stats.missing_switches,
                txt.display(),
                wait.count
            );
            assert!(attempt < ATTEMPTS, "{name}: {ATTEMPTS} recordings, each stalled");
            continue;
        }
        if tol > bound {
            let l = stats.longest_wait.as_ref().expect("a longest wait");
            eprintln!(
                "{name}: attempt {attempt}: platform stall, the tolerance {tol} ns is larger than a fifth of the \
                 shortest job ({bound} ns): job of `{}` waited {} ns until {} ns with a free CPU (running `{}` \
                 when it freed); release jitter {} ns; job {} of `{}` stayed switched in {} ns beyond its request \
                 (completed at {} ns)",
                l.task, l.free, l.until, l.holder, stats.release_jitter, stretch.2, stretch.1, stretch.0, stretch.3
            );
            assert!(attempt < ATTEMPTS, "{name}: {ATTEMPTS} recordings, each stalled");
            continue;
        }
        let report = common::validate(&h, &events, tol);
        // The tolerance covers every lag the recording measured: a failure is
        // the schedule's, unless the recording lost switches of the
        // workload's threads (their times were inferred): then it is the
        // recorder's loss, a platform stall.
        if !report.pass {
            let Some(line) = stats.first_missing_switch else {
                panic!("{name}: validation failed with tolerance {tol} ns:\n{}", report.render());
            };
            eprintln!(
                "{name}: attempt {attempt}: platform stall: the recording lost {} switches of the workload's threads \
                 (the first at line {line} of {}), and validation failed with tolerance {tol} ns:\n{}",
                stats.missing_switches,
                txt.display(),
                report.render()
            );
            assert!(attempt < ATTEMPTS, "{name}: {ATTEMPTS} recordings, each stalled");
            continue;
        }
        if policy != "gedf" {
            // The check can fail: the same schedule against the reversed
            // priority order breaks it.
            let mut wrong = h.clone();
            wrong.spec.policy.as_mut().unwrap().priorities = Some(schedlab_model::Priorities::Explicit);
            for (i, t) in wrong.spec.tasks.iter_mut().enumerate() {
                t.priority = Some(10 - i as u32);
            }
            assert!(!common::validate(&wrong, &events, tol).pass, "{name}: reversed priorities validate too");
        }
        return;
    }
}

/// The steps an rt-app thread's log (one row per step: idx perf run period
/// start end ..., times in µs) lists whose start is at or after `zero` (ns).
fn rtapp_steps(log: &Path, zero: u64) -> usize {
    let text = std::fs::read_to_string(log).unwrap_or_else(|e| panic!("{}: {e}", log.display()));
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_whitespace().nth(4)?.parse::<u64>().ok())
        .filter(|start_us| start_us * 1000 >= zero)
        .count()
}

/// The recordings run one at a time: two workloads at once would overload
/// the CPUs, and `perf sched record` records every task of the machine.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

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
fn sched_fifo_tracefs_recording_validates_as_gfp() {
    require_root();
    run_case("fifo", "gfp", Recorder::Tracefs);
}

#[test]
fn sched_deadline_trace_cmd_recording_validates_as_gedf() {
    require_root();
    run_case("deadline", "gedf", Recorder::TraceCmd);
}

/// Ignored: on a quiet machine (2026-11-25), every one of ten recordings in
/// a row lost 17-22 switches of the workload's threads (most switches into
/// a pinned thread out of idle, none reported lost) and with them the jobs
/// of two tasks (1-2 of 10, 0 of 3), where an earlier series passed 15 of
/// 16: perf's silent losses (docs/interop.md, "Lost events without a LOST
/// record") are not a rare stall here. Run it with `-- --ignored`.
#[test]
#[ignore = "perf sched record loses most switches into a pinned thread on this VM (doc comment)"]
fn pinned_sched_fifo_perf_recording_validates_as_pfp() {
    require_root();
    run_case("pinned", "pfp", Recorder::Perf);
}
