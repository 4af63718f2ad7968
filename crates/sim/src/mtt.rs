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
//! view a cache-aware scheduler has), or when it blocked. A thread's
//! misses are its CPU's count from its job's first dispatch to its
//! completion, as the thesis reads its per-CPU counter and as a policy
//! would through `Kernel::counters` (the same readings of the model,
//! through the profiler's [`CounterFeed`]).

use schedlab_model::Spec;
use schedlab_platform::PlatformModel;
use schedlab_platform::Reading;
use schedlab_policy::profiler::{CounterFeed, ProfilerConfig, Source, WssProfiler, DEFAULT_THRESHOLD, MAX_OPEN};
use schedlab_policy::Counters;
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

/// A CPU's reading of the model's counts, as `Kernel::counters` gives it.
fn counters(r: Reading) -> Counters {
    Counters { cache_misses: Some(r.misses), cache_references: Some(r.references), ..Counters::default() }
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
    /// The jobs being measured for the profiler (first dispatched, not
    /// complete), from their CPUs' counts.
    feed: CounterFeed,
    /// Per task: its job's number and its own counts (misses, references)
    /// at its first dispatch, for the metrics (exact even when preempted).
    own: Vec<Option<(u64, u64, u64)>>,
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
            feed: CounterFeed::new(spec.tasks.len()),
            own: vec![None; spec.tasks.len()],
            open: vec![BTreeMap::new(); spec.mtts().len()],
            task_wss: spec.tasks.iter().map(|t| t.wss.map_or(0, |w| w.0)).collect(),
            cache: cache.size.0,
            profiler: WssProfiler::new(&threads, config),
            sums,
            seen: Vec::new(),
        })
    }

    /// Task `task`'s job `seq` is dispatched on `cpu` at `now` (`first`:
    /// its first dispatch), before the model is told.
    #[allow(clippy::too_many_arguments)]
    pub fn dispatched(&mut self, task: u32, seq: u64, cpu: u32, first: bool, now: Time, model: &PlatformModel) {
        let Some(k) = self.mtt_of[task as usize] else { return };
        if !first {
            return;
        }
        self.feed.dispatched(task, seq, cpu, &counters(model.cpu_reading(cpu)));
        let r = model.task_reading(task);
        self.own[task as usize] = Some((seq, r.misses, r.references));
        let open = &mut self.open[k as usize];
        if open.len() >= MAX_OPEN && !open.contains_key(&seq) {
            open.pop_first();
        }
        open.entry(seq).or_insert(OpenJob { start: now, done: 0, misses: 0, references: 0 });
    }

    /// Task `task`'s job was switched away before completing.
    pub fn preempted(&mut self, task: u32) {
        self.feed.spoil(task);
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
                self.feed.spoil(t);
            }
        }
    }

    /// Task `task`'s job `seq` ended on `cpu` at `now` (`forced`: aborted).
    pub fn completed(&mut self, task: u32, seq: u64, cpu: u32, forced: bool, now: Time, model: &PlatformModel) {
        let Some(k) = self.mtt_of[task as usize] else { return };
        let k = k as usize;
        let reading = counters(model.cpu_reading(cpu));
        let (misses, spoiled) = match self.feed.completed(task, seq, cpu, &reading) {
            Some(c) => (c.misses, c.spoiled || forced),
            None => (0, true),
        };
        let r = model.task_reading(task);
        let (own_misses, own_references) = match self.own[task as usize].take() {
            Some((s, m, refs)) if s == seq => (r.misses - m, r.references - refs),
            _ => (0, 0),
        };
        let threads = self.sums[k].tasks.len() as u32;
        if self.open[k].len() >= MAX_OPEN && !self.open[k].contains_key(&seq) {
            // A job index whose threads never all complete (skipped releases).
            self.open[k].pop_first();
        }
        let open = self.open[k].entry(seq).or_insert(OpenJob { start: now, done: 0, misses: 0, references: 0 });
        open.done += 1;
        open.misses += own_misses;
        open.references += own_references;
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
