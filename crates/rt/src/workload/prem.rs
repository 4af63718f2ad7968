//! `prem`: a PREM job on real memory (memory-centric scheduling, `mcs`;
//! docs/policies.md). The task's data is a buffer of its `wss` in main
//! memory, cut into Section windows of `wss / Sections` bytes (at least a
//! page); the task's cache partition is two private buffers of one window,
//! its sub-partitions A and B. A prefetch segment copies the current
//! Section's window into a sub-partition, a write-back copies the
//! sub-partition back to the window, an execution segment computes on the
//! sub-partition (reads and rewrites every word) — each over and over,
//! 4 KiB at a time, until the segment's demand of CPU time is consumed
//! (thread CPU clock), so the phases' lengths stay the spec's and what they
//! do is what their names say. Prefetches and write-backs are told apart
//! by position, as in the spec (a memory segment followed by an `exec` one
//! is a prefetch). Lines touched are published to the CPU's counters, as
//! `memwalk` does.
//!
//! An `smp` job uses sub-partition A for every Section. An `amp` job runs
//! its first prefetch (into A) and its execution segments, Section k on
//! sub-partition k mod 2; the memory-phase worker's phases — the prefetch
//! of Section k+1 into the other sub-partition, the write-back of Section
//! k−1 from it — are done by the dispatch backend's activity thread on the
//! master CPU through [`ActivityWork`], while the job computes.
//!
//! Since the phases are bounded by CPU time, contention shows as less work
//! done in a phase, not as a longer phase: the body counts, per role (its
//! own prefetches, executions and write-backs, and the worker's), the
//! phases, the bytes moved and their CPU time, and the throughput of each
//! phase (bytes per µs of CPU: MB/s), reported at the end of a run as a
//! `prem` note ([`ActivityWork::report`]).

use super::activity::ActivityWork;
use crate::clock;
use crate::job::{JobCtx, JobError};
use crate::workload::JobBody;
use schedlab_model::spec::prem::{amp_plan, roles, Role};
use schedlab_model::Segment;
use std::sync::{Arc, Mutex, MutexGuard};

/// Words copied or computed on per step (4 KiB).
const STEP: usize = 512;

/// The roles the statistics are kept for.
const ROLES: [&str; 5] = ["prefetch", "exec", "write-back", "worker-prefetch", "worker-write-back"];

/// One role's phases: how many, bytes, CPU time, and the throughput of
/// each (bytes per µs of CPU time).
#[derive(Debug, Clone, Copy, Default)]
struct PhaseStats {
    phases: u64,
    bytes: u64,
    cpu_ns: u64,
    min_rate: f64,
    max_rate: f64,
}

impl PhaseStats {
    fn add(&mut self, bytes: u64, cpu_ns: u64) {
        if cpu_ns == 0 {
            return;
        }
        let rate = bytes as f64 * 1000.0 / cpu_ns as f64;
        if self.phases == 0 || rate < self.min_rate {
            self.min_rate = rate;
        }
        if self.phases == 0 || rate > self.max_rate {
            self.max_rate = rate;
        }
        self.phases += 1;
        self.bytes += bytes;
        self.cpu_ns += cpu_ns;
    }
}

