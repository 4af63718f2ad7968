//! Ratios in [0, 1]: a decimal number (`0.2`) or a percentage (`"20%"`),
//! stored exactly in millionths so that specs stay comparable and hashable.

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;

/// Millionths in one.
const ONE: u32 = 1_000_000;

/// A fraction between 0 and 1, in millionths.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Ratio(u32);

impl Ratio {
    pub const ZERO: Ratio = Ratio(0);
    pub const ONE: Ratio = Ratio(ONE);
    /// The ratio of `millionths` / 10^6, `None` above 1.
    pub fn from_millionths(millionths: u32) -> Option<Ratio> {
        (millionths <= ONE).then_some(Ratio(millionths))
    }
    pub fn millionths(self) -> u32 {
        self.0
    }
    pub fn as_f64(self) -> f64 {
        self.0 as f64 / ONE as f64
    }
}

/// Parses `0.2`, `1`, `20%` or `12.5%`: at most six decimals of the fraction.
fn parse(text: &str) -> Result<Ratio, String> {
    let t = text.trim();
    let (num, scale) = match t.strip_suffix('%') {
        Some(n) => (n.trim(), 10_000u64),
        None => (t, ONE as u64),
    };
    let bad =
        || format!("`{text}` is not a ratio: write a number from 0 to 1 (e.g. `0.2`) or a percentage (e.g. `20%`)");
    let (int, frac) = num.split_once('.').unwrap_or((num, ""));
    if int.is_empty() || !int.bytes().all(|b| b.is_ascii_digit()) || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    if int.len() > 9 || frac.len() > 9 {
        return Err(bad());
    }
    let int: u64 = int.parse().map_err(|_| bad())?;
    let mut value = int * scale;
    let mut unit = scale;
    for d in frac.bytes() {
        if unit % 10 != 0 {
            return Err(format!("`{text}` has more decimals than a millionth; round it"));
        }
        unit /= 10;
        value += (d - b'0') as u64 * unit;
    }
    if value > ONE as u64 {
        return Err(format!("`{text}` is more than 1 (100%); a ratio is between 0 and 1"));
    }
    Ok(Ratio(value as u32))
}

impl std::str::FromStr for Ratio {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        parse(s)
    }
}

impl std::fmt::Display for Ratio {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (int, frac) = (self.0 / ONE, self.0 % ONE);
        if frac == 0 {
            return write!(f, "{int}");
        }
        let digits = format!("{frac:06}");
        write!(f, "{int}.{}", digits.trim_end_matches('0'))
    }
}

impl Serialize for Ratio {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // A number, exactly as written when it has at most six decimals.
        let v: f64 = self.to_string().parse().expect("a decimal");
        s.serialize_f64(v)
    }
}

impl<'de> Deserialize<'de> for Ratio {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl de::Visitor<'_> for V {
            type Value = Ratio;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a ratio from 0 to 1, e.g. `0.2`, or a percentage, e.g. `20%`")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Ratio, E> {
                parse(v).map_err(E::custom)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Ratio, E> {
                parse(&v.to_string()).map_err(E::custom)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Ratio, E> {
                if v < 0 {
                    return Err(E::custom(format!("`{v}` is negative; a ratio is between 0 and 1")));
                }
                self.visit_u64(v as u64)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Ratio, E> {
                if !v.is_finite() || v < 0.0 {
                    return Err(E::custom(format!("`{v}` is not a ratio between 0 and 1")));
                }
                // The shortest decimal that reads back as `v`, parsed exactly.
                parse(&format!("{v}")).map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

impl JsonSchema for Ratio {
    fn schema_name() -> Cow<'static, str> {
        "Ratio".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A ratio from 0 to 1: a number (e.g. 0.2) or a percentage string (e.g. `20%`), at most six decimals of the fraction.",
            "oneOf": [
                {"type": "number", "minimum": 0, "maximum": 1},
                {"type": "string", "pattern": "^\\s*[0-9]+(\\.[0-9]+)?\\s*%\\s*$"}
            ]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn ratios() {
        assert_eq!("0.2".parse::<Ratio>().unwrap().millionths(), 200_000);
        assert_eq!("20%".parse::<Ratio>().unwrap().millionths(), 200_000);
        assert_eq!("12.5%".parse::<Ratio>().unwrap().millionths(), 125_000);
        assert_eq!("1".parse::<Ratio>().unwrap(), Ratio::ONE);
        assert!("1.5".parse::<Ratio>().is_err());
        assert!("0.0000001".parse::<Ratio>().is_err());
        assert!("-0.2".parse::<Ratio>().is_err());
        assert_eq!(Ratio(333_000).to_string(), "0.333");
        let r: Ratio = serde_json::from_str("0.33").unwrap();
        assert_eq!(r.millionths(), 330_000);
        assert_eq!(serde_json::to_string(&r).unwrap(), "0.33");
    }
}
