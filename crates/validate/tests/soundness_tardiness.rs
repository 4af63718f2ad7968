//! Soundness of the soft real-time tardiness bounds against the simulator:
//! on random implicit-deadline sets with U ≤ m (2–4 CPUs, synchronous
//! periodic and seeded sporadic releases, WCET execution), no simulated
//! job's tardiness exceeds its task's bound — G-EDF against
//! `soft.gedf.tardiness` and the window-constrained `soft.window.tardiness`
//! (G-EDF's priority points are its deadlines, within [release, deadline]),
//! NP-G-EDF against `soft.npgedf.tardiness`. The cache-aware heuristics'
//! bound (`soft.ca.tardiness`) is at least the window-constrained one (it
//! adds the phantom tasks), which is checked too; and `ca-gedf` (the
//! implemented heuristic: promotions, phantoms, promotion until completion)
//! against it, on sets with working sets and a 1 MiB cache that the
//! heuristic reads (the platform model off, so jobs run their WCETs, the
//! bound's assumption). Fixed seeds; run with `--nocapture` for the counts
//! and the tightest ratio seen.

use schedlab_analysis::schedulability::{find, Data, Input, Verdict};
use schedlab_model::exact::Ratio;
use schedlab_model::rng::Rng;
use schedlab_model::{Duration, Platform, PolicyName, PolicySpec, Spec, Task};
use schedlab_sim::{simulate, Arrivals, Execution, SimConfig, Sporadic};

const MS: u64 = 1_000_000;
const US: u64 = 1_000;
const PERIODS: [u64; 7] = [4, 5, 8, 10, 20, 25, 40];

