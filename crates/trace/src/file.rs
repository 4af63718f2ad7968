//! Trace files in either encoding: [`open`] reads a file of either encoding
//! by sniffing its first byte; [`create`] picks the encoding from the file
//! extension (`.jsonl`, `.ndjson`, `.json`: JSON Lines; `.sltrace`, `.bin`:
//! binary).

use crate::binary::{BinaryReader, BinaryWriter};
use crate::error::TraceError;
use crate::jsonl::{JsonlReader, JsonlWriter};
use crate::{Event, Header};
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, ErrorKind, Write};
use std::path::Path;

/// The two encodings of a trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// JSON Lines: readable, one event per line.
    Jsonl,
    /// The compact binary encoding.
    Binary,
}

impl Encoding {
    /// Extensions for JSON Lines traces.
    pub const JSONL_EXTENSIONS: &'static [&'static str] = &["jsonl", "ndjson", "json"];
    /// Extensions for binary traces.
    pub const BINARY_EXTENSIONS: &'static [&'static str] = &["sltrace", "bin"];

    /// The encoding a file name asks for, from its extension (case-insensitive).
    pub fn from_path(path: impl AsRef<Path>) -> Result<Encoding, TraceError> {
        let path = path.as_ref();
        let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some(e) if Self::JSONL_EXTENSIONS.contains(&e) => Ok(Encoding::Jsonl),
            Some(e) if Self::BINARY_EXTENSIONS.contains(&e) => Ok(Encoding::Binary),
            _ => Err(TraceError::Format(format!(
                "{}: cannot tell the trace encoding from the file name; use .jsonl (JSON Lines) or .sltrace (binary)",
                path.display()
            ))),
        }
    }

    /// The usual extension: `jsonl` or `sltrace`.
    pub fn extension(self) -> &'static str {
        match self {
            Encoding::Jsonl => "jsonl",
            Encoding::Binary => "sltrace",
        }
    }

    /// The encoding of a trace that starts with `first` (at least one byte):
    /// `SLTRACE` for binary, `{` or white space for JSON Lines.
    pub fn sniff(first: &[u8]) -> Option<Encoding> {
        match first.first()? {
            b'S' => Some(Encoding::Binary),
            b'{' => Some(Encoding::Jsonl),
            b if b.is_ascii_whitespace() => Some(Encoding::Jsonl),
            _ => None,
        }
    }
}

impl std::str::FromStr for Encoding {
    type Err = String;
    /// `jsonl` (or `json`) and `binary` (or `sltrace`).
    fn from_str(s: &str) -> Result<Encoding, String> {
        match s {
            "jsonl" | "json" => Ok(Encoding::Jsonl),
            "binary" | "sltrace" => Ok(Encoding::Binary),
            _ => Err(format!("unknown trace encoding `{s}` (use jsonl or binary)")),
        }
    }
}

impl std::fmt::Display for Encoding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Encoding::Jsonl => "jsonl",
            Encoding::Binary => "binary",
        })
    }
}

/// A reader of either encoding; an iterator of events after the header.
pub enum TraceReader<R: BufRead> {
    Jsonl(JsonlReader<R>),
    Binary(BinaryReader<R>),
}

impl<R: BufRead> TraceReader<R> {
    /// Sniff the encoding from the first byte and read the header.
    pub fn new(mut r: R) -> Result<TraceReader<R>, TraceError> {
        let first = loop {
            match r.fill_buf() {
                Ok(b) => break b,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => return Err(e.into()),
            }
        };
        if first.is_empty() {
            return Err(TraceError::Format("the file is empty: not a trace".to_string()));
        }
        match Encoding::sniff(first) {
            Some(Encoding::Binary) => Ok(TraceReader::Binary(BinaryReader::new(r)?)),
            Some(Encoding::Jsonl) => Ok(TraceReader::Jsonl(JsonlReader::new(r)?)),
            None => {
                let hex: Vec<String> = first.iter().take(8).map(|b| format!("{b:02x}")).collect();
                Err(TraceError::Format(format!(
                    "not a schedlab trace: it starts with neither `{{` (JSON Lines) nor `SLTRACE` (binary) but with bytes {}",
                    hex.join(" ")
                )))
            }
        }
    }

    /// The trace header.
    pub fn header(&self) -> &Header {
        match self {
            TraceReader::Jsonl(r) => r.header(),
            TraceReader::Binary(r) => r.header(),
        }
    }

