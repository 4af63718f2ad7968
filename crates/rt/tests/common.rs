//! Shared helpers for the runtime's integration tests (run for real, as root).

#![allow(dead_code)]

use schedlab_model::{load_str, Spec};
use schedlab_rt::state::MachineState;
use std::sync::Mutex;

/// Runs touch machine-wide state: one at a time within a test binary.
pub static SERIAL: Mutex<()> = Mutex::new(());

pub fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

pub fn spec(yaml: &str) -> Spec {
    load_str(yaml, None, "test.yaml").unwrap_or_else(|e| panic!("{e}")).spec
}

/// The tests need root (CI runs them as root): fail loudly otherwise.
pub fn require_root() {
    assert!(
        schedlab_rt::privilege::has_cap(schedlab_rt::privilege::CAP_SYS_NICE)
            && schedlab_rt::privilege::has_cap(schedlab_rt::privilege::CAP_SYS_ADMIN),
        "these tests run real-time threads: run them as root (CAP_SYS_NICE and CAP_SYS_ADMIN)"
    );
}

/// Machine state without this process's real-time threads that are not ours to judge.
pub fn state() -> MachineState {
    MachineState::capture()
}

pub fn count(events: &[schedlab_trace::Event], pred: impl Fn(&schedlab_trace::Event) -> bool) -> usize {
    events.iter().filter(|e| pred(e)).count()
}

/// Runs `f` up to three times until it passes. A run on this shared VM can
/// be failed by a platform stall of several ms (a late timer, a vCPU not
/// running the guest) that no tolerance covers while still checking the
/// policy, so a run must pass in one of three; every failed attempt is
/// printed, and all their reasons are returned when none passes.
pub fn up_to_three(f: impl Fn() -> Result<(), String>) -> Result<(), String> {
    let mut errs = Vec::new();
    for _ in 0..3 {
        match f() {
            Ok(()) => return Ok(()),
            Err(e) => {
                eprintln!("attempt failed: {e}");
                errs.push(e);
            }
        }
    }
    Err(errs.join("\n\n"))
}
