//! The holistic analysis of memory-centric flows (`mcs`), on small flows
//! worked by hand: every expected number below is computed in the comments
//! from the equations of `schedulability::mcs::holistic` (times in ns).

use schedlab_analysis::schedulability::mcs::flow::{Flow, Resource, Step};
use schedlab_analysis::schedulability::mcs::holistic::{analyse, Analysis, Failure, Jitter};
use schedlab_analysis::schedulability::mcs::prem::{Mode, PremTask, Section, BACKGROUND};

fn step(label: &str, resource: Resource, wcet: u64, priority: u64) -> Step {
    Step { label: label.into(), resource, wcet, bcet: wcet, priority, preemptive: true }
}

/// A flow P → E → W: P and W on `Mem` at memory priority `prio`, E on `cpu`.
fn pew(task: usize, period: u64, prio: u64, cpu: u32, p: u64, e: u64, w: u64) -> Flow {
    Flow {
        task,
        period,
        deadline: period,
        jitter: 0,
        steps: vec![
            step("P1", Resource::Mem, p, prio),
            step("E1", Resource::Cpu(cpu), e, 1),
            step("W1", Resource::Mem, w, prio),
        ],
        background: false,
    }
}

fn responses(a: &Analysis) -> Vec<Vec<u64>> {
    a.steps.iter().map(|f| f.iter().map(|s| s.response).collect()).collect()
}

/// A = (T 20, Mem priority 1, CPU 0: P 2, E 4, W 1),
/// B = (T 30, Mem priority 2, CPU 1: P 3, E 5, W 2).
/// A step's interference counts its own flow's other steps of equal
/// priority on the resource (HOL's pessimism): P_B counts W_B, W_B counts P_B.
///
/// Round 1, jitters from the WCET sums (A: 0, 2, 6; B: 0, 3, 8):
///   A.P: hp {W_A (1, 20, J 6)}: w = 2 + ⌈(2+6)/20⌉·1 = 3 → 3; R = 3.
///   A.E: alone on CPU 0: R = 4 + 2 = 6.   A.W: hp {P_A (2, 20, J 0)}: w = 1 + 2 = 3, R = 3 + 6 = 9.
///   B.P: hp {P_A (J 0), W_A (J 6), W_B (2, 30, J 8)}: w = 3 + 2 + 1 + ⌈11/30⌉·2 = 8
///        → 3 + ⌈8/20⌉·2 + ⌈14/20⌉ + ⌈16/30⌉·2 = 8; R = 8.
///   B.E: R = 5 + 3 = 8.
///   B.W: hp {P_A, W_A, P_B (3, 30, J 0)}: w = 2 + 2 + 1 + 3 = 8 → 8; R = 8 + 8 = 16.
///   New jitters: A.E 3, A.W 6, B.E 8, B.W 8.
/// Round 2: A.E = 4 + 3 = 7, B.E = 5 + 8 = 13, the others as before;
///   new jitters A.W 7, B.W 13.
/// Round 3: A.P: w = 2 + ⌈(3+7)/20⌉ = 3, R = 3; A.W = 3 + 7 = 10;
///   B.P: w = 3 + 2 + ⌈(3+7)/20⌉ + ⌈(3+13)/30⌉·2 = 8 → 8;
///   B.W: w = 2 + 2 + ⌈(8+7)/20⌉ + 3 = 8, R = 8 + 13 = 21.
///   No jitter changes: the fixed point, after 3 rounds.
#[test]
fn two_flows_by_hand_holistic() {
    let flows = [pew(0, 20, 1, 0, 2, 4, 1), pew(1, 30, 2, 1, 3, 5, 2)];
    let a = analyse(&flows, Jitter::Holistic);
    assert_eq!(a.failure, None);
    assert_eq!(responses(&a), vec![vec![3, 7, 10], vec![8, 13, 21]]);
    assert_eq!(a.rounds, 3);
    let w = a.steps[1][2];
    assert_eq!((w.jitter, w.window, w.offset, w.blocking, w.jobs), (13, 8, 0, 0, 1));
    assert_eq!((a.end_to_end(0), a.end_to_end(1)), (Some(10), Some(21)));
}

