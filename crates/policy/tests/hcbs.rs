//! H-CBS (`hcbs`) driven by the in-test driver, against schedules computed
//! by hand from the hard-CBS rules (crates/policy/src/server/cbs.rs) and the
//! policy's rules (crates/policy/src/hcbs/): throttling, the wake-up
//! rule, EDF among servers, global FP inside a group over the CPUs serving
//! it, nesting with a leaf queue, background tasks.

mod common;

use common::run;
use schedlab_model::{load_str, Spec};
use schedlab_policy::{build, Conformance};

const MS: u64 = 1_000_000;

fn spec(yaml: &str) -> Spec {
    load_str(yaml, None, "t.yaml").unwrap_or_else(|e| panic!("{e:?}")).spec
}

/// (task, start, end) in ms.
fn ms(v: Vec<(u32, u64, u64)>) -> Vec<(u32, u64, u64)> {
    v.into_iter().map(|(t, a, b)| (t, a / MS, b / MS)).collect()
}

/// One CPU, group g = (2, 5) with t0 (3, 10); t1 (4, 20) in no group.
/// t0 runs 0–2 and exhausts g, which is throttled until 5: t1 runs in the
/// background 2–5. At 5 g gets (2, 10): t0 finishes 5–6, t1 6–7. At 10 the
/// wake-up finds d = 10 ≤ t: (2, 15); t0 runs 10–12, throttled to 15,
/// finishes 15–16. At 20 both: t0 20–22, t1 22–25, t0 25–26, t1 26–27.
#[test]
fn a_group_is_throttled_until_its_deadline() {
    let s = spec(
        "platform: {cpus: 1}\npolicy: {name: hcbs}\ntasks:\n  - {name: t0, wcet: 3ms, period: 10ms}\n  - {name: t1, wcet: 4ms, period: 20ms}\nreservations:\n  - {name: g, budget: 2ms, period: 5ms, tasks: [t0]}\n",
    );
    let p = build(&s, None).unwrap();
    assert_eq!(p.info().name, "hcbs");
    assert_eq!(p.info().conformance, Conformance::Replay);
    let r = run(&s, p, 29 * MS, &[]);
    assert_eq!(
        ms(r.cpu(0)),
        vec![
            (0, 0, 2),
            (1, 2, 5),
            (0, 5, 6),
            (1, 6, 7),
            (0, 10, 12),
            (0, 15, 16),
            (0, 20, 22),
            (1, 22, 25),
            (0, 25, 26),
            (1, 26, 27)
        ]
    );
}

/// The CBS wake-up rule keeps (q, d) when q·P < (d − t)·Q. Group (3, 6)
/// with t0 (2) at 0 and t1 (2) at 3; t2 (2) in the background. At 0:
/// (3, 6), t0 runs 0–2, q = 1. At 3: 1·6 < (6 − 3)·3, so g keeps (1, 6):
/// t1 runs 3–4 and exhausts it, throttled until 6, then (3, 12): t1
/// finishes 6–7. t2 fills 2–3 and 4–5. (A reset at 3 would have run t1 3–5.)
#[test]
fn the_wake_up_rule_keeps_a_budget_that_fits_the_deadline() {
    let s = spec(
        "platform: {cpus: 1}\npolicy: {name: hcbs}\ntasks:\n  - {name: t0, wcet: 2ms, period: 100ms}\n  - {name: t1, wcet: 2ms, period: 100ms, offset: 3ms}\n  - {name: t2, wcet: 2ms, period: 100ms}\nreservations:\n  - {name: g, budget: 3ms, period: 6ms, tasks: [t0, t1]}\n",
    );
    let r = run(&s, build(&s, None).unwrap(), 20 * MS, &[]);
    assert_eq!(ms(r.cpu(0)), vec![(0, 0, 2), (2, 2, 3), (1, 3, 4), (2, 4, 5), (1, 6, 7)]);
}

/// Two CPUs, A = (4, 10) with a0 (6, 20) above a1 (2, 20), B = (2, 5)
/// with b0 (3, 10). At 0 both CPUs prefer B (d = 5): CPU 0 takes it (b0),
/// CPU 1 takes A (a0, A's first task). At 2 B@0 is exhausted (throttled
/// to 5): CPU 0 serves A and CPU 1 serves B (B@1 still has (2, 5)), so a0
/// moves to CPU 0 and b0 to CPU 1, where it completes at 3. Then both
/// CPUs serve A: its two highest-priority tasks run, a0 on CPU 0, a1 on
/// CPU 1; A@1 (2 left after a0's 0–2) runs out at 5 with a1's completion.
/// a0 ends at 6 exhausting A@0. At 10 b0 runs on CPU 0 to B@0's
/// exhaustion at 12, then on CPU 1 (B@1 reset to (2, 15)).
#[test]
fn edf_among_servers_and_fixed_priority_inside_a_group_over_its_cpus() {
    let s = spec(
        "platform: {cpus: 2}\npolicy: {name: hcbs}\ntasks:\n  - {name: a0, wcet: 6ms, period: 20ms}\n  - {name: a1, wcet: 2ms, period: 20ms}\n  - {name: b0, wcet: 3ms, period: 10ms}\nreservations:\n  - {name: A, budget: 4ms, period: 10ms, tasks: [a0, a1]}\n  - {name: B, budget: 2ms, period: 5ms, tasks: [b0]}\n",
    );
    let r = run(&s, build(&s, None).unwrap(), 14 * MS, &[]);
    assert_eq!(ms(r.cpu(0)), vec![(2, 0, 2), (0, 2, 6), (2, 10, 12)]);
    assert_eq!(ms(r.cpu(1)), vec![(0, 0, 2), (2, 2, 3), (1, 3, 5), (2, 12, 13)]);
}

