//! `schedlab partition SPEC`: pack the tasks of a partitioned or clustered
//! policy onto CPUs or clusters with a schedulability test as the fit test,
//! print the partition with each bin's verdict, and optionally write the
//! spec back with the tasks pinned.

use crate::output::{exit, print_json, write_out, CliError};
use crate::policy_args::PolicyArgs;
use schedlab_admission::partition::Heuristic;
use schedlab_analysis::report::{outcome_json, readable, suggest};
use schedlab_analysis::schedulability::{find, Data, Input, Verdict};
use schedlab_model::spec::Domains;
use schedlab_model::{Format, PolicyName};
use serde_json::json;
use std::path::PathBuf;

/// Partition the spec's tasks onto CPUs (partitioned policies) or clusters
/// (clustered policies): each task goes where the heuristic puts it among
/// the bins that stay schedulable under the test (test-driven packing). Prints
/// the partition and every bin's verdict; with -o, writes the spec with every
/// task pinned (`cpu` or `cluster`), the policy used and the heuristic that
/// succeeded recorded, ready for `simulate`, `run` and `analyze` as it is.
/// A global spec is partitioned with `--policy pedf` (or another partitioned
/// or clustered policy). Exit code 0 when every task was placed and every bin
/// passes, 1 otherwise, 2 for bad input.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  schedlab partition set.yaml                         the policy's default test, its heuristic (default wfd)
  schedlab partition set.yaml --heuristic ffd --test pedf.qpa -o pinned.yaml
  schedlab partition examples/demo.yaml --json
  schedlab partition set.yaml --policy pedf -o pinned.yaml   a global spec, partitioned")]
pub struct Args {
    /// The spec file.
    spec: PathBuf,
    #[command(flatten)]
    policy: PolicyArgs,
    /// Packing heuristic (repeatable: tried in turn, the first that succeeds wins): ff, bf, wf, nf, ffd, bfd, wfd, nfd [default: the spec's `partitioning`, else wfd].
    #[arg(long = "heuristic", value_name = "H")]
    heuristics: Vec<String>,
    /// The partitioned or clustered test (registry ID) [default: pedf.qpa, pfp.rta, pllf.util, pfpds.rta, cedf.global or cfp.global by policy].
    #[arg(long = "test", value_name = "ID")]
    test: Option<String>,
    /// For partitioned tests with `admit`: the uniprocessor test admitting each task onto a CPU (e.g. uni.edf.qpa).
    #[arg(long, value_name = "ID")]
    admission: Option<String>,
    /// Write the spec with every task pinned to this file (.yaml or .json).
    #[arg(short, long)]
    output: Option<PathBuf>,
}

/// The partitioned test a policy is checked with by default.
fn default_test(p: PolicyName) -> Option<&'static str> {
    Some(match p {
        PolicyName::Pedf => "pedf.qpa",
        PolicyName::Pfp => "pfp.rta",
        PolicyName::Pllf => "pllf.util",
        PolicyName::Fpds => "pfpds.rta",
        PolicyName::Cedf => "cedf.global",
        PolicyName::Cfp => "cfp.global",
        PolicyName::CapGsDynamic => "pfp.rta",
        // The CPUs' P-FP places the tasks (a WCET holds the memory phases);
        // the memory-phase scheduler's delays are not in this test.
        PolicyName::Mcs => "pfp.rta",
        _ => return None,
    })
}

pub fn run(a: Args, as_json: bool) -> i32 {
    match body(a, as_json) {
        Ok(code) => code,
        Err(e) => e.report("partition", as_json),
    }
}

