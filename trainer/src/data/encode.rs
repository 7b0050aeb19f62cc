//! From a dataset's values to the raw integers a model reads, and the standard feature space.
//!
//! A model's inputs are integers ("raw units"). A numeric attribute has a decimal exponent `k`
//! and an offset `o` (in raw units), both chosen from the training data ([`numeric_scale`]) and
//! stored in the model: a value `v` is the raw input `round(v * 10^k) - o`, computed as
//! `round((v - o * 10^-k) * 10^k)` ([`to_raw`]; [`from_raw`] is its inverse and [`formula`] says
//! it in words). The step `10^-k` is the finest the training values use, so no two distinct
//! values merge, unless the training range (with a margin) would not fit 32 bits at that step;
//! the offset centres the range when that allows a finer step than an offset of zero. A
//! categorical attribute is its value index. Missing values are replaced by
//! [`InputSpec::missing`]: the training mean for a numeric attribute, and for a categorical one
//! the index `n_values`, which every model treats as "unknown" (its equality features are all
//! `-1`, and a tree split on it takes the default branch).
//!
//! The standard feature space gives each numeric attribute one [`Feature::Numeric`] scaled to
//! `[-max_abs, max_abs]` over the training range, and each categorical attribute one
//! [`Feature::Equals`] per value (Utgoff's symmetric encoding: `+1` if attribute = value, else
//! `-1`). Learners compute these with [`Feature::value`], the runtime's own arithmetic.

use crate::data::{AttrKind, Attribute, Dataset, Schema};
use crate::model::{Feature, InputKind, InputSpec, ModelSpec, Names};

/// How far beyond the training range a value may fall and still fit 32 bits: the training
/// values, measured from the offset, stay within `i32::MAX / MARGIN` raw units.
const MARGIN: f64 = 10.0;

/// Input descriptors for a schema, with scales, offsets and missing-value substitutes from
/// `data` (training data).
pub fn input_specs(data: &Dataset) -> Vec<InputSpec> {
    (0..data.n_attrs())
        .map(|a| match &data.schema.attributes[a].kind {
            AttrKind::Categorical { values } => InputSpec {
                kind: InputKind::Categorical { n_values: values.len().min(u16::MAX as usize) as u16 },
                missing: values.len() as i32,
            },
            AttrKind::Numeric { .. } => {
                let values = column(data, a);
                let (scale_exp, offset) = numeric_scale(&values);
                let mean =
                    if values.is_empty() { 0.0 } else { values.iter().sum::<f64>() / values.len() as f64 };
                InputSpec {
                    kind: InputKind::Numeric { scale_exp, offset },
                    missing: to_raw(mean, scale_exp, offset),
                }
            }
        })
        .collect()
}

/// The finite values of column `a`.
fn column(data: &Dataset, a: usize) -> Vec<f64> {
    (0..data.n_rows()).map(|r| data.row(r)[a]).filter(|v| v.is_finite()).collect()
}

/// Decimals `v` needs to be written exactly: those of its shortest round-trip decimal form, so
/// a value read from the text `1.50` and one computed as `1.5` both need 1 (and `1.5e3` needs
/// -2). A value that is no short decimal (a binary fraction such as `0.1f32 as f64`) needs its
/// 15 to 17 significant digits, which [`numeric_scale`] coarsens to what the range allows.
fn decimals_of(v: f64) -> i32 {
    if v == v.trunc() {
        return 0;
    }
    let s = format!("{:e}", v.abs());
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let frac = mantissa.split_once('.').map_or(0, |(_, f)| f.len()) as i32;
    frac - exp.parse::<i32>().unwrap_or(0)
}

/// The finest decimal exponent `values` use (at least 0, at most `i8::MAX`).
fn finest_exp(values: &[f64]) -> i8 {
    values.iter().map(|&v| decimals_of(v)).max().unwrap_or(0).clamp(0, i32::from(i8::MAX)) as i8
}

