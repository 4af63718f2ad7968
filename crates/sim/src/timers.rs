//! Policy timers: a slab of slots with generations, so that arming and
//! cancelling allocate nothing in steady state and a cancelled timer's queue
//! entry is recognised as stale. A `TimerId` is `generation << 32 | slot`.

use schedlab_policy::TimerId;

#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    gen: u32,
    armed: bool,
    tag: u64,
}

#[derive(Debug, Default)]
pub(crate) struct Timers {
    slots: Vec<Slot>,
    free: Vec<u32>,
    /// Arming order, the tie-break of timers due at the same instant.
    pub next_seq: u64,
}

impl Timers {
    /// Takes a slot; returns (slot, generation, id).
    pub fn arm(&mut self, tag: u64) -> (u32, u32, TimerId) {
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
        (slot, s.gen, TimerId((s.gen as u64) << 32 | slot as u64))
    }
    fn release(&mut self, slot: u32) {
        let s = &mut self.slots[slot as usize];
        s.armed = false;
        s.gen = s.gen.wrapping_add(1);
        self.free.push(slot);
    }
    pub fn cancel(&mut self, id: TimerId) {
        let (slot, gen) = ((id.0 & 0xFFFF_FFFF) as u32, (id.0 >> 32) as u32);
        if let Some(s) = self.slots.get(slot as usize) {
            if s.armed && s.gen == gen {
                self.release(slot);
            }
        }
    }
    /// A queue entry for (slot, gen) fires: its id and tag, or `None` if stale.
    pub fn fire(&mut self, slot: u32, gen: u32) -> Option<(TimerId, u64)> {
        let s = *self.slots.get(slot as usize)?;
        if !s.armed || s.gen != gen {
            return None;
        }
        self.release(slot);
        Some((TimerId((gen as u64) << 32 | slot as u64), s.tag))
    }
    pub fn capacity(&self) -> usize {
        self.slots.capacity() + self.free.capacity()
    }
}
