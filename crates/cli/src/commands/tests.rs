//! `schedlab tests`: the registry of schedulability tests.

use crate::output::print_json;
use schedlab_analysis::schedulability::{registry, Exactness};
use serde_json::json;

/// List the schedulability tests: ID, what they are about, the task model
/// they assume, exact or sufficient, and where they come from. The IDs are
/// what `schedlab analyze --test` takes.
#[derive(clap::Args)]
#[command(after_help = "Examples:\n  schedlab tests\n  schedlab tests --json")]
pub struct Args {}

pub fn run(_a: Args, as_json: bool) -> i32 {
    if as_json {
        let v: Vec<_> = registry()
            .iter()
            .map(|t| {
                let i = t.info;
                json!({
                    "id": i.id, "title": i.title,
                    "policies": i.policies.iter().map(|p| p.name()).collect::<Vec<_>>(),
                    "assumes": i.assumes, "exact": i.exactness == Exactness::Exact, "source": i.source,
                })
            })
            .collect();
        print_json(&json!(v));
        return 0;
    }
    let width = registry().iter().map(|t| t.info.id.len()).max().unwrap_or(0);
    for t in registry() {
        let i = t.info;
        let kind = if i.exactness == Exactness::Exact { "exact" } else { "sufficient" };
        let policies: Vec<&str> = i.policies.iter().map(|p| p.name()).collect();
        if policies.is_empty() {
            // Selected by `--test` or `--all` only: no policy's own test.
            println!("{:<width$}  {} ({kind}; by --test)", i.id, i.title);
        } else {
            println!("{:<width$}  {} ({kind}; {})", i.id, i.title, policies.join(", "));
        }
        println!("{:<width$}  assumes {}; {}", "", i.assumes, i.source);
    }
    0
}
