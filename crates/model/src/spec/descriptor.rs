//! The policy descriptor: one table of every policy schedlab knows — its
//! name, its written title (`G-EDF`), its family, how it forms scheduling
//! domains, how it preempts, and the parameters its spec section takes
//! with their types, defaults and meaning.
//!
//! Every crate that needs to know something about a policy by name reads
//! this table instead of keeping its own: the spec's validation and
//! `--set`/`--policy` (which parameter a policy takes), the JSON Schema
//! (the policy section as a union tagged by `name`), the validator's and
//! the exporters' titles, the CLI and the runtime's kernel backend (which
//! policies map onto Linux's classes). It lives in `model`, next to
//! [`PolicyName`], because the spec is parsed and checked here and `model`
//! is below `policy`; the implementations in `schedlab-policy` re-export it
//! and a test there checks that each implementation declares what its
//! descriptor says (domains, preemption).

use super::policy::{Domains, PolicyName};

/// The family a policy's priorities come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Family {
    /// Earliest deadline first (job-level fixed priority by deadline).
    Edf,
    /// Task-level fixed priority (RM, DM or explicit ranks).
    Fp,
    /// Least laxity first (job-level dynamic priority).
    Llf,
    /// EDF until zero laxity.
    Edzl,
    /// Proportionate fairness (quantum-based).
    Pfair,
    /// Reduction to uniprocessor (server-based).
    Run,
    /// Hierarchical reservations: servers by EDF, tasks by fixed priority
    /// inside their group.
    Hcbs,
    /// Cache-aware EDF: EDF with job promotions driven by the shared
    /// cache's working sets (quantum-based).
    CacheAware,
}

impl Family {
    pub fn name(self) -> &'static str {
        match self {
            Family::Edf => "edf",
            Family::Fp => "fp",
            Family::Llf => "llf",
            Family::Edzl => "edzl",
            Family::Pfair => "pfair",
            Family::Run => "run",
            Family::Hcbs => "hcbs",
            Family::CacheAware => "cache-aware",
        }
    }
}

/// How a policy preempts a running job (the policy crate's
/// `Conformance::preemption()` says the same of each implementation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PreemptionKind {
    /// At any instant, by a higher-priority job.
    Full,
    /// Never: a started job runs to completion.
    None,
    /// Only at the job's preemption points (the boundaries between its
    /// segments); the final segment runs to completion.
    AtPoints,
}

impl PreemptionKind {
    pub fn name(self) -> &'static str {
        match self {
            PreemptionKind::Full => "full",
            PreemptionKind::None => "none",
            PreemptionKind::AtPoints => "at-points",
        }
    }
}

/// One parameter of a policy's spec section (`policy.KEY`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Param {
    /// The key, as in the spec.
    pub key: &'static str,
    /// The values it takes, as the docs write them.
    pub values: &'static str,
    /// The default, as the docs write it.
    pub default: &'static str,
    /// What it does.
    pub doc: &'static str,
}

/// `partitioning`: the packing heuristic of partitioned and clustered policies.
pub const PARTITIONING: Param = Param {
    key: "partitioning",
    values: "ff, bf, wf, nf, ffd, bfd, wfd, nfd, cap, cap-gs",
    default: "wfd",
    doc: "the bin-packing heuristic that places the tasks that are not pinned",
};
/// `partitioning` under RUN: the packing of every PACK step of the reduction.
pub const RUN_PACKING: Param = Param {
    key: "partitioning",
    values: "ff, bf, wf, nf, ffd, bfd, wfd, nfd",
    default: "wfd",
    doc: "the packing of every PACK step of the reduction (not cap, cap-gs)",
};
/// `priorities`: how fixed priorities are assigned.
pub const PRIORITIES: Param = Param {
    key: "priorities",
    values: "rm, dm, explicit",
    default: "explicit when every task has a priority, else rm",
    doc: "the fixed-priority assignment: rate or deadline monotonic, or the tasks' `priority`",
};
/// `quantum`: PD^2's scheduling quantum.
pub const QUANTUM: Param =
    Param { key: "quantum", values: "duration > 0", default: "1ms", doc: "the scheduling quantum" };
