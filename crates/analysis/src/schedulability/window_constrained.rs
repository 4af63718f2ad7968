//! Soft real-time: Leontyev & Anderson's tardiness bound for global
//! window-constrained priorities (RTS 2010, as given in Calandrino's
//! dissertation, Eqs. 2.4–2.5), and its use for the cache-aware heuristics
//! with phantom tasks (Calandrino §4.3).
//!
//! Every job has a priority point; if it stays within [r − φ(T), d + ψ(T)]
//! the priorities are window-constrained, and for sporadic implicit-deadline
//! tasks on m CPUs with every u ≤ 1 and U ≤ m task T's tardiness is at most
//! z(T) + e(T), with
//!
//! - z(T) = (E_z + A(T)) / (m − U_z),
//! - A(T) = (m − 1)·ρ − e(T) + Σ_{U ≠ T} (⌈(ψ(T) + φ(U)) / p(U)⌉ + 1)·e(U),
//! - ρ = max φ + max ψ, E_z / U_z the sums of the m − 1 largest execution
//!   costs / utilisations.
//!
//! G-EDF, promotions to the current time (never past the deadline: tardy
//! jobs are not promoted) and the heuristics of Fig. 4.2 keep every priority
//! point in [r, d]: φ = ψ = 0, ρ = 0, and A(T) = Σ_{U ≠ T} e(U) − e(T).
//!
//! The heuristic bound (`soft.ca.tardiness`) is the same bound with E_z /
//! U_z (the dissertation prints E_x / U_x at §4.3; its own Eq. 2.4, which it
//! applies, has the m − 1 largest values — notes §9.1 item 2) over the
//! tasks plus the phantom tasks: while U < m, idle time is a set of phantom
//! tasks of one quantum every hyperperiod H, as many as
//! ⌈(m·H − Σ e·H/p) / Q⌉ (rounded up: each phantom adds to the bound), and
//! they count as tasks (their own tardiness is not bounded for anyone).
//! The heuristics are quantum-driven: a job holds its CPU for whole quanta,
//! so this bound takes each WCET rounded up to whole quanta (as `ca-gedf`
//! counts its phantoms), and then the idle time is whole quanta.

use super::data::Data;
use super::input::{Input, TaskParams};
use super::outcome::{Exactness, Outcome, Verdict};
use super::registry::TestInfo;
use super::tardiness::{bounded, frac, int, largest, ns, precheck};
use num_bigint::BigInt;
use num_integer::Integer;
use num_rational::BigRational;
use schedlab_model::exact::Ratio;
use schedlab_model::PolicyName;

pub const WINDOW_ID: &str = "soft.window.tardiness";
pub const CA_ID: &str = "soft.ca.tardiness";

pub const WINDOW_INFO: TestInfo = TestInfo {
    id: WINDOW_ID,
    title: "window-constrained priorities (priority points in [release, deadline]): Leontyev–Anderson tardiness bound per task",
    policies: &[],
    assumes: "sporadic tasks, implicit deadlines, no jitter, every priority point within its job's [release, deadline] (G-EDF, job promotions); verdict = tardiness bounded (U ≤ m, every u ≤ 1), bounds in data",
    exactness: Exactness::Exact,
    source: "Leontyev & Anderson 2010; Calandrino 2009 Eqs. 2.4–2.5",
};

pub const CA_INFO: TestInfo = TestInfo {
    id: CA_ID,
    title: "cache-aware heuristics (job promotions, phantom tasks): window-constrained tardiness bound per task",
    policies: &[PolicyName::CaGedf],
    assumes: "sporadic tasks, implicit deadlines, no jitter, quantum-driven promotions within [release, deadline], WCETs in whole quanta, idle time as phantom tasks of one quantum per hyperperiod; verdict = tardiness bounded (U ≤ m, every u ≤ 1 in whole quanta), bounds in data",
    exactness: Exactness::Exact,
    source: "Calandrino 2009 §4.3 (E_z/U_z per notes §9.1 item 2) with Eqs. 2.4–2.5",
};

/// Idle time as phantom tasks: `count` tasks of one quantum every
/// hyperperiod.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Phantoms {
    pub count: u128,
    /// e of each phantom: the quantum (ns).
    pub quantum: u64,
    /// p of each phantom: the hyperperiod of the tasks (ns).
    pub hyperperiod: BigInt,
    /// m·H − Σ e·H/p (ns).
    pub idle: BigInt,
}

