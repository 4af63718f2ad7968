//! Partitioning: bin packing of tasks onto bins (CPUs for partitioned
//! policies, clusters for clustered ones).
//!
//! The heuristics are the classic ones as the EPOS thesis (Gracioli 2014,
//! §2.4) defines them: first fit, best fit (least room left after placing),
//! worst fit (most room left), next fit (one open bin, never revisited), each
//! optionally on the tasks sorted by non-increasing size ("decreasing").
//! The number of bins is fixed: needing another bin means the packing failed.
//!
//! - Sizes are exact fractions (utilisation wcet/period or density
//!   wcet/min(deadline, period), [`Metric`]); the capacity test
//!   Σ size ≤ capacity is decided with integers or rationals, never floats.
//! - A bin's capacity is its number of CPUs (1 for a CPU, the CPU count for a
//!   cluster); a task larger than 1 fits no bin.
//! - Pinned tasks ([`Pin::Bin`]) are placed first, in task order, and count
//!   against their bin; tasks restricted to some bins ([`Pin::Among`]) are
//!   packed by the heuristic among those bins only.
//! - An admission predicate ([`Admit`]) can veto a placement that passes the
//!   capacity test, so that a uniprocessor schedulability test can serve as
//!   the fit test.
//! - Deterministic: ties go to the lower bin index; decreasing orders sort by
//!   size, ties by task index.

mod error;
mod heuristic;
mod pack;
mod problem;
mod quantity;
mod size;
mod spec;

pub use error::{PackError, PackErrorKind};
pub use heuristic::{Heuristic, Rule};
pub use pack::{pack, pack_exact, pack_with, Admit};
pub use problem::{Assignment, Pin, PinnedCheck, Problem};
pub use size::{Metric, Share};
pub use spec::{pack_spec, pin_for, problem_for, Target};

#[cfg(test)]
mod tests;
