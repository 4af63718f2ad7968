//! `schedlab stats TRACE`: per-task statistics of a schedule, like LITMUS^RT's
//! st-job-stats, streamed (memory does not grow with the trace).

use crate::output::write_out;
use crate::EXIT_BAD_INPUT;
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
    let reader = match schedlab_trace::open(&a.trace) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("schedlab stats: {}: {e}", a.trace.display());
            return EXIT_BAD_INPUT;
        }
    };
    let metrics = Metrics::from_header(reader.header());
    let header = reader.header().clone();
    let result = match &a.jobs_csv {
        None => metrics.run(reader).map(|(r, _)| r),
        Some(_) => {
            let csv =
                schedlab_trace::export::csv::JobCsvWriter::for_header(Vec::new(), &header).expect("writing to memory");
            match metrics.with_sink(csv).run(reader) {
                Ok((r, csv)) => {
                    let bytes = csv.finish().expect("writing to memory");
                    if let Err(e) = write_out(a.jobs_csv.as_deref(), &String::from_utf8_lossy(&bytes)) {
                        eprintln!("schedlab stats: cannot write the CSV: {e}");
                        return 1;
                    }
                    Ok(r)
                }
                Err(e) => Err(e),
            }
        }
    };
    match result {
        Ok(report) => {
            let text = if as_json { stats_json(&report) } else { render_stats(&report) };
            let _ = write_out(None, &text);
            0
        }
        Err(e) => {
            eprintln!("schedlab stats: {}: {e}", a.trace.display());
            EXIT_BAD_INPUT
        }
    }
}
