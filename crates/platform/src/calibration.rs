//! The model's calibration parameters, with defaults from the EPOS thesis'
//! measurements where it gives them (notes `seed-000-epos.md`; sources per
//! field, equations in `docs/platform-model.md`).

/// Cycle costs and access intensity the model turns into slowdowns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Calibration {
    /// Clock (GHz): cycles per ns. Default 3.4, the i7-2600 of Table 12 (§5).
    pub clock_ghz: f64,
    /// Cycles of a load that misses the shared cache. Default 200 (Eq. 5.1, §3.5).
    pub miss_cycles: f64,
    /// Cycles of a load that hits the shared cache (what a line reloaded
    /// into a private level costs). Default 31 (Eq. 5.2, §3.5).
    pub hit_cycles: f64,
    /// Cycles of a load that hits a line modified in another core's cache
    /// (HITM). Default 60 (Eq. 5.2, §3.5).
    pub hitm_cycles: f64,
    /// Shared-cache references per ns of a job's demand. Default 0.11: a
    /// body that does nothing but shared-cache hits (the thesis' random
    /// array walks, Fig. 71) makes one per `hit_cycles` / `clock_ghz` =
    /// 9.1 ns. The thesis gives no figure; this is the model's own.
    pub refs_per_ns: f64,
    /// Instructions retired per ns of demand. Default 3.4: one instruction
    /// per cycle at 3.4 GHz, the thesis' own assumption (L1944, §1.8).
    pub instructions_per_ns: f64,
    /// Fraction of a sharer's writes that a reader of the same data group on
    /// another CPU meets as HITM loads. Default 1 (every write a reader can
    /// see); the thesis gives no figure.
    pub coherence: f64,
}

impl Default for Calibration {
    fn default() -> Calibration {
        Calibration {
            clock_ghz: 3.4,
            miss_cycles: 200.0,
            hit_cycles: 31.0,
            hitm_cycles: 60.0,
            refs_per_ns: 0.11,
            instructions_per_ns: 3.4,
            coherence: 1.0,
        }
    }
}

impl Calibration {
    /// ns of one shared-cache miss.
    pub fn miss_ns(&self) -> f64 {
        self.miss_cycles / self.clock_ghz
    }
    /// ns of one shared-cache hit.
    pub fn hit_ns(&self) -> f64 {
        self.hit_cycles / self.clock_ghz
    }
    /// ns of one HITM load.
    pub fn hitm_ns(&self) -> f64 {
        self.hitm_cycles / self.clock_ghz
    }
}
