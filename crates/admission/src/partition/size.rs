//! What a task weighs in a bin: its utilisation or its density, as an exact
//! fraction.

use schedlab_model::exact::Ratio;
use schedlab_model::Task;

/// The size of a task in a bin.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Metric {
    /// wcet / period.
    #[default]
    Utilization,
    /// wcet / min(deadline, period).
    Density,
}

impl Metric {
    /// The task's size, exactly.
    pub fn of(self, task: &Task) -> Share {
        let den = match self {
            Metric::Utilization => task.period.0,
            Metric::Density => task.deadline().0.min(task.period.0),
        };
        Share { num: task.wcet.0, den }
    }
    pub fn name(self) -> &'static str {
        match self {
            Metric::Utilization => "utilisation",
            Metric::Density => "density",
        }
    }
}

/// An exact fraction `num / den` (den > 0), e.g. a task's utilisation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Share {
    pub num: u64,
    pub den: u64,
}

impl Share {
    pub fn new(num: u64, den: u64) -> Share {
        Share { num, den }
    }
    pub fn to_ratio(self) -> Ratio {
        Ratio::new(self.num as u128, self.den as u128)
    }
    /// Nearest float, for reporting.
    pub fn to_f64(self) -> f64 {
        self.num as f64 / self.den as f64
    }
}
