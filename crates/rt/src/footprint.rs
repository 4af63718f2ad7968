//! The working-set profiler on Linux (Calandrino 2009, Fig. 5.3; notes
//! `seed-001-calandrino.md` §3 and §8.3), fed without hardware counters:
//! the **page-reference footprint** of an MTT's jobs.
//!
//! Before the first start of MTT-job *i* (the first of its threads to
//! start job *i*), the helper thread has written `1` to
//! `/proc/self/clear_refs`, which clears the referenced bit of every page
//! of the process; once job *i* of
//! every thread of the MTT has ended, it sums `Referenced:` over the memory
//! area of the MTT's working set in `/proc/self/smaps`. Those bytes,
//! divided by the cache-line size, go into the profiler
//! ([`schedlab_policy::profiler::WssProfiler`]) in place of the miss count.
//!
//! - The runtime is one process for every task, so the process-wide
//!   `smaps_rollup` would count the dispatcher, the other tasks and the
//!   program's code too; the MTT's working set is a memory area of its own
//!   ([`crate::workload::pages`]), read alone from `smaps`.
//! - `clear_refs` is process-wide, so one MTT-job is measured at a time: a
//!   first start while another MTT-job is measured, or while an earlier job
//!   of the same MTT is still running, is not measured (*overlapping*); a
//!   measured job whose MTT starts its next job before it ends, or one of
//!   whose threads was ended early, is discarded (its footprint would count
//!   other work), as Fig. 5.3 discards preempted jobs.
//! - All of it runs in a `SCHED_OTHER` helper thread, off the dispatch
//!   path: the workers only post "started" (with the time) and "ended" on a
//!   channel. A helper that cleared at the first start would clear late
//!   (it runs when the real-time threads leave a CPU idle, often after the
//!   job), so it clears ahead: whenever nothing is measured, and an
//!   MTT-job counts only if that clear is older than its first start. The
//!   read lags the last end likewise, so pages the MTT's next job touched
//!   before it may be counted (never more than the set's own area).
//! - It counts pages, not lines: a sparse walk is over-estimated, and it
//!   cannot see thrashing (nothing to discard for it). A page touched
//!   right after a clear is not always seen (a unit test's 4 quick
//!   touches read as 0 to 4 pages; cause not established): an under-count,
//!   which the runtime's jobs, walking their set for milliseconds, did not
//!   show.
//!
//! Source order (the source is named in the run's notes and its
//! `wss-profile` trace note): `perf_event_open` cache misses are probed and
//! reported, but not read per job yet (a machine with a PMU still gets the
//! footprint); the footprint where `clear_refs` and `smaps` work (root, or
//! the process's own files); else the declared `wss`.

use schedlab_model::Spec;
use schedlab_policy::profiler::{ProfilerConfig, Source, WssProfiler, DEFAULT_THRESHOLD, MAX_OPEN};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;

/// What a worker posts.
#[derive(Debug, Clone, Copy)]
pub enum Post {
    /// A thread of MTT `mtt` starts its job `job` at `t` (CLOCK_MONOTONIC ns).
    Started { mtt: u32, job: u64, t: u64 },
    /// A thread of MTT `mtt` ended its job `job` (`completed`: not ended early).
    Ended { mtt: u32, job: u64, completed: bool },
}

/// A worker's end of the channel (one per thread of an MTT).
#[derive(Debug, Clone)]
pub struct Poster {
    tx: Sender<Post>,
    mtt: u32,
}

impl Poster {
    pub fn started(&self, job: u64, t: u64) {
        let _ = self.tx.send(Post::Started { mtt: self.mtt, job, t });
    }
    pub fn ended(&self, job: u64, completed: bool) {
        let _ = self.tx.send(Post::Ended { mtt: self.mtt, job, completed });
    }
}

/// One MTT's result.
#[derive(Debug, Clone, PartialEq)]
pub struct MttProfile {
    pub name: String,
    /// The declared `wss`, bytes.
    pub declared: u64,
    /// The profiler's estimate, bytes (the declared `wss` when not measured).
    pub estimate: u64,
    /// MTT-jobs profiled, discarded, and not measured because they overlapped another.
    pub profiled: u64,
    pub discarded: u64,
    pub overlapping: u64,
    /// The measured footprints, bytes, in order.
    pub samples: Vec<u64>,
}

