//! Replay: the policy driven by the trace's events, its per-CPU decisions
//! compared with the trace's.

mod common;
use common::*;
use schedlab_model::PolicyName;
use schedlab_policy::{Conformance, Cpu, Job, JobId, JobView, Kernel, Policy, PolicyInfo, Priority, TimerId};
use schedlab_trace::{Event, Placement};
use schedlab_validate::{Check, Mode, Options, PolicyChecks};
use std::collections::VecDeque;

fn replay_opts() -> Options {
    Options { mode: Mode::Replay, ..Options::default() }
}

#[test]
fn replaying_gedf_over_a_gedf_trace_passes() {
    let (h, t) = gedf_example();
    let r = check(&h, &t, Some(TestPolicy::gedf(&h).as_replay()));
    assert_pass(&r);
    assert_eq!(r.policy_checks, PolicyChecks::Replay);
    assert!(r.check(Check::Replay).is_some());
    assert!(r.check(Check::Conformance).is_none());
    assert_eq!(r.latency.as_ref().unwrap().all.max, 0);
    // Mode::Replay replays a priority-driven policy too.
    let r = check_opts(&h, &t, Some(TestPolicy::gedf(&h)), &replay_opts());
    assert_pass(&r);
    assert_eq!(r.policy_checks, PolicyChecks::Replay);
}

#[test]
fn replay_catches_two_swapped_jobs() {
    let (h, t) = gedf_example();
    // T1#0 and T2#0 dispatched on each other's CPU at 0 (and completing there).
    let ev: Vec<Event> = t
        .events
        .iter()
        .map(|e| match *e {
            Event::SwitchTo { t: 0, cpu, task, job } => Event::SwitchTo { t: 0, cpu: 1 - cpu, task, job },
            Event::Completion { t, cpu: 0, task: 0, job: 0, exec, forced } => {
                Event::Completion { t, cpu: 1, task: 0, job: 0, exec, forced }
            }
            Event::Completion { t, cpu: 1, task: 1, job: 0, exec, forced } => {
                Event::Completion { t, cpu: 0, task: 1, job: 0, exec, forced }
            }
            ref e => e.clone(),
        })
        .collect();
    // Still a G-EDF schedule, but not the policy's CPU assignment... except
    // that T1#0 then completes on cpu 1 at 3ms, where T3#0 is not dispatched.
    let t = Trace { events: ev, ..Trace::new(&h.spec) };
    let r = check(&h, &t, Some(TestPolicy::gedf(&h).as_replay()));
    assert!(r.violations(Check::Replay) > 0, "{}", r.render());
    let v = r.first(Check::Replay).unwrap();
    assert_eq!(v.message, "t=0ns cpu 0: G-EDF replay: cpu 0 runs T2#0, the policy chose T1#0");
    assert_eq!(v.expected, vec!["T1#0"]);
}

#[test]
fn replay_catches_a_priority_inversion() {
    let (h, _) = gedf_example();
    let t = Trace::new(&h.spec)
        .rel(0, 0, 0)
        .rel(0, 1, 0)
        .rel(0, 2, 0)
        .to(0, 0, 0, 0)
        .to(0, 1, 1, 0)
        .done(3 * MS, 0, 0, 0)
        .to(3 * MS, 0, 2, 0)
        .rel(ms(3.5), 3, 0)
        .away(ms(3.5), 1, 1, 0)
        .to(ms(3.5), 1, 3, 0)
        .done(ms(4.5), 1, 3, 0)
        .to(ms(4.5), 1, 1, 0)
        .done(5 * MS, 1, 1, 0)
        .done(8 * MS, 0, 2, 0);
    let r = check(&h, &t, Some(TestPolicy::gedf(&h).as_replay()));
    assert_fails(&r, &[Check::Replay]);
    assert_eq!(
        r.first(Check::Replay).unwrap().message,
        "t=3.5ms cpu 0: G-EDF replay: cpu 0 runs T3#0, the policy chose T4#0"
    );
}

