//! The shipped JSON Schemas of the trace (docs/schemas/trace-header.schema.json,
//! docs/schemas/trace-event.schema.json) are the ones the types generate.
//! Regenerate them with `SCHEDLAB_UPDATE_SCHEMA=1 cargo test -p schedlab-trace --test schema`.

use std::path::PathBuf;

fn check(file: &str, generated: String) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/schemas").join(file);
    if std::env::var_os("SCHEDLAB_UPDATE_SCHEMA").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let shipped = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        shipped == generated,
        "docs/schemas/{file} is out of date with the trace types; run\n  SCHEDLAB_UPDATE_SCHEMA=1 cargo test -p schedlab-trace --test schema\nand commit the file"
    );
}

#[test]
fn shipped_schemas_match_the_types() {
    check("trace-header.schema.json", schedlab_trace::schema::header_schema_json());
    check("trace-event.schema.json", schedlab_trace::schema::event_schema_json());
}

#[test]
fn the_event_schema_names_every_event_and_policy_kind() {
    let s = schedlab_trace::schema::event_schema_json();
    for ev in schedlab_trace::Event::NAMES {
        assert!(s.contains(&format!("\"const\": \"{ev}\"")), "event `{ev}` missing from the schema");
    }
    for kind in schedlab_trace::PolicyEvent::KINDS {
        assert!(s.contains(&format!("\"const\": \"{kind}\"")), "policy event kind `{kind}` missing from the schema");
    }
}