impl MttProfile {
    /// (estimate − declared) / declared; `None` without a declared size.
    pub fn error(&self) -> Option<f64> {
        (self.declared > 0).then(|| (self.estimate as f64 - self.declared as f64) / self.declared as f64)
    }
}

/// The run's profile.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub source: Source,
    /// Why the source is what it is (the probes' answers).
    pub why: String,
    pub mtts: Vec<MttProfile>,
}

impl Report {
    /// One line per MTT for the run's notes.
    pub fn lines(&self) -> Vec<String> {
        let mut out = vec![format!("wss profiler: source {} ({})", self.source.name(), self.why)];
        for m in &self.mtts {
            let err = m.error().map_or("-".to_string(), |e| format!("{:+.1} %", e * 100.0));
            out.push(format!(
                "wss profiler: mtt {}: estimate {} B, declared {} B, error {err}; {} MTT-jobs profiled, {} discarded, {} overlapping (not measured)",
                m.name, m.estimate, m.declared, m.profiled, m.discarded, m.overlapping
            ));
        }
        out
    }

    /// The `wss-profile` trace note's data.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "source": self.source.name(),
            "why": self.why,
            "mtts": self.mtts.iter().map(|m| serde_json::json!({
                "name": m.name, "declared": m.declared, "estimate": m.estimate, "error": m.error(),
                "profiled": m.profiled, "discarded": m.discarded, "overlapping": m.overlapping, "samples": m.samples,
            })).collect::<Vec<_>>(),
        })
    }
}

/// The running profiler: the workers' posters and the helper thread.
pub struct Meter {
    /// Per task, its MTT's poster (`None`: in no measured MTT).
    pub posters: Vec<Option<Poster>>,
    done: Arc<AtomicBool>,
    helper: Option<std::thread::JoinHandle<Report>>,
    fallback: Report,
}

/// Whether the footprint can be read here: `Err(reason)` when not.
pub fn probe() -> Result<(), String> {
    std::fs::OpenOptions::new()
        .write(true)
        .open("/proc/self/clear_refs")
        .map_err(|e| format!("/proc/self/clear_refs: {e}"))?;
    let smaps = std::fs::read_to_string("/proc/self/smaps").map_err(|e| format!("/proc/self/smaps: {e}"))?;
    if !smaps.contains("Referenced:") {
        return Err("/proc/self/smaps has no `Referenced:` lines".into());
    }
    Ok(())
}

/// Sums `Referenced:` over the areas of `smaps` text that overlap `[lo, hi)`, bytes.
pub fn referenced(smaps: &str, lo: usize, hi: usize) -> u64 {
    let mut inside = false;
    let mut bytes = 0;
    for line in smaps.lines() {
        let head = line.split_whitespace().next().unwrap_or("");
        if let Some((a, b)) = head.split_once('-') {
            if let (Ok(a), Ok(b)) = (usize::from_str_radix(a, 16), usize::from_str_radix(b, 16)) {
                inside = a < hi && b > lo;
                continue;
            }
        }
        if inside {
            if let Some(kb) = line.strip_prefix("Referenced:") {
                bytes += kb.trim().trim_end_matches("kB").trim().parse::<u64>().unwrap_or(0) * 1024;
            }
        }
    }
    bytes
}

