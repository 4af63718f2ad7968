//! The order in which a domain gives its CPUs work: idle CPUs first (lowest
//! index first), then linked CPUs by rank ([`crate::order::Order::rank`]:
//! from the lowest-priority linked job up; ties by index). The domain asks
//! only for the first.
//!
//! Two designs answering alike. [`FewCpus`], for domains of up to
//! [`FLAT_UP_TO`] CPUs: a bitmask of the idle CPUs (the first is its lowest
//! set bit) and a [`FlatMin`] over the linked ones, so a CPU going idle or
//! taking a job costs a bit flip and a store, and a rescan of the few linked
//! CPUs only when the first of them leaves or its rank grows. Above that, an
//! [`IndexedHeap`] over all CPUs, idle ones with the idle rank, which every
//! order puts below every linked rank.

use crate::flat_min::FlatMin;
use crate::heap::IndexedHeap;

/// The most CPUs a domain may have for [`FewCpus`].
pub(crate) const FLAT_UP_TO: usize = 8;
const _: () = assert!(FLAT_UP_TO < 64);

pub(crate) trait CpuOrder<R: Ord + Copy>: Send {
    /// `k` CPUs, all idle; `idle_rank` is the rank of an idle CPU, below
    /// every linked CPU's.
    fn new(k: usize, idle_rank: R) -> Self;
    /// The CPU to give work to first.
    fn first(&self) -> Option<u32>;
    /// CPU `c` goes idle.
    fn set_idle(&mut self, c: u32, idle_rank: R);
    /// CPU `c` is linked, with this rank (above the idle rank).
    fn set_linked(&mut self, c: u32, rank: R);
}

/// Up to [`FLAT_UP_TO`] CPUs: the idle ones in a bitmask, the linked ones
/// in a flat minimum by rank.
pub(crate) struct FewCpus<R: Ord + Copy> {
    /// Bit c: local CPU c is idle.
    idle: u64,
    /// The linked CPUs by rank.
    linked: FlatMin<R>,
}

impl<R: Ord + Copy + Send> CpuOrder<R> for FewCpus<R> {
    fn new(k: usize, idle_rank: R) -> Self {
        assert!(k <= FLAT_UP_TO, "at most {FLAT_UP_TO} CPUs in a flat CPU order");
        FewCpus { idle: (1u64 << k) - 1, linked: FlatMin::new(k, idle_rank) }
    }
    #[inline(always)]
    fn first(&self) -> Option<u32> {
        if self.idle != 0 {
            Some(self.idle.trailing_zeros())
        } else {
            self.linked.peek_id()
        }
    }
    #[inline(always)]
    fn set_idle(&mut self, c: u32, _idle_rank: R) {
        self.idle |= 1 << c;
        self.linked.remove(c);
    }
    #[inline(always)]
    fn set_linked(&mut self, c: u32, rank: R) {
        self.idle &= !(1 << c);
        self.linked.set(c, rank);
    }
}

impl<R: Ord + Copy + Send> CpuOrder<R> for IndexedHeap<R> {
    fn new(k: usize, idle_rank: R) -> Self {
        let mut heap = IndexedHeap::new(k);
        for c in 0..k as u32 {
            heap.push(c, idle_rank);
        }
        heap
    }
    #[inline]
    fn first(&self) -> Option<u32> {
        self.peek().map(|(c, _)| c)
    }
    #[inline]
    fn set_idle(&mut self, c: u32, idle_rank: R) {
        self.set(c, idle_rank);
    }
    #[inline]
    fn set_linked(&mut self, c: u32, rank: R) {
        self.set(c, rank);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both designs name the same first CPU after every step of random
    /// sequences of CPUs going idle and taking jobs of equal and distinct
    /// ranks (rank 0 is idle), and that CPU is the least (rank, index).
    #[test]
    fn both_designs_name_the_same_first_cpu() {
        for k in [1usize, 2, 3, 4, 5, 8] {
            let mut few: FewCpus<u32> = CpuOrder::new(k, 0);
            let mut many: IndexedHeap<u32> = CpuOrder::new(k, 0);
            let mut ranks = vec![0u32; k];
            let mut rng = schedlab_model::rng::Rng::new(99 ^ k as u64);
            for _ in 0..20_000 {
                let c = rng.below(k as u64) as u32;
                let rank = rng.below(4) as u32;
                if rank == 0 {
                    few.set_idle(c, 0);
                    many.set_idle(c, 0);
                } else {
                    few.set_linked(c, rank);
                    many.set_linked(c, rank);
                }
                ranks[c as usize] = rank;
                let expected = (0..k as u32).min_by_key(|&c| (ranks[c as usize], c));
                assert_eq!(few.first(), expected);
                assert_eq!(CpuOrder::first(&many), expected);
            }
        }
    }
}