/// A = (T 10, Mem priority 1: E 6 on CPU 0 → W 1 on Mem),
/// B = (T 40, Mem priority 2: P 4 on Mem → E 2 on CPU 1); BCET = WCET.
///
/// Holistic (Jᵢⱼ = Rᵢ,ⱼ₋₁): A.E = 6; A.W: J 6, alone at its priority: R = 1 + 6 = 7.
///   B.P: hp {W_A (1, 10, J 6)}: w = 4 + ⌈(4+6)/10⌉ = 5 → 4 + ⌈11/10⌉ = 6 → 4 + ⌈12/10⌉ = 6; R = 6.
///   B.E: J starts at 4 (B.P's WCET), then 6: R = 2 + 6 = 8 (2 rounds).
/// Best case (Φᵢⱼ = Rbᵢ,ⱼ₋₁, Jᵢⱼ = Rᵢ,ⱼ₋₁ − Rbᵢ,ⱼ₋₁): W_A can never be
///   released before 6, so Φ = 6 and J = 6 − 6 = 0; A.W = 1 + 0 + 6 = 7.
///   B.P: hp {W_A (1, 10, J 0)}: w = 4 + ⌈4/10⌉ = 5 → 5; R = 5 (W_A hits once, not twice).
///   B.E: Φ 4, J 5 − 4 = 1: R = 2 + 1 + 4 = 7.
#[test]
fn the_best_case_refinement_cuts_a_hit_by_hand() {
    let a = Flow {
        task: 0,
        period: 10,
        deadline: 10,
        jitter: 0,
        steps: vec![step("E1", Resource::Cpu(0), 6, 1), step("W1", Resource::Mem, 1, 1)],
        background: false,
    };
    let b = Flow {
        task: 1,
        period: 40,
        deadline: 40,
        jitter: 0,
        steps: vec![step("P1", Resource::Mem, 4, 2), step("E1", Resource::Cpu(1), 2, 1)],
        background: false,
    };
    let flows = [a, b];
    let hol = analyse(&flows, Jitter::Holistic);
    assert_eq!(hol.failure, None);
    assert_eq!(responses(&hol), vec![vec![6, 7], vec![6, 8]]);
    assert_eq!(hol.rounds, 2);
    let bc = analyse(&flows, Jitter::BestCase);
    assert_eq!(bc.failure, None);
    assert_eq!(responses(&bc), vec![vec![6, 7], vec![5, 7]]);
    let w = bc.steps[0][1];
    assert_eq!((w.jitter, w.offset, w.best), (0, 6, 7));
    let e = bc.steps[1][1];
    assert_eq!((e.jitter, e.offset, e.best), (1, 4, 6));
}

/// The first pair again, without a flow's interference on itself (D = T):
/// Rb_A = 2, 6, 7; Rb_B = 3, 8, 10.
///   A.P: nothing above it but its own W (excluded): R = 2.  A.E: 4 + 0 + 2 = 6.  A.W: 1 + 0 + 6 = 7.
///   B.P: hp {P_A (J 0), W_A (J 0)}: w = 3 + 2 + 1 = 6 → 6; R = 6.
///   B.E: Φ 3, J 6 − 3 = 3: R = 5 + 3 + 3 = 11.
///   B.W: hp {P_A, W_A} (not P_B): w = 2 + 2 + 1 = 5; Φ 8, J 11 − 8 = 3: R = 5 + 3 + 8 = 16 (HOL: 21).
#[test]
fn precedence_inside_a_flow_by_hand() {
    let flows = [pew(0, 20, 1, 0, 2, 4, 1), pew(1, 30, 2, 1, 3, 5, 2)];
    let a = analyse(&flows, Jitter::Precedence);
    assert_eq!(a.failure, None);
    assert_eq!(responses(&a), vec![vec![2, 6, 7], vec![6, 11, 16]]);
    assert_eq!(a.rounds, 3);
    // With D > T a flow's jobs may overlap: its own steps count again.
    let mut long = flows.clone();
    long[1].deadline = 31;
    let b = analyse(&long, Jitter::Precedence);
    assert_eq!(b.end_to_end(1), analyse(&long, Jitter::BestCase).end_to_end(1));
    assert!(b.end_to_end(1) > Some(16));
}

