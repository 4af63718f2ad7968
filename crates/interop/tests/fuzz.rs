//! Every reader against damaged input: truncated, corrupted (flipped,
//! inserted and deleted bytes) and huge files. Each mutant either imports or
//! fails with an error that names the file (and, for bad content, the byte
//! offset or line); none panics. A 1 GiB sparse file (no data written to
//! disk) and a generated stream show that memory stays bounded.
//!
//! `SCHEDLAB_FUZZ_CASES` sets the mutants per reader (default 200).

mod common;

use schedlab_interop::{feather_trace, ftrace, rtapp, sched_trace, simso, InteropError};
use std::path::{Path, PathBuf};

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

fn cases() -> usize {
    std::env::var("SCHEDLAB_FUZZ_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(200)
}

fn mutate(seed: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut b = seed.to_vec();
    match rng.below(4) {
        0 => b.truncate(rng.below(b.len())),
        1 => {
            for _ in 0..1 + rng.below(8) {
                let i = rng.below(b.len());
                if !b.is_empty() {
                    b[i] ^= 1 << rng.below(8);
                }
            }
        }
        2 => {
            let i = rng.below(b.len());
            let junk: Vec<u8> = (0..1 + rng.below(40)).map(|_| rng.next() as u8).collect();
            b.splice(i..i, junk);
        }
        _ => {
            let i = rng.below(b.len());
            let n = rng.below(b.len() - i + 1).min(64);
            b.drain(i..i + n);
        }
    }
    b
}

/// An error must name the file; a content error also its position.
fn check_error(e: &InteropError, file: &str) {
    let s = e.to_string();
    assert!(s.starts_with(file) || e.file.is_empty(), "the error does not name the file: {s}");
    assert!(!e.msg.is_empty());
}

fn campaign(name: &str, seed: &[u8], ext: &str, import: &dyn Fn(&Path) -> Result<(), InteropError>) -> (usize, usize) {
    let dir = common::tmpdir(&format!("fuzz-{name}"));
    let path = dir.join(format!("input.{ext}"));
    let file = path.display().to_string();
    std::fs::write(&path, seed).unwrap();
    import(&path).unwrap_or_else(|e| panic!("the seed of {name} must import: {e}"));
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ name.len() as u64);
    let (mut ok, mut err) = (0, 0);
    for _ in 0..cases() {
        let m = mutate(seed, &mut rng);
        std::fs::write(&path, &m).unwrap();
        match import(&path) {
            Ok(()) => ok += 1,
            Err(e) => {
                check_error(&e, &file);
                err += 1;
            }
        }
    }
    eprintln!("{name}: {} mutants, {ok} imported, {err} refused with an error", ok + err);
    assert!(err > 0, "{name}: no mutant was refused: the campaign tests nothing");
    (ok, err)
}

fn gedf_trace() -> (schedlab_trace::Header, Vec<schedlab_trace::Event>) {
    common::simulate(
        "platform: {cpus: 2}\npolicy: {name: gedf}\ntasks:\n  - {name: a, wcet: 2ms, period: 5ms}\n  - {name: b, wcet: 3ms, period: 7ms}\n  - {name: c, wcet: 4ms, period: 11ms}\n",
        60,
    )
}

#[test]
fn sched_trace_fuzz() {
    let (h, events) = gedf_trace();
    // One file holding both CPUs' records is a valid input too.
    let mut outs = vec![Vec::new(), Vec::new()];
    {
        let mut x = sched_trace::export::Exporter::new(&h, std::mem::take(&mut outs)).unwrap();
        for e in &events {
            x.push(e.clone()).unwrap();
        }
        outs = x.finish().unwrap().0;
    }
    let mut seed = outs[0].clone();
    seed.extend_from_slice(&outs[1]);
    let opts = sched_trace::import::Options {
        policy: Some(sched_trace::import::plugin_policy("GSN-EDF").unwrap()),
        ..Default::default()
    };
    campaign("sched-trace", &seed, "bin", &|p| {
        let scan = sched_trace::import::scan(&[p.to_path_buf()], &opts)?;
        scan.events(&mut |_| Ok(())).map(|_| ())
    });
    // Truncation inside a record names its byte.
    let dir = common::tmpdir("fuzz-st-trunc");
    let p = dir.join("st.bin");
    std::fs::write(&p, &seed[..24 * 7 + 5]).unwrap();
    let e = sched_trace::import::scan(std::slice::from_ref(&p), &opts).err().unwrap().to_string();
    assert!(e.contains("st.bin: byte 168: the file ends inside a record"), "{e}");
}

