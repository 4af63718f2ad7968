//! The working-set profiler of Calandrino's cache-aware scheduler (2009,
//! Fig. 5.3; notes `seed-001-calandrino.md` §3.3–3.5): an online estimate
//! of each MTT's per-job working-set size from shared-cache misses.
//!
//! An MTT's job *i* is the *i*-th job of every one of its threads. When a
//! thread's job completes, the misses it caused (a counter difference from
//! its first dispatch to its completion) are added to its MTT-job's
//! accumulator; once every thread of MTT-job *i* has completed, the job is
//! *profiled* unless one of its threads was preempted or caused thrashing
//! (then all its measurements are discarded: they would count more than
//! compulsory misses). The estimate is
//!
//! `WSS = min(cache size, total misses / profiled jobs × line size)`.
//!
//! **Bootstrap and convergence** (§3.4): until two consecutive profiled
//! jobs differ by less than `threshold` misses (100 in the thesis), only
//! the latest profiled job counts (a replacement, not an average); two
//! estimates both at the cache-size cap are not converged. After that the
//! estimate is the average over every profiled job.
//!
//! Departures from the pseudo-code, both from the thesis' text: the cap
//! at the cache size (L1358, absent from Fig. 5.3), and accumulators keyed
//! by job index (Fig. 5.3 keeps one per MTT, which assumes job *i* of every
//! thread completes before any thread's job *i*+1 does).
//!
//! The profiler is driver-neutral: [`CounterFeed`] turns readings of
//! `Kernel::counters` (`cache_misses` of the job's CPU at its first dispatch
//! and at its completion) into per-job counts. The simulator feeds it so
//! from the platform model's counts; a policy or the runtime can feed it
//! the same way from theirs (the runtime does not yet). [`Source`] names
//! where the counts came from.

use crate::counters::Counters;
use std::collections::BTreeMap;

/// MTT-jobs measured at once per MTT: beyond, the oldest is dropped as
/// discarded (a job index whose threads never all complete, e.g. skipped
/// releases, must not hold memory for the rest of the run).
pub const MAX_OPEN: usize = 64;

/// The thesis' convergence threshold: 100 misses (6,400 bytes with 64-byte lines).
pub const DEFAULT_THRESHOLD: u64 = 100;

/// Where the miss counts came from, reported with the estimates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The simulator's platform model (synthetic counts).
    PlatformModel,
    /// Hardware counters (`perf_event_open` cache misses).
    PerfEvent,
    /// The page-reference footprint of the MTT (`clear_refs` + `smaps_rollup`).
    Footprint,
    /// No measurement: the declared `wss`.
    Declared,
}

impl Source {
    pub fn name(self) -> &'static str {
        match self {
            Source::PlatformModel => "platform-model",
            Source::PerfEvent => "perf-event",
            Source::Footprint => "footprint",
            Source::Declared => "declared",
        }
    }
}

/// The profiler's constants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProfilerConfig {
    /// Shared-cache line size, bytes.
    pub line: u64,
    /// Shared-cache size, bytes: the cap of every estimate.
    pub cache: u64,
    /// Convergence threshold, misses.
    pub threshold: u64,
}

/// The MTT-job being measured: its threads' misses so far.
#[derive(Debug, Clone, Copy, Default)]
struct Open {
    misses: u64,
    done: u32,
    discard: bool,
}

/// One MTT's profile.
#[derive(Debug, Clone, Default)]
struct Profile {
    threads: u32,
    open: BTreeMap<u64, Open>,
    total: u64,
    profiled: u64,
    discarded: u64,
}

/// What completing an MTT-job did to its MTT's profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Other threads of the MTT-job have not completed yet.
    Pending,
    /// Discarded (a thread was preempted or caused thrashing).
    Discarded,
    /// Profiled: the job's misses, and the estimate after it.
    Profiled { misses: u64, estimate: u64 },
}

/// Per-job WSS estimates of a set of MTTs.
#[derive(Debug, Clone)]
pub struct WssProfiler {
    config: ProfilerConfig,
    mtts: Vec<Profile>,
}

impl WssProfiler {
    /// A profiler of MTTs with `threads[k]` threads each (INITIALIZEPROFILER).
    pub fn new(threads: &[usize], config: ProfilerConfig) -> WssProfiler {
        WssProfiler {
            config,
            mtts: threads.iter().map(|&t| Profile { threads: t.max(1) as u32, ..Profile::default() }).collect(),
        }
    }

    pub fn config(&self) -> ProfilerConfig {
        self.config
    }

