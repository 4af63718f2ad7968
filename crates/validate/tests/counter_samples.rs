//! Counters in replay come from the trace: `Kernel::counters(cpu)` answers
//! the latest `counter-sample` policy event of that CPU at or before the
//! instant, `NotRecorded` before the first. The shared test policy `Overrun`
//! (crates/policy/tests/common) logs CPU 0's counters at each release; it is
//! replayed over a simulated trace into which samples were written, and
//! over one whose samples the simulator wrote itself (each reading the
//! policy got from the run's counter source): the replay reads the same.

#[path = "../../policy/tests/common/overrun.rs"]
mod overrun;

use overrun::Overrun;
use schedlab_model::load_str;
use schedlab_model::CounterReading;
use schedlab_policy::{Counters, CountersUnavailable, Policy};
use schedlab_sim::{simulate_collect, CounterSource, CpuView, SimConfig};
use schedlab_trace::{Event, PolicyEvent};
use schedlab_validate::{validate_with, Mode, Options};
use std::sync::Arc;

const MS: u64 = 1_000_000;

fn sample(t: u64, cpu: u32, instructions: u64) -> Event {
    Event::Policy {
        t,
        cpu: Some(cpu),
        event: PolicyEvent::CounterSample(Box::new(CounterReading {
            instructions: Some(instructions),
            cache_misses: Some(instructions / 10),
            ..CounterReading::default()
        })),
    }
}

#[test]
fn replay_answers_counters_from_the_traces_samples() {
    let yaml = "platform: {cpus: 2}\npolicy: {name: gfp}\ntasks:\n  - {name: a, wcet: 1ms, period: 5ms}\n  - {name: b, wcet: 2ms, period: 10ms, offset: 1ms}\n";
    let spec = load_str(yaml, None, "t.yaml").unwrap().spec;
    let budgets = vec![10 * MS, 10 * MS];
    let mut simulated = Overrun::new(budgets.clone());
    let config = SimConfig { horizon: Some(20 * MS), ..SimConfig::default() };
    let (mut events, _) = simulate_collect(&spec, &mut simulated, &config).unwrap();
    let header = schedlab_sim::header(&spec, simulated.info(), &config);
    // Samples on CPU 0 at 3 ms and 10 ms, one on CPU 1 at 4 ms.
    for (t, cpu, n) in [(3 * MS, 0, 1000), (4 * MS, 1, 7), (10 * MS, 0, 5000)] {
        let at = events.iter().position(|e| e.t() >= t).unwrap();
        events.insert(at, sample(t, cpu, n));
    }
    let releases: Vec<u64> =
        events.iter().filter_map(|e| if let Event::Release { t, .. } = e { Some(*t) } else { None }).collect();

    let policy = Overrun::new(budgets);
    let log = policy.log.clone();
    let options = Options { mode: Mode::Replay, ..Options::default() };
    let report = validate_with(&header, events, &options, Some(Box::new(policy))).unwrap();
    assert!(report.pass, "samples are inputs, not events the policy must record: {}", report.render());
    let read = log.lock().unwrap().counters.clone();
    assert_eq!(read.len(), releases.len());
    let reading = |n: u64| Ok(Counters { instructions: Some(n), cache_misses: Some(n / 10), ..Counters::default() });
    for (t, got) in releases.iter().zip(&read) {
        let want = match *t {
            t if t < 3 * MS => Err(CountersUnavailable::NotRecorded),
            t if t < 10 * MS => reading(1000),
            _ => reading(5000),
        };
        assert_eq!(*got, want, "release at {t} ns");
    }
}

/// Instructions: the CPU's busy time; cycles: the time.
#[derive(Debug)]
struct Busy;

impl CounterSource for Busy {
    fn read(&self, view: &CpuView) -> Result<Counters, CountersUnavailable> {
        Ok(Counters { instructions: Some(view.busy), cycles: Some(view.now), ..Counters::default() })
    }
}

#[test]
fn the_simulators_readings_replay_as_read() {
    let yaml = "platform: {cpus: 1}\npolicy: {name: pfp}\ntasks:\n  - {name: a, wcet: 1ms, period: 5ms}\n  - {name: b, wcet: 2ms, period: 10ms, offset: 1ms}\n";
    let spec = load_str(yaml, None, "t.yaml").unwrap().spec;
    let mut simulated = Overrun::new(vec![MS, MS]);
    let config = SimConfig { horizon: Some(20 * MS), counters: Some(Arc::new(Busy)), ..SimConfig::default() };
    let (events, _) = simulate_collect(&spec, &mut simulated, &config).unwrap();
    let samples = events.iter().filter(|e| matches!(e, Event::Policy { event: PolicyEvent::CounterSample(_), .. }));
    let read = simulated.log.lock().unwrap().counters.clone();
    assert_eq!(samples.count(), read.len(), "one sample per reading");
    assert!(read.iter().all(Result::is_ok) && read.len() >= 4);
    let header = schedlab_sim::header(&spec, simulated.info(), &config);
    let policy = Overrun::new(vec![MS, MS]);
    let log = policy.log.clone();
    let options = Options { mode: Mode::Replay, ..Options::default() };
    let report = validate_with(&header, events, &options, Some(Box::new(policy))).unwrap();
    assert!(report.pass, "{}", report.render());
    assert_eq!(log.lock().unwrap().counters, read, "the replay reads what the simulation read");
}
