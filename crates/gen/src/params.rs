//! The parameters of `schedlab gen`, shared by the CLI and Python: each option
//! is a small text syntax parsed here, so both front ends accept the same
//! words and the canonical form recorded in `meta.generator` reads back.

use super::deadline::DeadlineKind;
use super::dist::UtilDist;
use super::mtt::MttGen;
use super::period::PeriodRange;
use schedlab_model::spec::PolicyName;
use schedlab_model::units::{Duration, Size};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// How task utilisations are drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum UtilMethod {
    /// UUniFast (Bini & Buttazzo 2005): n values summing to the total.
    UUniFast,
    /// UUniFast-Discard (Davis & Burns 2009): UUniFast, redrawn while any value exceeds 1.
    UUniFastDiscard,
    /// RandFixedSum (Emberson, Stafford & Davis 2010): uniform with common bounds.
    RandFixedSum,
    /// Dirichlet-Rescale (Griffin, Bate & Davis 2020): uniform with per-task bounds.
    Drs,
    /// A per-task distribution (the named ones of the UNC / EPOS studies, or
    /// `uniform(lo,hi)`), drawn until the utilisation cap.
    Named(UtilDist),
}

/// The named distributions, for messages.
pub const NAMED_DISTS: &[&str] = &[
    "uni-light",
    "uni-medium",
    "uni-heavy",
    "exp-light",
    "exp-medium",
    "exp-heavy",
    "bimo-light",
    "bimo-medium",
    "bimo-heavy",
];

impl UtilMethod {
    pub const VECTOR: &'static [&'static str] = &["uunifast", "uunifast-discard", "randfixedsum", "drs"];
    /// Methods that draw a given number of tasks for a given total; the named
    /// distributions instead draw tasks until a utilisation cap.
    pub fn is_vector(self) -> bool {
        !matches!(self, UtilMethod::Named(_))
    }
}

impl FromStr for UtilMethod {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match s.trim() {
            "uunifast" => UtilMethod::UUniFast,
            "uunifast-discard" => UtilMethod::UUniFastDiscard,
            "randfixedsum" => UtilMethod::RandFixedSum,
            "drs" => UtilMethod::Drs,
            other => match UtilDist::parse(other) {
                Ok(d) => UtilMethod::Named(d),
                Err(e) if other.contains('(') => return Err(e.to_string()),
                Err(_) => {
                    let all: Vec<&str> = Self::VECTOR.iter().chain(NAMED_DISTS).copied().collect();
                    let hint = schedlab_model::source::did_you_mean(other, &all)
                        .map(|h| format!("did you mean `{h}`? "))
                        .unwrap_or_default();
                    return Err(format!(
                        "unknown utilisation method `{other}`; {hint}use one of {}, `bimo-WEIGHT(SPLIT)` or `uniform(LO,HI)`",
                        all.join(", ")
                    ));
                }
            },
        })
    }
}

impl fmt::Display for UtilMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UtilMethod::UUniFast => f.write_str("uunifast"),
            UtilMethod::UUniFastDiscard => f.write_str("uunifast-discard"),
            UtilMethod::RandFixedSum => f.write_str("randfixedsum"),
            UtilMethod::Drs => f.write_str("drs"),
            UtilMethod::Named(d) => f.write_str(&d.name()),
        }
    }
}

/// How periods are drawn.
#[derive(Debug, Clone, PartialEq)]
pub enum PeriodSpec {
    /// Uniform over [lo, hi] in multiples of the granularity.
    Uniform(Duration, Duration),
    /// Log-uniform over [lo, hi], rounded to the granularity.
    LogUniform(Duration, Duration),
    /// Uniformly one of the listed periods.
    List(Vec<Duration>),
}

fn parse_range(s: &str) -> Result<(Duration, Duration), String> {
    let (a, b) = s.split_once('-').ok_or_else(|| format!("`{s}` is not a range; write `LO-HI`, e.g. `10ms-100ms`"))?;
    let lo: Duration = a.parse().map_err(|e: schedlab_model::units::QuantityError| e.0)?;
    let hi: Duration = b.parse().map_err(|e: schedlab_model::units::QuantityError| e.0)?;
    if lo.0 == 0 || lo > hi {
        return Err(format!("the range `{s}` needs 0 < LO ≤ HI"));
    }
    Ok((lo, hi))
}

