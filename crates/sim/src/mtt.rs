//! Per-MTT metrics of a run with a platform model: for each MTT job (job
//! *i* of every thread of a multithreaded task), its span (first thread's
//! first dispatch to last thread's completion) and its shared-cache misses
//! and references from the model's per-task counts; and the working-set
//! profiler (`schedlab_policy::profiler`, Calandrino's Fig. 5.3) fed by the
//! same counts, its estimate reported against the declared WSS.
//!
//! A thread's job is *spoiled* for the profiler when it is switched away
//! before completing (preempted or migrated) or when, at some instant it
//! runs, the working sets of the owners running on the cache add up to more
//! than the cache (the thesis' thrashing predicate, with the profiler's
//! current estimates for MTTs and the declared `wss` of other tasks — the
//! view a cache-aware scheduler has). A thread's misses are its task's
//! count from its job's first dispatch to its completion: the per-CPU
//! counter read at dispatch and completion, as the thesis reads it, for a
//! job that is not preempted.

use schedlab_model::Spec;
use schedlab_platform::PlatformModel;
use schedlab_policy::profiler::{ProfilerConfig, Source, WssProfiler, DEFAULT_THRESHOLD};
use schedlab_policy::Time;
use std::collections::BTreeMap;

/// One MTT's metrics over a run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MttSummary {
    pub name: String,
    /// Its threads (task indices).
    pub tasks: Vec<u32>,
    /// The declared WSS (bytes), if any.
    pub wss: Option<u64>,
    /// MTT jobs whose every thread completed.
    pub jobs: u64,
    /// Largest and summed span (ns) of those jobs.
    pub max_span: Time,
    pub total_span: u128,
    /// Shared-cache misses and references of those jobs, summed.
    pub misses: u64,
    pub references: u64,
    /// Largest misses of one job, and largest miss rate (misses per
    /// million references) of one job.
    pub max_job_misses: u64,
    pub max_miss_rate_ppm: u64,
    /// The profiler's estimate (bytes) at the end, and its jobs.
    pub estimate: u64,
    pub profiled: u64,
    pub discarded: u64,
    pub converged: bool,
    /// Where the profiler's counts came from.
    pub source: &'static str,
}

impl MttSummary {
    /// Mean span (ns) of a completed MTT job.
    pub fn mean_span(&self) -> f64 {
        if self.jobs == 0 {
            0.0
        } else {
            self.total_span as f64 / self.jobs as f64
        }
    }
    /// Misses per reference over the MTT's jobs.
    pub fn miss_rate(&self) -> f64 {
        if self.references == 0 {
            0.0
        } else {
            self.misses as f64 / self.references as f64
        }
    }
    /// The profiler's error against the declared WSS, `(estimate − wss) / wss`.
    pub fn estimate_error(&self) -> Option<f64> {
        self.wss.filter(|&w| w > 0 && self.profiled > 0).map(|w| (self.estimate as f64 - w as f64) / w as f64)
    }
}

/// A thread's job being measured.
#[derive(Debug, Clone, Copy, Default)]
struct ThreadJob {
    seq: u64,
    misses: u64,
    references: u64,
    spoiled: bool,
}

/// An MTT job whose threads have not all completed.
#[derive(Debug, Clone, Copy)]
struct OpenJob {
    start: Time,
    done: u32,
    misses: u64,
    references: u64,
}

/// The run's MTT bookkeeping (present when the spec has MTTs and a model).
#[derive(Debug)]
pub(crate) struct MttTracker {
    /// Per task: its MTT.
    mtt_of: Vec<Option<u32>>,
    /// Per task: the job being measured (first dispatched, not complete).
    current: Vec<Option<ThreadJob>>,
    /// Per MTT: its open jobs by index.
    open: Vec<BTreeMap<u64, OpenJob>>,
    /// Per task in no MTT: its declared WSS (the thrashing predicate's).
    task_wss: Vec<u64>,
    cache: u64,
    profiler: WssProfiler,
    sums: Vec<MttSummary>,
    /// Scratch: owners seen at an instant.
    seen: Vec<u32>,
}

