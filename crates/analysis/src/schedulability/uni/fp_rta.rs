//! Exact fixed-priority response-time analysis on one CPU (Joseph & Pandya
//! 1986; Audsley et al. 1993), with release jitter and blocking in Tindell's
//! form (Tindell, Burns & Wellings 1994) and arbitrary deadlines through the
//! level-i busy period (Lehoczky 1990):
//!
//! wᵢ(q) = Bᵢ + (q+1)·Cᵢ + Σ_{j ∈ hp(i)} ⌈(wᵢ(q) + Jⱼ)/Tⱼ⌉·Cⱼ,
//! Rᵢ = max_q (wᵢ(q) + Jᵢ − q·Tᵢ), for q = 0, 1, … while wᵢ(q) + Jᵢ > (q+1)·Tᵢ
//! (the busy period goes on past the next release of τᵢ).
//!
//! Each fixed point is found from below, so an iterate whose response
//! already exceeds Dᵢ proves the miss. Priorities: see [`super::order`].

use super::super::data::Data;
use super::super::input::{Input, TaskParams};
use super::super::outcome::{Exactness, Outcome, Verdict};
use super::super::registry::TestInfo;
use super::load::cmp_one;
use super::order::{assignment, by_priority, name, ranks};
use super::{malformed, ns, offsets_note, one_cpu, MAX_ITERATIONS};
use schedlab_model::exact::Ratio;
use schedlab_model::{Duration, PolicyName};
use std::cmp::Ordering;

pub const ID: &str = "uni.fp.rta";

pub const INFO: TestInfo = TestInfo {
    id: ID,
    title: "Fixed priority on one CPU: exact response-time analysis (jitter, blocking)",
    policies: &[PolicyName::Gfp, PolicyName::Pfp, PolicyName::Cfp],
    assumes: "one CPU; sporadic tasks, arbitrary deadlines, release jitter, blocking terms (options.blocking); RM, DM or explicit priorities, ties to the lower task index",
    exactness: Exactness::Exact,
    source: "Joseph & Pandya 1986; Audsley, Burns, Richardson, Tindell & Wellings 1993; Tindell, Burns & Wellings 1994; Lehoczky 1990",
};

/// Jobs of one task examined in one busy period before giving up.
pub(crate) const MAX_JOBS: u64 = 100_000;

/// A task as the FP analyses see it, in priority order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FpTask {
    pub p: TaskParams,
    /// Bᵢ (resource blocking; FPDS adds the lower-priority regions itself).
    pub blocking: u64,
    /// Final non-preemptive region (FPDS only).
    pub npr: u64,
    /// Longest non-preemptive stretch: the longest subjob (FPDS only).
    pub longest: u64,
    /// Index in the whole task set.
    pub index: usize,
}

/// Why a task fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fail {
    /// Job `job` of the busy period responds in at least `r` > D.
    Miss { r: u128, job: u64 },
    /// The tasks at or above this priority have utilisation above 1.
    Overload,
    /// An iteration cap was hit.
    Limit,
}

/// The worst-case response time of `tasks[i]` (higher-priority tasks
/// first); `trace` collects the iterates of the first job.
pub(crate) fn response(tasks: &[FpTask], i: usize, mut trace: Option<&mut Vec<u128>>) -> Result<u128, Fail> {
    let me = tasks[i];
    let hp = &tasks[..i];
    let (c, t, j, d) = (me.p.wcet as u128, me.p.period as u128, me.p.jitter as u128, me.p.deadline as u128);
    let mut worst = 0u128;
    let mut w = 0u128;
    let mut iterations = 0u32;
    for q in 0..MAX_JOBS as u128 {
        let base = (me.blocking as u128).saturating_add(c.saturating_mul(q + 1));
        w = if q == 0 { base } else { w.saturating_add(c) };
        if let Some(tr) = trace.as_deref_mut() {
            if q == 0 {
                tr.push(w);
            }
        }
        loop {
            let mut rhs = base;
            for h in hp {
                let n = (w + h.p.jitter as u128).div_ceil(h.p.period as u128);
                rhs = rhs.saturating_add(n.saturating_mul(h.p.wcet as u128));
            }
            if rhs != w {
                if let Some(tr) = trace.as_deref_mut() {
                    if q == 0 {
                        tr.push(rhs);
                    }
                }
            }
            let r = (rhs + j).saturating_sub(q * t);
            if r > d {
                return Err(Fail::Miss { r, job: q as u64 });
            }
            if rhs == w {
                break;
            }
            w = rhs;
            iterations += 1;
            if iterations > MAX_ITERATIONS {
                return Err(Fail::Limit);
            }
        }
        worst = worst.max((w + j).saturating_sub(q * t));
        if w + j <= (q + 1) * t {
            return Ok(worst);
        }
        if q == 0 && cmp_one(tasks[..=i].iter().map(|x| (x.p.wcet, x.p.period))) == Ordering::Greater {
            return Err(Fail::Overload);
        }
    }
    Err(Fail::Limit)
}

