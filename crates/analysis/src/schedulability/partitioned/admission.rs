//! The uniprocessor tests that can admit a task onto a CPU during packing,
//! by their registry IDs, with a fast fit predicate over the CPU's tasks
//! (no outcome built, no allocation once the scratch buffers have grown).

use super::super::input::{Input, TaskParams};
use super::super::outcome::Outcome;
use super::super::uni::fp_rta::FpTask;
use super::super::uni::load::{cmp_one, fixed, ONE};
use super::super::uni::MAX_ITERATIONS;
use super::super::uni::{edf_density, edf_util, fp_hyperbolic, fp_ll, fp_rta, fpds_rta, qpa};
use std::cell::RefCell;
use std::cmp::Ordering;

/// A uniprocessor test as a CPU's fit test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Admission {
    EdfUtil,
    EdfDensity,
    EdfQpa,
    FpLl,
    FpHyperbolic,
    FpRta,
    FpdsRta,
}

/// The scheduler family an admission test is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Family {
    Edf,
    Fp,
    Fpds,
}

impl Admission {
    pub const ALL: [Admission; 7] = [
        Admission::EdfUtil,
        Admission::EdfDensity,
        Admission::EdfQpa,
        Admission::FpLl,
        Admission::FpHyperbolic,
        Admission::FpRta,
        Admission::FpdsRta,
    ];

    /// The uniprocessor test's registry ID.
    pub fn id(self) -> &'static str {
        match self {
            Admission::EdfUtil => edf_util::ID,
            Admission::EdfDensity => edf_density::ID,
            Admission::EdfQpa => qpa::ID,
            Admission::FpLl => fp_ll::ID,
            Admission::FpHyperbolic => fp_hyperbolic::ID,
            Admission::FpRta => fp_rta::ID,
            Admission::FpdsRta => fpds_rta::ID,
        }
    }

    pub fn from_id(id: &str) -> Option<Admission> {
        Admission::ALL.into_iter().find(|a| a.id() == id)
    }

    pub fn family(self) -> Family {
        match self {
            Admission::EdfUtil | Admission::EdfDensity | Admission::EdfQpa => Family::Edf,
            Admission::FpLl | Admission::FpHyperbolic | Admission::FpRta => Family::Fp,
            Admission::FpdsRta => Family::Fpds,
        }
    }

    /// The full test, for the per-CPU outcome.
    pub fn check(self) -> fn(&Input) -> Outcome {
        match self {
            Admission::EdfUtil => edf_util::check,
            Admission::EdfDensity => edf_density::check,
            Admission::EdfQpa => qpa::check,
            Admission::FpLl => fp_ll::check,
            Admission::FpHyperbolic => fp_hyperbolic::check,
            Admission::FpRta => fp_rta::check,
            Admission::FpdsRta => fpds_rta::check,
        }
    }

    /// Whether the whole set meets the test's task model (checked once,
    /// before packing): the task that does not and why.
    pub fn model(self, input: &Input) -> Result<(), (Option<usize>, String)> {
        match self {
            Admission::EdfUtil => edf_util::applies(input).map_err(|(i, w)| (Some(i), w)),
            Admission::EdfDensity | Admission::EdfQpa => {
                match (0..input.tasks.len()).find(|&i| input.options.blocking(i) > 0) {
                    Some(i) => Err((
                        Some(i),
                        format!(
                            "{} has a blocking term: EDF with resource blocking is not analysed here",
                            input.task_label(i)
                        ),
                    )),
                    None => Ok(()),
                }
            }
            Admission::FpLl | Admission::FpHyperbolic => fp_ll::applies(input),
            Admission::FpRta | Admission::FpdsRta => Ok(()),
        }
    }
}

/// A CPU fit predicate for one admission test over one input: `fits(members,
/// candidate)` with the CPU's current members in task order.
pub(crate) struct Fit<'a> {
    input: &'a Input,
    admission: Admission,
    ranks: Vec<u64>,
    /// Per task, for the utilisation tests: ⌊Uᵢ·2⁶⁴⌋ and ⌈Uᵢ·2⁶⁴⌉ (the
    /// terms of [`cmp_one`]'s interval, computed once instead of per fit).
    util: Vec<(u128, u128)>,
    edf: RefCell<Vec<TaskParams>>,
    fp: RefCell<Vec<FpTask>>,
}

