//! The options of the job model and their text forms, shared by every front
//! end (`schedlab simulate --exec uniform`, `schedlab run --miss skip`,
//! `schedlab.simulate(exec="uniform")`). Their meaning is in `docs/jobs.md`.

use schedlab_model::Duration;
use std::str::FromStr;

/// Extra inter-arrival time beyond the period, for sporadic tasks.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Sporadic {
    /// Strictly periodic: arrivals exactly one period apart.
    #[default]
    None,
    /// A seeded uniform extra delay in `[0, max]` ns (integer, inclusive).
    Uniform { max: u64 },
    /// A seeded exponential extra delay with this mean (ns), rounded up to ns.
    Exponential { mean: u64 },
}

/// How jobs arrive.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Arrivals {
    /// Extra inter-arrival beyond the period (sporadic model).
    pub sporadic: Sporadic,
    /// Ignore the tasks' release jitter (release every job at its arrival).
    /// By default each release is delayed by a seeded uniform integer in
    /// `[0, jitter]`; the arrival grid is unaffected.
    pub ignore_jitter: bool,
}

/// How long each job actually executes (a task's `executions` list, when
/// present, always takes precedence, cyclically).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Execution {
    /// Every job runs for its WCET.
    #[default]
    Wcet,
    /// A seeded uniform integer in `[BCET, WCET]`.
    Uniform,
    /// This fraction of the WCET, rounded to ns (0 < f ≤ 10; above 1 the
    /// job overruns its WCET on purpose).
    Fraction(f64),
}

/// What happens to a job that misses its deadline (a `DeadlineMiss` event is
/// recorded at the deadline in every case).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MissPolicy {
    /// The job continues until it completes; later jobs of its task wait
    /// (EPOS semantics).
    #[default]
    Continue,
    /// The job is ended at its deadline.
    Abort,
    /// The job continues, and releases that fall while its task still has an
    /// incomplete job are skipped (not released at all).
    Skip,
}

impl FromStr for Execution {
    type Err = String;
    /// `wcet`, `uniform` or `fraction:F`.
    fn from_str(s: &str) -> Result<Execution, String> {
        match s.split_once(':') {
            None if s == "wcet" => Ok(Execution::Wcet),
            None if s == "uniform" => Ok(Execution::Uniform),
            Some(("fraction", v)) => match v.parse::<f64>() {
                Ok(f) if f > 0.0 && f <= 10.0 => Ok(Execution::Fraction(f)),
                _ => Err(format!("fraction `{v}`: expected a number in (0, 10]")),
            },
            _ => Err(format!("must be `wcet`, `uniform` or `fraction:F` (e.g. `fraction:0.5`), got `{s}`")),
        }
    }
}

impl FromStr for Sporadic {
    type Err = String;
    /// `none`, `uniform:MAX` or `exponential:MEAN` (durations with units).
    fn from_str(s: &str) -> Result<Sporadic, String> {
        let duration = |d: &str| d.parse::<Duration>().map(|d| d.0).map_err(|e| e.to_string());
        match s.split_once(':') {
            None if s == "none" => Ok(Sporadic::None),
            Some(("uniform", d)) => Ok(Sporadic::Uniform { max: duration(d)? }),
            Some(("exponential", d)) => Ok(Sporadic::Exponential { mean: duration(d)? }),
            _ => Err(format!("must be `none`, `uniform:MAX` or `exponential:MEAN` (e.g. `uniform:5ms`), got `{s}`")),
        }
    }
}

impl FromStr for MissPolicy {
    type Err = String;
    /// `continue`, `abort` or `skip`.
    fn from_str(s: &str) -> Result<MissPolicy, String> {
        match s {
            "continue" => Ok(MissPolicy::Continue),
            "abort" => Ok(MissPolicy::Abort),
            "skip" => Ok(MissPolicy::Skip),
            x => Err(format!("must be `continue`, `abort` or `skip`, got `{x}`")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn text_forms() {
        assert_eq!("uniform".parse::<Execution>(), Ok(Execution::Uniform));
        assert_eq!("fraction:0.5".parse::<Execution>(), Ok(Execution::Fraction(0.5)));
        assert_eq!("uniform:5ms".parse::<Sporadic>(), Ok(Sporadic::Uniform { max: 5_000_000 }));
        assert_eq!("exponential:2us".parse::<Sporadic>(), Ok(Sporadic::Exponential { mean: 2_000 }));
        assert_eq!("none".parse::<Sporadic>(), Ok(Sporadic::None));
        assert_eq!("skip".parse::<MissPolicy>(), Ok(MissPolicy::Skip));
        assert!("average".parse::<Execution>().is_err());
        assert!("fraction:0".parse::<Execution>().is_err());
        assert!("fraction:11".parse::<Execution>().is_err());
        assert!("poisson".parse::<Sporadic>().is_err());
        assert!("uniform:5".parse::<Sporadic>().unwrap_err().contains("unit is missing"));
        assert!("ignore".parse::<MissPolicy>().is_err());
    }
}