/// `stagger`: PD^2's staggered quantum boundaries.
pub const STAGGER: Param = Param {
    key: "stagger",
    values: "true, false",
    default: "false",
    doc: "CPU k's quantum boundaries are shifted by k·quantum/m instead of aligned",
};
/// `early_release`: ER-PD^2.
pub const EARLY_RELEASE: Param = Param {
    key: "early_release",
    values: "true, false",
    default: "false",
    doc: "ER-PD^2: a subtask is eligible as soon as its predecessor ran and its job is released (work-conserving)",
};
/// `spread`: PD^2's spread minimisation for MTTs.
pub const SPREAD: Param = Param {
    key: "spread",
    values: "true, false",
    default: "false",
    doc: "co-schedule each MTT's tasks quantum by quantum: early release by up to X − 1 quanta (Theorem 3.1), jobs up to X − 1 quanta late",
};
/// `megatasks`: PD^2's megatasks.
pub const MEGATASKS: Param = Param {
    key: "megatasks",
    values: "greedy, or lists of task names",
    default: "none",
    doc: "groups of tasks scheduled as one PD^2 entity (⌊u⌋ CPUs every quantum plus a task of weight u − ⌊u⌋) and by PD^2 among themselves, so at most ⌈u⌉ of them run together",
};
/// `reweight`: PD^2 megatasks' reweighting.
pub const REWEIGHT: Param = Param {
    key: "reweight",
    values: "true, false",
    default: "false",
    doc: "megatasks: round each megatask's fractional allocation up to a whole CPU (no misses, up to one CPU's idle fraction lost)",
};
/// `slack`: RUN's distribution of spare capacity.
pub const SLACK: Param = Param {
    key: "slack",
    values: "greedy, proportional",
    default: "greedy",
    doc: "how spare capacity m − U is given to the level-0 servers",
};

/// `capacity`: a CPU's fit test under CAP / CAP-GS.
pub const CAPACITY: Param = Param {
    key: "capacity",
    values: "a number in (0, 1], e.g. 0.75, or ll",
    default: "1 for EDF and LLF, ll for fixed priority",
    doc: "CAP / CAP-GS: the utilisation a CPU holds, a constant or Liu & Layland's n(2^{1/n} − 1) for its n real-time tasks",
};
/// `group_packing`: the heuristic CAP packs colour groups with.
pub const GROUP_PACKING: Param = Param {
    key: "group_packing",
    values: "ff, bf, wf, nf, ffd, bfd, wfd, nfd",
    default: "wfd",
    doc: "CAP: the heuristic that places the colour groups (CAP-GS uses FFD for HRT, BFD for the rest)",
};
/// `srt_on_hrt_cores`: CAP-GS's choice of CPUs for SRT and BE groups.
pub const SRT_ON_HRT_CORES: Param = Param {
    key: "srt_on_hrt_cores",
    values: "true, false",
    default: "false",
    doc: "CAP-GS: SRT and BE groups may go to CPUs that hold HRT tasks",
};
/// `memory_total`: M_total of CAP's memory constraints.
pub const MEMORY_TOTAL: Param = Param {
    key: "memory_total",
    values: "size, e.g. 64MiB",
    default: "unbounded (memory constraints not checked)",
    doc: "CAP / CAP-GS: the memory page colouring divides among the colours (M_total; each colour holds M_total / colours)",
};

