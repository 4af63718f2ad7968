//! Memory does not grow with the number of jobs: a counting global
//! allocator shows that ten times more jobs cost no more allocations, and the
//! simulator's internal collections stop growing. (Own test binary: the
//! allocator counts every allocation of the process.)

mod common;

use common::*;
use schedlab_model::Placement;
use schedlab_policy::{Conformance, Cpu, Job, JobId, JobView, Kernel, Policy, PolicyInfo, Priority, TimerId};
use schedlab_sim::{capacities_after, simulate, Costs, Overheads, SimConfig};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

struct Counting;
static ALLOCS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        System.realloc(p, l, n)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Global EDF without allocation after construction (linear scans).
pub struct ScanEdf {
    info: PolicyInfo,
    ready: Vec<Job>,
    kept: Vec<bool>,
    assign: Vec<Option<JobId>>,
    cache: Option<(u64, u64)>,
    version: u64,
    m: u32,
}

impl ScanEdf {
    pub fn new(tasks: usize, m: u32) -> ScanEdf {
        ScanEdf {
            info: PolicyInfo {
                name: "scan-edf",
                domains: vec![(0..m).collect()],
                placement: vec![Placement::Global; tasks],
                conformance: Conformance::PriorityDriven { preemptive: true, work_conserving: true, hysteresis: 0 },
                quantum: None,
            },
            ready: Vec::with_capacity(tasks),
            kept: Vec::with_capacity(tasks),
            assign: vec![None; m as usize],
            cache: None,
            version: 0,
            m,
        }
    }
    fn compute(&mut self, k: &dyn Kernel) {
        let key = |j: &Job| (j.deadline, j.id.task);
        let n = self.ready.len();
        self.kept.clear();
        for i in 0..n {
            let ahead = self.ready.iter().filter(|o| key(o) < key(&self.ready[i])).count();
            // kept[i] = false: in the top m and free; true: taken or not in the top m.
            self.kept.push(ahead >= self.m as usize);
        }
        for c in 0..self.m {
            self.assign[c as usize] = None;
            if let Some(r) = k.running(c) {
                if let Some(i) = self.ready.iter().position(|j| j.id == r) {
                    if !self.kept[i] {
                        self.kept[i] = true;
                        self.assign[c as usize] = Some(r);
                    }
                }
            }
        }
        for c in 0..self.m as usize {
            if self.assign[c].is_some() {
                continue;
            }
            let mut best: Option<usize> = None;
            for i in 0..n {
                if !self.kept[i] && !matches!(best, Some(b) if key(&self.ready[b]) <= key(&self.ready[i])) {
                    best = Some(i);
                }
            }
            if let Some(b) = best {
                self.kept[b] = true;
                self.assign[c] = Some(self.ready[b].id);
            }
        }
    }
}

impl Policy for ScanEdf {
    fn info(&self) -> &PolicyInfo {
        &self.info
    }
    fn release(&mut self, job: Job, k: &mut dyn Kernel) {
        self.ready.push(job);
        self.version += 1;
        for c in 0..self.m {
            k.resched(c);
        }
    }
    fn complete(&mut self, job: JobId, k: &mut dyn Kernel) {
        if let Some(i) = self.ready.iter().position(|j| j.id == job) {
            self.ready.swap_remove(i);
        }
        self.version += 1;
        for c in 0..self.m {
            k.resched(c);
        }
    }
    fn block(&mut self, _: JobId, _: &mut dyn Kernel) {}
    fn resume(&mut self, _: JobId, _: &mut dyn Kernel) {}
    fn timer(&mut self, _: TimerId, _: u64, _: &mut dyn Kernel) {}
    fn schedule(&mut self, cpu: Cpu, k: &mut dyn Kernel) -> Option<JobId> {
        if self.cache != Some((k.now(), self.version)) {
            self.compute(k);
            self.cache = Some((k.now(), self.version));
        }
        self.assign[cpu as usize]
    }
    fn priority(&self, job: &JobView) -> Option<Priority> {
        Some(Priority::new(job.deadline as i128, 0, job.id.task))
    }
}

fn count_allocs(horizon: u64) -> (u64, u64) {
    let s = spec(1, vec![task("a", 300, 1_000), task("b", 2_000, 10_000), task("c", 1_000, 5_000)]);
    let mut p = ScanEdf::new(3, 1);
    let mut o = Overheads::constant(Costs { release: 5, schedule: 7, context_switch: 11, tick: 3, ..Costs::default() });
    o.cpmd = schedlab_model::overheads::Cpmd::epos_bound(64);
    let config = SimConfig { horizon: Some(horizon), tick: 1_000, overheads: Some(o), ..SimConfig::default() };
    let mut n = 0u64;
    let before = ALLOCS.load(Ordering::Relaxed);
    let sum = simulate(&s, &mut p, &config, &mut |_| n += 1).unwrap();
    let after = ALLOCS.load(Ordering::Relaxed);
    assert_eq!(sum.missed(), 0);
    (after - before, sum.released())
}

#[test]
fn allocations_do_not_grow_with_jobs() {
    let (small, jobs_small) = count_allocs(100_000_000);
    let (large, jobs_large) = count_allocs(1_000_000_000);
    assert!(jobs_large >= 1_000_000, "{jobs_large} jobs");
    assert!(jobs_large > 9 * jobs_small);
    // Summary vectors and a few log-growth reallocations at most.
    assert!(large <= small + 8, "{small} allocations for {jobs_small} jobs, {large} for {jobs_large}");
}

#[test]
fn internal_collections_stop_growing() {
    let s = spec(
        2,
        vec![task("a", 300, 1_000), task("b", 2_000, 10_000), task("c", 1_000, 5_000), task("d", 3_000, 7_000)],
    );
    let caps = |h| {
        let config = SimConfig { horizon: Some(h), ..SimConfig::default() };
        capacities_after(&s, &mut ScanEdf::new(4, 2), &config).unwrap()
    };
    assert_eq!(caps(10_000_000), caps(100_000_000));
}
