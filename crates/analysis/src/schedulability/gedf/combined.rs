//! `gedf.any`: the G-EDF tests in order of cost, stopping at the first that
//! accepts and naming it. A set is accepted iff one of the G-EDF tests
//! accepts it: BCL-iterative is not run because RTA accepts every set it
//! accepts (same slack rounds, never smaller slacks; see `rta`), and BCL
//! runs before RTA only because it is cheaper.
//!
//! Order: GFB, BCL, BAK, LOAD, RTA, BAR, FF-DBF (the pseudo-polynomial
//! ones last). Necessary conditions (C > min(D, T), U > m) answer
//! unschedulable before any test runs.

use super::super::input::{Input, TaskParams};
use super::super::outcome::{Exactness, Outcome, Verdict};
use super::super::registry::TestInfo;
use super::explain::{explained, Explain, Names, Quiet};
use super::model::{precheck, Needs};
use super::{bak, bar, bcl, ffdbf, gfb, load, rta};
use schedlab_model::PolicyName;

pub const ID: &str = "gedf.any";

pub const INFO: TestInfo = TestInfo {
    id: ID,
    title: "G-EDF: the first of GFB, BCL, BAK, LOAD, RTA, BAR, FF-DBF that accepts",
    policies: &[PolicyName::Gedf],
    assumes: "sporadic tasks without jitter; each test's own assumptions (arbitrary deadlines: GFB, BAK, LOAD only)",
    exactness: Exactness::Sufficient,
    source: "the tests it combines (SchedCAT's combined G-EDF test, reordered by cost)",
};

/// The tests tried, in order.
pub const ORDER: &[&str] = &[gfb::ID, bcl::ID, bak::ID, load::ID, rta::ID, bar::ID, ffdbf::ID];

fn quiet(i: usize, tasks: &[TaskParams], m: u32) -> Verdict {
    let q = &mut Quiet;
    match i {
        0 => gfb::core(tasks, m, q),
        1 => bcl::core(tasks, m, q),
        2 => bak::core(tasks, m, q),
        3 => load::core(tasks, m, q),
        4 => rta::core(tasks, m, q),
        5 => bar::core(tasks, m, q),
        _ => ffdbf::core(tasks, m, q),
    }
}

fn full(i: usize, tasks: &[TaskParams], m: u32, names: Names<'_>) -> Outcome {
    match i {
        0 => explained(gfb::ID, names, |e| gfb::core(tasks, m, e)),
        1 => explained(bcl::ID, names, |e| bcl::core(tasks, m, e)),
        2 => explained(bak::ID, names, |e| bak::core(tasks, m, e)),
        3 => explained(load::ID, names, |e| load::core(tasks, m, e)),
        4 => explained(rta::ID, names, |e| rta::core(tasks, m, e)),
        5 => explained(bar::ID, names, |e| bar::core(tasks, m, e)),
        _ => explained(ffdbf::ID, names, |e| ffdbf::core(tasks, m, e)),
    }
}

/// The tests of [`ORDER`] named in `skip`, as a bit mask.
fn mask(skip: &[String]) -> u32 {
    ORDER.iter().enumerate().filter(|(_, id)| skip.iter().any(|s| s == *id)).fold(0, |m, (i, _)| m | 1 << i)
}

pub fn core<E: Explain>(tasks: &[TaskParams], m: u32, ex: &mut E) -> Verdict {
    core_skipping(tasks, m, 0, ex)
}

