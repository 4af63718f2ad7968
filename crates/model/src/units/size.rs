//! Sizes: integer bytes, written with a binary unit (`B`, `KiB`, `MiB`, `GiB`)
//! and optional decimals (`1.5MiB`). `KB`/`MB` are refused with a hint because
//! they are ambiguous between 1000 and 1024.

use super::decimal::{format_scaled, parse_scaled, QuantityError};
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;

/// Accepted size units and their size in bytes, by increasing scale.
pub const SIZE_UNITS: &[(&str, u64)] = &[("B", 1), ("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30)];

/// An amount of memory in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Size(pub u64);

impl Size {
    pub fn bytes(self) -> u64 {
        self.0
    }
}

impl std::str::FromStr for Size {
    type Err = QuantityError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        if t == "0" {
            return Ok(Size(0));
        }
        for (ambiguous, fix) in [("KB", "KiB"), ("MB", "MiB"), ("GB", "GiB"), ("K", "KiB"), ("M", "MiB"), ("G", "GiB")]
        {
            if t.ends_with(ambiguous)
                && t[..t.len() - ambiguous.len()].trim_end().ends_with(|c: char| c.is_ascii_digit())
            {
                return Err(QuantityError(format!(
                    "`{s}` is not a valid size: `{ambiguous}` is ambiguous; write `{fix}` (binary units: B, KiB, MiB, GiB)"
                )));
            }
        }
        parse_scaled(s, SIZE_UNITS, "size", "bytes").map(Size)
    }
}

impl std::fmt::Display for Size {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&format_scaled(self.0, SIZE_UNITS))
    }
}

impl Serialize for Size {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Size {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl de::Visitor<'_> for V {
            type Value = Size;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a size with a unit, e.g. `256KiB`, `8MiB`, `64B`")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Size, E> {
                v.parse().map_err(|e: QuantityError| E::custom(e.0))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Size, E> {
                if v == 0 {
                    Ok(Size(0))
                } else {
                    Err(E::custom(format!(
                        "`{v}` has no unit; write e.g. `{v}B` or `{v}KiB` (units: B, KiB, MiB, GiB)"
                    )))
                }
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Size, E> {
                if v < 0 {
                    Err(E::custom(format!("`{v}` is negative; a size is 0 or more, with a unit, e.g. `64KiB`")))
                } else {
                    self.visit_u64(v as u64)
                }
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Size, E> {
                Err(E::custom(format!("`{v}` has no unit; write e.g. `{v}KiB` (units: B, KiB, MiB, GiB)")))
            }
        }
        d.deserialize_any(V)
    }
}

impl JsonSchema for Size {
    fn schema_name() -> Cow<'static, str> {
        "Size".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A size: a non-negative decimal number and a binary unit (B, KiB, MiB, GiB), e.g. `256KiB`; it must be a whole number of bytes. A bare 0 is also accepted.",
            "oneOf": [
                {"type": "string", "pattern": "^\\s*[0-9]+(\\.[0-9]+)?\\s*(B|KiB|MiB|GiB)\\s*$"},
                {"const": 0}
            ]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn sizes() {
        assert_eq!("256KiB".parse::<Size>().unwrap(), Size(262_144));
        assert_eq!("1.5MiB".parse::<Size>().unwrap(), Size(1_572_864));
        assert_eq!("0".parse::<Size>().unwrap(), Size(0));
        assert!("0.5B".parse::<Size>().is_err());
        let e = "64KB".parse::<Size>().unwrap_err();
        assert!(e.0.contains("KiB"), "{e}");
        assert_eq!(Size(8 << 20).to_string(), "8MiB");
        assert_eq!(Size(1000).to_string(), "1000B");
    }
}
