//! `memwalk`: a walk over the task's working set (its `wss`), touching
//! every cache line once per pass (a read and a write of the line's first
//! word), until the job's execution time is consumed (thread CPU clock,
//! read every 64 lines). The position carries over from job to job, so
//! short jobs still cover the whole set over successive jobs.
//!
//! - `seq`: lines in address order (prefetch-friendly);
//! - `strided:BYTES`: every `BYTES / line`-th line, then the next offset,
//!   so every line is visited in each pass;
//! - `random`: a seeded random cyclic permutation, chased through the
//!   buffer itself (each line stores the index of the next), so every load
//!   depends on the previous one and defeats the prefetcher.
//!
//! The working set is ordinary heap memory, or, for a task with `colors`,
//! a [`ColouredBuffer`] whose every page has one of the task's colours
//! ([`crate::colour`]).

use crate::clock;
use crate::colour::ColouredBuffer;
use crate::job::{JobCtx, JobError};
use crate::workload::JobBody;
use schedlab_model::rng::Rng;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pattern {
    Sequential,
    Strided { stride: u64 },
    Random,
}

/// Where the working set lives.
enum Store {
    Heap(Vec<u64>),
    Coloured(ColouredBuffer),
}

pub struct MemWalk {
    store: Store,
    /// Words per cache line.
    words: usize,
    lines: usize,
    order: Vec<u32>,
    pattern: Pattern,
    pos: usize,
    /// Lines touched so far (all jobs).
    pub touched: u64,
}

impl MemWalk {
    /// A walk over `wss` bytes in lines of `line` bytes. The buffer is
    /// allocated and every page written here, before the run, so jobs do
    /// not page-fault.
    pub fn new(wss: u64, line: u64, pattern: Pattern, seed: u64) -> MemWalk {
        let line = line.max(8);
        let lines = wss.div_ceil(line).max(1) as usize;
        let buf = vec![0u64; lines * (line / 8) as usize];
        MemWalk::over(Store::Heap(buf), wss, line, pattern, seed)
    }

    /// A walk over `wss` bytes of a coloured buffer (at least that large).
    pub fn coloured(buf: ColouredBuffer, wss: u64, line: u64, pattern: Pattern, seed: u64) -> MemWalk {
        assert!(buf.len() as u64 >= wss, "the coloured buffer is smaller than the working set");
        MemWalk::over(Store::Coloured(buf), wss, line.max(8), pattern, seed)
    }

    /// The coloured buffer the walk runs over, if any.
    pub fn coloured_buffer(&self) -> Option<&ColouredBuffer> {
        match &self.store {
            Store::Coloured(b) => Some(b),
            Store::Heap(_) => None,
        }
    }

    fn over(mut store: Store, wss: u64, line: u64, pattern: Pattern, seed: u64) -> MemWalk {
        let words = (line / 8) as usize;
        let lines = wss.div_ceil(line).max(1) as usize;
        let buf = store.words();
        let order: Vec<u32> = match pattern {
            Pattern::Sequential => (0..lines as u32).collect(),
            Pattern::Strided { stride } => {
                let step = ((stride / line).max(1) as usize).min(lines);
                (0..step).flat_map(|o| (o..lines).step_by(step)).map(|i| i as u32).collect()
            }
            Pattern::Random => {
                let mut p: Vec<u32> = (0..lines as u32).collect();
                let mut rng = Rng::new(seed);
                for i in (1..p.len()).rev() {
                    let j = (rng.next_u64() % (i as u64 + 1)) as usize;
                    p.swap(i, j);
                }
                p
            }
        };
        if pattern == Pattern::Random {
            // Line order[k] points to line order[k + 1] (cyclically).
            for k in 0..lines {
                buf[order[k] as usize * words] = order[(k + 1) % lines] as u64;
            }
        } else {
            for (i, w) in buf.iter_mut().enumerate() {
                *w = i as u64;
            }
        }
        MemWalk { store, words, lines, order, pattern, pos: 0, touched: 0 }
    }

    /// Touches `n` lines from the current position.
    #[inline]
    fn step(&mut self, n: usize) {
        let buf = self.store.words();
        match self.pattern {
            Pattern::Random => {
                let mut cur = self.order[self.pos % self.lines] as usize;
                for _ in 0..n {
                    let w = cur * self.words;
                    let next = buf[w] as usize;
                    // Keep the chain intact: write the line without changing the link.
                    buf[w + (self.words > 1) as usize] = buf[w + (self.words > 1) as usize].wrapping_add(1);
                    cur = next;
                }
                self.pos = (self.pos + n) % self.lines;
                // `pos` tracks progress; the chain position is recomputed from it.
                std::hint::black_box(cur);
            }
            _ => {
                for _ in 0..n {
                    let w = self.order[self.pos] as usize * self.words;
                    buf[w] = buf[w].wrapping_add(1);
                    self.pos += 1;
                    if self.pos == self.lines {
                        self.pos = 0;
                    }
                }
            }
        }
        self.touched += n as u64;
    }

    /// One full pass over the working set (every line once).
    pub fn pass(&mut self) {
        let n = self.lines;
        self.step(n);
    }

    pub fn lines(&self) -> usize {
        self.lines
    }
}

impl Store {
    fn words(&mut self) -> &mut [u64] {
        match self {
            Store::Heap(v) => v,
            Store::Coloured(b) => b.words(),
        }
    }
}

impl JobBody for MemWalk {
    fn run(&mut self, ctx: &mut JobCtx) -> Result<(), JobError> {
        // Segment by segment when the task declares segments.
        ctx.run_segments(|ctx, ns, _| {
            let end = clock::thread_cpu() + ns;
            while clock::thread_cpu() < end {
                self.step(64);
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
    fn every_pattern_touches_every_line_in_a_pass() {
        for p in [Pattern::Sequential, Pattern::Strided { stride: 4096 }, Pattern::Random] {
            let mut w = MemWalk::new(256 * 1024, 64, p, 7);
            let before: Vec<u64> = (0..w.lines())
                .map(|l| w.store.words()[l * w.words + (p == Pattern::Random && w.words > 1) as usize])
                .collect();
            w.pass();
            let changed = (0..w.lines())
                .filter(|&l| w.store.words()[l * w.words + (p == Pattern::Random && w.words > 1) as usize] != before[l])
                .count();
            assert_eq!(changed, w.lines(), "{p:?}");
        }
    }
}