/// Response times of `tasks[from..]` (priority order): the first failure,
/// its position, or every response time through `resp`.
pub(crate) fn core(tasks: &[FpTask], from: usize, mut resp: impl FnMut(usize, u128)) -> Result<(), (usize, Fail)> {
    for i in from..tasks.len() {
        let r = response(tasks, i, None).map_err(|f| (i, f))?;
        resp(i, r);
    }
    Ok(())
}

/// The tasks of `input` in priority order, with their blocking terms and
/// final regions, or a not-applicable outcome.
pub(crate) fn fp_tasks(id: &'static str, input: &Input) -> Result<Vec<FpTask>, Box<Outcome>> {
    let ranks = ranks(input).map_err(|(i, why)| Box::new(Outcome::not_applicable(id, why).task(i)))?;
    Ok(by_priority(&ranks, 0..input.tasks.len())
        .into_iter()
        .map(|i| FpTask {
            p: input.tasks[i],
            blocking: input.options.blocking(i),
            npr: input.options.npr(i, input.tasks[i].wcet),
            longest: input.options.longest_subjob(i, input.tasks[i].wcet),
            index: i,
        })
        .collect())
}

/// The priority order as a detail line.
pub(crate) fn order_detail(input: &Input, tasks: &[FpTask]) -> String {
    let names: Vec<String> = tasks
        .iter()
        .map(|t| input.names.get(t.index).cloned().unwrap_or_else(|| format!("tasks[{}]", t.index)))
        .collect();
    format!("priority order ({}), highest first: {}", name(assignment(input)), names.join(", "))
}

/// The outcome of a failed analysis (shared with FPDS).
pub(crate) fn failure(
    id: &'static str,
    input: &Input,
    tasks: &[FpTask],
    pos: usize,
    fail: Fail,
    what: &str,
) -> Outcome {
    let me = tasks[pos];
    let i = me.index;
    match fail {
        Fail::Miss { r, job } => {
            let which =
                if job == 0 { "its first job".to_string() } else { format!("job {} of its busy period", job + 1) };
            Outcome::new(
                id,
                Verdict::Unschedulable,
                format!(
                    "{} can respond in {} ({which}), after its deadline {}",
                    input.task_label(i),
                    ns(r),
                    Duration(me.p.deadline)
                ),
            )
            .task(i)
            .compare(Ratio::new(r, 1), Ratio::new(me.p.deadline as u128, 1))
            .detail(format!("{what} (value and bound in ns)"))
        }
        Fail::Overload => Outcome::new(
            id,
            Verdict::Unschedulable,
            format!(
                "{} and the tasks above it have utilisation above 1: its response time grows without bound",
                input.task_label(i)
            ),
        )
        .task(i)
        .compare(super::load::exact(tasks[..=pos].iter().map(|x| (x.p.wcet, x.p.period))), Ratio::new(1, 1)),
        Fail::Limit => Outcome::new(
            id,
            Verdict::Inconclusive,
            format!(
                "the analysis of {} hit its iteration cap (utilisation at or near 1 with huge periods)",
                input.task_label(i)
            ),
        )
        .task(i),
    }
}

