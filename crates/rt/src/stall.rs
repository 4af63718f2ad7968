//! Platform stalls: intervals in which the machine did not run what the
//! run's own clocks say it should have (the vCPU was not running the guest,
//! the process was stopped with SIGSTOP, a non-preemptible kernel section
//! of another process held the CPU). They are measured by the run itself
//! and reported as stalls, not as scheduling overheads:
//!
//! - **timer lateness**: a release instant (the absolute timer's expiry) →
//!   the job's first instruction, or one of the kernel-side parts of that
//!   interval, on a CPU no job of the run held, longer than
//!   [`THRESHOLD_NS`];
//! - **dispatcher lateness** (dispatch backend): the dispatcher thread woke
//!   up later than its timeout (the next release, quantum boundary or
//!   other policy timer) by more than [`THRESHOLD_NS`]; every decision due
//!   meanwhile was taken that late;
//! - **CPU-time gap**: a job's running time in the trace (the kernel's
//!   running intervals) minus the thread CPU time it used, larger than
//!   [`THRESHOLD_NS`] (the thread was "running" but did not execute).
//!
//! Each becomes a `platform-stall` policy event in the trace and an entry of
//! [`crate::RunOutcome::stalls`]; its interval is not an overhead sample.

use schedlab_trace::{Event, OverheadKind};
use serde::Serialize;
use std::collections::HashMap;

/// An interval longer than this (1 ms) is a stall, not an overhead: 10× the
/// release latency's p99.9 measured on this kind of VM idle (`schedlab probe
/// latency`: p99 79 µs), half the validator's default tolerance.
pub const THRESHOLD_NS: u64 = 1_000_000;

/// The name of the trace's policy event that records a stall.
pub const PLATFORM_STALL: &str = "platform-stall";
/// The stall kind of the dispatcher's own late wake-up.
pub const DISPATCHER_LATENESS: &str = "timer-lateness (dispatcher wake-up)";

/// One stall.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Stall {
    /// ns from the synchronous release.
    pub t: u64,
    /// `timer-lateness` (with the overhead it replaced) or `cpu-time-gap`.
    pub kind: String,
    /// The job it delayed, when known (the dispatch backend's release
    /// latencies name only the CPU).
    pub job: Option<(u32, u64)>,
    /// Its length (ns).
    pub ns: u64,
}

/// The evidence, one line, for a test log or a note; `None` without stalls.
pub fn evidence(stalls: &[Stall]) -> Option<String> {
    let worst = stalls.iter().max_by_key(|s| s.ns)?;
    let late = stalls.iter().filter(|s| s.kind.starts_with("timer-lateness")).map(|s| s.ns).max().unwrap_or(0);
    let gap = stalls.iter().filter(|s| s.kind == "cpu-time-gap").map(|s| s.ns).max().unwrap_or(0);
    Some(format!(
        "{} platform stall(s) above {:.1} ms: max timer lateness {:.3} ms, max CPU-time gap {:.3} ms; worst {}{} at {:.3} ms, {:.3} ms",
        stalls.len(),
        THRESHOLD_NS as f64 / 1e6,
        late as f64 / 1e6,
        gap as f64 / 1e6,
        worst.kind,
        worst.job.map(|(t, j)| format!(" of job {t}:{j}")).unwrap_or_default(),
        worst.t as f64 / 1e6,
        worst.ns as f64 / 1e6
    ))
}

/// The CPU-time gaps of a run's completed jobs: each completion's running
/// time in the trace (`exec`: the kernel's intervals, or the dispatcher's
/// stints) beyond the thread CPU time the job used (`used`, by (task,
/// job)), when above [`THRESHOLD_NS`]. With `dispatcher_cpu` (the dispatch
/// backend) a stint on the dispatcher's CPU also holds the dispatcher's own
/// work there (it runs above the workers): the dispatcher's overhead
/// intervals on that CPU from the job's first dispatch there to its
/// completion are not counted in its gap (all of them, overlapping or not:
/// a gap is only ever made smaller).
pub fn cpu_time_gaps(events: &[Event], used: &HashMap<(u32, u64), u64>, dispatcher_cpu: Option<u32>) -> Vec<Stall> {
    let dispatcher = dispatcher_cpu.map(|cpu| DispatcherTime::of(events, cpu));
    let mut gaps = Vec::new();
    for e in events {
        if let Event::Completion { t, task, job, exec, .. } = e {
            if let Some(&u) = used.get(&(*task, *job)) {
                let theirs = dispatcher.as_ref().map_or(0, |d| d.during(*task, *job, *t));
                let gap = exec.saturating_sub(u).saturating_sub(theirs);
                if gap > THRESHOLD_NS {
                    gaps.push(Stall { t: *t, kind: "cpu-time-gap".into(), job: Some((*task, *job)), ns: gap });
                }
            }
        }
    }
    gaps
}