fn ft_seed() -> Vec<u8> {
    let mut v = Vec::new();
    let mut seq = 0u32;
    let mut t = 1000u64;
    for i in 0..200u64 {
        for (ev, d) in [(100u8, 0u64), (101, 500 + i % 7 * 10), (104, 0), (105, 300)] {
            t += d + 1;
            let ts = feather_trace::Timestamp {
                timestamp: t,
                pid: 7,
                seq_no: seq,
                cpu: (i % 2) as u8,
                event: ev,
                task_type: 1,
                irq_flag: false,
                irq_count: 0,
            };
            v.extend_from_slice(&ts.encode());
            seq += 1;
        }
    }
    v
}

#[test]
fn feather_trace_fuzz() {
    campaign("feather-trace", &ft_seed(), "bin", &|p| {
        let s = feather_trace::read(&[p.to_path_buf()], Some(1.5))?;
        feather_trace::csv(
            &s,
            &feather_trace::CsvOptions { tasks: 4, cycles_per_us: 1000.0, percentile: Some(99.0), iqr: Some(1.5) },
            "x",
        )
        .map(|_| ())
    });
}

const SPEC: &str = "platform: {cpus: 2}\npolicy: {name: gfp, priorities: rm}\ntasks:\n  - {name: hi, wcet: 1ms, period: 4ms}\n  - {name: lo, wcet: 2ms, period: 8ms}\n";

fn ftrace_seed() -> Vec<u8> {
    let mut s = String::from("# tracer: nop\n#\n");
    let us = |x: u64| format!("{}.{:06}", 100 + x / 1_000_000, x % 1_000_000);
    let sw = |t: u64, cpu: u32, pc: &str, pp: i32, ppr: i32, st: &str, nc: &str, np: i32, npr: i32| {
        format!("{pc}-{pp} [{cpu:03}] d..2. {}: sched_switch: prev_comm={pc} prev_pid={pp} prev_prio={ppr} prev_state={st} ==> next_comm={nc} next_pid={np} next_prio={npr}\n", us(t))
    };
    let wk = |t: u64, cpu: u32, c: &str, p: i32, pr: i32| {
        format!("<idle>-0 [{cpu:03}] dNh3. {}: sched_wakeup: comm={c} pid={p} prio={pr} target_cpu={cpu:03}\n", us(t))
    };
    // Set-up: both threads run once as RT and sleep.
    s += &sw(0, 0, "swapper/0", 0, 120, "R", "hi", 10, 89);
    s += &sw(100, 0, "hi", 10, 89, "S", "lo", 11, 90);
    s += &sw(200, 0, "lo", 11, 90, "S", "swapper/0", 0, 120);
    for k in 0..20u64 {
        let base = 1000 + k * 8000;
        s += &wk(base, 0, "hi", 10, 89);
        s += &wk(base + 2, 1, "lo", 11, 90);
        s += &sw(base + 10, 0, "swapper/0", 0, 120, "R", "hi", 10, 89);
        s += &sw(base + 12, 1, "swapper/1", 0, 120, "R", "lo", 11, 90);
        s += &sw(base + 1010, 0, "hi", 10, 89, "S", "swapper/0", 0, 120);
        s += &sw(base + 2012, 1, "lo", 11, 90, "S", "swapper/1", 0, 120);
        s += &wk(base + 4000, 0, "hi", 10, 89);
        s += &sw(base + 4010, 0, "swapper/0", 0, 120, "R", "hi", 10, 89);
        s += &sw(base + 5010, 0, "hi", 10, 89, "S", "swapper/0", 0, 120);
    }
    s.into_bytes()
}

#[test]
fn ftrace_fuzz() {
    let spec = schedlab_model::load_str(SPEC, None, "<t>").unwrap().spec;
    let (ok, _) = campaign("ftrace", &ftrace_seed(), "txt", &|p| {
        ftrace::import(p, &spec, &ftrace::Options::default(), &mut |_, _| Ok(())).map(|_| ())
    });
    assert!(ok > 0);
    // The seed validates as G-FP.
    let dir = common::tmpdir("fuzz-ftrace-seed");
    let p = dir.join("t.txt");
    std::fs::write(&p, ftrace_seed()).unwrap();
    let (mut h, mut ev) = (None, Vec::new());
    ftrace::import(&p, &spec, &ftrace::Options::default(), &mut |hh, e| {
        h.get_or_insert_with(|| hh.clone());
        ev.extend(e);
        Ok(())
    })
    .unwrap();
    let r = common::validate(&h.unwrap(), &ev, 20_000);
    assert!(r.pass, "{}", r.render());
    assert_eq!(ev.iter().filter(|e| matches!(e, schedlab_trace::Event::Completion { .. })).count(), 60);
}

