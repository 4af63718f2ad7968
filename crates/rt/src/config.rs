//! How a run is configured besides the spec: duration, backend, the job
//! model (seed, arrivals, execution, from `schedlab-jobs`, as the simulator's),
//! miss handling, workloads, tracing.

use crate::workload::WorkloadSpec;
use schedlab_jobs::{Arrivals, Execution, JobModel, MissPolicy, Sporadic};
use schedlab_model::Spec;
use schedlab_policy::Policy;
use std::path::PathBuf;
use std::sync::Arc;

/// Builds the policy the dispatch backend drives instead of the spec's
/// ([`RunConfig::policy`]).
#[derive(Clone)]
pub struct PolicyFactory(pub Arc<BuildPolicy>);

/// What a [`PolicyFactory`] calls: the spec's policy, built otherwise.
pub type BuildPolicy = dyn Fn(&Spec) -> Box<dyn Policy> + Send + Sync;

impl std::fmt::Debug for PolicyFactory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PolicyFactory(..)")
    }
}

/// Which backend runs the spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BackendKind {
    /// The policy mapped onto Linux scheduling classes (SCHED_FIFO, SCHED_DEADLINE, cpusets).
    #[default]
    Kernel,
    /// A user-space dispatcher driving the policy of crate `policy`.
    Dispatch,
}

impl std::str::FromStr for BackendKind {
    type Err = String;
    fn from_str(s: &str) -> Result<BackendKind, String> {
        match s {
            "kernel" => Ok(BackendKind::Kernel),
            "dispatch" => Ok(BackendKind::Dispatch),
            _ => Err(format!("unknown backend `{s}`; expected kernel or dispatch")),
        }
    }
}

impl BackendKind {
    pub fn name(self) -> &'static str {
        match self {
            BackendKind::Kernel => "kernel",
            BackendKind::Dispatch => "dispatch",
        }
    }
}

/// A run's configuration.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// Releases stop at this time after the synchronous release (ns); jobs
    /// in progress then complete.
    pub duration: u64,
    pub backend: BackendKind,
    pub seed: u64,
    pub sporadic: Sporadic,
    /// Ignore the tasks' release jitter.
    pub ignore_jitter: bool,
    pub execution: Execution,
    /// What happens to a job still running at its deadline (`abort`: its
    /// body sees `JobError::Aborted` at its next check).
    pub overrun: MissPolicy,
    /// The default workload and per-task overrides (by task index).
    pub workload: WorkloadSpec,
    pub workloads: Vec<(usize, WorkloadSpec)>,
    /// Allow `cmd:` workloads.
    pub allow_command: bool,
    /// Read the kernel's sched_switch / sched_wakeup events from tracefs.
    pub kernel_trace: bool,
    /// A job running longer than this is declared hung (watchdog);
    /// default: max(5 s, 20 periods + deadline) of its task (a panic with a
    /// backtrace can take seconds to print inside a job).
    pub job_timeout: Option<u64>,
    /// SCHED_DEADLINE runtime = WCET + `dl_slack` + `dl_slack_ratio` × WCET
    /// (at most the deadline): the job loop's own CPU time (fixed) and the
    /// interrupt time the kernel charges to the running thread (it grows with
    /// the job's length). A job that needs more than its runtime is throttled
    /// by the CBS until its next period (`docs/runtime.md`).
    pub dl_slack: u64,
    /// See `dl_slack`.
    pub dl_slack_ratio: f64,
    /// SCHED_FLAG_RECLAIM on the SCHED_DEADLINE threads: a job that needs
    /// more than its runtime uses bandwidth the others leave unused (GRUB)
    /// instead of being throttled to its next period while CPUs idle.
    pub dl_reclaim: bool,
    /// Time between the end of setup and the synchronous release (ns).
    pub start_margin: u64,
    /// Calibration cache directory (default: see [`crate::calibrate::cache_dir`]).
    pub cache_dir: Option<PathBuf>,
    /// Measure the spin calibration again.
    pub recalibrate: bool,
    /// Where the spec file lives (relative library paths).
    pub spec_dir: PathBuf,
    /// Exit the process when a signal's grace period passes (CLI only).
    pub exit_on_signal_timeout: bool,
    /// Wait for another run holding the run lock to end, instead of failing
    /// at once with its PID (`--wait`).
    pub wait: bool,
    /// How the job bodies' timing scopes behave (`--timing`): cooperative
    /// checks, asynchronous notification, or benchmark (record durations).
    pub timing: crate::timing::Mode,
    /// Where the dispatch backend's `Kernel::counters` come from (default:
    /// perf's hardware events where the machine has them, else what the
    /// workloads publish; see [`crate::counters`]).
    pub counters: crate::counters::CounterChoice,
    /// What idle CPUs do during the run (`--idle`; see [`crate::idle`]).
    pub idle: crate::idle::IdleMode,
    /// The dispatch backend drives this policy instead of the spec's (a
    /// test of a kernel service with a policy of its own). It must place
    /// the tasks as the spec's policy does: the run plans CPUs, priorities
    /// and the trace header from the spec's.
    #[doc(hidden)]
    pub policy: Option<PolicyFactory>,
}

impl Default for RunConfig {
    fn default() -> RunConfig {
        RunConfig {
            duration: 1_000_000_000,
            backend: BackendKind::Kernel,
            seed: 0,
            sporadic: Sporadic::None,
            ignore_jitter: false,
            execution: Execution::Wcet,
            overrun: MissPolicy::Continue,
            workload: WorkloadSpec::Spin,
            workloads: Vec::new(),
            allow_command: false,
            kernel_trace: true,
            job_timeout: None,
            dl_slack: 100_000,
            dl_slack_ratio: 0.05,
            dl_reclaim: true,
            start_margin: 20_000_000,
            cache_dir: None,
            recalibrate: false,
            spec_dir: PathBuf::from("."),
            exit_on_signal_timeout: false,
            wait: false,
            timing: crate::timing::Mode::Cooperative,
            counters: crate::counters::CounterChoice::Auto,
            idle: crate::idle::IdleMode::Poll,
            policy: None,
        }
    }
}

impl RunConfig {
    /// The job model of this run: the same jobs `schedlab simulate` releases
    /// for the same seed, arrival and execution options.
    pub fn job_model(&self) -> JobModel {
        JobModel {
            seed: self.seed,
            arrivals: Arrivals { sporadic: self.sporadic, ignore_jitter: self.ignore_jitter },
            execution: self.execution,
        }
    }
    /// The SCHED_DEADLINE runtime of a task: WCET + `dl_slack` + ⌈`dl_slack_ratio` × WCET⌉, at most `deadline`.
    pub fn dl_runtime(&self, wcet: u64, deadline: u64) -> u64 {
        let ratio = if self.dl_slack_ratio.is_finite() && self.dl_slack_ratio > 0.0 {
            (self.dl_slack_ratio * wcet as f64).ceil() as u64
        } else {
            0
        };
        wcet.saturating_add(self.dl_slack).saturating_add(ratio).min(deadline.max(wcet))
    }
    /// The workload of task `i`.
    pub fn workload_of(&self, i: usize) -> &WorkloadSpec {
        self.workloads.iter().rev().find(|(t, _)| *t == i).map_or(&self.workload, |(_, w)| w)
    }
}
