//! `schedlab export TRACE`: convert a trace to Perfetto JSON, an SVG Gantt
//! chart, a CSV job table, or the other trace encoding.

use crate::output::{print_json, write_file, write_file_with, CliError};
use schedlab_model::Duration;
use schedlab_trace::export::{csv::jobs_csv, perfetto::perfetto_json, svg::render_svg, svg::SvgOptions};
use schedlab_trace::{Event, Header};
use std::path::PathBuf;

/// Export a trace: Chrome/Perfetto JSON (open it at ui.perfetto.dev), an SVG
/// Gantt chart, the per-job CSV table, or a re-encoded trace.
#[derive(clap::Args)]
#[command(
    after_help = "Examples:\n  schedlab export out/demo.jsonl --perfetto out/demo.perfetto.json --svg out/demo.svg\n  schedlab export out/demo.sltrace --csv out/jobs.csv\n  schedlab export out/demo.jsonl --svg out/start.svg --start 0 --end 200ms\n  schedlab export out/demo.jsonl --trace out/demo.sltrace   # JSON Lines to binary"
)]
pub struct Args {
    /// A trace file (JSON Lines or binary).
    trace: PathBuf,
    /// Chrome / Perfetto trace-event JSON.
    #[arg(long)]
    perfetto: Option<PathBuf>,
    /// SVG Gantt chart.
    #[arg(long)]
    svg: Option<PathBuf>,
    /// Per-job CSV table.
    #[arg(long)]
    csv: Option<PathBuf>,
    /// The trace re-encoded (the extension chooses: .jsonl text, .sltrace binary).
    #[arg(long = "trace")]
    reencode: Option<PathBuf>,
    /// SVG: first instant shown.
    #[arg(long)]
    start: Option<Duration>,
    /// SVG: last instant shown.
    #[arg(long)]
    end: Option<Duration>,
    /// SVG: width in pixels.
    #[arg(long, default_value_t = 1200)]
    width: u32,
}

fn load(path: &PathBuf) -> Result<(Header, Vec<Event>), CliError> {
    schedlab_trace::read_all(path).map_err(|e| CliError::bad_input(e.to_string()).in_file(path))
}

pub fn run(a: Args, as_json: bool) -> i32 {
    match body(a) {
        Ok(written) => {
            if as_json {
                print_json(&serde_json::json!({ "written": written }));
            }
            0
        }
        Err(e) => e.report("export", as_json),
    }
}

/// Every output is computed before the first is written.
fn body(a: Args) -> Result<Vec<PathBuf>, CliError> {
    if a.perfetto.is_none() && a.svg.is_none() && a.csv.is_none() && a.reencode.is_none() {
        return Err(
            CliError::bad_input("nothing to do").hint("give --perfetto, --svg, --csv or --trace with an output file")
        );
    }
    if let Some(p) = &a.reencode {
        schedlab_trace::Encoding::from_path(p)
            .map_err(|e| CliError::option("--trace", e.to_string()).hint("use a .jsonl or .sltrace file name"))?;
    }
    let (header, events) = load(&a.trace)?;
    let mut outputs: Vec<(PathBuf, String)> = Vec::new();
    if let Some(p) = a.perfetto {
        outputs.push((p, perfetto_json(&header, &events)));
    }
    if let Some(p) = a.svg {
        let opts = SvgOptions {
            start: a.start.map(|d| d.0),
            end: a.end.map(|d| d.0),
            width: a.width,
            ..SvgOptions::default()
        };
        outputs.push((p, render_svg(&header, &events, &opts)));
    }
    if let Some(p) = a.csv {
        outputs.push((p, jobs_csv(&header, &events)));
    }
    let mut written = Vec::new();
    if let Some(p) = a.reencode {
        let encoding = schedlab_trace::Encoding::from_path(&p).expect("checked above");
        write_file_with(&p, |w| {
            let mut tw = schedlab_trace::TraceWriter::new(w, encoding, &header).map_err(std::io::Error::other)?;
            for e in &events {
                tw.write_event(e).map_err(std::io::Error::other)?;
            }
            tw.finish().map_err(std::io::Error::other)?;
            Ok(())
        })?;
        written.push(p);
    }
    for (p, text) in outputs {
        write_file(&p, text.as_bytes())?;
        written.push(p);
    }
    Ok(written)
}
