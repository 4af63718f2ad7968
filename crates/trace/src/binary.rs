//! The binary encoding (`.sltrace`): compact and fast, for the runtime and
//! big simulations. Layout (all integers little-endian; `varint` is unsigned
//! LEB128, `svarint` a zigzag-mapped signed LEB128):
//!
//! ```text
//! magic        8 bytes   "SLTRACE" then the binary format version, 0x01
//! header_len   u32 LE    length of the header JSON
//! header       JSON      the Header, exactly as line 1 of the JSON Lines form
//! records ...            one per event: a tag byte, then the fields
//! end record   0x00      then varint: the number of event records
//! ```
//!
//! Every event record starts with its tag and `dt`, the event's time minus the
//! previous event's time (0 for the first event) as an svarint of the
//! wrapping 64-bit difference: times are meant to be non-decreasing, but an
//! event that goes back in time is still encoded exactly (ordering is the
//! validator's business, not the encoding's). The switch-away reason, the
//! completion's `forced` flag and the overhead kind are folded into the tag.
//! See `docs/trace-format.md` for the table of tags and fields. Schema
//! version 2 added the typed `policy` record (tag 0x0C) and gave tag 0x0A,
//! version 1's `policy` record, to the `note`; a version 1 file's 0x0A
//! records read as [`Event::from_v1_policy`] makes them.

use crate::error::{Position, TraceError};
use crate::jsonl::{check_writable, parse_header};
use crate::varint::{self, VarintError};
use crate::{Event, Header, OverheadKind, SwitchReason, Time};
use std::io::{BufRead, ErrorKind, Write};

/// The first 7 bytes of a binary trace.
pub const MAGIC_PREFIX: &[u8; 7] = b"SLTRACE";
/// The binary format version this crate writes and reads (byte 7 of the file).
pub const FORMAT_VERSION: u8 = 1;
/// The full magic: [`MAGIC_PREFIX`] and [`FORMAT_VERSION`].
pub const MAGIC: &[u8; 8] = b"SLTRACE\x01";

/// Longest note name, in bytes.
pub const MAX_NAME_LEN: u64 = 1 << 16;
/// Longest note data or typed policy event, in bytes of JSON.
pub const MAX_DATA_LEN: u64 = 1 << 26;

/// Record tags.
pub mod tag {
    pub const END: u8 = 0x00;
    pub const SYS_RELEASE: u8 = 0x01;
    pub const RELEASE: u8 = 0x02;
    pub const SWITCH_TO: u8 = 0x03;
    pub const COMPLETION: u8 = 0x04;
    pub const COMPLETION_FORCED: u8 = 0x05;
    pub const BLOCK: u8 = 0x06;
    pub const RESUME: u8 = 0x07;
    pub const DEADLINE_MISS: u8 = 0x08;
    pub const BUDGET_EXHAUSTED: u8 = 0x09;
    /// A note (schema version 1: a `policy` event with a name and data).
    pub const NOTE: u8 = 0x0a;
    pub const SEGMENT_END: u8 = 0x0b;
    /// A typed policy event: its JSON (the `kind` and the fields).
    pub const POLICY: u8 = 0x0c;
    /// `0x10 + reason index` (preempt, complete, block, budget, abort).
    pub const SWITCH_AWAY: u8 = 0x10;
    /// `0x20 + kind index` (release, schedule, context-switch, ipi, tick,
    /// cpmd, release-latency).
    pub const OVERHEAD: u8 = 0x20;
}

/// Encode one event record into `buf` (appending); `prev` is the previous
/// event's time. Fails only for a policy name or data over the size limits,
/// and then leaves `buf` as it was.
pub fn encode_event(buf: &mut Vec<u8>, prev: Time, ev: &Event) -> Result<(), TraceError> {
    let at = buf.len();
    let r = encode_record(buf, prev, ev);
    if r.is_err() {
        buf.truncate(at);
    }
    r
}

