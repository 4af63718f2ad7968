//! Admission: the offline placement a policy does before the first release.
//! Bin packing of tasks onto CPUs or clusters ([`partition`]: the first/best/
//! worst/next-fit heuristics, exact capacity test, and an admission predicate
//! through which a schedulability test of `schedlab-analysis` can serve as the
//! fit test), and RUN's reduction of a task set to a tree of servers
//! ([`reduction`]), which packs with the same heuristics, and the EPOS
//! thesis' colour-aware partitioning CAP and CAP-GS ([`colour`]), which
//! packs groups of tasks that share cache colours.
//!
//! Policies call it at admission, the analysis calls it for partitioned and
//! clustered tests; it depends on the model alone.

pub mod colour;
pub mod partition;
pub mod reduction;