impl Phantoms {
    /// The phantom tasks of `tasks` on `m` CPUs with quantum `q` (none when
    /// U = m). Callers check U ≤ m and every period > 0.
    pub fn of(tasks: &[TaskParams], m: u32, q: u64) -> Phantoms {
        let h = tasks.iter().fold(BigInt::from(1), |l, t| l.lcm(&BigInt::from(t.period)));
        let busy: BigInt = tasks.iter().map(|t| BigInt::from(t.wcet) * (&h / BigInt::from(t.period))).sum();
        let idle = BigInt::from(m) * &h - busy;
        let q = q.max(1);
        let count = idle.div_ceil(&BigInt::from(q));
        Phantoms { count: u128::try_from(count).unwrap_or(u128::MAX), quantum: q, hyperperiod: h, idle }
    }
}

/// The terms of the bound, for explanations and tests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Terms {
    /// E_z (ns).
    pub e: u128,
    /// U_z.
    pub u: Ratio,
    /// ρ = max φ + max ψ (ns).
    pub rho: u128,
    /// A(T) per task (ns; may be negative).
    pub a: Vec<Ratio>,
    /// Per-task bounds z(T) + e(T) (ns).
    pub bounds: Vec<Ratio>,
}

/// Leontyev–Anderson's bound for `tasks` with priority windows
/// `window[i] = (φ, ψ)` in ns (empty: all 0), plus `phantoms` counted as
/// tasks. Callers check U ≤ m and every u ≤ 1.
pub fn bounds(tasks: &[TaskParams], m: u32, window: &[(u64, u64)], phantoms: Option<&Phantoms>) -> Terms {
    let w = |i: usize| window.get(i).copied().unwrap_or((0, 0));
    let k = m as i64 - 1;
    let mut costs: Vec<u128> = tasks.iter().map(|t| t.wcet as u128).collect();
    let mut utils: Vec<BigRational> = tasks.iter().map(|t| frac(t.wcet, t.period)).collect();
    // Phantoms (φ = ψ = 0) among the m − 1 largest: at most m − 1 copies matter.
    if let Some(ph) = phantoms {
        let copies = ph.count.min(k.max(0) as u128) as usize;
        costs.extend(std::iter::repeat_n(ph.quantum as u128, copies));
        let pu = BigRational::new(BigInt::from(ph.quantum), ph.hyperperiod.clone());
        utils.extend(std::iter::repeat_n(pu, copies));
    }
    let e_z = largest(costs, k, 0);
    let u_z = largest(utils, k, int(0));
    let rho = (0..tasks.len()).map(|i| w(i).0).max().unwrap_or(0) as u128
        + (0..tasks.len()).map(|i| w(i).1).max().unwrap_or(0) as u128;
    let denom = int(m as u128) - u_z.clone();
    let mut a = Vec::with_capacity(tasks.len());
    let mut out = Vec::with_capacity(tasks.len());
    for (i, t) in tasks.iter().enumerate() {
        let psi = w(i).1 as u128;
        let mut sum = BigInt::from(0);
        for (j, o) in tasks.iter().enumerate() {
            if j != i {
                let jobs = (psi + w(j).0 as u128).div_ceil(o.period as u128) + 1;
                sum += BigInt::from(jobs) * BigInt::from(o.wcet);
            }
        }
        if let Some(ph) = phantoms {
            let jobs = BigInt::from(psi).div_ceil(&ph.hyperperiod) + 1;
            sum += jobs * BigInt::from(ph.count) * BigInt::from(ph.quantum);
        }
        let at = BigRational::from_integer(sum + BigInt::from(k.max(0)) * BigInt::from(rho)) - int(t.wcet as u128);
        let z = (int(e_z) + at.clone()) / denom.clone();
        a.push(Ratio(at));
        out.push(Ratio(z + int(t.wcet as u128)));
    }
    Terms { e: e_z, u: Ratio(u_z), rho, a, bounds: out }
}

/// The quantum the spec's policy declares, else 1 ms (the default of the
/// quantum-driven policies).
fn quantum(input: &Input) -> u64 {
    input.policy.as_ref().and_then(|p| p.quantum).map_or(1_000_000, |d| d.0)
}

