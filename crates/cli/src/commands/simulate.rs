//! `schedlab simulate SPEC`: run the spec's policy in the discrete-event
//! simulator, print per-task statistics, and write the trace and exports.

use crate::output::{exit, print_json, write_files, CliError, PendingFile};
use crate::policy_args::PolicyArgs;
use schedlab_model::Duration;
use schedlab_sim::{Arrivals, Execution, MissPolicy, Outputs, Session, SessionError, SimConfig, Sporadic};
use schedlab_trace::export::stats::render_stats;
use schedlab_trace::export::{csv::JobCsvWriter, perfetto::perfetto_json, svg::render_svg, svg::SvgOptions};
use schedlab_trace::{Encoding, TraceWriter};
use std::path::PathBuf;

/// Simulate the spec under its policy. Prints per-task statistics (jobs,
/// misses, response times, tardiness, preemptions, migrations) and writes the
/// trace and its exports on request. Memory stays flat in the number of jobs
/// unless --perfetto or --svg asks for the whole schedule. Exit code 0, or 1
/// when --validate finds a violation or, with --fail-on-miss, an `hrt` task
/// misses a deadline; 2 for bad input (nothing written).
#[derive(clap::Args)]
#[command(after_help = "Examples:
  schedlab simulate examples/demo.yaml
  schedlab simulate examples/demo.yaml --trace out/demo.jsonl --svg out/demo.svg --perfetto out/demo.perfetto.json
  schedlab simulate set.yaml --horizon 10s --exec uniform --sporadic uniform:5ms --seed 3 --validate
  schedlab simulate set.yaml --miss abort --json
  schedlab simulate set.yaml --policy pd2 --set quantum=500us --fail-on-miss")]
pub struct Args {
    /// The spec file.
    spec: PathBuf,
    #[command(flatten)]
    policy: PolicyArgs,
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
    /// Ignore the spec's cache: no platform model (no slowdowns, no model CPMD, no counters).
    #[arg(long)]
    no_platform_model: bool,
    /// The platform model's cost of a shared-cache miss, in cycles (default 200); 0 counts misses without slowing jobs.
    #[arg(long, value_name = "CYCLES")]
    miss_cycles: Option<f64>,
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
    /// Exit 1 when a task of class `hrt` misses a deadline.
    #[arg(long)]
    fail_on_miss: bool,
}

fn config(a: &Args) -> Result<SimConfig, CliError> {
    let execution = a.exec.parse::<Execution>().map_err(|e| CliError::option("--exec", e.to_string()))?;
    let sporadic = a.sporadic.parse::<Sporadic>().map_err(|e| CliError::option("--sporadic", e.to_string()))?;
    let miss = a.miss.parse::<MissPolicy>().map_err(|e| CliError::option("--miss", e.to_string()))?;
    let mut calibration = SimConfig::default().calibration;
    if let Some(c) = a.miss_cycles {
        if !(c.is_finite() && c >= 0.0) {
            return Err(CliError::option("--miss-cycles", format!("{c} is not a number of cycles ≥ 0, e.g. `200`")));
        }
        calibration.miss_cycles = c;
    }
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
        platform_model: !a.no_platform_model,
        calibration,
        // Policy events (RUN's server choices, ...) only feed the trace, the
        // exports and --validate (whose replay answers a policy's counter
        // readings from their samples); the statistics do not read them.
        policy_events: a.trace.is_some() || a.svg.is_some() || a.perfetto.is_some() || a.validate,
        ..SimConfig::default()
    })
}

pub fn run(a: Args, as_json: bool) -> i32 {
    match body(a, as_json) {
        Ok(code) => code,
        Err(e) => e.report("simulate", as_json),
    }
}

