//! An indexed binary min-heap over the ids 0..n: push, pop, remove and
//! re-key any id in O(log n), with storage allocated once at construction.

pub(crate) struct IndexedHeap<K: Ord + Copy> {
    /// Heap order: ids.
    heap: Vec<u32>,
    /// Position of each id in `heap`, or `ABSENT`.
    pos: Vec<u32>,
    /// Key of each id (meaningful while present).
    keys: Vec<Option<K>>,
}

const ABSENT: u32 = u32::MAX;

impl<K: Ord + Copy> IndexedHeap<K> {
    pub fn new(n: usize) -> Self {
        IndexedHeap { heap: Vec::with_capacity(n), pos: vec![ABSENT; n], keys: vec![None; n] }
    }
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.heap.len()
    }
    pub fn contains(&self, id: u32) -> bool {
        self.pos[id as usize] != ABSENT
    }
    /// The id with the smallest key, and the key.
    pub fn peek(&self) -> Option<(u32, K)> {
        self.heap.first().map(|&id| (id, self.key(id)))
    }
    pub fn key(&self, id: u32) -> K {
        self.keys[id as usize].expect("heap: key of an absent id")
    }
    /// Inserts `id` (which must be absent) with `key`.
    pub fn push(&mut self, id: u32, key: K) {
        debug_assert!(!self.contains(id));
        self.keys[id as usize] = Some(key);
        self.pos[id as usize] = self.heap.len() as u32;
        self.heap.push(id);
        self.up(self.heap.len() - 1);
    }
    /// Removes and returns the smallest.
    pub fn pop(&mut self) -> Option<(u32, K)> {
        let top = self.peek()?;
        self.remove(top.0);
        Some(top)
    }
    /// Removes `id` if present.
    pub fn remove(&mut self, id: u32) {
        let p = self.pos[id as usize];
        if p == ABSENT {
            return;
        }
        let last = self.heap.len() - 1;
        self.swap(p as usize, last);
        self.heap.pop();
        self.pos[id as usize] = ABSENT;
        self.keys[id as usize] = None;
        if (p as usize) < self.heap.len() {
            self.down(p as usize);
            self.up(p as usize);
        }
    }
    /// Sets the key of `id`, inserting it if absent.
    pub fn set(&mut self, id: u32, key: K) {
        let p = self.pos[id as usize];
        if p == ABSENT {
            self.push(id, key);
            return;
        }
        self.keys[id as usize] = Some(key);
        self.down(p as usize);
        self.up(self.pos[id as usize] as usize);
    }

    fn less(&self, a: usize, b: usize) -> bool {
        self.key(self.heap[a]) < self.key(self.heap[b])
    }
    fn swap(&mut self, a: usize, b: usize) {
        self.heap.swap(a, b);
        self.pos[self.heap[a] as usize] = a as u32;
        self.pos[self.heap[b] as usize] = b as u32;
    }
    fn up(&mut self, mut i: usize) {
        while i > 0 {
            let parent = (i - 1) / 2;
            if !self.less(i, parent) {
                break;
            }
            self.swap(i, parent);
            i = parent;
        }
    }
    fn down(&mut self, mut i: usize) {
        let n = self.heap.len();
        loop {
            let (l, r) = (2 * i + 1, 2 * i + 2);
            let mut m = i;
            if l < n && self.less(l, m) {
                m = l;
            }
            if r < n && self.less(r, m) {
                m = r;
            }
            if m == i {
                break;
            }
            self.swap(i, m);
            i = m;
        }
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
