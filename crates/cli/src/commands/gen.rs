//! `schedlab gen`: generate a random task set (placeholder until the generators land).
#[derive(clap::Args)]
pub struct Args {}
pub fn run(_a: Args, _json: bool) -> i32 { 1 }
