//! Overhead accounting: execution times (and, for one method, periods and
//! deadlines) inflated by the kernel's overheads, so that an overhead-free
//! schedulability test run on the inflated task set accounts for them.
//!
//! Two methods, both *preemption-centric* (the cost of an interrupt is
//! charged to the job it preempts):
//!
//! - [`Method::Epos`], the EPOS thesis' Eq. 2 and Eq. 3 (Gracioli 2014,
//!   §2.5): with Q the tick period and u₀ = (Δtck + Δrel) / Q,
//!
//!   e′ = (e + 2(Δscd + Δcxs) + Δcpd) / (1 − u₀) + 2·c_pre + Δipi,
//!   c_pre = (Δtck + Δrel) / (1 − u₀).
//!
//!   Every tick is assumed to cost one tick plus releasing the jobs due then.
//!   Δrel is the thesis' "time to release all threads that have reached
//!   their release time": with the per-job RELEASE cost of an overhead file
//!   (which is what the simulator charges per released job), n·RELEASE for n
//!   tasks. Δipi is charged under global and clustered scheduling only (the
//!   thesis counts IPI latency for G-EDF and uses the same value for C-EDF;
//!   P-EDF needs no IPI). Δcpd is charged once per job, as the thesis says,
//!   and is the largest delay any task's working set can cause: under
//!   preemption-centric accounting a job pays for the job it preempts (the
//!   thesis' study gave every task the same WSS, where the two readings agree).
//! - [`Method::PerTaskRelease`], the variant SchedCAT's current code follows:
//!   release interrupts are charged per task release, u = Δtck / Q +
//!   Σⱼ Δrel / pⱼ, c_pre = (Δtck + n·Δrel) / (1 − u), e′ = (e + 2(Δscd +
//!   Δcxs) + Δcpd) / (1 − u) + 2·c_pre + Δipi; the release latency is taken
//!   off the period and the deadline; Δcpd is the largest delay any *other*
//!   task's working set can cause; Δipi only when m > 1 (and not partitioned).
//!
//! Both were checked against the simulator charging the same overheads
//! (crates/validate/tests/soundness_overheads.rs); reading Δrel as one job's
//! release and Δcpd as the job's own delay is unsound there (a synchronous
//! burst of releases, a long job resumed many times), see docs/overheads.md.
//!
//! The overheads are those in force for the task set's size (looked up in
//! the overhead model by task count, [`Overheads::costs`]); CPMD comes from
//! the task's working-set size through the model's CPMD (the thesis bound
//! (WSS / line) × miss cost when the file has no WSS table). Arithmetic is
//! exact (rationals of integer ns), and every inflated value is rounded up.

use crate::schedulability::{Input, TaskParams};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{ToPrimitive, Zero};
use schedlab_model::overheads::{Costs, Overheads, Resume};
use schedlab_model::spec::Domains;
use std::fmt;

/// How overheads are charged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Method {
    /// EPOS thesis Eq. 2 / Eq. 3.
    #[default]
    Epos,
    /// Release overhead per task release, release latency off periods and
    /// deadlines, CPMD from the largest other working set (SchedCAT's variant).
    PerTaskRelease,
}

impl Method {
    pub fn name(self) -> &'static str {
        match self {
            Method::Epos => "epos",
            Method::PerTaskRelease => "per-task-release",
        }
    }
}

impl std::str::FromStr for Method {
    type Err = String;
    fn from_str(s: &str) -> Result<Method, String> {
        match s {
            "epos" => Ok(Method::Epos),
            "per-task-release" => Ok(Method::PerTaskRelease),
            _ => Err(format!("unknown accounting method {s:?}; expected `epos` or `per-task-release`")),
        }
    }
}

/// What is charged, besides the method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Accounting {
    pub method: Method,
    /// Tick period Q in ns; 0 means no periodic tick (u₀ = Δrel / ∞ = 0,
    /// and each release is still charged once as an interrupt).
    pub tick: u64,
    /// Global, clustered or partitioned scheduling (IPI is charged for the
    /// first two only).
    pub domains: Domains,
}

