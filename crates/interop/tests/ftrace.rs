//! The ftrace importer on a hand-written tracefs text of one rt-app thread:
//! releases from rt-app's job markers (`Release::RtApp`) against releases
//! from wake-ups, over a step that blocks inside itself, a step that begins
//! without a sleep (its timer had expired) and the wake-up after the last
//! step (the thread then exits).

mod common;

use schedlab_interop::ftrace;
use schedlab_trace::{Event, SwitchReason};

const MS: u64 = common::MS;
const US: u64 = 1000;

fn switch(t: &str, prev: &str, state: &str, next: &str) -> String {
    let (pc, pp, ppr) = if prev == "a" { ("a", 10, 9) } else { ("swapper/0", 0, 120) };
    let (nc, np, npr) = if next == "a" { ("a", 10, 9) } else { ("swapper/0", 0, 120) };
    format!(
        "  {pc}-{pp} [000] d..2. {t}: sched_switch: prev_comm={pc} prev_pid={pp} prev_prio={ppr} prev_state={state} ==> next_comm={nc} next_pid={np} next_prio={npr}"
    )
}

fn wakeup(t: &str) -> String {
    format!("  <idle>-0 [000] dNh3. {t}: sched_wakeup: comm=a pid=10 prio=9 target_cpu=000")
}

fn marker(t: &str, text: &str) -> String {
    format!("  a-10 [000] ...1. {t}: tracing_mark_write: [0] {text}")
}

fn recording() -> String {
    let lines = [
        // Its set-up ends with a sleep.
        switch("1.000000", "a", "S", "idle"),
        // Step 0: released by its timer, blocks inside the step (D), resumes.
        wakeup("1.010000"),
        switch("1.010010", "idle", "R", "a"),
        marker("1.010020", "begins loop 0 phase 0 step 0"),
        marker("1.010030", "executing 0"),
        switch("1.011000", "a", "D", "idle"),
        wakeup("1.011500"),
        switch("1.011600", "idle", "R", "a"),
        marker("1.012000", "executing 1"),
        switch("1.012010", "a", "S", "idle"),
        // Step 1, then step 2 at once (step 1 overran its period: no sleep).
        wakeup("1.020000"),
        switch("1.020010", "idle", "R", "a"),
        marker("1.020020", "end loop 0 phase 0 step 0"),
        marker("1.020030", "begins loop 0 phase 0 step 1"),
        marker("1.020040", "executing 0"),
        marker("1.021000", "executing 1"),
        marker("1.021010", "end loop 0 phase 0 step 1"),
        marker("1.021020", "begins loop 0 phase 0 step 2"),
        marker("1.021030", "executing 0"),
        marker("1.022000", "executing 1"),
        switch("1.022010", "a", "S", "idle"),
        // The timer's last wake-up: no step follows, the thread exits.
        wakeup("1.030000"),
        switch("1.030010", "idle", "R", "a"),
        marker("1.030020", "end loop 0 phase 0 step 2"),
        marker("1.030030", "exiting"),
        "  a-10 [000] ..... 1.030040: sched_process_exit: comm=a pid=10 prio=120".to_string(),
    ];
    lines.join("\n") + "\n"
}

fn import(release: ftrace::Release) -> (Vec<Event>, ftrace::Stats) {
    import_text(&recording(), release)
}

fn import_text(text: &str, release: ftrace::Release) -> (Vec<Event>, ftrace::Stats) {
    let spec = schedlab_model::load_str(
        "platform: {cpus: 1}\npolicy: {name: gfp, priorities: rm}\ntasks:\n  - {name: a, wcet: 3ms, period: 10ms}\n",
        None,
        "<test>",
    )
    .unwrap()
    .spec;
    // One folder per call: the tests of this file run in parallel.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = common::tmpdir(&format!("ftrace-rtapp-{n}"));
    let p = dir.join("trace.txt");
    std::fs::write(&p, text).unwrap();
    let mut events = Vec::new();
    let opts = ftrace::Options { release, ..Default::default() };
    let stats = ftrace::import(&p, &spec, &opts, &mut |_, e| {
        events.extend(e);
        Ok(())
    })
    .unwrap();
    (events, stats)
}

