//! Exact parsing of a non-negative decimal number followed by a unit, as used by
//! durations (`2.5ms`) and sizes (`1.5MiB`). The value is scaled by the unit in
//! exact integer arithmetic; a fraction that does not come out whole is an error,
//! never a rounding.

/// Why a quantity with a unit could not be read. The message is complete and
/// says what would be valid; `units` lists the accepted unit names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuantityError(pub String);

impl std::fmt::Display for QuantityError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for QuantityError {}

/// Longest run of digits accepted on either side of the decimal point. Larger
/// inputs cannot denote a representable quantity anyway.
const MAX_DIGITS: usize = 30;

/// Parses `<digits>[.<digits>]<spaces><unit>` where `unit` is looked up in
/// `units` (name, scale). Returns the exact integer value `number × scale`.
/// `what` names the quantity in messages ("duration", "size"), `smallest`
/// names the base unit ("nanoseconds", "bytes").
pub fn parse_scaled(text: &str, units: &[(&str, u64)], what: &str, smallest: &str) -> Result<u64, QuantityError> {
    let names = units.iter().map(|(n, _)| format!("`{n}`")).collect::<Vec<_>>().join(", ");
    let s = text.trim();
    let bad = |why: &str| QuantityError(format!("`{text}` is not a valid {what}: {why}"));
    if s.is_empty() {
        return Err(bad(&format!("it is empty; write a number and a unit ({names}), e.g. `10{}`", units[0].0)));
    }
    if s.starts_with('-') {
        return Err(bad("it is negative; use a value of 0 or more"));
    }
    let num_end = s.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(s.len());
    let (num, unit) = (&s[..num_end], s[num_end..].trim());
    if num.is_empty() {
        return Err(bad(&format!("it does not start with a number; write e.g. `10{}`", units[0].0)));
    }
    let (int_part, frac_part) = match num.split_once('.') {
        Some((i, f)) => (i, f),
        None => (num, ""),
    };
    if int_part.is_empty() || frac_part.contains('.') || (num.contains('.') && frac_part.is_empty()) {
        return Err(bad("the number is malformed; write digits with at most one decimal point, e.g. `2.5`"));
    }
    if int_part.len() > MAX_DIGITS || frac_part.len() > MAX_DIGITS {
        return Err(bad(&format!("the number has too many digits (at most {MAX_DIGITS} on each side of the point)")));
    }
    if unit.is_empty() {
        return Err(bad(&format!("the unit is missing; add one of {names}")));
    }
    let Some(&(_, scale)) = units.iter().find(|(n, _)| *n == unit) else {
        return Err(bad(&format!("unknown unit `{unit}`; use one of {names}")));
    };
    let too_large = || bad(&format!("it is too large (the largest {what} is {} {smallest})", u64::MAX));
    // Both parts have at most 30 digits, so they fit in u128 (< 3.4e38).
    let int: u128 = int_part.parse().map_err(|_| too_large())?;
    let frac_digits = frac_part.trim_end_matches('0');
    let frac: u128 = if frac_digits.is_empty() { 0 } else { frac_digits.parse().map_err(|_| too_large())? };
    let denom = 10u128.checked_pow(frac_digits.len() as u32).ok_or_else(too_large)?;
    let scaled_frac = frac.checked_mul(scale as u128).ok_or_else(too_large)?;
    if scaled_frac % denom != 0 {
        return Err(bad(&format!(
            "it is not a whole number of {smallest}; time and sizes are exact integers of {smallest}, so use fewer decimals or a smaller unit"
        )));
    }
    let total =
        int.checked_mul(scale as u128).and_then(|v| v.checked_add(scaled_frac / denom)).ok_or_else(too_large)?;
    u64::try_from(total).map_err(|_| too_large())
}

/// Formats `value` in the largest unit of `units` that divides it exactly,
/// so that the text parses back to the same value. `units` must be sorted by
/// increasing scale and start with scale 1.
pub fn format_scaled(value: u64, units: &[(&str, u64)]) -> String {
    let (name, scale) =
        units.iter().rev().find(|(_, s)| value != 0 && value.is_multiple_of(*s)).copied().unwrap_or(units[0]);
    format!("{}{}", value / scale, name)
}

#[cfg(test)]
mod tests {
    use super::*;
    const U: &[(&str, u64)] = &[("ns", 1), ("us", 1_000), ("ms", 1_000_000), ("s", 1_000_000_000)];

    #[test]
    fn exact_decimals() {
        assert_eq!(parse_scaled("2.5ms", U, "duration", "ns").unwrap(), 2_500_000);
        assert_eq!(parse_scaled(" 10 us ", U, "duration", "ns").unwrap(), 10_000);
        assert_eq!(parse_scaled("0.000000001s", U, "duration", "ns").unwrap(), 1);
        assert_eq!(parse_scaled("1.500000000000ms", U, "duration", "ns").unwrap(), 1_500_000);
    }

    #[test]
    fn rejects_fractions_of_the_base_unit() {
        let e = parse_scaled("2.5ns", U, "duration", "ns").unwrap_err();
        assert!(e.0.contains("whole number of ns"), "{e}");
        assert!(parse_scaled("0.0000000001s", U, "duration", "ns").is_err());
    }

    #[test]
    fn rejects_malformed() {
        for t in ["", "ms", "1..2ms", "1.ms", ".5ms", "-1ms", "1e3ms", "10", "10 parsecs", "1.2.3s"] {
            assert!(parse_scaled(t, U, "duration", "ns").is_err(), "{t}");
        }
    }

    #[test]
    fn overflow_is_an_error() {
        assert!(parse_scaled("18446744073709551615ns", U, "duration", "ns").is_ok());
        assert!(parse_scaled("18446744073709551616ns", U, "duration", "ns").is_err());
        assert!(parse_scaled("99999999999999999999s", U, "duration", "ns").is_err());
        assert!(parse_scaled(&format!("{}s", "9".repeat(40)), U, "duration", "ns").is_err());
    }

    #[test]
    fn format_round_trips() {
        for v in [0u64, 1, 999, 1000, 2_500_000, 3_000_000_000, u64::MAX] {
            let t = format_scaled(v, U);
            assert_eq!(parse_scaled(&t, U, "duration", "ns").unwrap(), v, "{t}");
        }
        assert_eq!(format_scaled(2_500_000, U), "2500us");
        assert_eq!(format_scaled(0, U), "0ns");
    }
}
