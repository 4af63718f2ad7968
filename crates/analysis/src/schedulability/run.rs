//! RUN feasibility: periodic implicit-deadline tasks with every utilisation
//! at most 1 and total utilisation at most m are scheduled by RUN without
//! a miss (Regnier et al. 2011; Horn's condition, which RUN attains).

use super::input::Input;
use super::outcome::{Exactness, Outcome, Verdict};
use super::registry::TestInfo;
use schedlab_model::exact::Ratio;
use schedlab_model::{Duration, PolicyName};

pub const ID: &str = "run.feasibility";

pub const INFO: TestInfo = TestInfo {
    id: ID,
    title: "RUN: every utilisation ≤ 1 and total utilisation ≤ m",
    policies: &[PolicyName::Run],
    assumes: "periodic tasks released synchronously, implicit deadlines",
    exactness: Exactness::Exact,
    source: "Regnier, Lima, Massa, Levin, Brandt 2011 (RUN); Horn 1974",
};

pub fn check(input: &Input) -> Outcome {
    let m = input.cpus as u128;
    for (i, t) in input.tasks.iter().enumerate() {
        let name = input.task_label(i);
        if t.deadline != t.period {
            return Outcome::not_applicable(
                ID,
                format!(
                    "{name} has deadline {} ≠ period {}: RUN needs implicit deadlines",
                    Duration(t.deadline),
                    Duration(t.period)
                ),
            )
            .task(i);
        }
        if t.offset != 0 {
            return Outcome::not_applicable(ID, format!("{name} has an offset: RUN needs a synchronous release"))
                .task(i);
        }
        if t.wcet > t.period {
            return Outcome::new(ID, Verdict::Unschedulable, format!("{name} has utilisation above 1"))
                .task(i)
                .compare(Ratio::new(t.wcet as u128, t.period as u128), Ratio::new(1, 1));
        }
    }
    let total = Ratio::sum(input.tasks.iter().map(|t| (t.wcet as u128, t.period as u128)));
    let out = if total.gt_int(m) {
        Outcome::new(
            ID,
            Verdict::Unschedulable,
            format!("total utilisation {:.4} exceeds the {m} CPUs: no schedule exists", total.to_f64()),
        )
    } else {
        Outcome::new(
            ID,
            Verdict::Schedulable,
            format!(
                "total utilisation {:.4} ≤ {m} CPUs and every utilisation ≤ 1: RUN meets every deadline",
                total.to_f64()
            ),
        )
    };
    out.compare(total, Ratio::new(m, 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(yaml: &str) -> Input {
        Input::from_spec(&schedlab_model::load_str(yaml, None, "t.yaml").expect("spec").spec)
    }

    #[test]
    fn exactly_m_is_feasible_and_above_is_not() {
        let s = spec("platform: {cpus: 2}\npolicy: {name: run}\ntasks:\n- {name: a, wcet: 2ms, period: 3ms}\n- {name: b, wcet: 2ms, period: 3ms}\n- {name: c, wcet: 2ms, period: 3ms}\n");
        let o = check(&s);
        assert_eq!(o.verdict, Verdict::Schedulable, "{o:?}");
        assert_eq!(o.value, Some(Ratio::new(2, 1)));
        let s = spec("platform: {cpus: 2}\npolicy: {name: run}\ntasks:\n- {name: a, wcet: 2ms, period: 3ms}\n- {name: b, wcet: 2ms, period: 3ms}\n- {name: c, wcet: 2001us, period: 3ms}\n");
        let o = check(&s);
        assert_eq!(o.verdict, Verdict::Unschedulable);
        assert!(o.slack().expect("slack").0 < Ratio::zero().0);
    }

    #[test]
    fn constrained_deadlines_and_offsets_are_not_applicable() {
        let s = spec(
            "platform: {cpus: 2}\npolicy: {name: run}\ntasks:\n- {name: a, wcet: 1ms, period: 5ms, deadline: 4ms}\n",
        );
        let o = check(&s);
        assert_eq!(o.verdict, Verdict::NotApplicable);
        assert_eq!(o.task, Some(0));
        let s = spec(
            "platform: {cpus: 2}\npolicy: {name: run}\ntasks:\n- {name: a, wcet: 1ms, period: 5ms, offset: 1ms}\n",
        );
        assert_eq!(check(&s).verdict, Verdict::NotApplicable);
    }
}
