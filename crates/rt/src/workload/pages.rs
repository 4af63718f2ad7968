//! A working set in a mapping of its own: anonymous pages between two
//! inaccessible guard pages, so the kernel keeps it as one memory area
//! (a VMA) that no neighbour merges into. `/proc/self/smaps` then reports
//! exactly this set's pages, which is what the page-reference footprint
//! ([`crate::footprint`]) reads. Transparent huge pages are turned off for
//! it, so references are counted per 4 KiB page, not per 2 MiB.

use std::sync::atomic::AtomicU64;

/// `len` words in their own mapping, zero-filled.
pub struct PageBuffer {
    /// The whole mapping (guards included).
    base: *mut libc::c_void,
    size: usize,
    /// The words, one page after `base`.
    words: *mut AtomicU64,
    len: usize,
}

// SAFETY: the mapping is owned by the buffer and only accessed through
// atomics (`AtomicU64` is Sync).
unsafe impl Send for PageBuffer {}
unsafe impl Sync for PageBuffer {}

fn page() -> usize {
    // SAFETY: sysconf has no preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 {
        p as usize
    } else {
        4096
    }
}

impl PageBuffer {
    /// `len` (≥ 1) zeroed words. Panics only when the machine is out of memory, as `Vec` does.
    pub fn new(len: usize) -> PageBuffer {
        let len = len.max(1);
        let page = page();
        let data = (len * 8).div_ceil(page) * page;
        let size = data + 2 * page;
        // SAFETY: a fresh private anonymous mapping; every pointer below stays inside it.
        unsafe {
            let base =
                libc::mmap(std::ptr::null_mut(), size, libc::PROT_NONE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0);
            assert!(base != libc::MAP_FAILED, "mmap of {size} bytes failed: {}", std::io::Error::last_os_error());
            let data_at = (base as *mut u8).add(page) as *mut libc::c_void;
            let r = libc::mprotect(data_at, data, libc::PROT_READ | libc::PROT_WRITE);
            assert!(r == 0, "mprotect failed: {}", std::io::Error::last_os_error());
            // Best effort: without it, references may be counted per huge page.
            libc::madvise(data_at, data, libc::MADV_NOHUGEPAGE);
            PageBuffer { base, size, words: data_at as *mut AtomicU64, len }
        }
    }

    /// The words' address range `[start, end)` (page-aligned start).
    pub fn range(&self) -> (usize, usize) {
        (self.words as usize, self.words as usize + self.len * 8)
    }
}

impl std::ops::Deref for PageBuffer {
    type Target = [AtomicU64];
    fn deref(&self) -> &[AtomicU64] {
        // SAFETY: `len` words, mapped read-write and zero-initialised (a
        // valid AtomicU64), for the buffer's lifetime.
        unsafe { std::slice::from_raw_parts(self.words, self.len) }
    }
}

impl Drop for PageBuffer {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, unmapped once.
        unsafe {
            libc::munmap(self.base, self.size);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    #[test]
    fn the_buffer_is_zeroed_writable_and_its_own_memory_area() {
        let b = PageBuffer::new(10_000);
        assert_eq!(b.len(), 10_000);
        assert!(b.iter().all(|w| w.load(Ordering::Relaxed) == 0));
        b[9_999].store(7, Ordering::Relaxed);
        assert_eq!(b[9_999].load(Ordering::Relaxed), 7);
        let (lo, hi) = b.range();
        assert_eq!(lo % page(), 0);
        // /proc/self/maps has an area starting exactly at the buffer and
        // ending at its last page.
        let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
        let end = hi.div_ceil(page()) * page();
        let want = format!("{lo:x}-{end:x} rw-p");
        assert!(maps.lines().any(|l| l.starts_with(&want)), "no area `{want}` in\n{maps}");
    }
}
