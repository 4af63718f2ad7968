//! Cache geometry for page colouring: how many colours the shared cache has
//! and which colour a physical page frame is.
//!
//! A set-associative cache of `size` bytes with `ways` ways holds
//! `size / ways` bytes per way; the bits of a physical address that choose
//! the set and lie above the page offset are the page's colour, so the
//! number of colours is `size / (ways × page)` and a frame at physical
//! address `a` has colour `(a / page) mod colours` (Liedtke et al.,
//! "OS-controlled cache predictability for real-time systems", RTAS 1997;
//! the EPOS thesis §2.6). A spec may set fewer colours than the geometry
//! gives (EPOS's super colours): colours are then taken modulo that number.
//!
//! The machine's geometry is read from sysfs
//! (`/sys/devices/system/cpu/cpu0/cache/index*/`: the unified cache of the
//! highest level, its `size`, `ways_of_associativity` and
//! `coherency_line_size`); a spec's `platform.cache` describes the cache the
//! tasks' `colors` refer to. A run colours by the spec and reports when the
//! two differ.

use schedlab_model::Cache;
use std::path::Path;

/// The base page size of the frames `/proc/self/pagemap` reports.
pub const FRAME: u64 = 4096;

/// A cache's colouring geometry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    /// Capacity in bytes.
    pub size: u64,
    pub ways: u64,
    /// Line size in bytes.
    pub line: u64,
    /// Colouring page size in bytes.
    pub page: u64,
    /// Colours the geometry gives: size / (ways × page).
    pub geometric: u64,
    /// Colours in force (at most `geometric`).
    pub colours: u64,
    /// Cache level (sysfs), 0 when taken from a spec.
    pub level: u32,
}

impl Geometry {
    /// The geometry a spec's `platform.cache` describes.
    pub fn of_spec(c: &Cache) -> Geometry {
        Geometry {
            size: c.size.0,
            ways: c.ways as u64,
            line: c.line.0,
            page: c.page().0,
            geometric: c.geometric_colors(),
            colours: c.colors().max(1),
            level: 0,
        }
    }

    /// The last-level cache of this machine, from sysfs, or `None` when
    /// sysfs does not describe one.
    pub fn of_machine() -> Option<Geometry> {
        Geometry::of_sysfs(Path::new("/sys/devices/system/cpu/cpu0/cache"))
    }

    /// The unified (or data) cache of the highest level under `dir`
    /// (a `cpuN/cache` directory).
    pub fn of_sysfs(dir: &Path) -> Option<Geometry> {
        let read = |d: &Path, f: &str| std::fs::read_to_string(d.join(f)).ok().map(|s| s.trim().to_string());
        let mut best: Option<Geometry> = None;
        for e in std::fs::read_dir(dir).ok()?.flatten() {
            let d = e.path();
            if !e.file_name().to_string_lossy().starts_with("index") {
                continue;
            }
            let kind = read(&d, "type").unwrap_or_default();
            if kind != "Unified" && kind != "Data" {
                continue;
            }
            let Some(level) = read(&d, "level").and_then(|s| s.parse::<u32>().ok()) else { continue };
            let Some(size) = read(&d, "size").and_then(|s| parse_sysfs_size(&s)) else { continue };
            let Some(ways) = read(&d, "ways_of_associativity").and_then(|s| s.parse::<u64>().ok()) else { continue };
            let line = read(&d, "coherency_line_size").and_then(|s| s.parse::<u64>().ok()).unwrap_or(64);
            if ways == 0 || size == 0 {
                continue;
            }
            let geometric = (size / (ways * FRAME)).max(1);
            let g = Geometry { size, ways, line, page: FRAME, geometric, colours: geometric, level };
            if best.is_none_or(|b| level > b.level) {
                best = Some(g);
            }
        }
        best
    }

    /// The colour of the frame at physical address `phys`.
    pub fn colour_of(&self, phys: u64) -> u32 {
        (((phys / self.page) % self.geometric.max(1)) % self.colours.max(1)) as u32
    }

    /// Same cache shape (size, ways, line) as `other`.
    pub fn same_cache(&self, other: &Geometry) -> bool {
        self.size == other.size && self.ways == other.ways && self.line == other.line
    }

    /// `32 MiB, 16 ways, 64 B lines: 512 colours of 4 KiB`.
    pub fn describe(&self) -> String {
        let level = if self.level > 0 { format!("L{} ", self.level) } else { String::new() };
        format!(
            "{level}{}, {} ways, {} B lines: {} colours of {} KiB",
            schedlab_model::Size(self.size),
            self.ways,
            self.line,
            self.colours,
            self.page / 1024
        )
    }
}

/// A sysfs cache size: `32K`, `1024K`, `32768K`, `8M`, or bytes.
fn parse_sysfs_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let (num, mul) = match s.chars().last()? {
        'K' | 'k' => (&s[..s.len() - 1], 1024),
        'M' | 'm' => (&s[..s.len() - 1], 1024 * 1024),
        'G' | 'g' => (&s[..s.len() - 1], 1024 * 1024 * 1024),
        _ => (s, 1),
    };
    num.parse::<u64>().ok().map(|n| n * mul)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sysfs_sizes_parse() {
        assert_eq!(parse_sysfs_size("32K"), Some(32 * 1024));
        assert_eq!(parse_sysfs_size("32768K"), Some(32 << 20));
        assert_eq!(parse_sysfs_size("8M\n"), Some(8 << 20));
        assert_eq!(parse_sysfs_size("4096"), Some(4096));
        assert_eq!(parse_sysfs_size("x"), None);
    }

    /// The highest unified level is the LLC; its colours are size / (ways × 4 KiB).
    #[test]
    fn the_last_level_cache_is_read_from_a_sysfs_tree() {
        let d = std::env::temp_dir().join(format!("schedlab-geom-{}", std::process::id()));
        let idx = |i: u32, level: u32, kind: &str, size: &str, ways: u32| {
            let p = d.join(format!("index{i}"));
            std::fs::create_dir_all(&p).unwrap();
            for (f, v) in [
                ("level", level.to_string()),
                ("type", kind.into()),
                ("size", size.into()),
                ("ways_of_associativity", ways.to_string()),
                ("coherency_line_size", "64".into()),
            ] {
                std::fs::write(p.join(f), format!("{v}\n")).unwrap();
            }
        };
        idx(0, 1, "Data", "32K", 8);
        idx(1, 1, "Instruction", "32K", 8);
        idx(2, 2, "Unified", "1024K", 8);
        idx(3, 3, "Unified", "32768K", 16);
        let g = Geometry::of_sysfs(&d).unwrap();
        std::fs::remove_dir_all(&d).unwrap();
        assert_eq!((g.level, g.size, g.ways, g.line, g.colours), (3, 32 << 20, 16, 64, 512));
        assert_eq!(g.colour_of(0), 0);
        assert_eq!(g.colour_of(5 * 4096 + 100), 5);
        assert_eq!(g.colour_of(512 * 4096), 0);
    }

    /// Super colours: a spec with fewer colours than the geometry folds them.
    #[test]
    fn a_spec_with_fewer_colours_takes_them_modulo() {
        let c = Cache {
            size: schedlab_model::Size(8 << 20),
            ways: 16,
            line: schedlab_model::Size(64),
            page: None,
            colors: Some(32),
            shared_by: None,
            private: None,
        };
        let g = Geometry::of_spec(&c);
        assert_eq!((g.geometric, g.colours), (128, 32));
        assert_eq!(g.colour_of(33 * 4096), 1);
        assert_eq!(g.colour_of(127 * 4096), 31);
    }
}
