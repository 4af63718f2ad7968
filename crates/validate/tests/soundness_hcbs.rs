//! Soundness of the H-CBS group test (`hcbs.msf`) against the simulator: no
//! reservation tree the test accepts misses a deadline when simulated under
//! `hcbs` — with synchronous periodic releases and with seeded sporadic
//! ones, at the WCET — and every schedule passes the validator.
//!
//! Cases: 1–3 CPUs, 1–3 top-level groups of 1–4 tasks (periods from
//! {10, 20, 25, 40, 50, 100} ms, utilisation 0.02–0.3 each, implicit or
//! constrained deadlines), sometimes a nested subgroup with a leaf queue.
//! Server periods are short (1–5 ms: a group's tasks wait out its blackout
//! 2(P − Q)). Budgets: in two cases of three the least budgets interface
//! selection chooses (the test's boundary, where a miss would show an
//! unsound step), top-level ones 0–10 % more; otherwise random budgets that fit the
//! CPUs, some per CPU (`budgets`, none on some CPUs). Fixed seed; `SCHEDLAB_ORACLE_SETS=N` runs N cases. Run with
//! `--nocapture` for the counts.
//!
//! `pessimism` measures, for a few fixed groups,
//! the least budget the test accepts against the least with which no job
//! misses in simulation (docs/analysis.md gives the table).

#[path = "oracles/support.rs"]
#[allow(dead_code)]
mod support;

use schedlab_analysis::schedulability::gfp::priority_order;
use schedlab_analysis::schedulability::reservations;
use schedlab_analysis::schedulability::reservations::interface::{for_tasks, select};
use schedlab_analysis::schedulability::{Input, TaskParams, Verdict};
use schedlab_model::rng::Rng;
use schedlab_model::{exact::hyperperiod, PolicyName, Spec};
use schedlab_sim::{Arrivals, Execution, SimConfig, Sporadic};
use schedlab_trace::Event;
use std::fmt::Write as _;
use support::*;

/// Cases in CI.
const SETS: usize = 300;

/// A task's (C, D, T) in ns.
type Params = (u64, u64, u64);

/// A group before budgets: its tasks (C, D, T) in ns, its server period,
/// and an optional subgroup (tasks, period) with the leaf period.
struct Draft {
    tasks: Vec<(u64, u64, u64)>,
    period: u64,
    sub: Option<(Vec<Params>, u64, u64)>,
}

fn random_tasks(r: &mut Rng, n: u64) -> Vec<(u64, u64, u64)> {
    (0..n)
        .map(|_| {
            let t = *r.choose(&[10 * MS, 20 * MS, 25 * MS, 40 * MS, 50 * MS, 100 * MS]).expect("non-empty");
            let c = ((r.uniform(0.02, 0.3) * t as f64) as u64 / US).max(1) * US;
            let d = if r.below(2) == 0 { t } else { c + r.range_u64((t - c) / 2, t - c) };
            (c, d, t)
        })
        .collect()
}

fn drafts(r: &mut Rng) -> (u32, Vec<Draft>) {
    let m = r.range_u64(1, 3) as u32;
    let k = r.range_u64(1, 3);
    let groups = (0..k)
        .map(|g| {
            let n = r.range_u64(1, 4);
            let tasks = random_tasks(r, n);
            if g == 0 && r.below(10) < 3 {
                // A parent with a short period hosts a subgroup and a leaf
                // queue with longer ones (beyond the parent's blackout).
                let n = r.range_u64(1, 3);
                let sub = random_tasks(r, n);
                let child = *r.choose(&[4 * MS, 5 * MS, 10 * MS]).expect("non-empty");
                let leaf = *r.choose(&[4 * MS, 5 * MS, 10 * MS]).expect("non-empty");
                Draft { tasks, period: *r.choose(&[MS, 2 * MS]).expect("non-empty"), sub: Some((sub, child, leaf)) }
            } else {
                Draft { tasks, period: *r.choose(&[MS, 2 * MS, 2500 * US, 5 * MS]).expect("non-empty"), sub: None }
            }
        })
        .collect();
    (m, groups)
}

