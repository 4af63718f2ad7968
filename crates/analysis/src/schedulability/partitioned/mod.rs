//! Partitioned scheduling: the tasks are packed onto the CPUs by a bin
//! packing heuristic (first / best / worst / next fit and their decreasing
//! variants, [`schedlab_admission::partition`]) and each CPU is a uniprocessor.
//!
//! Two drivers:
//! - **test-driven** (the default): a task joins a CPU only if the CPU's
//!   tasks with it pass a uniprocessor test (QPA, RTA, …, [`Admission`]),
//!   so every CPU of a successful packing is schedulable by construction;
//!   with the utilisation or density test as the fit test this is the
//!   classic capacity procedure (`pedf.util`, `pedf.density`);
//! - **capacity then test** (`pfp.util-rta`): pack by utilisation with
//!   capacity 1, then check each CPU (the EPOS thesis' literal procedure).
//!
//! The heuristics are `options.heuristics` tried in turn (the first
//! success wins), by default the spec's `policy.partitioning`, or else FFD,
//! BFD and WFD (the EPOS thesis, §5.1). The outcome carries the partition
//! and every CPU's own outcome ([`Data::Partition`]). A failed packing is
//! `inconclusive` (another partition may exist) unless a necessary
//! condition fails: U > m, or a task that no CPU can hold even alone under
//! an exact test (`unschedulable`).
//!
//! Tasks' `cpu` / `cluster` pins in a spec are not part of [`Input`]: the
//! analysis packs every task freely.

pub mod admission;
pub(crate) mod fast;

use super::data::{Data, Partition};
use super::input::Input;
use super::outcome::{Exactness, Outcome, Verdict};
use super::registry::TestInfo;
use super::uni::order::ranks;
use admission::{Admission, Family, Fit};
use schedlab_admission::partition::{pack_with, Heuristic, Metric, PinnedCheck, Problem, Share};
use schedlab_model::exact::Ratio;
use schedlab_model::PolicyName;

/// How a partitioned test packs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Driver {
    /// The admission test is the fit test of each CPU.
    TestDriven,
    /// Capacity 1 on utilisation, then the admission test on each CPU.
    CapacityThenTest,
}

/// The heuristics to try for `input`.
pub fn heuristics(input: &Input) -> Vec<Heuristic> {
    if !input.options.heuristics.is_empty() {
        return input.options.heuristics.clone();
    }
    match input.policy.as_ref().and_then(|p| p.partitioning).map(Heuristic::from_packing) {
        Some(Ok(h)) => vec![h],
        // Colour-aware: CAP / CAP-GS pinned every task (Input::from_spec);
        // the packer only places the pins and checks each CPU.
        Some(Err(_)) if input.colour_scheme().is_some() => vec![Heuristic::FFD],
        _ => vec![Heuristic::FFD, Heuristic::BFD, Heuristic::WFD],
    }
}

/// The sub-input of one CPU (or cluster): its tasks, names, priorities and
/// options, on `cpus` CPUs.
pub(crate) fn sub_input(input: &Input, members: &[usize], cpus: u32) -> Input {
    let pick = |v: &Vec<u64>| {
        if v.is_empty() {
            Vec::new()
        } else {
            members.iter().map(|&i| v.get(i).copied().unwrap_or(0)).collect()
        }
    };
    let mut sub = Input::new(cpus, members.iter().map(|&i| input.tasks[i]).collect());
    sub.names = members.iter().map(|&i| input.names.get(i).cloned().unwrap_or_else(|| format!("#{i}"))).collect();
    sub.priorities = members.iter().map(|&i| input.priorities.get(i).copied().flatten()).collect();
    sub.wss = pick(&input.wss);
    sub.index = members.iter().map(|&i| input.index.get(i).copied().unwrap_or(i)).collect();
    sub.policy = input.policy.clone();
    sub.options.blocking = pick(&input.options.blocking);
    sub.options.npr = if input.options.npr.is_empty() {
        Vec::new()
    } else {
        members.iter().map(|&i| input.options.npr.get(i).copied().flatten()).collect()
    };
    sub.options.subjobs = if input.options.subjobs.is_empty() {
        Vec::new()
    } else {
        members.iter().map(|&i| input.options.subjobs.get(i).copied().flatten()).collect()
    };
    sub.options.cluster_tests = input.options.cluster_tests.clone();
    sub.options.skip = input.options.skip.clone();
    sub
}

