//! A domain's ready queue: the waiting jobs (at most one per task, by local
//! task index) ordered by the order's waiting key. Three designs: for keys
//! that change with time (EDF, LLF, EDZL) [`FlatMin`] in small domains and
//! [`IndexedHeap`] in the others, and the O(1) [`LevelQueue`] for fixed task
//! priorities (FP).

use crate::flat_min::FlatMin;
use crate::heap::IndexedHeap;

/// Domains of up to this many tasks (and few CPUs, see [`crate::engine`])
/// keep a time-dependent-key ready queue in a [`FlatMin`] instead of a heap.
pub(crate) const FLAT_UP_TO: usize = 16;

pub(crate) trait ReadyQueue<K: Copy>: Send {
    /// Puts `id` in the queue with `key` (re-keys it if present).
    fn set(&mut self, id: u32, key: K);
    /// Takes `id` out of the queue if present.
    fn remove(&mut self, id: u32);
    /// The most urgent id and its key.
    fn peek(&self) -> Option<(u32, K)>;
    /// Takes the most urgent id out.
    fn pop(&mut self) -> Option<(u32, K)>;
}

impl<K: Ord + Copy + Send> ReadyQueue<K> for IndexedHeap<K> {
    #[inline]
    fn set(&mut self, id: u32, key: K) {
        IndexedHeap::set(self, id, key)
    }
    #[inline]
    fn remove(&mut self, id: u32) {
        IndexedHeap::remove(self, id)
    }
    #[inline]
    fn peek(&self) -> Option<(u32, K)> {
        IndexedHeap::peek(self)
    }
    #[inline]
    fn pop(&mut self) -> Option<(u32, K)> {
        IndexedHeap::pop(self)
    }
}

impl<K: Ord + Copy + Send> ReadyQueue<K> for FlatMin<K> {
    #[inline(always)]
    fn set(&mut self, id: u32, key: K) {
        FlatMin::set(self, id, key)
    }
    #[inline(always)]
    fn remove(&mut self, id: u32) {
        FlatMin::remove(self, id)
    }
    #[inline(always)]
    fn peek(&self) -> Option<(u32, K)> {
        FlatMin::peek(self)
    }
    #[inline(always)]
    fn pop(&mut self) -> Option<(u32, K)> {
        FlatMin::pop(self)
    }
}

/// The ready queue of the hthreads hardware scheduler (OSPERT 2009, paper 6,
/// §6.3), for fixed priorities: one bit per priority level in a two-level
/// bitmap, a queue per level, and the next decision (the most urgent
/// level) kept precomputed, so every operation is O(1). Here a level is a
/// task's place in the domain's fixed priority order (ties are already
/// broken by task index), so a level's queue holds at most the task's one
/// waiting job. With up to 4096 levels (a domain of 4096 tasks) the summary
/// is one word; beyond, one summary word per 4096 levels.
pub(crate) struct LevelQueue<K: Copy> {
    /// Local task → its level.
    level: Vec<u32>,
    /// Level → (local task, its key).
    at: Vec<(u32, K)>,
    /// Bit l % 64 of word l / 64: level l is occupied.
    words: Vec<u64>,
    /// Bit w % 64 of summary word w / 64: word w is not zero.
    summary: Vec<u64>,
    /// The most urgent occupied level (the next decision), or `NONE`.
    top: u32,
}

const NONE: u32 = u32::MAX;

impl<K: Copy + Ord> LevelQueue<K> {
    /// A queue for local tasks with these (fixed, distinct) keys.
    pub fn new(keys: &[K]) -> LevelQueue<K> {
        let mut order: Vec<u32> = (0..keys.len() as u32).collect();
        order.sort_by_key(|&t| (keys[t as usize], t));
        let mut level = vec![0u32; keys.len()];
        for (l, &t) in order.iter().enumerate() {
            level[t as usize] = l as u32;
        }
        let at = order.iter().map(|&t| (t, keys[t as usize])).collect();
        let words = keys.len().div_ceil(64);
        LevelQueue { level, at, words: vec![0; words], summary: vec![0; words.div_ceil(64).max(1)], top: NONE }
    }

    /// The lowest occupied level, found from the bitmaps.
    #[inline]
    fn scan(&self) -> u32 {
        for (i, &s) in self.summary.iter().enumerate() {
            if s != 0 {
                let w = i as u32 * 64 + s.trailing_zeros();
                return w * 64 + self.words[w as usize].trailing_zeros();
            }
        }
        NONE
    }

    #[inline]
    fn clear(&mut self, l: u32) {
        let w = (l / 64) as usize;
        self.words[w] &= !(1 << (l % 64));
        if self.words[w] == 0 {
            self.summary[w / 64] &= !(1 << (w % 64));
        }
        if l == self.top {
            self.top = self.scan();
        }
    }
}

impl<K: Copy + Ord + Send> ReadyQueue<K> for LevelQueue<K> {
    #[inline]
    fn set(&mut self, id: u32, key: K) {
        let l = self.level[id as usize];
        debug_assert!(self.at[l as usize].1 == key, "a fixed-priority key changed");
        let _ = key;
        let w = (l / 64) as usize;
        self.words[w] |= 1 << (l % 64);
        self.summary[w / 64] |= 1 << (w % 64);
        if l < self.top {
            self.top = l;
        }
    }
    #[inline]
    fn remove(&mut self, id: u32) {
        let l = self.level[id as usize];
        if self.words[(l / 64) as usize] & (1 << (l % 64)) != 0 {
            self.clear(l);
        }
    }
    #[inline]
    fn peek(&self) -> Option<(u32, K)> {
        (self.top != NONE).then(|| self.at[self.top as usize])
    }
    #[inline]
    fn pop(&mut self) -> Option<(u32, K)> {
        let e = self.peek()?;
        self.clear(self.top);
        Some(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The level queue and the heap agree on every operation of a random
    /// sequence (the heap is the reference).
    #[test]
    fn the_level_queue_agrees_with_the_heap() {
        for n in [1usize, 5, 63, 64, 65, 300, 4096, 5000] {
            let keys: Vec<u128> = (0..n as u128).map(|t| ((t * 7919) % 1000) << 32 | t).collect();
            let mut q = LevelQueue::new(&keys);
            let mut h = IndexedHeap::new(n);
            let mut rng = schedlab_model::rng::Rng::new(12345 ^ n as u64);
            for _ in 0..20_000 {
                let id = rng.below(n as u64) as u32;
                match rng.below(3) {
                    0 => {
                        q.set(id, keys[id as usize]);
                        ReadyQueue::set(&mut h, id, keys[id as usize]);
                    }
                    1 => {
                        q.remove(id);
                        ReadyQueue::remove(&mut h, id);
                    }
                    _ => assert_eq!(q.pop(), ReadyQueue::pop(&mut h)),
                }
                assert_eq!(q.peek(), ReadyQueue::peek(&h));
            }
        }
    }
}