/// The spec of the drafts with these budgets (group order: pre-order, a
/// parent's subgroup right after it; `leaf` the parent's leaf budget).
fn spec_text(m: u32, drafts: &[Draft], budgets: &[u64], leaf: u64, per_cpu: &[Option<Vec<u64>>]) -> String {
    let mut tasks = String::new();
    let mut groups = String::new();
    let mut n = 0;
    let mut names = |list: &[(u64, u64, u64)], tasks: &mut String| -> Vec<String> {
        list.iter()
            .map(|&(c, d, t)| {
                let name = format!("t{n}");
                n += 1;
                let _ = writeln!(tasks, "  - {{name: {name}, wcet: {c}ns, deadline: {d}ns, period: {t}ns}}");
                name
            })
            .collect()
    };
    let mut b = budgets.iter();
    for (g, d) in drafts.iter().enumerate() {
        let own = names(&d.tasks, &mut tasks);
        let q = b.next().expect("a budget per group");
        let budget = match per_cpu.get(g).cloned().flatten() {
            Some(v) => format!("budgets: [{}]", v.iter().map(|q| format!("{q}ns")).collect::<Vec<_>>().join(", ")),
            None => format!("budget: {q}ns"),
        };
        let _ = write!(groups, "  - {{name: g{g}, {budget}, period: {}ns, tasks: [{}]", d.period, own.join(", "));
        if let Some((sub, child, lp)) = &d.sub {
            let inner = names(sub, &mut tasks);
            let qs = b.next().expect("a budget for the subgroup");
            let _ = write!(
                groups,
                ", leaf_budget: {leaf}ns, leaf_period: {lp}ns, groups: [{{name: g{g}s, budget: {qs}ns, period: {child}ns, tasks: [{}]}}]",
                inner.join(", ")
            );
        }
        groups.push_str("}\n");
    }
    format!("platform: {{cpus: {m}}}\npolicy: {{name: hcbs}}\ntasks:\n{tasks}reservations:\n{groups}")
}

fn load(text: &str) -> Option<Spec> {
    schedlab_model::load_str(text, None, "case.yaml").ok().map(|l| l.spec)
}

/// Synchronous periodic and sporadic runs over the hyperperiod (twice for
/// sporadic), validated; the misses of each.
fn simulate_both(spec: &Spec, seed: u64) -> [usize; 2] {
    let h = hyperperiod(spec.tasks.iter().map(|t| t.period.0)).expect("listed periods");
    let mut out = [0; 2];
    for (j, sporadic) in [Sporadic::None, Sporadic::Uniform { max: 3 * MS }].into_iter().enumerate() {
        let config = SimConfig {
            horizon: Some(if j == 0 { h } else { 2 * h }),
            seed,
            spec_overheads: false,
            arrivals: Arrivals { sporadic, ignore_jitter: false },
            execution: Execution::Wcet,
            ..SimConfig::default()
        };
        let case = Case { seed, spec: spec.clone(), config };
        let run = simulate_case(&case).expect("hcbs admits every valid tree");
        let report = check(&run, run.events.clone());
        assert!(report.pass, "{}\n{}", case.describe(), report.render());
        out[j] = misses(&run.events);
    }
    out
}

