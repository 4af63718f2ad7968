//! The registry: every test by its stable ID.

use super::outcome::{Exactness, Outcome};
use super::{clustered, gedf, gfp, partitioned, pfair, run, tardiness, uni};
use super::input::Input;
use schedlab_model::PolicyName;

/// What a test is and what it applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TestInfo {
    /// Stable ID, e.g. `pfair.pd2`.
    pub id: &'static str,
    /// Short title.
    pub title: &'static str,
    /// The policies whose schedules the verdict is about.
    pub policies: &'static [PolicyName],
    /// The task model it needs, in words (deadlines, arrivals, limits).
    pub assumes: &'static str,
    pub exactness: Exactness,
    /// Where the test comes from.
    pub source: &'static str,
}

/// A registered test.
#[derive(Debug, Clone, Copy)]
pub struct Test {
    pub info: TestInfo,
    pub run: fn(&Input) -> Outcome,
}

static REGISTRY: &[Test] = &[
    Test { info: pfair::INFO, run: pfair::check },
    Test { info: run::INFO, run: run::check },
    Test { info: uni::edf_util::INFO, run: uni::edf_util::check },
    Test { info: uni::edf_density::INFO, run: uni::edf_density::check },
    Test { info: uni::qpa::INFO, run: uni::qpa::check },
    Test { info: uni::fp_ll::INFO, run: uni::fp_ll::check },
    Test { info: uni::fp_hyperbolic::INFO, run: uni::fp_hyperbolic::check },
    Test { info: uni::fp_rta::INFO, run: uni::fp_rta::check },
    Test { info: uni::fpds_rta::INFO, run: uni::fpds_rta::check },
    Test { info: partitioned::INFOS[0], run: partitioned::pedf_util },
    Test { info: partitioned::INFOS[1], run: partitioned::pedf_density },
    Test { info: partitioned::INFOS[2], run: partitioned::pedf_qpa },
    Test { info: partitioned::INFOS[3], run: partitioned::pedf_admit },
    Test { info: partitioned::INFOS[4], run: partitioned::pfp_ll },
    Test { info: partitioned::INFOS[5], run: partitioned::pfp_hyperbolic },
    Test { info: partitioned::INFOS[6], run: partitioned::pfp_rta },
    Test { info: partitioned::INFOS[7], run: partitioned::pfp_util_rta },
    Test { info: partitioned::INFOS[8], run: partitioned::pfp_admit },
    Test { info: partitioned::INFOS[9], run: partitioned::pfpds_rta },
    Test { info: partitioned::INFOS[10], run: partitioned::pllf_util },
    Test { info: clustered::CEDF_INFO, run: clustered::cedf },
    Test { info: clustered::CFP_INFO, run: clustered::cfp },
    Test { info: tardiness::GEDF_INFO, run: tardiness::gedf },
    Test { info: tardiness::NPGEDF_INFO, run: tardiness::npgedf },
    Test { info: gedf::gfb::INFO, run: gedf::gfb::check_input },
    Test { info: gedf::bak::INFO, run: gedf::bak::check_input },
    Test { info: gedf::bar::INFO, run: gedf::bar::check_input },
    Test { info: gedf::bcl::INFO, run: gedf::bcl::check_input },
    Test { info: gedf::bcl_iterative::INFO, run: gedf::bcl_iterative::check_input },
    Test { info: gedf::rta::INFO, run: gedf::rta::check_input },
    Test { info: gedf::ffdbf::INFO, run: gedf::ffdbf::check_input },
    Test { info: gedf::load::INFO, run: gedf::load::check_input },
    Test { info: gedf::combined::INFO, run: gedf::combined::check_input },
    Test { info: gfp::bertogna::INFO, run: gfp::bertogna::check_input },
    Test { info: gfp::guan::INFO, run: gfp::guan::check_input },
];

/// Every test, in a stable order.
pub fn registry() -> &'static [Test] {
    REGISTRY
}

/// The test with this ID.
pub fn find(id: &str) -> Option<&'static Test> {
    REGISTRY.iter().find(|t| t.info.id == id)
}

/// Runs every test that is about `policy` (all tests with `None`).
pub fn run_all(input: &Input, policy: Option<PolicyName>) -> Vec<Outcome> {
    REGISTRY
        .iter()
        .filter(|t| policy.is_none_or(|p| t.info.policies.contains(&p)))
        .map(|t| (t.run)(input))
        .collect()
}
