//! The JSON Schema of the spec, generated from the types. A copy ships as
//! `docs/spec.schema.json`; a test fails when the two drift apart.

use crate::spec::Spec;

/// The schema as pretty JSON with a final newline.
pub fn spec_schema_json() -> String {
    let schema = schemars::schema_for!(Spec);
    let mut s = serde_json::to_string_pretty(&schema).expect("a schema always serializes");
    s.push('\n');
    s
}
