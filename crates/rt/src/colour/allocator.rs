//! The colour-aware allocator: a buffer whose every page lies in a frame of
//! a wanted colour, on a stock kernel (no colour-aware page allocator).
//!
//! 1. Reserve the buffer's address range (`PROT_NONE`, nothing behind it).
//! 2. Map a pool of anonymous memory, sized for the share of colours wanted
//!    (1.5 × `pages` × colours / wanted, at least two pages per colour, and
//!    twice as much in each further round);
//!    transparent huge pages off for it (`MADV_NOHUGEPAGE`, before any page
//!    exists: a 2 MiB page would span every colour), then populate it
//!    (`MADV_POPULATE_WRITE`, Linux ≥ 5.14; else one write per page —
//!    `MAP_POPULATE` at `mmap` would fault pages in before THP could be
//!    refused).
//! 3. Read the pool's frames from `/proc/self/pagemap` ([`super::pagemap`],
//!    root only) and move each page of a wanted colour into the next free
//!    slot of the reserved range with `mremap(MREMAP_FIXED)`: the page
//!    table entry moves, the frame stays.
//! 4. Once the range is full, unmap the pools (their frames of other colours
//!    are kept mapped until then, so a later round is not handed the same
//!    frames back), `mlock` the buffer (no swapping, and no reclaim that
//!    would give it new frames on the next fault), and read its frames
//!    back: [`ColouredBuffer::verify`] proves every page has a wanted colour.
//!
//! The pools together never take more than half of `MemAvailable`: a
//! working set too large for the share of colours wanted is refused with
//! the sizes.
//!
//! Each moved page stays its own mapping (`vm.max_map_count`, 65530 by
//! default, bounds a process's mappings), so a buffer is limited to
//! [`MAX_PAGES`] pages (128 MiB). Linux may still migrate a locked page
//! (memory compaction with `vm.compact_unevictable_allowed`): the
//! verification is of the frames when the buffer was made.

use super::geometry::{Geometry, FRAME};
use super::pagemap::{self, PagemapError};
use schedlab_model::ColorSet;

/// The largest coloured buffer, in 4 KiB pages (128 MiB).
pub const MAX_PAGES: usize = 32 * 1024;
/// Pool rounds before giving up.
const ROUNDS: usize = 6;

/// Why a coloured buffer could not be made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ColourError {
    Pagemap(PagemapError),
    /// A system call failed.
    Sys {
        call: &'static str,
        errno: i32,
    },
    /// The buffer needs more pages than [`MAX_PAGES`].
    TooLarge {
        pages: usize,
    },
    /// No colour wanted, or none of the cache's.
    NoColour,
    /// The pools gave too few frames of the wanted colours.
    TooFew {
        wanted: usize,
        found: usize,
        scanned: usize,
    },
    /// The next pool would take more than half of the memory available.
    Memory {
        pool: u64,
        available: u64,
    },
}

impl std::fmt::Display for ColourError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ColourError::Pagemap(e) => write!(f, "{e}"),
            ColourError::Sys { call, errno } => {
                write!(f, "{call} failed: {}", std::io::Error::from_raw_os_error(*errno))?;
                if *call == "mlock" {
                    write!(f, " (raise RLIMIT_MEMLOCK, `ulimit -l`, or run as root)")?;
                }
                Ok(())
            }
            ColourError::TooLarge { pages } => write!(
                f,
                "{pages} pages exceed the coloured buffer limit of {MAX_PAGES} pages ({} MiB)",
                (MAX_PAGES * FRAME as usize) >> 20
            ),
            ColourError::NoColour => f.write_str("no colour of the cache is wanted"),
            ColourError::TooFew { wanted, found, scanned } => write!(
                f,
                "found {found} of the {wanted} pages of the wanted colours in {scanned} pages taken from the kernel; give the task more colours or a smaller `wss`"
            ),
            ColourError::Memory { pool, available } => write!(
                f,
                "finding the pages would take a pool of {} MiB, more than half of the {} MiB available (the pool is the working set × colours of the cache / colours wanted × 1.5); give the task more colours or a smaller `wss`",
                pool >> 20,
                available >> 20
            ),
        }
    }
}

