//! The experiment file: what to generate (a grid over the options of
//! `schedlab gen`), how many sets per point, the seed, and what to evaluate
//! on each set. YAML or JSON; a JSON Schema is generated from these types
//! (`docs/experiment.schema.json`). Errors name the file, the line and column,
//! the field path and the fix, as spec errors do.

use schedlab_admission::partition::Heuristic;
use schedlab_analysis::accounting::Method;
use schedlab_analysis::schedulability::{find, ClusterFit};
use schedlab_model::source::{self, Format, Node};
use schedlab_model::{Diagnostic, Duration, PolicyName, Size, SpecError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// An experiment error: the file, and each problem with its field path and place.
pub type ExperimentError = SpecError;

/// A generator parameter: one value, a list of values (a grid axis), or, for
/// numbers, an inclusive range `{from, to, step}` (a grid axis).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Param<T> {
    Range { from: f64, to: f64, step: f64 },
    Many(Vec<T>),
    One(T),
}

/// The options of `schedlab gen` (docs/generators.md), each a value or a
/// grid axis. Omitted options take `schedlab gen`'s defaults.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Generator {
    /// CPUs of the platform.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpus: Option<Param<u32>>,
    /// Utilisation method or named distribution (`uni-light`, `bimo-medium(0.1)`, `uunifast-discard`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub utils: Option<Param<String>>,
    /// Period distribution (`short`, `moderate`, `long`, `uniform:LO-HI`, `log-uniform:LO-HI`, `list:...`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub periods: Option<Param<String>>,
    /// `implicit` or `constrained`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadlines: Option<Param<String>>,
    /// Working-set sizes (`list:32KiB,64KiB`, `uniform:LO-HI`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wss: Option<Param<String>>,
    /// PREM sets for memory-centric scheduling (`schedlab gen --prem`: one
    /// task per CPU, Sections of prefetch, execution and write-back; e.g.
    /// `mode=smp,section=200KiB,compute=1GiB/s`, or `default`). The sets
    /// are drawn by `schedlab gen --policy mcs --prem ...` itself; `wss`
    /// is each task's data size. Needs a vector `utils` (`uunifast-discard`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prem: Option<Param<String>>,
    /// Number of tasks (vector methods only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<Param<u32>>,
    /// Slack below the cap (named distributions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slack: Option<Param<f64>>,
    /// Per-task utilisation bounds (randfixedsum, drs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub umin: Option<Param<f64>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub umax: Option<Param<f64>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub period_granularity: Option<Param<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wcet_granularity: Option<Param<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub harmonic: Option<Param<bool>>,
    /// Total utilisation (vector methods) or the cap (named distributions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub util: Option<Param<f64>>,
    /// The utilisation (or cap) as a fraction of the CPUs: util = f × cpus
    /// (instead of `util`; e.g. the RUN study's U/m axis).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub util_per_cpu: Option<Param<f64>>,
    /// Slack as a fraction of the CPUs: slack = s × cpus (instead of `slack`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slack_per_cpu: Option<Param<f64>>,
}

/// A scheduler to decide: a schedulability test by registry ID, with its
/// packing heuristics, admission test and clusters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scheduler {
    /// The name in the results (`G-EDF`, `P-EDF`, ...).
    pub name: String,
    /// A test by registry ID (`schedlab tests` lists them), e.g. `gedf.any`, `pedf.util`, `cedf.global`.
    pub test: String,
    /// Packing heuristics tried in turn (`ffd`, `bfd`, `wfd`, `nfd`, `ff`, ...); default FFD, BFD, WFD.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub heuristics: Vec<String>,
    /// The uniprocessor test of `*.admit` entries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub admission: Option<String>,
    /// Clustered tests: CPUs per cluster (must divide the CPUs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster_size: Option<u32>,
    /// Clustered tests: the global tests of a cluster (default every `gedf.*` test).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cluster_tests: Vec<String>,
    /// Clustered tests: `capacity` (pack by utilisation, then test) or `schedulable` (test-driven; default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster_fit: Option<String>,
    /// Tests the combined G-EDF test (`gedf.any`, also as a cluster test)
    /// leaves out for sets of some utilisation distributions, e.g.
    /// `[{test: gedf.bar, utils: [uni-light]}]` as the EPOS thesis did.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skip: Vec<Skip>,
}

