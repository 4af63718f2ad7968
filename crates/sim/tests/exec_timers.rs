//! Execution-time timers, progress rates and counters in the simulator,
//! with the shared test policy `Overrun` (crates/policy/tests/common): a
//! budget expires at the exact instant its job's CPU time reaches it,
//! preemptions included; a CPU at rate 0.5 takes twice the CPU time for a
//! job's demand while budgets keep counting CPU time; counters come from
//! the run's counter source or are reported missing, and the policy
//! schedules the same either way.

#[path = "../../policy/tests/common/overrun.rs"]
mod overrun;

use overrun::Overrun;
use schedlab_model::load_str;
use schedlab_policy::{Counters, CountersUnavailable, JobId, Rate};
use schedlab_sim::{simulate_collect, CounterSource, CpuView, SimConfig};
use schedlab_trace::Event;
use std::sync::Arc;

const MS: u64 = 1_000_000;

/// t0 (C = 4, budget 2, first by index) from 1 ms; t1 (C = 6, budget 3) from 0.
fn spec() -> schedlab_model::Spec {
    let yaml = "platform: {cpus: 1}\npolicy: {name: pfp}\ntasks:\n  - {name: t0, wcet: 4ms, period: 20ms, offset: 1ms}\n  - {name: t1, wcet: 6ms, period: 20ms}\n";
    load_str(yaml, None, "t.yaml").unwrap().spec
}

/// (task, start, end) of every stint on CPU 0, in ms.
fn stints(ev: &[Event]) -> Vec<(u32, u64, u64)> {
    let mut open = None;
    let mut out = Vec::new();
    for e in ev {
        match *e {
            Event::SwitchTo { t, cpu: 0, task, .. } => open = Some((task, t)),
            Event::SwitchAway { t, cpu: 0, task, .. } => {
                let (tk, s) = open.take().unwrap();
                assert_eq!(tk, task);
                out.push((task, s, t));
            }
            _ => {}
        }
    }
    out.extend(open.map(|(tk, s)| (tk, s, u64::MAX)));
    out
}

fn job(task: u32) -> JobId {
    JobId { task, seq: 0 }
}

fn simulate(policy: &mut Overrun, config: SimConfig) -> Vec<Event> {
    simulate_collect(&spec(), policy, &config).unwrap().0
}

#[test]
fn budgets_expire_at_the_exact_instant_under_preemption() {
    let mut p = Overrun::new(vec![2 * MS, 3 * MS]);
    let ev = simulate(&mut p, SimConfig { horizon: Some(19 * MS), ..SimConfig::default() });
    assert_eq!(
        stints(&ev),
        vec![(1, 0, MS), (0, MS, 3 * MS), (1, 3 * MS, 5 * MS), (0, 5 * MS, 7 * MS), (1, 7 * MS, 10 * MS)]
    );
    let log = p.log.lock().unwrap();
    assert_eq!(log.expiries, vec![(job(0), 3 * MS, 2 * MS), (job(1), 5 * MS, 3 * MS)]);
    assert_eq!(log.rates, vec![Rate::ONE; 2]);
}

#[test]
fn a_half_rate_cpu_doubles_the_cpu_time_and_budgets_count_cpu_time() {
    let mut p = Overrun::new(vec![2 * MS, 3 * MS]);
    let half = Rate::ratio(1, 2).unwrap();
    let config = SimConfig { horizon: Some(19 * MS), rates: vec![half], ..SimConfig::default() };
    let ev = simulate(&mut p, config);
    // The budgets expire after the same CPU time as at 1.0 (3 and 5 ms);
    // t0's 4 ms of demand then take 8 ms of CPU time: it completes at 11.
    assert_eq!(
        stints(&ev),
        vec![(1, 0, MS), (0, MS, 3 * MS), (1, 3 * MS, 5 * MS), (0, 5 * MS, 11 * MS), (1, 11 * MS, u64::MAX)]
    );
    let done: Vec<(u32, u64, u64)> = ev
        .iter()
        .filter_map(|e| match *e {
            Event::Completion { t, task, exec, .. } => Some((task, t, exec)),
            _ => None,
        })
        .collect();
    assert_eq!(done, vec![(0, 11 * MS, 8 * MS)]);
    let log = p.log.lock().unwrap();
    assert_eq!(log.expiries, vec![(job(0), 3 * MS, 2 * MS), (job(1), 5 * MS, 3 * MS)]);
    assert_eq!(log.rates, vec![half; 2]);
}

