//! Simulation, traces and validation for `schedlab.simulate`,
//! `schedlab.validate`, `schedlab.read_trace` and `schedlab.stats`.
//!
//! [`simulate`] does the whole run in Rust, as `schedlab simulate` does
//! (same options, defaults and messages, less the `--` of the flags): it
//! builds the policy, streams the events into the metrics accumulator (whose
//! job sink is a `Vec<JobRecord>`), into the trace file when one is asked
//! for, and into memory when the events are kept. The result, a [`SimRun`],
//! stays on the Rust side; Python asks it for the job table as raw column
//! buffers (cheap for 10^6 jobs: no per-job Python object is made), the
//! report as JSON, and the exports (Perfetto, SVG, CSV, validation) computed
//! from the kept events, or read back from the trace file.
//!
//! Work that can take long runs without the GIL.

use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyDict};
use schedlab_model::{Diagnostic, Duration, Spec};
use schedlab_sim::{Arrivals, Execution, MissPolicy, SimConfig, SimError, Sporadic};
use schedlab_trace::export::csv::JobCsvWriter;
use schedlab_trace::export::perfetto::perfetto_json;
use schedlab_trace::export::stats::stats_json;
use schedlab_trace::export::svg::{render_svg, SvgOptions};
use schedlab_trace::{Event, Header, JobRecord, JobStatus, JsonlWriter, Metrics, MetricsReport, TraceError};
use schedlab_validate::{Mode, Options, Report, Validator};
use serde_json::json;
use std::borrow::Cow;
use std::path::{Path, PathBuf};

/// An error found without the GIL, raised as a Python exception afterwards.
pub(crate) enum Fail {
    /// `schedlab.SpecError`.
    Spec(schedlab_model::SpecError),
    /// `ValueError`: a bad option or input.
    Value(String),
    /// `OSError`: a file that cannot be read or written.
    Os(String),
    /// `RuntimeError`: a policy that broke the simulator's protocol (a bug).
    Runtime(String),
}

impl From<Fail> for PyErr {
    fn from(f: Fail) -> PyErr {
        match f {
            Fail::Spec(e) => super::spec_error(e),
            Fail::Value(m) => PyValueError::new_err(m),
            Fail::Os(m) => PyOSError::new_err(m),
            Fail::Runtime(m) => PyRuntimeError::new_err(m),
        }
    }
}

/// A trace error on `path`: I/O problems are `OSError`, the rest (not a
/// trace, a bad extension, a corrupt record) `ValueError`. Both name the path.
fn trace_fail(path: &Path, e: TraceError) -> Fail {
    match e {
        TraceError::Io { path: Some(_), .. } => Fail::Os(e.to_string()),
        TraceError::Io { path: None, .. } => Fail::Os(format!("{}: {e}", path.display())),
        e => Fail::Value(format!("{}: {e}", path.display())),
    }
}

/// Parses the duration option `name`.
fn duration(name: &str, text: &str) -> Result<u64, Fail> {
    text.parse::<Duration>().map(|d| d.0).map_err(|e| Fail::Value(format!("{name}: {}", e.0)))
}

fn parse_mode(mode: &str) -> Result<Mode, Fail> {
    match mode {
        "auto" => Ok(Mode::Auto),
        "priority" => Ok(Mode::Priority),
        "replay" => Ok(Mode::Replay),
        "generic" => Ok(Mode::Generic),
        o => Err(Fail::Value(format!("mode: must be \"auto\", \"priority\", \"replay\" or \"generic\", got {o:?}"))),
    }
}

fn validate_options(tolerance: &str, mode: &str) -> Result<Options, Fail> {
    Ok(Options { tolerance: duration("tolerance", tolerance)?, mode: parse_mode(mode)?, ..Options::default() })
}

/// The options of `schedlab simulate` as `simulate()` receives them
/// (durations as text with a unit; Python turns ints into `"<n>ns"`).
pub(crate) struct SimOptions<'a> {
    pub horizon: Option<&'a str>,
    pub horizon_cap: &'a str,
    pub seed: u64,
    pub exec: &'a str,
    pub sporadic: &'a str,
    pub jitter: bool,
    pub miss: &'a str,
    pub overheads: bool,
    pub tick: &'a str,
}

