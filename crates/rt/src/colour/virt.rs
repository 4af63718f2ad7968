//! Is this machine virtualised? In a virtual machine the frames
//! `/proc/self/pagemap` reports are guest-physical: the hypervisor maps them
//! to host frames of its choosing, so a guest's page colours say nothing
//! about the host's cache sets, and page colouring partitions nothing. A run
//! that colours says so instead of pretending.
//!
//! The evidence, each recorded: `/sys/hypervisor/type` (Xen and others),
//! the `hypervisor` flag of `/proc/cpuinfo` (the CPUID bit a hypervisor
//! sets for its guests), and `systemd-detect-virt --vm` when installed. A
//! container (Docker, LXC) is not a virtual machine: its frames are the
//! host's.

/// What was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Virtualisation {
    /// Evidence of a virtual machine, one item per source that showed it.
    pub evidence: Vec<String>,
}

impl Virtualisation {
    /// Looks at this machine.
    pub fn detect() -> Virtualisation {
        let mut evidence = Vec::new();
        if let Ok(t) = std::fs::read_to_string("/sys/hypervisor/type") {
            let t = t.trim();
            if !t.is_empty() {
                evidence.push(format!("/sys/hypervisor/type is `{t}`"));
            }
        }
        if let Ok(c) = std::fs::read_to_string("/proc/cpuinfo") {
            if cpuinfo_has_hypervisor(&c) {
                evidence.push("/proc/cpuinfo has the `hypervisor` flag".into());
            }
        }
        if let Ok(o) = std::process::Command::new("systemd-detect-virt")
            .arg("--vm")
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .output()
        {
            let v = String::from_utf8_lossy(&o.stdout).trim().to_string();
            if o.status.success() && !v.is_empty() && v != "none" {
                evidence.push(format!("systemd-detect-virt --vm says `{v}`"));
            }
        }
        Virtualisation { evidence }
    }

    pub fn is_vm(&self) -> bool {
        !self.evidence.is_empty()
    }
}

fn cpuinfo_has_hypervisor(cpuinfo: &str) -> bool {
    cpuinfo.lines().any(|l| {
        let mut kv = l.splitn(2, ':');
        let k = kv.next().unwrap_or("").trim();
        (k == "flags" || k == "Features") && kv.next().unwrap_or("").split_whitespace().any(|f| f == "hypervisor")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cpuinfo_flag_is_a_whole_word_of_the_flags_line() {
        assert!(cpuinfo_has_hypervisor("processor\t: 0\nflags\t\t: fpu vme hypervisor lahf_lm\n"));
        assert!(!cpuinfo_has_hypervisor("flags\t\t: fpu vme lahf_lm\nmodel name\t: hypervisor-ready\n"));
        assert!(!cpuinfo_has_hypervisor("flags\t\t: fpu hypervisorx\n"));
    }
}