/// A test left out for the sets of some utilisation distributions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Skip {
    /// A test of `gedf.any` by registry ID, e.g. `gedf.bar`.
    pub test: String,
    /// The utilisation distributions (as in `generator.utils`) whose sets leave it out.
    pub utils: Vec<String>,
}

/// An overhead model: none (ideal) or an overhead file with its accounting.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OverheadModel {
    /// The name in the results (`none`, `epos`, `litmus`, ...).
    pub name: String,
    /// An overhead CSV (docs/overheads.md), relative to the experiment file; none: no overheads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<PathBuf>,
    /// Per-scheduler overhead files (scheduler name → CSV), overriding `file`
    /// for those schedulers (measured overheads differ by scheduler).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub files: std::collections::BTreeMap<String, PathBuf>,
    /// `epos` (Eq. 2/3, default) or `per-task-release`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// Task-count look-up: `step` (default: the row at or above n), `floor`
    /// (the row at or below n, the EPOS thesis' rule) or `linear`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lookup: Option<String>,
    /// Tick period Q (default 1ms; `0ns`: no tick).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tick: Option<Duration>,
}

/// A simulation of every set under a policy, with the metrics to keep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Simulation {
    /// The name in the results.
    pub name: String,
    /// The policy (`gedf`, `pedf`, `cedf`, `gfp`, `pd2`, `run`, ...).
    pub policy: PolicyName,
    /// Simulated time (default: the hyperperiod, at most 10 s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub horizon: Option<Duration>,
    /// Clustered policies: CPUs per cluster.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster_size: Option<u32>,
    /// Metrics kept (default all): `misses`, `miss-ratio`, `tardiness`, `preemptions`, `migrations`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub metrics: Vec<String>,
    /// `mcs` on PREM sets: `false` runs without the memory-phase scheduler
    /// (the paper's Contention baseline: memory phases contend for memory).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mps: Option<bool>,
    /// `mcs` on PREM sets: `amp` simulates the set drawn with the same seed
    /// and options but `mode=amp` (the same utilisations and data sizes, the
    /// A-MP Sections: a paired S-MP/A-MP comparison); `smp` likewise with
    /// `mode=smp`. Default: the set as generated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_mode: Option<String>,
    /// `mcs` on PREM sets: the platform's main memory (e.g. `{bandwidth: 1GiB/s}`),
    /// so that memory accesses running together stretch one another.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<schedlab_model::spec::Memory>,
    /// `mcs` on PREM sets: the platform's shared cache (the tasks' data stays
    /// in their partitions: the simulated tasks have no working sets).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<schedlab_model::spec::Cache>,
}

/// The simulation metrics, in column order.
pub const SIM_METRICS: &[&str] = &["misses", "miss-ratio", "tardiness", "preemptions", "migrations"];

/// An experiment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Experiment {
    /// A short name (used in reports).
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The experiment seed: every set's seed derives from it and its point.
    pub seed: u64,
    /// Task sets per grid point.
    pub samples: u32,
    /// What to generate: `schedlab gen`'s options, lists and ranges are grid axes.
    pub generator: Generator,
    /// Schedulability tests to decide on every set.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub schedulers: Vec<Scheduler>,
    /// Overhead models the tests account for (default: none, i.e. ideal).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub overheads: Vec<OverheadModel>,
    /// CPMD study: the working-set size every task gets, one evaluation per
    /// value (the thesis' bound ⌈WSS/64 B⌉ × 200 cycles at 3.4 GHz unless the
    /// overhead file has a WSS table). Default: the generated WSS.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cpmd: Vec<Size>,
    /// Simulations to run on every set.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub simulations: Vec<Simulation>,
    /// Sets per chunk (the unit of work, checkpoint and Ray task); default 256.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chunk: Option<u32>,
}

/// An experiment with the files it names resolved and its values checked.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub experiment: Experiment,
    /// The file name as given.
    pub file: String,
    /// The folder relative paths start from.
    pub base: PathBuf,
    /// The file's text (recorded in reports).
    pub text: String,
}

/// The JSON Schema of the experiment file, pretty, with a final newline.
pub fn schema_json() -> String {
    let mut s = serde_json::to_string_pretty(&schemars::schema_for!(Experiment)).expect("a schema serializes");
    s.push('\n');
    s
}

/// Loads an experiment file.
pub fn load_path(path: &Path) -> Result<Loaded, ExperimentError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| SpecError::one(&file, Diagnostic::new("", format!("cannot read the experiment file: {e}"))))?;
    let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
    load_str(&text, Some(Format::from_path(path)), &file, &base)
}