/// [`core`] without the tests of the bit mask `skip` (bit i: `ORDER[i]`).
fn core_skipping<E: Explain>(tasks: &[TaskParams], m: u32, skip: u32, ex: &mut E) -> Verdict {
    if let Err(v) = precheck(tasks, m, Needs::default(), ex) {
        return v;
    }
    let mut applied = 0;
    for i in (0..ORDER.len()).filter(|i| skip & 1 << i == 0) {
        if let Some((o, names)) = ex.out() {
            let sub = full(i, tasks, m, names);
            o.details.push(format!("{}: {} — {}", sub.test, sub.verdict, sub.reason));
            match sub.verdict {
                Verdict::Schedulable => {
                    o.reason = format!("accepted by {}: {}", sub.test, sub.reason);
                    o.task = sub.task;
                    o.value = sub.value;
                    o.bound = sub.bound;
                    o.data = sub.data;
                    return Verdict::Schedulable;
                }
                Verdict::NotApplicable => {}
                _ => applied += 1,
            }
        } else {
            match quiet(i, tasks, m) {
                Verdict::Schedulable => return Verdict::Schedulable,
                Verdict::NotApplicable => {}
                _ => applied += 1,
            }
        }
    }
    let v = if applied == 0 { Verdict::NotApplicable } else { Verdict::Inconclusive };
    if let Some((o, _)) = ex.out() {
        o.reason = if applied == 0 {
            "none of the G-EDF tests applies (see details)".into()
        } else {
            format!("none of the {applied} applicable G-EDF tests accepts the set (see details)")
        };
        if skip != 0 {
            let left: Vec<&str> = (0..ORDER.len()).filter(|i| skip & 1 << i != 0).map(|i| ORDER[i]).collect();
            o.reason.push_str(&format!("; left out (options.skip): {}", left.join(", ")));
        }
    }
    v
}

/// The tests of [`ORDER`] whose acceptance is monotone in the WCETs, as a
/// bit mask (bit i: `ORDER[i]`): if such a test accepts a set, it accepts
/// every set with the same deadlines, periods, offsets and jitters and
/// WCETs no larger, task by task (the argument for each is in
/// `super::dominance`). BAK, RTA and FF-DBF are not in it (RTA's
/// rejections carry over to larger WCETs only when its searches were exact,
/// see [`Cascade::refutes`]).
pub const MONOTONE: u32 = 1 << 0 | 1 << 1 | 1 << 3 | 1 << 5;

/// RTA's bit in [`ORDER`].
const RTA: usize = 4;

/// What the cascade found, for reuse on sets that dominate or are
/// dominated by this one (`super::dominance`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cascade {
    pub verdict: Verdict,
    /// The index in [`ORDER`] of the test that accepted.
    pub accepted: Option<usize>,
    /// The tests known not to accept (bit i: `ORDER[i]`).
    pub rejected: u32,
    /// The tests known not to accept these tasks nor any with the same
    /// deadlines, periods, offsets and jitters and WCETs no smaller: those
    /// of [`MONOTONE`] that rejected, and RTA when it rejected with every
    /// search exact and every WCET at least 1 (`super::dominance`).
    pub refutes: u32,
}

/// The test's verdict when it is known not to accept: its task-model and
/// necessary-condition check (`precheck` with its [`Needs`]) decides
/// not-applicable and unschedulable; otherwise it would have answered
/// inconclusive (every test's core answers schedulable or inconclusive once
/// its precheck passes).
fn known_not_accepting(i: usize, tasks: &[TaskParams], m: u32) -> Verdict {
    let needs = match i {
        0 => gfb::NEEDS,
        1 => bcl::NEEDS,
        2 => bak::NEEDS,
        3 => load::NEEDS,
        4 => rta::NEEDS,
        5 => bar::NEEDS,
        _ => ffdbf::NEEDS,
    };
    match precheck(tasks, m, needs, &mut Quiet) {
        Err(v) => v,
        Ok(()) => Verdict::Inconclusive,
    }
}

/// [`decide_input`]'s verdict (tests of the bit mask `skip` left out),
/// where the tests of the bit mask `known` are known not to accept `tasks`
/// and are not run (their verdict, which only decides between
/// inconclusive and not applicable, comes from their precheck).
pub fn decide_knowing(tasks: &[TaskParams], m: u32, skip: u32, known: u32) -> Cascade {
    if let Err(v) = precheck(tasks, m, Needs::default(), &mut Quiet) {
        return Cascade { verdict: v, accepted: None, rejected: 0, refutes: 0 };
    }
    let mut applied = 0;
    let (mut rejected, mut refutes) = (0, 0);
    for i in (0..ORDER.len()).filter(|i| skip & 1 << i == 0) {
        let (v, carries) = if known & 1 << i != 0 {
            (known_not_accepting(i, tasks, m), true)
        } else if i == RTA {
            let (v, exact) = rta::decide_exact(tasks, m);
            (v, exact && tasks.iter().all(|t| t.wcet >= 1))
        } else {
            (quiet(i, tasks, m), MONOTONE & 1 << i != 0)
        };
        match v {
            Verdict::Schedulable => return Cascade { verdict: v, accepted: Some(i), rejected, refutes },
            Verdict::NotApplicable => {}
            _ => applied += 1,
        }
        rejected |= 1 << i;
        if carries {
            refutes |= 1 << i;
        }
    }
    let verdict = if applied == 0 { Verdict::NotApplicable } else { Verdict::Inconclusive };
    Cascade { verdict, accepted: None, rejected, refutes }
}

