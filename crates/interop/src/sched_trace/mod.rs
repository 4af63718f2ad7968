//! LITMUS^RT's sched_trace: the binary per-CPU files (`st-*.bin`) that
//! LITMUS^RT's `sched_trace` device writes and feather-trace-tools' `st_*`
//! scripts collect. Every record is 24 bytes: an 8-byte header (type, CPU,
//! PID, job) and a 16-byte payload whose layout depends on the type. The
//! layout is documented, with its source, in `docs/interop.md`.
//!
//! - [`Record`], [`RecordReader`]: the record layout, read as a stream;
//! - [`import`](mod@import): merge per-CPU files into a schedlab trace;
//! - [`export`](mod@export): write a schedlab trace as per-CPU files.

pub mod export;
pub mod import;

use crate::error::{At, InteropError};
use std::io::Read;

/// Size of every record.
pub const RECORD_BYTES: usize = 24;
/// Size of a task name in a `name` record.
pub const NAME_BYTES: usize = 16;

/// The record types, numbered as LITMUS^RT numbers them (from 1, so that a
/// zeroed record is recognisably invalid).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    Name = 1,
    Param = 2,
    Release = 3,
    Assigned = 4,
    SwitchTo = 5,
    SwitchAway = 6,
    Completion = 7,
    Block = 8,
    Resume = 9,
    Action = 10,
    SysRelease = 11,
    NpEnter = 12,
    NpExit = 13,
}

impl Kind {
    pub fn from_u8(b: u8) -> Option<Kind> {
        use Kind::*;
        Some(match b {
            1 => Name,
            2 => Param,
            3 => Release,
            4 => Assigned,
            5 => SwitchTo,
            6 => SwitchAway,
            7 => Completion,
            8 => Block,
            9 => Resume,
            10 => Action,
            11 => SysRelease,
            12 => NpEnter,
            13 => NpExit,
            _ => return None,
        })
    }
    pub fn name(self) -> &'static str {
        use Kind::*;
        match self {
            Name => "name",
            Param => "param",
            Release => "release",
            Assigned => "assigned",
            SwitchTo => "switch-to",
            SwitchAway => "switch-away",
            Completion => "completion",
            Block => "block",
            Resume => "resume",
            Action => "action",
            SysRelease => "sys-release",
            NpEnter => "np-enter",
            NpExit => "np-exit",
        }
    }
}

/// One sched_trace record. Multi-byte fields are little-endian (LITMUS^RT
/// writes native byte order; it ran on x86 and ARM, both little-endian).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record {
    pub kind: Kind,
    pub cpu: u8,
    pub pid: u16,
    pub job: u32,
    pub data: [u8; 16],
}

fn u64_at(d: &[u8; 16], o: usize) -> u64 {
    u64::from_le_bytes(d[o..o + 8].try_into().expect("8 bytes"))
}
fn u32_at(d: &[u8; 16], o: usize) -> u32 {
    u32::from_le_bytes(d[o..o + 4].try_into().expect("4 bytes"))
}

/// The task parameters of a `param` record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Param {
    /// Worst-case execution time, ns.
    pub wcet: u32,
    /// Period, ns.
    pub period: u32,
    /// Phase (offset of the first release), ns.
    pub phase: u32,
    /// The partition (CPU) of the task under partitioned plugins.
    pub partition: u8,
    /// The task class (0 hard, 1 soft, 2 best effort).
    pub class: u8,
}

