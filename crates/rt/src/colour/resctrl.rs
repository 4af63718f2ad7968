//! Cache allocation (Intel RDT CAT / AMD PQoS L3 allocation) through the
//! resctrl file system: whether this machine offers it, and why not.
//!
//! A run reports what it found. Programming it (one resctrl group per
//! coloured task with a way mask, journalled and removed afterwards) is not
//! implemented: no machine this project is tested on exposes resctrl, and
//! an untested path that writes cache masks would be worse than none.

use std::path::Path;

/// What resctrl offers here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resctrl {
    /// Mounted, with L3 allocation: the capacity bit mask length.
    L3 { cbm_bits: u32 },
    /// Not usable, and why.
    Absent(String),
}

impl Resctrl {
    pub fn detect() -> Resctrl {
        Resctrl::detect_at(Path::new("/sys/fs/resctrl"))
    }

    pub fn detect_at(root: &Path) -> Resctrl {
        if !root.is_dir() {
            let cpu = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
            let flag = cpu.split_whitespace().any(|f| f == "cat_l3" || f == "rdt_a");
            return Resctrl::Absent(if flag {
                format!(
                    "{} is not mounted (the CPU has cat_l3/rdt_a: `mount -t resctrl resctrl {}`)",
                    root.display(),
                    root.display()
                )
            } else {
                format!(
                    "{} does not exist and the CPU shows no cat_l3/rdt_a flag: no cache allocation on this machine",
                    root.display()
                )
            });
        }
        let cbm = root.join("info/L3/cbm_mask");
        match std::fs::read_to_string(&cbm) {
            Ok(m) => match u64::from_str_radix(m.trim(), 16) {
                Ok(v) => Resctrl::L3 { cbm_bits: v.count_ones() },
                Err(_) => Resctrl::Absent(format!("{} holds `{}`, not a hex mask", cbm.display(), m.trim())),
            },
            Err(_) => Resctrl::Absent(format!(
                "{} is mounted without L3 allocation ({} missing)",
                root.display(),
                cbm.display()
            )),
        }
    }

    /// One line for the run's report.
    pub fn describe(&self) -> String {
        match self {
            Resctrl::L3 { cbm_bits } => format!(
                "resctrl offers L3 cache allocation ({cbm_bits} ways); schedlab does not program it yet, the colours alone partition the cache"
            ),
            Resctrl::Absent(why) => format!("cache allocation (resctrl): {why}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mounted_resctrl_reports_its_ways_and_a_missing_one_says_why() {
        let d = std::env::temp_dir().join(format!("schedlab-resctrl-{}", std::process::id()));
        assert!(
            matches!(Resctrl::detect_at(&d), Resctrl::Absent(w) if w.contains("does not exist") || w.contains("not mounted"))
        );
        std::fs::create_dir_all(d.join("info/L3")).unwrap();
        assert!(matches!(Resctrl::detect_at(&d), Resctrl::Absent(w) if w.contains("without L3")));
        std::fs::write(d.join("info/L3/cbm_mask"), "7ff\n").unwrap();
        assert_eq!(Resctrl::detect_at(&d), Resctrl::L3 { cbm_bits: 11 });
        std::fs::remove_dir_all(&d).unwrap();
    }
}