impl FromStr for PeriodSpec {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim();
        if let Ok(r) = PeriodRange::parse(s) {
            let (lo, hi) = r.bounds_ns();
            return Ok(PeriodSpec::Uniform(Duration(lo), Duration(hi)));
        }
        let (kind, arg) = s.split_once(':').unwrap_or((s, ""));
        match kind {
            "uniform" => parse_range(arg).map(|(a, b)| PeriodSpec::Uniform(a, b)),
            "log-uniform" => parse_range(arg).map(|(a, b)| PeriodSpec::LogUniform(a, b)),
            "list" => {
                let v = arg
                    .split(',')
                    .map(|x| x.parse::<Duration>().map_err(|e| e.0))
                    .collect::<Result<Vec<_>, _>>()?;
                if v.iter().any(|d| d.0 == 0) {
                    return Err("periods must be more than 0".into());
                }
                Ok(PeriodSpec::List(v))
            }
            _ => Err(format!(
                "unknown period distribution `{s}`; use `short`, `moderate`, `long`, `uniform:LO-HI`, `log-uniform:LO-HI` or `list:P1,P2,...` (e.g. `list:25ms,50ms,100ms,200ms`)"
            )),
        }
    }
}

impl fmt::Display for PeriodSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PeriodSpec::Uniform(a, b) => {
                let named = [PeriodRange::Short, PeriodRange::Moderate, PeriodRange::Long]
                    .into_iter()
                    .find(|r| r.bounds_ns() == (a.0, b.0));
                match named {
                    Some(r) => f.write_str(r.name()),
                    None => write!(f, "uniform:{a}-{b}"),
                }
            }
            PeriodSpec::LogUniform(a, b) => write!(f, "log-uniform:{a}-{b}"),
            PeriodSpec::List(v) => write!(f, "list:{}", v.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(",")),
        }
    }
}

/// Working-set sizes.
#[derive(Debug, Clone, PartialEq)]
pub enum WssSpec {
    /// Uniform over [lo, hi], in multiples of 1 KiB.
    Uniform(Size, Size),
    /// One of the listed sizes.
    List(Vec<Size>),
}

impl FromStr for WssSpec {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim();
        let (kind, arg) = s.split_once(':').unwrap_or((s, ""));
        let size = |x: &str| x.parse::<Size>().map_err(|e| e.0);
        match kind {
            "uniform" => {
                let (a, b) = arg.split_once('-').ok_or_else(|| format!("`{arg}` is not a range; write e.g. `uniform:32KiB-256KiB`"))?;
                let (a, b) = (size(a)?, size(b)?);
                if a > b {
                    return Err(format!("the range `{arg}` needs LO ≤ HI"));
                }
                Ok(WssSpec::Uniform(a, b))
            }
            "list" => Ok(WssSpec::List(arg.split(',').map(size).collect::<Result<_, _>>()?)),
            _ => Err(format!("unknown WSS distribution `{s}`; use `uniform:LO-HI` or `list:S1,S2,...` (e.g. `list:32KiB,64KiB,128KiB,256KiB`)")),
        }
    }
}

impl fmt::Display for WssSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WssSpec::Uniform(a, b) => write!(f, "uniform:{a}-{b}"),
            WssSpec::List(v) => write!(f, "list:{}", v.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(",")),
        }
    }
}

/// Shared-cache geometry for generated platforms: `SIZE/WAYS/LINE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheSpec {
    pub size: Size,
    pub ways: u32,
    pub line: Size,
}

impl FromStr for CacheSpec {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let parts: Vec<&str> = s.split('/').collect();
        let [size, ways, line] = parts[..] else {
            return Err(format!("`{s}` is not a cache geometry; write SIZE/WAYS/LINE, e.g. `8MiB/16/64B`"));
        };
        Ok(CacheSpec {
            size: size.parse().map_err(|e: schedlab_model::units::QuantityError| e.0)?,
            ways: ways.trim().parse().map_err(|_| format!("`{ways}` is not a number of ways"))?,
            line: line.parse().map_err(|e: schedlab_model::units::QuantityError| e.0)?,
        })
    }
}

