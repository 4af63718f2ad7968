//! Multithreaded tasks in the platform model: the threads of an MTT share
//! one working set, so for the cache an MTT of k threads with WSS w is one
//! task of WSS w (its bytes counted once, its threads never evicting or
//! contending with each other), and its jobs' compulsory misses add up to
//! w / line per MTT job.

use proptest::prelude::*;
use schedlab_model::Spec;
use schedlab_platform::{Calibration, PlatformModel, MICROS};

fn load(text: &str) -> Spec {
    schedlab_model::load_str(text, None, "t.yaml").unwrap().spec
}

fn model(s: &Spec) -> PlatformModel {
    PlatformModel::new(s, Calibration::default()).unwrap()
}

/// Four CPUs on one 1 MiB cache; `threads` or, without them, one task `w`
/// of the MTT's working set, then four other tasks of `others` KiB.
fn spec(threads: usize, wss_kib: u64, others: &[u64]) -> Spec {
    let mut body = String::new();
    if threads == 0 {
        body.push_str(&format!("  - {{name: w, wcet: 2ms, period: 8ms, wss: {wss_kib}KiB}}\n"));
    } else {
        for k in 0..threads {
            body.push_str(&format!("  - {{name: w{k}, wcet: 2ms, period: 8ms}}\n"));
        }
    }
    for (k, o) in others.iter().enumerate() {
        body.push_str(&format!("  - {{name: o{k}, wcet: 1ms, period: 4ms, wss: {o}KiB}}\n"));
    }
    let mut text = format!("platform: {{cpus: 4, cache: {{size: 1MiB, ways: 16, line: 64B}}}}\ntasks:\n{body}");
    if threads > 0 {
        let names: Vec<String> = (0..threads).map(|k| format!("w{k}")).collect();
        text.push_str(&format!("mtt:\n  - {{name: video, tasks: [{}], wss: {wss_kib}KiB}}\n", names.join(", ")));
    }
    load(&text)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// The same random schedule on two models: (a) an MTT of k threads on
    /// CPUs 0 and 1, (b) one task of the MTT's WSS on CPU 0 whenever some
    /// thread runs. The other tasks, on CPUs 2 and 3, see the same rates
    /// and pay the same CPMD in both, and the MTT's running threads run at
    /// the rate of the single task; a thread joining one that runs reloads
    /// nothing.
    #[test]
    fn an_mtt_is_one_working_set_for_the_cache(
        threads in 1usize..4,
        wss_kib in 64u64..1024,
        others in prop::collection::vec(64u64..768, 4),
        steps in prop::collection::vec((0u32..4, 0usize..4), 1..80),
    ) {
        let (sa, sb) = (spec(threads, wss_kib, &others), spec(0, wss_kib, &others));
        let (mut a, mut b) = (model(&sa), model(&sb));
        let first_other = threads as u32;
        // Task running on each CPU (index in spec a), and whether it runs.
        let mut on: [Option<u32>; 4] = [None; 4];
        let mut now = 0u64;
        for (cpu, pick) in steps {
            now += 250_000;
            let c = cpu as usize;
            if let Some(t) = on[c] {
                let before = on.iter().take(2).flatten().count();
                a.leave(t, cpu, now);
                on[c] = None;
                if cpu >= 2 {
                    b.leave(t - first_other + 1, cpu, now);
                } else if before == 1 {
                    b.leave(0, 0, now);
                }
            } else if cpu < 2 {
                // A thread not running yet, if any.
                let running: Vec<u32> = on.iter().take(2).flatten().copied().collect();
                let Some(t) = (0..threads as u32).map(|k| (k + pick as u32) % threads as u32).find(|t| !running.contains(t)) else { continue };
                let ra = a.enter(t, cpu, now);
                if running.is_empty() {
                    let rb = b.enter(0, 0, now);
                    prop_assert_eq!(ra, rb, "the first thread reloads what the single task does");
                } else {
                    prop_assert_eq!(ra.ns, 0, "a thread joining a running one reloads nothing");
                }
                on[c] = Some(t);
            } else {
                let k = pick as u32;
                if on[2..].contains(&Some(first_other + k)) { continue }
                let ra = a.enter(first_other + k, cpu, now);
                let rb = b.enter(1 + k, cpu, now);
                prop_assert_eq!(ra, rb, "another task's CPMD");
                on[c] = Some(first_other + k);
            }
            a.update_rates(|_, _| {});
            b.update_rates(|_, _| {});
            for other in 2..4u32 {
                prop_assert_eq!(a.micros(other), b.micros(other), "CPU {} at {}", other, now);
            }
            for thread_cpu in 0..2u32 {
                if on[thread_cpu as usize].is_some() {
                    prop_assert_eq!(a.micros(thread_cpu), b.micros(0), "thread on CPU {}", thread_cpu);
                }
            }
        }
    }
}

