//! The parameters of the cache-aware heuristic framework (Calandrino 2009,
//! Fig. 4.2) and their admission from a spec: the quantum, the shared
//! cache's size, each task's working-set owner (its MTT, else itself) and
//! that owner's WSS, and the heuristic's knobs. The defaults are the
//! heuristic the thesis implemented in LITMUS^RT (§6.1.4, "B"): cache
//! threshold 0, cache-aware policy (1), no lost-cause policy, phantom
//! tasks, partially-eligible MTTs not avoided, promotion duration (2).

use super::phantom::Phantoms;
use crate::build::AdmissionError;
use crate::interface::Time;
use schedlab_model::{Duration, Spec};

/// The quantum when `policy.quantum` is absent: 1 ms (LITMUS^RT's).
pub(crate) const DEFAULT_QUANTUM: Time = 1_000_000;

/// Fig. 4.2's cache-aware policies: which MTT is promoted once the cache
/// utilisation reaches the threshold (C: free cache, N: free CPUs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CachePolicy {
    /// (1) the smallest WSS.
    SmallestWss,
    /// (2) the largest WSS ≤ C, else the one exceeding C the least.
    LargestFitting,
    /// (3) the smallest WSS/tc.
    SmallestPerTask,
    /// (4) the largest WSS/tc whose WSS ≤ C, else the WSS exceeding C the least.
    LargestPerTaskFitting,
    /// (5) the largest WSS/tc ≤ C/N, else the WSS/tc exceeding C/N the least.
    LargestPerTaskPerCpu,
}

/// Fig. 4.2's lost-cause policies, used once thrashing is inevitable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LostCausePolicy {
    /// (1) revert to G-EDF: promote nothing.
    Gedf,
    /// (2) the largest WSS.
    LargestWss,
    /// (3) the largest WSS/tc.
    LargestPerTask,
}

/// The framework's parameters, admitted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Params {
    pub quantum: Time,
    pub cpus: u32,
    /// The shared cache's size C, bytes (> 0).
    pub cache: u64,
    /// Its line size, bytes (the profiler's unit).
    pub line: u64,
    /// Per owner: its WSS comes from the working-set profiler (starting
    /// from 0: unknown) instead of the declared one — with `profile: true`,
    /// every owner that is an `mtt` group (see [`params`]).
    pub profiled: Vec<bool>,
    /// Per owner: its declared WSS (what a profiled owner falls back to
    /// when the counters cannot be read).
    pub declared: Vec<u64>,
    /// Per task: its working-set owner (an index into `wss`/`members`).
    pub owner: Vec<u32>,
    /// Per owner: the WSS of one of its jobs (the MTT's working set), bytes.
    pub wss: Vec<u64>,
    /// Per owner: its tasks, increasing.
    pub members: Vec<Vec<u32>>,
    /// Per owner: whether its tasks' WCETs differ (tc then counts the tasks
    /// that have not completed the lowest incomplete job index).
    pub unequal: Vec<bool>,
    /// Cache utilisation threshold, percent.
    pub threshold: u32,
    pub policy: CachePolicy,
    /// Lost-cause threshold (percent) and policy; `None`: no lost-cause policy.
    pub lost_cause: Option<(u32, LostCausePolicy)>,
    /// The phantom tasks, if used.
    pub phantoms: Option<Phantoms>,
    pub avoid_partial: bool,
    /// Promotion-duration policy (2): promotions and urgency last until
    /// the job completes; (1): until the next decision (urgent ones until
    /// the job is scheduled).
    pub until_completion: bool,
}

/// The working-set owners: an MTT's tasks share one, with the MTT's WSS; a
/// task of no MTT is its own, with its `wss`. A WSS left out counts 0.
/// Also per owner: whether it is an MTT.
#[allow(clippy::type_complexity)]
fn owners(spec: &Spec) -> (Vec<u32>, Vec<u64>, Vec<Vec<u32>>, Vec<bool>) {
    let n = spec.tasks.len();
    let of = spec.mtt_of_tasks();
    let mut owner = vec![u32::MAX; n];
    let mut wss = Vec::new();
    let mut members: Vec<Vec<u32>> = Vec::new();
    let mut is_mtt = Vec::new();
    let mut mtt_owner: Vec<Option<u32>> = vec![None; spec.mtts().len()];
    for (i, t) in spec.tasks.iter().enumerate() {
        let o = match of[i] {
            Some(k) => *mtt_owner[k].get_or_insert_with(|| {
                wss.push(spec.mtt_wss(k).map_or(0, |s| s.0));
                members.push(Vec::new());
                is_mtt.push(true);
                (wss.len() - 1) as u32
            }),
            None => {
                wss.push(t.wss.map_or(0, |s| s.0));
                members.push(Vec::new());
                is_mtt.push(false);
                (wss.len() - 1) as u32
            }
        };
        owner[i] = o;
        members[o as usize].push(i as u32);
    }
    (owner, wss, members, is_mtt)
}