/// The simulator configuration, exactly as `schedlab simulate` builds it.
pub(crate) fn config(o: &SimOptions<'_>, spec_dir: PathBuf) -> Result<SimConfig, Fail> {
    let execution: Execution = o.exec.parse().map_err(|e| Fail::Value(format!("exec: {e}")))?;
    let sporadic: Sporadic = o.sporadic.parse().map_err(|e| Fail::Value(format!("sporadic: {e}")))?;
    let miss: MissPolicy = o.miss.parse().map_err(|e| Fail::Value(format!("miss: {e}")))?;
    Ok(SimConfig {
        horizon: o.horizon.map(|h| duration("horizon", h)).transpose()?,
        horizon_cap: duration("horizon_cap", o.horizon_cap)?,
        seed: o.seed,
        arrivals: Arrivals { sporadic, ignore_jitter: !o.jitter },
        execution,
        miss,
        spec_overheads: o.overheads,
        spec_dir,
        tick: duration("tick", o.tick)?,
        ..SimConfig::default()
    })
}

/// One simulation's outcome, held on the Rust side (see the module doc).
#[pyclass(frozen, module = "schedlab._native")]
pub struct SimRun {
    header: Header,
    report: MetricsReport,
    /// Sorted by (task, job).
    jobs: Vec<JobRecord>,
    /// `None` unless the events were kept.
    events: Option<Vec<Event>>,
    /// The trace file written, if any.
    trace: Option<PathBuf>,
    /// What the user should know (a horizon cut short, an option without effect).
    notices: Vec<String>,
    /// Deadline misses of `hrt` tasks.
    hrt_misses: u64,
}

/// Runs the simulation (without the GIL: everything here is plain Rust
/// data) through `schedlab_sim::Session`, the pipeline `schedlab simulate`
/// uses too. The session's notices go into the run for Python to warn with.
pub(crate) fn run(
    spec: &Spec,
    file: &str,
    cfg: SimConfig,
    trace: Option<PathBuf>,
    keep_events: bool,
) -> Result<SimRun, Fail> {
    use schedlab_sim::{Outputs, Session, SessionError};
    let fail = |e: SessionError| match e {
        SessionError::Spec { path, message } => {
            Fail::Spec(schedlab_model::SpecError::one(file, Diagnostic::new(path, message)))
        }
        SessionError::Admission(m) => Fail::Value(format!("{file}: {m}")),
        SessionError::Sim(SimError::Overheads(e)) => Fail::Spec(e),
        SessionError::Sim(SimError::Config(m)) => Fail::Value(format!("{file}: {m}")),
        SessionError::Sim(e @ SimError::Policy { .. }) => Fail::Runtime(format!("{file}: {e}")),
        SessionError::Trace(e) => match &trace {
            Some(p) => trace_fail(p, e),
            None => Fail::Os(e.to_string()),
        },
    };
    let session = Session::new(spec.clone(), cfg).map_err(fail)?;
    let notices = session.notices().to_vec();
    let header = session.header().clone();
    // The trace goes to a temporary file beside it (folders created), renamed
    // into place once complete: a failed simulation leaves no partial file.
    let tmp = trace.as_ref().map(|p| {
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        p.with_file_name(format!(".{name}.{}.tmp", std::process::id()))
    });
    let writer = match (&trace, &tmp) {
        (Some(p), Some(t)) => {
            schedlab_trace::Encoding::from_path(p).map_err(|e| Fail::Value(format!("trace: {e}")))?;
            if let Some(d) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(d).map_err(|e| Fail::Os(format!("{}: {e}", d.display())))?;
            }
            let encoding = schedlab_trace::Encoding::from_path(p).expect("checked above");
            let file = std::fs::File::create(t).map_err(|e| Fail::Os(format!("{}: {e}", p.display())))?;
            Some(
                schedlab_trace::TraceWriter::new(std::io::BufWriter::with_capacity(1 << 16, file), encoding, &header)
                    .map_err(|e| trace_fail(p, e))?,
            )
        }
        _ => None,
    };
    let outcome = session.run(Outputs { sink: Vec::<JobRecord>::new(), trace: writer, keep_events }, &mut |_| {});
    let outcome = match (outcome, &trace, &tmp) {
        (Ok(mut o), Some(p), Some(t)) => {
            if let Some(w) = o.trace.as_mut() {
                std::io::Write::flush(w).map_err(|e| Fail::Os(format!("{}: {e}", p.display())))?;
            }
            std::fs::rename(t, p).map_err(|e| Fail::Os(format!("{}: {e}", p.display())))?;
            o
        }
        (Ok(o), _, _) => o,
        (Err(e), _, t) => {
            if let Some(t) = t {
                let _ = std::fs::remove_file(t);
            }
            return Err(fail(e));
        }
    };
    let mut jobs = outcome.sink;
    jobs.sort_unstable_by_key(|j| (j.task, j.job));
    Ok(SimRun {
        header,
        report: outcome.report,
        jobs,
        events: outcome.events,
        trace,
        notices,
        hrt_misses: outcome.hrt_misses,
    })
}

