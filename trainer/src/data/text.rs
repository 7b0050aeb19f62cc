//! Helpers shared by the CSV and ARFF readers: UTF-8 decoding with a
//! position, the number syntax, the missing-value rule and the intermediate
//! table both readers produce.

use std::borrow::Cow;

use super::DataError;

/// A cell as read from the file: its text (unquoted, and trimmed when it was
/// not quoted) and the line it starts on.
#[derive(Debug)]
pub(crate) struct Cell<'a> {
    pub text: Cow<'a, str>,
    pub line: usize,
}

impl Cell<'_> {
    /// A cell is missing when its text is empty or `?`.
    pub(crate) fn is_missing(&self) -> bool {
        is_missing(&self.text)
    }
}

/// The missing-value rule shared by both formats.
pub(crate) fn is_missing(text: &str) -> bool {
    text.is_empty() || text == "?"
}

/// What a cell's text looks like as a number.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Look {
    /// A finite decimal number and its digits after the point (see [`parse_number`]).
    Number(f64, u8),
    /// Number-like but not finite: `inf`, `infinity`, `nan` (any case, optional sign) or a
    /// decimal that overflows `f64` (`1e309`).
    NonFinite,
    /// Anything else.
    Text,
}

/// Classifies `s` as a finite number, a non-finite number-like value, or text.
pub(crate) fn look(s: &str) -> Look {
    if let Some((v, d)) = parse_number(s) {
        return Look::Number(v, d);
    }
    let unsigned = s.strip_prefix(['+', '-']).unwrap_or(s);
    let word = ["inf", "infinity", "nan"].iter().any(|w| unsigned.eq_ignore_ascii_case(w));
    // Valid decimal syntax whose value is not finite (parse_number said no only because of that).
    let overflow = !unsigned.is_empty()
        && unsigned.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
        && s.parse::<f64>().is_ok_and(|v| !v.is_finite());
    if word || overflow {
        Look::NonFinite
    } else {
        Look::Text
    }
}

/// The type a file declares for a column.
#[derive(Debug)]
pub(crate) enum Declared {
    /// CSV: no declaration, the type is inferred from the values.
    Untyped,
    /// ARFF `numeric`, `real` or `integer`.
    Numeric,
    /// ARFF `{a, b, ...}`: values in declaration order (already checked
    /// against every data cell by the ARFF reader).
    Nominal(Vec<String>),
    /// ARFF `string`: free text, treated as categorical.
    Text,
}

/// A column header.
#[derive(Debug)]
pub(crate) struct RawColumn {
    pub name: String,
    pub declared: Declared,
}

/// One data row; every row has exactly one cell per column.
#[derive(Debug)]
pub(crate) struct RawRow<'a> {
    pub cells: Vec<Cell<'a>>,
}

/// The parsed but untyped contents of a file.
#[derive(Debug)]
pub(crate) struct RawTable<'a> {
    /// The line that names the columns (CSV header, first ARFF `@attribute`).
    pub header_line: usize,
    pub columns: Vec<RawColumn>,
    pub rows: Vec<RawRow<'a>>,
}

/// Decodes `bytes` as UTF-8, dropping a leading byte-order mark.
pub(crate) fn decode<'a>(path: &str, bytes: &'a [u8]) -> Result<&'a str, DataError> {
    const BOM: &[u8] = b"\xEF\xBB\xBF";
    let (bom_len, body) = match bytes.strip_prefix(BOM) {
        Some(rest) => (BOM.len(), rest),
        None => (0, bytes),
    };
    std::str::from_utf8(body).map_err(|err| {
        let bad = err.valid_up_to();
        let before = &body[..bad];
        let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        // `before` is valid UTF-8 by construction, so counting chars works.
        let column =
            std::str::from_utf8(&before[line_start..]).map_or(bad - line_start, |s| s.chars().count()) + 1;
        DataError::InvalidUtf8 {
            path: path.to_string(),
            line: before.iter().filter(|&&b| b == b'\n').count() + 1,
            column,
            offset: bom_len + bad,
            byte: body.get(bad).copied().unwrap_or(0),
        }
    })
}

/// 1-based character column of byte offset `pos` in a line starting at byte
/// offset `line_start` of `text`.
pub(crate) fn char_column(text: &str, line_start: usize, pos: usize) -> usize {
    text.get(line_start..pos).map_or(pos.saturating_sub(line_start), |s| s.chars().count()) + 1
}

