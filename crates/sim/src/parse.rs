//! The text forms of the simulator's options, shared by every front end
//! (`schedlab simulate --exec uniform`, `schedlab.simulate(exec="uniform")`).

use crate::config::{Execution, MissPolicy, Sporadic};
use schedlab_model::Duration;
use std::str::FromStr;

impl FromStr for Execution {
    type Err = String;
    /// `wcet` or `uniform`.
    fn from_str(s: &str) -> Result<Execution, String> {
        match s {
            "wcet" => Ok(Execution::Wcet),
            "uniform" => Ok(Execution::Uniform),
            x => Err(format!("must be `wcet` or `uniform`, got `{x}`")),
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
        assert_eq!("uniform:5ms".parse::<Sporadic>(), Ok(Sporadic::Uniform { max: 5_000_000 }));
        assert_eq!("exponential:2us".parse::<Sporadic>(), Ok(Sporadic::Exponential { mean: 2_000 }));
        assert_eq!("none".parse::<Sporadic>(), Ok(Sporadic::None));
        assert_eq!("skip".parse::<MissPolicy>(), Ok(MissPolicy::Skip));
        assert!("average".parse::<Execution>().is_err());
        assert!("poisson".parse::<Sporadic>().is_err());
        assert!("uniform:5".parse::<Sporadic>().unwrap_err().contains("unit is missing"));
        assert!("ignore".parse::<MissPolicy>().is_err());
    }
}
