//! RUN oracles: the policy simulated over random periodic implicit-deadline
//! task sets, each schedule checked by the validator (generic invariants and
//! replay of the policy) at tolerance 0.
//!
//! 1. Random sets with U ≤ m (half at U = m exactly), m ∈ {2, 4, 8, 16},
//!    every packing rule and both slack policies, some with offsets (with
//!    wcet·offset/period a whole number of ns), over a hyperperiod: no deadline miss, every trace replays; the levels of the
//!    reductions and the preemptions per job (below 3, the RUN paper's
//!    simulations) are reported. Periods are whole milliseconds and every
//!    utilisation is at least 1 %, which rules out windows whose fluid slack
//!    is below 2 ns (docs/policies.md, "Integer time"); the WCETs are
//!    arbitrary integers of ns. Debug builds also assert, at every
//!    replenishment, that each item ended its period within 1 ns of its
//!    exact entitlement.
//! 2. Early completion (execution times below the WCET): no miss.
//! 3. The thesis's two-level example (examples/run.yaml).
//! 4. RUN is partitioned EDF when the first PACK gives m unit servers: the
//!    same schedule as P-EDF with the same packing, no migration.
//! 5. Determinism.
//! 6. Replay catches corrupted RUN traces.
//!
//! `SCHEDLAB_ORACLE_SETS=N` runs N sets in campaign 1 instead of the default
//! and `SCHEDLAB_ORACLE_SEED=S` draws another family; a failure prints the
//! case. Run with `--nocapture` to see the counts.

mod replayed;

use replayed::*;
use schedlab_admission::reduction::reduce_spec;
use schedlab_model::rng::Rng;
use schedlab_model::{Duration, Packing, Platform, PolicyName, PolicySpec, Slack, Spec, Task};
use schedlab_sim::{Execution, SimConfig};
use schedlab_trace::{Event, SwitchReason};
use schedlab_validate::{Check, PolicyChecks, Report};
use std::collections::{BTreeMap, HashMap};

const MS: u64 = 1_000_000;
/// Periods in ms: divisors of 120, so a hyperperiod is at most 120 ms (and a
/// task has at most 6 jobs in it: debug builds stay fast).
const PERIODS: &[u64] = &[20, 24, 30, 40, 60, 120];
const H: u64 = 120 * MS;
const CPUS: &[u32] = &[2, 4, 8, 16];
const PACKINGS: &[Packing] = &[
    Packing::Wfd,
    Packing::Wfd,
    Packing::Wfd,
    Packing::Ffd,
    Packing::Bfd,
    Packing::Nfd,
    Packing::Ff,
    Packing::Bf,
    Packing::Wf,
    Packing::Nf,
];

/// Sets in campaign 1.
const SETS: usize = 1200;

