//! The JSON Lines encoding: the first line is the [`Header`] as a JSON
//! object, then one [`Event`] per line in serde's internally tagged form,
//! e.g. `{"ev":"release","t":0,"task":1,"job":0,"deadline":10000000}`.
//! Blank lines are ignored. See `docs/trace-format.md`. A trace of schema
//! version 1 reads as version 2: its header says 2 and its `policy` events
//! become typed policy events or notes ([`Event::from_v1_policy`]).

use crate::error::{Position, TraceError};
use crate::event::V1Policy;
use crate::{Event, Header, OLDEST_SCHEMA_VERSION, SCHEMA_VERSION};
use std::io::{BufRead, Write};

/// Streams a trace as JSON Lines. The header is written by [`JsonlWriter::new`];
/// each event is serialised into one reused buffer, so writing allocates
/// nothing per event once the buffer has grown to the longest line.
pub struct JsonlWriter<W: Write> {
    w: W,
    buf: Vec<u8>,
    events: u64,
}

impl<W: Write> JsonlWriter<W> {
    /// Write `header` as the first line. For speed give a buffered writer
    /// (`BufWriter<File>`).
    pub fn new(mut w: W, header: &Header) -> Result<JsonlWriter<W>, TraceError> {
        check_writable(header)?;
        let mut buf = Vec::with_capacity(256);
        serde_json::to_writer(&mut buf, header)
            .map_err(|e| TraceError::Format(format!("cannot encode the trace header: {e}")))?;
        buf.push(b'\n');
        w.write_all(&buf)?;
        buf.clear();
        Ok(JsonlWriter { w, buf, events: 0 })
    }

    /// Write one event as one line.
    pub fn write_event(&mut self, ev: &Event) -> Result<(), TraceError> {
        self.buf.clear();
        serde_json::to_writer(&mut self.buf, ev)
            .map_err(|e| TraceError::Format(format!("cannot encode a `{}` event: {e}", ev.name())))?;
        self.buf.push(b'\n');
        self.w.write_all(&self.buf)?;
        self.events += 1;
        Ok(())
    }

    /// Number of events written so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// Flush and give the underlying writer back.
    pub fn finish(mut self) -> Result<W, TraceError> {
        self.w.flush()?;
        Ok(self.w)
    }
}

/// Refuse to write a header this crate could not read back.
pub(crate) fn check_writable(header: &Header) -> Result<(), TraceError> {
    if header.schedlab_trace != SCHEMA_VERSION {
        return Err(TraceError::Format(format!(
            "cannot write a trace header of schema version {}: this schedlab writes version {SCHEMA_VERSION}",
            header.schedlab_trace
        )));
    }
    Ok(())
}

/// Reads a JSON Lines trace: [`JsonlReader::new`] reads and checks the
/// header, then the reader is an iterator of events. After the first error
/// the iterator ends.
pub struct JsonlReader<R: BufRead> {
    r: R,
    header: Header,
    buf: Vec<u8>,
    line: u64,
    done: bool,
    /// The file is of schema version 1 (its `policy` events are converted).
    v1: bool,
}

impl<R: BufRead> JsonlReader<R> {
    /// Read the header line. A trace of a schema version other than
    /// [`OLDEST_SCHEMA_VERSION`] to [`SCHEMA_VERSION`] is refused with
    /// [`TraceError::Version`].
    pub fn new(mut r: R) -> Result<JsonlReader<R>, TraceError> {
        let mut buf = Vec::with_capacity(256);
        let mut line = 0;
        loop {
            buf.clear();
            let n = r.read_until(b'\n', &mut buf)?;
            line += 1;
            if n == 0 {
                return Err(TraceError::invalid(
                    Position::Line(line),
                    "the file ends before the trace header: a trace starts with a header line \
                     ({\"schedlab_trace\": 1, ...})",
                ));
            }
            if !is_blank(&buf) {
                break;
            }
        }
        let (header, version) = parse_header(trim_eol(&buf), Position::Line(line))?;
        Ok(JsonlReader { r, header, buf, line, done: false, v1: version == 1 })
    }