/// The parameters of `spec` (whose policy is `ca-gedf`). Refused: no
/// shared cache, a quantum of 0, a policy number outside Fig. 4.2's; with
/// phantom tasks, a period that is not a whole number of quanta or a
/// hyperperiod too long to count its idle quanta.
pub(crate) fn params(spec: &Spec) -> Result<Params, AdmissionError> {
    let pol = spec.policy.as_ref().expect("build checked the policy section");
    let q = pol.quantum.map_or(DEFAULT_QUANTUM, |d| d.0);
    if q == 0 {
        return Err(AdmissionError::at("policy.quantum", "must be more than 0, e.g. `1ms`"));
    }
    let line = spec.platform.cache.as_ref().map_or(64, |c| c.line.0);
    let Some(cache) = spec.platform.cache.as_ref().map(|c| c.size.0).filter(|&s| s > 0) else {
        return Err(AdmissionError::at(
            "platform.cache",
            "`ca-gedf` needs the shared cache (its size is what the working sets scheduled in a quantum are compared with); add e.g. `cache: {size: 1MiB}`",
        ));
    };
    let policy = match pol.cache_policy.unwrap_or(1) {
        1 => CachePolicy::SmallestWss,
        2 => CachePolicy::LargestFitting,
        3 => CachePolicy::SmallestPerTask,
        4 => CachePolicy::LargestPerTaskFitting,
        5 => CachePolicy::LargestPerTaskPerCpu,
        v => {
            return Err(AdmissionError::at(
                "policy.cache_policy",
                format!("{v} is not a policy of Fig. 4.2; use 1 to 5"),
            ))
        }
    };
    let lost = match pol.lost_cause_policy.unwrap_or(1) {
        1 => LostCausePolicy::Gedf,
        2 => LostCausePolicy::LargestWss,
        3 => LostCausePolicy::LargestPerTask,
        v => {
            return Err(AdmissionError::at(
                "policy.lost_cause_policy",
                format!("{v} is not a lost-cause policy of Fig. 4.2; use 1 to 3"),
            ))
        }
    };
    let until_completion = match pol.promotion_duration.unwrap_or(2) {
        1 => false,
        2 => true,
        v => {
            return Err(AdmissionError::at(
                "policy.promotion_duration",
                format!("{v} is not a promotion-duration policy of Fig. 4.2; use 1 or 2"),
            ))
        }
    };
    let (owner, mut wss, members, is_mtt) = owners(spec);
    // The profiler measures an owner's per-job WSS as the misses of its
    // jobs, which assumes that job i's data is its own (the thesis'
    // assumption 1, notes §3.2): true of an `mtt` group's jobs, which the
    // platform model gives new data (compulsory misses, W / L per job);
    // a task in no group reuses its data from job to job, so its misses
    // are only the reloads of what others evicted (0 for back-to-back
    // jobs) and it keeps its declared `wss`.
    let profiled = if pol.profile.unwrap_or(false) {
        if !is_mtt.contains(&true) {
            return Err(AdmissionError::at(
                "policy.profile",
                "the working-set profiler estimates the WSS of `mtt` groups (whose jobs each reference their own data), and the spec has none; declare the tasks to profile under `mtt:` (a group of one task is an MTT too) or remove `profile: true`",
            ));
        }
        is_mtt
    } else {
        vec![false; wss.len()]
    };
    let declared = wss.clone();
    for (w, &p) in wss.iter_mut().zip(&profiled) {
        if p {
            *w = 0; // nothing is known until the profiler measures it
        }
    }
    let unequal = members
        .iter()
        .map(|m| m.windows(2).any(|w| spec.tasks[w[0] as usize].wcet != spec.tasks[w[1] as usize].wcet))
        .collect();
    let phantoms = if pol.phantoms.unwrap_or(true) { Some(phantom_tasks(spec, q)?) } else { None };
    Ok(Params {
        quantum: q,
        cpus: spec.platform.cpus,
        cache,
        line,
        profiled,
        declared,
        owner,
        wss,
        members,
        unequal,
        threshold: pol.cache_threshold.unwrap_or(0),
        policy,
        lost_cause: pol.lost_cause_threshold.map(|t| (t, lost)),
        phantoms,
        avoid_partial: pol.avoid_partially_eligible.unwrap_or(false),
        until_completion,
    })
}

/// The phantom tasks of §4.5: one per idle quantum of a hyperperiod H,
/// m·H − Σ e·H/p in quanta (e = ⌈wcet/Q⌉, p = period/Q), none when that is
/// negative (an overloaded set).
fn phantom_tasks(spec: &Spec, q: Time) -> Result<Phantoms, AdmissionError> {
    let qd = Duration(q);
    let mut h: u128 = 1;
    for (i, t) in spec.tasks.iter().enumerate() {
        if t.period.0 == 0 || t.period.0 % q != 0 {
            return Err(AdmissionError::at(
                format!("tasks[{i}].period"),
                format!("{} is not a multiple of the quantum {qd}: phantom tasks count whole idle quanta per hyperperiod; use a multiple of {qd}, change `policy.quantum` or set `policy.phantoms: false`", t.period),
            ));
        }
        let p = (t.period.0 / q) as u128;
        h = h / gcd(h, p) * p;
        if h > (u64::MAX / q) as u128 / 4 {
            return Err(AdmissionError::at(
                "policy.phantoms",
                "the hyperperiod is too long to count its idle quanta; use harmonic periods or set `phantoms: false`",
            ));
        }
    }
    let busy: u128 =
        spec.tasks.iter().map(|t| t.wcet.0.div_ceil(q).max(1) as u128 * (h / (t.period.0 / q) as u128)).sum();
    let idle = (spec.platform.cpus as u128 * h).saturating_sub(busy);
    Ok(Phantoms::new(u64::try_from(idle).unwrap_or(u64::MAX), (h as u64) * q))
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}
