//! `schedlab simulate SPEC`: run the spec's policy in the discrete-event
//! simulator, print per-task statistics, and write the trace and exports.

use crate::output::{print_json, write_out};
use crate::EXIT_BAD_INPUT;
use schedlab_model::{load_path, Duration};
use schedlab_sim::{Arrivals, Execution, MissPolicy, SimConfig, Sporadic};
use schedlab_trace::export::stats::{render_stats, stats_json};
use schedlab_trace::export::{csv::JobCsvWriter, perfetto::perfetto_json, svg::render_svg, svg::SvgOptions};
use schedlab_trace::{Event, Metrics, TraceError};
use std::path::PathBuf;

/// Simulate the spec under its policy. Prints per-task statistics (jobs,
/// misses, response times, tardiness, preemptions, migrations) and writes the
/// trace and its exports on request. Memory stays flat in the number of jobs
/// unless --perfetto or --svg asks for the whole schedule.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  schedlab simulate examples/demo.yaml
  schedlab simulate examples/demo.yaml --trace out/demo.jsonl --svg out/demo.svg --perfetto out/demo.perfetto.json
  schedlab simulate set.yaml --horizon 10s --exec uniform --sporadic uniform:5ms --seed 3 --validate
  schedlab simulate set.yaml --miss abort --json")]
pub struct Args {
    /// The spec file.
    spec: PathBuf,
    /// End of the simulation [default: hyperperiod + largest offset, capped by --horizon-cap].
    #[arg(long)]
    horizon: Option<Duration>,
    /// Cap on the computed horizon.
    #[arg(long, default_value = "10s")]
    horizon_cap: Duration,
    /// Seed of every random choice (sporadic arrivals, execution times, jitter).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Execution time of each job: `wcet`, or `uniform` in [bcet, wcet] (a task's `executions` list always wins).
    #[arg(long, default_value = "wcet")]
    exec: String,
    /// Extra inter-arrival beyond the period: `none`, `uniform:MAX` or `exponential:MEAN`.
    #[arg(long, default_value = "none")]
    sporadic: String,
    /// Ignore the tasks' release jitter.
    #[arg(long)]
    no_jitter: bool,
    /// A job that misses its deadline: `continue` (default), `abort` at the deadline, or `skip` releases while it is late.
    #[arg(long, default_value = "continue")]
    miss: String,
    /// Ignore the spec's overhead model.
    #[arg(long)]
    no_overheads: bool,
    /// Tick period for tick overhead (0 disables ticks).
    #[arg(long, default_value = "1ms")]
    tick: Duration,
    /// Write the trace (.jsonl text or .sltrace binary).
    #[arg(long)]
    trace: Option<PathBuf>,
    /// Write Chrome / Perfetto trace JSON.
    #[arg(long)]
    perfetto: Option<PathBuf>,
    /// Write an SVG Gantt chart.
    #[arg(long)]
    svg: Option<PathBuf>,
    /// Write the per-job table as CSV.
    #[arg(long)]
    csv: Option<PathBuf>,
    /// Check the schedule with the validator while simulating (exit 1 on a violation).
    #[arg(long)]
    validate: bool,
}

fn config(a: &Args) -> Result<SimConfig, String> {
    let execution: Execution = a.exec.parse().map_err(|e| format!("--exec {e}"))?;
    let sporadic: Sporadic = a.sporadic.parse().map_err(|e| format!("--sporadic {e}"))?;
    let miss: MissPolicy = a.miss.parse().map_err(|e| format!("--miss {e}"))?;
    Ok(SimConfig {
        horizon: a.horizon.map(|d| d.0),
        horizon_cap: a.horizon_cap.0,
        seed: a.seed,
        arrivals: Arrivals { sporadic, ignore_jitter: a.no_jitter },
        execution,
        miss,
        spec_overheads: !a.no_overheads,
        spec_dir: a.spec.parent().map(PathBuf::from).unwrap_or_else(|| PathBuf::from(".")),
        tick: a.tick.0,
        // Policy events (RUN's server choices, ...) only feed the trace and
        // the exports; the statistics do not read them.
        policy_events: a.trace.is_some() || a.svg.is_some() || a.perfetto.is_some(),
        ..SimConfig::default()
    })
}

