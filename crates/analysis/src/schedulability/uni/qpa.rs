//! Exact EDF processor-demand analysis on one CPU by Quick convergence
//! Processor-demand Analysis (QPA; Zhang & Burns 2009), arbitrary deadlines
//! and release jitter.
//!
//! With release jitter Jᵢ (a job released up to Jᵢ after its arrival, the
//! deadline counted from the arrival) the demand bound is Spuri's (1996):
//! h(t) = Σ_{D'ᵢ ≤ t} (⌊(t − D'ᵢ)/Tᵢ⌋ + 1)·Cᵢ with D'ᵢ = Dᵢ − Jᵢ, and EDF
//! meets every deadline iff U ≤ 1 and h(t) ≤ t for every t > 0 (Baruah,
//! Rosier & Howell 1990). It suffices to look below L = min(L_a, L_b):
//! L_a = max(max D'ᵢ, Σ (Tᵢ − D'ᵢ)·Uᵢ / (1 − U)) (U < 1) and L_b the
//! synchronous busy period w = Σ ⌈w/Tᵢ⌉·Cᵢ. QPA walks down from the last
//! deadline below L: t ← h(t) if h(t) < t, else the previous deadline,
//! until h(t) ≤ min D'ᵢ (schedulable) or h(t) > t (a miss, at interval t).

use super::super::input::{Input, TaskParams};
use super::super::outcome::{Exactness, Outcome, Verdict};
use super::super::registry::TestInfo;
use super::load::{cmp_one, exact, upper, FIXED_ONE};
use super::{malformed, ns, offsets_note, one_cpu, MAX_ITERATIONS};
use schedlab_model::exact::Ratio;
use schedlab_model::{Duration, PolicyName};
use std::cmp::Ordering;

pub const ID: &str = "uni.edf.qpa";

pub const INFO: TestInfo = TestInfo {
    id: ID,
    title: "EDF on one CPU: exact processor-demand analysis (QPA)",
    policies: &[PolicyName::Gedf, PolicyName::Pedf, PolicyName::Cedf],
    assumes: "one CPU; sporadic tasks, arbitrary deadlines, release jitter (deadline counted from the arrival); no blocking terms",
    exactness: Exactness::Exact,
    source: "Zhang & Burns 2009 (QPA); Baruah, Rosier & Howell 1990; Spuri 1996 (jitter)",
};

/// What QPA found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Qpa {
    /// h(t) ≤ t for every t ≤ `l`; `steps` demand evaluations.
    Schedulable { l: u128, steps: u32 },
    /// h(t) > t at interval length `t`.
    Miss { t: u128, h: u128 },
    /// Total utilisation above 1.
    Overload,
    /// The task (position) can be released at or after its deadline (J ≥ D).
    ReleasedLate(usize),
    /// The busy period or the walk exceeded the iteration cap.
    Limit,
}

/// D'ᵢ = Dᵢ − Jᵢ of a task with work (callers filter J ≥ D first).
#[inline]
fn dl(t: &TaskParams) -> u128 {
    (t.deadline - t.jitter) as u128
}

/// Demand bound h(t).
#[inline]
fn demand(tasks: &[TaskParams], t: u128) -> u128 {
    let mut h: u128 = 0;
    for x in tasks {
        let d = dl(x);
        if x.wcet != 0 && d <= t {
            let jobs = match u64::try_from(t - d) {
                Ok(gap) => (gap / x.period) as u128 + 1,
                Err(_) => (t - d) / x.period as u128 + 1,
            };
            h = h.saturating_add(jobs.saturating_mul(x.wcet as u128));
        }
    }
    h
}

/// The latest absolute deadline strictly before `x` (synchronous arrivals).
#[inline]
fn deadline_before(tasks: &[TaskParams], x: u128) -> Option<u128> {
    let mut best = None;
    for t in tasks {
        let d = dl(t);
        if t.wcet != 0 && d < x {
            let p = t.period as u128;
            let k = match u64::try_from(x - 1 - d) {
                Ok(gap) => (gap / t.period) as u128,
                Err(_) => (x - 1 - d) / p,
            };
            let last = k * p + d;
            best = Some(best.map_or(last, |b: u128| b.max(last)));
        }
    }
    best
}

