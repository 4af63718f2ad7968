//! Global fixed priority on a multi-supply platform (OSPERT 2009, Theorems
//! 1–2, after Bini, Buttazzo & Bertogna, RTSS 2009): the schedulability
//! test of one H-CBS group's tasks on its virtual processors.
//!
//! For τₖ (tasks from the highest priority down), the workload of the tasks
//! above it in a window of Dₖ (Bertogna, Cirinei & Lipari's bound, Eqs.
//! 11–12, with the floor the extraction lost):
//!
//!   W̄ₖ = Σ_{i<k} Nᵢ·Cᵢ + min(Cᵢ, Dₖ + Dᵢ − Cᵢ − Nᵢ·Tᵢ),  Nᵢ = ⌊(Dₖ + Dᵢ − Cᵢ)/Tᵢ⌋,
//!
//! the lengths L₀…L_m of the window's supply (Eq. 15, supplies sorted) and
//! the interference bound Ī of Eq. 13 (the general form: the paper's
//! symmetric Eq. 16 is optimistic, see [`crate::supply::multi`]). The set is
//! schedulable when every Cₖ + Īₖ ≤ Dₖ (Eq. 14). Eq. 12 takes each task
//! above τₖ to meet its deadline, which the pass from the top proves first.
//!
//! The supplies are Eq. 4's exact bound by default; on the MαΔ abstraction
//! (each supply replaced by its linear bound, Def. 7) the test is the
//! paper's as stated, and never accepts more.

use super::super::gedf::exact::int;
use super::super::gedf::explain::{ns, Names};
use super::super::input::TaskParams;
use super::super::outcome::{Exactness, Outcome, Verdict};
use super::super::registry::TestInfo;
use crate::supply::multi::{interference, Platform};
use num_bigint::BigInt;
use num_rational::BigRational;
use schedlab_model::exact::Ratio;
use schedlab_model::PolicyName;

pub const ID: &str = "hcbs.msf";

pub const INFO: TestInfo = TestInfo {
    id: ID,
    title: "H-CBS groups: G-FP on each group's multi-supply platform (OSPERT 2009, Thm. 2)",
    policies: &[PolicyName::Gfp],
    assumes: "each group's sporadic tasks without jitter, constrained deadlines (D ≤ T), integer time (ns), under global FP on its H-CBS virtual processors (Eq. 4 supplies); servers per CPU fitting by EDF (Eq. 17, nested groups inside their parent's supply)",
    exactness: Exactness::Sufficient,
    source: "Checconi, Cucinotta, Faggioli & Lipari, OSPERT 2009 (Eqs. 4, 11–17 with the fixes of docs/analysis.md)",
};

/// The terms of Eq. 14 for one task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The task's index.
    pub task: usize,
    /// W̄ₖ (Eq. 11).
    pub workload: u128,
    /// L₀…L_m (Eq. 15).
    pub lengths: Vec<BigRational>,
    /// Īₖ (Eq. 13).
    pub interference: BigRational,
    /// Cₖ + Īₖ, compared with Dₖ.
    pub demand: BigRational,
    pub deadline: u64,
}

impl Row {
    pub fn holds(&self) -> bool {
        self.demand <= BigRational::from_integer(BigInt::from(self.deadline))
    }
}

/// W̄ₖ of Eqs. 11–12 over the tasks `hp` above task `k`.
pub fn workload(tasks: &[TaskParams], hp: &[usize], k: usize) -> u128 {
    let dk = tasks[k].deadline as i128;
    hp.iter()
        .map(|&i| {
            let (c, d, t) = (tasks[i].wcet as i128, tasks[i].deadline as i128, tasks[i].period as i128);
            let x = dk + d - c;
            let n = x.div_euclid(t).max(0);
            (n * c + c.min(x - n * t).max(0)) as u128
        })
        .sum()
}

