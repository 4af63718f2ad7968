//! An analysis run as the CLI (`schedlab analyze`) and the Python API
//! (`schedlab.analyze`) present it: which tests, optional overhead
//! accounting, the outcomes, as text and as JSON — one implementation for
//! both.

use crate::accounting::{inflate, Accounting, AccountingError, Inflated, Method};
use crate::schedulability::{find, registry, Exactness, Input, Outcome, Test, Verdict};
use schedlab_model::exact::Ratio;
use schedlab_model::overheads::{line_size, Lookup, Overheads};
use schedlab_model::spec::Domains;
use schedlab_model::{Duration, PolicyName, Spec};
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::path::Path;

/// Which tests to run.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Selection {
    /// The tests about the spec's policy (every test when it names none).
    #[default]
    Policy,
    /// Every test in the registry.
    All,
    /// These tests, by ID, in this order.
    Ids(Vec<String>),
}

/// What to analyse and how.
#[derive(Debug, Clone, Default)]
pub struct Request {
    pub selection: Selection,
    /// Overhead accounting: the model and the method.
    pub overheads: Option<(Overheads, Accounting)>,
}

/// Why an analysis could not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnalyzeError {
    /// A test ID not in the registry (with the closest ID, if any).
    UnknownTest {
        id: String,
        suggestion: Option<String>,
    },
    Accounting(AccountingError),
}

impl std::fmt::Display for AnalyzeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AnalyzeError::UnknownTest { id, suggestion } => {
                write!(f, "unknown test `{id}`")?;
                if let Some(s) = suggestion {
                    write!(f, " (did you mean `{s}`?)")?;
                }
                write!(f, "; `schedlab tests` lists them")
            }
            AnalyzeError::Accounting(e) => write!(f, "overhead accounting: {e}"),
        }
    }
}

impl std::error::Error for AnalyzeError {}

/// The overhead accounting of a run: the model (`file`, else the spec's
/// `overheads` resolved from `spec_dir`, unless `ignore`), with the look-up,
/// method and tick period given. `None` when there is no model. Errors are
/// messages naming the option or file.
pub fn overheads_for(
    spec: &Spec,
    spec_dir: &Path,
    file: Option<&Path>,
    ignore: bool,
    method: &str,
    tick: u64,
    lookup: &str,
) -> Result<Option<(Overheads, Accounting)>, String> {
    let method: Method = method.parse().map_err(|e| format!("accounting: {e}"))?;
    let lookup: Lookup = lookup.parse().map_err(|e| format!("lookup: {e}"))?;
    let model = if ignore {
        None
    } else if let Some(p) = file {
        Some(Overheads::load(p, line_size(spec)).map_err(|e| e.to_string())?)
    } else {
        Overheads::for_spec(spec, spec_dir).map_err(|e| e.to_string())?
    };
    let domains = spec.policy.as_ref().map_or(Domains::Global, |p| p.name.domains());
    Ok(model.map(|mut o| {
        o.lookup = lookup;
        (o, Accounting::new(method, tick, domains))
    }))
}

/// The result of [`analyze`].
#[derive(Debug, Clone)]
pub struct Report {
    pub policy: Option<PolicyName>,
    /// The task set as analysed (inflated when overheads were charged).
    pub input: Input,
    pub outcomes: Vec<Outcome>,
    /// The accounting, when overheads were charged.
    pub inflated: Option<(Inflated, Accounting, String)>,
}

impl Report {
    /// Did some test prove the set schedulable?
    pub fn schedulable(&self) -> bool {
        self.outcomes.iter().any(|o| o.verdict == Verdict::Schedulable)
    }
}

/// The closest registered ID to `id`, if it is close enough to be a typo.
pub fn suggest(id: &str) -> Option<String> {
    registry()
        .iter()
        .map(|t| (strsim::jaro_winkler(id, t.info.id), t.info.id))
        .filter(|(s, _)| *s > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, id)| id.to_string())
}

