//! Soundness of the uniprocessor and partitioned tests against the
//! simulator: no task set a hard real-time test accepts misses a deadline in
//! simulation — synchronous periodic releases with WCET execution (the
//! critical instant of these tests) and seeded sporadic releases (extra
//! inter-arrival delays) — with release jitter drawn by the simulator when
//! a set has some. Partitioned sets run with the partition the test found,
//! passed to the policy as its placement. The exact tests are also checked
//! the other way: a set without jitter that QPA or RTA rejects misses in the
//! synchronous periodic simulation.
//!
//! FPDS (`uni.fpds.rta`, Bril, Lukkien & Verhaegh 2009) is checked the
//! same way on random sets whose tasks are split into subjobs, simulated
//! under `fpds`; its rejections that the synchronous simulation confirms
//! with a miss are counted (the synchronous release is not FPDS's critical
//! instant, which starts with a lower-priority subjob just begun, so a
//! rejection need not show a miss). Not simulated: `pfpds.rta`; the soft
//! real-time tardiness bounds.
//!
//! Uniprocessor sets run under G-EDF / G-FP on one CPU (the same schedule
//! as any EDF / FP policy there, and no packing at admission, so sets with
//! U > 1 run too). Fixed seeds; run with `--nocapture` to see the counts.
//! `SCHEDLAB_FPDS_SETS=N` runs the FPDS campaign on N sets (default 1000).

use schedlab_analysis::schedulability::{find, Data, Input, Verdict};
use schedlab_model::rng::Rng;
use schedlab_model::{Duration, Placement, Platform, PolicyName, PolicySpec, Priorities, Spec, Task};
use schedlab_sim::{simulate, Arrivals, Execution, SimConfig, Sporadic};
use schedlab_trace::Event;

const MS: u64 = 1_000_000;
const US: u64 = 1_000;
/// Periods whose hyperperiod is 200 ms.
const PERIODS: [u64; 7] = [4, 5, 8, 10, 20, 25, 40];

/// A random set of `n` tasks with total utilisation about `u`: periods from
/// [`PERIODS`], WCETs in whole µs, deadlines in [C, T] (constrained) when
/// `constrained`, release jitter on some tasks when `jitter`.
fn random_spec(r: &mut Rng, cpus: u32, n: usize, u: f64, constrained: bool, jitter: bool, policy: PolicyName) -> Spec {
    let weights: Vec<f64> = (0..n).map(|_| r.uniform(0.1, 1.0)).collect();
    let total: f64 = weights.iter().sum();
    let tasks = weights
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let p = PERIODS[r.below(PERIODS.len() as u64) as usize] * MS;
            let c = (((w / total * u).min(0.95) * p as f64) as u64 / US).max(1) * US;
            let mut t = Task::new(format!("t{i}"), Duration(c), Duration(p));
            if constrained && r.below(2) == 0 {
                t.deadline = Some(Duration(r.range_u64(c / US, p / US) * US));
            }
            if jitter && r.below(3) == 0 {
                let d = t.deadline().0;
                t.jitter = Duration(r.range_u64(0, (d - c) / US / 2) * US);
            }
            t.priority = Some(r.range_u64(1, n as u64) as u32);
            t
        })
        .collect();
    Spec {
        meta: None,
        platform: Platform { cpus, clusters: None, cache: None, memory: None },
        policy: Some(PolicySpec::named(policy)),
        overheads: None,
        reservations: None,
        mtt: None,
        tasks,
    }
}

/// Deadline misses over the hyperperiod plus the largest deadline.
fn misses(spec: &Spec, placement: Option<&[Placement]>, sporadic: bool, seed: u64) -> usize {
    let mut policy = schedlab_policy::build(spec, placement)
        .unwrap_or_else(|e| panic!("admission: {e}\n{}", schedlab_model::emit::to_yaml(spec)));
    let horizon = 200 * MS + spec.tasks.iter().map(|t| t.deadline().0 + t.jitter.0).max().unwrap_or(0) + 1;
    let arrivals = Arrivals {
        sporadic: if sporadic { Sporadic::Uniform { max: 2 * MS } } else { Sporadic::None },
        ignore_jitter: false,
    };
    let config = SimConfig {
        horizon: Some(horizon),
        seed,
        arrivals,
        execution: Execution::Wcet,
        spec_overheads: false,
        ..SimConfig::default()
    };
    let mut n = 0;
    simulate(spec, policy.as_mut(), &config, &mut |e| n += usize::from(matches!(e, Event::DeadlineMiss { .. })))
        .expect("simulation");
    n
}

