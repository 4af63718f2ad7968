//! PREM task sets as in the memory-centric scheduling evaluation (Rivas et
//! al., ECRTS 2019, §6; seed notes 002 §A4): one task per CPU, the task's
//! index is its CPU and its memory priority (τ0 the highest), each task's
//! data (its `--wss`, B) split into Sections that fit its cache partition
//! (BA), every Section a prefetch P, an execution E and a write-back W.
//!
//! - Sections: k = ⌈B / S⌉ with S = min(section, partition) for `smp`, and
//!   half of it for `amp` (the E phase works on one of two sub-partitions:
//!   "the phases operate on half the data size" [S2:L310]); the bytes are
//!   shared evenly, the first B mod k Sections one byte more. The paper's
//!   4 ways of a 1 MiB 16-way cache are 256 KiB, and its Sections about
//!   200 KB (1 Section at 200 KB, 40 at 7.8 MB [S2:L380]); the default
//!   Section is 200 KiB, which gives those counts with KiB and MiB.
//! - P = bytes / bandwidth, W = write × bytes / bandwidth, E = bytes /
//!   compute, each rounded up to the WCET granularity.
//! - Periods follow from the utilisations of `--utils`/`--util`: T = C/u
//!   rounded up to the period granularity, where C is the job's total.

use schedlab_model::units::{Duration, Size};
use std::fmt;
use std::str::FromStr;

/// Who runs the memory phases (the spec's `memory_mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PremMode {
    Smp,
    Amp,
}

impl PremMode {
    pub fn name(self) -> &'static str {
        match self {
            PremMode::Smp => "smp",
            PremMode::Amp => "amp",
        }
    }
}

/// A rate in bytes per second, written `SIZE/DURATION` (`1GiB/s`, `200KiB/1ms`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rate {
    pub bytes: Size,
    pub per: Duration,
}

impl Rate {
    /// The time in ns to move `bytes` at this rate, rounded up.
    pub fn time(self, bytes: u64) -> u64 {
        let t = (bytes as u128 * self.per.0 as u128).div_ceil(self.bytes.0.max(1) as u128);
        u64::try_from(t).unwrap_or(u64::MAX)
    }
}

impl FromStr for Rate {
    type Err = String;
    fn from_str(s: &str) -> Result<Rate, String> {
        let (a, b) = s
            .split_once('/')
            .ok_or_else(|| format!("`{s}` is not a rate; write SIZE/DURATION, e.g. `1GiB/s` or `200KiB/1ms`"))?;
        let bytes: Size = a.trim().parse().map_err(|e: schedlab_model::units::QuantityError| e.0)?;
        let b = b.trim();
        let per: Duration = if b.chars().next().is_some_and(|c| c.is_ascii_digit()) {
            b.parse().map_err(|e: schedlab_model::units::QuantityError| e.0)?
        } else {
            format!("1{b}").parse().map_err(|e: schedlab_model::units::QuantityError| e.0)?
        };
        if bytes.0 == 0 || per.0 == 0 {
            return Err(format!("the rate `{s}` must be more than 0 bytes per more than 0 time"));
        }
        Ok(Rate { bytes, per })
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.bytes, self.per)
    }
}

/// The PREM options of `schedlab gen --prem`: `key=value` pairs separated
/// by commas, every key optional (`--prem default` takes them all).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PremSpec {
    pub mode: PremMode,
    /// BA, the task's cache partition.
    pub partition: Size,
    /// The largest Section.
    pub section: Size,
    /// The rate of memory phases.
    pub bandwidth: Rate,
    /// The rate at which an E phase processes its Section's data.
    pub compute: Rate,
    /// The fraction of a Section's bytes its W writes back, in [0, 1].
    pub write: f64,
}

impl Default for PremSpec {
    fn default() -> PremSpec {
        PremSpec {
            mode: PremMode::Smp,
            partition: Size(256 * 1024),
            section: Size(200 * 1024),
            bandwidth: Rate { bytes: Size(1 << 30), per: Duration::from_ms(1000) },
            compute: Rate { bytes: Size(100 << 20), per: Duration::from_ms(1000) },
            write: 1.0,
        }
    }
}

pub const KEYS: &[&str] = &["mode", "partition", "section", "bandwidth", "compute", "write"];

impl FromStr for PremSpec {
    type Err = String;
    fn from_str(s: &str) -> Result<PremSpec, String> {
        let mut p = PremSpec::default();
        let s = s.trim();
        if s.is_empty() || s == "default" {
            return Ok(p);
        }
        let size = |k: &str, v: &str| v.parse::<Size>().map_err(|e| format!("`{k}`: {}", e.0));
        for part in s.split(',') {
            let (k, v) = part.split_once('=').ok_or_else(|| {
                format!("`{part}` is not `key=value`; the keys are {} (e.g. `mode=amp,section=200KB`)", KEYS.join(", "))
            })?;
            let (k, v) = (k.trim(), v.trim());
            match k {
                "mode" => {
                    p.mode = match v {
                        "smp" => PremMode::Smp,
                        "amp" => PremMode::Amp,
                        _ => return Err(format!("`mode`: `{v}` is not a memory mode; use `smp` or `amp`")),
                    }
                }
                "partition" => p.partition = size(k, v)?,
                "section" => p.section = size(k, v)?,
                "bandwidth" => p.bandwidth = v.parse().map_err(|e| format!("`bandwidth`: {e}"))?,
                "compute" => p.compute = v.parse().map_err(|e| format!("`compute`: {e}"))?,
                "write" => {
                    p.write = v
                        .parse::<f64>()
                        .ok()
                        .filter(|w| (0.0..=1.0).contains(w))
                        .ok_or_else(|| format!("`write`: `{v}` is not a fraction between 0 and 1"))?
                }
                _ => {
                    let hint = schedlab_model::source::did_you_mean(k, KEYS)
                        .map(|h| format!("did you mean `{h}`? "))
                        .unwrap_or_default();
                    return Err(format!("unknown PREM key `{k}`; {hint}the keys are {}", KEYS.join(", ")));
                }
            }
        }
        if p.partition.0 < 2 || p.section.0 < 2 {
            return Err("`partition` and `section` must be at least 2 bytes (A-MP halves them)".into());
        }
        Ok(p)
    }
}