fn body(a: Args, as_json: bool) -> Result<i32, CliError> {
    let loaded = a.policy.load(&a.spec)?;
    let cfg = config(&a)?;
    let session_error = |e: SessionError| match e {
        SessionError::Spec { path, message } => CliError::bad_input(message).in_file(&a.spec).at(path),
        SessionError::Admission(m) => CliError::bad_input(m).in_file(&a.spec),
        SessionError::Sim(schedlab_sim::SimError::Overheads(e)) => CliError::spec(&e),
        SessionError::Sim(e @ schedlab_sim::SimError::Policy { .. }) => {
            CliError::new(exit::NEGATIVE, e.to_string()).in_file(&a.spec)
        }
        SessionError::Sim(e) => CliError::bad_input(e.to_string()).in_file(&a.spec),
        SessionError::Trace(e) => CliError::new(exit::NEGATIVE, e.to_string()),
    };
    let modelled = cfg.platform_model && loaded.spec.platform.cache.is_some();
    let session = Session::new(loaded.spec, cfg).map_err(session_error)?;
    for n in session.notices() {
        eprintln!("note: {n}");
    }
    let header = session.header().clone();
    let mut validator = if a.validate {
        let policy = schedlab_policy::build(session.spec(), Some(&header.placement))
            .map_err(|e| CliError::bad_input(e.to_string()).in_file(&a.spec))?;
        Some(
            schedlab_validate::Validator::new(&header, &schedlab_validate::Options::default(), Some(policy))
                .map_err(|e| CliError::bad_input(e.to_string()).in_file(&a.spec))?,
        )
    } else {
        None
    };
    // The trace streams into a temporary file, renamed into place at the end.
    let (pending, trace) = match &a.trace {
        None => (None, None),
        Some(p) => {
            let encoding = Encoding::from_path(p).map_err(|e| {
                CliError::option("--trace", e.to_string()).hint("use a .jsonl (text) or .sltrace (binary) file name")
            })?;
            let (pending, file) = PendingFile::create(p)?;
            let w = TraceWriter::new(std::io::BufWriter::with_capacity(1 << 16, file), encoding, &header)
                .map_err(|e| CliError::new(exit::NEGATIVE, e.to_string()).in_file(p))?;
            (Some(pending), Some(w))
        }
    };
    let keep = a.perfetto.is_some() || a.svg.is_some();
    let csv = a.csv.as_ref().map(|_| JobCsvWriter::for_header(Vec::new(), &header).expect("writing to memory"));
    let mut invalid: Option<String> = None;
    let mut spread = spread_meter(session.spec());
    let observing = spread.is_some() || validator.is_some();
    let mut observe = |e: &schedlab_trace::Event| {
        if let Some(m) = spread.as_mut() {
            m.push(e);
        }
        if let Some(v) = validator.as_mut() {
            if let Err(err) = v.push(e.clone()) {
                invalid.get_or_insert_with(|| format!("validator: {err}"));
            }
        }
    };
    // Without an observer (and without a trace, exports or a job table)
    // the simulator builds no events at all.
    let observer: Option<&mut dyn FnMut(&schedlab_trace::Event)> = if observing { Some(&mut observe) } else { None };
    let outcome =
        session.run_observed(Outputs { sink: csv, trace, keep_events: keep }, observer).map_err(session_error)?;
    if let Some(f) = invalid {
        return Err(CliError::new(exit::NEGATIVE, f).in_file(&a.spec));
    }
    if let Some(w) = outcome.trace {
        use std::io::Write;
        let mut w = w;
        w.flush().map_err(|e| CliError::new(exit::NEGATIVE, format!("cannot write: {e}")))?;
    }
    let mut outputs: Vec<(PathBuf, String)> = Vec::new();
    if let (Some(p), Some(csv)) = (&a.csv, outcome.sink) {
        outputs.push((p.clone(), String::from_utf8_lossy(&csv.finish().expect("writing to memory")).into_owned()));
    }
    let events = outcome.events.unwrap_or_default();
    if let Some(p) = &a.perfetto {
        outputs.push((p.clone(), perfetto_json(&header, &events)));
    }
    if let Some(p) = &a.svg {
        outputs.push((p.clone(), render_svg(&header, &events, &SvgOptions::default())));
    }
    if let Some(p) = pending {
        p.commit()?;
    }
    write_files(outputs)?;
    let report = outcome.report;
    let spreads = spread.map(|m| mtt_spreads(&header.spec, m.finish(header.horizon)));
    let verdict = validator.map(|v| v.finish());
    let failed_validation = verdict.as_ref().is_some_and(|r| !r.pass);
    let failed_misses = a.fail_on_miss && outcome.hrt_misses > 0;
    let why = if failed_validation {
        Some("the schedule does not obey its policy (--validate)".to_string())
    } else if failed_misses {
        Some(format!(
            "{} deadline miss(es) of hrt task(s) {} (--fail-on-miss)",
            outcome.hrt_misses,
            outcome.hrt_missed_tasks.join(", ")
        ))
    } else {
        None
    };
    if as_json {
        let mtt_spread = spreads.as_ref().map(|sp| {
            serde_json::json!(sp
                .iter()
                .map(|(name, sp)| {
                    serde_json::json!({"mtt": name, "spread": sp.map(|s| s.max), "mean_unit_spread": sp.map(|s| s.mean), "units": sp.map_or(0, |s| s.units)})
                })
                .collect::<Vec<_>>())
        });
        print_json(&SimulateJson {
            stats: &report,
            validation: verdict.as_ref().map(|r| serde_json::to_value(r).expect("reports serialize")),
            hrt_misses: outcome.hrt_misses,
            platform_model: modelled.then(|| platform_json(&header.spec, &outcome.summary)),
            mtt_spread,
            failed: why.clone(),
        });
    } else {
        print!("{}", render_stats(&report));
        if modelled {
            println!();
            print!("{}", render_platform(&header.spec, &outcome.summary));
        }
        if let Some(sp) = &spreads {
            println!();
            println!("MTT spread (quanta; 1 = every i-th quantum co-scheduled):");
            for (name, sp) in sp {
                match sp {
                    Some(sp) => println!(
                        "  {name}: {} (mean {:.2} per quantum of work, over the first {} quanta of each of its tasks)",
                        sp.max, sp.mean, sp.units
                    ),
                    None => println!("  {name}: - (a task of it never ran)"),
                }
            }
        }
        if let Some(r) = &verdict {
            println!();
            print!("{}", r.render());
        }
    }
    if let Some(w) = &why {
        eprintln!("schedlab simulate: failed: {w}");
        return Ok(exit::NEGATIVE);
    }
    Ok(exit::OK)
}

