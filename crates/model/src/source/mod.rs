//! Reading a spec document: YAML or JSON text into a positioned tree, and
//! deserialization of that tree into typed values with field paths.

mod de;
mod json;
mod node;
mod yaml;

pub use de::{did_you_mean, DeError, NodeDe};
pub use node::{parse_path, shorten, Entry, Mark, Node, Step, Value, MAX_DEPTH, MAX_NODES};

/// The text could not be read as a document.
#[derive(Debug, Clone, PartialEq)]
pub struct SyntaxError {
    pub mark: Option<Mark>,
    pub message: String,
}

/// The two encodings of a spec; they share one schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Yaml,
    Json,
}

impl Format {
    /// By file extension: `.json` is JSON, anything else YAML.
    pub fn from_path(path: &std::path::Path) -> Format {
        match path.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("json") => Format::Json,
            _ => Format::Yaml,
        }
    }
    /// For text without a file name: JSON when it starts with `{`.
    pub fn sniff(text: &str) -> Format {
        if text.trim_start_matches('\u{feff}').trim_start().starts_with('{') {
            Format::Json
        } else {
            Format::Yaml
        }
    }
}

/// Parses text in the given format.
pub fn parse(text: &str, format: Format) -> Result<Node, SyntaxError> {
    match format {
        Format::Yaml => yaml::parse(text),
        Format::Json => json::parse(text),
    }
}

/// Deserializes a typed value from a tree, returning the field path of the
/// first error (`tasks[3].period`) with the error.
pub fn deserialize<T: serde::de::DeserializeOwned>(node: &Node) -> Result<T, (String, DeError)> {
    serde_path_to_error::deserialize(NodeDe(node)).map_err(|e| {
        let path = e.path().to_string();
        let path = if path == "." { String::new() } else { path };
        (path, e.into_inner())
    })
}
