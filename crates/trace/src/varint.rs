//! LEB128 variable-length integers and zigzag signed mapping, as used by the
//! binary encoding: 7 bits per byte, least significant group first, the high
//! bit set on every byte but the last. A u64 takes 1 to 10 bytes.

/// Longest encoding of a u64.
pub const MAX_LEN: usize = 10;

/// Append `v` as LEB128.
#[inline]
pub fn put(buf: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        buf.push((v as u8) | 0x80);
        v >>= 7;
    }
    buf.push(v as u8);
}

/// `v` as LEB128 in a fixed array: the bytes and how many are used.
#[inline]
pub fn encode(mut v: u64) -> ([u8; MAX_LEN], usize) {
    let mut out = [0u8; MAX_LEN];
    let mut n = 0;
    while v >= 0x80 {
        out[n] = (v as u8) | 0x80;
        v >>= 7;
        n += 1;
    }
    out[n] = v as u8;
    (out, n + 1)
}

/// Map a signed value to an unsigned one so that small magnitudes stay small:
/// 0 → 0, −1 → 1, 1 → 2, −2 → 3, ...
#[inline]
pub fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

/// The inverse of [`zigzag`].
#[inline]
pub fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// Why bytes are not a varint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VarintError {
    /// The input ends inside the varint.
    Truncated,
    /// More than 64 bits, or a non-minimal encoding (a final zero byte after
    /// the first): the writer never produces either.
    Malformed,
}

/// Decode a varint at the start of `bytes`: the value and its length.
#[inline]
pub fn get(bytes: &[u8]) -> Result<(u64, usize), VarintError> {
    let mut v: u64 = 0;
    for (i, &b) in bytes.iter().enumerate().take(MAX_LEN) {
        let low = (b & 0x7f) as u64;
        if i == MAX_LEN - 1 && low > 1 {
            return Err(VarintError::Malformed);
        }
        v |= low << (7 * i);
        if b & 0x80 == 0 {
            if b == 0 && i > 0 {
                return Err(VarintError::Malformed);
            }
            return Ok((v, i + 1));
        }
    }
    if bytes.len() >= MAX_LEN {
        Err(VarintError::Malformed)
    } else {
        Err(VarintError::Truncated)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_edges() {
        for v in [0, 1, 127, 128, 255, 300, 16_383, 16_384, u32::MAX as u64, u64::MAX - 1, u64::MAX] {
            let mut buf = Vec::new();
            put(&mut buf, v);
            assert_eq!(get(&buf), Ok((v, buf.len())), "{v}");
            let (arr, n) = encode(v);
            assert_eq!(&arr[..n], &buf[..]);
            assert_eq!(get(&buf[..buf.len() - 1]), Err(VarintError::Truncated));
        }
        let mut buf = Vec::new();
        put(&mut buf, u64::MAX);
        assert_eq!(buf.len(), MAX_LEN);
        assert_eq!(buf[9], 1);
    }

    #[test]
    fn refuses_overflow_and_non_minimal() {
        assert_eq!(get(&[0xff; 10]), Err(VarintError::Malformed));
        assert_eq!(get(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02]), Err(VarintError::Malformed));
        assert_eq!(get(&[0x80, 0x00]), Err(VarintError::Malformed));
        assert_eq!(get(&[0x00]), Ok((0, 1)));
    }

    #[test]
    fn zigzag_maps_small_magnitudes_to_small_values() {
        assert_eq!(zigzag(0), 0);
        assert_eq!(zigzag(-1), 1);
        assert_eq!(zigzag(1), 2);
        assert_eq!(zigzag(i64::MIN), u64::MAX);
        for v in [0, 1, -1, 63, -64, i64::MAX, i64::MIN] {
            assert_eq!(unzigzag(zigzag(v)), v);
        }
    }
}
