//! Seeded random streams: one independent generator per task and purpose,
//! so that a task's draws depend only on the run's seed, the task's index and
//! the purpose — not on how events of other tasks interleave. The derivation
//! below is part of the reproducibility guarantee: do not change it.

use schedlab_model::rng::Rng;

/// What a stream is used for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Purpose {
    /// Sporadic extra inter-arrival times.
    Arrival = 1,
    /// Release jitter.
    Jitter = 2,
    /// Actual execution times.
    Execution = 3,
    /// Segment demands of tasks with `segments` or `subjobs`.
    Segments = 4,
}

/// The generator of `purpose` for `task` under `seed`.
pub(crate) fn stream(seed: u64, purpose: Purpose, task: usize) -> Rng {
    let mixed = seed
        ^ (purpose as u64).wrapping_mul(0xD1B5_4A32_D192_ED03)
        ^ (task as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17);
    Rng::new(mixed)
}
