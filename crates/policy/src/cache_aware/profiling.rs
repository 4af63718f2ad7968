//! Online WSS estimates for `ca-gedf` (`profile: true`): the working-set
//! profiler of Calandrino's Fig. 5.3 ([`crate::profiler`]) fed from the
//! CPUs' cache-miss counters (`Kernel::counters`), as CA-SCHED's profiler
//! is fed from a per-CPU shared-cache-miss counter in the thesis (§5.2).
//!
//! A job's misses are the counter's rise on its CPU over each of its
//! stints, from its first dispatch to its completion. Its measurement is
//! spoiled — discarded with the rest of its MTT-job — when it is preempted
//! (switched away before completing, other than moving to another CPU at
//! a boundary), blocks, or runs in a quantum whose working sets exceed the
//! cache: then it counts more than its working set. A CPU without a
//! `cache_misses` reading ends profiling: [`Profiling::unavailable`] says
//! why, and the policy goes back to the declared WSSs (and says so in the
//! trace, a `counters-unavailable` event).
//!
//! Only the owners that are `mtt` groups are profiled (see `params`): the
//! profiler takes a job's misses for its working set, which holds when
//! job *i*'s data is its own (the thesis' assumption 1), as for an MTT's
//! jobs in the platform model; a task in no group reuses its data from job
//! to job, so its job's misses are only the reloads of what other tasks
//! evicted (none for back-to-back jobs) and it keeps its declared `wss`.

use crate::interface::{Cpu, Kernel};
use crate::profiler::{Outcome, ProfilerConfig, WssProfiler, DEFAULT_THRESHOLD};

pub(crate) struct Profiling {
    profiler: WssProfiler,
    /// Per task: whether its owner is profiled (the others are not read).
    tracked: Vec<bool>,
    /// Per task: the CPU and its miss count when the current stint began.
    stint: Vec<Option<(Cpu, u64)>>,
    /// Per task: misses of its current job so far.
    misses: Vec<u64>,
    /// Per task: its current job's measurement is spoiled (or missing).
    spoiled: Vec<bool>,
    /// Why a reading failed, once one did.
    unavailable: Option<String>,
    probed: bool,
}

fn read(cpu: Cpu, k: &mut dyn Kernel) -> Result<u64, String> {
    match k.counters(cpu) {
        Ok(c) => c.cache_misses.ok_or_else(|| "the counter source does not count cache misses".to_string()),
        Err(e) => Err(e.to_string()),
    }
}

impl Profiling {
    /// `threads[o]`: the tasks of working-set owner `o`; `tracked[t]`:
    /// whether task `t`'s owner is profiled.
    pub fn new(threads: &[usize], tracked: Vec<bool>, line: u64, cache: u64) -> Profiling {
        let config = ProfilerConfig { line: line.max(1), cache, threshold: DEFAULT_THRESHOLD };
        let tasks = tracked.len();
        Profiling {
            profiler: WssProfiler::new(threads, config),
            tracked,
            stint: vec![None; tasks],
            misses: vec![0; tasks],
            spoiled: vec![false; tasks],
            unavailable: None,
            probed: false,
        }
    }

    /// Reads CPU 0's counters once, before the first decision, so that a
    /// driver without cache-miss counters is known before any WSS is used.
    pub fn probe(&mut self, k: &mut dyn Kernel) {
        if !self.probed {
            self.probed = true;
            if let Err(why) = read(0, k) {
                self.unavailable.get_or_insert(why);
            }
        }
    }

    /// Why the CPUs' cache misses cannot be read, once a reading failed.
    pub fn unavailable(&self) -> Option<&str> {
        self.unavailable.as_deref()
    }

    /// The task has a new job: nothing measured yet.
    pub fn release(&mut self, task: u32) {
        let t = task as usize;
        self.stint[t] = None;
        self.misses[t] = 0;
        self.spoiled[t] = false;
    }

    /// The task's job starts a stint on `cpu`.
    pub fn start(&mut self, task: u32, cpu: Cpu, k: &mut dyn Kernel) {
        let t = task as usize;
        if !self.tracked[t] {
            return;
        }
        match read(cpu, k) {
            Ok(m) => self.stint[t] = Some((cpu, m)),
            Err(why) => {
                self.stint[t] = None;
                self.spoiled[t] = true;
                self.unavailable.get_or_insert(why);
            }
        }
    }

    /// The task's job ends its stint without completing; `spoil`: it was
    /// preempted or blocked (not moved to another CPU at a boundary).
    pub fn stop(&mut self, task: u32, spoil: bool, k: &mut dyn Kernel) {
        let t = task as usize;
        if !self.tracked[t] {
            return;
        }
        if let Some((cpu, m0)) = self.stint[t].take() {
            match read(cpu, k) {
                Ok(m) => self.misses[t] += m.saturating_sub(m0),
                Err(why) => {
                    self.spoiled[t] = true;
                    self.unavailable.get_or_insert(why);
                }
            }
        }
        self.spoiled[t] |= spoil;
    }

    /// The task's job ran in a quantum that thrashed.
    pub fn spoil(&mut self, task: u32) {
        self.spoiled[task as usize] = true;
    }

    /// The task's job `seq`, a thread of `owner`, completed: the owner's
    /// new WSS estimate when this completed a profiled MTT-job.
    pub fn complete(&mut self, task: u32, owner: u32, seq: u64, k: &mut dyn Kernel) -> Option<u64> {
        let t = task as usize;
        if !self.tracked[t] {
            return None;
        }
        self.stop(task, false, k);
        let outcome = self.profiler.thread_done(owner as usize, seq, self.misses[t], self.spoiled[t]);
        self.release(task);
        match outcome {
            Outcome::Profiled { estimate, .. } => Some(estimate),
            _ => None,
        }
    }
}