fn check(id: &'static str, input: &Input, with_phantoms: bool) -> Outcome {
    let m = input.cpus;
    let u = match precheck(id, input) {
        Ok(u) => u,
        Err(o) => return *o,
    };
    // Quantum-driven: WCETs in whole quanta.
    let q = quantum(input).max(1);
    let tasks: Vec<TaskParams> = if with_phantoms {
        input.tasks.iter().map(|t| TaskParams { wcet: t.wcet.div_ceil(q) * q, ..*t }).collect()
    } else {
        input.tasks.clone()
    };
    if with_phantoms {
        if let Some(i) = tasks.iter().position(|t| t.wcet > t.period) {
            return Outcome::new(
                id,
                Verdict::Unschedulable,
                format!(
                    "{} needs more whole quanta of {} than its period holds: its tardiness grows without bound",
                    input.task_label(i),
                    schedlab_model::Duration(q)
                ),
            )
            .task(i);
        }
        let uq = Ratio::sum(tasks.iter().map(|t| (t.wcet as u128, t.period as u128)));
        if uq.gt_int(m as u128) {
            return Outcome::new(
                id,
                Verdict::Unschedulable,
                format!(
                    "in whole quanta of {} the utilisation is {:.4}, above the {m} CPUs: tardiness grows without bound",
                    schedlab_model::Duration(q),
                    uq.to_f64()
                ),
            )
            .compare(uq, Ratio::new(m as u128, 1));
        }
    }
    let phantoms = with_phantoms.then(|| Phantoms::of(&tasks, m, q));
    let terms = bounds(&tasks, m, &[], phantoms.as_ref());
    let what = if with_phantoms { "the cache-aware heuristics" } else { "window-constrained priorities" };
    let (out, worst) = bounded(id, input, what, &u, &terms.bounds);
    let mut out = out.detail(format!(
        "E_z = {} ns (the {} largest WCETs), U_z = {} (the {} largest utilisations), ρ = 0 (every priority point within [release, deadline])",
        terms.e,
        m - 1,
        terms.u.to_fraction(),
        m - 1
    ));
    if let Some(ph) = &phantoms {
        out = out.detail(format!("quantum-driven: each WCET is taken in whole quanta of {} ns", q));
        out = out.detail(format!(
            "phantom tasks: {} of e = {} ns (one quantum) and p = H = {} ns, from the idle time m·H − Σ e·H/p = {} ns; they count as tasks, adding {} ns to each task's A(T)",
            ph.count,
            ph.quantum,
            ph.hyperperiod,
            ph.idle,
            BigInt::from(ph.count) * BigInt::from(ph.quantum)
        ));
    }
    out.detail(format!(
        "A(T) = Σ_(U ≠ T) e(U) − e(T){}; each task's bound is (E_z + A(T))/(m − U_z) + its WCET (ns), in data; {}'s A(T) = {}",
        if with_phantoms { " (phantoms included)" } else { "" },
        input.task_label(worst),
        ns(&terms.a[worst])
    ))
    .with_data(Data::Tardiness(terms.bounds))
}

pub fn window(input: &Input) -> Outcome {
    check(WINDOW_ID, input, false)
}

