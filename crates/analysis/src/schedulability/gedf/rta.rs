//! RTA for G-EDF (Bertogna & Cirinei 2007), discrete time, with slack
//! feedback. The response time of τₖ is bounded by the least fixed point of
//!
//!   R ← Cₖ + ⌊(1/m)·Σ_{i≠k} min(Wᵢ(R), Jᵢ(Dₖ), R − Cₖ + 1)⌋,
//!   Wᵢ(L) = Nᵢ·Cᵢ + min(Cᵢ, L + Dᵢ − Cᵢ − Sᵢ − Nᵢ·Tᵢ),  Nᵢ = ⌊(L + Dᵢ − Cᵢ − Sᵢ)/Tᵢ⌋,
//!   Jᵢ(Dₖ) = ⌊Dₖ/Tᵢ⌋·Cᵢ + min(Cᵢ, max(0, Dₖ mod Tᵢ − Sᵢ))   (the EDF bound),
//!
//! and a bound R ≤ Dₖ gives the slack Sₖ = Dₖ − R used by the other tasks
//! in the next evaluation. Rounds over all tasks repeat until no bound
//! changes, every bound is ≤ its deadline, or [`MAX_ROUNDS`] (the same cap
//! as BCL-iterative). The set is schedulable when every Rₖ ≤ Dₖ.
//!
//! The least fixed point is found piece by piece ([`super::piecewise`]):
//! the same value as the plain iteration, without its dozens of small
//! steps in nanosecond time. With f(Dₖ) ≤ BCL-iterative's bound and the
//! same rounds, RTA's slacks are never smaller than BCL-iterative's, so RTA
//! accepts every set BCL-iterative accepts.

use super::super::data::Data;
use super::super::input::{Input, TaskParams};
use super::super::outcome::{Exactness, Outcome, Verdict};
use super::super::registry::TestInfo;
use super::bcl_iterative::MAX_ROUNDS;
use super::exact::int;
use super::explain::{explained, ns, Explain, Names, Quiet};
use super::model::{precheck, Needs};
use super::piecewise::{divmod, MAX_EVALS};
use schedlab_model::PolicyName;

pub const ID: &str = "gedf.rta";

pub const INFO: TestInfo = TestInfo {
    id: ID,
    title: "G-EDF response-time analysis with slack feedback (Bertogna–Cirinei)",
    policies: &[PolicyName::Gedf],
    assumes: "sporadic tasks without jitter, constrained deadlines (D ≤ T), integer time (ns), m ≥ 1",
    exactness: Exactness::Sufficient,
    source: "Bertogna & Cirinei 2007 (RTSS)",
};

/// The task model the test needs (checked by `precheck`).
pub const NEEDS: Needs = Needs { constrained: true, min_cpus: 0, u_below_m: false };

/// The workload of τᵢ in a window of length L (carry-in ending Sᵢ before
/// its deadline).
#[cfg(test)]
pub(crate) fn workload(ti: &TaskParams, l: i128, s: i128) -> i128 {
    let (c, t) = (ti.wcet as i128, ti.period as i128);
    let a = l + ti.deadline as i128 - c - s;
    let n = a.div_euclid(t);
    n * c + c.min(a - n * t)
}

/// What the rounds reuse: per pair (k, i), ⌊Dₖ/Tᵢ⌋·Cᵢ and Dₖ mod Tᵢ (so
/// Jᵢ(Dₖ) needs no division), and per task Dᵢ − Cᵢ (the sawtooth's offset
/// before the slack).
struct Pairs {
    n: usize,
    /// 1/Tᵢ as f64 (for [`divmod`]).
    inv: Vec<f64>,
    /// 1/j as f64 for j ≤ m.
    inv_small: Vec<f64>,
    j0: Vec<i64>,
    rem: Vec<i64>,
}

