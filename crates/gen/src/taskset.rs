//! From generator options to a spec. Each aspect (utilisations, periods,
//! deadlines, WSS, colours) draws from its own stream derived from the seed,
//! so changing one option does not reshuffle the others.

use super::deadline::deadline;
use super::dist::{default_slack, fill_to_cap};
use super::params::{GenParams, PeriodSpec, UtilMethod, WssSpec, DEFAULT_TASKS};
use super::period;
use super::prem::{PremMode, PremSpec};
use super::util;
use super::GenError;
use schedlab_model::rng::Rng;
use schedlab_model::spec::{Cache, Domains, Meta, Mtt, Platform, PolicyName, PolicySpec, Spec, Task};
use schedlab_model::units::{ColorSet, Duration, Size};
use schedlab_model::validate::{validate, Severity};
use schedlab_model::{MemoryMode, Segment, SegmentKind};

/// Most tasks a named distribution may draw before the set restarts.
const MAX_TASKS: usize = 100_000;
/// Redraws UUniFast-Discard and bounded rejection may make.
const MAX_ATTEMPTS: usize = 100_000;

/// Independent streams, one per aspect of the task set.
#[derive(Clone, Copy)]
enum Stream {
    Utils = 1,
    Periods = 2,
    Deadlines = 3,
    Wss = 4,
    Colors = 5,
}