/// A spread meter when the spec has MTTs and a quantum-based policy (PD^2):
/// the spread is counted in its quanta.
fn spread_meter(spec: &schedlab_model::Spec) -> Option<schedlab_trace::spread::SpreadMeter> {
    let pol = spec.policy.as_ref()?;
    if spec.mtts().is_empty() || pol.name != schedlab_model::PolicyName::Pd2 {
        return None;
    }
    let q = pol.quantum.map_or(1_000_000, |d| d.0);
    Some(schedlab_trace::spread::SpreadMeter::new(spec.tasks.len(), q))
}

/// Each MTT's name and spread.
fn mtt_spreads(
    spec: &schedlab_model::Spec,
    quanta: Vec<Vec<u64>>,
) -> Vec<(String, Option<schedlab_trace::spread::Spread>)> {
    (0..spec.mtts().len())
        .map(|k| (spec.mtts()[k].name.clone(), schedlab_trace::spread::spread(&quanta, &spec.mtt_tasks(k))))
        .collect()
}

/// `simulate --json`: the stats (as `stats_json` writes them) and after
/// them the keys below, serialised straight to text (not through a
/// `serde_json::Value` of the whole, which a long report makes costly).
#[derive(serde::Serialize)]
struct SimulateJson<'a> {
    #[serde(flatten)]
    stats: &'a schedlab_trace::MetricsReport,
    validation: Option<serde_json::Value>,
    hrt_misses: u64,
    platform_model: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mtt_spread: Option<serde_json::Value>,
    failed: Option<String>,
}

