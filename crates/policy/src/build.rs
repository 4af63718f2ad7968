//! Building the policy a spec names: admission (offline work such as
//! partitioning) happens here.

use crate::edf::Edf;
use crate::edzl::Edzl;
use crate::engine::{self, Engine};
use crate::fp::Fp;
use crate::interface::{Policy, Preemption, Time};
use crate::llf::{Llf, DEFAULT_LLF_HYSTERESIS};
use crate::placement::layout;
use schedlab_model::spec::Domains;
use schedlab_model::{Placement, PolicyName, Spec};

/// Why a task set cannot be admitted by its policy (e.g. partitioning failed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdmissionError {
    /// Field path in the spec the problem is about (`policy.partitioning`, `tasks[3]`).
    pub path: String,
    pub message: String,
}

impl AdmissionError {
    pub fn at(path: impl Into<String>, message: impl Into<String>) -> AdmissionError {
        AdmissionError { path: path.into(), message: message.into() }
    }
}

impl std::fmt::Display for AdmissionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for AdmissionError {}

/// Policy parameters the spec has no field for (yet).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuildOptions {
    /// LLF's hysteresis Δ against laxity-tie thrashing (see [`crate::llf`]).
    pub llf_hysteresis: Time,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions { llf_hysteresis: DEFAULT_LLF_HYSTERESIS }
    }
}

/// Builds the policy of `spec.policy`. With `placement`, the policy uses that
/// placement of tasks instead of computing one (the validator passes the
/// placement recorded in a trace).
pub fn build(spec: &Spec, placement: Option<&[Placement]>) -> Result<Box<dyn Policy>, AdmissionError> {
    build_with(spec, placement, &BuildOptions::default())
}

/// [`build`] with explicit parameters.
pub fn build_with(
    spec: &Spec,
    placement: Option<&[Placement]>,
    options: &BuildOptions,
) -> Result<Box<dyn Policy>, AdmissionError> {
    let Some(pol) = &spec.policy else {
        return Err(AdmissionError::at("policy", "the spec names no policy; add e.g. `policy: {name: gedf}`"));
    };
    let m = spec.platform.cpus;
    if m == 0 {
        return Err(AdmissionError::at("platform.cpus", "must be at least 1"));
    }
    if u32::try_from(spec.tasks.len()).is_err() {
        return Err(AdmissionError::at("tasks", "too many tasks"));
    }
    let name = pol.name;
    let kind = name.domains();
    if !name.is_fixed_priority() {
        if let Some(_p) = pol.priorities {
            return Err(AdmissionError::at(
                "policy.priorities",
                format!("`{}` does not use fixed priorities; remove the key", name.name()),
            ));
        }
    }
    if kind == Domains::Global && name != PolicyName::Run && pol.partitioning.is_some() {
        return Err(AdmissionError::at(
            "policy.partitioning",
            format!("`{}` is a global policy and does not partition; remove the key", name.name()),
        ));
    }
    let wcet = || spec.tasks.iter().map(|t| t.wcet.0).collect::<Vec<_>>();
    let lay = || layout(spec, kind, pol.partitioning, placement);
    let policy: Box<dyn Policy> = match name {
        PolicyName::Gedf | PolicyName::Pedf | PolicyName::Cedf => {
            engine::boxed(name.name(), Edf { preemptive: true }, lay()?, m)
        }
        PolicyName::NpGedf => engine::boxed(name.name(), Edf { preemptive: false }, lay()?, m),
        PolicyName::Gfp | PolicyName::Pfp | PolicyName::Cfp => {
            let fp = Fp::new(spec, pol.priorities.unwrap_or_default())?;
            engine::boxed(name.name(), fp, lay()?, m)
        }
        PolicyName::Llf | PolicyName::Pllf => {
            engine::boxed(name.name(), Llf { wcet: wcet(), hysteresis: options.llf_hysteresis }, lay()?, m)
        }
        PolicyName::Edzl => engine::boxed(name.name(), Edzl { wcet: wcet() }, lay()?, m),
        PolicyName::Pd2 => {
            lay()?; // refuses pinned tasks and a non-global recorded placement
            Box::new(crate::pd2::Pd2::new(crate::pd2::params(spec)?))
        }
        PolicyName::CaGedf => {
            lay()?; // refuses pinned tasks and a non-global recorded placement
            Box::new(crate::cache_aware::CaGedf::new(crate::cache_aware::params(spec)?))
        }
        PolicyName::Run => crate::run::build(spec, placement)?,
        PolicyName::Hcbs => crate::hcbs::build(spec, placement)?,
        PolicyName::CapGsDynamic => {
            let fp = Fp::new(spec, pol.priorities.unwrap_or_default())?.banded_by_class(spec);
            let inner = Engine::new(name.name(), fp, lay()?, m);
            Box::new(crate::throttle::Throttle::new(inner, spec))
        }
        PolicyName::Mcs => {
            let fp = Fp::new(spec, pol.priorities.unwrap_or_default())?;
            let inner = Engine::new(name.name(), fp, lay()?, m);
            if pol.mps == Some(false) {
                // The Contention baseline: P-FP, memory phases unarbitrated.
                Box::new(inner)
            } else {
                Box::new(crate::mcs::build(spec, inner)?)
            }
        }
        PolicyName::Fpds | PolicyName::GFpds | PolicyName::Fpns => {
            let preemption = if name == PolicyName::Fpns { Preemption::None } else { Preemption::AtPoints };
            let fp = Fp::new(spec, pol.priorities.unwrap_or_default())?.preempting(preemption);
            engine::boxed(name.name(), fp, lay()?, m)
        }
    };
    Ok(policy)
}
