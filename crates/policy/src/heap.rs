//! An indexed binary min-heap over the ids 0..n: push, pop, remove and
//! re-key any id in O(log n), with storage allocated once at construction.
//! Keys live next to their ids in the heap array (no indirection when
//! comparing), and sifting moves a hole instead of swapping. Equal keys are
//! ordered by id.

pub(crate) struct IndexedHeap<K: Ord + Copy> {
    /// Heap order: (key, id).
    heap: Vec<(K, u32)>,
    /// Position of each id in `heap`, or `ABSENT`.
    pos: Vec<u32>,
}

const ABSENT: u32 = u32::MAX;

impl<K: Ord + Copy> IndexedHeap<K> {
    pub fn new(n: usize) -> Self {
        IndexedHeap { heap: Vec::with_capacity(n), pos: vec![ABSENT; n] }
    }
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.heap.len()
    }
    #[cfg(test)]
    pub fn contains(&self, id: u32) -> bool {
        self.pos[id as usize] != ABSENT
    }
    /// The id with the smallest key, and the key.
    #[inline]
    pub fn peek(&self) -> Option<(u32, K)> {
        self.heap.first().map(|&(k, id)| (id, k))
    }
    /// Inserts `id` (which must be absent) with `key`.
    #[inline]
    pub fn push(&mut self, id: u32, key: K) {
        debug_assert!(self.pos[id as usize] == ABSENT);
        let i = self.heap.len();
        self.heap.push((key, id));
        self.up(i);
    }
    /// Removes and returns the smallest.
    #[inline]
    pub fn pop(&mut self) -> Option<(u32, K)> {
        let &(key, id) = self.heap.first()?;
        self.pos[id as usize] = ABSENT;
        let last = self.heap.pop().expect("non-empty heap");
        if !self.heap.is_empty() {
            // The last leaf replaces the root and only sifts down.
            self.heap[0] = last;
            self.down(0);
        }
        Some((id, key))
    }
    /// Removes `id` if present.
    pub fn remove(&mut self, id: u32) {
        let p = self.pos[id as usize];
        if p == ABSENT {
            return;
        }
        self.pos[id as usize] = ABSENT;
        let last = self.heap.pop().expect("present id in an empty heap");
        let p = p as usize;
        if p < self.heap.len() {
            let old = self.heap[p].0;
            self.heap[p] = last;
            if (last.0, last.1) < (old, id) {
                self.up(p);
            } else {
                self.down(p);
            }
        }
    }
    /// Sets the key of `id`, inserting it if absent.
    pub fn set(&mut self, id: u32, key: K) {
        let p = self.pos[id as usize];
        if p == ABSENT {
            self.push(id, key);
            return;
        }
        let p = p as usize;
        let old = self.heap[p].0;
        self.heap[p].0 = key;
        if key < old {
            self.up(p);
        } else if old < key {
            self.down(p);
        }
    }

    #[inline]
    fn up(&mut self, mut i: usize) {
        let node = self.heap[i];
        while i > 0 {
            let parent = (i - 1) / 2;
            let pn = self.heap[parent];
            if (node.0, node.1) >= (pn.0, pn.1) {
                break;
            }
            self.heap[i] = pn;
            self.pos[pn.1 as usize] = i as u32;
            i = parent;
        }
        self.heap[i] = node;
        self.pos[node.1 as usize] = i as u32;
    }
    #[inline]
    fn down(&mut self, mut i: usize) {
        let n = self.heap.len();
        let node = self.heap[i];
        loop {
            let l = 2 * i + 1;
            if l >= n {
                break;
            }
            let r = l + 1;
            let c = if r < n && (self.heap[r].0, self.heap[r].1) < (self.heap[l].0, self.heap[l].1) { r } else { l };
            let cn = self.heap[c];
            if (cn.0, cn.1) >= (node.0, node.1) {
                break;
            }
            self.heap[i] = cn;
            self.pos[cn.1 as usize] = i as u32;
            i = c;
        }
        self.heap[i] = node;
        self.pos[node.1 as usize] = i as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::IndexedHeap;

    #[test]
    fn orders_removes_and_rekeys() {
        let mut h = IndexedHeap::new(8);
        for (id, k) in [(0u32, 50), (1, 10), (2, 40), (3, 30), (4, 20), (5, 60)] {
            h.push(id, k);
        }
        assert_eq!(h.peek(), Some((1, 10)));
        h.remove(1);
        h.remove(7);
        assert_eq!(h.peek(), Some((4, 20)));
        h.set(5, 5);
        h.set(4, 70);
        h.set(6, 35);
        let mut out = Vec::new();
        while let Some((id, k)) = h.pop() {
            out.push((id, k));
        }
        assert_eq!(out, vec![(5, 5), (3, 30), (6, 35), (2, 40), (0, 50), (4, 70)]);
        assert_eq!(h.len(), 0);
        assert!(!h.contains(0));
    }
}
