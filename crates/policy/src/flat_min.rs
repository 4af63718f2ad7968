//! A keyed minimum over a few ids (0..n, n ≤ 64): the keys in a flat array,
//! a presence bitmask, and the least (key, id) kept at hand. Peeking is a
//! load; setting a key is a store and one comparison with the least, except
//! when the least grows or leaves, which rescans the present ids (O(n), with
//! n small cheaper than sifting a heap). Equal keys are ordered by id, as in
//! [`crate::heap::IndexedHeap`], so the two answer every operation alike.

/// The most ids a [`FlatMin`] holds (one bit each in the presence mask).
pub(crate) const FLAT_MAX: usize = 64;

const NONE: u32 = u32::MAX;

pub(crate) struct FlatMin<K: Ord + Copy> {
    /// Id → key (meaningful while its bit is set).
    keys: Box<[K]>,
    /// Bit `id`: `id` is present.
    present: u64,
    /// The present id with the least (key, id), or `NONE`.
    top: u32,
}

impl<K: Ord + Copy> FlatMin<K> {
    /// An empty set over ids 0..n (n ≤ [`FLAT_MAX`]); `fill` is any key.
    pub fn new(n: usize, fill: K) -> Self {
        assert!(n <= FLAT_MAX, "a flat minimum holds at most {FLAT_MAX} ids");
        FlatMin { keys: vec![fill; n].into_boxed_slice(), present: 0, top: NONE }
    }

    /// The id with the least key, and the key.
    #[inline(always)]
    pub fn peek(&self) -> Option<(u32, K)> {
        (self.top != NONE).then(|| (self.top, self.keys[self.top as usize]))
    }

    /// The id with the least key.
    #[inline(always)]
    pub fn peek_id(&self) -> Option<u32> {
        (self.top != NONE).then_some(self.top)
    }

    /// Sets the key of `id`, inserting it if absent.
    #[inline(always)]
    pub fn set(&mut self, id: u32, key: K) {
        let bit = 1u64 << id;
        let i = id as usize;
        if self.present & bit != 0 {
            let old = self.keys[i];
            self.keys[i] = key;
            if id == self.top {
                if key > old {
                    self.rescan();
                }
                return;
            }
            if key >= old {
                // It was not the least and only grew.
                return;
            }
        } else {
            self.present |= bit;
            self.keys[i] = key;
            if self.top == NONE {
                self.top = id;
                return;
            }
        }
        let top = self.keys[self.top as usize];
        if key < top || (key == top && id < self.top) {
            self.top = id;
        }
    }

    /// Removes `id` if present.
    #[inline(always)]
    pub fn remove(&mut self, id: u32) {
        let bit = 1u64 << id;
        if self.present & bit != 0 {
            self.present &= !bit;
            if id == self.top {
                self.rescan();
            }
        }
    }

    /// Removes and returns the least.
    #[inline(always)]
    pub fn pop(&mut self) -> Option<(u32, K)> {
        let e = self.peek()?;
        self.present &= !(1u64 << e.0);
        self.rescan();
        Some(e)
    }

    /// Finds the least present (key, id): ids in increasing order, a key
    /// replacing the best only when strictly smaller.
    #[inline(always)]
    fn rescan(&mut self) {
        let mut m = self.present;
        if m == 0 {
            self.top = NONE;
            return;
        }
        let mut best = m.trailing_zeros();
        let mut best_key = self.keys[best as usize];
        m &= m - 1;
        while m != 0 {
            let i = m.trailing_zeros();
            let k = self.keys[i as usize];
            if k < best_key {
                best = i;
                best_key = k;
            }
            m &= m - 1;
        }
        self.top = best;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::heap::IndexedHeap;

    /// The flat minimum and the heap agree on every operation of random
    /// sequences with many equal keys (the heap is the reference).
    #[test]
    fn the_flat_minimum_agrees_with_the_heap() {
        for n in [1usize, 2, 3, 4, 5, 8, 13, 16, 33, 63, 64] {
            for spread in [1u64, 3, 1000] {
                let mut f = FlatMin::new(n, 0u64);
                let mut h = IndexedHeap::new(n);
                let mut rng = schedlab_model::rng::Rng::new(777 ^ (n as u64) << 8 ^ spread);
                for _ in 0..20_000 {
                    let id = rng.below(n as u64) as u32;
                    let key = rng.below(spread);
                    match rng.below(4) {
                        0 | 1 => {
                            f.set(id, key);
                            h.set(id, key);
                        }
                        2 => {
                            f.remove(id);
                            h.remove(id);
                        }
                        _ => assert_eq!(f.pop(), h.pop()),
                    }
                    assert_eq!(f.peek(), h.peek(), "n = {n}, spread = {spread}");
                }
            }
        }
    }
}
