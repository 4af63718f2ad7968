//! The timer store: the policy's timers, in one place for every driver.
//!
//! A slab of slots with generations (a `TimerId` is `generation << 32 |
//! slot`), so arming and cancelling allocate nothing in steady state and a
//! cancelled timer is recognised as stale, plus a min-heap of (due, arming
//! order, slot, generation) entries with lazy invalidation: a cancelled
//! timer's entry is dropped when it reaches the top. Timers due at the same
//! instant fire in the order they were armed.

use crate::interface::{Time, TimerId};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    gen: u32,
    armed: bool,
    tag: u64,
}

#[derive(Debug, Default)]
pub struct Timers {
    slots: Vec<Slot>,
    free: Vec<u32>,
    /// (due, arming order, slot, generation).
    heap: BinaryHeap<Reverse<(Time, u64, u32, u32)>>,
    /// Arming order, the tie-break of timers due at the same instant.
    seq: u64,
}

impl Timers {
    /// Arms a timer due at `at` that delivers `tag`.
    pub fn arm(&mut self, at: Time, tag: u64) -> TimerId {
        let slot = match self.free.pop() {
            Some(s) => s,
            None => {
                self.slots.push(Slot::default());
                (self.slots.len() - 1) as u32
            }
        };
        let s = &mut self.slots[slot as usize];
        s.armed = true;
        s.tag = tag;
        let gen = s.gen;
        self.heap.push(Reverse((at, self.seq, slot, gen)));
        self.seq += 1;
        TimerId((gen as u64) << 32 | slot as u64)
    }

    fn release(&mut self, slot: u32) {
        let s = &mut self.slots[slot as usize];
        s.armed = false;
        s.gen = s.gen.wrapping_add(1);
        self.free.push(slot);
    }

    /// Cancels a timer; a fired, cancelled or unknown timer is ignored.
    pub fn cancel(&mut self, id: TimerId) {
        let (slot, gen) = ((id.0 & 0xFFFF_FFFF) as u32, (id.0 >> 32) as u32);
        if let Some(s) = self.slots.get(slot as usize) {
            if s.armed && s.gen == gen {
                self.release(slot);
            }
        }
    }

    fn live(&self, slot: u32, gen: u32) -> bool {
        let s = self.slots[slot as usize];
        s.armed && s.gen == gen
    }

    /// When the earliest armed timer is due (stale entries are dropped).
    pub fn next_due(&mut self) -> Option<Time> {
        while let Some(&Reverse((t, _, slot, gen))) = self.heap.peek() {
            if self.live(slot, gen) {
                return Some(t);
            }
            self.heap.pop();
        }
        None
    }

    /// The earliest armed timer if it is due by `until`: it is disarmed and
    /// returned with its due time and tag.
    pub fn pop_due(&mut self, until: Time) -> Option<(TimerId, Time, u64)> {
        loop {
            let &Reverse((t, _, slot, gen)) = self.heap.peek()?;
            if !self.live(slot, gen) {
                self.heap.pop();
                continue;
            }
            if t > until {
                return None;
            }
            self.heap.pop();
            let tag = self.slots[slot as usize].tag;
            self.release(slot);
            return Some((TimerId((gen as u64) << 32 | slot as u64), t, tag));
        }
    }

    /// Reserves room for `n` armed timers.
    pub fn reserve(&mut self, n: usize) {
        self.slots.reserve(n);
        self.free.reserve(n);
        self.heap.reserve(n);
    }

    /// Capacity of the store's collections (for tests that check memory
    /// does not grow with the number of jobs).
    pub fn capacity(&self) -> usize {
        self.slots.capacity() + self.free.capacity() + self.heap.capacity()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fire_in_due_then_arming_order_and_cancel_is_final() {
        let mut t = Timers::default();
        let a = t.arm(10, 1);
        let _b = t.arm(5, 2);
        let _c = t.arm(10, 3);
        t.cancel(a);
        t.cancel(a);
        assert_eq!(t.next_due(), Some(5));
        let got: Vec<u64> = std::iter::from_fn(|| t.pop_due(10)).map(|(_, _, tag)| tag).collect();
        assert_eq!(got, vec![2, 3]);
        assert_eq!(t.next_due(), None);
    }

    #[test]
    fn slots_are_reused_without_growth() {
        let mut t = Timers::default();
        for i in 0..1000 {
            let id = t.arm(i, 0);
            if i % 2 == 0 {
                t.cancel(id);
            } else {
                assert!(t.pop_due(i).is_some());
            }
            t.next_due();
        }
        assert!(t.capacity() < 16, "{}", t.capacity());
    }
}
