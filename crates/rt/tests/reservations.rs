//! Reservations on the kernel backend, run for real (root): each group of
//! the spec becomes a cgroup with Linux's RT group scheduling, its task
//! SCHED_FIFO inside.
//!
//! What each task received is measured by its job body itself, not from
//! the kernel's trace (which on this VM now and then lacks the switches of
//! a throttle): the body spins for its job's execution time and samples
//! (wall clock, thread CPU time) every 50 µs of wall time; the CPU time a
//! task received in a window is the difference of its CPU time at the
//! window's ends (the last sample before each), to within a sample interval.
//!
//! Two tasks on one CPU, each wanting 80 % of it, in groups of 20 ms and
//! 30 ms every 100 ms: each group receives at most its budget in every
//! period (aligned to the group's period timer, whose phase is searched;
//! one tick of tolerance: Linux accounts RT runtime at the tick, HZ 250
//! here, and pays an overrun back in the next period) and about its budget
//! over the run, the higher-priority task held to 20 % while the lower one
//! gets 30 %, and no cgroup is left afterwards. Then one spec under `hcbs`
//! on both backends: where Linux's group throttling differs from H-CBS.

mod common;
use common::*;
use schedlab_rt::{clock, run, Execution, JobCtx, JobError, RunConfig, WorkloadSpec};
use schedlab_trace::Event;
use std::sync::{Arc, Mutex};

const MS: u64 = 1_000_000;
const SAMPLE: u64 = 50_000;

/// Per task, (wall clock, thread CPU time) samples of its jobs.
type Samples = Arc<Mutex<Vec<Vec<(u64, u64)>>>>;

/// A run of `duration` on the kernel backend, each job its whole WCET of
/// `workload`, waiting for another run on this machine rather than failing.
fn kernel_cfg(duration: u64, workload: WorkloadSpec) -> RunConfig {
    RunConfig {
        duration,
        execution: Execution::Fraction(1.0),
        workload,
        start_margin: 200 * MS,
        wait: true,
        ..RunConfig::default()
    }
}

/// A job body that spins for the job's execution time (thread CPU time),
/// sampling the clocks; each job's samples are added when it ends.
fn sampling(tasks: usize) -> (WorkloadSpec, Samples) {
    let all: Samples = Arc::new(Mutex::new(vec![Vec::new(); tasks]));
    let shared = all.clone();
    let body = WorkloadSpec::rust("sampled-spin", move |task| {
        let all = shared.clone();
        let mut mine: Vec<(u64, u64)> = Vec::with_capacity(1 << 16);
        Box::new(move |ctx: &mut JobCtx| -> Result<(), JobError> {
            let end = clock::thread_cpu() + ctx.exec;
            let mut last = 0;
            loop {
                let (w, c) = (clock::now(), clock::thread_cpu());
                if w >= last + SAMPLE || c >= end {
                    mine.push((w, c));
                    last = w;
                }
                if c >= end {
                    break;
                }
                ctx.check()?;
            }
            all.lock().unwrap()[task as usize].append(&mut mine);
            Ok(())
        })
    });
    (body, all)
}

/// Thread CPU time at wall time `t`: the last sample at or before it.
fn cpu_at(s: &[(u64, u64)], t: u64) -> u64 {
    match s.partition_point(|&(w, _)| w <= t) {
        0 => s.first().map_or(0, |x| x.1),
        i => s[i - 1].1,
    }
}

/// CPU time received in [a, b).
fn usage(s: &[(u64, u64)], a: u64, b: u64) -> u64 {
    cpu_at(s, b).saturating_sub(cpu_at(s, a))
}

/// The largest CPU time in a period, over aligned periods inside
/// [from, to), for the phase that makes it smallest (the group's period
/// timer has some phase; the budget holds in every period of that phase).
fn worst_period(s: &[(u64, u64)], period: u64, from: u64, to: u64) -> (u64, u64) {
    (0..period)
        .step_by(250_000)
        .map(|phase| {
            let worst = (0..)
                .map(|k| from + phase + k * period)
                .take_while(|&a| a + period <= to)
                .map(|a| usage(s, a, a + period))
                .max()
                .unwrap_or(0);
            (worst, phase)
        })
        .min()
        .unwrap()
}

