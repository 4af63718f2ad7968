//! feather-trace overhead samples: the binary timestamp records that
//! LITMUS^RT's `ft_tracer` devices produce and `ftcat` saves, paired into
//! overhead samples (start and end of the same event on the same CPU) and
//! summarised as the overhead CSV that `schedlab analyze --overheads` and the
//! simulator read (`docs/overheads.md`).
//!
//! Every record is 16 bytes (layout in `docs/interop.md`). Pairing follows
//! feather-trace-tools' `ft2csv` (by event ID): from a start record, the
//! following records must have consecutive sequence numbers; the first
//! record of the same CPU with the matching end ID closes the sample; a
//! second start of the same ID first, or a gap in the sequence numbers,
//! makes it incomplete; a record with the IRQ flag on that CPU in between,
//! or on the end record, marks it interrupted; samples whose start and end
//! both come from non-real-time tasks are left out. Interrupted, incomplete
//! and non-real-time samples are counted, never used. An optional IQR filter
//! (Tukey's fences) removes the remaining outliers.
//!
//! The reader streams: memory holds one open start per CPU and event and one
//! histogram per overhead, whatever the file size.

use crate::error::{At, InteropError};
use schedlab_trace::histogram::Histogram;
use std::collections::BTreeMap;
use std::io::Read;

/// Size of one record.
pub const RECORD_BYTES: usize = 16;
/// `task_type` of a real-time task.
pub const TSK_RT: u8 = 1;

/// One timestamp record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timestamp {
    /// 48 bits: cycles (ns for the latency events).
    pub timestamp: u64,
    /// 16 bits.
    pub pid: u16,
    pub seq_no: u32,
    pub cpu: u8,
    pub event: u8,
    /// 0 best effort, 1 real-time, 2 unknown.
    pub task_type: u8,
    pub irq_flag: bool,
    pub irq_count: u8,
}

impl Timestamp {
    pub fn decode(b: &[u8; RECORD_BYTES]) -> Timestamp {
        let w = u64::from_le_bytes(b[0..8].try_into().expect("8 bytes"));
        Timestamp {
            timestamp: w & ((1 << 48) - 1),
            pid: (w >> 48) as u16,
            seq_no: u32::from_le_bytes(b[8..12].try_into().expect("4 bytes")),
            cpu: b[12],
            event: b[13],
            task_type: b[14] & 0b11,
            irq_flag: b[14] & 0b100 != 0,
            irq_count: b[14] >> 3,
        }
    }
    pub fn encode(&self) -> [u8; RECORD_BYTES] {
        let mut b = [0u8; RECORD_BYTES];
        let w = (self.timestamp & ((1 << 48) - 1)) | (u64::from(self.pid) << 48);
        b[0..8].copy_from_slice(&w.to_le_bytes());
        b[8..12].copy_from_slice(&self.seq_no.to_le_bytes());
        b[12] = self.cpu;
        b[13] = self.event;
        b[14] = (self.task_type & 0b11) | (u8::from(self.irq_flag) << 2) | ((self.irq_count & 0x1f) << 3);
        b
    }
}

/// The overheads converted, with their feather-trace event IDs (start; the
/// end is start + 1) and their CSV column.
pub const PAIRS: &[(&str, u8, &str)] = &[
    ("SCHED", 100, "SCHEDULE"),
    ("SCHED2", 102, "SCHEDULE"),
    ("CXS", 104, "CXS"),
    ("RELEASE", 106, "RELEASE"),
    ("TICK", 110, "TICK"),
    ("SEND_RESCHED", 190, "IPI-LATENCY"),
];
/// The single-record latency event (its timestamp field is the latency in ns).
pub const RELEASE_LATENCY: u8 = 208;

/// Counts per event, as `ft2csv` reports them.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Counts {
    pub complete: u64,
    pub incomplete: u64,
    pub interrupted: u64,
    pub non_rt: u64,
    /// Removed by the IQR filter.
    pub outliers: u64,
}

/// The samples of one file set, per event name.
#[derive(Debug, Clone, Default)]
pub struct Samples {
    pub records: u64,
    /// Records of events this reader does not convert (locking, syscalls, ...).
    pub ignored: u64,
    pub counts: BTreeMap<&'static str, Counts>,
    pub hist: BTreeMap<&'static str, Histogram>,
}

struct Open {
    event: u8,
    ts: u64,
    task_type: u8,
    interrupted: bool,
}

fn pair_name(start: u8) -> Option<&'static str> {
    PAIRS.iter().find(|p| p.1 == start).map(|p| p.0)
}