impl fmt::Display for PremSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "mode={},partition={},section={},bandwidth={},compute={},write={}",
            self.mode.name(),
            self.partition,
            self.section,
            self.bandwidth,
            self.compute,
            self.write
        )
    }
}

/// One Section's phases in ns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Phases {
    pub bytes: u64,
    pub prefetch: u64,
    pub exec: u64,
    pub writeback: u64,
}

impl PremSpec {
    /// The largest Section in bytes for this mode.
    pub fn section_bytes(&self) -> u64 {
        let s = self.section.0.min(self.partition.0);
        match self.mode {
            PremMode::Smp => s,
            PremMode::Amp => s / 2,
        }
    }

    /// The Sections of `data` bytes, with each phase rounded up to `g` ns.
    pub fn sections(&self, data: u64, g: u64) -> Vec<Phases> {
        let data = data.max(1);
        let k = data.div_ceil(self.section_bytes().max(1));
        let up = |t: u64| t.div_ceil(g.max(1)).max(1).saturating_mul(g.max(1));
        (0..k)
            .map(|j| {
                let bytes = data / k + u64::from(j < data % k);
                let written = (bytes as f64 * self.write).round() as u64;
                Phases {
                    bytes,
                    prefetch: up(self.bandwidth.time(bytes)),
                    exec: up(self.compute.time(bytes)),
                    writeback: if written == 0 { 0 } else { up(self.bandwidth.time(written)) },
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_papers_sizes_give_its_section_counts() {
        let p = PremSpec::default();
        // 200 KiB: 1 Section; 7.8 MiB: 40 Sections of about 200 KiB [S2:L380].
        assert_eq!(p.sections(200 << 10, 1).len(), 1);
        let mib78 = 78 * (1 << 20) / 10;
        let s = p.sections(mib78, 1);
        assert_eq!(s.len(), 40);
        assert_eq!(s.iter().map(|x| x.bytes).sum::<u64>(), mib78);
        // 8178892 B / 40 = 204472.3: twelve Sections of one byte more.
        assert_eq!(s.iter().filter(|x| x.bytes == 204_473).count(), 12);
        assert!(s.iter().all(|x| x.bytes == 204_472 || x.bytes == 204_473));
        // A-MP: half the Section, twice the Sections.
        let a = PremSpec { mode: PremMode::Amp, ..p };
        assert_eq!(a.sections(200 << 10, 1).len(), 2);
        // A partition smaller than the Section bounds it: ⌈B/BA⌉.
        let small = PremSpec { partition: Size(64 * 1024), ..p };
        assert_eq!(small.sections(200 << 10, 1).len(), 4);
    }

    #[test]
    fn phases_follow_the_rates() {
        // 1 MiB at 1 GiB/s is 1/1024 s = 976562.5 ns, rounded up to 976563;
        // at 100 MiB/s ten and a quarter times more.
        let p: PremSpec = "section=1MiB,partition=1MiB,bandwidth=1GiB/s,compute=100MiB/s,write=0.5".parse().unwrap();
        let s = p.sections(1 << 20, 1);
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].prefetch, 976_563);
        assert_eq!(s[0].exec, 10_000_000);
        assert_eq!(s[0].writeback, 488_282);
        // Rounded up to the granularity.
        assert_eq!(p.sections(1 << 20, 1000)[0].prefetch, 977_000);
        // Nothing written, no W.
        let r: PremSpec = "write=0".parse().unwrap();
        assert_eq!(r.sections(1000, 1)[0].writeback, 0);
    }

    #[test]
    fn the_text_form_reads_back_and_bad_keys_are_named() {
        let p: PremSpec = "mode=amp,section=100KiB,bandwidth=2GiB/1s".parse().unwrap();
        assert_eq!(p.mode, PremMode::Amp);
        assert_eq!(p.to_string().parse::<PremSpec>().unwrap(), p);
        assert_eq!("default".parse::<PremSpec>().unwrap(), PremSpec::default());
        let e = "bandwith=1GiB/s".parse::<PremSpec>().unwrap_err();
        assert!(e.contains("did you mean `bandwidth`"), "{e}");
        assert!("write=2".parse::<PremSpec>().unwrap_err().contains("`write`"));
        assert!("mode=fast".parse::<PremSpec>().unwrap_err().contains("smp"));
        assert!("bandwidth=1GiB".parse::<PremSpec>().unwrap_err().contains("SIZE/DURATION"));
    }
}