impl From<PagemapError> for ColourError {
    fn from(e: PagemapError) -> ColourError {
        ColourError::Pagemap(e)
    }
}

fn errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

/// An anonymous mapping, unmapped on drop.
struct Mapping {
    ptr: *mut u8,
    len: usize,
    /// Pages moved away by `mremap` (empty: none). Their holes may be taken
    /// by another thread's `mmap` meanwhile, so they are not unmapped again.
    moved: Vec<bool>,
}

impl Mapping {
    fn new(len: usize, prot: i32) -> Result<Mapping, ColourError> {
        // SAFETY: a fresh anonymous private mapping at an address of the kernel's choosing.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                prot,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(ColourError::Sys { call: "mmap", errno: errno() });
        }
        Ok(Mapping { ptr: p as *mut u8, len, moved: Vec::new() })
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        let pages = self.len / FRAME as usize;
        let moved = |i: usize| self.moved.get(i).copied().unwrap_or(false);
        let mut i = 0;
        while i < pages {
            if moved(i) {
                i += 1;
                continue;
            }
            let from = i;
            while i < pages && !moved(i) {
                i += 1;
            }
            // SAFETY: unmaps a run of this value's own pages, still mapped.
            unsafe {
                libc::munmap(self.ptr.add(from * FRAME as usize) as *mut libc::c_void, (i - from) * FRAME as usize)
            };
        }
    }
}

/// A page-aligned buffer of pages in frames of the wanted colours, locked
/// in memory; zero-filled when made.
pub struct ColouredBuffer {
    map: Mapping,
    pages: usize,
    /// Pages of other colours taken and given back while filling it.
    pub scanned: usize,
}

// SAFETY: the buffer owns its mapping; access goes through &mut self.
unsafe impl Send for ColouredBuffer {}

/// What reading a buffer's frames back found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verification {
    pub pages: usize,
    /// Pages whose frame has an unwanted colour: (page, colour).
    pub wrong: Vec<(usize, u32)>,
    /// Distinct colours of the buffer's frames.
    pub colours: Vec<u32>,
}

impl ColouredBuffer {
    /// A buffer of at least `bytes` bytes whose pages all have colours of
    /// `wanted` under geometry `g`.
    pub fn allocate(bytes: u64, wanted: &ColorSet, g: &Geometry) -> Result<ColouredBuffer, ColourError> {
        let pages = (bytes.div_ceil(FRAME) as usize).max(1);
        if pages > MAX_PAGES {
            return Err(ColourError::TooLarge { pages });
        }
        let share = wanted.iter().filter(|&c| (c as u64) < g.colours).count();
        if share == 0 {
            return Err(ColourError::NoColour);
        }
        let len = pages * FRAME as usize;
        let map = Mapping::new(len, libc::PROT_NONE)?;
        let mut pools = Vec::new();
        let (mut filled, mut scanned) = (0usize, 0usize);
        for _ in 0..ROUNDS {
            // Frames often come in physically contiguous runs, each colour
            // once per `geometric` pages: at least two such runs per round,
            // and twice the previous round's pool when one fell short.
            let need = pages - filled;
            let n = ((need as u64 * g.colours / share as u64 * 3 / 2) as usize)
                .max(2 * g.geometric as usize)
                .max(2 * pools.last().map_or(0, |p: &Mapping| p.len / FRAME as usize));
            // Never more than half of what the machine has available.
            let taken: usize = pools.iter().map(|p: &Mapping| p.len).sum();
            let available = mem_available();
            if (taken + n * FRAME as usize) as u64 > available / 2 {
                return Err(ColourError::Memory { pool: (taken + n * FRAME as usize) as u64, available });
            }
            let mut pool = Mapping::new(n * FRAME as usize, libc::PROT_READ | libc::PROT_WRITE)?;
            pool.moved = vec![false; n];
            populate(&pool)?;
            let frames = pagemap::frames(pool.ptr as usize, n)?;
            scanned += n;
            for (i, &phys) in frames.iter().enumerate() {
                if filled == pages {
                    break;
                }
                if !wanted.contains(g.colour_of(phys)) {
                    continue;
                }
                // SAFETY: moves one page of our pool onto one page of our
                // reserved range (MREMAP_FIXED replaces what is there).
                let r = unsafe {
                    libc::mremap(
                        pool.ptr.add(i * FRAME as usize) as *mut libc::c_void,
                        FRAME as usize,
                        FRAME as usize,
                        libc::MREMAP_MAYMOVE | libc::MREMAP_FIXED,
                        map.ptr.add(filled * FRAME as usize) as *mut libc::c_void,
                    )
                };
                if r == libc::MAP_FAILED {
                    return Err(ColourError::Sys { call: "mremap", errno: errno() });
                }
                pool.moved[i] = true;
                filled += 1;
            }
            pools.push(pool);
            if filled == pages {
                break;
            }
        }
        drop(pools);
        if filled < pages {
            return Err(ColourError::TooFew { wanted: pages, found: filled, scanned });
        }
        // SAFETY: locks our own mapped range.
        if unsafe { libc::mlock(map.ptr as *const libc::c_void, len) } != 0 {
            return Err(ColourError::Sys { call: "mlock", errno: errno() });
        }
        let mut b = ColouredBuffer { map, pages, scanned: scanned - pages };
        b.words().fill(0);
        Ok(b)
    }

