//! `schedlab validate TRACE`: does a schedule obey its policy?

use crate::output::{print_json, CliError};
use schedlab_model::Duration;
use schedlab_validate::{Mode, Options, Validator};
use std::path::PathBuf;

/// Check a trace against its policy: generic invariants (no job before its
/// release, on two CPUs, outside its placement, ...) and policy conformance
/// (the running jobs are the highest-priority eligible ones; replay for
/// PD^2 and RUN). Reports the first violation with its context. Exit code 0
/// when the schedule is valid, 1 when it is not, 2 when the trace cannot be read.
#[derive(clap::Args)]
#[command(
    after_help = "Examples:\n  schedlab validate out/demo.jsonl\n  schedlab validate run.sltrace --tolerance 200us\n  schedlab validate out/demo.jsonl --mode generic --json"
)]
pub struct Args {
    /// A trace file (JSON Lines or binary).
    trace: PathBuf,
    /// Decisions may lag events by up to this much (0 for simulator traces).
    #[arg(long, default_value = "0")]
    tolerance: Duration,
    /// Which checks: `auto` (by the policy's kind), `priority`, `replay` or `generic`.
    #[arg(long, default_value = "auto")]
    mode: String,
}

pub fn run(a: Args, as_json: bool) -> i32 {
    match body(a, as_json) {
        Ok(code) => code,
        Err(e) => e.report("validate", as_json),
    }
}

fn body(a: Args, as_json: bool) -> Result<i32, CliError> {
    let mode = match a.mode.as_str() {
        "auto" => Mode::Auto,
        "priority" => Mode::Priority,
        "replay" => Mode::Replay,
        "generic" => Mode::Generic,
        o => {
            return Err(CliError::option("--mode", format!("`{o}` is not a mode"))
                .hint("use auto, priority, replay or generic"))
        }
    };
    let options = Options { tolerance: a.tolerance.0, mode, ..Options::default() };
    let bad = |e: String| CliError::bad_input(e).in_file(&a.trace);
    let reader = schedlab_trace::open(&a.trace).map_err(|e| bad(e.to_string()))?;
    let header = reader.header().clone();
    let policy = if mode == Mode::Generic || header.spec.policy.is_none() {
        None
    } else {
        Some(
            schedlab_policy::build(&header.spec, (!header.placement.is_empty()).then_some(header.placement.as_slice()))
                .map_err(|e| bad(format!("the trace's policy cannot be built: {e}")))?,
        )
    };
    let mut v = Validator::new(&header, &options, policy).map_err(|e| bad(e.to_string()))?;
    for ev in reader {
        let pushed = ev.map_err(|e| e.to_string()).and_then(|e| v.push(e).map_err(|e| e.to_string()));
        pushed.map_err(bad)?;
    }
    let report = v.finish();
    if as_json {
        print_json(&serde_json::to_value(&report).expect("reports serialize"));
    } else {
        print!("{}", report.render());
    }
    Ok(if report.pass { 0 } else { 1 })
}
