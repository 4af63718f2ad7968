//! Errors about a spec: each names the file, the line and column, the field
//! path and what would be valid.

use serde::Serialize;
use std::fmt;

/// One finding about a spec, located as precisely as the input allows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// Field path, e.g. `tasks[3].period`; empty for the whole document.
    pub path: String,
    /// 1-based line, when the format gives one.
    pub line: Option<usize>,
    /// 1-based column, when the format gives one.
    pub column: Option<usize>,
    /// What is wrong and what would be valid.
    pub message: String,
}

impl Diagnostic {
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Diagnostic {
        Diagnostic { path: path.into(), line: None, column: None, message: message.into() }
    }
    /// `file:line:col: path: message`
    pub fn render(&self, file: &str) -> String {
        let mut s = file.to_string();
        if let Some(l) = self.line {
            s += &format!(":{l}");
            if let Some(c) = self.column {
                s += &format!(":{c}");
            }
        }
        s += ": ";
        if !self.path.is_empty() {
            s += &self.path;
            s += ": ";
        }
        s + &self.message
    }
}

/// A spec that cannot be used: every problem found, with the file it is in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SpecError {
    /// The file name as given, or `<string>` for text without a file.
    pub file: String,
    pub diagnostics: Vec<Diagnostic>,
}

impl SpecError {
    pub fn one(file: impl Into<String>, d: Diagnostic) -> SpecError {
        SpecError { file: file.into(), diagnostics: vec![d] }
    }
    /// The first problem (there is always at least one).
    pub fn first(&self) -> &Diagnostic {
        &self.diagnostics[0]
    }
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lines: Vec<String> = self.diagnostics.iter().map(|d| d.render(&self.file)).collect();
        f.write_str(&lines.join("\n"))
    }
}

impl std::error::Error for SpecError {}
