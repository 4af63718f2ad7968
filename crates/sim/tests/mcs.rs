//! Memory-centric scheduling (`mcs`) in the simulator: the Figure 5/6 and 7
//! walk-throughs as simulated traces (the same schedules as the driver
//! tests in crates/policy/tests/mcs.rs, with the token events in the
//! trace), and the paper's claim with the platform model's memory
//! contention (docs/platform-model.md): under the memory-phase scheduler
//! one memory phase runs at a time and execution phases use no bandwidth,
//! so no job is stretched and every job's execution time is its WCET; the
//! same tasks as the Contention baseline (`mps: false`, memory accesses
//! interleaved with execution) are stretched when they overlap, and their
//! execution times vary.

use schedlab_model::{load_str, PolicyEvent, Spec};
use schedlab_policy::build;
use schedlab_sim::{simulate_collect, SimConfig};
use schedlab_trace::Event;

const MS: u64 = 1_000_000;

fn load(yaml: &str) -> Spec {
    load_str(yaml, None, "t.yaml").unwrap_or_else(|e| panic!("{e}")).spec
}

fn run(spec: &Spec, horizon: u64) -> Vec<Event> {
    let mut policy = build(spec, None).unwrap();
    let config = SimConfig { horizon: Some(horizon), policy_events: true, ..SimConfig::default() };
    simulate_collect(spec, policy.as_mut(), &config).unwrap().0
}

/// (task, cpu, start, end) of every stint.
fn stints(ev: &[Event]) -> Vec<(u32, u32, u64, u64)> {
    let mut open = std::collections::HashMap::new();
    let mut out = Vec::new();
    for e in ev {
        match *e {
            Event::SwitchTo { t, cpu, task, .. } => {
                open.insert(cpu, (task, t));
            }
            Event::SwitchAway { t, cpu, .. } => {
                if let Some((task, from)) = open.remove(&cpu) {
                    out.push((task, cpu, from, t));
                }
            }
            _ => {}
        }
    }
    out.sort_by_key(|s| (s.1, s.2));
    out
}

fn grants(ev: &[Event]) -> Vec<(u64, u32)> {
    ev.iter()
        .filter_map(|e| match e {
            Event::Policy { t, event: PolicyEvent::TokenGrant { task, .. }, .. } => Some((*t, *task)),
            _ => None,
        })
        .collect()
}

/// Figures 5 and 6, in ms: τ2 (task 1) is granted at 0, suspended in
/// [1, 2) while τ1 (task 0, released at 1) owns the token, and resumes at 2.
#[test]
fn figures_5_and_6_in_the_simulator() {
    let s = load(
        "platform: {cpus: 3}\npolicy: {name: mcs}\ntasks:\n  - {name: tau1, period: 100ms, offset: 1ms, cpu: 0, memory_priority: 1, segments: [{memory: 1ms}, {exec: 2ms}]}\n  - {name: tau2, period: 100ms, cpu: 1, memory_priority: 2, segments: [{memory: 2ms}, {exec: 1ms}]}\n",
    );
    let ev = run(&s, 10 * MS);
    assert_eq!(stints(&ev), [(0, 0, MS, 4 * MS), (1, 1, 0, MS), (1, 1, 2 * MS, 4 * MS)]);
    assert_eq!(grants(&ev), [(0, 1), (MS, 0), (2 * MS, 1)]);
}

/// Figure 7's set (lengths ours, worked in crates/policy/tests/mcs.rs).
#[test]
fn figure_7_in_the_simulator() {
    let sec = "segments: [{memory: 2ms}, {exec: 4ms}, {memory: 2ms}]";
    let s = load(&format!(
        "platform: {{cpus: 4}}\npolicy: {{name: mcs}}\ntasks:\n  - {{name: tau1, period: 100ms, offset: 1ms, cpu: 0, memory_priority: 1, {sec}}}\n  - {{name: tau2, period: 100ms, cpu: 1, memory_priority: 2, {sec}}}\n  - {{name: tau3, period: 100ms, cpu: 2, memory_priority: 3, {sec}}}\n"
    ));
    let ev = run(&s, 20 * MS);
    let ms = |v: &[(u32, u32, u64, u64)]| v.iter().map(|&(t, c, a, b)| (t, c, a / MS, b / MS)).collect::<Vec<_>>();
    assert_eq!(
        ms(&stints(&ev)),
        [(0, 0, 1, 9), (1, 1, 0, 1), (1, 1, 3, 8), (1, 1, 9, 11), (2, 2, 4, 10), (2, 2, 11, 13)]
    );
    let g: Vec<(u64, u32)> = grants(&ev).into_iter().map(|(t, task)| (t / MS, task)).collect();
    assert_eq!(g, [(0, 1), (1, 0), (3, 1), (4, 2), (7, 0), (9, 1), (11, 2)]);
}

/// Three PREM tasks, one per CPU (P 2 ms, E 4 ms, W 2 ms; periods 20, 23,
/// 29 ms so that they overlap in every way), with a memory bandwidth.
fn three(mps: bool) -> Spec {
    let sec = "segments: [{memory: 2ms}, {exec: 4ms}, {memory: 2ms}]";
    load(&format!(
        "platform: {{cpus: 4, cache: {{size: 1MiB, ways: 16, line: 64B}}, memory: {{bandwidth: 1GiB/s}}}}\npolicy: {{name: mcs, mps: {mps}}}\ntasks:\n  - {{name: a, period: 20ms, cpu: 0, {sec}}}\n  - {{name: b, period: 23ms, cpu: 1, {sec}}}\n  - {{name: c, period: 29ms, cpu: 2, {sec}}}\n"
    ))
}

