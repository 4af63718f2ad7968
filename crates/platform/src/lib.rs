//! schedlab's platform model: turns what runs where into progress rates,
//! CPMD and synthetic counters. The shared cache is occupied, colour class
//! by colour class, by the working sets of the jobs that ran on it; a
//! running job is slowed by capacity contention in its colours, coherence
//! traffic with writers of its shared-data group on other CPUs and
//! memory-bandwidth contention; a job that comes back reloads what was
//! evicted while it was away (more after a migration); per-CPU and per-task
//! counters (instructions, cycles, references, misses, HITM) follow the
//! same causes. The simulator drives it (`schedlab-sim`); the equations and
//! their sources (the EPOS thesis, notes `seed-000-epos.md` §3.5, §4.4–4.6,
//! §6.5–6.8) are in `docs/platform-model.md`.

pub mod calibration;
pub mod counters;
pub mod layout;
pub mod model;
mod rate_class;

pub use calibration::Calibration;
pub use counters::{Counts, Reading};
pub use layout::{Layout, Part};
pub use model::{PlatformModel, Reload, MICROS};