impl Accounting {
    pub fn new(method: Method, tick: u64, domains: Domains) -> Accounting {
        Accounting { method, tick, domains }
    }
}

/// What one task was charged, in ns (rounded up).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Charge {
    pub wcet: u64,
    pub inflated_wcet: u64,
    /// Δcpd used for the task.
    pub cpmd: u64,
    /// c_pre (Eq. 3), rounded up.
    pub preemption: u64,
    /// Period and deadline after accounting (shorter by the release
    /// latency under [`Method::PerTaskRelease`]).
    pub period: u64,
    pub deadline: u64,
}

/// The inflated task set and what each task was charged.
#[derive(Debug, Clone, PartialEq)]
pub struct Inflated {
    pub input: Input,
    /// The overheads in force (looked up for the task count).
    pub costs: Costs,
    /// 1 − u₀ (or 1 − u) as a decimal, for reports.
    pub capacity: f64,
    pub charges: Vec<Charge>,
}

/// Why a task set cannot be accounted for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AccountingError {
    /// Tick and release interrupts alone use a whole CPU.
    NoCapacity { utilisation: String },
    /// The release latency is not below a task's deadline or period.
    LatencyTooLarge { task: usize, latency: u64, deadline: u64 },
    /// An inflated value does not fit in 64-bit ns.
    Overflow { task: usize },
}

impl fmt::Display for AccountingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AccountingError::NoCapacity { utilisation } => {
                write!(f, "tick and release interrupts take {utilisation} of every CPU: nothing is left for tasks")
            }
            AccountingError::LatencyTooLarge { task, latency, deadline } => write!(
                f,
                "tasks[{task}]: the release latency {} is not below its deadline or period {}",
                schedlab_model::Duration(*latency),
                schedlab_model::Duration(*deadline)
            ),
            AccountingError::Overflow { task } => {
                write!(f, "tasks[{task}]: the inflated WCET does not fit in 64-bit nanoseconds")
            }
        }
    }
}

impl std::error::Error for AccountingError {}

fn int(v: u64) -> BigRational {
    BigRational::from_integer(BigInt::from(v))
}

fn ceil_u64(v: &BigRational) -> Option<u64> {
    v.ceil().to_integer().to_u64()
}