impl MttTracker {
    pub fn new(spec: &Spec) -> Option<MttTracker> {
        let cache = spec.platform.cache.as_ref()?;
        if spec.mtts().is_empty() {
            return None;
        }
        let threads: Vec<usize> = (0..spec.mtts().len()).map(|k| spec.mtt_tasks(k).len()).collect();
        let config = ProfilerConfig { line: cache.line.0.max(1), cache: cache.size.0, threshold: DEFAULT_THRESHOLD };
        let sums = spec
            .mtts()
            .iter()
            .enumerate()
            .map(|(k, m)| MttSummary {
                name: m.name.clone(),
                tasks: spec.mtt_tasks(k).iter().map(|&i| i as u32).collect(),
                wss: spec.mtt_wss(k).map(|w| w.0),
                source: Source::PlatformModel.name(),
                ..MttSummary::default()
            })
            .collect();
        Some(MttTracker {
            mtt_of: spec.mtt_of_tasks().into_iter().map(|k| k.map(|k| k as u32)).collect(),
            current: vec![None; spec.tasks.len()],
            open: vec![BTreeMap::new(); spec.mtts().len()],
            task_wss: spec.tasks.iter().map(|t| t.wss.map_or(0, |w| w.0)).collect(),
            cache: cache.size.0,
            profiler: WssProfiler::new(&threads, config),
            sums,
            seen: Vec::new(),
        })
    }

    /// Task `task`'s job `seq` is dispatched at `now` (`first`: its first
    /// dispatch), before the model is told.
    pub fn dispatched(&mut self, task: u32, seq: u64, first: bool, now: Time, model: &PlatformModel) {
        let Some(k) = self.mtt_of[task as usize] else { return };
        if !first {
            return;
        }
        let r = model.task_reading(task);
        self.current[task as usize] =
            Some(ThreadJob { seq, misses: r.misses, references: r.references, spoiled: false });
        self.open[k as usize].entry(seq).or_insert(OpenJob { start: now, done: 0, misses: 0, references: 0 });
    }

    /// Task `task`'s job was switched away before completing.
    pub fn preempted(&mut self, task: u32) {
        if let Some(j) = self.current[task as usize].as_mut() {
            j.spoiled = true;
        }
    }

    /// The tasks running now (one per CPU): if their owners' working sets
    /// exceed the cache, the running threads' jobs are spoiled.
    pub fn running(&mut self, running: impl Iterator<Item = u32> + Clone) {
        self.seen.clear();
        let mut sum: u128 = 0;
        let mut threads = false;
        for t in running.clone() {
            match self.mtt_of[t as usize] {
                Some(k) => {
                    threads = true;
                    if !self.seen.contains(&k) {
                        self.seen.push(k);
                        sum += self.profiler.estimate(k as usize) as u128;
                    }
                }
                None => sum += self.task_wss[t as usize] as u128,
            }
        }
        if threads && sum > self.cache as u128 {
            for t in running {
                if let Some(j) = self.current[t as usize].as_mut() {
                    j.spoiled = true;
                }
            }
        }
    }

    /// Task `task`'s job `seq` ended at `now` (`forced`: aborted).
    pub fn completed(&mut self, task: u32, seq: u64, forced: bool, now: Time, model: &PlatformModel) {
        let Some(k) = self.mtt_of[task as usize] else { return };
        let k = k as usize;
        let job = self.current[task as usize].take().filter(|j| j.seq == seq);
        let r = model.task_reading(task);
        let (misses, references, spoiled) = match job {
            Some(j) => (r.misses - j.misses, r.references - j.references, j.spoiled || forced),
            None => (0, 0, true),
        };
        let threads = self.sums[k].tasks.len() as u32;
        let open = self.open[k].entry(seq).or_insert(OpenJob { start: now, done: 0, misses: 0, references: 0 });
        open.done += 1;
        open.misses += misses;
        open.references += references;
        if open.done >= threads {
            let o = self.open[k].remove(&seq).expect("just updated");
            let s = &mut self.sums[k];
            let span = now - o.start;
            s.jobs += 1;
            s.max_span = s.max_span.max(span);
            s.total_span += span as u128;
            s.misses += o.misses;
            s.references += o.references;
            s.max_job_misses = s.max_job_misses.max(o.misses);
            if o.references > 0 {
                let ppm = (o.misses as u128 * 1_000_000 / o.references as u128) as u64;
                s.max_miss_rate_ppm = s.max_miss_rate_ppm.max(ppm);
            }
        }
        self.profiler.thread_done(k, seq, misses, spoiled);
    }

    /// The metrics at the end of the run.
    pub fn summaries(&self) -> Vec<MttSummary> {
        let mut out = self.sums.clone();
        for (k, s) in out.iter_mut().enumerate() {
            s.estimate = self.profiler.estimate(k);
            (s.profiled, s.discarded) = self.profiler.jobs(k);
            s.converged = self.profiler.converged(k);
        }
        out
    }
}
