//! Arrival model: when each job of a task arrives and is released.
//!
//! Job k of a task *arrives* at a_k on the task's grid: a_0 = offset,
//! a_{k+1} = a_k + period + extra_k, where extra_k is 0 (periodic) or a
//! seeded sporadic extra delay. Its absolute deadline is a_k + deadline. It
//! is *released* at a_k + j_k, where j_k is a seeded uniform integer in
//! [0, jitter] (release jitter; the grid is unaffected), and never before the
//! task's previous release (releases of a task stay in order).
//!
//! The sporadic delays and the jitter come from two streams of their own
//! ([`crate::streams`]), so neither depends on the other or on other tasks.

use crate::options::{Arrivals, Sporadic};
use crate::streams::{stream, Purpose};
use schedlab_model::rng::Rng;
use schedlab_model::Task;

type Time = u64;

/// One job's timing (ns from the synchronous release).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Arrival {
    /// Arrival a_k (the sporadic grid).
    pub arrival: Time,
    /// Release: the arrival plus its jitter, never before the previous release.
    pub release: Time,
    /// Absolute deadline: arrival + relative deadline.
    pub deadline: Time,
}

/// The jobs of one task in order: an endless iterator of [`Arrival`]s.
#[derive(Debug, Clone)]
pub struct Releases {
    gen: ArrivalGen,
    deadline: Time,
    last_release: Time,
}

impl Releases {
    pub(crate) fn new(task: &Task, index: usize, seed: u64, model: &Arrivals) -> Releases {
        Releases { gen: ArrivalGen::new(task, index, seed, model), deadline: task.deadline().0, last_release: 0 }
    }
}

impl Iterator for Releases {
    type Item = Arrival;
    fn next(&mut self) -> Option<Arrival> {
        let arrival = self.gen.next_arrival;
        let release = arrival.saturating_add(self.gen.draw_jitter()).max(self.last_release);
        self.last_release = release;
        self.gen.advance();
        Some(Arrival { arrival, release, deadline: arrival.saturating_add(self.deadline) })
    }
}

#[derive(Debug, Clone)]
struct ArrivalGen {
    period: Time,
    jitter: Time,
    sporadic: Sporadic,
    rng_arrival: Rng,
    rng_jitter: Rng,
    /// Arrival (grid) time of the next job.
    next_arrival: Time,
}

impl ArrivalGen {
    fn new(task: &Task, index: usize, seed: u64, model: &Arrivals) -> ArrivalGen {
        ArrivalGen {
            period: task.period.0,
            jitter: if model.ignore_jitter { 0 } else { task.jitter.0 },
            sporadic: model.sporadic,
            rng_arrival: stream(seed, Purpose::Arrival, index),
            rng_jitter: stream(seed, Purpose::Jitter, index),
            next_arrival: task.offset.0,
        }
    }

    /// Release-jitter delay of the next job.
    fn draw_jitter(&mut self) -> Time {
        if self.jitter == 0 {
            0
        } else {
            self.rng_jitter.range_u64(0, self.jitter)
        }
    }

    /// Moves the grid on to the following job's arrival; returns it.
    fn advance(&mut self) -> Time {
        let extra = match self.sporadic {
            Sporadic::None => 0,
            Sporadic::Uniform { max } => self.rng_arrival.range_u64(0, max),
            Sporadic::Exponential { mean } => {
                let x = self.rng_arrival.exponential(mean as f64).ceil();
                if x >= u64::MAX as f64 {
                    u64::MAX
                } else {
                    x as u64
                }
            }
        };
        self.next_arrival = self.next_arrival.saturating_add(self.period).saturating_add(extra);
        self.next_arrival
    }
}