#[test]
fn a_third_rate_completes_at_the_first_nanosecond_the_demand_is_retired() {
    // At 1/3 (333_333 millionths) with 60 ms periods: t1 runs 1 ms, t0
    // preempts it for ceil(4e6 · 1e6 / 333_333) ns, then t1 finishes: its 6
    // ms of demand take ceil(6e6 · 1e6 / 333_333) ns of CPU time in all,
    // split over two stints as they are.
    let yaml = "platform: {cpus: 1}\npolicy: {name: pfp}\ntasks:\n  - {name: t0, wcet: 4ms, period: 60ms, offset: 1ms}\n  - {name: t1, wcet: 6ms, period: 60ms}\n";
    let spec = load_str(yaml, None, "t.yaml").unwrap().spec;
    let mut p = Overrun::new(vec![100 * MS, 100 * MS]);
    let third = Rate::ratio(1, 3).unwrap();
    let config = SimConfig { horizon: Some(59 * MS), rates: vec![third], ..SimConfig::default() };
    let ev = simulate_collect(&spec, &mut p, &config).unwrap().0;
    let t0 = (4 * MS as u128 * 1_000_000).div_ceil(333_333) as u64;
    assert_eq!(stints(&ev)[..2], [(1, 0, MS), (0, MS, MS + t0)]);
    let exec: Vec<u64> = ev
        .iter()
        .filter_map(|e| match *e {
            Event::Completion { task: 1, exec, .. } => Some(exec),
            _ => None,
        })
        .collect();
    let want = (6 * MS as u128 * 1_000_000).div_ceil(333_333) as u64;
    assert_eq!(exec, vec![want]);
}

/// Instructions: the CPU's busy time; cache misses: its number.
#[derive(Debug)]
struct Busy;

impl CounterSource for Busy {
    fn read(&self, view: &CpuView) -> Result<Counters, CountersUnavailable> {
        Ok(Counters { instructions: Some(view.busy), cache_misses: Some(view.cpu as u64), ..Counters::default() })
    }
}

#[test]
fn counters_come_from_the_source_or_are_missing_and_the_schedule_is_the_same() {
    let mut without = Overrun::new(vec![2 * MS, 3 * MS]);
    let mut with = Overrun::new(vec![2 * MS, 3 * MS]);
    let a = simulate(&mut without, SimConfig { horizon: Some(39 * MS), ..SimConfig::default() });
    let b = simulate(
        &mut with,
        SimConfig { horizon: Some(39 * MS), counters: Some(Arc::new(Busy)), ..SimConfig::default() },
    );
    assert_eq!(stints(&a), stints(&b));
    let missing = CountersUnavailable::NoSource { what: "the simulator" };
    assert_eq!(without.log.lock().unwrap().counters, vec![Err(missing); 4]);
    // Releases at 0, 1 (after 1 ms busy), 20 and 21 ms (10 ms busy each hyperperiod).
    let got: Vec<_> = with.log.lock().unwrap().counters.iter().map(|c| c.unwrap().instructions).collect();
    assert_eq!(got, vec![Some(0), Some(MS), Some(10 * MS), Some(11 * MS)]);
    assert_eq!(missing.to_string(), "the simulator has no counter source");
}

#[test]
fn with_a_cache_the_platform_model_is_the_counter_source() {
    let yaml = "platform: {cpus: 1, cache: {size: 8MiB, ways: 16, line: 64B}}\npolicy: {name: pfp}\ntasks:\n  - {name: t0, wcet: 4ms, period: 20ms, offset: 1ms, wss: 64KiB}\n  - {name: t1, wcet: 6ms, period: 20ms, wss: 64KiB}\n";
    let spec = load_str(yaml, None, "t.yaml").unwrap().spec;
    let mut with = Overrun::new(vec![2 * MS, 3 * MS]);
    let ev =
        simulate_collect(&spec, &mut with, &SimConfig { horizon: Some(39 * MS), ..SimConfig::default() }).unwrap().0;
    let mut without = Overrun::new(vec![2 * MS, 3 * MS]);
    let plain = simulate(&mut without, SimConfig { horizon: Some(39 * MS), ..SimConfig::default() });
    // Nothing shared (64 KiB each in 8 MiB): today's schedule.
    assert_eq!(stints(&ev), stints(&plain));
    // Readings at the releases (0, 1, 20, 21 ms): cycles = busy ns × 3.4.
    let got: Vec<_> = with.log.lock().unwrap().counters.iter().map(|c| c.unwrap().cycles).collect();
    assert_eq!(got, vec![Some(0), Some(3_400_000), Some(34_000_000), Some(37_400_000)]);
    let misses: Vec<_> = with.log.lock().unwrap().counters.iter().map(|c| c.unwrap().cache_misses).collect();
    assert_eq!(misses, vec![Some(0); 4], "a working set that fits never misses");
}