#[test]
fn rtapp_and_simso_fuzz() {
    let spec = schedlab_model::load_str(SPEC, None, "<t>").unwrap().spec;
    let w = rtapp::export(&spec, &rtapp::ExportOptions::default()).unwrap();
    campaign("rt-app", w.as_bytes(), "json", &|p| {
        rtapp::import(p, &rtapp::ImportOptions { cpus: Some(2) }).map(|_| ())
    });
    let x = simso::export(&spec, 1_000_000_000).unwrap();
    campaign("simso", x.as_bytes(), "xml", &|p| simso::import(p).map(|_| ()));
}

fn peak_rss_kib() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap();
    s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| l.split_whitespace().nth(1)).unwrap().parse().unwrap()
}

/// A 1 GiB sparse file (zeros; nothing is written to disk) through every
/// reader: feather-trace reads all of it (zeroed records are valid, of an
/// event it ignores), the others stop at the first byte that is wrong or
/// refuse the size; the peak memory grows by far less than the file.
#[test]
fn huge_inputs_stay_bounded() {
    let dir = common::tmpdir("fuzz-huge");
    let p: PathBuf = dir.join("huge.bin");
    let f = std::fs::File::create(&p).unwrap();
    f.set_len(1 << 30).unwrap();
    drop(f);
    let before = peak_rss_kib();
    let s = feather_trace::read(std::slice::from_ref(&p), None).unwrap();
    assert_eq!(s.records, (1 << 30) / 16);
    let e = sched_trace::import::scan(std::slice::from_ref(&p), &Default::default()).err().unwrap().to_string();
    assert!(e.contains("huge.bin: byte 0: unknown sched_trace record type 0"), "{e}");
    let spec = schedlab_model::load_str(SPEC, None, "<t>").unwrap().spec;
    let e = ftrace::import(&p, &spec, &Default::default(), &mut |_, _| Ok(())).err().unwrap().to_string();
    assert!(e.contains("huge.bin: line 1: a line longer than"), "{e}");
    let e = rtapp::import(&p, &Default::default()).err().unwrap().to_string();
    assert!(e.contains("larger than"), "{e}");
    let e = simso::import(&p).err().unwrap().to_string();
    assert!(e.contains("larger than"), "{e}");
    let grown = peak_rss_kib().saturating_sub(before);
    eprintln!("1 GiB through the readers: peak RSS grew by {grown} KiB");
    assert!(grown < 64 * 1024, "peak memory grew by {grown} KiB on a 1 GiB input");
    std::fs::remove_file(&p).unwrap();
}

/// A generated stream of 2^22 valid sched_trace records (96 MiB, never held
/// in memory) read by the record reader.
#[test]
fn generated_sched_trace_stream_is_read_in_constant_memory() {
    struct Gen {
        left: u64,
        buf: Vec<u8>,
        pos: usize,
    }
    impl std::io::Read for Gen {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            if self.pos == self.buf.len() {
                if self.left == 0 {
                    return Ok(0);
                }
                self.left -= 1;
                let r = sched_trace::Record::timed(sched_trace::Kind::SwitchTo, 1, 1001, 7, self.left, 0);
                self.buf = r.encode().to_vec();
                self.pos = 0;
            }
            let n = out.len().min(self.buf.len() - self.pos);
            out[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
            self.pos += n;
            Ok(n)
        }
    }
    let before = peak_rss_kib();
    let mut r =
        sched_trace::RecordReader::new(std::io::BufReader::new(Gen { left: 1 << 22, buf: Vec::new(), pos: 0 }), "gen");
    let mut n = 0u64;
    while let Some((_, rec)) = r.next_record().unwrap() {
        assert_eq!(rec.kind, sched_trace::Kind::SwitchTo);
        n += 1;
    }
    assert_eq!(n, 1 << 22);
    assert!(peak_rss_kib().saturating_sub(before) < 16 * 1024);
}
