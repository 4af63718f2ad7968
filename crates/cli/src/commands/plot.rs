//! `schedlab plot RESULTS -o FIG`: the plots of a sweep's results, drawn by
//! the Python package (matplotlib; `pip install 'schedlab[plot]'`).

use super::python::run_module;

/// Plot sweep results: schedulability curves with confidence bands,
/// weighted schedulability, simulation metrics (PNG, SVG or PDF).
#[derive(clap::Args)]
#[command(
    after_help = "Examples:\n  schedlab plot ch5.parquet -o ch5.svg\n  schedlab plot ch5.parquet -o w.pdf --kind weighted"
)]
pub struct Args {
    /// A results file of `schedlab sweep` (.parquet or .csv).
    results: std::path::PathBuf,
    /// The figure file (.png, .svg or .pdf); several plots get -1, -2, ... suffixes.
    #[arg(short, long)]
    output: std::path::PathBuf,
    /// auto, schedulability, weighted or simulation[:METRIC].
    #[arg(long, default_value = "auto")]
    kind: String,
}

pub fn run(a: Args) -> i32 {
    let mut args = vec![a.results.into_os_string(), "-o".into(), a.output.into_os_string()];
    args.extend(["--kind".into(), a.kind.into()]);
    run_module("plot", "schedlab.plot", &args)
}