#[test]
fn rtapp_markers_give_rtapp_steps_as_jobs() {
    let (events, stats) = import(ftrace::Release::RtApp);
    let complete = SwitchReason::Complete;
    let want = vec![
        Event::Release { t: 0, task: 0, job: 0, deadline: 10 * MS },
        Event::SwitchTo { t: 10 * US, cpu: 0, task: 0, job: 0 },
        Event::SwitchAway { t: MS, cpu: 0, task: 0, job: 0, reason: SwitchReason::Block, exec: 990 * US },
        Event::Block { t: MS, task: 0, job: 0 },
        Event::Resume { t: 1500 * US, task: 0, job: 0 },
        Event::SwitchTo { t: 1600 * US, cpu: 0, task: 0, job: 0 },
        Event::SwitchAway { t: 2010 * US, cpu: 0, task: 0, job: 0, reason: complete, exec: 1400 * US },
        Event::Completion { t: 2010 * US, cpu: 0, task: 0, job: 0, exec: 1400 * US, forced: false },
        Event::Release { t: 10 * MS, task: 0, job: 1, deadline: 20 * MS },
        Event::SwitchTo { t: 10 * MS + 10 * US, cpu: 0, task: 0, job: 1 },
        Event::SwitchAway { t: 11020 * US, cpu: 0, task: 0, job: 1, reason: complete, exec: 1010 * US },
        Event::Completion { t: 11020 * US, cpu: 0, task: 0, job: 1, exec: 1010 * US, forced: false },
        Event::Release { t: 11020 * US, task: 0, job: 2, deadline: 21020 * US },
        Event::SwitchTo { t: 11020 * US, cpu: 0, task: 0, job: 2 },
        Event::SwitchAway { t: 12010 * US, cpu: 0, task: 0, job: 2, reason: complete, exec: 990 * US },
        Event::Completion { t: 12010 * US, cpu: 0, task: 0, job: 2, exec: 990 * US, forced: false },
    ];
    assert_eq!(events, want);
    assert_eq!((stats.jobs, stats.unconfirmed_jobs), (3, 0));
    // Releases at 0, 10 ms and 11.02 ms against a 10 ms period: the third is
    // 8.98 ms early.
    assert_eq!(stats.release_jitter, 8980 * US);
    // Waits with a free CPU: release → switch-in of jobs 0 and 1, and the
    // resumption of job 0 (job 2 began running).
    assert_eq!(stats.free_cpu_wait.count, 3);
    assert_eq!(stats.free_cpu_wait.max, 100 * US);
    let l = stats.longest_wait.unwrap();
    assert_eq!((l.task.as_str(), l.until, l.free, l.holder.as_str()), ("a", 1600 * US, 100 * US, "idle (swapper/0)"));
}

#[test]
fn wakeup_releases_count_the_wake_ups_instead() {
    // The resumption inside step 0 and the last wake-up become jobs, and the
    // step begun without a sleep is not one.
    let (_, stats) = import(ftrace::Release::Wakeup);
    assert_eq!(stats.jobs, 4);
}

#[test]
fn rtapp_releases_need_rtapp_markers() {
    let spec = schedlab_model::load_str(
        "platform: {cpus: 1}\npolicy: {name: gfp, priorities: rm}\ntasks:\n  - {name: a, wcet: 3ms, period: 10ms}\n",
        None,
        "<test>",
    )
    .unwrap()
    .spec;
    let dir = common::tmpdir("ftrace-rtapp-none");
    let p = dir.join("trace.txt");
    let text: String =
        recording().lines().filter(|l| !l.contains("tracing_mark_write")).map(|l| format!("{l}\n")).collect();
    std::fs::write(&p, text).unwrap();
    let opts = ftrace::Options { release: ftrace::Release::RtApp, ..Default::default() };
    let e = ftrace::import(&p, &spec, &opts, &mut |_, _| Ok(())).unwrap_err().to_string();
    assert!(e.contains("trace.txt") && e.contains("wrote no rt-app job markers") && e.contains("--ftrace"), "{e}");
}

#[test]
fn a_lost_switch_is_counted() {
    // Without the switch-in of step 1 (1.020010), the thread writes a marker
    // (line 12) while woken but not seen running: the switch-in is inferred
    // there, at 1.020020.
    let text: String = recording().lines().filter(|l| !l.contains("1.020010")).map(|l| format!("{l}\n")).collect();
    let (events, stats) = import_text(&text, ftrace::Release::RtApp);
    assert_eq!((stats.missing_switches, stats.first_missing_switch, stats.inferred_switches), (1, Some(12), 1));
    assert!(events.contains(&Event::SwitchTo { t: 10 * MS + 20 * US, cpu: 0, task: 0, job: 1 }), "{events:?}");
    assert_eq!(stats.jobs, 3);
    let (_, clean) = import(ftrace::Release::RtApp);
    assert_eq!((clean.missing_switches, clean.first_missing_switch), (0, None));
}
