//! From a dataset's values to the raw integers a model reads, and the standard feature space.
//!
//! A model's inputs are integers ("raw units"): a numeric attribute with `d` decimals is stored as
//! `round(v * 10^d)`, a categorical attribute as its value index. Missing values are replaced by
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

/// Input descriptors for a schema, with missing-value substitutes from `data` (training data).
pub fn input_specs(data: &Dataset) -> Vec<InputSpec> {
    let n = data.n_attrs();
    (0..n)
        .map(|a| match &data.schema.attributes[a].kind {
            AttrKind::Categorical { values } => InputSpec {
                kind: InputKind::Categorical { n_values: values.len().min(u16::MAX as usize) as u16 },
                missing: values.len() as i32,
            },
            AttrKind::Numeric { decimals } => {
                let col = (0..data.n_rows()).map(|r| data.row(r)[a]).filter(|v| v.is_finite());
                let (mut sum, mut cnt, mut max_abs) = (0.0, 0usize, 0f64);
                for v in col {
                    sum += v;
                    cnt += 1;
                    max_abs = max_abs.max(v.abs());
                }
                // Keep every training value (and ten times it) inside i32 raw units; a column of
                // integers that fit i32 stays exact (window statistics are such columns: the
                // device computes them in these units).
                let mut exp = i32::from(*decimals).min(9);
                let exact = *decimals == 0 && max_abs <= f64::from(i32::MAX);
                while !exact && exp > -9 && max_abs * 10f64.powi(exp) * 10.0 > f64::from(i32::MAX) {
                    exp -= 1;
                }
                let mean = if cnt > 0 { sum / cnt as f64 } else { 0.0 };
                InputSpec {
                    kind: InputKind::Numeric { scale_exp: exp as i8 },
                    missing: to_raw(mean, exp as i8),
                }
            }
        })
        .collect()
}

/// What [`input_specs`] decided silently about `data`'s numeric columns, as warnings: a column
/// stored at a coarser step than its decimals because its largest value must fit `i32` raw units,
/// where that merged distinct training values; and values beyond even the coarsest step, clamped.
pub fn precision_warnings(data: &Dataset) -> Vec<String> {
    let inputs = input_specs(data);
    let mut out = Vec::new();
    for (a, (attr, spec)) in data.schema.attributes.iter().zip(&inputs).enumerate() {
        let (AttrKind::Numeric { decimals }, InputKind::Numeric { scale_exp }) = (&attr.kind, spec.kind)
        else {
            continue;
        };
        let values: Vec<f64> = (0..data.n_rows()).map(|r| data.row(r)[a]).filter(|v| v.is_finite()).collect();
        let limit = f64::from(i32::MAX);
        let clamped =
            values.iter().filter(|v| (*v * 10f64.powi(i32::from(scale_exp))).abs().round() > limit).count();
        if clamped > 0 {
            out.push(format!(
                "column `{}`: {clamped} value(s) are beyond what a 32-bit input holds even in steps of 10^{} and \
                 are clamped to its range",
                attr.name, -scale_exp
            ));
        }
        if i32::from(scale_exp) >= i32::from(*decimals) {
            continue;
        }
        // Rows of different classes whose values differ by more than 1 % but are stored alike:
        // what a threshold could tell apart before and no test can after. (Values that differ
        // in the last printed digit, such as 0.018518 and 0.018519, are the same quantity.)
        let mut cells: Vec<(i32, f64, usize)> = (0..data.n_rows())
            .filter(|&r| data.row(r)[a].is_finite())
            .map(|r| (to_raw(data.row(r)[a], scale_exp), data.row(r)[a], data.y[r]))
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
        if confused == 0 {
            continue;
        }
        let why = if scale_exp == 9 {
            "ltu keeps at most 9 decimals; scale the column up if the smaller digits matter".to_string()
        } else {
            "its largest magnitude must fit a 32-bit input; subtract an offset from the column (or narrow its \
             range) if the small differences matter"
                .to_string()
        };
        out.push(format!(
            "column `{}`: stored in steps of 10^{}, so {confused} rows of different classes whose values differ \
             by more than 1 % read the same value ({why})",
            attr.name, -scale_exp
        ));
    }
    out
}

/// `round(v * 10^exp)`, saturating at the `i32` range.
pub fn to_raw(v: f64, exp: i8) -> i32 {
    let r = (v * 10f64.powi(i32::from(exp))).round();
    r.clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32
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
                InputKind::Numeric { scale_exp } => to_raw(v, scale_exp),
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
                InputKind::Numeric { scale_exp } => AttrKind::Numeric { decimals: scale_exp.max(0) as u8 },
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
        assert_eq!(to_raw(5.1, 1), 51);
        assert_eq!(to_raw(-0.25, 1), -3);
        assert_eq!(to_raw(1e12, 0), i32::MAX);
    }
}
