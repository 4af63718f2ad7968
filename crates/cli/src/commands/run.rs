//! `schedlab run SPEC --duration 10s`: run the spec on real threads of this
//! Linux kernel (crate `rt`), then print the same statistics and write the
//! same exports as `simulate`, plus what the runtime measured.

use crate::output::{exit, print_json, write_file_with, write_files, CliError};
use crate::policy_args::PolicyArgs;
use schedlab_model::Duration;
use schedlab_rt::{BackendKind, Execution, MissPolicy, RunConfig, RunError, Sporadic, StopReason, WorkloadSpec};
use schedlab_trace::export::stats::render_stats;
use schedlab_trace::export::{csv::JobCsvWriter, perfetto::perfetto_json, svg::render_svg, svg::SvgOptions};
use schedlab_trace::{Metrics, OverheadKind};
use std::path::PathBuf;

/// Run the spec on real threads (SCHED_FIFO / SCHED_DEADLINE, needs root or
/// CAP_SYS_NICE), restore the machine, and print per-task statistics.
/// Exit codes: 0 ok, 1 failure (kernel refusal, job failure, watchdog,
/// validation, an `hrt` deadline miss under --fail-on-miss), 2 bad input
/// (nothing touched), 3 missing privileges (nothing touched), 128+N after
/// signal N (the machine was restored).
#[derive(clap::Args)]
#[command(after_help = "Examples:
  sudo schedlab run set.yaml --duration 10s
  sudo schedlab run set.yaml --duration 5s --trace out/run.sltrace --overheads-out out/overheads.csv --validate
  sudo schedlab run set.yaml --duration 2s --workload memwalk:random --workload video=spin-cpu --exec fraction:0.5
  sudo schedlab run set.yaml --duration 2s --workload c:./libjob.so:my_job --json")]
pub struct Args {
    /// The spec file.
    spec: PathBuf,
    #[command(flatten)]
    policy: PolicyArgs,
    /// How long jobs are released for; jobs in progress then complete.
    #[arg(long, default_value = "10s")]
    duration: Duration,
    /// `kernel` (Linux classes) or `dispatch` (user-space dispatcher).
    #[arg(long, default_value = "kernel")]
    backend: String,
    /// Seed of every random choice (sporadic arrivals, execution times, jitter, memory walks).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Execution time of each job: `wcet`, `uniform` in [bcet, wcet], or `fraction:F` of the WCET.
    #[arg(long, default_value = "wcet")]
    exec: String,
    /// Extra inter-arrival beyond the period: `none`, `uniform:MAX` or `exponential:MEAN`.
    #[arg(long, default_value = "none")]
    sporadic: String,
    /// Ignore the tasks' release jitter.
    #[arg(long)]
    no_jitter: bool,
    /// A job still running at its deadline: `continue`, `skip` releases while late, or `abort` it.
    #[arg(long, default_value = "continue")]
    miss: String,
    /// Workload, for every task (`KIND`) or one task (`TASK=KIND`, TASK a name or index): spin, spin-cpu, memwalk[:seq|random|strided[:BYTES]], prem, c:LIB:SYMBOL[:ARG], cmd:PROGRAM ARGS.
    #[arg(long)]
    workload: Vec<String>,
    /// Allow `cmd:` workloads (external commands at real-time priority).
    #[arg(long)]
    allow_command: bool,
    /// Do not read the kernel's sched events from tracefs (then preemptions and migrations are not in the trace).
    #[arg(long)]
    no_kernel_trace: bool,
    /// A job running longer than this is declared hung by the watchdog [default: max(5s, 20 periods + deadline)].
    #[arg(long)]
    job_timeout: Option<Duration>,
    /// SCHED_DEADLINE runtime = WCET + this + --dl-slack-ratio × WCET (at most the deadline).
    #[arg(long, default_value = "100us")]
    dl_slack: Duration,
    /// The part of the SCHED_DEADLINE slack proportional to the WCET (interrupt time charged to the job).
    #[arg(long, default_value_t = 0.05)]
    dl_slack_ratio: f64,
    /// Strict CBS: no SCHED_FLAG_RECLAIM (a job past its runtime is throttled to its next period even while CPUs idle).
    #[arg(long)]
    no_dl_reclaim: bool,
    /// Setup time before the synchronous release.
    #[arg(long, default_value = "20ms")]
    start_margin: Duration,
    /// Measure the spin calibration again instead of using the cached one.
    #[arg(long)]
    recalibrate: bool,
    /// Write the trace (.sltrace binary or .jsonl text).
    #[arg(long)]
    trace: Option<PathBuf>,
    /// Write the measured overheads as an overhead CSV (for `analyze --overheads`).
    #[arg(long)]
    overheads_out: Option<PathBuf>,
    /// Write Chrome / Perfetto trace JSON.
    #[arg(long)]
    perfetto: Option<PathBuf>,
    /// Write an SVG Gantt chart.
    #[arg(long)]
    svg: Option<PathBuf>,
    /// Write the per-job table as CSV.
    #[arg(long)]
    csv: Option<PathBuf>,
    /// Check the recorded schedule with the validator (exit 1 on a violation).
    #[arg(long)]
    validate: bool,
    /// The validator's tolerance for a recorded schedule (the decision latency).
    #[arg(long, default_value = "2ms")]
    tolerance: Duration,
    /// Exit 1 when a task of class `hrt` misses a deadline.
    #[arg(long)]
    fail_on_miss: bool,
    /// Wait for another schedlab run that holds the run lock to end (default: fail at once, naming its PID).
    #[arg(long)]
    wait: bool,
    /// Job bodies' timing scopes (try_within / try_wcet): `cooperative` checks, `async` notification, or `benchmark` (never raise; record each scope's duration: per-label count, max, mean, p99 in the output).
    #[arg(long, default_value = "cooperative")]
    timing: String,
    /// Where the dispatch backend's counters (`Kernel::counters`) come from: `auto` (perf's hardware events where the machine has them, else what the workloads publish), `perf` or `workload`.
    #[arg(long, default_value = "auto")]
    counters: String,
    /// What idle CPUs do during the run: `poll` (a 0 µs wake-up latency request on /dev/cpu_dma_latency, as cyclictest makes: idle CPUs poll, and waking one needs no interrupt) or `kernel` (the kernel's idle states).
    #[arg(long, default_value = "poll")]
    idle: String,
}