/// On the first pair of flows the refinement changes nothing the own-flow
/// interference does not already dominate, and it never answers more.
#[test]
fn the_best_case_refinement_never_answers_more() {
    for flows in [
        [pew(0, 20, 1, 0, 2, 4, 1), pew(1, 30, 2, 1, 3, 5, 2)],
        [pew(0, 10, 1, 0, 1, 6, 1), pew(1, 40, 2, 1, 4, 2, 4)],
        [pew(0, 15, 1, 0, 1, 3, 2), pew(1, 25, 2, 1, 2, 7, 1)],
    ] {
        let hol = analyse(&flows, Jitter::Holistic);
        let bc = analyse(&flows, Jitter::BestCase);
        let pr = analyse(&flows, Jitter::Precedence);
        assert_eq!((hol.failure.clone(), bc.failure.clone(), pr.failure.clone()), (None, None, None));
        for ((h, b), p) in hol.steps.iter().flatten().zip(bc.steps.iter().flatten()).zip(pr.steps.iter().flatten()) {
            assert!(p.response <= b.response && b.response <= h.response, "{hol:?} {bc:?} {pr:?}");
        }
    }
}

/// A non-preemptive lower-priority prefetch blocks the higher one:
/// A = (T 10, Mem prio 1: P 2, CPU 0: E 3), B = (T 20, Mem prio 2: P 5 non-preemptive, CPU 1: E 1).
///   A.P: B = 5: w = 5 + 2 = 7, R = 7.   A.E: 3 + 7 = 10 = D.
///   B.P: hp {P_A (2, 10, J 0)}: w = 5 + ⌈5/10⌉·2 = 7 → 7; R = 7.   B.E: 1 + 7 = 8.
/// With B's prefetch preemptive, A.P = 2 and A.E = 5.
#[test]
fn a_non_preemptive_memory_phase_blocks_higher_ones() {
    let mk = |np: bool| {
        let mut b = Flow {
            task: 1,
            period: 20,
            deadline: 20,
            jitter: 0,
            steps: vec![step("P1", Resource::Mem, 5, 2), step("E1", Resource::Cpu(1), 1, 1)],
            background: false,
        };
        b.steps[0].preemptive = !np;
        let a = Flow {
            task: 0,
            period: 10,
            deadline: 10,
            jitter: 0,
            steps: vec![step("P1", Resource::Mem, 2, 1), step("E1", Resource::Cpu(0), 3, 1)],
            background: false,
        };
        analyse(&[a, b], Jitter::Holistic)
    };
    let np = mk(true);
    assert_eq!(np.failure, None);
    assert_eq!(responses(&np), vec![vec![7, 10], vec![7, 8]]);
    assert_eq!(np.steps[0][0].blocking, 5);
    let pre = mk(false);
    assert_eq!(responses(&pre), vec![vec![2, 5], vec![7, 8]]);
    assert_eq!(pre.steps[0][0].blocking, 0);
}

/// One nanosecond more of B's blocking prefetch pushes A past its deadline:
/// A.P = 6 + 2 = 8, A.E = 3 + 8 = 11 > 10, found at the E step.
#[test]
fn a_miss_names_the_flow_and_step() {
    let a = Flow {
        task: 0,
        period: 10,
        deadline: 10,
        jitter: 0,
        steps: vec![step("P1", Resource::Mem, 2, 1), step("E1", Resource::Cpu(0), 3, 1)],
        background: false,
    };
    let mut bp = step("P1", Resource::Mem, 6, 2);
    bp.preemptive = false;
    let b = Flow { task: 1, period: 20, deadline: 20, jitter: 0, steps: vec![bp], background: false };
    let out = analyse(&[a, b], Jitter::Holistic);
    assert_eq!(out.failure, Some(Failure::Miss { flow: 0, step: 1, response: 11 }));
}

/// Mem loaded above 1: 6/10 + 5/10 + 0 (CPU steps elsewhere).
#[test]
fn an_overloaded_memory_is_refused_before_iterating() {
    let flows = [pew(0, 10, 1, 0, 3, 1, 3), pew(1, 10, 2, 1, 3, 1, 2)];
    let out = analyse(&flows, Jitter::Holistic);
    match out.failure {
        Some(Failure::Overload { resource, utilisation }) => {
            assert_eq!(resource, Resource::Mem);
            assert_eq!(utilisation.to_fraction(), "11/10");
        }
        other => panic!("expected an overload, got {other:?}"),
    }
}

fn prem(mode: Mode, sections: Vec<Section>) -> PremTask {
    PremTask {
        task: 3,
        period: 100,
        deadline: 90,
        jitter: 0,
        cpu: 2,
        priority: 1,
        memory_priority: 4,
        mode,
        sections,
        best: (1, 2),
    }
}

fn sec(p: u64, e: u64, w: u64) -> Section {
    Section { prefetch: p, exec: e, writeback: w, prefetch_preemptive: true, writeback_preemptive: false }
}

