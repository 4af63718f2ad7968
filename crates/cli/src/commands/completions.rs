//! `schedlab completions SHELL` and `schedlab man`: shell completion scripts
//! and the man page, generated from the clap definitions (so they cannot
//! drift from the options). `pip install` installs both (docs/cli.md,
//! "Completion and man page").

use crate::output::{print_json, write_out, CliError};
use std::path::{Path, PathBuf};

/// Print a shell completion script for bash, zsh or fish.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  schedlab completions bash > ~/.local/share/bash-completion/completions/schedlab
  schedlab completions zsh > ~/.zfunc/_schedlab
  schedlab completions fish > ~/.config/fish/completions/schedlab.fish")]
pub struct CompletionsArgs {
    /// bash, zsh or fish.
    shell: clap_complete::Shell,
    /// Write to this file instead of stdout.
    #[arg(short, long)]
    output: Option<PathBuf>,
}

/// Print the man page (roff) of `schedlab` and its verbs.
#[derive(clap::Args)]
#[command(after_help = "Examples:\n  schedlab man > schedlab.1 && man ./schedlab.1")]
pub struct ManArgs {
    /// Write to this file instead of stdout.
    #[arg(short, long)]
    output: Option<PathBuf>,
}

/// The completion script for `shell`.
pub fn completion_script(cmd: &mut clap::Command, shell: clap_complete::Shell) -> String {
    let mut buf = Vec::new();
    clap_complete::generate(shell, cmd, "schedlab", &mut buf);
    String::from_utf8(buf).expect("completion scripts are UTF-8")
}

/// The man page: the command, then a section per verb.
pub fn man_page(cmd: &clap::Command) -> String {
    let mut buf = Vec::new();
    clap_mangen::Man::new(cmd.clone()).render(&mut buf).expect("writing to memory");
    for sub in cmd.get_subcommands() {
        let name = format!("schedlab {}", sub.get_name());
        // Leaked once per `schedlab man` (a few verbs): clap names are static.
        let sub = sub.clone().name(&*Box::leak(name.into_boxed_str()));
        let mut part = Vec::new();
        let man = clap_mangen::Man::new(sub);
        man.render_name_section(&mut part).expect("writing to memory");
        man.render_synopsis_section(&mut part).expect("writing to memory");
        man.render_description_section(&mut part).expect("writing to memory");
        man.render_options_section(&mut part).expect("writing to memory");
        buf.extend_from_slice(&part);
    }
    String::from_utf8(buf).expect("man pages are UTF-8")
}

pub fn completions(a: CompletionsArgs, mut cmd: clap::Command, as_json: bool) -> i32 {
    let text = completion_script(&mut cmd, a.shell);
    match emit(a.output.as_deref(), &text, as_json) {
        Ok(()) => 0,
        Err(e) => e.report("completions", as_json),
    }
}

pub fn man(a: ManArgs, cmd: clap::Command, as_json: bool) -> i32 {
    let text = man_page(&cmd);
    match emit(a.output.as_deref(), &text, as_json) {
        Ok(()) => 0,
        Err(e) => e.report("man", as_json),
    }
}

/// Writes `text` to `output` (stdout when none); with `--json`, stdout gets
/// `{"file", "text"}` instead (as `gen` does with its spec).
fn emit(output: Option<&Path>, text: &str, as_json: bool) -> Result<(), CliError> {
    if !as_json {
        return write_out(output, text);
    }
    if let Some(p) = output.filter(|p| p.as_os_str() != "-") {
        write_out(Some(p), text)?;
    }
    print_json(&serde_json::json!({ "file": output, "text": text }));
    Ok(())
}
