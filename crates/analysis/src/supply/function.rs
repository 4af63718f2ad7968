//! A virtual processor's supply: what the schedulability test reads at an
//! interval length. An H-CBS server uses Eq. 4 exactly; the paper's MαΔ
//! abstraction replaces it by its linear bound (never above it, so a test
//! that accepts on the linear bound accepts on Eq. 4 too).

use super::alpha_delta::AlphaDelta;
use super::hcbs::Server;
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::Zero;

/// A lower bound on the service one virtual processor gives in any window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Supply {
    /// No service (a CPU where the group has no budget).
    Nothing,
    /// A whole CPU: Z(t) = t.
    Full,
    /// An H-CBS server on a CPU (or inside a parent's virtual processor
    /// that schedules it in time): Eq. 4.
    Hcbs(Server),
    /// The linear bound max(0, α(t − Δ)) (Eq. 7).
    Linear(AlphaDelta),
}

impl Supply {
    /// The guaranteed service in any window of length `t`, exactly.
    pub fn at(&self, t: u64) -> BigRational {
        match self {
            Supply::Nothing => BigRational::zero(),
            Supply::Full => BigRational::from_integer(BigInt::from(t)),
            Supply::Hcbs(s) => BigRational::from_integer(BigInt::from(s.sbf(t))),
            Supply::Linear(ad) => ad.at(t),
        }
    }

    /// The (α, Δ) pair of this supply (Eq. 8 for a server).
    pub fn alpha_delta(&self) -> AlphaDelta {
        match self {
            Supply::Nothing => AlphaDelta::new(0, 1, 0),
            Supply::Full => AlphaDelta::new(1, 1, 0),
            Supply::Hcbs(s) => s.alpha_delta(),
            Supply::Linear(ad) => *ad,
        }
    }

    /// The same virtual processor seen through its linear bound (MαΔ).
    pub fn linear(&self) -> Supply {
        match self {
            Supply::Hcbs(_) => Supply::Linear(self.alpha_delta()),
            other => *other,
        }
    }

    /// For explanations: `H-CBS 2ms/10ms`, `α = 1/5, Δ = 16ms`, ...
    pub fn describe(&self) -> String {
        match self {
            Supply::Nothing => "no supply".into(),
            Supply::Full => "a whole CPU".into(),
            Supply::Hcbs(s) => format!("H-CBS {}", s.describe()),
            Supply::Linear(ad) => {
                format!("α = {}/{}, Δ = {}", ad.num, ad.den, schedlab_model::Duration(ad.delta))
            }
        }
    }
}
