//! Where each task's working set lies in the shared cache: colour classes.
//!
//! A task's memory spreads evenly over its colours (page colouring hands out
//! pages round-robin over them; the thesis' Eq. 7.4 assumes the same, after
//! Kim et al.), and a task without colours spreads over all of them. The
//! colours are cut into *classes*: maximal runs of colours that the same
//! tasks use. Every colour of a class sees the same occupants with the same
//! share each, so computing per class is computing per colour, at a cost
//! that grows with the number of distinct colour ranges, not with the
//! colour count (one class for a spec without colours).

use schedlab_model::Spec;

/// One task's footprint in one class.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Part {
    /// Class index.
    pub class: u32,
    /// Bytes of the task's working set in the class (all its colours there).
    pub bytes: f64,
}

/// The classes and each task's parts.
#[derive(Debug, Clone)]
pub struct Layout {
    /// Capacity of each class (bytes): its colour count × the colour's share
    /// of the cache (size / colours).
    pub capacity: Vec<f64>,
    /// Per task, its parts in increasing class order.
    pub parts: Vec<Vec<Part>>,
}

impl Layout {
    /// The layout of `spec`'s tasks in its cache (`None` without a cache).
    pub fn of(spec: &Spec) -> Option<Layout> {
        let cache = spec.platform.cache.as_ref()?;
        let n = cache.colors().max(1);
        let color_bytes = cache.size.0 as f64 / n as f64;
        let last = (n - 1).min(u32::MAX as u64) as u32;
        let ranges: Vec<Vec<(u32, u32)>> = spec
            .tasks
            .iter()
            .map(|t| match &t.colors {
                Some(c) if !c.is_empty() => c.ranges().iter().map(|&(lo, hi)| (lo.min(last), hi.min(last))).collect(),
                _ => vec![(0, last)],
            })
            .collect();
        // Class boundaries: every range start and every range end + 1.
        let mut cuts: Vec<u64> = vec![0, last as u64 + 1];
        for r in ranges.iter().flatten() {
            cuts.push(r.0 as u64);
            cuts.push(r.1 as u64 + 1);
        }
        cuts.sort_unstable();
        cuts.dedup();
        let starts = &cuts[..cuts.len() - 1];
        let capacity = cuts.windows(2).map(|w| (w[1] - w[0]) as f64 * color_bytes).collect();
        let parts = spec
            .tasks
            .iter()
            .zip(&ranges)
            .map(|(t, rs)| {
                let wss = t.wss.map_or(0, |w| w.0) as f64;
                let count: u64 = rs.iter().map(|&(lo, hi)| (hi - lo) as u64 + 1).sum();
                let mut out = Vec::new();
                if wss == 0.0 {
                    return out;
                }
                for &(lo, hi) in rs {
                    let first = starts.partition_point(|&s| s < lo as u64);
                    let mut k = first;
                    while k < starts.len() && starts[k] <= hi as u64 {
                        let width = cuts[k + 1] - cuts[k];
                        out.push(Part { class: k as u32, bytes: wss * width as f64 / count as f64 });
                        k += 1;
                    }
                }
                out.sort_by_key(|p| p.class);
                out
            })
            .collect();
        Some(Layout { capacity, parts })
    }

    /// Whether tasks `a` and `b` have a class in common.
    pub fn overlap(&self, a: usize, b: usize) -> bool {
        let (pa, pb) = (&self.parts[a], &self.parts[b]);
        let (mut i, mut j) = (0, 0);
        while i < pa.len() && j < pb.len() {
            match pa[i].class.cmp(&pb[j].class) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => return true,
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(tasks: &str) -> Spec {
        let text = format!("platform: {{cpus: 2, cache: {{size: 8MiB, ways: 16, line: 64B}}}}\ntasks:\n{tasks}");
        schedlab_model::load_str(&text, None, "t.yaml").unwrap().spec
    }

    #[test]
    fn classes_cut_the_colours_where_occupants_change() {
        let s = spec("  - {name: a, wcet: 1ms, period: 10ms, wss: 64KiB, colors: [0-3]}\n  - {name: b, wcet: 1ms, period: 10ms, wss: 32KiB, colors: [2-5]}\n  - {name: c, wcet: 1ms, period: 10ms, wss: 128KiB}\n");
        let l = Layout::of(&s).unwrap();
        // Classes: [0-1], [2-3], [4-5], [6-127]; a colour holds 64 KiB.
        let colour = 65536.0;
        assert_eq!(l.capacity, vec![2.0 * colour, 2.0 * colour, 2.0 * colour, 122.0 * colour]);
        assert_eq!(l.parts[0], vec![Part { class: 0, bytes: 32768.0 }, Part { class: 1, bytes: 32768.0 }]);
        assert_eq!(l.parts[1], vec![Part { class: 1, bytes: 16384.0 }, Part { class: 2, bytes: 16384.0 }]);
        assert_eq!(l.parts[2].len(), 4);
        assert_eq!(l.parts[2].iter().map(|p| p.bytes).sum::<f64>(), 131072.0);
        assert!(l.overlap(0, 1) && l.overlap(0, 2) && l.overlap(1, 2));
    }

    #[test]
    fn disjoint_colours_do_not_overlap_and_no_wss_has_no_parts() {
        let s = spec("  - {name: a, wcet: 1ms, period: 10ms, wss: 64KiB, colors: [0-3]}\n  - {name: b, wcet: 1ms, period: 10ms, wss: 64KiB, colors: [4-7]}\n  - {name: c, wcet: 1ms, period: 10ms}\n");
        let l = Layout::of(&s).unwrap();
        assert!(!l.overlap(0, 1));
        assert!(l.parts[2].is_empty());
    }
}