/// A [`SimRun`] over a schedule recorded elsewhere (the Linux runtime's
/// trace, `schedlab.run`): the same metrics, job table and exports as a
/// simulation, the trace written to `trace` when given.
pub(crate) fn from_events(
    header: Header,
    events: Vec<Event>,
    trace: Option<PathBuf>,
    keep_events: bool,
) -> Result<SimRun, Fail> {
    if let Some(p) = &trace {
        schedlab_trace::write_all(p, &header, events.iter()).map_err(|e| match e {
            TraceError::Format(m) => Fail::Value(format!("trace: {m}")),
            e => trace_fail(p, e),
        })?;
    }
    let mut metrics = Metrics::from_header(&header).with_sink(Vec::<JobRecord>::new());
    for e in &events {
        metrics.push(e);
    }
    let (report, mut jobs) = metrics.finish();
    jobs.sort_unstable_by_key(|j| (j.task, j.job));
    let hrt_misses = header
        .spec
        .tasks
        .iter()
        .zip(&report.tasks)
        .filter(|(t, _)| t.class == schedlab_model::Class::Hrt)
        .map(|(_, s)| s.misses)
        .sum();
    Ok(SimRun { header, report, jobs, events: keep_events.then_some(events), trace, notices: Vec::new(), hrt_misses })
}

/// The job table as columns of native-endian bytes (see `SimRun::job_columns`).
#[derive(Default)]
struct JobColumns {
    i64s: [Vec<u8>; 11],
    bools: [Vec<u8>; 4],
    status: Vec<u8>,
}

impl JobColumns {
    const I64: [&'static str; 11] = [
        "task_index",
        "job",
        "release",
        "deadline",
        "start",
        "finish",
        "response",
        "tardiness",
        "preemptions",
        "migrations",
        "exec",
    ];
    const BOOL: [&'static str; 4] = ["missed", "start_missing", "finish_missing", "response_missing"];

    /// One pass over the records. Times are u64 ns; beyond i64::MAX (292
    /// years) they saturate. A missing value is 0 with its `_missing` flag set.
    fn of(jobs: &[JobRecord]) -> JobColumns {
        let n = jobs.len();
        let mut c = JobColumns::default();
        for v in &mut c.i64s {
            v.reserve_exact(n * 8);
        }
        for v in &mut c.bools {
            v.reserve_exact(n);
        }
        c.status.reserve_exact(n);
        for r in jobs {
            let values = [
                r.task as u64,
                r.job,
                r.release,
                r.deadline,
                r.start.unwrap_or(0),
                r.finish.unwrap_or(0),
                r.response.unwrap_or(0),
                r.tardiness,
                r.preemptions as u64,
                r.migrations as u64,
                r.exec,
            ];
            for (col, v) in c.i64s.iter_mut().zip(values) {
                col.extend_from_slice(&i64::try_from(v).unwrap_or(i64::MAX).to_ne_bytes());
            }
            let flags = [r.missed, r.start.is_none(), r.finish.is_none(), r.response.is_none()];
            for (col, f) in c.bools.iter_mut().zip(flags) {
                col.push(f as u8);
            }
            c.status.push(match r.status {
                JobStatus::Completed => 0,
                JobStatus::Aborted => 1,
                JobStatus::Unfinished => 2,
            });
        }
        c
    }

    fn named(&self) -> impl Iterator<Item = (&'static str, &[u8])> {
        let ints = JobColumns::I64.into_iter().zip(self.i64s.iter().map(Vec::as_slice));
        let bools = JobColumns::BOOL.into_iter().zip(self.bools.iter().map(Vec::as_slice));
        ints.chain(bools).chain(std::iter::once(("status", self.status.as_slice())))
    }
}

impl SimRun {
    /// Puts `notices` (from `policy=` / `set=`) before the simulation's own.
    pub(crate) fn with_notices_first(mut self, mut notices: Vec<String>) -> SimRun {
        notices.append(&mut self.notices);
        self.notices = notices;
        self
    }

