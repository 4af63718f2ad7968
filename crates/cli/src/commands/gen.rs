//! `schedlab gen`: generate a random task set as a spec.

use crate::output::{print_json, write_out, CliError};
use schedlab_gen::{generate, GenOptions};
use schedlab_model::{emit, Format, PolicyName};
use serde_json::json;
use std::path::PathBuf;

/// Generate a random task set. Every option has a default, so
/// `schedlab gen --seed 7` alone prints a valid spec; the seed and the options
/// are recorded in `meta`, and the same seed gives byte-identical output.
#[derive(clap::Args)]
#[command(after_help = "\
Utilisation methods (--utils):
  uunifast, uunifast-discard (default), randfixedsum, drs   draw --tasks values summing to --util
  uni-light|medium|heavy, exp-light|medium|heavy, bimo-light|medium|heavy,
  bimo-WEIGHT(SPLIT), uniform(LO,HI)                          draw tasks until the cap --util (within --slack)
Periods (--periods): short [3,33]ms, moderate [10,100]ms (default), long [50,250]ms,
  uniform:LO-HI, log-uniform:LO-HI, list:25ms,50ms,100ms,200ms
Multithreaded tasks (--mtt): draw MTTs until --util (Calandrino's random MTT sets):
  threads=LO-HI (default 1-8), util=LO-HI per thread (default 0.01-0.9),
  wss=uni:LO-HI (default uni:64B-2MiB) or tc:LO-HI (task count x uniform), or `default'

Examples:
  schedlab gen --seed 7
  schedlab gen --seed 7 --cpus 8 --utils bimo-heavy --util 6 --periods long -o set.yaml
  schedlab gen --seed 1 --utils randfixedsum --tasks 20 --util 3 --umax 0.5 --deadlines constrained
  schedlab gen --seed 3 --cache 8MiB/16/64B --wss list:32KiB,64KiB,128KiB,256KiB --colors-per-task 8
  schedlab gen --seed 2 --cpus 4 --cluster-size 2 --policy cedf --format json
  schedlab gen --seed 4 --cpus 8 --util 4 --cache 2MiB/8/64B --mtt threads=1-8,util=0.1-0.4,wss=tc:64B-512KiB
  schedlab gen --seed 1 --cpus 4 --policy mcs --prem mode=amp --wss list:800KiB --util 1.5")]
pub struct Args {
    /// Seed of the random generator (recorded in the output).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Number of CPUs.
    #[arg(long, default_value_t = 4)]
    cpus: u32,
    /// Split the CPUs into clusters of this size.
    #[arg(long)]
    cluster_size: Option<u32>,
    /// Policy written into the spec.
    #[arg(long, default_value = "gedf", value_parser = parse_policy)]
    policy: PolicyName,
    /// Utilisation method or distribution (see below).
    #[arg(long, default_value = "uunifast-discard")]
    utils: String,
    /// Number of tasks, for uunifast, uunifast-discard, randfixedsum, drs [default: 10].
    #[arg(short = 'n', long)]
    tasks: Option<u32>,
    /// Total utilisation, or the cap for named distributions [default: cpus / 2].
    #[arg(short = 'u', long)]
    util: Option<f64>,
    /// Named distributions: the set's utilisation lands in [util − slack, util]
    /// [default: 0.07 light/medium, 0.1 heavy].
    #[arg(long)]
    slack: Option<f64>,
    /// Lower bound of each task's utilisation (randfixedsum, drs).
    #[arg(long, default_value_t = 0.0)]
    umin: f64,
    /// Upper bound of each task's utilisation (randfixedsum, drs).
    #[arg(long, default_value_t = 1.0)]
    umax: f64,
    /// Period distribution (see below).
    #[arg(long, default_value = "moderate")]
    periods: String,
    /// Periods are multiples of this.
    #[arg(long, default_value = "1ms")]
    period_granularity: String,
    /// Make every period divide the longer ones (small hyperperiods).
    #[arg(long)]
    harmonic: bool,
    /// `implicit` (D = T) or `constrained` (D uniform in [C, T]).
    #[arg(long, default_value = "implicit")]
    deadlines: String,
    /// WCETs are u·T rounded up to a multiple of this.
    #[arg(long, default_value = "1us")]
    wcet_granularity: String,
    /// Working-set sizes: uniform:LO-HI or list:S1,S2,...
    #[arg(long)]
    wss: Option<String>,
    /// Shared cache geometry SIZE/WAYS/LINE, e.g. 8MiB/16/64B.
    #[arg(long)]
    cache: Option<String>,
    /// Give each task this many distinct random cache colours (needs --cache).
    #[arg(long)]
    colors_per_task: Option<u32>,
    /// Draw multithreaded tasks until --util instead of independent tasks:
    /// `threads=LO-HI,util=LO-HI,wss=uni:LO-HI|tc:LO-HI`, or `default` (see below).
    #[arg(long)]
    mtt: Option<String>,
    /// PREM tasks for memory-centric scheduling (with --policy mcs): one task per
    /// CPU, --wss its data, split into Sections: key=value pairs mode, partition,
    /// section, bandwidth, compute, write, or `default`.
    #[arg(long)]
    prem: Option<String>,
    /// Output format: yaml or json [default: from the -o extension, else yaml].
    #[arg(long)]
    format: Option<String>,
    /// Write to this file instead of stdout (with --json, stdout gets `{"file", "spec"}` as well).
    #[arg(short, long)]
    output: Option<PathBuf>,
}

fn parse_policy(s: &str) -> Result<PolicyName, String> {
    PolicyName::ALL.iter().copied().find(|p| p.name() == s).ok_or_else(|| {
        let names: Vec<&str> = PolicyName::ALL.iter().map(|p| p.name()).collect();
        format!("unknown policy `{s}`; use one of {}", names.join(", "))
    })
}

pub fn run(a: Args, as_json: bool) -> i32 {
    match body(a, as_json) {
        Ok(code) => code,
        Err(e) => e.report("gen", as_json),
    }
}

fn body(a: Args, as_json: bool) -> Result<i32, CliError> {
    let format = match a.format.as_deref() {
        None => a.output.as_deref().map(Format::from_path).unwrap_or(Format::Yaml),
        Some("yaml") => Format::Yaml,
        Some("json") => Format::Json,
        Some(other) => {
            return Err(CliError::option("--format", format!("must be yaml or json, got `{other}`")));
        }
    };
    let options = GenOptions {
        seed: Some(a.seed),
        cpus: Some(a.cpus),
        cluster_size: a.cluster_size,
        policy: Some(a.policy),
        utils: Some(a.utils),
        tasks: a.tasks,
        util: a.util,
        slack: a.slack,
        umin: Some(a.umin),
        umax: Some(a.umax),
        periods: Some(a.periods),
        period_granularity: Some(a.period_granularity),
        harmonic: Some(a.harmonic),
        deadlines: Some(a.deadlines),
        wcet_granularity: Some(a.wcet_granularity),
        wss: a.wss,
        cache: a.cache,
        colors_per_task: a.colors_per_task,
        mtt: a.mtt,
        prem: a.prem,
    };
    let params = options.into_params().map_err(|e| match e.split_once(": ") {
        Some((name, msg)) => CliError::option(&format!("--{}", name.replace('_', "-")), msg),
        None => CliError::bad_input(e),
    })?;
    let spec = generate(&params).map_err(|e| CliError::bad_input(e.to_string()))?;
    let text = match format {
        Format::Yaml => emit::to_yaml(&spec),
        Format::Json => emit::to_json(&spec),
    };
    if as_json {
        if let Some(p) = &a.output {
            write_out(Some(p), &text)?;
        }
        let spec: serde_json::Value = serde_json::from_str(&emit::to_json(&spec)).expect("emitted JSON parses");
        print_json(&json!({"file": a.output, "spec": spec}));
    } else {
        write_out(a.output.as_deref(), &text)?;
    }
    Ok(0)
}
