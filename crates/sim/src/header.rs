//! The trace header of a simulated schedule.

use crate::config::SimConfig;
use crate::horizon::horizon;
use schedlab_model::{Spec, TOOL};
use schedlab_policy::PolicyInfo;
use schedlab_trace::{Header, Source, SCHEMA_VERSION};

/// The header of the trace `simulate` produces for this spec, policy and
/// configuration: source simulator, clock `virtual`, the seed, the spec, the
/// policy's placement of each task, the horizon, and whether jobs may run
/// slowed (the platform model on a spec with a cache, or a CPU rate below 1).
pub fn header(spec: &Spec, info: &PolicyInfo, config: &SimConfig) -> Header {
    Header {
        schedlab_trace: SCHEMA_VERSION,
        tool: TOOL.to_string(),
        source: Source::Simulator,
        clock: "virtual".to_string(),
        seed: config.seed,
        spec: spec.clone(),
        placement: info.placement.clone(),
        horizon: horizon(spec, config),
        slowed: (config.platform_model && spec.platform.cache.is_some())
            || config.rates.iter().any(|r| r.micros() < schedlab_policy::Rate::MICROS),
    }
}