#[test]
fn no_tree_the_group_test_accepts_misses_under_hcbs() {
    let n = sets(SETS);
    let (mut accepted, mut boundary, mut simulated, mut invalid, mut missed_rejected) = (0, 0, 0, 0, 0);
    let mut asymmetric = 0;
    let mut failures = Vec::new();
    for i in 0..n {
        let seed = case_seed(0x4cb5, PolicyName::Hcbs, i);
        let mut r = Rng::new(seed);
        let (m, drafts) = drafts(&mut r);
        let count = drafts.iter().map(|d| 1 + d.sub.is_some() as usize).sum::<usize>();
        // Token budgets first, to read the groups as the analysis does.
        let Some(spec) = load(&spec_text(m, &drafts, &vec![1; count], 1, &[])) else {
            invalid += 1;
            continue;
        };
        let input = Input::from_spec(&spec);
        let order = priority_order(&input).expect("RM");
        let chosen = select(&input.tasks, &order, &input.groups, m as usize);
        let least = r.below(3) < 2;
        let (budgets, leaf, per_cpu) = if least {
            let Some(b) = chosen.0.iter().map(|c| c.budget).collect::<Option<Vec<u64>>>() else {
                invalid += 1;
                continue;
            };
            let mut pad = |q: u64, p: u64| (q + (q as f64 * r.uniform(0.0, 0.1)) as u64).min(p);
            // More budget for a top-level group only: a subgroup's extra
            // budget could overfill the parent chosen for it.
            let b: Vec<u64> = b
                .iter()
                .zip(&input.groups)
                .map(|(&q, g)| if g.parent.is_none() { pad(q, g.period) } else { q }.max(1))
                .collect();
            let leaf = chosen.0.iter().find_map(|c| c.leaf).map_or(1, |(q, _)| q.unwrap_or(1).max(1));
            (b, leaf, Vec::new())
        } else {
            let b: Vec<u64> = input.groups.iter().map(|g| r.range_u64(g.period / 20, g.period / 2).max(1)).collect();
            // Some groups get per-CPU budgets (an asymmetric platform; none
            // on some CPUs).
            let per_cpu: Vec<Option<Vec<u64>>> = drafts
                .iter()
                .map(|d| {
                    if m == 1 || d.sub.is_some() || r.below(10) >= 4 {
                        return None;
                    }
                    let mut v: Vec<u64> = (0..m)
                        .map(|_| if r.below(3) == 0 { 0 } else { r.range_u64(d.period / 4, d.period).max(1) })
                        .collect();
                    if v.iter().all(|&q| q == 0) {
                        v[0] = d.period / 4;
                    }
                    Some(v)
                })
                .collect();
            (b, r.range_u64(1, MS / 4), per_cpu)
        };
        let Some(spec) = load(&spec_text(m, &drafts, &budgets, leaf, &per_cpu)) else {
            invalid += 1;
            continue;
        };
        assert_eq!(spec.reservation_nodes().len(), count);
        let input = Input::from_spec(&spec);
        let verdict = reservations::check(&input).verdict;
        let ok = verdict == Verdict::Schedulable;
        if least && chosen.1.is_none() {
            // The least budgets fit the CPUs: the test accepts them (the
            // selection and the test agree).
            assert!(ok, "the chosen budgets are refused:\n{}", emit(&spec));
            boundary += 1;
        }
        accepted += ok as usize;
        asymmetric += (ok && per_cpu.iter().any(|v| v.is_some())) as usize;
        simulated += 1;
        let miss = simulate_both(&spec, seed);
        if miss[0] + miss[1] > 0 {
            if ok {
                failures.push(format!("accepted, misses {miss:?} (case seed {seed:#x}):\n{}", emit(&spec)));
            } else {
                missed_rejected += 1;
            }
        }
    }
    println!(
        "H-CBS: {n} cases, {invalid} not valid trees, {simulated} simulated (2 runs each), {accepted} accepted ({boundary} at the least budgets)"
    );
    println!("H-CBS: {asymmetric} accepted trees with per-CPU budgets; {missed_rejected} rejected trees missed in simulation, {} accepted trees missed", failures.len());
    assert!(failures.is_empty(), "{} accepted trees miss; the first: {}", failures.len(), failures[0]);
    assert!(boundary >= n / 4, "the campaign reaches the test's boundary: {boundary} of {n}");
    assert!(missed_rejected > 0, "the campaign reaches trees that do miss");
    assert!(asymmetric >= n / 100, "the campaign accepts trees with per-CPU budgets: {asymmetric}");
}

fn emit(spec: &Spec) -> String {
    schedlab_model::emit::to_yaml(spec)
}

/// Misses of the tasks below index `n` (the measured group's).
fn misses_below(events: &[Event], n: usize) -> usize {
    events.iter().filter(|e| matches!(e, Event::DeadlineMiss { task, .. } if (*task as usize) < n)).count()
}

/// One group of `tasks` on `m` CPUs with budget `q` every `p`, beside a
/// `hog` group (listed first, so it wins EDF ties) holding the rest of each
/// CPU with one always-busy task per CPU, so the measured group receives its
/// budget late in its periods. Misses of the group's tasks over `runs`
/// simulations (synchronous periodic, then sporadic with seeds 1..).
fn simulated_misses(m: u32, tasks: &[(u64, u64, u64)], q: u64, p: u64, runs: u64) -> usize {
    let mut text = format!("platform: {{cpus: {m}}}\npolicy: {{name: hcbs}}\ntasks:\n");
    for (i, &(c, d, t)) in tasks.iter().enumerate() {
        let _ = writeln!(text, "  - {{name: t{i}, wcet: {c}ns, deadline: {d}ns, period: {t}ns}}");
    }
    for h in 0..m {
        let _ = writeln!(text, "  - {{name: hog{h}, wcet: 100ms, period: 100ms, class: be}}");
    }
    let names: Vec<String> = (0..tasks.len()).map(|i| format!("t{i}")).collect();
    let hogs: Vec<String> = (0..m).map(|h| format!("hog{h}")).collect();
    text += "reservations:\n";
    if q < p {
        let _ = writeln!(text, "  - {{name: hog, budget: {}ns, period: {p}ns, tasks: [{}]}}", p - q, hogs.join(", "));
    }
    let _ = writeln!(text, "  - {{name: g, budget: {q}ns, period: {p}ns, tasks: [{}]}}", names.join(", "));
    let spec = load(&text).unwrap_or_else(|| panic!("a valid spec:\n{text}"));
    let h = hyperperiod(tasks.iter().map(|t| t.2)).expect("small periods");
    (0..runs)
        .map(|j| {
            let config = SimConfig {
                horizon: Some(2 * h),
                seed: j,
                spec_overheads: false,
                arrivals: Arrivals {
                    sporadic: if j == 0 { Sporadic::None } else { Sporadic::Uniform { max: 5 * MS } },
                    ignore_jitter: false,
                },
                execution: Execution::Wcet,
                ..SimConfig::default()
            };
            let run = simulate_case(&Case { seed: j, spec: spec.clone(), config }).expect("admitted");
            misses_below(&run.events, tasks.len())
        })
        .sum()
}

