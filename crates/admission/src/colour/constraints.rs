//! The system constraints of CAP (Eq. 7.1, 7.2, 7.4) and CAP-GS (Eq. 8.1–8.3,
//! the same three): every task has colours, the colours exist (|N_total| ≤
//! N_c), and, when M_total is given, the tasks' memory fits it in total
//! (Σ M_req ≤ M_total) and in every colour (Σ over the tasks using colour ρ of
//! M_req / |NC| ≤ M_total / N_c: a task spreads its memory evenly over its
//! colours, after Kim et al. 2013). The utilisation constraint (Eq. 7.3) is
//! per group and is checked by CAP itself.

use super::error::ColourError;
use super::fit::shown;
use super::problem::ColourProblem;
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::Zero;
use std::collections::BTreeMap;

pub(crate) fn check(p: &ColourProblem) -> Result<(), ColourError> {
    let scheme = p.scheme.name();
    for (i, t) in p.tasks.iter().enumerate() {
        if t.colors.is_empty() {
            return Err(ColourError::constraint(
                format!("tasks[{i}].colors"),
                vec![i],
                format!(
                    "{} has no colours, and `{scheme}` places tasks by the colours they use; give it its colours, e.g. `colors: [{i}]`",
                    p.label(i)
                ),
            ));
        }
        if let Some(max) = t.colors.max().filter(|&c| c as u64 >= p.colours) {
            return Err(ColourError::constraint(
                format!("tasks[{i}].colors"),
                vec![i],
                format!(
                    "{} uses colour {max}, but the cache has {} colours (Eq. 7.2: |N_total| ≤ N_c); use colours 0 to {}",
                    p.label(i),
                    p.colours,
                    p.colours.saturating_sub(1)
                ),
            ));
        }
    }
    let Some(total) = p.memory_total else { return Ok(()) };
    let mut sum: u128 = 0;
    for (i, t) in p.tasks.iter().enumerate() {
        match t.memory {
            Some(m) => sum += m as u128,
            None => {
                return Err(ColourError::constraint(
                    format!("tasks[{i}].wss"),
                    vec![i],
                    format!(
                        "{} has no `wss`, its memory M_req, which `policy.memory_total` constrains; give it (e.g. `wss: 64KiB`) or remove `memory_total`",
                        p.label(i)
                    ),
                ))
            }
        }
    }
    if sum > total as u128 {
        return Err(ColourError::constraint(
            "policy.memory_total",
            (0..p.tasks.len()).collect(),
            format!(
                "the tasks' memory (their `wss`) adds up to {sum} B, more than M_total = {total} B (Eq. 7.1: Σ M_req ≤ M_total); give more memory or smaller working sets"
            ),
        ));
    }
    // Eq. 7.4, per colour.
    let mut users: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for (i, t) in p.tasks.iter().enumerate() {
        for c in t.colors.iter() {
            users.entry(c).or_default().push(i);
        }
    }
    let s_p = BigRational::new(BigInt::from(total), BigInt::from(p.colours));
    for (c, ts) in users {
        let need = ts.iter().fold(BigRational::zero(), |acc, &i| {
            let t = &p.tasks[i];
            acc + BigRational::new(BigInt::from(t.memory.unwrap_or(0)), BigInt::from(t.colors.count()))
        });
        if need > s_p {
            return Err(ColourError::constraint(
                "policy.memory_total",
                ts.clone(),
                format!(
                    "colour {c} must hold {} B of the memory of {} (each task's wss spread evenly over its colours), more than its partition M_total / N_c = {} B (Eq. 7.4); give these tasks more colours or less memory, or raise `memory_total`",
                    shown(&need),
                    p.names(&ts),
                    shown(&s_p)
                ),
            ));
        }
    }
    Ok(())
}
