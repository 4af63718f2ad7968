//! What idle CPUs do during a run (`--idle`).
//!
//! A CPU with nothing to run enters an idle state; leaving a deep one
//! takes time, and waking a CPU that halted needs an inter-processor
//! interrupt (in a virtual machine, an exit to the hypervisor on both
//! sides). With [`IdleMode::Poll`] the run holds a PM QoS request of 0 µs
//! on `/dev/cpu_dma_latency` for its whole length: the cpuidle governor
//! then keeps idle CPUs in their polling state, and a wake-up aimed at one
//! only sets a flag it is watching. This is what cyclictest does by
//! default, so the runtime's latencies and the platform's reference are
//! measured under the same idle policy.
//!
//! The kernel keeps the request only while the file is open and removes
//! it when the file is closed — at the end of the run, on an error, and
//! when the process is killed — so it needs no crash journal.

use std::fs::File;
use std::io::Write;

/// The PM QoS device of the CPU wake-up latency limit.
pub const DEVICE: &str = "/dev/cpu_dma_latency";

/// What idle CPUs do during a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdleMode {
    /// Idle CPUs poll (a 0 µs wake-up latency request for the run).
    Poll,
    /// The kernel's own idle states (nothing requested).
    Kernel,
}

impl std::str::FromStr for IdleMode {
    type Err = String;
    fn from_str(s: &str) -> Result<IdleMode, String> {
        match s {
            "poll" => Ok(IdleMode::Poll),
            "kernel" => Ok(IdleMode::Kernel),
            _ => Err(format!("unknown idle mode `{s}`; expected poll or kernel")),
        }
    }
}

/// The request, held until dropped.
#[derive(Debug)]
pub struct IdleHold {
    file: Option<File>,
    /// Why a request asked for was not made, for the run's notes.
    pub note: Option<String>,
}

impl IdleHold {
    /// Makes the request `mode` asks for. A machine without the device (or
    /// one that refuses the request) runs with its own idle states; the
    /// note says so.
    pub fn hold(mode: IdleMode) -> IdleHold {
        if mode == IdleMode::Kernel {
            return IdleHold { file: None, note: None };
        }
        let opened = File::options().write(true).open(DEVICE).and_then(|mut f| {
            f.write_all(&0i32.to_ne_bytes())?;
            Ok(f)
        });
        match opened {
            Ok(f) => IdleHold { file: Some(f), note: None },
            Err(e) => IdleHold {
                file: None,
                note: Some(format!("idle CPUs keep the kernel's idle states: {DEVICE}: {e} (--idle poll)")),
            },
        }
    }

    /// Whether the request is held.
    pub fn polling(&self) -> bool {
        self.file.is_some()
    }
}

/// The limit in force now (µs), as the device reports it; `None` when it
/// cannot be read.
pub fn current_limit_us() -> Option<i32> {
    let mut b = [0u8; 4];
    use std::io::Read;
    File::open(DEVICE).and_then(|mut f| f.read_exact(&mut b)).ok()?;
    Some(i32::from_ne_bytes(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_parse_and_unknown_is_refused() {
        assert_eq!("poll".parse::<IdleMode>(), Ok(IdleMode::Poll));
        assert_eq!("kernel".parse::<IdleMode>(), Ok(IdleMode::Kernel));
        assert!("deep".parse::<IdleMode>().unwrap_err().contains("expected poll or kernel"));
    }

    #[test]
    fn the_request_holds_while_open_and_ends_with_the_hold() {
        // Runs hold requests of their own: none may start meanwhile.
        let _lock = crate::lock::RunLock::acquire(true).expect("the run lock");
        let before = current_limit_us();
        let h = IdleHold::hold(IdleMode::Poll);
        if !h.polling() {
            // No device or no privilege: the note names why.
            let note = h.note.expect("a note says why");
            assert!(note.contains(DEVICE), "{note}");
            return;
        }
        assert_eq!(current_limit_us(), Some(0), "the limit while held");
        assert!(h.note.is_none());
        drop(h);
        assert_eq!(current_limit_us(), before, "the limit after the hold");
        let k = IdleHold::hold(IdleMode::Kernel);
        assert!(!k.polling() && k.note.is_none());
        assert_eq!(current_limit_us(), before);
    }
}