/// The scale exponent and offset (in raw units) of a numeric column with training values
/// `values` (finite).
///
/// A column of integers that fit `i32` is stored exactly with offset 0 (window statistics are
/// such columns: the device computes them in these units). Otherwise the exponent is the
/// finest the values use (the decimals of their shortest exact form: `1.50` and `1.5` use one),
/// made coarser only as far as the training range, measured from the offset and with a tenfold
/// margin for values beyond it, needs to fit `i32`. The offset is
/// 0 where that costs no precision (thresholds then read as the values themselves), else the
/// midpoint of the range rounded to the step.
pub fn numeric_scale(values: &[f64]) -> (i8, i64) {
    let Some(lo) = values.iter().copied().reduce(f64::min) else { return (0, 0) };
    let hi = values.iter().copied().reduce(f64::max).unwrap_or(lo);
    let integers = values.iter().all(|v| v.trunc() == *v);
    if integers && lo >= f64::from(i32::MIN) && hi <= f64::from(i32::MAX) {
        return (0, 0);
    }
    let limit = f64::from(i32::MAX) / MARGIN;
    let fits = |exp: i8, offset: i64| {
        let base = units_value(offset, exp);
        scaled(lo - base, exp).abs().max(scaled(hi - base, exp).abs()) <= limit
    };
    let finest = finest_exp(values);
    let mut at_zero = finest;
    while at_zero > i8::MIN && !fits(at_zero, 0) {
        at_zero -= 1;
    }
    if at_zero == finest {
        return (finest, 0);
    }
    let mid = lo / 2.0 + hi / 2.0;
    let centred = |exp: i8| scaled(mid, exp).round() as i64;
    let mut exp = finest;
    while exp > at_zero && !fits(exp, centred(exp)) {
        exp -= 1;
    }
    if exp > at_zero {
        (exp, centred(exp))
    } else {
        (at_zero, 0)
    }
}

/// `v * 10^exp`, as the generated code's `ltu_from_double` computes it (one multiplication by
/// the nearest double to `10^exp`), so host and device round alike.
fn scaled(v: f64, exp: i8) -> f64 {
    v * 10f64.powi(i32::from(exp))
}

/// The value `units` raw units stand for at exponent `exp`: `units * 10^-exp`.
fn units_value(units: i64, exp: i8) -> f64 {
    if exp >= 0 {
        units as f64 / 10f64.powi(i32::from(exp))
    } else {
        units as f64 * 10f64.powi(-i32::from(exp))
    }
}

/// What [`input_specs`] decided silently about `data`'s numeric columns, as warnings: a column
/// stored at a coarser step than its values use because its training range must fit `i32` raw
/// units, where that merged training values of different classes; and values beyond the range,
/// clamped.
pub fn precision_warnings(data: &Dataset) -> Vec<String> {
    let inputs = input_specs(data);
    let mut out = Vec::new();
    for (a, (attr, spec)) in data.schema.attributes.iter().zip(&inputs).enumerate() {
        let InputKind::Numeric { scale_exp, offset } = spec.kind else { continue };
        let values = column(data, a);
        let limit = f64::from(i32::MAX);
        let base = units_value(offset, scale_exp);
        let clamped = values.iter().filter(|&&v| scaled(v - base, scale_exp).round().abs() > limit).count();
        if clamped > 0 {
            out.push(format!(
                "column `{}`: {clamped} value(s) are beyond what a 32-bit input holds even in steps of 10^{} and \
                 are clamped to its range",
                attr.name, -scale_exp
            ));
        }
        if scale_exp >= finest_exp(&values) {
            continue;
        }
        // Rows of different classes whose values differ by more than 1 % (measured from the
        // offset) but are stored alike: what a threshold could tell apart before and no test
        // can after. (Values that differ in the last printed digit, such as 0.018518 and
        // 0.018519, are the same quantity.)
        let mut cells: Vec<(i32, f64, usize)> = (0..data.n_rows())
            .filter(|&r| data.row(r)[a].is_finite())
            .map(|r| (to_raw(data.row(r)[a], scale_exp, offset), data.row(r)[a] - base, data.y[r]))
            .collect();
        cells.sort_by(|x, y| x.0.cmp(&y.0).then(x.1.total_cmp(&y.1)));
        let mut confused = 0;
        for group in cells.chunk_by(|x, y| x.0 == y.0) {
            let (lo, hi) = (group[0].1, group[group.len() - 1].1);
            let mixed_values = hi - lo > 0.01 * lo.abs().max(hi.abs());
            let mixed_classes = group.iter().any(|c| c.2 != group[0].2);
            if mixed_values && mixed_classes {
                confused += group.len();
            }
        }
        if confused > 0 {
            out.push(format!(
                "column `{}`: stored as {} so that its training range fits a 32-bit input, so {confused} rows of \
                 different classes whose values differ by more than 1 % read the same value (narrow the column's \
                 range, for example by splitting off its large values, if the small differences matter)",
                attr.name,
                formula(&attr.name, scale_exp, offset)
            ));
        }
    }
    out
}