    /// A thread of MTT `mtt` completed its job `job` having caused `misses`
    /// shared-cache misses; `spoiled`: it was preempted or caused thrashing
    /// (PROFILEAFTERJOBCOMPLETION).
    pub fn thread_done(&mut self, mtt: usize, job: u64, misses: u64, spoiled: bool) -> Outcome {
        let config = self.config;
        let p = &mut self.mtts[mtt];
        if p.open.len() >= MAX_OPEN && !p.open.contains_key(&job) {
            p.open.pop_first();
            p.discarded += 1;
        }
        let open = p.open.entry(job).or_default();
        open.misses = open.misses.saturating_add(misses);
        open.discard |= spoiled;
        open.done += 1;
        if open.done < p.threads {
            return Outcome::Pending;
        }
        let done = p.open.remove(&job).expect("just updated");
        if done.discard {
            p.discarded += 1;
            return Outcome::Discarded;
        }
        if p.profiled == 1 && !converged(done.misses, p.total, config) {
            p.total = done.misses;
        } else {
            p.total = p.total.saturating_add(done.misses);
            p.profiled += 1;
        }
        Outcome::Profiled { misses: done.misses, estimate: self.estimate(mtt) }
    }

    /// A thread's job ended without a measurement (aborted): its MTT-job is
    /// discarded once its other threads complete.
    pub fn thread_lost(&mut self, mtt: usize, job: u64) -> Outcome {
        self.thread_done(mtt, job, 0, true)
    }

    /// The estimate of MTT `mtt`'s per-job WSS in bytes (COMPUTEWSS, capped
    /// at the cache size); 0 before its first profiled job.
    pub fn estimate(&self, mtt: usize) -> u64 {
        let p = &self.mtts[mtt];
        if p.profiled == 0 {
            return 0;
        }
        let bytes = p.total as u128 * self.config.line as u128 / p.profiled as u128;
        bytes.min(self.config.cache as u128) as u64
    }

    /// Whether MTT `mtt`'s estimate has converged (it averages since).
    pub fn converged(&self, mtt: usize) -> bool {
        self.mtts[mtt].profiled >= 2
    }

    /// MTT-jobs of MTT `mtt` profiled, and discarded.
    pub fn jobs(&self, mtt: usize) -> (u64, u64) {
        (self.mtts[mtt].profiled, self.mtts[mtt].discarded)
    }
}

/// A thread's job being measured from counter readings.
#[derive(Debug, Clone, Copy)]
struct Measuring {
    job: u64,
    misses: u64,
    references: Option<u64>,
    spoiled: bool,
}

/// What a thread's job caused, from two readings of its CPU's counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobCounts {
    pub misses: u64,
    /// Cache references, when the source counts them.
    pub references: Option<u64>,
    /// Preempted, migrated, thrashing, or measured on two CPUs: discard.
    pub spoiled: bool,
}

/// Turns readings of `Kernel::counters` (per CPU, cumulative) into per-job
/// miss counts, as the thesis reads its per-CPU counter: reset (here: read)
/// when a job is first dispatched, read again when it completes. A job
/// switched away in between is spoiled (its CPU counted other jobs too).
#[derive(Debug, Clone, Default)]
pub struct CounterFeed {
    /// Per task: its job being measured, and the CPU it was read on.
    at: Vec<Option<(Measuring, u32)>>,
}

impl CounterFeed {
    pub fn new(tasks: usize) -> CounterFeed {
        CounterFeed { at: vec![None; tasks] }
    }

    /// Task `task`'s job `job` is dispatched for the first time on `cpu`,
    /// whose counters read `reading`. Without cache misses in the reading
    /// (a source that does not count them) nothing is measured.
    pub fn dispatched(&mut self, task: u32, job: u64, cpu: u32, reading: &Counters) {
        self.at[task as usize] = reading
            .cache_misses
            .map(|misses| (Measuring { job, misses, references: reading.cache_references, spoiled: false }, cpu));
    }

    /// Task `task`'s job was switched away before completing, or ran while
    /// the cache thrashed.
    pub fn spoil(&mut self, task: u32) {
        if let Some((m, _)) = self.at[task as usize].as_mut() {
            m.spoiled = true;
        }
    }

    /// Task `task`'s job `job` completed on `cpu`, whose counters read
    /// `reading`: what the job caused, or `None` when it was not measured.
    pub fn completed(&mut self, task: u32, job: u64, cpu: u32, reading: &Counters) -> Option<JobCounts> {
        let (m, at_cpu) = self.at[task as usize].take().filter(|(m, _)| m.job == job)?;
        let misses = reading.cache_misses?.checked_sub(m.misses);
        let references = match (reading.cache_references, m.references) {
            (Some(b), Some(a)) => b.checked_sub(a),
            _ => None,
        };
        Some(JobCounts {
            misses: misses.unwrap_or(0),
            references,
            spoiled: m.spoiled || at_cpu != cpu || misses.is_none(),
        })
    }
}