impl<'a> Fit<'a> {
    /// `ranks` are the FP ranks (ignored for EDF tests).
    pub fn new(input: &'a Input, admission: Admission, ranks: Vec<u64>) -> Fit<'a> {
        let util = match admission {
            Admission::EdfUtil | Admission::EdfQpa => input
                .tasks
                .iter()
                .map(|t| {
                    let (q, r) = fixed(t.wcet, t.period);
                    (q, q + r as u128)
                })
                .collect(),
            _ => Vec::new(),
        };
        Fit { input, admission, ranks, util, edf: RefCell::new(Vec::new()), fp: RefCell::new(Vec::new()) }
    }

    /// Σ Uᵢ over `members` and `cand` compared with 1, exactly: the
    /// precomputed interval first, [`cmp_one`] only when it straddles 1.
    /// Also `hi < 1`: the interval is strictly below 1.
    fn util_vs_one(&self, members: &[usize], cand: usize) -> (Ordering, bool) {
        let (mut lo, mut hi) = self.util[cand];
        for &i in members {
            lo = lo.saturating_add(self.util[i].0);
            hi = hi.saturating_add(self.util[i].1);
        }
        if hi < ONE {
            (Ordering::Less, true)
        } else if lo > ONE {
            (Ordering::Greater, false)
        } else if lo == hi {
            (lo.cmp(&ONE), false)
        } else {
            let tasks = &self.input.tasks;
            (cmp_one(members.iter().chain([&cand]).map(|&i| (tasks[i].wcet, tasks[i].period))), false)
        }
    }

    /// QPA's verdict on `members` + `cand` without running it, where the
    /// utilisation decides it: every task with D ≥ T and no jitter (then
    /// U ≤ 1 is exact, Baruah, Rosier & Howell 1990). `None`: run QPA.
    ///
    /// It is QPA's own answer, not just the theorem's: QPA first compares U
    /// with 1 by the same interval (U > 1: overload); with the interval
    /// below 1 its bound L_a is max Dᵢ (every Tᵢ − Dᵢ ≤ 0 term is skipped),
    /// so the busy-period search cannot hit its cap, and its walk down from
    /// L passes at least one absolute deadline every two demand
    /// evaluations, at most 2·Σ ⌊L/Tᵢ⌋ + 2 of them: below its iteration
    /// cap when n·⌊max D/min T⌋ is small (checked), so it ends
    /// schedulable, as the theorem says it must.
    fn qpa_by_utilisation(&self, members: &[usize], cand: usize) -> Option<bool> {
        let tasks = &self.input.tasks;
        let (mut dmax, mut tmin) = (0u64, u64::MAX);
        for &i in members.iter().chain([&cand]) {
            let t = &tasks[i];
            if t.jitter != 0 || t.deadline < t.period {
                return None;
            }
            if t.wcet != 0 {
                dmax = dmax.max(t.deadline);
                tmin = tmin.min(t.period);
            }
        }
        match self.util_vs_one(members, cand) {
            (Ordering::Greater, _) => Some(false),
            (Ordering::Less, true) => {
                let n = members.len() as u64 + 1;
                let deadlines = if tmin == u64::MAX { 0 } else { (dmax / tmin).saturating_mul(n) };
                (deadlines.saturating_mul(2).saturating_add(4) < MAX_ITERATIONS as u64).then_some(true)
            }
            _ => None,
        }
    }

    /// Whether `cand` may join a CPU holding `members` (in task order),
    /// the CPU's tasks already having passed.
    pub fn fits(&self, members: &[usize], cand: usize) -> bool {
        self.test(members, cand, false)
    }

    /// Whether a CPU holding exactly `members` (in task order) passes the
    /// test, all of its tasks checked (the per-CPU check after a packing by
    /// capacity).
    pub fn holds(&self, members: &[usize]) -> bool {
        match members.split_last() {
            None => true,
            Some((&last, rest)) => self.test(rest, last, true),
        }
    }

    fn test(&self, members: &[usize], cand: usize, whole: bool) -> bool {
        let tasks = &self.input.tasks;
        match self.admission.family() {
            Family::Edf => {
                if self.admission == Admission::EdfUtil {
                    return self.util_vs_one(members, cand).0 != Ordering::Greater;
                }
                if self.admission == Admission::EdfQpa {
                    if let Some(v) = self.qpa_by_utilisation(members, cand) {
                        return v;
                    }
                }
                let mut buf = self.edf.borrow_mut();
                buf.clear();
                buf.extend(members.iter().map(|&i| tasks[i]));
                buf.push(tasks[cand]);
                match self.admission {
                    Admission::EdfUtil => cmp_one(buf.iter().map(|t| (t.wcet, t.period))) != Ordering::Greater,
                    Admission::EdfDensity => {
                        buf.iter().all(|t| t.wcet == 0 || edf_density::window(t) > 0)
                            && cmp_one(buf.iter().filter(|t| t.wcet > 0).map(|t| (t.wcet, edf_density::window(t))))
                                != Ordering::Greater
                    }
                    _ => matches!(qpa::core(&buf), qpa::Qpa::Schedulable { .. }),
                }
            }
            Family::Fp | Family::Fpds => {
                let mut buf = self.fp.borrow_mut();
                buf.clear();
                let o = &self.input.options;
                let task = |i: usize| FpTask {
                    p: tasks[i],
                    blocking: o.blocking(i),
                    npr: o.npr(i, tasks[i].wcet),
                    longest: o.longest_subjob(i, tasks[i].wcet),
                    index: i,
                };
                buf.extend(members.iter().map(|&i| task(i)));
                buf.push(task(cand));
                let ranks = &self.ranks;
                buf.sort_unstable_by_key(|t| (ranks[t.index], t.index));
                let utils = || buf.iter().map(|t| (t.p.wcet, t.p.period));
                match self.admission {
                    Admission::FpLl => fp_ll::within(utils()),
                    Admission::FpHyperbolic => fp_hyperbolic::within(utils()),
                    Admission::FpRta => {
                        // Tasks above the candidate keep their response times.
                        let from = if whole { 0 } else { buf.iter().position(|t| t.index == cand).unwrap_or(0) };
                        fp_rta::core(&buf, from, |_, _| {}).is_ok()
                    }
                    _ => fpds_rta::core(&buf, 0, |_, _| {}).is_ok(),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_model::rng::Rng;

    /// The utilisation shortcut of the QPA admission gives QPA's own answer.
    #[test]
    fn qpa_shortcut_is_qpa() {
        let mut r = Rng::new(2009);
        let (mut by_util, mut yes) = (0, 0);
        for _ in 0..20_000 {
            let n = r.range_u64(1, 7) as usize;
            let tiny = r.below(3) == 0;
            let tasks: Vec<TaskParams> = (0..n)
                .map(|_| {
                    let t = if tiny { r.range_u64(1, 12) } else { r.range_u64(1000, 100_000) };
                    let c = r.below(t / 2 + 2).min(t);
                    let d = if r.below(4) == 0 { r.range_u64(t, 2 * t) } else { t };
                    let mut p = TaskParams::constrained(c, d, t);
                    if r.below(10) == 0 {
                        p.jitter = r.below(d);
                    }
                    p
                })
                .collect();
            let input = Input::new(1, tasks.clone());
            let fit = Fit::new(&input, Admission::EdfQpa, Vec::new());
            let members: Vec<usize> = (0..n - 1).collect();
            let want = matches!(qpa::core(&tasks), qpa::Qpa::Schedulable { .. });
            if let Some(v) = fit.qpa_by_utilisation(&members, n - 1) {
                by_util += 1;
                assert_eq!(v, want, "{tasks:?}");
            }
            yes += usize::from(want);
            assert_eq!(fit.fits(&members, n - 1), want, "{tasks:?}");
        }
        assert!(by_util > 5000 && yes > 3000 && yes < 17_000, "{by_util} {yes}");
    }
}
