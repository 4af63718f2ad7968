//! `schedlab export TRACE`: convert a trace to Perfetto JSON, an SVG Gantt
//! chart, a CSV job table, or the other trace encoding.

use crate::output::write_out;
use crate::EXIT_BAD_INPUT;
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

fn load(path: &PathBuf) -> Result<(Header, Vec<Event>), String> {
    schedlab_trace::read_all(path).map_err(|e| format!("{}: {e}", path.display()))
}

pub fn run(a: Args, _json: bool) -> i32 {
    if a.perfetto.is_none() && a.svg.is_none() && a.csv.is_none() && a.reencode.is_none() {
        eprintln!("schedlab export: nothing to do; give --perfetto, --svg, --csv or --trace with an output file");
        return EXIT_BAD_INPUT;
    }
    let (header, events) = match load(&a.trace) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("schedlab export: {e}");
            return EXIT_BAD_INPUT;
        }
    };
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
    if let Some(p) = a.reencode {
        if let Err(e) = schedlab_trace::write_all(&p, &header, &events) {
            eprintln!("schedlab export: {}: {e}", p.display());
            return EXIT_BAD_INPUT;
        }
    }
    for (p, text) in outputs {
        if let Err(e) = write_out(Some(&p), &text) {
            eprintln!("schedlab export: cannot write {}: {e}", p.display());
            return 1;
        }
    }
    0
}
