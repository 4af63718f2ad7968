//! `schedlab reduce SPEC`: RUN's offline reduction of a spec, as a tree.

use crate::output::{print_json, CliError};
use crate::policy_args::PolicyArgs;
use schedlab_admission::reduction::{reduce_spec, slack_name, Children, Tree};
use schedlab_model::exact::Ratio;
use schedlab_model::Duration;
use serde_json::json;
use std::path::PathBuf;

/// Print RUN's reduction tree of a spec: every server with its name, level,
/// exact rate (fraction and decimal) and children (tasks, or other servers'
/// duals), the number of reduction levels and the packing and slack
/// policies used (the spec's `policy.partitioning` and `policy.slack` when
/// its policy is `run`, else wfd and greedy). Exit code 2 for a spec RUN
/// cannot schedule (a utilisation above 1, a total above the CPU count, a
/// deadline other than the period), naming the field and the fix.
#[derive(clap::Args)]
#[command(
    after_help = "Examples:\n  schedlab reduce examples/run.yaml\n  schedlab reduce set.yaml --json\n\nIn the tree, S3* is the dual of server S3 (rate 1 − rate(S3)); a child\nserver without * stands for itself (a chain of single-child servers collapsed)."
)]
pub struct Args {
    /// The spec file (.yaml, .yml or .json).
    spec: PathBuf,
    #[command(flatten)]
    policy: PolicyArgs,
}

pub fn run(a: Args, as_json: bool) -> i32 {
    let loaded = match a.policy.load(&a.spec) {
        Ok(l) => l,
        Err(e) => return e.report("reduce", as_json),
    };
    let tree = match reduce_spec(&loaded.spec) {
        Ok(t) => t,
        Err(e) => {
            return CliError::bad_input(e.message.clone())
                .in_file(&loaded.file)
                .at(e.path.clone())
                .report("reduce", as_json)
        }
    };
    if as_json {
        let mut v = tree.to_json();
        v.as_object_mut().expect("an object").insert("file".into(), json!(loaded.file));
        print_json(&v);
    } else {
        print!("{}", render(&loaded.file, &tree));
    }
    0
}

fn rate(r: &Ratio) -> String {
    format!("{} ({:.6})", r.to_fraction(), r.to_f64())
}

/// The text report: a header, then each root's tree.
pub(crate) fn render(file: &str, t: &Tree) -> String {
    let mut out = format!("{file}: RUN reduction of {} tasks on {} CPUs\n", t.tasks.len(), t.cpus);
    out += &format!(
        "  packing {}, slack {}; utilisation {}, slack {} over the {} CPU{} used\n",
        t.heuristic.name(),
        slack_name(t.slack_policy),
        rate(&t.utilisation),
        rate(&t.slack),
        t.used_cpus,
        if t.used_cpus == 1 { "" } else { "s" }
    );
    let roots: Vec<String> = t.roots.iter().map(|&r| t.servers[r].name()).collect();
    if t.levels == 0 {
        out += &format!(
            "  0 reduction levels: every level-0 server is a unit server ({}); RUN is partitioned EDF\n\n",
            roots.join(", ")
        );
    } else {
        out += &format!(
            "  {} reduction level{}; root{} {}\n\n",
            t.levels,
            if t.levels == 1 { "" } else { "s" },
            if roots.len() == 1 { "" } else { "s" },
            roots.join(", ")
        );
    }
    for &r in &t.roots {
        let s = &t.servers[r];
        out += &format!("{}  level {}  rate {}  root\n", s.name(), s.level, rate(&s.rate));
        children(t, r, "", &mut out);
    }
    out
}

fn children(t: &Tree, s: usize, indent: &str, out: &mut String) {
    let lines: Vec<(String, Option<usize>)> = match &t.servers[s].children {
        Children::Tasks(ts) => ts
            .iter()
            .map(|&i| {
                let (c, p) = t.tasks[i];
                (
                    format!(
                        "{}  {} / {}  rate {}",
                        t.task_name(i),
                        Duration(c),
                        Duration(p),
                        rate(&Ratio::new(c as u128, p as u128))
                    ),
                    None,
                )
            })
            .collect(),
        Children::Items(items) => items
            .iter()
            .map(|it| {
                let c = &t.servers[it.server];
                let mut line = format!("{}  level {}  rate {}", t.item_name(it), c.level, rate(&c.rate));
                if it.dual {
                    line += &format!("  dual rate {}", rate(&c.dual_rate()));
                }
                if c.slack.0 > Ratio::zero().0 {
                    line += &format!("  (slack {})", c.slack.to_fraction());
                }
                (line, Some(it.server))
            })
            .collect(),
    };
    let n = lines.len();
    for (k, (line, sub)) in lines.into_iter().enumerate() {
        let last = k + 1 == n;
        out.push_str(indent);
        out.push_str(if last { "└─ " } else { "├─ " });
        out.push_str(&line);
        out.push('\n');
        if let Some(c) = sub {
            let deeper = format!("{indent}{}", if last { "   " } else { "│  " });
            children(t, c, &deeper, out);
        }
    }
}
