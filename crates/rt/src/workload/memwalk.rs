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
//! ([`crate::colour`]), or, for the threads of a multithreaded task (the
//! spec's `mtt`), one [`SharedSet`] of the MTT's `wss` that all of them
//! walk: the same permutation of lines, each thread starting at its own
//! offset (`k / threads` of the set for the k-th) and wrapping, as
//! Calandrino's MTTs referenced one region from different offsets to avoid
//! lock-step. Its words are touched with relaxed atomic loads and stores, so
//! the threads race on the counts they write, never on memory.
//!
//! A walk may also write lines of a shared-data group ([`SharedLines`],
//! the lines several tasks write): after every `every`-th line of its own,
//! one atomic add to the group's next line — real coherence traffic when
//! the group's tasks run on different CPUs. A task with a `data_group` and
//! a `write_ratio` r > 0 writes its group's lines (as large as the group's
//! largest `wss`) once per `every` = max(1, round((1 − r) / r)) lines of its
//! own, so that r of its line touches are shared writes (r ≤ 1/2; above,
//! one in two). Unlike the platform model, where the group's working sets
//! are the shared data, the walk keeps its own working set beside them. The walk publishes what it
//! did to its CPU's counters ([`crate::counters::published`]) after each
//! chunk of 64 lines: lines touched and the writes to shared lines.

use crate::clock;
use crate::colour::ColouredBuffer;
use crate::job::{JobCtx, JobError};
use crate::workload::JobBody;
use schedlab_model::rng::Rng;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The lines a shared-data group's tasks all write.
pub struct SharedLines {
    words: Box<[AtomicU64]>,
    /// Words per line.
    stride: usize,
    lines: usize,
}

impl SharedLines {
    /// `bytes` of shared lines of `line` bytes.
    pub fn new(bytes: u64, line: u64) -> Arc<SharedLines> {
        let line = line.max(8);
        let lines = bytes.div_ceil(line).max(1) as usize;
        let stride = (line / 8) as usize;
        Arc::new(SharedLines { words: (0..lines * stride).map(|_| AtomicU64::new(0)).collect(), stride, lines })
    }

    pub fn lines(&self) -> usize {
        self.lines
    }

    /// The sum of the lines' counters (every write adds one).
    pub fn writes(&self) -> u64 {
        (0..self.lines).map(|l| self.words[l * self.stride].load(Ordering::Relaxed)).sum()
    }
}

/// A walk's share of a group's lines.
struct Sharing {
    lines: Arc<SharedLines>,
    /// One shared write after this many own lines.
    every: u64,
    /// Own lines since the last shared write.
    since: u64,
    pos: usize,
}

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
    Shared(Arc<SharedSet>),
}

/// The working set the threads of an MTT share (see the module header).
pub struct SharedSet {
    words: Box<[AtomicU64]>,
    /// Words per line.
    stride: usize,
    lines: usize,
    pattern: Pattern,
    order: Vec<u32>,
}

impl SharedSet {
    /// `wss` bytes in lines of `line` bytes, laid out for `pattern` (a
    /// random chain from `seed`), every page written now.
    pub fn new(wss: u64, line: u64, pattern: Pattern, seed: u64) -> Arc<SharedSet> {
        let line = line.max(8);
        let lines = wss.div_ceil(line).max(1) as usize;
        let stride = (line / 8) as usize;
        let mut buf = vec![0u64; lines * stride];
        let order = layout(&mut buf, stride, lines, pattern, seed);
        let words = buf.into_iter().map(AtomicU64::new).collect();
        Arc::new(SharedSet { words, stride, lines, pattern, order })
    }

    pub fn lines(&self) -> usize {
        self.lines
    }

    /// The count word of line `l` (what each touch adds one to).
    pub fn touches(&self, l: usize) -> u64 {
        let at = l * self.stride + (self.pattern == Pattern::Random && self.stride > 1) as usize;
        self.words[at].load(Ordering::Relaxed)
    }
}

