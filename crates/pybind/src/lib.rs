//! `schedlab._native`: the Rust side of the Python package, kept thin. Every
//! function takes and returns JSON text (or plain strings and numbers); the
//! Python layer (`python/schedlab/`) turns that into objects. A spec that
//! cannot be used raises `schedlab.SpecError` (defined in Python, in
//! `schedlab/_errors.py`) with the file and every diagnostic; any other bad
//! argument raises `ValueError`.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use schedlab_gen::GenOptions;
use schedlab_model::validate::{validate, Severity};
use schedlab_model::{emit, Diagnostic, Format, Loaded, Spec, Summary};
use serde_json::{json, Value};

mod experiment;
mod job_control;
mod rt;
mod sim;

mod py {
    // The exception class lives in Python so that it can carry attributes
    // and be documented and subclassed there; it is imported when first raised.
    pyo3::import_exception!(schedlab._errors, SpecError);
}

/// Name given to specs that come from Python objects rather than a file.
const TASKSET_FILE: &str = "<taskset>";

/// One diagnostic as the tuple `SpecError` takes: (path, line, column, message).
type DiagTuple = (String, Option<usize>, Option<usize>, String);

fn diag_tuple(d: &Diagnostic) -> DiagTuple {
    (d.path.clone(), d.line, d.column, d.message.clone())
}

/// `schedlab.SpecError(file, diagnostics)`.
fn spec_error(e: schedlab_model::SpecError) -> PyErr {
    let diags: Vec<DiagTuple> = e.diagnostics.iter().map(diag_tuple).collect();
    py::SpecError::new_err((e.file, diags))
}

fn diag_json(d: &Diagnostic) -> Value {
    json!({"path": d.path, "line": d.line, "column": d.column, "message": d.message})
}

