//! `schedlab overheads measure`: run synthetic task sets of growing size on
//! this machine (crate `rt`) and write the overhead CSV that
//! `schedlab analyze --overheads` and the simulator read (`docs/overheads.md`):
//! one `TASK-COUNT` row per size, the worst case observed (or a percentile)
//! of each overhead in µs.

use crate::output::print_json;
use schedlab_model::overheads::{write_csv, MeasuredRow, Overhead};
use schedlab_model::{Duration, Format, Spec};
use schedlab_rt::{BackendKind, RunConfig, RunError, StopReason, WorkloadSpec};
use schedlab_trace::OverheadKind;
use std::path::PathBuf;

/// Measure kernel / dispatcher overheads as a function of the task count.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    what: What,
}

#[derive(clap::Subcommand)]
enum What {
    /// Run synthetic sets of growing size and write the overhead CSV (TASK-COUNT, RELEASE, SCHEDULE, CXS, IPI-LATENCY, TICK, RELEASE-LATENCY; µs).
    #[command(after_help = "Examples:
  sudo schedlab overheads measure -o overheads.csv
  sudo schedlab overheads measure --backend kernel --sizes 2,8,32 --duration 2s -o oh-kernel.csv
  sudo schedlab overheads measure --percentile 99.9 --json -o oh.csv
  schedlab analyze set.yaml --overheads overheads.csv

Each size runs a light synthetic set (total utilisation --utilization on all
CPUs, periods cycling through 2, 3, 5, 7, 10 and 20 ms, spin-cpu jobs) under
--policy for --duration. The CSV holds, per size, the worst case observed of
each overhead (or --percentile). TICK is not measured: the column is left
out, and `analyze` then says that the tick term is missing.
Exit codes: 0 ok, 1 a run failed, 2 bad input, 3 missing privileges.")]
    Measure(MeasureArgs),
}

#[derive(clap::Args)]
struct MeasureArgs {
    /// Task counts to measure, in increasing order.
    #[arg(long, value_delimiter = ',', default_value = "2,4,8,16,32,64")]
    sizes: Vec<usize>,
    /// `dispatch` (schedlab's own scheduling decisions) or `kernel` (Linux's, read from tracefs).
    #[arg(long, default_value = "dispatch")]
    backend: String,
    /// The policy of the synthetic sets (`gedf` runs on both backends).
    #[arg(long, default_value = "gedf")]
    policy: String,
    /// How long each size runs.
    #[arg(long, default_value = "1s")]
    duration: Duration,
    /// Total utilisation of each synthetic set (over all CPUs).
    #[arg(long, default_value_t = 0.3)]
    utilization: f64,
    /// CPUs of the synthetic sets' platform [default: the online CPUs].
    #[arg(long)]
    cpus: Option<u32>,
    /// Write this percentile of each overhead instead of the maximum (e.g. 99.9).
    #[arg(long)]
    percentile: Option<f64>,
    /// Workload of every job (see `schedlab run --workload`).
    #[arg(long, default_value = "spin-cpu")]
    workload: String,
    /// Where to write the CSV [default: standard output].
    #[arg(short, long)]
    output: Option<PathBuf>,
}

/// The periods the synthetic sets cycle through (ms): short, so that a
/// second holds many releases, and not all harmonic, so that releases both
/// coincide (at the synchronous release and at common multiples) and spread.
const PERIODS_MS: [u64; 6] = [2, 3, 5, 7, 10, 20];

/// The synthetic spec of `n` tasks (YAML, loaded through the model so that it
/// is checked like any spec).
fn synthetic(n: usize, cpus: u32, policy: &str, utilization: f64) -> Result<Spec, String> {
    let mut y = format!(
        "meta: {{description: \"schedlab overheads measure, {n} tasks\"}}\nplatform: {{cpus: {cpus}}}\npolicy: {{name: {policy}}}\ntasks:\n"
    );
    for i in 0..n {
        let p_ms = PERIODS_MS[i % PERIODS_MS.len()];
        let wcet_us = ((utilization / n as f64) * p_ms as f64 * 1000.0).floor().max(5.0) as u64;
        y.push_str(&format!("  - {{name: t{i}, wcet: {wcet_us}us, period: {p_ms}ms}}\n"));
    }
    schedlab_model::load_str(&y, Some(Format::Yaml), &format!("<synthetic {n} tasks>"))
        .map(|l| l.spec)
        .map_err(|e| e.to_string())
}

