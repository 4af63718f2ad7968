//! The policy section: which scheduler, and its parameters.

use super::capacity::Capacity;
use crate::units::{Duration, Size};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Scheduling policies schedlab knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum PolicyName {
    /// Global EDF.
    Gedf,
    /// Partitioned EDF.
    Pedf,
    /// Clustered EDF.
    Cedf,
    /// Global fixed priority.
    Gfp,
    /// Partitioned fixed priority.
    Pfp,
    /// Clustered fixed priority.
    Cfp,
    /// Non-preemptive global EDF.
    NpGedf,
    /// Global least-laxity first.
    Llf,
    /// Partitioned least-laxity first.
    Pllf,
    /// EDF until zero laxity (global).
    Edzl,
    /// Fixed priority with deferred preemption (partitioned).
    Fpds,
    /// Fixed priority with deferred preemption (global).
    GFpds,
    /// Non-preemptive fixed priority (partitioned).
    Fpns,
    /// PD^2 Pfair (global, quantum-based).
    Pd2,
    /// RUN: reduction to uniprocessor (global, server-based).
    Run,
    /// H-CBS hierarchical reservations: per CPU one hard-CBS server per
    /// group of `reservations`, EDF among servers, fixed priority inside a group.
    Hcbs,
    /// The EPOS thesis' two-phase colour-aware scheduler (Ch.8): CAP-GS
    /// offline, then P-FP with a counter-driven best-effort throttle.
    CapGsDynamic,
    /// Calandrino's cache-aware global EDF (2009, Ch.4): quantum-driven,
    /// job promotions that keep multithreaded tasks whose working sets
    /// together exceed the shared cache apart, phantom tasks; the
    /// heuristic of the thesis' LITMUS^RT implementation by default.
    CaGedf,
    /// Memory-centric scheduling (HIPPEROS, ECRTS 2019): partitioned fixed
    /// priority on the CPUs, and a system-wide memory-phase scheduler that
    /// lets one memory phase run at a time, by memory priority.
    Mcs,
}

/// How a policy's scheduling domains are formed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Domains {
    Global,
    PerCpu,
    PerCluster,
}

impl PolicyName {
    pub const ALL: &'static [PolicyName] = &[
        PolicyName::Gedf,
        PolicyName::Pedf,
        PolicyName::Cedf,
        PolicyName::Gfp,
        PolicyName::Pfp,
        PolicyName::Cfp,
        PolicyName::NpGedf,
        PolicyName::Llf,
        PolicyName::Pllf,
        PolicyName::Edzl,
        PolicyName::Fpds,
        PolicyName::GFpds,
        PolicyName::Fpns,
        PolicyName::Pd2,
        PolicyName::Run,
        PolicyName::Hcbs,
        PolicyName::CapGsDynamic,
        PolicyName::CaGedf,
        PolicyName::Mcs,
    ];
    pub fn name(self) -> &'static str {
        match self {
            PolicyName::Gedf => "gedf",
            PolicyName::Pedf => "pedf",
            PolicyName::Cedf => "cedf",
            PolicyName::Gfp => "gfp",
            PolicyName::Pfp => "pfp",
            PolicyName::Cfp => "cfp",
            PolicyName::NpGedf => "np-gedf",
            PolicyName::Llf => "llf",
            PolicyName::Pllf => "pllf",
            PolicyName::Edzl => "edzl",
            PolicyName::Fpds => "fpds",
            PolicyName::GFpds => "g-fpds",
            PolicyName::Fpns => "fpns",
            PolicyName::Pd2 => "pd2",
            PolicyName::Run => "run",
            PolicyName::Hcbs => "hcbs",
            PolicyName::CapGsDynamic => "cap-gs-dynamic",
            PolicyName::CaGedf => "ca-gedf",
            PolicyName::Mcs => "mcs",
        }
    }
    /// How its scheduling domains are formed (its descriptor's).
    pub fn domains(self) -> Domains {
        self.descriptor().domains
    }
    /// Whether the policy preempts a job only between its segments (the
    /// deferred-preemption family, and FPNS whose jobs are one segment
    /// each), so a segment is never preempted; the others preempt anywhere
    /// and do not honour `preemptible: false` yet.
    pub fn preempts_at_points_only(self) -> bool {
        use super::descriptor::{Family, PreemptionKind};
        let d = self.descriptor();
        d.preemption == PreemptionKind::AtPoints || (d.family == Family::Fp && d.preemption == PreemptionKind::None)
    }
    /// Policies with task priorities, which use `priorities`: the
    /// fixed-priority family, and H-CBS inside its groups.
    pub fn is_fixed_priority(self) -> bool {
        use super::descriptor::Family;
        matches!(self.descriptor().family, Family::Fp | Family::Hcbs)
    }
}

