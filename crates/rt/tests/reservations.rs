//! Reservations on the kernel backend, run for real (root): each group of
//! the spec becomes a cgroup with Linux's RT group scheduling, its task
//! SCHED_FIFO inside. Two tasks on CPU 1, each wanting 80 % of it, in
//! groups of 20 ms and 30 ms every 100 ms: the kernel's trace shows each
//! group receiving at most its budget in every period (aligned to the
//! group's period timer, whose phase is searched; one tick of tolerance:
//! Linux accounts RT runtime at the tick, HZ 250 here, and pays an overrun
//! back in the next period) and about its budget over the run, the
//! higher-priority task held to 20 % while the lower one gets 30 %, and no
//! cgroup left afterwards.

mod common;
use common::*;
use schedlab_rt::{run, Execution, RunConfig, WorkloadSpec};
use schedlab_trace::Event;

const MS: u64 = 1_000_000;

/// Running intervals of `task` from the kernel's switch events.
fn intervals(events: &[Event], task: u32) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    let mut from = None;
    for e in events {
        match *e {
            Event::SwitchTo { t, task: k, .. } if k == task => from = from.or(Some(t)),
            Event::SwitchAway { t, task: k, .. } | Event::Completion { t, task: k, .. } if k == task => {
                if let Some(s) = from.take() {
                    out.push((s, t));
                }
            }
            _ => {}
        }
    }
    out
}

fn usage(iv: &[(u64, u64)], a: u64, b: u64) -> u64 {
    iv.iter().map(|&(s, e)| e.min(b).saturating_sub(s.max(a))).sum()
}

/// The largest usage in a period, over aligned periods inside [0, end),
/// for the phase that makes it smallest (the group's period timer has
/// some phase; the budget holds in every period of that phase).
fn worst_period(iv: &[(u64, u64)], period: u64, end: u64) -> (u64, u64) {
    (0..period)
        .step_by(250_000)
        .map(|phase| {
            let worst = (0..)
                .map(|k| phase + k * period)
                .take_while(|&a| a + period <= end)
                .map(|a| usage(iv, a, a + period))
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
        "platform: {cpus: 2}\npolicy: {name: pfp}\ntasks:\n  - {name: hi, wcet: 40ms, period: 50ms, cpu: 1}\n  - {name: lo, wcet: 40ms, period: 50ms, cpu: 1}\nreservations:\n  - {name: ga, budget: 20ms, period: 100ms, tasks: [hi]}\n  - {name: gb, budget: 30ms, period: 100ms, tasks: [lo]}\n",
    );
    let duration = 1000 * MS;
    let cfg = RunConfig {
        duration,
        execution: Execution::Fraction(1.0),
        workload: WorkloadSpec::SpinCpu,
        start_margin: 200 * MS,
        wait: true,
        ..RunConfig::default()
    };
    let o = run(&s, &cfg).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(state(), before, "the machine's state is restored");
    assert!(schedlab_rt::rtgroup::leftovers().is_empty(), "{:?}", schedlab_rt::rtgroup::leftovers());
    for n in &o.notes {
        log(&format!("reservations: note: {n}"));
    }
    for m in &o.mapping {
        log(&format!("reservations: mapping: {m}"));
    }
    assert!(o.mapping[0].contains("RT group ga (20000 µs every 100000 µs"), "{:?}", o.mapping);
    assert!(o.mapping[1].contains("RT group gb (30000 µs every 100000 µs"), "{:?}", o.mapping);
    let note = o.events.iter().find_map(|e| match e {
        Event::Note { name, data, .. } if name == "rt-groups" => Some(data.clone()),
        _ => None,
    });
    let note = note.expect("an rt-groups note");
    assert_eq!(note["groups"].as_array().unwrap().len(), 2, "{note}");
    assert!(o.kernel_trace, "the kernel's switch events are needed to measure");

    let tick = 4 * MS + MS;
    for (task, budget, period) in [(0u32, 20 * MS, 100 * MS), (1, 30 * MS, 100 * MS)] {
        let iv = intervals(&o.events, task);
        let (worst, phase) = worst_period(&iv, period, duration);
        let total = usage(&iv, 0, duration);
        log(&format!(
            "reservations: task {task}: budget {} ms / {} ms; worst period {:.3} ms (phase {:.2} ms); {:.1} ms over {} ms ({} intervals)",
            budget / MS,
            period / MS,
            worst as f64 / 1e6,
            phase as f64 / 1e6,
            total as f64 / 1e6,
            duration / MS,
            iv.len()
        ));
        assert!(worst <= budget + tick, "task {task}: {worst} ns in one period, budget {budget} ns (+ a tick)");
        let periods = duration / period;
        assert!(total <= (periods + 1) * budget + tick, "task {task}: {total} ns over the run");
        assert!(
            total * 10 >= periods * budget * 7,
            "task {task}: only {total} ns over the run, budget {budget} per period"
        );
    }
}
