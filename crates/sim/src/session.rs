//! A simulation session: spec → configured simulation → outputs, wired once
//! for every front end (`schedlab simulate`, Python's `schedlab.simulate`).
//!
//! [`Session::new`] checks that the spec can be simulated, builds its policy
//! and the trace header, and collects the notices a user must hear about
//! (a horizon cut short by the cap, `--exec uniform` without any `bcet`).
//! [`Session::run`] drives the simulator once and feeds every event to the
//! metrics (with the caller's job sink; without a sink, policy events or
//! MTTs the report comes from the simulator's own accounting instead,
//! `crate::report`), to the trace encoder when one is
//! given, to memory when the events are kept, and to the caller's observer
//! (a validator lives above this crate, so it comes in as an observer). The
//! [`Outcome`] holds the report and counts the deadline misses of `hrt`
//! tasks, which `--fail-on-miss` turns into an exit code.

use crate::{horizon, simulate, SimConfig, SimError, SimSummary};
use schedlab_model::{Class, Spec};
use schedlab_policy::Policy;
use schedlab_trace::{Event, Header, JobSink, Metrics, MetricsReport, TraceError, TraceWriter};
use std::io::Write;

/// A simulation ready to run.
pub struct Session {
    spec: Spec,
    config: SimConfig,
    policy: Box<dyn Policy>,
    header: Header,
    notices: Vec<String>,
}

/// What a run produced.
pub struct Outcome<S, W> {
    pub header: Header,
    pub report: MetricsReport,
    pub summary: SimSummary,
    /// The caller's job sink, after the last job.
    pub sink: S,
    /// Every event, when [`Outputs::keep_events`] asked for them.
    pub events: Option<Vec<Event>>,
    /// The trace encoder's writer, finished.
    pub trace: Option<W>,
    /// Deadline misses of `hrt` tasks (the tasks a miss is a failure for).
    pub hrt_misses: u64,
    /// The `hrt` tasks that missed, by name.
    pub hrt_missed_tasks: Vec<String>,
}

/// Where a run's events go besides the metrics.
pub struct Outputs<S, W: Write> {
    /// Receives each job's record (see `schedlab_trace::JobSink`).
    pub sink: S,
    /// An encoder the events are written to as they happen.
    pub trace: Option<TraceWriter<W>>,
    /// Keep every event in memory (for charts and exports of the whole schedule).
    pub keep_events: bool,
}

/// Why a session could not be set up or run.
#[derive(Debug)]
pub enum SessionError {
    /// The spec cannot be simulated as it is (`path`, message).
    Spec { path: String, message: String },
    /// The policy does not admit the task set (a partitioning that fails,
    /// a set RUN cannot reduce): the policy's own message, naming the field.
    Admission(String),
    /// The simulator refused (bad configuration, overheads, a policy's bug).
    Sim(SimError),
    /// The trace could not be written.
    Trace(TraceError),
}

