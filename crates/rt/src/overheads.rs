//! Measured overheads, in feather-trace's vocabulary, and the overhead CSV
//! (`TASK-COUNT` and one µs column per overhead, SchedCAT's convention, as
//! `docs/overheads.md` defines it) that `analyze --overheads` reads back.
//!
//! | kind | measured as |
//! |---|---|
//! | `release-latency` | release instant (the absolute timer's expiry) → the job's first instruction (the worker's own clocks) |
//! | `release` | release instant → the kernel's `sched_wakeup` of the thread (timer interrupt and hrtimer processing) |
//! | `schedule` | `sched_wakeup` → `sched_switch` to the thread, same CPU |
//! | `ipi` | `sched_wakeup` on one CPU → `sched_switch` to the thread on another (the cross-CPU wake-up) |
//! | `context-switch` | `sched_switch` to the thread → its first instruction |

use schedlab_trace::OverheadKind;
use serde::Serialize;

/// Order statistics of one overhead (ns).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Stats {
    pub count: usize,
    pub min: u64,
    pub p50: u64,
    pub p99: u64,
    pub p999: u64,
    pub max: u64,
    pub mean: f64,
}

impl Stats {
    pub fn of(samples: &[u64]) -> Stats {
        if samples.is_empty() {
            return Stats::default();
        }
        let mut v = samples.to_vec();
        v.sort_unstable();
        let q = |p: f64| v[(((v.len() - 1) as f64) * p).round() as usize];
        Stats {
            count: v.len(),
            min: v[0],
            p50: q(0.5),
            p99: q(0.99),
            p999: q(0.999),
            max: v[v.len() - 1],
            mean: v.iter().map(|&x| x as f64).sum::<f64>() / v.len() as f64,
        }
    }
}

/// All samples of a run, per kind.
#[derive(Debug, Clone, Default)]
pub struct Samples {
    pub by_kind: Vec<(OverheadKind, Vec<u64>)>,
}

impl Samples {
    pub fn push(&mut self, kind: OverheadKind, dur: u64) {
        match self.by_kind.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, v)) => v.push(dur),
            None => self.by_kind.push((kind, vec![dur])),
        }
    }
    pub fn get(&self, kind: OverheadKind) -> &[u64] {
        self.by_kind.iter().find(|(k, _)| *k == kind).map_or(&[], |(_, v)| v.as_slice())
    }
    /// Statistics per kind, in [`OverheadKind::ALL`] order, measured kinds only.
    pub fn report(&self) -> Vec<(OverheadKind, Stats)> {
        OverheadKind::ALL.iter().filter(|k| !self.get(**k).is_empty()).map(|k| (*k, Stats::of(self.get(*k)))).collect()
    }
}

fn us(ns: u64) -> String {
    format!("{:.3}", ns as f64 / 1000.0)
}

/// The overhead CSV for a run of `tasks` tasks: the maximum of each
/// measured overhead (the safe value for analysis), in µs; an overhead
/// that was not measured is written as 0.
pub fn csv(tasks: usize, s: &Samples) -> String {
    let max = |k: OverheadKind| s.get(k).iter().copied().max().unwrap_or(0);
    format!(
        "TASK-COUNT,RELEASE,SCHEDULE,CXS,IPI-LATENCY,TICK,RELEASE-LATENCY\n{tasks},{},{},{},{},0,{}\n",
        us(max(OverheadKind::Release)),
        us(max(OverheadKind::Schedule)),
        us(max(OverheadKind::ContextSwitch)),
        us(max(OverheadKind::Ipi)),
        us(max(OverheadKind::ReleaseLatency)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn stats_and_csv() {
        let s = Stats::of(&[5, 1, 3, 2, 4]);
        assert_eq!((s.min, s.p50, s.max, s.count), (1, 3, 5, 5));
        let mut m = Samples::default();
        m.push(OverheadKind::ReleaseLatency, 12_345);
        m.push(OverheadKind::ReleaseLatency, 2_000);
        assert_eq!(
            csv(3, &m),
            "TASK-COUNT,RELEASE,SCHEDULE,CXS,IPI-LATENCY,TICK,RELEASE-LATENCY\n3,0.000,0.000,0.000,0.000,0,12.345\n"
        );
    }
}