/// The rows of Eq. 14 from the highest priority down, stopping after the
/// first task whose condition fails.
pub fn rows(tasks: &[TaskParams], order: &[usize], platform: &Platform) -> Vec<Row> {
    let mut out = Vec::with_capacity(order.len());
    for (pos, &k) in order.iter().enumerate() {
        let w = workload(tasks, &order[..pos], k);
        let d = tasks[k].deadline;
        let lengths = platform.lengths(d);
        let wq = BigRational::from_integer(BigInt::from(w));
        let i = interference(&lengths, &wq);
        let demand = BigRational::from_integer(BigInt::from(tasks[k].wcet)) + &i;
        let row = Row { task: k, workload: w, lengths, interference: i, demand, deadline: d };
        let stop = !row.holds();
        out.push(row);
        if stop {
            break;
        }
    }
    out
}

/// Why the model does not fit the test, naming the task, or `None`.
pub fn unfit(tasks: &[TaskParams], order: &[usize]) -> Option<(usize, String)> {
    for (i, t) in tasks.iter().enumerate() {
        if t.period == 0 || t.deadline == 0 {
            return Some((i, "has a zero period or deadline".into()));
        }
        if t.jitter != 0 {
            return Some((i, format!("has release jitter {}: the test assumes none", ns(t.jitter as i128))));
        }
        if t.deadline > t.period {
            return Some((
                i,
                format!(
                    "has deadline {} > period {}: the test needs constrained deadlines (D ≤ T)",
                    ns(t.deadline as i128),
                    ns(t.period as i128)
                ),
            ));
        }
    }
    let mut seen = vec![false; tasks.len()];
    if order.len() != tasks.len() || !order.iter().all(|&i| i < tasks.len() && !std::mem::replace(&mut seen[i], true)) {
        return Some((0, "the priority order must list each task once".into()));
    }
    None
}

fn frac(r: &BigRational) -> String {
    if r.is_integer() {
        format!("{} ns", r.numer())
    } else {
        format!("{}/{} ns", r.numer(), r.denom())
    }
}

/// The test on `tasks` (in `order`, highest priority first) on `platform`,
/// explained: the deciding task, Cₖ + Īₖ against Dₖ, and one line per task
/// with its terms.
pub fn check(tasks: &[TaskParams], order: &[usize], platform: &Platform, names: Names<'_>) -> Outcome {
    if let Some((i, why)) = unfit(tasks, order) {
        return Outcome::not_applicable(ID, format!("{} {why}", names.label(i))).task(i);
    }
    if tasks.is_empty() {
        return Outcome::new(ID, Verdict::Schedulable, "no tasks: nothing can miss");
    }
    let rows = rows(tasks, order, platform);
    let last = rows.last().expect("at least one task");
    let mut o = if last.holds() {
        let tight =
            rows.iter().min_by_key(|r| BigRational::from_integer(BigInt::from(r.deadline)) - &r.demand).expect("rows");
        Outcome::new(
            ID,
            Verdict::Schedulable,
            format!(
                "every task's C + Ī is within its deadline; tightest {}: {} ≤ D = {}",
                names.label(tight.task),
                frac(&tight.demand),
                ns(tight.deadline as i128)
            ),
        )
        .task(tight.task)
        .compare(Ratio(tight.demand.clone()), int(tight.deadline as i128))
    } else {
        let pos = rows.len();
        Outcome::new(
            ID,
            Verdict::Inconclusive,
            format!(
                "for {} (priority {pos} of {}): C + Ī = {} exceeds the deadline {} (interference {} from a higher-priority workload of {})",
                names.label(last.task),
                tasks.len(),
                frac(&last.demand),
                ns(last.deadline as i128),
                frac(&last.interference),
                ns(last.workload as i128)
            ),
        )
        .task(last.task)
        .compare(Ratio(last.demand.clone()), int(last.deadline as i128))
    };
    for r in &rows {
        let ls: Vec<String> = r.lengths.iter().map(frac).collect();
        o = o.detail(format!(
            "{}: W = {}, L0..L{} = [{}], Ī = {}, C + Ī = {} {} D = {}",
            names.label(r.task),
            ns(r.workload as i128),
            r.lengths.len() - 1,
            ls.join(", "),
            frac(&r.interference),
            frac(&r.demand),
            if r.holds() { "≤" } else { ">" },
            ns(r.deadline as i128)
        ));
    }
    if rows.len() < order.len() {
        o = o.detail(format!("{} lower-priority task(s) not analysed", order.len() - rows.len()));
    }
    o
}

