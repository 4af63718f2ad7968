//! The spread of multithreaded tasks (Calandrino 2009 §3.2.2): "an MTT has
//! a spread of k if for all i, the i-th unit of computation for each task
//! of the MTT is scheduled within the interval [t, t + k) for some t".
//!
//! Units are quanta: a task's i-th unit is the i-th quantum (counted from
//! the start of the schedule, quanta of the given length from time 0) in
//! which it ran, however briefly. An MTT's spread is the largest, over i,
//! of (last − first + 1) among its tasks' i-th quanta, for the i that every
//! one of its tasks reached; 1 is perfect co-scheduling. A task in no MTT
//! has no spread.
//!
//! [`SpreadMeter`] consumes a schedule's events in time order.

use crate::{Event, Time};

/// Per task, the quanta it ran in, from a stream of events.
#[derive(Debug, Clone)]
pub struct SpreadMeter {
    quantum: Time,
    /// Per CPU: the task running and since when.
    running: Vec<Option<(u32, Time)>>,
    /// Per task: the quanta it ran in, increasing.
    quanta: Vec<Vec<u64>>,
}

impl SpreadMeter {
    /// For `tasks` tasks, quanta of `quantum` ns (> 0).
    pub fn new(tasks: usize, quantum: Time) -> SpreadMeter {
        SpreadMeter { quantum: quantum.max(1), running: Vec::new(), quanta: vec![Vec::new(); tasks] }
    }

    fn close(&mut self, cpu: u32, t: Time) {
        let Some(Some((task, from))) = self.running.get_mut(cpu as usize).map(|r| r.take()) else { return };
        if t <= from {
            return;
        }
        let Some(q) = self.quanta.get_mut(task as usize) else { return };
        for k in from / self.quantum..=(t - 1) / self.quantum {
            if q.last().is_none_or(|&l| l < k) {
                q.push(k);
            }
        }
    }

    pub fn push(&mut self, ev: &Event) {
        match *ev {
            Event::SwitchTo { t, cpu, task, .. } => {
                self.close(cpu, t);
                if self.running.len() <= cpu as usize {
                    self.running.resize(cpu as usize + 1, None);
                }
                self.running[cpu as usize] = Some((task, t));
            }
            Event::SwitchAway { t, cpu, .. } | Event::Completion { t, cpu, .. } => self.close(cpu, t),
            _ => {}
        }
    }

    /// Ends every running interval at `end`; per task, the quanta it ran in.
    pub fn finish(mut self, end: Time) -> Vec<Vec<u64>> {
        for cpu in 0..self.running.len() as u32 {
            self.close(cpu, end);
        }
        self.quanta
    }
}

/// An MTT's spread over a schedule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    /// The spread: the largest, over the units i, of last − first + 1.
    pub max: u64,
    /// The units every member reached.
    pub units: usize,
    /// The mean over those units of last − first + 1 (1: every unit
    /// co-scheduled).
    pub mean: f64,
}

/// The spread of the group of tasks `members` given each task's quanta
/// (from [`SpreadMeter::finish`]); `None` when some member never ran.
pub fn spread(quanta: &[Vec<u64>], members: &[usize]) -> Option<Spread> {
    let units = members.iter().map(|&t| quanta.get(t).map_or(0, |q| q.len())).min()?;
    if units == 0 {
        return None;
    }
    let per_unit = (0..units).map(|i| {
        let (lo, hi) = members.iter().fold((u64::MAX, 0), |(lo, hi), &t| {
            let k = quanta[t][i];
            (lo.min(k), hi.max(k))
        });
        hi - lo + 1
    });
    let (max, sum) = per_unit.fold((1, 0u64), |(m, s), k| (m.max(k), s + k));
    Some(Spread { max, units, mean: sum as f64 / units as f64 })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn to(t: Time, cpu: u32, task: u32) -> Event {
        Event::SwitchTo { t, cpu, task, job: 0 }
    }
    fn done(t: Time, cpu: u32, task: u32) -> Event {
        Event::Completion { t, cpu, task, job: 0, exec: 0, forced: false }
    }

    #[test]
    fn quanta_and_spread() {
        let q = 10;
        let mut m = SpreadMeter::new(3, q);
        // Task 0 runs quanta 0 and 1 on CPU 0; task 1 runs quantum 0 (half
        // of it) and quantum 3; task 2 runs quanta 1 and 2 (one interval).
        for ev in [to(0, 0, 0), to(0, 1, 1), done(5, 1, 1), to(10, 1, 2), done(20, 0, 0), to(30, 0, 1)] {
            m.push(&ev);
        }
        let quanta = m.finish(40);
        assert_eq!(quanta[0], vec![0, 1]);
        assert_eq!(quanta[1], vec![0, 3]);
        assert_eq!(quanta[2], vec![1, 2, 3]);
        // {0, 1}: units 0 → 0, 0 (spread 1); 1 → 1, 3 (spread 3).
        assert_eq!(spread(&quanta, &[0, 1]), Some(Spread { max: 3, units: 2, mean: 2.0 }));
        assert_eq!(spread(&quanta, &[0]), Some(Spread { max: 1, units: 2, mean: 1.0 }));
        // {0, 2}: 0 vs 1 (2), 1 vs 2 (2).
        assert_eq!(spread(&quanta, &[0, 2]), Some(Spread { max: 2, units: 2, mean: 2.0 }));
        let none = SpreadMeter::new(2, q).finish(40);
        assert_eq!(spread(&none, &[0, 1]), None);
    }
}
