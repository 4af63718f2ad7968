//! The simulated interval.

use crate::config::SimConfig;
use schedlab_model::{exact::hyperperiod, Spec};
use schedlab_policy::Time;

/// The horizon a run with this configuration uses: the configured one, or
/// the hyperperiod (lcm of the periods) plus the largest offset, capped at
/// `config.horizon_cap` (also when the hyperperiod overflows u64).
pub fn horizon(spec: &Spec, config: &SimConfig) -> Time {
    if let Some(h) = config.horizon {
        return h;
    }
    let max_offset = spec.tasks.iter().map(|t| t.offset.0).max().unwrap_or(0);
    match hyperperiod(spec.tasks.iter().map(|t| t.period.0)) {
        Some(h) => h.saturating_add(max_offset).min(config.horizon_cap),
        None => config.horizon_cap,
    }
}