/// The raw input of value `v` at a numeric input of exponent `exp` and offset `offset` (raw
/// units): `round((v - offset * 10^-exp) * 10^exp)`, half away from zero, saturating at the
/// `i32` range. The one conversion every host path uses.
pub fn to_raw(v: f64, exp: i8, offset: i64) -> i32 {
    let r = scaled(v - units_value(offset, exp), exp).round();
    r.clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32
}

/// The value raw input `raw` stands for: `(raw + offset) * 10^-exp` (the inverse of [`to_raw`]).
pub fn from_raw(raw: i32, exp: i8, offset: i64) -> f64 {
    units_value(offset.saturating_add(i64::from(raw)), exp)
}

/// `units * 10^-exp` written out exactly as a decimal (`decimal(58, 1)` is `5.8`).
pub fn decimal(units: i128, exp: i8) -> String {
    let digits = units.unsigned_abs().to_string();
    let sign = if units < 0 { "-" } else { "" };
    if exp <= 0 {
        let zeros = "0".repeat(usize::from(exp.unsigned_abs()));
        return if units == 0 { "0".into() } else { format!("{sign}{digits}{zeros}") };
    }
    let k = usize::from(exp.unsigned_abs());
    let padded = format!("{digits:0>width$}", width = k + 1);
    let (int, frac) = padded.split_at(padded.len() - k);
    let frac = frac.trim_end_matches('0');
    if frac.is_empty() {
        format!("{sign}{int}")
    } else {
        format!("{sign}{int}.{frac}")
    }
}

/// The exact decimal value raw input `raw` stands for (see [`from_raw`]).
pub fn raw_decimal(raw: i32, exp: i8, offset: i64) -> String {
    decimal(i128::from(offset) + i128::from(raw), exp)
}

/// How a value of `name` becomes its raw input, in words: `round(volts * 10^6)`, or
/// `round((volts - 1.5) * 10^6)` with an offset.
pub fn formula(name: &str, exp: i8, offset: i64) -> String {
    if offset == 0 {
        format!("round({name} * 10^{exp})")
    } else {
        let base = decimal(i128::from(offset), exp);
        match base.strip_prefix('-') {
            Some(b) => format!("round(({name} + {b}) * 10^{exp})"),
            None => format!("round(({name} - {base}) * 10^{exp})"),
        }
    }
}

/// Raw inputs of one row (`NaN` → the input's missing value; categorical values pass through).
pub fn raw_row(inputs: &[InputSpec], row: &[f64]) -> Vec<i32> {
    inputs
        .iter()
        .zip(row)
        .map(|(spec, &v)| {
            if !v.is_finite() {
                return spec.missing;
            }
            match spec.kind {
                InputKind::Numeric { scale_exp, offset } => to_raw(v, scale_exp, offset),
                InputKind::Categorical { .. } => v as i32,
            }
        })
        .collect()
}