/// The platform model's per-task and per-CPU figures (`platform_model` of `--json`).
fn platform_json(spec: &schedlab_model::Spec, s: &schedlab_sim::SimSummary) -> serde_json::Value {
    let tasks: Vec<_> = spec
        .tasks
        .iter()
        .zip(&s.tasks)
        .map(|(t, m)| serde_json::json!({"task": t.name, "cache_misses": m.cache_misses, "cpmd_ns": m.cpmd}))
        .collect();
    let cpus: Vec<_> =
        s.cpus.iter().enumerate().map(|(c, m)| serde_json::json!({"cpu": c, "cache_misses": m.cache_misses})).collect();
    let mtts: Vec<_> = s
        .mtts
        .iter()
        .map(|m| {
            serde_json::json!({
                "mtt": m.name,
                "jobs": m.jobs,
                "mean_span_ns": m.mean_span(),
                "max_span_ns": m.max_span,
                "cache_misses": m.misses,
                "cache_references": m.references,
                "miss_rate": m.miss_rate(),
                "max_job_misses": m.max_job_misses,
                "max_job_miss_rate": m.max_miss_rate_ppm as f64 / 1e6,
                "wss": m.wss,
                "wss_estimate": m.estimate,
                "estimate_error": m.estimate_error(),
                "profiled_jobs": m.profiled,
                "discarded_jobs": m.discarded,
                "converged": m.converged,
                "source": m.source,
            })
        })
        .collect();
    serde_json::json!({"tasks": tasks, "cpus": cpus, "mtts": mtts})
}

/// The platform model's table: each task's synthetic cache misses and CPMD.
fn render_platform(spec: &schedlab_model::Spec, s: &schedlab_sim::SimSummary) -> String {
    let width = spec.tasks.iter().map(|t| t.name.chars().count()).max().unwrap_or(4).max(4);
    let mut out = format!("{:<width$}  {:>12}  {:>10}   (platform model)\n", "task", "cache misses", "cpmd");
    for (t, m) in spec.tasks.iter().zip(&s.tasks) {
        out.push_str(&format!(
            "{:<width$}  {:>12}  {:>10}\n",
            t.name,
            m.cache_misses,
            schedlab_model::Duration(m.cpmd).to_string()
        ));
    }
    if !s.mtts.is_empty() {
        out.push_str(&render_mtts(s));
    }
    out
}

/// Each MTT's jobs (span, misses, miss rate) and the working-set profiler's
/// estimate against the declared WSS.
fn render_mtts(s: &schedlab_sim::SimSummary) -> String {
    let width = s.mtts.iter().map(|m| m.name.chars().count()).max().unwrap_or(3).max(3);
    let mut out = format!(
        "\n{:<width$}  {:>5}  {:>10}  {:>10}  {:>12}  {:>9}  {:>10}  {:>10}  {:>9}   (per MTT job; WSS estimate by the profiler, source: {})\n",
        "mtt",
        "jobs",
        "mean span",
        "max span",
        "misses/job",
        "miss rate",
        "wss",
        "estimate",
        "profiled",
        s.mtts[0].source
    );
    for m in &s.mtts {
        let size = |b: u64| schedlab_model::Size(b).to_string();
        out.push_str(&format!(
            "{:<width$}  {:>5}  {:>10}  {:>10}  {:>12}  {:>9.4}  {:>10}  {:>10}  {:>9}{}\n",
            m.name,
            m.jobs,
            schedlab_model::Duration(m.mean_span().round() as u64).to_string(),
            schedlab_model::Duration(m.max_span).to_string(),
            m.misses.checked_div(m.jobs).unwrap_or(0),
            m.miss_rate(),
            m.wss.map_or("-".to_string(), size),
            if m.profiled > 0 { size(m.estimate) } else { "-".to_string() },
            format!("{}/{}", m.profiled, m.profiled + m.discarded),
            if m.converged { "" } else { "  (not converged)" },
        ));
    }
    out
}
