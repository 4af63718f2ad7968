//! Per-set seeds. The set of sample `s` at a point is generated from
//! `seed(experiment seed, point key, s)`: a hash of the point's canonical
//! option string (FNV-1a, 64 bit) mixed with the experiment seed and the
//! sample index through SplitMix64's finaliser. The point's *key* (its
//! options), not its index in the grid, enters the seed, so adding a value to
//! an axis does not change the sets of the other points.

/// FNV-1a, 64 bit.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// SplitMix64's output function.
pub fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The seed of one point (before the sample index).
pub fn point_seed(experiment: u64, key: &str) -> u64 {
    mix(mix(experiment) ^ fnv1a(key.as_bytes()))
}

/// The seed of sample `sample` at a point whose seed is `point`.
pub fn set_seed(point: u64, sample: u64) -> u64 {
    mix(point ^ mix(sample))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinned_values() {
        // The FNV-1a reference: "" and "a".
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        // SplitMix64 from state 0: first output 0xe220a8397b1dcdaf.
        assert_eq!(mix(0), 0xe220_a839_7b1d_cdaf);
    }

    #[test]
    fn seeds_differ_by_point_and_sample() {
        let a = point_seed(1, "--util 2");
        let b = point_seed(1, "--util 2.1");
        let c = point_seed(2, "--util 2");
        assert!(a != b && a != c && b != c);
        let mut s: Vec<u64> = (0..10_000).map(|i| set_seed(a, i)).collect();
        s.sort_unstable();
        s.dedup();
        assert_eq!(s.len(), 10_000);
    }
}