/// Nesting on one CPU: P = (4, 10) holds p0 (2, 20) in its leaf queue
/// (1 every 10) and the subgroup K = (2, 10) with k0 (3, 20); x (10, 100)
/// is in no group. The leaf and K tie on d = 10: the leaf first (it comes
/// first in the tree). p0 runs 0–1 (leaf exhausted), k0 1–3 (K exhausted),
/// and P, with 1 left but nothing eligible below, leaves the CPU to x
/// 3–10. At 10 the leaf and K are replenished to d = 20 while P keeps
/// (1, 10): p0 runs 10–11, exhausting the leaf and P (P's deadline has
/// passed: replenished at once to (4, 20)); k0 11–12, x 12–15.
#[test]
fn nested_groups_and_the_leaf_queue() {
    let s = spec(
        "platform: {cpus: 1}\npolicy: {name: hcbs}\ntasks:\n  - {name: p0, wcet: 2ms, period: 20ms}\n  - {name: k0, wcet: 3ms, period: 20ms}\n  - {name: x, wcet: 10ms, period: 100ms}\nreservations:\n  - name: P\n    budget: 4ms\n    period: 10ms\n    tasks: [p0]\n    leaf_budget: 1ms\n    groups: [{name: K, budget: 2ms, period: 10ms, tasks: [k0]}]\n",
    );
    let r = run(&s, build(&s, None).unwrap(), 19 * MS, &[]);
    assert_eq!(ms(r.cpu(0)), vec![(0, 0, 1), (1, 1, 3), (2, 3, 10), (0, 10, 11), (1, 11, 12), (2, 12, 15)]);
}

/// Without reservations every task is in the background: global FP (RM).
#[test]
fn without_reservations_it_is_global_fixed_priority() {
    let s = spec(
        "platform: {cpus: 2}\npolicy: {name: hcbs}\ntasks:\n  - {name: t0, wcet: 3ms, period: 10ms}\n  - {name: t1, wcet: 3ms, period: 5ms}\n  - {name: t2, wcet: 2ms, period: 4ms}\n",
    );
    let r = run(&s, build(&s, None).unwrap(), 4 * MS, &[]);
    // t2 and t1 (shortest periods) first, on CPUs 0 and 1 in priority
    // order; t0 takes CPU 0 when t2 completes at 2, and keeps it at 3.
    assert_eq!(ms(r.cpu(0)), vec![(2, 0, 2), (0, 2, 4)]);
    assert_eq!(ms(r.cpu(1)), vec![(1, 0, 3)]);
}

/// A non-preemptive section is boosted (the paper's Fig. 2): one CPU,
/// group g = (2, 10) with hi (1, 20, released at 1.5) above lo (3, 20:
/// 1 ms, then a 2 ms section that may not be preempted). lo runs 0–1,
/// enters its section at 1 and keeps the CPU when hi arrives at 1.5 and
/// when g runs out at 2 (exhausted, throttled until 10): it ends its
/// section, and its job, at 3. hi then waits for g's replenishment: 10–11.
/// Without the section (one preemptible segment) hi preempts lo at 1.5.
#[test]
fn a_non_preemptive_section_runs_past_preemption_and_exhaustion() {
    let yaml = |lo: &str| {
        format!(
            "platform: {{cpus: 1}}\npolicy: {{name: hcbs}}\ntasks:\n  - {{name: hi, wcet: 1ms, period: 20ms, offset: 1.5ms}}\n  - {{name: lo, period: 20ms, segments: {lo}}}\nreservations:\n  - {{name: g, budget: 2ms, period: 10ms, tasks: [hi, lo]}}\n"
        )
    };
    let s = spec(&yaml("[{exec: 1ms}, {exec: 2ms, preemptible: false}]"));
    let r = run(&s, build(&s, None).unwrap(), 19 * MS, &[]);
    assert_eq!(r.cpu(0), vec![(1, 0, 3 * MS), (0, 10 * MS, 11 * MS)]);
    let s = spec(&yaml("[{exec: 3ms}]"));
    let r = run(&s, build(&s, None).unwrap(), 19 * MS, &[]);
    // hi preempts at 1.5 and runs 0.5 ms to g's exhaustion at 2; hi finishes
    // 10–10.5, lo 10.5–12 (g's 2 ms end at 12), lo finishes after 20.
    assert_eq!(&r.cpu(0)[..3], &[(1, 0, 3 * MS / 2), (0, 3 * MS / 2, 2 * MS), (0, 10 * MS, 21 * MS / 2)]);
}

/// Per-CPU budgets confine a group: g has 2 every 5 on CPU 0 and nothing on
/// CPU 1. t0 (3, 10) runs 0–2 on CPU 0, is throttled until 5 and finishes
/// 5–6 there, never on CPU 1, which runs t1 (10, 20), in no group, from 0
/// to the end of the run (9).
#[test]
fn per_cpu_budgets_confine_a_group_to_its_cpus() {
    let s = spec(
        "platform: {cpus: 2}\npolicy: {name: hcbs}\ntasks:\n  - {name: t0, wcet: 3ms, period: 10ms}\n  - {name: t1, wcet: 10ms, period: 20ms}\nreservations:\n  - {name: g, budgets: [2ms, 0ms], period: 5ms, tasks: [t0]}\n",
    );
    let r = run(&s, build(&s, None).unwrap(), 9 * MS, &[]);
    assert_eq!(ms(r.cpu(0)), vec![(0, 0, 2), (0, 5, 6)]);
    assert_eq!(ms(r.cpu(1)), vec![(1, 0, 9)]);
}
