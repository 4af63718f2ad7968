//! How a run is configured besides the spec: duration, backend, seed,
//! arrival and execution models, overrun policy, workloads, tracing.

use crate::workload::WorkloadSpec;
use std::path::PathBuf;

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

/// Extra inter-arrival time beyond the period (the simulator's `--sporadic`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Sporadic {
    #[default]
    None,
    /// Seeded uniform extra delay in [0, max] ns.
    Uniform { max: u64 },
    /// Seeded exponential extra delay with this mean (ns).
    Exponential { mean: u64 },
}

impl std::str::FromStr for Sporadic {
    type Err = String;
    fn from_str(s: &str) -> Result<Sporadic, String> {
        let dur = |v: &str| v.parse::<schedlab_model::Duration>().map(|d| d.0).map_err(|e| format!("`{v}`: {e}"));
        match s.split_once(':') {
            None if s == "none" => Ok(Sporadic::None),
            Some(("uniform", v)) => Ok(Sporadic::Uniform { max: dur(v)? }),
            Some(("exponential", v)) => Ok(Sporadic::Exponential { mean: dur(v)? }),
            _ => Err(format!("`{s}`: expected none, uniform:MAX or exponential:MEAN")),
        }
    }
}

/// How much execution time each job consumes (a task's `executions` list
/// always wins, cyclically).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Execution {
    /// The WCET.
    #[default]
    Wcet,
    /// Seeded uniform in [BCET, WCET].
    Uniform,
    /// This fraction of the WCET (0 < f ≤ 10; above 1 overruns on purpose).
    Fraction(f64),
}

impl std::str::FromStr for Execution {
    type Err = String;
    fn from_str(s: &str) -> Result<Execution, String> {
        match s.split_once(':') {
            None if s == "wcet" => Ok(Execution::Wcet),
            None if s == "uniform" => Ok(Execution::Uniform),
            Some(("fraction", v)) => match v.parse::<f64>() {
                Ok(f) if f > 0.0 && f <= 10.0 => Ok(Execution::Fraction(f)),
                _ => Err(format!("fraction `{v}`: expected a number in (0, 10]")),
            },
            _ => Err(format!("`{s}`: expected wcet, uniform or fraction:F")),
        }
    }
}

/// What happens to a job still running at its deadline (a deadline miss is
/// recorded in every case).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Overrun {
    /// It runs to completion; the next job starts after it (EPOS semantics).
    #[default]
    Continue,
    /// It runs to completion; releases that fall while it runs are skipped.
    Skip,
    /// It is ended at its deadline (its body sees `JobError::Aborted` at
    /// its next check).
    Abort,
}

impl std::str::FromStr for Overrun {
    type Err = String;
    fn from_str(s: &str) -> Result<Overrun, String> {
        match s {
            "continue" => Ok(Overrun::Continue),
            "skip" => Ok(Overrun::Skip),
            "abort" => Ok(Overrun::Abort),
            _ => Err(format!("`{s}`: expected continue, skip or abort")),
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
    pub overrun: Overrun,
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
            overrun: Overrun::Continue,
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
        }
    }
}

impl RunConfig {
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