fn config(a: &Args, spec: &schedlab_model::Spec) -> Result<RunConfig, String> {
    let backend: BackendKind = a.backend.parse().map_err(|e| format!("--backend: {e}"))?;
    let execution: Execution = a.exec.parse().map_err(|e| format!("--exec {e}"))?;
    let sporadic: Sporadic = a.sporadic.parse().map_err(|e| format!("--sporadic {e}"))?;
    let overrun: MissPolicy = a.miss.parse().map_err(|e| format!("--miss {e}"))?;
    let timing: schedlab_rt::timing::Mode = a.timing.parse().map_err(|e| format!("--timing {e}"))?;
    let counters: schedlab_rt::counters::CounterChoice = a.counters.parse().map_err(|e| format!("--counters {e}"))?;
    let idle: schedlab_rt::idle::IdleMode = a.idle.parse().map_err(|e| format!("--idle {e}"))?;
    if !(a.dl_slack_ratio.is_finite() && (0.0..=1.0).contains(&a.dl_slack_ratio)) {
        return Err(format!("--dl-slack-ratio {}: expected a number in [0, 1]", a.dl_slack_ratio));
    }
    let mut cfg = RunConfig {
        duration: a.duration.0,
        backend,
        seed: a.seed,
        sporadic,
        ignore_jitter: a.no_jitter,
        execution,
        overrun,
        allow_command: a.allow_command,
        kernel_trace: !a.no_kernel_trace,
        job_timeout: a.job_timeout.map(|d| d.0),
        dl_slack: a.dl_slack.0,
        dl_slack_ratio: a.dl_slack_ratio,
        dl_reclaim: !a.no_dl_reclaim,
        start_margin: a.start_margin.0.max(1_000_000),
        recalibrate: a.recalibrate,
        spec_dir: a.spec.parent().map(PathBuf::from).unwrap_or_else(|| PathBuf::from(".")),
        exit_on_signal_timeout: true,
        wait: a.wait,
        timing,
        counters,
        idle,
        ..RunConfig::default()
    };
    for w in &a.workload {
        // `TASK=KIND` when the part before `=` names a task; else the default.
        match w.split_once('=').filter(|(t, _)| !t.contains(':')) {
            Some((t, kind)) => {
                let i = spec
                    .tasks
                    .iter()
                    .position(|x| x.name == t)
                    .or_else(|| t.parse::<usize>().ok().filter(|&i| i < spec.tasks.len()))
                    .ok_or_else(|| format!("--workload {w}: no task named `{t}`"))?;
                cfg.workloads.push((i, kind.parse::<WorkloadSpec>().map_err(|e| format!("--workload {e}"))?));
            }
            None => cfg.workload = w.parse::<WorkloadSpec>().map_err(|e| format!("--workload {e}"))?,
        }
    }
    Ok(cfg)
}

