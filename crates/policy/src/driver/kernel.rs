//! The kernel a driven policy sees: the driver's timers and rescheduling
//! marks, and the host's clock, accounting and trace.

use super::{Host, ProtocolError, Services, Violation};
use crate::interface::{Activity, Counters, CountersUnavailable, Cpu, JobId, Kernel, PolicyEvent, Rate, Time, TimerId};
use std::marker::PhantomData;

pub(super) struct Bridge<'a, X, H: Host<X>> {
    pub svc: &'a mut Services,
    pub host: &'a mut H,
    pub _x: PhantomData<X>,
}

impl<'a, X, H: Host<X>> Bridge<'a, X, H> {
    pub fn new(svc: &'a mut Services, host: &'a mut H) -> Bridge<'a, X, H> {
        Bridge { svc, host, _x: PhantomData }
    }
}

impl Services {
    /// Marks `cpu`; a CPU the platform does not have is a violation.
    #[inline]
    pub(super) fn mark<X, H: Host<X>>(&mut self, cpu: Cpu, host: &mut H) {
        match self.marked.get_mut(cpu as usize) {
            Some(m) => {
                if !*m {
                    *m = true;
                    self.marked_list.push(cpu);
                }
                host.marked(cpu);
            }
            None => {
                if self.error.is_none() {
                    let violation = Violation::UnknownCpu { asked: cpu, cpus: self.cpus };
                    self.error = Some(ProtocolError { t: host.now(), cpu: None, violation });
                }
            }
        }
    }
}

impl<X, H: Host<X>> Kernel for Bridge<'_, X, H> {
    fn now(&self) -> Time {
        self.host.now()
    }
    fn consumed(&self, job: JobId) -> Time {
        self.host.consumed(job)
    }
    fn running(&self, cpu: Cpu) -> Option<JobId> {
        self.host.running(cpu)
    }
    fn resched(&mut self, cpu: Cpu) {
        self.svc.mark(cpu, self.host);
    }
    fn arm(&mut self, at: Time, tag: u64) -> TimerId {
        self.svc.timers.arm(at.max(self.host.now()), tag)
    }
    fn arm_exec(&mut self, job: JobId, at_consumed: Time, tag: u64) -> TimerId {
        if !self.svc.timers.wants_runs() {
            // The store was not following the CPUs: it reads them now.
            for c in 0..self.svc.cpus {
                self.svc.timers.refresh(c, self.host.progress(c));
            }
        }
        let (now, consumed) = (self.host.now(), self.host.consumed(job));
        self.svc.timers.arm_exec(job, at_consumed, tag, now, consumed)
    }
    fn cancel(&mut self, timer: TimerId) {
        self.svc.timers.cancel(timer);
    }
    fn counters(&mut self, cpu: Cpu) -> Result<Counters, CountersUnavailable> {
        if cpu >= self.svc.cpus {
            return Err(CountersUnavailable::UnknownCpu { cpu, cpus: self.svc.cpus });
        }
        self.host.counters(cpu)
    }
    fn rate(&self, cpu: Cpu) -> Rate {
        self.host.rate(cpu)
    }
    fn tracing(&self) -> bool {
        self.host.tracing()
    }
    fn note(&mut self, cpu: Option<Cpu>, event: PolicyEvent) {
        self.host.note(cpu, event);
    }
    fn occupy(&mut self, cpu: Cpu, activity: Option<Activity>) {
        if cpu < self.svc.cpus {
            self.host.occupy(cpu, activity);
        }
    }
}