/// PD^2 megatasks (Calandrino 2009 §3.2.1): which tasks form each
/// megatask, scheduled as one entity by PD^2 and among themselves by PD^2.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Megatasks {
    /// `greedy`: the dissertation's packing, from the tasks' (or their
    /// MTTs') working-set sizes and the platform's cache size.
    Packing(MegataskPacking),
    /// Explicit megatasks, each a list of task names, e.g. `[[a, b], [c, d]]`;
    /// tasks in none are scheduled on their own.
    Groups(Vec<Vec<String>>),
}

/// How megatasks are formed automatically.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MegataskPacking {
    /// Tasks by decreasing working-set size, one megatask at a time: a task
    /// joins the current megatask when its utilisation stays within the same
    /// integer, or when the ⌈u⌉ largest working sets that could then run
    /// together still fit the cache; otherwise it opens a new megatask.
    Greedy,
}

/// Bin-packing heuristics for partitioned and clustered policies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Packing {
    /// First fit.
    Ff,
    /// Best fit.
    Bf,
    /// Worst fit.
    Wf,
    /// Next fit.
    Nf,
    /// First fit decreasing.
    Ffd,
    /// Best fit decreasing.
    Bfd,
    /// Worst fit decreasing.
    Wfd,
    /// Next fit decreasing.
    Nfd,
    /// Colour-aware partitioning (EPOS CAP).
    Cap,
    /// Colour-aware partitioning with group splitting (EPOS CAP-GS).
    CapGs,
}

/// Which counter the two-phase scheduler (`cap-gs-dynamic`) compares with
/// its threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ThrottleCounter {
    /// Coherence misses (HITM), as the thesis.
    #[default]
    CoherenceMisses,
    /// Last-level cache misses.
    CacheMisses,
}

impl ThrottleCounter {
    /// For people: `coherence misses`, `cache misses`.
    pub fn text(self) -> &'static str {
        match self {
            ThrottleCounter::CoherenceMisses => "coherence misses (HITM)",
            ThrottleCounter::CacheMisses => "cache misses",
        }
    }
}

/// What the two-phase scheduler does to a best-effort job that disturbs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ThrottleMode {
    /// Keep it off its CPU while a real-time task sharing its colours has
    /// an unfinished job (at most until the sample that finds none).
    #[default]
    Hold,
    /// The thesis' literal `Thread::yield()`: off its CPU until the CPU's
    /// next scheduling event (a release or completion there) or the next
    /// quantum.
    Yield,
}

/// How fixed priorities are assigned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Priorities {
    /// Rate monotonic: shorter period, higher priority.
    #[default]
    Rm,
    /// Deadline monotonic: shorter relative deadline, higher priority.
    Dm,
    /// From each task's `priority` field.
    Explicit,
}