    pub fn pages(&self) -> usize {
        self.pages
    }

    pub fn len(&self) -> usize {
        self.pages * FRAME as usize
    }

    pub fn is_empty(&self) -> bool {
        false
    }

    pub fn as_ptr(&self) -> *const u8 {
        self.map.ptr
    }

    /// The buffer as 64-bit words.
    pub fn words(&mut self) -> &mut [u64] {
        // SAFETY: the mapping is ours, readable and writable, page-aligned
        // (so aligned for u64) and `len` bytes long; &mut self makes the
        // borrow exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.map.ptr as *mut u64, self.len() / 8) }
    }

    /// The physical address of each page, read back now.
    pub fn frames(&self) -> Result<Vec<u64>, PagemapError> {
        pagemap::frames(self.map.ptr as usize, self.pages)
    }

    /// Reads the frames back and checks each page's colour.
    pub fn verify(&self, wanted: &ColorSet, g: &Geometry) -> Result<Verification, PagemapError> {
        let frames = self.frames()?;
        let mut wrong = Vec::new();
        let mut colours = std::collections::BTreeSet::new();
        for (i, &phys) in frames.iter().enumerate() {
            let c = g.colour_of(phys);
            colours.insert(c);
            if !wanted.contains(c) {
                wrong.push((i, c));
            }
        }
        Ok(Verification { pages: self.pages, wrong, colours: colours.into_iter().collect() })
    }
}

/// `MemAvailable` of `/proc/meminfo`, in bytes (unknown: no limit).
fn mem_available() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines().find_map(|l| {
                l.strip_prefix("MemAvailable:").and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            })
        })
        .map_or(u64::MAX, |kb| kb * 1024)
}

/// Populates a fresh pool with transparent huge pages refused.
fn populate(pool: &Mapping) -> Result<(), ColourError> {
    // SAFETY: advice on our own fresh mapping.
    if unsafe { libc::madvise(pool.ptr as *mut libc::c_void, pool.len, libc::MADV_NOHUGEPAGE) } != 0 {
        return Err(ColourError::Sys { call: "madvise(MADV_NOHUGEPAGE)", errno: errno() });
    }
    // SAFETY: as above; EINVAL on kernels before 5.14, then the loop below.
    if unsafe { libc::madvise(pool.ptr as *mut libc::c_void, pool.len, libc::MADV_POPULATE_WRITE) } == 0 {
        return Ok(());
    }
    for off in (0..pool.len).step_by(FRAME as usize) {
        // SAFETY: a write inside our readable, writable mapping.
        unsafe { std::ptr::write_volatile(pool.ptr.add(off), 0) };
    }
    Ok(())
}