#[test]
fn each_group_gets_at_most_its_budget_per_period_and_the_cgroups_are_gone() {
    require_root();
    let _s = serial();
    let before = state();
    let s = spec(
        "platform: {cpus: 1}\npolicy: {name: hcbs}\ntasks:\n  - {name: hi, wcet: 40ms, period: 50ms}\n  - {name: lo, wcet: 40ms, period: 50ms}\nreservations:\n  - {name: ga, budget: 20ms, period: 100ms, tasks: [hi]}\n  - {name: gb, budget: 30ms, period: 100ms, tasks: [lo]}\n",
    );
    let duration = 1000 * MS;
    let (workload, samples) = sampling(2);
    let cfg = kernel_cfg(duration, workload);
    let o = run(&s, &cfg).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(state(), before, "the machine's state is restored");
    assert!(schedlab_rt::rtgroup::leftovers().is_empty(), "{:?}", schedlab_rt::rtgroup::leftovers());
    for n in &o.notes {
        log(&format!("reservations: note: {n}"));
    }
    for m in &o.mapping {
        log(&format!("reservations: mapping: {m}"));
    }
    assert!(
        o.mapping[0].contains("SCHED_FIFO 89 on CPUs 0, in RT group ga (20000 µs every 100000 µs"),
        "{:?}",
        o.mapping
    );
    assert!(o.mapping[1].contains("RT group gb (30000 µs every 100000 µs"), "{:?}", o.mapping);
    let note = o.events.iter().find_map(|e| match e {
        Event::Note { name, data, .. } if name == "rt-groups" => Some(data.clone()),
        _ => None,
    });
    let note = note.expect("an rt-groups note");
    assert_eq!(note["groups"].as_array().unwrap().len(), 2, "{note}");

    // The run's first second, from the first job's first sample.
    let samples = samples.lock().unwrap().clone();
    let t0 = samples.iter().filter_map(|s| s.first().map(|x| x.0)).min().expect("samples");
    let (from, to) = (t0, t0 + duration);
    let tick = 4 * MS + MS;
    for (task, budget, period) in [(0usize, 20 * MS, 100 * MS), (1, 30 * MS, 100 * MS)] {
        let s = &samples[task];
        let (worst, phase) = worst_period(s, period, from, to);
        let total = usage(s, from, to);
        log(&format!(
            "reservations: task {task}: budget {} ms / {} ms; worst period {:.3} ms (phase {:.2} ms); {:.1} ms over {} ms ({} samples)",
            budget / MS,
            period / MS,
            worst as f64 / 1e6,
            phase as f64 / 1e6,
            total as f64 / 1e6,
            duration / MS,
            s.len()
        ));
        let periods = duration / period;
        assert!(worst <= budget + tick, "task {task}: {worst} ns in one period, budget {budget} ns (+ a tick)");
        assert!(total <= (periods + 1) * budget + tick, "task {task}: {total} ns over the run");
        assert!(
            total * 10 >= periods * budget * 7,
            "task {task}: only {total} ns over the run, budget {budget} per period"
        );
    }
}

/// One CPU, `hi` (RM-higher) in a group of 40 ms every 100 ms, `lo` in one
/// of 10 ms every 20 ms, each task wanting more than its group's budget.
const HCBS: &str = "platform: {cpus: 1}\npolicy: {name: hcbs}\ntasks:\n  - {name: hi, wcet: 30ms, period: 50ms}\n  - {name: lo, wcet: 30ms, period: 60ms}\nreservations:\n  - {name: ga, budget: 40ms, period: 100ms, tasks: [hi]}\n  - {name: gb, budget: 10ms, period: 20ms, tasks: [lo]}\n";