pub fn run(a: Args, as_json: bool) -> i32 {
    let bad = |msg: String| {
        if as_json {
            print_json(&serde_json::json!({"error": msg}));
        }
        eprintln!("schedlab simulate: {msg}");
        EXIT_BAD_INPUT
    };
    let loaded = match load_path(&a.spec) {
        Ok(l) => l,
        Err(e) => {
            if as_json {
                print_json(&serde_json::json!({"file": e.file, "valid": false, "errors": e.diagnostics}));
            }
            eprintln!("{e}");
            return EXIT_BAD_INPUT;
        }
    };
    let spec = loaded.spec;
    if spec.policy.is_none() {
        return bad(format!("{}: the spec has no `policy`; add e.g. `policy: {{name: gedf}}`", a.spec.display()));
    }
    let cfg = match config(&a) {
        Ok(c) => c,
        Err(e) => return bad(e),
    };
    let mut policy = match schedlab_policy::build(&spec, None) {
        Ok(p) => p,
        Err(e) => return bad(format!("{}: {e}", a.spec.display())),
    };
    let header = schedlab_sim::header(&spec, policy.info(), &cfg);

    let mut writer = match &a.trace {
        None => None,
        Some(p) => match schedlab_trace::create(p, &header) {
            Ok(w) => Some(w),
            Err(e) => return bad(format!("{}: {e}", p.display())),
        },
    };
    let mut validator = if a.validate {
        match schedlab_validate::Validator::new(
            &header,
            &schedlab_validate::Options::default(),
            Some(match schedlab_policy::build(&spec, Some(&header.placement)) {
                Ok(p) => p,
                Err(e) => return bad(e.to_string()),
            }),
        ) {
            Ok(v) => Some(v),
            Err(e) => return bad(e.to_string()),
        }
    } else {
        None
    };
    let keep = a.perfetto.is_some() || a.svg.is_some();
    let mut events: Vec<Event> = Vec::new();
    let csv = a.csv.as_ref().map(|_| JobCsvWriter::for_header(Vec::new(), &header).expect("writing to memory"));
    let mut metrics = Metrics::from_header(&header).with_sink(csv);
    let mut failure: Option<String> = None;
    let result = schedlab_sim::simulate(&spec, policy.as_mut(), &cfg, &mut |e: &Event| {
        metrics.push(e);
        if let Some(w) = writer.as_mut() {
            if let Err(err) = w.write_event(e) {
                failure.get_or_insert_with(|| err.to_string());
            }
        }
        if let Some(v) = validator.as_mut() {
            if let Err(err) = v.push(e.clone()) {
                failure.get_or_insert_with(|| format!("validator: {err}"));
            }
        }
        if keep {
            events.push(e.clone());
        }
    });
    if let Err(e) = result {
        return bad(format!("{}: {e}", a.spec.display()));
    }
    if let Some(f) = failure {
        eprintln!("schedlab simulate: {f}");
        return 1;
    }
    if let Some(w) = writer {
        if let Err(e) = w.finish().map(|_| ()) {
            eprintln!("schedlab simulate: {}", TraceError::to_string(&e));
            return 1;
        }
    }
    let (report, csv) = metrics.finish();
    let mut outputs: Vec<(PathBuf, String)> = Vec::new();
    if let (Some(p), Some(csv)) = (&a.csv, csv) {
        outputs.push((p.clone(), String::from_utf8_lossy(&csv.finish().expect("writing to memory")).into_owned()));
    }
    if let Some(p) = &a.perfetto {
        outputs.push((p.clone(), perfetto_json(&header, &events)));
    }
    if let Some(p) = &a.svg {
        outputs.push((p.clone(), render_svg(&header, &events, &SvgOptions::default())));
    }
    for (p, text) in outputs {
        if let Err(e) = write_out(Some(&p), &text) {
            eprintln!("schedlab simulate: cannot write {}: {e}", p.display());
            return 1;
        }
    }
    let verdict = validator.map(|v| v.finish());
    if as_json {
        let mut v: serde_json::Value = serde_json::from_str(&stats_json(&report)).expect("stats are JSON");
        if let Some(r) = &verdict {
            v["validation"] = serde_json::to_value(r).expect("reports serialize");
        }
        print_json(&v);
    } else {
        print!("{}", render_stats(&report));
        if let Some(r) = &verdict {
            println!();
            print!("{}", r.render());
        }
    }
    match verdict {
        Some(r) if !r.pass => 1,
        _ => 0,
    }
}
