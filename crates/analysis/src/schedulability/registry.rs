//! The registry: every test by its stable ID.

use super::input::Input;
use super::outcome::{Exactness, Outcome, Verdict};
use super::{clustered, gedf, gfp, mcs, partitioned, pfair, reservations, run, tardiness, uni, window_constrained};
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
    /// The explained outcome.
    pub run: fn(&Input) -> Outcome,
    /// The verdict alone, without building the explanation (batches), where
    /// the test has such a path; always `run(input).verdict`.
    pub decide: Option<fn(&Input) -> Verdict>,
}

impl Test {
    /// The verdict of `run(input)`, by the fast path when there is one.
    #[inline]
    pub fn verdict(&self, input: &Input) -> Verdict {
        match self.decide {
            Some(d) => d(input),
            None => (self.run)(input).verdict,
        }
    }
}

/// `decide(tasks, m)` of a global test as a registry fast path.
macro_rules! global_decide {
    ($($name:ident => $path:path),* $(,)?) => {
        $(fn $name(input: &Input) -> Verdict {
            $path(&input.tasks, input.cpus)
        })*
    };
}

global_decide! {
    gfb_decide => gedf::gfb::decide,
    bak_decide => gedf::bak::decide,
    bar_decide => gedf::bar::decide,
    bcl_decide => gedf::bcl::decide,
    bcl_iterative_decide => gedf::bcl_iterative::decide,
    rta_decide => gedf::rta::decide,
    ffdbf_decide => gedf::ffdbf::decide,
    load_decide => gedf::load::decide,
}

fn combined_decide(input: &Input) -> Verdict {
    gedf::combined::decide_input(input)
}

static REGISTRY: &[Test] = &[
    Test { info: pfair::INFO, run: pfair::check, decide: None },
    Test { info: run::INFO, run: run::check, decide: None },
    Test { info: uni::edf_util::INFO, run: uni::edf_util::check, decide: None },
    Test { info: uni::edf_density::INFO, run: uni::edf_density::check, decide: None },
    Test { info: uni::qpa::INFO, run: uni::qpa::check, decide: None },
    Test { info: uni::fp_ll::INFO, run: uni::fp_ll::check, decide: None },
    Test { info: uni::fp_hyperbolic::INFO, run: uni::fp_hyperbolic::check, decide: None },
    Test { info: uni::fp_rta::INFO, run: uni::fp_rta::check, decide: None },
    Test { info: uni::fpds_rta::INFO, run: uni::fpds_rta::check, decide: None },
    Test { info: partitioned::INFOS[0], run: partitioned::pedf_util, decide: Some(partitioned::DECIDES[0]) },
    Test { info: partitioned::INFOS[1], run: partitioned::pedf_density, decide: Some(partitioned::DECIDES[1]) },
    Test { info: partitioned::INFOS[2], run: partitioned::pedf_qpa, decide: Some(partitioned::DECIDES[2]) },
    Test { info: partitioned::INFOS[3], run: partitioned::pedf_admit, decide: Some(partitioned::DECIDES[3]) },
    Test { info: partitioned::INFOS[4], run: partitioned::pfp_ll, decide: Some(partitioned::DECIDES[4]) },
    Test { info: partitioned::INFOS[5], run: partitioned::pfp_hyperbolic, decide: Some(partitioned::DECIDES[5]) },
    Test { info: partitioned::INFOS[6], run: partitioned::pfp_rta, decide: Some(partitioned::DECIDES[6]) },
    Test { info: partitioned::INFOS[7], run: partitioned::pfp_util_rta, decide: Some(partitioned::DECIDES[7]) },
    Test { info: partitioned::INFOS[8], run: partitioned::pfp_admit, decide: Some(partitioned::DECIDES[8]) },
    Test { info: partitioned::INFOS[9], run: partitioned::pfpds_rta, decide: Some(partitioned::DECIDES[9]) },
    Test { info: partitioned::INFOS[10], run: partitioned::pllf_util, decide: Some(partitioned::DECIDES[10]) },
    Test { info: clustered::CEDF_INFO, run: clustered::cedf, decide: Some(clustered::cedf_decide) },
    Test { info: clustered::CFP_INFO, run: clustered::cfp, decide: Some(clustered::cfp_decide) },
    Test { info: tardiness::GEDF_INFO, run: tardiness::gedf, decide: None },
    Test { info: tardiness::NPGEDF_INFO, run: tardiness::npgedf, decide: None },
    Test { info: window_constrained::WINDOW_INFO, run: window_constrained::window, decide: None },
    Test { info: window_constrained::CA_INFO, run: window_constrained::cache_aware, decide: None },
    Test { info: gedf::gfb::INFO, run: gedf::gfb::check_input, decide: Some(gfb_decide) },
    Test { info: gedf::bak::INFO, run: gedf::bak::check_input, decide: Some(bak_decide) },
    Test { info: gedf::bar::INFO, run: gedf::bar::check_input, decide: Some(bar_decide) },
    Test { info: gedf::bcl::INFO, run: gedf::bcl::check_input, decide: Some(bcl_decide) },
    Test { info: gedf::bcl_iterative::INFO, run: gedf::bcl_iterative::check_input, decide: Some(bcl_iterative_decide) },
    Test { info: gedf::rta::INFO, run: gedf::rta::check_input, decide: Some(rta_decide) },
    Test { info: gedf::ffdbf::INFO, run: gedf::ffdbf::check_input, decide: Some(ffdbf_decide) },
    Test { info: gedf::load::INFO, run: gedf::load::check_input, decide: Some(load_decide) },
    Test { info: gedf::combined::INFO, run: gedf::combined::check_input, decide: Some(combined_decide) },
    Test { info: gfp::bertogna::INFO, run: gfp::bertogna::check_input, decide: None },
    Test { info: gfp::guan::INFO, run: gfp::guan::check_input, decide: None },
    Test { info: reservations::INFO, run: reservations::check, decide: None },
    Test { info: mcs::HOLISTIC_INFO, run: mcs::check_holistic, decide: None },
    Test { info: mcs::BEST_CASE_INFO, run: mcs::check_best_case, decide: None },
    Test { info: mcs::PRECEDENCE_INFO, run: mcs::check_precedence, decide: None },
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
    REGISTRY.iter().filter(|t| policy.is_none_or(|p| t.info.policies.contains(&p))).map(|t| (t.run)(input)).collect()
}