/// The synchronous busy period, stopping above `cap` (→ `None`).
fn busy_period(tasks: &[TaskParams], cap: u128) -> Result<Option<u128>, ()> {
    let mut w: u128 = tasks.iter().map(|t| t.wcet as u128).sum();
    for _ in 0..MAX_ITERATIONS {
        if w > cap {
            return Ok(None);
        }
        let mut next: u128 = 0;
        for t in tasks {
            let jobs = match u64::try_from(w) {
                Ok(w) => w.div_ceil(t.period) as u128,
                Err(_) => w.div_ceil(t.period as u128),
            };
            next = next.saturating_add(jobs.saturating_mul(t.wcet as u128));
        }
        if next == w {
            return Ok(Some(w));
        }
        w = next;
    }
    Err(())
}

/// QPA over `tasks` (every period > 0).
pub(crate) fn core(tasks: &[TaskParams]) -> Qpa {
    let mut dmin = u128::MAX;
    let mut dmax = 0u128;
    for (k, t) in tasks.iter().enumerate() {
        if t.wcet == 0 {
            continue;
        }
        if t.jitter >= t.deadline {
            return Qpa::ReleasedLate(k);
        }
        dmin = dmin.min(dl(t));
        dmax = dmax.max(dl(t));
    }
    if dmin == u128::MAX {
        return Qpa::Schedulable { l: 0, steps: 0 };
    }
    let utils = tasks.iter().map(|t| (t.wcet, t.period));
    let l = match cmp_one(utils.clone()) {
        Ordering::Greater => return Qpa::Overload,
        Ordering::Less => {
            // L_a from an upper bound on U (so a lower bound on 1 − U).
            let u_hi = upper(utils);
            let la = (u_hi < FIXED_ONE)
                .then(|| {
                    let mut x: u128 = 0;
                    for t in tasks.iter().filter(|t| dl(t) < t.period as u128) {
                        let slack = t.period as u128 - dl(t);
                        x = x.checked_add(slack.checked_mul(t.wcet as u128)?.div_ceil(t.period as u128))?;
                    }
                    let scaled = x.checked_mul(FIXED_ONE)?;
                    Some(scaled.div_ceil(FIXED_ONE - u_hi).max(dmax))
                })
                .flatten();
            match busy_period(tasks, la.unwrap_or(u128::MAX)) {
                Ok(Some(lb)) => la.map_or(lb, |a| a.min(lb)),
                Ok(None) => la.expect("a cap was given"),
                Err(()) => match la {
                    Some(a) => a,
                    None => return Qpa::Limit,
                },
            }
        }
        Ordering::Equal => match busy_period(tasks, u128::MAX) {
            Ok(Some(lb)) => lb,
            _ => return Qpa::Limit,
        },
    };
    let Some(mut t) = deadline_before(tasks, l.saturating_add(1)) else {
        return Qpa::Schedulable { l, steps: 0 };
    };
    let mut steps = 0u32;
    loop {
        steps += 1;
        if steps > MAX_ITERATIONS {
            return Qpa::Limit;
        }
        let h = demand(tasks, t);
        if h > t {
            return Qpa::Miss { t, h };
        }
        if h <= dmin {
            return Qpa::Schedulable { l, steps };
        }
        t = if h < t { h } else { deadline_before(tasks, t).expect("t > min D' has a deadline before it") };
    }
}

