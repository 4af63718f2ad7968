//! `schedlab export TRACE`: convert a trace to Perfetto JSON, an SVG Gantt
//! chart, a CSV job table, or the other trace encoding; and
//! `schedlab export FORMAT ...` for other tools' formats: a spec as an rt-app
//! workload or a SimSo configuration, a trace as LITMUS^RT sched_trace files.

use crate::commands::import::cli_error;
use crate::output::{load_spec, print_json, write_file, write_file_with, write_or_embed, CliError, PendingFile};
use schedlab_interop::{rtapp, sched_trace, simso};
use schedlab_model::Duration;
use schedlab_trace::export::{csv::jobs_csv, perfetto::perfetto_json, svg::render_svg, svg::SvgOptions};
use schedlab_trace::{Event, Header};
use std::path::PathBuf;

/// Export a trace: Chrome/Perfetto JSON (open it at ui.perfetto.dev), an SVG
/// Gantt chart, the per-job CSV table, or a re-encoded trace.
#[derive(clap::Args)]
#[command(
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    after_help = "Examples:\n  schedlab export rt-app set.yaml --duration 10s -o workload.json\n  schedlab export simso set.yaml -o config.xml\n  schedlab export sched-trace out/demo.jsonl -o st/\n  schedlab export out/demo.jsonl --perfetto out/demo.perfetto.json --svg out/demo.svg\n  schedlab export out/demo.sltrace --csv out/jobs.csv\n  schedlab export out/demo.jsonl --svg out/start.svg --start 0 --end 200ms\n  schedlab export out/demo.jsonl --trace out/demo.sltrace   # JSON Lines to binary"
)]
pub struct Args {
    #[command(subcommand)]
    format: Option<Format>,
    /// A trace file (JSON Lines or binary).
    #[arg(required = true)]
    trace: Option<PathBuf>,
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

/// Other tools' formats.
#[derive(clap::Subcommand)]
enum Format {
    /// A spec as an rt-app workload (SCHED_FIFO for gfp / pfp, SCHED_DEADLINE for gedf).
    #[command(name = "rt-app")]
    RtApp {
        spec: PathBuf,
        /// How long the workload runs (each thread runs ⌈duration / period⌉ steps, its jobs).
        #[arg(long, default_value = "10s")]
        duration: Duration,
        /// The share of the WCET each job executes, in (0, 1].
        #[arg(long, default_value_t = 1.0)]
        fill: f64,
        /// Ask rt-app to write its own trace_marker lines.
        #[arg(long)]
        ftrace: bool,
        /// The workload [default: standard output].
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// A spec as a SimSo configuration (XML).
    Simso {
        spec: PathBuf,
        /// The simulated duration.
        #[arg(long, default_value = "1s")]
        duration: Duration,
        /// The configuration [default: standard output].
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// A trace as LITMUS^RT sched_trace files, one per CPU (DIR/st-<cpu>.bin).
    #[command(name = "sched-trace")]
    SchedTrace {
        trace: PathBuf,
        /// The folder for the files (created if missing).
        #[arg(short, long)]
        output: PathBuf,
    },
}

fn other(f: Format, as_json: bool) -> Result<serde_json::Value, CliError> {
    match f {
        Format::RtApp { spec, duration, fill, ftrace, output } => {
            let s = load_spec(&spec)?.spec;
            let text = rtapp::export(&s, &rtapp::ExportOptions { duration: duration.0, ftrace, fill })
                .map_err(|e| cli_error(e).in_file(&spec))?;
            spec_export(s.tasks.len(), output, text, as_json)
        }
        Format::Simso { spec, duration, output } => {
            let s = load_spec(&spec)?.spec;
            let text = simso::export(&s, duration.0).map_err(|e| cli_error(e).in_file(&spec))?;
            spec_export(s.tasks.len(), output, text, as_json)
        }
        Format::SchedTrace { trace, output } => {
            let mut r = schedlab_trace::open(&trace).map_err(|e| CliError::bad_input(e.to_string()).in_file(&trace))?;
            let header = r.header().clone();
            let mut pending = Vec::new();
            let mut outs = Vec::new();
            let mut written = Vec::new();
            for c in 0..header.spec.platform.cpus {
                let path = output.join(format!("st-{c}.bin"));
                let (p, f) = PendingFile::create(&path)?;
                written.push(path);
                pending.push(p);
                outs.push(std::io::BufWriter::new(f));
            }
            let mut x = sched_trace::export::Exporter::new(&header, outs).map_err(cli_error)?;
            while let Some(ev) = r.read_event().map_err(|e| CliError::bad_input(e.to_string()).in_file(&trace))? {
                x.push(ev).map_err(cli_error)?;
            }
            let (_, stats) = x.finish().map_err(cli_error)?;
            for p in pending {
                p.commit()?;
            }
            if !as_json && !stats.dropped.is_empty() {
                eprintln!("schedlab export: events sched_trace has no record for, left out: {:?}", stats.dropped);
            }
            Ok(serde_json::json!({ "written": written, "records": stats.records, "dropped": stats.dropped }))
        }
    }
}

/// `export rt-app|simso` with `--json`: `{"written", "tasks", "text"}`, where
/// `text` is the export itself when no file was given, else null.
fn spec_export(
    tasks: usize,
    output: Option<PathBuf>,
    text: String,
    as_json: bool,
) -> Result<serde_json::Value, CliError> {
    let (written, text) = write_or_embed(output.as_deref(), text, as_json)?;
    Ok(serde_json::json!({ "written": written, "tasks": tasks, "text": text }))
}

pub fn run(a: Args, as_json: bool) -> i32 {
    if let Some(f) = a.format {
        return match other(f, as_json) {
            Ok(v) => {
                if as_json {
                    print_json(&v);
                }
                0
            }
            Err(e) => e.report("export", as_json),
        };
    }
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
    let trace = a.trace.ok_or_else(|| {
        CliError::bad_input("no trace given").hint("give a trace file, or a format: rt-app, simso, sched-trace")
    })?;
    let (header, events) = load(&trace)?;
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
