//! Fixed priority: G-FP, P-FP, C-FP (EPOS thesis §2.2–2.3), with priorities
//! by rate monotonic (shorter period first), deadline monotonic (shorter
//! relative deadline first) or explicit (the tasks' `priority` field, 1 the
//! highest). Ties to the lower task index.
//!
//! The same order serves the non-preemptive and deferred-preemption
//! variants: FPNS (`fpns`, a started job runs to completion) and FPDS
//! (`fpds`, `g-fpds`, a running job is preempted only at its preemption
//! points; Bergsma et al., OSPERT 2009, §1 of the seed notes). The domain
//! scheduler ([`crate::domain`]) applies the preemption model; see there.

use crate::build::AdmissionError;
use crate::interface::{Conformance, Job, JobView, Preemption, Priority, Time};
use crate::order::{rank_u128, Order};
use crate::ready::LevelQueue;
use schedlab_model::{Class, Priorities, Spec};

/// The FP order: each task's rank (smaller is more urgent).
pub(crate) struct Fp {
    ranks: Vec<i128>,
    preemption: Preemption,
}

impl Fp {
    /// Ranks from the spec: the period (RM), the relative deadline (DM) or
    /// the `priority` field (explicit, which every task must then have, ≥ 1).
    pub fn new(spec: &Spec, how: Priorities) -> Result<Fp, AdmissionError> {
        let mut ranks = Vec::with_capacity(spec.tasks.len());
        for (i, t) in spec.tasks.iter().enumerate() {
            ranks.push(match how {
                Priorities::Rm => t.period.0 as i128,
                Priorities::Dm => t.deadline().0 as i128,
                Priorities::Explicit => match t.priority {
                    Some(p) if p >= 1 => p as i128,
                    Some(_) => {
                        return Err(AdmissionError::at(
                            format!("tasks[{i}].priority"),
                            "must be at least 1 (1 is the highest priority), got 0",
                        ))
                    }
                    None => {
                        return Err(AdmissionError::at(
                            format!("tasks[{i}].priority"),
                            "is required with `priorities: explicit` (1 is the highest priority)",
                        ))
                    }
                },
            });
        }
        Ok(Fp { ranks, preemption: Preemption::Full })
    }
    /// The same order banded by class: every HRT task above every SRT task
    /// above every BE task, the spec's order within a class (the EPOS
    /// thesis' priority ranges, Ch.8: HRT in [0, HRT_PRIORITY_LIMIT], SRT
    /// above it, BE last).
    pub fn banded_by_class(self, spec: &Spec) -> Fp {
        let ranks = self
            .ranks
            .iter()
            .zip(&spec.tasks)
            .map(|(&r, t)| {
                let band: i128 = match t.class {
                    Class::Hrt => 0,
                    Class::Srt => 1,
                    Class::Be => 2,
                };
                band << 64 | r
            })
            .collect();
        Fp { ranks, ..self }
    }
    /// The same order with another preemption model (FPNS, FPDS).
    pub fn preempting(self, preemption: Preemption) -> Fp {
        Fp { preemption, ..self }
    }
    /// The task's priority (smaller is more urgent; ties to the lower index).
    pub fn priority_of(&self, task: u32) -> Priority {
        self.key(task)
    }
    fn key(&self, task: u32) -> Priority {
        Priority::new(self.ranks.get(task as usize).copied().unwrap_or(i128::MAX), 0, task)
    }
    /// The scheduler's key: (rank + 1, task) packed in a `u128`, ordered as
    /// [`Fp::key`] (ranks are whole numbers below 2⁶⁶, class bands
    /// included; an unknown task ranks last); 0 is below every job's key.
    #[inline]
    fn packed(&self, task: u32) -> u128 {
        let rank = match self.ranks.get(task as usize) {
            Some(&r) => r as u128 + 1,
            None => 1 << 90,
        };
        rank << 32 | task as u128
    }
}

impl Order for Fp {
    type Key = u128;
    const USES_CONSUMED: bool = false;
    const USES_NOW: bool = false;
    const COMMITTED: u128 = 0;
    type Rank = u128;
    type Ready = LevelQueue<u128>;
    /// The O(1) level queue: tasks have fixed, distinct keys.
    fn ready_queue(&self, tasks: &[u32]) -> LevelQueue<u128> {
        let keys: Vec<u128> = tasks.iter().map(|&t| self.packed(t)).collect();
        LevelQueue::new(&keys)
    }
    type SmallReady = LevelQueue<u128>;
    fn small_ready_queue(&self, tasks: &[u32]) -> LevelQueue<u128> {
        self.ready_queue(tasks)
    }
    #[inline]
    fn rank(key: Option<u128>) -> u128 {
        rank_u128(key)
    }
    #[inline]
    fn waiting(&self, job: &Job, _consumed: Time, _now: Time) -> u128 {
        self.packed(job.id.task)
    }
    #[inline]
    fn running(&self, job: &Job, _consumed: Time, _now: Time) -> u128 {
        self.packed(job.id.task)
    }
    #[inline]
    fn displaces(&self, w: &u128, r: &u128, _now: Time) -> bool {
        w < r
    }
    fn priority(&self, view: &JobView) -> Priority {
        self.key(view.id.task)
    }
    fn conformance(&self) -> Conformance {
        match self.preemption {
            Preemption::Full => Conformance::PriorityDriven { preemptive: true, work_conserving: true, hysteresis: 0 },
            Preemption::None => Conformance::PriorityDriven { preemptive: false, work_conserving: true, hysteresis: 0 },
            Preemption::AtPoints => Conformance::Deferred { work_conserving: true },
        }
    }
}