/// The policy section of a spec: the policy's `name` and the parameters
/// that policy takes ([`PolicyName::descriptor`]). In Rust the parameters
/// are one flat set of optional fields; the spec language is a union tagged
/// by `name` — validation refuses a parameter the named policy does not take
/// (naming the field, the policy and the keys it takes), and the JSON Schema
/// lists, per name, only that policy's keys.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicySpec {
    /// The scheduler.
    pub name: PolicyName,
    /// Partitioning heuristic for partitioned and clustered policies when
    /// tasks are not pinned; default `wfd`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partitioning: Option<Packing>,
    /// Priority assignment for fixed-priority policies; default `explicit`
    /// when every task has a `priority`, else `rm`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priorities: Option<Priorities>,
    /// Scheduling quantum for quantum-based policies (PD^2); default `1ms`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quantum: Option<Duration>,
    /// PD^2: stagger the quantum boundaries of the CPUs (CPU k's boundaries
    /// are shifted by k·quantum/m) instead of aligning them; default `false`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stagger: Option<bool>,
    /// PD^2: early release (ER-PD^2): a subtask becomes eligible as soon as
    /// its predecessor ran and its job is released, not at its window's
    /// start, so no CPU idles while work is pending; default `false`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub early_release: Option<bool>,
    /// PD^2: spread minimisation for the `mtt` groups (Calandrino 2009
    /// §3.2.2): subtasks are early released by up to X − 1 quanta (X from
    /// the largest weight, Theorem 3.1) so that an MTT's tasks run their
    /// i-th quanta together; jobs may finish up to X − 1 quanta late;
    /// default `false`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spread: Option<bool>,
    /// PD^2: megatasks, `greedy` or explicit lists of task names; default
    /// none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub megatasks: Option<Megatasks>,
    /// PD^2 megatasks: reweighting — each megatask's fractional allocation
    /// u − ⌊u⌋ is rounded up to a whole CPU, so its tasks meet their
    /// deadlines at the cost of up to one CPU's idle fraction; default
    /// `false` (the exact weight; tardiness bounded, not zero).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reweight: Option<bool>,
    /// RUN: where the spare capacity goes when total utilisation is below
    /// the CPU count; default `greedy`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slack: Option<Slack>,
    /// CAP / CAP-GS: a CPU's capacity, a utilisation bound such as `0.75`
    /// or `ll` (Liu & Layland); default `1` for EDF and LLF, `ll` for fixed
    /// priority.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity: Option<Capacity>,
    /// CAP: the heuristic that packs the colour groups onto the CPUs;
    /// default `wfd` (the EPOS thesis' CAP WFD).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_packing: Option<Packing>,
    /// CAP-GS: whether SRT and BE groups may share a CPU with HRT tasks;
    /// default `false` (the thesis' Table 15 puts them on other CPUs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub srt_on_hrt_cores: Option<bool>,
    /// CAP / CAP-GS: M_total, the memory page colouring divides among the
    /// colours (each colour holds M_total / colours); default: unbounded,
    /// and the memory constraints are not checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_total: Option<Size>,
    /// `cap-gs-dynamic`: the counter increase per quantum above which a
    /// best-effort job is throttled; default 4 (the thesis' experiments).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold: Option<u64>,
    /// `cap-gs-dynamic`: the counter compared; default `coherence-misses`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counter: Option<ThrottleCounter>,
    /// `cap-gs-dynamic`: `hold` (default) or `yield`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throttle: Option<ThrottleMode>,
    /// `cap-gs-dynamic`: the inclusive range `[low, high]` of explicit
    /// priorities (`priority`) whose tasks may be throttled; default: the
    /// tasks of class `be`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throttle_range: Option<[u32; 2]>,
    /// `ca-gedf`: the cache utilisation, in percent of the shared cache,
    /// from which the cache-aware policy promotes jobs; default 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_threshold: Option<u32>,
    /// `ca-gedf`: the cache-aware policy (1 to 5, Fig. 4.2); default 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_policy: Option<u8>,
    /// `ca-gedf`: the cache utilisation, in percent, from which thrashing
    /// is a lost cause and the lost-cause policy is used; default: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lost_cause_threshold: Option<u32>,
    /// `ca-gedf`: the lost-cause policy (1 to 3); default 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lost_cause_policy: Option<u8>,
    /// `ca-gedf`: idle quanta as phantom tasks; default `true`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phantoms: Option<bool>,
    /// `ca-gedf`: promote a partially-eligible MTT only when no other
    /// fits; default `false`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub avoid_partially_eligible: Option<bool>,
    /// `ca-gedf`: the promotion-duration policy (1 or 2); default 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub promotion_duration: Option<u8>,
    /// `mcs`: the CPU that hosts the memory-phase worker of `amp` tasks;
    /// default: the last CPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub master: Option<u32>,
    /// `mcs`: `true` (default), the memory-phase scheduler arbitrates the
    /// memory phases; `false`, the paper's Contention baseline: plain P-FP,
    /// memory phases run whenever their job runs and contend for memory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mps: Option<bool>,
    /// `mcs`: `true` (default), a memory phase of higher memory priority
    /// preempts the running one (unless that one is written
    /// `preemptible: false`); `false`, every memory phase is non-preemptive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_preemption: Option<bool>,
    /// `ca-gedf`: estimate each MTT's WSS online with the working-set
    /// profiler from the CPUs' cache-miss counters instead of using the
    /// declared `wss`; default `false`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<bool>,
}

/// How RUN distributes spare capacity (m − U) over its level-0 servers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Slack {
    /// Fill the largest servers up to rate 1 first, in decreasing order of
    /// rate (what the RUN tools do); maximises unit servers, so RUN behaves
    /// like P-EDF as often as possible.
    #[default]
    Greedy,
    /// Give every level-0 server a share of the slack proportional to its
    /// rate, capped at 1, the remainder passed on (what the RUN thesis text says).
    Proportional,
}

