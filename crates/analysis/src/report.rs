//! An analysis run as the CLI (`schedlab analyze`) and the Python API
//! (`schedlab.analyze`) present it: which tests, optional overhead
//! accounting, the outcomes, the decision, as text and as JSON — one
//! implementation for both.
//!
//! The decision (docs/analysis.md, "What the verdict means") is *proven*
//! when a sound hard real-time test about the spec's policy shows that every
//! task meets every deadline. Tests of other policies (under `--all`) are
//! listed but never decide. Soft real-time tests (tardiness bounds, IDs
//! `soft.*`) are reported in their own field and decide only when no task is
//! `hrt` (then a bounded tardiness is the promise the `srt` tasks asked for).

use crate::accounting::{inflate, Accounting, AccountingError, Inflated, Method};
use crate::schedulability::{find, registry, Exactness, Input, Outcome, Test, Verdict};
use schedlab_model::exact::Ratio;
use schedlab_model::overheads::{line_size, Lookup, Overheads};
use schedlab_model::spec::Domains;
use schedlab_model::{Class, Duration, PolicyName, Spec};
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
    /// Each task's class (`hrt`, `srt`, `be`); empty means every task is `hrt`.
    pub classes: Vec<Class>,
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
    /// Each task's class (every task `hrt` when the request gave none).
    pub classes: Vec<Class>,
}

/// The top-level answer of an analysis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// A sound test about the spec's policy shows every deadline is met
    /// (for `srt`-only sets: that tardiness is bounded).
    Proven,
    /// An exact test (or a necessary condition) about the spec's policy
    /// shows a deadline can be missed.
    Unschedulable,
    /// No test about the spec's policy could show either.
    Inconclusive,
}

impl Decision {
    pub fn name(self) -> &'static str {
        match self {
            Decision::Proven => "proven",
            Decision::Unschedulable => "unschedulable",
            Decision::Inconclusive => "inconclusive",
        }
    }
}

/// Is `id` a soft real-time test (its verdict is about bounded tardiness)?
pub fn is_soft(id: &str) -> bool {
    id.starts_with("soft.")
}

impl Report {
    /// Is the set proven schedulable (see [`Report::decision`])?
    pub fn schedulable(&self) -> bool {
        self.decision().0 == Decision::Proven
    }

    /// Does this outcome speak about the spec's policy (every test does when
    /// the spec names no policy)?
    pub fn decides(&self, o: &Outcome) -> bool {
        match self.policy {
            None => true,
            Some(p) => find(o.test).is_some_and(|t| t.info.policies.contains(&p)),
        }
    }

    fn class(&self, i: usize) -> Class {
        self.classes.get(i).copied().unwrap_or(Class::Hrt)
    }

    /// The decision and the test that made it (`None` when no test did).
    pub fn decision(&self) -> (Decision, Option<&'static str>) {
        let n = self.input.tasks.len();
        let any_hrt = (0..n).any(|i| self.class(i) == Class::Hrt);
        let any_srt = (0..n).any(|i| self.class(i) == Class::Srt);
        let deciding = || self.outcomes.iter().filter(|o| self.decides(o));
        if let Some(o) = deciding().find(|o| !is_soft(o.test) && o.verdict == Verdict::Schedulable) {
            return (Decision::Proven, Some(o.test));
        }
        if !any_hrt {
            if !any_srt {
                return (Decision::Proven, None);
            }
            if let Some(o) = deciding().find(|o| is_soft(o.test) && o.verdict == Verdict::Schedulable) {
                return (Decision::Proven, Some(o.test));
            }
        }
        // Unbounded tardiness also means missed deadlines; a missed deadline
        // does not mean unbounded tardiness.
        let hard_no = deciding().find(|o| o.verdict == Verdict::Unschedulable && (any_hrt || is_soft(o.test)));
        match hard_no {
            Some(o) => (Decision::Unschedulable, Some(o.test)),
            None => (Decision::Inconclusive, None),
        }
    }

