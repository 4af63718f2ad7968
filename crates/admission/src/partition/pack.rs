//! The packing algorithm shared by every rule.

use super::error::{PackError, PackErrorKind};
use super::heuristic::{Heuristic, Rule};
use super::problem::{Assignment, Pin, PinnedCheck, Problem};
use super::quantity::{scaled, unscale, Approx, Quantity};
use schedlab_model::exact::Ratio;

/// An admission predicate: `admit(bin, tasks already in the bin, candidate)`
/// says whether the candidate task may join the bin. It is asked only about
/// bins where the capacity test passed, so it may assume Σ size ≤ capacity
/// (e.g. a uniprocessor response-time test for partitioned fixed priority).
pub type Admit<'a> = &'a dyn Fn(usize, &[usize], usize) -> bool;

/// Packs with the capacity test alone.
pub fn pack(problem: &Problem, heuristic: Heuristic, pinned: PinnedCheck) -> Result<Assignment, PackError> {
    pack_with(problem, heuristic, pinned, &|_, _, _| true)
}

/// Packs with the capacity test and an admission predicate.
pub fn pack_with(
    problem: &Problem,
    heuristic: Heuristic,
    pinned: PinnedCheck,
    admit: Admit,
) -> Result<Assignment, PackError> {
    validate(problem)?;
    match scaled(&problem.sizes, &problem.capacities) {
        Some((d, sizes, caps)) => run(problem, heuristic, pinned, admit, &sizes, &caps, d as u128, |v| unscale(*v, d)),
        None => {
            let sizes: Vec<Approx> = problem.sizes.iter().map(|s| Approx::new(s.num as u128, s.den as u128)).collect();
            let caps: Vec<Approx> = problem.capacities.iter().map(|&c| Approx::new(c as u128, 1)).collect();
            run(problem, heuristic, pinned, admit, &sizes, &caps, Approx::new(1, 1), |v| v.exact().clone())
        }
    }
}

/// Packs items of exact rational sizes (each in [0, 1]) into `bins` bins of
/// capacity 1 with the capacity test alone: RUN's PACK, whose items are
/// servers with rates whose denominators exceed 64 bits. Same rules,
/// tie-breaks and errors as [`pack`] (items are labelled `task i`).
pub fn pack_exact(sizes: &[Ratio], bins: usize, heuristic: Heuristic) -> Result<Assignment, PackError> {
    let n = sizes.len();
    let problem = Problem {
        sizes: vec![super::size::Share::new(0, 1); n],
        pins: vec![Pin::Free; n],
        capacities: vec![1; bins],
        names: Vec::new(),
        bin_word: "bin",
        size_word: "size",
    };
    let one = Ratio::new(1, 1);
    let caps = vec![one.clone(); bins];
    run(&problem, heuristic, PinnedCheck::Check, &|_, _, _| true, sizes, &caps, one, |v| v.clone())
}

