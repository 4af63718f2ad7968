//! Durations: integer nanoseconds, written with a unit (`ns`, `us`, `ms`, `s`)
//! and optional decimals (`2.5ms`). A bare `0` is accepted; any other bare
//! number is rejected because its unit would be a guess.

use super::decimal::{parse_scaled, QuantityError};
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;

/// Accepted duration units and their length in nanoseconds, by increasing scale.
pub const DURATION_UNITS: &[(&str, u64)] =
    &[("ns", 1), ("µs", 1_000), ("us", 1_000), ("ms", 1_000_000), ("s", 1_000_000_000)];

/// A span of time in integer nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Duration(pub u64);

impl Duration {
    pub const ZERO: Duration = Duration(0);
    pub fn ns(self) -> u64 {
        self.0
    }
    pub fn from_ms(ms: u64) -> Duration {
        Duration(ms * 1_000_000)
    }
    pub fn from_us(us: u64) -> Duration {
        Duration(us * 1_000)
    }
    /// Seconds as a float, for reporting only.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }
    /// Milliseconds as a float, for reporting only.
    pub fn as_ms_f64(self) -> f64 {
        self.0 as f64 / 1e6
    }
}

impl std::str::FromStr for Duration {
    type Err = QuantityError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.trim() == "0" {
            return Ok(Duration(0));
        }
        parse_scaled(s, DURATION_UNITS, "duration", "ns").map(Duration)
    }
}

impl std::fmt::Display for Duration {
    /// The largest unit not above the value, with exact decimals: `2.5ms`,
    /// `10ms`, `1.000001s`, `750ns`. It always parses back to the same value.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let v = self.0;
        let (name, scale) = [("s", 1_000_000_000u64), ("ms", 1_000_000), ("us", 1_000)]
            .into_iter()
            .find(|&(_, s)| v >= s)
            .unwrap_or(("ns", 1));
        if scale == 1 {
            return write!(f, "{v}ns");
        }
        let (int, frac) = (v / scale, v % scale);
        if frac == 0 {
            return write!(f, "{int}{name}");
        }
        let width = scale.trailing_zeros() as usize; // scale is 10^k: 2^k divides it exactly
        let digits = format!("{frac:0width$}");
        write!(f, "{int}.{}{name}", digits.trim_end_matches('0'))
    }
}

impl Serialize for Duration {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Duration {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl de::Visitor<'_> for V {
            type Value = Duration;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a duration with a unit, e.g. `10ms`, `2.5ms`, `500us`")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Duration, E> {
                v.parse().map_err(|e: QuantityError| E::custom(e.0))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Duration, E> {
                if v == 0 {
                    Ok(Duration(0))
                } else {
                    Err(E::custom(format!("`{v}` has no unit; write e.g. `{v}ms` or `{v}us` (units: ns, us, ms, s)")))
                }
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Duration, E> {
                if v < 0 {
                    Err(E::custom(format!("`{v}` is negative; a duration is 0 or more, with a unit, e.g. `10ms`")))
                } else {
                    self.visit_u64(v as u64)
                }
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Duration, E> {
                Err(E::custom(format!("`{v}` has no unit; write e.g. `{v}ms` (units: ns, us, ms, s)")))
            }
        }
        d.deserialize_any(V)
    }
}

impl JsonSchema for Duration {
    fn schema_name() -> Cow<'static, str> {
        "Duration".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A duration: a non-negative decimal number and a unit (ns, us, µs, ms, s), e.g. `10ms` or `2.5ms`; it must be a whole number of nanoseconds. A bare 0 is also accepted.",
            "oneOf": [
                {"type": "string", "pattern": "^\\s*[0-9]+(\\.[0-9]+)?\\s*(ns|us|µs|ms|s)\\s*$"},
                {"const": 0}
            ]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn display_is_exact_and_readable() {
        for (v, t) in [
            (0, "0ns"),
            (750, "750ns"),
            (2_500_000, "2.5ms"),
            (10_000_000, "10ms"),
            (1_000_001_000, "1.000001s"),
            (1_234_567, "1.234567ms"),
        ] {
            assert_eq!(Duration(v).to_string(), t);
            assert_eq!(t.parse::<Duration>().unwrap(), Duration(v));
        }
        assert_eq!(Duration(u64::MAX).to_string().parse::<Duration>().unwrap(), Duration(u64::MAX));
        assert!("10".parse::<Duration>().is_err());
        assert_eq!("0".parse::<Duration>().unwrap(), Duration(0));
    }
}
