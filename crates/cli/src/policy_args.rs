//! `--policy NAME` and `--set KEY=VALUE`: the spec's policy replaced for one
//! call (verbs `analyze`, `partition`, `simulate`, `run`, `reduce`).

use crate::output::CliError;
use std::path::Path;

/// The options every verb that reads a spec's policy takes.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct PolicyArgs {
    /// Use this policy instead of the spec's (parameters it does not take are dropped with a notice).
    #[arg(long, value_name = "NAME")]
    pub policy: Option<String>,
    /// Set a policy parameter for this call, e.g. `--set quantum=500us` (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
}

impl PolicyArgs {
    /// Loads the spec, prints its warnings on stderr, applies the options
    /// and prints their notices.
    pub fn load(&self, path: &Path) -> Result<schedlab_model::Loaded, CliError> {
        let mut loaded = crate::output::load_spec(path)?;
        for w in &loaded.warnings {
            eprintln!("warning: {}", w.render(&loaded.file));
        }
        if self.policy.is_some() || !self.set.is_empty() {
            let notices = schedlab_model::overrides::apply(&mut loaded.spec, self.policy.as_deref(), &self.set)
                .map_err(|d| {
                    let option = d.path.starts_with("--");
                    let e = CliError::bad_input(d.message.clone()).at(d.path.clone());
                    if option {
                        e
                    } else {
                        e.in_file(path).hint("the spec does not fit the policy given with --policy / --set")
                    }
                })?;
            for n in notices {
                eprintln!("note: {n}");
            }
        }
        Ok(loaded)
    }
}