pub fn check(input: &Input) -> Outcome {
    if let Some(o) = one_cpu(ID, input, "pedf.qpa").or_else(|| malformed(ID, input)) {
        return o;
    }
    if let Some(i) = input.tasks.iter().enumerate().position(|(i, _)| input.options.blocking(i) > 0) {
        return Outcome::not_applicable(ID, format!("{} has a blocking term: EDF with resource blocking (SRP) is not analysed here; use a fixed-priority test", input.task_label(i))).task(i);
    }
    let u = || exact(input.tasks.iter().map(|t| (t.wcet, t.period)));
    let out = match core(&input.tasks) {
        Qpa::Schedulable { l, steps } => Outcome::new(
            ID,
            Verdict::Schedulable,
            format!("the processor demand h(t) stays within t up to the busy-period bound L = {}: EDF meets every deadline", ns(l)),
        )
        .compare(u(), Ratio::new(1, 1))
        .detail(format!("{steps} demand evaluation(s) by QPA; h(t) = Σ (⌊(t − (Dᵢ − Jᵢ))/Tᵢ⌋ + 1)·Cᵢ")),
        Qpa::Miss { t, h } => Outcome::new(
            ID,
            Verdict::Unschedulable,
            format!("in an interval of {} the jobs with deadlines inside it need {}: a deadline is missed when all tasks arrive together", ns(t), ns(h)),
        )
        .compare(Ratio::new(h, 1), Ratio::new(t, 1))
        .detail(format!("h({t}) = {h} ns > t = {t} ns (value and bound in ns)")),
        Qpa::Overload => {
            Outcome::new(ID, Verdict::Unschedulable, format!("total utilisation {:.4} exceeds 1", u().to_f64())).compare(u(), Ratio::new(1, 1))
        }
        Qpa::ReleasedLate(i) => {
            let t = input.tasks[i];
            Outcome::new(
                ID,
                Verdict::Unschedulable,
                format!("{} has release jitter {} ≥ its deadline {}: a job can be released at its deadline", input.task_label(i), Duration(t.jitter), Duration(t.deadline)),
            )
            .task(i)
            .compare(Ratio::new(t.jitter as u128, 1), Ratio::new(t.deadline as u128 - 1, 1))
        }
        Qpa::Limit => Outcome::new(ID, Verdict::Inconclusive, format!("the busy period did not close within {MAX_ITERATIONS} iterations (utilisation at or very near 1 with huge periods)"))
            .compare(u(), Ratio::new(1, 1)),
    };
    offsets_note(input, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute force: h(t) ≤ t at every absolute deadline up to the hyperperiod
    /// plus the largest deadline (U ≤ 1), jitter folded into the deadline.
    pub(crate) fn brute(tasks: &[TaskParams]) -> bool {
        if tasks.iter().any(|t| t.wcet > 0 && t.jitter >= t.deadline) {
            return false;
        }
        if cmp_one(tasks.iter().map(|t| (t.wcet, t.period))) == Ordering::Greater {
            return false;
        }
        let h = schedlab_model::exact::hyperperiod(tasks.iter().map(|t| t.period)).unwrap() as u128;
        let end = h + tasks.iter().map(dl).max().unwrap_or(0);
        for t in tasks {
            let mut d = dl(t);
            while d <= end {
                if demand(tasks, d) > d {
                    return false;
                }
                d += t.period as u128;
            }
        }
        true
    }

    #[test]
    fn agrees_with_brute_force_on_random_sets() {
        let mut r = schedlab_model::rng::Rng::new(42);
        let (mut yes, mut no) = (0, 0);
        for _ in 0..3000 {
            let n = r.range_u64(1, 6) as usize;
            let tasks: Vec<TaskParams> = (0..n)
                .map(|_| {
                    let p = *r.choose(&[4u64, 5, 6, 8, 10, 12, 15, 20, 30]).unwrap();
                    let c = r.range_u64(1, p.max(2) / 2);
                    let d = r.range_u64(c, 2 * p);
                    let j = if r.below(4) == 0 { r.range_u64(0, d / 2) } else { 0 };
                    TaskParams { wcet: c, deadline: d, period: p, offset: 0, jitter: j }
                })
                .collect();
            let want = brute(&tasks);
            let got = core(&tasks);
            assert!(!matches!(got, Qpa::Limit), "{tasks:?}");
            assert_eq!(matches!(got, Qpa::Schedulable { .. }), want, "{tasks:?}: {got:?}");
            if want {
                yes += 1
            } else {
                no += 1
            }
        }
        assert!(yes > 500 && no > 500, "{yes} {no}");
    }

    #[test]
    fn a_miss_names_the_interval() {
        // (2, 3, 4) and (2, 4, 8): h(3) = 2, h(4) = 4, h(7) = 6, h(8) = 6 ≤ 8... and (1, 2, 10): h(3) = 3, h(4) = 5 > 4.
        let tasks =
            vec![TaskParams::constrained(2, 3, 4), TaskParams::constrained(2, 4, 8), TaskParams::constrained(1, 2, 10)];
        assert_eq!(core(&tasks), Qpa::Miss { t: 4, h: 5 });
        let o = check(&Input::new(1, tasks));
        assert_eq!(o.verdict, Verdict::Unschedulable);
        assert_eq!((o.value, o.bound), (Some(Ratio::new(5, 1)), Some(Ratio::new(4, 1))));
    }

    #[test]
    fn full_utilisation_with_implicit_deadlines_passes_and_jitter_can_break_it() {
        let tasks = vec![TaskParams::implicit(1, 2), TaskParams::implicit(1, 4), TaskParams::implicit(1, 4)];
        assert!(matches!(core(&tasks), Qpa::Schedulable { .. }));
        // Jitter 1 on a (1, 4) task leaves room (D' = 3: h(4k + 3) = 4k + 2).
        let mut j = tasks.clone();
        j[2].jitter = 1;
        assert!(matches!(core(&j), Qpa::Schedulable { .. }), "{:?}", core(&j));
        // Jitter on two tasks: both can be released at 1 with deadline 2... D' = 1 each: h(1) = 2 > 1.
        j[0].jitter = 1;
        j[2].jitter = 3;
        assert_eq!(core(&j), Qpa::Miss { t: 1, h: 2 });
        j[2].jitter = 4;
        assert_eq!(core(&j), Qpa::ReleasedLate(2));
        let mut over = tasks;
        over[0].wcet = 2;
        assert_eq!(core(&over), Qpa::Overload);
    }

    #[test]
    fn more_than_one_cpu_and_blocking_are_not_applicable() {
        let o = check(&Input::new(2, vec![TaskParams::implicit(1, 2)]));
        assert_eq!(o.verdict, Verdict::NotApplicable);
        assert!(o.reason.contains("pedf.qpa"), "{}", o.reason);
        let mut i = Input::new(1, vec![TaskParams::implicit(1, 2)]);
        i.options.blocking = vec![1];
        assert_eq!(check(&i).verdict, Verdict::NotApplicable);
    }

    #[test]
    fn huge_parameters_do_not_panic() {
        let big = u64::MAX / 2;
        let tasks = vec![TaskParams::constrained(big, big + 1, u64::MAX), TaskParams::constrained(3, 7, big + 13)];
        let _ = core(&tasks);
        // U = 1 exactly with periods of 2⁶⁴ − 1 ns: the big job fits exactly after the small one ...
        let tasks =
            vec![TaskParams::constrained(u64::MAX - 1, u64::MAX, u64::MAX), TaskParams::constrained(1, 1, u64::MAX)];
        assert!(matches!(core(&tasks), Qpa::Schedulable { .. }), "{:?}", core(&tasks));
        // ... and misses by 1 ns with a deadline 1 ns shorter.
        let tasks = vec![
            TaskParams::constrained(u64::MAX - 1, u64::MAX - 1, u64::MAX),
            TaskParams::constrained(1, 1, u64::MAX),
        ];
        assert_eq!(core(&tasks), Qpa::Miss { t: u64::MAX as u128 - 1, h: u64::MAX as u128 });
    }
}
