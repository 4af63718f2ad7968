//! `prem`: a PREM job on real memory (memory-centric scheduling, `mcs`;
//! docs/policies.md). The task's data is a buffer of its `wss` in main
//! memory, cut into Section windows of `wss / Sections` bytes (at least a
//! page); the job has a private buffer of one window. A prefetch segment
//! copies the current Section's window into the private buffer, a
//! write-back copies the private buffer back to the window, an execution
//! segment computes on the private buffer (reads and rewrites every word)
//! — each over and over, 4 KiB at a time, until the segment's demand of
//! CPU time is consumed (thread CPU clock), so the phases' lengths stay the
//! spec's and what they do is what their names say. Prefetches and
//! write-backs are told apart by position, as in the spec (a memory segment
//! followed by an `exec` one is a prefetch). Lines touched are published to
//! the CPU's counters, as `memwalk` does.
//!
//! An `amp` job runs only its first prefetch and its execution segments
//! here: the memory-phase worker's phases are the policy's accounting on
//! the master CPU, not copies.

use crate::clock;
use crate::job::{JobCtx, JobError};
use crate::workload::JobBody;
use schedlab_model::SegmentKind;

/// Words copied or computed on per step (4 KiB).
const STEP: usize = 512;

pub struct Prem {
    main: Vec<u64>,
    private: Vec<u64>,
    /// Words per Section window.
    window: usize,
    /// The window the job works on (its start in `main`), and the position
    /// of the next step inside it.
    base: usize,
    at: usize,
    /// Words touched since the last publication.
    touched: u64,
}

impl Prem {
    /// `wss` bytes of data in `sections` windows (each at least a page).
    pub fn new(wss: u64, sections: usize) -> Prem {
        let words = (wss / 8).max(STEP as u64) as usize;
        let window = (words / sections.max(1)).max(STEP).min(words);
        let main: Vec<u64> = (0..words as u64).collect();
        Prem { main, private: vec![0; window], window, base: 0, at: 0, touched: 0 }
    }

    /// The Section `k`'s window (cycling over the data).
    fn select(&mut self, k: usize) {
        let windows = (self.main.len() / self.window).max(1);
        self.base = (k % windows) * self.window;
        self.at = 0;
    }

    /// One step of a phase: `STEP` words of the window.
    fn step(&mut self, role: Role) {
        let n = STEP.min(self.window - self.at);
        let (lo, hi) = (self.at, self.at + n);
        let main = &mut self.main[self.base + lo..self.base + hi];
        let private = &mut self.private[lo..hi];
        match role {
            Role::Prefetch => private.copy_from_slice(main),
            Role::Writeback => main.copy_from_slice(private),
            Role::Exec => {
                for w in private.iter_mut() {
                    *w = w.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                }
            }
        }
        self.at = if hi == self.window { 0 } else { hi };
        self.touched += n as u64;
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Prefetch,
    Exec,
    Writeback,
}

impl JobBody for Prem {
    fn run(&mut self, ctx: &mut JobCtx) -> Result<(), JobError> {
        let segs = ctx.segments;
        // Each segment's role and Section (the prefetches seen so far).
        let mut section = 0usize;
        let mut plan = Vec::with_capacity(segs.len());
        for (i, s) in segs.iter().enumerate() {
            let role = match s.kind {
                SegmentKind::Memory if segs.get(i + 1).is_some_and(|n| n.kind == SegmentKind::Exec) => {
                    if i > 0 {
                        section += 1;
                    }
                    Role::Prefetch
                }
                SegmentKind::Memory => Role::Writeback,
                _ => Role::Exec,
            };
            plan.push((role, section));
        }
        ctx.run_segments(|ctx, ns, _| {
            let (role, k) = plan.get(ctx.segment as usize).copied().unwrap_or((Role::Exec, 0));
            if role == Role::Prefetch || ctx.segment == 0 {
                self.select(k);
            }
            let end = clock::thread_cpu() + ns;
            while clock::thread_cpu() < end {
                for _ in 0..4 {
                    self.step(role);
                }
                crate::counters::published::publish(self.touched / 8, 0);
                self.touched = 0;
                ctx.check()?;
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prefetch_copies_the_window_and_a_write_back_copies_it_back() {
        // 4 windows of 512 words.
        let mut p = Prem::new(4 * 4096, 4);
        assert_eq!((p.window, p.main.len()), (512, 2048));
        p.select(2);
        p.step(Role::Prefetch);
        assert_eq!(p.private[..3], [1024, 1025, 1026], "window 2 is in the private buffer");
        p.step(Role::Exec);
        let computed = p.private[0];
        assert_ne!(computed, 1024);
        p.step(Role::Writeback);
        assert_eq!(p.main[1024], computed, "written back to its window");
        assert_eq!(p.main[0], 0, "other windows untouched");
        // Windows cycle over the data.
        p.select(6);
        assert_eq!(p.base, 1024);
    }
}
