//! The per-instant protocol: completions, then blocks and resumes, then
//! releases in task order (through the hold queue), then the rounds.

use super::kernel::Bridge;
use super::{Delivery, Driver, Host, ProtocolError};
use crate::interface::{Policy, Time};

impl<X: Copy> Driver<X> {
    /// Delivers the instant's reported events to `policy` in protocol
    /// order, then runs the rounds of timers (those due by `timers_until`,
    /// normally the host's now) and `schedule`, carrying out each round's
    /// answers with [`Host::switch`]. Returns the first protocol violation.
    pub fn instant<H: Host<X>>(
        &mut self,
        policy: &mut dyn Policy,
        host: &mut H,
        timers_until: Time,
    ) -> Result<(), ProtocolError> {
        self.deliver_completions(policy, host)?;
        if !self.segment_ends.is_empty() {
            self.deliver_segment_ends(policy, host)?;
        }
        self.deliver_suspensions(policy, host)?;
        self.deliver_releases(policy, host)?;
        self.rounds(policy, host, timers_until)
    }

    pub(super) fn check(&mut self) -> Result<(), ProtocolError> {
        match self.svc.error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    fn deliver_completions<H: Host<X>>(&mut self, policy: &mut dyn Policy, host: &mut H) -> Result<(), ProtocolError> {
        for i in 0..self.completions.len() {
            let job = self.completions[i];
            let t = &mut self.tasks[job.task as usize];
            t.delivered = None;
            t.completing = false;
            t.blocked = false;
            let cpu = t.cpu.take();
            if !t.touched {
                t.touched = true;
                self.touched.push(job.task);
            }
            self.svc.timers.drop_job(job);
            let d = Delivery::Complete(job);
            host.delivering(&d);
            if let Some(c) = cpu {
                self.svc.mark(c, host);
            }
            policy.complete(job, &mut Bridge::new(&mut self.svc, host));
            host.delivered(&d);
            self.check()?;
        }
        self.completions.clear();
        Ok(())
    }

    /// Segment ends of jobs the policy knows and that did not complete in
    /// this instant, in the order reported.
    fn deliver_segment_ends<H: Host<X>>(&mut self, policy: &mut dyn Policy, host: &mut H) -> Result<(), ProtocolError> {
        for i in 0..self.segment_ends.len() {
            let (job, segment, kind) = self.segment_ends[i];
            let Some(t) = self.tasks.get(job.task as usize) else { continue };
            if !matches!(t.delivered, Some((j, _)) if j.id == job) {
                continue;
            }
            let d = Delivery::SegmentEnd { job, segment, kind };
            host.delivering(&d);
            policy.segment_end(job, segment, kind, &mut Bridge::new(&mut self.svc, host));
            host.delivered(&d);
            self.check()?;
        }
        self.segment_ends.clear();
        Ok(())
    }

    fn deliver_suspensions<H: Host<X>>(&mut self, policy: &mut dyn Policy, host: &mut H) -> Result<(), ProtocolError> {
        for i in 0..self.suspensions.len() {
            let (job, block) = self.suspensions[i];
            let Some(t) = self.tasks.get_mut(job.task as usize) else { continue };
            if !matches!(t.delivered, Some((j, _)) if j.id == job) || t.blocked == block {
                continue;
            }
            t.blocked = block;
            let cpu = if block { t.cpu } else { None };
            let d = if block { Delivery::Block(job) } else { Delivery::Resume(job) };
            host.delivering(&d);
            if let Some(c) = cpu {
                self.svc.mark(c, host);
            }
            let k = &mut Bridge::new(&mut self.svc, host);
            if block {
                policy.block(job, k);
            } else {
                policy.resume(job, k);
            }
            host.delivered(&d);
            self.check()?;
        }
        self.suspensions.clear();
        Ok(())
    }

    fn deliver_releases<H: Host<X>>(&mut self, policy: &mut dyn Policy, host: &mut H) -> Result<(), ProtocolError> {
        if self.touched.is_empty() {
            return Ok(());
        }
        self.touched.sort_unstable();
        self.touched.dedup();
        let now = host.now();
        for i in 0..self.touched.len() {
            let t = &mut self.tasks[self.touched[i] as usize];
            if t.delivered.is_some() {
                continue;
            }
            let Some(h) = t.held.pop_front() else { continue };
            t.delivered = Some((h.job, h.x));
            t.blocked = false;
            t.cpu = None;
            let d = Delivery::Release { job: h.job, x: h.x, waited: h.at < now };
            host.delivering(&d);
            policy.release(h.job, &mut Bridge::new(&mut self.svc, host));
            host.delivered(&d);
            self.check()?;
        }
        for &k in &self.touched {
            self.tasks[k as usize].touched = false;
        }
        self.touched.clear();
        Ok(())
    }
}
