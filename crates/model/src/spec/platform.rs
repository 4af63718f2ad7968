//! The platform: CPUs, optional clusters, optional shared cache geometry
//! (which CPUs share it, an optional private level), optional memory bandwidth.

use crate::units::{Bandwidth, Size};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The hardware the tasks run on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Platform {
    /// Number of identical CPUs, numbered 0 to cpus−1.
    pub cpus: u32,
    /// Optional clusters for clustered policies (C-EDF, C-FP): lists of CPU
    /// numbers that together hold every CPU exactly once, e.g. `[[0, 1], [2, 3]]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clusters: Option<Vec<Vec<u32>>>,
    /// Optional shared last-level cache, for cache-aware models and colours.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<Cache>,
    /// Optional main memory, for the platform model's bandwidth contention.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<Memory>,
}

/// Main memory as the platform model sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Memory {
    /// Sustained bandwidth shared by every CPU, e.g. `16GiB/s`; cache
    /// misses beyond it slow every missing job down. Default: unlimited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bandwidth: Option<Bandwidth>,
}

/// Geometry of a shared, set-associative cache.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Cache {
    /// Total capacity, e.g. `8MiB`.
    pub size: Size,
    /// Associativity (number of ways), e.g. `16`.
    pub ways: u32,
    /// Line size, e.g. `64B`.
    pub line: Size,
    /// Page size used for page colouring; default `4KiB`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<Size>,
    /// Number of page colours; default size / (ways × page). May be set lower
    /// (colours are then taken modulo this number, as EPOS's super colours).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub colors: Option<u32>,
    /// Which CPUs share one instance of this cache: disjoint lists that hold
    /// every CPU once, e.g. `[[0, 1], [2, 3]]` for two caches of this
    /// geometry each shared by two CPUs. Default: one cache shared by all CPUs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_by: Option<Vec<Vec<u32>>>,
    /// Size of each CPU's private cache level below this one (its L2), e.g.
    /// `256KiB`: a job that migrates reloads it. Default: none modelled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub private: Option<Size>,
}

/// Default page size for colouring.
pub const DEFAULT_PAGE: Size = Size(4096);

impl Cache {
    pub fn page(&self) -> Size {
        self.page.unwrap_or(DEFAULT_PAGE)
    }
    /// Colours the geometry supports: size / (ways × page), at least 1.
    pub fn geometric_colors(&self) -> u64 {
        let way_bytes = self.ways as u64 * self.page().0;
        if way_bytes == 0 {
            return 0;
        }
        (self.size.0 / way_bytes).max(1)
    }
    /// The number of colours in force.
    pub fn colors(&self) -> u64 {
        self.colors.map(u64::from).unwrap_or_else(|| self.geometric_colors())
    }
    /// The CPU groups that each share one instance of the cache (`shared_by`,
    /// or one group of all `cpus`).
    pub fn instances(&self, cpus: u32) -> Vec<Vec<u32>> {
        self.shared_by.clone().unwrap_or_else(|| vec![(0..cpus).collect()])
    }
}

impl Platform {
    /// The clusters, or one cluster per CPU when none are given.
    pub fn clusters_or_singletons(&self) -> Vec<Vec<u32>> {
        self.clusters.clone().unwrap_or_else(|| (0..self.cpus).map(|c| vec![c]).collect())
    }
}