#[derive(Default, Debug)]
struct Count {
    accepted: usize,
    rejected: usize,
    simulated: usize,
    exact_rejections_missed: usize,
}

/// Runs `tests` on `sets` random sets from `make`; every accepted set is
/// simulated periodically and sporadically (with the partition as
/// placement when the outcome has one) and must not miss.
fn campaign(name: &str, sets: usize, seed: u64, tests: &[&str], make: impl Fn(&mut Rng) -> Spec) {
    let mut counts: Vec<Count> = tests.iter().map(|_| Count::default()).collect();
    let mut r = Rng::new(seed);
    let mut failures = Vec::new();
    for k in 0..sets {
        let spec = make(&mut r);
        let input = Input::from_spec(&spec);
        let no_jitter = spec.tasks.iter().all(|t| t.jitter.0 == 0);
        let mut sync_misses: Option<usize> = None;
        for (j, id) in tests.iter().enumerate() {
            let test = find(id).unwrap_or_else(|| panic!("{id} registered"));
            let o = (test.run)(&input);
            match o.verdict {
                Verdict::Schedulable => {
                    counts[j].accepted += 1;
                    let placement: Option<Vec<Placement>> = match &o.data {
                        Some(Data::Partition(p)) => {
                            Some(p.bins.iter().map(|&b| Placement::Cpu { cpu: b as u32 }).collect())
                        }
                        _ => None,
                    };
                    for sporadic in [false, true] {
                        let missed = misses(&spec, placement.as_deref(), sporadic, seed ^ k as u64);
                        counts[j].simulated += 1;
                        if missed > 0 {
                            failures.push(format!(
                                "{id} accepts, the simulation ({}) misses {missed}:\n{}\n{o:?}",
                                if sporadic { "sporadic" } else { "periodic" },
                                schedlab_model::emit::to_yaml(&spec)
                            ));
                        }
                    }
                }
                Verdict::Unschedulable if no_jitter && spec.platform.cpus == 1 && *id == "uni.fpds.rta" => {
                    counts[j].rejected += 1;
                    let m = *sync_misses.get_or_insert_with(|| misses(&spec, None, false, 0));
                    if m > 0 {
                        counts[j].exact_rejections_missed += 1;
                    }
                }
                Verdict::Unschedulable
                    if no_jitter && spec.platform.cpus == 1 && matches!(*id, "uni.edf.qpa" | "uni.fp.rta") =>
                {
                    counts[j].rejected += 1;
                    let m = *sync_misses.get_or_insert_with(|| misses(&spec, None, false, 0));
                    if m == 0 {
                        failures.push(format!("{id} is exact and rejects, yet the synchronous simulation meets every deadline:\n{}\n{o:?}", schedlab_model::emit::to_yaml(&spec)));
                    } else {
                        counts[j].exact_rejections_missed += 1;
                    }
                }
                _ => counts[j].rejected += 1,
            }
        }
    }
    for (id, c) in tests.iter().zip(&counts) {
        println!("{name}: {id:18} {sets} sets: {} accepted ({} simulations, 0 misses), {} not accepted ({} rejections confirmed by a miss in the synchronous simulation)", c.accepted, c.simulated, c.rejected, c.exact_rejections_missed);
    }
    assert!(failures.is_empty(), "{} failures; the first:\n{}", failures.len(), failures[0]);
    for (id, c) in tests.iter().zip(&counts) {
        assert!(
            c.accepted * 20 >= sets && c.rejected * 20 >= sets,
            "{id}: accepted {} and rejected {} of {sets}: the campaign should see both",
            c.accepted,
            c.rejected
        );
    }
}

#[test]
fn uniprocessor_edf_tests_are_sound() {
    campaign("uni EDF", 1500, 11, &["uni.edf.util", "uni.edf.density", "uni.edf.qpa"], |r| {
        let n = r.range_u64(1, 8) as usize;
        let u = r.uniform(0.5, 1.05);
        // Implicit deadlines half of the time (uni.edf.util applies only then).
        let constrained = r.below(2) == 0;
        let jitter = constrained && r.below(2) == 0;
        random_spec(r, 1, n, u, constrained, jitter, PolicyName::Gedf)
    });
}

