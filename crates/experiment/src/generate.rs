//! The batch generator: task sets drawn exactly as `schedlab gen` draws them
//! (the same streams per aspect, the same samplers, the same rounding), but
//! straight into the parameters the tests read — no names, no spec, no
//! validation pass — so a sweep generates a set in about the time one test
//! takes. A test checks that every set equals `schedlab_gen::generate`'s
//! for the same options and seed.

use schedlab_analysis::schedulability::TaskParams;
use schedlab_gen::deadline::deadline;
use schedlab_gen::dist::{default_slack, fill_to_cap};
use schedlab_gen::{period, util, GenError, GenParams, PeriodSpec, UtilMethod, WssSpec};
use schedlab_model::rng::Rng;

/// Most tasks a named distribution may draw before the set restarts (as `gen`).
const MAX_TASKS: usize = 100_000;
/// Redraws UUniFast-Discard may make (as `gen`).
const MAX_ATTEMPTS: usize = 100_000;

/// One generated set.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Drawn {
    pub tasks: Vec<TaskParams>,
    /// Working-set size of each task in bytes (0: none).
    pub wss: Vec<u64>,
    /// Σ C/T of the generated (rounded) WCETs.
    pub utilization: f64,
    /// A PREM set (`generator.prem`): the spec `schedlab gen --prem` writes
    /// and its seed (the tasks above are its tasks' C, D, T).
    pub prem: Option<Box<crate::prem::PremSet>>,
}