impl Pairs {
    fn new(tasks: &[TaskParams], m: u32) -> Pairs {
        let n = tasks.len();
        let inv: Vec<f64> = tasks.iter().map(|t| 1.0 / t.period as f64).collect();
        let (mut j0, mut rem) = (Vec::with_capacity(n * n), Vec::with_capacity(n * n));
        for tk in tasks {
            let dk = tk.deadline as i64;
            for (ti, &inv) in tasks.iter().zip(&inv) {
                let (c, t) = (ti.wcet as i64, ti.period as i64);
                let (q, r) = divmod(dk, t, inv);
                j0.push(q * c);
                rem.push(r);
            }
        }
        let inv_small = (0..=m).map(|j| 1.0 / j.max(1) as f64).collect();
        Pairs { n, inv, inv_small, j0, rem }
    }
}

/// A response-time bound ≤ Dₖ for task k (the least fixed point of
/// R ← Cₖ + ⌊Σ_{i≠k} min(Wᵢ(R), Jᵢ(Dₖ), R − Cₖ + 1)/m⌋), or `Err(an
/// iterate above Dₖ)`.
///
/// The search ([`lfp_rising`]) evaluates the sum at increasing R only, so each
/// sawtooth Wᵢ keeps its position (jobs Nᵢ and remainder, at the window
/// offset R + Dᵢ − Cᵢ − Sᵢ) and moves it forward by subtraction: one
/// division per task and bound instead of one per evaluation. `st` is
/// scratch.
#[allow(clippy::too_many_arguments)]
fn bound_k(
    tasks: &[TaskParams],
    pairs: &Pairs,
    m: u32,
    k: usize,
    slack: &[i64],
    st: &mut Vec<Saw>,
    rooms: &mut Vec<i64>,
    exhausted: &mut bool,
) -> Result<i128, i128> {
    let inv = &pairs.inv_small;
    let (ck, dk) = (tasks[k].wcet as i64, tasks[k].deadline as i64);
    let (j0, rem) = (&pairs.j0[k * pairs.n..(k + 1) * pairs.n], &pairs.rem[k * pairs.n..(k + 1) * pairs.n]);
    st.clear();
    for (i, ti) in tasks.iter().enumerate() {
        if i != k {
            let (c, t, si) = (ti.wcet as i64, ti.period as i64, slack[i]);
            let a = ck + ti.deadline as i64 - c - si;
            let (n, r) = divmod(a, t, pairs.inv[i]);
            st.push(Saw { c, t, n: n * c, r, j: j0[i] + c.min((rem[i] - si).max(0)) });
        }
    }
    // Terms that have reached Jᵢ(Dₖ) for good (Wᵢ and the cap both at or
    // above it; all three are non-decreasing in R) leave the loop: their sum
    // is `done`, constant from then on.
    let (mut at, mut active, mut done) = (ck, st.len(), 0i64);
    // S(R) exactly, and in `rooms` the room of every rising term (slope 1):
    // each term stays at least its value plus min(δ, room) at R + δ.
    let mut eval = |r: i64, rooms: &mut Vec<i64>| -> i64 {
        rooms.clear();
        let delta = r - at;
        at = r;
        let capv = r - ck + 1;
        let mut v = done;
        let mut x = 0;
        while x < active {
            let w = &mut st[x];
            w.r += delta;
            while w.r >= w.t {
                w.r -= w.t;
                w.n += w.c;
            }
            let (wv, ws, wroom) = if w.r < w.c { (w.n + w.r, 1, w.c - w.r) } else { (w.n + w.c, 0, w.t - w.r) };
            if wv >= w.j {
                if capv >= w.j {
                    done += w.j;
                    v += w.j;
                    active -= 1;
                    st.swap(x, active);
                    continue;
                }
                // min(Jᵢ, cap) = cap until the cap reaches Jᵢ.
                v += capv;
                rooms.push(w.j - capv);
            } else if wv <= capv {
                // min(Wᵢ, Jᵢ) = Wᵢ, rising until its piece ends or it reaches Jᵢ.
                v += wv;
                if ws == 1 {
                    rooms.push(wroom.min(w.j - wv));
                }
            } else {
                // The cap, below Wᵢ < Jᵢ: rising while Wᵢ rises in parallel
                // and stays below Jᵢ, or up to a flat Wᵢ.
                v += capv;
                rooms.push(if ws == 0 { wroom.min(wv - capv) } else { wroom.min(w.j - wv) });
            }
            x += 1;
        }
        v
    };
    lfp_rising(ck, dk, m as i64, inv, &mut eval, rooms, exhausted).map(i128::from).map_err(i128::from)
}