impl PolicySpec {
    pub fn named(name: PolicyName) -> PolicySpec {
        PolicySpec {
            name,
            partitioning: None,
            priorities: None,
            quantum: None,
            stagger: None,
            early_release: None,
            spread: None,
            megatasks: None,
            reweight: None,
            slack: None,
            capacity: None,
            group_packing: None,
            srt_on_hrt_cores: None,
            memory_total: None,
            threshold: None,
            counter: None,
            throttle: None,
            throttle_range: None,
            cache_threshold: None,
            cache_policy: None,
            lost_cause_threshold: None,
            lost_cause_policy: None,
            phantoms: None,
            avoid_partially_eligible: None,
            promotion_duration: None,
            master: None,
            mps: None,
            memory_preemption: None,
            profile: None,
        }
    }
}

/// The schema of a parameter's value, by key (the field types above).
fn param_schema(key: &str, g: &mut schemars::SchemaGenerator) -> serde_json::Value {
    match key {
        "partitioning" => g.subschema_for::<Packing>(),
        "priorities" => g.subschema_for::<Priorities>(),
        "quantum" => g.subschema_for::<Duration>(),
        "stagger" | "early_release" | "spread" | "reweight" => g.subschema_for::<bool>(),
        "megatasks" => g.subschema_for::<Megatasks>(),
        "slack" => g.subschema_for::<Slack>(),
        "capacity" => g.subschema_for::<Capacity>(),
        "group_packing" => g.subschema_for::<Packing>(),
        "srt_on_hrt_cores" => g.subschema_for::<bool>(),
        "memory_total" => g.subschema_for::<Size>(),
        "threshold" => g.subschema_for::<u64>(),
        "counter" => g.subschema_for::<ThrottleCounter>(),
        "throttle" => g.subschema_for::<ThrottleMode>(),
        "throttle_range" => g.subschema_for::<[u32; 2]>(),
        "cache_threshold" | "lost_cause_threshold" => g.subschema_for::<u32>(),
        "cache_policy" | "lost_cause_policy" | "promotion_duration" => g.subschema_for::<u8>(),
        "phantoms" | "avoid_partially_eligible" | "profile" => g.subschema_for::<bool>(),
        "master" => g.subschema_for::<u32>(),
        "mps" | "memory_preemption" => g.subschema_for::<bool>(),
        other => unreachable!("a descriptor names the parameter `{other}` that PolicySpec lacks"),
    }
    .to_value()
}

impl JsonSchema for PolicySpec {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "PolicySpec".into()
    }

    /// One object schema per policy, told apart by `name`, each with only
    /// the keys that policy takes.
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let variants: Vec<serde_json::Value> = super::descriptor::DESCRIPTORS
            .iter()
            .map(|d| {
                let mut props = serde_json::Map::new();
                props.insert(
                    "name".into(),
                    serde_json::json!({"const": d.name.name(), "description": format!("{}: {}.", d.title, d.summary)}),
                );
                for p in d.params {
                    let mut s = param_schema(p.key, g);
                    if (d.name == PolicyName::Run && p.key == "partitioning") || p.key == "group_packing" {
                        s = serde_json::json!({"allOf": [s, {"not": {"enum": ["cap", "cap-gs"]}}]});
                    }
                    if d.name == PolicyName::CapGsDynamic && p.key == "partitioning" {
                        s = serde_json::json!({"allOf": [s, {"enum": ["cap", "cap-gs"]}]});
                    }
                    match p.key {
                        "cache_policy" => s = serde_json::json!({"allOf": [s, {"minimum": 1, "maximum": 5}]}),
                        "lost_cause_policy" => s = serde_json::json!({"allOf": [s, {"minimum": 1, "maximum": 3}]}),
                        "promotion_duration" => s = serde_json::json!({"allOf": [s, {"enum": [1, 2]}]}),
                        _ => {}
                    }
                    s["description"] = format!("{} (default: {}).", p.doc, p.default).into();
                    props.insert(p.key.into(), s);
                }
                serde_json::json!({
                    "title": d.title,
                    "type": "object",
                    "properties": props,
                    "required": ["name"],
                    "additionalProperties": false,
                })
            })
            .collect();
        schemars::json_schema!({
            "description": "The scheduling policy: its `name` and the parameters that policy takes (docs/policies.md).",
            "type": "object",
            "oneOf": variants,
        })
    }
}
