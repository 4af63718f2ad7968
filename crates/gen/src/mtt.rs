//! Random sets of multithreaded tasks (MTTs), as Calandrino's heuristic
//! study generated them (2009, §6.1.2, L1517-1523; notes
//! `seed-001-calandrino.md` §5.3): MTTs are drawn until the total
//! utilisation (`--util`, e.g. 50 % or 100 % of the CPUs) is reached; each
//! MTT has
//!
//! * a task (thread) count uniform over `threads` (the thesis: [1, 8]);
//! * a utilisation `u` uniform over `util`, shared by all its tasks (the
//!   thesis: [0.01, 0.1], [0.1, 0.4], [0.5, 0.9] or [0.01, 0.9]);
//! * a period from `--periods` (the thesis: 10–100 ms), the same for its
//!   tasks, and an execution cost `p·u` rounded to a whole quantum
//!   (`--period-granularity`, 1 ms), at least one (the thesis: "at least
//!   1 ms");
//! * a working-set size, `uni:LO-HI` uniform over [LO, HI] (the thesis:
//!   "Uni", [64 B, 2 MB]) or `tc:LO-HI` the task count times uniform over
//!   [LO, HI] (the thesis: "TC", [64 B, 512 KiB] per task), both capped at
//!   the cache size when `--cache` is given (the thesis' WSSs "never exceed
//!   the L2").
//!
//! The last MTT fills what remains of the total: its utilisation is the
//! remainder divided by its task count, and its period is stretched when
//! that is too small for one quantum in the drawn period (the thesis: "except
//! for the last-generated MTT, which may have a larger period"; how it was
//! stretched is not stated — this is the inferred reading of notes §5.3).
//! Every task is in an MTT (a one-task MTT is an ordinary task, as in the
//! thesis), all deadlines are implicit.

use super::params::PeriodSpec;
use super::period;
use super::GenError;
use schedlab_model::rng::Rng;
use schedlab_model::spec::{Mtt, Task};
use schedlab_model::units::{Duration, Size};
use std::fmt;
use std::str::FromStr;

/// Most MTTs drawn before giving up.
const MAX_MTTS: usize = 100_000;

/// How an MTT's working-set size is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MttWss {
    /// Uniform over [lo, hi] bytes ("Uni").
    Uni(Size, Size),
    /// The task count times uniform over [lo, hi] bytes ("TC").
    Tc(Size, Size),
}

/// The options of an MTT set: `threads=LO-HI,util=LO-HI,wss=uni:LO-HI`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MttGen {
    pub threads: (u32, u32),
    pub util: (f64, f64),
    pub wss: MttWss,
}

impl Default for MttGen {
    /// The thesis' widest ranges: 1–8 threads, utilisation [0.01, 0.9],
    /// WSS uniform over [64 B, 2 MiB].
    fn default() -> Self {
        MttGen { threads: (1, 8), util: (0.01, 0.9), wss: MttWss::Uni(Size(64), Size(2 << 20)) }
    }
}

fn pair<T: FromStr>(key: &str, v: &str) -> Result<(T, T), String> {
    let (a, b) = v.split_once('-').ok_or_else(|| format!("`{key}={v}` is not a range; write `{key}=LO-HI`"))?;
    let parse = |x: &str| x.trim().parse::<T>().map_err(|_| format!("`{x}` in `{key}={v}` is not a valid bound"));
    Ok((parse(a)?, parse(b)?))
}

impl FromStr for MttGen {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let mut g = MttGen::default();
        let s = s.trim();
        if s == "default" || s.is_empty() {
            return Ok(g);
        }
        for item in s.split(',') {
            let (key, v) = item.split_once('=').ok_or_else(|| {
                format!(
                    "`{item}` is not KEY=VALUE; write e.g. `threads=1-8,util=0.1-0.4,wss=tc:64B-512KiB` (or `default`)"
                )
            })?;
            match key.trim() {
                "threads" => {
                    let (a, b) = pair::<u32>("threads", v)?;
                    if a == 0 || a > b {
                        return Err(format!("`threads={v}` needs 1 ≤ LO ≤ HI"));
                    }
                    g.threads = (a, b);
                }
                "util" => {
                    let (a, b) = pair::<f64>("util", v)?;
                    if !(a > 0.0 && a <= b && b <= 1.0) {
                        return Err(format!("`util={v}` needs 0 < LO ≤ HI ≤ 1"));
                    }
                    g.util = (a, b);
                }
                "wss" => {
                    let (kind, range) = v.split_once(':').unwrap_or(("", v));
                    let (a, b) = range
                        .split_once('-')
                        .ok_or_else(|| format!("`wss={v}` is not a range; write `wss=uni:LO-HI` or `wss=tc:LO-HI`"))?;
                    let size = |x: &str| x.trim().parse::<Size>().map_err(|e| format!("wss: {}", e.0));
                    let (a, b) = (size(a)?, size(b)?);
                    if a.0 == 0 || a > b {
                        return Err(format!("`wss={v}` needs 0 < LO ≤ HI"));
                    }
                    g.wss = match kind {
                        "uni" => MttWss::Uni(a, b),
                        "tc" => MttWss::Tc(a, b),
                        _ => return Err(format!("`wss={v}`: the kind is `uni` or `tc`, e.g. `wss=tc:64B-512KiB`")),
                    };
                }
                other => return Err(format!("unknown key `{other}`; the keys are threads, util and wss")),
            }
        }
        Ok(g)
    }
}