/// The least R ≥ c with c + ⌊S(R)/m⌋ ≤ R, if it is at most d, else
/// `Err(a point above d)` — [`super::piecewise::lfp`]'s answer, with longer jumps: below any
/// R + δ, S is at least S(R) + Σ_rising min(δ, roomᵢ) (every term is
/// non-decreasing, and linear with slope 1 over its room), a concave bound;
/// every point where that bound is still ≥ m·(R + δ − c + 1) has
/// f > R + δ and is skipped, up to the first where it drops below (found
/// by walking the rooms in increasing order). `inv[j]` = 1/j as f64.
fn lfp_rising(
    c: i64,
    d: i64,
    m: i64,
    inv: &[f64],
    eval: &mut impl FnMut(i64, &mut Vec<i64>) -> i64,
    rooms: &mut Vec<i64>,
    exhausted: &mut bool,
) -> Result<i64, i64> {
    let mut r = c;
    for _ in 0..MAX_EVALS {
        let v = eval(r, rooms);
        let f = c + divmod(v, m, inv[m as usize]).0;
        if f > d {
            return Err(f);
        }
        if f <= r {
            return Ok(r);
        }
        // g(δ) = bound − m·(R + δ − c + 1), g(0) ≥ 0 since f > R.
        let mut g = v - m * (r - c + 1);
        // Walking the rooms in increasing order, the first p = L − m + 1 of
        // L are passed without a check (m or more still rising) and add
        // Σ_{j<p} (L − j − m)·(roomⱼ − roomⱼ₋₁) = the sum of the p − 1
        // smallest rooms to g: a selection instead of a sort for them.
        let len = rooms.len();
        let (mut from, mut rising, rest) = if len as i64 >= m {
            let p = len + 1 - m as usize;
            rooms.select_nth_unstable(p - 1);
            g += rooms[..p - 1].iter().sum::<i64>();
            let from = rooms[p - 1];
            rooms[p..].sort_unstable();
            (from, m - 1, p)
        } else {
            rooms.sort_unstable();
            (0i64, len as i64, 0)
        };
        let mut jump = None;
        for &room in rooms[rest..].iter() {
            if rising < m {
                let q = divmod(g, m - rising, inv[(m - rising) as usize]).0;
                if from + q < room {
                    jump = Some(from + q + 1);
                    break;
                }
            }
            g += (rising - m) * (room - from);
            from = room;
            rising -= 1;
        }
        let jump = jump.unwrap_or_else(|| from + divmod(g, m - rising, inv[(m - rising) as usize]).0 + 1);
        let next = f.max(r.saturating_add(jump));
        if next > d {
            return Err(next);
        }
        r = next;
    }
    // Not reached for sane inputs; as `lfp`: d itself is the last resort
    // (a bound, not the least fixed point: `exhausted` says so).
    *exhausted = true;
    let v = eval(d, rooms);
    let f = c + v / m;
    if f <= d {
        Ok(d)
    } else {
        Err(f)
    }
}

/// One interfering task's sawtooth at the current R (see [`bound_k`]).
struct Saw {
    c: i64,
    t: i64,
    /// Whole jobs in the window times Cᵢ, and the remainder (0 ≤ r < t).
    n: i64,
    r: i64,
    /// Jᵢ(Dₖ) with the current slack.
    j: i64,
}

pub(crate) struct Bounds {
    /// Proven response-time bounds (None: not proven).
    pub r: Vec<Option<i128>>,
    pub failed: Option<(usize, i128)>,
    pub rounds: usize,
    /// Some search gave up after `MAX_EVALS` evaluations and took Dₖ as
    /// the bound (so a bound may be above the least fixed point).
    pub exhausted: bool,
}