impl fmt::Display for CacheSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}/{}", self.size, self.ways, self.line)
    }
}

/// Everything `schedlab gen` needs. Every field has a default, so the
/// default value alone gives a valid spec.
#[derive(Debug, Clone, PartialEq)]
pub struct GenParams {
    pub seed: u64,
    pub cpus: u32,
    /// Cluster size; when set, the platform is split into clusters of this many CPUs.
    pub cluster_size: Option<u32>,
    pub policy: PolicyName,
    pub utils: UtilMethod,
    /// Number of tasks (vector methods only; default 10).
    pub tasks: Option<u32>,
    /// Total utilisation (vector methods) or the cap (named distributions).
    /// Default: half the CPUs.
    pub util: Option<f64>,
    /// Slack below the cap for named distributions; default per distribution.
    pub slack: Option<f64>,
    /// Per-task utilisation bounds (randfixedsum, drs).
    pub umin: f64,
    pub umax: f64,
    pub periods: PeriodSpec,
    /// Periods are multiples of this; default 1 ms.
    pub period_granularity: Duration,
    /// Make all periods divide each other.
    pub harmonic: bool,
    pub deadlines: DeadlineKind,
    /// WCETs are rounded up to a multiple of this; default 1 µs.
    pub wcet_granularity: Duration,
    pub wss: Option<WssSpec>,
    pub cache: Option<CacheSpec>,
    /// Colours per task (needs a cache), drawn at random without repetition.
    pub colors_per_task: Option<u32>,
    /// Draw multithreaded tasks (Calandrino's random MTT sets, `crate::mtt`)
    /// instead of independent tasks.
    pub mtt: Option<MttGen>,
    /// PREM tasks for memory-centric scheduling ([`crate::prem`]): one task
    /// per CPU, its `--wss` the data its Sections split.
    pub prem: Option<super::prem::PremSpec>,
}

impl Default for GenParams {
    fn default() -> Self {
        GenParams {
            seed: 1,
            cpus: 4,
            cluster_size: None,
            policy: PolicyName::Gedf,
            utils: UtilMethod::UUniFastDiscard,
            tasks: None,
            util: None,
            slack: None,
            umin: 0.0,
            umax: 1.0,
            periods: PeriodSpec::Uniform(Duration::from_ms(10), Duration::from_ms(100)),
            period_granularity: Duration::from_ms(1),
            harmonic: false,
            deadlines: DeadlineKind::Implicit,
            wcet_granularity: Duration::from_us(1),
            wss: None,
            cache: None,
            colors_per_task: None,
            mtt: None,
            prem: None,
        }
    }
}

/// Tasks drawn by the vector methods when `--tasks` is not given.
pub const DEFAULT_TASKS: u32 = 10;

impl GenParams {
    /// The total utilisation or cap in force.
    pub fn util_or_default(&self) -> f64 {
        self.util.unwrap_or(self.cpus as f64 * 0.5)
    }

    /// The canonical option string (recorded in `meta.generator`); feeding it
    /// back to `schedlab gen` with the same seed gives the same spec.
    pub fn to_args(&self) -> String {
        let mut a = vec![format!("--cpus {}", self.cpus)];
        if let Some(c) = self.cluster_size {
            a.push(format!("--cluster-size {c}"));
        }
        a.push(format!("--policy {}", self.policy.name()));
        if let Some(g) = &self.mtt {
            a.push(format!("--mtt {g}"));
        } else {
            a.push(format!("--utils {}", self.utils));
        }
        if let Some(n) = self.tasks {
            a.push(format!("--tasks {n}"));
        } else if self.utils.is_vector() && self.mtt.is_none() && self.prem.is_none() {
            // (`--prem` puts one task per CPU when --tasks is not given.)
            a.push(format!("--tasks {DEFAULT_TASKS}"));
        }
        a.push(format!("--util {}", self.util_or_default()));
        if let Some(s) = self.slack {
            a.push(format!("--slack {s}"));
        }
        if matches!(self.utils, UtilMethod::RandFixedSum | UtilMethod::Drs) && self.mtt.is_none() {
            a.push(format!("--umin {} --umax {}", self.umin, self.umax));
        }
        if self.prem.is_none() {
            // (`--prem` derives the periods from the utilisations.)
            a.push(format!("--periods {}", self.periods));
        }
        a.push(format!("--period-granularity {}", self.period_granularity));
        if self.harmonic {
            a.push("--harmonic".into());
        }
        a.push(format!("--deadlines {}", self.deadlines.name()));
        a.push(format!("--wcet-granularity {}", self.wcet_granularity));
        if let Some(w) = &self.wss {
            a.push(format!("--wss {w}"));
        }
        if let Some(c) = &self.cache {
            a.push(format!("--cache {c}"));
        }
        if let Some(k) = self.colors_per_task {
            a.push(format!("--colors-per-task {k}"));
        }
        if let Some(p) = &self.prem {
            a.push(format!("--prem {p}"));
        }
        a.join(" ")
    }
}

