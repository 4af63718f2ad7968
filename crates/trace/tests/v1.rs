//! Traces of schema version 1 read as version 2: the header says 2, RUN's
//! `server` policy events become typed `policy` events, other version 1
//! policy events become notes, every other event reads as it was written.
//! The fixture is a RUN simulation (examples/run.yaml, 10 ms) in the form
//! schedlab wrote before schema version 2, with a runtime-style note added.

use schedlab_trace::{BinaryReader, BinaryWriter, Event, JsonlReader, JsonlWriter, PolicyEvent, SCHEMA_VERSION};

const FIXTURE: &str = include_str!("fixtures/v1-run.jsonl");

fn read_fixture() -> (schedlab_trace::Header, Vec<Event>) {
    let r = JsonlReader::new(FIXTURE.as_bytes()).expect("a version 1 header is accepted");
    let h = r.header().clone();
    let evs = r.collect::<Result<Vec<_>, _>>().expect("every version 1 event reads");
    (h, evs)
}

#[test]
fn a_v1_jsonl_trace_reads_as_v2() {
    let (h, evs) = read_fixture();
    assert!(FIXTURE.starts_with("{\"schedlab_trace\":1,"));
    assert_eq!(h.schedlab_trace, SCHEMA_VERSION, "the header is upgraded");
    assert_eq!(evs.len(), FIXTURE.lines().count() - 1, "one event per line");
    let servers: Vec<(u64, Option<u32>, Option<String>)> = evs
        .iter()
        .filter_map(|e| match e {
            Event::Policy { t, cpu, event: PolicyEvent::Server { server } } => Some((*t, *cpu, server.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(servers.len(), 7, "every `server` policy event is typed");
    assert_eq!(servers[0], (0, Some(0), Some("S2".to_string())));
    assert!(servers.iter().all(|(_, cpu, _)| cpu.is_some()));
    let notes: Vec<&Event> = evs.iter().filter(|e| matches!(e, Event::Note { .. })).collect();
    assert_eq!(
        notes,
        [&Event::Note {
            t: 0,
            cpu: None,
            name: "platform-stall".into(),
            data: serde_json::json!({"gap_ns": 5_000_000})
        }]
    );
    // The other events read exactly as a version 2 reader reads them.
    for (line, ev) in FIXTURE.lines().skip(1).zip(&evs) {
        if !line.contains("\"ev\":\"policy\"") {
            assert_eq!(&serde_json::from_str::<Event>(line).unwrap(), ev, "{line}");
        }
    }
    // Written back, the trace is a version 2 trace with the same events.
    let mut w = JsonlWriter::new(Vec::new(), &h).unwrap();
    for e in &evs {
        w.write_event(e).unwrap();
    }
    let v2 = w.finish().unwrap();
    assert!(v2.starts_with(b"{\"schedlab_trace\":2,"));
    assert!(String::from_utf8_lossy(&v2).contains(r#"{"ev":"policy","t":0,"cpu":0,"kind":"server","server":"S2"}"#));
    let back: Vec<Event> = JsonlReader::new(&v2[..]).unwrap().collect::<Result<_, _>>().unwrap();
    assert_eq!(back, evs);
}

/// The fixture's events as version 1 wrote them into a binary file: every
/// policy event a name-and-data record (tag 0x0A).
fn v1_binary(h: &schedlab_trace::Header, evs: &[Event]) -> Vec<u8> {
    let mut w = BinaryWriter::new(Vec::new(), h).unwrap();
    for e in evs {
        let e = match e {
            Event::Policy { t, cpu, event } => {
                let mut data = serde_json::to_value(event).unwrap();
                data.as_object_mut().unwrap().remove("kind");
                Event::Note { t: *t, cpu: *cpu, name: event.kind().into(), data }
            }
            other => other.clone(),
        };
        w.write_event(&e).unwrap();
    }
    let mut bytes = w.finish().unwrap();
    // The header's version, same length: "schedlab_trace":2 -> 1.
    let at = bytes.windows(17).position(|w| w == b"\"schedlab_trace\":").unwrap() + 17;
    assert_eq!(bytes[at], b'2');
    bytes[at] = b'1';
    bytes
}

#[test]
fn a_v1_binary_trace_reads_as_v2() {
    let (h, evs) = read_fixture();
    let bytes = v1_binary(&h, &evs);
    let r = BinaryReader::new(&bytes[..]).unwrap();
    assert_eq!(r.header(), &h);
    let back: Vec<Event> = r.collect::<Result<_, _>>().unwrap();
    assert_eq!(back, evs, "version 1 policy records are typed or notes as in JSON Lines");
}

#[test]
fn a_v1_binary_trace_has_no_typed_policy_records() {
    let (h, _) = read_fixture();
    let mut w = BinaryWriter::new(Vec::new(), &h).unwrap();
    w.write_event(&Event::Policy {
        t: 0,
        cpu: None,
        event: PolicyEvent::TokenGrant { task: 0, job: 0, worker: false },
    })
    .unwrap();
    let mut bytes = w.finish().unwrap();
    let at = bytes.windows(17).position(|w| w == b"\"schedlab_trace\":").unwrap() + 17;
    bytes[at] = b'1';
    let e = BinaryReader::new(&bytes[..]).unwrap().next().unwrap().unwrap_err();
    assert!(e.to_string().contains("unknown record tag 0x0c"), "{e}");
}

#[test]
fn v2_policy_events_without_a_kind_are_errors() {
    let (h, _) = read_fixture();
    let mut text = serde_json::to_string(&h).unwrap();
    text.push_str("\n{\"ev\":\"policy\",\"t\":0,\"name\":\"server\",\"data\":{\"server\":\"S1\"}}\n");
    let e = JsonlReader::new(text.as_bytes()).unwrap().next().unwrap().unwrap_err();
    assert!(e.to_string().starts_with("line 2: bad `policy` event"), "{e}");
    let text = text.replace(",\"name\":\"server\",\"data\":{\"server\":\"S1\"}", ",\"kind\":\"teleport\"");
    let e = JsonlReader::new(text.as_bytes()).unwrap().next().unwrap().unwrap_err();
    assert!(e.to_string().contains("teleport"), "{e}");
}
