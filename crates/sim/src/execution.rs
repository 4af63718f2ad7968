//! Execution model: the actual execution time of each job (never seen by the
//! policy before the job completes).

use crate::config::Execution;
use crate::streams::{stream, Purpose};
use schedlab_model::rng::Rng;
use schedlab_model::Task;
use schedlab_policy::Time;

#[derive(Debug, Clone)]
pub(crate) struct ExecGen {
    wcet: Time,
    bcet: Time,
    model: Execution,
    list: Option<Vec<Time>>,
    next: usize,
    rng: Rng,
}

impl ExecGen {
    pub fn new(task: &Task, index: u32, seed: u64, model: Execution) -> ExecGen {
        ExecGen {
            wcet: task.wcet.0,
            bcet: task.bcet().0.min(task.wcet.0),
            model,
            list: task.executions.as_ref().filter(|l| !l.is_empty()).map(|l| l.iter().map(|d| d.0).collect()),
            next: 0,
            rng: stream(seed, Purpose::Execution, index),
        }
    }

    /// The next job's execution time: the `executions` list cyclically if the
    /// task has one, else the WCET or a uniform draw in [BCET, WCET]; at least 1 ns.
    pub fn draw(&mut self) -> Time {
        let v = match &self.list {
            Some(l) => {
                let v = l[self.next];
                self.next = (self.next + 1) % l.len();
                v
            }
            None => match self.model {
                Execution::Wcet => self.wcet,
                Execution::Uniform => self.rng.range_u64(self.bcet, self.wcet),
            },
        };
        v.max(1)
    }
}
