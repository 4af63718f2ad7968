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

use super::super::gedf::explain::{explained, Explain, Names, Quiet};
use super::super::gedf::piecewise::{sawtooth, Lin};
use super::super::input::{Input, TaskParams};
use super::super::outcome::{Exactness, Outcome, Verdict};
use super::super::registry::TestInfo;
use super::{order_line, priority_order, response_times};
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

pub fn core<E: Explain>(tasks: &[TaskParams], m: u32, order: &[usize], ex: &mut E) -> Verdict {
    response_times(tasks, m, order, ex, |hp, rb, ck, x| {
        let cap = Lin::cap(x, ck);
        hp.iter().fold(Lin::constant(0), |acc, &i| {
            let (c, t) = (tasks[i].wcet as i64, tasks[i].period as i64);
            acc.plus(sawtooth(c, t, x + rb[i] as i64 - c).min(cap))
        })
    })
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
        Ok(order) => explained(ID, Names::of(input), |ex| core(&input.tasks, input.cpus, &order, ex))
            .detail(order_line(input, &order)),
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