/// The streams of `schedlab gen` (crates/model/src/gen/taskset.rs).
fn stream(seed: u64, s: u64) -> Rng {
    Rng::new(seed ^ s.wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

/// Draws the set `gen` draws for `p` with seed `seed` into `out`.
pub fn draw(p: &GenParams, seed: u64, out: &mut Drawn) -> Result<(), GenError> {
    let total = p.util_or_default();
    if !(total.is_finite() && total > 0.0) || p.cpus == 0 {
        return Err(GenError::InvalidParameter(format!("util {total} on {} CPUs", p.cpus)));
    }
    if p.mtt.is_some() {
        return draw_mtt(p, seed, out);
    }
    if p.prem.is_some() {
        return crate::prem::draw(p, seed, out);
    }
    out.prem = None;
    let mut rng = stream(seed, 1);
    let utils = match p.utils {
        UtilMethod::Named(d) => {
            fill_to_cap(&mut rng, &d, total, p.slack.unwrap_or_else(|| default_slack(&d)), MAX_TASKS)?
        }
        UtilMethod::UUniFast => util::uunifast(&mut rng, n_tasks(p), total)?,
        UtilMethod::UUniFastDiscard => util::uunifast_discard(&mut rng, n_tasks(p), total, MAX_ATTEMPTS)?,
        UtilMethod::RandFixedSum => util::randfixedsum(&mut rng, n_tasks(p), total, p.umin, p.umax)?,
        UtilMethod::Drs => {
            let n = n_tasks(p);
            util::drs(&mut rng, total, &vec![p.umax; n], &vec![p.umin; n])?
        }
    };
    let n = utils.len();
    let g = p.period_granularity.0;
    let mut rng = stream(seed, 2);
    out.tasks.clear();
    match (&p.periods, p.harmonic) {
        (PeriodSpec::Uniform(lo, hi) | PeriodSpec::LogUniform(lo, hi), true) => {
            for t in period::harmonic(&mut rng, n, lo.0, hi.0, g)? {
                out.tasks.push(TaskParams::implicit(0, t));
            }
        }
        (PeriodSpec::List(_), true) => return Err(GenError::InvalidParameter("--harmonic with list:".into())),
        (PeriodSpec::Uniform(lo, hi), false) => {
            for _ in 0..n {
                out.tasks.push(TaskParams::implicit(0, period::uniform(&mut rng, lo.0, hi.0, g)?));
            }
        }
        (PeriodSpec::LogUniform(lo, hi), false) => {
            for _ in 0..n {
                out.tasks.push(TaskParams::implicit(0, period::log_uniform(&mut rng, lo.0, hi.0, g)?));
            }
        }
        (PeriodSpec::List(v), false) => {
            let ns: Vec<u64> = v.iter().map(|d| d.0).collect();
            for _ in 0..n {
                out.tasks.push(TaskParams::implicit(0, period::choice(&mut rng, &ns)?));
            }
        }
    }
    let wg = p.wcet_granularity.0;
    let mut sum = 0.0;
    for (t, &u) in out.tasks.iter_mut().zip(&utils) {
        let exact = u * t.period as f64;
        let up = ((exact / wg as f64).ceil() as u64).max(1).saturating_mul(wg);
        t.wcet = if u <= 1.0 { up.min(t.period) } else { up };
        sum += t.wcet as f64 / t.period as f64;
    }
    out.utilization = sum;
    let mut rng = stream(seed, 3);
    for t in out.tasks.iter_mut() {
        t.deadline = deadline(&mut rng, p.deadlines, t.wcet.min(t.period), t.period, wg)?;
    }
    out.wss.clear();
    let mut rng = stream(seed, 4);
    match &p.wss {
        None => out.wss.resize(n, 0),
        Some(WssSpec::List(v)) => out.wss.extend((0..n).map(|_| rng.choose(v).map_or(0, |s| s.0))),
        Some(WssSpec::Uniform(lo, hi)) => {
            const K: u64 = 1024;
            let (a, b) = (lo.0.div_ceil(K), hi.0 / K);
            out.wss.extend((0..n).map(|_| if a <= b { rng.range_u64(a, b) * K } else { lo.0 }));
        }
    }
    Ok(())
}

/// An MTT set (`--mtt`): drawn by `schedlab_gen::generate` itself (the
/// groups are not in `Drawn`; each task carries its MTT's working set).
fn draw_mtt(p: &GenParams, seed: u64, out: &mut Drawn) -> Result<(), GenError> {
    let spec = schedlab_gen::generate(&GenParams { seed, ..p.clone() })?;
    let of = spec.mtt_of_tasks();
    out.tasks.clear();
    out.wss.clear();
    out.prem = None;
    let mut sum = 0.0;
    for (i, t) in spec.tasks.iter().enumerate() {
        out.tasks.push(TaskParams::implicit(t.wcet.0, t.period.0));
        out.wss.push(of[i].and_then(|k| spec.mtt_wss(k)).map_or(0, |w| w.0));
        sum += t.wcet.0 as f64 / t.period.0 as f64;
    }
    out.utilization = sum;
    Ok(())
}

fn n_tasks(p: &GenParams) -> usize {
    p.tasks.unwrap_or(schedlab_gen::params::DEFAULT_TASKS) as usize
}

/// Many sets: `count` sets of the options `p`, set `i` from seed
/// `seed::set_seed(seed::point_seed(p.seed, key), i)` as in a sweep, on
/// `threads` workers (None: every core); in order, whatever the threads.
pub fn generate_many(p: &GenParams, count: usize, threads: Option<usize>) -> Result<Vec<Drawn>, GenError> {
    if p.prem.is_some() {
        // The callers (`schedlab.generate_many`) keep bare task parameters, which would drop the phases.
        return Err(GenError::InvalidParameter(
            "prem: PREM sets (segments, memory priorities, one task per CPU) are not bare task parameters; generate them one by one (`schedlab gen --prem`, `schedlab.generate(prem=...)`), or sweep them with `generator.prem` (docs/experiments.md)".into(),
        ));
    }
    let base = crate::seed::point_seed(p.seed, &p.to_args());
    let out = schedlab_analysis::batch::map(count, threads, |i| {
        let mut d = Drawn::default();
        draw(p, crate::seed::set_seed(base, i as u64), &mut d).map(|_| d)
    });
    out.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_gen::{generate, GenOptions};

    fn opts(utils: &str, periods: &str, extra: impl Fn(&mut GenOptions)) -> GenParams {
        let mut o = GenOptions {
            cpus: Some(8),
            utils: Some(utils.into()),
            periods: Some(periods.into()),
            util: Some(3.3),
            ..GenOptions::default()
        };
        extra(&mut o);
        o.into_params().unwrap()
    }

    #[test]
    fn mtt_sets_are_those_of_gen_with_their_groups_working_sets() {
        let p =
            opts("uunifast-discard", "moderate", |o| o.mtt = Some("threads=1-4,util=0.1-0.4,wss=tc:4KiB-64KiB".into()));
        let mut d = Drawn::default();
        for seed in 0..10 {
            draw(&p, seed, &mut d).unwrap();
            let s = generate(&GenParams { seed, ..p.clone() }).unwrap();
            assert_eq!(d.tasks.len(), s.tasks.len());
            for (i, t) in s.tasks.iter().enumerate() {
                assert_eq!((d.tasks[i].wcet, d.tasks[i].period), (t.wcet.0, t.period.0));
                let k = s.mtt_of(i).expect("every task of an MTT set is in an MTT");
                assert_eq!(d.wss[i], s.mtt_wss(k).unwrap().0);
            }
        }
    }

    #[test]
    fn sets_are_those_of_gen() {
        let cases = [
            opts("uni-light", "short", |_| {}),
            opts("bimo-medium(0.1)", "long", |_| {}),
            opts("uni-heavy", "moderate", |o| o.slack = Some(0.2)),
            opts("exp-medium", "log-uniform:1ms-1000ms", |o| o.deadlines = Some("constrained".into())),
            opts("uunifast-discard", "list:25ms,50ms,100ms", |o| o.tasks = Some(12)),
            opts("randfixedsum", "uniform:5ms-640ms", |o| {
                o.tasks = Some(20);
                o.umax = Some(0.4);
                o.harmonic = Some(true);
                o.wss = Some("uniform:4KiB-1MiB".into());
            }),
            opts("drs", "moderate", |o| {
                o.tasks = Some(9);
                o.wss = Some("list:32KiB,64KiB".into());
                o.wcet_granularity = Some("1ns".into());
            }),
        ];
        let mut d = Drawn::default();
        for p in cases {
            for seed in 0..40u64 {
                let mut q = p.clone();
                q.seed = seed;
                let spec = generate(&q).unwrap();
                draw(&p, seed, &mut d).unwrap();
                assert_eq!(d.tasks.len(), spec.tasks.len(), "{}", p.to_args());
                for (t, s) in d.tasks.iter().zip(&spec.tasks) {
                    assert_eq!(
                        (t.wcet, t.deadline, t.period),
                        (s.wcet.0, s.deadline().0, s.period.0),
                        "{}",
                        p.to_args()
                    );
                }
                let wss: Vec<u64> = spec.tasks.iter().map(|t| t.wss.map_or(0, |w| w.0)).collect();
                assert_eq!(d.wss, wss);
                let u: f64 = spec.tasks.iter().map(|t| t.wcet.0 as f64 / t.period.0 as f64).sum();
                assert!((d.utilization - u).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn many_prem_sets_are_refused_as_bare_parameters() {
        let p = opts("uunifast-discard", "short", |o| {
            o.tasks = Some(3);
            o.util = Some(0.6);
            o.policy = Some(schedlab_model::PolicyName::Mcs);
            o.prem = Some("default".into());
        });
        let e = generate_many(&p, 2, Some(1)).unwrap_err().to_string();
        assert!(e.contains("prem:") && e.contains("generator.prem"), "{e}");
        let mut d = Drawn::default();
        draw(&p, 5, &mut d).unwrap();
        assert_eq!(d.prem.as_ref().unwrap().spec, generate(&GenParams { seed: 5, ..p.clone() }).unwrap());
    }

    #[test]
    fn many_sets_do_not_depend_on_threads() {
        let p = opts("uni-medium", "short", |_| {});
        let one = generate_many(&p, 300, Some(1)).unwrap();
        assert_eq!(generate_many(&p, 300, Some(3)).unwrap(), one);
        assert_ne!(one[0], one[1]);
        assert!(one.iter().all(|d| (3.3 - 0.07..=3.3 + 1e-6 * d.tasks.len() as f64 / 3e-3).contains(&d.utilization)));
    }
}