    /// One sentence: the decision and why.
    pub fn decision_text(&self) -> String {
        let (d, by) = self.decision();
        let policy = self.policy.map(|p| format!("under {}", p.name())).unwrap_or_else(|| "under some policy".into());
        let hrt = (0..self.input.tasks.len()).filter(|&i| self.class(i) == Class::Hrt).count();
        match (d, by) {
            (Decision::Proven, Some(t)) if is_soft(t) => {
                format!("proven (soft real-time): no task is hrt, and `{t}` shows tardiness is bounded {policy}")
            }
            (Decision::Proven, Some(t)) => format!("proven: `{t}` shows every deadline is met {policy}"),
            (Decision::Proven, None) => "proven: no task is hrt or srt (best effort only), nothing to prove".into(),
            (Decision::Unschedulable, Some(t)) => {
                format!("not proven (unschedulable): `{t}` shows a deadline can be missed {policy}")
            }
            _ => {
                let soft = self
                    .outcomes
                    .iter()
                    .any(|o| self.decides(o) && is_soft(o.test) && o.verdict == Verdict::Schedulable);
                let mut s = format!(
                    "not proven (inconclusive): no hard real-time test about the policy shows that the {hrt} hrt task(s) meet every deadline {policy}"
                );
                if soft {
                    s += "; tardiness is bounded (soft real-time), which decides only for srt tasks";
                }
                s
            }
        }
    }

    /// The soft real-time result of the spec's policy, if a soft test ran:
    /// (test, bounded, per-task bounds in ns).
    pub fn soft(&self) -> Option<(&'static str, bool, Option<&Vec<Ratio>>)> {
        self.outcomes
            .iter()
            .filter(|o| is_soft(o.test) && self.decides(o))
            .map(|o| {
                let bounds = match &o.data {
                    Some(crate::schedulability::Data::Tardiness(b)) => Some(b),
                    _ => None,
                };
                (o.test, o.verdict == Verdict::Schedulable, bounds)
            })
            .next()
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
    Ok(Report { policy, input: analysed, outcomes, inflated, classes: req.classes.clone() })
}

fn ratio_json(r: &Option<Ratio>) -> Value {
    match r {
        None => Value::Null,
        Some(r) => json!({"exact": r.to_fraction(), "value": r.to_f64()}),
    }
}

/// One outcome as JSON (exact fractions as strings beside the decimals).
pub fn outcome_json(o: &Outcome, input: &Input) -> Value {
    let info = find(o.test).map(|t| t.info);
    json!({
        "test": o.test,
        "title": info.map(|i| i.title),
        "exact": info.map(|i| i.exactness == Exactness::Exact),
        "soft": is_soft(o.test),
        "verdict": o.verdict.name(),
        "reason": readable(&o.reason),
        "task": o.task,
        "task_name": o.task.and_then(|i| input.names.get(i)),
        "value": ratio_json(&o.value),
        "bound": ratio_json(&o.bound),
        "slack": ratio_json(&o.slack()),
        "details": o.details.iter().map(|d| readable(d)).collect::<Vec<_>>(),
        "groups": groups_json(o, input),
        "response_times_ns": match &o.data {
            Some(crate::schedulability::Data::ResponseTimes(r)) => json!(r),
            _ => Value::Null,
        },
    })
}

/// The per-group outcomes of `hcbs.msf`, or null.
fn groups_json(o: &Outcome, input: &Input) -> Value {
    let Some(crate::schedulability::Data::Groups(groups)) = &o.data else { return Value::Null };
    Value::Array(
        groups
            .iter()
            .map(|g| {
                let p = &input.groups[g.group];
                json!({
                    "group": p.name,
                    "path": p.path,
                    "budgets_ns": p.budgets,
                    "period_ns": p.period,
                    "leaf": p.leaf.filter(|_| p.has_leaf()).map(|(q, per)| json!({"budget_ns": q, "period_ns": per})),
                    "tasks": p.tasks.iter().map(|&t| input.names.get(t).cloned().unwrap_or_else(|| format!("tasks[{t}]"))).collect::<Vec<_>>(),
                    "supplies": g.supplies.iter().map(|s| s.describe()).collect::<Vec<_>>(),
                    "notes": g.notes.iter().map(|n| readable(n)).collect::<Vec<_>>(),
                    "outcome": outcome_json(&g.outcome, input),
                })
            })
            .collect(),
    )
}

/// How the text report is written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Style {
    /// Every test's compared value, bound and supporting lines (`--explain`).
    pub explain: bool,
    /// Exact fractions as the tests computed them (`--exact`) instead of
    /// durations and decimals.
    pub exact: bool,
}

/// A compared quantity for people: a duration when it is one (response
/// times, intervals: a bound of 10 µs or more), else a decimal.
fn quantity(r: &Ratio, ns: bool, exact: bool) -> String {
    if exact {
        return r.to_fraction();
    }
    let v = r.to_f64();
    if ns {
        // A negative slack (the value over its bound) keeps its sign.
        let d = Duration(v.abs().round() as u64);
        if v <= -0.5 {
            format!("-{d}")
        } else {
            d.to_string()
        }
    } else {
        decimal(v)
    }
}

