//! Cost of one trace record (release build: `cargo run --release -p
//! schedlab-rt --example trace_cost`), for `bench/rt_latency.py`.
//!
//! A worker's record is a slot write and a release store into its own
//! single-producer ring (`tracebuf.rs`), plus the clock read that stamps it.
//! Single pushes are too short to time one by one (a clock read costs more
//! than the push), so batches of 1000 are timed and the per-record cost of
//! each batch is one sample; the distribution over batches is printed as
//! JSON (ns per record): `push` alone and `clock+push` (CLOCK_MONOTONIC read
//! and push, what a worker pays per record).

use schedlab_rt::record::Kind;
use schedlab_rt::tracebuf::ring;
use std::time::Instant;

fn now_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: a valid timespec pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

fn quantiles(mut v: Vec<f64>) -> serde_json::Value {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let q = |p: f64| v[(((v.len() - 1) as f64) * p).round() as usize];
    serde_json::json!({"batches": v.len(), "min": v[0], "p50": q(0.5), "p99": q(0.99), "p999": q(0.999), "max": v[v.len() - 1]})
}

fn main() {
    const BATCH: u64 = 1000;
    const BATCHES: usize = 20_000;
    let (mut p, c) = ring(1 << 16);
    let mut out = Vec::with_capacity(1 << 16);
    let mut run = |stamp: bool| {
        let mut samples = Vec::with_capacity(BATCHES);
        for b in 0..BATCHES {
            let t0 = Instant::now();
            for i in 0..BATCH {
                let t = if stamp { now_ns() } else { i };
                p.push(Kind::Start, t, 0, b as u64, i, 0);
            }
            samples.push(t0.elapsed().as_nanos() as f64 / BATCH as f64);
            out.clear();
            assert_eq!(c.drain(&mut out), BATCH as usize, "no record may be lost");
        }
        quantiles(samples)
    };
    let push = run(false);
    let stamped = run(true);
    println!("{}", serde_json::json!({"unit": "ns per record", "batch": BATCH, "push": push, "clock+push": stamped}));
}