/// The task set with its WCETs inflated by the overheads.
pub fn inflate(input: &Input, overheads: &Overheads, acc: &Accounting) -> Result<Inflated, AccountingError> {
    let n = input.tasks.len() as u64;
    let c = overheads.costs(n);
    let ipi = if acc.domains != Domains::PerCpu && (acc.method == Method::Epos || input.cpus > 1) { c.ipi } else { 0 };
    let wss = |i: usize| input.wss.get(i).copied().unwrap_or(0);
    // Each task's own CPMD, the worst of a preemption and a migration where
    // jobs may migrate.
    let own_cpmd = |w: u64| {
        let pre = overheads.cpmd(w, Resume::Preemption);
        if acc.domains == Domains::PerCpu {
            pre
        } else {
            pre.max(overheads.cpmd(w, Resume::Migration))
        }
    };
    // Preemption-centric: a job is charged the cache reload of the job it
    // preempts (at most one, at its release), not its own: the largest delay
    // any task can suffer (EPOS; the thesis used one WSS for all tasks, where
    // this is each task's own), or any *other* task can (per-task-release).
    let d: Vec<u64> = (0..input.tasks.len()).map(|i| own_cpmd(wss(i))).collect();
    let (mut best, mut second, mut at) = (0u64, 0u64, usize::MAX);
    for (i, &v) in d.iter().enumerate() {
        if v > best {
            second = best;
            best = v;
            at = i;
        } else if v > second {
            second = v;
        }
    }
    let cpmd: Vec<u64> = match acc.method {
        Method::Epos => vec![best; d.len()],
        Method::PerTaskRelease => (0..d.len()).map(|i| if i == at { second } else { best }).collect(),
    };
    // One interrupt releases every job due then: up to n of them, each
    // costing Δrel (the simulator, like the overhead files, charges RELEASE
    // per released job), so Eq. 2's Δrel ("release all threads due") is n·Δrel.
    let burst = c.release.saturating_mul(n);
    // u: the share of a CPU taken by tick and release interrupts.
    let interrupts = c.tick.saturating_add(burst);
    let mut u = if acc.tick > 0 {
        BigRational::new(
            BigInt::from(if acc.method == Method::Epos { interrupts } else { c.tick }),
            BigInt::from(acc.tick),
        )
    } else {
        BigRational::zero()
    };
    if acc.method == Method::PerTaskRelease {
        for t in &input.tasks {
            if t.period > 0 {
                u += BigRational::new(BigInt::from(c.release), BigInt::from(t.period));
            }
        }
    }
    let capacity = int(1) - &u;
    if capacity <= BigRational::zero() {
        return Err(AccountingError::NoCapacity { utilisation: format!("{:.4}", u.to_f64().unwrap_or(f64::INFINITY)) });
    }
    let scale = capacity.recip();
    let c_pre = int(interrupts) * &scale;
    let mut tasks = Vec::with_capacity(input.tasks.len());
    let mut charges = Vec::with_capacity(input.tasks.len());
    for (i, t) in input.tasks.iter().enumerate() {
        let base = int(t.wcet) + int(2 * (c.schedule + c.context_switch)) + int(cpmd[i]);
        let e = base * &scale + int(2) * &c_pre + int(ipi);
        let inflated = ceil_u64(&e).ok_or(AccountingError::Overflow { task: i })?;
        let (mut period, mut deadline) = (t.period, t.deadline);
        if acc.method == Method::PerTaskRelease && c.release_latency > 0 {
            if c.release_latency >= t.deadline.min(t.period) {
                return Err(AccountingError::LatencyTooLarge {
                    task: i,
                    latency: c.release_latency,
                    deadline: t.deadline.min(t.period),
                });
            }
            period -= c.release_latency;
            deadline -= c.release_latency;
        }
        tasks.push(TaskParams { wcet: inflated, deadline, period, ..*t });
        charges.push(Charge {
            wcet: t.wcet,
            inflated_wcet: inflated,
            cpmd: cpmd[i],
            preemption: ceil_u64(&c_pre).unwrap_or(u64::MAX),
            period,
            deadline,
        });
    }
    Ok(Inflated {
        input: Input { tasks, ..input.clone() },
        costs: c,
        capacity: capacity.to_f64().unwrap_or(0.0),
        charges,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_model::overheads::{Costs, Cpmd};

    const US: u64 = 1000;

    fn epos_costs() -> Costs {
        Costs { release: 500, schedule: 500, context_switch: 300, ipi: 300, tick: 248, release_latency: 0 }
    }

    #[test]
    fn the_thesis_eq2_example() {
        // e = 1000 µs, Δscd = 0.5, Δcxs = 0.3, Δcpd = 120.47 (the 128 KiB
        // bound at 64 B lines, 200 cycles at 3.4 GHz), Δtck = 0.248,
        // Δrel = 0.5, Q = 1000 µs, Δipi = 0.3: e′ = 1124.707 µs.
        // The thesis bound for 128 KiB is 2048 lines × 200 cycles / 3.4 GHz =
        // 120.4706 µs (120471 ns rounded up); the note rounds it to 120.47.
        assert_eq!(Cpmd::epos_bound(64).get(128 * 1024, Resume::Migration, Default::default()), 120_471);
        let mut oh = Overheads::constant(epos_costs());
        oh.cpmd = Cpmd::Bound { line: 128 * 1024, miss_num: 120_470, miss_den: 1 };
        let mut input = Input::new(4, vec![TaskParams::implicit(1000 * US, 10_000 * US)]);
        input.wss = vec![128 * 1024];
        let out = inflate(&input, &oh, &Accounting::new(Method::Epos, 1000 * US, Domains::Global)).unwrap();
        let ch = out.charges[0];
        assert_eq!(ch.cpmd, 120_470);
        // 1124.70705 µs exactly, rounded up to the next ns.
        assert_eq!(ch.inflated_wcet, 1_124_708, "{ch:?}");
        assert_eq!(ch.preemption, 749, "c_pre = 0.748/(1 − 0.000748) µs = 0.74856 µs");
        assert_eq!(out.input.tasks[0].period, 10_000 * US, "periods untouched");
    }

    #[test]
    fn partitioned_scheduling_pays_no_ipi() {
        let oh = Overheads::constant(epos_costs());
        let input = Input::new(4, vec![TaskParams::implicit(1000 * US, 10_000 * US)]);
        let g = inflate(&input, &oh, &Accounting::new(Method::Epos, 0, Domains::Global)).unwrap();
        let p = inflate(&input, &oh, &Accounting::new(Method::Epos, 0, Domains::PerCpu)).unwrap();
        // Without a tick: e + 2(0.5 + 0.3) + 2(0.248 + 0.5) (+ 0.3 IPI).
        assert_eq!(p.charges[0].inflated_wcet, 1000 * US + 1600 + 1496);
        assert_eq!(g.charges[0].inflated_wcet, p.charges[0].inflated_wcet + 300);
    }

    #[test]
    fn per_task_release_charges_releases_per_task_and_shortens_periods() {
        let mut costs = epos_costs();
        costs.release_latency = 20 * US;
        let mut oh = Overheads::constant(costs);
        oh.cpmd = Cpmd::epos_bound(64);
        let mut input = Input::new(
            2,
            vec![TaskParams::implicit(1000 * US, 10_000 * US), TaskParams::implicit(500 * US, 5_000 * US)],
        );
        input.wss = vec![4096, 128 * 1024];
        let out = inflate(&input, &oh, &Accounting::new(Method::PerTaskRelease, 1000 * US, Domains::Global)).unwrap();
        // Task 0 is charged task 1's (larger) CPMD and vice versa.
        assert_eq!(out.charges[0].cpmd, 120_471);
        assert_eq!(out.charges[1].cpmd, 3765);
        assert_eq!(out.input.tasks[0].period, 9_980 * US);
        assert_eq!(out.input.tasks[1].deadline, 4_980 * US);
        // u = 0.248/1000 + 0.5/10000 + 0.5/5000 = 0.000398.
        assert!((out.capacity - (1.0 - 0.000398)).abs() < 1e-12, "{}", out.capacity);
        let lat = inflate(
            &Input::new(1, vec![TaskParams::implicit(1, 10 * US)]),
            &oh,
            &Accounting::new(Method::PerTaskRelease, 0, Domains::PerCpu),
        );
        assert!(matches!(lat, Err(AccountingError::LatencyTooLarge { task: 0, .. })), "{lat:?}");
    }

    #[test]
    fn interrupts_that_fill_the_cpu_are_an_error() {
        let oh = Overheads::constant(Costs { tick: 600, release: 400, ..Costs::default() });
        let input = Input::new(1, vec![TaskParams::implicit(1, 10)]);
        let e = inflate(&input, &oh, &Accounting::new(Method::Epos, 1000, Domains::PerCpu)).unwrap_err();
        assert!(e.to_string().contains("1.0000 of every CPU"), "{e}");
    }

    #[test]
    fn more_overhead_never_deflates() {
        let base = Overheads::constant(epos_costs());
        let mut more = epos_costs();
        more.schedule += 100;
        let more = Overheads::constant(more);
        let input = Input::new(2, (1..20).map(|i| TaskParams::implicit(i * 37 * US, i * 1000 * US)).collect());
        let acc = Accounting::new(Method::Epos, 1000 * US, Domains::Global);
        let (a, b) = (inflate(&input, &base, &acc).unwrap(), inflate(&input, &more, &acc).unwrap());
        for (x, y) in a.charges.iter().zip(&b.charges) {
            assert!(x.inflated_wcet >= x.wcet && y.inflated_wcet > x.inflated_wcet);
        }
    }
}
