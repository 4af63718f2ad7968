//! Cache colour sets: a list of colours and inclusive ranges, `[0-15, 32]`.
//! Stored as sorted, merged inclusive ranges, so a huge range costs nothing.

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;

/// A set of cache colours (page colours), as sorted disjoint inclusive ranges.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct ColorSet {
    ranges: Vec<(u32, u32)>,
}

impl ColorSet {
    /// Builds a set from inclusive ranges in any order, merging overlaps.
    pub fn from_ranges(mut ranges: Vec<(u32, u32)>) -> ColorSet {
        ranges.sort_unstable();
        let mut merged: Vec<(u32, u32)> = Vec::with_capacity(ranges.len());
        for (lo, hi) in ranges {
            match merged.last_mut() {
                Some(last) if lo <= last.1.saturating_add(1) => last.1 = last.1.max(hi),
                _ => merged.push((lo, hi)),
            }
        }
        ColorSet { ranges: merged }
    }
    pub fn ranges(&self) -> &[(u32, u32)] {
        &self.ranges
    }
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }
    /// Number of colours in the set.
    pub fn count(&self) -> u64 {
        self.ranges.iter().map(|&(lo, hi)| (hi - lo) as u64 + 1).sum()
    }
    /// The largest colour, if any.
    pub fn max(&self) -> Option<u32> {
        self.ranges.last().map(|r| r.1)
    }
    pub fn contains(&self, c: u32) -> bool {
        self.ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi)
    }
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.ranges.iter().flat_map(|&(lo, hi)| lo..=hi)
    }
}

/// Parses one item: `7` or `0-15`.
fn parse_item(s: &str) -> Result<(u32, u32), String> {
    let t = s.trim();
    let num = |x: &str| -> Result<u32, String> {
        x.trim().parse::<u32>().map_err(|_| {
            format!("`{s}` is not a colour or colour range; write a colour number like `7` or a range like `0-15`")
        })
    };
    match t.split_once('-') {
        Some((a, b)) => {
            let (lo, hi) = (num(a)?, num(b)?);
            if lo > hi {
                return Err(format!("the colour range `{s}` is empty (start > end); write it as `{hi}-{lo}`"));
            }
            Ok((lo, hi))
        }
        None => num(t).map(|c| (c, c)),
    }
}

impl std::str::FromStr for ColorSet {
    type Err = String;
    /// Parses `0-15, 32` (the bracketed list form is also accepted).
    fn from_str(s: &str) -> Result<Self, String> {
        let inner = s.trim().trim_start_matches('[').trim_end_matches(']');
        let items = inner.split(',').filter(|x| !x.trim().is_empty()).map(parse_item).collect::<Result<Vec<_>, _>>()?;
        Ok(ColorSet::from_ranges(items))
    }
}

impl std::fmt::Display for ColorSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let items: Vec<String> =
            self.ranges.iter().map(|&(lo, hi)| if lo == hi { lo.to_string() } else { format!("{lo}-{hi}") }).collect();
        write!(f, "[{}]", items.join(", "))
    }
}

/// One element of the serialized list: a colour number or a `lo-hi` string.
enum Item {
    One(u32),
    Range(u32, u32),
}

impl Serialize for Item {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            Item::One(c) => s.serialize_u32(c),
            Item::Range(lo, hi) => s.collect_str(&format_args!("{lo}-{hi}")),
        }
    }
}

impl Serialize for ColorSet {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.ranges.iter().map(|&(lo, hi)| if lo == hi { Item::One(lo) } else { Item::Range(lo, hi) }))
    }
}

impl<'de> Deserialize<'de> for ColorSet {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> de::Visitor<'de> for V {
            type Value = ColorSet;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a list of colours and ranges, e.g. `[0-15, 32]`")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<ColorSet, E> {
                let c = u32::try_from(v).map_err(|_| E::custom(format!("colour {v} is too large")))?;
                Ok(ColorSet::from_ranges(vec![(c, c)]))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<ColorSet, E> {
                if v < 0 {
                    return Err(E::custom(format!("colour {v} is negative; colours are numbered from 0")));
                }
                self.visit_u64(v as u64)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<ColorSet, E> {
                v.parse().map_err(E::custom)
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<ColorSet, A::Error> {
                let mut ranges = Vec::new();
                while let Some(item) = seq.next_element::<ItemIn>()? {
                    ranges.push(item.0);
                }
                Ok(ColorSet::from_ranges(ranges))
            }
        }
        d.deserialize_any(V)
    }
}

/// Deserialization of one list element.
struct ItemIn((u32, u32));

impl<'de> Deserialize<'de> for ItemIn {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl de::Visitor<'_> for V {
            type Value = ItemIn;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a colour number like `7` or a range like `0-15`")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<ItemIn, E> {
                let c = u32::try_from(v).map_err(|_| E::custom(format!("colour {v} is too large")))?;
                Ok(ItemIn((c, c)))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<ItemIn, E> {
                if v < 0 {
                    return Err(E::custom(format!("colour {v} is negative; colours are numbered from 0")));
                }
                self.visit_u64(v as u64)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<ItemIn, E> {
                parse_item(v).map(ItemIn).map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

impl JsonSchema for ColorSet {
    fn schema_name() -> Cow<'static, str> {
        "ColorSet".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "Cache colours: a list of colour numbers and inclusive ranges, e.g. `[0-15, 32]`.",
            "type": "array",
            "items": {
                "oneOf": [
                    {"type": "integer", "minimum": 0},
                    {"type": "string", "pattern": "^\\s*[0-9]+\\s*(-\\s*[0-9]+\\s*)?$"}
                ]
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn merges_and_counts() {
        let c: ColorSet = "0-15, 32, 10-20, 21".parse().unwrap();
        assert_eq!(c.ranges(), &[(0, 21), (32, 32)]);
        assert_eq!(c.count(), 23);
        assert_eq!(c.to_string(), "[0-21, 32]");
        assert!(c.contains(32) && !c.contains(31));
        assert!("5-1".parse::<ColorSet>().is_err());
        assert!("x".parse::<ColorSet>().is_err());
        let huge: ColorSet = "0-4294967295".parse().unwrap();
        assert_eq!(huge.count(), 1 << 32);
    }
}