impl fmt::Display for MttGen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (kind, a, b) = match self.wss {
            MttWss::Uni(a, b) => ("uni", a, b),
            MttWss::Tc(a, b) => ("tc", a, b),
        };
        write!(
            f,
            "threads={}-{},util={}-{},wss={kind}:{a}-{b}",
            self.threads.0, self.threads.1, self.util.0, self.util.1
        )
    }
}

/// One period from `spec` (quantum `q`).
fn draw_period(rng: &mut Rng, spec: &PeriodSpec, q: u64) -> Result<u64, GenError> {
    match spec {
        PeriodSpec::Uniform(lo, hi) => period::uniform(rng, lo.0, hi.0, q),
        PeriodSpec::LogUniform(lo, hi) => period::log_uniform(rng, lo.0, hi.0, q),
        PeriodSpec::List(v) => period::choice(rng, &v.iter().map(|d| d.0).collect::<Vec<_>>()),
    }
}

/// The tasks and MTTs of a set of total utilisation `total`, from three
/// streams (counts and utilisations, periods, working sets).
pub(crate) fn draw(
    g: &MttGen,
    total: f64,
    periods: &PeriodSpec,
    quantum: u64,
    cache: Option<Size>,
    rngs: [&mut Rng; 3],
) -> Result<(Vec<Task>, Vec<Mtt>), GenError> {
    let [utils, prng, wrng] = rngs;
    let mut drawn: Vec<(u32, u64, u64, u64)> = Vec::new(); // (threads, wcet, period, wss)
    let mut remaining = total;
    while remaining > 1e-9 {
        if drawn.len() >= MAX_MTTS {
            return Err(GenError::exhausted(format!("more than {MAX_MTTS} MTTs for --util {total}")));
        }
        let k = utils.range_u64(g.threads.0 as u64, g.threads.1 as u64) as u32;
        let mut u = utils.uniform(g.util.0, g.util.1).min(g.util.1);
        let mut p = draw_period(prng, periods, quantum)?;
        let last = k as f64 * u >= remaining - 1e-9;
        let e;
        if last {
            // The remainder, on a stretched period if one quantum is too much.
            u = remaining / k as f64;
            let want = p as f64 * u;
            e = ((want / quantum as f64).round() as u64).max(1) * quantum;
            p = p.max((((e as f64 / u) / quantum as f64).round() as u64).max(1) * quantum).max(e);
        } else {
            e = (((p as f64 * u) / quantum as f64).round() as u64).max(1) * quantum;
        }
        let e = e.min(p);
        remaining -= k as f64 * e as f64 / p as f64;
        let w = match g.wss {
            MttWss::Uni(a, b) => wrng.range_u64(a.0, b.0),
            MttWss::Tc(a, b) => (0..k).map(|_| wrng.range_u64(a.0, b.0)).sum(),
        };
        let w = cache.map_or(w, |c| w.min(c.0));
        drawn.push((k, e, p, w));
        if last {
            break;
        }
    }
    let width = drawn.len().to_string().len();
    let mut tasks = Vec::new();
    let mut mtts = Vec::new();
    for (i, &(k, e, p, w)) in drawn.iter().enumerate() {
        let name = format!("M{:0width$}", i + 1);
        let names: Vec<String> = (1..=k).map(|j| format!("{name}T{j}")).collect();
        for n in &names {
            tasks.push(Task::new(n.clone(), Duration(e), Duration(p)));
        }
        mtts.push(Mtt { name, tasks: names, wss: Some(Size(w)) });
    }
    Ok((tasks, mtts))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{generate, GenOptions};
    use schedlab_model::Spec;

    fn gen(seed: u64, cpus: u32, util: f64, mtt: &str, cache: Option<&str>) -> Spec {
        let o = GenOptions {
            seed: Some(seed),
            cpus: Some(cpus),
            util: Some(util),
            mtt: Some(mtt.into()),
            cache: cache.map(Into::into),
            ..Default::default()
        };
        generate(&o.into_params().unwrap()).unwrap()
    }

    /// The thesis' 16 combinations (2 totals × 4 utilisation ranges × 2 WSS
    /// kinds) on 8 CPUs and a 2 MiB cache, 20 seeds each.
    #[test]
    fn the_thesis_combinations_meet_their_ranges_and_total() {
        let ranges: [(f64, f64); 4] = [(0.01, 0.1), (0.1, 0.4), (0.5, 0.9), (0.01, 0.9)];
        for total in [4.0, 8.0] {
            for (lo, hi) in ranges {
                for wss in ["uni:64B-2MiB", "tc:64B-512KiB"] {
                    for seed in 0..20 {
                        let text = format!("threads=1-8,util={lo}-{hi},wss={wss}");
                        let s = gen(seed, 8, total, &text, Some("2MiB/8/64B"));
                        let mtts = s.mtts();
                        let mut u = 0.0;
                        for (k, m) in mtts.iter().enumerate() {
                            let ts = s.mtt_tasks(k);
                            assert!((1..=8).contains(&ts.len()), "{text}: {} threads", ts.len());
                            let t0 = &s.tasks[ts[0]];
                            assert!(ts.iter().all(|&i| s.tasks[i].period == t0.period && s.tasks[i].wcet == t0.wcet));
                            assert!(t0.wcet.0 >= 1_000_000 && t0.wcet.0.is_multiple_of(1_000_000), "{t0:?}");
                            let last = k + 1 == mtts.len();
                            if !last {
                                assert!((10_000_000..=100_000_000).contains(&t0.period.0), "{t0:?}");
                                // Rounding e to a whole ms moves u by at most 0.5 ms / p (p ≥ 10 ms).
                                let ut = t0.utilization();
                                assert!(ut >= lo - 0.05 - 1e-9 && ut <= hi + 0.05 + 1e-9, "{text}: u {ut}");
                            }
                            let w = m.wss.unwrap().0;
                            assert!((64..=2 << 20).contains(&w), "{text}: wss {w}");
                            if wss.starts_with("uni") {
                                assert!(w <= 2 << 20);
                            } else {
                                assert!(w >= 64 * ts.len() as u64 && w <= (512 << 10) * ts.len() as u64, "{w}");
                            }
                            u += ts.len() as f64 * t0.utilization();
                        }
                        // The last MTT fills the remainder, up to its rounding.
                        let tail = mtts.len() as f64 * 0.05 * 8.0;
                        assert!((u - total).abs() <= tail.max(0.05) + 1e-9, "{text} seed {seed}: total {u}");
                        assert!((u - total).abs() / total < 0.1, "{text} seed {seed}: total {u}");
                    }
                }
            }
        }
    }

    #[test]
    fn the_recorded_options_give_the_same_set() {
        let s = gen(9, 4, 2.0, "threads=2-4,util=0.1-0.4,wss=tc:4KiB-64KiB", None);
        let args = s.meta.as_ref().unwrap().generator.clone().unwrap();
        assert!(args.contains("--mtt threads=2-4,util=0.1-0.4,wss=tc:4KiB-64KiB"), "{args}");
        assert!(!args.contains("--utils"), "{args}");
        let g: MttGen = "threads=2-4,util=0.1-0.4,wss=tc:4KiB-64KiB".parse().unwrap();
        assert_eq!(g.to_string().parse::<MttGen>().unwrap(), g);
        assert_eq!(gen(9, 4, 2.0, &g.to_string(), None), s);
        assert_ne!(gen(10, 4, 2.0, &g.to_string(), None).tasks, s.tasks);
        assert_eq!("default".parse::<MttGen>().unwrap(), MttGen::default());
    }

    #[test]
    fn bad_mtt_options_are_refused_with_the_option_named() {
        for (text, want) in [
            ("threads=0-3", "1 ≤ LO ≤ HI"),
            ("threads=4-2", "1 ≤ LO ≤ HI"),
            ("util=0.5-1.5", "0 < LO ≤ HI ≤ 1"),
            ("wss=xx:1KiB-2KiB", "`uni` or `tc`"),
            ("wss=uni:2KiB", "not a range"),
            ("speed=3", "unknown key"),
            ("threads", "KEY=VALUE"),
        ] {
            let o = GenOptions { mtt: Some(text.into()), ..Default::default() };
            let e = o.into_params().unwrap_err();
            assert!(e.starts_with("mtt: ") && e.contains(want), "{text}: {e}");
        }
        for o in [
            GenOptions { tasks: Some(5), ..Default::default() },
            GenOptions { wss: Some("list:1KiB".into()), ..Default::default() },
            GenOptions { deadlines: Some("constrained".into()), ..Default::default() },
            GenOptions { harmonic: Some(true), ..Default::default() },
        ] {
            let o = GenOptions { mtt: Some("default".into()), ..o };
            let e = generate(&o.into_params().unwrap()).unwrap_err().to_string();
            assert!(e.contains("does not apply with --mtt"), "{e}");
        }
    }
}
