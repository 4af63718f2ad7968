//! Soft real-time: Devi & Anderson's tardiness bounds for global EDF and
//! non-preemptive global EDF (Devi & Anderson, RTSS 2005 / Real-Time
//! Systems 2008; as given in Calandrino's dissertation, §2, Eqs. 2.1–2.3).
//!
//! For sporadic implicit-deadline tasks on M CPUs with every u ≤ 1 and
//! U = Σ u ≤ M, tardiness is bounded, and task T's is at most
//! - G-EDF:    x + e(T), x = (E_x − e_min) / (M − U_x);
//! - NP-G-EDF: y + e(T), y = (E_y + B_y − e_min) / (M − U_y);
//!
//! with Λ = ⌈U⌉ − 1 (U − 1 when U is an integer, ⌊U⌋ otherwise — the
//! ceiling, not the floor the OCR of the dissertation shows: only the
//! ceiling gives its worked example's Λ = 1), E_x / E_y the sums of the Λ /
//! Λ + 1 largest execution costs, U_x / U_y the sums of the Λ − 1 / Λ
//! largest utilisations, B_y the sum of the M − Λ − 1 largest execution
//! costs (the non-preemptive blocking), e_min the smallest execution cost.
//! A sum of k ≤ 0 terms is 0.
//!
//! Verdicts answer the soft real-time question "is tardiness bounded":
//! `schedulable` means bounded (the per-task bounds are in
//! [`Data::Tardiness`], in ns, and the largest is named in the reason; a
//! bound is not a promise of zero tardiness), `unschedulable` means some
//! task's tardiness can grow without bound (U > M or some u > 1: the test
//! is exact for boundedness).

use super::data::Data;
use super::input::{Input, TaskParams};
use super::outcome::{Exactness, Outcome, Verdict};
use super::registry::TestInfo;
use num_bigint::BigInt;
use num_rational::BigRational;
use schedlab_model::exact::Ratio;
use schedlab_model::{Duration, PolicyName};

pub const GEDF_ID: &str = "soft.gedf.tardiness";
pub const NPGEDF_ID: &str = "soft.npgedf.tardiness";

pub const GEDF_INFO: TestInfo = TestInfo {
    id: GEDF_ID,
    title: "G-EDF soft real-time: Devi–Anderson tardiness bound per task",
    policies: &[PolicyName::Gedf],
    assumes: "sporadic tasks, implicit deadlines, no jitter; verdict = tardiness bounded (U ≤ m, every u ≤ 1), bounds in data",
    exactness: Exactness::Exact,
    source: "Devi & Anderson 2005/2008; Calandrino 2009 Eqs. 2.1–2.2",
};

pub const NPGEDF_INFO: TestInfo = TestInfo {
    id: NPGEDF_ID,
    title: "NP-G-EDF soft real-time: Devi–Anderson tardiness bound per task",
    policies: &[PolicyName::NpGedf],
    assumes: "sporadic tasks, implicit deadlines, no jitter; verdict = tardiness bounded (U ≤ m, every u ≤ 1), bounds in data",
    exactness: Exactness::Exact,
    source: "Devi & Anderson 2005/2008; Calandrino 2009 Eq. 2.3",
};

pub(super) fn int(v: u128) -> BigRational {
    BigRational::from_integer(BigInt::from(v))
}

pub(super) fn frac(n: u64, d: u64) -> BigRational {
    BigRational::new(BigInt::from(n), BigInt::from(d))
}

/// Sum of the `k` largest of `values` (k ≤ 0: 0).
pub(super) fn largest<T: Clone + Ord + std::iter::Sum<T>>(mut values: Vec<T>, k: i64, zero: T) -> T {
    if k <= 0 {
        return zero;
    }
    values.sort_unstable_by(|a, b| b.cmp(a));
    values.into_iter().take(k as usize).fold(zero, |a, b| [a, b].into_iter().sum())
}

/// The terms of the bound, for explanations and tests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Terms {
    pub lambda: i64,
    /// E_x or E_y (ns).
    pub e: u128,
    /// B_y (ns; 0 for G-EDF).
    pub b: u128,
    /// U_x or U_y.
    pub u: Ratio,
    /// x or y (ns).
    pub shift: Ratio,
    /// Per-task bounds, shift + e(T) (ns).
    pub bounds: Vec<Ratio>,
}

