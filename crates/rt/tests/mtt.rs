//! Multithreaded tasks on real threads (root, dispatch backend): the
//! threads of an MTT walk the MTT's one working set under `memwalk`, the
//! run's trace reports each MTT job's span, and an MTT the runtime cannot
//! walk is refused before anything runs.

mod common;
use common::*;
use schedlab_rt::{run, RunError, WorkloadSpec};

const SPEC: &str = "platform: {cpus: 2, cache: {size: 1MiB, ways: 16, line: 64B}}\npolicy: {name: gedf}\ntasks:\n  - {name: a, wcet: 2ms, period: 20ms}\n  - {name: b, wcet: 2ms, period: 20ms}\n  - {name: o, wcet: 1ms, period: 10ms, wss: 64KiB}\nmtt:\n  - {name: w, tasks: [a, b], wss: 256KiB}\n";

#[test]
fn an_mtts_threads_walk_its_working_set_and_its_spans_are_traced() {
    require_root();
    let _s = serial();
    let spec = spec(SPEC);
    let config = schedlab_rt::RunConfig { workload: "memwalk".parse::<WorkloadSpec>().unwrap(), ..dispatch_cfg(200) };
    let o = run(&spec, &config).unwrap_or_else(|e| panic!("{e}"));
    let mut m = schedlab_trace::metrics::Metrics::from_header(&o.header);
    for e in &o.events {
        m.push(e);
    }
    let (report, _) = m.finish();
    let w = &report.mtts[0];
    log(&format!("mtt w: {} jobs, max span {:?}", w.jobs, w.max_span));
    // 200 ms of 20 ms periods: about 10 MTT jobs; a noisy host may lose the last.
    assert!(w.jobs >= 5, "{w:?}");
    // A span covers at least one thread's job (80 % of 2 ms, on CPU).
    assert!(w.max_span.unwrap() >= 1_600_000, "{w:?}");
}

#[test]
fn an_mtt_memwalk_cannot_walk_is_refused_before_anything_runs() {
    require_root();
    let config = schedlab_rt::RunConfig { workload: "memwalk".parse::<WorkloadSpec>().unwrap(), ..dispatch_cfg(100) };
    for (text, want) in [
        (SPEC.replace(", wss: 256KiB}", "}"), "which has no `wss`"),
        (
            SPEC.replace("period: 20ms}\n  - {name: b", "period: 20ms, colors: [0]}\n  - {name: b"),
            "does not colour the shared working set",
        ),
    ] {
        // Colours need the task set to agree: give b the same.
        let text = if want.starts_with("does not colour") {
            text.replace("{name: b, wcet: 2ms, period: 20ms}", "{name: b, wcet: 2ms, period: 20ms, colors: [0]}")
        } else {
            text
        };
        match run(&spec(&text), &config) {
            Err(RunError::BadInput(m)) => assert!(m.contains(want), "{m}"),
            other => panic!("expected bad input for `{want}`, got {:?}", other.map(|o| o.stop)),
        }
    }
}
