//! Pfair feasibility (PD^2): with execution rounded up to whole quanta,
//! total weight Σ ⌈C/Q⌉ / (T/Q) ≤ m and every weight ≤ 1 (Baruah et al.
//! 1996; PD^2 is optimal for such sets, Anderson & Srinivasan 2004).

use super::input::Input;
use super::outcome::{Exactness, Outcome, Verdict};
use super::registry::TestInfo;
use schedlab_model::exact::Ratio;
use schedlab_model::{Duration, PolicyName};

pub const ID: &str = "pfair.pd2";
/// The quantum when the spec does not set one (as the PD^2 policy).
pub const DEFAULT_QUANTUM: u64 = 1_000_000;

pub const INFO: TestInfo = TestInfo {
    id: ID,
    title: "Pfair feasibility: total weight in whole quanta at most m",
    policies: &[PolicyName::Pd2],
    assumes: "periodic or intra-sporadic tasks, implicit deadlines, periods and offsets multiples of the quantum",
    exactness: Exactness::Exact,
    source: "Baruah, Cohen, Plaxton, Varvel 1996; Anderson, Srinivasan 2004 (PD^2)",
};

pub fn check(input: &Input) -> Outcome {
    let q = input.policy.as_ref().and_then(|p| p.quantum).map_or(DEFAULT_QUANTUM, |d| d.0);
    let m = input.cpus as u128;
    let mut weights = Vec::with_capacity(input.tasks.len());
    for (i, t) in input.tasks.iter().enumerate() {
        let name = input.task_label(i);
        if t.deadline != t.period {
            return Outcome::not_applicable(
                ID,
                format!(
                    "{name} has deadline {} ≠ period {}: Pfair needs implicit deadlines",
                    Duration(t.deadline),
                    Duration(t.period)
                ),
            )
            .task(i);
        }
        if t.period % q != 0 {
            return Outcome::not_applicable(ID, format!("{name} has period {} that is not a multiple of the quantum {}; change the period or `policy.quantum`", Duration(t.period), Duration(q))).task(i);
        }
        if t.offset % q != 0 {
            return Outcome::not_applicable(
                ID,
                format!("{name} has an offset that is not a multiple of the quantum {}", Duration(q)),
            )
            .task(i);
        }
        let e = t.wcet.div_ceil(q);
        let p = t.period / q;
        if e > p {
            return Outcome::new(
                ID,
                Verdict::Unschedulable,
                format!("{name} needs {e} quanta every {p}: weight above 1"),
            )
            .task(i)
            .compare(Ratio::new(e as u128, p as u128), Ratio::new(1, 1));
        }
        weights.push((e as u128, p as u128));
    }
    let total = Ratio::sum(weights.iter().copied());
    let rounded = weights.iter().zip(&input.tasks).filter(|((e, _), t)| (*e as u64) * q != t.wcet).count();
    let mut out = if total.gt_int(m) {
        Outcome::new(ID, Verdict::Unschedulable, format!("total weight {:.4} exceeds the {m} CPUs", total.to_f64()))
    } else {
        Outcome::new(
            ID,
            Verdict::Schedulable,
            format!("total weight {:.4} ≤ {m} CPUs and every weight ≤ 1: PD^2 meets every deadline", total.to_f64()),
        )
    };
    out = out.compare(total, Ratio::new(m, 1));
    if rounded > 0 {
        out = out.detail(format!(
            "{rounded} task(s) have a WCET that is not a whole number of quanta ({}); rounded up",
            Duration(q)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(yaml: &str) -> Input {
        Input::from_spec(&schedlab_model::load_str(yaml, None, "t.yaml").expect("spec").spec)
    }

    #[test]
    fn full_weight_in_whole_quanta_is_feasible() {
        let s = spec("platform: {cpus: 2}\npolicy: {name: pd2}\ntasks:\n- {name: a, wcet: 6ms, period: 10ms}\n- {name: b, wcet: 4ms, period: 10ms}\n- {name: c, wcet: 5ms, period: 5ms}\n");
        let o = check(&s);
        assert_eq!(o.verdict, Verdict::Schedulable, "{o:?}");
        assert_eq!(o.slack(), Some(Ratio::new(0, 1)));
    }

    #[test]
    fn rounding_to_quanta_can_make_a_set_infeasible() {
        // Utilisation 0.75 + 0.75 + 0.05 = 1.55 ≤ 2 at face value, but in
        // whole quanta the weights are 2/2 + 2/2 + 1/2 = 2.5 > 2.
        let s = spec("platform: {cpus: 2}\npolicy: {name: pd2}\ntasks:\n- {name: a, wcet: 1.5ms, period: 2ms}\n- {name: b, wcet: 1.5ms, period: 2ms}\n- {name: c, wcet: 0.1ms, period: 2ms}\n");
        let o = check(&s);
        assert_eq!(o.verdict, Verdict::Unschedulable, "{o:?}");
        assert_eq!(o.value, Some(Ratio::new(5, 2)));
        assert!(o.details[0].contains("3 task(s)"), "{:?}", o.details);
    }

    #[test]
    fn misaligned_periods_and_constrained_deadlines_are_not_applicable() {
        let s = spec(
            "platform: {cpus: 2}\npolicy: {name: pd2, quantum: 2ms}\ntasks:\n- {name: a, wcet: 1ms, period: 5ms}\n",
        );
        let o = check(&s);
        assert_eq!(o.verdict, Verdict::NotApplicable);
        assert!(o.reason.contains("multiple of the quantum"), "{}", o.reason);
        let s = spec(
            "platform: {cpus: 2}\npolicy: {name: pd2}\ntasks:\n- {name: a, wcet: 1ms, period: 5ms, deadline: 4ms}\n",
        );
        assert_eq!(check(&s).verdict, Verdict::NotApplicable);
    }

    #[test]
    fn a_heavy_task_above_one_is_named() {
        let s = spec("platform: {cpus: 4}\npolicy: {name: pd2}\ntasks:\n- {name: a, wcet: 1ms, period: 5ms}\n- {name: big, wcet: 4.2ms, period: 4ms}\n");
        let o = check(&s);
        assert_eq!(o.verdict, Verdict::Unschedulable);
        assert_eq!(o.task, Some(1));
        assert!(o.reason.contains("big"));
    }
}