impl Meter {
    /// Starts the profiler for `spec`'s MTTs whose working sets lie at
    /// `ranges` (from the plan); `perf_hardware`: whether the run's perf
    /// probe found hardware events.
    pub fn start(spec: &Spec, ranges: &[Option<(usize, usize)>], perf_hardware: bool) -> Meter {
        let mtts = spec.mtts();
        let declared: Vec<u64> = (0..mtts.len()).map(|k| spec.mtt_wss(k).map_or(0, |s| s.0)).collect();
        let perf = if perf_hardware {
            "perf_event_open has hardware events here, but per-job cache misses are not read from them yet"
        } else {
            "perf_event_open: no hardware cache-miss events on this machine"
        };
        let profile = |k: usize, estimate: u64| MttProfile {
            name: mtts[k].name.clone(),
            declared: declared[k],
            estimate,
            profiled: 0,
            discarded: 0,
            overlapping: 0,
            samples: Vec::new(),
        };
        let declared_report = |why: String| Report {
            source: Source::Declared,
            why,
            mtts: (0..mtts.len()).map(|k| profile(k, declared[k])).collect(),
        };
        let none = |fallback| Meter {
            posters: vec![None; spec.tasks.len()],
            done: Arc::new(AtomicBool::new(true)),
            helper: None,
            fallback,
        };
        if mtts.is_empty() {
            return none(declared_report(format!("{perf}; no MTTs")));
        }
        if let Err(why) = probe() {
            return none(declared_report(format!("{perf}; page-reference footprint unavailable: {why}")));
        }
        if ranges.iter().all(|r| r.is_none()) {
            return none(declared_report(format!(
                "{perf}; no MTT walks a working set the runtime allocated (the `memwalk` workload does)"
            )));
        }
        let line = spec.platform.cache.as_ref().map_or(64, |c| c.line.0.max(8));
        let cache = spec.platform.cache.as_ref().map_or(u64::MAX, |c| c.size.0);
        let config = ProfilerConfig { line, cache, threshold: DEFAULT_THRESHOLD };
        let (tx, rx) = channel();
        let mut posters = vec![None; spec.tasks.len()];
        for (i, k) in spec.mtt_of_tasks().into_iter().enumerate() {
            if let Some(k) = k.filter(|&k| ranges[k].is_some()) {
                posters[i] = Some(Poster { tx: tx.clone(), mtt: k as u32 });
            }
        }
        let threads: Vec<u32> = (0..mtts.len()).map(|k| spec.mtt_tasks(k).len().max(1) as u32).collect();
        let why = format!("{perf}; clear_refs + the working set's Referenced pages in /proc/self/smaps");
        let report = Report {
            source: Source::Footprint,
            why,
            mtts: (0..mtts.len())
                .map(|k| if ranges[k].is_some() { profile(k, 0) } else { profile(k, declared[k]) })
                .collect(),
        };
        let done = Arc::new(AtomicBool::new(false));
        let helper = Helper { rx, done: done.clone(), ranges: ranges.to_vec(), threads, config, report };
        let fallback = declared_report(format!("{perf}; the footprint helper did not start"));
        let helper = std::thread::Builder::new().name("sl-footprint".into()).spawn(move || helper.run()).ok();
        if helper.is_none() {
            posters = vec![None; spec.tasks.len()];
        }
        Meter { posters, done, helper, fallback }
    }

    /// Ends the helper (after the workers stopped) and returns the report.
    pub fn finish(mut self) -> Report {
        self.done.store(true, Ordering::Release);
        self.posters.clear();
        match self.helper.take() {
            Some(h) => h.join().unwrap_or(self.fallback),
            None => self.fallback,
        }
    }
}

/// The MTT-job being measured.
struct Measuring {
    mtt: usize,
    job: u64,
    spoiled: bool,
}

struct Helper {
    rx: Receiver<Post>,
    done: Arc<AtomicBool>,
    ranges: Vec<Option<(usize, usize)>>,
    threads: Vec<u32>,
    config: ProfilerConfig,
    report: Report,
}

impl Helper {
    fn clear() -> Option<u64> {
        std::fs::write("/proc/self/clear_refs", "1").ok().map(|_| crate::clock::now())
    }

