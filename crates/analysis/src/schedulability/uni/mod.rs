//! Uniprocessor tests: EDF (utilisation, density, exact processor demand by
//! QPA) and fixed priority (Liu & Layland, hyperbolic, exact response-time
//! analysis, FPDS response-time analysis with a final non-preemptive region).
//!
//! Every test applies to one CPU: on a spec with m > 1 it answers "not
//! applicable" and names the partitioned test to use instead. The cores
//! (`*_core` functions over a slice of tasks) are shared with partitioned
//! packing, where they serve as the admission test of each CPU.
//!
//! All tests treat the tasks as sporadic (offsets ignored: any release
//! pattern with at least a period between arrivals is covered), so an exact
//! test's "unschedulable" means some legal release pattern misses — the
//! synchronous one for these tests; a periodic set with offsets may still
//! meet every deadline, and the outcome says so in `details`.

pub mod edf_density;
pub mod edf_util;
pub mod fp_hyperbolic;
pub mod fp_ll;
pub mod fp_rta;
pub mod fpds_rta;
pub(crate) mod load;
pub(crate) mod order;
pub mod qpa;
#[cfg(test)]
mod relations;

use super::input::Input;
use super::outcome::Outcome;
use schedlab_model::Duration;

/// Iteration cap of the fixed-point searches (response times, busy
/// periods): beyond it a test answers inconclusive instead of looping.
pub(crate) const MAX_ITERATIONS: u32 = 1_000_000;

/// Not applicable unless the spec has one CPU; `partitioned` names the test
/// to use on m > 1.
pub(crate) fn one_cpu(id: &'static str, input: &Input, partitioned: &str) -> Option<Outcome> {
    (input.cpus != 1).then(|| {
        Outcome::not_applicable(
            id,
            format!("a uniprocessor test, and the spec has {} CPUs; use `{partitioned}` (the same test as the admission test of each CPU) or a global test", input.cpus),
        )
    })
}

/// The first task with a zero period or WCET above every bound the tests can
/// handle sensibly (period 0): not applicable, naming it.
pub(crate) fn malformed(id: &'static str, input: &Input) -> Option<Outcome> {
    input
        .tasks
        .iter()
        .position(|t| t.period == 0)
        .map(|i| Outcome::not_applicable(id, format!("{} has period 0", input.task_label(i))).task(i))
}

/// A detail line when offsets are present (the analysis covers every
/// release pattern, offsets included, so an "unschedulable" from an exact
/// test is about the worst pattern, not necessarily these offsets).
pub(crate) fn offsets_note(input: &Input, out: Outcome) -> Outcome {
    if input.tasks.iter().any(|t| t.offset != 0) {
        out.detail("offsets are ignored: the analysis covers every sporadic release pattern, so a set with these offsets may do better than the verdict says")
    } else {
        out
    }
}

/// `12.5ms`-style text of a nanosecond value held in a u128.
pub(crate) fn ns(v: u128) -> String {
    match u64::try_from(v) {
        Ok(x) => Duration(x).to_string(),
        Err(_) => format!("{v}ns"),
    }
}