fn us(ns: u64) -> String {
    format!("{:.1}us", ns as f64 / 1000.0)
}

pub fn run(a: Args, as_json: bool) -> i32 {
    match body(a, as_json) {
        Ok(code) => code,
        Err(e) => e.report("run", as_json),
    }
}

fn body(a: Args, as_json: bool) -> Result<i32, CliError> {
    let loaded = a.policy.load(&a.spec)?;
    let spec = loaded.spec;
    let cfg = config(&a, &spec).map_err(|e| {
        let opt = e.split([' ', ':']).next().unwrap_or("").to_string();
        if opt.starts_with("--") {
            // The option is the error's place: not said twice.
            CliError::bad_input(e[opt.len()..].trim_start_matches([':', ' '])).at(opt)
        } else {
            CliError::bad_input(e.clone())
        }
    })?;
    if a.trace.as_ref().is_some_and(|p| schedlab_trace::Encoding::from_path(p).is_err()) {
        return Err(CliError::option(
            "--trace",
            format!("{}: not a trace file name", a.trace.as_ref().unwrap().display()),
        )
        .hint("use a .sltrace or .jsonl file name"));
    }
    let o = schedlab_rt::run(&spec, &cfg).map_err(|e| {
        let err = CliError::new(e.exit_code(), e.to_string());
        match &e {
            RunError::BadInput(_) => err.in_file(&a.spec),
            _ => err,
        }
    })?;
    let header = &o.header;
    let csv = a.csv.as_ref().map(|_| JobCsvWriter::for_header(Vec::new(), header).expect("writing to memory"));
    let mut metrics = Metrics::from_header(header).with_sink(csv);
    for e in &o.events {
        metrics.push(e);
    }
    let (report, csv) = metrics.finish();
    let mut outputs: Vec<(PathBuf, String)> = Vec::new();
    if let (Some(p), Some(csv)) = (&a.csv, csv) {
        outputs.push((p.clone(), String::from_utf8_lossy(&csv.finish().expect("writing to memory")).into_owned()));
    }
    if let Some(p) = &a.perfetto {
        outputs.push((p.clone(), perfetto_json(header, &o.events)));
    }
    if let Some(p) = &a.svg {
        outputs.push((p.clone(), render_svg(header, &o.events, &SvgOptions::default())));
    }
    if let Some(p) = &a.overheads_out {
        outputs.push((p.clone(), schedlab_rt::overheads::csv(spec.tasks.len(), &o.overheads)));
    }
    if let Some(p) = &a.trace {
        let encoding = schedlab_trace::Encoding::from_path(p).expect("checked before the run");
        write_file_with(p, |w| {
            let mut tw = schedlab_trace::TraceWriter::new(w, encoding, header).map_err(std::io::Error::other)?;
            for e in &o.events {
                tw.write_event(e).map_err(std::io::Error::other)?;
            }
            tw.finish().map_err(std::io::Error::other)?;
            Ok(())
        })?;
    }
    write_files(outputs)?;
    let mut hrt_missed: Vec<String> = Vec::new();
    let mut hrt_misses = 0u64;
    for (t, s) in spec.tasks.iter().zip(&report.tasks) {
        if t.class == schedlab_model::Class::Hrt && s.misses > 0 {
            hrt_misses += s.misses;
            hrt_missed.push(t.name.clone());
        }
    }
    let verdict = a.validate.then(|| {
        schedlab_validate::validate(
            header,
            o.events.iter().cloned(),
            &schedlab_validate::Options::with_tolerance(a.tolerance.0),
        )
    });
    let overheads: Vec<serde_json::Value> = o
        .overheads
        .report()
        .iter()
        .map(|(k, s)| serde_json::json!({"kind": k.name(), "count": s.count, "min_ns": s.min, "p50_ns": s.p50, "p99_ns": s.p99, "p999_ns": s.p999, "max_ns": s.max, "mean_ns": s.mean}))
        .collect();
    // The outcome, decided before printing so that --json can say it.
    let (code, why): (i32, Option<String>) = match (&o.stop, &verdict) {
        (StopReason::Signal(sig), _) => (exit::signal(*sig), Some(format!("stopped by signal {sig}"))),
        (StopReason::Watchdog(m), _) => (exit::NEGATIVE, Some(format!("watchdog: {m}"))),
        (StopReason::JobFailed(m), _) => (exit::NEGATIVE, Some(format!("job failed: {m}"))),
        (_, Some(Ok(r))) if !r.pass => {
            (exit::NEGATIVE, Some("failed: the recorded schedule does not obey its policy (--validate)".into()))
        }
        (_, Some(Err(e))) => {
            (exit::NEGATIVE, Some(format!("failed: the recorded schedule could not be validated: {e}")))
        }
        _ if a.fail_on_miss && hrt_misses > 0 => (
            exit::NEGATIVE,
            Some(format!(
                "failed: {hrt_misses} deadline miss(es) of hrt task(s) {} (--fail-on-miss)",
                hrt_missed.join(", ")
            )),
        ),
        _ => (exit::OK, None),
    };
    // Benchmark mode: per task and label, the scopes' durations.
    let scopes: Vec<(String, schedlab_rt::timing::ScopeStats)> = {
        let times = schedlab_rt::timing::scope_times_in(&o.events);
        let mut by: std::collections::BTreeMap<u32, Vec<schedlab_rt::timing::ScopeTime>> = Default::default();
        for (task, t) in times {
            by.entry(task).or_default().push(t);
        }
        by.into_iter()
            .flat_map(|(task, v)| {
                let name = spec.tasks.get(task as usize).map_or_else(|| task.to_string(), |t| t.name.clone());
                schedlab_rt::timing::scope_stats(&v).into_iter().map(move |s| (name.clone(), s))
            })
            .collect()
    };
    if as_json {
        let mut v = serde_json::to_value(&report).expect("the report serialises");
        v["validation"] = serde_json::Value::Null;
        v["hrt_misses"] = serde_json::json!(hrt_misses);
        v["failed"] = serde_json::json!(why);
        v["run"] = serde_json::json!({
            "backend": o.backend,
            "stop": o.stop,
            "mapping": o.mapping,
            "kernel_trace": o.kernel_trace,
            "integrity": o.integrity,
            "overheads": overheads,
            "calibration": {"ns_per_iter": o.calibration.ns_per_iter, "cached": o.calibration.cached, "spread": o.calibration.spread},
            "notes": o.notes,
            "stalls": o.stalls,
            "scopes": scopes.iter().map(|(task, s)| {
                let mut j = serde_json::to_value(s).expect("scope stats serialize");
                j["task"] = serde_json::json!(task);
                j
            }).collect::<Vec<_>>(),
        });
        match &verdict {
            Some(Ok(r)) => v["validation"] = serde_json::to_value(r).expect("reports serialize"),
            Some(Err(e)) => v["validation"] = serde_json::json!({"error": e.to_string()}),
            None => {}
        }
        print_json(&v);
    } else {
        println!(
            "run: backend {}, {} task(s), {} jobs released",
            o.backend,
            spec.tasks.len(),
            o.events.iter().filter(|e| matches!(e, schedlab_trace::Event::Release { .. })).count()
        );
        for (t, m) in spec.tasks.iter().zip(&o.mapping) {
            println!("  {:<16} {m}", t.name);
        }
        println!(
            "trace: {} events, kernel sched events {}, records lost: {}",
            o.events.len(),
            if o.kernel_trace { "merged" } else { "not read" },
            if o.integrity.complete() {
                "none (sequence numbers contiguous)".to_string()
            } else {
                format!("{:?}", o.integrity)
            }
        );
        for (k, s) in o.overheads.report() {
            let label = if k == OverheadKind::ReleaseLatency { "release latency" } else { k.name() };
            println!(
                "  {label:<16} n={:<6} p50 {} p99 {} p99.9 {} max {}",
                s.count,
                us(s.p50),
                us(s.p99),
                us(s.p999),
                us(s.max)
            );
        }
        if !scopes.is_empty() {
            println!("timing scopes (--timing benchmark):");
            for (task, s) in &scopes {
                let label = if s.label.is_empty() { "(unlabelled)" } else { &s.label };
                let kind = if s.limit == schedlab_rt::timing::Limit::Wcet { "cpu" } else { "wall" };
                println!(
                    "  {task:<16} {label:<16} {kind:<4} n={:<6} mean {} p99 {} max {} over limit {}",
                    s.count,
                    us(s.mean_ns as u64),
                    us(s.p99_ns),
                    us(s.max_ns),
                    s.over_limit
                );
            }
        }
        for n in &o.notes {
            println!("note: {n}");
        }
        println!();
        print!("{}", render_stats(&report));
        match &verdict {
            Some(Ok(r)) => {
                println!();
                print!("{}", r.render());
            }
            Some(Err(e)) => println!("validation: {e}"),
            None => {}
        }
    }
    match (code, why) {
        (c, Some(w)) => {
            eprintln!("schedlab run: {w}");
            Ok(c)
        }
        (c, None) => Ok(c),
    }
}