    /// The trace header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The trace header, consuming the reader.
    pub fn into_header(self) -> Header {
        self.header
    }

    /// The number of the last line read (1-based).
    pub fn line(&self) -> u64 {
        self.line
    }

    /// The next event, `None` at the end of the file.
    pub fn read_event(&mut self) -> Result<Option<Event>, TraceError> {
        loop {
            self.buf.clear();
            let n = self.r.read_until(b'\n', &mut self.buf)?;
            if n == 0 {
                return Ok(None);
            }
            self.line += 1;
            if is_blank(&self.buf) {
                continue;
            }
            let text = trim_eol(&self.buf);
            if self.v1 && is_v1_policy(text) {
                return match serde_json::from_slice::<V1Policy>(text) {
                    Ok(p) => Ok(Some(p.into_event())),
                    Err(e) => Err(TraceError::invalid(Position::Line(self.line), diagnose_event(text, &e))),
                };
            }
            return match serde_json::from_slice::<Event>(text) {
                Ok(ev) => Ok(Some(ev)),
                Err(e) => Err(TraceError::invalid(Position::Line(self.line), diagnose_event(text, &e))),
            };
        }
    }
}

impl<R: BufRead> Iterator for JsonlReader<R> {
    type Item = Result<Event, TraceError>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let next = self.read_event();
        crate::event::fuse(&mut self.done, next)
    }
}

impl<R: BufRead> std::iter::FusedIterator for JsonlReader<R> {}

/// Whether a line of a version 1 trace is a `policy` event (the slow check
/// runs only on lines that mention `"policy"`).
fn is_v1_policy(text: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Tag<'a> {
        #[serde(borrow)]
        ev: std::borrow::Cow<'a, str>,
    }
    text.windows(8).any(|w| w == b"\"policy\"") && serde_json::from_slice::<Tag>(text).is_ok_and(|t| t.ev == "policy")
}

fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

fn trim_eol(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// serde_json's message without its ` at line L column C` suffix (each line
/// is parsed on its own, so its line is always 1), and the column.
fn json_message(e: &serde_json::Error) -> (String, usize) {
    let msg = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    (msg.strip_suffix(&suffix).unwrap_or(&msg).to_string(), e.column())
}

/// A trace header from its JSON text, and the schema version the file was
/// written in: the version is checked before anything else, so a future
/// header is refused as such rather than as a header with unknown fields. A
/// version 1 header is returned as version 2 (the reader converts its events).
pub(crate) fn parse_header(text: &[u8], at: Position) -> Result<(Header, u32), TraceError> {
    let value: serde_json::Value = match serde_json::from_slice(text) {
        Ok(v) => v,
        Err(e) => {
            let (msg, col) = json_message(&e);
            return Err(TraceError::invalid(at, format!("the trace header is not valid JSON (column {col}): {msg}")));
        }
    };
    let Some(obj) = value.as_object() else {
        return Err(TraceError::invalid(
            at,
            format!("the trace header must be a JSON object, found {}", json_type(&value)),
        ));
    };
    let version = match obj.get("schedlab_trace") {
        Some(v) => v,
        None => {
            let what = match obj.get("ev").and_then(|v| v.as_str()) {
                Some(ev) => format!("found a `{ev}` event"),
                None => "found an object without a `schedlab_trace` field".to_string(),
            };
            return Err(TraceError::invalid(
                at,
                format!("not a schedlab trace: the first record must be the trace header ({{\"schedlab_trace\": {SCHEMA_VERSION}, ...}}), {what}"),
            ));
        }
    };
    let Some(found) = version.as_u64() else {
        return Err(TraceError::invalid(
            at,
            format!("`schedlab_trace` (the schema version) must be a whole number, found {version}"),
        ));
    };
    if !(OLDEST_SCHEMA_VERSION as u64..=SCHEMA_VERSION as u64).contains(&found) {
        return Err(TraceError::Version { at, what: "schema", found, supported: SCHEMA_VERSION });
    }
    let mut header = serde_path_to_error::deserialize::<_, Header>(value).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        if path == "." {
            TraceError::invalid(at, format!("bad trace header: {inner}"))
        } else {
            TraceError::invalid(at, format!("bad trace header at `{path}`: {inner}"))
        }
    })?;
    header.schedlab_trace = SCHEMA_VERSION;
    Ok((header, found as u32))
}