pub fn cache_aware(input: &Input) -> Outcome {
    check(CA_ID, input, true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_model::{PolicyName, PolicySpec};

    fn r(n: u128, d: u128) -> Ratio {
        Ratio::new(n, d)
    }

    /// G2 (notes §9.2): Calandrino's Fig. 2.6 set, M = 2, T and U (2, 3),
    /// V (4, 7): window-constrained bounds 8, 8, 7 (L520).
    #[test]
    fn golden_g2_the_fig_2_6_set() {
        let tasks = [TaskParams::implicit(2, 3), TaskParams::implicit(2, 3), TaskParams::implicit(4, 7)];
        let t = bounds(&tasks, 2, &[], None);
        assert_eq!((t.e, t.u.clone(), t.rho), (4, r(2, 3), 0));
        assert_eq!(t.a, vec![r(4, 1), r(4, 1), r(0, 1)]);
        assert_eq!(t.bounds, vec![r(8, 1), r(8, 1), r(7, 1)]);
        let o = window(&Input::new(2, tasks.to_vec()));
        // T and U tie; the last is named, as the report's soft line does.
        assert_eq!((o.verdict, o.task), (Verdict::Schedulable, Some(1)));
        assert!(o.reason.contains("8 ns"), "{}", o.reason);
        assert_eq!(o.data, Some(Data::Tardiness(vec![r(8, 1), r(8, 1), r(7, 1)])));
    }

    /// G3: the Fig. 2.7 set's task T (e = 1; the others' costs 2, 3, 4, the
    /// largest utilisation 1/2; the periods are inferred, notes §4.4): 9.
    #[test]
    fn golden_g3_the_fig_2_7_set() {
        let tasks = [
            TaskParams::implicit(1, 4),
            TaskParams::implicit(2, 8),
            TaskParams::implicit(3, 6),
            TaskParams::implicit(4, 8),
        ];
        let t = bounds(&tasks, 2, &[], None);
        assert_eq!((t.e, t.u.clone()), (4, r(1, 2)));
        assert_eq!(t.bounds[0], r(9, 1));
    }

    /// φ and ψ: a priority point allowed ψ after the deadline counts the
    /// other tasks' jobs in that span, and ρ adds (m − 1)·ρ.
    #[test]
    fn windows_beyond_the_job_widen_the_bound() {
        let tasks = [TaskParams::implicit(2, 10), TaskParams::implicit(3, 10)];
        // ψ(0) = 15: task 1 contributes (⌈15/10⌉ + 1)·3 = 9; ρ = 15; m = 2:
        // A(0) = 15 − 2 + 9 = 22; E_z = 3, U_z = 3/10: (3 + 22)/(17/10) + 2.
        let t = bounds(&tasks, 2, &[(0, 15), (0, 0)], None);
        assert_eq!(t.rho, 15);
        assert_eq!(t.a[0], r(22, 1));
        assert_eq!(t.bounds[0], r(250 + 34, 17));
        let zero = bounds(&tasks, 2, &[], None);
        assert!(zero.bounds.iter().zip(&t.bounds).all(|(a, b)| a <= b));
    }

    /// G10's set (Fig. 4.6, m = 2, H = 8 quanta, U = 1.5): 4 phantoms; each
    /// adds one quantum to every task's A(T).
    #[test]
    fn phantoms_count_the_idle_quanta_and_widen_the_bound() {
        let q = 1_000_000u64;
        let tasks = [
            TaskParams::implicit(q, 2 * q),
            TaskParams::implicit(q, 4 * q),
            TaskParams::implicit(q, 4 * q),
            TaskParams::implicit(2 * q, 8 * q),
            TaskParams::implicit(2 * q, 8 * q),
        ];
        let ph = Phantoms::of(&tasks, 2, q);
        assert_eq!((ph.count, ph.hyperperiod.clone(), ph.idle.clone()), (4, BigInt::from(8 * q), BigInt::from(4 * q)));
        let with = bounds(&tasks, 2, &[], Some(&ph));
        let without = bounds(&tasks, 2, &[], None);
        for i in 0..tasks.len() {
            assert_eq!(with.a[i].0.clone() - without.a[i].0.clone(), int(4 * q as u128));
        }
        // E_z = 2Q (the largest WCET; a phantom's Q is not larger), U_z = 1/2.
        assert_eq!((with.e, with.u.clone()), (2 * q as u128, r(1, 2)));
        // T: A = (1 + 1 + 2 + 2)Q − Q + 4Q = 9Q; (2Q + 9Q)/(3/2) + Q = 25Q/3.
        assert_eq!(with.bounds[0], r(25 * q as u128, 3));
        let mut input = Input::new(2, tasks.to_vec());
        let mut pol = PolicySpec::named(PolicyName::Gedf);
        pol.quantum = Some(schedlab_model::Duration(q));
        input.policy = Some(pol);
        let o = cache_aware(&input);
        assert_eq!(o.verdict, Verdict::Schedulable);
        assert!(o.details.iter().any(|d| d.contains("phantom tasks: 4 of e = 1000000 ns")), "{:?}", o.details);
        // At U = m there is no idle time: no phantoms, the plain bound.
        let full = [TaskParams::implicit(q, q), TaskParams::implicit(q, q)];
        assert_eq!(Phantoms::of(&full, 2, q).count, 0);
        // Idle time that is not whole quanta is rounded up to a phantom.
        assert_eq!(Phantoms::of(&[TaskParams::implicit(q / 2, 2 * q)], 1, q).count, 2);
        // The test takes WCETs in whole quanta: half a quantum counts as one
        // (bound of T = 1.5 quanta below: as with a WCET of one quantum), and
        // a set that fits only in fractions of quanta is unbounded.
        let mut half = input.clone();
        half.tasks[0].wcet = q / 2;
        assert_eq!(cache_aware(&half).data, o.data);
        let mut over = input.clone();
        over.tasks = vec![TaskParams::implicit(q + 1, 2 * q); 3];
        assert_eq!(cache_aware(&over).verdict, Verdict::Unschedulable);
        assert_eq!(window(&over).verdict, Verdict::Schedulable);
    }

    #[test]
    fn overload_is_unbounded_and_deadlines_must_be_implicit() {
        let o = window(&Input::new(1, vec![TaskParams::implicit(2, 3), TaskParams::implicit(2, 3)]));
        assert_eq!(o.verdict, Verdict::Unschedulable);
        let o = cache_aware(&Input::new(2, vec![TaskParams::implicit(4, 3)]));
        assert_eq!((o.verdict, o.task), (Verdict::Unschedulable, Some(0)));
        let o = cache_aware(&Input::new(2, vec![TaskParams::constrained(1, 2, 3)]));
        assert_eq!(o.verdict, Verdict::NotApplicable);
        // One CPU: the bound is the other tasks' work.
        let t = bounds(&[TaskParams::implicit(1, 4), TaskParams::implicit(2, 4)], 1, &[], None);
        assert_eq!(t.bounds, vec![r(2, 1), r(1, 1)]);
    }
}
