//! The JSON Schemas of a JSON Lines trace's two kinds of line, generated from
//! the types: the header (line 1) and an event (every further line). Copies
//! ship as `docs/schemas/trace-header.schema.json` and
//! `docs/schemas/trace-event.schema.json`; a test fails when they drift.

/// The header's schema as pretty JSON with a final newline.
pub fn header_schema_json() -> String {
    pretty(schemars::schema_for!(crate::Header), "trace-header")
}

/// An event line's schema as pretty JSON with a final newline.
pub fn event_schema_json() -> String {
    pretty(schemars::schema_for!(crate::Event), "trace-event")
}

/// The schema with its `$id` (as every schema in `docs/schemas/` has one).
fn pretty(mut schema: schemars::Schema, name: &str) -> String {
    schema.insert("$id".into(), format!("https://schedlab.invalid/schemas/{name}.schema.json").into());
    let mut s = serde_json::to_string_pretty(&schema).expect("a schema always serializes");
    s.push('\n');
    s
}