/// A bin's outcome with task indices of the whole set.
pub(crate) fn global(mut o: Outcome, members: &[usize], n: usize, bin: &str) -> Outcome {
    o.task = o.task.map(|t| members[t]);
    if let Some(Data::ResponseTimes(r)) = &o.data {
        let mut all = vec![None; n];
        for (k, &i) in members.iter().enumerate() {
            all[i] = r[k];
        }
        o.data = Some(Data::ResponseTimes(all));
    }
    o.reason = format!("{bin}: {}", o.reason);
    o
}

/// Partitioned analysis of `input` with `admission` on every CPU.
pub fn analyze(id: &'static str, input: &Input, admission: Admission, driver: Driver, metric: Metric) -> Outcome {
    let m = input.cpus as usize;
    if m == 0 {
        return Outcome::not_applicable(id, "the platform has no CPU");
    }
    if let Some(i) = input.tasks.iter().position(|t| t.period == 0) {
        return Outcome::not_applicable(id, format!("{} has period 0", input.task_label(i))).task(i);
    }
    if let Some(e) = input.colour_error() {
        return Outcome::not_applicable(id, format!("colour-aware partitioning: {e}"));
    }
    if let Err((i, why)) = admission.model(input) {
        let o = Outcome::not_applicable(id, format!("the CPU test `{}` does not apply: {why}", admission.id()));
        return if let Some(i) = i { o.task(i) } else { o };
    }
    let ranks = match admission.family() {
        Family::Edf => Vec::new(),
        _ => match ranks(input) {
            Ok(r) => r,
            Err((i, why)) => return Outcome::not_applicable(id, why).task(i),
        },
    };
    let n = input.tasks.len();
    let exact_size = |t: &super::input::TaskParams| match metric {
        Metric::Utilization => Share::new(t.wcet, t.period),
        Metric::Density => Share::new(t.wcet, super::uni::edf_density::window(t).max(1)),
    };
    // Test-driven packing: the admission test decides exactly (and implies
    // load ≤ 1), so the packer's own capacity test only needs sizes that
    // never exceed the exact ones: sizes rounded down to multiples of 2⁻⁶²
    // keep its arithmetic in integers (exact sizes with unrelated periods
    // fall back to big rationals, ~30× slower). They order the tasks and
    // rank rooms for best / worst fit exactly unless two exact values are
    // within 2⁻⁶² (never with periods below 2³¹ ns).
    let size = |t: &super::input::TaskParams| match driver {
        Driver::TestDriven => {
            let s = exact_size(t);
            let q = ((s.num as u128) << 62) / s.den as u128;
            Share::new(u64::try_from(q).unwrap_or(u64::MAX), 1 << 62)
        }
        Driver::CapacityThenTest => exact_size(t),
    };
    let problem = Problem {
        sizes: input.tasks.iter().map(size).collect(),
        pins: (0..n).map(|i| input.pin(i, schedlab_admission::partition::Target::Cpus)).collect(),
        capacities: vec![1; m],
        names: input.names.clone(),
        bin_word: "CPU",
        size_word: metric.name(),
    };
    let fit = Fit::new(input, admission, ranks);
    let check = admission.check();
    let mut failures = Vec::new();
    let mut first_task = None;
    for h in heuristics(input) {
        let packed = match driver {
            Driver::TestDriven => {
                pack_with(&problem, h, PinnedCheck::Check, &|_, members, cand| fit.fits(members, cand))
            }
            Driver::CapacityThenTest => pack_with(&problem, h, PinnedCheck::Check, &|_, _, _| true),
        };
        let a = match packed {
            Ok(a) => a,
            Err(e) => {
                first_task = first_task.or(e.task);
                failures.push(format!("{}: {e}", input.colour_scheme().unwrap_or(h.name())));
                continue;
            }
        };
        let mut members = vec![Vec::new(); m];
        for (t, &b) in a.bins.iter().enumerate() {
            members[b].push(t);
        }
        let outcomes: Vec<Outcome> = members
            .iter()
            .enumerate()
            .map(|(b, mem)| global(check(&sub_input(input, mem, 1)), mem, n, &format!("CPU {b}")))
            .collect();
        if let Some((b, bad)) = outcomes.iter().enumerate().find(|(_, o)| o.verdict != Verdict::Schedulable) {
            first_task = first_task.or(bad.task);
            failures.push(format!(
                "{}: CPU {b} fails `{}`: {}",
                input.colour_scheme().unwrap_or(h.name()),
                admission.id(),
                bad.reason
            ));
            continue;
        }
        // Exact loads (the packer's may be rounded down, see above).
        let exact_loads: Vec<Ratio> = members
            .iter()
            .map(|mem| {
                super::uni::load::exact(mem.iter().map(|&i| {
                    let s = exact_size(&input.tasks[i]);
                    (s.num, s.den)
                }))
            })
            .collect();
        let peak = exact_loads.iter().max().cloned().unwrap_or_else(Ratio::zero);
        let loads: Vec<String> = exact_loads.iter().map(|l| format!("{:.4}", l.to_f64())).collect();
        let how = match driver {
            Driver::TestDriven => format!("with `{}` as the fit test of each CPU", admission.id()),
            Driver::CapacityThenTest => format!("by utilisation, and every CPU passes `{}`", admission.id()),
        };
        let name = input.colour_scheme().unwrap_or(h.name());
        let how = match input.colour_scheme() {
            Some(_) => format!("with every CPU passing `{}`", admission.id()),
            None => how,
        };
        let mut out = Outcome::new(
            id,
            Verdict::Schedulable,
            format!("{name} places every task {how}; CPU {} loads {}", metric.name(), loads.join(", ")),
        )
        .compare(peak, Ratio::new(1, 1));
        for f in failures {
            out = out.detail(format!("tried first: {f}"));
        }
        out = out.detail("run it with these placements: pin each task to its CPU (tasks[i].cpu), or use the same heuristic and fit test");
        let cpus = (0..m as u32).map(|c| vec![c]).collect();
        return out.with_data(Data::Partition(Partition { heuristic: name, bins: a.bins, cpus, outcomes }));
    }
    // No heuristic succeeded: a necessary condition, or inconclusive.
    let u = Ratio::sum(input.tasks.iter().map(|t| (t.wcet as u128, t.period as u128)));
    let mut out = if u.gt_int(m as u128) {
        Outcome::new(id, Verdict::Unschedulable, format!("total utilisation {:.4} exceeds the {m} CPUs", u.to_f64()))
            .compare(u, Ratio::new(m as u128, 1))
    } else if let Some(i) = alone_fails(input, admission, &fit) {
        Outcome::new(
            id,
            Verdict::Unschedulable,
            format!("{} fails `{}` even alone on a CPU", input.task_label(i), admission.id()),
        )
        .task(i)
    } else {
        let o = Outcome::new(
            id,
            Verdict::Inconclusive,
            format!("no heuristic found a partition where every CPU passes `{}`", admission.id()),
        )
        .compare(u, Ratio::new(m as u128, 1));
        if let Some(t) = first_task {
            o.task(t)
        } else {
            o
        }
    };
    for f in failures {
        out = out.detail(f);
    }
    out
}

