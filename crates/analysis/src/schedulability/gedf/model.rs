//! What every global test checks first: the task model it assumes (not
//! applicable otherwise, with the reason) and the necessary conditions
//! (a WCET above the deadline or period, U > m: unschedulable whatever the
//! test, since some legal release pattern then misses).

use super::super::input::TaskParams;
use super::super::outcome::Verdict;
use super::exact::{cmp_sum, int, q, sum};
use super::explain::{ns, Explain};
use std::cmp::Ordering;

/// Parameters above 2⁴⁰ ns (about 18 minutes) are refused: the tests
/// multiply up to three of them in 128-bit integers.
pub const MAX_PARAM: u64 = 1 << 40;

/// What a test needs beyond sporadic tasks without jitter.
#[derive(Debug, Clone, Copy, Default)]
pub struct Needs {
    /// Dᵢ ≤ Tᵢ for every task.
    pub constrained: bool,
    /// At least this many CPUs.
    pub min_cpus: u32,
    /// Total utilisation strictly below m.
    pub u_below_m: bool,
}

/// Σ Cᵢ/Tᵢ compared with `m`, exactly.
pub fn cmp_util(tasks: &[TaskParams], m: u32) -> Ordering {
    cmp_sum(tasks.len(), |i| (tasks[i].wcet as i128, tasks[i].period as u128), (m as i128, 1))
}

/// min(Dᵢ, Tᵢ), the density's denominator.
#[inline]
pub fn dmin(t: &TaskParams) -> u64 {
    t.deadline.min(t.period)
}

/// The task of largest density Cᵢ/min(Dᵢ, Tᵢ) (the first on ties).
pub fn densest(tasks: &[TaskParams]) -> usize {
    let mut best = 0;
    for (i, t) in tasks.iter().enumerate().skip(1) {
        let b = &tasks[best];
        // Cᵢ·D'_b > C_b·D'ᵢ, exact in u128 (parameters ≤ 2⁴⁰).
        if t.wcet as u128 * dmin(b) as u128 > b.wcet as u128 * dmin(t) as u128 {
            best = i;
        }
    }
    best
}

/// Checks the model and the necessary conditions. `Err(verdict)` ends the
/// test with the outcome already explained; `Ok(())` lets it run.
pub fn precheck<E: Explain>(tasks: &[TaskParams], m: u32, needs: Needs, ex: &mut E) -> Result<(), Verdict> {
    if m == 0 {
        if let Some((o, _)) = ex.out() {
            o.reason = "the platform has no CPUs".into();
        }
        return Err(Verdict::NotApplicable);
    }
    if tasks.is_empty() {
        if let Some((o, _)) = ex.out() {
            o.reason = "no tasks: nothing can miss".into();
        }
        return Err(Verdict::Schedulable);
    }
    for (i, t) in tasks.iter().enumerate() {
        let why = if t.period == 0 || t.deadline == 0 {
            Some("has a zero period or deadline".to_string())
        } else if t.jitter != 0 {
            Some(format!(
                "has release jitter {}: the global tests assume sporadic releases without jitter",
                ns(t.jitter as i128)
            ))
        } else if t.wcet > MAX_PARAM || t.deadline > MAX_PARAM || t.period > MAX_PARAM {
            Some(format!(
                "has a parameter above {} (2^40 ns), beyond the tests' exact 128-bit arithmetic",
                ns(MAX_PARAM as i128)
            ))
        } else if needs.constrained && t.deadline > t.period {
            Some(format!(
                "has deadline {} > period {}: the test needs constrained deadlines (D ≤ T)",
                ns(t.deadline as i128),
                ns(t.period as i128)
            ))
        } else {
            None
        };
        if let Some(why) = why {
            if let Some((o, n)) = ex.out() {
                o.reason = format!("{} {why}", n.label(i));
                o.task = Some(i);
            }
            return Err(Verdict::NotApplicable);
        }
    }
    for (i, t) in tasks.iter().enumerate() {
        if t.wcet > dmin(t) {
            if let Some((o, n)) = ex.out() {
                let over_period = t.wcet > t.period;
                o.reason = if over_period {
                    format!(
                        "{} has WCET {} above its period {}: its jobs fall behind without bound",
                        n.label(i),
                        ns(t.wcet as i128),
                        ns(t.period as i128)
                    )
                } else {
                    format!(
                        "{} has WCET {} above its deadline {}: a job cannot finish in time even alone",
                        n.label(i),
                        ns(t.wcet as i128),
                        ns(t.deadline as i128)
                    )
                };
                o.task = Some(i);
                o.value = Some(int(t.wcet as i128));
                o.bound = Some(int(dmin(t) as i128));
            }
            return Err(Verdict::Unschedulable);
        }
    }
    let u = cmp_util(tasks, m);
    if u == Ordering::Greater {
        if let Some((o, _)) = ex.out() {
            let total = sum(tasks.len(), |i| (tasks[i].wcet as i128, tasks[i].period as u128));
            o.reason = format!(
                "total utilisation {:.4} exceeds the {m} CPUs: the synchronous periodic release overloads them",
                total.to_f64()
            );
            o.value = Some(total);
            o.bound = Some(q(m as i128, 1));
        }
        return Err(Verdict::Unschedulable);
    }
    if m < needs.min_cpus {
        if let Some((o, _)) = ex.out() {
            o.reason = format!("the test needs at least {} CPUs and the platform has {m}", needs.min_cpus);
        }
        return Err(Verdict::NotApplicable);
    }
    if needs.u_below_m && u == Ordering::Equal {
        if let Some((o, _)) = ex.out() {
            o.reason =
                format!("total utilisation is exactly {m}: the test needs U < m (its interval bound divides by m − U)");
            o.value = Some(q(m as i128, 1));
            o.bound = Some(q(m as i128, 1));
        }
        return Err(Verdict::NotApplicable);
    }
    if let Some((o, _)) = ex.out() {
        if tasks.iter().any(|t| t.offset != 0) {
            o.details
                .push("offsets are ignored: the test covers every sporadic release pattern, offsets included".into());
        }
    }
    Ok(())
}
