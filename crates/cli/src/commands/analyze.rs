//! `schedlab analyze SPEC`: run schedulability tests on a spec, optionally
//! charging kernel overheads, and explain every verdict.

use crate::output::{exit, print_json, CliError};
use crate::policy_args::PolicyArgs;
use schedlab_analysis::interfaces::select_budgets;
use schedlab_analysis::report::{analyze, overheads_for, AnalyzeError, Request, Selection, Style};
use schedlab_analysis::schedulability::Input;
use schedlab_model::Duration;
use std::path::PathBuf;

/// Run schedulability tests on a spec and explain each verdict: the deciding
/// task, the value and the bound compared, the slack. By default the tests
/// about the spec's policy run; `--test` picks tests by ID (`schedlab tests`
/// lists them), `--all` runs every test. With an overhead model (the spec's
/// `overheads`, or `--overheads`), WCETs are first inflated by the kernel
/// overheads (docs/overheads.md). The answer is *proven* when a hard
/// real-time test about the spec's policy shows that every deadline is met
/// (docs/analysis.md, "What the verdict means"). Exit code 0 proven, 1 not
/// proven (inconclusive or unschedulable; the last line says which), 2 bad input.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  schedlab analyze examples/demo.yaml
  schedlab analyze set.yaml --test gedf.gfb --test gedf.rta --json
  schedlab analyze set.yaml --overheads measured.csv --accounting per-task-release --tick 1ms
  schedlab analyze set.yaml --all --explain
  schedlab analyze set.yaml --policy pedf              another policy, the spec unchanged
  schedlab analyze examples/reservations.yaml --select-budgets   the least budget per reservation group")]
pub struct Args {
    /// The spec file.
    spec: PathBuf,
    #[command(flatten)]
    policy: PolicyArgs,
    /// Every test's compared value, bound and supporting lines.
    #[arg(long)]
    explain: bool,
    /// Exact fractions instead of durations and decimals.
    #[arg(long)]
    exact: bool,
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
    /// Instead of testing the spec's reservations, choose them: for each
    /// group, the least budget with which the H-CBS group test (`hcbs.msf`)
    /// accepts its tasks, at its period (exit 0 when every group has one and
    /// they fit the CPUs, 1 otherwise).
    #[arg(long)]
    select_budgets: bool,
    /// With `--select-budgets`: this period for every group (and leaf queue)
    /// instead of the spec's.
    #[arg(long, value_name = "DURATION", requires = "select_budgets")]
    period: Option<Duration>,
    /// Look-up of overheads by task count: `step` (the row above), `linear` or `floor` (the row below, the EPOS rule).
    #[arg(long, default_value = "step")]
    lookup: String,
}

pub fn run(a: Args, as_json: bool) -> i32 {
    match body(a, as_json) {
        Ok(code) => code,
        Err(e) => e.report("analyze", as_json),
    }
}

fn body(a: Args, as_json: bool) -> Result<i32, CliError> {
    let loaded = a.policy.load(&a.spec)?;
    let spec = loaded.spec;
    let dir = a.spec.parent().map(PathBuf::from).unwrap_or_else(|| PathBuf::from("."));
    let overheads =
        overheads_for(&spec, &dir, a.overheads.as_deref(), a.no_overheads, &a.accounting, a.tick.0, &a.lookup)
            .map_err(|e| {
                let opt = e.split(':').next().unwrap_or("").to_string();
                let mut err = CliError::bad_input(e.clone());
                if opt == "accounting" || opt == "lookup" {
                    err = err.at(format!("--{opt}"));
                }
                err
            })?;
    if let Some((o, acc)) = &overheads {
        if acc.tick > 0 && o.costs(spec.tasks.len() as u64).tick == 0 {
            eprintln!(
                "note: {}: the TICK column is not measured: the tick term is missing from the accounting (give TICK values, or --tick 0 to say there is no periodic tick)",
                o.file
            );
        }
    }
    if a.select_budgets {
        if a.period.is_some_and(|p| p.0 == 0) {
            return Err(CliError::bad_input("the period must be positive").at("--period"));
        }
        let chosen = select_budgets(&Input::from_spec(&spec), a.period.map(|p| p.0)).map_err(|e| {
            CliError::bad_input(e)
                .at("--select-budgets")
                .hint("docs/analysis.md#reservations-h-cbs-groups explains the groups' test")
        })?;
        if as_json {
            let mut v = chosen.to_json();
            v["file"] = serde_json::json!(loaded.file);
            print_json(&v);
        } else {
            println!("{}: {} reservation group(s) on {} CPUs\n", loaded.file, chosen.choices.len(), spec.platform.cpus);
            print!("{}", chosen.render());
        }
        return Ok(if chosen.found() { exit::OK } else { exit::NEGATIVE });
    }
    let selection = if a.all {
        Selection::All
    } else if a.tests.is_empty() {
        Selection::Policy
    } else {
        Selection::Ids(a.tests.clone())
    };
    let classes = spec.tasks.iter().map(|t| t.class).collect();
    let input = Input::from_spec(&spec);
    crate::colour::refuse_constraints(&input, &a.spec)?;
    let report = analyze(&input, &Request { selection, overheads, classes }).map_err(|e| {
        let hint = match &e {
            AnalyzeError::Accounting(_) => {
                Some("docs/overheads.md explains the overhead model; --no-overheads analyses without it")
            }
            _ => None,
        };
        let err = CliError::bad_input(e.to_string()).at(match &e {
            AnalyzeError::UnknownTest { .. } => "--test",
            AnalyzeError::Accounting(_) => "overheads",
        });
        match hint {
            Some(h) => err.hint(h),
            None => err,
        }
    })?;
    if as_json {
        let mut v = report.to_json();
        v["file"] = serde_json::json!(loaded.file);
        if let Some(Ok(part)) = &input.colour {
            v["colour"] = crate::colour::json(&spec, part);
        }
        print_json(&v);
    } else {
        print!("{}: ", loaded.file);
        match report.policy {
            Some(p) => println!("{} tasks on {} CPUs, policy {}", spec.tasks.len(), spec.platform.cpus, p.name()),
            None => println!("{} tasks on {} CPUs, no policy (every test)", spec.tasks.len(), spec.platform.cpus),
        }
        if let Some(Ok(part)) = &input.colour {
            print!("{}", crate::colour::text(&spec, part));
        }
        println!();
        print!("{}", report.render_with(Style { explain: a.explain, exact: a.exact }));
    }
    Ok(if report.schedulable() { exit::OK } else { exit::NEGATIVE })
}