/// Loads an experiment from text; `base` is the folder of relative paths.
pub fn load_str(text: &str, format: Option<Format>, file: &str, base: &Path) -> Result<Loaded, ExperimentError> {
    let tree = schedlab_model::load::parse_positioned(text, format, file)?;
    let experiment: Experiment = source::deserialize(&tree).map_err(|(path, e)| {
        let mark = e.mark.unwrap_or_else(|| tree.locate(&path));
        SpecError::one(file, Diagnostic { path, line: Some(mark.line), column: Some(mark.col), message: e.message })
    })?;
    let problems = check(&experiment, base);
    if !problems.is_empty() {
        return Err(SpecError {
            file: file.to_string(),
            diagnostics: problems.into_iter().map(|(p, m)| at(&tree, p, m)).collect(),
        });
    }
    Ok(Loaded { experiment, file: file.to_string(), base: base.to_path_buf(), text: text.to_string() })
}

fn at(tree: &Node, path: String, message: String) -> Diagnostic {
    let m = tree.locate(&path);
    Diagnostic { path, line: Some(m.line), column: Some(m.col), message }
}

/// The values serde cannot check: names, test IDs, generator words, files.
fn check(e: &Experiment, base: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if e.samples == 0 {
        out.push(("samples".into(), "must be at least 1".into()));
    }
    if e.chunk == Some(0) {
        out.push(("chunk".into(), "must be at least 1 set".into()));
    }
    if e.schedulers.is_empty() && e.simulations.is_empty() {
        out.push(("schedulers".into(), "nothing to evaluate: give `schedulers` or `simulations`".into()));
    }
    if let Err((p, m)) = crate::grid::check(&e.generator) {
        out.push((format!("generator.{p}"), m));
    }
    out.extend(crate::prem::check_experiment(e));
    let mut names = std::collections::HashSet::new();
    for (i, s) in e.schedulers.iter().enumerate() {
        let p = format!("schedulers[{i}]");
        if !names.insert(s.name.clone()) {
            out.push((format!("{p}.name"), format!("`{}` is used twice; give each scheduler its own name", s.name)));
        }
        if find(&s.test).is_none() {
            out.push((format!("{p}.test"), format!("no test `{}`; `schedlab tests` lists them", s.test)));
        }
        for (j, h) in s.heuristics.iter().enumerate() {
            if let Err(m) = h.parse::<Heuristic>() {
                out.push((format!("{p}.heuristics[{j}]"), m));
            }
        }
        if let Some(a) = &s.admission {
            if find(a).is_none() {
                out.push((format!("{p}.admission"), format!("no test `{a}`; give a `uni.*` test")));
            }
        }
        for (j, t) in s.cluster_tests.iter().enumerate() {
            if find(t).is_none() {
                out.push((format!("{p}.cluster_tests[{j}]"), format!("no test `{t}`; give `gedf.*` or `gfp.*` tests")));
            }
        }
        if let Some(f) = &s.cluster_fit {
            if cluster_fit(f).is_none() {
                out.push((format!("{p}.cluster_fit"), format!("`{f}`: write `capacity` or `schedulable`")));
            }
        }
        if s.cluster_size == Some(0) {
            out.push((format!("{p}.cluster_size"), "must be at least 1".into()));
        }
        for (j, k) in s.skip.iter().enumerate() {
            let order = schedlab_analysis::schedulability::gedf::combined::ORDER;
            if !order.contains(&k.test.as_str()) {
                out.push((
                    format!("{p}.skip[{j}].test"),
                    format!("`{}` is not a test of gedf.any; give one of {}", k.test, order.join(", ")),
                ));
            }
            for (u, name) in k.utils.iter().enumerate() {
                if let Err(m) = name.parse::<schedlab_gen::UtilMethod>() {
                    out.push((format!("{p}.skip[{j}].utils[{u}]"), m.to_string()));
                }
            }
        }
        if (s.test.starts_with("cedf.") || s.test.starts_with("cfp.")) && s.cluster_size.is_none() {
            out.push((format!("{p}.cluster_size"), format!("`{}` is clustered: give `cluster_size`", s.test)));
        }
    }
    let mut names = std::collections::HashSet::new();
    for (i, o) in e.overheads.iter().enumerate() {
        let p = format!("overheads[{i}]");
        if !names.insert(o.name.clone()) {
            out.push((format!("{p}.name"), format!("`{}` is used twice", o.name)));
        }
        if let Some(l) = &o.lookup {
            if lookup(l).is_none() {
                out.push((format!("{p}.lookup"), format!("`{l}`: write `step`, `floor` or `linear`")));
            }
        }
        if let Some(m) = &o.method {
            if let Err(msg) = m.parse::<Method>() {
                out.push((format!("{p}.method"), msg));
            }
        }
        let files = o
            .file
            .iter()
            .map(|f| (format!("{p}.file"), f))
            .chain(o.files.iter().map(|(k, f)| (format!("{p}.files.{k}"), f)));
        for (at, f) in files {
            if !base.join(f).is_file() {
                out.push((
                    at,
                    format!("`{}` does not exist; give a path relative to the experiment file", base.join(f).display()),
                ));
            }
        }
        for k in o.files.keys() {
            if !e.schedulers.iter().any(|s| &s.name == k) {
                out.push((format!("{p}.files.{k}"), format!("no scheduler is named `{k}`")));
            }
        }
        if o.file.is_none() && !o.files.is_empty() && o.files.len() < e.schedulers.len() {
            out.push((format!("{p}.file"), "give `file` for the schedulers `files` does not name".into()));
        }
    }
    let mut names = std::collections::HashSet::new();
    for (i, s) in e.simulations.iter().enumerate() {
        let p = format!("simulations[{i}]");
        if !names.insert(s.name.clone()) {
            out.push((format!("{p}.name"), format!("`{}` is used twice", s.name)));
        }
        for (j, m) in s.metrics.iter().enumerate() {
            if !SIM_METRICS.contains(&m.as_str()) {
                out.push((
                    format!("{p}.metrics[{j}]"),
                    format!("unknown metric `{m}`; known: {}", SIM_METRICS.join(", ")),
                ));
            }
        }
        if s.policy.domains() == schedlab_model::spec::Domains::PerCluster && s.cluster_size.is_none() {
            out.push((format!("{p}.cluster_size"), format!("`{}` is clustered: give `cluster_size`", s.policy.name())));
        }
        let prem = e.generator.prem.is_some();
        if let Some(m) = crate::prem::check_simulation(s, prem) {
            out.push((format!("{p}.{}", m.0), m.1));
        }
        if prem && s.policy != PolicyName::Mcs {
            out.push((
                format!("{p}.policy"),
                format!(
                    "`generator.prem` draws PREM sets for `mcs`; simulate them under `mcs`, not `{}`",
                    s.policy.name()
                ),
            ));
        }
        if let Some(what) = beyond_a_generated_set(s.policy).filter(|_| !(prem && s.policy == PolicyName::Mcs)) {
            out.push((
                format!("{p}.policy"),
                format!(
                    "`{}` needs {what}, which a sweep's generated sets do not have (every set would be not-applicable); simulate such specs with `schedlab simulate`, or a bench/ script{}",
                    s.policy.name(),
                    if s.policy == PolicyName::Mcs {
                        "; or draw PREM sets with `generator.prem` (e.g. `prem: default` with `utils: uunifast-discard`)"
                    } else {
                        ""
                    }
                ),
            ));
        }
    }
    out
}

/// What a policy needs beyond the tasks, CPUs and clusters a sweep
/// generates (its sets have no cache, reservations or PREM phases).
fn beyond_a_generated_set(policy: PolicyName) -> Option<&'static str> {
    match policy {
        PolicyName::Hcbs => Some("`reservations`"),
        PolicyName::CapGsDynamic => Some("a coloured shared cache and task classes"),
        PolicyName::CaGedf => Some("a shared cache and working sets"),
        PolicyName::Mcs => Some("PREM tasks (memory and execution segments, one task per CPU)"),
        _ => None,
    }
}

/// The overhead look-up of a name.
pub fn lookup(s: &str) -> Option<schedlab_model::overheads::Lookup> {
    use schedlab_model::overheads::Lookup;
    match s {
        "step" => Some(Lookup::Step),
        "floor" => Some(Lookup::Floor),
        "linear" => Some(Lookup::Linear),
        _ => None,
    }
}

/// The clustered fit reading of a name.
pub fn cluster_fit(s: &str) -> Option<ClusterFit> {
    match s {
        "capacity" => Some(ClusterFit::Capacity),
        "schedulable" => Some(ClusterFit::Schedulable),
        _ => None,
    }
}
