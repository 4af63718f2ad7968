//! Page colouring on a stock Linux kernel: job bodies whose working set
//! lies in frames of their task's cache colours (`colors` in the spec), and
//! an honest report of whether that partitions anything on this machine.
//!
//! - [`geometry`]: colours of a cache (the spec's `platform.cache`, and this
//!   machine's last-level cache from sysfs) and the colour of a frame;
//! - [`pagemap`]: physical frames from `/proc/self/pagemap` (root);
//! - [`allocator`]: the colour-aware allocator (a pool, its frames read,
//!   pages of the wanted colours moved into one range, locked, verified);
//! - [`virt`]: virtual-machine detection (guest frames do not colour the
//!   host's cache);
//! - [`resctrl`]: cache allocation through resctrl, where the machine has
//!   it: one group per colour group with a disjoint L3 way mask.
//!
//! [`Colouring`] is what a run found and did; it is printed and recorded in
//! the trace as a `page-colouring` note at time 0.

pub mod allocator;
pub mod geometry;
pub mod pagemap;
pub mod resctrl;
pub mod virt;

pub use allocator::{ColourError, ColouredBuffer, Verification};
pub use geometry::Geometry;
pub use resctrl::Resctrl;
pub use virt::Virtualisation;

/// A task whose working set was coloured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColouredTask {
    pub task: usize,
    pub name: String,
    /// The colours asked for, as the spec writes them.
    pub wanted: String,
    pub verification: Verification,
    /// Pages of other colours taken from the kernel and given back.
    pub scanned: usize,
}

/// What a run's page colouring found and did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Colouring {
    /// The geometry the colours refer to (the spec's `platform.cache`).
    pub geometry: Geometry,
    /// This machine's last-level cache, when sysfs describes it.
    pub machine: Option<Geometry>,
    pub virt: Virtualisation,
    pub resctrl: Resctrl,
    /// The resctrl groups and masks the run sets (where resctrl offers L3
    /// allocation), programmed when the workers start.
    pub allocation: Option<resctrl::Allocation>,
    pub tasks: Vec<ColouredTask>,
    /// Tasks with colours whose workload allocates nothing to colour.
    pub uncoloured: Vec<String>,
}

impl Colouring {
    /// Looks at the machine for a run that colours by `geometry`.
    pub fn detect(geometry: Geometry) -> Colouring {
        Colouring {
            geometry,
            machine: Geometry::of_machine(),
            virt: Virtualisation::detect(),
            resctrl: Resctrl::detect(),
            allocation: None,
            tasks: Vec::new(),
            uncoloured: Vec::new(),
        }
    }

    /// Whether the colours partition this machine's cache: a working set
    /// coloured, every coloured page verified, host frames (no VM), and the
    /// spec's cache is the machine's.
    pub fn effective(&self) -> bool {
        !self.tasks.is_empty()
            && !self.virt.is_vm()
            && self.machine.is_some_and(|m| m.same_cache(&self.geometry))
            && self.tasks.iter().all(|t| t.verification.wrong.is_empty())
    }

    /// Why the colours do not partition this machine's cache (empty when they do).
    pub fn caveats(&self) -> Vec<String> {
        let mut v = Vec::new();
        if self.tasks.is_empty() {
            v.push("no task's working set was coloured (colours apply to memwalk workloads)".into());
        }
        if self.virt.is_vm() {
            v.push(format!(
                "this is a virtual machine ({}): the frames are guest-physical, the host maps them to frames of its choosing, so the colours do not partition the host's cache",
                self.virt.evidence.join("; ")
            ));
        }
        match &self.machine {
            None => v.push("sysfs describes no cache of this machine: the colours cannot be checked against it".into()),
            Some(m) if !m.same_cache(&self.geometry) => v.push(format!(
                "platform.cache ({}) is not this machine's last-level cache ({}): the colours follow the spec, not this cache",
                self.geometry.describe(),
                m.describe()
            )),
            Some(_) => {}
        }
        for t in self.tasks.iter().filter(|t| !t.verification.wrong.is_empty()) {
            v.push(format!("task {}: {} page(s) not of its colours", t.name, t.verification.wrong.len()));
        }
        v
    }

    /// The report's lines.
    pub fn lines(&self) -> Vec<String> {
        let mut v = vec![format!("page colouring by {}", self.geometry.describe())];
        for t in &self.tasks {
            v.push(format!(
                "task {}: {} pages in colours {} (verified: {} of {} pages of the wanted colours, frames in {} colours; {} other pages given back)",
                t.name,
                t.verification.pages,
                t.wanted,
                t.verification.pages - t.verification.wrong.len(),
                t.verification.pages,
                t.verification.colours.len(),
                t.scanned
            ));
        }
        for n in &self.uncoloured {
            v.push(format!(
                "task {n}: has colours but its workload allocates no working set (use memwalk); not coloured"
            ));
        }
        if self.effective() {
            v.push("the colours partition this machine's cache".into());
        } else {
            v.extend(self.caveats().into_iter().map(|c| format!("NOT EFFECTIVE: {c}")));
        }
        match &self.allocation {
            Some(a) => v.extend(a.lines()),
            None => v.push(self.resctrl.describe()),
        }
        v
    }