#[test]
fn co_scheduled_threads_fill_the_cache_once() {
    // Three threads of a 768 KiB MTT run at once next to a 256 KiB task:
    // 1 MiB in a 1 MiB cache, no contention; without the MTT, the three
    // 768 KiB tasks would overflow it three times over.
    let s = load(
        "platform: {cpus: 4, cache: {size: 1MiB, ways: 16, line: 64B}}\ntasks:\n  - {name: w0, wcet: 2ms, period: 8ms}\n  - {name: w1, wcet: 2ms, period: 8ms}\n  - {name: w2, wcet: 2ms, period: 8ms}\n  - {name: o, wcet: 1ms, period: 4ms, wss: 256KiB}\nmtt:\n  - {name: video, tasks: [w0, w1, w2], wss: 768KiB}\n",
    );
    let mut m = model(&s);
    for t in 0..4 {
        m.enter(t, t, 0);
    }
    m.update_rates(|_, _| {});
    for c in 0..4 {
        assert_eq!(m.micros(c), MICROS, "CPU {c}");
    }
    let apart = load(&s.tasks.iter().enumerate().fold(
        "platform: {cpus: 4, cache: {size: 1MiB, ways: 16, line: 64B}}\ntasks:\n".to_string(),
        |acc, (i, t)| {
            acc + &format!(
                "  - {{name: {}, wcet: 1ms, period: 8ms, wss: {}KiB}}\n",
                t.name,
                if i < 3 { 768 } else { 256 }
            )
        },
    ));
    let mut m = model(&apart);
    for t in 0..4 {
        m.enter(t, t, 0);
    }
    m.update_rates(|_, _| {});
    assert!(m.micros(3) < MICROS, "separate working sets contend");
}

#[test]
fn an_mtt_jobs_compulsory_misses_are_its_working_set_in_lines() {
    // Two threads (2 ms and 1 ms) of a 96 KiB MTT: each MTT job misses
    // 96 KiB / 64 B = 1536 lines, shared 2:1 by the threads' execution.
    let s = load(
        "platform: {cpus: 2, cache: {size: 1MiB, ways: 16, line: 64B}}\ntasks:\n  - {name: a, wcet: 2ms, period: 8ms}\n  - {name: b, wcet: 1ms, period: 8ms}\nmtt:\n  - {name: w, tasks: [a, b], wss: 96KiB}\n",
    );
    let mut m = model(&s);
    for job in 0..3u64 {
        let t0 = job * 8_000_000;
        assert_eq!(m.enter_job(0, 0, t0, true).ns, 0, "a job's data is new: nothing to reload");
        assert_eq!(m.enter_job(1, 1, t0, true).ns, 0);
        m.update_rates(|_, _| {});
        m.account(1, 1_000_000);
        m.leave(1, 1, t0 + 1_000_000);
        m.account(0, 2_000_000);
        m.leave(0, 0, t0 + 2_000_000);
    }
    let (a, b) = (m.task_reading(0).misses as f64, m.task_reading(1).misses as f64);
    // Alone, the MTT fits its cache: no other misses.
    assert!((a + b - 3.0 * 1536.0).abs() <= 2.0, "{a} + {b}");
    assert!((a - 2.0 * b).abs() <= 2.0, "shared in proportion to the WCETs: {a}, {b}");
}
