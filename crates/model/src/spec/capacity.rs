//! The capacity of a CPU in colour-aware partitioning (CAP, CAP-GS): the
//! fit test a CPU's tasks must pass, either a constant bound on their
//! utilisation (`1` for EDF, `0.69` or `0.75` for rate monotonic as in the
//! EPOS thesis, Ch.8) or the Liu & Layland bound n(2^{1/n} − 1) with n the
//! number of real-time tasks on the CPU (`ll`).
//!
//! A constant is kept as the exact fraction of the decimal the user wrote
//! (`0.69` is 69/100), so the fit test never depends on float rounding.

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A CPU's capacity under CAP / CAP-GS.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Capacity {
    /// Σ u ≤ num/den (0 < num/den ≤ 1).
    Constant { num: u64, den: u64 },
    /// Σ u ≤ n(2^{1/n} − 1), n the number of HRT and SRT tasks on the CPU.
    Ll,
}

impl Capacity {
    /// Capacity 1 (EDF with implicit deadlines).
    pub const ONE: Capacity = Capacity::Constant { num: 1, den: 1 };

    /// The capacity a decimal such as `0.75` or `1` gives, exactly; `None`
    /// outside (0, 1] or with more than 18 decimals.
    pub fn from_decimal(text: &str) -> Option<Capacity> {
        let text = text.trim();
        let (int, frac) = text.split_once('.').unwrap_or((text, ""));
        if int.is_empty() && frac.is_empty() || frac.len() > 18 {
            return None;
        }
        if !int.chars().chain(frac.chars()).all(|c| c.is_ascii_digit()) {
            return None;
        }
        let den = 10u64.pow(frac.len() as u32);
        let int: u64 = if int.is_empty() { 0 } else { int.parse().ok()? };
        let frac: u64 = if frac.is_empty() { 0 } else { frac.parse().ok()? };
        let num = int.checked_mul(den)?.checked_add(frac)?;
        if num == 0 || num > den {
            return None;
        }
        let g = gcd(num, den);
        Some(Capacity::Constant { num: num / g, den: den / g })
    }

    /// For people: `0.75`, `1`, `ll`.
    pub fn text(self) -> String {
        match self {
            Capacity::Constant { num, den } => {
                let s = format!("{:.6}", num as f64 / den as f64);
                s.trim_end_matches('0').trim_end_matches('.').to_string()
            }
            Capacity::Ll => "ll".to_string(),
        }
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl std::fmt::Display for Capacity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text())
    }
}

impl Serialize for Capacity {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            Capacity::Constant { num, den } if num == den => s.serialize_u64(1),
            Capacity::Constant { num, den } => s.serialize_f64(num as f64 / den as f64),
            Capacity::Ll => s.serialize_str("ll"),
        }
    }
}

impl<'de> Deserialize<'de> for Capacity {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Capacity, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Int(u64),
            Float(f64),
            Text(String),
        }
        let bad = || serde::de::Error::custom("expected a number in (0, 1] such as `0.75`, or `ll` (Liu & Layland)");
        match Raw::deserialize(d)? {
            Raw::Int(i) => Capacity::from_decimal(&i.to_string()).ok_or_else(bad),
            // The shortest decimal that reads back as this float is what was written.
            Raw::Float(x) if x.is_finite() && x > 0.0 => Capacity::from_decimal(&format!("{x}")).ok_or_else(bad),
            Raw::Float(_) => Err(bad()),
            Raw::Text(t) if t == "ll" => Ok(Capacity::Ll),
            Raw::Text(t) => Capacity::from_decimal(&t).ok_or_else(bad),
        }
    }
}

impl JsonSchema for Capacity {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Capacity".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A CPU's capacity in colour-aware partitioning: a utilisation bound in (0, 1], e.g. `0.75`, or `ll` (Liu & Layland, n(2^{1/n} − 1) for the n real-time tasks on the CPU).",
            "oneOf": [
                {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
                {"const": "ll"}
            ]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_are_exact_fractions() {
        assert_eq!(Capacity::from_decimal("0.75"), Some(Capacity::Constant { num: 3, den: 4 }));
        assert_eq!(Capacity::from_decimal("0.69"), Some(Capacity::Constant { num: 69, den: 100 }));
        assert_eq!(Capacity::from_decimal("1"), Some(Capacity::ONE));
        assert_eq!(Capacity::from_decimal("1.5"), None);
        assert_eq!(Capacity::from_decimal("0"), None);
        assert_eq!(Capacity::from_decimal("-0.5"), None);
        let c: Capacity = serde_json::from_str("0.69").unwrap();
        assert_eq!(c, Capacity::Constant { num: 69, den: 100 });
        assert_eq!(serde_json::to_string(&c).unwrap(), "0.69");
        let l: Capacity = serde_json::from_str("\"ll\"").unwrap();
        assert_eq!(l, Capacity::Ll);
        assert!(serde_json::from_str::<Capacity>("2").is_err());
        assert!(serde_json::from_str::<Capacity>("\"rta\"").is_err());
    }
}
