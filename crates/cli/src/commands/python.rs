//! Verbs implemented in the Python package (plots need matplotlib): run
//! `PYTHON -m MODULE ARGS`, with PYTHON from `SCHEDLAB_PYTHON` (the console
//! script sets it to its own interpreter) or `python3`.

use crate::output::{exit, CliError};
use std::ffi::OsString;

pub fn run_module(verb: &str, module: &str, args: &[OsString]) -> i32 {
    let python = std::env::var_os("SCHEDLAB_PYTHON").unwrap_or_else(|| "python3".into());
    match std::process::Command::new(&python).arg("-m").arg(module).args(args).status() {
        Ok(s) => s.code().unwrap_or(exit::NEGATIVE),
        Err(e) => CliError::new(exit::NEGATIVE, format!("cannot run {}: {e}", python.to_string_lossy()))
            .hint(
                "install the Python package with its plot extra (pip install 'schedlab[plot]') or set SCHEDLAB_PYTHON",
            )
            .report(verb, false),
    }
}
