//! `schedlab validate TRACE`: does a schedule obey its policy?

use crate::output::print_json;
use crate::EXIT_BAD_INPUT;
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
    let mode = match a.mode.as_str() {
        "auto" => Mode::Auto,
        "priority" => Mode::Priority,
        "replay" => Mode::Replay,
        "generic" => Mode::Generic,
        o => {
            eprintln!("schedlab validate: --mode must be auto, priority, replay or generic, got `{o}`");
            return EXIT_BAD_INPUT;
        }
    };
    let options = Options { tolerance: a.tolerance.0, mode, ..Options::default() };
    let reader = match schedlab_trace::open(&a.trace) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("schedlab validate: {}: {e}", a.trace.display());
            return EXIT_BAD_INPUT;
        }
    };
    let header = reader.header().clone();
    let policy = if mode == Mode::Generic || header.spec.policy.is_none() {
        None
    } else {
        match schedlab_policy::build(
            &header.spec,
            (!header.placement.is_empty()).then_some(header.placement.as_slice()),
        ) {
            Ok(p) => Some(p),
            Err(e) => {
                eprintln!("schedlab validate: {}: the trace's policy cannot be built: {e}", a.trace.display());
                return EXIT_BAD_INPUT;
            }
        }
    };
    let mut v = match Validator::new(&header, &options, policy) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("schedlab validate: {}: {e}", a.trace.display());
            return EXIT_BAD_INPUT;
        }
    };
    for ev in reader {
        let pushed = ev.map_err(|e| e.to_string()).and_then(|e| v.push(e).map_err(|e| e.to_string()));
        if let Err(e) = pushed {
            eprintln!("schedlab validate: {}: {e}", a.trace.display());
            return EXIT_BAD_INPUT;
        }
    }
    let report = v.finish();
    if as_json {
        print_json(&serde_json::to_value(&report).expect("reports serialize"));
    } else {
        print!("{}", report.render());
    }
    if report.pass {
        0
    } else {
        1
    }
}