/// The least budget (to 10 µs) with no simulated miss, searching down from
/// the whole period.
fn least_simulated(m: u32, tasks: &[(u64, u64, u64)], p: u64, runs: u64) -> u64 {
    let (mut lo, mut hi) = (0u64, p / (10 * US));
    while lo < hi {
        let mid = (lo + hi) / 2;
        if simulated_misses(m, tasks, (mid * 10 * US).max(1), p, runs) == 0 {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    hi * 10 * US
}

/// The table of docs/analysis.md: `cargo test -p schedlab-validate --test
/// soundness_hcbs pessimism -- --nocapture`. It fails if a simulation misses
/// at a budget the test accepts.
#[test]
fn pessimism() {
    let configs: &[(&str, u32, u64, &[Params])] = &[
        ("A", 1, 2 * MS, &[(MS, 10 * MS, 10 * MS), (2 * MS, 20 * MS, 20 * MS)]),
        ("B", 1, 5 * MS, &[(MS, 10 * MS, 10 * MS), (2 * MS, 20 * MS, 20 * MS)]),
        ("C", 2, 2 * MS, &[(2 * MS, 10 * MS, 10 * MS), (3 * MS, 20 * MS, 20 * MS), (5 * MS, 50 * MS, 50 * MS)]),
        ("D", 2, 5 * MS, &[(2 * MS, 10 * MS, 10 * MS), (3 * MS, 20 * MS, 20 * MS), (5 * MS, 50 * MS, 50 * MS)]),
        (
            "E",
            4,
            2 * MS,
            &[
                (3 * MS, 10 * MS, 10 * MS),
                (4 * MS, 20 * MS, 20 * MS),
                (10 * MS, 50 * MS, 50 * MS),
                (5 * MS, 25 * MS, 25 * MS),
            ],
        ),
    ];
    println!("| config | CPUs | tasks (C/T) | P | least Q accepted (Eq. 4) | least Q accepted (MαΔ) | least Q without a simulated miss | accepted / simulated |");
    println!("|---|---|---|---|---|---|---|---|");
    for &(name, m, p, tasks) in configs {
        let params: Vec<TaskParams> = tasks.iter().map(|&(c, d, t)| TaskParams::constrained(c, d, t)).collect();
        let members: Vec<usize> = (0..params.len()).collect(); // listed by RM already
        let exact = for_tasks(&params, &members, m as usize, p).expect("a budget");
        let linear = least_linear(&params, m as usize, p);
        let sim = least_simulated(m, tasks, p, 4);
        assert!(sim <= exact, "{name}: the simulation misses at the accepted budget {exact}");
        let listed: Vec<String> = tasks.iter().map(|&(c, _, t)| format!("{}/{}", c / MS, t / MS)).collect();
        println!(
            "| {name} | {m} | {} | {} ms | {:.2} ms | {} | {:.2} ms | {:.2} |",
            listed.join(", "),
            p / MS,
            exact as f64 / MS as f64,
            linear.map_or("none".into(), |q| format!("{:.2} ms", q as f64 / MS as f64)),
            sim as f64 / MS as f64,
            exact as f64 / sim.max(1) as f64
        );
    }
}

/// The least budget the test accepts on the MαΔ abstraction (linear bounds).
fn least_linear(tasks: &[TaskParams], m: usize, p: u64) -> Option<u64> {
    use schedlab_analysis::schedulability::gfp::msf;
    use schedlab_analysis::schedulability::reservations::interface::smallest;
    use schedlab_analysis::supply::{Platform, Server, Supply};
    let order: Vec<usize> = (0..tasks.len()).collect();
    smallest(p, |q| {
        let plat = Platform::symmetric(Supply::Hcbs(Server::new(q, p).expect("q ≤ p")), m).mad();
        msf::decide(tasks, &order, &plat) == Verdict::Schedulable
    })
}