/// S-MP with k = 2 Sections is P1 E1 W1 P2 E2 W2; A-MP is P1 then ΣE, and
/// the worker's P2, W1, W2 at the lowest memory priority in the background.
#[test]
fn prem_tasks_become_the_papers_flows() {
    let (f, bg) = prem(Mode::Smp, vec![sec(2, 10, 1), sec(3, 20, 0)]).flows();
    assert!(bg.is_none());
    let shape: Vec<(&str, Resource, u64, u64, bool)> =
        f.steps.iter().map(|s| (s.label.as_str(), s.resource, s.wcet, s.priority, s.preemptive)).collect();
    assert_eq!(
        shape,
        vec![
            ("P1", Resource::Mem, 2, 4, true),
            ("E1", Resource::Cpu(2), 10, 1, true),
            ("W1", Resource::Mem, 1, 4, false),
            ("P2", Resource::Mem, 3, 4, true),
            ("E2", Resource::Cpu(2), 20, 1, true),
        ]
    );
    // Best cases are half the worst cases, rounded down.
    assert_eq!(f.steps.iter().map(|s| s.bcet).collect::<Vec<_>>(), vec![1, 5, 0, 1, 10]);
    assert_eq!((f.period, f.deadline, f.task), (100, 90, 3));

    let (f, bg) = prem(Mode::Amp, vec![sec(2, 10, 1), sec(3, 20, 4)]).flows();
    let shape: Vec<(&str, Resource, u64)> = f.steps.iter().map(|s| (s.label.as_str(), s.resource, s.wcet)).collect();
    assert_eq!(shape, vec![("P1", Resource::Mem, 2), ("ΣE", Resource::Cpu(2), 30)]);
    let bg = bg.expect("the worker's phases");
    assert!(bg.background);
    let shape: Vec<(&str, u64, u64)> = bg.steps.iter().map(|s| (s.label.as_str(), s.wcet, s.priority)).collect();
    assert_eq!(shape, vec![("MPW W1", 1, BACKGROUND), ("MPW P2", 3, BACKGROUND), ("MPW W2", 4, BACKGROUND)]);
}

/// The worker's non-preemptive write-back (4) blocks an S-MP task's
/// prefetch, its preemptive phases do not; and they load Mem.
///   S = (T 20, Mem prio 1: P 2, CPU 0: E 5): P = B + 2 = 4 + 2 = 6, E = 5 + 6 = 11.
#[test]
fn the_workers_phases_block_when_non_preemptive() {
    let (a, bg) = prem(Mode::Amp, vec![sec(2, 10, 1), sec(3, 20, 4)]).flows();
    let s = Flow {
        task: 0,
        period: 20,
        deadline: 20,
        jitter: 0,
        steps: vec![step("P1", Resource::Mem, 2, 1), step("E1", Resource::Cpu(0), 5, 1)],
        background: false,
    };
    let out = analyse(&[s, a, bg.unwrap()], Jitter::Holistic);
    assert_eq!(out.failure, None);
    assert_eq!(out.steps[0][0].blocking, 4);
    assert_eq!(out.end_to_end(0), Some(11));
    // The A-MP task: P1 (2) waits for S's P (2, J 0) once and the worker's
    // W (4) blocks it: w = 4 + 2 + 2 = 8; ΣE = 30 + 8 = 38.
    assert_eq!(out.end_to_end(1), Some(38));
    // The background flow is not analysed.
    assert!(out.steps[2].iter().all(|s| s.response == 0));
}

mod through_the_registry {
    use schedlab_analysis::schedulability::{find, Data, Input, Verdict};

    const MS: u64 = 1_000_000;

    fn input(policy: &str, tasks: &str) -> Input {
        let yaml = format!("platform: {{cpus: 3}}\npolicy: {policy}\ntasks:\n{tasks}");
        let spec = schedlab_model::load_str(&yaml, None, "t.yaml").map_err(|e| e.to_string()).unwrap().spec;
        Input::from_spec(&spec)
    }

    /// The first hand-worked pair in ms: A ends at 10 ms, B at 21 ms.
    const PAIR: &str = "  - {name: a, period: 20ms, cpu: 0, memory_priority: 1, segments: [{memory: 2ms}, {exec: 4ms}, {memory: 1ms}]}\n  - {name: b, period: 30ms, cpu: 1, memory_priority: 2, segments: [{memory: 3ms}, {exec: 5ms}, {memory: 2ms}]}\n";

