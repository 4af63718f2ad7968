//! G-FP response-time analysis (Bertogna & Cirinei 2007), discrete time,
//! with the slack of higher-priority tasks. For τₖ, with hp(k) the tasks
//! above it and Rᵢ their bounds (slack Sᵢ = Dᵢ − Rᵢ):
//!
//!   R ← Cₖ + ⌊(1/m)·Σ_{i∈hp(k)} min(Wᵢ(R), R − Cₖ + 1)⌋,
//!   Wᵢ(L) = Nᵢ·Cᵢ + min(Cᵢ, L + Rᵢ − Cᵢ − Nᵢ·Tᵢ),  Nᵢ = ⌊(L + Rᵢ − Cᵢ)/Tᵢ⌋
//!
//! (the paper's L + Dᵢ − Cᵢ − Sᵢ with Dᵢ − Sᵢ = Rᵢ). Under fixed
//! priorities a task's bound depends only on the tasks above it, so one
//! pass from the highest priority down is the paper's iteration at its
//! fixed point. Schedulable when every Rₖ ≤ Dₖ.

use super::super::gedf::exact::int;
use super::super::gedf::explain::{explained, Names, ns, Explain, Quiet};
use super::super::gedf::model::{precheck, Needs};
use super::super::input::{Input, TaskParams};
use super::super::outcome::{Exactness, Outcome, Verdict};
use super::super::registry::TestInfo;
use super::super::gedf::piecewise::{lfp, sawtooth, Lin};
use super::{bounds_line, order_line, priority_order, valid_order};
use schedlab_model::PolicyName;

pub const ID: &str = "gfp.bertogna";

pub const INFO: TestInfo = TestInfo {
    id: ID,
    title: "G-FP response-time analysis with slack (Bertogna–Cirinei)",
    policies: &[PolicyName::Gfp],
    assumes: "sporadic tasks without jitter, constrained deadlines (D ≤ T), integer time (ns); RM, DM or explicit priorities, ties to the lower task index",
    exactness: Exactness::Sufficient,
    source: "Bertogna & Cirinei 2007 (RTSS)",
};

/// Wᵢ(L) given τᵢ's response-time bound rᵢ.
#[cfg(test)]
pub(crate) fn workload(ti: &TaskParams, l: i128, ri: i128) -> i128 {
    let (c, t) = (ti.wcet as i128, ti.period as i128);
    let a = l + ri - c;
    let n = a.div_euclid(t);
    n * c + c.min(a - n * t)
}

pub fn core<E: Explain>(tasks: &[TaskParams], m: u32, order: &[usize], ex: &mut E) -> Verdict {
    let needs = Needs { constrained: true, ..Needs::default() };
    if let Err(v) = precheck(tasks, m, needs, ex) {
        return v;
    }
    if !valid_order(tasks, order, ex) {
        return Verdict::NotApplicable;
    }
    let mut r: Vec<Option<i128>> = vec![None; tasks.len()];
    let mut rb: Vec<i128> = vec![0; tasks.len()];
    for (pos, &k) in order.iter().enumerate() {
        let hp = &order[..pos];
        let (ck, dk) = (tasks[k].wcet as i128, tasks[k].deadline as i128);
        let f = |x: i64| {
            let cap = Lin::cap(x, ck as i64);
            hp.iter().fold(Lin::constant(0), |acc, &i| {
                let (c, t) = (tasks[i].wcet as i64, tasks[i].period as i64);
                acc.add(sawtooth(c, t, x + rb[i] as i64 - c).min(cap))
            })
        };
        match lfp(ck as i64, dk as i64, m as i64, f).map(i128::from).map_err(i128::from) {
            Ok(b) => {
                r[k] = Some(b);
                rb[k] = b;
            }
            Err(above) => {
                if let Some((o, names)) = ex.out() {
                    o.reason = format!(
                        "for {} (priority {} of {}): the response-time iteration exceeds the deadline ({} > {}); the test cannot prove it",
                        names.label(k),
                        pos + 1,
                        tasks.len(),
                        ns(above),
                        ns(dk)
                    );
                    o.task = Some(k);
                    o.value = Some(int(above));
                    o.bound = Some(int(dk));
                }
                bounds_line(&r, ex);
                return Verdict::Inconclusive;
            }
        }
    }
    if let Some((o, names)) = ex.out() {
        let k = (0..tasks.len()).min_by_key(|&k| tasks[k].deadline as i128 - rb[k]).unwrap_or(0);
        o.reason = format!("every response-time bound is within its deadline; tightest {}: R = {} ≤ D = {}", names.label(k), ns(rb[k]), ns(tasks[k].deadline as i128));
        o.task = Some(k);
        o.value = Some(int(rb[k]));
        o.bound = Some(int(tasks[k].deadline as i128));
    }
    bounds_line(&r, ex);
    Verdict::Schedulable
}

/// The verdict alone, for tasks in `order` (indices, highest priority first).
pub fn decide(tasks: &[TaskParams], m: u32, order: &[usize]) -> Verdict {
    core(tasks, m, order, &mut Quiet)
}

pub fn check(tasks: &[TaskParams], m: u32, order: &[usize]) -> Outcome {
    explained(ID, Names::NONE, |ex| core(tasks, m, order, ex))
}

pub fn check_input(input: &Input) -> Outcome {
    match priority_order(input) {
        Ok(order) => explained(ID, Names::of(input), |ex| core(&input.tasks, input.cpus, &order, ex)).detail(order_line(input, &order)),
        Err((i, why)) => Outcome::not_applicable(ID, why).task(i),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_top_m_tasks_run_alone() {
        // Two CPUs: the two highest-priority tasks have R = C.
        let t = vec![TaskParams::implicit(5, 10), TaskParams::implicit(5, 10), TaskParams::implicit(3, 20)];
        let o = check(&t, 2, &[0, 1, 2]);
        assert_eq!(o.verdict, Verdict::Schedulable, "{o:?}");
        let Some(super::super::super::data::Data::ResponseTimes(r)) = &o.data else { panic!() };
        assert_eq!(&r[..2], &[Some(5), Some(5)]);
        // Third: x = 3: cap 1 each → 3 + 1 = 4; x = 4: cap 2 → 5; ... converges at 8.
        assert_eq!(r[2], Some(8));
    }

    #[test]
    fn priorities_from_the_spec() {
        let yaml = "platform: {cpus: 2}\npolicy: {name: gfp, priorities: explicit}\ntasks:\n- {name: a, wcet: 1ms, period: 10ms, priority: 2}\n- {name: b, wcet: 1ms, period: 5ms, priority: 1}\n";
        let spec = schedlab_model::load_str(yaml, None, "t.yaml").expect("spec").spec;
        let o = check_input(&Input::from_spec(&spec));
        assert_eq!(o.verdict, Verdict::Schedulable, "{o:?}");
        assert!(o.details.iter().any(|d| d.contains("(explicit), highest first: task b")), "{:?}", o.details);
        let mut input = Input::from_spec(&spec);
        input.priorities[0] = None;
        let o = check_input(&input);
        assert_eq!(o.verdict, Verdict::NotApplicable);
        assert_eq!(o.task, Some(0));
    }
}