    /// The trace's record of it (the data of a `page-colouring` note).
    pub fn to_json(&self) -> serde_json::Value {
        let g = |g: &Geometry| serde_json::json!({"level": g.level, "size": g.size, "ways": g.ways, "line": g.line, "page": g.page, "colours": g.colours});
        serde_json::json!({
            "geometry": g(&self.geometry),
            "machine_cache": self.machine.as_ref().map(g),
            "virtual_machine": self.virt.is_vm(),
            "virtualisation_evidence": self.virt.evidence,
            "effective": self.effective(),
            "caveats": self.caveats(),
            "resctrl": self.resctrl.describe(),
            "cache_allocation": self.allocation.as_ref().map(|a| a.to_json()),
            "tasks": self.tasks.iter().map(|t| serde_json::json!({
                "task": t.task,
                "colours": t.wanted,
                "pages": t.verification.pages,
                "wrong_pages": t.verification.wrong.len(),
                "frame_colours": t.verification.colours,
            })).collect::<Vec<_>>(),
            "uncoloured": self.uncoloured,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn colouring(vm: bool, machine: Option<Geometry>, wrong: usize, tasks: bool) -> Colouring {
        let g = Geometry { size: 8 << 20, ways: 16, line: 64, page: 4096, geometric: 128, colours: 128, level: 0 };
        Colouring {
            geometry: g,
            machine,
            virt: Virtualisation { evidence: if vm { vec!["test".into()] } else { vec![] } },
            resctrl: Resctrl::Absent("test".into()),
            allocation: None,
            tasks: if tasks {
                vec![ColouredTask {
                    task: 0,
                    name: "w".into(),
                    wanted: "[0-3]".into(),
                    verification: Verification { pages: 4, wrong: vec![(0, 9); wrong], colours: vec![0, 1] },
                    scanned: 0,
                }]
            } else {
                vec![]
            },
            uncoloured: vec![],
        }
    }

    /// The report names each resctrl group with its tasks and mask when
    /// the run allocates, and says why not otherwise.
    #[test]
    fn the_report_gives_the_cache_allocation_or_why_there_is_none() {
        let mut c = colouring(false, None, 0, true);
        assert!(c.lines().last().unwrap().contains("cache allocation (resctrl): test"));
        assert!(c.to_json()["cache_allocation"].is_null());
        c.allocation = Some(resctrl::Allocation {
            root: "/sys/fs/resctrl".into(),
            domains: vec!["0".into(), "1".into()],
            total_colours: 128,
            groups: vec![resctrl::CatGroup {
                name: "schedlab-5-g0".into(),
                tasks: vec![0, 2],
                names: vec!["w".into(), "x".into()],
                colours: 32,
                mask: 0xf,
            }],
            notes: vec![],
        });
        let l = c.lines();
        assert!(
            l.iter()
                .any(|l| l
                    .contains("schedlab-5-g0 for tasks w, x (32 of 128 colours): L3 mask 0xf (4 ways) on domains 0,1")),
            "{l:?}"
        );
        assert!(!l.iter().any(|l| l.contains("cache allocation (resctrl): test")));
        assert_eq!(c.to_json()["cache_allocation"]["groups"][0]["mask"], "f");
        assert_eq!(c.to_json()["cache_allocation"]["groups"][0]["tasks"], serde_json::json!([0, 2]));
    }

    /// Effective only with host frames, the spec's cache being the
    /// machine's, a coloured working set and every page verified; each
    /// other case says why not.
    #[test]
    fn colouring_is_effective_only_when_nothing_argues_against_it() {
        let same = Geometry { size: 8 << 20, ways: 16, line: 64, page: 4096, geometric: 128, colours: 128, level: 3 };
        let other = Geometry { size: 32 << 20, ..same };
        assert!(colouring(false, Some(same), 0, true).effective());
        assert!(colouring(false, Some(same), 0, true).caveats().is_empty());
        for (c, why) in [
            (colouring(true, Some(same), 0, true), "virtual machine"),
            (colouring(false, Some(other), 0, true), "not this machine's last-level cache"),
            (colouring(false, None, 0, true), "describes no cache"),
            (colouring(false, Some(same), 1, true), "page(s) not of its colours"),
            (colouring(false, Some(same), 0, false), "no task's working set"),
        ] {
            assert!(!c.effective(), "{why}");
            assert!(c.caveats().iter().any(|x| x.contains(why)), "{why}: {:?}", c.caveats());
            assert!(c.lines().iter().any(|l| l.starts_with("NOT EFFECTIVE")), "{why}");
            assert_eq!(c.to_json()["effective"], false);
        }
    }
}
