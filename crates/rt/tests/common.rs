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
        schedlab_rt::privilege::has_cap(schedlab_rt::privilege::CAP_SYS_NICE) && schedlab_rt::privilege::has_cap(schedlab_rt::privilege::CAP_SYS_ADMIN),
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