/// Runs the requested tests on `input`.
pub fn analyze(input: &Input, req: &Request) -> Result<Report, AnalyzeError> {
    let policy = input.policy.as_ref().map(|p| p.name);
    let tests: Vec<&'static Test> = match &req.selection {
        Selection::All => registry().iter().collect(),
        Selection::Policy => {
            registry().iter().filter(|t| policy.is_none_or(|p| t.info.policies.contains(&p))).collect()
        }
        Selection::Ids(ids) => ids
            .iter()
            .map(|id| find(id).ok_or_else(|| AnalyzeError::UnknownTest { id: id.clone(), suggestion: suggest(id) }))
            .collect::<Result<_, _>>()?,
    };
    let (analysed, inflated) = match &req.overheads {
        None => (input.clone(), None),
        Some((oh, acc)) => {
            let inf = inflate(input, oh, acc).map_err(AnalyzeError::Accounting)?;
            (inf.input.clone(), Some((inf, *acc, oh.file.clone())))
        }
    };
    let mut outcomes: Vec<Outcome> = tests.iter().map(|t| (t.run)(&analysed)).collect();
    // By default only the tests that apply are shown, unless none does (then
    // the reasons are the answer).
    if req.selection == Selection::Policy && outcomes.iter().any(|o| o.verdict != Verdict::NotApplicable) {
        outcomes.retain(|o| o.verdict != Verdict::NotApplicable);
    }
    Ok(Report { policy, input: analysed, outcomes, inflated })
}

fn ratio_json(r: &Option<Ratio>) -> Value {
    match r {
        None => Value::Null,
        Some(r) => json!({"exact": r.to_fraction(), "value": r.to_f64()}),
    }
}

/// One outcome as JSON.
pub fn outcome_json(o: &Outcome, input: &Input) -> Value {
    let info = find(o.test).map(|t| t.info);
    json!({
        "test": o.test,
        "title": info.map(|i| i.title),
        "exact": info.map(|i| i.exactness == Exactness::Exact),
        "verdict": o.verdict.name(),
        "reason": o.reason,
        "task": o.task,
        "task_name": o.task.and_then(|i| input.names.get(i)),
        "value": ratio_json(&o.value),
        "bound": ratio_json(&o.bound),
        "slack": ratio_json(&o.slack()),
        "details": o.details,
    })
}

impl Report {
    pub fn to_json(&self) -> Value {
        let overheads = self.inflated.as_ref().map(|(inf, acc, file)| {
            json!({
                "file": file,
                "method": acc.method.name(),
                "tick_ns": acc.tick,
                "costs_ns": {
                    "release": inf.costs.release, "schedule": inf.costs.schedule, "cxs": inf.costs.context_switch,
                    "ipi": inf.costs.ipi, "tick": inf.costs.tick, "release_latency": inf.costs.release_latency,
                },
                "capacity": inf.capacity,
                "tasks": inf.charges.iter().map(|c| json!({
                    "wcet_ns": c.wcet, "inflated_wcet_ns": c.inflated_wcet, "cpmd_ns": c.cpmd,
                    "preemption_ns": c.preemption, "period_ns": c.period, "deadline_ns": c.deadline,
                })).collect::<Vec<_>>(),
            })
        });
        json!({
            "policy": self.policy.map(|p| p.name()),
            "schedulable": self.schedulable(),
            "overheads": overheads,
            "outcomes": self.outcomes.iter().map(|o| outcome_json(o, &self.input)).collect::<Vec<_>>(),
        })
    }

