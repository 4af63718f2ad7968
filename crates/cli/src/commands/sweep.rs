//! `schedlab sweep EXP.yaml -o results.parquet`: generate and evaluate the
//! task sets of an experiment file on all cores (docs/experiments.md).

use crate::output::{exit, print_json, CliError};
use schedlab_experiment::sweep::{self, Output, Plan, Sweep};
use std::io::IsTerminal;
use std::path::PathBuf;

/// Run an experiment: one row per (task set, evaluation), written as Parquet
/// or CSV; resumable (a checkpoint `OUTPUT.ckpt` is kept until the end).
#[derive(clap::Args)]
#[command(
    after_help = "Examples:\n  schedlab sweep experiments/epos-ch5-m8.yaml -o ch5.parquet\n  schedlab sweep experiments/epos-ch5-m8.yaml --dry-run\n  schedlab sweep exp.yaml -o rows.csv --threads 1"
)]
pub struct Args {
    /// The experiment file (YAML or JSON).
    experiment: PathBuf,
    /// The results file: `.parquet` or `.csv`.
    #[arg(short, long, required_unless_present = "dry_run")]
    output: Option<PathBuf>,
    /// Worker threads (default: every core).
    #[arg(long)]
    threads: Option<usize>,
    /// Print the sweep's size and a time estimate; run nothing.
    #[arg(long)]
    dry_run: bool,
    /// Ignore (and replace) a checkpoint of an interrupted run.
    #[arg(long)]
    restart: bool,
    /// Override the experiment's samples per point (e.g. a reduced local run).
    #[arg(long)]
    samples: Option<u32>,
    /// Run the chunks on the Ray cluster at ADDRESS (needs `pip install schedlab[ray]`; see docs/experiments.md).
    #[arg(long, value_name = "ADDRESS")]
    ray: Option<String>,
}

pub fn run(a: Args, as_json: bool) -> i32 {
    let loaded = match schedlab_experiment::load_path(&a.experiment) {
        Ok(mut l) => {
            if let Some(n) = a.samples {
                if n == 0 {
                    return CliError::option("--samples", "must be at least 1").report("sweep", as_json);
                }
                l.experiment.samples = n;
            }
            l
        }
        Err(e) => return CliError::spec(&e).report("sweep", as_json),
    };
    if let Some(o) = &a.output {
        if let Err(e) = sweep::OutFormat::from_path(o) {
            return CliError::option("--output", e).report("sweep", as_json);
        }
    }
    if let Some(addr) = &a.ray {
        return ray(&a, addr);
    }
    let plan = match Plan::new(loaded) {
        Ok(p) => p,
        Err(e) => return CliError::bad_input(e).in_file(&a.experiment).report("sweep", as_json),
    };
    if a.dry_run {
        let est = match sweep::estimate(&plan, a.threads, 200) {
            Ok(e) => e,
            Err(e) => return CliError::bad_input(e).in_file(&a.experiment).report("sweep", as_json),
        };
        if as_json {
            print_json(&serde_json::json!({
                "points": est.points, "sets": est.sets, "evaluations": est.evaluations, "rows": est.rows,
                "chunks": est.chunks, "probe_sets": est.probe_sets, "per_set_us": est.per_set_s * 1e6,
                "threads": est.threads, "estimated_wall_s": est.wall_s,
            }));
        } else {
            println!(
                "{}: {} points × {} samples = {} sets, {} evaluations each: {} rows in {} chunks",
                a.experiment.display(),
                est.points,
                plan.loaded.experiment.samples,
                est.sets,
                est.evaluations,
                est.rows,
                est.chunks
            );
            println!(
                "estimate: {:.1} µs per set (CPU, {} sets probed across the grid) → about {} on {} threads",
                est.per_set_s * 1e6,
                est.probe_sets,
                human(est.wall_s),
                est.threads
            );
        }
        return 0;
    }
    let out = a.output.clone().expect("clap requires --output without --dry-run");
    if a.restart {
        let _ = std::fs::remove_file(sweep::checkpoint_path(&out));
    }
    let bar = std::io::stderr().is_terminal().then(|| {
        let b = indicatif::ProgressBar::new(plan.sets());
        b.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} sets  {per_sec}  ETA {eta}  {msg}")
                .expect("a valid template"),
        );
        b
    });
    let mut progress = |done: u64, _total: u64| {
        if let Some(b) = &bar {
            b.set_position(done);
        }
    };
    let result = sweep::run(
        &plan,
        Output::File(&out),
        Sweep { threads: a.threads, progress: Some(&mut progress), stop_after: None },
    );
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    match result {
        Ok((_, s)) => {
            if as_json {
                print_json(&serde_json::json!({
                    "output": out.display().to_string(), "sets": s.sets, "rows": s.rows, "chunks": s.chunks,
                    "resumed_chunks": s.resumed_chunks, "wall_s": s.wall_s,
                }));
            } else {
                let resumed = if s.resumed_chunks > 0 {
                    format!(" ({} of {} chunks from the checkpoint)", s.resumed_chunks, s.chunks)
                } else {
                    String::new()
                };
                println!("wrote {}: {} sets, {} rows in {}{resumed}", out.display(), s.sets, s.rows, human(s.wall_s));
            }
            0
        }
        Err(e) => CliError::new(exit::NEGATIVE, e).report("sweep", as_json),
    }
}

fn human(s: f64) -> String {
    if s < 120.0 {
        format!("{s:.1} s")
    } else if s < 7200.0 {
        format!("{:.1} min", s / 60.0)
    } else {
        format!("{:.1} h", s / 3600.0)
    }
}

/// `--ray`: the Python package's Ray backend does the work (Ray is Python).
fn ray(a: &Args, addr: &str) -> i32 {
    let Some(out) = &a.output else {
        return CliError::option("--ray", "needs --output").report("sweep", false);
    };
    let python = std::env::var("SCHEDLAB_PYTHON").unwrap_or_else(|_| "python3".into());
    let mut cmd = std::process::Command::new(&python);
    cmd.args(["-m", "schedlab.experiment", "--ray", addr]).arg(&a.experiment).arg("-o").arg(out);
    if let Some(t) = a.threads {
        cmd.args(["--threads", &t.to_string()]);
    }
    if let Some(n) = a.samples {
        cmd.args(["--samples", &n.to_string()]);
    }
    match cmd.status() {
        Ok(s) => s.code().unwrap_or(1),
        Err(e) => {
            eprintln!("schedlab sweep --ray: cannot run {python} (set SCHEDLAB_PYTHON to the Python that has schedlab[ray]): {e}");
            1
        }
    }
}