    /// The events: those kept, or those of the trace file read back.
    fn events(&self) -> Result<Cow<'_, [Event]>, Fail> {
        if let Some(ev) = &self.events {
            return Ok(Cow::Borrowed(ev));
        }
        match &self.trace {
            Some(p) => schedlab_trace::read_all(p).map(|(_, ev)| Cow::Owned(ev)).map_err(|e| trace_fail(p, e)),
            None => Err(Fail::Value(
                "the events were not kept (keep_events=False) and no trace file was written: \
                 simulate again with keep_events=True or trace=PATH"
                    .to_string(),
            )),
        }
    }

    fn check(&self, options: &Options) -> Result<String, Fail> {
        let events = self.events()?;
        let report = schedlab_validate::validate(&self.header, events.iter().cloned(), options)
            .map_err(|e| Fail::Value(format!("the schedule cannot be validated: {e}")))?;
        Ok(report_doc(&report))
    }
}

/// The document `ValidationReport` is built from.
fn report_doc(r: &Report) -> String {
    json!({
        "report": r,
        "first_violation": r.first_violation(),
        "text": r.render(),
    })
    .to_string()
}

#[pymethods]
impl SimRun {
    /// The trace header as JSON.
    fn header_json(&self) -> String {
        serde_json::to_string(&self.header).expect("headers serialize")
    }

    /// The metrics report as JSON (what `schedlab simulate --json` prints).
    fn report_json(&self) -> String {
        stats_json(&self.report)
    }

    /// The notices of the simulation (Python warns with each).
    #[getter]
    fn notices(&self) -> Vec<String> {
        self.notices.clone()
    }

    /// Deadline misses of `hrt` tasks.
    #[getter]
    fn hrt_misses(&self) -> u64 {
        self.hrt_misses
    }

    /// Number of jobs in the job table.
    #[getter]
    fn job_count(&self) -> usize {
        self.jobs.len()
    }

    /// Whether the events were kept in memory.
    #[getter]
    fn has_events(&self) -> bool {
        self.events.is_some()
    }