    /// The text report: one block per test.
    pub fn render(&self) -> String {
        let mut s = String::new();
        if let Some((inf, acc, file)) = &self.inflated {
            let c = &inf.costs;
            let _ = writeln!(
                s,
                "overheads from {file} ({} accounting, tick {}): release {}, schedule {}, cxs {}, ipi {}, tick {}, release latency {}; CPU capacity left {:.6}",
                acc.method.name(),
                if acc.tick == 0 { "none".to_string() } else { Duration(acc.tick).to_string() },
                Duration(c.release),
                Duration(c.schedule),
                Duration(c.context_switch),
                Duration(c.ipi),
                Duration(c.tick),
                Duration(c.release_latency),
                inf.capacity
            );
            for (i, ch) in inf.charges.iter().enumerate() {
                let _ = writeln!(
                    s,
                    "  {}: wcet {} -> {} (cpmd {})",
                    self.input.task_label(i),
                    Duration(ch.wcet),
                    Duration(ch.inflated_wcet),
                    Duration(ch.cpmd)
                );
            }
            s.push('\n');
        }
        for o in &self.outcomes {
            let exact = find(o.test).is_some_and(|t| t.info.exactness == Exactness::Exact);
            let _ = writeln!(s, "{:<24} {:<15} {}", o.test, o.verdict.name(), o.reason);
            if let (Some(v), Some(b)) = (&o.value, &o.bound) {
                let slack = o.slack().map(|x| x.to_f64()).unwrap_or(f64::NAN);
                let _ = writeln!(
                    s,
                    "{:<24} value {:.6} ({}), bound {:.6} ({}), slack {slack:.6}",
                    "",
                    v.to_f64(),
                    v.to_fraction(),
                    b.to_f64(),
                    b.to_fraction()
                );
            }
            for d in &o.details {
                let _ = writeln!(s, "{:<24} {d}", "");
            }
            if o.verdict == Verdict::Inconclusive && !exact {
                let _ =
                    writeln!(s, "{:<24} (a sufficient test: failing it does not mean a deadline will be missed)", "");
            }
        }
        if self.outcomes.is_empty() {
            s.push_str("no test applies to this policy; `schedlab tests` lists them, `--all` runs every test\n");
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedulability::TaskParams;
    use schedlab_model::overheads::Costs;
    use schedlab_model::PolicySpec;

    fn run_input(cpus: u32, tasks: Vec<TaskParams>) -> Input {
        let mut i = Input::new(cpus, tasks);
        i.policy = Some(PolicySpec::named(PolicyName::Run));
        i
    }

    #[test]
    fn the_policy_selects_its_tests_and_unknown_ids_are_named() {
        let input = run_input(2, vec![TaskParams::implicit(2, 3); 3]);
        let r = analyze(&input, &Request::default()).unwrap();
        assert!(r.outcomes.iter().all(|o| find(o.test).unwrap().info.policies.contains(&PolicyName::Run)));
        assert!(r.outcomes.iter().any(|o| o.test == "run.feasibility"));
        assert!(r.schedulable());
        let e = analyze(&input, &Request { selection: Selection::Ids(vec!["run.feasibilty".into()]), overheads: None })
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown test `run.feasibilty` (did you mean `run.feasibility`?); `schedlab tests` lists them"
        );
        let v = r.to_json();
        assert_eq!(v["schedulable"], true);
        assert_eq!(v["outcomes"][0]["slack"]["exact"], "0/1");
    }

    #[test]
    fn overheads_can_turn_a_feasible_set_infeasible() {
        let input = run_input(2, vec![TaskParams::implicit(2_000_000, 3_000_000); 3]);
        let oh = Overheads::constant(Costs { schedule: 1000, ..Costs::default() });
        let req = Request {
            selection: Selection::Ids(vec!["run.feasibility".into()]),
            overheads: Some((oh, Accounting::new(Default::default(), 0, Domains::Global))),
        };
        let r = analyze(&input, &req).unwrap();
        assert_eq!(r.outcomes[0].verdict, Verdict::Unschedulable, "{}", r.render());
        assert_eq!(r.input.tasks[0].wcet, 2_002_000);
        assert!(r.render().contains("wcet 2ms -> 2.002ms"), "{}", r.render());
    }
}
