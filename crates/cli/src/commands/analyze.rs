//! `schedlab analyze SPEC`: run schedulability tests on a spec, optionally
//! charging kernel overheads, and explain every verdict.

use crate::output::print_json;
use crate::EXIT_BAD_INPUT;
use schedlab_analysis::report::{analyze, overheads_for, Request, Selection};
use schedlab_analysis::schedulability::Input;
use schedlab_model::{load_path, Duration};
use std::path::PathBuf;

/// Run schedulability tests on a spec and explain each verdict: the deciding
/// task, the value and the bound compared, the slack. By default the tests
/// about the spec's policy run; `--test` picks tests by ID (`schedlab tests`
/// lists them), `--all` runs every test. With an overhead model (the spec's
/// `overheads`, or `--overheads`), WCETs are first inflated by the kernel
/// overheads (docs/overheads.md). Exit code 0 when some test proves the set
/// schedulable, 1 when none does, 2 for bad input.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  schedlab analyze examples/demo.yaml
  schedlab analyze set.yaml --test gedf.gfb --test gedf.rta --json
  schedlab analyze set.yaml --overheads measured.csv --accounting per-task-release --tick 1ms
  schedlab analyze set.yaml --all")]
pub struct Args {
    /// The spec file.
    spec: PathBuf,
    /// Run this test (repeatable), by registry ID.
    #[arg(long = "test", value_name = "ID")]
    tests: Vec<String>,
    /// Run every test in the registry.
    #[arg(long, conflicts_with = "tests")]
    all: bool,
    /// Overhead model CSV (instead of the spec's `overheads`).
    #[arg(long, value_name = "CSV")]
    overheads: Option<PathBuf>,
    /// Ignore the spec's overhead model.
    #[arg(long, conflicts_with = "overheads")]
    no_overheads: bool,
    /// Accounting method: `epos` (Eq. 2/3) or `per-task-release`.
    #[arg(long, default_value = "epos")]
    accounting: String,
    /// Tick period Q for the accounting (0: no periodic tick).
    #[arg(long, default_value = "1ms")]
    tick: Duration,
    /// Look-up of overheads by task count: `step` (the row above), `linear` or `floor` (the row below, the EPOS rule).
    #[arg(long, default_value = "step")]
    lookup: String,
}

pub fn run(a: Args, as_json: bool) -> i32 {
    let bad = |msg: String| {
        if as_json {
            print_json(&serde_json::json!({"error": msg}));
        }
        eprintln!("schedlab analyze: {msg}");
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
    let dir = a.spec.parent().map(PathBuf::from).unwrap_or_else(|| PathBuf::from("."));
    let overheads =
        match overheads_for(&spec, &dir, a.overheads.as_deref(), a.no_overheads, &a.accounting, a.tick.0, &a.lookup) {
            Ok(o) => o,
            Err(e) => return bad(e),
        };
    let selection = if a.all {
        Selection::All
    } else if a.tests.is_empty() {
        Selection::Policy
    } else {
        Selection::Ids(a.tests.clone())
    };
    let report = match analyze(&Input::from_spec(&spec), &Request { selection, overheads }) {
        Ok(r) => r,
        Err(e) => return bad(e.to_string()),
    };
    if as_json {
        let mut v = report.to_json();
        v["file"] = serde_json::json!(loaded.file);
        print_json(&v);
    } else {
        print!("{}: ", loaded.file);
        match report.policy {
            Some(p) => println!("{} tasks on {} CPUs, policy {}", spec.tasks.len(), spec.platform.cpus, p.name()),
            None => println!("{} tasks on {} CPUs, no policy (every test)", spec.tasks.len(), spec.platform.cpus),
        }
        println!();
        print!("{}", report.render());
    }
    if report.schedulable() {
        0
    } else {
        1
    }
}