fn case_seed(salt: u64, i: usize) -> u64 {
    let base = std::env::var("SCHEDLAB_ORACLE_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x0052_554e_2024_u64);
    base ^ salt.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ i as u64
}

#[derive(Debug, Clone)]
struct Case {
    seed: u64,
    spec: Spec,
    config: SimConfig,
}

impl Case {
    fn describe(&self) -> String {
        format!(
            "case seed {:#x}\n--- spec ---\n{}--- config ---\n{:?}\n",
            self.seed,
            schedlab_model::emit::to_yaml(&self.spec),
            self.config
        )
    }
}

fn spec(m: u32, tasks: Vec<Task>) -> Spec {
    Spec {
        meta: None,
        platform: Platform { cpus: m, clusters: None, cache: None, memory: None },
        policy: Some(PolicySpec::named(PolicyName::Run)),
        overheads: None,
        reservations: None,
        mtt: None,
        tasks,
    }
}

/// A random set on m CPUs: tasks with periods from `PERIODS` and WCETs of
/// any ns from 1 % to 100 % of the period, added while the total stays
/// below the target; with `full`, tasks of period 120 ms fill it up to
/// exactly m (each at least 1 % too).
fn random_case(seed: u64, m: u32, full: bool) -> Case {
    let mut r = Rng::new(seed);
    let cap = m as u64 * H;
    let target = if full { cap } else { r.range_u64(cap / 2, cap) };
    let mut tasks = Vec::new();
    let mut work = 0u64;
    loop {
        let p = *r.choose(PERIODS).unwrap() * MS;
        let c = r.range_u64(p / 100, p);
        if work + c * (H / p) > target {
            break;
        }
        work += c * (H / p);
        tasks.push((c, p));
    }
    if full {
        while work < target {
            let left = target - work;
            // Keep every filler at 1 % or more.
            let c = if left > H + H / 100 {
                H
            } else if left > H {
                left - H / 100
            } else {
                left.max(H / 100)
            };
            let c = c.min(left);
            work += c;
            tasks.push((c, H));
        }
        assert_eq!(work, cap);
    }
    let offsets = r.below(8) == 0;
    let tasks: Vec<Task> = tasks
        .into_iter()
        .enumerate()
        .map(|(i, (c, p))| {
            let mut t = Task::new(format!("t{i}"), Duration(c), Duration(p));
            if offsets && r.below(2) == 0 {
                // A multiple of p / gcd(c, p), below 2p: wcet·offset/period
                // is a whole number of ns (docs/policies.md, "Integer time").
                let step = p / gcd(c, p);
                t.offset = Duration(step * r.range_u64(1, 2 * p / step - 1));
            }
            t
        })
        .collect();
    let max_offset = tasks.iter().map(|t| t.offset.0).max().unwrap_or(0);
    let mut spec = spec(m, tasks);
    let pol = spec.policy.as_mut().unwrap();
    pol.partitioning = Some(*r.choose(PACKINGS).unwrap());
    pol.slack = Some(if r.below(2) == 0 { Slack::Greedy } else { Slack::Proportional });
    let config =
        SimConfig { horizon: Some(max_offset + H), seed: r.next_u64(), spec_overheads: false, ..SimConfig::default() };
    Case { seed, spec, config }
}

/// Preemptions (a job switched away before completing) and migrations (a
/// job resuming on another CPU) in a trace.
fn preemptions_and_migrations(events: &[Event]) -> (u64, u64) {
    let (mut pre, mut mig) = (0, 0);
    let mut last: HashMap<(u32, u64), u32> = HashMap::new();
    for e in events {
        match *e {
            Event::SwitchAway { reason: SwitchReason::Preempt, .. } => pre += 1,
            Event::SwitchTo { cpu, task, job, .. } => {
                if let Some(prev) = last.insert((task, job), cpu) {
                    mig += u64::from(prev != cpu);
                }
            }
            _ => {}
        }
    }
    (pre, mig)
}

fn misses(r: &Report) -> u64 {
    r.misses.count + r.misses.unfinished
}

// ---------------------------------------------------------------------------
// 1. Random sets up to U = m: no miss, every trace replays.

#[test]
fn random_sets_meet_every_deadline_and_replay() {
    let n = sets(SETS);
    let (mut full, mut jobs, mut preempt, mut migrate) = (0, 0u64, 0u64, 0u64);
    let mut levels = BTreeMap::new();
    let mut per_m: BTreeMap<u32, (u64, u64)> = BTreeMap::new();
    for i in 0..n {
        let m = CPUS[i % CPUS.len()];
        let is_full = i % 2 == 0;
        let case = random_case(case_seed(1, i), m, is_full);
        full += usize::from(is_full);
        let tree = reduce_spec(&case.spec).unwrap_or_else(|e| panic!("{e}\n{}", case.describe()));
        *levels.entry(tree.levels).or_insert(0usize) += 1;
        let run = simulate_spec(&case.spec, &case.config);
        let r = check(&run, run.events.clone());
        assert!(r.pass, "{}\n{}", case.describe(), r.render());
        assert_eq!(r.policy_checks, PolicyChecks::Replay);
        assert_eq!(misses(&r), 0, "RUN missed a deadline at U ≤ m:\n{}\n{}", case.describe(), r.render());
        let (p, g) = preemptions_and_migrations(&run.events);
        jobs += r.jobs.released;
        preempt += p;
        migrate += g;
        let e = per_m.entry(m).or_default();
        e.0 += r.jobs.released;
        e.1 += p;
    }
    let mean = preempt as f64 / jobs as f64;
    println!("RUN: {n} sets ({full} at U = m exactly), {jobs} jobs, 0 misses; levels {levels:?}");
    println!(
        "RUN: {preempt} preemptions ({mean:.3} per job), {migrate} migrations ({:.3} per job)",
        migrate as f64 / jobs as f64
    );
    for (m, (j, p)) in &per_m {
        println!("RUN: m = {m:2}: {:.3} preemptions per job over {j} jobs", *p as f64 / *j as f64);
    }
    assert!(mean < 3.0, "RUN's simulations had fewer than 3 preemptions per job; here {mean:.3}");
    assert!(
        levels.keys().any(|&l| l >= 2) && levels.contains_key(&0) && levels.contains_key(&1),
        "the sets reduce to various depths: {levels:?}"
    );
}

// ---------------------------------------------------------------------------
// 2. Early completion.

/// Jobs that complete early leave their server's time idle; no miss.
#[test]
fn early_completion_meets_every_deadline() {
    let mut jobs = 0;
    for i in 0..sets(SETS) / 8 {
        let mut case = random_case(case_seed(2, i), CPUS[i % CPUS.len()], true);
        let mut r = Rng::new(case.seed);
        for t in &mut case.spec.tasks {
            t.bcet = Some(Duration(r.range_u64(1, t.wcet.0)));
        }
        case.config.execution = Execution::Uniform;
        let run = simulate_spec(&case.spec, &case.config);
        let rep = check(&run, run.events.clone());
        assert!(rep.pass, "{}\n{}", case.describe(), rep.render());
        assert_eq!(misses(&rep), 0, "{}\n{}", case.describe(), rep.render());
        // The tree does not lend a server's time to another: CPUs idle.
        let busy: u64 = run
            .events
            .iter()
            .filter_map(|e| if let Event::Completion { exec, .. } = e { Some(*exec) } else { None })
            .sum();
        assert!(busy < case.spec.platform.cpus as u64 * case.config.horizon.unwrap(), "{}", case.describe());
        jobs += rep.jobs.released;
    }
    println!("early completion: {jobs} jobs, 0 misses");
}

// ---------------------------------------------------------------------------
// 3. The thesis's example.

fn example() -> Spec {
    let p = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/run.yaml");
    schedlab_model::load_path(&p).unwrap_or_else(|e| panic!("{e}")).spec
}

/// examples/run.yaml reduces in two levels (four level-0 servers, one
/// level-1 server, the root) and meets every deadline over its hyperperiod,
/// with every level-0 server placed by the tree: each CPU's `server` notes
/// name level-0 servers, at most two at a time.
#[test]
fn the_thesis_example() {
    let spec = example();
    let tree = reduce_spec(&spec).unwrap();
    assert_eq!((tree.levels, tree.servers.len(), tree.roots.clone()), (2, 6, vec![5]));
    assert_eq!(tree.level0().count(), 4);
    let config = SimConfig { horizon: Some(20 * MS), spec_overheads: false, ..SimConfig::default() };
    let run = simulate_spec(&spec, &config);
    let r = check(&run, run.events.clone());
    assert!(r.pass, "{}", r.render());
    // Over one hyperperiod: 1 + 4 + 2 + 2 + 1 + 2 jobs, all complete.
    assert_eq!((misses(&r), r.jobs.released, r.jobs.completed), (0, 12, 12));
    let level0: Vec<String> = tree.level0().map(|s| s.name()).collect();
    let mut on: [Option<String>; 2] = [None, None];
    let mut notes = 0;
    for e in &run.events {
        if let Event::Policy { cpu: Some(c), event, .. } = e {
            let schedlab_trace::PolicyEvent::Server { server: s } = event.clone() else {
                panic!("RUN writes only `server` policy events, not {event:?}")
            };
            notes += 1;
            if let Some(s) = &s {
                assert!(level0.contains(s), "{s}");
                assert!(on[1 - *c as usize].as_ref() != Some(s), "{s} on two CPUs");
            }
            on[*c as usize] = s;
        }
    }
    assert!(notes > 4, "the tree changes servers: {notes} notes");
}

// ---------------------------------------------------------------------------
// 4. Partitioned EDF.

/// m bins of utilisation 1, each split into tasks of one period: when WFD
/// finds m unit servers (levels 0), RUN's schedule is P-EDF's with the same
/// packing, event for event, and no job migrates.
#[test]
fn run_is_partitioned_edf_when_packing_is_perfect() {
    let strip =
        |events: &[Event]| events.iter().filter(|e| !matches!(e, Event::Policy { .. })).cloned().collect::<Vec<_>>();
    let (mut compared, mut skipped) = (0, 0);
    for i in 0..sets(SETS) / 3 {
        let mut r = Rng::new(case_seed(4, i));
        let m = CPUS[i % CPUS.len()];
        let mut tasks = Vec::new();
        for _ in 0..m {
            let p = *r.choose(PERIODS).unwrap() * MS;
            let k = r.range_u64(1, 4);
            let mut left = p;
            for j in 0..k {
                let c = if j + 1 == k { left } else { r.range_u64(1, left - (k - j - 1)) };
                left -= c;
                tasks.push(Task::new(format!("t{}", tasks.len()), Duration(c), Duration(p)));
            }
        }
        let spec = spec(m, tasks);
        let tree = reduce_spec(&spec).unwrap();
        if tree.levels != 0 || tree.roots.len() != m as usize {
            skipped += 1;
            continue;
        }
        let config = SimConfig { horizon: Some(H), spec_overheads: false, ..SimConfig::default() };
        let run = simulate_spec(&spec, &config);
        let mut pedf = spec.clone();
        pedf.policy = Some(PolicySpec { partitioning: Some(Packing::Wfd), ..PolicySpec::named(PolicyName::Pedf) });
        let p = simulate_spec(&pedf, &config);
        assert!(
            strip(&run.events) == strip(&p.events),
            "RUN and P-EDF differ:\n{}",
            schedlab_model::emit::to_yaml(&spec)
        );
        assert_eq!(preemptions_and_migrations(&run.events).1, 0);
        assert!(check(&run, run.events.clone()).pass);
        compared += 1;
    }
    println!("P-EDF: {compared} sets identical to P-EDF, {skipped} not packed perfectly by WFD");
    assert!(compared >= 100, "{compared} compared, {skipped} skipped");
}

// ---------------------------------------------------------------------------
// 5. Determinism.

/// Same spec, configuration and seed: byte-identical traces, `server`
/// notes included.
#[test]
fn same_spec_and_seed_give_the_same_trace() {
    for i in 0..8 {
        let mut case = random_case(case_seed(5, i), CPUS[i % CPUS.len()], i % 2 == 0);
        let mut r = Rng::new(case.seed);
        for t in &mut case.spec.tasks {
            t.bcet = Some(Duration(r.range_u64(1, t.wcet.0)));
        }
        case.config.execution = Execution::Uniform;
        case.config.policy_events = true;
        let a = jsonl(&simulate_spec(&case.spec, &case.config));
        let b = jsonl(&simulate_spec(&case.spec, &case.config));
        assert!(a == b, "two runs differ:\n{}", case.describe());
        assert!(String::from_utf8_lossy(&a).contains("\"server\""));
    }
}

// ---------------------------------------------------------------------------
// 6. Corrupted traces.

/// Faults injected into valid RUN traces (two jobs dispatched together
/// swapped, a dispatch delayed, a CPU idled while its server's job waits)
/// are caught by the replay.
#[test]
fn replay_catches_corrupted_run_traces() {
    assert_replay_catches_faults((0..40).map(|i| {
        let case = random_case(case_seed(6, i), CPUS[i % 2], i % 2 == 0);
        (simulate_spec(&case.spec, &case.config), case.seed, case.describe())
    }));
}

/// A hand-made wrong schedule: three tasks (2, 3) on two CPUs; the trace
/// runs t0 at [0, 1) on CPU 0 where RUN runs t1 (S1* holds the root first,
/// so S1 = {t0} waits): a schedule that meets every deadline, but not RUN's.
#[test]
fn replay_catches_a_server_run_would_not_select() {
    let tasks = (0..3).map(|i| Task::new(format!("t{i}"), Duration(2), Duration(3))).collect();
    let spec = spec(2, tasks);
    let config = SimConfig { horizon: Some(3), spec_overheads: false, ..SimConfig::default() };
    let run = simulate_spec(&spec, &config);
    assert!(check(&run, run.events.clone()).pass);
    // RUN: CPU 0 runs t1 [0, 1), t0 [1, 3); CPU 1 runs t2 [0, 2), t1 [2, 3).
    // Wrong: CPU 0 runs t0 [0, 2), t1 [2, 3); CPU 1 as before but t1 ... is
    // taken by CPU 0: t1 [2, 3) moves to CPU 0 and t0 finishes first.
    let wrong = vec![
        Event::SysRelease { t: 0 },
        Event::Release { t: 0, task: 0, job: 0, deadline: 3 },
        Event::Release { t: 0, task: 1, job: 0, deadline: 3 },
        Event::Release { t: 0, task: 2, job: 0, deadline: 3 },
        Event::SwitchTo { t: 0, cpu: 0, task: 0, job: 0 },
        Event::SwitchTo { t: 0, cpu: 1, task: 2, job: 0 },
        Event::SwitchAway { t: 2, cpu: 0, task: 0, job: 0, reason: SwitchReason::Complete, exec: 2 },
        Event::Completion { t: 2, cpu: 0, task: 0, job: 0, exec: 2, forced: false },
        Event::SwitchAway { t: 2, cpu: 1, task: 2, job: 0, reason: SwitchReason::Complete, exec: 2 },
        Event::Completion { t: 2, cpu: 1, task: 2, job: 0, exec: 2, forced: false },
        Event::SwitchTo { t: 2, cpu: 0, task: 1, job: 0 },
    ];
    let r = check(&run, wrong);
    assert!(r.failed().contains(&Check::Replay), "{}", r.render());
    let v = r.first(Check::Replay).unwrap();
    assert_eq!((v.t, v.cpu), (0, Some(0)), "{}", v.message);
    assert!(v.message.contains("cpu 0 runs t0#0, the policy chose t1#0"), "{}", v.message);
}

/// Replay reads RUN's `server` policy events back: a simulated trace's are
/// the replayed policy's, instant by instant; a trace whose server events
/// were changed (a server placed on the wrong CPU, one dropped, one added)
/// fails the replay, naming the events; a trace written without policy
/// events, or one whose events are all gone, is not compared.
#[test]
fn replay_reads_run_server_events_back() {
    use schedlab_trace::PolicyEvent;
    let spec = example();
    let config = SimConfig { horizon: Some(20 * MS), spec_overheads: false, ..SimConfig::default() };
    let run = simulate_spec(&spec, &config);
    let r = check(&run, run.events.clone());
    assert!(r.pass, "{}", r.render());
    let servers: Vec<usize> =
        run.events.iter().enumerate().filter(|(_, e)| matches!(e, Event::Policy { .. })).map(|(i, _)| i).collect();
    assert!(servers.len() > 4);

    // The second server event names another server.
    let mut wrong = run.events.clone();
    let Event::Policy { t, cpu, event: PolicyEvent::Server { server } } = wrong[servers[1]].clone() else { panic!() };
    let other = if server.as_deref() == Some("S1") { "S2" } else { "S1" };
    wrong[servers[1]] = Event::Policy { t, cpu, event: PolicyEvent::Server { server: Some(other.into()) } };
    let r = check(&run, wrong);
    let v = r.first(Check::Replay).unwrap_or_else(|| panic!("{}", r.render()));
    assert_eq!(v.t, t, "{}", v.message);
    assert!(
        v.message.contains(&format!(
            "the trace records the policy events [cpu {} server {{\"server\":\"{other}\"}}]",
            cpu.unwrap()
        )),
        "{}",
        v.message
    );

    // A dropped event and an added one.
    let mut dropped = run.events.clone();
    dropped.remove(servers[2]);
    assert!(check(&run, dropped).failed().contains(&Check::Replay));
    let mut added = run.events.clone();
    let Event::Policy { t, .. } = added[servers[0]].clone() else { panic!() };
    added.insert(servers[0], Event::Policy { t, cpu: Some(1), event: PolicyEvent::Server { server: None } });
    assert!(check(&run, added).failed().contains(&Check::Replay));

    // Without policy events, nothing to compare.
    let quiet: Vec<Event> = run.events.iter().filter(|e| !matches!(e, Event::Policy { .. })).cloned().collect();
    assert!(check(&run, quiet).pass);
    let quiet_run = simulate_spec(&spec, &SimConfig { policy_events: false, ..config });
    assert!(check(&quiet_run, quiet_run.events.clone()).pass);
}