fn validate(p: &Problem) -> Result<(), PackError> {
    let invalid = |task: Option<usize>, msg: String| Err(PackError::new(PackErrorKind::Invalid, task, msg));
    if p.pins.len() != p.sizes.len() {
        return invalid(None, format!("{} sizes but {} pins; give one pin per task", p.sizes.len(), p.pins.len()));
    }
    if p.capacities.is_empty() {
        return invalid(None, "there are no bins to pack into".into());
    }
    let m = p.capacities.len();
    for (t, (s, pin)) in p.sizes.iter().zip(&p.pins).enumerate() {
        if s.den == 0 {
            return invalid(Some(t), format!("task {t} has a size with a zero denominator"));
        }
        let bad = match pin {
            Pin::Free => None,
            Pin::Bin(b) => (*b >= m).then_some(*b),
            Pin::Among(list) => {
                if list.is_empty() {
                    return invalid(Some(t), format!("task {t} may go to no bin (empty bin list)"));
                }
                list.iter().copied().find(|&b| b >= m)
            }
        };
        if let Some(b) = bad {
            return invalid(Some(t), format!("task {t} is pinned to bin {b}, but the bins are 0 to {}", m - 1));
        }
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn run<Q: Quantity>(
    problem: &Problem,
    heuristic: Heuristic,
    pinned: PinnedCheck,
    admit: Admit,
    sizes: &[Q],
    caps: &[Q],
    unit: Q,
    to_ratio: impl Fn(&Q) -> Ratio,
) -> Result<Assignment, PackError> {
    let n = sizes.len();
    let m = caps.len();
    let mut loads = vec![Q::zero(); m];
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); m];
    let mut bins = vec![usize::MAX; n];

    let fits_capacity = |loads: &[Q], b: usize, t: usize| sizes[t] <= unit && Q::fits(&loads[b], &sizes[t], &caps[b]);
    let fail = |loads: &[Q], t: usize, message: String| PackError {
        kind: PackErrorKind::NoFit,
        task: Some(t),
        message,
        loads: loads.iter().map(&to_ratio).collect(),
        capacities: problem.capacities.clone(),
    };
    let frac = |t: usize| super::error::shown(&to_ratio(&sizes[t]));
    let task = |t: usize| problem.task_label(t);
    let bin = |b: usize| problem.bin_label(b);

    // Pinned tasks first, in task order.
    for t in 0..n {
        if let Pin::Bin(b) = problem.pins[t] {
            if pinned == PinnedCheck::Check {
                if !fits_capacity(&loads, b, t) {
                    let after = to_ratio(&loads[b].plus(&sizes[t])).to_fraction();
                    return Err(fail(
                        &loads,
                        t,
                        format!(
                            "{} ({} {}) is pinned to {}, whose load would be {after}, above its capacity {}",
                            task(t),
                            problem.size_word,
                            frac(t),
                            bin(b),
                            problem.capacities[b]
                        ),
                    ));
                }
                if !admit(b, &members[b], t) {
                    return Err(fail(
                        &loads,
                        t,
                        format!("{} is pinned to {}, but the admission test refuses it there", task(t), bin(b)),
                    ));
                }
            }
            loads[b] = loads[b].plus(&sizes[t]);
            members[b].push(t);
            bins[t] = b;
        }
    }

    let mut order: Vec<usize> = (0..n).filter(|&t| !matches!(problem.pins[t], Pin::Bin(_))).collect();
    if heuristic.decreasing {
        order.sort_by(|&a, &b| sizes[b].cmp(&sizes[a]).then(a.cmp(&b)));
    }

    let mut current = 0usize; // next fit's open bin
    for t in order {
        let allowed = |b: usize| match &problem.pins[t] {
            Pin::Among(list) => list.contains(&b),
            _ => true,
        };
        let fits = |loads: &[Q], members: &[Vec<usize>], b: usize| {
            allowed(b) && fits_capacity(loads, b, t) && admit(b, &members[b], t)
        };
        let room = |loads: &[Q], b: usize| caps[b].minus(&loads[b].plus(&sizes[t]));
        let chosen = match heuristic.rule {
            Rule::FirstFit => (0..m).find(|&b| fits(&loads, &members, b)),
            Rule::NextFit => {
                let b = (current..m).find(|&b| fits(&loads, &members, b));
                if let Some(b) = b {
                    current = b;
                }
                b
            }
            Rule::BestFit | Rule::WorstFit => {
                let mut best: Option<(usize, Q)> = None;
                for b in (0..m).filter(|&b| fits(&loads, &members, b)) {
                    let r = room(&loads, b);
                    let better = match &best {
                        None => true,
                        Some((_, br)) => {
                            if heuristic.rule == Rule::BestFit {
                                r < *br
                            } else {
                                r > *br
                            }
                        }
                    };
                    if better {
                        best = Some((b, r));
                    }
                }
                best.map(|(b, _)| b)
            }
        };
        let Some(b) = chosen else {
            let why = if sizes[t] > unit {
                "it is larger than one CPU".to_string()
            } else if heuristic.rule == Rule::NextFit && current > 0 {
                format!("it fits in none of {} to {} (next fit never revisits earlier ones)", bin(current), bin(m - 1))
            } else {
                format!("it fits in no {} it may go to", problem.bin_word())
            };
            return Err(fail(
                &loads,
                t,
                format!(
                    "{} ({} {}) cannot be placed by {}: {why}",
                    task(t),
                    problem.size_word,
                    frac(t),
                    heuristic.name()
                ),
            ));
        };
        loads[b] = loads[b].plus(&sizes[t]);
        let at = members[b].binary_search(&t).unwrap_or_else(|e| e);
        members[b].insert(at, t);
        bins[t] = b;
    }

    Ok(Assignment { bins, loads: loads.iter().map(&to_ratio).collect() })
}
