//! SimSo's XML configuration (`<simulation>` with `<sched>`, `<processors>`
//! and `<tasks>`), both ways: tasks (periods, deadlines, WCETs and
//! activation dates in ms), processors (their count), and the scheduler
//! class mapped to a schedlab policy.

use crate::error::{At, InteropError};
use crate::xml::{self, escape, Element};
use schedlab_model::{Duration, PolicyName, Spec, Task};

/// Largest configuration read.
pub const MAX_BYTES: u64 = 16 << 20;

/// SimSo scheduler classes and the schedlab policy (and priorities) of each.
pub const SCHEDULERS: &[(&str, &str, Option<&str>)] = &[
    ("simso.schedulers.EDF", "gedf", None),
    ("simso.schedulers.G_EDF", "gedf", None),
    ("simso.schedulers.P_EDF", "pedf", None),
    ("simso.schedulers.RM", "gfp", Some("rm")),
    ("simso.schedulers.DM", "gfp", Some("dm")),
    ("simso.schedulers.FP", "gfp", Some("explicit")),
    ("simso.schedulers.P_RM", "pfp", Some("rm")),
    ("simso.schedulers.P_DM", "pfp", Some("dm")),
    ("simso.schedulers.LLF", "llf", None),
    ("simso.schedulers.EDZL", "edzl", None),
    ("simso.schedulers.PD2", "pd2", None),
    ("simso.schedulers.RUN", "run", None),
    ("simso.schedulers.NP_EDF", "np-gedf", None),
];

fn ms_to_ns(file: &str, e: &Element, k: &str) -> Result<Option<u64>, InteropError> {
    let Some(v) = e.attr(k) else { return Ok(None) };
    let x: f64 = v.trim().parse().map_err(|_| {
        InteropError::at(file, At::Byte(e.at), format!("<{}> `{k}`=\"{v}\" is not a number (ms)", e.name))
    })?;
    if !(x.is_finite() && (0.0..1e12).contains(&x)) {
        return Err(InteropError::at(file, At::Byte(e.at), format!("<{}> `{k}`=\"{v}\" is out of range", e.name)));
    }
    Ok(Some((x * 1e6).round() as u64))
}