/// CONVERGED: two consecutive profiled jobs within the threshold, and not
/// both at the cap.
fn converged(a: u64, b: u64, c: ProfilerConfig) -> bool {
    let capped = |m: u64| m as u128 * c.line as u128 >= c.cache as u128;
    a.abs_diff(b) < c.threshold && !(capped(a) && capped(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONFIG: ProfilerConfig = ProfilerConfig { line: 64, cache: 1 << 20, threshold: DEFAULT_THRESHOLD };

    /// Golden G4 (Fig. 5.1, L1340): MTT {U, V}; job 1 misses 997 + 1,242,
    /// job 2 discarded (V_2 preempted), job 3 1,072 + 1,203: 4,514 misses
    /// over 2 profiled jobs, (4,514 / 2) × 64 = 144,448 bytes.
    #[test]
    fn the_thesis_worked_example_estimates_144448_bytes() {
        let mut p = WssProfiler::new(&[2], CONFIG);
        assert_eq!(p.thread_done(0, 1, 997, false), Outcome::Pending);
        assert_eq!(p.thread_done(0, 1, 1242, false), Outcome::Profiled { misses: 2239, estimate: 2239 * 64 });
        assert!(!p.converged(0));
        assert_eq!(p.thread_done(0, 2, 1100, false), Outcome::Pending);
        assert_eq!(p.thread_done(0, 2, 1500, true), Outcome::Discarded);
        assert_eq!(p.thread_done(0, 3, 1072, false), Outcome::Pending);
        assert_eq!(p.thread_done(0, 3, 1203, false), Outcome::Profiled { misses: 2275, estimate: 144_448 });
        assert!(p.converged(0));
        assert_eq!(p.jobs(0), (2, 1));
    }

    #[test]
    fn before_convergence_the_latest_job_replaces_the_estimate() {
        let mut p = WssProfiler::new(&[1], CONFIG);
        assert_eq!(p.estimate(0), 0, "no profiled job yet");
        p.thread_done(0, 0, 5000, false);
        p.thread_done(0, 1, 3000, false);
        assert_eq!(p.estimate(0), 3000 * 64, "replaced, not averaged");
        assert!(!p.converged(0));
        p.thread_done(0, 2, 3099, false);
        assert!(p.converged(0));
        assert_eq!(p.estimate(0), (3000 + 3099) * 64 / 2);
        // Converged: later jobs average in, however far off.
        p.thread_done(0, 3, 6099, false);
        assert_eq!(p.estimate(0), (3000 + 3099 + 6099) * 64 / 3);
    }

    #[test]
    fn estimates_are_capped_and_two_capped_jobs_do_not_converge() {
        let mut p = WssProfiler::new(&[1], CONFIG);
        let full = (1 << 20) / 64;
        p.thread_done(0, 0, full + 500, false);
        assert_eq!(p.estimate(0), 1 << 20, "capped at the cache size");
        p.thread_done(0, 1, full + 450, false);
        assert!(!p.converged(0), "both capped: not converged");
        p.thread_done(0, 2, 1000, false);
        assert_eq!(p.estimate(0), 64_000);
    }

    #[test]
    fn accumulators_are_keyed_by_job_index() {
        // Thread A finishes jobs 1 and 2 before thread B finishes job 1.
        let mut p = WssProfiler::new(&[2], CONFIG);
        assert_eq!(p.thread_done(0, 1, 1000, false), Outcome::Pending);
        assert_eq!(p.thread_done(0, 2, 1010, false), Outcome::Pending);
        assert_eq!(p.thread_done(0, 1, 1000, false), Outcome::Profiled { misses: 2000, estimate: 2000 * 64 });
        assert_eq!(p.thread_done(0, 2, 1000, false), Outcome::Profiled { misses: 2010, estimate: 4010 * 64 / 2 });
        // An aborted thread discards its MTT-job.
        p.thread_lost(0, 3);
        assert_eq!(p.thread_done(0, 3, 1000, false), Outcome::Discarded);
        // Jobs whose other thread never completes are dropped, oldest first.
        for job in 10..10 + MAX_OPEN as u64 + 5 {
            assert_eq!(p.thread_done(0, job, 1000, false), Outcome::Pending);
        }
        assert_eq!(p.jobs(0), (2, 1 + 5));
        assert_eq!(p.thread_done(0, 10, 1000, false), Outcome::Pending, "job 10 was dropped: measured anew");
    }

    fn reading(misses: u64, references: u64) -> Counters {
        Counters { cache_misses: Some(misses), cache_references: Some(references), ..Counters::default() }
    }

    #[test]
    fn counter_readings_become_per_job_counts() {
        let mut f = CounterFeed::new(2);
        f.dispatched(0, 7, 1, &reading(1000, 5000));
        assert_eq!(
            f.completed(0, 7, 1, &reading(3239, 9000)),
            Some(JobCounts { misses: 2239, references: Some(4000), spoiled: false })
        );
        // Preempted in between, or completed on another CPU: spoiled.
        f.dispatched(0, 8, 1, &reading(4000, 0));
        f.spoil(0);
        assert!(f.completed(0, 8, 1, &reading(5000, 0)).unwrap().spoiled);
        f.dispatched(1, 8, 0, &reading(4000, 0));
        assert!(f.completed(1, 8, 1, &reading(5000, 0)).unwrap().spoiled);
        // A source without cache misses measures nothing; nor does a job
        // completed without its dispatch being seen.
        f.dispatched(0, 9, 0, &Counters::default());
        assert_eq!(f.completed(0, 9, 0, &reading(1, 1)), None);
        assert_eq!(f.completed(1, 9, 0, &reading(1, 1)), None);
    }
}
