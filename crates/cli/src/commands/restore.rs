//! `schedlab restore`: puts back what runs that were killed before they
//! could restore the machine left behind (cpusets, the root cpuset's load
//! balancing, tracefs instances and mounts, settings), from their crash
//! journals in `/run/schedlab/`. Every run does the same before it starts;
//! this verb does it without starting one.

use crate::output::{print_json, CliError};

/// Restore what killed schedlab runs left on the machine (from their journals in /run/schedlab), and print what was restored.
/// Exit codes: 0 restored (or nothing to restore), 1 something could not be restored or another run holds the run lock.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  sudo schedlab restore
  sudo schedlab restore --wait --json")]
pub struct Args {
    /// Wait for a schedlab run that holds the run lock to end (default: fail at once, naming its PID).
    #[arg(long)]
    wait: bool,
}

pub fn run(a: Args, as_json: bool) -> i32 {
    let dir = schedlab_rt::journal::dir();
    match schedlab_rt::journal::restore(a.wait) {
        Ok(list) => {
            let failed = list.iter().any(|r| !r.errors.is_empty());
            if as_json {
                print_json(&serde_json::json!({
                    "journal_dir": dir,
                    "runs": list,
                    "restored": list.iter().map(|r| r.actions.len()).sum::<usize>(),
                    "complete": !failed,
                }));
            } else if list.is_empty() {
                println!("nothing to restore: no journal of a dead run in {}", dir.display());
            } else {
                for r in &list {
                    println!("{}", r.render());
                }
            }
            if failed {
                1
            } else {
                0
            }
        }
        Err(e) => CliError::new(e.exit_code(), e.to_string()).report("restore", as_json),
    }
}
