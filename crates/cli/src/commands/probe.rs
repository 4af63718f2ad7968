//! `schedlab probe latency`: timer wake-up latency of a SCHED_FIFO thread
//! per CPU (cyclictest's measurement), idle and under generated load, and
//! the IRQ threads with their priorities.

use crate::output::print_json;
use schedlab_model::Duration;

/// Measure what the platform gives before trusting a run.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    what: What,
}

#[derive(clap::Subcommand)]
enum What {
    /// Timer wake-up latency (cyclictest -m -S -p PRIO -i INTERVAL), idle and loaded; IRQ threads.
    #[command(
        after_help = "Examples:\n  sudo schedlab probe latency\n  sudo schedlab probe latency --interval 500us --duration 10s --priority 80 --json"
    )]
    Latency {
        /// Wake-up interval.
        #[arg(long, default_value = "200us")]
        interval: Duration,
        /// Duration of each phase (idle, loaded).
        #[arg(long, default_value = "5s")]
        duration: Duration,
        /// SCHED_FIFO priority of the probe threads.
        #[arg(long, default_value_t = 90)]
        priority: u32,
        /// Skip the loaded phase.
        #[arg(long)]
        no_load: bool,
    },
}

pub fn run(a: Args, as_json: bool) -> i32 {
    let What::Latency { interval, duration, priority, no_load } = a.what;
    let cfg = schedlab_rt::probe::ProbeConfig { interval: interval.0, duration: duration.0, priority, load: !no_load };
    match schedlab_rt::probe::latency(&cfg) {
        Ok(r) => {
            if as_json {
                print_json(&serde_json::to_value(&r).expect("reports serialize"));
            } else {
                print!("{}", r.render());
            }
            0
        }
        Err(e) => crate::output::CliError::new(e.exit_code(), e.to_string()).report("probe", as_json),
    }
}
