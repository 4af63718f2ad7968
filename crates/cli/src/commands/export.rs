//! `schedlab export TRACE`: convert a trace to Perfetto JSON, an SVG Gantt
//! chart, a CSV job table, or the other trace encoding; and
//! `schedlab export FORMAT ...` for other tools' formats: a spec as an rt-app
//! workload or a SimSo configuration, a trace as LITMUS^RT sched_trace files.

use crate::output::write_out;
use crate::EXIT_BAD_INPUT;
use schedlab_interop::{rtapp, sched_trace, simso, InteropError};
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
    after_help = "Examples:\n  schedlab export out/demo.jsonl --perfetto out/demo.perfetto.json --svg out/demo.svg\n  schedlab export out/demo.sltrace --csv out/jobs.csv\n  schedlab export out/demo.jsonl --svg out/start.svg --start 0 --end 200ms\n  schedlab export out/demo.jsonl --trace out/demo.sltrace   # JSON Lines to binary\n  schedlab export rt-app set.yaml --duration 10s -o workload.json\n  schedlab export simso set.yaml -o config.xml\n  schedlab export sched-trace out/demo.jsonl -o st/"
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

fn load(path: &PathBuf) -> Result<(Header, Vec<Event>), String> {
    schedlab_trace::read_all(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// Other tools' formats.
#[derive(clap::Subcommand)]
enum Format {
    /// A spec as an rt-app workload (SCHED_FIFO for gfp / pfp, SCHED_DEADLINE for gedf).
    #[command(name = "rt-app")]
    RtApp {
        spec: PathBuf,
        /// How long the workload runs (each thread loops ⌈duration / period⌉ times).
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

fn other(f: Format, as_json: bool) -> Result<serde_json::Value, InteropError> {
    let load = |p: &PathBuf| {
        schedlab_model::load_path(p)
            .map(|l| l.spec)
            .map_err(|e| InteropError::file(&p.display().to_string(), e.to_string()))
    };
    let put = |o: Option<&PathBuf>, text: &str| {
        let name = o.map(|p| p.display().to_string()).unwrap_or_default();
        write_out(o.map(|p| p.as_path()), text).map_err(|e| InteropError::io(&name, e))
    };
    match f {
        Format::RtApp { spec, duration, fill, ftrace, output } => {
            let s = load(&spec)?;
            let text = rtapp::export(&s, &rtapp::ExportOptions { duration: duration.0, ftrace, fill })?;
            put(output.as_ref(), &text)?;
            Ok(serde_json::json!({ "tasks": s.tasks.len() }))
        }
        Format::Simso { spec, duration, output } => {
            let s = load(&spec)?;
            put(output.as_ref(), &simso::export(&s, duration.0)?)?;
            Ok(serde_json::json!({ "tasks": s.tasks.len() }))
        }
        Format::SchedTrace { trace, output } => {
            let name = trace.display().to_string();
            let mut r = schedlab_trace::open(&trace).map_err(|e| InteropError::from((name.clone(), e)))?;
            let header = r.header().clone();
            let cpus = header.spec.platform.cpus;
            std::fs::create_dir_all(&output).map_err(|e| InteropError::io(&output.display().to_string(), e))?;
            let pid = std::process::id();
            let tmp: Vec<PathBuf> = (0..cpus).map(|c| output.join(format!(".st-{c}.bin.{pid}.tmp"))).collect();
            let result = (|| -> Result<sched_trace::export::Stats, InteropError> {
                let mut outs = Vec::new();
                for p in &tmp {
                    let f = std::fs::File::create(p).map_err(|e| InteropError::io(&p.display().to_string(), e))?;
                    outs.push(std::io::BufWriter::new(f));
                }
                let mut x = sched_trace::export::Exporter::new(&header, outs)?;
                while let Some(ev) = r.read_event().map_err(|e| InteropError::from((name.clone(), e)))? {
                    x.push(ev)?;
                }
                let (_, stats) = x.finish()?;
                for (c, p) in tmp.iter().enumerate() {
                    let dst = output.join(format!("st-{c}.bin"));
                    std::fs::rename(p, &dst).map_err(|e| InteropError::io(&dst.display().to_string(), e))?;
                }
                Ok(stats)
            })();
            if result.is_err() {
                for p in &tmp {
                    let _ = std::fs::remove_file(p);
                }
            }
            let stats = result?;
            if !as_json && !stats.dropped.is_empty() {
                eprintln!("schedlab export: events sched_trace has no record for, left out: {:?}", stats.dropped);
            }
            Ok(serde_json::to_value(&stats).expect("stats serialize"))
        }
    }
}

pub fn run(a: Args, as_json: bool) -> i32 {
    if let Some(f) = a.format {
        return match other(f, as_json) {
            Ok(v) => {
                if as_json {
                    crate::output::print_json(&serde_json::json!({ "ok": true, "summary": v }));
                }
                0
            }
            Err(e) => {
                eprintln!("schedlab export: {e}");
                if e.io && e.file.is_empty() {
                    1
                } else {
                    EXIT_BAD_INPUT
                }
            }
        };
    }
    let Some(trace) = a.trace else {
        eprintln!("schedlab export: give a trace file, or a format (rt-app, simso, sched-trace)");
        return EXIT_BAD_INPUT;
    };
    if a.perfetto.is_none() && a.svg.is_none() && a.csv.is_none() && a.reencode.is_none() {
        eprintln!("schedlab export: nothing to do; give --perfetto, --svg, --csv or --trace with an output file");
        return EXIT_BAD_INPUT;
    }
    let (header, events) = match load(&trace) {
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