/// Searches for a task that fails even with every other task at its
/// largest possible slack (see [`iterate`]'s `early`), per set. On the
/// m = 100 study (400–1000 tasks) 8 left half the rejections to the full
/// rounds; 32 to 256 cost the same and about half as much CPU as 8; every
/// failing task (no limit) costs more again, on sets that are not hopeless.
const HOPELESS_CHECKS: usize = 64;

/// The rounds of slack feedback. A task is recomputed only when another
/// task's slack changed since its last computation (otherwise the result
/// would be the same).
///
/// `early` (verdicts only): when a task k fails, it is searched once more
/// with every other task at its largest possible slack Dᵢ − Cᵢ (a bound of
/// every slack the rounds can reach: every response-time bound is ≥ Cᵢ);
/// the fixed-point function falls as slacks grow, so if k fails even then
/// it fails in every round and the set is rejected now — the rounds'
/// verdict, without running them (at most [`HOPELESS_CHECKS`] such
/// searches per set, each on another task). A search that gave up (after
/// `MAX_EVALS` evaluations) proves nothing and is ignored. The bounds,
/// failing task and rounds returned are then those so far.
pub(crate) fn iterate(tasks: &[TaskParams], m: u32, early: bool) -> Bounds {
    let n = tasks.len();
    let pairs = Pairs::new(tasks, m);
    let mut st = Vec::with_capacity(n);
    let mut rooms = Vec::with_capacity(n);
    let mut slack = vec![0i64; n];
    let mut r: Vec<Option<i128>> = vec![None; n];
    // Slack changes so far, each task's own, and the others' as each task last saw them.
    let (mut changes, mut own, mut seen) = (0usize, vec![0usize; n], vec![usize::MAX; n]);
    let mut last: Vec<Result<i128, i128>> = vec![Ok(0); n];
    let mut rounds = 0;
    let mut exhausted = false;
    let (mut upper, mut checked): (Vec<i64>, Vec<bool>) = (Vec::new(), Vec::new());
    let mut checks = 0;
    loop {
        rounds += 1;
        let (mut changed, mut failed) = (false, None);
        for k in 0..n {
            let others = changes - own[k];
            let res = if seen[k] == others {
                last[k]
            } else {
                seen[k] = others;
                last[k] = bound_k(tasks, &pairs, m, k, &slack, &mut st, &mut rooms, &mut exhausted);
                last[k]
            };
            match res {
                Ok(b) => {
                    if r[k].is_none_or(|old| b < old) {
                        r[k] = Some(b);
                        let s = tasks[k].deadline as i64 - b as i64;
                        if s > slack[k] {
                            slack[k] = s;
                            changed = true;
                            changes += 1;
                            own[k] += 1;
                        }
                    }
                }
                Err(above) => {
                    failed.get_or_insert((k, above));
                    if early && checks < HOPELESS_CHECKS {
                        if upper.is_empty() {
                            upper = tasks.iter().map(|t| t.deadline as i64 - t.wcet as i64).collect();
                            checked = vec![false; n];
                        }
                        if !checked[k] {
                            checked[k] = true;
                            checks += 1;
                            let mut gave_up = false;
                            let hopeless = bound_k(tasks, &pairs, m, k, &upper, &mut st, &mut rooms, &mut gave_up);
                            if hopeless.is_err() && !gave_up {
                                return Bounds { r, failed: Some((k, above)), rounds, exhausted };
                            }
                        }
                    }
                }
            }
        }
        if failed.is_none() || !changed || rounds >= MAX_ROUNDS {
            return Bounds { r, failed, rounds, exhausted };
        }
    }
}