fn stream(seed: u64, s: Stream) -> Rng {
    // Distinct odd multipliers keep the seeds of the streams apart; the Rng
    // itself spreads them through SplitMix64.
    Rng::new(seed ^ (s as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

fn invalid(msg: impl Into<String>) -> GenError {
    GenError::invalid(msg)
}

/// Generates the spec the parameters describe.
pub fn generate(p: &GenParams) -> Result<Spec, GenError> {
    if p.cpus == 0 || p.cpus > schedlab_model::validate::MAX_CPUS {
        return Err(invalid(format!(
            "--cpus must be between 1 and {}, got {}",
            schedlab_model::validate::MAX_CPUS,
            p.cpus
        )));
    }
    let total = p.util_or_default();
    if !(total.is_finite() && total > 0.0) {
        return Err(invalid(format!("--util must be a positive number, got {total}")));
    }
    let clusters = match p.cluster_size {
        None => None,
        Some(0) => return Err(invalid("--cluster-size must be at least 1")),
        Some(k) if !p.cpus.is_multiple_of(k) => {
            return Err(invalid(format!("--cluster-size {k} does not divide --cpus {}", p.cpus)))
        }
        Some(k) => Some((0..p.cpus / k).map(|c| (c * k..(c + 1) * k).collect()).collect::<Vec<Vec<u32>>>()),
    };
    if p.policy.domains() == Domains::PerCluster && clusters.is_none() {
        return Err(invalid(format!("--policy {} is clustered; give --cluster-size", p.policy.name())));
    }
    let cache = p.cache.map(|c| Cache {
        size: c.size,
        ways: c.ways,
        line: c.line,
        page: None,
        colors: None,
        shared_by: None,
        private: None,
    });
    if p.colors_per_task.is_some() && cache.is_none() {
        return Err(invalid("--colors-per-task needs --cache SIZE/WAYS/LINE"));
    }
    if p.wcet_granularity.0 == 0 || p.period_granularity.0 == 0 {
        return Err(invalid("--wcet-granularity and --period-granularity must be more than 0"));
    }
    if p.prem.is_some() && p.mtt.is_some() {
        return Err(invalid("--prem and --mtt draw different task models; give one of them"));
    }
    if let Some(prem) = &p.prem {
        return prem_set(p, prem);
    }
    if let Some(g) = &p.mtt {
        return mtt_set(p, g, clusters, cache);
    }

    // Utilisations.
    let mut rng = stream(p.seed, Stream::Utils);
    let utils = match p.utils {
        UtilMethod::Named(d) => {
            if p.tasks.is_some() {
                return Err(invalid(format!(
                    "--tasks does not apply to `{}`: a named distribution draws tasks until the cap --util",
                    d.name()
                )));
            }
            let slack = p.slack.unwrap_or_else(|| default_slack(&d));
            fill_to_cap(&mut rng, &d, total, slack, MAX_TASKS)?
        }
        method => {
            if p.slack.is_some() {
                return Err(invalid(
                    "--slack applies only to the named distributions (uni-*, exp-*, bimo-*, uniform(..))",
                ));
            }
            let n = p.tasks.unwrap_or(DEFAULT_TASKS) as usize;
            match method {
                UtilMethod::UUniFast => util::uunifast(&mut rng, n, total)?,
                UtilMethod::UUniFastDiscard => util::uunifast_discard(&mut rng, n, total, MAX_ATTEMPTS)?,
                UtilMethod::RandFixedSum => util::randfixedsum(&mut rng, n, total, p.umin, p.umax)?,
                UtilMethod::Drs => util::drs(&mut rng, total, &vec![p.umax; n], &vec![p.umin; n])?,
                UtilMethod::Named(_) => unreachable!("handled above"),
            }
        }
    };
    let n = utils.len();

    // Periods.
    let mut rng = stream(p.seed, Stream::Periods);
    let g = p.period_granularity.0;
    let periods: Vec<u64> = match (&p.periods, p.harmonic) {
        (PeriodSpec::List(_), true) => {
            return Err(invalid("--harmonic draws from a range; with `list:` give harmonic periods in the list"))
        }
        (PeriodSpec::Uniform(lo, hi) | PeriodSpec::LogUniform(lo, hi), true) => {
            period::harmonic(&mut rng, n, lo.0, hi.0, g)?
        }
        (PeriodSpec::Uniform(lo, hi), false) => {
            (0..n).map(|_| period::uniform(&mut rng, lo.0, hi.0, g)).collect::<Result<_, _>>()?
        }
        (PeriodSpec::LogUniform(lo, hi), false) => {
            (0..n).map(|_| period::log_uniform(&mut rng, lo.0, hi.0, g)).collect::<Result<_, _>>()?
        }
        (PeriodSpec::List(v), false) => {
            let ns: Vec<u64> = v.iter().map(|d| d.0).collect();
            (0..n).map(|_| period::choice(&mut rng, &ns)).collect::<Result<_, _>>()?
        }
    };

    // WCETs: u·T rounded up to the granularity (the safe direction), at most T.
    let wg = p.wcet_granularity.0;
    let wcets: Vec<u64> = utils
        .iter()
        .zip(&periods)
        .map(|(&u, &t)| {
            let exact = u * t as f64;
            let up = ((exact / wg as f64).ceil() as u64).max(1).saturating_mul(wg);
            if u <= 1.0 {
                up.min(t)
            } else {
                up
            }
        })
        .collect();

    let mut rng = stream(p.seed, Stream::Deadlines);
    let deadlines: Vec<u64> = wcets
        .iter()
        .zip(&periods)
        .map(|(&c, &t)| deadline(&mut rng, p.deadlines, c.min(t), t, wg))
        .collect::<Result<_, _>>()?;

    let mut rng = stream(p.seed, Stream::Wss);
    let wss: Vec<Option<Size>> = match &p.wss {
        None => vec![None; n],
        Some(WssSpec::List(v)) => (0..n).map(|_| rng.choose(v).copied()).collect(),
        Some(WssSpec::Uniform(lo, hi)) => {
            const K: u64 = 1024;
            let (a, b) = (lo.0.div_ceil(K), hi.0 / K);
            (0..n).map(|_| Some(if a <= b { Size(rng.range_u64(a, b) * K) } else { *lo })).collect()
        }
    };

    let mut rng = stream(p.seed, Stream::Colors);
    let colors: Vec<Option<ColorSet>> = match (p.colors_per_task, &cache) {
        (Some(k), Some(c)) => {
            let total_colors = c.colors();
            if total_colors > 1 << 20 {
                return Err(invalid(format!(
                    "the cache has {total_colors} colours; colour assignment supports at most 2^20"
                )));
            }
            if k == 0 || k as u64 > total_colors {
                return Err(invalid(format!(
                    "--colors-per-task must be between 1 and the cache's {total_colors} colours, got {k}"
                )));
            }
            let mut pool: Vec<u32> = (0..total_colors as u32).collect();
            (0..n)
                .map(|_| {
                    // Partial Fisher–Yates: the first k entries are a uniform k-subset.
                    for i in 0..k as usize {
                        let j = i + rng.below((pool.len() - i) as u64) as usize;
                        pool.swap(i, j);
                    }
                    Some(ColorSet::from_ranges(pool[..k as usize].iter().map(|&c| (c, c)).collect()))
                })
                .collect()
        }
        _ => vec![None; n],
    };

    let width = n.to_string().len();
    let tasks = (0..n)
        .map(|i| {
            let mut t = Task::new(format!("T{:0width$}", i + 1), Duration(wcets[i]), Duration(periods[i]));
            if deadlines[i] != periods[i] {
                t.deadline = Some(Duration(deadlines[i]));
            }
            t.wss = wss[i];
            t.colors = colors[i].clone();
            t
        })
        .collect();
    finish(p, p.policy, clusters, cache, tasks, None)
}

/// A set of MTTs (`--mtt`, `crate::mtt`): the options that shape single
/// tasks do not apply.
fn mtt_set(
    p: &GenParams,
    g: &crate::MttGen,
    clusters: Option<Vec<Vec<u32>>>,
    cache: Option<Cache>,
) -> Result<Spec, GenError> {
    let refuse = [
        (p.tasks.is_some(), "--tasks"),
        (p.slack.is_some(), "--slack"),
        (p.wss.is_some(), "--wss"),
        (p.colors_per_task.is_some(), "--colors-per-task"),
        (p.harmonic, "--harmonic"),
        (p.deadlines != super::deadline::DeadlineKind::Implicit, "--deadlines"),
    ];
    if let Some((_, name)) = refuse.iter().find(|(given, _)| *given) {
        return Err(invalid(format!(
            "{name} does not apply with --mtt: an MTT set draws its tasks, utilisations and working sets from --mtt, with implicit deadlines"
        )));
    }
    let mut utils = stream(p.seed, Stream::Utils);
    let mut periods = stream(p.seed, Stream::Periods);
    let mut wss = stream(p.seed, Stream::Wss);
    let (tasks, mtts) = crate::mtt::draw(
        g,
        p.util_or_default(),
        &p.periods,
        p.period_granularity.0,
        cache.as_ref().map(|c| c.size),
        [&mut utils, &mut periods, &mut wss],
    )?;
    finish(p, p.policy, clusters, cache, tasks, Some(mtts))
}

/// The generated spec of `tasks` (and `mtt`) under `policy` on the options'
/// platform, recording the options that reproduce it; an error if the options
/// gave an invalid spec.
fn finish(
    p: &GenParams,
    policy: PolicyName,
    clusters: Option<Vec<Vec<u32>>>,
    cache: Option<Cache>,
    tasks: Vec<Task>,
    mtt: Option<Vec<Mtt>>,
) -> Result<Spec, GenError> {
    let spec = Spec {
        meta: Some(Meta {
            description: None,
            tool: Some(schedlab_model::TOOL.to_string()),
            seed: Some(p.seed),
            generator: Some(p.to_args()),
        }),
        platform: Platform { cpus: p.cpus, clusters, cache, memory: None },
        policy: Some(PolicySpec::named(policy)),
        overheads: None,
        reservations: None,
        mtt,
        tasks,
    };
    if let Some(bad) = validate(&spec).into_iter().find(|i| i.severity == Severity::Error) {
        return Err(invalid(format!("the options give an invalid spec: {}: {}", bad.path, bad.message)));
    }
    Ok(spec)
}

/// The default data sizes of `--prem`: the paper's 200 KB to 7.8 MB (200 KiB to 7987 KiB = 7.8 MiB).
const PREM_DATA: WssSpec = WssSpec::Uniform(Size(200 << 10), Size(7987 << 10));

/// A PREM set ([`crate::prem`]): one task per CPU (every CPU but the last,
/// the master, for `amp`), task i on CPU i with memory priority i + 1.
fn prem_set(p: &GenParams, prem: &PremSpec) -> Result<Spec, GenError> {
    if p.policy != PolicyName::Mcs {
        return Err(invalid(format!(
            "--prem generates PREM tasks for memory-centric scheduling; add --policy mcs (got `{}`)",
            p.policy.name()
        )));
    }
    if p.harmonic {
        return Err(invalid(
            "--harmonic does not apply with --prem: the periods follow from the utilisations (T = C/u)",
        ));
    }
    if p.cluster_size.is_some() || p.cache.is_some() || p.colors_per_task.is_some() {
        return Err(invalid(
            "--prem sets have one task per CPU and no cache model; remove --cluster-size, --cache and --colors-per-task",
        ));
    }
    let slots = match prem.mode {
        PremMode::Smp => p.cpus,
        PremMode::Amp => p.cpus - 1,
    };
    let n = p.tasks.unwrap_or(slots);
    if n == 0 || n > slots {
        return Err(invalid(format!(
            "--prem puts one task on each CPU{}: --tasks must be between 1 and {slots}, got {n}",
            if prem.mode == PremMode::Amp {
                " but the master (the last, which hosts the memory-phase worker)"
            } else {
                ""
            }
        )));
    }
    let total = p.util_or_default();
    let mut rng = stream(p.seed, Stream::Utils);
    let n = n as usize;
    let utils = match p.utils {
        UtilMethod::UUniFast => util::uunifast(&mut rng, n, total)?,
        UtilMethod::UUniFastDiscard => util::uunifast_discard(&mut rng, n, total, MAX_ATTEMPTS)?,
        UtilMethod::RandFixedSum => util::randfixedsum(&mut rng, n, total, p.umin, p.umax)?,
        UtilMethod::Drs => util::drs(&mut rng, total, &vec![p.umax; n], &vec![p.umin; n])?,
        UtilMethod::Named(d) => {
            return Err(invalid(format!(
                "--prem draws one utilisation per task; `{}` draws tasks until a cap: use uunifast-discard, uunifast, randfixedsum or drs",
                d.name()
            )))
        }
    };
    if p.slack.is_some() {
        return Err(invalid("--slack applies only to the named distributions (uni-*, exp-*, bimo-*, uniform(..))"));
    }
    let mut rng = stream(p.seed, Stream::Wss);
    let data: Vec<u64> = match p.wss.as_ref().unwrap_or(&PREM_DATA) {
        WssSpec::List(v) => (0..n).map(|_| rng.choose(v).map_or(1, |s| s.0)).collect(),
        WssSpec::Uniform(lo, hi) => (0..n).map(|_| rng.range_u64(lo.0.max(1), hi.0.max(lo.0.max(1)))).collect(),
    };
    let (wg, g) = (p.wcet_granularity.0, p.period_granularity.0);
    let mut rng = stream(p.seed, Stream::Deadlines);
    let mut tasks = Vec::with_capacity(n);
    let width = n.to_string().len();
    for i in 0..n {
        let sections = prem.sections(data[i], wg);
        let mut segments = Vec::with_capacity(3 * sections.len());
        for s in &sections {
            let mem = |ns: u64| Segment { kind: SegmentKind::Memory, length: Duration(ns), preemptible: true };
            segments.push(mem(s.prefetch));
            segments.push(Segment::exec(Duration(s.exec)));
            if s.writeback > 0 {
                segments.push(mem(s.writeback));
            }
        }
        let c: u64 = segments.iter().fold(0u64, |a, s| a.saturating_add(s.length.0));
        let u = utils[i];
        if !(u > 0.0 && u <= 1.0) {
            return Err(invalid(format!("task {i} drew utilisation {u}; --prem needs each in (0, 1]")));
        }
        let t = (((c as f64 / u) / g as f64).ceil() as u64).max(1).saturating_mul(g).max(c);
        let d = deadline(&mut rng, p.deadlines, c, t, wg)?;
        let mut task = Task::new(format!("T{:0width$}", i + 1), Duration(c), Duration(t));
        if d != t {
            task.deadline = Some(Duration(d));
        }
        task.cpu = Some(i as u32);
        task.memory_priority = Some(i as u32 + 1);
        task.memory_mode = Some(match prem.mode {
            PremMode::Smp => MemoryMode::Smp,
            PremMode::Amp => MemoryMode::Amp,
        });
        task.wss = Some(Size(data[i]));
        task.segments = Some(segments);
        tasks.push(task);
    }
    finish(p, PolicyName::Mcs, None, None, tasks, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::GenOptions;

    fn gen(o: GenOptions) -> Spec {
        generate(&o.into_params().unwrap()).unwrap()
    }

    fn prem(cpus: u32, util: f64, wss: &str, prem: &str) -> Result<Spec, String> {
        let o = GenOptions {
            seed: Some(5),
            cpus: Some(cpus),
            policy: Some(PolicyName::Mcs),
            util: Some(util),
            wss: Some(wss.into()),
            prem: Some(prem.into()),
            ..Default::default()
        };
        generate(&o.into_params()?).map_err(|e| e.to_string())
    }

    #[test]
    fn prem_sets_are_the_papers_one_task_per_cpu() {
        let spec = prem(4, 1.2, "list:800KiB", "default").unwrap();
        assert_eq!(spec.tasks.len(), 4);
        assert_eq!(spec.policy.as_ref().unwrap().name, PolicyName::Mcs);
        for (i, t) in spec.tasks.iter().enumerate() {
            assert_eq!(
                (t.cpu, t.memory_priority, t.memory_mode()),
                (Some(i as u32), Some(i as u32 + 1), MemoryMode::Smp)
            );
            assert_eq!(t.wss, Some(Size(800 << 10)));
            // 800 KB in Sections of 200 KB: 4 Sections P E W.
            let secs = schedlab_model::spec::prem::sections(&t.segments()).unwrap();
            assert_eq!(secs.len(), 4);
            // 200 KiB at 1 GiB/s: 190.735 µs, up to 191 µs; at 100 MiB/s: 1953.125 µs, up to 1954 µs.
            assert!(secs.iter().all(|s| (s.prefetch.0, s.exec.0, s.writeback.0) == (191_000, 1_954_000, 191_000)));
            assert!(t.period.0 >= t.wcet.0 && t.period.0.is_multiple_of(1_000_000));
        }
        // T = C/u rounded up to 1 ms: the utilisations add up to 1.2 less the rounding.
        let u: f64 = spec.tasks.iter().map(|t| t.wcet.0 as f64 / t.period.0 as f64).sum();
        assert!(u <= 1.2 && u > 1.0, "{u}");
        let again = prem(4, 1.2, "list:800KiB", "default").unwrap();
        assert_eq!(schedlab_model::emit::to_yaml(&spec), schedlab_model::emit::to_yaml(&again));
        // The recorded options give the same set.
        let args = spec.meta.as_ref().unwrap().generator.clone().unwrap();
        assert!(
            args.contains("--policy mcs") && args.contains("--prem mode=smp,partition=256KiB,section=200KiB"),
            "{args}"
        );
        // One task per CPU by default, periods from the utilisations: neither is recorded.
        assert!(!args.contains("--tasks") && !args.contains("--periods"), "{args}");
    }

    #[test]
    fn amp_sets_leave_the_master_cpu_free_and_halve_the_sections() {
        let spec = prem(4, 1.0, "list:800KiB", "mode=amp").unwrap();
        assert_eq!(spec.tasks.len(), 3);
        assert!(spec.tasks.iter().all(|t| t.memory_mode() == MemoryMode::Amp && t.cpu < Some(3)));
        let secs = schedlab_model::spec::prem::sections(&spec.tasks[0].segments()).unwrap();
        assert_eq!(secs.len(), 8);
        // Read-only data: no write-backs.
        let spec = prem(2, 0.5, "list:400KiB", "write=0").unwrap();
        assert!(spec.tasks[0].segments().len() == 4);
    }

    #[test]
    fn prem_options_that_cannot_hold_are_errors() {
        let e = |cpus: u32, wss: &str, pr: &str, f: fn(&mut GenOptions)| {
            let mut o = GenOptions {
                cpus: Some(cpus),
                policy: Some(PolicyName::Mcs),
                wss: Some(wss.into()),
                prem: Some(pr.into()),
                ..Default::default()
            };
            f(&mut o);
            match o.into_params() {
                Err(e) => e,
                Ok(p) => generate(&p).unwrap_err().to_string(),
            }
        };
        assert!(e(2, "list:1MiB", "default", |o| o.policy = Some(PolicyName::Pfp)).contains("add --policy mcs"));
        assert!(e(2, "list:1MiB", "default", |o| o.tasks = Some(3)).contains("between 1 and 2"));
        assert!(e(2, "list:1MiB", "mode=amp", |o| o.tasks = Some(2)).contains("but the master"));
        assert!(
            e(2, "list:1MiB", "default", |o| o.utils = Some("uni-light".into())).contains("one utilisation per task")
        );
        assert!(e(2, "list:1MiB", "default", |o| o.harmonic = Some(true)).contains("--harmonic"));
        assert!(e(2, "list:1MiB", "sections=1", |_| ()).starts_with("prem: unknown PREM key `sections`"));
    }

    #[test]
    fn defaults_give_a_valid_recorded_spec() {
        let s = generate(&GenParams::default()).unwrap();
        assert_eq!(s.tasks.len(), 10);
        let meta = s.meta.as_ref().unwrap();
        assert_eq!(meta.seed, Some(1));
        assert!(meta.generator.as_ref().unwrap().contains("--utils uunifast-discard"));
        for t in &s.tasks {
            assert!(t.wcet.0 > 0 && t.wcet <= t.period);
            assert_eq!(t.period.0 % 1_000_000, 0);
            assert!((10_000_000..=100_000_000).contains(&t.period.0));
            assert_eq!(t.wcet.0 % 1_000, 0);
        }
        // Rounding WCETs up to 1us moves the total by at most n·1us/Tmin.
        let u: f64 = s.tasks.iter().map(|t| t.utilization()).sum();
        assert!((2.0..2.0 + 10.0 * 1e-3 / 10.0).contains(&u), "{u}");
    }

    #[test]
    fn same_seed_same_set_other_seed_other_set() {
        let a = gen(GenOptions { seed: Some(7), ..Default::default() });
        let b = gen(GenOptions { seed: Some(7), ..Default::default() });
        let c = gen(GenOptions { seed: Some(8), ..Default::default() });
        assert_eq!(a, b);
        assert_ne!(a.tasks, c.tasks);
    }

    #[test]
    fn streams_are_independent() {
        // Asking for working-set sizes does not change utilisations or periods.
        let a = gen(GenOptions { seed: Some(3), ..Default::default() });
        let b = gen(GenOptions { seed: Some(3), wss: Some("list:32KiB,64KiB".into()), ..Default::default() });
        for (x, y) in a.tasks.iter().zip(&b.tasks) {
            assert_eq!((x.wcet, x.period), (y.wcet, y.period));
            assert!(y.wss.is_some());
        }
    }

    #[test]
    fn named_distributions_fill_to_the_cap() {
        for (dist, slack) in [("uni-light", 0.07), ("uni-medium", 0.07), ("bimo-heavy", 0.1), ("exp-medium", 0.07)] {
            for seed in 0..20 {
                let s = gen(GenOptions {
                    seed: Some(seed),
                    cpus: Some(8),
                    utils: Some(dist.into()),
                    util: Some(4.0),
                    ..Default::default()
                });
                // The drawn utilisations lie in [cap − slack, cap]; WCETs round up by < 1us/3ms each.
                let u: f64 = s.tasks.iter().map(|t| t.utilization()).sum();
                let rounding = s.tasks.len() as f64 * 1e-3 / 10.0;
                assert!(u >= 4.0 - slack - 1e-9 && u <= 4.0 + rounding, "{dist} seed {seed}: {u}");
            }
        }
    }

    #[test]
    fn constrained_deadlines_harmonic_periods_colours() {
        let s = gen(GenOptions {
            seed: Some(5),
            tasks: Some(30),
            deadlines: Some("constrained".into()),
            harmonic: Some(true),
            periods: Some("long".into()),
            cache: Some("8MiB/16/64B".into()),
            colors_per_task: Some(8),
            ..Default::default()
        });
        let max = s.tasks.iter().map(|t| t.period.0).max().unwrap();
        for t in &s.tasks {
            assert!(t.wcet <= t.deadline() && t.deadline() <= t.period, "{t:?}");
            assert_eq!(max % t.period.0, 0, "periods must be harmonic");
            assert_eq!(t.colors.as_ref().unwrap().count(), 8);
            assert!(t.colors.as_ref().unwrap().max().unwrap() < 128);
        }
        assert!(s.tasks.iter().any(|t| t.deadline.is_some()));
    }

    #[test]
    fn impossible_options_are_errors_not_panics() {
        let bad = [
            GenOptions { cpus: Some(0), ..Default::default() },
            GenOptions { util: Some(-1.0), ..Default::default() },
            GenOptions { util: Some(f64::NAN), ..Default::default() },
            GenOptions { util: Some(20.0), tasks: Some(4), ..Default::default() },
            GenOptions { tasks: Some(0), ..Default::default() },
            GenOptions { utils: Some("uni-heavy".into()), tasks: Some(3), ..Default::default() },
            GenOptions { utils: Some("randfixedsum".into()), umin: Some(0.5), umax: Some(0.4), ..Default::default() },
            GenOptions { cluster_size: Some(3), ..Default::default() },
            GenOptions { policy: Some(schedlab_model::PolicyName::Cedf), ..Default::default() },
            GenOptions { colors_per_task: Some(3), ..Default::default() },
            GenOptions { cache: Some("8MiB/16/64B".into()), colors_per_task: Some(500), ..Default::default() },
            GenOptions { periods: Some("list:10ms".into()), harmonic: Some(true), ..Default::default() },
            GenOptions { slack: Some(0.1), ..Default::default() },
        ];
        for o in bad {
            let d = format!("{o:?}");
            if let Ok(p) = o.into_params() {
                assert!(generate(&p).is_err(), "accepted {d}");
            }
        }
        for (field, o) in [
            ("utils", GenOptions { utils: Some("uunifast-dicard".into()), ..Default::default() }),
            ("periods", GenOptions { periods: Some("medium".into()), ..Default::default() }),
            ("deadlines", GenOptions { deadlines: Some("implict".into()), ..Default::default() }),
            ("wss", GenOptions { wss: Some("uniform:1MB-2MB".into()), ..Default::default() }),
        ] {
            let e = o.into_params().unwrap_err();
            assert!(e.starts_with(field), "{e}");
        }
    }
}