/// The CPU time of every completed job, per task.
fn exec_times(ev: &[Event], tasks: usize) -> Vec<Vec<u64>> {
    let mut out = vec![Vec::new(); tasks];
    for e in ev {
        if let Event::Completion { task, exec, forced: false, .. } = *e {
            out[task as usize].push(exec);
        }
    }
    out
}

/// At every instant, the number of CPUs running a job inside a memory
/// segment (from the trace's switches and segment ends).
fn max_memory_phases_at_once(ev: &[Event], spec: &Spec) -> usize {
    let n = spec.tasks.len();
    let mut seg = vec![0usize; n];
    let mut running = vec![false; n];
    let mut worst = 0;
    let in_memory = |t: usize, s: usize| spec.tasks[t].segments()[s].kind == schedlab_model::SegmentKind::Memory;
    let mut i = 0;
    while i < ev.len() {
        let t0 = ev[i].t();
        while i < ev.len() && ev[i].t() == t0 {
            match ev[i] {
                Event::Release { task, .. } => seg[task as usize] = 0,
                Event::SegmentEnd { task, segment, .. } => seg[task as usize] = segment as usize + 1,
                Event::SwitchTo { task, .. } => running[task as usize] = true,
                Event::SwitchAway { task, .. } => running[task as usize] = false,
                _ => {}
            }
            i += 1;
        }
        worst = worst.max((0..n).filter(|&t| running[t] && in_memory(t, seg[t])).count());
    }
    worst
}

#[test]
fn under_the_mps_execution_times_do_not_vary_and_under_contention_they_stretch() {
    let horizon = 2000 * MS;
    let wcet = 8 * MS;
    let mcs = three(true);
    let ev = run(&mcs, horizon);
    assert_eq!(max_memory_phases_at_once(&ev, &mcs), 1, "one memory phase at a time");
    let with = exec_times(&ev, 3);
    let contention = three(false);
    let ev_c = run(&contention, horizon);
    assert!(max_memory_phases_at_once(&ev_c, &contention) >= 2, "the baseline runs memory phases together");
    let without = exec_times(&ev_c, 3);
    for t in 0..3 {
        let (lo, hi) = (*with[t].iter().min().unwrap(), *with[t].iter().max().unwrap());
        let (lo_c, hi_c) = (*without[t].iter().min().unwrap(), *without[t].iter().max().unwrap());
        eprintln!(
            "task {t}: mcs exec [{lo}, {hi}] ns over {} jobs; contention [{lo_c}, {hi_c}] over {}",
            with[t].len(),
            without[t].len()
        );
        assert!(with[t].len() > 50 && without[t].len() > 50);
        // With MCS: no interference, every job takes its WCET of CPU time.
        assert_eq!((lo, hi), (wcet, wcet), "task {t} under the MPS");
        // Without: stretched when the three overlap, so the times vary.
        assert!(hi_c > wcet, "task {t}: contention stretches some job ({hi_c})");
        assert!(hi_c - lo_c > hi - lo, "task {t}: the jitter is larger without the MPS");
    }
}

/// Figure 9 (A-MP; worked in crates/policy/tests/mcs.rs): each job runs its
/// first prefetch and its two E phases in one stint while the worker on
/// CPU 3 runs the other phases; the jobs' execution time is the initial
/// prefetch plus the E phases (13 ms of the 16 ms of phases).
#[test]
fn figure_9_in_the_simulator() {
    let sec = "memory_mode: amp, segments: [{memory: 1ms}, {exec: 6ms}, {memory: 1ms}, {memory: 1ms}, {exec: 6ms}, {memory: 1ms}]";
    let s = load(&format!(
        "platform: {{cpus: 4}}\npolicy: {{name: mcs, master: 3}}\ntasks:\n  - {{name: tau1, period: 100ms, offset: 1ms, cpu: 0, memory_priority: 1, {sec}}}\n  - {{name: tau2, period: 100ms, cpu: 1, memory_priority: 2, {sec}}}\n  - {{name: tau3, period: 100ms, cpu: 2, memory_priority: 3, {sec}}}\n"
    ));
    let ev = run(&s, 30 * MS);
    let ms = |v: &[(u32, u32, u64, u64)]| v.iter().map(|&(t, c, a, b)| (t, c, a / MS, b / MS)).collect::<Vec<_>>();
    assert_eq!(ms(&stints(&ev)), [(0, 0, 1, 14), (1, 1, 0, 13), (2, 2, 2, 15)]);
    assert_eq!(exec_times(&ev, 3), vec![vec![13 * MS]; 3]);
    let worker: Vec<(u64, u32)> = ev
        .iter()
        .filter_map(|e| match e {
            Event::Policy { t, event: PolicyEvent::TokenGrant { task, worker: true, .. }, .. } => {
                Some((*t / MS, *task))
            }
            _ => None,
        })
        .collect();
    assert_eq!(worker, [(3, 1), (4, 0), (5, 2), (7, 1), (8, 0), (9, 2), (13, 1), (14, 0), (15, 2)]);
}
