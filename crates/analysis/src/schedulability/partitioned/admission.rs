//! The uniprocessor tests that can admit a task onto a CPU during packing,
//! by their registry IDs, with a fast fit predicate over the CPU's tasks
//! (no outcome built, no allocation once the scratch buffers have grown).

use super::super::input::{Input, TaskParams};
use super::super::outcome::Outcome;
use super::super::uni::fp_rta::FpTask;
use super::super::uni::load::cmp_one;
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
    pub const ALL: [Admission; 7] =
        [Admission::EdfUtil, Admission::EdfDensity, Admission::EdfQpa, Admission::FpLl, Admission::FpHyperbolic, Admission::FpRta, Admission::FpdsRta];

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
            Admission::EdfDensity | Admission::EdfQpa => match (0..input.tasks.len()).find(|&i| input.options.blocking(i) > 0) {
                Some(i) => Err((Some(i), format!("{} has a blocking term: EDF with resource blocking is not analysed here", input.task_label(i)))),
                None => Ok(()),
            },
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
    edf: RefCell<Vec<TaskParams>>,
    fp: RefCell<Vec<FpTask>>,
}

impl<'a> Fit<'a> {
    /// `ranks` are the FP ranks (ignored for EDF tests).
    pub fn new(input: &'a Input, admission: Admission, ranks: Vec<u64>) -> Fit<'a> {
        Fit { input, admission, ranks, edf: RefCell::new(Vec::new()), fp: RefCell::new(Vec::new()) }
    }

    pub fn fits(&self, members: &[usize], cand: usize) -> bool {
        let tasks = &self.input.tasks;
        match self.admission.family() {
            Family::Edf => {
                let mut buf = self.edf.borrow_mut();
                buf.clear();
                buf.extend(members.iter().map(|&i| tasks[i]));
                buf.push(tasks[cand]);
                match self.admission {
                    Admission::EdfUtil => cmp_one(buf.iter().map(|t| (t.wcet, t.period))) != Ordering::Greater,
                    Admission::EdfDensity => {
                        buf.iter().all(|t| t.wcet == 0 || edf_density::window(t) > 0)
                            && cmp_one(buf.iter().filter(|t| t.wcet > 0).map(|t| (t.wcet, edf_density::window(t)))) != Ordering::Greater
                    }
                    _ => matches!(qpa::core(&buf), qpa::Qpa::Schedulable { .. }),
                }
            }
            Family::Fp | Family::Fpds => {
                let mut buf = self.fp.borrow_mut();
                buf.clear();
                let o = &self.input.options;
                let task = |i: usize| FpTask { p: tasks[i], blocking: o.blocking(i), npr: o.npr(i, tasks[i].wcet), index: i };
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
                        let from = buf.iter().position(|t| t.index == cand).unwrap_or(0);
                        fp_rta::core(&buf, from, |_, _| {}).is_ok()
                    }
                    _ => fpds_rta::core(&buf, 0, |_, _| {}).is_ok(),
                }
            }
        }
    }
}