/// The values the Python dataclasses hold: durations in integer nanoseconds,
/// sizes in bytes, colours as inclusive ranges, and the defaults in force
/// (effective deadline and BCET, cache page and colour count) computed by
/// the model.
fn values(spec: &Spec) -> Value {
    let p = &spec.platform;
    let cache = p.cache.as_ref().map(|c| {
        json!({
            "size": c.size.bytes(),
            "ways": c.ways,
            "line": c.line.bytes(),
            "page": c.page().bytes(),
            "colors": c.colors(),
            "shared_by": c.shared_by,
            "private": c.private.map(|s| s.bytes()),
        })
    });
    let memory = p.memory.as_ref().map(|m| json!({"bandwidth": m.bandwidth.map(|b| b.0)}));
    let policy = spec.policy.as_ref().map(|pol| {
        json!({
            "name": pol.name.name(),
            "partitioning": pol.partitioning,
            "priorities": pol.priorities,
            "quantum": pol.quantum.map(|q| q.ns()),
            "stagger": pol.stagger,
            "early_release": pol.early_release,
            "spread": pol.spread,
            "megatasks": pol.megatasks,
            "reweight": pol.reweight,
            "slack": pol.slack,
            "capacity": pol.capacity,
            "group_packing": pol.group_packing,
            "srt_on_hrt_cores": pol.srt_on_hrt_cores,
            "memory_total": pol.memory_total.map(|m| m.bytes()),
            "threshold": pol.threshold,
            "counter": pol.counter,
            "throttle": pol.throttle,
            "throttle_range": pol.throttle_range,
            "cache_threshold": pol.cache_threshold,
            "cache_policy": pol.cache_policy,
            "lost_cause_threshold": pol.lost_cause_threshold,
            "lost_cause_policy": pol.lost_cause_policy,
            "phantoms": pol.phantoms,
            "avoid_partially_eligible": pol.avoid_partially_eligible,
            "promotion_duration": pol.promotion_duration,
            "master": pol.master,
            "mps": pol.mps,
            "memory_preemption": pol.memory_preemption,
            "profile": pol.profile,
        })
    });
    let tasks: Vec<Value> = spec
        .tasks
        .iter()
        .map(|t| {
            json!({
                "name": t.name,
                "wcet": t.wcet.ns(),
                "period": t.period.ns(),
                "deadline": t.deadline().ns(),
                "bcet": t.bcet().ns(),
                "executions": t.executions.as_ref().map(|v| v.iter().map(|d| d.ns()).collect::<Vec<_>>()),
                "priority": t.priority,
                "cpu": t.cpu,
                "cluster": t.cluster,
                "offset": t.offset.ns(),
                "jitter": t.jitter.ns(),
                "wss": t.wss.map(|s| s.bytes()),
                "colors": t.colors.as_ref().map(|c| c.ranges().to_vec()),
                "class": t.class.name(),
                "segments": t.segments.as_ref().map(|v| v.iter().map(|g| json!({
                    "kind": g.kind.name(), "length": g.length.ns(), "preemptible": g.preemptible,
                })).collect::<Vec<_>>()),
                "subjobs": t.subjobs.as_ref().map(|v| v.iter().map(|d| d.ns()).collect::<Vec<_>>()),
                "write_ratio": t.write_ratio.map(|r| r.as_f64()),
                "data_group": t.data_group,
                "memory_priority": t.memory_priority,
                "memory_mode": t.memory_mode.map(|m| m.name()),
            })
        })
        .collect();
    fn group(g: &schedlab_model::Group) -> Value {
        json!({
            "name": g.name,
            "period": g.period.ns(),
            "budget": g.budget.map(|b| b.ns()),
            "budgets": g.budgets.as_ref().map(|v| v.iter().map(|d| d.ns()).collect::<Vec<_>>()),
            "tasks": g.tasks,
            "groups": g.groups.iter().map(group).collect::<Vec<_>>(),
            "leaf_budget": g.leaf_budget.map(|b| b.ns()),
            "leaf_period": g.leaf_period.map(|b| b.ns()),
        })
    }
    json!({
        "meta": spec.meta,
        "platform": {"cpus": p.cpus, "clusters": p.clusters, "cache": cache, "memory": memory},
        "policy": policy,
        "overheads": spec.overheads,
        "tasks": tasks,
        "reservations": spec.reservations.as_ref().map(|v| v.iter().map(group).collect::<Vec<_>>()),
        "mtt": spec.mtt.as_ref().map(|v| v.iter().map(|m| json!({
            "name": m.name, "tasks": m.tasks, "wss": m.wss.map(|w| w.0),
        })).collect::<Vec<_>>()),
    })
}

/// The document `load`, `loads` and `generate` return.
fn loaded_doc(file: &str, spec: &Spec, warnings: &[Diagnostic]) -> String {
    let doc = json!({
        "file": file,
        "warnings": warnings.iter().map(diag_json).collect::<Vec<_>>(),
        "spec": spec,
        "values": values(spec),
    });
    doc.to_string()
}

fn from_loaded(l: &Loaded) -> String {
    loaded_doc(&l.file, &l.spec, &l.warnings)
}

/// Parses and validates spec JSON handed back by Python. That text is
/// written by the package, not by a person, so its lines and columns would
/// only mislead: the diagnostics keep the field path alone.
fn spec_from_json(spec_json: &str) -> PyResult<Spec> {
    schedlab_model::load_str(spec_json, Some(Format::Json), TASKSET_FILE).map(|l| l.spec).map_err(|mut e| {
        for d in &mut e.diagnostics {
            d.line = None;
            d.column = None;
        }
        spec_error(e)
    })
}

fn parse_format(format: Option<&str>) -> PyResult<Option<Format>> {
    match format.map(|f| f.trim().to_ascii_lowercase()) {
        None => Ok(None),
        Some(f) if f == "yaml" || f == "yml" => Ok(Some(Format::Yaml)),
        Some(f) if f == "json" => Ok(Some(Format::Json)),
        Some(f) => {
            Err(PyValueError::new_err(format!("format must be \"yaml\" or \"json\" (or None to detect it), got {f:?}")))
        }
    }
}

