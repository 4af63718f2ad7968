//! Physical frames of this process's pages, from `/proc/self/pagemap`
//! (Documentation/admin-guide/mm/pagemap.rst): one 64-bit entry per 4 KiB
//! virtual page, bit 63 "present", bits 0–54 the page frame number. The
//! kernel reports frame numbers only to a reader with CAP_SYS_ADMIN; to
//! others it reports 0, which [`frames`] turns into an error.

use super::geometry::FRAME;
use std::os::unix::fs::FileExt;

const PRESENT: u64 = 1 << 63;
const PFN_MASK: u64 = (1 << 55) - 1;

/// Why frames could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PagemapError {
    /// Reading `/proc/self/pagemap` failed.
    Io(String),
    /// A page was not present (not populated, or swapped out).
    NotPresent { page: usize },
    /// The kernel hid the frame numbers: the reader lacks CAP_SYS_ADMIN.
    Hidden,
}

impl std::fmt::Display for PagemapError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PagemapError::Io(e) => write!(f, "reading /proc/self/pagemap: {e}"),
            PagemapError::NotPresent { page } => write!(f, "page {page} of the buffer is not in memory"),
            PagemapError::Hidden => {
                f.write_str("/proc/self/pagemap hides physical frames from this process (it needs CAP_SYS_ADMIN)")
            }
        }
    }
}

/// The physical address of each of the `pages` 4 KiB pages from `addr`
/// (page-aligned), which must be populated.
pub fn frames(addr: usize, pages: usize) -> Result<Vec<u64>, PagemapError> {
    let f = std::fs::File::open("/proc/self/pagemap").map_err(|e| PagemapError::Io(e.to_string()))?;
    let mut raw = vec![0u8; pages * 8];
    let first = (addr as u64 / FRAME) * 8;
    let mut done = 0;
    while done < raw.len() {
        match f.read_at(&mut raw[done..], first + done as u64) {
            Ok(0) => return Err(PagemapError::Io("short read".into())),
            Ok(n) => done += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(PagemapError::Io(e.to_string())),
        }
    }
    let mut out = Vec::with_capacity(pages);
    for (i, c) in raw.chunks_exact(8).enumerate() {
        let e = u64::from_ne_bytes(c.try_into().expect("8 bytes"));
        if e & PRESENT == 0 {
            return Err(PagemapError::NotPresent { page: i });
        }
        let pfn = e & PFN_MASK;
        if pfn == 0 {
            return Err(PagemapError::Hidden);
        }
        out.push(pfn * FRAME);
    }
    Ok(out)
}
