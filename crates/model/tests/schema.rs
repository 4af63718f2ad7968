//! The shipped JSON Schema (docs/spec.schema.json) is the one the types
//! generate. Regenerate it with `SCHEDLAB_UPDATE_SCHEMA=1 cargo test -p schedlab-model --test schema`.

use std::path::PathBuf;

#[test]
fn shipped_schema_matches_the_types() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/spec.schema.json");
    let generated = schedlab_model::schema::spec_schema_json();
    if std::env::var_os("SCHEDLAB_UPDATE_SCHEMA").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let shipped = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        shipped == generated,
        "docs/spec.schema.json is out of date with the spec types; run\n  SCHEDLAB_UPDATE_SCHEMA=1 cargo test -p schedlab-model --test schema\nand commit the file"
    );
}

#[test]
fn schema_names_every_field() {
    let s: serde_json::Value = serde_json::from_str(&schedlab_model::schema::spec_schema_json()).unwrap();
    let defs = &s["$defs"];
    for f in [
        "name", "wcet", "period", "deadline", "priority", "cpu", "cluster", "offset", "jitter", "wss", "colors",
        "class",
    ] {
        assert!(defs["Task"]["properties"].get(f).is_some(), "Task.{f} missing from the schema");
    }
    assert_eq!(defs["Task"]["additionalProperties"], serde_json::Value::Bool(false));
    assert!(s["required"].as_array().unwrap().iter().any(|v| v == "tasks"));
}
