//! The `schedlab` command: one implementation, used by the `schedlab` binary
//! and by the Python package's console script.

mod colour;
mod commands;
pub mod output;
mod policy_args;

use clap::{Parser, Subcommand};
pub use output::exit;

/// Exit code for bad input (a spec, an option): nothing was written.
pub const EXIT_BAD_INPUT: i32 = exit::BAD_INPUT;

#[derive(Parser)]
#[command(
    name = "schedlab",
    version = env!("CARGO_PKG_VERSION"),
    about = "Multicore real-time scheduling: generate, check, analyse, simulate, run and validate task sets",
    after_help = "Examples:\n  schedlab gen --seed 7 -o set.yaml      generate a task set\n  schedlab check set.yaml                validate it and print its summary\n  schedlab check set.yaml --json         the same as JSON\n  schedlab analyze set.yaml              is it schedulable, and why\n  schedlab reduce set.yaml               RUN's reduction tree of the set\n  schedlab simulate set.yaml --trace t.jsonl --svg t.svg   simulate, write the trace and a Gantt chart\n  schedlab validate t.jsonl              does the schedule obey its policy?\n  schedlab stats t.jsonl                 per-task statistics of a trace\n  schedlab schema > spec.schema.json     the JSON Schema of the spec\n\nExit codes: 0 success (analyze, partition: proven), 1 a negative outcome (not proven, a violation, a hard deadline missed with --fail-on-miss), 2 bad input (nothing written), 3 missing privileges, 128+N after signal N. docs/cli.md has the table per verb."
)]
struct Cli {
    /// Print machine-readable JSON instead of text.
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Gen(commands::gen::Args),
    Check(commands::check::Args),
    Analyze(commands::analyze::Args),
    Tests(commands::tests::Args),
    Partition(commands::partition::Args),
    Reduce(commands::reduce::Args),
    Simulate(commands::simulate::Args),
    Run(commands::run::Args),
    Probe(commands::probe::Args),
    Restore(commands::restore::Args),
    Overheads(commands::overheads::Args),
    Validate(commands::validate::Args),
    Stats(commands::stats::Args),
    Export(commands::export::Args),
    Import(commands::import::Args),
    Schema(commands::schema::Args),
    Sweep(commands::sweep::Args),
    Plot(commands::plot::Args),
    Report(commands::report::Args),
    /// Print a shell completion script (bash, zsh, fish).
    Completions(commands::completions::CompletionsArgs),
    /// Print the man page.
    Man(commands::completions::ManArgs),
}

/// The clap definition of the whole command (for completions and the man page).
pub fn command() -> clap::Command {
    <Cli as clap::CommandFactory>::command()
}

/// Runs the CLI on `args` (including the program name) and returns the exit code.
pub fn run(args: Vec<String>) -> i32 {
    // `--json` is known before parsing, so that an option error is JSON too.
    let wants_json = args.iter().skip(1).take_while(|a| a.as_str() != "--").any(|a| a == "--json");
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            use clap::error::{ContextKind, ErrorKind};
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                let _ = e.print();
                return exit::OK;
            }
            if !wants_json {
                let _ = e.print();
                return EXIT_BAD_INPUT;
            }
            let text = e.render().to_string();
            let message = text.lines().next().unwrap_or("").trim_start_matches("error: ").to_string();
            let mut err = output::CliError::bad_input(message);
            if let Some(clap::error::ContextValue::String(arg)) = e.get(ContextKind::InvalidArg) {
                err = err.at(arg.split_whitespace().next().unwrap_or(arg).to_string());
            }
            if let Some(tip) = text.lines().find_map(|l| l.trim().strip_prefix("tip: ")) {
                err = err.hint(tip.to_string());
            } else {
                err = err.hint("`schedlab help` lists the verbs, `schedlab VERB --help` their options");
            }
            return err.report("", true);
        }
    };
    match cli.command {
        Command::Gen(a) => commands::gen::run(a, cli.json),
        Command::Check(a) => commands::check::run(a, cli.json),
        Command::Analyze(a) => commands::analyze::run(a, cli.json),
        Command::Tests(a) => commands::tests::run(a, cli.json),
        Command::Partition(a) => commands::partition::run(a, cli.json),
        Command::Reduce(a) => commands::reduce::run(a, cli.json),
        Command::Simulate(a) => commands::simulate::run(a, cli.json),
        Command::Run(a) => commands::run::run(a, cli.json),
        Command::Probe(a) => commands::probe::run(a, cli.json),
        Command::Restore(a) => commands::restore::run(a, cli.json),
        Command::Overheads(a) => commands::overheads::run(a, cli.json),
        Command::Validate(a) => commands::validate::run(a, cli.json),
        Command::Stats(a) => commands::stats::run(a, cli.json),
        Command::Export(a) => commands::export::run(a, cli.json),
        Command::Import(a) => commands::import::run(a, cli.json),
        Command::Schema(a) => commands::schema::run(a),
        Command::Completions(a) => commands::completions::completions(a, command(), cli.json),
        Command::Man(a) => commands::completions::man(a, command(), cli.json),
        Command::Sweep(a) => commands::sweep::run(a, cli.json),
        Command::Plot(a) => commands::plot::run(a, cli.json),
        Command::Report(a) => commands::report::run(a, cli.json),
    }
}
