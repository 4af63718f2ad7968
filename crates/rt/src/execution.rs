//! Per-job execution amounts: the task's `executions` list (cyclic) when
//! present, else the configured model (WCET, seeded uniform in [BCET, WCET],
//! a fraction of the WCET).

use crate::config::Execution;
use schedlab_model::rng::Rng;
use schedlab_model::Task;

pub struct ExecModel {
    list: Option<Vec<u64>>,
    model: Execution,
    wcet: u64,
    bcet: u64,
    rng: Rng,
}

impl ExecModel {
    pub fn new(task: &Task, index: usize, seed: u64, model: Execution) -> ExecModel {
        ExecModel {
            list: task.executions.as_ref().filter(|l| !l.is_empty()).map(|l| l.iter().map(|d| d.0).collect()),
            model,
            wcet: task.wcet.0,
            bcet: task.bcet().0.min(task.wcet.0),
            rng: Rng::new(seed.rotate_left(17) ^ (index as u64 + 1).wrapping_mul(0xD1B5_4A32_D192_ED03)),
        }
    }
    /// The execution time of job `job`.
    pub fn amount(&mut self, job: u64) -> u64 {
        if let Some(l) = &self.list {
            return l[(job % l.len() as u64) as usize];
        }
        match self.model {
            Execution::Wcet => self.wcet,
            Execution::Uniform => self.rng.range_u64(self.bcet, self.wcet),
            Execution::Fraction(f) => (self.wcet as f64 * f).round() as u64,
        }
    }
}
