//! `schedlab schema`: the JSON Schema of the spec.

use crate::output::write_out;
use std::path::PathBuf;

/// Print the JSON Schema of the spec (the same file ships as docs/spec.schema.json).
#[derive(clap::Args)]
pub struct Args {
    /// Write to this file instead of stdout.
    #[arg(short, long)]
    output: Option<PathBuf>,
}

pub fn run(a: Args) -> i32 {
    match write_out(a.output.as_deref(), &schedlab_model::schema::spec_schema_json()) {
        Ok(()) => 0,
        Err(e) => e.report("schema", false),
    }
}
