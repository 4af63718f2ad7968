//! `policy::driver` is the one implementation of the driver protocol: an
//! illegal `schedule` answer is the same typed error whoever drives, and no
//! other crate carries its own copy of the protocol (checked on the sources).

mod common;

use common::*;
use schedlab_model::{Placement, PolicyName};
use schedlab_policy::{
    Conformance, Cpu, Job, JobId, JobView, Kernel, Policy, PolicyInfo, Priority, ProtocolError, Time, TimerId,
    Violation,
};
use std::path::{Path, PathBuf};

/// Answers every `schedule` with a fixed job; marks the CPUs it is told to.
struct Rogue {
    info: PolicyInfo,
    answer: Option<JobId>,
    resched: Vec<Cpu>,
    storm: bool,
}

impl Rogue {
    fn new(cpus: u32, answer: Option<JobId>, resched: Vec<Cpu>) -> Rogue {
        Rogue {
            info: PolicyInfo {
                name: "rogue",
                domains: vec![(0..cpus).collect()],
                placement: vec![Placement::Global; 2],
                conformance: Conformance::Replay,
                quantum: None,
            },
            answer,
            resched,
            storm: false,
        }
    }
}

impl Policy for Rogue {
    fn info(&self) -> &PolicyInfo {
        &self.info
    }
    fn release(&mut self, _job: Job, k: &mut dyn Kernel) {
        for &c in &self.resched {
            k.resched(c);
        }
        if self.storm {
            k.arm(0, 0);
        }
    }
    fn complete(&mut self, _job: JobId, _k: &mut dyn Kernel) {}
    fn block(&mut self, _job: JobId, _k: &mut dyn Kernel) {}
    fn resume(&mut self, _job: JobId, _k: &mut dyn Kernel) {}
    fn timer(&mut self, _t: TimerId, _tag: u64, k: &mut dyn Kernel) {
        k.arm(k.now(), 0);
    }
    fn schedule(&mut self, _cpu: Cpu, _k: &mut dyn Kernel) -> Option<JobId> {
        self.answer
    }
    fn priority(&self, _job: &JobView) -> Option<Priority> {
        None
    }
}

fn err(p: Rogue, cpus: u32) -> ProtocolError {
    let s = spec(cpus, PolicyName::Gedf, &[(1_000, 10_000), (1_000, 10_000)]);
    match try_run(&s, Box::new(p), 100_000, &[]) {
        Err(e) => e,
        Ok(_) => panic!("the rogue policy was not caught"),
    }
}

const J0: JobId = JobId { task: 0, seq: 0 };

#[test]
fn each_illegal_answer_is_its_typed_violation() {
    let e = err(Rogue::new(2, Some(J0), vec![0, 1]), 2);
    assert_eq!((e.t, e.cpu, e.violation.clone()), (0, Some(1), Violation::TwoCpus { job: J0 }));
    assert_eq!(e.to_string(), "policy protocol error at t=0ns on CPU 1: schedule returned job 0:0 for two CPUs");

    let later = JobId { task: 0, seq: 5 };
    assert_eq!(err(Rogue::new(1, Some(later), vec![0]), 1).violation, Violation::NotEligible { job: later });

    let nobody = JobId { task: 9, seq: 0 };
    assert_eq!(err(Rogue::new(1, Some(nobody), vec![0]), 1).violation, Violation::UnknownTask { job: nobody });

    let mut p = Rogue::new(2, Some(J0), vec![1]);
    p.info.placement[0] = Placement::Cpu { cpu: 0 };
    assert_eq!(err(p, 2).violation, Violation::Placement { job: J0, cpu: 1, placement: Placement::Cpu { cpu: 0 } });

    assert_eq!(err(Rogue::new(1, None, vec![3]), 1).violation, Violation::UnknownCpu { asked: 3, cpus: 1 });

    let mut p = Rogue::new(1, None, vec![]);
    p.storm = true;
    let e = err(p, 1);
    assert!(matches!(e.violation, Violation::Timers { .. }), "{e}");
    assert!(e.to_string().contains("at one instant"), "{e}");
}

/// A job kept on CPU 0 by the policy may not also be answered for CPU 1
/// while CPU 0 is not rescheduled.
#[test]
fn a_job_on_a_cpu_that_was_not_rescheduled_is_refused() {
    struct Mover {
        info: PolicyInfo,
    }
    impl Policy for Mover {
        fn info(&self) -> &PolicyInfo {
            &self.info
        }
        fn release(&mut self, job: Job, k: &mut dyn Kernel) {
            if job.id.task == 0 {
                k.resched(0);
            } else {
                k.resched(1);
            }
        }
        fn complete(&mut self, _job: JobId, _k: &mut dyn Kernel) {}
        fn block(&mut self, _job: JobId, _k: &mut dyn Kernel) {}
        fn resume(&mut self, _job: JobId, _k: &mut dyn Kernel) {}
        fn timer(&mut self, _t: TimerId, _tag: u64, _k: &mut dyn Kernel) {}
        fn schedule(&mut self, cpu: Cpu, k: &mut dyn Kernel) -> Option<JobId> {
            // CPU 0 gets job 0:0 at 0; at 1 ns CPU 1 is asked alone and gets it too.
            (cpu == 0 || k.now() >= 1).then_some(J0)
        }
        fn priority(&self, _job: &JobView) -> Option<Priority> {
            None
        }
    }
    let info = Rogue::new(2, None, vec![]).info;
    let s = spec(2, PolicyName::Gedf, &[(1_000, 10_000), (1_000, 10_000)]);
    // Task 1 is released 1 µs later, so CPU 1 is rescheduled in a round of its own.
    let mut s = s;
    s.tasks[1].offset = schedlab_model::Duration(1);
    let e = match try_run(&s, Box::new(Mover { info }), 100_000, &[]) {
        Err(e) => e,
        Ok(_) => panic!("not caught"),
    };
    assert_eq!(e.violation, Violation::RunningElsewhere { job: J0, other: 0 });
    assert_eq!((e.t, e.cpu), (1, Some(1)));
}