/// `partitioning` under `cap-gs-dynamic`: its offline phase.
pub const DYNAMIC_PARTITIONING: Param = Param {
    key: "partitioning",
    values: "cap-gs, cap",
    default: "cap-gs",
    doc: "the offline phase: colour-aware partitioning",
};
/// `quantum` under `cap-gs-dynamic`: the counters' sampling period.
pub const SAMPLING_QUANTUM: Param = Param {
    key: "quantum",
    values: "duration > 0",
    default: "10ms",
    doc: "how often each CPU's counter is read (the thesis' QUANTUM)",
};
/// `threshold`: the counter increase per quantum that throttles.
pub const THRESHOLD: Param = Param {
    key: "threshold",
    values: "integer ≥ 0",
    default: "4",
    doc: "a best-effort job is throttled when its CPU's counter rose by more than this in the last quantum",
};
/// `counter`: the counter compared with the threshold.
pub const COUNTER: Param = Param {
    key: "counter",
    values: "coherence-misses, cache-misses",
    default: "coherence-misses",
    doc: "the counter read every quantum (coherence misses: the thesis' HITM)",
};
/// `throttle`: what happens to a throttled job.
pub const THROTTLE: Param = Param {
    key: "throttle",
    values: "hold, yield",
    default: "hold",
    doc: "hold: off its CPU while a real-time task sharing its colours has unfinished work; yield: the thesis' Thread::yield()",
};
/// `throttle_range`: the priorities that may be throttled.
pub const THROTTLE_RANGE: Param = Param {
    key: "throttle_range",
    values: "[low, high] of task priorities",
    default: "the tasks of class be",
    doc: "the tasks that may be throttled: those whose `priority` is in the inclusive range",
};

/// `quantum` under `ca-gedf`: the quantum its decisions are taken at.
pub const CA_QUANTUM: Param = Param {
    key: "quantum",
    values: "duration > 0",
    default: "1ms",
    doc: "the scheduling quantum: decisions are taken only at its boundaries",
};
/// `cache_threshold`: Fig. 4.2's cache-utilisation threshold.
pub const CACHE_THRESHOLD: Param = Param {
    key: "cache_threshold",
    values: "integer percent ≥ 0, e.g. 50",
    default: "0",
    doc: "the cache utilisation (percent of the shared cache taken by the working sets scheduled so far at a boundary) from which the cache-aware policy promotes jobs; below it, G-EDF",
};
/// `cache_policy`: Fig. 4.2's cache-aware policy.
pub const CACHE_POLICY: Param = Param {
    key: "cache_policy",
    values: "1, 2, 3, 4, 5",
    default: "1",
    doc: "which MTT is promoted: 1 smallest WSS; 2 largest WSS fitting the free cache; 3 smallest WSS/tc; 4 largest WSS/tc fitting the free cache; 5 largest WSS/tc fitting the free cache per free CPU",
};
/// `lost_cause_threshold`: Fig. 4.2's lost-cause threshold.
pub const LOST_CAUSE_THRESHOLD: Param = Param {
    key: "lost_cause_threshold",
    values: "integer percent ≥ 0, e.g. 110",
    default: "none (no lost-cause policy)",
    doc: "the cache utilisation (percent) from which thrashing is inevitable and the lost-cause policy is used",
};
/// `lost_cause_policy`: Fig. 4.2's lost-cause policy.
pub const LOST_CAUSE_POLICY: Param = Param {
    key: "lost_cause_policy",
    values: "1, 2, 3",
    default: "1",
    doc: "above the lost-cause threshold: 1 G-EDF; 2 promote the largest WSS; 3 promote the largest WSS/tc",
};
/// `phantoms`: phantom tasks.
pub const PHANTOMS: Param = Param {
    key: "phantoms",
    values: "true, false",
    default: "true",
    doc: "the idle quanta of a hyperperiod (m·H − Σ e·H/p) are phantom tasks; a CPU runs one instead of a job that would thrash",
};
/// `avoid_partially_eligible`: Fig. 4.2's option.
pub const AVOID_PARTIALLY_ELIGIBLE: Param = Param {
    key: "avoid_partially_eligible",
    values: "true, false",
    default: "false",
    doc:
        "promote an MTT with fewer eligible jobs than tasks (or than free CPUs) only when no other fits the free cache",
};
/// `promotion_duration`: Fig. 4.2's promotion-duration policy.
pub const PROMOTION_DURATION: Param = Param {
    key: "promotion_duration",
    values: "1, 2",
    default: "2",
    doc: "1: a promotion lasts until the next decision (urgent ones until the job runs); 2: promotions and urgency last until the job completes",
};
/// `profile`: WSSs from the working-set profiler.
pub const PROFILE: Param = Param {
    key: "profile",
    values: "true, false",
    default: "false",
    doc: "estimate each MTT's WSS online with the working-set profiler (Fig. 5.3) from the CPUs' cache-miss counters instead of the declared wss",
};
/// `master`: the CPU of the memory-phase worker (`mcs`).
pub const MASTER: Param = Param {
    key: "master",
    values: "a CPU number",
    default: "the last CPU",
    doc: "the CPU that hosts the memory-phase worker serving the `amp` tasks (the worker runs there above every task)",
};
/// `mps`: whether the memory-phase scheduler arbitrates (`mcs`).
pub const MPS: Param = Param {
    key: "mps",
    values: "true, false",
    default: "true",
    doc: "the memory-phase scheduler lets one memory phase run at a time; false: the Contention baseline, plain P-FP with memory phases contending",
};
/// `memory_preemption`: whether memory phases are preemptive (`mcs`).
pub const MEMORY_PREEMPTION: Param = Param {
    key: "memory_preemption",
    values: "true, false",
    default: "true",
    doc: "a memory phase of higher memory priority preempts the running one (except one written `preemptible: false`); false: every memory phase is non-preemptive",
};

