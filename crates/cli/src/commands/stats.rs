//! `schedlab stats TRACE`: per-task statistics of a schedule, like LITMUS^RT's
//! st-job-stats, streamed (memory does not grow with the trace).

use crate::output::{write_out, CliError};
use schedlab_trace::export::stats::{render_stats, stats_json};
use schedlab_trace::metrics::Metrics;
use std::path::PathBuf;

/// Print per-task statistics of a trace: jobs, misses, response times,
/// tardiness, preemptions, migrations; per-CPU utilisation and overheads.
#[derive(clap::Args)]
#[command(after_help = "Examples:\n  schedlab stats out/demo.jsonl\n  schedlab stats out/demo.sltrace --json")]
pub struct Args {
    /// A trace file (JSON Lines or binary).
    trace: PathBuf,
    /// Write the per-job table as CSV to this file as well.
    #[arg(long)]
    jobs_csv: Option<PathBuf>,
}

pub fn run(a: Args, as_json: bool) -> i32 {
    match body(a, as_json) {
        Ok(code) => code,
        Err(e) => e.report("stats", as_json),
    }
}

fn body(a: Args, as_json: bool) -> Result<i32, CliError> {
    let bad = |e: String| CliError::bad_input(e).in_file(&a.trace);
    let reader = schedlab_trace::open(&a.trace).map_err(|e| bad(e.to_string()))?;
    let metrics = Metrics::from_header(reader.header());
    let header = reader.header().clone();
    let report = match &a.jobs_csv {
        None => metrics.run(reader).map(|(r, _)| r).map_err(|e| bad(e.to_string()))?,
        Some(p) => {
            let csv =
                schedlab_trace::export::csv::JobCsvWriter::for_header(Vec::new(), &header).expect("writing to memory");
            let (r, csv) = metrics.with_sink(csv).run(reader).map_err(|e| bad(e.to_string()))?;
            let bytes = csv.finish().expect("writing to memory");
            write_out(Some(p), &String::from_utf8_lossy(&bytes))?;
            r
        }
    };
    let text = if as_json { stats_json(&report) } else { render_stats(&report) };
    write_out(None, &text)?;
    Ok(0)
}