    #[test]
    fn a_spec_is_analysed_and_explained_per_flow_and_step() {
        let inp = input("{name: mcs}", PAIR);
        for id in ["mcs.holistic", "mcs.holistic.best-case"] {
            let out = (find(id).unwrap().run)(&inp);
            assert_eq!(out.verdict, Verdict::Schedulable, "{id}: {}", out.reason);
            assert_eq!(out.data, Some(Data::ResponseTimes(vec![Some(10 * MS), Some(21 * MS)])), "{id}");
            // The tightest flow is a: 10 ms of 20, b: 21 of 30.
            assert_eq!(out.task, Some(1));
            let text = out.details.join("\n");
            assert!(
                text.contains(
                    "task b (tasks[1]): S-MP flow of 3 steps, T = 30ms, memory priority 2: R = 21ms ≤ D = 30ms"
                ),
                "{text}"
            );
            // Holistic: J = R(E1) = 13 ms; best case: Φ = Rb(E1) = 3 + 5 = 8 ms, J = 13 − 8 = 5 ms.
            let w1 = if id == "mcs.holistic" {
                "  W1 on Mem: C = 2ms, J = 13ms:"
            } else {
                "  W1 on Mem: C = 2ms, J = 5ms, Φ = 8ms:"
            };
            assert!(text.contains(w1), "{text}");
            assert!(text.contains("  E1 on CPU 1: C = 5ms"), "{text}");
        }
        // The best-case form names the offsets.
        let out = (find("mcs.holistic.best-case").unwrap().run)(&inp);
        assert!(out.details.join("\n").contains("E1 on CPU 1: C = 5ms, J = 5ms, Φ = 3ms"), "{:?}", out.details);
    }

    #[test]
    fn default_memory_priorities_follow_the_task_priorities() {
        // No memory_priority: rate monotonic puts a (20 ms) above b (30 ms), as above.
        let tasks = PAIR.replace(", memory_priority: 1", "").replace(", memory_priority: 2", "");
        let out = (find("mcs.holistic").unwrap().run)(&input("{name: mcs}", &tasks));
        assert_eq!(out.data, Some(Data::ResponseTimes(vec![Some(10 * MS), Some(21 * MS)])));
        // Equal periods: equal memory ranks, served FIFO by the policy, so
        // each counts the other's phases: a now waits for b's too.
        let same = tasks.replace("period: 20ms", "period: 30ms");
        let out = (find("mcs.holistic").unwrap().run)(&input("{name: mcs}", &same));
        let Some(Data::ResponseTimes(r)) = out.data else { panic!() };
        assert!(r[0].unwrap() > 10 * MS, "{r:?}");
        assert!(out.details[0].contains("memory rank 30000000 (the task priorities' order)"), "{:?}", out.details);
        // Reversed memory priorities: b first on Mem.
        let tasks = PAIR.replace("memory_priority: 1", "memory_priority: 3");
        let out = (find("mcs.holistic").unwrap().run)(&input("{name: mcs}", &tasks));
        let Some(Data::ResponseTimes(r)) = out.data else { panic!() };
        assert!(r[1].unwrap() < 21 * MS && r[0].unwrap() > 10 * MS, "{r:?}");
    }

    #[test]
    fn non_preemptive_memory_phases_block() {
        let out = (find("mcs.holistic").unwrap().run)(&input("{name: mcs, memory_preemption: false}", PAIR));
        let Some(Data::ResponseTimes(r)) = out.data else { panic!() };
        // a's prefetch can wait for b's 3 ms prefetch: more than 10 ms.
        assert!(r[0].unwrap() > 10 * MS, "{r:?}");
        assert!(
            out.details.iter().any(|l| l.contains("P1 on Mem non-preemptive") && l.contains("B = 3ms")),
            "{:?}",
            out.details
        );
    }

    #[test]
    fn a_miss_is_inconclusive_and_named() {
        let tasks = PAIR.replace("period: 30ms", "period: 30ms, deadline: 20ms");
        let out = (find("mcs.holistic").unwrap().run)(&input("{name: mcs}", &tasks));
        assert_eq!(out.verdict, Verdict::Inconclusive);
        assert_eq!(out.task, Some(1));
        assert!(out.reason.contains("task b (tasks[1]): step W1 on Mem"), "{}", out.reason);
    }

