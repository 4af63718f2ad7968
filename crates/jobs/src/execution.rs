//! Execution model: the actual execution time of each job (never seen by the
//! policy before the job completes). One demand is drawn per job released
//! (a skipped release draws none), from the task's own stream.

use crate::options::Execution;
use crate::segments::SegmentDemands;
use crate::streams::{stream, Purpose};
use schedlab_model::rng::Rng;
use schedlab_model::Task;

type Time = u64;

/// The execution demands of one task's released jobs, in order: each job's
/// total CPU time (for a task with segments, the sum of its CPU segments'
/// demands, see [`SegmentDemands`]).
#[derive(Debug, Clone)]
pub struct Demands {
    jobs: SegmentDemands,
}

impl Demands {
    pub(crate) fn new(task: &Task, index: usize, seed: u64, model: Execution) -> Demands {
        Demands { jobs: SegmentDemands::new(task, index, seed, model) }
    }

    /// The next job's execution time: the `executions` list cyclically if the
    /// task has one, else the WCET, a uniform draw in [BCET, WCET] or the
    /// fraction of the WCET (rounded to ns); at least 1 ns.
    pub fn draw(&mut self) -> Time {
        self.jobs.next_total()
    }
}

/// The demands of a task without segments: one number per job, from the
/// task's execution stream (frozen: `crates/jobs/tests/model.rs`).
#[derive(Debug, Clone)]
pub(crate) struct Whole {
    wcet: Time,
    bcet: Time,
    model: Execution,
    list: Option<Vec<Time>>,
    next: usize,
    rng: Rng,
}

impl Whole {
    pub(crate) fn new(task: &Task, index: usize, seed: u64, model: Execution) -> Whole {
        Whole {
            wcet: task.wcet.0,
            bcet: task.bcet().0.min(task.wcet.0),
            model,
            list: task.executions.as_ref().filter(|l| !l.is_empty()).map(|l| l.iter().map(|d| d.0).collect()),
            next: 0,
            rng: stream(seed, Purpose::Execution, index),
        }
    }

    pub(crate) fn draw(&mut self) -> Time {
        let v = match &self.list {
            Some(l) => {
                let v = l[self.next];
                self.next = (self.next + 1) % l.len();
                v
            }
            None => match self.model {
                Execution::Wcet => self.wcet,
                Execution::Uniform => self.rng.range_u64(self.bcet, self.wcet),
                Execution::Fraction(f) => (self.wcet as f64 * f).round() as u64,
            },
        };
        v.max(1)
    }
}