/// Raw inputs of every row of a dataset.
pub fn raw_rows(inputs: &[InputSpec], data: &Dataset) -> Vec<Vec<i32>> {
    (0..data.n_rows()).map(|r| raw_row(inputs, data.row(r))).collect()
}

/// The names block for a schema.
pub fn names(schema: &Schema) -> Names {
    Names {
        inputs: schema.attributes.iter().map(|a| a.name.clone()).collect(),
        values: schema
            .attributes
            .iter()
            .map(|a| match &a.kind {
                AttrKind::Categorical { values } => values.clone(),
                AttrKind::Numeric { .. } => Vec::new(),
            })
            .collect(),
        classes: schema.classes.clone(),
    }
}

/// The schema a model was trained on, rebuilt from its names (the inverse of [`names`]): what
/// reading data by name needs. `None` when the model stores no names.
pub fn schema(spec: &ModelSpec) -> Option<Schema> {
    let names = spec.names.clone()?;
    let attributes = spec
        .inputs
        .iter()
        .zip(names.inputs)
        .zip(names.values)
        .map(|((inp, name), values)| Attribute {
            name,
            kind: match inp.kind {
                InputKind::Numeric { scale_exp, .. } => {
                    AttrKind::Numeric { decimals: scale_exp.max(0) as u8 }
                }
                InputKind::Categorical { .. } => AttrKind::Categorical { values },
            },
        })
        .collect();
    Some(Schema { attributes, classes: names.classes })
}

/// A numeric feature mapping raw `[lo, hi]` onto about `[-max_abs, max_abs]`.
pub fn numeric_feature(attr: usize, lo: i32, hi: i32, max_abs: u16) -> Feature {
    let offset = ((i64::from(lo) + i64::from(hi)) / 2) as i32;
    let half = ((i64::from(hi) - i64::from(lo)) as f64 / 2.0).max(0.5);
    // Largest shift whose multiplier still fits in i16.
    let (mut mul, mut shift) = (0i64, 0u8);
    for s in (0..=32u8).rev() {
        let m = (f64::from(max_abs) * 2f64.powi(i32::from(s)) / half).round() as i64;
        if m <= i64::from(i16::MAX) {
            (mul, shift) = (m, s);
            break;
        }
    }
    Feature::Numeric { attr, offset, mul: mul as i16, shift, max_abs }
}

/// The standard feature space over `inputs`, with numeric ranges taken from `rows` (raw inputs).
pub fn standard_features(inputs: &[InputSpec], rows: &[Vec<i32>], max_abs: u16) -> Vec<Feature> {
    let mut features = Vec::new();
    for (a, spec) in inputs.iter().enumerate() {
        match spec.kind {
            InputKind::Numeric { .. } => {
                let lo = rows.iter().map(|r| r[a]).min().unwrap_or(0);
                let hi = rows.iter().map(|r| r[a]).max().unwrap_or(0);
                features.push(numeric_feature(a, lo, hi, max_abs));
            }
            InputKind::Categorical { n_values } => {
                features.extend((0..i32::from(n_values)).map(|value| Feature::Equals { attr: a, value }));
            }
        }
    }
    features
}