/// The bit mask of `skip` (test IDs) over [`ORDER`].
pub fn skip_mask(skip: &[String]) -> u32 {
    mask(skip)
}

/// The verdict of `input`, without the tests of `input.options.skip`.
pub fn decide_input(input: &Input) -> Verdict {
    core_skipping(&input.tasks, input.cpus, mask(&input.options.skip), &mut Quiet)
}

/// The verdict alone, and the test that accepted (batches).
pub fn decide_which(tasks: &[TaskParams], m: u32) -> (Verdict, Option<&'static str>) {
    if let Err(v) = precheck(tasks, m, Needs::default(), &mut Quiet) {
        return (v, None);
    }
    let mut applied = false;
    for (i, id) in ORDER.iter().enumerate() {
        match quiet(i, tasks, m) {
            Verdict::Schedulable => return (Verdict::Schedulable, Some(id)),
            Verdict::NotApplicable => {}
            _ => applied = true,
        }
    }
    (if applied { Verdict::Inconclusive } else { Verdict::NotApplicable }, None)
}

pub fn decide(tasks: &[TaskParams], m: u32) -> Verdict {
    core(tasks, m, &mut Quiet)
}

pub fn check(tasks: &[TaskParams], m: u32) -> Outcome {
    explained(ID, Names::NONE, |ex| core(tasks, m, ex))
}

pub fn check_input(input: &Input) -> Outcome {
    let skip = mask(&input.options.skip);
    explained(ID, Names::of(input), |ex| core_skipping(&input.tasks, input.cpus, skip, ex))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_accepting_test() {
        let t = vec![TaskParams::implicit(1, 10); 3];
        let o = check(&t, 2);
        assert_eq!(o.verdict, Verdict::Schedulable);
        assert!(o.reason.starts_with("accepted by gedf.gfb"), "{}", o.reason);
        assert_eq!(decide_which(&t, 2), (Verdict::Schedulable, Some("gedf.gfb")));
        // A zero-laxity task defeats GFB, BCL, BAK and LOAD, not RTA.
        let t = vec![TaskParams::implicit(2, 2), TaskParams::implicit(1, 4)];
        assert_eq!(decide_which(&t, 2), (Verdict::Schedulable, Some("gedf.rta")));
        let o = check(&t, 2);
        assert!(o.reason.starts_with("accepted by gedf.rta"), "{}", o.reason);
        assert_eq!(o.details.len(), 5, "{:?}", o.details);
        assert!(o.details[0].starts_with("gedf.gfb: inconclusive"), "{:?}", o.details);
    }

    /// Tests left out by `options.skip` are not tried, in the fast and
    /// the explained paths alike; the explanation names them.
    #[test]
    fn skipped_tests_are_not_tried() {
        let mut input = Input::new(2, vec![TaskParams::implicit(2, 2), TaskParams::implicit(1, 4)]);
        assert_eq!(decide_input(&input), Verdict::Schedulable);
        input.options.skip = ORDER[1..].iter().map(|s| s.to_string()).collect();
        assert_eq!(decide_input(&input), Verdict::Inconclusive);
        let o = check_input(&input);
        assert_eq!(o.verdict, Verdict::Inconclusive);
        assert_eq!(o.details.len(), 1, "{:?}", o.details);
        assert!(
            o.reason
                .ends_with("left out (options.skip): gedf.bcl, gedf.bak, gedf.load, gedf.rta, gedf.bar, gedf.ffdbf"),
            "{}",
            o.reason
        );
    }

    #[test]
    fn jitter_is_not_applicable_and_overload_unschedulable() {
        let mut t = TaskParams::implicit(1, 10);
        t.jitter = 2;
        assert_eq!(decide(&[t], 2), Verdict::NotApplicable);
        assert_eq!(decide(&[TaskParams::implicit(9, 10); 3], 2), Verdict::Unschedulable);
    }
}
