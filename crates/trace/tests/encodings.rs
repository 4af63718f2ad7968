//! Round trips through both encodings and the file-level API.

mod common;

use schedlab_trace::{
    BinaryReader, BinaryWriter, Encoding, Event, Header, JsonlReader, JsonlWriter, TraceError, TraceReader, TraceWriter,
};

fn jsonl(header: &Header, events: &[Event]) -> Vec<u8> {
    let mut w = JsonlWriter::new(Vec::new(), header).unwrap();
    for e in events {
        w.write_event(e).unwrap();
    }
    w.finish().unwrap()
}

fn binary(header: &Header, events: &[Event]) -> Vec<u8> {
    let mut w = BinaryWriter::new(Vec::new(), header).unwrap();
    for e in events {
        w.write_event(e).unwrap();
    }
    assert_eq!(w.events(), events.len() as u64);
    w.finish().unwrap()
}

fn read(bytes: &[u8]) -> (Header, Vec<Event>) {
    let r = TraceReader::new(bytes).unwrap();
    let h = r.header().clone();
    let evs = r.collect::<Result<Vec<_>, _>>().unwrap();
    (h, evs)
}

#[test]
fn every_variant_round_trips_through_jsonl() {
    let h = common::header();
    let evs = common::all_variants();
    let bytes = jsonl(&h, &evs);
    let r = JsonlReader::new(&bytes[..]).unwrap();
    assert_eq!(r.header(), &h);
    let back: Vec<Event> = r.collect::<Result<_, _>>().unwrap();
    assert_eq!(back, evs);
    assert_eq!(jsonl(&h, &back), bytes, "re-encoding is byte-identical");
}

#[test]
fn every_variant_round_trips_through_binary() {
    let h = common::header();
    let evs = common::all_variants();
    let bytes = binary(&h, &evs);
    assert_eq!(&bytes[..8], b"SLTRACE\x01");
    let r = BinaryReader::new(&bytes[..]).unwrap();
    assert_eq!(r.header(), &h);
    let back: Vec<Event> = r.collect::<Result<_, _>>().unwrap();
    assert_eq!(back, evs);
    assert_eq!(binary(&h, &back), bytes, "re-encoding is byte-identical");
}

#[test]
fn encodings_convert_into_each_other_losslessly() {
    let h = common::header();
    for evs in [common::events(), common::all_variants()] {
        let j = jsonl(&h, &evs);
        let b = binary(&h, &evs);
        let (hj, ej) = read(&j);
        let (hb, eb) = read(&b);
        assert_eq!((&hj, &ej), (&hb, &eb));
        assert_eq!(binary(&hj, &ej), b);
        assert_eq!(jsonl(&hb, &eb), j);
    }
}

#[test]
fn the_sniffing_reader_tells_the_encodings_apart() {
    let h = common::header();
    let evs = common::events();
    assert_eq!(TraceReader::new(&jsonl(&h, &evs)[..]).unwrap().encoding(), Encoding::Jsonl);
    assert_eq!(TraceReader::new(&binary(&h, &evs)[..]).unwrap().encoding(), Encoding::Binary);
    let e = TraceReader::new(&b"\x1f\x8b\x08\x00"[..]).err().unwrap();
    assert!(e.to_string().contains("not a schedlab trace"), "{e}");
    assert!(TraceReader::new(&b""[..]).err().unwrap().to_string().contains("empty"));
}

#[test]
fn binary_refuses_other_versions() {
    let h = common::header();
    let mut b = binary(&h, &common::events());
    b[7] = 2;
    let e = BinaryReader::new(&b[..]).err().unwrap();
    assert!(matches!(e, TraceError::Version { what: "binary format", found: 2, supported: 1, .. }), "{e}");
    assert!(e.to_string().starts_with("byte 7: trace binary format version 2 is not supported"), "{e}");

    // A header of a future schema inside a current binary container.
    let mut hv = serde_json::to_value(&h).unwrap();
    hv["schedlab_trace"] = 9.into();
    let json = serde_json::to_vec(&hv).unwrap();
    let mut f = b"SLTRACE\x01".to_vec();
    f.extend_from_slice(&(json.len() as u32).to_le_bytes());
    f.extend_from_slice(&json);
    f.extend_from_slice(&[0, 0]);
    let e = BinaryReader::new(&f[..]).err().unwrap();
    assert!(e.to_string().starts_with("byte 12: trace schema version 9 is not supported"), "{e}");
}

#[test]
fn binary_without_end_record_reads_as_truncated_after_its_events() {
    let h = common::header();
    let evs = common::events();
    let b = binary(&h, &evs);
    let cut = &b[..b.len() - 2]; // drop the end record (tag + 1-byte count)
    let items: Vec<_> = BinaryReader::new(cut).unwrap().collect();
    assert_eq!(items.len(), evs.len() + 1);
    assert!(items[..evs.len()].iter().all(|r| r.is_ok()));
    let e = items.last().unwrap().as_ref().unwrap_err().to_string();
    assert_eq!(
        e,
        format!(
            "byte {}: the trace ends without its end record: the file is truncated (or its writer was not finished)",
            cut.len()
        )
    );
}