/// The dispatcher's own time on its CPU, as its overhead intervals there
/// (release latency excluded: that is the timer's, not the dispatcher's
/// work), and when each job was first dispatched to that CPU.
struct DispatcherTime {
    /// (start, cumulative duration up to and including it), by start.
    intervals: Vec<(u64, u64)>,
    first_on_cpu: HashMap<(u32, u64), u64>,
}

impl DispatcherTime {
    fn of(events: &[Event], cpu: u32) -> DispatcherTime {
        let mut starts: Vec<(u64, u64)> = events
            .iter()
            .filter_map(|e| match e {
                Event::Overhead { t, cpu: c, kind, dur } if *c == cpu && *kind != OverheadKind::ReleaseLatency => {
                    Some((*t, *dur))
                }
                _ => None,
            })
            .collect();
        starts.sort_unstable();
        let mut sum = 0u64;
        let intervals = starts
            .into_iter()
            .map(|(t, d)| {
                sum = sum.saturating_add(d);
                (t, sum)
            })
            .collect();
        let mut first_on_cpu = HashMap::new();
        for e in events {
            if let Event::SwitchTo { t, cpu: c, task, job } = e {
                if *c == cpu {
                    first_on_cpu.entry((*task, *job)).and_modify(|f: &mut u64| *f = (*f).min(*t)).or_insert(*t);
                }
            }
        }
        DispatcherTime { intervals, first_on_cpu }
    }

    /// The dispatcher's time on its CPU from the job's first dispatch there
    /// to `end` (0 for a job that never ran there).
    fn during(&self, task: u32, job: u64, end: u64) -> u64 {
        let Some(&from) = self.first_on_cpu.get(&(task, job)) else { return 0 };
        let upto = |t: u64| {
            let i = self.intervals.partition_point(|&(s, _)| s <= t);
            if i == 0 {
                0
            } else {
                self.intervals[i - 1].1
            }
        };
        upto(end).saturating_sub(upto(from.saturating_sub(1)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_trace::OverheadKind as K;

    #[test]
    fn the_dispatchers_time_counts_only_its_cpu_from_the_jobs_first_dispatch() {
        let o = |t, cpu, kind, dur| Event::Overhead { t, cpu, kind, dur };
        let events = vec![
            o(5, 0, K::Schedule, 100),
            Event::SwitchTo { t: 10, cpu: 0, task: 1, job: 0 },
            o(20, 0, K::Schedule, 30),
            o(25, 1, K::Schedule, 1_000),
            o(30, 0, K::ReleaseLatency, 5_000),
            o(40, 0, K::Release, 7),
            Event::SwitchTo { t: 50, cpu: 1, task: 2, job: 0 },
            o(60, 0, K::ContextSwitch, 2),
        ];
        let d = DispatcherTime::of(&events, 0);
        assert_eq!(d.during(1, 0, 45), 37, "CPU 0's schedule and release between 10 and 45");
        assert_eq!(d.during(1, 0, 60), 39, "and the context switch at 60");
        assert_eq!(d.during(2, 0, 60), 0, "a job that never ran on CPU 0");
        assert_eq!(DispatcherTime::of(&events, 0).during(1, 0, 9), 0, "nothing before the dispatch");
    }

    #[test]
    fn a_gap_counts_only_above_the_threshold_and_without_the_dispatchers_work() {
        let ms = 1_000_000;
        let done = |t, task, exec| Event::Completion { t, cpu: 0, task, job: 0, exec, forced: false };
        let events = vec![
            Event::SwitchTo { t: 0, cpu: 0, task: 0, job: 0 },
            Event::SwitchTo { t: 0, cpu: 1, task: 1, job: 0 },
            Event::Overhead { t: ms, cpu: 0, kind: K::Schedule, dur: ms },
            done(5 * ms, 0, 5 * ms),
            done(5 * ms, 1, 5 * ms),
        ];
        // Task 0 used 3.5 ms of its 5 (a 1.5 ms gap, 1 ms of it the
        // dispatcher's), task 1 used 3 ms on the other CPU.
        let used = HashMap::from([((0, 0), 3_500_000), ((1, 0), 3 * ms)]);
        let kernel = cpu_time_gaps(&events, &used, None);
        assert_eq!(
            kernel.iter().map(|s| (s.job, s.ns)).collect::<Vec<_>>(),
            [(Some((0, 0)), 1_500_000), (Some((1, 0)), 2 * ms)]
        );
        let dispatch = cpu_time_gaps(&events, &used, Some(0));
        assert_eq!(
            dispatch.iter().map(|s| (s.job, s.ns)).collect::<Vec<_>>(),
            [(Some((1, 0)), 2 * ms)],
            "0.5 ms left: no stall"
        );
        assert!(dispatch.iter().all(|s| s.kind == "cpu-time-gap"));
    }
}