fn online_cpus() -> u32 {
    std::thread::available_parallelism().map_or(1, |n| n.get() as u32)
}

/// The runtime's measurement of each overhead of the CSV (TICK: none).
fn measured(o: Overhead) -> Option<OverheadKind> {
    match o {
        Overhead::Release => Some(OverheadKind::Release),
        Overhead::Schedule => Some(OverheadKind::Schedule),
        Overhead::ContextSwitch => Some(OverheadKind::ContextSwitch),
        Overhead::Ipi => Some(OverheadKind::Ipi),
        Overhead::Tick => None,
        Overhead::ReleaseLatency => Some(OverheadKind::ReleaseLatency),
    }
}

/// The chosen order statistic of `v` (ns): the maximum, or the
/// nearest-rank percentile `p`.
fn pick(v: &[u64], p: Option<f64>) -> u64 {
    if v.is_empty() {
        return 0;
    }
    let mut s = v.to_vec();
    s.sort_unstable();
    match p {
        None => s[s.len() - 1],
        Some(p) => {
            let rank = ((p / 100.0) * s.len() as f64).ceil() as usize;
            s[rank.clamp(1, s.len()) - 1]
        }
    }
}

fn us(ns: u64) -> String {
    format!("{:.3}", ns as f64 / 1000.0)
}

/// Today's date (UTC) as YYYY-MM-DD, from the system clock.
fn today() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    // Howard Hinnant's civil_from_days.
    let z = (secs / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

fn read_trim(p: &str) -> String {
    std::fs::read_to_string(p).map(|s| s.trim().to_string()).unwrap_or_else(|_| "unknown".into())
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into())
}

struct Row {
    n: usize,
    values: Vec<(OverheadKind, Sampled)>,
    jobs: usize,
    misses: usize,
}

#[derive(Clone)]
struct Sampled {
    count: usize,
    p50: u64,
    p99: u64,
    max: u64,
    chosen: u64,
}

pub fn run(a: Args, as_json: bool) -> i32 {
    let What::Measure(m) = a.what;
    measure(m, as_json)
}