impl std::fmt::Display for SessionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SessionError::Spec { path, message } => write!(f, "{path}: {message}"),
            SessionError::Admission(m) => f.write_str(m),
            SessionError::Sim(e) => write!(f, "{e}"),
            SessionError::Trace(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for SessionError {}

impl Session {
    /// Builds the spec's policy and the trace header for `config`.
    pub fn new(spec: Spec, config: SimConfig) -> Result<Session, SessionError> {
        if spec.policy.is_none() {
            return Err(SessionError::Spec {
                path: "policy".into(),
                message: "the spec has no `policy` to simulate; add e.g. `policy: {name: gedf}` (or give --policy)"
                    .into(),
            });
        }
        let policy = schedlab_policy::build(&spec, None).map_err(|e| SessionError::Admission(e.to_string()))?;
        let header = crate::header(&spec, policy.info(), &config);
        let notices = notices(&spec, &config);
        Ok(Session { spec, config, policy, header, notices })
    }

    /// The header every output of this session carries.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The spec simulated.
    pub fn spec(&self) -> &Spec {
        &self.spec
    }

    /// Things the user should know before reading the results (printed by
    /// the CLI on stderr, warnings in Python).
    pub fn notices(&self) -> &[String] {
        &self.notices
    }

    /// Runs the simulation once; `observe` sees every event after the
    /// metrics and the trace did.
    pub fn run<S: JobSink, W: Write>(
        self,
        outputs: Outputs<S, W>,
        observe: &mut dyn FnMut(&Event),
    ) -> Result<Outcome<S, W>, SessionError> {
        self.run_observed(outputs, Some(observe))
    }

    /// [`Session::run`] with an optional observer: when nothing needs the
    /// events (no observer, job sink, trace, kept events, policy events or
    /// MTTs), the simulator does not build them at all.
    pub fn run_observed<S: JobSink, W: Write>(
        mut self,
        outputs: Outputs<S, W>,
        mut observe: Option<&mut dyn FnMut(&Event)>,
    ) -> Result<Outcome<S, W>, SessionError> {
        let Outputs { sink, trace, keep_events } = outputs;
        let mut writer = trace;
        // The streaming metrics only when the report needs what only the
        // events hold (job records, MTT spans, the memory token's policy
        // events); otherwise the simulator's own accounting gives it.
        let stream = sink.wants_records() || self.config.policy_events || !self.spec.mtts().is_empty();
        let mut metrics = Metrics::from_header(&self.header).with_sink(sink);
        let mut events = Vec::new();
        let mut failure: Option<TraceError> = None;
        let quiet = !stream && writer.is_none() && !keep_events && observe.is_none();
        let summary = if quiet {
            crate::simulate_summary(&self.spec, self.policy.as_mut(), &self.config)
        } else {
            simulate(&self.spec, self.policy.as_mut(), &self.config, &mut |e: &Event| {
                if stream {
                    metrics.push(e);
                }
                if let Some(w) = writer.as_mut() {
                    if let Err(err) = w.write_event(e) {
                        failure.get_or_insert(err);
                    }
                }
                if keep_events {
                    events.push(e.clone());
                }
                if let Some(o) = observe.as_mut() {
                    o(e);
                }
            })
        }
        .map_err(SessionError::Sim)?;
        if let Some(f) = failure {
            return Err(SessionError::Trace(f));
        }
        let trace = writer.map(|w| w.finish()).transpose().map_err(SessionError::Trace)?;
        let (streamed, sink) = metrics.finish();
        let report = if stream { streamed } else { crate::report::report(&self.header, &summary) };
        let mut hrt_misses = 0;
        let mut hrt_missed_tasks = Vec::new();
        for (t, s) in self.spec.tasks.iter().zip(&summary.tasks) {
            if t.class == Class::Hrt && s.missed > 0 {
                hrt_misses += s.missed;
                hrt_missed_tasks.push(t.name.clone());
            }
        }
        Ok(Outcome {
            header: self.header,
            report,
            summary,
            sink,
            events: keep_events.then_some(events),
            trace,
            hrt_misses,
            hrt_missed_tasks,
        })
    }
}

/// The surprises a configuration holds for this spec, each naming the fix.
pub fn notices(spec: &Spec, config: &SimConfig) -> Vec<String> {
    let mut out = Vec::new();
    if config.horizon.is_none() {
        let max_offset = spec.tasks.iter().map(|t| t.offset.0).max().unwrap_or(0);
        let full = schedlab_model::exact::hyperperiod(spec.tasks.iter().map(|t| t.period.0))
            .map(|h| h.saturating_add(max_offset));
        let used = horizon(spec, config);
        match full {
            Some(h) if h > used => out.push(format!(
                "the hyperperiod is {}, longer than the horizon cap {}: simulating the first {} only (give --horizon, or a larger --horizon-cap)",
                schedlab_model::Duration(h),
                schedlab_model::Duration(config.horizon_cap),
                schedlab_model::Duration(used)
            )),
            None => out.push(format!(
                "the hyperperiod is beyond 2^64 ns (periods nearly coprime): simulating the first {} only (give --horizon)",
                schedlab_model::Duration(used)
            )),
            _ => {}
        }
    }
    let counter_driven = spec.policy.as_ref().is_some_and(|p| p.name == schedlab_model::PolicyName::CapGsDynamic);
    // The platform model counts when the spec has a cache (PlatformModel::new).
    let model_counts = config.platform_model && spec.platform.cache.is_some();
    if counter_driven && config.counters.is_none() && !model_counts {
        out.push(
            "cap-gs-dynamic reads cache counters, and this simulation has no counter source (the platform model is off): it schedules without its dynamic phase (as class-banded P-FP, a `counters-unavailable` policy event in the trace)"
                .to_string(),
        );
    }
    if config.execution == crate::Execution::Uniform && spec.tasks.iter().all(|t| t.bcet.is_none()) {
        out.push(
            "--exec uniform draws in [bcet, wcet], but no task has a `bcet`: every job runs its WCET (add `bcet` to the tasks)"
                .to_string(),
        );
    }
    out
}