/// Pair the records of one file; `sample(name, value)` receives each usable
/// sample (cycles, or ns for RELEASE_LATENCY).
pub fn pair<R: Read>(
    mut r: R,
    file: &str,
    counts: &mut BTreeMap<&'static str, Counts>,
    records: &mut u64,
    ignored: &mut u64,
    sample: &mut dyn FnMut(&'static str, u64),
) -> Result<(), InteropError> {
    let mut open: Vec<Vec<Open>> = (0..256).map(|_| Vec::new()).collect();
    let mut last_seq: Option<u32> = None;
    // Open starts over all CPUs (to skip the scan of `open` when none is).
    let mut open_count = 0usize;
    let mut offset = 0u64;
    let mut buf = vec![0u8; RECORD_BYTES * 4096];
    let mut fill = 0usize;
    loop {
        let n = loop {
            match r.read(&mut buf[fill..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(InteropError::io(file, e)),
            }
        };
        fill += n;
        let whole = fill / RECORD_BYTES * RECORD_BYTES;
        if n == 0 && !fill.is_multiple_of(RECORD_BYTES) {
            return Err(InteropError::at(
                file,
                At::Byte(offset + whole as u64),
                format!(
                    "the file ends inside a record ({} of its {RECORD_BYTES} bytes): the file is truncated; \
                     every feather-trace record is {RECORD_BYTES} bytes",
                    fill % RECORD_BYTES
                ),
            ));
        }
        for chunk in buf[..whole].chunks_exact(RECORD_BYTES) {
            let ts = Timestamp::decode(chunk.try_into().expect("16 bytes"));
            *records += 1;
            if open_count > 0 && last_seq.is_some_and(|s| ts.seq_no != s.wrapping_add(1)) {
                // A hole: every open start loses its end.
                open_count = 0;
                for o in open.iter_mut() {
                    for s in o.drain(..) {
                        if let Some(name) = pair_name(s.event) {
                            counts.entry(name).or_default().incomplete += 1;
                        }
                    }
                }
            }
            last_seq = Some(ts.seq_no);
            let cpu = ts.cpu as usize;
            let ev = ts.event;
            if ev == RELEASE_LATENCY {
                let c = counts.entry("RELEASE_LATENCY").or_default();
                if ts.task_type == TSK_RT {
                    c.complete += 1;
                    sample("RELEASE_LATENCY", ts.timestamp);
                } else {
                    c.non_rt += 1;
                }
            } else if let Some(name) = pair_name(ev) {
                if let Some(i) = open[cpu].iter().position(|o| o.event == ev) {
                    open[cpu].swap_remove(i);
                    open_count -= 1;
                    counts.entry(name).or_default().incomplete += 1;
                }
                open_count += 1;
                for o in open[cpu].iter_mut() {
                    o.interrupted |= ts.irq_flag;
                }
                open[cpu].push(Open { event: ev, ts: ts.timestamp, task_type: ts.task_type, interrupted: false });
            } else if let Some(name) = ev.checked_sub(1).and_then(pair_name) {
                match open[cpu].iter().position(|o| o.event == ev - 1) {
                    Some(i) => {
                        let s = open[cpu].swap_remove(i);
                        open_count -= 1;
                        for o in open[cpu].iter_mut() {
                            o.interrupted |= ts.irq_flag;
                        }
                        let c = counts.entry(name).or_default();
                        if s.interrupted || ts.irq_flag {
                            c.interrupted += 1;
                        } else if ts.timestamp <= s.ts {
                            c.incomplete += 1;
                        } else if s.task_type != TSK_RT && ts.task_type != TSK_RT {
                            c.non_rt += 1;
                        } else {
                            c.complete += 1;
                            sample(name, ts.timestamp - s.ts);
                        }
                    }
                    // An end without its start (ft2csv skips it too).
                    None => *ignored += 1,
                }
            } else {
                *ignored += 1;
                for o in open[cpu].iter_mut() {
                    o.interrupted |= ts.irq_flag;
                }
            }
        }
        offset += whole as u64;
        buf.copy_within(whole..fill, 0);
        fill -= whole;
        if n == 0 {
            return Ok(());
        }
    }
}

/// How to turn samples into the CSV row.
#[derive(Debug, Clone)]
pub struct CsvOptions {
    /// The `TASK-COUNT` of the row (the task count of the measured system).
    pub tasks: u64,
    /// The clock rate of the timestamps, for the cycle-based events.
    pub cycles_per_us: f64,
    /// The statistic: `None` for the maximum, `Some(p)` for the p-th percentile.
    pub percentile: Option<f64>,
    /// Tukey's fences: drop samples above Q3 + k·(Q3 − Q1).
    pub iqr: Option<f64>,
}

/// Read the files (twice with an IQR filter: quartiles first) into samples.
pub fn read(files: &[std::path::PathBuf], iqr: Option<f64>) -> Result<Samples, InteropError> {
    let open = |p: &std::path::PathBuf| {
        let name = p.display().to_string();
        std::fs::File::open(p)
            .map(|f| (std::io::BufReader::with_capacity(1 << 16, f), name.clone()))
            .map_err(|e| InteropError::io(&name, e))
    };
    let mut s = Samples::default();
    for p in files {
        let (r, name) = open(p)?;
        let hist = &mut s.hist;
        pair(r, &name, &mut s.counts, &mut s.records, &mut s.ignored, &mut |k, v| hist.entry(k).or_default().add(v))?;
    }
    let Some(k) = iqr else { return Ok(s) };
    let fences: BTreeMap<&str, u64> = s
        .hist
        .iter()
        .map(|(n, h)| {
            let (q1, q3) = (h.quantile(0.25) as f64, h.quantile(0.75) as f64);
            (*n, (q3 + k * (q3 - q1)).ceil() as u64)
        })
        .collect();
    let mut kept: BTreeMap<&'static str, Histogram> = BTreeMap::new();
    let mut outliers: BTreeMap<&'static str, u64> = BTreeMap::new();
    let (mut records, mut ignored, mut counts) = (0, 0, BTreeMap::new());
    for p in files {
        let (r, name) = open(p)?;
        pair(r, &name, &mut counts, &mut records, &mut ignored, &mut |n, v| {
            if fences.get(n).is_some_and(|&f| v > f) {
                *outliers.entry(n).or_default() += 1;
            } else {
                kept.entry(n).or_default().add(v)
            }
        })?;
    }
    for (n, o) in outliers {
        if let Some(c) = s.counts.get_mut(n) {
            c.outliers = o;
        }
    }
    s.hist = kept;
    Ok(s)
}

/// The overhead CSV (`TASK-COUNT` table, µs) of the samples: one row; a
/// column for every overhead with samples. `SCHEDULE` is SCHED plus SCHED2.
pub fn csv(s: &Samples, o: &CsvOptions, source: &str) -> Result<String, InteropError> {
    if !(o.cycles_per_us.is_finite() && o.cycles_per_us > 0.0) {
        return Err(InteropError::usage("--cycles-per-us must be a positive number (the timestamp clock rate)"));
    }
    let stat = |h: &Histogram| match o.percentile {
        None => h.max(),
        Some(p) => h.quantile(p / 100.0),
    };
    let mut cols: Vec<(&str, u64)> = Vec::new(); // column, ns
    let to_ns = |cycles: u64| ((cycles as f64) * 1000.0 / o.cycles_per_us).ceil() as u64;
    for col in ["RELEASE", "SCHEDULE", "CXS", "IPI-LATENCY", "TICK"] {
        let mut total = None;
        for (name, _, c) in PAIRS {
            if *c == col {
                if let Some(h) = s.hist.get(name).filter(|h| h.count() > 0) {
                    total = Some(total.unwrap_or(0) + to_ns(stat(h)));
                }
            }
        }
        if let Some(v) = total {
            cols.push((col, v));
        }
    }
    if let Some(h) = s.hist.get("RELEASE_LATENCY").filter(|h| h.count() > 0) {
        cols.push(("RELEASE-LATENCY", stat(h)));
    }
    if cols.is_empty() {
        return Err(InteropError::file(
            source,
            "no complete overhead sample (SCHED, SCHED2, CXS, RELEASE, TICK, SEND_RESCHED or RELEASE_LATENCY) in the \
             feather-trace files",
        ));
    }
    let statistic = match o.percentile {
        None => "maximum".to_string(),
        Some(p) => format!("{p}th percentile"),
    };
    let mut out = format!(
        "# Overheads from feather-trace ({source}): {statistic} of each overhead, µs ({} cycles per µs){}\n",
        o.cycles_per_us,
        o.iqr.map(|k| format!(", outliers above Q3 + {k}·IQR removed")).unwrap_or_default()
    );
    out.push_str("TASK-COUNT");
    for (c, _) in &cols {
        out.push_str(", ");
        out.push_str(c);
    }
    out.push('\n');
    out.push_str(&o.tasks.to_string());
    for (_, ns) in &cols {
        out.push_str(&format!(", {}.{:03}", ns / 1000, ns % 1000));
    }
    out.push('\n');
    Ok(out)
}
