//! The job model: which jobs a task set releases, when, and how much each
//! one executes — arrivals (periodic, sporadic, offsets, release jitter, the
//! synchronous release at time 0), execution demand (WCET, uniform in
//! [BCET, WCET], a fraction of the WCET, per-job lists; per segment for
//! tasks with segments) and what happens at a
//! deadline miss — with the seeding that makes them reproducible. The
//! simulator and the runtime both take their jobs from here, so
//! `schedlab simulate --seed S` and `schedlab run --seed S` release the same
//! jobs with the same demands. The model is described in `docs/jobs.md`.
//!
//! ```
//! use schedlab_jobs::{Arrivals, Execution, JobModel, Sporadic};
//! let spec = schedlab_model::load_str(
//!     "platform: {cpus: 1}\npolicy: {name: pedf}\ntasks:\n  - {name: a, wcet: 1ms, bcet: 0.5ms, period: 4ms, offset: 1ms}\n",
//!     None,
//!     "example.yaml",
//! )
//! .unwrap()
//! .spec;
//! let model = JobModel {
//!     seed: 7,
//!     arrivals: Arrivals { sporadic: Sporadic::Uniform { max: 1_000_000 }, ..Arrivals::default() },
//!     execution: Execution::Uniform,
//! };
//! let task = &spec.tasks[0];
//! let first: Vec<_> = model.releases(task, 0).take(3).collect();
//! assert_eq!(first[0].release, 1_000_000); // the offset
//! assert!(first[1].arrival >= first[0].arrival + 4_000_000); // a period and a seeded extra
//! let mut demands = model.demands(task, 0);
//! let d = demands.draw();
//! assert!((500_000..=1_000_000).contains(&d));
//!
//! // A task with segments: each job's segments, drawn one by one.
//! use schedlab_model::SegmentKind;
//! let spec = schedlab_model::load_str(
//!     "platform: {cpus: 1}\ntasks:\n  - {name: b, bcet: 1ms, period: 10ms, segments: [{memory: 0.5ms}, {exec: 1.5ms, preemptible: false}, {suspend: 1ms}]}\n",
//!     None,
//!     "example.yaml",
//! )
//! .unwrap()
//! .spec;
//! let mut segments = model.segment_demands(&spec.tasks[0], 0);
//! let job = segments.next_job();
//! assert_eq!(job.iter().map(|s| s.kind).collect::<Vec<_>>(), [SegmentKind::Memory, SegmentKind::Exec, SegmentKind::Suspend]);
//! assert!((250_000..=500_000).contains(&job[0].demand)); // its share of the BCET up to its length
//! assert!(!job[1].preemptible);
//! assert!(job[2].demand <= 1_000_000); // a suspension in [0, length]
//! ```
//!
//! A job of a task with `segments` or `subjobs` is a sequence of segments
//! (execution, memory phases, self-suspensions); [`JobModel::segment_demands`]
//! draws what each one takes, from a stream of its own, so the jobs of tasks
//! without segments are drawn exactly as before.

mod arrivals;
mod execution;
mod options;
mod segments;
mod streams;

pub use arrivals::{Arrival, Releases};
pub use execution::Demands;
pub use options::{Arrivals, Execution, MissPolicy, Sporadic};
pub use segments::{SegmentDemand, SegmentDemands};

use schedlab_model::Task;

/// The seeded job model of a run or a simulation: everything that decides
/// which jobs are released and what they demand. Miss handling
/// ([`MissPolicy`]) acts while the jobs run, so it is the driver's option.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct JobModel {
    /// Seed of every random choice; each task and purpose (sporadic delays,
    /// jitter, execution demands) draws from its own stream derived from it.
    pub seed: u64,
    pub arrivals: Arrivals,
    pub execution: Execution,
}

impl JobModel {
    /// The jobs of task `index` (`task` = `spec.tasks[index]`) in order.
    pub fn releases(&self, task: &Task, index: usize) -> Releases {
        Releases::new(task, index, self.seed, &self.arrivals)
    }

    /// The execution demands of task `index`'s released jobs, in order:
    /// each job's total CPU time.
    pub fn demands(&self, task: &Task, index: usize) -> Demands {
        Demands::new(task, index, self.seed, self.execution)
    }

    /// The segment demands of task `index`'s released jobs, in order: per
    /// job, each segment's kind, actual length and preemptibility (one
    /// execution segment, drawn as [`demands`](Self::demands) draws it, for
    /// a task without segments). The CPU demands of a job add up to what
    /// `demands` gives that job.
    pub fn segment_demands(&self, task: &Task, index: usize) -> SegmentDemands {
        SegmentDemands::new(task, index, self.seed, self.execution)
    }
}
