//! `schedlab report RESULTS -o report.html`: one self-contained HTML page of
//! a sweep (plots, tables, the experiment file, versions, seed, machine),
//! written by the Python package (matplotlib; `pip install 'schedlab[plot]'`).

use super::python::run_module;

/// Write a self-contained HTML report of sweep results (opens offline).
#[derive(clap::Args)]
#[command(after_help = "Examples:\n  schedlab report ch5.parquet -o ch5.html")]
pub struct Args {
    /// A results file of `schedlab sweep` (.parquet or .csv).
    results: std::path::PathBuf,
    /// The HTML file.
    #[arg(short, long)]
    output: std::path::PathBuf,
    /// The experiment file (default: the one a Parquet results file records).
    #[arg(long)]
    experiment: Option<std::path::PathBuf>,
    /// The page's title.
    #[arg(long)]
    title: Option<String>,
}

pub fn run(a: Args) -> i32 {
    let mut args = vec![a.results.into_os_string(), "-o".into(), a.output.into_os_string()];
    if let Some(e) = a.experiment {
        args.extend(["--experiment".into(), e.into_os_string()]);
    }
    if let Some(t) = a.title {
        args.extend(["--title".into(), t.into()]);
    }
    run_module("report", "schedlab.report", &args)
}