/// The serializable form used by Python (`schedlab.generate(**kwargs)`):
/// every field optional, each a number or the same text the CLI takes.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GenOptions {
    pub seed: Option<u64>,
    pub cpus: Option<u32>,
    pub cluster_size: Option<u32>,
    pub policy: Option<PolicyName>,
    pub utils: Option<String>,
    pub tasks: Option<u32>,
    pub util: Option<f64>,
    pub slack: Option<f64>,
    pub umin: Option<f64>,
    pub umax: Option<f64>,
    pub periods: Option<String>,
    pub period_granularity: Option<String>,
    pub harmonic: Option<bool>,
    pub deadlines: Option<String>,
    pub wcet_granularity: Option<String>,
    pub wss: Option<String>,
    pub cache: Option<String>,
    pub colors_per_task: Option<u32>,
    pub mtt: Option<String>,
    pub prem: Option<String>,
}

impl GenOptions {
    /// Resolves the options over the defaults; the error names the option.
    pub fn into_params(self) -> Result<GenParams, String> {
        fn p<T: FromStr>(name: &str, v: Option<String>, d: T) -> Result<T, String>
        where
            T::Err: fmt::Display,
        {
            match v {
                None => Ok(d),
                Some(s) => s.parse().map_err(|e| format!("{name}: {e}")),
            }
        }
        let d = GenParams::default();
        let dur = |name: &str, v: Option<String>, d: Duration| -> Result<Duration, String> {
            match v {
                None => Ok(d),
                Some(s) => s.parse().map_err(|e: schedlab_model::units::QuantityError| format!("{name}: {e}")),
            }
        };
        Ok(GenParams {
            seed: self.seed.unwrap_or(d.seed),
            cpus: self.cpus.unwrap_or(d.cpus),
            cluster_size: self.cluster_size,
            policy: self.policy.unwrap_or(d.policy),
            utils: p("utils", self.utils, d.utils)?,
            tasks: self.tasks,
            util: self.util,
            slack: self.slack,
            umin: self.umin.unwrap_or(d.umin),
            umax: self.umax.unwrap_or(d.umax),
            periods: p("periods", self.periods, d.periods)?,
            period_granularity: dur("period_granularity", self.period_granularity, d.period_granularity)?,
            harmonic: self.harmonic.unwrap_or(false),
            deadlines: match self.deadlines {
                None => d.deadlines,
                Some(s) => DeadlineKind::parse(&s).map_err(|e| format!("deadlines: {e}"))?,
            },
            wcet_granularity: dur("wcet_granularity", self.wcet_granularity, d.wcet_granularity)?,
            wss: self.wss.map(|s| s.parse().map_err(|e| format!("wss: {e}"))).transpose()?,
            cache: self.cache.map(|s| s.parse().map_err(|e| format!("cache: {e}"))).transpose()?,
            colors_per_task: self.colors_per_task,
            mtt: self.mtt.map(|s| s.parse().map_err(|e| format!("mtt: {e}"))).transpose()?,
            prem: self.prem.map(|s| s.parse().map_err(|e| format!("prem: {e}"))).transpose()?,
        })
    }
}