/// What schedlab knows about a policy by its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PolicyDescriptor {
    pub name: PolicyName,
    /// The conventional written name: `G-EDF`, `PD^2`, ...
    pub title: &'static str,
    /// One line: what the policy is.
    pub summary: &'static str,
    pub family: Family,
    pub domains: Domains,
    pub preemption: PreemptionKind,
    /// The keys of its spec section besides `name`, in the order the docs list them.
    pub params: &'static [Param],
}

impl PolicyDescriptor {
    /// The parameter `key` of this policy, if it takes one.
    pub fn param(&self, key: &str) -> Option<&'static Param> {
        self.params.iter().find(|p| p.key == key)
    }
    /// The keys it takes, for messages: `partitioning, priorities` or `none`.
    pub fn keys(&self) -> String {
        if self.params.is_empty() {
            "none".to_string()
        } else {
            self.params.iter().map(|p| p.key).collect::<Vec<_>>().join(", ")
        }
    }
}

const PARTITIONED: &[Param] = &[PARTITIONING, CAPACITY, GROUP_PACKING, SRT_ON_HRT_CORES, MEMORY_TOTAL];
const PARTITIONED_FP: &[Param] = &[PARTITIONING, PRIORITIES, CAPACITY, GROUP_PACKING, SRT_ON_HRT_CORES, MEMORY_TOTAL];
const DYNAMIC: &[Param] = &[
    DYNAMIC_PARTITIONING,
    PRIORITIES,
    CAPACITY,
    SRT_ON_HRT_CORES,
    MEMORY_TOTAL,
    SAMPLING_QUANTUM,
    THRESHOLD,
    COUNTER,
    THROTTLE,
    THROTTLE_RANGE,
];
const CACHE_AWARE: &[Param] = &[
    CA_QUANTUM,
    CACHE_THRESHOLD,
    CACHE_POLICY,
    LOST_CAUSE_THRESHOLD,
    LOST_CAUSE_POLICY,
    PHANTOMS,
    AVOID_PARTIALLY_ELIGIBLE,
    PROMOTION_DURATION,
    PROFILE,
];
const MCS: &[Param] = &[
    PARTITIONING,
    PRIORITIES,
    CAPACITY,
    GROUP_PACKING,
    SRT_ON_HRT_CORES,
    MEMORY_TOTAL,
    MASTER,
    MPS,
    MEMORY_PREEMPTION,
];
const CLUSTERED: &[Param] = &[PARTITIONING];
const CLUSTERED_FP: &[Param] = &[PARTITIONING, PRIORITIES];
const GLOBAL_FP: &[Param] = &[PRIORITIES];

