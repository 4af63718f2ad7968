//! The rounds of an instant: the timers due, then `schedule` for every
//! marked CPU in increasing order, the legality checks of its answers, and
//! the host's switches; repeated until the instant settles.

use super::kernel::Bridge;
use super::{Delivery, Driver, Host, ProtocolError, Violation};
use crate::interface::{Cpu, JobId, Policy, Time};

/// Rounds of timers-then-`schedule` at one instant before the instant is
/// declared unsettled (a policy that keeps arming timers for now, or keeps
/// marking CPUs from `schedule`).
pub const MAX_ROUNDS: u32 = 64;
/// Timer expiries in one round before the instant is declared unsettled (a
/// timer that re-arms itself for now).
pub const MAX_TIMERS_PER_ROUND: u32 = 100_000;

impl<X: Copy> Driver<X> {
    pub(super) fn rounds<H: Host<X>>(
        &mut self,
        policy: &mut dyn Policy,
        host: &mut H,
        until: Time,
    ) -> Result<(), ProtocolError> {
        for _ in 0..MAX_ROUNDS {
            self.fire_timers(policy, host, until)?;
            if !self.svc.marked_list.is_empty() {
                self.round(policy, host)?;
            }
            let due = self.svc.timers.next_due().is_some_and(|d| d <= until);
            if self.svc.marked_list.is_empty() && !due {
                return Ok(());
            }
        }
        Err(ProtocolError { t: host.now(), cpu: None, violation: Violation::Rounds { rounds: MAX_ROUNDS } })
    }

    /// Fires the timers due by `until` in (due, arming) order, including
    /// those a timer callback arms for a time already due.
    fn fire_timers<H: Host<X>>(
        &mut self,
        policy: &mut dyn Policy,
        host: &mut H,
        until: Time,
    ) -> Result<(), ProtocolError> {
        let mut fired = 0;
        while let Some((id, due, tag)) = self.svc.timers.pop_due(until) {
            fired += 1;
            if fired > MAX_TIMERS_PER_ROUND {
                let violation = Violation::Timers { fired: MAX_TIMERS_PER_ROUND };
                return Err(ProtocolError { t: host.now(), cpu: None, violation });
            }
            let d = Delivery::Timer { due };
            host.delivering(&d);
            policy.timer(id, tag, &mut Bridge::new(&mut self.svc, host));
            host.delivered(&d);
            self.check()?;
        }
        Ok(())
    }

    /// Asks `schedule` for the marked CPUs, checks the answers, records
    /// them and has the host carry them out.
    fn round<H: Host<X>>(&mut self, policy: &mut dyn Policy, host: &mut H) -> Result<(), ProtocolError> {
        self.round += 1;
        let round = self.round;
        // The round takes the marked CPUs; marks made during the round
        // after a CPU's answer go to the emptied list, for the next round.
        self.svc.marked_list.sort_unstable();
        std::mem::swap(&mut self.round_cpus, &mut self.svc.marked_list);
        self.svc.marked_list.clear();
        for &c in &self.round_cpus {
            self.in_round[c as usize] = round;
        }
        // Answers go to `chosen` only once all of the round are legal.
        let count = self.round_cpus.len();
        for i in 0..count {
            let c = self.round_cpus[i];
            let a = policy.schedule(c, &mut Bridge::new(&mut self.svc, host));
            // Answered: a mark of this CPU from a later CPU's `schedule`
            // puts it in the next round (its own marks are already answered).
            self.svc.marked[c as usize] = false;
            self.check()?;
            self.legal(c, a, round, host.now())?;
            self.next[c as usize] = a;
        }
        for &c in &self.round_cpus {
            if let Some(old) = self.chosen[c as usize] {
                let t = &mut self.tasks[old.task as usize];
                if t.cpu == Some(c) {
                    t.cpu = None;
                }
            }
        }
        for &c in &self.round_cpus {
            let a = self.next[c as usize].take();
            self.chosen[c as usize] = a;
            if let Some(j) = a {
                self.tasks[j.task as usize].cpu = Some(c);
            }
        }
        host.switch(&self.round_cpus, &self.chosen);
        Ok(())
    }

    /// Checks one answer of the round.
    fn legal(&mut self, cpu: Cpu, answer: Option<JobId>, round: u64, now: Time) -> Result<(), ProtocolError> {
        let Some(job) = answer else { return Ok(()) };
        let err = |violation| Err(ProtocolError { t: now, cpu: Some(cpu), violation });
        let Some(t) = self.tasks.get_mut(job.task as usize) else { return err(Violation::UnknownTask { job }) };
        if !matches!(t.delivered, Some((j, _)) if j.id == job) || t.blocked || t.completing {
            return err(Violation::NotEligible { job });
        }
        let placement = &self.placement[job.task as usize];
        if !placement.allows(cpu) {
            return err(Violation::Placement { job, cpu, placement: placement.clone() });
        }
        if t.assigned == round {
            return err(Violation::TwoCpus { job });
        }
        t.assigned = round;
        if let Some(other) = t.cpu {
            if other != cpu && self.in_round[other as usize] != round {
                return err(Violation::RunningElsewhere { job, other });
            }
        }
        Ok(())
    }
}

impl<X: Copy> Driver<X> {
    /// Asks `schedule` for `cpu` outside a round, without carrying out the
    /// answer (the protocol allows a driver to ask a CPU that was not
    /// marked; the policy must answer what it chose). For checks.
    pub fn ask<H: Host<X>>(
        &mut self,
        policy: &mut dyn Policy,
        host: &mut H,
        cpu: Cpu,
    ) -> Result<Option<JobId>, ProtocolError> {
        let a = policy.schedule(cpu, &mut Bridge::new(&mut self.svc, host));
        self.check()?;
        Ok(a)
    }
}