/// A task that an exact CPU test rejects even alone (then no partition exists).
fn alone_fails(input: &Input, admission: Admission, fit: &Fit) -> Option<usize> {
    let exact = matches!(admission, Admission::EdfUtil | Admission::EdfQpa | Admission::FpRta);
    if !exact {
        return None;
    }
    (0..input.tasks.len()).find(|&i| !fit.fits(&[], i))
}

/// One registry entry of a partitioned test: the explained outcome, and
/// its verdict alone (`decide`, the fast path of batches).
macro_rules! entry {
    ($fun:ident, $dec:ident, $id:expr, $adm:expr, $driver:expr, $metric:expr) => {
        pub fn $fun(input: &Input) -> Outcome {
            analyze($id, input, $adm, $driver, $metric)
        }
        pub fn $dec(input: &Input) -> Verdict {
            fast::decide($id, input, $adm, $driver, $metric)
        }
    };
}

pub const PEDF_UTIL: &str = "pedf.util";
pub const PEDF_DENSITY: &str = "pedf.density";
pub const PEDF_QPA: &str = "pedf.qpa";
pub const PEDF_ADMIT: &str = "pedf.admit";
pub const PFP_LL: &str = "pfp.ll";
pub const PFP_HYPERBOLIC: &str = "pfp.hyperbolic";
pub const PFP_RTA: &str = "pfp.rta";
pub const PFP_UTIL_RTA: &str = "pfp.util-rta";
pub const PFP_ADMIT: &str = "pfp.admit";
pub const PFPDS_RTA: &str = "pfpds.rta";
pub const PLLF_UTIL: &str = "pllf.util";