/// A CPU marked by a later CPU's `schedule` in the same round, after it
/// answered, is asked again in the next round: CPU 1's answer hands job 0:0
/// to CPU 0, which said "nothing" a moment before.
#[test]
fn a_cpu_marked_after_its_answer_is_asked_again() {
    struct Handoff {
        info: PolicyInfo,
        ready: bool,
        done: [bool; 2],
    }
    impl Policy for Handoff {
        fn info(&self) -> &PolicyInfo {
            &self.info
        }
        fn release(&mut self, _job: Job, k: &mut dyn Kernel) {
            k.resched(0);
            k.resched(1);
        }
        fn complete(&mut self, job: JobId, k: &mut dyn Kernel) {
            self.done[job.task as usize] = true;
            k.resched(job.task);
        }
        fn block(&mut self, _job: JobId, _k: &mut dyn Kernel) {}
        fn resume(&mut self, _job: JobId, _k: &mut dyn Kernel) {}
        fn timer(&mut self, _t: TimerId, _tag: u64, _k: &mut dyn Kernel) {}
        fn schedule(&mut self, cpu: Cpu, k: &mut dyn Kernel) -> Option<JobId> {
            if self.done[cpu as usize] {
                return None;
            }
            if cpu == 1 {
                if !self.ready {
                    self.ready = true;
                    k.resched(0);
                }
                return Some(JobId { task: 1, seq: 0 });
            }
            self.ready.then_some(J0)
        }
        fn priority(&self, _job: &JobView) -> Option<Priority> {
            None
        }
    }
    let info = Rogue::new(2, None, vec![]).info;
    let s = spec(2, PolicyName::Gedf, &[(1_000, 10_000), (1_000, 10_000)]);
    let r = try_run(&s, Box::new(Handoff { info, ready: false, done: [false; 2] }), 5_000, &[])
        .unwrap_or_else(|e| panic!("{e}"));
    let done: Vec<(u32, Time)> = r.done.iter().map(|d| (d.id.task, d.finish)).collect();
    assert!(done.contains(&(0, 1_000)), "job 0:0 ran on CPU 0 from 0: {done:?}");
    assert!(done.contains(&(1, 1_000)), "{done:?}");
}

fn crates_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n != "target") {
                sources(&p, out);
            }
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The driver's entry points, and the users that must go through them.
const ENTRY_POINTS: [&str; 3] = ["Driver::new", ".instant(", "impl Host"];
const USERS: [&str; 4] = [
    "sim/src/kernel.rs",
    "rt/src/backend/dispatch/services.rs",
    "validate/src/replay.rs",
    "policy/tests/common/mod.rs",
];
const LOOPS: [&str; 4] = [
    "sim/src/engine.rs",
    "rt/src/backend/dispatch/dispatcher.rs",
    "validate/src/replay.rs",
    "policy/tests/common/mod.rs",
];

#[test]
fn no_crate_reimplements_the_driver() {
    let root = crates_dir();
    // The four drivers use the driver's entry points.
    for (host, lp) in USERS.iter().zip(LOOPS) {
        let h = std::fs::read_to_string(root.join(host)).unwrap();
        let l = std::fs::read_to_string(root.join(lp)).unwrap();
        assert!(h.contains(ENTRY_POINTS[2]), "{host} does not implement policy::driver::Host");
        for e in &ENTRY_POINTS[..2] {
            assert!(l.contains(e) || h.contains(e), "{lp} does not call {e}");
        }
    }
    // Nobody else is a policy's kernel, keeps a timer store or a round cap,
    // or calls `schedule` itself.
    let mut files = Vec::new();
    sources(&root, &mut files);
    let driver = root.join("policy/src");
    let this = root.join("policy/tests/driver.rs");
    let mut found = Vec::new();
    for f in files.iter().filter(|f| !f.starts_with(&driver) && **f != this) {
        let text = std::fs::read_to_string(f).unwrap();
        for (i, line) in text.lines().enumerate() {
            let l = line.trim_start();
            if l.starts_with("//") {
                continue;
            }
            let kernel_impl = l.starts_with("impl") && (l.contains(" Kernel for ") || l.contains("::Kernel for "));
            let timer_store = l.contains("fn arm(&mut self") || l.contains("fn cancel(&mut self, timer");
            let rounds = l.contains("MAX_ROUNDS") && !f.to_string_lossy().contains("/analysis/");
            let schedule_call = l.contains(".schedule(") && l.contains(", &mut ");
            if kernel_impl || timer_store || rounds || schedule_call {
                found.push(format!("{}:{}: {}", f.display(), i + 1, l));
            }
        }
    }
    assert!(found.is_empty(), "a second copy of the driver protocol:\n{}", found.join("\n"));
}

