//! Interface selection as the CLI (`schedlab analyze --select-budgets`) and
//! Python (`schedlab.select_budgets`) present it: for each reservation
//! group, at its period (or one period for all), the least budget the H-CBS
//! group test accepts ([`crate::schedulability::reservations::interface`]),
//! as text and as JSON.

use crate::schedulability::gfp::priority_order;
use crate::schedulability::reservations::interface::{select, Choice};
use crate::schedulability::Input;
use crate::supply::nested::Misfit;
use schedlab_model::Duration;
use serde_json::{json, Value};
use std::fmt::Write as _;

/// The chosen budgets of every group.
#[derive(Debug, Clone)]
pub struct Interfaces {
    pub input: Input,
    pub choices: Vec<Choice>,
    /// The first CPU where the chosen top-level servers do not fit (Eq. 17).
    pub misfit: Option<(usize, Box<Misfit>)>,
}

/// Why no selection could be made.
pub fn select_budgets(input: &Input, period: Option<u64>) -> Result<Interfaces, String> {
    if input.groups.is_empty() {
        return Err("the spec has no `reservations`: there are no groups to choose budgets for".into());
    }
    let mut input = input.clone();
    if let Some(p) = period {
        for g in &mut input.groups {
            g.period = p;
            if let Some((q, _)) = g.leaf {
                g.leaf = Some((q, p));
            }
        }
    }
    if let Some((_, why)) = crate::schedulability::reservations::outside_the_model(&input) {
        return Err(format!("the analysis cannot choose budgets: {why}"));
    }
    let order = priority_order(&input).map_err(|(_, why)| why)?;
    let (choices, misfit) = select(&input.tasks, &order, &input.groups, input.cpus as usize);
    Ok(Interfaces { input, choices, misfit })
}

impl Interfaces {
    /// Every group has a budget and the top-level ones fit every CPU.
    pub fn found(&self) -> bool {
        self.misfit.is_none() && self.choices.iter().all(|c| c.budget.is_some() && c.leaf.is_none_or(|l| l.0.is_some()))
    }

    fn bandwidth(c: &Choice) -> Option<f64> {
        c.budget.map(|q| q as f64 / c.period as f64)
    }

    pub fn to_json(&self) -> Value {
        json!({
            "found": self.found(),
            "test": crate::schedulability::reservations::ID,
            "groups": self.choices.iter().map(|c| {
                let g = &self.input.groups[c.group];
                json!({
                    "group": g.name,
                    "path": g.path,
                    "period_ns": c.period,
                    "budget_ns": c.budget,
                    "bandwidth": Self::bandwidth(c),
                    "cpus": c.cpus,
                    "leaf": c.leaf.map(|(q, p)| json!({"budget_ns": q, "period_ns": p})),
                    "why": c.why,
                })
            }).collect::<Vec<_>>(),
            "fits_cpus": self.misfit.is_none(),
            "misfit": self.misfit.as_ref().map(|(cpu, m)| json!({"cpu": cpu, "why": crate::report::readable(&m.to_string())})),
        })
    }

    pub fn render(&self) -> String {
        let mut s =
            String::from("the least budget per group with which `hcbs.msf` accepts its tasks, at its period:\n");
        for c in &self.choices {
            let g = &self.input.groups[c.group];
            let indent = "  ".repeat(1 + depth(&self.input, c.group));
            let budget = match c.budget {
                Some(q) => format!("{} (bandwidth {:.4})", Duration(q), q as f64 / c.period as f64),
                None => "none".into(),
            };
            let _ = write!(s, "{indent}{}: period {}, budget {budget}", g.label(), Duration(c.period));
            if let Some((q, p)) = c.leaf {
                let _ = write!(
                    s,
                    "; leaf queue {} every {}",
                    q.map_or("none".to_string(), |q| Duration(q).to_string()),
                    Duration(p)
                );
            }
            let cpus: Vec<String> = c.cpus.iter().map(|c| c.to_string()).collect();
            let _ = writeln!(s, " on CPU(s) {} — {}", cpus.join(", "), c.why);
        }
        match &self.misfit {
            None if self.found() => s.push_str("\nthe chosen top-level budgets fit every CPU (Eq. 17)\n"),
            None => s.push_str("\nsome group has no budget the test accepts\n"),
            Some((cpu, m)) => {
                let _ = writeln!(
                    s,
                    "\nthe chosen top-level budgets do not fit CPU {cpu}: {}",
                    crate::report::readable(&m.to_string())
                );
            }
        }
        s
    }
}

fn depth(input: &Input, g: usize) -> usize {
    let mut d = 0;
    let mut at = input.groups[g].parent;
    while let Some(p) = at {
        d += 1;
        at = input.groups[p].parent;
    }
    d
}
