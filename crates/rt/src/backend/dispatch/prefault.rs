//! Touching the dispatcher's reserved buffers at start-up. A `Vec`'s
//! reserved capacity is address space, not memory: the kernel maps each
//! page at its first write, a page fault (a few µs on a VM) that fell
//! inside a decision's window once every few dozen decisions, when a
//! release or an overhead sample was pushed onto a fresh page
//! (docs/performance.md, "Dispatcher decision time: where the tail goes").
//! Writing one element per page of the spare capacity before the run maps
//! it then; the vectors' contents and lengths do not change.

use std::mem::{size_of, MaybeUninit};

/// The page size assumed for the stride (a smaller real page would leave
/// pages untouched, a larger one only touches some twice).
const PAGE: usize = 4096;

/// Maps every page of `v`'s spare capacity (its length is unchanged).
pub fn spare<T>(v: &mut Vec<T>) {
    if size_of::<T>() == 0 {
        // No memory (and a capacity of `usize::MAX`).
        return;
    }
    let step = (PAGE / size_of::<T>()).max(1);
    for slot in v.spare_capacity_mut().iter_mut().step_by(step) {
        *slot = MaybeUninit::zeroed();
    }
    // The last page, which the stride may have stepped over.
    if let Some(slot) = v.spare_capacity_mut().last_mut() {
        *slot = MaybeUninit::zeroed();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn touching_the_spare_capacity_keeps_the_contents_and_the_capacity() {
        let mut v: Vec<(u64, u8)> = Vec::with_capacity(10_000);
        v.extend([(1, 2), (3, 4)]);
        let cap = v.capacity();
        spare(&mut v);
        assert_eq!(v, vec![(1, 2), (3, 4)]);
        assert_eq!(v.capacity(), cap);
        let mut z: Vec<()> = Vec::with_capacity(5);
        spare(&mut z);
        assert!(z.is_empty());
    }
}
