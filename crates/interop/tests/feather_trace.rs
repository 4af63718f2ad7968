//! feather-trace: records written by an independent writer (from the
//! published `struct timestamp` layout: a 64-bit word with the 48-bit
//! timestamp in its low bits and the 16-bit PID above, u32 seq_no, u8 cpu,
//! u8 event, a byte with task_type:2, irq_flag:1, irq_count:5, one byte of
//! padding) are paired as ft2csv pairs them and become an overhead CSV that
//! the overhead model reads.

mod common;

use schedlab_interop::feather_trace::{csv, read, CsvOptions};

struct W {
    bytes: Vec<u8>,
    seq: u32,
}

impl W {
    fn rec(&mut self, ts: u64, cpu: u8, event: u8, rt: bool, irq: bool) {
        let word = ts | (4242u64 << 48);
        self.bytes.extend_from_slice(&word.to_le_bytes());
        self.bytes.extend_from_slice(&self.seq.to_le_bytes());
        self.bytes.push(cpu);
        self.bytes.push(event);
        self.bytes.push(u8::from(rt) | (u8::from(irq) << 2) | (if irq { 1 << 3 } else { 0 }));
        self.bytes.push(0);
        self.seq += 1;
    }
}

/// 2 cycles per ns (2000 per µs). SCHED samples (cycles): 2000, 4000 (with an
/// interleaved CXS pair on the other CPU), 60000 (interrupted: discarded),
/// one incomplete (a second start first), one non-RT; 900 after a hole in
/// the sequence numbers is incomplete. CXS: 1000 and 3000. RELEASE_LATENCY:
/// 5000 ns.
fn sample_file(dir: &std::path::Path) -> std::path::PathBuf {
    let mut w = W { bytes: Vec::new(), seq: 10 };
    w.rec(1000, 0, 100, true, false);
    w.rec(3000, 0, 101, true, false); // SCHED 2000
    w.rec(5000, 0, 100, true, false);
    w.rec(5100, 1, 104, true, false); // CXS start on CPU 1 (interleaved)
    w.rec(6100, 1, 105, true, false); // CXS 1000
    w.rec(9000, 0, 101, true, false); // SCHED 4000
    w.rec(10000, 0, 100, true, false);
    w.rec(20000, 0, 7, false, true); // an unrelated record with the IRQ flag on CPU 0
    w.rec(70000, 0, 101, true, false); // interrupted
    w.rec(80000, 0, 100, true, false); // start ...
    w.rec(81000, 0, 100, false, false); // ... restarted: the first one is incomplete
    w.rec(82000, 0, 101, false, false); // closes the second, both records best-effort: non-RT
    w.rec(90000, 1, 104, true, false);
    w.rec(93000, 1, 105, true, false); // CXS 3000
    w.rec(5000, 1, 208, true, false); // RELEASE_LATENCY 5000 ns
    w.rec(95000, 0, 100, true, false);
    w.seq += 3; // a hole
    w.rec(95900, 0, 101, true, false); // would be 900: incomplete
    let p = dir.join("ft.bin");
    std::fs::write(&p, &w.bytes).unwrap();
    p
}

#[test]
fn independent_records_pair_like_ft2csv() {
    let dir = common::tmpdir("ft");
    let f = sample_file(&dir);
    let s = read(std::slice::from_ref(&f), None).unwrap();
    assert_eq!(s.records, 17);
    assert_eq!(s.ignored, 2, "the unrelated record and the end after the hole");
    let sched = &s.counts["SCHED"];
    assert_eq!((sched.complete, sched.interrupted, sched.non_rt, sched.incomplete), (2, 1, 1, 2), "{sched:?}");
    assert_eq!(s.hist["SCHED"].max(), 4000);
    assert_eq!(s.hist["SCHED"].min(), 2000);
    assert_eq!(s.counts["CXS"].complete, 2);
    assert_eq!(s.hist["CXS"].max(), 3000);
    assert_eq!(s.hist["RELEASE_LATENCY"].max(), 5000);
    let text = csv(&s, &CsvOptions { tasks: 8, cycles_per_us: 2000.0, percentile: None, iqr: None }, "ft.bin").unwrap();
    assert!(text.contains("TASK-COUNT, SCHEDULE, CXS, RELEASE-LATENCY\n8, 2.000, 1.500, 5.000\n"), "{text}");
    // The overhead model reads it.
    let oh = schedlab_model::overheads::Overheads::parse(&text, "ft.csv", 0).expect("the model reads the CSV");
    let c = oh.costs(8);
    assert_eq!((c.schedule, c.context_switch, c.release_latency), (2000, 1500, 5000));
}

#[test]
fn iqr_filter_removes_outliers() {
    let dir = common::tmpdir("ft-iqr");
    let mut w = W { bytes: Vec::new(), seq: 0 };
    let mut t = 0;
    for i in 0..100u64 {
        let d = if i == 50 { 1_000_000 } else { 1000 + (i % 10) * 10 };
        w.rec(t, 0, 104, true, false);
        w.rec(t + d, 0, 105, true, false);
        t += d + 100;
    }
    let p = dir.join("ft.bin");
    std::fs::write(&p, &w.bytes).unwrap();
    let raw = read(std::slice::from_ref(&p), None).unwrap();
    assert_eq!(raw.hist["CXS"].max(), 1_000_000);
    let f = read(&[p], Some(1.5)).unwrap();
    assert_eq!(f.counts["CXS"].outliers, 1);
    assert_eq!(f.hist["CXS"].max(), 1090);
    assert_eq!(f.hist["CXS"].count(), 99);
}

#[test]
fn truncated_file_names_the_byte() {
    let dir = common::tmpdir("ft-trunc");
    let f = sample_file(&dir);
    let mut b = std::fs::read(&f).unwrap();
    b.truncate(16 * 5 + 7);
    std::fs::write(&f, &b).unwrap();
    let e = read(&[f], None).unwrap_err().to_string();
    assert!(e.contains("ft.bin: byte 80: the file ends inside a record (7 of its 16 bytes)"), "{e}");
}