const fn d(
    name: PolicyName,
    title: &'static str,
    summary: &'static str,
    family: Family,
    domains: Domains,
    preemption: PreemptionKind,
    params: &'static [Param],
) -> PolicyDescriptor {
    PolicyDescriptor { name, title, summary, family, domains, preemption, params }
}

/// Every policy, in the order of [`PolicyName::ALL`].
pub const DESCRIPTORS: [PolicyDescriptor; 19] = {
    use Domains::*;
    use Family::*;
    use PolicyName as P;
    use PreemptionKind as K;
    [
        d(P::Gedf, "G-EDF", "global EDF", Edf, Global, K::Full, &[]),
        d(P::Pedf, "P-EDF", "partitioned EDF", Edf, PerCpu, K::Full, PARTITIONED),
        d(P::Cedf, "C-EDF", "clustered EDF", Edf, PerCluster, K::Full, CLUSTERED),
        d(P::Gfp, "G-FP", "global fixed priority", Fp, Global, K::Full, GLOBAL_FP),
        d(P::Pfp, "P-FP", "partitioned fixed priority", Fp, PerCpu, K::Full, PARTITIONED_FP),
        d(P::Cfp, "C-FP", "clustered fixed priority", Fp, PerCluster, K::Full, CLUSTERED_FP),
        d(P::NpGedf, "NP-G-EDF", "non-preemptive global EDF", Edf, Global, K::None, &[]),
        d(P::Llf, "LLF", "global least laxity first", Llf, Global, K::Full, &[]),
        d(P::Pllf, "P-LLF", "partitioned least laxity first", Llf, PerCpu, K::Full, PARTITIONED),
        d(P::Edzl, "EDZL", "EDF until zero laxity", Edzl, Global, K::Full, &[]),
        d(
            P::Fpds,
            "FPDS",
            "partitioned fixed priority with deferred preemption",
            Fp,
            PerCpu,
            K::AtPoints,
            PARTITIONED_FP,
        ),
        d(P::GFpds, "G-FPDS", "global fixed priority with deferred preemption", Fp, Global, K::AtPoints, GLOBAL_FP),
        d(P::Fpns, "FPNS", "partitioned non-preemptive fixed priority", Fp, PerCpu, K::None, PARTITIONED_FP),
        d(P::Pd2, "PD^2", "PD^2 Pfair (quantum-based)", Pfair, Global, K::Full, &[QUANTUM, STAGGER, EARLY_RELEASE, SPREAD, MEGATASKS, REWEIGHT]),
        d(P::Run, "RUN", "RUN, reduction to uniprocessor (server-based)", Run, Global, K::Full, &[RUN_PACKING, SLACK]),
        d(
            P::Hcbs,
            "H-CBS",
            "hierarchical reservations: a hard-CBS server per group and CPU, fixed priority inside a group",
            Hcbs,
            Global,
            K::Full,
            GLOBAL_FP,
        ),
        d(
            P::CapGsDynamic,
            "dynamic CAP-GS",
            "the EPOS two-phase colour-aware scheduler: CAP-GS, then P-FP throttling best-effort jobs by a cache counter",
            Fp,
            PerCpu,
            K::Full,
            DYNAMIC,
        ),
        d(
            P::CaGedf,
            "CA-G-EDF",
            "Calandrino's cache-aware global EDF: quantum-driven job promotions against shared-cache thrashing, phantom tasks",
            CacheAware,
            Global,
            K::Full,
            CACHE_AWARE,
        ),
        d(
            P::Mcs,
            "MCS",
            "memory-centric scheduling: P-FP on the CPUs, one memory phase at a time system-wide by memory priority",
            Fp,
            PerCpu,
            K::Full,
            MCS,
        ),
    ]
};

