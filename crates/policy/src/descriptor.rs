//! The policy descriptors (name, title, family, domains, preemption,
//! parameters), defined in `schedlab-model` next to `PolicyName` because the
//! spec is validated there and `model` is below this crate; re-exported here
//! beside the implementations they describe. `tests/descriptor.rs` checks
//! that every implementation declares what its descriptor says.

use crate::interface::Preemption;
pub use schedlab_model::spec::descriptor::{all_keys, title_of, Family, Param, PolicyDescriptor, PreemptionKind};
pub use schedlab_model::spec::DESCRIPTORS;

impl From<PreemptionKind> for Preemption {
    fn from(k: PreemptionKind) -> Preemption {
        match k {
            PreemptionKind::Full => Preemption::Full,
            PreemptionKind::None => Preemption::None,
            PreemptionKind::AtPoints => Preemption::AtPoints,
        }
    }
}