fn measure(m: MeasureArgs, as_json: bool) -> i32 {
    let fail = |msg: String, code: i32| crate::output::CliError::new(code, msg).report("overheads measure", as_json);
    let bad = schedlab_rt::EXIT_BAD_INPUT;
    let backend: BackendKind = match m.backend.parse() {
        Ok(b) => b,
        Err(e) => return fail(format!("--backend: {e}"), bad),
    };
    if m.sizes.is_empty() || m.sizes.contains(&0) || m.sizes.windows(2).any(|w| w[0] >= w[1]) {
        return fail("--sizes: give task counts >= 1 in increasing order, each once (e.g. 2,4,8,16,32,64)".into(), bad);
    }
    if !(m.utilization > 0.0 && m.utilization.is_finite()) {
        return fail(format!("--utilization {}: expected a positive number", m.utilization), bad);
    }
    if let Some(p) = m.percentile {
        if !(p > 0.0 && p <= 100.0) {
            return fail(format!("--percentile {p}: expected a number in (0, 100]"), bad);
        }
    }
    let workload: WorkloadSpec = match m.workload.parse() {
        Ok(w) => w,
        Err(e) => return fail(format!("--workload {e}"), bad),
    };
    let cpus = m.cpus.unwrap_or_else(online_cpus);
    if m.utilization > cpus as f64 {
        return fail(format!("--utilization {} exceeds the {cpus} CPU(s)", m.utilization), bad);
    }
    // Every spec is built and checked (and the plan admitted) before any run.
    let mut specs = Vec::new();
    for &n in &m.sizes {
        match synthetic(n, cpus, &m.policy, m.utilization) {
            Ok(s) => specs.push((n, s)),
            Err(e) => return fail(format!("the synthetic set of {n} tasks: {e}"), bad),
        }
    }
    let cfg =
        RunConfig { duration: m.duration.0, backend, workload, exit_on_signal_timeout: true, ..RunConfig::default() };
    for (n, s) in &specs {
        if let Err(e) = schedlab_rt::prepare(s, &cfg) {
            return fail(format!("the synthetic set of {n} tasks: {e}"), e.exit_code());
        }
    }
    let mut rows: Vec<Row> = Vec::new();
    for (n, spec) in &specs {
        if !as_json {
            eprintln!("schedlab overheads measure: {n} tasks, backend {}, {} ...", backend.name(), m.duration);
        }
        let o = match schedlab_rt::run(spec, &cfg) {
            Ok(o) => o,
            Err(e) => {
                let code = e.exit_code();
                let what =
                    if matches!(e, RunError::Privilege(_)) { String::new() } else { format!("the run of {n} tasks: ") };
                return fail(format!("{what}{e}"), code);
            }
        };
        match &o.stop {
            StopReason::Finished => {}
            StopReason::Signal(sig) => {
                return fail(format!("stopped by signal {sig} (the machine was restored)"), 128 + sig)
            }
            other => return fail(format!("the run of {n} tasks ended early: {other:?}"), 1),
        }
        let jobs = o.events.iter().filter(|e| matches!(e, schedlab_trace::Event::Release { .. })).count();
        let misses = o.events.iter().filter(|e| matches!(e, schedlab_trace::Event::DeadlineMiss { .. })).count();
        let values = Overhead::ALL
            .into_iter()
            .filter_map(measured)
            .map(|k| {
                let v = o.overheads.get(k);
                let st = schedlab_rt::overheads::Stats::of(v);
                (k, Sampled { count: st.count, p50: st.p50, p99: st.p99, max: st.max, chosen: pick(v, m.percentile) })
            })
            .collect();
        rows.push(Row { n: *n, values, jobs, misses });
    }
    let statistic = match m.percentile {
        None => "worst case observed".to_string(),
        Some(p) => format!("p{p}"),
    };
    let command: Vec<String> = std::env::args().collect();
    let comments = [
        format!(
            "Overheads measured by `schedlab overheads measure` on {} ({}, {} CPU(s), kernel {}), {}.",
            read_trim("/proc/sys/kernel/hostname"),
            cpu_model(),
            online_cpus(),
            read_trim("/proc/sys/kernel/osrelease"),
            today()
        ),
        format!(
            "Backend {}, policy {}, U = {} on {cpus} CPU(s), {} per size, workload {}; {statistic} per size, µs; TICK not measured (no column).",
            backend.name(),
            m.policy,
            m.utilization,
            m.duration,
            m.workload
        ),
        format!("Command: {}", command.join(" ")),
    ];
    let table: Vec<MeasuredRow> = rows
        .iter()
        .map(|r| MeasuredRow {
            tasks: r.n as u64,
            ns: Overhead::ALL
                .map(|o| measured(o).map(|k| r.values.iter().find(|(x, _)| *x == k).map_or(0, |(_, s)| s.chosen))),
        })
        .collect();
    let csv = write_csv(&comments, &table);
    if let Some(p) = &m.output {
        if let Err(e) = crate::output::write_file(p, csv.as_bytes()) {
            return e.report("overheads measure", as_json);
        }
    }
    if as_json {
        let sizes: Vec<serde_json::Value> = rows
            .iter()
            .map(|r| {
                let ov: serde_json::Map<String, serde_json::Value> = r
                    .values
                    .iter()
                    .map(|(k, s)| (k.name().to_string(), serde_json::json!({"count": s.count, "p50_ns": s.p50, "p99_ns": s.p99, "max_ns": s.max, "written_ns": s.chosen})))
                    .collect();
                serde_json::json!({"tasks": r.n, "jobs": r.jobs, "misses": r.misses, "overheads": ov})
            })
            .collect();
        print_json(
            &serde_json::json!({"backend": backend.name(), "policy": m.policy, "statistic": statistic, "sizes": sizes, "csv": csv}),
        );
    } else {
        if m.output.is_none() {
            print!("{csv}");
        }
        eprintln!(
            "{:>5} {:>6} {:>6}  {:<16} {:>7} {:>9} {:>9} {:>9}",
            "tasks", "jobs", "misses", "overhead", "n", "p50 us", "p99 us", "max us"
        );
        for r in &rows {
            for (k, s) in &r.values {
                eprintln!(
                    "{:>5} {:>6} {:>6}  {:<16} {:>7} {:>9} {:>9} {:>9}",
                    r.n,
                    r.jobs,
                    r.misses,
                    k.name(),
                    s.count,
                    us(s.p50),
                    us(s.p99),
                    us(s.max)
                );
            }
        }
        if let Some(p) = &m.output {
            eprintln!("schedlab overheads measure: wrote {} ({statistic}); use it with `schedlab analyze SPEC --overheads {}`", p.display(), p.display());
        }
    }
    0
}