entry!(pedf_util, pedf_util_decide, PEDF_UTIL, Admission::EdfUtil, Driver::TestDriven, Metric::Utilization);
entry!(pedf_density, pedf_density_decide, PEDF_DENSITY, Admission::EdfDensity, Driver::TestDriven, Metric::Density);
entry!(pedf_qpa, pedf_qpa_decide, PEDF_QPA, Admission::EdfQpa, Driver::TestDriven, Metric::Utilization);
entry!(pfp_ll, pfp_ll_decide, PFP_LL, Admission::FpLl, Driver::TestDriven, Metric::Utilization);
entry!(
    pfp_hyperbolic,
    pfp_hyperbolic_decide,
    PFP_HYPERBOLIC,
    Admission::FpHyperbolic,
    Driver::TestDriven,
    Metric::Utilization
);
entry!(pfp_rta, pfp_rta_decide, PFP_RTA, Admission::FpRta, Driver::TestDriven, Metric::Utilization);
entry!(
    pfp_util_rta,
    pfp_util_rta_decide,
    PFP_UTIL_RTA,
    Admission::FpRta,
    Driver::CapacityThenTest,
    Metric::Utilization
);
entry!(pfpds_rta, pfpds_rta_decide, PFPDS_RTA, Admission::FpdsRta, Driver::TestDriven, Metric::Utilization);

/// `pedf.admit` / `pfp.admit`: test-driven with `options.admission` (a
/// uniprocessor test of the family; default QPA / RTA).
fn admit(id: &'static str, input: &Input, family: Family, default: Admission) -> Outcome {
    match admission_of(input, family, default) {
        Ok((a, metric)) => analyze(id, input, a, Driver::TestDriven, metric),
        Err(name) => {
            let ok: Vec<&str> = Admission::ALL.iter().filter(|a| a.family() == family).map(|a| a.id()).collect();
            Outcome::not_applicable(
                id,
                format!(
                    "options.admission `{name}` is not a uniprocessor test of this scheduler; use one of {}",
                    ok.join(", ")
                ),
            )
        }
    }
}

/// The admission test `options.admission` names (default `default`) and
/// its metric, or the unusable name.
fn admission_of(input: &Input, family: Family, default: Admission) -> Result<(Admission, Metric), &str> {
    let a = match input.options.admission.as_deref() {
        None => default,
        Some(name) => match Admission::from_id(name) {
            Some(a) if a.family() == family => a,
            _ => return Err(name),
        },
    };
    Ok((a, if a == Admission::EdfDensity { Metric::Density } else { Metric::Utilization }))
}

fn admit_decide(id: &'static str, input: &Input, family: Family, default: Admission) -> Verdict {
    match admission_of(input, family, default) {
        Ok((a, metric)) => fast::decide(id, input, a, Driver::TestDriven, metric),
        Err(_) => Verdict::NotApplicable,
    }
}

pub fn pedf_admit(input: &Input) -> Outcome {
    admit(PEDF_ADMIT, input, Family::Edf, Admission::EdfQpa)
}

pub fn pedf_admit_decide(input: &Input) -> Verdict {
    admit_decide(PEDF_ADMIT, input, Family::Edf, Admission::EdfQpa)
}

pub fn pfp_admit(input: &Input) -> Outcome {
    admit(PFP_ADMIT, input, Family::Fp, Admission::FpRta)
}

pub fn pfp_admit_decide(input: &Input) -> Verdict {
    admit_decide(PFP_ADMIT, input, Family::Fp, Admission::FpRta)
}

/// `pllf.util`'s verdict (its outcome only adds a detail to `pedf.util`'s).
pub fn pllf_util_decide(input: &Input) -> Verdict {
    fast::decide(PLLF_UTIL, input, Admission::EdfUtil, Driver::TestDriven, Metric::Utilization)
}

/// P-LLF: LLF is optimal on one CPU (Mok 1983), so each CPU needs U ≤ 1
/// with implicit deadlines (EPOS thesis, Thm. 2.4.3 and L1319).
pub fn pllf_util(input: &Input) -> Outcome {
    let mut o = analyze(PLLF_UTIL, input, Admission::EdfUtil, Driver::TestDriven, Metric::Utilization);
    if o.verdict == Verdict::Schedulable {
        o = o.detail("LLF is optimal on one CPU (Mok 1983): a CPU with utilisation ≤ 1 and deadlines ≥ periods meets every deadline under LLF as under EDF");
    }
    o
}

const P: &[PolicyName] = &[PolicyName::Pedf];
const F: &[PolicyName] = &[PolicyName::Pfp];

