//! Every policy implementation declares what its descriptor says: its name,
//! its domains (one with every CPU, one per CPU, one per cluster) and how it
//! preempts (`Conformance::preemption()` against `PreemptionKind`). The
//! tasks have cache colours, which colour-aware `cap-gs-dynamic` needs.

use schedlab_model::spec::Domains;
use schedlab_model::{load_str, PolicyName};
use schedlab_policy::descriptor::DESCRIPTORS;
use schedlab_policy::Preemption;

#[test]
fn every_implementation_matches_its_descriptor() {
    for d in &DESCRIPTORS {
        let yaml = format!(
            "platform: {{cpus: 4, clusters: [[0, 1], [2, 3]], cache: {{size: 1MiB, ways: 16, line: 64B}}}}\npolicy: {{name: {}}}\ntasks:\n  \
             - {{name: a, wcet: 1ms, period: 10ms, colors: [0]}}\n  - {{name: b, wcet: 2ms, period: 20ms, colors: [1]}}\n",
            d.name.name()
        );
        let spec = load_str(&yaml, None, "t.yaml").unwrap().spec;
        let policy = schedlab_policy::build(&spec, None).unwrap_or_else(|e| panic!("{}: {e}", d.title));
        let info = policy.info();
        assert_eq!(info.name, d.name.name());
        assert_eq!(info.conformance.preemption(), Preemption::from(d.preemption), "{}", d.title);
        let domains: Vec<Vec<u32>> = match d.domains {
            Domains::Global => vec![vec![0, 1, 2, 3]],
            Domains::PerCpu => (0..4).map(|c| vec![c]).collect(),
            Domains::PerCluster => vec![vec![0, 1], vec![2, 3]],
        };
        // RUN runs its servers over every CPU it uses; the others list their domains.
        if d.name != PolicyName::Run {
            assert_eq!(info.domains, domains, "{}", d.title);
        } else {
            assert_eq!(info.domains.len(), 1, "RUN is one global domain");
        }
    }
}