    fn run(mut self) -> Report {
        let mut profiler = WssProfiler::new(&vec![1; self.threads.len()], self.config);
        // Per MTT: its jobs started and not yet ended on every thread (threads ended).
        let mut open: Vec<BTreeMap<u64, u32>> = vec![BTreeMap::new(); self.threads.len()];
        let mut measuring: Option<Measuring> = None;
        // When the referenced bits were last cleared with nothing measured.
        let mut cleared = Helper::clear();
        loop {
            let post = match self.rx.recv_timeout(std::time::Duration::from_millis(20)) {
                Ok(p) => p,
                Err(RecvTimeoutError::Timeout) if !self.done.load(Ordering::Acquire) => continue,
                Err(_) => break,
            };
            match post {
                Post::Started { mtt, job, t } => {
                    let k = mtt as usize;
                    if open[k].contains_key(&job) {
                        continue; // not the MTT-job's first start
                    }
                    if open[k].len() >= MAX_OPEN {
                        open[k].pop_first();
                    }
                    let earlier = !open[k].is_empty();
                    open[k].insert(job, 0);
                    match &mut measuring {
                        Some(m) if m.mtt == k => {
                            m.spoiled = true;
                            self.report.mtts[k].overlapping += 1;
                        }
                        Some(_) => self.report.mtts[k].overlapping += 1,
                        // Cleared before the first start, with no earlier
                        // job of the MTT running: measured from here.
                        None if !earlier && cleared.is_some_and(|c| c <= t) => {
                            measuring = Some(Measuring { mtt: k, job, spoiled: false });
                            cleared = None;
                        }
                        None => self.report.mtts[k].overlapping += 1,
                    }
                }
                Post::Ended { mtt, job, completed } => {
                    let k = mtt as usize;
                    let measured = measuring.as_ref().is_some_and(|m| m.mtt == k && m.job == job);
                    if measured && !completed {
                        measuring.as_mut().expect("measured").spoiled = true;
                    }
                    let Some(ended) = open[k].get_mut(&job) else { continue };
                    *ended += 1;
                    if *ended < self.threads[k] {
                        continue;
                    }
                    open[k].remove(&job);
                    if !measured {
                        continue;
                    }
                    let m = measuring.take().expect("measured");
                    let (lo, hi) = self.ranges[k].expect("measured MTTs have ranges");
                    let bytes = std::fs::read_to_string("/proc/self/smaps").map(|s| referenced(&s, lo, hi));
                    let spoiled = m.spoiled || bytes.is_err();
                    let bytes = bytes.unwrap_or(0);
                    profiler.thread_done(k, job, bytes / self.config.line, spoiled);
                    if !spoiled {
                        self.report.mtts[k].samples.push(bytes);
                    }
                }
            }
            // Ready for the next first start: clear while nothing is measured.
            if measuring.is_none() && cleared.is_none() {
                cleared = Helper::clear();
            }
        }
        for (k, r) in self.report.mtts.iter_mut().enumerate() {
            if self.ranges[k].is_some() {
                (r.profiled, r.discarded) = profiler.jobs(k);
                r.estimate = profiler.estimate(k);
            }
        }
        self.report
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn referenced_sums_only_the_areas_overlapping_the_range() {
        let smaps = "\
1000-3000 rw-p 00000000 00:00 0
Size:                  8 kB
Referenced:            8 kB
3000-5000 rw-p 00000000 00:00 0
Referenced:            4 kB
7f0000-7f2000 r-xp 00000000 08:01 42   /usr/bin/x
Referenced:          900 kB
";
        assert_eq!(referenced(smaps, 0x3000, 0x5000), 4096);
        assert_eq!(referenced(smaps, 0x2000, 0x4000), 12 * 1024);
        assert_eq!(referenced(smaps, 0x5000, 0x7000), 0);
    }

    #[test]
    fn this_process_can_measure_a_buffer_it_touches() {
        if let Err(why) = probe() {
            eprintln!("skipped: {why}");
            return;
        }
        use std::sync::atomic::Ordering;
        let b = crate::workload::pages::PageBuffer::new(64 * 1024 / 8);
        let (lo, hi) = b.range();
        // A page touched right after a clear is not always seen (0 to 4 of
        // the 4 below on this VM; cause not established), so a read may
        // fall short of the pages touched, never above them: the clear
        // works and the area is exact.
        std::fs::write("/proc/self/clear_refs", "1").unwrap();
        for p in 0..16 {
            b[p * 512].store(1, Ordering::Relaxed);
        }
        let touched = referenced(&std::fs::read_to_string("/proc/self/smaps").unwrap(), lo, hi);
        assert!(touched > 0 && touched <= 64 * 1024, "16 pages touched: {touched}");
        std::fs::write("/proc/self/clear_refs", "1").unwrap();
        for p in 0..4 {
            b[p * 512].store(2, Ordering::Relaxed);
        }
        let touched = referenced(&std::fs::read_to_string("/proc/self/smaps").unwrap(), lo, hi);
        assert!(touched <= 16 * 1024, "cleared, then 4 pages touched: {touched}");
    }
}
