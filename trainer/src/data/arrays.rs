//! A [`Dataset`] from values already in memory (a front end's arrays) rather than from a file.
//!
//! The values mean what the loaders' do: a numeric attribute's value, a categorical attribute's
//! value index, `NaN` for a missing cell. A numeric column's decimals (which fix its step in the
//! model's raw units, [`super::encode`]) are those of its values written in the shortest form that
//! reads back as the same number, so a value read from a file that wrote it that way gets the
//! loader's decimals.

use super::{text, AttrKind, Attribute, Dataset, Schema};

/// Why values cannot make a dataset; rows and columns are 0-based, as in the arrays.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ArrayError {
    /// `x` does not hold `rows * columns` values, or `y` not one class per row.
    #[error("{what}")]
    Shape {
        /// What does not match.
        what: String,
    },
    /// An infinite numeric value.
    #[error("row {row}, column `{column}`: {value} is not a finite number")]
    NotFinite {
        /// Row.
        row: usize,
        /// Column name.
        column: String,
        /// The value.
        value: f64,
    },
    /// A categorical cell that is not the index of one of its column's values.
    #[error("row {row}, column `{column}`: {value} is not the index of one of its {n_values} values")]
    BadCategory {
        /// Row.
        row: usize,
        /// Column name.
        column: String,
        /// The cell.
        value: f64,
        /// Values of the column.
        n_values: usize,
    },
    /// A class index beyond the class names.
    #[error("row {row}: class index {class} but {n_classes} classes")]
    BadClass {
        /// Row.
        row: usize,
        /// The index.
        class: usize,
        /// Classes.
        n_classes: usize,
    },
}

/// A column of [`from_arrays`]: its name, and for a categorical column its values.
#[derive(Debug, Clone)]
pub struct ColumnSpec {
    /// Name.
    pub name: String,
    /// `Some(values)`: categorical, its cells are indices into `values`.
    pub categories: Option<Vec<String>>,
}

/// A dataset of `columns`, row-major values `x` (taken, not copied) and class indices `y` into
/// `classes`; `source` names it in messages.
///
/// # Errors
/// [`ArrayError`] for a shape mismatch, an infinite number, a categorical cell or class that is not
/// an index in range.
pub fn from_arrays(
    source: &str,
    columns: Vec<ColumnSpec>,
    x: Vec<f64>,
    y: Vec<usize>,
    classes: Vec<String>,
) -> Result<Dataset, ArrayError> {
    let n_attrs = columns.len();
    let n_rows = y.len();
    if x.len() != n_rows * n_attrs {
        return Err(ArrayError::Shape {
            what: format!("{} values for {n_rows} rows of {n_attrs} columns", x.len()),
        });
    }
    if let Some((row, &class)) = y.iter().enumerate().find(|(_, &c)| c >= classes.len()) {
        return Err(ArrayError::BadClass { row, class, n_classes: classes.len() });
    }
    let mut attributes = Vec::with_capacity(n_attrs);
    for (a, column) in columns.into_iter().enumerate() {
        let cells = (0..n_rows).map(|r| x[r * n_attrs + a]);
        let kind = match column.categories {
            Some(values) => {
                let bad = cells
                    .enumerate()
                    .find(|&(_, v)| !v.is_nan() && (v < 0.0 || v.fract() != 0.0 || v >= values.len() as f64));
                if let Some((row, value)) = bad {
                    return Err(ArrayError::BadCategory {
                        row,
                        column: column.name,
                        value,
                        n_values: values.len(),
                    });
                }
                AttrKind::Categorical { values }
            }
            None => {
                let mut decimals = 0u8;
                for (row, v) in cells.enumerate() {
                    if v.is_nan() {
                        continue;
                    }
                    // `{}` writes the shortest text that reads back as `v`, never in exponent form.
                    match text::parse_number(&v.to_string()) {
                        Some((_, d)) => decimals = decimals.max(d),
                        None => return Err(ArrayError::NotFinite { row, column: column.name, value: v }),
                    }
                }
                AttrKind::Numeric { decimals }
            }
        };
        attributes.push(Attribute { name: column.name, kind });
    }
    Ok(Dataset { schema: Schema { attributes, classes }, x, y, source: source.to_string() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn columns() -> Vec<ColumnSpec> {
        vec![
            ColumnSpec { name: "a".into(), categories: None },
            ColumnSpec { name: "b".into(), categories: Some(vec!["x".into(), "y".into()]) },
        ]
    }

    #[test]
    fn decimals_and_kinds_as_the_loader_reads_them() {
        let x = vec![1.5, 0.0, 0.25, f64::NAN, f64::NAN, 1.0];
        let d = from_arrays("t", columns(), x, vec![0, 1, 0], vec!["p".into(), "q".into()]).unwrap();
        assert_eq!(d.schema.attributes[0].kind, AttrKind::Numeric { decimals: 2 });
        assert!(matches!(d.schema.attributes[1].kind, AttrKind::Categorical { .. }));
        assert_eq!(d.n_rows(), 3);
    }

    #[test]
    fn bad_values_are_errors_with_their_position() {
        let classes = || vec!["p".to_string()];
        let e = from_arrays("t", columns(), vec![f64::INFINITY, 0.0], vec![0], classes()).unwrap_err();
        assert_eq!(e.to_string(), "row 0, column `a`: inf is not a finite number");
        let e = from_arrays("t", columns(), vec![1.0, 2.0], vec![0], classes()).unwrap_err();
        assert!(matches!(e, ArrayError::BadCategory { row: 0, .. }), "{e}");
        let e = from_arrays("t", columns(), vec![1.0, 1.5], vec![0], classes()).unwrap_err();
        assert!(matches!(e, ArrayError::BadCategory { .. }), "{e}");
        let e = from_arrays("t", columns(), vec![1.0, 0.0], vec![1], classes()).unwrap_err();
        assert!(matches!(e, ArrayError::BadClass { class: 1, .. }), "{e}");
        let e = from_arrays("t", columns(), vec![1.0], vec![0], classes()).unwrap_err();
        assert!(matches!(e, ArrayError::Shape { .. }), "{e}");
    }
}