fn encode_record(buf: &mut Vec<u8>, prev: Time, ev: &Event) -> Result<(), TraceError> {
    let dt = |t: Time| varint::zigzag(t.wrapping_sub(prev) as i64);
    match ev {
        Event::SysRelease { t } => {
            buf.push(tag::SYS_RELEASE);
            varint::put(buf, dt(*t));
        }
        Event::Release { t, task, job, deadline } => {
            buf.push(tag::RELEASE);
            varint::put(buf, dt(*t));
            varint::put(buf, *task as u64);
            varint::put(buf, *job);
            varint::put(buf, varint::zigzag(deadline.wrapping_sub(*t) as i64));
        }
        Event::SwitchTo { t, cpu, task, job } => {
            buf.push(tag::SWITCH_TO);
            varint::put(buf, dt(*t));
            varint::put(buf, *cpu as u64);
            varint::put(buf, *task as u64);
            varint::put(buf, *job);
        }
        Event::SwitchAway { t, cpu, task, job, reason, exec } => {
            buf.push(tag::SWITCH_AWAY + reason.index() as u8);
            varint::put(buf, dt(*t));
            varint::put(buf, *cpu as u64);
            varint::put(buf, *task as u64);
            varint::put(buf, *job);
            varint::put(buf, *exec);
        }
        Event::Completion { t, cpu, task, job, exec, forced } => {
            buf.push(if *forced { tag::COMPLETION_FORCED } else { tag::COMPLETION });
            varint::put(buf, dt(*t));
            varint::put(buf, *cpu as u64);
            varint::put(buf, *task as u64);
            varint::put(buf, *job);
            varint::put(buf, *exec);
        }
        Event::Block { t, task, job }
        | Event::Resume { t, task, job }
        | Event::DeadlineMiss { t, task, job }
        | Event::BudgetExhausted { t, task, job } => {
            buf.push(match ev {
                Event::Block { .. } => tag::BLOCK,
                Event::Resume { .. } => tag::RESUME,
                Event::DeadlineMiss { .. } => tag::DEADLINE_MISS,
                _ => tag::BUDGET_EXHAUSTED,
            });
            varint::put(buf, dt(*t));
            varint::put(buf, *task as u64);
            varint::put(buf, *job);
        }
        Event::SegmentEnd { t, cpu, task, job, segment } => {
            buf.push(tag::SEGMENT_END);
            varint::put(buf, dt(*t));
            varint::put(buf, *cpu as u64);
            varint::put(buf, *task as u64);
            varint::put(buf, *job);
            varint::put(buf, *segment as u64);
        }
        Event::Overhead { t, cpu, kind, dur } => {
            buf.push(tag::OVERHEAD + kind.index() as u8);
            varint::put(buf, dt(*t));
            varint::put(buf, *cpu as u64);
            varint::put(buf, *dur);
        }
        Event::Policy { t, cpu, event } => {
            buf.push(tag::POLICY);
            varint::put(buf, dt(*t));
            varint::put(buf, cpu.map_or(0, |c| c as u64 + 1));
            let at = buf.len();
            serde_json::to_writer(&mut *buf, event)
                .map_err(|e| TraceError::Format(format!("cannot encode a `{}` policy event: {e}", event.kind())))?;
            let len = (buf.len() - at) as u64;
            if len > MAX_DATA_LEN {
                return Err(TraceError::Format(format!(
                    "policy event of {len} bytes is over the binary encoding's limit of {MAX_DATA_LEN}"
                )));
            }
            let (prefix, n) = varint::encode(len);
            buf.splice(at..at, prefix[..n].iter().copied());
        }
        Event::Note { t, cpu, name, data } => {
            if name.len() as u64 > MAX_NAME_LEN {
                return Err(TraceError::Format(format!(
                    "note name of {} bytes is over the binary encoding's limit of {MAX_NAME_LEN}",
                    name.len()
                )));
            }
            buf.push(tag::NOTE);
            varint::put(buf, dt(*t));
            varint::put(buf, cpu.map_or(0, |c| c as u64 + 1));
            varint::put(buf, name.len() as u64);
            buf.extend_from_slice(name.as_bytes());
            if data.is_null() {
                varint::put(buf, 0);
            } else {
                // Serialise in place, then slide the length prefix in front.
                let at = buf.len();
                serde_json::to_writer(&mut *buf, data)
                    .map_err(|e| TraceError::Format(format!("cannot encode note data: {e}")))?;
                let len = (buf.len() - at) as u64;
                if len > MAX_DATA_LEN {
                    return Err(TraceError::Format(format!(
                        "note data of {len} bytes is over the binary encoding's limit of {MAX_DATA_LEN}"
                    )));
                }
                let (prefix, n) = varint::encode(len);
                buf.splice(at..at, prefix[..n].iter().copied());
            }
        }
    }
    Ok(())
}