/// A task's data, its cache partition and its statistics: shared by its
/// job body and the memory-phase worker's thread.
pub struct PremData {
    main: Mutex<Vec<u64>>,
    /// Sub-partitions A and B.
    sub: [Mutex<Vec<u64>>; 2],
    /// Words per Section window, and how many windows the data holds.
    window: usize,
    windows: usize,
    /// Per segment of the task (`Task::segments`): its role and Section.
    spec_plan: Vec<(Role, usize)>,
    amp: bool,
    stats: Mutex<[PhaseStats; 5]>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl PremData {
    /// Section `k`'s window: its first word in the data (windows cycle over the data).
    fn base(&self, k: usize) -> usize {
        (k % self.windows) * self.window
    }

    /// The sub-partition Section `k` uses.
    fn part(&self, k: usize) -> usize {
        if self.amp {
            k % 2
        } else {
            0
        }
    }

    /// One step of a phase of Section `k` at position `at` of its window:
    /// `STEP` words; returns the bytes moved and whether it finished the window.
    fn step(&self, role: Role, k: usize, at: &mut usize) -> (u64, bool) {
        let n = STEP.min(self.window - *at);
        let (lo, hi) = (*at, *at + n);
        let b = self.base(k);
        let mut sub = lock(&self.sub[self.part(k)]);
        match role {
            Role::Prefetch => sub[lo..hi].copy_from_slice(&lock(&self.main)[b + lo..b + hi]),
            Role::Writeback => lock(&self.main)[b + lo..b + hi].copy_from_slice(&sub[lo..hi]),
            _ => {
                for w in sub[lo..hi].iter_mut() {
                    *w = w.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                }
            }
        }
        let done = hi == self.window;
        *at = if done { 0 } else { hi };
        ((n * 8) as u64, done)
    }

    fn account_role(&self, role: usize, bytes: u64, cpu_ns: u64) {
        lock(&self.stats)[role].add(bytes, cpu_ns);
    }
}

impl ActivityWork for PremData {
    fn step(&self, segment: u32, at: &mut usize) -> (u64, bool) {
        let (role, k) = self.spec_plan.get(segment as usize).copied().unwrap_or((Role::Exec, 0));
        self.step(role, k, at)
    }
    fn account(&self, segment: u32, bytes: u64, cpu_ns: u64) {
        let role = match self.spec_plan.get(segment as usize).map(|p| p.0) {
            Some(Role::Prefetch) => 3,
            Some(Role::Writeback) => 4,
            _ => return,
        };
        self.account_role(role, bytes, cpu_ns);
    }
    fn report(&self) -> serde_json::Value {
        let stats = lock(&self.stats);
        let mut o = serde_json::Map::new();
        o.insert("window_bytes".into(), ((self.window * 8) as u64).into());
        for (name, s) in ROLES.iter().zip(stats.iter()) {
            if s.phases == 0 {
                continue;
            }
            let mean = s.bytes as f64 * 1000.0 / s.cpu_ns.max(1) as f64;
            o.insert(
                (*name).into(),
                serde_json::json!({"phases": s.phases, "bytes": s.bytes, "cpu_ns": s.cpu_ns,
                    "mb_per_s": {"min": s.min_rate, "mean": mean, "max": s.max_rate}}),
            );
        }
        serde_json::Value::Object(o)
    }
}

/// Each segment's role and Section, the Section counted by the prefetches.
fn plan_of(segments: &[Segment]) -> Vec<(Role, usize)> {
    let mut section = 0usize;
    roles(segments)
        .into_iter()
        .enumerate()
        .map(|(i, r)| {
            if r == Role::Prefetch && i > 0 {
                section += 1;
            }
            (r, section)
        })
        .collect()
}

pub struct Prem {
    data: Arc<PremData>,
    /// Per segment the job runs: its role and Section.
    plan: Vec<(Role, usize)>,
}

impl Prem {
    /// `wss` bytes of data for a task with `segments` (its PREM Sections),
    /// `amp` when the memory-phase worker runs its later phases.
    pub fn new(wss: u64, segments: &[Segment], amp: bool) -> Prem {
        let spec_plan = plan_of(segments);
        let sections = spec_plan.last().map_or(1, |p| p.1 + 1);
        let amp_plan = if amp { amp_plan(segments) } else { None };
        let plan = match &amp_plan {
            Some(a) => a
                .section_of
                .iter()
                .zip(&a.job)
                .enumerate()
                .map(|(i, (&k, _))| (if i == 0 { Role::Prefetch } else { Role::Exec }, k))
                .collect(),
            None => spec_plan.clone(),
        };
        let words = (wss / 8).max(STEP as u64) as usize;
        let window = (words / sections.max(1)).max(STEP).min(words);
        let main: Vec<u64> = (0..words as u64).collect();
        let data = PremData {
            main: Mutex::new(main),
            sub: [Mutex::new(vec![0; window]), Mutex::new(vec![0; window])],
            window,
            windows: (words / window).max(1),
            spec_plan,
            amp: amp_plan.is_some(),
            stats: Mutex::new([PhaseStats::default(); 5]),
        };
        Prem { data: Arc::new(data), plan }
    }
}

impl JobBody for Prem {
    fn run(&mut self, ctx: &mut JobCtx) -> Result<(), JobError> {
        let data = self.data.clone();
        let plan = &self.plan;
        ctx.run_segments(|ctx, ns, _| {
            let (role, k) = plan.get(ctx.segment as usize).copied().unwrap_or((Role::Exec, 0));
            let start = clock::thread_cpu();
            let end = start + ns;
            let (mut at, mut bytes) = (0usize, 0u64);
            while clock::thread_cpu() < end {
                let mut touched = 0;
                for _ in 0..4 {
                    touched += data.step(role, k, &mut at).0;
                }
                bytes += touched;
                crate::counters::published::publish(touched / 64, 0);
                ctx.check()?;
            }
            let r = match role {
                Role::Prefetch => 0,
                Role::Writeback => 2,
                _ => 1,
            };
            data.account_role(r, bytes, clock::thread_cpu() - start);
            Ok(())
        })
    }
    fn activity_work(&self) -> Option<Arc<dyn ActivityWork>> {
        Some(self.data.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_model::Duration;

    fn mem(ns: u64) -> Segment {
        Segment::memory(Duration(ns))
    }
    fn exec(ns: u64) -> Segment {
        Segment::exec(Duration(ns))
    }

    #[test]
    fn a_prefetch_copies_the_window_and_a_write_back_copies_it_back() {
        // 4 Sections of 512 words.
        let sec = [mem(1), exec(1), mem(1)];
        let segs: Vec<Segment> = sec.iter().cycle().take(12).copied().collect();
        let p = Prem::new(4 * 4096, &segs, false);
        let d = &p.data;
        assert_eq!((d.window, lock(&d.main).len()), (512, 2048));
        let mut at = 0;
        assert_eq!(d.step(Role::Prefetch, 2, &mut at), (4096, true), "one step is the whole window");
        assert_eq!(lock(&d.sub[0])[..3], [1024, 1025, 1026], "window 2 is in sub-partition A");
        d.step(Role::Exec, 2, &mut at);
        let computed = lock(&d.sub[0])[0];
        assert_ne!(computed, 1024);
        d.step(Role::Writeback, 2, &mut at);
        assert_eq!(lock(&d.main)[1024], computed, "written back to its window");
        assert_eq!(lock(&d.main)[0], 0, "other windows untouched");
        assert_eq!(d.base(6), 1024, "windows cycle over the data");
    }

    #[test]
    fn the_worker_copies_the_next_section_into_the_other_sub_partition() {
        // Two Sections under A-MP: the job runs P0, E0, E1; the worker P1 (segment 3), W0 (2), W1 (5).
        let segs = [mem(1), exec(1), mem(1), mem(1), exec(1), mem(1)];
        let p = Prem::new(2 * 4096, &segs, true);
        assert_eq!(p.plan, [(Role::Prefetch, 0), (Role::Exec, 0), (Role::Exec, 1)]);
        let w: &dyn ActivityWork = &*p.data;
        let mut at = 0;
        assert_eq!(w.step(3, &mut at), (4096, true));
        assert_eq!(lock(&p.data.sub[1])[0], 512, "Section 1's window in sub-partition B");
        assert_eq!(lock(&p.data.sub[0])[0], 0, "A untouched");
        lock(&p.data.sub[1])[0] = 7;
        w.step(5, &mut at);
        assert_eq!(lock(&p.data.main)[512], 7, "W1 writes B back to Section 1's window");
        w.account(3, 4096, 1000);
        w.account(1, 4096, 1000);
        let r = w.report();
        assert_eq!(r["worker-prefetch"]["bytes"], 4096);
        assert_eq!(r["worker-prefetch"]["mb_per_s"]["mean"], 4096.0);
        assert!(r.get("exec").is_none(), "an execution is not the worker's");
    }
}
