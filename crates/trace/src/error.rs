//! Errors of the trace readers and writers. Every decoding error says where
//! (a line of a JSON Lines file, a byte offset of a binary file) and what is
//! wrong.

use std::fmt;
use std::path::PathBuf;

/// Where in a trace file something went wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Position {
    /// A 1-based line of a JSON Lines trace.
    Line(u64),
    /// A 0-based byte offset into a binary trace.
    Byte(u64),
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Position::Line(n) => write!(f, "line {n}"),
            Position::Byte(n) => write!(f, "byte {n}"),
        }
    }
}

/// An error reading or writing a trace.
#[derive(Debug)]
pub enum TraceError {
    /// The file could not be opened, read or written.
    Io { path: Option<PathBuf>, source: std::io::Error },
    /// The content is not a valid trace: bad JSON, an unknown event, a
    /// truncated or corrupt record, ...
    Invalid { at: Position, msg: String },
    /// The trace is of a schema (or binary format) version this crate does
    /// not read.
    Version { at: Position, what: &'static str, found: u64, supported: u32 },
    /// Anything else: an unknown file extension, a file that is neither
    /// encoding, a value the writer cannot encode.
    Format(String),
}

impl TraceError {
    pub(crate) fn invalid(at: Position, msg: impl Into<String>) -> TraceError {
        TraceError::Invalid { at, msg: msg.into() }
    }
    /// Attach a path to an I/O error that has none.
    pub fn with_path(self, path: impl Into<PathBuf>) -> TraceError {
        match self {
            TraceError::Io { path: None, source } => TraceError::Io { path: Some(path.into()), source },
            e => e,
        }
    }
    /// The position of a decoding error, if it has one.
    pub fn position(&self) -> Option<Position> {
        match self {
            TraceError::Invalid { at, .. } | TraceError::Version { at, .. } => Some(*at),
            _ => None,
        }
    }
}

impl From<std::io::Error> for TraceError {
    fn from(source: std::io::Error) -> TraceError {
        TraceError::Io { path: None, source }
    }
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TraceError::Io { path: Some(p), source } => write!(f, "{}: {source}", p.display()),
            TraceError::Io { path: None, source } => write!(f, "{source}"),
            TraceError::Invalid { at, msg } => write!(f, "{at}: {msg}"),
            TraceError::Version { at, what, found, supported } => {
                let oldest = if *what == "schema" { crate::OLDEST_SCHEMA_VERSION } else { *supported };
                let reads = if oldest < *supported {
                    format!("versions {oldest} to {supported}")
                } else {
                    format!("version {supported}")
                };
                write!(
                    f,
                    "{at}: trace {what} version {found} is not supported; this schedlab reads {reads} \
                     (the trace was written by a different schedlab: use a matching version to read it)"
                )
            }
            TraceError::Format(msg) => f.write_str(msg),
        }
    }
}

impl std::error::Error for TraceError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TraceError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}