/// Read a configuration into a spec; the notes say what was left out.
pub fn import(path: &std::path::Path) -> Result<(Spec, Vec<String>), InteropError> {
    let file = path.display().to_string();
    let len = std::fs::metadata(path).map_err(|e| InteropError::io(&file, e))?.len();
    if len > MAX_BYTES {
        return Err(InteropError::file(
            &file,
            format!("{len} bytes: larger than the {MAX_BYTES} bytes a SimSo configuration may have"),
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| InteropError::io(&file, e))?;
    let text = String::from_utf8(bytes)
        .map_err(|e| InteropError::at(&file, At::Byte(e.utf8_error().valid_up_to() as u64), "not UTF-8"))?;
    import_str(&text, &file)
}

/// [`import`] of text in memory.
pub fn import_str(text: &str, file: &str) -> Result<(Spec, Vec<String>), InteropError> {
    let root = xml::parse(text, file)?;
    let mut notes = Vec::new();
    if root.name != "simulation" {
        return Err(InteropError::at(
            file,
            At::Byte(root.at),
            format!("the root element is <{}>, not <simulation>: not a SimSo configuration", root.name),
        ));
    }
    let need =
        |n: &str| root.child(n).ok_or_else(|| InteropError::at(file, At::Byte(root.at), format!("no <{n}> element")));
    let sched = need("sched")?;
    let class = sched.attr("class").or(sched.attr("className")).unwrap_or("");
    let known = SCHEDULERS.iter().find(|(c, _, _)| {
        *c == class
            || c.rsplit('.').next() == Some(class.rsplit(['.', '/']).next().unwrap_or("").trim_end_matches(".py"))
    });
    let Some(&(_, policy, prio)) = known else {
        let names: Vec<&str> = SCHEDULERS.iter().map(|s| s.0).collect();
        return Err(InteropError::at(
            file,
            At::Byte(sched.at),
            format!("scheduler `{class}` has no schedlab policy; known: {}", names.join(", ")),
        ));
    };
    let procs = need("processors")?;
    let cpus = procs.children.iter().filter(|c| c.name == "processor").count() as u32;
    if cpus == 0 {
        return Err(InteropError::at(file, At::Byte(procs.at), "no <processor>"));
    }
    if procs.children.iter().any(|p| p.attr("speed").is_some_and(|s| s.trim().parse::<f64>().ok() != Some(1.0))) {
        notes.push("processor speeds other than 1 are not modelled (identical CPUs)".to_string());
    }
    let mut tasks = Vec::new();
    for t in need("tasks")?.children.iter().filter(|c| c.name == "task") {
        let name = t.attr("name").unwrap_or("").to_string();
        let name = if name.is_empty() { format!("T{}", t.attr("id").unwrap_or("?")) } else { name };
        let req = |k: &str| {
            ms_to_ns(file, t, k)?
                .ok_or_else(|| InteropError::at(file, At::Byte(t.at), format!("task `{name}` has no `{k}`")))
        };
        if t.attr("task_type").is_some_and(|v| v != "Periodic" && v != "Sporadic") {
            return Err(InteropError::at(
                file,
                At::Byte(t.at),
                format!(
                    "task `{name}`: task_type {} cannot be expressed (periodic and sporadic tasks can)",
                    t.attr("task_type").unwrap_or("")
                ),
            ));
        }
        let mut task = Task::new(name.clone(), Duration(req("WCET")?), Duration(req("period")?));
        let d = req("deadline")?;
        if d != task.period.0 {
            task.deadline = Some(Duration(d));
        }
        if let Some(o) = ms_to_ns(file, t, "activationDate")? {
            task.offset = Duration(o);
        }
        if prio == Some("explicit") {
            task.priority = t.attr("priority").and_then(|p| p.trim().parse().ok());
        }
        if let Some(c) = t.attr("cpu").and_then(|c| c.trim().parse().ok()) {
            task.cpu = Some(c);
        }
        tasks.push(task);
    }
    notes.push("SimSo's overheads, caches and execution-time models are not part of a spec: left out".to_string());
    let mut pol = serde_json::json!({ "name": policy });
    if let Some(p) = prio {
        pol["priorities"] = p.into();
    }
    let spec = Spec {
        meta: Some(schedlab_model::Meta {
            description: Some(format!("imported from the SimSo configuration {file}")),
            ..Default::default()
        }),
        platform: schedlab_model::Platform { cpus, clusters: None, cache: None, memory: None },
        policy: Some(serde_json::from_value(pol).expect("a known policy")),
        overheads: None,
        reservations: None,
        mtt: None,
        tasks,
    };
    let text = schedlab_model::emit::to_json(&spec);
    schedlab_model::load_str(&text, Some(schedlab_model::Format::Json), file)
        .map_err(|e| InteropError::file(file, format!("the imported spec is not valid: {e}")))?;
    Ok((spec, notes))
}

/// `ns` as a number of ms that SimSo turns back into exactly `ns` cycles (at
/// 10^6 cycles per ms): SimSo truncates `ms * cycles_per_ms` to an integer,
/// so 1.229 ms would become 1228999 cycles; the float is stepped up until the
/// product is exact, and written in its shortest form that reads back as the
/// same float.
fn ms(ns: u64) -> String {
    let mut x = ns as f64 / 1e6;
    for _ in 0..8 {
        if (x * 1e6) as u64 >= ns {
            break;
        }
        x = f64::from_bits(x.to_bits() + 1);
    }
    if (x * 1e6) as u64 == ns {
        format!("{x}")
    } else {
        let s = format!("{}.{:06}", ns / 1_000_000, ns % 1_000_000);
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// The SimSo configuration of a spec, simulated for `duration_ns`: SimSo
/// processes events up to and including its `duration`, so the file says
/// `duration_ns − 1` cycles and SimSo releases the jobs of [0, duration), as
/// schedlab's simulator does.
pub fn export(spec: &Spec, duration_ns: u64) -> Result<String, InteropError> {
    let pol = spec.policy.as_ref().ok_or_else(|| InteropError::usage("the spec names no policy"))?;
    let prio = pol.priorities.map(|p| format!("{p:?}").to_lowercase());
    let want = pol.name.name();
    let class = SCHEDULERS
        .iter()
        .find(|(_, p, pr)| *p == want && (pr.is_none() || prio.as_deref().unwrap_or("rm") == pr.unwrap_or("")))
        .map(|s| s.0)
        .ok_or_else(|| {
            InteropError::usage(format!(
                "SimSo has no scheduler for `{want}`{}",
                if pol.name == PolicyName::Cedf { " (clustered)" } else { "" }
            ))
        })?;
    let cycles_per_ms = 1_000_000u64;
    let mut x = String::from("<?xml version=\"1.0\" ?>\n");
    x.push_str(&format!(
        "<simulation cycles_per_ms=\"{cycles_per_ms}\" duration=\"{}\" etm=\"wcet\">\n",
        (duration_ns as u128 * cycles_per_ms as u128 / 1_000_000).saturating_sub(1) as u64
    ));
    x.push_str(&format!(
        "\t<sched class=\"{class}\" overhead=\"0\" overhead_activate=\"0\" overhead_terminate=\"0\"/>\n"
    ));
    x.push_str("\t<caches memory_access_time=\"100\"/>\n\t<processors>\n");
    for c in 0..spec.platform.cpus {
        x.push_str(&format!(
            "\t\t<processor cl_overhead=\"0\" cs_overhead=\"0\" id=\"{}\" name=\"CPU {}\" speed=\"1.0\"/>\n",
            c + 1,
            c + 1
        ));
    }
    x.push_str("\t</processors>\n\t<tasks>\n");
    if prio.as_deref() == Some("explicit") {
        x.push_str("\t\t<field name=\"priority\" type=\"int\"/>\n");
    }
    for (i, t) in spec.tasks.iter().enumerate() {
        let extra = match (prio.as_deref(), t.priority) {
            (Some("explicit"), Some(p)) => format!(" priority=\"{p}\""),
            _ => String::new(),
        };
        x.push_str(&format!(
            "\t\t<task ACET=\"0\" WCET=\"{w}\" abort_on_miss=\"no\" activationDate=\"{o}\" base_cpi=\"1.0\" deadline=\"{d}\" et_stddev=\"0\" id=\"{id}\" instructions=\"0\" list_activation_dates=\"\" mix=\"0.5\" name=\"{n}\" period=\"{p}\" preemption_cost=\"0\" task_type=\"Periodic\"{extra}/>\n",
            w = ms(t.wcet.0), o = ms(t.offset.0), d = ms(t.deadline().0), id = i + 1, n = escape(&t.name), p = ms(t.period.0)
        ));
    }
    x.push_str("\t</tasks>\n</simulation>\n");
    Ok(x)
}
