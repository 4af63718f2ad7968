//! A priority-driven policy: one linking [`Domain`] scheduler per scheduling
//! domain (one for global policies, one per CPU for partitioned ones, one per
//! cluster for clustered ones), all with the same job [`Order`]. Events are
//! routed to the domain of the job's task; `schedule` to the domain of the CPU.
//!
//! When every domain is small (at most [`cpu_order::FLAT_UP_TO`] CPUs and
//! [`ready::FLAT_UP_TO`] tasks: P-EDF, G-EDF on a few CPUs), the domains keep
//! their CPUs and waiting jobs in flat arrays ([`FewCpus`], the order's
//! small ready queue); otherwise in heaps. The choice is made once, here,
//! so that each design is compiled into straight-line code without a test
//! per operation; both give the same schedules.

use crate::cpu_order::{self, FewCpus};
use crate::domain::{Domain, DOMAIN_TAG};
use crate::heap::IndexedHeap;
use crate::interface::{Cpu, Job, JobId, JobView, Kernel, Policy, PolicyInfo, Preemption, Priority, TimerId};
use crate::order::Order;
use crate::placement::Layout;
use crate::ready;
use schedlab_model::SegmentKind;

const NONE: (u32, u32) = (u32::MAX, u32::MAX);

/// The domains, all of one design.
enum Domains<O: Order> {
    Small(Vec<Domain<O::Key, O::Rank, O::SmallReady, FewCpus<O::Rank>>>),
    Large(Vec<Domain<O::Key, O::Rank, O::Ready, IndexedHeap<O::Rank>>>),
}

/// Calls `$body` with `$d` bound to the domain vector, whichever its design.
macro_rules! with_domains {
    ($domains:expr, $d:ident => $body:expr) => {
        match $domains {
            Domains::Small($d) => $body,
            Domains::Large($d) => $body,
        }
    };
}

pub(crate) struct Engine<O: Order> {
    info: PolicyInfo,
    order: O,
    domains: Domains<O>,
    /// Task → (domain, local index).
    task_at: Vec<(u32, u32)>,
    /// CPU → (domain, local index).
    cpu_at: Vec<(u32, u32)>,
}

impl<O: Order> Engine<O> {
    pub fn new(name: &'static str, order: O, layout: Layout, cpus: u32) -> Engine<O> {
        let mut members: Vec<Vec<u32>> = vec![Vec::new(); layout.domains.len()];
        let mut task_at = Vec::with_capacity(layout.task_domain.len());
        for (t, &d) in layout.task_domain.iter().enumerate() {
            task_at.push((d, members[d as usize].len() as u32));
            members[d as usize].push(t as u32);
        }
        let mut cpu_at = vec![NONE; cpus as usize];
        for (d, dc) in layout.domains.iter().enumerate() {
            for (l, &c) in dc.iter().enumerate() {
                cpu_at[c as usize] = (d as u32, l as u32);
            }
        }
        let small = layout
            .domains
            .iter()
            .zip(&members)
            .all(|(cpus, tasks)| cpus.len() <= cpu_order::FLAT_UP_TO && tasks.len() <= ready::FLAT_UP_TO);
        let parts = layout.domains.iter().zip(members).enumerate();
        let domains = if small {
            Domains::Small(
                parts
                    .map(|(d, (cpus, tasks))| {
                        let q = order.small_ready_queue(&tasks);
                        Domain::new(d as u32, cpus.clone(), tasks, q, &order)
                    })
                    .collect(),
            )
        } else {
            Domains::Large(
                parts
                    .map(|(d, (cpus, tasks))| {
                        let q = order.ready_queue(&tasks);
                        Domain::new(d as u32, cpus.clone(), tasks, q, &order)
                    })
                    .collect(),
            )
        };
        let info = PolicyInfo {
            name,
            domains: layout.domains,
            placement: layout.placement,
            conformance: order.conformance(),
            quantum: None,
        };
        Engine { info, order, domains, task_at, cpu_at }
    }

    fn at(&self, task: u32) -> Option<(usize, u32)> {
        self.task_at.get(task as usize).map(|&(d, l)| (d as usize, l))
    }
}

impl<O: Order> Policy for Engine<O> {
    fn info(&self) -> &PolicyInfo {
        &self.info
    }
    fn release(&mut self, job: Job, k: &mut dyn Kernel) {
        if let Some((d, l)) = self.at(job.id.task) {
            with_domains!(&mut self.domains, v => v[d].release(l, job, &self.order, k));
        }
    }
    fn complete(&mut self, job: JobId, k: &mut dyn Kernel) {
        if let Some((d, l)) = self.at(job.task) {
            with_domains!(&mut self.domains, v => v[d].complete(l, job, &self.order, k));
        }
    }
    fn segment_end(&mut self, job: JobId, segment: u32, _kind: SegmentKind, k: &mut dyn Kernel) {
        if self.info.conformance.preemption() != Preemption::AtPoints {
            return;
        }
        if let Some((d, l)) = self.at(job.task) {
            with_domains!(&mut self.domains, v => v[d].segment_end(l, job, segment, &self.order, k));
        }
    }
    fn block(&mut self, job: JobId, k: &mut dyn Kernel) {
        if let Some((d, l)) = self.at(job.task) {
            with_domains!(&mut self.domains, v => v[d].block(l, job, &self.order, k));
        }
    }
    fn resume(&mut self, job: JobId, k: &mut dyn Kernel) {
        if let Some((d, l)) = self.at(job.task) {
            with_domains!(&mut self.domains, v => v[d].resume(l, job, &self.order, k));
        }
    }
    fn timer(&mut self, timer: TimerId, tag: u64, k: &mut dyn Kernel) {
        if tag & DOMAIN_TAG != 0 {
            let d = (tag & !DOMAIN_TAG) as usize;
            with_domains!(&mut self.domains, v => if let Some(dom) = v.get_mut(d) {
                dom.domain_timer(timer, &self.order, k);
            });
        } else if let Some((d, l)) = u32::try_from(tag).ok().and_then(|t| self.at(t)) {
            with_domains!(&mut self.domains, v => v[d].job_timer(l, timer, &self.order, k));
        }
    }
    fn schedule(&mut self, cpu: Cpu, _k: &mut dyn Kernel) -> Option<JobId> {
        let &(d, l) = self.cpu_at.get(cpu as usize)?;
        with_domains!(&mut self.domains, v => v.get_mut(d as usize)?.schedule(l, &self.order))
    }
    fn priority(&self, job: &JobView) -> Option<Priority> {
        Some(self.order.priority(job))
    }
}
