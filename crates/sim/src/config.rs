//! The simulator's options: the job model (arrivals, execution, seed, from
//! `schedlab-jobs`), deadline-miss handling, overheads, tick, horizon.

use crate::platform::CounterSource;
use schedlab_jobs::{Arrivals, Execution, JobModel, MissPolicy};
use schedlab_model::overheads::Overheads;
use schedlab_platform::Calibration;
use schedlab_policy::{Rate, Time};
use std::path::PathBuf;
use std::sync::Arc;

/// Default cap on a computed horizon: 10 s of simulated time.
pub const DEFAULT_HORIZON_CAP: Time = 10_000_000_000;
/// Default tick period: 1 ms (LITMUS^RT's and Linux's common HZ=1000).
pub const DEFAULT_TICK: Time = 1_000_000;

/// Which CPU handles (and pays the overhead of) a job release.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReleaseCpu {
    /// The CPU the released job is switched to at its release instant, if
    /// any; otherwise the lowest-numbered CPU the job may run on.
    #[default]
    Scheduled,
    /// Always the lowest-numbered CPU the job may run on (the domain's
    /// interrupt CPU, like a release master); a job that is scheduled on
    /// another CPU at once then costs that CPU an IPI.
    DomainFirst,
}

/// The simulator's configuration.
#[derive(Debug, Clone)]
pub struct SimConfig {
    /// End of the simulation (ns). `None`: the hyperperiod plus the largest
    /// offset, capped at `horizon_cap`.
    pub horizon: Option<Time>,
    /// Cap on a computed horizon (not on a given one).
    pub horizon_cap: Time,
    /// Seed of every random choice.
    pub seed: u64,
    pub arrivals: Arrivals,
    pub execution: Execution,
    pub miss: MissPolicy,
    /// The overhead model. `None`: the one the spec references (loaded from
    /// `spec_dir`), unless `spec_overheads` is false.
    pub overheads: Option<Overheads>,
    /// Load `spec.overheads` when `overheads` is `None`.
    pub spec_overheads: bool,
    /// Folder relative to which `spec.overheads` is resolved (the spec
    /// file's folder); default the current directory.
    pub spec_dir: PathBuf,
    /// Task count used to look overheads up; default the number of tasks.
    pub overhead_task_count: Option<u64>,
    /// Tick period for tick overhead (only charged with an overhead model
    /// whose tick cost is not 0); 0 disables ticks.
    pub tick: Time,
    /// Which CPU handles job releases (overhead accounting).
    pub release_cpu: ReleaseCpu,
    /// Forward policy events (`Kernel::note`) to the sink.
    pub policy_events: bool,
    /// Per CPU (by index): its progress rate (`crate::platform`); a CPU
    /// beyond the list runs at 1.0. Empty: every CPU at 1.0.
    pub rates: Vec<Rate>,
    /// The source of `Kernel::counters` (`crate::platform`); `None`: the
    /// simulator answers that it has no counter source.
    pub counters: Option<Arc<dyn CounterSource>>,
    /// Run the platform model (`schedlab-platform`) when the spec has a
    /// `platform.cache`: progress rates from what runs where, CPMD from
    /// what was evicted, and its synthetic counters as the counter source
    /// (unless `counters` gives one). Default true; false: the spec's cache
    /// changes nothing (the schedule of a spec without one).
    pub platform_model: bool,
    /// The platform model's calibration.
    pub calibration: Calibration,
}

impl Default for SimConfig {
    fn default() -> SimConfig {
        SimConfig {
            horizon: None,
            horizon_cap: DEFAULT_HORIZON_CAP,
            seed: 0,
            arrivals: Arrivals::default(),
            execution: Execution::default(),
            miss: MissPolicy::default(),
            overheads: None,
            spec_overheads: true,
            spec_dir: PathBuf::from("."),
            overhead_task_count: None,
            tick: DEFAULT_TICK,
            release_cpu: ReleaseCpu::Scheduled,
            policy_events: true,
            rates: Vec::new(),
            counters: None,
            platform_model: true,
            calibration: Calibration::default(),
        }
    }
}

impl SimConfig {
    /// The job model of this simulation (the same one `schedlab run` uses
    /// for the same seed, arrival and execution options).
    pub fn job_model(&self) -> JobModel {
        JobModel { seed: self.seed, arrivals: self.arrivals, execution: self.execution }
    }
}