/// Devi–Anderson's bound (`np`: non-preemptive) for tasks with U ≤ m and
/// every u ≤ 1 (callers check).
pub fn bounds(tasks: &[TaskParams], m: u32, np: bool) -> Terms {
    let u_sum: BigRational = tasks.iter().map(|t| frac(t.wcet, t.period)).sum();
    let lambda = u_sum.ceil().to_integer() - BigInt::from(1);
    let lambda: i64 = i64::try_from(lambda).unwrap_or(i64::MAX);
    let costs: Vec<u128> = tasks.iter().map(|t| t.wcet as u128).collect();
    let utils: Vec<BigRational> = tasks.iter().map(|t| frac(t.wcet, t.period)).collect();
    let e_min = costs.iter().copied().min().unwrap_or(0);
    let (e, b, u) = if np {
        (
            largest(costs.clone(), lambda + 1, 0),
            largest(costs, m as i64 - lambda - 1, 0),
            largest(utils, lambda, int(0)),
        )
    } else {
        (largest(costs, lambda, 0), 0, largest(utils, lambda - 1, int(0)))
    };
    let shift = (int(e + b) - int(e_min)) / (int(m as u128) - u.clone());
    let bounds = tasks.iter().map(|t| Ratio(shift.clone() + int(t.wcet as u128))).collect();
    Terms { lambda, e, b, u: Ratio(u), shift: Ratio(shift), bounds }
}

/// The model checks every tardiness bound shares: implicit deadlines, no
/// jitter, every u ≤ 1 and U ≤ m. `Ok(U)` when the bound applies; else the
/// outcome to answer (not applicable, or unbounded).
pub(super) fn precheck(id: &'static str, input: &Input) -> Result<Ratio, Box<Outcome>> {
    let m = input.cpus;
    if m == 0 {
        return Err(Box::new(Outcome::not_applicable(id, "the platform has no CPU")));
    }
    if input.tasks.is_empty() {
        return Err(Box::new(
            Outcome::new(id, Verdict::Schedulable, "no tasks").with_data(Data::Tardiness(Vec::new())),
        ));
    }
    for (i, t) in input.tasks.iter().enumerate() {
        if t.period == 0 {
            return Err(Box::new(Outcome::not_applicable(id, format!("{} has period 0", input.task_label(i))).task(i)));
        }
        if t.deadline != t.period {
            return Err(Box::new(
                Outcome::not_applicable(
                    id,
                    format!(
                        "{} has deadline {} ≠ period {}: the bound is for implicit deadlines",
                        input.task_label(i),
                        Duration(t.deadline),
                        Duration(t.period)
                    ),
                )
                .task(i),
            ));
        }
        if t.jitter > 0 {
            return Err(Box::new(
                Outcome::not_applicable(
                    id,
                    format!("{} has release jitter, which the bound does not model", input.task_label(i)),
                )
                .task(i),
            ));
        }
        if t.wcet > t.period {
            return Err(Box::new(
                Outcome::new(
                    id,
                    Verdict::Unschedulable,
                    format!("{} has utilisation above 1: its tardiness grows without bound", input.task_label(i)),
                )
                .task(i)
                .compare(Ratio::new(t.wcet as u128, t.period as u128), Ratio::new(1, 1)),
            ));
        }
    }
    let u = Ratio::sum(input.tasks.iter().map(|t| (t.wcet as u128, t.period as u128)));
    if u.gt_int(m as u128) {
        return Err(Box::new(
            Outcome::new(
                id,
                Verdict::Unschedulable,
                format!("total utilisation {:.4} exceeds the {m} CPUs: tardiness grows without bound", u.to_f64()),
            )
            .compare(u, Ratio::new(m as u128, 1)),
        ));
    }
    Ok(u)
}

/// A duration in ns, exact, with its decimal when it is a fraction.
pub(super) fn ns(r: &Ratio) -> String {
    if r.0.is_integer() {
        format!("{} ns", r.0.numer())
    } else {
        format!("{} ns ({:.1})", r.to_fraction(), r.to_f64())
    }
}

/// The outcome "tardiness under `what` is bounded", naming the task with
/// the largest of `bounds` (its index is returned too).
pub(super) fn bounded(id: &'static str, input: &Input, what: &str, u: &Ratio, bounds: &[Ratio]) -> (Outcome, usize) {
    let m = input.cpus;
    let (worst, max) = bounds.iter().enumerate().max_by(|a, b| a.1.cmp(b.1)).expect("non-empty");
    let out = Outcome::new(
        id,
        Verdict::Schedulable,
        format!(
            "tardiness under {what} is bounded (U = {:.4} ≤ {m}); the largest bound is {}'s, {}",
            u.to_f64(),
            input.task_label(worst),
            ns(max)
        ),
    )
    .task(worst)
    .compare(u.clone(), Ratio::new(m as u128, 1));
    (out, worst)
}