#[test]
fn replay_tolerance() {
    let (h, t) = gedf_example();
    // The preemption at 3.5ms recorded 30us late.
    let ev: Vec<Event> = t
        .events
        .iter()
        .map(|e| match *e {
            Event::SwitchAway { t, cpu, task: 2, job: 0, reason, exec } if t == ms(3.5) => {
                Event::SwitchAway { t: t + 30 * US, cpu, task: 2, job: 0, reason, exec }
            }
            Event::SwitchTo { t, cpu, task: 3, job: 0 } => Event::SwitchTo { t: t + 30 * US, cpu, task: 3, job: 0 },
            Event::Completion { t, cpu, task: 3, job: 0, exec, forced } => {
                Event::Completion { t: t + 30 * US, cpu, task: 3, job: 0, exec, forced }
            }
            Event::Completion { t, cpu, task: 2, job: 0, exec, forced } => {
                Event::Completion { t: t - 30 * US, cpu, task: 2, job: 0, exec, forced }
            }
            ref e => e.clone(),
        })
        .collect();
    let t = Trace { events: ev, ..Trace::new(&h.spec) };
    let r = check_opts(&h, &t, Some(TestPolicy::gedf(&h).as_replay()), &Options::with_tolerance(30 * US));
    assert_pass(&r);
    assert_eq!(r.latency.as_ref().unwrap().release.max, 30 * US);
    let r = check_opts(&h, &t, Some(TestPolicy::gedf(&h).as_replay()), &Options::with_tolerance(29 * US));
    assert_fails(&r, &[Check::Replay]);
}

/// Round robin on one CPU with a 1ms quantum, driven by timers: a policy
/// that is not priority-driven.
struct RoundRobin {
    info: PolicyInfo,
    queue: VecDeque<JobId>,
    current: Option<JobId>,
    expired: bool,
    timer: Option<TimerId>,
}

impl RoundRobin {
    fn new(tasks: usize) -> Box<RoundRobin> {
        Box::new(RoundRobin {
            info: PolicyInfo {
                name: "rr",
                domains: vec![vec![0]],
                placement: vec![Placement::Global; tasks],
                conformance: Conformance::Replay,
                quantum: None,
            },
            queue: VecDeque::new(),
            current: None,
            expired: false,
            timer: None,
        })
    }
}

impl Policy for RoundRobin {
    fn info(&self) -> &PolicyInfo {
        &self.info
    }
    fn release(&mut self, job: Job, k: &mut dyn Kernel) {
        self.queue.push_back(job.id);
        k.resched(0);
    }
    fn complete(&mut self, job: JobId, k: &mut dyn Kernel) {
        if self.current == Some(job) {
            self.current = None;
            if let Some(t) = self.timer.take() {
                k.cancel(t);
            }
        }
        self.queue.retain(|&j| j != job);
        k.resched(0);
    }
    fn block(&mut self, _job: JobId, _k: &mut dyn Kernel) {}
    fn resume(&mut self, _job: JobId, _k: &mut dyn Kernel) {}
    fn timer(&mut self, _timer: TimerId, _tag: u64, k: &mut dyn Kernel) {
        self.timer = None;
        self.expired = true;
        k.resched(0);
    }
    fn schedule(&mut self, _cpu: Cpu, k: &mut dyn Kernel) -> Option<JobId> {
        if self.current.is_some() && !self.expired {
            return self.current;
        }
        if self.expired {
            self.expired = false;
            if let Some(c) = self.current.take() {
                self.queue.push_back(c);
            }
        }
        self.current = self.queue.pop_front();
        if self.current.is_some() {
            self.timer = Some(k.arm(k.now() + MS, 0));
        }
        self.current
    }
    fn priority(&self, _job: &JobView) -> Option<Priority> {
        None
    }
}

fn rr_setup() -> schedlab_trace::Header {
    let s = spec(1, vec![task("A", 2 * MS, 10 * MS), task("B", 2 * MS, 10 * MS)], Some(PolicyName::Gedf));
    header(s, vec![], 10 * MS)
}