pub fn check(input: &Input) -> Outcome {
    if let Some(o) = one_cpu(ID, input, "pfp.rta").or_else(|| malformed(ID, input)) {
        return o;
    }
    let tasks = match fp_tasks(ID, input) {
        Ok(t) => t,
        Err(o) => return *o,
    };
    let mut resp = vec![None; input.tasks.len()];
    let out = match core(&tasks, 0, |pos, r| resp[tasks[pos].index] = u64::try_from(r).ok()) {
        Ok(()) => {
            // The task with the least slack D − R decides.
            let tight = tasks.iter().min_by_key(|t| t.p.deadline as i128 - resp[t.index].unwrap_or(0) as i128);
            let mut o = Outcome::new(ID, Verdict::Schedulable, "every response time is within its deadline");
            if let Some(t) = tight {
                let r = resp[t.index].unwrap_or(0);
                o = Outcome::new(
                    ID,
                    Verdict::Schedulable,
                    format!(
                        "every response time is within its deadline; the tightest is {}: {} ≤ {}",
                        input.task_label(t.index),
                        Duration(r),
                        Duration(t.p.deadline)
                    ),
                )
                .task(t.index)
                .compare(Ratio::new(r as u128, 1), Ratio::new(t.p.deadline as u128, 1));
            }
            o
        }
        Err((pos, fail)) => {
            let mut trace = Vec::new();
            let _ = response(&tasks, pos, Some(&mut trace));
            let steps: Vec<String> = trace.iter().map(|v| v.to_string()).collect();
            failure(ID, input, &tasks, pos, fail, &format!("first job's iterates: {}", steps.join(" → ")))
        }
    };
    offsets_note(input, out.detail(order_detail(input, &tasks)).with_data(Data::ResponseTimes(resp)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(c: u64, t: u64) -> TaskParams {
        TaskParams::implicit(c, t)
    }

    #[test]
    fn the_epos_thesis_example() {
        // T1 = (2, 10), T2 = (5, 15), T3 = (10, 25): R1 = 2, R2 = 7,
        // R3 = 10 → 17 → 24 → 26 > 25.
        let input = Input::new(1, vec![ms(2, 10), ms(5, 15), ms(10, 25)]);
        let o = check(&input);
        assert_eq!(o.verdict, Verdict::Unschedulable, "{o:?}");
        assert_eq!(o.task, Some(2));
        assert_eq!((o.value.clone(), o.bound.clone()), (Some(Ratio::new(26, 1)), Some(Ratio::new(25, 1))));
        assert!(o.details[0].contains("10 → 17 → 24 → 26"), "{:?}", o.details);
        assert_eq!(o.data, Some(Data::ResponseTimes(vec![Some(2), Some(7), None])));
        // With 9 units for T3 the set passes: R3 = 9 → 16 → 23 → 25 ≤ 25.
        let input = Input::new(1, vec![ms(2, 10), ms(5, 15), ms(9, 25)]);
        let o = check(&input);
        assert_eq!(o.verdict, Verdict::Schedulable, "{o:?}");
        assert_eq!(o.data, Some(Data::ResponseTimes(vec![Some(2), Some(7), Some(25)])));
        assert_eq!(o.slack(), Some(Ratio::zero()));
    }

    #[test]
    fn jitter_and_blocking_add_up() {
        // hp (1, 4) with jitter 2; low (2, 10), blocking 1: w = 1 + 2 + ⌈(w + 2)/4⌉·1 → 4 → 5 → 5; R = 5.
        let mut input = Input::new(1, vec![TaskParams { jitter: 2, ..ms(1, 4) }, ms(2, 10)]);
        input.options.blocking = vec![0, 1];
        let o = check(&input);
        assert_eq!(o.data, Some(Data::ResponseTimes(vec![Some(3), Some(5)])), "{o:?}");
    }

    #[test]
    fn deadlines_beyond_the_period_need_later_jobs() {
        // Lehoczky's example shape: (26, 70) and (62, 100) with D = 120 for
        // the low task: its first job responds in 114, the busy period goes
        // on and a later job is the worst (R = 118 for job 7).
        let input = Input::new(1, vec![TaskParams::constrained(26, 70, 70), TaskParams::constrained(62, 120, 100)]);
        let o = check(&input);
        let Some(Data::ResponseTimes(r)) = &o.data else { panic!("{o:?}") };
        assert_eq!(r[0], Some(26));
        let brute = brute_low(26, 70, 62, 100);
        assert_eq!(r[1], Some(brute), "{o:?}");
        assert!(brute > 114);
    }

    /// Worst response of the low task over a synchronous hyperperiod, by
    /// stepping unit time (two tasks, FP, no jitter).
    fn brute_low(c1: u64, t1: u64, c2: u64, t2: u64) -> u64 {
        let h = t1 * t2;
        let (mut rem1, mut queue2) = (0u64, std::collections::VecDeque::new());
        let mut worst = 0;
        let mut done2: u64 = 0;
        for now in 0..h {
            if now % t1 == 0 {
                rem1 += c1;
            }
            if now % t2 == 0 {
                queue2.push_back((now, c2));
            }
            if rem1 > 0 {
                rem1 -= 1;
            } else if let Some(front) = queue2.front_mut() {
                front.1 -= 1;
                if front.1 == 0 {
                    worst = worst.max(now + 1 - front.0);
                    queue2.pop_front();
                    done2 += 1;
                }
            }
        }
        assert!(done2 > 0);
        worst
    }

    #[test]
    fn overload_and_explicit_priorities() {
        let o = check(&Input::new(1, vec![ms(3, 4), ms(3, 8), ms(1, 100)]));
        assert_eq!(o.verdict, Verdict::Unschedulable);
        let mut input = Input::new(1, vec![ms(2, 10), ms(5, 15)]);
        input.policy = Some(schedlab_model::PolicySpec {
            priorities: Some(schedlab_model::Priorities::Explicit),
            ..schedlab_model::PolicySpec::named(PolicyName::Pfp)
        });
        input.priorities = vec![Some(2), None];
        assert_eq!(check(&input).verdict, Verdict::NotApplicable);
        input.priorities = vec![Some(2), Some(1)];
        let o = check(&input);
        assert_eq!(o.data, Some(Data::ResponseTimes(vec![Some(7), Some(5)])));
    }
}