impl PolicyName {
    /// The policy's descriptor.
    pub fn descriptor(self) -> &'static PolicyDescriptor {
        let d = &DESCRIPTORS[self as usize];
        debug_assert_eq!(d.name, self);
        d
    }
    /// The policy of a spec name (`gedf`, `g-fpds`, ...).
    pub fn from_name(name: &str) -> Option<PolicyName> {
        PolicyName::ALL.iter().copied().find(|p| p.name() == name)
    }
}

/// The title of a policy given by its spec name (`gedf` → `G-EDF`), or the
/// name itself for a name schedlab does not know (e.g. an imported trace's).
pub fn title_of(name: &str) -> String {
    PolicyName::from_name(name).map_or_else(|| name.to_string(), |p| p.descriptor().title.to_string())
}

/// Every key any policy takes, once each, in the order of first appearance.
pub fn all_keys() -> Vec<&'static str> {
    let mut keys: Vec<&'static str> = Vec::new();
    for d in &DESCRIPTORS {
        for p in d.params {
            if !keys.contains(&p.key) {
                keys.push(p.key);
            }
        }
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_in_name_order_and_complete() {
        assert_eq!(DESCRIPTORS.len(), PolicyName::ALL.len());
        for (i, p) in PolicyName::ALL.iter().enumerate() {
            assert_eq!(DESCRIPTORS[i].name, *p);
            assert_eq!(p.descriptor().name, *p);
            assert_eq!(PolicyName::from_name(p.name()), Some(*p));
        }
        assert_eq!(title_of("g-fpds"), "G-FPDS");
        assert_eq!(title_of("litmus-gsn"), "litmus-gsn");
        assert_eq!(
            all_keys(),
            [
                "partitioning",
                "capacity",
                "group_packing",
                "srt_on_hrt_cores",
                "memory_total",
                "priorities",
                "quantum",
                "stagger",
                "early_release",
                "spread",
                "megatasks",
                "reweight",
                "slack",
                "threshold",
                "counter",
                "throttle",
                "throttle_range",
                "cache_threshold",
                "cache_policy",
                "lost_cause_threshold",
                "lost_cause_policy",
                "phantoms",
                "avoid_partially_eligible",
                "promotion_duration",
                "profile",
                "master",
                "mps",
                "memory_preemption"
            ]
        );
    }

    #[test]
    fn parameters_follow_the_family_and_the_domains() {
        for d in &DESCRIPTORS {
            assert_eq!(d.param("priorities").is_some(), d.name.is_fixed_priority(), "{}", d.title);
            let partitions = d.domains != Domains::Global || d.family == Family::Run;
            assert_eq!(d.param("partitioning").is_some(), partitions, "{}", d.title);
            let sampled = d.name == PolicyName::CapGsDynamic;
            let quantised = matches!(d.family, Family::Pfair | Family::CacheAware);
            assert_eq!(d.param("quantum").is_some(), quantised || sampled, "{}", d.title);
            // Colour-aware partitioning places tasks on CPUs.
            assert_eq!(d.param("capacity").is_some(), d.domains == Domains::PerCpu, "{}", d.title);
        }
        assert_eq!(PolicyName::Gedf.descriptor().keys(), "none");
        assert_eq!(
            PolicyName::Pfp.descriptor().keys(),
            "partitioning, priorities, capacity, group_packing, srt_on_hrt_cores, memory_total"
        );
        assert_eq!(PolicyName::Cfp.descriptor().keys(), "partitioning, priorities");
    }
}
