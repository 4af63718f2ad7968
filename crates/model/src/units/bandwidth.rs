//! Memory bandwidth: a size per second, `25GiB/s`, stored in bytes per second.

use super::size::Size;
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;

/// Bytes per second.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Bandwidth(pub u64);

impl std::str::FromStr for Bandwidth {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let Some(size) = s.trim().strip_suffix("/s") else {
            return Err(format!("`{s}` is not a bandwidth: write a size per second, e.g. `25GiB/s` or `800MiB/s`"));
        };
        size.parse::<Size>().map(|b| Bandwidth(b.0)).map_err(|e| format!("`{s}` is not a bandwidth: {e}"))
    }
}

impl std::fmt::Display for Bandwidth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/s", Size(self.0))
    }
}

impl Serialize for Bandwidth {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Bandwidth {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl de::Visitor<'_> for V {
            type Value = Bandwidth;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a bandwidth, e.g. `25GiB/s`")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Bandwidth, E> {
                v.parse().map_err(E::custom)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Bandwidth, E> {
                Err(E::custom(format!("`{v}` has no unit; write a size per second, e.g. `{v}MiB/s`")))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Bandwidth, E> {
                Err(E::custom(format!("`{v}` has no unit; write a size per second, e.g. `{v}GiB/s`")))
            }
        }
        d.deserialize_any(V)
    }
}

impl JsonSchema for Bandwidth {
    fn schema_name() -> Cow<'static, str> {
        "Bandwidth".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A bandwidth: a size per second, e.g. `25GiB/s` (binary units B, KiB, MiB, GiB; a whole number of bytes).",
            "type": "string",
            "pattern": "^\\s*[0-9]+(\\.[0-9]+)?\\s*(B|KiB|MiB|GiB)/s\\s*$"
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn bandwidths() {
        assert_eq!("25GiB/s".parse::<Bandwidth>().unwrap(), Bandwidth(25 << 30));
        assert_eq!(Bandwidth(800 << 20).to_string(), "800MiB/s");
        assert!("25GiB".parse::<Bandwidth>().unwrap_err().contains("per second"));
        assert!("25GB/s".parse::<Bandwidth>().is_err());
    }
}