impl Record {
    /// Decode 24 bytes; `None` for an unknown type.
    pub fn decode(b: &[u8; RECORD_BYTES]) -> Option<Record> {
        let kind = Kind::from_u8(b[0])?;
        Some(Record {
            kind,
            cpu: b[1],
            pid: u16::from_le_bytes([b[2], b[3]]),
            job: u32::from_le_bytes([b[4], b[5], b[6], b[7]]),
            data: b[8..24].try_into().expect("16 bytes"),
        })
    }
    /// Encode as 24 bytes.
    pub fn encode(&self) -> [u8; RECORD_BYTES] {
        let mut b = [0u8; RECORD_BYTES];
        b[0] = self.kind as u8;
        b[1] = self.cpu;
        b[2..4].copy_from_slice(&self.pid.to_le_bytes());
        b[4..8].copy_from_slice(&self.job.to_le_bytes());
        b[8..24].copy_from_slice(&self.data);
        b
    }
    /// A record with a payload of `when` (first 8 bytes) and `second` (last 8 bytes).
    pub fn timed(kind: Kind, cpu: u8, pid: u16, job: u32, when: u64, second: u64) -> Record {
        let mut data = [0u8; 16];
        data[0..8].copy_from_slice(&when.to_le_bytes());
        data[8..16].copy_from_slice(&second.to_le_bytes());
        Record { kind, cpu, pid, job, data }
    }
    /// The time of the record: `when` for most types, the release time of a
    /// `release`; `None` for `name` and `param`, which carry no time.
    pub fn when(&self) -> Option<u64> {
        match self.kind {
            Kind::Name | Kind::Param => None,
            _ => Some(u64_at(&self.data, 0)),
        }
    }
    /// The second 8-byte field: a release's deadline, a switch-away's
    /// execution time, a sys-release's release time.
    pub fn second(&self) -> u64 {
        u64_at(&self.data, 8)
    }
    /// A switch-to's execution time so far (32 bits).
    pub fn switch_to_exec(&self) -> u32 {
        u32_at(&self.data, 8)
    }
    /// A completion's `forced` bit and execution time (63 bits).
    pub fn completion(&self) -> (bool, u64) {
        let w = u64_at(&self.data, 8);
        (w & 1 == 1, w >> 1)
    }
    /// The `completion` payload word for `forced` and `exec`.
    pub fn completion_word(forced: bool, exec: u64) -> u64 {
        (exec << 1) | u64::from(forced)
    }
    /// A `name` record's task name (up to the first NUL, lossy UTF-8).
    pub fn name(&self) -> String {
        let end = self.data.iter().position(|&b| b == 0).unwrap_or(NAME_BYTES);
        String::from_utf8_lossy(&self.data[..end]).into_owned()
    }
    /// A `param` record's parameters.
    pub fn param(&self) -> Param {
        Param {
            wcet: u32_at(&self.data, 0),
            period: u32_at(&self.data, 4),
            phase: u32_at(&self.data, 8),
            partition: self.data[12],
            class: self.data[13],
        }
    }
    /// A `param` record.
    pub fn new_param(cpu: u8, pid: u16, p: Param) -> Record {
        let mut data = [0u8; 16];
        data[0..4].copy_from_slice(&p.wcet.to_le_bytes());
        data[4..8].copy_from_slice(&p.period.to_le_bytes());
        data[8..12].copy_from_slice(&p.phase.to_le_bytes());
        data[12] = p.partition;
        data[13] = p.class;
        Record { kind: Kind::Param, cpu, pid, job: 0, data }
    }
    /// A `name` record (the name truncated to 16 bytes, NUL-padded).
    pub fn new_name(cpu: u8, pid: u16, name: &str) -> Record {
        let mut data = [0u8; 16];
        let b = name.as_bytes();
        let n = b.len().min(NAME_BYTES);
        data[..n].copy_from_slice(&b[..n]);
        Record { kind: Kind::Name, cpu, pid, job: 0, data }
    }
}

/// Reads records from a stream, one at a time, keeping the byte offset.
pub struct RecordReader<R: Read> {
    r: R,
    file: String,
    offset: u64,
    done: bool,
}

impl<R: Read> RecordReader<R> {
    pub fn new(r: R, file: &str) -> RecordReader<R> {
        RecordReader { r, file: file.to_string(), offset: 0, done: false }
    }
    /// Byte offset of the next record.
    pub fn offset(&self) -> u64 {
        self.offset
    }
    /// The next record and its byte offset, `None` at the end of the file.
    pub fn next_record(&mut self) -> Result<Option<(u64, Record)>, InteropError> {
        if self.done {
            return Ok(None);
        }
        let mut b = [0u8; RECORD_BYTES];
        let mut got = 0;
        while got < RECORD_BYTES {
            match self.r.read(&mut b[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(InteropError::io(&self.file, e)),
            }
        }
        let at = self.offset;
        if got == 0 {
            self.done = true;
            return Ok(None);
        }
        if got < RECORD_BYTES {
            self.done = true;
            return Err(InteropError::at(
                &self.file,
                At::Byte(at),
                format!(
                    "the file ends inside a record ({got} of its {RECORD_BYTES} bytes): the file is truncated; \
                     every sched_trace record is {RECORD_BYTES} bytes"
                ),
            ));
        }
        self.offset += RECORD_BYTES as u64;
        match Record::decode(&b) {
            Some(r) => Ok(Some((at, r))),
            None => {
                self.done = true;
                Err(InteropError::at(
                    &self.file,
                    At::Byte(at),
                    format!(
                        "unknown sched_trace record type {} (known: 1 name to 13 np-exit): not a sched_trace file, \
                         or a corrupt one",
                        b[0]
                    ),
                ))
            }
        }
    }
}