/// The CPU time of tasks 0 and 1 in the run's first `d` ns.
fn shares(samples: &Samples, d: u64) -> (u64, u64) {
    let s = samples.lock().unwrap();
    let t0 = s.iter().filter_map(|v| v.first().map(|x| x.0)).min().unwrap_or(0);
    (usage(&s[0], t0, t0 + d), usage(&s[1], t0, t0 + d))
}

/// The paper's motivation, measured: the same spec under `hcbs` on both
/// backends. Linux orders its RT groups by their tasks' priority, so `hi`'s
/// group runs first whenever it has budget and `lo`'s group, whose budget
/// does not wait, gets well below its reservation (0.5 of the CPU); the
/// trace fails the H-CBS replay at once (Linux runs `hi` where H-CBS, EDF
/// among the servers, runs `lo`). On the dispatch backend H-CBS gives each
/// group its reservation and the trace passes the replay.
#[test]
fn linux_orders_rt_groups_by_priority_where_hcbs_keeps_each_reservation() {
    require_root();
    let _s = serial();
    let s = spec(HCBS);
    let d = 2000 * MS;
    let before = state();
    let (workload, samples) = sampling(2);
    let cfg = kernel_cfg(d, workload);
    let o = run(&s, &cfg).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(state(), before, "the machine's state is restored");
    let (hi, lo) = shares(&samples, d);
    log(&format!(
        "reservations: kernel backend (Linux RT groups): hi {:.1} ms ({:.3}), lo {:.1} ms ({:.3}) of {} ms; reserved 0.4 and 0.5",
        hi as f64 / 1e6,
        hi as f64 / d as f64,
        lo as f64 / 1e6,
        lo as f64 / d as f64,
        d / MS
    ));
    assert!(hi <= d * 2 / 5 + 5 * MS && lo <= d * 2 / 5, "hi {hi} ns, lo {lo} ns of {d}: want both ≤ 0.4");
    let r = schedlab_validate::validate(
        &o.header,
        o.events.iter().cloned(),
        &schedlab_validate::Options::with_tolerance(2 * MS),
    )
    .expect("validator runs");
    let text = r.render();
    assert!(!r.pass && text.contains("H-CBS replay"), "the kernel's trace should fail the H-CBS replay: {text}");
    log(&format!("reservations: kernel trace against H-CBS: {}", text.lines().next().unwrap_or("")));

    let dispatch = retry_stalls("hcbs on the dispatch backend", || {
        let (workload, samples) = sampling(2);
        let cfg = RunConfig { duration: d, execution: Execution::Fraction(1.0), workload, ..dispatch_cfg(0) };
        let o = run(&s, &cfg).map_err(|e| Failure::Hard(e.to_string()))?;
        let (hi, lo) = shares(&samples, d);
        log(&format!(
            "reservations: dispatch backend (H-CBS): hi {:.1} ms ({:.3}), lo {:.1} ms ({:.3}) of {} ms",
            hi as f64 / 1e6,
            hi as f64 / d as f64,
            lo as f64 / 1e6,
            lo as f64 / d as f64,
            d / MS
        ));
        // A throttle lands up to a decision latency late: 1 ms per period of hi's group.
        if hi > d * 2 / 5 + 20 * MS || lo * 100 < d * 45 || hi * 100 < d * 35 {
            return Err(Failure::Hard(format!(
                "hi ran {hi} ns, lo {lo} ns of {d}: want hi in [0.35, 0.4], lo ≥ 0.45 of the run"
            )));
        }
        let tol = tolerance_of(&o, 30 * MS)?;
        let r = schedlab_validate::validate(
            &o.header,
            o.events.iter().cloned(),
            &schedlab_validate::Options::with_tolerance(tol),
        )
        .expect("validator runs");
        if !r.pass {
            return Err(Failure::of_run(&o, &s, 1.0, tol, r.render()));
        }
        Ok(())
    });
    dispatch.unwrap();
}