#[test]
fn replay_fires_timers() {
    let h = rr_setup();
    let t = Trace::new(&h.spec)
        .rel(0, 0, 0)
        .rel(0, 1, 0)
        .to(0, 0, 0, 0)
        .away(MS, 0, 0, 0)
        .to(MS, 0, 1, 0)
        .away(2 * MS, 0, 1, 0)
        .to(2 * MS, 0, 0, 0)
        .done(3 * MS, 0, 0, 0)
        .to(3 * MS, 0, 1, 0)
        .done(4 * MS, 0, 1, 0);
    let r = check(&h, &t, Some(RoundRobin::new(2)));
    assert_pass(&r);
    assert_eq!(r.policy.as_deref(), Some("rr"));
}

#[test]
fn replay_catches_a_missed_timer_decision() {
    let h = rr_setup();
    // A runs its whole 2ms: the quantum expiring at 1ms (no trace event then) is ignored.
    let t = Trace::new(&h.spec)
        .rel(0, 0, 0)
        .rel(0, 1, 0)
        .to(0, 0, 0, 0)
        .done(2 * MS, 0, 0, 0)
        .to(2 * MS, 0, 1, 0)
        .done(4 * MS, 0, 1, 0);
    let r = check(&h, &t, Some(RoundRobin::new(2)));
    assert_fails(&r, &[Check::Replay]);
    let v = r.first(Check::Replay).unwrap();
    assert_eq!((v.t, v.detected), (MS, 2 * MS));
    assert_eq!(v.message, "t=1ms cpu 0: rr replay: cpu 0 runs A#0, the policy chose B#0");
}

#[test]
fn replay_holds_releases_until_the_predecessor_completes() {
    let s = spec(1, vec![task("A", 3 * MS, 2 * MS)], Some(PolicyName::Gedf));
    let h = header(s.clone(), vec![], 10 * MS);
    // A#1 is released at 2ms while A#0 runs until 3ms: the policy hears of it at 3ms.
    let t = Trace::new(&s)
        .rel(0, 0, 0)
        .to(0, 0, 0, 0)
        .rel(2 * MS, 0, 1)
        .done(3 * MS, 0, 0, 0)
        .to(3 * MS, 0, 0, 1)
        .done(6 * MS, 0, 0, 1);
    let r = check(&h, &t, Some(TestPolicy::gedf(&h).as_replay()));
    assert_pass(&r);
    assert_eq!(r.misses.count, 2);
}

/// Answers every `schedule` with job 0:5, which is never released.
struct Illegal(PolicyInfo);

impl Policy for Illegal {
    fn info(&self) -> &PolicyInfo {
        &self.0
    }
    fn release(&mut self, _job: Job, k: &mut dyn Kernel) {
        k.resched(0);
    }
    fn complete(&mut self, _job: JobId, _k: &mut dyn Kernel) {}
    fn block(&mut self, _job: JobId, _k: &mut dyn Kernel) {}
    fn resume(&mut self, _job: JobId, _k: &mut dyn Kernel) {}
    fn timer(&mut self, _t: TimerId, _tag: u64, _k: &mut dyn Kernel) {}
    fn schedule(&mut self, _cpu: Cpu, _k: &mut dyn Kernel) -> Option<JobId> {
        Some(JobId { task: 0, seq: 5 })
    }
    fn priority(&self, _job: &JobView) -> Option<Priority> {
        None
    }
}

/// An illegal answer of a replayed policy is the driver's typed error, as
/// in the simulator and the runtime (it went unchecked before).
#[test]
fn an_illegal_answer_is_the_drivers_protocol_error() {
    let (h, t) = gedf_example();
    let n = h.spec.tasks.len();
    let info = PolicyInfo {
        name: "illegal",
        domains: vec![(0..h.spec.platform.cpus).collect()],
        placement: vec![schedlab_model::Placement::Global; n],
        conformance: Conformance::Replay,
        quantum: None,
    };
    let e = schedlab_validate::validate_with(&h, t.events.clone(), &replay_opts(), Some(Box::new(Illegal(info))))
        .unwrap_err();
    let schedlab_validate::ValidateError::Protocol(p) = e else { panic!("{e}") };
    assert_eq!(p.violation, schedlab_policy::Violation::NotEligible { job: JobId { task: 0, seq: 5 } });
    assert_eq!((p.t, p.cpu), (0, Some(0)));
}
