//! `schedlab import FORMAT ...`: other tools' files into schedlab's: a
//! LITMUS^RT sched_trace or a Linux scheduler recording into a trace,
//! feather-trace samples into the overhead CSV, an rt-app workload or a SimSo
//! configuration into a spec (`docs/interop.md`).

use crate::output::{load_spec, print_json, write_or_embed, CliError, PendingFile};
use schedlab_interop::{feather_trace, ftrace, rtapp, sched_trace, simso, At, InteropError};
use schedlab_trace::{Encoding, Event, Header, TraceWriter};
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

/// Import another tool's file: a trace, an overhead CSV or a spec.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    what: What,
}

#[derive(clap::Subcommand)]
enum What {
    /// LITMUS^RT sched_trace files (st-*.bin, one per CPU) → a schedlab trace.
    #[command(
        name = "sched-trace",
        after_help = "Examples:\n  schedlab import sched-trace st-0.bin st-1.bin --plugin GSN-EDF -o run.jsonl\n  schedlab validate run.jsonl\n\nPlugins: GSN-EDF (gedf), PSN-EDF (pedf), P-FP (pfp), PFAIR (pd2), C-EDF (cedf; give --cluster-size)."
    )]
    SchedTrace {
        /// The per-CPU files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// The LITMUS^RT plugin of the run (or a schedlab policy name).
        #[arg(long)]
        plugin: String,
        /// CPUs of the platform [default: the highest CPU in the records + 1].
        #[arg(long)]
        cpus: Option<u32>,
        /// C-EDF: CPUs per cluster.
        #[arg(long)]
        cluster_size: Option<u32>,
        /// The trace to write (.jsonl or .sltrace).
        #[arg(short, long)]
        output: PathBuf,
    },
    /// feather-trace overhead samples (ft2csv's input) → the overhead CSV.
    #[command(
        name = "feather-trace",
        after_help = "Examples:\n  schedlab import feather-trace ft-cpu0.bin ft-cpu1.bin --tasks 20 --cycles-per-us 2400 -o oh.csv\n  schedlab import feather-trace ft.bin --tasks 20 --cycles-per-us 2400 --percentile 99.9 --iqr 1.5"
    )]
    FeatherTrace {
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// The TASK-COUNT of the row: the number of tasks of the measured system.
        #[arg(long)]
        tasks: u64,
        /// Clock rate of the timestamps (the TSC): cycles per µs.
        #[arg(long)]
        cycles_per_us: f64,
        /// Write this percentile instead of the maximum.
        #[arg(long)]
        percentile: Option<f64>,
        /// Remove samples above Q3 + K·IQR first.
        #[arg(long, value_name = "K")]
        iqr: Option<f64>,
        /// The CSV [default: standard output].
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// A Linux scheduler recording (tracefs `trace`, `trace-cmd report`, `perf script`) → a schedlab trace.
    #[command(
        visible_aliases = ["trace-cmd", "perf"],
        after_help = "Examples:\n  schedlab import ftrace trace.txt --spec set.yaml -o run.jsonl\n  trace-cmd report > rep.txt && schedlab import trace-cmd rep.txt --spec set.yaml --map 'worker-*=ctrl' -o run.jsonl\n  schedlab import ftrace trace.txt --spec set.yaml --release marker --marker job-start -o run.jsonl\n  schedlab import ftrace trace.txt --spec set.yaml --release rt-app --skip 100ms -o run.jsonl\n\nThe summary (stderr, or --json) gives the longest wait of a job while a CPU it may use ran no mapped job\n(free_cpu_wait): use it for `schedlab validate --tolerance`."
    )]
    Ftrace {
        file: PathBuf,
        /// The spec the threads run (tasks, policy, platform).
        #[arg(long)]
        spec: PathBuf,
        /// PATTERN=TASK: threads whose name matches the glob (or pid:N) are TASK. Repeat. Default: a thread named like a task.
        #[arg(long = "map", value_name = "PATTERN=TASK")]
        map: Vec<String>,
        /// Where releases come from: `wakeup`, `marker`, or `rt-app` (rt-app's own job markers).
        #[arg(long, default_value = "wakeup")]
        release: String,
        /// With `--release marker`: the prefix of the trace_marker text that marks a release.
        #[arg(long, default_value = "release")]
        marker: String,
        /// Leave out this much of the schedule after the threads' set-up (a warm-up).
        #[arg(long, default_value = "0")]
        skip: schedlab_model::Duration,
        /// The trace to write (.jsonl or .sltrace).
        #[arg(short, long)]
        output: PathBuf,
    },
    /// An rt-app workload (JSON) → a spec.
    #[command(
        name = "rt-app",
        after_help = "Examples:\n  schedlab import rt-app workload.json --cpus 4 -o set.yaml\n  schedlab analyze set.yaml"
    )]
    RtApp {
        file: PathBuf,
        /// CPUs of the platform [default: the highest CPU in `cpus` + 1].
        #[arg(long)]
        cpus: Option<u32>,
        /// The spec to write (.yaml or .json) [default: standard output, YAML].
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// A SimSo configuration (XML) → a spec.
    #[command(after_help = "Examples:\n  schedlab import simso config.xml -o set.yaml\n  schedlab simulate set.yaml")]
    Simso {
        file: PathBuf,
        /// The spec to write (.yaml or .json) [default: standard output, YAML].
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
}

/// The CLI error of an interop error: the file, and the byte offset (as
/// `byte N`) or the line; exit 2 (bad input; an unreadable input file too).
pub fn cli_error(e: InteropError) -> CliError {
    let mut c = CliError::bad_input(e.msg);
    if !e.file.is_empty() {
        c = c.in_file(&e.file);
    }
    match e.at {
        Some(At::Byte(n)) => c.at(format!("byte {n}")),
        Some(At::Line(n)) => c.on_line(n as usize),
        None => c,
    }
}

/// A trace written through a [`PendingFile`]: renamed into place by
/// [`PendingTrace::commit`], removed if dropped before.
struct PendingTrace {
    file: PendingFile,
    path: PathBuf,
    w: TraceWriter<BufWriter<File>>,
}

impl PendingTrace {
    fn create(path: &Path, header: &Header) -> Result<PendingTrace, CliError> {
        let enc = Encoding::from_path(path)
            .map_err(|e| CliError::option("--output", e.to_string()).hint("use a .jsonl or .sltrace file name"))?;
        let (file, f) = PendingFile::create(path)?;
        let w = TraceWriter::new(BufWriter::with_capacity(1 << 16, f), enc, header)
            .map_err(|e| CliError::new(crate::output::exit::NEGATIVE, e.to_string()).in_file(path))?;
        Ok(PendingTrace { file, path: path.to_path_buf(), w })
    }
    fn push(&mut self, ev: &Event) -> Result<(), CliError> {
        self.w
            .write_event(ev)
            .map_err(|e| CliError::new(crate::output::exit::NEGATIVE, e.to_string()).in_file(&self.path))
    }
    fn commit(self) -> Result<(), CliError> {
        self.w.finish().map_err(|e| CliError::new(crate::output::exit::NEGATIVE, e.to_string()).in_file(&self.path))?;
        self.file.commit()
    }
}

fn spec_text(spec: &schedlab_model::Spec, output: Option<&Path>) -> String {
    let json = output.and_then(|p| p.extension()).is_some_and(|e| e.eq_ignore_ascii_case("json"));
    if json {
        schedlab_model::emit::to_json(spec)
    } else {
        schedlab_model::emit::to_yaml(spec)
    }
}

pub fn run(a: Args, as_json: bool) -> i32 {
    match run_inner(a, as_json) {
        Ok(summary) => {
            if as_json {
                print_json(&summary);
            }
            0
        }
        Err(e) => e.report("import", as_json),
    }
}

fn run_inner(a: Args, as_json: bool) -> Result<serde_json::Value, CliError> {
    match a.what {
        What::SchedTrace { files, plugin, cpus, cluster_size, output } => {
            let policy = sched_trace::import::plugin_policy(&plugin).map_err(|e| cli_error(e).at("--plugin"))?;
            let opts = sched_trace::import::Options { policy: Some(policy), cpus, cluster_size };
            let scan = sched_trace::import::scan(&files, &opts).map_err(cli_error)?;
            let mut out = PendingTrace::create(&output, &scan.header)?;
            let mut werr = None;
            let stats = scan
                .events(&mut |ev| {
                    out.push(&ev).map_err(|e| {
                        werr = Some(e);
                        InteropError::usage("write failed")
                    })
                })
                .map_err(|e| werr.take().unwrap_or_else(|| cli_error(e)))?;
            out.commit()?;
            if !as_json {
                eprintln!(
                    "schedlab import: {} records → {} events, {} tasks on {} CPUs; {} before the start, dropped: {:?}",
                    stats.records,
                    stats.events,
                    scan.header.spec.tasks.len(),
                    scan.header.spec.platform.cpus,
                    stats.before_start,
                    stats.dropped
                );
            }
            Ok(with_written(&stats, &output))
        }
        What::FeatherTrace { files, tasks, cycles_per_us, percentile, iqr, output } => {
            let s = feather_trace::read(&files, iqr).map_err(cli_error)?;
            let source: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
            let text = feather_trace::csv(
                &s,
                &feather_trace::CsvOptions { tasks, cycles_per_us, percentile, iqr },
                &source.join(" "),
            )
            .map_err(cli_error)?;
            let (written, text) = write_or_embed(output.as_deref(), text, as_json)?;
            Ok(serde_json::json!({
                "written": written, "text": text, "records": s.records, "ignored": s.ignored, "counts": s.counts,
            }))
        }
        What::Ftrace { file, spec, map, release, marker, skip, output } => {
            let loaded = load_spec(&spec)?;
            let mut pairs = Vec::new();
            for m in map {
                let (p, t) = m.split_once('=').ok_or_else(|| {
                    CliError::option("--map", format!("`{m}` is not PATTERN=TASK"))
                        .hint("e.g. --map 'worker-*=ctrl' or --map pid:4242=ctrl")
                })?;
                pairs.push((p.to_string(), t.to_string()));
            }
            let release = match release.as_str() {
                "wakeup" => ftrace::Release::Wakeup,
                "marker" => ftrace::Release::Marker(marker),
                "rt-app" => ftrace::Release::RtApp,
                o => return Err(CliError::option("--release", format!("`{o}`: use wakeup, marker or rt-app"))),
            };
            let opts = ftrace::Options { map: pairs, release, skip: skip.0 };
            let mut out: Option<PendingTrace> = None;
            let mut werr = None;
            let mut write = |h: &Header, ev: Option<Event>| -> Result<(), CliError> {
                if out.is_none() {
                    out = Some(PendingTrace::create(&output, h)?);
                }
                match ev {
                    Some(ev) => out.as_mut().expect("created").push(&ev),
                    None => Ok(()),
                }
            };
            let stats = ftrace::import(&file, &loaded.spec, &opts, &mut |h, ev| {
                write(h, ev).map_err(|e| {
                    werr = Some(e);
                    InteropError::usage("write failed")
                })
            })
            .map_err(|e| werr.take().unwrap_or_else(|| cli_error(e)))?;
            out.expect("the header was written").commit()?;
            if !as_json {
                let l = &stats.free_cpu_wait;
                eprintln!(
                    "schedlab import: {} lines, {} jobs, {} events; waits with a free CPU: n={} max={}ns mean={:.0}ns p99={}ns; release jitter {}ns{}",
                    stats.lines,
                    stats.jobs,
                    stats.events_written,
                    l.count,
                    l.max,
                    l.mean,
                    l.p99,
                    stats.release_jitter,
                    if stats.inferred_switches > 0 { format!("; {} switch-ins inferred", stats.inferred_switches) } else { String::new() }
                );
                if let Some(line) = stats.first_missing_switch {
                    eprintln!(
                        "schedlab import: warning: the recording lost {} switches of mapped threads (first seen at line {line}): jobs may be missing; record again (perf drops events without saying so)",
                        stats.missing_switches
                    );
                }
            }
            Ok(with_written(&stats, &output))
        }
        What::RtApp { file, cpus, output } => {
            let (spec, notes) = rtapp::import(&file, &rtapp::ImportOptions { cpus }).map_err(cli_error)?;
            let (written, text) = write_or_embed(output.as_deref(), spec_text(&spec, output.as_deref()), as_json)?;
            if !as_json {
                for n in &notes.notes {
                    eprintln!("schedlab import: note: {n}");
                }
            }
            Ok(serde_json::json!({ "written": written, "text": text, "tasks": spec.tasks.len(), "notes": notes.notes }))
        }
        What::Simso { file, output } => {
            let (spec, notes) = simso::import(&file).map_err(cli_error)?;
            let (written, text) = write_or_embed(output.as_deref(), spec_text(&spec, output.as_deref()), as_json)?;
            if !as_json {
                for n in &notes {
                    eprintln!("schedlab import: note: {n}");
                }
            }
            Ok(serde_json::json!({ "written": written, "text": text, "tasks": spec.tasks.len(), "notes": notes }))
        }
    }
}

/// An import's statistics under `--json`, with the trace it wrote.
fn with_written(stats: &impl serde::Serialize, output: &std::path::Path) -> serde_json::Value {
    let mut v = serde_json::to_value(stats).expect("stats serialize");
    v["written"] = serde_json::json!([output]);
    v
}
