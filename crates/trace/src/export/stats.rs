//! The statistics as a text report (a per-task table in the manner of
//! LITMUS^RT's st-job-stats summaries, totals, per-CPU utilisation and
//! overheads) or as JSON (the [`MetricsReport`] serialised).

use super::human_ns;
use crate::metrics::MetricsReport;
use schedlab_model::Duration;
use std::fmt::Write as _;

/// The report as pretty-printed JSON (times in integer ns).
pub fn stats_json(report: &MetricsReport) -> String {
    let mut s = serde_json::to_string_pretty(report).expect("the report serialises");
    s.push('\n');
    s
}

fn opt_ns(v: Option<u64>) -> String {
    v.map_or_else(|| "-".to_string(), |v| human_ns(v as f64))
}

fn percent(r: f64) -> String {
    format!("{:.1}%", r * 100.0)
}

/// Lay out rows: the first column left-aligned, the others right-aligned,
/// two spaces between columns, no trailing spaces.
fn table(rows: &[Vec<String>]) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> =
        (0..cols).map(|c| rows.iter().filter_map(|r| r.get(c)).map(|s| s.chars().count()).max().unwrap_or(0)).collect();
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            let pad = widths[c] - cell.chars().count();
            if c == 0 {
                line.push_str(cell);
                line.extend(std::iter::repeat_n(' ', pad));
            } else {
                line.push_str("  ");
                line.extend(std::iter::repeat_n(' ', pad));
                line.push_str(cell);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The text report.
pub fn render_stats(report: &MetricsReport) -> String {
    let r = report;
    let mut out = String::new();
    let mut rows = vec![[
        "task",
        "jobs",
        "done",
        "aborted",
        "unfinished",
        "misses",
        "miss ratio",
        "max resp",
        "mean resp",
        "max tard",
        "preempt",
        "migr",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect::<Vec<_>>()];
    for t in &r.tasks {
        rows.push(vec![
            t.name.clone(),
            t.jobs.to_string(),
            t.completed.to_string(),
            t.aborted.to_string(),
            t.unfinished.to_string(),
            t.misses.to_string(),
            percent(t.miss_ratio),
            opt_ns(t.max_response),
            t.mean_response.map_or_else(|| "-".to_string(), human_ns),
            human_ns(t.max_tardiness as f64),
            t.preemptions.to_string(),
            t.migrations.to_string(),
        ]);
    }
    let to = &r.totals;
    rows.push(vec![
        "all".to_string(),
        to.jobs.to_string(),
        to.completed.to_string(),
        to.aborted.to_string(),
        to.unfinished.to_string(),
        to.misses.to_string(),
        percent(to.miss_ratio),
        opt_ns(to.max_response),
        String::new(),
        human_ns(to.max_tardiness as f64),
        to.preemptions.to_string(),
        to.migrations.to_string(),
    ]);
    out.push_str(&table(&rows));

    out.push('\n');
    let mut rows =
        vec![["cpu", "busy", "utilisation", "switches", "overhead"].iter().map(|s| s.to_string()).collect::<Vec<_>>()];
    for c in &r.cpus {
        rows.push(vec![
            c.cpu.to_string(),
            human_ns(c.busy as f64),
            percent(c.utilization),
            c.switches.to_string(),
            human_ns(c.overhead as f64),
        ]);
    }
    rows.push(vec![
        "all".to_string(),
        human_ns(to.busy as f64),
        percent(to.utilization),
        r.cpus.iter().map(|c| c.switches).sum::<u64>().to_string(),
        human_ns(to.overhead as f64),
    ]);
    out.push_str(&table(&rows));

    if !r.overheads.is_empty() {
        out.push('\n');
        let mut rows =
            vec![["overhead", "count", "total", "max", "mean"].iter().map(|s| s.to_string()).collect::<Vec<_>>()];
        for o in &r.overheads {
            rows.push(vec![
                o.kind.name().to_string(),
                o.count.to_string(),
                human_ns(o.total as f64),
                human_ns(o.max as f64),
                human_ns(o.total as f64 / o.count as f64),
            ]);
        }
        out.push_str(&table(&rows));
    }
    if !r.mtts.is_empty() {
        out.push('\n');
        let mut rows = vec![["mtt", "jobs", "max span", "mean span"].iter().map(|s| s.to_string()).collect::<Vec<_>>()];
        for m in &r.mtts {
            rows.push(vec![
                m.name.clone(),
                m.jobs.to_string(),
                opt_ns(m.max_span),
                m.mean_span.map_or_else(|| "-".to_string(), human_ns),
            ]);
        }
        out.push_str(&table(&rows));
    }
    if let Some(k) = &r.memory_token {
        out.push('\n');
        let _ = writeln!(
            out,
            "memory token: {} requests, {} grants, {} to the worker, {} phases preempted",
            k.requests, k.grants, k.worker_grants, k.preemptions
        );
        let mut rows =
            vec![["latency", "count", "mean", "p50", "p99", "max"].iter().map(|s| s.to_string()).collect::<Vec<_>>()];
        for (name, l) in [("request to grant", &k.wait), ("grant to run", &k.grant_to_run)] {
            if let Some(l) = l {
                rows.push(vec![
                    name.to_string(),
                    l.count.to_string(),
                    human_ns(l.mean),
                    human_ns(l.p50 as f64),
                    human_ns(l.p99 as f64),
                    human_ns(l.max as f64),
                ]);
            }
        }
        if rows.len() > 1 {
            out.push_str(&table(&rows));
        }
    }

    out.push('\n');
    let _ = write!(out, "horizon {}, {} events", Duration(r.horizon), to.events);
    if to.implicit_releases > 0 {
        let _ = write!(out, ", {} jobs without a release event", to.implicit_releases);
    }
    if to.anomalies > 0 {
        let _ = write!(out, ", {} events that do not fit the schedule (run the validator)", to.anomalies);
    }
    out.push('\n');
    out
}
