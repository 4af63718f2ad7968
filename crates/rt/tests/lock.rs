//! The run lock: a second run fails at once naming the holder's PID, or
//! with `wait` says whom it waits for and gets the lock when the holder
//! lets go. A lock file of its own (`SCHEDLAB_LOCK`), so no root is needed
//! and no real run is disturbed.

use schedlab_rt::lock::RunLock;
use schedlab_rt::RunError;

#[test]
fn a_held_lock_is_refused_at_once_naming_its_pid_and_waited_for_with_wait() {
    let path = std::env::temp_dir().join(format!("schedlab-lock-test-{}.lock", std::process::id()));
    std::env::set_var("SCHEDLAB_LOCK", &path);
    let held = RunLock::acquire(false).expect("a free lock is taken");
    assert_eq!(std::fs::read_to_string(&path).unwrap().trim(), std::process::id().to_string(), "the holder's PID");
    let t = std::time::Instant::now();
    match RunLock::acquire(false) {
        Err(RunError::Busy(m)) => {
            assert!(m.contains(&format!("PID {}", std::process::id())), "{m}");
            assert!(m.contains("--wait"), "{m}");
        }
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("a held lock was taken twice"),
    }
    assert!(t.elapsed() < std::time::Duration::from_millis(500), "refused at once");
    let release = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(300));
        drop(held);
    });
    let t = std::time::Instant::now();
    let _second = RunLock::acquire(true).expect("waited for");
    assert!(t.elapsed() >= std::time::Duration::from_millis(250), "it waited for the holder ({:?})", t.elapsed());
    release.join().unwrap();
    std::fs::remove_file(&path).unwrap();
}