#[test]
fn files_pick_their_encoding_by_extension() {
    let dir = std::env::temp_dir().join(format!("schedlab-trace-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let h = common::header();
    let evs = common::events();
    for (name, enc) in [
        ("t.jsonl", Encoding::Jsonl),
        ("t.json", Encoding::Jsonl),
        ("t.sltrace", Encoding::Binary),
        ("t.BIN", Encoding::Binary),
    ] {
        let path = dir.join(name);
        schedlab_trace::write_all(&path, &h, &evs).unwrap();
        let r = schedlab_trace::open(&path).unwrap();
        assert_eq!(r.encoding(), enc, "{name}");
        let (h2, e2) = schedlab_trace::read_all(&path).unwrap();
        assert_eq!((h2, e2), (h.clone(), evs.clone()));
    }
    let e = schedlab_trace::create(dir.join("t.txt"), &h).err().unwrap();
    assert!(e.to_string().contains("use .jsonl (JSON Lines) or .sltrace (binary)"), "{e}");
    let e = schedlab_trace::open(dir.join("missing.jsonl")).err().unwrap();
    assert!(e.to_string().contains("missing.jsonl"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn trace_writer_matches_the_direct_writers() {
    let h = common::header();
    let evs = common::events();
    for (enc, direct) in [(Encoding::Jsonl, jsonl(&h, &evs)), (Encoding::Binary, binary(&h, &evs))] {
        let mut w = TraceWriter::new(Vec::new(), enc, &h).unwrap();
        for e in &evs {
            w.write_event(e).unwrap();
        }
        assert_eq!(w.finish().unwrap(), direct);
    }
}

/// Sizes of a long, regular schedule in both encodings (printed with
/// `--nocapture`; the binary form must be several times smaller).
#[test]
fn binary_is_much_smaller_than_jsonl() {
    let h = common::header();
    let mut evs = Vec::new();
    // 3 tasks on 2 CPUs for 10 s: releases, switches, completions, overheads.
    let (ms, us) = (common::MS, common::US);
    for k in 0..2000u64 {
        let t0 = k * 5 * ms;
        evs.push(Event::Release { t: t0, task: 0, job: k, deadline: t0 + 5 * ms });
        evs.push(Event::Overhead { t: t0, cpu: 0, kind: schedlab_trace::OverheadKind::Release, dur: 2 * us + k % 700 });
        evs.push(Event::SwitchTo { t: t0 + 3 * us, cpu: (k % 2) as u32, task: 0, job: k });
        evs.push(Event::SwitchAway {
            t: t0 + 2 * ms + 3 * us,
            cpu: (k % 2) as u32,
            task: 0,
            job: k,
            reason: schedlab_trace::SwitchReason::Complete,
            exec: 2 * ms,
        });
        evs.push(Event::Completion {
            t: t0 + 2 * ms + 3 * us,
            cpu: (k % 2) as u32,
            task: 0,
            job: k,
            exec: 2 * ms,
            forced: false,
        });
    }
    let hj = jsonl(&h, &[]).len();
    let hb = binary(&h, &[]).len();
    let j = jsonl(&h, &evs).len() - hj;
    let b = binary(&h, &evs).len() - hb;
    let n = evs.len() as f64;
    println!(
        "{} events: JSONL {:.1} B/event, binary {:.1} B/event (header {hj} B / {hb} B)",
        evs.len(),
        j as f64 / n,
        b as f64 / n
    );
    assert!(b * 5 < j, "binary {b} B vs JSONL {j} B");
}

/// The JSON Lines example in docs/trace-format.md is a valid trace that
/// re-encodes to the same bytes, and its figures are those the doc implies.
#[test]
fn the_documented_example_is_a_valid_trace() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/trace-format.md")).unwrap();
    let start = doc.find("```\n{\"schedlab_trace\"").expect("the example") + 4;
    let end = start + doc[start..].find("```").unwrap();
    let example = &doc[start..end];
    let (h, evs) = read(example.as_bytes());
    assert_eq!(String::from_utf8(jsonl(&h, &evs)).unwrap(), example);
    let r = schedlab_trace::metrics::compute(&h, &evs);
    assert_eq!((r.totals.preemptions, r.totals.migrations, r.totals.misses), (1, 1, 0));
}

#[test]
fn binary_writer_refuses_oversized_note_names_and_stays_usable() {
    let h = common::header();
    let mut w = BinaryWriter::new(Vec::new(), &h).unwrap();
    let big = Event::Note { t: 0, cpu: None, name: "x".repeat(70_000), data: serde_json::Value::Null };
    assert!(w.write_event(&big).unwrap_err().to_string().contains("over the binary encoding's limit"));
    w.write_event(&Event::SysRelease { t: 0 }).unwrap();
    let bytes = w.finish().unwrap();
    let (_, evs) = read(&bytes);
    assert_eq!(evs, [Event::SysRelease { t: 0 }]);
}