fn body(a: Args, as_json: bool) -> Result<i32, CliError> {
    let loaded = a.policy.load(&a.spec)?;
    let mut spec = loaded.spec;
    let Some(policy) = spec.policy.as_ref().map(|p| p.name) else {
        return Err(CliError::bad_input("the spec has no `policy`")
            .in_file(&a.spec)
            .at("policy")
            .hint("add a partitioned or clustered one, e.g. `policy: {name: pedf}`, or give --policy pedf"));
    };
    let id = match (&a.test, default_test(policy)) {
        (Some(t), _) => t.clone(),
        (None, Some(t)) => t.to_string(),
        (None, None) => {
            // The partitioned policies of the same family, from the descriptors.
            let family = policy.descriptor().family;
            let partitioned: Vec<PolicyName> =
                PolicyName::ALL.iter().copied().filter(|p| default_test(*p).is_some()).collect();
            let counterpart = partitioned
                .iter()
                .find(|p| p.descriptor().family == family && p.domains() == Domains::PerCpu)
                .unwrap_or(&PolicyName::Pedf);
            let all: Vec<&str> = partitioned.iter().map(|p| p.name()).collect();
            return Err(CliError::bad_input(format!(
                "`{}` ({}) does not partition",
                policy.name(),
                policy.descriptor().title
            ))
            .in_file(&a.spec)
            .at("policy.name")
            .hint(format!(
                "give --policy {} (or another partitioned or clustered policy: {})",
                counterpart.name(),
                all.join(", ")
            )));
        }
    };
    let Some(test) = find(&id) else {
        let hint = suggest(&id).map(|s| format!("did you mean `{s}`? ")).unwrap_or_default();
        return Err(CliError::option("--test", format!("unknown test `{id}`"))
            .hint(format!("{hint}`schedlab tests` lists them")));
    };
    if !a.heuristics.is_empty() {
        // A heuristic asked for replaces colour-aware partitioning.
        if let Some(pol) = spec.policy.as_mut() {
            if matches!(pol.partitioning, Some(schedlab_model::Packing::Cap | schedlab_model::Packing::CapGs)) {
                pol.partitioning = None;
                pol.capacity = None;
                pol.group_packing = None;
                pol.srt_on_hrt_cores = None;
                pol.memory_total = None;
            }
        }
    }
    let mut input = Input::from_spec(&spec);
    crate::colour::refuse_constraints(&input, &a.spec)?;
    for h in &a.heuristics {
        let h = h.parse::<Heuristic>().map_err(|e| CliError::option("--heuristic", e.to_string()))?;
        input.options.heuristics.push(h);
    }
    if let Some(adm) = &a.admission {
        if find(adm).is_none() {
            return Err(
                CliError::option("--admission", format!("unknown test `{adm}`")).hint("`schedlab tests` lists them")
            );
        }
        input.options.admission = Some(adm.clone());
    }
    let outcome = (test.run)(&input);
    let Some(Data::Partition(part)) = outcome.data.clone() else {
        if outcome.verdict == Verdict::NotApplicable || outcome.verdict == Verdict::Inconclusive {
            // No partition was found: report why, in the shape of a success.
            if as_json {
                print_json(&json!({
                    "file": loaded.file, "policy": policy.name(), "test": outcome.test, "heuristic": null,
                    "schedulable": false, "placed": false, "bins": [], "outcome": outcome_json(&outcome, &input),
                    "written": null, "colour": null,
                }));
            } else {
                println!("{}: {} {}: {}", loaded.file, outcome.test, outcome.verdict, readable(&outcome.reason));
                println!("\nnot placed: the partition was not found");
            }
            return Ok(exit::NEGATIVE);
        }
        return Err(CliError::option(
            "--test",
            format!("`{id}` is not a partitioned or clustered test (it returns no partition)"),
        ));
    };
    let clustered = policy.domains() == Domains::PerCluster;
    let members = part.members();
    let pass = outcome.verdict == Verdict::Schedulable;
    if let Some(out) = &a.output {
        for (t, &b) in part.bins.iter().enumerate() {
            if clustered {
                // A task pinned to a CPU stays on it (packing kept it in that CPU's cluster).
                spec.tasks[t].cluster = Some(b as u32);
            } else {
                spec.tasks[t].cpu = part.cpus[b].first().copied();
            }
        }
        // The heuristic that succeeded is recorded, so that the spec says how
        // the pins came about (and a re-partition repeats them).
        if let Some(pol) = spec.policy.as_mut() {
            if let Ok(h) = serde_json::from_value(json!(part.heuristic)) {
                pol.partitioning = Some(h);
            }
        }
        let text = match Format::from_path(out) {
            Format::Json => schedlab_model::emit::to_json(&spec),
            Format::Yaml => schedlab_model::emit::to_yaml(&spec),
        };
        write_out(Some(out), &text)?;
    }
    if as_json {
        let bins: Vec<_> = members
            .iter()
            .enumerate()
            .map(|(b, ts)| {
                json!({
                    "bin": b, "cpus": part.cpus[b],
                    "tasks": ts.iter().map(|&t| input.names.get(t).cloned().unwrap_or_else(|| format!("tasks[{t}]"))).collect::<Vec<_>>(),
                    "outcome": part.outcomes.get(b).map(|o| outcome_json(o, &input)),
                })
            })
            .collect();
        print_json(&json!({
            "file": loaded.file, "policy": policy.name(), "test": outcome.test, "heuristic": part.heuristic,
            "schedulable": pass, "placed": true, "bins": bins, "outcome": outcome_json(&outcome, &input),
            "written": a.output,
            "colour": match &input.colour {
                Some(Ok(p)) => crate::colour::json(&spec, p),
                _ => serde_json::Value::Null,
            },
        }));
    } else {
        println!(
            "{}: {} by {} ({}): {}",
            loaded.file,
            outcome.test,
            part.heuristic,
            outcome.verdict,
            readable(&outcome.reason)
        );
        for (b, ts) in members.iter().enumerate() {
            let names: Vec<String> =
                ts.iter().map(|&t| input.names.get(t).cloned().unwrap_or_else(|| format!("tasks[{t}]"))).collect();
            let what = if clustered {
                format!("cluster {b} (CPUs {:?})", part.cpus[b])
            } else {
                format!("CPU {}", part.cpus[b].first().copied().unwrap_or(b as u32))
            };
            let verdict =
                part.outcomes.get(b).map(|o| format!("{}: {}", o.verdict, readable(&o.reason))).unwrap_or_default();
            println!("  {what}: {}", if names.is_empty() { "-".to_string() } else { names.join(", ") });
            if !verdict.is_empty() {
                println!("    {verdict}");
            }
        }
        if let Some(Ok(p)) = &input.colour {
            print!("{}", crate::colour::text(&spec, p));
        }
    }
    Ok(if pass { exit::OK } else { exit::NEGATIVE })
}
