//! Exporters: Chrome / Perfetto trace JSON ([`perfetto`]), an SVG Gantt
//! chart ([`svg`]), the per-job CSV table ([`csv`]) and the statistics as
//! text or JSON ([`stats`]). Every output is deterministic: the same trace
//! gives the same bytes.
//!
//! The exporters take the header and the events (anything that iterates
//! `Event`s or `&Event`s) and reconstruct the schedule with the same
//! [`Metrics`] accumulator that computes the statistics, so a chart and the
//! numbers next to it always agree.

pub mod csv;
pub mod perfetto;
pub mod stats;
pub mod svg;

use crate::metrics::{Interval, JobRecord, JobSink, Metrics, MetricsReport};
use crate::{Event, Header, JobRef, Time};
use std::borrow::Borrow;
use std::collections::HashMap;

/// The schedule as the exporters see it.
pub(crate) struct Collected {
    pub report: MetricsReport,
    /// Every job, sorted by (task, job).
    pub jobs: Vec<JobRecord>,
    /// Execution intervals, in the order they ended.
    pub intervals: Vec<Interval>,
    /// Overhead, policy, note, block, resume, segment-end, budget-exhausted
    /// and deadline-miss events, in trace order.
    pub others: Vec<Event>,
}

#[derive(Default)]
struct Sink {
    jobs: Vec<JobRecord>,
    intervals: Vec<Interval>,
}

impl JobSink for Sink {
    fn job(&mut self, rec: &JobRecord) {
        self.jobs.push(rec.clone());
    }
    fn interval(&mut self, iv: &Interval) {
        self.intervals.push(*iv);
    }
}

pub(crate) fn collect<E: Borrow<Event>>(header: &Header, events: impl IntoIterator<Item = E>) -> Collected {
    let mut m = Metrics::from_header(header).with_sink(Sink::default());
    let mut others = Vec::new();
    for ev in events {
        let ev = ev.borrow();
        m.push(ev);
        match ev {
            Event::Overhead { .. }
            | Event::Policy { .. }
            | Event::Note { .. }
            | Event::Block { .. }
            | Event::Resume { .. }
            | Event::SegmentEnd { .. }
            | Event::BudgetExhausted { .. }
            | Event::DeadlineMiss { .. } => others.push(ev.clone()),
            _ => {}
        }
    }
    let (report, mut sink) = m.finish();
    sink.jobs.sort_by_key(|j| (j.task, j.job));
    Collected { report, jobs: sink.jobs, intervals: sink.intervals, others }
}

/// A job's self-suspension: from its `block` to its `resume`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Suspension {
    pub job: JobRef,
    pub start: Time,
    /// The resume, or the end of the trace (`resumed` false).
    pub end: Time,
    pub resumed: bool,
}

/// The suspensions of a trace's `block`/`resume` events (in `others`, in
/// trace order), sorted by start; a block without a resume lasts to `end`.
pub(crate) fn suspensions(others: &[Event], end: Time) -> Vec<Suspension> {
    let mut open: HashMap<JobRef, Time> = HashMap::new();
    let mut out = Vec::new();
    for ev in others {
        match *ev {
            Event::Block { t, task, job } => {
                open.entry(JobRef { task, job }).or_insert(t);
            }
            Event::Resume { t, task, job } => {
                let j = JobRef { task, job };
                if let Some(start) = open.remove(&j) {
                    out.push(Suspension { job: j, start, end: t.max(start), resumed: true });
                }
            }
            _ => {}
        }
    }
    out.extend(open.into_iter().map(|(job, start)| Suspension { job, start, end: end.max(start), resumed: false }));
    out.sort_by_key(|s| (s.start, s.job));
    out
}

/// Nanoseconds as microseconds with exactly the digits needed (`1.5`,
/// `1234`, `0.001`): the trace-event format's unit without losing precision.
pub(crate) fn micros(ns: u64) -> String {
    let (int, frac) = (ns / 1000, ns % 1000);
    if frac == 0 {
        return int.to_string();
    }
    let s = format!("{int}.{frac:03}");
    s.trim_end_matches('0').to_string()
}

/// A JSON string literal.
pub(crate) fn json_str(s: &str) -> String {
    serde_json::to_string(s).expect("strings serialise")
}

/// A duration for people: the largest unit not above it, at most 3 decimals
/// (`2.5ms`, `999ns`, `1.235s`). Used in text reports and chart labels.
pub fn human_ns(ns: f64) -> String {
    if !ns.is_finite() {
        return "-".to_string();
    }
    let (scale, unit) = if ns >= 1e9 {
        (1e9, "s")
    } else if ns >= 1e6 {
        (1e6, "ms")
    } else if ns >= 1e3 {
        (1e3, "us")
    } else {
        (1.0, "ns")
    };
    let s = format!("{:.3}", ns / scale);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    format!("{s}{unit}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn micros_keeps_every_nanosecond() {
        assert_eq!(micros(0), "0");
        assert_eq!(micros(1), "0.001");
        assert_eq!(micros(1500), "1.5");
        assert_eq!(micros(2_000_000), "2000");
        assert_eq!(micros(u64::MAX), "18446744073709551.615");
    }

    #[test]
    fn human_durations() {
        assert_eq!(human_ns(0.0), "0ns");
        assert_eq!(human_ns(999.0), "999ns");
        assert_eq!(human_ns(2_500_000.0), "2.5ms");
        assert_eq!(human_ns(1_234_567_890.0), "1.235s");
        assert_eq!(human_ns(1_000.4), "1us");
    }
}