fn check(id: &'static str, input: &Input, np: bool) -> Outcome {
    let m = input.cpus;
    let u = match precheck(id, input) {
        Ok(u) => u,
        Err(o) => return *o,
    };
    let terms = bounds(&input.tasks, m, np);
    let policy = if np { "NP-G-EDF" } else { "G-EDF" };
    let (shift, e_name, u_name) = if np { ("y", "E_y", "U_y") } else { ("x", "E_x", "U_x") };
    let (out, _) = bounded(id, input, policy, &u, &terms.bounds);
    let mut out = out.detail(format!(
        "Λ = ⌈U⌉ − 1 = {}, {e_name} = {} ns, {u_name} = {}, {shift} = {}",
        terms.lambda,
        terms.e,
        terms.u.to_fraction(),
        ns(&terms.shift)
    ));
    if np {
        out = out.detail(format!(
            "B_y = {} ns (the {} largest execution costs)",
            terms.b,
            (m as i64 - terms.lambda - 1).max(0)
        ));
    }
    out.detail(format!("each task's bound is {shift} + its WCET (ns), in data"))
        .with_data(Data::Tardiness(terms.bounds))
}

pub fn gedf(input: &Input) -> Outcome {
    check(GEDF_ID, input, false)
}

pub fn npgedf(input: &Input) -> Outcome {
    check(NPGEDF_ID, input, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(n: u128, d: u128) -> Ratio {
        Ratio::new(n, d)
    }

    /// Calandrino's Fig. 2.6 set: M = 2, T and U (2, 3), V (4, 7).
    fn fig_2_6() -> Input {
        Input::new(2, vec![TaskParams::implicit(2, 3), TaskParams::implicit(2, 3), TaskParams::implicit(4, 7)])
    }

    #[test]
    fn the_calandrino_worked_example_gedf() {
        // Λ = 1, E_x = 4, U_x = 0, x = (4 − 2)/2 = 1; bounds 3, 3, 5.
        let t = bounds(&fig_2_6().tasks, 2, false);
        assert_eq!((t.lambda, t.e, t.u.clone(), t.shift.clone()), (1, 4, r(0, 1), r(1, 1)));
        assert_eq!(t.bounds, vec![r(3, 1), r(3, 1), r(5, 1)]);
        let o = gedf(&fig_2_6());
        assert_eq!(o.verdict, Verdict::Schedulable);
        assert_eq!(o.task, Some(2));
        assert!(o.reason.contains("5 ns"), "{}", o.reason);
    }

    #[test]
    fn the_calandrino_worked_example_npgedf() {
        // E_y = 4 + 2 = 6, B_y = 0 (M − Λ − 1 = 0), U_y = 2/3, y = 4/(4/3) = 3; bounds 5, 5, 7.
        let t = bounds(&fig_2_6().tasks, 2, true);
        assert_eq!((t.lambda, t.e, t.b, t.u.clone(), t.shift.clone()), (1, 6, 0, r(2, 3), r(3, 1)));
        assert_eq!(t.bounds, vec![r(5, 1), r(5, 1), r(7, 1)]);
        assert_eq!(npgedf(&fig_2_6()).data, Some(Data::Tardiness(vec![r(5, 1), r(5, 1), r(7, 1)])));
    }

    #[test]
    fn lambda_uses_the_ceiling() {
        // U = 2 exactly: Λ = 1 (not 2); U = 2.5: Λ = 2.
        let t = bounds(&[TaskParams::implicit(1, 1), TaskParams::implicit(1, 1)], 3, false);
        assert_eq!(t.lambda, 1);
        let t = bounds(&[TaskParams::implicit(1, 1), TaskParams::implicit(1, 1), TaskParams::implicit(1, 2)], 3, false);
        assert_eq!(t.lambda, 2);
        // NP with spare CPUs: M = 4, U = 1.9 → Λ = 1, B_y = the 2 largest costs.
        let tasks = [TaskParams::implicit(9, 10), TaskParams::implicit(5, 10), TaskParams::implicit(5, 10)];
        let t = bounds(&tasks, 4, true);
        assert_eq!((t.lambda, t.e, t.b), (1, 14, 14));
        assert_eq!(
            t.shift,
            Ratio(BigRational::new(BigInt::from(14 + 14 - 5), BigInt::from(1)) / (int(4) - frac(9, 10)))
        );
    }

    #[test]
    fn overload_is_unbounded_and_constrained_deadlines_not_applicable() {
        let o = gedf(&Input::new(1, vec![TaskParams::implicit(2, 3), TaskParams::implicit(2, 3)]));
        assert_eq!(o.verdict, Verdict::Unschedulable);
        let o = npgedf(&Input::new(2, vec![TaskParams::implicit(4, 3)]));
        assert_eq!((o.verdict, o.task), (Verdict::Unschedulable, Some(0)));
        let o = gedf(&Input::new(2, vec![TaskParams::constrained(1, 2, 3)]));
        assert_eq!(o.verdict, Verdict::NotApplicable);
    }
}