/// Values of `features` for each row of raw inputs.
pub fn feature_rows(features: &[Feature], rows: &[Vec<i32>]) -> Vec<Vec<i32>> {
    rows.iter().map(|x| features.iter().map(|f| f.value(x)).collect()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numeric_feature_spans_the_range() {
        let f = numeric_feature(0, 43, 79, 127);
        assert_eq!(f.value(&[43]), -127);
        assert_eq!(f.value(&[79]), 127);
        assert!(f.value(&[61]).abs() <= 1);
        // Values past the training range clamp.
        assert_eq!(f.value(&[1000]), 127);
        assert_eq!(f.value(&[i32::MIN]), -127);
    }

    #[test]
    fn constant_attribute_is_harmless() {
        let f = numeric_feature(0, 5, 5, 1000);
        assert_eq!(f.value(&[5]), 0);
        assert!(f.value(&[6]).abs() <= 1000);
    }

    #[test]
    fn raw_conversion_rounds_and_saturates() {
        assert_eq!(to_raw(5.1, 1, 0), 51);
        assert_eq!(to_raw(-0.25, 1, 0), -3);
        assert_eq!(to_raw(1e12, 0, 0), i32::MAX);
        assert_eq!(to_raw(1.5000012, 6, 1_500_000), 1);
        assert_eq!(to_raw(1e9 + 300.0, -2, 10_000_000), 3);
        assert_eq!(from_raw(3, -2, 10_000_000), 1e9 + 300.0);
        assert_eq!(from_raw(-2, 1, 15), 1.3);
    }

    #[test]
    fn decimals_are_exact() {
        assert_eq!(decimal(58, 1), "5.8");
        assert_eq!(decimal(-5, 2), "-0.05");
        assert_eq!(decimal(1200, 2), "12");
        assert_eq!(decimal(7, -2), "700");
        assert_eq!(decimal(0, -1), "0");
        assert_eq!(decimal(i128::from(i32::MIN), 3), "-2147483.648");
        assert_eq!(raw_decimal(-12, 7, 15_000_000), "1.4999988");
        assert_eq!(formula("volts", 6, 1_500_000), "round((volts - 1.5) * 10^6)");
        assert_eq!(formula("t", 2, -150), "round((t + 1.5) * 10^2)");
        assert_eq!(formula("t", 1, 0), "round(t * 10^1)");
    }

    #[test]
    fn the_step_is_the_finest_the_values_use() {
        // Printed decimals do not matter: 1.50 and 1.5 are one value.
        assert_eq!(numeric_scale(&[1.5, 2.25, -3.0]), (2, 0));
        assert_eq!(numeric_scale(&[1.5e-7, 2.5e-7]), (8, 0));
        assert_eq!(numeric_scale(&[1.234567e-7, -9.87e-8]), (13, 0));
        // Integers that fit 32 bits stay exact with no offset, whatever their range.
        assert_eq!(numeric_scale(&[-2_000_000_000.0, 2_000_000_000.0, 7.0]), (0, 0));
        assert_eq!(numeric_scale(&[]), (0, 0));
    }

    #[test]
    fn a_range_on_a_large_offset_keeps_its_small_steps() {
        let values = [1e9 + 0.25, 1e9 - 0.5, 1e9 + 1.75];
        let (exp, offset) = numeric_scale(&values);
        assert_eq!(exp, 2);
        let raw: Vec<i32> = values.iter().map(|&v| to_raw(v, exp, offset)).collect();
        assert_eq!(raw[0] - raw[1], 75);
        assert_eq!(raw[2] - raw[0], 150);
        for (&v, &r) in values.iter().zip(&raw) {
            assert_eq!(from_raw(r, exp, offset), v);
        }
    }

    #[test]
    fn a_range_too_wide_for_its_step_is_coarsened_to_fit() {
        // Seven significant digits from 1e-9 to 1e3: the range decides the step.
        let values = [1.234567e-9, 1234.567, -0.5];
        let (exp, offset) = numeric_scale(&values);
        assert!(exp < finest_exp(&values));
        let limit = f64::from(i32::MAX) / MARGIN;
        for &v in &values {
            assert!(f64::from(to_raw(v, exp, offset)).abs() <= limit);
        }
        // One step finer, the span alone would not fit, whatever the offset.
        assert!(scaled(1234.567 + 0.5, exp + 1) > 2.0 * limit - 2.0);
    }
}