    #[test]
    fn what_the_analysis_does_not_model_is_not_applicable() {
        let run = |policy: &str, tasks: &str| {
            let out = (find("mcs.holistic").unwrap().run)(&input(policy, tasks));
            assert_eq!(out.verdict, Verdict::NotApplicable, "{}", out.reason);
            out.reason
        };
        assert!(run("{name: pfp}", PAIR).contains("is about `mcs`"));
        assert!(run("{name: mcs, mps: false}", PAIR).contains("Contention baseline"));
        assert!(run("{name: mcs}", &PAIR.replace("cpu: 1", "cpu: 0")).contains("share CPU 0"));
        assert!(run("{name: mcs}", &PAIR.replace("cpu: 1, ", "")).contains("is not pinned"));
        // An A-MP task while a task sits on the master CPU (the last, 2).
        let amp = format!("{PAIR}  - {{name: c, period: 50ms, cpu: 2, memory_priority: 3, memory_mode: amp, segments: [{{memory: 1ms}}, {{exec: 2ms}}, {{memory: 1ms}}]}}\n");
        assert!(run("{name: mcs}", &amp).contains("master CPU"));
        // With the master elsewhere it applies... but CPU 1 hosts b: move the master to a free CPU of 4.
        let yaml = format!("platform: {{cpus: 4}}\npolicy: {{name: mcs, master: 3}}\ntasks:\n{amp}");
        let spec = schedlab_model::load_str(&yaml, None, "t.yaml").map_err(|e| e.to_string()).unwrap().spec;
        let out = (find("mcs.holistic").unwrap().run)(&Input::from_spec(&spec));
        assert_eq!(out.verdict, Verdict::Schedulable, "{}", out.reason);
        assert!(out.details.iter().any(|l| l.contains("A-MP flow of 2 steps")), "{:?}", out.details);
        assert!(
            out.details.iter().any(|l| l.contains("memory-phase worker's phases") && l.contains("MPW W1 1ms")),
            "{:?}",
            out.details
        );
    }
    /// A-MP holds only when the E phases cover the worker's phases. c's
    /// worker prefetches P2 (1 ms) during E1 and writes W1 back during E2;
    /// ahead of it on Mem: every task's own phase once (a: 2 + 1, b: 3 + 2,
    /// c's P1: 1; one hit each in a 10 ms window: a's W has J 7 ms over
    /// T 20, b's W J 13 over 30): w = 1 + 9 = 10 ms.
    #[test]
    fn an_amp_task_needs_its_e_phases_to_cover_the_worker() {
        let c = |e1: &str, e2: &str| {
            format!("{PAIR}  - {{name: c, period: 100ms, cpu: 2, memory_priority: 3, memory_mode: amp, segments: [{{memory: 1ms}}, {{exec: {e1}}}, {{memory: 1ms}}, {{memory: 1ms}}, {{exec: {e2}}}, {{memory: 1ms}}]}}\n")
        };
        let run = |tasks: &str| {
            let yaml = format!("platform: {{cpus: 4}}\npolicy: {{name: mcs, master: 3}}\ntasks:\n{tasks}");
            let spec = schedlab_model::load_str(&yaml, None, "t.yaml").map_err(|e| e.to_string()).unwrap().spec;
            (find("mcs.holistic").unwrap().run)(&Input::from_spec(&spec))
        };
        let out = run(&c("10ms", "10ms"));
        assert_eq!(out.verdict, Verdict::Schedulable, "{}", out.reason);
        let out = run(&c("9999us", "10ms"));
        assert_eq!(out.verdict, Verdict::Inconclusive);
        assert_eq!(out.task, Some(2));
        assert!(
            out.reason.contains("during E1 may take up to 10ms, longer than E1's best case 9.999ms"),
            "{}",
            out.reason
        );
        assert_eq!(out.data, Some(Data::ResponseTimes(vec![None, None, None])));
        let out = run(&c("10ms", "9ms"));
        assert!(out.reason.contains("during E2"), "{}", out.reason);
        // The last write-back (5 ms) is queued when the job ends, and the
        // next job waits for it: it must fit in the rest of the period.
        let last = |period: &str| {
            format!("{PAIR}  - {{name: c, period: {period}, cpu: 2, memory_priority: 3, memory_mode: amp, segments: [{{memory: 1ms}}, {{exec: 10ms}}, {{memory: 5ms}}]}}\n")
        };
        assert_eq!(run(&last("100ms")).verdict, Verdict::Schedulable);
        let out = run(&last("25ms"));
        assert_eq!(out.verdict, Verdict::Inconclusive, "{}", out.reason);
        assert!(out.reason.contains("its last write-back, queued when a job ends"), "{}", out.reason);
    }
}
