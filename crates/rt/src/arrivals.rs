//! Release sequences of a task: periodic from its offset, plus a seeded
//! sporadic extra inter-arrival, plus seeded release jitter. Times are ns
//! from the synchronous release. Each task draws from its own stream
//! (seed, task index), so adding a task does not change the others.

use crate::config::Sporadic;
use schedlab_model::rng::Rng;
use schedlab_model::Task;

/// One job's timing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Arrival {
    /// Arrival (the sporadic grid).
    pub arrival: u64,
    /// Release: the arrival plus jitter.
    pub release: u64,
    /// Absolute deadline: arrival + relative deadline.
    pub deadline: u64,
}

pub struct Releases {
    next: u64,
    period: u64,
    deadline: u64,
    jitter: u64,
    sporadic: Sporadic,
    rng: Rng,
}

impl Releases {
    pub fn new(task: &Task, index: usize, seed: u64, sporadic: Sporadic, ignore_jitter: bool) -> Releases {
        Releases {
            next: task.offset.0,
            period: task.period.0,
            deadline: task.deadline().0,
            jitter: if ignore_jitter { 0 } else { task.jitter.0 },
            sporadic,
            rng: Rng::new(seed ^ (index as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)),
        }
    }
}

impl Iterator for Releases {
    type Item = Arrival;
    fn next(&mut self) -> Option<Arrival> {
        let arrival = self.next;
        let jitter = if self.jitter > 0 { self.rng.range_u64(0, self.jitter) } else { 0 };
        let extra = match self.sporadic {
            Sporadic::None => 0,
            Sporadic::Uniform { max } => self.rng.range_u64(0, max),
            Sporadic::Exponential { mean } => self.rng.exponential(mean as f64).ceil() as u64,
        };
        self.next = arrival.saturating_add(self.period).saturating_add(extra);
        Some(Arrival { arrival, release: arrival + jitter, deadline: arrival + self.deadline })
    }
}
