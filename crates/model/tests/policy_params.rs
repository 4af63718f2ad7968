//! The policy section is a union tagged by `name`: each policy takes only
//! the parameters its descriptor lists. A parameter another policy owns is
//! an error naming the field, the policy, the keys it takes and the
//! policies the key belongs to; the JSON Schema says the same; every spec
//! shipped in examples/ still loads.

use schedlab_model::spec::DESCRIPTORS;
use schedlab_model::{load_path, load_str, PolicyName};
use std::path::PathBuf;

const TASKS: &str = "tasks:\n  - {name: a, wcet: 1ms, period: 10ms}\n";

fn spec(policy: &str) -> String {
    format!("platform: {{cpus: 2, clusters: [[0], [1]]}}\npolicy: {policy}\n{TASKS}")
}

#[test]
fn each_policy_takes_its_own_parameters() {
    for (policy, ok) in [
        ("{name: pd2, quantum: 500us, stagger: true, early_release: true}", true),
        ("{name: run, partitioning: wf, slack: proportional}", true),
        ("{name: pfp, partitioning: ffd, priorities: dm}", true),
        ("{name: g-fpds, priorities: rm}", true),
        ("{name: cedf, partitioning: bfd}", true),
        ("{name: gedf}", true),
    ] {
        assert_eq!(load_str(&spec(policy), None, "t.yaml").is_ok(), ok, "{policy}");
    }
}

#[test]
fn a_parameter_of_another_policy_names_the_field_the_policy_and_the_valid_keys() {
    let cases = [
        ("{name: pfp, quantum: 1ms}", "policy.quantum", "`quantum` is not a parameter of `pfp`: it takes partitioning, priorities, capacity, group_packing, srt_on_hrt_cores, memory_total (`quantum` applies to pd2, cap-gs-dynamic, ca-gedf); remove the key"),
        ("{name: gedf, slack: greedy}", "policy.slack", "`slack` is not a parameter of `gedf`: it takes none (`slack` applies to run)"),
        ("{name: pd2, priorities: rm}", "policy.priorities", "it takes quantum, stagger, early_release, spread, megatasks, reweight (`priorities` applies to gfp, pfp, cfp, fpds, g-fpds, fpns, hcbs, cap-gs-dynamic, mcs)"),
        ("{name: llf, partitioning: wfd}", "policy.partitioning", "`llf` is a global policy and does not partition"),
        ("{name: run, stagger: true}", "policy.stagger", "it takes partitioning, slack (`stagger` applies to pd2)"),
    ];
    for (policy, path, want) in cases {
        let e = load_str(&spec(policy), None, "t.yaml").expect_err(policy);
        let d = e.diagnostics.iter().find(|d| d.path == path).unwrap_or_else(|| panic!("{path} not in {e}"));
        assert!(d.message.contains(want), "{policy}: {}", d.message);
        assert_eq!(d.line, Some(2), "{policy}: the line of the policy section");
    }
    // Two foreign keys: two errors.
    let e = load_str(&spec("{name: gfp, quantum: 1ms, slack: greedy}"), None, "t.yaml").unwrap_err();
    assert_eq!(e.diagnostics.iter().filter(|d| d.path.starts_with("policy.")).count(), 2, "{e}");
}

#[test]
fn the_schema_is_a_union_tagged_by_name_with_each_policys_keys() {
    let s: serde_json::Value = serde_json::from_str(&schedlab_model::schema::spec_schema_json()).unwrap();
    let variants = s["$defs"]["PolicySpec"]["oneOf"].as_array().expect("a oneOf of policies");
    assert_eq!(variants.len(), PolicyName::ALL.len());
    for (v, d) in variants.iter().zip(DESCRIPTORS.iter()) {
        assert_eq!(v["properties"]["name"]["const"], d.name.name());
        assert_eq!(v["title"], d.title);
        assert_eq!(v["additionalProperties"], false);
        let mut keys: Vec<&str> = v["properties"].as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort();
        let mut want: Vec<&str> = d.params.iter().map(|p| p.key).chain(["name"]).collect();
        want.sort();
        assert_eq!(keys, want, "{}", d.title);
        for p in d.params {
            let doc = v["properties"][p.key]["description"].as_str().unwrap();
            assert!(doc.contains(p.default), "{}.{}: {doc}", d.title, p.key);
        }
    }
}

#[test]
fn every_example_still_loads() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "yaml") && p.file_name().is_some_and(|f| f != "sweep.yaml") {
            load_path(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            n += 1;
        }
    }
    assert!(n >= 7, "{n} examples");
}

/// docs/spec.md lists, per policy, the parameters its descriptor lists, and
/// documents each parameter with its default.
#[test]
fn the_spec_reference_lists_each_policys_parameters() {
    let doc = std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/spec.md")).unwrap();
    for d in &DESCRIPTORS {
        let keys: Vec<String> = d.params.iter().map(|p| format!("`{}`", p.key)).collect();
        let keys = if keys.is_empty() { "—".to_string() } else { keys.join(", ") };
        let row = format!("| `{}` | {} | {keys} |", d.name.name(), d.title);
        assert!(doc.contains(&row), "docs/spec.md lacks the row {row}");
        for p in d.params {
            assert!(doc.contains(&format!("| `{}` |", p.key)), "docs/spec.md does not document `{}`", p.key);
        }
    }
}