/// serde_json appends " at line L column C" to its messages; for one-line
/// option documents written by Python that position says nothing.
fn strip_position(msg: String) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg,
    }
}

#[pymodule]
mod _native {
    use super::*;
    use std::path::PathBuf;

    #[pymodule_export]
    use super::sim::SimRun;

    #[pymodule_export]
    use super::experiment::{generate_many, Experiment};

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        m.add("__version__", env!("CARGO_PKG_VERSION"))?;
        Ok(())
    }

    /// load(path) -> str
    ///
    /// Loads and validates a spec file (`.json` is JSON, anything else YAML).
    /// Returns JSON `{"file", "warnings", "spec", "values"}`; raises
    /// `schedlab.SpecError` when the spec cannot be used.
    #[pyfunction]
    fn load(py: Python<'_>, path: std::path::PathBuf) -> PyResult<String> {
        py.detach(|| schedlab_model::load_path(&path)).map(|l| from_loaded(&l)).map_err(spec_error)
    }

    /// loads(text, format=None, file="<string>") -> str
    ///
    /// Loads and validates a spec from text; `format` is "yaml", "json" or
    /// None (detected: JSON when the text starts with `{`). `file` names the
    /// text in messages. Returns the same JSON document as `load`.
    #[pyfunction]
    #[pyo3(signature = (text, format=None, file="<string>"))]
    fn loads(py: Python<'_>, text: &str, format: Option<&str>, file: &str) -> PyResult<String> {
        let format = parse_format(format)?;
        let text = text.to_owned();
        let file = file.to_owned();
        py.detach(move || schedlab_model::load_str(&text, format, &file)).map(|l| from_loaded(&l)).map_err(spec_error)
    }

    /// summary(spec_json) -> str
    ///
    /// The summary `schedlab check` prints, as JSON: size, utilisation
    /// (rounded and exact), density, hyperperiod, and a row per task.
    #[pyfunction]
    fn summary(spec_json: &str) -> PyResult<String> {
        let spec = spec_from_json(spec_json)?;
        serde_json::to_string(&Summary::of(&spec)).map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// to_yaml(spec_json) -> str
    ///
    /// The spec written as YAML, deterministically (same spec, same bytes).
    #[pyfunction]
    fn to_yaml(spec_json: &str) -> PyResult<String> {
        spec_from_json(spec_json).map(|s| emit::to_yaml(&s))
    }

    /// to_json(spec_json) -> str
    ///
    /// The spec written as pretty JSON, deterministically, with canonical units.
    #[pyfunction]
    fn to_json(spec_json: &str) -> PyResult<String> {
        spec_from_json(spec_json).map(|s| emit::to_json(&s))
    }

    /// gen_options() -> str
    ///
    /// The names of the generator options, as a JSON list, in order.
    #[pyfunction]
    fn gen_options() -> String {
        let names: Vec<String> = match serde_json::to_value(GenOptions::default()) {
            Ok(Value::Object(map)) => map.keys().cloned().collect(),
            _ => Vec::new(),
        };
        Value::from(names).to_string()
    }

    /// generate(options_json) -> str
    ///
    /// Generates a task set. `options_json` is a JSON object of generator
    /// options (the fields of `schedlab gen`, snake_case; all optional).
    /// Returns the same JSON document as `load`, with file "<generated>".
    /// Raises ValueError naming the option when one is wrong.
    #[pyfunction]
    fn generate(py: Python<'_>, options_json: &str) -> PyResult<String> {
        let de = &mut serde_json::Deserializer::from_str(options_json);
        let opts: GenOptions = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let msg = strip_position(e.into_inner().to_string());
            if path.is_empty() || path == "." {
                PyValueError::new_err(format!("generator options: {msg}"))
            } else {
                PyValueError::new_err(format!("{path}: {msg}"))
            }
        })?;
        let params = opts.into_params().map_err(PyValueError::new_err)?;
        let spec = py.detach(|| schedlab_gen::generate(&params)).map_err(|e| PyValueError::new_err(e.to_string()))?;
        let mut warnings = Vec::new();
        for issue in validate(&spec) {
            let d = Diagnostic::new(issue.path, issue.message);
            if issue.severity == Severity::Error {
                // A generator that breaks its own model is a bug, not bad input.
                return Err(PyValueError::new_err(format!(
                    "the generated spec is invalid (a schedlab bug): {}",
                    d.render("<generated>")
                )));
            }
            warnings.push(d);
        }
        Ok(loaded_doc("<generated>", &spec, &warnings))
    }

    /// schema() -> str
    ///
    /// The JSON Schema of the spec, as pretty JSON.
    #[pyfunction]
    fn schema() -> String {
        schedlab_model::schema::spec_schema_json()
    }

    /// simulate(path=None, spec_json=None, file="<taskset>", spec_dir=".", *, horizon=None,
    ///          horizon_cap="10s", seed=0, exec="wcet", sporadic="none", jitter=True,
    ///          miss="continue", overheads=True, tick="1ms", trace=None, keep_events=True) -> SimRun
    ///
    /// Simulates the spec at `path`, or the spec JSON `spec_json` (named `file`
    /// in messages, its overhead file resolved from `spec_dir`), under its
    /// policy, with the options of `schedlab simulate` (durations as text with
    /// a unit). Writes the trace to `trace` when given. Raises SpecError for a
    /// spec that cannot be used (or has no policy), ValueError naming the
    /// option for a bad option, ValueError for a task set the policy does not
    /// admit, OSError when the trace cannot be written.
    #[pyfunction]
    #[pyo3(signature = (path=None, spec_json=None, file="<taskset>", spec_dir=None, *, horizon=None, horizon_cap="10s",
                        seed=0, exec="wcet", sporadic="none", jitter=true, miss="continue", overheads=true, tick="1ms",
                        trace=None, keep_events=true, policy=None, set=None))]
    #[allow(clippy::too_many_arguments)]
    fn simulate(
        py: Python<'_>,
        path: Option<PathBuf>,
        spec_json: Option<&str>,
        file: &str,
        spec_dir: Option<PathBuf>,
        horizon: Option<&str>,
        horizon_cap: &str,
        seed: u64,
        exec: &str,
        sporadic: &str,
        jitter: bool,
        miss: &str,
        overheads: bool,
        tick: &str,
        trace: Option<PathBuf>,
        keep_events: bool,
        policy: Option<String>,
        set: Option<Vec<String>>,
    ) -> PyResult<sim::SimRun> {
        let (mut spec, file, dir) = match (&path, spec_json) {
            (Some(p), None) => {
                let loaded = py.detach(|| schedlab_model::load_path(p)).map_err(spec_error)?;
                let dir = p.parent().filter(|d| !d.as_os_str().is_empty()).map(PathBuf::from);
                (loaded.spec, p.display().to_string(), dir)
            }
            (None, Some(j)) => (spec_from_json(j)?, file.to_string(), None),
            _ => return Err(PyValueError::new_err("simulate() takes either a spec path or spec JSON")),
        };
        let policy_notices = override_policy(&mut spec, policy.as_deref(), set.as_deref().unwrap_or(&[]))?;
        let opts = sim::SimOptions { horizon, horizon_cap, seed, exec, sporadic, jitter, miss, overheads, tick };
        let dir = spec_dir.or(dir).unwrap_or_else(|| PathBuf::from("."));
        let cfg = sim::config(&opts, dir)?;
        let run = py.detach(move || sim::run(&spec, &file, cfg, trace, keep_events)).map_err(PyErr::from)?;
        Ok(run.with_notices_first(policy_notices))
    }

    /// run(path=None, spec_json=None, file="<taskset>", spec_dir=None, *, duration="2s",
    ///     backend="kernel", seed=0, exec="wcet", sporadic="none", jitter=True, miss="continue",
    ///     workload="spin", workloads=[], allow_command=False, kernel_trace=True, job_timeout=None,
    ///     dl_slack="100us", dl_slack_ratio=0.05, start_margin="20ms", recalibrate=False, trace=None, keep_events=True)
    ///     -> tuple[SimRun, str]
    ///
    /// Runs the spec on real threads of this Linux kernel (crate `rt`), as
    /// `schedlab run` does, and returns the recorded schedule as a SimRun and
    /// the run's facts (backend, mapping, overheads, integrity, notes) as
    /// JSON. `workload` and the values of `workloads` ((task name or index,
    /// workload) pairs) are kinds as text or callables (called per job as
    /// `f(task, job, release, deadline, exec, wcet)` with the GIL held: not
    /// real-time). Raises SpecError for a spec that cannot be used,
    /// ValueError for a bad option or a policy the backend cannot run,
    /// PermissionError when privileges are missing (nothing was touched),
    /// schedlab.RunError when the run failed (kernel admission, a job body,
    /// the watchdog; the machine was restored), KeyboardInterrupt on SIGINT.
    #[pyfunction]
    #[pyo3(signature = (path=None, spec_json=None, file="<taskset>", spec_dir=None, *, duration="2s", backend="kernel",
                        seed=0, exec="wcet", sporadic="none", jitter=true, miss="continue", workload=None, workloads=Vec::new(),
                        allow_command=false, kernel_trace=true, job_timeout=None, dl_slack="100us", dl_slack_ratio=0.05, start_margin="20ms",
                        recalibrate=false, trace=None, keep_events=true, wait=false, policy=None, set=None, timing="cooperative",
                        counters="auto", idle="poll"))]
    #[allow(clippy::too_many_arguments)]
    fn run<'py>(
        py: Python<'py>,
        path: Option<PathBuf>,
        spec_json: Option<&str>,
        file: &str,
        spec_dir: Option<PathBuf>,
        duration: &str,
        backend: &str,
        seed: u64,
        exec: &str,
        sporadic: &str,
        jitter: bool,
        miss: &str,
        workload: Option<Bound<'py, PyAny>>,
        workloads: Vec<(String, Bound<'py, PyAny>)>,
        allow_command: bool,
        kernel_trace: bool,
        job_timeout: Option<&str>,
        dl_slack: &str,
        dl_slack_ratio: f64,
        start_margin: &str,
        recalibrate: bool,
        trace: Option<PathBuf>,
        keep_events: bool,
        wait: bool,
        policy: Option<String>,
        set: Option<Vec<String>>,
        timing: &str,
        counters: &str,
        idle: &str,
    ) -> PyResult<(sim::SimRun, String)> {
        let (mut spec, dir) = match (&path, spec_json) {
            (Some(p), None) => {
                let loaded = py.detach(|| schedlab_model::load_path(p)).map_err(spec_error)?;
                (loaded.spec, p.parent().filter(|d| !d.as_os_str().is_empty()).map(PathBuf::from))
            }
            (None, Some(j)) => (spec_from_json(j)?, None),
            _ => return Err(PyValueError::new_err("run() takes either a spec path or spec JSON")),
        };
        for n in override_policy(&mut spec, policy.as_deref(), set.as_deref().unwrap_or(&[]))? {
            PyErr::warn(
                py,
                &py.get_type::<pyo3::exceptions::PyUserWarning>(),
                &std::ffi::CString::new(n).unwrap_or_default(),
                1,
            )?;
        }
        let _ = file;
        let opts = rt::RunOptions {
            duration,
            backend,
            seed,
            exec,
            sporadic,
            jitter,
            miss,
            allow_command,
            kernel_trace,
            job_timeout,
            dl_slack,
            dl_slack_ratio,
            start_margin,
            recalibrate,
            wait,
            timing,
            counters,
            idle,
        };
        let default = match workload {
            Some(w) => w,
            None => pyo3::types::PyString::new(py, "spin").into_any(),
        };
        let dir = spec_dir.or(dir).unwrap_or_else(|| PathBuf::from("."));
        let cfg = rt::config(&opts, &spec, dir, &default, &workloads)?;
        rt::run(py, spec, cfg, trace, keep_events)
    }

    /// validate_trace(path, tolerance="0", mode="auto") -> str
    ///
    /// Validates a trace file (streamed) as `schedlab validate` does. Returns
    /// JSON `{"report", "first_violation", "text"}`. Raises OSError when the
    /// file cannot be read, ValueError when it is not a trace or cannot be
    /// checked, or for a bad option.
    #[pyfunction]
    #[pyo3(signature = (path, tolerance="0", mode="auto"))]
    fn validate_trace(py: Python<'_>, path: PathBuf, tolerance: &str, mode: &str) -> PyResult<String> {
        let (tolerance, mode) = (tolerance.to_owned(), mode.to_owned());
        py.detach(move || sim::validate_file(&path, &tolerance, &mode)).map_err(PyErr::from)
    }

    /// trace_stats(path) -> str
    ///
    /// The statistics of a trace file as JSON (`schedlab stats --json`).
    #[pyfunction]
    fn trace_stats(py: Python<'_>, path: PathBuf) -> PyResult<String> {
        py.detach(move || sim::stats_file(&path)).map_err(PyErr::from)
    }

    /// read_trace(path) -> tuple[str, str]
    ///
    /// A trace file (JSON Lines or binary) as JSON: the header and the array of events.
    #[pyfunction]
    fn read_trace(py: Python<'_>, path: PathBuf) -> PyResult<(String, String)> {
        py.detach(move || sim::read_file(&path)).map_err(PyErr::from)
    }

    /// Applies `policy=` and `set=` (as `--policy` / `--set`); the notices
    /// (parameters dropped) are returned for Python to warn with.
    fn override_policy(spec: &mut schedlab_model::Spec, policy: Option<&str>, set: &[String]) -> PyResult<Vec<String>> {
        if policy.is_none() && set.is_empty() {
            return Ok(Vec::new());
        }
        schedlab_model::overrides::apply(spec, policy, set).map_err(|d| {
            let what = match d.path.as_str() {
                "--policy" => "policy".to_string(),
                "--set" => "set".to_string(),
                p => p.to_string(),
            };
            PyValueError::new_err(format!("{what}: {}", d.message))
        })
    }

    /// analyze(path=None, spec_json=None, spec_dir=None, *, tests=None, all=False,
    ///         overheads=None, use_overheads=True, accounting="epos", tick="1ms", lookup="step") -> str
    ///
    /// Runs schedulability tests as `schedlab analyze --json` does and returns
    /// its JSON. Raises SpecError for a spec that cannot be used, ValueError
    /// for a bad option, an unknown test ID, or overheads that cannot be charged.
    #[pyfunction]
    #[pyo3(signature = (path=None, spec_json=None, spec_dir=None, *, tests=None, all=false,
                        overheads=None, use_overheads=true, accounting="epos", tick="1ms", lookup="step",
                        policy=None, set=None))]
    #[allow(clippy::too_many_arguments)]
    fn analyze(
        py: Python<'_>,
        path: Option<PathBuf>,
        spec_json: Option<&str>,
        spec_dir: Option<PathBuf>,
        tests: Option<Vec<String>>,
        all: bool,
        overheads: Option<PathBuf>,
        use_overheads: bool,
        accounting: &str,
        tick: &str,
        lookup: &str,
        policy: Option<String>,
        set: Option<Vec<String>>,
    ) -> PyResult<String> {
        let tick_ns =
            tick.parse::<schedlab_model::Duration>().map_err(|e| PyValueError::new_err(format!("tick: {e}")))?.0;
        use schedlab_analysis::report::{analyze, overheads_for, Request, Selection};
        let (spec, dir) = match (&path, spec_json) {
            (Some(p), None) => {
                let loaded = py.detach(|| schedlab_model::load_path(p)).map_err(spec_error)?;
                (loaded.spec, p.parent().filter(|d| !d.as_os_str().is_empty()).map(PathBuf::from))
            }
            (None, Some(j)) => (spec_from_json(j)?, None),
            _ => return Err(PyValueError::new_err("analyze() takes either a spec path or spec JSON")),
        };
        let mut spec = spec;
        let notices = override_policy(&mut spec, policy.as_deref(), set.as_deref().unwrap_or(&[]))?;
        let dir = spec_dir.or(dir).unwrap_or_else(|| PathBuf::from("."));
        let (accounting, lookup) = (accounting.to_owned(), lookup.to_owned());
        py.detach(move || {
            let oh = overheads_for(&spec, &dir, overheads.as_deref(), !use_overheads, &accounting, tick_ns, &lookup)
                .map_err(PyValueError::new_err)?;
            let selection = match (all, tests) {
                (true, Some(_)) => return Err(PyValueError::new_err("tests and all=True exclude each other")),
                (true, None) => Selection::All,
                (false, Some(ids)) => Selection::Ids(ids),
                (false, None) => Selection::Policy,
            };
            let input = schedlab_analysis::schedulability::Input::from_spec(&spec);
            let classes = spec.tasks.iter().map(|t| t.class).collect();
            let report = analyze(&input, &Request { selection, overheads: oh, classes })
                .map_err(|e| PyValueError::new_err(e.to_string()))?;
            let mut v = report.to_json();
            v["notices"] = serde_json::json!(notices);
            v["text"] = serde_json::json!(report.render());
            Ok(v.to_string())
        })
    }

    /// supply_bound(budget, period, times) -> list[int]
    ///
    /// The H-CBS supply bound function (OSPERT 2009, Eq. 4) of a server with
    /// `budget` ns every `period` ns, at each window length of `times` (ns).
    /// ValueError when the budget exceeds the period or the period is 0.
    #[pyfunction]
    fn supply_bound(budget: u64, period: u64, times: Vec<u64>) -> PyResult<Vec<u64>> {
        let s = schedlab_analysis::supply::Server::new(budget, period).map_err(PyValueError::new_err)?;
        Ok(times.iter().map(|&t| s.sbf(t)).collect())
    }

    /// linear_supply_bound(budget, period, times) -> list[tuple[int, int]]
    ///
    /// The linear lower bound max(0, α(t − Δ)), α = Q/P, Δ = 2P − 2Q (Eqs.
    /// 7–8), at each of `times`, as exact (numerator, denominator) pairs.
    #[pyfunction]
    fn linear_supply_bound(budget: u64, period: u64, times: Vec<u64>) -> PyResult<Vec<(String, String)>> {
        let s = schedlab_analysis::supply::Server::new(budget, period).map_err(PyValueError::new_err)?;
        let ad = s.alpha_delta();
        Ok(times
            .iter()
            .map(|&t| {
                let r = ad.at(t);
                (r.numer().to_string(), r.denom().to_string())
            })
            .collect())
    }

    /// select_budgets(path=None, spec_json=None, period=None) -> str
    ///
    /// `schedlab analyze --select-budgets` as JSON (plus "text"): the least
    /// budget per reservation group the H-CBS group test accepts, at each
    /// group's period or at `period` ns for all. ValueError without
    /// `reservations` or with a period of 0.
    #[pyfunction]
    #[pyo3(signature = (path=None, spec_json=None, period=None))]
    fn select_budgets(
        py: Python<'_>,
        path: Option<PathBuf>,
        spec_json: Option<&str>,
        period: Option<u64>,
    ) -> PyResult<String> {
        let spec = match (&path, spec_json) {
            (Some(p), None) => py.detach(|| schedlab_model::load_path(p)).map_err(spec_error)?.spec,
            (None, Some(j)) => spec_from_json(j)?,
            _ => return Err(PyValueError::new_err("select_budgets() takes either a spec path or spec JSON")),
        };
        if period == Some(0) {
            return Err(PyValueError::new_err("period: must be positive"));
        }
        py.detach(move || {
            let input = schedlab_analysis::schedulability::Input::from_spec(&spec);
            let chosen =
                schedlab_analysis::interfaces::select_budgets(&input, period).map_err(PyValueError::new_err)?;
            let mut v = chosen.to_json();
            v["text"] = serde_json::json!(chosen.render());
            Ok(v.to_string())
        })
    }

    /// analyze_batch(tasks, offsets, cpus, tests, threads=None) -> bytes
    ///
    /// Runs the tests with IDs `tests` on many task sets in one call, on
    /// `threads` cores (None: all): `tasks` holds every task as three
    /// little-endian u64 (wcet, deadline, period in ns), `offsets` the sets'
    /// bounds (u64, one more than the sets; set s is tasks
    /// offsets[s]..offsets[s+1]), each set on `cpus` CPUs. Returns one byte
    /// per (set, test), row-major: 0 schedulable, 1 unschedulable,
    /// 2 inconclusive, 3 not-applicable. ValueError for an unknown test or
    /// malformed buffers.
    #[pyfunction]
    #[pyo3(signature = (tasks, offsets, cpus, tests, threads=None))]
    fn analyze_batch(
        py: Python<'_>,
        tasks: &[u8],
        offsets: &[u8],
        cpus: u32,
        tests: Vec<String>,
        threads: Option<usize>,
    ) -> PyResult<Py<pyo3::types::PyBytes>> {
        use schedlab_analysis::batch;
        use schedlab_analysis::schedulability::{TaskParams, Verdict};
        if !tasks.len().is_multiple_of(24) || !offsets.len().is_multiple_of(8) || offsets.is_empty() {
            return Err(PyValueError::new_err("tasks must be n×3 u64 and offsets at least one u64"));
        }
        let word = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("8 bytes"));
        let codes = py.detach(|| -> Result<Vec<u8>, String> {
            let tasks: Vec<TaskParams> = tasks
                .chunks_exact(24)
                .map(|t| TaskParams::constrained(word(&t[..8]), word(&t[8..16]), word(&t[16..])))
                .collect();
            let offsets: Vec<usize> = offsets.chunks_exact(8).map(|o| word(o) as usize).collect();
            let ids: Vec<&str> = tests.iter().map(String::as_str).collect();
            let verdicts = batch::run_flat(&tasks, &offsets, cpus, &batch::tests(&ids)?, threads)?;
            Ok(verdicts
                .into_iter()
                .map(|v| match v {
                    Verdict::Schedulable => 0,
                    Verdict::Unschedulable => 1,
                    Verdict::Inconclusive => 2,
                    Verdict::NotApplicable => 3,
                })
                .collect())
        });
        let codes = codes.map_err(PyValueError::new_err)?;
        Ok(pyo3::types::PyBytes::new(py, &codes).unbind())
    }

    /// cli_main(argv) -> int
    ///
    /// Runs the `schedlab` command with `argv` (argv[0] is the program name)
    /// and returns its exit code. Output goes to the process's stdout/stderr.
    #[pyfunction]
    fn cli_main(py: Python<'_>, argv: Vec<String>) -> i32 {
        py.detach(move || schedlab_cli::run(argv))
    }
}
