//! Supply bounds of CPU reservations: how much service a virtual processor
//! is guaranteed in any window of length t, after the H-CBS analysis of
//! Checconi, Cucinotta, Faggioli & Lipari, "Hierarchical Multiprocessor CPU
//! Reservations for the Linux Kernel" (OSPERT 2009), which builds on Bini,
//! Buttazzo & Bertogna's multi-supply abstraction (RTSS 2009).
//!
//! - [`hcbs`]: one H-CBS server (Q, P), its supply bound function (Eq. 4);
//! - [`alpha_delta`]: the linear bound max(0, α(t − Δ)) with α = Q/P,
//!   Δ = 2P − 2Q (Eqs. 5–8), a *lower* bound of Eq. 4 (the paper prints ≤
//!   in Eq. 7; its text says "lower bounded");
//! - [`function`]: a virtual processor's supply, whichever of the above;
//! - [`multi`]: a group's virtual platform, one supply per CPU, the MαΔ
//!   abstraction (Def. 7) and the parallel-supply lengths and interference
//!   bound of Eqs. 10, 13 and 15;
//! - [`nested`]: the servers of a group's children (and of its own tasks)
//!   scheduled by EDF inside the group's virtual processor, and the supply
//!   they then get.
//!
//! Time is integer nanoseconds; supplies are exact rationals.

pub mod alpha_delta;
pub mod function;
pub mod hcbs;
pub mod multi;
pub mod nested;

pub use alpha_delta::AlphaDelta;
pub use function::Supply;
pub use hcbs::Server;
pub use multi::Platform;