pub const INFOS: [TestInfo; 11] = [
    TestInfo {
        id: PEDF_UTIL,
        title: "P-EDF: bin packing with utilisation ≤ 1 per CPU",
        policies: P,
        assumes: "deadlines ≥ periods, no jitter or blocking",
        exactness: Exactness::Sufficient,
        source: "Lopez, Diaz & Garcia 2004; EPOS thesis §3.3",
    },
    TestInfo {
        id: PEDF_DENSITY,
        title: "P-EDF: bin packing with density ≤ 1 per CPU",
        policies: P,
        assumes: "arbitrary deadlines, jitter; no blocking",
        exactness: Exactness::Sufficient,
        source: "Baruah & Fisher 2005 (density-based partitioning)",
    },
    TestInfo {
        id: PEDF_QPA,
        title: "P-EDF: test-driven bin packing with QPA per CPU",
        policies: P,
        assumes: "arbitrary deadlines, jitter; no blocking",
        exactness: Exactness::Sufficient,
        source: "Zhang & Burns 2009 (QPA) as the fit test; Baruah & Fisher 2005",
    },
    TestInfo {
        id: PEDF_ADMIT,
        title: "P-EDF: test-driven bin packing with options.admission per CPU",
        policies: P,
        assumes: "that of the admission test (default uni.edf.qpa)",
        exactness: Exactness::Sufficient,
        source: "the admission test's",
    },
    TestInfo {
        id: PFP_LL,
        title: "P-FP: test-driven bin packing with the Liu & Layland bound per CPU",
        policies: F,
        assumes: "implicit deadlines, RM, no jitter or blocking",
        exactness: Exactness::Sufficient,
        source: "Dhall & Liu 1978 (RMFF); Liu & Layland 1973",
    },
    TestInfo {
        id: PFP_HYPERBOLIC,
        title: "P-FP: test-driven bin packing with the hyperbolic bound per CPU",
        policies: F,
        assumes: "implicit deadlines, RM, no jitter or blocking",
        exactness: Exactness::Sufficient,
        source: "Bini, Buttazzo & Buttazzo 2003",
    },
    TestInfo {
        id: PFP_RTA,
        title: "P-FP: test-driven bin packing with response-time analysis per CPU",
        policies: F,
        assumes: "arbitrary deadlines, jitter, blocking; RM, DM or explicit priorities",
        exactness: Exactness::Sufficient,
        source: "Audsley et al. 1993 as the fit test",
    },
    TestInfo {
        id: PFP_UTIL_RTA,
        title: "P-FP: bin packing with utilisation ≤ 1 per CPU, then response-time analysis",
        policies: F,
        assumes: "arbitrary deadlines, jitter, blocking; RM, DM or explicit priorities",
        exactness: Exactness::Sufficient,
        source: "EPOS thesis §3.3 (capacity, then test)",
    },
    TestInfo {
        id: PFP_ADMIT,
        title: "P-FP: test-driven bin packing with options.admission per CPU",
        policies: F,
        assumes: "that of the admission test (default uni.fp.rta)",
        exactness: Exactness::Sufficient,
        source: "the admission test's",
    },
    TestInfo {
        id: PFPDS_RTA,
        title: "FPDS (partitioned): test-driven bin packing with FPDS response-time analysis per CPU",
        policies: &[PolicyName::Fpds],
        assumes: "final non-preemptive regions options.npr (default the whole job), arbitrary deadlines, jitter",
        exactness: Exactness::Sufficient,
        source: "Bril, Lukkien & Verhaegh 2009 as the fit test",
    },
    TestInfo {
        id: PLLF_UTIL,
        title: "P-LLF: bin packing with utilisation ≤ 1 per CPU",
        policies: &[PolicyName::Pllf],
        assumes: "deadlines ≥ periods, no jitter or blocking",
        exactness: Exactness::Sufficient,
        source: "Mok 1983 (LLF optimal on one CPU); EPOS thesis §2.4",
    },
];

pub const RUNS: [fn(&Input) -> Outcome; 11] = [
    pedf_util,
    pedf_density,
    pedf_qpa,
    pedf_admit,
    pfp_ll,
    pfp_hyperbolic,
    pfp_rta,
    pfp_util_rta,
    pfp_admit,
    pfpds_rta,
    pllf_util,
];

/// The verdicts of [`RUNS`] without explanations, in the same order.
pub const DECIDES: [fn(&Input) -> Verdict; 11] = [
    pedf_util_decide,
    pedf_density_decide,
    pedf_qpa_decide,
    pedf_admit_decide,
    pfp_ll_decide,
    pfp_hyperbolic_decide,
    pfp_rta_decide,
    pfp_util_rta_decide,
    pfp_admit_decide,
    pfpds_rta_decide,
    pllf_util_decide,
];

#[cfg(test)]
mod tests;