    /// The job table, sorted by (task, job), as columns of raw native-endian
    /// values in bytearrays: int64 `task_index`, `job`, `release`,
    /// `deadline`, `start`, `finish`, `response`, `tardiness`,
    /// `preemptions`, `migrations`, `exec`; bool (one byte) `missed`,
    /// `start_missing`, `finish_missing`, `response_missing`; uint8 `status`
    /// (0 completed, 1 aborted, 2 unfinished). A missing value is 0 in its
    /// int64 column.
    fn job_columns<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let cols = py.detach(|| JobColumns::of(&self.jobs));
        let d = PyDict::new(py);
        for (name, bytes) in cols.named() {
            d.set_item(name, PyByteArray::new(py, bytes))?;
        }
        Ok(d)
    }

    /// The events as a JSON array, or None when they were not kept.
    fn events_json(&self, py: Python<'_>) -> Option<String> {
        py.detach(|| self.events.as_ref().map(|e| serde_json::to_string(e).expect("events serialize")))
    }

    /// The whole trace (header line, then one event per line) as JSON Lines.
    fn trace_jsonl(&self, py: Python<'_>) -> PyResult<String> {
        py.detach(|| -> Result<String, Fail> {
            let events = self.events()?;
            let mut w = JsonlWriter::new(Vec::new(), &self.header).map_err(|e| Fail::Value(e.to_string()))?;
            for e in events.iter() {
                w.write_event(e).map_err(|e| Fail::Value(e.to_string()))?;
            }
            let bytes = w.finish().map_err(|e| Fail::Value(e.to_string()))?;
            Ok(String::from_utf8(bytes).expect("JSON is UTF-8"))
        })
        .map_err(PyErr::from)
    }

    /// Chrome / Perfetto trace-event JSON.
    fn perfetto(&self, py: Python<'_>) -> PyResult<String> {
        py.detach(|| self.events().map(|ev| perfetto_json(&self.header, ev.iter()))).map_err(PyErr::from)
    }

    /// The SVG Gantt chart; `start` and `end` are duration texts or None.
    #[pyo3(signature = (start=None, end=None, width=1200))]
    fn svg(&self, py: Python<'_>, start: Option<&str>, end: Option<&str>, width: u32) -> PyResult<String> {
        let start = start.map(|s| duration("start", s)).transpose()?;
        let end = end.map(|s| duration("end", s)).transpose()?;
        if let (Some(s), Some(e)) = (start, end) {
            if e <= s {
                return Err(PyValueError::new_err(format!(
                    "end: must be after start, got start {} and end {}",
                    Duration(s),
                    Duration(e)
                )));
            }
        }
        if width == 0 {
            return Err(PyValueError::new_err("width: must be at least 1 pixel"));
        }
        let opts = SvgOptions { start, end, width, ..SvgOptions::default() };
        py.detach(|| self.events().map(|ev| render_svg(&self.header, ev.iter(), &opts))).map_err(PyErr::from)
    }

    /// The job table as CSV (the columns and order of `schedlab export --csv`).
    fn jobs_csv(&self, py: Python<'_>) -> String {
        py.detach(|| {
            let mut w = JobCsvWriter::for_header(Vec::new(), &self.header).expect("writing to memory");
            for j in &self.jobs {
                w.write(j).expect("writing to memory");
            }
            String::from_utf8(w.finish().expect("writing to memory")).expect("CSV is UTF-8")
        })
    }

    /// Validates the schedule; JSON `{"report", "first_violation", "text"}`.
    fn validate(&self, py: Python<'_>, tolerance: &str, mode: &str) -> PyResult<String> {
        let options = validate_options(tolerance, mode)?;
        py.detach(|| self.check(&options)).map_err(PyErr::from)
    }
}

/// Validates a trace file, streamed (memory does not grow with the trace).
pub(crate) fn validate_file(path: &Path, tolerance: &str, mode: &str) -> Result<String, Fail> {
    let options = validate_options(tolerance, mode)?;
    let reader = schedlab_trace::open(path).map_err(|e| trace_fail(path, e))?;
    let header = reader.header().clone();
    let policy = if options.mode == Mode::Generic || header.spec.policy.is_none() {
        None
    } else {
        let placement = (!header.placement.is_empty()).then_some(header.placement.as_slice());
        Some(
            schedlab_policy::build(&header.spec, placement)
                .map_err(|e| Fail::Value(format!("{}: the trace's policy cannot be built: {e}", path.display())))?,
        )
    };
    let mut v =
        Validator::new(&header, &options, policy).map_err(|e| Fail::Value(format!("{}: {e}", path.display())))?;
    for ev in reader {
        let ev = ev.map_err(|e| trace_fail(path, e))?;
        v.push(ev).map_err(|e| Fail::Value(format!("{}: {e}", path.display())))?;
    }
    Ok(report_doc(&v.finish()))
}

/// The statistics of a trace file as JSON (`schedlab stats --json`), streamed.
pub(crate) fn stats_file(path: &Path) -> Result<String, Fail> {
    let reader = schedlab_trace::open(path).map_err(|e| trace_fail(path, e))?;
    let metrics = Metrics::from_header(reader.header());
    let (report, ()) = metrics.run(reader).map_err(|e| trace_fail(path, e))?;
    Ok(stats_json(&report))
}

/// A whole trace file as JSON: (header, array of events).
pub(crate) fn read_file(path: &Path) -> Result<(String, String), Fail> {
    let (header, events) = schedlab_trace::read_all(path).map_err(|e| trace_fail(path, e))?;
    Ok((
        serde_json::to_string(&header).expect("headers serialize"),
        serde_json::to_string(&events).expect("events serialize"),
    ))
}
