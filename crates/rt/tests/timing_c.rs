//! Timing scopes from a C job body (`schedlab.h`): begin/end with OML's
//! nesting rule, protected sections and benchmark mode, called through the
//! same callbacks a `c:LIB:SYMBOL` workload gets, on a real thread (no
//! root: the body runs on the test's thread), and a benchmark-mode run
//! (root). Tolerant timings.

mod common;
use schedlab_rt::calibrate;
use schedlab_rt::job::{JobCtx, JobError};
use schedlab_rt::stop::Stop;
use schedlab_rt::timing::{scope_stats, Limit, Mode};
use schedlab_rt::workload::dynlib::CFunction;
use schedlab_rt::workload::JobBody;

const SRC: &str = r#"#include <schedlab.h>
#include <stddef.h>
#include <time.h>
static uint64_t cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
/* Spins ns of CPU time checking; returns check()'s first non-zero code. */
static int work(const struct schedlab_job *job, uint64_t ns) {
    uint64_t end = cpu_ns() + ns;
    int rc;
    while (cpu_ns() < end)
        if ((rc = job->check(job)) != 0) return rc;
    return 0;
}
#define MS 1000000u
/* Returns 0 when every step behaves as documented, else the failed step. */
int scopes(const struct schedlab_job *job) {
    struct schedlab_violation v;
    /* 1: an inner WCET scope's own violation. */
    uint64_t o = job->within_rel(job, 1000 * MS, "frame");
    uint64_t s = job->wcet(job, 1 * MS, "decode");
    if (!o || !s || o == s) return 10;
    if (work(job, 50 * MS) != 1) return 11;
    if (job->end(job, s, &v) != 1) return 12;
    if (v.kind != SCHEDLAB_WCET || v.scope != s || v.depth != 1 || v.limit_ns != 1 * MS) return 13;
    if (v.lateness_ns > 40 * MS) return 14;
    if (job->end(job, o, NULL) != 0) return 15;
    /* 2: the outer deadline's violation propagates through the inner scope. */
    o = job->within_rel(job, 2 * MS, NULL);
    s = job->wcet(job, 1000 * MS, NULL);
    if (work(job, 50 * MS) != 1) return 20;
    if (job->end(job, s, &v) != -1) return 21;
    if (job->end(job, o, &v) != 1) return 22;
    if (v.kind != SCHEDLAB_DEADLINE || v.scope != o || v.depth != 0) return 23;
    /* 3: a protected section holds the violation until its end. */
    s = job->wcet(job, 1 * MS, NULL);
    job->protect_begin(job);
    job->protect_begin(job);
    if (work(job, 3 * MS) != 0) return 30;
    if (job->protect_end(job) != 0) return 31;
    if (work(job, 1 * MS) != 0) return 32;
    if (job->protect_end(job) != 1) return 33;
    if (job->end(job, s, &v) != 1) return 34;
    if (v.lateness_ns < 3 * MS) return 35;
    /* 4: nothing left over. */
    if (job->check(job) != 0) return 40;
    return 0;
}
/* Leaves a violated scope open: the job ends with an unhandled exception. */
int leaves_open(const struct schedlab_job *job) {
    job->wcet(job, 1 * MS, "open");
    work(job, 3 * MS);
    return 0;
}
/* Benchmark mode: over budget three times, never violated. */
int bench(const struct schedlab_job *job) {
    for (int i = 0; i < 3; i++) {
        uint64_t s = job->wcet(job, 1 * MS, "decode");
        if (work(job, 2 * MS) != 0) return 1;
        if (job->end(job, s, NULL) != 0) return 2;
    }
    return 0;
}
"#;

