//! Execution-time timers in replay: the shared test policy `Overrun`
//! (crates/policy/tests/common: a job that exhausts its CPU-time budget
//! drops to the background) replayed over simulated traces, with and
//! without overheads. Its decisions depend on each expiry's exact instant,
//! so the replay matches the trace only if its timers fire when the
//! trace's execution intervals say the budget is used up; with other
//! budgets than the simulated ones it must not match. Counters: a trace
//! records none.

#[path = "../../policy/tests/common/overrun.rs"]
mod overrun;

use overrun::{Overrun, OverrunLog};
use schedlab_model::load_str;
use schedlab_model::overheads::{Costs, Overheads};
use schedlab_policy::{CountersUnavailable, Policy, Time};
use schedlab_sim::{simulate_collect, SimConfig};
use schedlab_validate::{validate_with, Check, Mode, Options};
use std::sync::{Arc, Mutex};

const MS: u64 = 1_000_000;

fn spec() -> schedlab_model::Spec {
    let yaml = "platform: {cpus: 1}\npolicy: {name: pfp}\ntasks:\n  - {name: t0, wcet: 4ms, period: 20ms, offset: 1ms}\n  - {name: t1, wcet: 6ms, period: 20ms}\n  - {name: t2, wcet: 3ms, period: 10ms, offset: 2ms}\n";
    load_str(yaml, None, "t.yaml").unwrap().spec
}

fn budgets() -> Vec<Time> {
    vec![2 * MS, 3 * MS, MS + MS / 2]
}

/// Simulates `Overrun` with `budgets()` and replays `replayed` over the trace.
type Log = Arc<Mutex<OverrunLog>>;

fn replay(overheads: Option<Overheads>, replayed: Vec<Time>) -> (schedlab_validate::Report, Log, Log) {
    let spec = spec();
    let mut simulated = Overrun::new(budgets());
    let config = SimConfig { horizon: Some(60 * MS), overheads, ..SimConfig::default() };
    let (events, _) = simulate_collect(&spec, &mut simulated, &config).unwrap();
    let header = schedlab_sim::header(&spec, simulated.info(), &config);
    let policy = Overrun::new(replayed);
    let log = policy.log.clone();
    let options = Options { mode: Mode::Replay, ..Options::default() };
    let report = validate_with(&header, events, &options, Some(Box::new(policy))).unwrap();
    (report, simulated.log, log)
}

#[test]
fn replayed_budgets_expire_where_the_simulated_ones_did() {
    let (r, simulated, replayed) = replay(None, budgets());
    assert!(r.pass, "{}", r.render());
    assert!(r.check(Check::Replay).is_some());
    let (s, p) = (simulated.lock().unwrap(), replayed.lock().unwrap());
    assert!(s.expiries.len() >= 6, "{:?}", s.expiries);
    assert_eq!(s.expiries, p.expiries);
    assert!(p.counters.iter().all(|c| *c == Err(CountersUnavailable::NotRecorded)));
}

#[test]
fn under_overheads_the_budgets_count_execution_not_kernel_work() {
    let costs = Costs { schedule: 50_000, context_switch: 100_000, release: 20_000, ..Costs::default() };
    let (r, simulated, replayed) = replay(Some(Overheads::constant(costs)), budgets());
    assert!(r.pass, "{}", r.render());
    let (s, p) = (simulated.lock().unwrap(), replayed.lock().unwrap());
    // Each expiry comes when the job's execution (overheads excluded)
    // reaches its budget exactly, in the simulator and in the replay.
    for &(job, _, consumed) in &s.expiries {
        assert_eq!(consumed, budgets()[job.task as usize], "{:?}", s.expiries);
    }
    assert!(s.expiries.len() >= 6);
    assert_eq!(s.expiries, p.expiries);
}

#[test]
fn other_budgets_than_the_simulated_ones_do_not_replay() {
    let (r, _, _) = replay(None, vec![2 * MS, 4 * MS, MS + MS / 2]);
    assert!(!r.pass);
    assert_eq!(r.failed(), vec![Check::Replay], "{}", r.render());
}