/// Streams a trace in the binary encoding. [`BinaryWriter::new`] writes the
/// magic and the header; [`BinaryWriter::finish`] writes the end record, which
/// readers require (a file without it reads as truncated).
pub struct BinaryWriter<W: Write> {
    w: W,
    buf: Vec<u8>,
    prev: Time,
    events: u64,
}

impl<W: Write> BinaryWriter<W> {
    /// Write the magic and `header`. For speed give a buffered writer.
    pub fn new(mut w: W, header: &Header) -> Result<BinaryWriter<W>, TraceError> {
        check_writable(header)?;
        let json = serde_json::to_vec(header)
            .map_err(|e| TraceError::Format(format!("cannot encode the trace header: {e}")))?;
        let len = u32::try_from(json.len()).map_err(|_| {
            TraceError::Format(format!("the trace header is {} bytes, over the binary limit of 4 GiB", json.len()))
        })?;
        w.write_all(MAGIC)?;
        w.write_all(&len.to_le_bytes())?;
        w.write_all(&json)?;
        Ok(BinaryWriter { w, buf: Vec::with_capacity(64), prev: 0, events: 0 })
    }

    /// Write one event record.
    pub fn write_event(&mut self, ev: &Event) -> Result<(), TraceError> {
        self.buf.clear();
        encode_event(&mut self.buf, self.prev, ev)?;
        self.w.write_all(&self.buf)?;
        self.prev = ev.t();
        self.events += 1;
        Ok(())
    }

    /// Number of events written so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// Write the end record, flush, and give the underlying writer back.
    pub fn finish(mut self) -> Result<W, TraceError> {
        self.buf.clear();
        self.buf.push(tag::END);
        varint::put(&mut self.buf, self.events);
        self.w.write_all(&self.buf)?;
        self.w.flush()?;
        Ok(self.w)
    }
}

/// A byte source that counts its offset.
struct Src<R> {
    r: R,
    pos: u64,
}