    /// The encoding of the trace being read.
    pub fn encoding(&self) -> Encoding {
        match self {
            TraceReader::Jsonl(_) => Encoding::Jsonl,
            TraceReader::Binary(_) => Encoding::Binary,
        }
    }

    /// The next event, `None` at the end of the trace.
    pub fn read_event(&mut self) -> Result<Option<Event>, TraceError> {
        match self {
            TraceReader::Jsonl(r) => r.read_event(),
            TraceReader::Binary(r) => r.read_event(),
        }
    }
}

impl<R: BufRead> Iterator for TraceReader<R> {
    type Item = Result<Event, TraceError>;
    fn next(&mut self) -> Option<Self::Item> {
        match self {
            TraceReader::Jsonl(r) => r.next(),
            TraceReader::Binary(r) => r.next(),
        }
    }
}

impl<R: BufRead> std::iter::FusedIterator for TraceReader<R> {}

/// Open a trace file of either encoding and read its header. I/O errors name
/// the path; decoding errors name the line or byte offset.
pub fn open(path: impl AsRef<Path>) -> Result<TraceReader<BufReader<File>>, TraceError> {
    let path = path.as_ref();
    let file = File::open(path).map_err(|e| TraceError::from(e).with_path(path))?;
    TraceReader::new(BufReader::with_capacity(1 << 16, file)).map_err(|e| e.with_path(path))
}

/// Read a whole trace file into memory.
pub fn read_all(path: impl AsRef<Path>) -> Result<(Header, Vec<Event>), TraceError> {
    let path = path.as_ref();
    let mut reader = open(path)?;
    let mut events = Vec::new();
    while let Some(ev) = reader.read_event().map_err(|e| e.with_path(path))? {
        events.push(ev);
    }
    let header = match reader {
        TraceReader::Jsonl(r) => r.into_header(),
        TraceReader::Binary(r) => r.into_header(),
    };
    Ok((header, events))
}

/// A writer of either encoding.
pub enum TraceWriter<W: Write> {
    Jsonl(JsonlWriter<W>),
    Binary(BinaryWriter<W>),
}

impl<W: Write> TraceWriter<W> {
    /// Write `header` in `encoding`.
    pub fn new(w: W, encoding: Encoding, header: &Header) -> Result<TraceWriter<W>, TraceError> {
        Ok(match encoding {
            Encoding::Jsonl => TraceWriter::Jsonl(JsonlWriter::new(w, header)?),
            Encoding::Binary => TraceWriter::Binary(BinaryWriter::new(w, header)?),
        })
    }

    /// Write one event.
    pub fn write_event(&mut self, ev: &Event) -> Result<(), TraceError> {
        match self {
            TraceWriter::Jsonl(w) => w.write_event(ev),
            TraceWriter::Binary(w) => w.write_event(ev),
        }
    }

    /// Number of events written so far.
    pub fn events(&self) -> u64 {
        match self {
            TraceWriter::Jsonl(w) => w.events(),
            TraceWriter::Binary(w) => w.events(),
        }
    }

    /// The encoding being written.
    pub fn encoding(&self) -> Encoding {
        match self {
            TraceWriter::Jsonl(_) => Encoding::Jsonl,
            TraceWriter::Binary(_) => Encoding::Binary,
        }
    }

    /// End the trace (the binary end record), flush, and give the writer back.
    pub fn finish(self) -> Result<W, TraceError> {
        match self {
            TraceWriter::Jsonl(w) => w.finish(),
            TraceWriter::Binary(w) => w.finish(),
        }
    }
}

/// Create a trace file, its encoding chosen by the extension (see
/// [`Encoding::from_path`]), and write `header`. Call
/// [`TraceWriter::finish`] when done.
pub fn create(path: impl AsRef<Path>, header: &Header) -> Result<TraceWriter<BufWriter<File>>, TraceError> {
    let path = path.as_ref();
    let encoding = Encoding::from_path(path)?;
    let file = File::create(path).map_err(|e| TraceError::from(e).with_path(path))?;
    TraceWriter::new(BufWriter::with_capacity(1 << 16, file), encoding, header).map_err(|e| e.with_path(path))
}

/// Write a whole trace to a file (encoding by extension).
pub fn write_all<'a>(
    path: impl AsRef<Path>,
    header: &Header,
    events: impl IntoIterator<Item = &'a Event>,
) -> Result<(), TraceError> {
    let path = path.as_ref();
    let mut w = create(path, header)?;
    for ev in events {
        w.write_event(ev).map_err(|e| e.with_path(path))?;
    }
    w.finish().map_err(|e| e.with_path(path))?;
    Ok(())
}