fn json_type(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

/// Why a line is not an event (the slow path, taken only on error).
fn diagnose_event(text: &[u8], err: &serde_json::Error) -> String {
    let value: serde_json::Value = match serde_json::from_slice(text) {
        Ok(v) => v,
        Err(e) => {
            let (msg, col) = json_message(&e);
            return format!("not valid JSON (column {col}): {msg}");
        }
    };
    let Some(obj) = value.as_object() else {
        return format!("an event must be a JSON object, found {}", json_type(&value));
    };
    let ev = match obj.get("ev") {
        Some(serde_json::Value::String(s)) => s.as_str(),
        Some(other) => return format!("`ev` (the event kind) must be a string, found {other}"),
        None if obj.contains_key("schedlab_trace") => {
            return "a second trace header: a file holds one trace (traces cannot be concatenated)".to_string()
        }
        None => return format!("the event has no `ev` field (the event kind: one of {})", Event::NAMES.join(", ")),
    };
    if !Event::NAMES.contains(&ev) {
        return format!("unknown event `{ev}` (schema version {SCHEMA_VERSION} events: {})", Event::NAMES.join(", "));
    }
    let (msg, _) = json_message(err);
    format!("bad `{ev}` event: {msg}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_model::{Duration, Platform, Spec, Task};

    fn header() -> Header {
        let spec = Spec {
            meta: None,
            platform: Platform { cpus: 2, clusters: None, cache: None, memory: None },
            policy: None,
            overheads: None,
            reservations: None,
            mtt: None,
            tasks: vec![Task::new("a", Duration::from_ms(1), Duration::from_ms(4))],
        };
        Header::new(spec, crate::Source::Simulator, 7, 1_000_000)
    }

    fn text_with(lines: &[&str]) -> String {
        let mut s = serde_json::to_string(&header()).unwrap();
        s.push('\n');
        for l in lines {
            s.push_str(l);
            s.push('\n');
        }
        s
    }

    fn first_error(text: &str) -> String {
        match JsonlReader::new(text.as_bytes()) {
            Err(e) => e.to_string(),
            Ok(r) => r.filter_map(Result::err).next().expect("an error").to_string(),
        }
    }

    #[test]
    fn writes_header_then_one_event_per_line() {
        let mut w = JsonlWriter::new(Vec::new(), &header()).unwrap();
        w.write_event(&Event::Release { t: 0, task: 0, job: 0, deadline: 4_000_000 }).unwrap();
        w.write_event(&Event::SwitchTo { t: 5, cpu: 1, task: 0, job: 0 }).unwrap();
        let out = String::from_utf8(w.finish().unwrap()).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(lines[0].starts_with("{\"schedlab_trace\":2,"));
        assert_eq!(lines[1], r#"{"ev":"release","t":0,"task":0,"job":0,"deadline":4000000}"#);
        assert_eq!(lines[2], r#"{"ev":"switch-to","t":5,"cpu":1,"task":0,"job":0}"#);
    }

    #[test]
    fn reads_back_skipping_blank_lines_and_crlf() {
        let text = text_with(&[
            "",
            r#"{"ev":"sys-release","t":0}"#,
            "   ",
            "{\"t\":3,\"ev\":\"block\",\"task\":0,\"job\":0}\r",
        ]);
        let r = JsonlReader::new(text.as_bytes()).unwrap();
        assert_eq!(r.header(), &header());
        let evs: Vec<Event> = r.map(Result::unwrap).collect();
        assert_eq!(evs, vec![Event::SysRelease { t: 0 }, Event::Block { t: 3, task: 0, job: 0 }]);
    }

    #[test]
    fn errors_name_the_line_and_the_problem() {
        let e = first_error(&text_with(&[r#"{"ev":"sys-release","t":0}"#, r#"{"ev":"relase","t":1}"#]));
        assert!(e.starts_with("line 3: unknown event `relase`"), "{e}");
        let e = first_error(&text_with(&[r#"{"ev":"release","t":1,"task":0,"job":0}"#]));
        assert_eq!(e, "line 2: bad `release` event: missing field `deadline`");
        let e = first_error(&text_with(&[r#"{"ev":"release","t":-1,"task":0,"job":0,"deadline":3}"#]));
        assert!(e.starts_with("line 2: bad `release` event: invalid value: integer `-1`"), "{e}");
        let e = first_error(&text_with(&[r#"{"ev":"release","t":1,"#]));
        assert!(e.starts_with("line 2: not valid JSON (column"), "{e}");
        let e = first_error(&text_with(&[r#"{"t":1}"#]));
        assert!(e.starts_with("line 2: the event has no `ev` field"), "{e}");
        let e = first_error(&text_with(&["[1,2]"]));
        assert_eq!(e, "line 2: an event must be a JSON object, found an array");
        let e = first_error(&text_with(&[&serde_json::to_string(&header()).unwrap()]));
        assert!(e.contains("a second trace header"), "{e}");
    }

    #[test]
    fn refuses_other_schema_versions_and_missing_headers() {
        let mut h = serde_json::to_value(header()).unwrap();
        h["schedlab_trace"] = 3.into();
        let text = format!("{h}\n");
        let e = JsonlReader::new(text.as_bytes()).err().unwrap();
        assert!(matches!(e, TraceError::Version { found: 3, supported: 2, .. }));
        assert!(
            e.to_string()
                .starts_with("line 1: trace schema version 3 is not supported; this schedlab reads versions 1 to 2"),
            "{e}"
        );
        h["schedlab_trace"] = 0.into();
        assert!(matches!(
            JsonlReader::new(format!("{h}\n").as_bytes()).err().unwrap(),
            TraceError::Version { found: 0, .. }
        ));

        let e = JsonlReader::new(&b"{\"ev\":\"sys-release\",\"t\":0}\n"[..]).err().unwrap();
        assert!(e.to_string().contains("the first record must be the trace header"), "{e}");
        assert!(e.to_string().contains("found a `sys-release` event"), "{e}");
        let e = JsonlReader::new(&b"\n\n"[..]).err().unwrap();
        assert!(e.to_string().starts_with("line 3: the file ends before the trace header"), "{e}");

        let mut h = serde_json::to_value(header()).unwrap();
        h["spec"]["tasks"][0]["period"] = "4 parsecs".into();
        let e = JsonlReader::new(format!("{h}\n").as_bytes()).err().unwrap();
        assert!(e.to_string().starts_with("line 1: bad trace header at `spec.tasks[0].period`"), "{e}");
    }

    #[test]
    fn refuses_to_write_a_foreign_version() {
        let mut h = header();
        h.schedlab_trace = 3;
        assert!(JsonlWriter::new(Vec::new(), &h).is_err());
    }

    #[test]
    fn iteration_stops_after_an_error() {
        let text = text_with(&["nonsense", r#"{"ev":"sys-release","t":0}"#]);
        let items: Vec<_> = JsonlReader::new(text.as_bytes()).unwrap().collect();
        assert_eq!(items.len(), 1);
        assert!(items[0].is_err());
    }
}