impl<R: BufRead> Src<R> {
    fn fill(&mut self) -> std::io::Result<&[u8]> {
        loop {
            match self.r.fill_buf() {
                Ok(_) => break,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
        self.r.fill_buf()
    }

    fn byte(&mut self) -> std::io::Result<Option<u8>> {
        let b = match self.fill()?.first() {
            Some(&b) => b,
            None => return Ok(None),
        };
        self.r.consume(1);
        self.pos += 1;
        Ok(Some(b))
    }

    /// A varint; `Ok(Err(..))` for a truncated or malformed one.
    fn varint(&mut self) -> std::io::Result<Result<u64, VarintError>> {
        {
            let buf = self.fill()?;
            if buf.len() >= varint::MAX_LEN {
                // Fast path: the whole varint is in the buffer.
                return Ok(match varint::get(buf) {
                    Ok((v, n)) => {
                        self.r.consume(n);
                        self.pos += n as u64;
                        Ok(v)
                    }
                    Err(e) => Err(e),
                });
            }
        }
        let mut bytes = [0u8; varint::MAX_LEN];
        for i in 0..varint::MAX_LEN {
            let Some(b) = self.byte()? else { return Ok(Err(VarintError::Truncated)) };
            bytes[i] = b;
            if b & 0x80 == 0 {
                return Ok(varint::get(&bytes[..=i]).map(|(v, _)| v));
            }
        }
        Ok(Err(VarintError::Malformed))
    }

    /// Read exactly `n` bytes into `out` (cleared first); false if the input
    /// ends first. Memory grows only with the bytes actually present.
    fn bytes(&mut self, n: u64, out: &mut Vec<u8>) -> std::io::Result<bool> {
        out.clear();
        while (out.len() as u64) < n {
            let buf = self.fill()?;
            if buf.is_empty() {
                return Ok(false);
            }
            let k = buf.len().min((n - out.len() as u64) as usize);
            out.extend_from_slice(&buf[..k]);
            self.r.consume(k);
            self.pos += k as u64;
        }
        Ok(true)
    }
}

/// Reads a binary trace: [`BinaryReader::new`] checks the magic and reads the
/// header, then the reader is an iterator of events. A truncated or corrupt
/// file gives an error with the byte offset (never a panic); after the first
/// error the iterator ends.
pub struct BinaryReader<R: BufRead> {
    src: Src<R>,
    header: Header,
    prev: Time,
    events: u64,
    scratch: Vec<u8>,
    ended: bool,
    done: bool,
    /// The file is of schema version 1 (its 0x0A records are converted).
    v1: bool,
}

/// What a record decoder needs to say about a bad field.
struct Rec {
    start: u64,
    name: &'static str,
}

impl<R: BufRead> BinaryReader<R> {
    /// Check the magic and read the header. A file of another binary format
    /// version or trace schema version is refused with [`TraceError::Version`].
    pub fn new(r: R) -> Result<BinaryReader<R>, TraceError> {
        let mut src = Src { r, pos: 0 };
        let mut scratch = Vec::new();
        let complete = src.bytes(8, &mut scratch)?;
        if scratch[..scratch.len().min(7)] != MAGIC_PREFIX[..scratch.len().min(7)] {
            return Err(TraceError::invalid(
                Position::Byte(0),
                "not a binary schedlab trace: it does not start with `SLTRACE`",
            ));
        }
        if !complete {
            return Err(TraceError::invalid(
                Position::Byte(src.pos),
                "the file ends inside the 8-byte magic: the file is truncated",
            ));
        }
        if scratch[7] != FORMAT_VERSION {
            return Err(TraceError::Version {
                at: Position::Byte(7),
                what: "binary format",
                found: scratch[7] as u64,
                supported: FORMAT_VERSION as u32,
            });
        }
        if !src.bytes(4, &mut scratch)? {
            return Err(TraceError::invalid(
                Position::Byte(src.pos),
                "the file ends inside the header length: the file is truncated",
            ));
        }
        let len = u32::from_le_bytes([scratch[0], scratch[1], scratch[2], scratch[3]]) as u64;
        let at = src.pos;
        if !src.bytes(len, &mut scratch)? {
            return Err(TraceError::invalid(
                Position::Byte(src.pos),
                format!("the file ends inside the {len}-byte header that starts at byte {at}: the file is truncated"),
            ));
        }
        let (header, version) = parse_header(&scratch, Position::Byte(at))?;
        Ok(BinaryReader { src, header, prev: 0, events: 0, scratch, ended: false, done: false, v1: version == 1 })
    }

    /// The trace header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The trace header, consuming the reader.
    pub fn into_header(self) -> Header {
        self.header
    }

    /// Byte offset of the next record.
    pub fn offset(&self) -> u64 {
        self.src.pos
    }

    fn uvar(&mut self, rec: &Rec, field: &str) -> Result<u64, TraceError> {
        let at = self.src.pos;
        match self.src.varint()? {
            Ok(v) => Ok(v),
            Err(VarintError::Truncated) => Err(truncated(self.src.pos, rec)),
            Err(VarintError::Malformed) => Err(TraceError::invalid(
                Position::Byte(at),
                format!(
                    "malformed varint for `{field}` in the `{}` record that starts at byte {} (corrupt file)",
                    rec.name, rec.start
                ),
            )),
        }
    }

    fn u32var(&mut self, rec: &Rec, field: &str) -> Result<u32, TraceError> {
        let at = self.src.pos;
        let v = self.uvar(rec, field)?;
        u32::try_from(v).map_err(|_| {
            TraceError::invalid(
                Position::Byte(at),
                format!(
                    "`{field}` = {v} does not fit in 32 bits in the `{}` record that starts at byte {} (corrupt file)",
                    rec.name, rec.start
                ),
            )
        })
    }

    fn time(&mut self, rec: &Rec) -> Result<Time, TraceError> {
        let d = self.uvar(rec, "t")?;
        Ok(self.prev.wrapping_add(varint::unzigzag(d) as u64))
    }

    /// The next event, `None` after the end record.
    pub fn read_event(&mut self) -> Result<Option<Event>, TraceError> {
        if self.ended {
            return Ok(None);
        }
        let start = self.src.pos;
        let Some(tag) = self.src.byte()? else {
            return Err(TraceError::invalid(
                Position::Byte(start),
                "the trace ends without its end record: the file is truncated (or its writer was not finished)",
            ));
        };
        let name = match tag {
            tag::END => "end",
            tag::SYS_RELEASE => "sys-release",
            tag::RELEASE => "release",
            tag::SWITCH_TO => "switch-to",
            tag::COMPLETION | tag::COMPLETION_FORCED => "completion",
            tag::BLOCK => "block",
            tag::RESUME => "resume",
            tag::DEADLINE_MISS => "deadline-miss",
            tag::BUDGET_EXHAUSTED => "budget-exhausted",
            tag::NOTE if self.v1 => "policy",
            tag::NOTE => "note",
            tag::POLICY if !self.v1 => "policy",
            tag::SEGMENT_END => "segment-end",
            0x10..=0x14 => "switch-away",
            0x20..=0x26 => "overhead",
            _ => {
                return Err(TraceError::invalid(
                    Position::Byte(start),
                    format!("unknown record tag 0x{tag:02x} (corrupt file, or written by a newer schedlab)"),
                ))
            }
        };
        let rec = Rec { start, name };
        let ev = match tag {
            tag::END => {
                let n = self.uvar(&rec, "count")?;
                if n != self.events {
                    return Err(TraceError::invalid(
                        Position::Byte(start),
                        format!("the end record counts {n} events but the file holds {} (corrupt file)", self.events),
                    ));
                }
                let at = self.src.pos;
                if self.src.byte()?.is_some() {
                    return Err(TraceError::invalid(
                        Position::Byte(at),
                        "bytes after the end record (corrupt file, or two traces concatenated)",
                    ));
                }
                self.ended = true;
                return Ok(None);
            }
            tag::SYS_RELEASE => Event::SysRelease { t: self.time(&rec)? },
            tag::RELEASE => {
                let t = self.time(&rec)?;
                let task = self.u32var(&rec, "task")?;
                let job = self.uvar(&rec, "job")?;
                let d = self.uvar(&rec, "deadline")?;
                Event::Release { t, task, job, deadline: t.wrapping_add(varint::unzigzag(d) as u64) }
            }
            tag::SWITCH_TO => {
                let t = self.time(&rec)?;
                let cpu = self.u32var(&rec, "cpu")?;
                let task = self.u32var(&rec, "task")?;
                let job = self.uvar(&rec, "job")?;
                Event::SwitchTo { t, cpu, task, job }
            }
            tag::COMPLETION | tag::COMPLETION_FORCED => {
                let t = self.time(&rec)?;
                let cpu = self.u32var(&rec, "cpu")?;
                let task = self.u32var(&rec, "task")?;
                let job = self.uvar(&rec, "job")?;
                let exec = self.uvar(&rec, "exec")?;
                Event::Completion { t, cpu, task, job, exec, forced: tag == tag::COMPLETION_FORCED }
            }
            tag::BLOCK | tag::RESUME | tag::DEADLINE_MISS | tag::BUDGET_EXHAUSTED => {
                let t = self.time(&rec)?;
                let task = self.u32var(&rec, "task")?;
                let job = self.uvar(&rec, "job")?;
                match tag {
                    tag::BLOCK => Event::Block { t, task, job },
                    tag::RESUME => Event::Resume { t, task, job },
                    tag::DEADLINE_MISS => Event::DeadlineMiss { t, task, job },
                    _ => Event::BudgetExhausted { t, task, job },
                }
            }
            tag::SEGMENT_END => {
                let t = self.time(&rec)?;
                let cpu = self.u32var(&rec, "cpu")?;
                let task = self.u32var(&rec, "task")?;
                let job = self.uvar(&rec, "job")?;
                let segment = self.u32var(&rec, "segment")?;
                Event::SegmentEnd { t, cpu, task, job, segment }
            }
            tag::NOTE => {
                let t = self.time(&rec)?;
                let cpu = self.cpu_plus_one(&rec)?;
                let name = self.string(&rec, "name", MAX_NAME_LEN)?;
                let data = self.data(&rec)?;
                if self.v1 {
                    Event::from_v1_policy(t, cpu, name, data)
                } else {
                    Event::Note { t, cpu, name, data }
                }
            }
            tag::POLICY => {
                let t = self.time(&rec)?;
                let cpu = self.cpu_plus_one(&rec)?;
                let at = self.src.pos;
                self.blob(&rec, "event", MAX_DATA_LEN)?;
                let event = serde_json::from_slice(&self.scratch).map_err(|e| {
                    TraceError::invalid(
                        Position::Byte(at),
                        format!(
                            "not a policy event ({e}) in the `policy` record that starts at byte {} (corrupt file)",
                            rec.start
                        ),
                    )
                })?;
                Event::Policy { t, cpu, event }
            }
            0x10..=0x14 => {
                let reason = SwitchReason::ALL[(tag - tag::SWITCH_AWAY) as usize];
                let t = self.time(&rec)?;
                let cpu = self.u32var(&rec, "cpu")?;
                let task = self.u32var(&rec, "task")?;
                let job = self.uvar(&rec, "job")?;
                let exec = self.uvar(&rec, "exec")?;
                Event::SwitchAway { t, cpu, task, job, reason, exec }
            }
            _ => {
                let kind = OverheadKind::ALL[(tag - tag::OVERHEAD) as usize];
                let t = self.time(&rec)?;
                let cpu = self.u32var(&rec, "cpu")?;
                let dur = self.uvar(&rec, "dur")?;
                Event::Overhead { t, cpu, kind, dur }
            }
        };
        self.prev = ev.t();
        self.events += 1;
        Ok(Some(ev))
    }

    /// An optional CPU written as `cpu + 1` (0: none).
    fn cpu_plus_one(&mut self, rec: &Rec) -> Result<Option<u32>, TraceError> {
        match self.uvar(rec, "cpu")? {
            0 => Ok(None),
            c => u32::try_from(c - 1).map(Some).map_err(|_| {
                TraceError::invalid(
                    Position::Byte(rec.start),
                    format!(
                        "`cpu` {} does not fit in 32 bits in the `{}` record that starts here (corrupt file)",
                        c - 1,
                        rec.name
                    ),
                )
            }),
        }
    }

    fn blob(&mut self, rec: &Rec, field: &str, max: u64) -> Result<(), TraceError> {
        let at = self.src.pos;
        let len = self.uvar(rec, field)?;
        if len > max {
            return Err(TraceError::invalid(
                Position::Byte(at),
                format!("`{field}` length {len} is over the limit of {max} bytes in the `{}` record that starts at byte {} (corrupt file)", rec.name, rec.start),
            ));
        }
        let mut scratch = std::mem::take(&mut self.scratch);
        let complete = self.src.bytes(len, &mut scratch);
        self.scratch = scratch;
        if !complete? {
            return Err(truncated(self.src.pos, rec));
        }
        Ok(())
    }

    fn string(&mut self, rec: &Rec, field: &str, max: u64) -> Result<String, TraceError> {
        let at = self.src.pos;
        self.blob(rec, field, max)?;
        match std::str::from_utf8(&self.scratch) {
            Ok(s) => Ok(s.to_string()),
            Err(_) => Err(TraceError::invalid(
                Position::Byte(at),
                format!(
                    "`{field}` is not UTF-8 in the `{}` record that starts at byte {} (corrupt file)",
                    rec.name, rec.start
                ),
            )),
        }
    }

    fn data(&mut self, rec: &Rec) -> Result<serde_json::Value, TraceError> {
        let at = self.src.pos;
        self.blob(rec, "data", MAX_DATA_LEN)?;
        if self.scratch.is_empty() {
            return Ok(serde_json::Value::Null);
        }
        serde_json::from_slice(&self.scratch).map_err(|e| {
            TraceError::invalid(
                Position::Byte(at),
                format!(
                    "`data` is not valid JSON ({e}) in the `{}` record that starts at byte {} (corrupt file)",
                    rec.name, rec.start
                ),
            )
        })
    }
}

fn truncated(pos: u64, rec: &Rec) -> TraceError {
    TraceError::invalid(
        Position::Byte(pos),
        format!(
            "the file ends inside the `{}` record that starts at byte {}: the file is truncated",
            rec.name, rec.start
        ),
    )
}

impl<R: BufRead> Iterator for BinaryReader<R> {
    type Item = Result<Event, TraceError>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let next = self.read_event();
        crate::event::fuse(&mut self.done, next)
    }
}

impl<R: BufRead> std::iter::FusedIterator for BinaryReader<R> {}