/// The lint is not vacuous: it finds the shapes it forbids.
#[test]
fn the_lint_sees_a_copy() {
    let l = "impl Kernel for MyKernel {";
    assert!(l.starts_with("impl") && l.contains(" Kernel for "));
    let mut files = Vec::new();
    sources(&crates_dir().join("policy/src/driver"), &mut files);
    let arms = files
        .iter()
        .filter(|f| std::fs::read_to_string(f).unwrap().lines().any(|l| l.contains("fn arm(&mut self")))
        .count();
    assert!(arms >= 1, "the driver's own timer store is where the lint looks for `fn arm`");
}

/// `segment_end` reaches the policy after the instant's completions and
/// before its blocks and releases; the segment end of a job the policy does
/// not know (completed, or never released) is dropped; a policy that does
/// not override `segment_end` is unaffected (the default does nothing).
#[test]
fn segment_ends_are_delivered_between_completions_and_blocks() {
    use schedlab_model::SegmentKind;
    use schedlab_policy::{Delivery, Driver, Host};
    struct Log {
        info: PolicyInfo,
        seen: Vec<String>,
    }
    impl Policy for Log {
        fn info(&self) -> &PolicyInfo {
            &self.info
        }
        fn release(&mut self, job: Job, _k: &mut dyn Kernel) {
            self.seen.push(format!("release {}", job.id.task));
        }
        fn complete(&mut self, job: JobId, _k: &mut dyn Kernel) {
            self.seen.push(format!("complete {}", job.task));
        }
        fn segment_end(&mut self, job: JobId, segment: u32, kind: SegmentKind, _k: &mut dyn Kernel) {
            self.seen.push(format!("segment_end {} {segment} {}", job.task, kind.name()));
        }
        fn block(&mut self, job: JobId, _k: &mut dyn Kernel) {
            self.seen.push(format!("block {}", job.task));
        }
        fn resume(&mut self, _job: JobId, _k: &mut dyn Kernel) {}
        fn timer(&mut self, _t: TimerId, _tag: u64, _k: &mut dyn Kernel) {}
        fn schedule(&mut self, _cpu: Cpu, _k: &mut dyn Kernel) -> Option<JobId> {
            None
        }
        fn priority(&self, _job: &JobView) -> Option<Priority> {
            None
        }
    }
    struct H {
        now: u64,
        deliveries: Vec<Delivery<()>>,
    }
    impl Host for H {
        fn now(&self) -> u64 {
            self.now
        }
        fn consumed(&self, _job: JobId) -> u64 {
            0
        }
        fn running(&self, _cpu: Cpu) -> Option<JobId> {
            None
        }
        fn switch(&mut self, _cpus: &[Cpu], _chosen: &[Option<JobId>]) {}
        fn delivering(&mut self, what: &Delivery<()>) {
            self.deliveries.push(*what);
        }
    }
    let mut info = Rogue::new(1, None, vec![]).info;
    info.placement = vec![Placement::Global; 3];
    let mut p = Log { info, seen: Vec::new() };
    let mut h = H { now: 0, deliveries: Vec::new() };
    let mut d: Driver = Driver::new(1, vec![Placement::Global; 3]);
    let job = |task| Job { id: JobId { task, seq: 0 }, release: 0, deadline: 100 };
    d.release(job(0), (), 0);
    d.release(job(1), (), 0);
    d.instant(&mut p, &mut h, 0).unwrap();
    p.seen.clear();
    h.now = 5;
    d.block(job(1).id);
    d.segment_end(job(1).id, 0, SegmentKind::Exec);
    d.segment_end(job(0).id, 2, SegmentKind::Exec);
    d.complete(job(0).id);
    d.segment_end(job(2).id, 0, SegmentKind::Exec);
    d.release(job(2), (), 5);
    d.instant(&mut p, &mut h, 5).unwrap();
    assert_eq!(p.seen, ["complete 0", "segment_end 1 0 exec", "block 1", "release 2"]);
    assert!(h.deliveries.contains(&Delivery::SegmentEnd { job: job(1).id, segment: 0, kind: SegmentKind::Exec }));
    // The default `segment_end` of a policy that does not use segments: nothing happens.
    let mut r = Rogue::new(1, None, vec![]);
    let mut d: Driver = Driver::new(1, vec![Placement::Global; 2]);
    d.release(job(0), (), 0);
    d.instant(&mut r, &mut h, 0).unwrap();
    d.segment_end(job(0).id, 0, SegmentKind::Exec);
    d.instant(&mut r, &mut h, 0).unwrap();
    assert_eq!(d.delivered(0).map(|(j, _)| j.id), Some(job(0).id));
}
