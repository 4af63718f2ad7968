//! A priority-driven policy: one linking [`Domain`] scheduler per scheduling
//! domain (one for global policies, one per CPU for partitioned ones, one per
//! cluster for clustered ones), all with the same job [`Order`]. Events are
//! routed to the domain of the job's task; `schedule` to the domain of the CPU.
//!
//! When every domain is small (at most [`cpu_order::FLAT_UP_TO`] CPUs and
//! [`ready::FLAT_UP_TO`] tasks: P-EDF, G-EDF on a few CPUs), the domains keep
//! their CPUs and waiting jobs in flat arrays ([`FewCpus`], the order's
//! small ready queue); otherwise in heaps. The choice is made once, by
//! [`boxed`], as a type ([`Design`]), so that each design is compiled into
//! code without a test per operation; both give the same schedules.

use crate::cpu_order::{self, CpuOrder, FewCpus};
use crate::domain::{Domain, DOMAIN_TAG};
use crate::heap::IndexedHeap;
use crate::interface::{Cpu, Job, JobId, JobView, Kernel, Policy, PolicyInfo, Preemption, Priority, TimerId};
use crate::order::Order;
use crate::placement::Layout;
use crate::ready::{self, ReadyQueue};
use schedlab_model::SegmentKind;
use std::marker::PhantomData;

const NONE: (u32, u32) = (u32::MAX, u32::MAX);

/// The data structures of an engine's domains, fixed at compile time.
pub(crate) trait Design<O: Order>: Send {
    type Ready: ReadyQueue<O::Key>;
    type Cpus: CpuOrder<O::Rank>;
    fn ready(order: &O, tasks: &[u32]) -> Self::Ready;
}

/// Flat arrays: for domains of at most [`cpu_order::FLAT_UP_TO`] CPUs and
/// [`ready::FLAT_UP_TO`] tasks.
pub(crate) struct Flat;

/// Heaps (and FP's level queue): any domain.
pub(crate) struct Heaps;

impl<O: Order> Design<O> for Flat {
    type Ready = O::SmallReady;
    type Cpus = FewCpus<O::Rank>;
    fn ready(order: &O, tasks: &[u32]) -> Self::Ready {
        order.small_ready_queue(tasks)
    }
}

impl<O: Order> Design<O> for Heaps {
    type Ready = O::Ready;
    type Cpus = IndexedHeap<O::Rank>;
    fn ready(order: &O, tasks: &[u32]) -> Self::Ready {
        order.ready_queue(tasks)
    }
}

/// The engine for this order and layout, with the flat design when every
/// domain is small enough for it, with heaps otherwise.
pub(crate) fn boxed<O: Order + 'static>(name: &'static str, order: O, layout: Layout, cpus: u32) -> Box<dyn Policy> {
    let mut tasks = vec![0usize; layout.domains.len()];
    for &d in &layout.task_domain {
        tasks[d as usize] += 1;
    }
    let small =
        layout.domains.iter().zip(&tasks).all(|(c, &n)| c.len() <= cpu_order::FLAT_UP_TO && n <= ready::FLAT_UP_TO);
    if small {
        Box::new(Engine::<O, Flat>::new(name, order, layout, cpus))
    } else {
        Box::new(Engine::<O, Heaps>::new(name, order, layout, cpus))
    }
}

/// A domain of the order `O` built with the design `D`.
type DomainOf<O, D> = Domain<<O as Order>::Key, <O as Order>::Rank, <D as Design<O>>::Ready, <D as Design<O>>::Cpus>;

pub(crate) struct Engine<O: Order, D: Design<O> = Heaps> {
    info: PolicyInfo,
    order: O,
    domains: Vec<DomainOf<O, D>>,
    /// Task → (domain, local index).
    task_at: Vec<(u32, u32)>,
    /// CPU → (domain, local index).
    cpu_at: Vec<(u32, u32)>,
    _design: PhantomData<D>,
}

impl<O: Order, D: Design<O>> Engine<O, D> {
    pub fn new(name: &'static str, order: O, layout: Layout, cpus: u32) -> Engine<O, D> {
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
        let domains = layout
            .domains
            .iter()
            .zip(members)
            .enumerate()
            .map(|(d, (cpus, tasks))| {
                let ready = D::ready(&order, &tasks);
                Domain::new(d as u32, cpus.clone(), tasks, ready, &order)
            })
            .collect();
        let info = PolicyInfo {
            name,
            domains: layout.domains,
            placement: layout.placement,
            conformance: order.conformance(),
            quantum: None,
        };
        Engine { info, order, domains, task_at, cpu_at, _design: PhantomData }
    }

    fn at(&self, task: u32) -> Option<(usize, u32)> {
        self.task_at.get(task as usize).map(|&(d, l)| (d as usize, l))
    }
}

impl<O: Order, D: Design<O>> Policy for Engine<O, D> {
    fn info(&self) -> &PolicyInfo {
        &self.info
    }
    fn release(&mut self, job: Job, k: &mut dyn Kernel) {
        if let Some((d, l)) = self.at(job.id.task) {
            self.domains[d].release(l, job, &self.order, k);
        }
    }
    fn complete(&mut self, job: JobId, k: &mut dyn Kernel) {
        if let Some((d, l)) = self.at(job.task) {
            self.domains[d].complete(l, job, &self.order, k);
        }
    }
    fn segment_end(&mut self, job: JobId, segment: u32, _kind: SegmentKind, k: &mut dyn Kernel) {
        if self.info.conformance.preemption() != Preemption::AtPoints {
            return;
        }
        if let Some((d, l)) = self.at(job.task) {
            self.domains[d].segment_end(l, job, segment, &self.order, k);
        }
    }
    fn block(&mut self, job: JobId, k: &mut dyn Kernel) {
        if let Some((d, l)) = self.at(job.task) {
            self.domains[d].block(l, job, &self.order, k);
        }
    }
    fn resume(&mut self, job: JobId, k: &mut dyn Kernel) {
        if let Some((d, l)) = self.at(job.task) {
            self.domains[d].resume(l, job, &self.order, k);
        }
    }
    fn timer(&mut self, timer: TimerId, tag: u64, k: &mut dyn Kernel) {
        if tag & DOMAIN_TAG != 0 {
            let d = (tag & !DOMAIN_TAG) as usize;
            if let Some(dom) = self.domains.get_mut(d) {
                dom.domain_timer(timer, &self.order, k);
            }
        } else if let Some((d, l)) = u32::try_from(tag).ok().and_then(|t| self.at(t)) {
            self.domains[d].job_timer(l, timer, &self.order, k);
        }
    }
    fn schedule(&mut self, cpu: Cpu, _k: &mut dyn Kernel) -> Option<JobId> {
        let &(d, l) = self.cpu_at.get(cpu as usize)?;
        self.domains.get_mut(d as usize)?.schedule(l, &self.order)
    }
    fn priority(&self, job: &JobView) -> Option<Priority> {
        Some(self.order.priority(job))
    }
}
