//! Errors of the importers and exporters. Every decoding error names the file
//! and where in it (a byte offset of a binary file, a line of a text file)
//! and says what is wrong and, where there is one, the fix.

use std::fmt;

/// Where in an input file something went wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum At {
    /// A 0-based byte offset (binary formats, JSON, XML).
    Byte(u64),
    /// A 1-based line (text formats).
    Line(u64),
}

impl fmt::Display for At {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            At::Byte(n) => write!(f, "byte {n}"),
            At::Line(n) => write!(f, "line {n}"),
        }
    }
}

/// An error reading or writing another tool's format.
#[derive(Debug)]
pub struct InteropError {
    /// The file (as given) the error is about; empty when there is none.
    pub file: String,
    /// Where in the file, for a decoding error.
    pub at: Option<At>,
    /// What is wrong.
    pub msg: String,
    /// An I/O error (the file cannot be opened, read or written) rather than
    /// bad content.
    pub io: bool,
}

impl InteropError {
    /// Bad content at a position of `file`.
    pub fn at(file: &str, at: At, msg: impl Into<String>) -> InteropError {
        InteropError { file: file.to_string(), at: Some(at), msg: msg.into(), io: false }
    }
    /// Bad content of `file` as a whole (no single position).
    pub fn file(file: &str, msg: impl Into<String>) -> InteropError {
        InteropError { file: file.to_string(), at: None, msg: msg.into(), io: false }
    }
    /// An I/O error on `file`.
    pub fn io(file: &str, e: std::io::Error) -> InteropError {
        InteropError { file: file.to_string(), at: None, msg: e.to_string(), io: true }
    }
    /// A usage error that concerns no file (an option, a mapping).
    pub fn usage(msg: impl Into<String>) -> InteropError {
        InteropError { file: String::new(), at: None, msg: msg.into(), io: false }
    }
}

impl fmt::Display for InteropError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.file.is_empty() {
            write!(f, "{}: ", self.file)?;
        }
        if let Some(at) = self.at {
            write!(f, "{at}: ")?;
        }
        f.write_str(&self.msg)
    }
}

impl std::error::Error for InteropError {}

impl From<(String, schedlab_trace::TraceError)> for InteropError {
    fn from((file, e): (String, schedlab_trace::TraceError)) -> InteropError {
        let io = matches!(e, schedlab_trace::TraceError::Io { .. });
        let at = e.position().map(|p| match p {
            schedlab_trace::Position::Line(n) => At::Line(n),
            schedlab_trace::Position::Byte(n) => At::Byte(n),
        });
        let msg = match &e {
            schedlab_trace::TraceError::Invalid { msg, .. } => msg.clone(),
            other => other.to_string(),
        };
        InteropError { file, at, msg, io }
    }
}