/// The visiting order of `lines` lines for `pattern`, written into `buf`
/// (the random chain: line order[k] holds the index of order[k + 1]).
fn layout(buf: &mut [u64], words: usize, lines: usize, pattern: Pattern, seed: u64) -> Vec<u32> {
    let line = words as u64 * 8;
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
        for k in 0..lines {
            buf[order[k] as usize * words] = order[(k + 1) % lines] as u64;
        }
    } else {
        for (i, w) in buf.iter_mut().enumerate() {
            *w = i as u64;
        }
    }
    order
}

pub struct MemWalk {
    store: Store,
    /// Words per cache line.
    words: usize,
    lines: usize,
    order: Vec<u32>,
    pattern: Pattern,
    pos: usize,
    /// Lines touched so far (all jobs), own lines only.
    pub touched: u64,
    sharing: Option<Sharing>,
    /// Writes to shared lines so far (all jobs).
    pub shared_writes: u64,
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
            Store::Heap(_) | Store::Shared(_) => None,
        }
    }

    fn over(mut store: Store, wss: u64, line: u64, pattern: Pattern, seed: u64) -> MemWalk {
        let words = (line / 8) as usize;
        let lines = wss.div_ceil(line).max(1) as usize;
        let order = layout(store.words(), words, lines, pattern, seed);
        MemWalk { store, words, lines, order, pattern, pos: 0, touched: 0, sharing: None, shared_writes: 0 }
    }

    /// Thread `k` of `threads` of an MTT walking the MTT's shared set,
    /// starting `k / threads` of the way through it.
    pub fn shared_set(set: Arc<SharedSet>, k: usize, threads: usize) -> MemWalk {
        let (words, lines, pattern, order) = (set.stride, set.lines, set.pattern, set.order.clone());
        let pos = lines * k / threads.max(1);
        MemWalk {
            store: Store::Shared(set),
            words,
            lines,
            order,
            pattern,
            pos,
            touched: 0,
            sharing: None,
            shared_writes: 0,
        }
    }

    /// Also writes a line of `shared` after every `every` lines of its own
    /// (a write ratio of 1 / (`every` + 1) of its line touches).
    pub fn with_shared(mut self, shared: Arc<SharedLines>, every: u64) -> MemWalk {
        self.sharing = Some(Sharing { lines: shared, every: every.max(1), since: 0, pos: 0 });
        self
    }

    /// Touches `n` lines from the current position.
    #[inline]
    fn step(&mut self, n: usize) {
        if let Store::Shared(set) = &self.store {
            self.pos = step_shared(set, &self.order, self.pattern, self.pos, n);
            self.touched += n as u64;
            self.write_shared(n);
            return;
        }
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
        self.write_shared(n);
    }

    /// The shared-data group's writes after `n` own lines.
    #[inline]
    fn write_shared(&mut self, n: usize) {
        if let Some(sh) = &mut self.sharing {
            sh.since += n as u64;
            let k = sh.since / sh.every;
            sh.since %= sh.every;
            for _ in 0..k {
                sh.lines.words[sh.pos * sh.lines.stride].fetch_add(1, Ordering::Relaxed);
                sh.pos += 1;
                if sh.pos == sh.lines.lines {
                    sh.pos = 0;
                }
            }
            self.shared_writes += k;
        }
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

/// [`MemWalk::step`] over an MTT's shared set from position `pos`: relaxed
/// atomic loads and stores (a load and a store, not a locked add: the cost
/// of a plain touch, and the threads may lose each other's counts). Returns
/// the new position.
fn step_shared(set: &SharedSet, order: &[u32], pattern: Pattern, mut pos: usize, n: usize) -> usize {
    let (w, words, lines) = (&set.words, set.stride, set.lines);
    match pattern {
        Pattern::Random => {
            let mut cur = order[pos % lines] as usize;
            let c = (words > 1) as usize;
            for _ in 0..n {
                let at = cur * words;
                let next = w[at].load(Ordering::Relaxed) as usize;
                w[at + c].store(w[at + c].load(Ordering::Relaxed).wrapping_add(1), Ordering::Relaxed);
                cur = next;
            }
            std::hint::black_box(cur);
            (pos + n) % lines
        }
        _ => {
            for _ in 0..n {
                let at = order[pos] as usize * words;
                w[at].store(w[at].load(Ordering::Relaxed).wrapping_add(1), Ordering::Relaxed);
                pos += 1;
                if pos == lines {
                    pos = 0;
                }
            }
            pos
        }
    }
}

/// Own lines per shared write for a write ratio `r` (see the module header).
pub fn every_for_ratio(r: f64) -> u64 {
    if r <= 0.0 || !r.is_finite() {
        return u64::MAX;
    }
    ((1.0 - r) / r).round().max(1.0) as u64
}

impl Store {
    fn words(&mut self) -> &mut [u64] {
        match self {
            Store::Heap(v) => v,
            Store::Coloured(b) => b.words(),
            Store::Shared(_) => unreachable!("a shared set is laid out once, in SharedSet::new"),
        }
    }
}

impl JobBody for MemWalk {
    fn run(&mut self, ctx: &mut JobCtx) -> Result<(), JobError> {
        // Segment by segment when the task declares segments.
        ctx.run_segments(|ctx, ns, _| {
            let end = clock::thread_cpu() + ns;
            while clock::thread_cpu() < end {
                let w = self.shared_writes;
                self.step(64);
                let w = self.shared_writes - w;
                crate::counters::published::publish(64 + w, w);
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
    fn a_shared_group_gets_one_write_per_every_own_lines() {
        let g = SharedLines::new(4096, 64);
        let mut a = MemWalk::new(64 * 1024, 64, Pattern::Sequential, 1).with_shared(g.clone(), 4);
        let mut b = MemWalk::new(64 * 1024, 64, Pattern::Random, 2).with_shared(g.clone(), 3);
        for _ in 0..10 {
            a.step(64);
            b.step(50);
        }
        assert_eq!((a.touched, a.shared_writes), (640, 160));
        assert_eq!((b.touched, b.shared_writes), (500, 166));
        assert_eq!(g.writes(), 326);
        assert_eq!(g.lines(), 64);
        assert_eq!((every_for_ratio(0.2), every_for_ratio(1.0 / 3.0), every_for_ratio(0.9)), (4, 2, 1));
    }
    #[test]
    fn the_threads_of_an_mtt_walk_one_set_from_their_own_offsets() {
        for p in [Pattern::Sequential, Pattern::Strided { stride: 4096 }, Pattern::Random] {
            let set = SharedSet::new(64 * 1024, 64, p, 3);
            let mut walks: Vec<MemWalk> = (0..3).map(|k| MemWalk::shared_set(set.clone(), k, 3)).collect();
            assert_eq!(walks[1].pos, set.lines() / 3);
            // Each thread does a third of a pass: together, every line once.
            for w in &mut walks {
                w.step(set.lines() / 3 + 1);
            }
            let once = (0..set.lines()).filter(|&l| set.touches(l) >= 1).count();
            assert_eq!(once, set.lines(), "{p:?}: the threads cover the one set between them");
            // A full pass each: every line touched three more times.
            for w in &mut walks {
                w.pass();
            }
            assert!((0..set.lines()).all(|l| set.touches(l) >= 3), "{p:?}");
        }
        // Threads on other cores at once: no lost line, the chain intact.
        let set = SharedSet::new(256 * 1024, 64, Pattern::Random, 9);
        std::thread::scope(|s| {
            for k in 0..2 {
                let set = set.clone();
                s.spawn(move || MemWalk::shared_set(set, k, 2).pass());
            }
        });
        assert!((0..set.lines()).all(|l| set.touches(l) >= 1));
    }

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
