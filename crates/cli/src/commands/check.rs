//! `schedlab check`: parse and validate a spec, print its summary.

use crate::output::{print_json, CliError};
use schedlab_model::{load_path, Diagnostic, Summary};
use serde_json::json;
use std::path::PathBuf;

/// Validate a spec and print its summary: tasks, utilisation, density,
/// hyperperiod and a row per task. Problems are reported with file, line,
/// column and field path; exit code 2 if the spec is invalid.
#[derive(clap::Args)]
#[command(after_help = "Examples:\n  schedlab check examples/demo.yaml\n  schedlab check set.json --json")]
pub struct Args {
    /// The spec file (.yaml, .yml or .json).
    spec: PathBuf,
    /// Print only problems (and nothing when the spec is valid).
    #[arg(short, long)]
    quiet: bool,
}

pub fn run(a: Args, as_json: bool) -> i32 {
    let loaded = match load_path(&a.spec) {
        Ok(l) => l,
        Err(e) => return CliError::spec(&e).report("check", as_json),
    };
    let summary = Summary::of(&loaded.spec);
    if as_json {
        let priorities = schedlab_model::overrides::priority_source(&loaded.spec);
        print_json(&json!({
            "file": loaded.file, "valid": true, "warnings": loaded.warnings, "summary": summary,
            "priorities": priorities,
        }));
        return 0;
    }
    if !a.quiet {
        let priorities = schedlab_model::overrides::priority_source(&loaded.spec);
        print!("{}", render(&loaded.file, &summary, priorities, &loaded.warnings));
    } else {
        for w in &loaded.warnings {
            eprintln!("warning: {}", w.render(&loaded.file));
        }
    }
    0
}

/// The text report.
fn render(file: &str, s: &Summary, priorities: Option<&str>, warnings: &[Diagnostic]) -> String {
    let mut out = format!("{file}: valid spec\n");
    out += &format!(
        "  {} tasks on {} CPUs{}, {} deadlines\n",
        s.tasks,
        s.cpus,
        s.policy.map(|p| format!(", policy {p}")).unwrap_or_default(),
        s.deadlines
    );
    out += &format!(
        "  utilisation {:.4} (exact {}), density {:.4}, max task utilisation {:.4}\n",
        s.utilization, s.utilization_exact, s.density, s.max_utilization
    );
    if let Some(p) = priorities {
        out += &format!("  priorities {p}\n");
    }
    out += &format!(
        "  hyperperiod {}\n\n",
        s.hyperperiod.map(|h| h.to_string()).unwrap_or_else(|| "beyond 2^64 ns (periods are nearly coprime)".into())
    );
    let header = ["task", "wcet", "period", "deadline", "util", "density", "pin", "prio", "class"];
    let rows: Vec<[String; 9]> = s
        .rows
        .iter()
        .map(|r| {
            let pin = match (r.cpu, r.cluster) {
                (Some(c), _) => format!("cpu {c}"),
                (None, Some(k)) => format!("cluster {k}"),
                _ => "-".into(),
            };
            [
                r.name.clone(),
                r.wcet.to_string(),
                r.period.to_string(),
                r.deadline.to_string(),
                format!("{:.4}", r.utilization),
                format!("{:.4}", r.density),
                pin,
                r.priority.map(|p| p.to_string()).unwrap_or_else(|| "-".into()),
                r.class.to_string(),
            ]
        })
        .collect();
    let mut width = header.map(|h| h.chars().count());
    for r in &rows {
        for (w, c) in width.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cells: Vec<String>| -> String {
        let parts: Vec<String> = cells
            .iter()
            .zip(width)
            .enumerate()
            .map(|(i, (c, w))| if i == 0 { format!("{c:<w$}") } else { format!("{c:>w$}") })
            .collect();
        format!("  {}\n", parts.join("  ").trim_end())
    };
    out += &line(header.iter().map(|h| h.to_string()).collect());
    for r in rows {
        out += &line(r.to_vec());
    }
    let segmented: Vec<_> = s.rows.iter().filter_map(|r| Some((&r.name, r.segments.as_ref()?))).collect();
    if !segmented.is_empty() {
        out += "\nsegments:\n";
        for (name, segments) in segmented {
            out += &format!("  {name}: {segments}\n");
        }
    }
    if !s.groups.is_empty() {
        out += "\nreservations (budget / period on each CPU):\n";
        let rows: Vec<(String, String, String)> = s
            .groups
            .iter()
            .map(|g| {
                let mut tasks = g.tasks.join(", ");
                if let Some(l) = &g.leaf {
                    tasks = format!("{tasks} (leaf queue {l})");
                }
                (format!("{}{}", "  ".repeat(g.depth), g.name), format!("{} / {}", g.budget, g.period), tasks)
            })
            .collect();
        let w0 = rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(0);
        let w1 = rows.iter().map(|r| r.1.chars().count()).max().unwrap_or(0);
        for ((name, reservation, tasks), g) in rows.iter().zip(&s.groups) {
            let line = format!("  {name:<w0$}  {reservation:<w1$}  {:.4}  {tasks}", g.bandwidth);
            out += &format!("{}\n", line.trim_end());
        }
        let grouped: std::collections::HashSet<&String> = s.groups.iter().flat_map(|g| &g.tasks).collect();
        let background: Vec<&str> =
            s.rows.iter().filter(|r| !grouped.contains(&r.name)).map(|r| r.name.as_str()).collect();
        if !background.is_empty() {
            out += &format!("  in no group (background): {}\n", background.join(", "));
        }
    }
    if !s.mtts.is_empty() {
        out += "\nmultithreaded tasks (one working set each):\n";
        let w0 = s.mtts.iter().map(|m| m.name.chars().count()).max().unwrap_or(0);
        let sizes: Vec<String> = s.mtts.iter().map(|m| m.wss.map_or("no wss".into(), |w| w.to_string())).collect();
        let w1 = sizes.iter().map(|x| x.chars().count()).max().unwrap_or(0);
        for (m, size) in s.mtts.iter().zip(&sizes) {
            out += &format!("  {:<w0$}  {size:>w1$}  {}\n", m.name, m.tasks.join(", "));
        }
    }
    if !warnings.is_empty() {
        out += "\nwarnings:\n";
        for w in warnings {
            out += &format!("  {}\n", w.render(file));
        }
    }
    out
}