/// Parses a decimal number: `[+-]digits[.digits][(e|E)[+-]digits]`, with
/// digits on at least one side of the point; no spaces, `inf`, `nan`, hex or
/// digit separators. Returns the value if it is finite, and the number of
/// digits after the decimal point it was written with (for exponent notation,
/// the digits needed after the point: `1.5e-3` has 4, `2e3` has 0), capped
/// at 255.
pub(crate) fn parse_number(s: &str) -> Option<(f64, u8)> {
    let b = s.as_bytes();
    let digits_from = |mut i: usize| {
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        i
    };
    let mut i = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        i = 1;
    }
    let int_end = digits_from(i);
    let mut frac_digits = 0usize;
    let mut end = int_end;
    if b.get(end) == Some(&b'.') {
        let frac_end = digits_from(end + 1);
        frac_digits = frac_end - (end + 1);
        end = frac_end;
    }
    if int_end == i && frac_digits == 0 {
        return None;
    }
    let mut exponent: i64 = 0;
    if matches!(b.get(end), Some(b'e' | b'E')) {
        let mut j = end + 1;
        let negative = b.get(j) == Some(&b'-');
        if matches!(b.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        let exp_end = digits_from(j);
        if exp_end == j {
            return None;
        }
        for &d in &b[j..exp_end] {
            exponent = (exponent * 10 + i64::from(d - b'0')).min(1_000_000);
        }
        if negative {
            exponent = -exponent;
        }
        end = exp_end;
    }
    if end != b.len() {
        return None;
    }
    let value: f64 = s.parse().ok()?;
    if !value.is_finite() {
        return None;
    }
    let frac_digits = i64::try_from(frac_digits).unwrap_or(i64::MAX);
    let decimals = frac_digits.saturating_sub(exponent).clamp(0, 255);
    Some((value, u8::try_from(decimals).unwrap_or(u8::MAX)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert_eq!(parse_number("5.1"), Some((5.1, 1)));
        assert_eq!(parse_number("-0.50"), Some((-0.5, 2)));
        assert_eq!(parse_number("+3"), Some((3.0, 0)));
        assert_eq!(parse_number(".5"), Some((0.5, 1)));
        assert_eq!(parse_number("5."), Some((5.0, 0)));
        assert_eq!(parse_number("1.5e-3"), Some((0.0015, 4)));
        assert_eq!(parse_number("2E3"), Some((2000.0, 0)));
        assert_eq!(parse_number("1.25e+1"), Some((12.5, 1)));
        assert_eq!(parse_number("1e-999999999"), Some((0.0, 255)));
        for bad in [
            "", "-", ".", "e5", "1e", "1e+", "inf", "NaN", "0x10", "1_0", " 1", "1 ", "1e400", "1.2.3",
            "--1", "١",
        ] {
            assert_eq!(parse_number(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn looks() {
        assert_eq!(look("5.1"), Look::Number(5.1, 1));
        for nf in ["inf", "-inf", "+Infinity", "NaN", "nan", "1e309", "-1.5e400"] {
            assert_eq!(look(nf), Look::NonFinite, "{nf:?}");
        }
        for t in ["abc", "1.2.3", "0x10", "in", "", "e5"] {
            assert_eq!(look(t), Look::Text, "{t:?}");
        }
    }

    #[test]
    fn utf8_positions() {
        let err = decode("f", b"a,b\nc\xff,d").unwrap_err();
        assert_eq!(err.to_string(), "f:2:2: invalid UTF-8: byte 0xFF at byte offset 5");
        // A byte-order mark is skipped but still counted in the offset.
        let err = decode("f", b"\xEF\xBB\xBF\xc3").unwrap_err();
        assert_eq!(err.to_string(), "f:1:1: invalid UTF-8: byte 0xC3 at byte offset 3");
        assert_eq!(decode("f", b"\xEF\xBB\xBFa,b").unwrap(), "a,b");
        // Columns count characters, not bytes.
        let err = decode("f", "é,".as_bytes().iter().chain(b"\x80").copied().collect::<Vec<u8>>().as_slice())
            .unwrap_err();
        assert_eq!(err.to_string(), "f:1:3: invalid UTF-8: byte 0x80 at byte offset 3");
    }
}
