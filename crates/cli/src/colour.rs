//! The colour-aware partition (`partitioning: cap` or `cap-gs`) as `partition`
//! and `analyze` report it: the groups, the tasks split off, and each CPU's
//! tasks and colours; and the refusal of a spec that breaks CAP's
//! constraints (bad input, exit 2).

use crate::output::CliError;
use schedlab_admission::colour::fit::shown;
use schedlab_admission::colour::{colours_text, ColourErrorKind, ColourPartition};
use schedlab_analysis::schedulability::Input;
use schedlab_model::Spec;
use serde_json::{json, Value};
use std::path::Path;

/// Bad input when the spec breaks a constraint of CAP / CAP-GS (Eq. 7.1–7.4,
/// HRT tasks sharing colours, a group above a CPU's capacity, missing colours).
pub fn refuse_constraints(input: &Input, file: &Path) -> Result<(), CliError> {
    match input.colour_error() {
        Some(e) if e.kind == ColourErrorKind::Constraint => Err(CliError::bad_input(e.message.clone())
            .in_file(file)
            .at(e.path.clone())
            .hint("docs/policies.md, \"Colour-aware partitioning\", lists the constraints")),
        _ => Ok(()),
    }
}

fn names(spec: &Spec, ts: &[usize]) -> Vec<String> {
    ts.iter().map(|&t| spec.tasks[t].name.clone()).collect()
}

/// The partition as JSON (docs/schemas/partition.schema.json, `colour`).
pub fn json(spec: &Spec, p: &ColourPartition) -> Value {
    json!({
        "scheme": p.scheme.name(),
        "groups": p.groups.iter().enumerate().map(|(k, g)| json!({
            "group": k, "tasks": names(spec, g), "utilization": ColourPartition::approx(&p.group_loads[k]),
        })).collect::<Vec<_>>(),
        "split": names(spec, &p.split),
        "cpus": p.placed.iter().enumerate().map(|(c, ts)| json!({
            "cpu": c, "tasks": names(spec, ts), "colors": p.cpu_colours[c],
            "load": ColourPartition::approx(&p.loads[c]),
        })).collect::<Vec<_>>(),
    })
}

/// The partition for people: one line per group, one per CPU.
pub fn text(spec: &Spec, p: &ColourPartition) -> String {
    let mut out = format!("colour-aware partitioning ({}):\n", p.scheme.name());
    for (k, g) in p.groups.iter().enumerate() {
        out.push_str(&format!("  group G{k}: {{{}}}\n", names(spec, g).join(", ")));
    }
    if !p.split.is_empty() {
        out.push_str(&format!("  split off their group: {}\n", names(spec, &p.split).join(", ")));
    }
    for (c, ts) in p.placed.iter().enumerate() {
        out.push_str(&format!(
            "  CPU {c}: {} (load {}), colours {}\n",
            if ts.is_empty() { "-".to_string() } else { names(spec, ts).join(", ") },
            shown(&p.loads[c]),
            if p.cpu_colours[c].is_empty() { "-".to_string() } else { colours_text(&p.cpu_colours[c]) }
        ));
    }
    out
}