fn random_spec(r: &mut Rng, cpus: u32, policy: PolicyName) -> Spec {
    let n = cpus as usize + 1 + r.below(2 * cpus as u64) as usize;
    let u = r.uniform(0.6, 1.0) * cpus as f64;
    let weights: Vec<f64> = (0..n).map(|_| r.uniform(0.1, 1.0)).collect();
    let total: f64 = weights.iter().sum();
    let tasks = weights
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let p = PERIODS[r.below(PERIODS.len() as u64) as usize] * MS;
            let c = (((w / total * u).min(1.0) * p as f64) as u64 / US).max(1) * US;
            Task::new(format!("t{i}"), Duration(c), Duration(p))
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

/// Each task's largest tardiness over 5 hyperperiods (200 ms each).
fn tardiness(spec: &Spec, sporadic: bool, seed: u64) -> Vec<u64> {
    tardiness_with(spec, sporadic, seed, true)
}

fn tardiness_with(spec: &Spec, sporadic: bool, seed: u64, platform_model: bool) -> Vec<u64> {
    let mut policy = schedlab_policy::build(spec, None).expect("admission");
    let config = SimConfig {
        horizon: Some(1000 * MS),
        seed,
        arrivals: Arrivals {
            sporadic: if sporadic { Sporadic::Uniform { max: 2 * MS } } else { Sporadic::None },
            ignore_jitter: false,
        },
        execution: Execution::Wcet,
        spec_overheads: false,
        platform_model,
        ..SimConfig::default()
    };
    let s = simulate(spec, policy.as_mut(), &config, &mut |_| {}).expect("simulation");
    s.tasks.iter().map(|t| t.max_tardiness).collect()
}

fn bounds(id: &str, input: &Input) -> Vec<Ratio> {
    let o = (find(id).unwrap().run)(input);
    assert_eq!(o.verdict, Verdict::Schedulable, "{id}: {}", o.reason);
    match o.data {
        Some(Data::Tardiness(b)) => b,
        other => panic!("{id}: {other:?}"),
    }
}

#[test]
fn no_simulated_tardiness_exceeds_the_bounds() {
    let mut r = Rng::new(1515);
    let (mut sims, mut tardy, mut tightest) = (0, 0, 0.0f64);
    for k in 0..120 {
        let cpus = 2 + (k % 3) as u32;
        for policy in [PolicyName::Gedf, PolicyName::NpGedf] {
            let spec = random_spec(&mut r, cpus, policy);
            let input = Input::from_spec(&spec);
            let mut checks: Vec<(&str, Vec<Ratio>)> = match policy {
                PolicyName::Gedf => ["soft.gedf.tardiness", "soft.window.tardiness"]
                    .into_iter()
                    .map(|id| (id, bounds(id, &input)))
                    .collect(),
                _ => vec![("soft.npgedf.tardiness", bounds("soft.npgedf.tardiness", &input))],
            };
            if policy == PolicyName::Gedf {
                // The heuristics' bound (WCETs in whole quanta, plus the
                // phantoms) is at least the window bound, when the set fits
                // in whole quanta.
                let ca = (find("soft.ca.tardiness").unwrap().run)(&input);
                if let (Verdict::Schedulable, Some(Data::Tardiness(b))) = (ca.verdict, ca.data) {
                    assert!(checks[1].1.iter().zip(&b).all(|(w, c)| w <= c));
                    checks.push(("soft.ca.tardiness", b));
                }
            }
            for sporadic in [false, true] {
                let seen = tardiness(&spec, sporadic, k);
                sims += 1;
                for (i, &t) in seen.iter().enumerate() {
                    tardy += usize::from(t > 0);
                    for (id, b) in &checks {
                        assert!(
                            Ratio::new(t as u128, 1) <= b[i],
                            "{id}: task {i} tardiness {t} ns > bound {} ns\n{}",
                            b[i].to_f64(),
                            schedlab_model::emit::to_yaml(&spec)
                        );
                        if t > 0 {
                            tightest = tightest.max(t as f64 / b[i].to_f64());
                        }
                    }
                }
            }
        }
    }
    eprintln!("{sims} simulations, {tardy} tardy tasks, largest tardiness / bound {tightest:.3}");
    assert!(tardy > 20, "the campaign must produce tardy tasks: {tardy}");
}

/// `ca-gedf` on sets whose working sets (64 KiB–768 KiB, a 1 MiB cache)
/// make it promote and idle CPUs (phantoms): no task's tardiness exceeds
/// its `soft.ca.tardiness` bound.
#[test]
fn ca_gedf_tardiness_stays_within_the_heuristic_bound() {
    let mut r = Rng::new(4242);
    let (mut sims, mut tardy, mut tightest) = (0, 0, 0.0f64);
    let mut k = 0;
    while sims < 240 {
        k += 1;
        let cpus = 2 + (k % 3) as u32;
        let mut spec = random_spec(&mut r, cpus, PolicyName::CaGedf);
        for t in &mut spec.tasks {
            t.wss = Some(schedlab_model::Size(r.range_u64(64, 768) * 1024));
        }
        spec.platform.cache = Some(schedlab_model::Cache {
            size: schedlab_model::Size(1 << 20),
            ways: 16,
            line: schedlab_model::Size(64),
            page: None,
            colors: None,
            shared_by: None,
            private: None,
        });
        let o = (find("soft.ca.tardiness").unwrap().run)(&Input::from_spec(&spec));
        let Some(Data::Tardiness(b)) = o.data.filter(|_| o.verdict == Verdict::Schedulable) else {
            continue; // above m in whole quanta
        };
        for sporadic in [false, true] {
            let seen = tardiness_with(&spec, sporadic, k, false);
            sims += 1;
            for (i, &t) in seen.iter().enumerate() {
                tardy += usize::from(t > 0);
                assert!(
                    Ratio::new(t as u128, 1) <= b[i],
                    "ca-gedf: task {i} tardiness {t} ns > bound {} ns\n{}",
                    b[i].to_f64(),
                    schedlab_model::emit::to_yaml(&spec)
                );
                if t > 0 {
                    tightest = tightest.max(t as f64 / b[i].to_f64());
                }
            }
        }
    }
    eprintln!("ca-gedf: {sims} simulations, {tardy} tardy tasks, largest tardiness / bound {tightest:.3}");
    assert!(tardy > 20, "the campaign must produce tardy tasks: {tardy}");
}