/// Each test compiles its own copy (tests run in parallel).
fn library(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("schedlab-c-timing-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let (src, lib) = (d.join("job.c"), d.join("libjob.so"));
    {
        std::fs::write(&src, SRC).unwrap();
        let include = concat!(env!("CARGO_MANIFEST_DIR"), "/../../python/schedlab/include");
        let cc = std::process::Command::new("cc")
            .args(["-shared", "-fPIC", "-O1", "-Wall", "-Werror", "-I", include, "-o"])
            .arg(&lib)
            .arg(&src)
            .output()
            .expect("cc runs");
        assert!(cc.status.success(), "cc: {}", String::from_utf8_lossy(&cc.stderr));
    }
    lib
}

fn run(symbol: &str, mode: Mode) -> (Result<(), JobError>, Vec<schedlab_rt::timing::ScopeTime>) {
    let lib = library(&format!("{symbol}-{mode:?}"));
    let mut body = CFunction::load(lib.to_str().unwrap(), symbol, None).unwrap();
    let (c, stop) = (calibrate::measure(), Stop::new());
    let mut ctx = JobCtx::detached(1_000_000, &c, &stop);
    ctx.set_timing_mode(mode);
    let r = body.run(&mut ctx);
    let times = ctx.scope_times().to_vec();
    drop(body);
    let _ = std::fs::remove_dir_all(lib.parent().unwrap());
    (r, times)
}

#[test]
fn a_c_body_nests_scopes_and_protects_sections_cooperatively() {
    let (r, _) = run("scopes", Mode::Cooperative);
    assert_eq!(r, Ok(()), "a non-zero return names the failed step in job.c");
}

#[test]
fn a_c_body_nests_scopes_and_protects_sections_asynchronously() {
    let (r, _) = run("scopes", Mode::Async);
    assert_eq!(r, Ok(()), "a non-zero return names the failed step in job.c");
}

#[test]
fn a_scope_a_c_body_leaves_open_ends_the_job_with_its_violation() {
    let (r, _) = run("leaves_open", Mode::Cooperative);
    assert!(matches!(r, Err(JobError::Timing(v)) if v.limit == Limit::Wcet && v.value == 1_000_000), "{r:?}");
}

#[test]
fn a_c_body_in_benchmark_mode_records_its_labelled_scopes() {
    let (r, times) = run("bench", Mode::Benchmark);
    assert_eq!(r, Ok(()));
    let s = scope_stats(&times);
    assert_eq!(s.len(), 1, "{s:?}");
    assert_eq!((s[0].label.as_str(), s[0].limit, s[0].count, s[0].over_limit), ("decode", Limit::Wcet, 3, 3));
    assert!(s[0].mean_ns >= 2e6, "{s:?}");
}

/// The whole path of `schedlab run --timing benchmark` (root): a C body's
/// labelled scopes in a real run become `scope-time` events of the trace
/// (through the workers' fixed-size records and the label table) and per
/// label statistics.
#[test]
fn a_benchmark_run_records_each_c_scope_in_the_trace() {
    common::require_root();
    let _s = common::serial();
    let lib = library("run-bench");
    let s = common::spec(
        "platform: {cpus: 2}\npolicy: {name: pfp}\ntasks:\n  - {name: a, wcet: 10ms, period: 50ms, cpu: 1}\n",
    );
    let config = schedlab_rt::RunConfig {
        duration: 500_000_000,
        timing: Mode::Benchmark,
        workload: schedlab_rt::WorkloadSpec::CFunction {
            library: lib.to_str().unwrap().into(),
            symbol: "bench".into(),
            arg: None,
        },
        start_margin: 200_000_000,
        wait: true,
        ..schedlab_rt::RunConfig::default()
    };
    let o = schedlab_rt::run(&s, &config).unwrap_or_else(|e| panic!("{e}"));
    let _ = std::fs::remove_dir_all(lib.parent().unwrap());
    assert_eq!(o.stop, schedlab_rt::StopReason::Finished, "{:?}", o.notes);
    let jobs = o.events.iter().filter(|e| matches!(e, schedlab_trace::Event::Release { .. })).count();
    let times = schedlab_rt::timing::scope_times_in(&o.events);
    assert_eq!(times.len(), 3 * jobs, "three scopes a job: {times:?}");
    assert!(times.iter().all(|(task, t)| *task == 0 && t.label == "decode" && t.limit_ns == 1_000_000));
    let st = scope_stats(&times.into_iter().map(|(_, t)| t).collect::<Vec<_>>());
    assert_eq!((st.len(), st[0].count, st[0].over_limit), (1, 3 * jobs, 3 * jobs));
    assert!(st[0].mean_ns >= 2e6 && st[0].p99_ns <= st[0].max_ns, "{st:?}");
    assert_eq!(jobs, 10);
}