#[test]
fn uniprocessor_fp_tests_are_sound() {
    campaign("uni FP", 1500, 12, &["uni.fp.ll", "uni.fp.hyperbolic", "uni.fp.rta"], |r| {
        let n = r.range_u64(1, 8) as usize;
        let u = r.uniform(0.5, 1.0);
        let constrained = r.below(2) == 0;
        let jitter = constrained && r.below(2) == 0;
        let mut s = random_spec(r, 1, n, u, constrained, jitter, PolicyName::Gfp);
        s.policy.as_mut().unwrap().priorities =
            Some([Priorities::Rm, Priorities::Dm, Priorities::Explicit][r.below(3) as usize]);
        if !constrained {
            s.policy.as_mut().unwrap().priorities = Some(Priorities::Rm);
        }
        s
    });
}

#[test]
fn partitioned_edf_and_llf_tests_are_sound() {
    campaign("P-EDF", 500, 13, &["pedf.util", "pedf.density", "pedf.qpa"], |r| {
        let m = r.range_u64(2, 4) as u32;
        let n = r.range_u64(m as u64 + 1, 3 * m as u64) as usize;
        let constrained = r.below(2) == 0;
        let (u, jitter) = (r.uniform(0.6, 1.0) * m as f64, constrained && r.below(2) == 0);
        random_spec(r, m, n, u, constrained, jitter, PolicyName::Pedf)
    });
    campaign("P-LLF", 200, 15, &["pllf.util"], |r| {
        let m = r.range_u64(2, 4) as u32;
        let n = r.range_u64(m as u64 + 1, 3 * m as u64) as usize;
        let u = r.uniform(0.6, 1.0) * m as f64;
        random_spec(r, m, n, u, false, false, PolicyName::Pllf)
    });
}

#[test]
fn partitioned_fp_tests_are_sound() {
    campaign("P-FP", 500, 14, &["pfp.hyperbolic", "pfp.rta", "pfp.util-rta"], |r| {
        let m = r.range_u64(2, 4) as u32;
        let n = r.range_u64(m as u64 + 1, 3 * m as u64) as usize;
        let constrained = r.below(3) == 0;
        let (u, jitter) = (r.uniform(0.5, 0.95) * m as f64, constrained && r.below(2) == 0);
        let mut s = random_spec(r, m, n, u, constrained, jitter, PolicyName::Pfp);
        s.policy.as_mut().unwrap().priorities = Some(if constrained { Priorities::Dm } else { Priorities::Rm });
        s
    });
}

/// FPDS: random uniprocessor sets, each task's WCET split into 1 to 4
/// subjobs (whole µs); the response-time analysis takes Bᵢ (the longest
/// lower-priority subjob, e.g. the lowest-priority task's final subjob) and
/// Fᵢ (the task's last subjob) from the spec. No accepted set misses under
/// `fpds`.
#[test]
fn uniprocessor_fpds_analysis_is_sound() {
    let sets = std::env::var("SCHEDLAB_FPDS_SETS").ok().and_then(|v| v.parse().ok()).unwrap_or(1000);
    campaign("uni FPDS", sets, 16, &["uni.fpds.rta"], |r| {
        let n = r.range_u64(2, 7) as usize;
        let u = r.uniform(0.4, 0.95);
        let constrained = r.below(2) == 0;
        let jitter = constrained && r.below(2) == 0;
        let mut s = random_spec(r, 1, n, u, constrained, jitter, PolicyName::Fpds);
        s.policy.as_mut().unwrap().priorities = Some(if constrained {
            [Priorities::Dm, Priorities::Explicit][r.below(2) as usize]
        } else {
            Priorities::Rm
        });
        for t in &mut s.tasks {
            let units = t.wcet.0 / US;
            let k = r.range_u64(1, 4).min(units);
            let mut cuts: Vec<u64> = (1..k).map(|_| r.range_u64(1, units - 1)).collect();
            cuts.sort_unstable();
            cuts.dedup();
            let mut prev = 0;
            let mut subjobs = Vec::new();
            for c in cuts.into_iter().chain([units]) {
                subjobs.push(Duration((c - prev) * US));
                prev = c;
            }
            t.subjobs = Some(subjobs);
        }
        s
    });
}
