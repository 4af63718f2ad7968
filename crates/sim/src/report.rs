//! The statistics of a run (`schedlab_trace::MetricsReport`, what
//! `schedlab simulate` prints) from the simulator's own accounting
//! ([`SimSummary`]), so that a run whose events go nowhere else is not
//! followed through a second, event-by-event pass of the streaming metrics
//! (`schedlab_trace::Metrics`, 15–25 % of a simulation's instructions).
//!
//! The figures follow the streaming metrics' definitions
//! (`schedlab_trace::metrics`) for a schedule the simulator produced: a
//! job's miss is its `deadline-miss` event (the simulator checks every
//! job's deadline before the end, so a late completion, an abort and an
//! unfinished job past its deadline all have one), an aborted or
//! unfinished job's tardiness is taken at its abort or the end, and the
//! per-kind overheads are those written to the trace. A test
//! (`crates/sim/tests/report.rs`) checks that both give the same report.
//! What only the trace holds — per-job records, MTT spans, the memory
//! token's latencies — still needs [`schedlab_trace::Metrics`]:
//! [`crate::Session`] uses it when any of them is asked for.

use crate::SimSummary;
use schedlab_trace::metrics::{CpuStats, OverheadStats, TaskStats, Totals};
use schedlab_trace::{Header, MetricsReport, OverheadKind};

/// The report of a run of `header`'s spec that ended with `summary`.
pub fn report(header: &Header, summary: &SimSummary) -> MetricsReport {
    let end = summary.horizon;
    let ratio = |num: u64, den: u64| if den == 0 { 0.0 } else { num as f64 / den as f64 };
    let tasks: Vec<TaskStats> = summary
        .tasks
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let completed = s.completed - s.aborted;
            TaskStats {
                task: i as u32,
                name: header.spec.tasks.get(i).map_or_else(|| format!("T{i}"), |t| t.name.clone()),
                jobs: s.released,
                completed,
                aborted: s.aborted,
                unfinished: s.released - s.completed,
                misses: s.missed,
                miss_ratio: ratio(s.missed, s.released),
                max_response: (completed > 0).then_some(s.max_response),
                mean_response: (completed > 0).then(|| s.total_response as f64 / completed as f64),
                max_tardiness: s.max_tardiness.max(s.max_late_end),
                preemptions: s.preemptions,
                migrations: s.migrations,
                exec: s.exec,
            }
        })
        .collect();
    let mut by_kind = [(0u64, 0u64, 0u64); 7];
    let list = |t: &[(u64, u64, u64); 7]| -> Vec<OverheadStats> {
        OverheadKind::ALL
            .iter()
            .zip(t)
            .filter(|(_, k)| k.0 > 0)
            .map(|(&kind, &(count, total, max))| OverheadStats { kind, count, total, max })
            .collect()
    };
    let cpus: Vec<CpuStats> = summary
        .cpus
        .iter()
        .enumerate()
        .map(|(c, s)| {
            let mut mine = [(0u64, 0u64, 0u64); 7];
            for (k, o) in s.overheads.iter().enumerate() {
                mine[k] = (o.count, o.total, o.max);
                let b = &mut by_kind[k];
                *b = (b.0 + o.count, b.1.saturating_add(o.total), b.2.max(o.max));
            }
            CpuStats {
                cpu: c as u32,
                busy: s.busy,
                utilization: ratio(s.busy, end),
                switches: s.switches,
                // CPU time spent on kernel work (release latency is a delay, not CPU work).
                overhead: OverheadKind::ALL
                    .iter()
                    .zip(&mine)
                    .filter(|(kind, _)| **kind != OverheadKind::ReleaseLatency)
                    .fold(0u64, |sum, (_, k)| sum.saturating_add(k.1)),
                overheads: list(&mine),
            }
        })
        .collect();
    let totals = Totals::of(&tasks, &cpus, end, summary.trace_events);
    MetricsReport { horizon: end, tasks, cpus, overheads: list(&by_kind), totals, mtts: Vec::new(), memory_token: None }
}