/// The verdict alone.
pub fn decide(tasks: &[TaskParams], order: &[usize], platform: &Platform) -> Verdict {
    if unfit(tasks, order).is_some() {
        return Verdict::NotApplicable;
    }
    match rows(tasks, order, platform).last() {
        Some(r) if !r.holds() => Verdict::Inconclusive,
        _ => Verdict::Schedulable,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::supply::{Server, Supply};

    #[test]
    fn on_whole_cpus_it_is_the_workload_bound() {
        // Dedicated CPUs: L_m = D, so C + min(D, W/m) ≤ D.
        let t = vec![TaskParams::implicit(5, 10), TaskParams::implicit(5, 10), TaskParams::implicit(3, 20)];
        let p = Platform::symmetric(Supply::Full, 2);
        let rows = rows(&t, &[0, 1, 2], &p);
        // W for the third: each of the others: N = ⌊(20 + 10 − 5)/10⌋ = 2,
        // 2·5 + min(5, 25 − 20) = 15; W = 30; Ī = min(20, 15) = 15; 3 + 15 ≤ 20.
        assert_eq!(rows[2].workload, 30);
        assert_eq!(rows[2].interference, BigRational::from_integer(15.into()));
        assert_eq!(decide(&t, &[0, 1, 2], &p), Verdict::Schedulable);
    }

    #[test]
    fn a_reservation_too_small_is_caught_and_explained() {
        // One task 2/10 on one server 2/10: blackout 16 > D − C.
        let t = vec![TaskParams::implicit(2, 10)];
        let p = Platform::symmetric(Supply::Hcbs(Server::new(2, 10).unwrap()), 1);
        let o = check(&t, &[0], &p, Names::NONE);
        assert_eq!(o.verdict, Verdict::Inconclusive, "{o:?}");
        // Z(10) = 0: L0 = 10, Ī = 10, C + Ī = 12 > 10.
        assert!(o.reason.contains("C + Ī = 12 ns exceeds the deadline 10ns"), "{}", o.reason);
        // With P = 5, Q = 2: Z(10) = max(10 − 3·3, 2) = 2, L0 = 8, C + Ī =
        // 10 ≤ 10 (just); Q = 1: Z(10) = max(10 − 3·4, 1) = 1, C + Ī = 11.
        let at = |q| Platform::symmetric(Supply::Hcbs(Server::new(q, 5).unwrap()), 1);
        assert_eq!(decide(&t, &[0], &at(2)), Verdict::Schedulable);
        assert_eq!(decide(&t, &[0], &at(1)), Verdict::Inconclusive);
    }

    #[test]
    fn more_supply_never_loses_a_verdict() {
        // MαΔ monotonicity on a small grid: a larger budget on any CPU keeps
        // an accepted set accepted, and the linear bound never accepts more.
        let t = vec![TaskParams::implicit(2, 20), TaskParams::constrained(3, 25, 30), TaskParams::implicit(4, 40)];
        let order = [0, 1, 2];
        for q1 in 0..=10u64 {
            for q2 in 0..=10u64 {
                let at = |a: u64, b: u64| {
                    Platform::new(vec![
                        Supply::Hcbs(Server::new(a, 10).unwrap()),
                        Supply::Hcbs(Server::new(b, 10).unwrap()),
                    ])
                };
                let ok = decide(&t, &order, &at(q1, q2)) == Verdict::Schedulable;
                let lin = decide(&t, &order, &at(q1, q2).mad()) == Verdict::Schedulable;
                assert!(!lin || ok, "linear accepts at ({q1}, {q2}) but Eq. 4 does not");
                if ok && q1 < 10 {
                    assert_eq!(decide(&t, &order, &at(q1 + 1, q2)), Verdict::Schedulable, "({q1}+1, {q2})");
                }
                if ok && q2 < 10 {
                    assert_eq!(decide(&t, &order, &at(q1, q2 + 1)), Verdict::Schedulable, "({q1}, {q2}+1)");
                }
            }
        }
    }
}
