//! A policy that breaks the protocol is a simulator error, not a panic.

mod common;

use common::*;
use schedlab_model::Placement;
use schedlab_policy::{Conformance, Cpu, Job, JobId, JobView, Kernel, Policy, PolicyInfo, Priority, TimerId};
use schedlab_sim::{simulate_collect, SimConfig, SimError};

/// Answers every `schedule` call with a fixed job, and marks CPUs as told.
struct Bad {
    info: PolicyInfo,
    answer: Option<JobId>,
    resched: Vec<Cpu>,
    timer_at_now: bool,
}

impl Bad {
    fn new(cpus: u32, tasks: usize, answer: Option<JobId>, resched: Vec<Cpu>) -> Bad {
        Bad {
            info: PolicyInfo {
                name: "bad",
                domains: vec![(0..cpus).collect()],
                placement: vec![Placement::Global; tasks],
                conformance: Conformance::Replay,
                quantum: None,
            },
            answer,
            resched,
            timer_at_now: false,
        }
    }
}

impl Policy for Bad {
    fn info(&self) -> &PolicyInfo {
        &self.info
    }
    fn release(&mut self, _job: Job, k: &mut dyn Kernel) {
        for &c in &self.resched {
            k.resched(c);
        }
        if self.timer_at_now {
            k.arm(0, 1);
        }
    }
    fn complete(&mut self, _job: JobId, _k: &mut dyn Kernel) {}
    fn block(&mut self, _job: JobId, _k: &mut dyn Kernel) {}
    fn resume(&mut self, _job: JobId, _k: &mut dyn Kernel) {}
    fn timer(&mut self, _t: TimerId, _tag: u64, k: &mut dyn Kernel) {
        k.arm(k.now(), 1);
        k.resched(0);
    }
    fn schedule(&mut self, _cpu: Cpu, _k: &mut dyn Kernel) -> Option<JobId> {
        self.answer
    }
    fn priority(&self, _job: &JobView) -> Option<Priority> {
        None
    }
}

fn err(p: &mut Bad, cpus: u32) -> SimError {
    let s = spec(cpus, vec![task("a", 1_000, 10_000), task("b", 1_000, 10_000)]);
    simulate_collect(&s, p, &SimConfig { horizon: Some(100_000), ..SimConfig::default() }).unwrap_err()
}

#[test]
fn same_job_on_two_cpus() {
    let e = err(&mut Bad::new(2, 2, Some(JobId { task: 0, seq: 0 }), vec![0, 1]), 2);
    assert!(matches!(&e, SimError::Policy { t: 0, cpu: Some(1), message } if message.contains("two CPUs")), "{e}");
}

#[test]
fn job_not_released() {
    let e = err(&mut Bad::new(1, 2, Some(JobId { task: 0, seq: 5 }), vec![0]), 1);
    assert!(matches!(&e, SimError::Policy { message, .. } if message.contains("not eligible")), "{e}");
    let e = err(&mut Bad::new(1, 2, Some(JobId { task: 9, seq: 0 }), vec![0]), 1);
    assert!(e.to_string().contains("task the spec does not have"), "{e}");
}

#[test]
fn resched_of_a_missing_cpu() {
    let e = err(&mut Bad::new(1, 2, None, vec![3]), 1);
    assert!(e.to_string().contains("resched(3)"), "{e}");
}

#[test]
fn placement_is_enforced() {
    let mut p = Bad::new(2, 2, Some(JobId { task: 0, seq: 0 }), vec![1]);
    p.info.placement[0] = Placement::Cpu { cpu: 0 };
    let e = err(&mut p, 2);
    assert!(e.to_string().contains("may not run on CPU 1"), "{e}");
}

#[test]
fn a_timer_rearmed_for_now_forever_is_reported() {
    let mut p = Bad::new(1, 2, None, vec![]);
    p.timer_at_now = true;
    let e = err(&mut p, 1);
    assert!(e.to_string().contains("at one instant"), "{e}");
}

#[test]
fn placement_count_must_match() {
    let s = spec(1, vec![task("a", 1_000, 10_000)]);
    let e = simulate_collect(&s, &mut Bad::new(1, 3, None, vec![]), &SimConfig::default()).unwrap_err();
    assert!(matches!(e, SimError::Config(_)));
}

/// The simulator reports the driver's typed violation, in the driver's words.
#[test]
fn the_error_is_the_drivers() {
    use schedlab_policy::Violation;
    let e = err(&mut Bad::new(2, 2, Some(JobId { task: 0, seq: 0 }), vec![0, 1]), 2);
    let v = Violation::TwoCpus { job: JobId { task: 0, seq: 0 } };
    assert_eq!(e, SimError::Policy { t: 0, cpu: Some(1), message: v.to_string() });
}
