//! Fuzz-style robustness of the binary reader: random bytes, every
//! truncation of a valid file and flipped bytes give errors with a byte
//! offset, never a panic (the project's seeded generator instead of a
//! fuzzing dependency).

mod common;

use schedlab_trace::{BinaryReader, BinaryWriter, Position, TraceError, TraceReader};

use schedlab_model::rng::Rng;

/// A number below `n`.
fn below(rng: &mut Rng, n: usize) -> usize {
    rng.below(n as u64) as usize
}

fn valid_file() -> Vec<u8> {
    let mut w = BinaryWriter::new(Vec::new(), &common::header()).unwrap();
    for e in common::all_variants().iter().chain(common::events().iter()) {
        w.write_event(e).unwrap();
    }
    w.finish().unwrap()
}

/// Read everything; return the number of events and the error, if any.
fn drain(bytes: &[u8]) -> (usize, Option<TraceError>) {
    match BinaryReader::new(bytes) {
        Err(e) => (0, Some(e)),
        Ok(r) => {
            let mut n = 0;
            for item in r {
                match item {
                    Ok(_) => n += 1,
                    Err(e) => return (n, Some(e)),
                }
            }
            (n, None)
        }
    }
}

fn assert_positioned(e: &TraceError, len: usize) {
    match e.position() {
        Some(Position::Byte(off)) => assert!(off as usize <= len, "offset {off} past the end ({len}): {e}"),
        other => panic!("error without a byte offset ({other:?}): {e}"),
    }
}

#[test]
fn random_bytes_are_refused() {
    let mut rng = Rng::new(1);
    for round in 0..2000 {
        let len = below(&mut rng, 200);
        let mut bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        if round % 2 == 0 && len >= 12 {
            // Valid magic and a plausible header length, random rest.
            bytes[..8].copy_from_slice(b"SLTRACE\x01");
            bytes[8..12].copy_from_slice(&((len as u32).saturating_sub(12) / 2).to_le_bytes());
        }
        let (_, err) = drain(&bytes);
        let e = err.expect("random bytes are not a trace");
        assert_positioned(&e, len);
        // The sniffing reader never panics either.
        let _ = TraceReader::new(&bytes[..]).map(|r| r.count());
    }
}

#[test]
fn every_truncation_is_an_error_at_or_before_the_cut() {
    let file = valid_file();
    let (n, err) = drain(&file);
    assert!(err.is_none());
    for cut in 0..file.len() {
        let (got, err) = drain(&file[..cut]);
        let e = err.unwrap_or_else(|| panic!("truncation at {cut} read as complete"));
        assert!(got <= n);
        assert_positioned(&e, cut);
        let msg = e.to_string();
        assert!(
            msg.contains("truncated") || msg.contains("not a binary schedlab trace") || msg.contains("JSON"),
            "cut {cut}: {msg}"
        );
    }
}

#[test]
fn flipped_bytes_never_panic() {
    let file = valid_file();
    let mut rng = Rng::new(7);
    let mut errors = 0;
    for _ in 0..5000 {
        let mut bytes = file.clone();
        for _ in 0..1 + below(&mut rng, 3) {
            let i = below(&mut rng, bytes.len());
            bytes[i] ^= 1 << below(&mut rng, 8);
        }
        if let (_, Some(e)) = drain(&bytes) {
            errors += 1;
            assert_positioned(&e, bytes.len());
        }
    }
    // Most flips are caught (tags, varints, JSON, UTF-8, the end count).
    assert!(errors > 2500, "only {errors} of 5000 corruptions detected");
}

#[test]
fn errors_say_what_and_where() {
    let file = valid_file();
    let hlen = u32::from_le_bytes(file[8..12].try_into().unwrap()) as usize;
    let first = 12 + hlen;
    let mut bad = file.clone();
    bad[first] = 0x7f;
    let (_, e) = drain(&bad);
    assert_eq!(
        e.unwrap().to_string(),
        format!("byte {first}: unknown record tag 0x7f (corrupt file, or written by a newer schedlab)")
    );

    let mut bad = file.clone();
    let last = bad.len() - 1;
    bad[last] ^= 1; // the end record's count
    let (_, e) = drain(&bad);
    assert!(e.unwrap().to_string().contains("the end record counts"));

    let mut bad = file.clone();
    bad.push(0);
    let (_, e) = drain(&bad);
    assert_eq!(
        e.unwrap().to_string(),
        format!("byte {}: bytes after the end record (corrupt file, or two traces concatenated)", file.len())
    );

    let (_, e) = drain(&file[..5]);
    assert_eq!(e.unwrap().to_string(), "byte 5: the file ends inside the 8-byte magic: the file is truncated");
    let (_, e) = drain(b"PK\x03\x04");
    assert_eq!(e.unwrap().to_string(), "byte 0: not a binary schedlab trace: it does not start with `SLTRACE`");
}
