//! PD^2's subtask priority as a heap key: smaller is more urgent.
//!
//! The rules, in order (Calandrino 2009 §2.2): the earlier subtask deadline
//! wins; then successor bit b = 1 beats b = 0; then the larger group
//! deadline wins; then the lower task index (the heap breaks equal keys by
//! id, which is the task index).

use super::subtasks::{group_deadline, Entry};
use super::window::NEVER;

/// deadline << 64 | tie, where `tie` packs 1 − b in its top bit and the
/// complement of the group deadline (capped at 2^63 − 1) below it: one
/// integer comparison applies the deadline rule, the b rule and then the
/// group-deadline rule.
pub(crate) type Key = u128;

const LOW63: u64 = (1 << 63) - 1;

/// The key of a subtask (its block's entry, moved by `shift` quanta).
#[inline]
pub(crate) fn key(x: Entry, shift: u64) -> Key {
    let g = match group_deadline(x, shift) {
        NEVER => LOW63,
        g => g.min(LOW63),
    };
    let tie = (!x.b as u64) << 63 | (LOW63 - g);
    (x.d.saturating_add(shift) as u128) << 64 | tie as u128
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pd2::window::Weight;

    /// The key of subtask i of a task of weight w shifted by theta.
    fn key(w: Weight, i: u64, theta: u64) -> Key {
        let (k, j) = ((i - 1) / w.e, (i - 1) % w.e + 1);
        super::key(Entry::of(w, j), k * w.p + theta)
    }

    #[test]
    fn deadline_then_successor_bit_then_larger_group_deadline() {
        let six = Weight::new(6, 10); // d 2, 4, 5; b 1, 1, 0; D 3, 5, 5
        let light = Weight::new(1, 4); // windows [0,4), [4,8): b = 0, D = 0
                                       // 1. The earlier deadline wins, whatever the rest.
        assert!(key(six, 1, 0) < key(six, 2, 0));
        assert!(key(light, 1, 0) < key(six, 3, 0)); // d 4 < d 5
                                                    // 2. Same deadline 4: six's T_2 (b = 1) beats light's T_1 (b = 0).
        assert_eq!((six.deadline(2), light.deadline(1)), (4, 4));
        assert!(key(six, 2, 0) < key(light, 1, 0));
        // 3. Same deadline 2 and b = 1: the larger group deadline wins.
        let nine = Weight::new(9, 10); // T_1: d 2, b 1, D 10
        assert_eq!((nine.deadline(1), nine.b(1), nine.group_deadline(1)), (2, true, 10));
        assert!(key(nine, 1, 0) < key(six, 1, 0));
        // A heavy task (D > 0) beats a light one (D = 0) at the same d and b.
        let (three, two) = (Weight::new(3, 4), Weight::new(2, 5));
        assert_eq!((three.deadline(2), three.b(2), three.group_deadline(2)), (3, true, 4));
        assert_eq!((two.deadline(1), two.b(1), two.group_deadline(1)), (3, true, 0));
        assert!(key(three, 2, 0) < key(two, 1, 0));
        // A weight-1 task (b = 0, D = ∞) beats a finite group deadline at the
        // same d and b = 0, and loses to b = 1.
        let full = Weight::new(3, 3);
        assert_eq!(key(full, 5, 0) >> 64, 5);
        assert!(key(full, 5, 0) < key(six, 3, 0));
        assert!(key(six, 2, 1) < key(full, 5, 0));
        // 4. Everything equal: equal keys (the heap then orders by task).
        let five = Weight::new(5, 10); // T_2: d 4, b 0, D 4
        assert_eq!(key(six, 3, 0), key(five, 2, 1));
        // The shift θ moves d and D.
        assert_eq!(key(six, 1, 7), 9 << 64 | (LOW63 - 10) as u128);
    }
}