pub fn core<E: Explain>(tasks: &[TaskParams], m: u32, ex: &mut E) -> Verdict {
    if let Err(v) = precheck(tasks, m, NEEDS, ex) {
        return v;
    }
    let b = iterate(tasks, m, ex.out().is_none());
    if let Some((o, names)) = ex.out() {
        match b.failed {
            Some((k, above)) => {
                o.reason = format!(
                    "for {}: the response-time iteration exceeds the deadline ({} > {}){}; the test cannot prove it",
                    names.label(k),
                    ns(above),
                    ns(tasks[k].deadline as i128),
                    if b.rounds >= MAX_ROUNDS {
                        format!(" after the maximum of {MAX_ROUNDS} rounds")
                    } else {
                        format!(" after {} round(s) of slack feedback", b.rounds)
                    }
                );
                o.task = Some(k);
                o.value = Some(int(above));
                o.bound = Some(int(tasks[k].deadline as i128));
            }
            None => {
                let slack = |k: usize| tasks[k].deadline as i128 - b.r[k].unwrap_or(0);
                let k = (0..tasks.len()).min_by_key(|&k| slack(k)).unwrap_or(0);
                let rk = b.r[k].unwrap_or(0);
                o.reason = format!(
                    "every response-time bound is within its deadline ({} round(s)); tightest {}: R = {} ≤ D = {}",
                    b.rounds,
                    names.label(k),
                    ns(rk),
                    ns(tasks[k].deadline as i128)
                );
                o.task = Some(k);
                o.value = Some(int(rk));
                o.bound = Some(int(tasks[k].deadline as i128));
            }
        }
        o.details.push(format!(
            "response-time bounds: {}",
            b.r.iter()
                .enumerate()
                .map(|(i, r)| format!("{} {}", names.label(i), r.map_or("not proven".to_string(), ns)))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        o.data = Some(Data::ResponseTimes(b.r.iter().map(|r| r.and_then(|x| u64::try_from(x).ok())).collect()));
    }
    if b.failed.is_none() {
        Verdict::Schedulable
    } else {
        Verdict::Inconclusive
    }
}

pub fn decide(tasks: &[TaskParams], m: u32) -> Verdict {
    core(tasks, m, &mut Quiet)
}

/// [`decide`], and whether every response-time search found its least
/// fixed point (none gave up after `MAX_EVALS` evaluations): only then
/// does a rejection carry over to sets with larger WCETs
/// (`super::dominance`).
pub fn decide_exact(tasks: &[TaskParams], m: u32) -> (Verdict, bool) {
    if let Err(v) = precheck(tasks, m, NEEDS, &mut Quiet) {
        return (v, true);
    }
    let b = iterate(tasks, m, true);
    (if b.failed.is_none() { Verdict::Schedulable } else { Verdict::Inconclusive }, !b.exhausted)
}

pub fn check(tasks: &[TaskParams], m: u32) -> Outcome {
    explained(ID, Names::NONE, |ex| core(tasks, m, ex))
}

pub fn check_input(input: &Input) -> Outcome {
    explained(ID, Names::of(input), |ex| core(&input.tasks, input.cpus, ex))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn response_times_of_a_light_set() {
        // Two CPUs, three tasks: the third sees at most ⌊(2 + 2)/2⌋ = 2 of interference.
        let t = vec![TaskParams::implicit(2, 10), TaskParams::implicit(2, 10), TaskParams::implicit(3, 10)];
        let o = check(&t, 2);
        assert_eq!(o.verdict, Verdict::Schedulable, "{o:?}");
        let Some(Data::ResponseTimes(r)) = &o.data else { panic!("{o:?}") };
        assert!(r.iter().all(|x| x.is_some()));
        assert_eq!(r[2], Some(5));
        assert!(o.slack().expect("slack").0 >= int(0).0);
    }

    /// The bounds equal the plain iteration R ← Cₖ + ⌊Σ min(Wᵢ, Jᵢ, R − Cₖ + 1)/m⌋.
    #[test]
    fn bounds_equal_the_plain_iteration() {
        let mut rng = schedlab_model::rng::Rng::new(2007);
        let (mut ok, mut err) = (0, 0);
        for _ in 0..20_000 {
            let m = rng.range_u64(1, 5) as u32;
            let n = rng.range_u64(2, 8) as usize;
            let tasks: Vec<TaskParams> = (0..n)
                .map(|_| {
                    let t = rng.range_u64(2, 60);
                    let c = rng.range_u64(1, t);
                    TaskParams::constrained(c, rng.range_u64(c, t), t)
                })
                .collect();
            let slack: Vec<i64> = tasks.iter().map(|t| rng.below(t.deadline - t.wcet + 1) as i64).collect();
            let k = rng.below(n as u64) as usize;
            let (ck, dk) = (tasks[k].wcet as i128, tasks[k].deadline as i128);
            let s = |r: i128| -> i128 {
                (0..n)
                    .filter(|&i| i != k)
                    .map(|i| {
                        let ti = &tasks[i];
                        let (c, t) = (ti.wcet as i128, ti.period as i128);
                        let j = (dk / t) * c + c.min((dk % t - slack[i] as i128).max(0));
                        workload(ti, r, slack[i] as i128).min(j).min(r - ck + 1)
                    })
                    .sum()
            };
            let mut r = ck;
            let plain = loop {
                let f = ck + s(r) / m as i128;
                if f > dk {
                    break Err(f);
                }
                if f <= r {
                    break Ok(r);
                }
                r = f;
            };
            let pairs = Pairs::new(&tasks, m);
            let got = bound_k(&tasks, &pairs, m, k, &slack, &mut Vec::new(), &mut Vec::new(), &mut false);
            match plain {
                Ok(r) => {
                    ok += 1;
                    assert_eq!(got, Ok(r), "{tasks:?} m {m} k {k} slack {slack:?}");
                }
                Err(_) => {
                    err += 1;
                    assert!(got.is_err(), "{tasks:?} m {m} k {k} slack {slack:?}: {got:?}");
                }
            }
        }
        assert!(ok > 3000 && err > 3000, "{ok} {err}");
    }

    /// The early rejection (a task failing even with every other slack at
    /// its largest) gives the verdict of the full rounds, and stops them
    /// early on some sets.
    #[test]
    fn early_rejection_keeps_the_verdict() {
        let mut rng = schedlab_model::rng::Rng::new(2014);
        let (mut pass, mut fail, mut early) = (0, 0, 0);
        for set in 0..6_000 {
            let m = [1, 2, 4, 8, 16, 32][set % 6];
            let n = rng.range_u64(1, 4 * m as u64 + 4) as usize;
            let load = rng.uniform(0.3, 1.1) * m as f64 / n as f64;
            let tiny = set % 3 == 0;
            let tasks: Vec<TaskParams> = (0..n)
                .map(|_| {
                    let t = if tiny { rng.range_u64(1, 40) } else { rng.range_u64(10_000, 100_000) * 1000 };
                    let c = ((rng.uniform(0.2, 1.8) * load).min(1.0) * t as f64).max(1.0) as u64;
                    let d = if set % 2 == 0 { t } else { rng.range_u64(c, t) };
                    TaskParams::constrained(c, d, t)
                })
                .collect();
            let (full, quick) = (iterate(&tasks, m, false), iterate(&tasks, m, true));
            assert_eq!(quick.failed.is_none(), full.failed.is_none(), "m = {m}: {tasks:?}");
            // Stopping early never reports a search as given up that the full rounds did not.
            assert!(!quick.exhausted || full.exhausted, "m = {m}: {tasks:?}");
            if full.failed.is_none() {
                pass += 1;
            } else {
                fail += 1;
                early += usize::from(quick.rounds < full.rounds || quick.r != full.r);
            }
        }
        assert!(pass > 600 && fail > 600 && early > 300, "{pass} pass, {fail} fail, {early} stopped early");
    }

    #[test]
    fn workload_bound_with_slack() {
        let ti = TaskParams::implicit(2, 10);
        // a = L + D − C − S = 5 + 10 − 2 − 0 = 13: one job + min(2, 3).
        assert_eq!(workload(&ti, 5, 0), 4);
        // With slack 8 (R = 2): a = 5, 0 jobs + min(2, 5).
        assert_eq!(workload(&ti, 5, 8), 2);
    }
}