/// At most 4 decimals, trailing zeros dropped.
fn decimal(v: f64) -> String {
    let s = format!("{v:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.to_string()
    }
}

/// Rewrites a test's sentence for people: `N/D ns (X)` and `N ns` become
/// durations (`65.249495ms`), other fractions `N/D` decimals. With `--exact`
/// the sentence is kept as the test wrote it.
pub fn readable(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let digit = |k: usize| k < b.len() && b[k].is_ascii_digit();
    while i < b.len() {
        let boundary = i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'.' || b[i - 1] == b'_');
        if !(digit(i) && boundary) {
            let c = text[i..].chars().next().expect("in range");
            out.push(c);
            i += c.len_utf8();
            continue;
        }
        let start = i;
        while digit(i) {
            i += 1;
        }
        if i + 1 < b.len() && b[i] == b'.' && digit(i + 1) {
            i += 1;
            while digit(i) {
                i += 1;
            }
        }
        let mut den: Option<f64> = None;
        let mut end = i;
        if !text[start..i].contains('.') && i + 1 < b.len() && b[i] == b'/' && digit(i + 1) {
            let mut k = i + 1;
            while digit(k) {
                k += 1;
            }
            den = text[i + 1..k].parse().ok();
            end = k;
        }
        let num: f64 = text[start..i].parse().unwrap_or(0.0);
        let value = match den {
            Some(d) if d != 0.0 => num / d,
            _ => num,
        };
        let after = &text[end..];
        if let Some(rest) = after.strip_prefix(" ns").filter(|r| !r.starts_with(|c: char| c.is_alphanumeric())) {
            out += &Duration(value.max(0.0).round() as u64).to_string();
            let mut k = end + 3;
            // A decimal in parentheses right after repeats the value.
            if let Some(p) = rest.strip_prefix(" (") {
                if let Some(close) = p.find(')') {
                    if p[..close].chars().all(|c| c.is_ascii_digit() || c == '.') {
                        k += 2 + close + 1;
                    }
                }
            }
            i = k;
            continue;
        }
        if den.is_some() && !after.starts_with(|c: char| c.is_alphanumeric()) {
            out += &decimal(value);
            i = end;
            continue;
        }
        out += &text[start..end];
        i = end;
    }
    out
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
                "tick_measured": inf.costs.tick > 0 || acc.tick == 0,
                "capacity": inf.capacity,
                "tasks": inf.charges.iter().map(|c| json!({
                    "wcet_ns": c.wcet, "inflated_wcet_ns": c.inflated_wcet, "cpmd_ns": c.cpmd,
                    "preemption_ns": c.preemption, "period_ns": c.period, "deadline_ns": c.deadline,
                })).collect::<Vec<_>>(),
            })
        });
        let (decision, by) = self.decision();
        let soft = self.soft().map(|(test, bounded, bounds)| {
            json!({
                "test": test,
                "bounded": bounded,
                "tardiness": bounds.map(|b| b.iter().enumerate().map(|(i, r)| json!({
                    "task": self.input.task_label(i),
                    "bound_ns": r.to_f64().ceil() as u64,
                    "exact_ns": r.to_fraction(),
                })).collect::<Vec<_>>()),
            })
        });
        json!({
            "policy": self.policy.map(|p| p.name()),
            "decision": decision.name(),
            "proven": decision == Decision::Proven,
            "schedulable": decision == Decision::Proven,
            "decided_by": by,
            "why": self.decision_text(),
            "soft": soft,
            "overheads": overheads,
            "outcomes": self.outcomes.iter().map(|o| {
                let mut v = outcome_json(o, &self.input);
                v["decides"] = json!(self.decides(o));
                v
            }).collect::<Vec<_>>(),
        })
    }

    /// The text report: the overhead accounting when charged, one line per
    /// test (with `explain`, its compared values and supporting lines), the
    /// soft real-time result, and the decision.
    pub fn render(&self) -> String {
        self.render_with(Style::default())
    }

    /// [`Report::render`] in a given style.
    pub fn render_with(&self, style: Style) -> String {
        let text = |t: &str| if style.exact { t.to_string() } else { readable(t) };
        let mut s = String::new();
        if let Some((inf, acc, file)) = &self.inflated {
            let c = &inf.costs;
            let _ = writeln!(
                s,
                "overheads from {file} ({} accounting, tick {}): release {}, schedule {}, cxs {}, ipi {}, tick {}, release latency {}; CPU capacity left {}",
                acc.method.name(),
                if acc.tick == 0 { "none".to_string() } else { Duration(acc.tick).to_string() },
                Duration(c.release),
                Duration(c.schedule),
                Duration(c.context_switch),
                Duration(c.ipi),
                if c.tick == 0 && acc.tick > 0 { "not measured (the tick term is missing)".to_string() } else { Duration(c.tick).to_string() },
                Duration(c.release_latency),
                decimal(inf.capacity)
            );
            if style.explain {
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
            }
            s.push('\n');
        }
        let width = self.outcomes.iter().map(|o| o.test.len()).max().unwrap_or(0).max(12);
        for o in &self.outcomes {
            let exact = find(o.test).is_some_and(|t| t.info.exactness == Exactness::Exact);
            let mark = if self.decides(o) { "" } else { " [other policy]" };
            let _ = writeln!(s, "{:<width$}  {:<14} {}{mark}", o.test, o.verdict.name(), text(&o.reason));
            if !style.explain {
                continue;
            }
            if let (Some(v), Some(b)) = (&o.value, &o.bound) {
                let ns = b.to_f64().abs() >= 10_000.0;
                let slack = o.slack().expect("value and bound");
                let _ = writeln!(
                    s,
                    "{:<width$}  value {}, bound {}, slack {}",
                    "",
                    quantity(v, ns, style.exact),
                    quantity(b, ns, style.exact),
                    quantity(&slack, ns, style.exact)
                );
            }
            for d in &o.details {
                let _ = writeln!(s, "{:<width$}  {}", "", text(d));
            }
            if o.verdict == Verdict::Inconclusive && !exact {
                let _ = writeln!(
                    s,
                    "{:<width$}  (a sufficient test: failing it does not mean a deadline will be missed)",
                    ""
                );
            }
        }
        if self.outcomes.is_empty() {
            s.push_str("no test applies to this policy; `schedlab tests` lists them, `--all` runs every test\n");
        }
        if let Some((test, bounded, bounds)) = self.soft() {
            if bounded {
                if let Some(b) = bounds {
                    let (i, worst) = b
                        .iter()
                        .enumerate()
                        .max_by(|x, y| x.1.to_f64().total_cmp(&y.1.to_f64()))
                        .map(|(i, r)| (i, r.clone()))
                        .unwrap_or((0, Ratio::zero()));
                    let _ = writeln!(
                        s,
                        "\nsoft real-time ({test}): tardiness bounded, at most {} ({})",
                        quantity(&worst, true, style.exact),
                        self.input.task_label(i)
                    );
                }
            } else {
                let _ = writeln!(s, "\nsoft real-time ({test}): tardiness can grow without bound");
            }
        }
        let _ = writeln!(s, "\n{}", self.decision_text());
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
    fn a_negative_slack_in_time_keeps_its_sign() {
        assert_eq!(quantity(&Ratio::new(3_000_000, 1), true, false), "3ms");
        let over = Ratio(&Ratio::new(20_000_000, 1).0 - &Ratio::new(22_787_000, 1).0);
        assert_eq!(quantity(&over, true, false), "-2.787ms");
        assert_eq!(quantity(&Ratio::zero(), true, false), "0ns");
    }

    #[test]
    fn the_policy_selects_its_tests_and_unknown_ids_are_named() {
        let input = run_input(2, vec![TaskParams::implicit(2, 3); 3]);
        let r = analyze(&input, &Request::default()).unwrap();
        assert!(r.outcomes.iter().all(|o| find(o.test).unwrap().info.policies.contains(&PolicyName::Run)));
        assert!(r.outcomes.iter().any(|o| o.test == "run.feasibility"));
        assert!(r.schedulable());
        let e = analyze(
            &input,
            &Request { selection: Selection::Ids(vec!["run.feasibilty".into()]), ..Request::default() },
        )
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
            classes: Vec::new(),
        };
        let r = analyze(&input, &req).unwrap();
        assert_eq!(r.outcomes[0].verdict, Verdict::Unschedulable, "{}", r.render());
        assert_eq!(r.input.tasks[0].wcet, 2_002_000);
        let text = r.render_with(Style { explain: true, exact: false });
        assert!(text.contains("wcet 2ms -> 2.002ms"), "{text}");
    }
}
