//! The fault injector: every kind of fault is caught on hand-made traces.

mod common;
use common::*;
use schedlab_model::{Placement, PolicyName};
use schedlab_validate::inject::{inject, inject_all, FaultKind};
use schedlab_validate::{validate_with, Check, Mode, Options, Report};

fn validate_gedf(h: &schedlab_trace::Header, events: Vec<schedlab_trace::Event>, mode: Mode) -> Report {
    let o = Options { mode, ..Options::default() };
    validate_with(h, events, &o, Some(TestPolicy::gedf(h))).expect("faulty traces stay checkable")
}

/// Every seed of a kind gives a fault that the validator catches, with the
/// given checks among those that fail.
fn caught(kind: FaultKind, any_of: &[Check]) {
    let (h, t) = gedf_example();
    caught_in(&h, &t, kind, any_of);
    // The same schedule written as the simulator does: a switch-away with
    // reason `complete` before each completion.
    let mut ev = Vec::new();
    for e in t.events {
        if let schedlab_trace::Event::Completion { t, cpu, task, job, exec, .. } = e {
            ev.push(schedlab_trace::Event::SwitchAway {
                t,
                cpu,
                task,
                job,
                reason: schedlab_trace::SwitchReason::Complete,
                exec,
            });
        }
        ev.push(e);
    }
    caught_in(&h, &Trace { events: ev, ..Trace::new(&h.spec) }, kind, any_of);
}

fn caught_in(h: &schedlab_trace::Header, t: &Trace, kind: FaultKind, any_of: &[Check]) {
    let h = h.clone();
    assert_pass(&validate_gedf(&h, t.events.clone(), Mode::Auto));
    for seed in 0..16 {
        let f = inject(&h, &t.events, kind, seed).unwrap_or_else(|| panic!("{kind} applies to the example"));
        assert_eq!(f.mutation.kind, kind);
        assert_eq!(f.mutation.seed, seed);
        assert!(f.events.windows(2).all(|w| w[0].t() <= w[1].t()), "{kind} keeps time order");
        for mode in [Mode::Auto, Mode::Replay] {
            let r = validate_gedf(&h, f.events.clone(), mode);
            assert!(!r.pass, "{kind} seed {seed} ({}) escaped {mode:?}:\n{}", f.mutation.description, r.render());
            if mode == Mode::Auto {
                assert!(
                    r.failed().iter().any(|c| any_of.contains(c)),
                    "{kind} seed {seed}: {:?}\n{}",
                    r.failed(),
                    r.render()
                );
            }
        }
    }
}

#[test]
fn swapped_dispatch_is_caught() {
    caught(FaultKind::SwapDispatch, &[Check::Wcet, Check::Conformance, Check::Eligibility]);
}

#[test]
fn delayed_dispatch_is_caught() {
    caught(FaultKind::DelayDispatch, &[Check::WorkConserving, Check::Conformance]);
}

#[test]
fn run_past_completion_is_caught() {
    caught(FaultKind::RunPastCompletion, &[Check::CpuBusy]);
}

#[test]
fn idle_while_waiting_is_caught() {
    caught(FaultKind::IdleWhileWaiting, &[Check::WorkConserving]);
}

fn pedf_example() -> (schedlab_trace::Header, Trace) {
    let s = spec(
        2,
        vec![task("A", 2 * MS, 10 * MS), task("B", 2 * MS, 20 * MS), task("C", 2 * MS, 30 * MS)],
        Some(PolicyName::Pedf),
    );
    let pl = vec![Placement::Cpu { cpu: 0 }, Placement::Cpu { cpu: 0 }, Placement::Cpu { cpu: 1 }];
    let t = Trace::new(&s)
        .rel(0, 0, 0)
        .rel(0, 1, 0)
        .rel(0, 2, 0)
        .to(0, 0, 0, 0)
        .to(0, 1, 2, 0)
        .done(2 * MS, 0, 0, 0)
        .to(2 * MS, 0, 1, 0)
        .done(2 * MS, 1, 2, 0)
        .done(4 * MS, 0, 1, 0);
    (header(s, pl, 30 * MS), t)
}

#[test]
fn wrong_cpu_is_caught() {
    let (h, t) = pedf_example();
    assert_pass(&check(&h, &t, Some(TestPolicy::pedf(&h))));
    for seed in 0..8 {
        let f = inject(&h, &t.events, FaultKind::WrongCpu, seed).expect("partitioned tasks can be misplaced");
        let r = validate_with(&h, f.events.clone(), &Options::default(), Some(TestPolicy::pedf(&h))).unwrap();
        assert!(r.failed().contains(&Check::Placement), "seed {seed} ({}):\n{}", f.mutation.description, r.render());
        assert_eq!(f.mutation.kind, FaultKind::WrongCpu);
    }
}

#[test]
fn wrong_cpu_needs_a_restricted_placement() {
    let (h, t) = gedf_example();
    assert!(inject(&h, &t.events, FaultKind::WrongCpu, 1).is_none());
    let all = inject_all(&h, &t.events, 7);
    assert_eq!(
        all.iter().map(|f| f.mutation.kind).collect::<Vec<_>>(),
        vec![
            FaultKind::SwapDispatch,
            FaultKind::DelayDispatch,
            FaultKind::RunPastCompletion,
            FaultKind::IdleWhileWaiting
        ]
    );
}

#[test]
fn mutations_are_seeded_and_recorded() {
    let (h, t) = gedf_example();
    for &kind in FaultKind::ALL.iter().filter(|&&k| k != FaultKind::WrongCpu) {
        let a = inject(&h, &t.events, kind, 42).unwrap();
        let b = inject(&h, &t.events, kind, 42).unwrap();
        assert_eq!(a.events, b.events);
        assert_eq!(a.mutation, b.mutation);
        assert_ne!(a.events, t.events, "{kind} changes the trace");
        assert!(!a.mutation.description.is_empty());
        assert!(a.mutation.t <= h.horizon);
    }
    // The only preemption of the example is at 3.5ms on cpu 0 (T3#0's stint from 3ms).
    let f = inject(&h, &t.events, FaultKind::IdleWhileWaiting, 0).unwrap();
    assert_eq!((f.mutation.t, f.mutation.cpu), (3 * MS, Some(0)));
    assert_eq!(f.events.len(), t.events.len() - 2);
    let j = serde_json::to_value(&f.mutation).unwrap();
    assert_eq!(j["kind"], "idle-while-waiting");
}
