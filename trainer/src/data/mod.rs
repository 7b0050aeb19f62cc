//! The data model every learning algorithm uses, and the CSV / ARFF loaders
//! that build it.
//!
//! A [`Dataset`] is a dense row-major table of `f64` attribute values plus
//! one class index per row, described by a [`Schema`]. Files are untrusted
//! input: [`load`] and [`load_with_schema`] never panic, and every problem
//! is a [`DataError`] whose message starts with `path:line:column:` so it can
//! be found in the file.
//!
//! # Formats
//!
//! - **CSV** (any file not detected as ARFF): comma-separated, a header row
//!   naming the columns, RFC 4180 quoting (`"a, b"`, `""` for a quote, line
//!   breaks allowed inside quotes), unquoted fields trimmed of spaces and
//!   tabs, blank lines skipped, UTF-8 with an optional byte-order mark.
//! - **ARFF** (extension `.arff`, any case, or a file whose first line that
//!   is neither blank nor a `%` comment starts with `@relation`): dense
//!   Weka ARFF with `numeric` / `real` / `integer`, `string` and nominal
//!   `{a, b}` attributes, `%` comments and quoted names and values. Sparse
//!   rows, instance weights and `date` / `relational` attributes are
//!   rejected with [`DataError::Unsupported`].
//!
//! In both formats a cell whose text (unquoted, trimmed) is empty or `?` is
//! **missing**; in a numeric column so are the words of
//! [`LoadOptions::missing_values`] (by default [`DEFAULT_MISSING_VALUES`]:
//! `NA`, `N/A`, `NaN`, `nan`, `null`, `NULL`). The path `-` reads standard
//! input.
//!
//! # Columns and types
//!
//! The target (class) column is [`LoadOptions::target`], by default the last
//! column; columns named in [`LoadOptions::ignore`] are dropped; every other
//! column is an attribute, in file order. An attribute's type is, in order
//! of precedence:
//!
//! 1. [`LoadOptions::numeric`] / [`LoadOptions::categorical`] overrides;
//! 2. the ARFF declaration (`string` is categorical);
//! 3. for CSV, inferred: numeric if every value that is not a missing word
//!    looks like a number (`[+-]digits[.digits][e[+-]digits]`, or a
//!    non-finite `inf`, `nan`, `1e309`), otherwise categorical
//!    ([`load_with_warnings`] warns when most values were numbers).
//!
//! A value in a numeric column that is not a finite number is an error
//! ([`DataError::NotNumeric`]), so `inf` or `1e309` among numbers is
//! reported at its line and column rather than turning the column
//! categorical.
//!
//! The class column is always categorical. One whose values all look like
//! numbers is refused ([`DataError::NumericTarget`]) unless it is named in
//! [`LoadOptions::categorical`] or declared nominal in ARFF, except for
//! integer codes with at most [`MAX_INTEGER_CODED_CLASSES`] distinct values,
//! which are read as class labels with a warning.
//!
//! # Value and class order
//!
//! Categorical values and class names are numbered in **order of first
//! appearance** in the file (so `y`/`n` columns keep the file's order and the
//! same file always gives the same numbering). ARFF nominal attributes and
//! an ARFF nominal target keep their **declared** order instead, including
//! declared values or classes that no row uses. Values are compared as exact
//! strings: `1` and `1.0` are different categories.
//!
//! # Missing values
//!
//! Missing attribute values are kept as `NaN` in [`Dataset::x`]; how to
//! treat them is up to each algorithm (mean/mode imputation with
//! [`Dataset::impute_values`], an "unknown" branch, ...). A missing class
//! label is an error ([`DataError::MissingClass`]).
//!
//! # Error positions
//!
//! In `path:line:column:` both numbers are 1-based; `line` is the physical
//! line where the offending cell starts. `column` is the **field number**
//! (the CSV column, or the ARFF attribute number) for errors about a value
//! or a column name ([`DataError::Ragged`], [`DataError::NotNumeric`],
//! [`DataError::MissingClass`], [`DataError::UndeclaredValue`],
//! [`DataError::DuplicateColumn`], [`DataError::EmptyColumnName`]), and the
//! **character position** in the line for [`DataError::Syntax`],
//! [`DataError::Unsupported`], [`DataError::InvalidUtf8`] and [`DataError::Binary`] (a byte-order
//! mark is no character); the last two also give the byte offset.
//!
//! ```
//! use ltu::data::{load, LoadOptions};
//! # let dir = tempfile::tempdir().unwrap();
//! # let path = dir.path().join("votes.csv");
//! # std::fs::write(&path, "vote,age,party\ny,41,dem\nn,?,rep\ny,33,dem\n").unwrap();
//! let data = load(&path, &LoadOptions::default())?;
//! assert_eq!((data.n_rows(), data.n_attrs()), (3, 2));
//! assert_eq!(data.schema.classes, ["dem", "rep"]);
//! assert_eq!(data.row(1)[0], 1.0); // `n` is the second `vote` value seen
//! assert!(data.row(1)[1].is_nan()); // `?` is missing
//! # Ok::<(), ltu::data::DataError>(())
//! ```

mod arff;
mod csv;
pub mod encode;
pub mod recordings;
pub mod split;
mod text;

use std::collections::HashMap;
use std::fmt;
use std::path::Path;

use serde::{Deserialize, Serialize};

use text::{look, Cell, Declared, Look, RawTable};

/// The words that mark a missing value in a numeric column unless [`LoadOptions::missing_values`]
/// says otherwise (`?` and the empty cell are missing in every column regardless).
pub const DEFAULT_MISSING_VALUES: &[&str] = &["?", "", "NA", "N/A", "NaN", "nan", "null", "NULL"];

/// A class column whose values all look like integers is read as class labels (with a warning)
/// when it has at most this many distinct values; with more, or with any non-integer value, it is
/// refused unless named in [`LoadOptions::categorical`].
pub const MAX_INTEGER_CODED_CLASSES: usize = 20;

/// The type of an attribute.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum AttrKind {
    /// A number; [`Dataset::x`] holds its value.
    Numeric {
        /// The most digits after the decimal point among the column's
        /// values as written (for exponent notation, the digits needed
        /// after the point: `1.5e-3` counts 4), capped at 255. Multiplying
        /// by `10^decimals` converts every value of the column to an
        /// integer number of raw units.
        decimals: u8,
    },
    /// One of a fixed set of strings; [`Dataset::x`] holds the index into
    /// `values` as an `f64`.
    Categorical {
        /// The value names, in order of first appearance (ARFF: declared
        /// order).
        values: Vec<String>,
    },
}

/// A named attribute (input column).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attribute {
    /// The column name from the file header.
    pub name: String,
    /// Numeric or categorical.
    pub kind: AttrKind,
}

/// What the columns of a [`Dataset`] mean: the attributes, in order, and the
/// class names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Schema {
    /// The attributes, in file order (target and ignored columns removed).
    pub attributes: Vec<Attribute>,
    /// The class names; a class index is a position in this list.
    pub classes: Vec<String>,
}

impl Schema {
    /// Number of attributes.
    pub fn n_attrs(&self) -> usize {
        self.attributes.len()
    }

    /// Number of classes.
    pub fn n_classes(&self) -> usize {
        self.classes.len()
    }

    /// Index of the attribute called `name`, if any.
    pub fn attribute_index(&self, name: &str) -> Option<usize> {
        self.attributes.iter().position(|a| a.name == name)
    }
}

/// A table of examples: attribute values and a class per row.
///
/// Datasets built by [`load`] and [`load_with_schema`] satisfy:
/// `x.len() == n_rows() * n_attrs()`; every `y[i] < schema.classes.len()`;
/// each non-`NaN` value of a categorical attribute is an integer index into
/// its `values`; numeric values are finite.
#[derive(Debug, Clone, PartialEq)]
pub struct Dataset {
    /// Attribute and class names and types.
    pub schema: Schema,
    /// Row-major values, `n_rows * n_attrs`: the number for a numeric
    /// attribute, the value index (as `f64`) for a categorical one, `NaN`
    /// when missing.
    pub x: Vec<f64>,
    /// Class index of each row.
    pub y: Vec<usize>,
    /// Where the data came from (the file path), for messages.
    pub source: String,
}

impl Dataset {
    /// Number of rows (examples).
    pub fn n_rows(&self) -> usize {
        self.y.len()
    }

    /// Number of attributes.
    pub fn n_attrs(&self) -> usize {
        self.schema.attributes.len()
    }

    /// Number of classes.
    pub fn n_classes(&self) -> usize {
        self.schema.classes.len()
    }

    /// The attribute values of row `i`.
    ///
    /// # Panics
    ///
    /// Panics if `i >= n_rows()`.
    pub fn row(&self, i: usize) -> &[f64] {
        let n = self.n_attrs();
        &self.x[i * n..(i + 1) * n]
    }

    /// A new dataset holding the given rows, in the given order (an index
    /// may repeat), with the same schema and source.
    ///
    /// # Panics
    ///
    /// Panics if an index is `>= n_rows()`.
    pub fn subset(&self, rows: &[usize]) -> Dataset {
        let mut x = Vec::with_capacity(rows.len() * self.n_attrs());
        for &i in rows {
            x.extend_from_slice(self.row(i));
        }
        Dataset {
            schema: self.schema.clone(),
            x,
            y: rows.iter().map(|&i| self.y[i]).collect(),
            source: self.source.clone(),
        }
    }

    /// Number of rows of each class, indexed by class (length
    /// `n_classes()`; a `y` outside the class list is not counted).
    pub fn class_counts(&self) -> Vec<usize> {
        let mut counts = vec![0; self.n_classes()];
        for &c in &self.y {
            if let Some(count) = counts.get_mut(c) {
                *count += 1;
            }
        }
        counts
    }

    /// A value per attribute to put in place of a missing one, computed
    /// from this dataset's non-missing values (use the training set's):
    ///
    /// - numeric: the mean, rounded to the attribute's `decimals` (so it is
    ///   a whole number of raw units);
    /// - categorical: the index of the most frequent value (the lowest index
    ///   on a tie).
    ///
    /// An attribute with no non-missing value gets `0.0` (for a categorical
    /// attribute whose `values` is empty, which only happens when every
    /// cell of the column is missing, that is not a valid index: such an
    /// attribute carries no information and is best skipped).
    pub fn impute_values(&self) -> Vec<f64> {
        let n = self.n_attrs();
        self.schema
            .attributes
            .iter()
            .enumerate()
            .map(|(j, attr)| {
                let column =
                    (0..self.n_rows()).filter_map(|i| self.x.get(i * n + j).copied()).filter(|v| !v.is_nan());
                match &attr.kind {
                    AttrKind::Numeric { decimals } => {
                        let (sum, count) = column.fold((0.0, 0usize), |(s, c), v| (s + v, c + 1));
                        if count == 0 {
                            0.0
                        } else {
                            round_to(sum / count as f64, *decimals)
                        }
                    }
                    AttrKind::Categorical { values } => {
                        let mut counts = vec![0usize; values.len()];
                        for v in column {
                            if let Some(c) = counts.get_mut(v as usize) {
                                *c += 1;
                            }
                        }
                        // First maximum: lowest index on a tie.
                        let mut best = 0;
                        for (k, &c) in counts.iter().enumerate() {
                            if c > counts[best] {
                                best = k;
                            }
                        }
                        best as f64
                    }
                }
            })
            .collect()
    }
}

/// Rounds `v` to `decimals` digits after the point (half away from zero in
/// decimal, via the exact shortest decimal formatting).
fn round_to(v: f64, decimals: u8) -> f64 {
    if decimals >= 17 {
        return v; // finer than f64 resolution for typical magnitudes
    }
    format!("{:.*}", usize::from(decimals), v).parse().unwrap_or(v)
}

/// How to read a file: which column is the class, which to drop, and type
/// overrides. All names are column names from the file header. The fields
/// correspond to the CLI's `--target`, `--ignore`, `--numeric`,
/// `--categorical`, `--missing-values` and `--id`, which is how errors refer to them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadOptions {
    /// Words that mean "missing" in a numeric column; `None` means
    /// [`DEFAULT_MISSING_VALUES`]. `?` and the empty cell are missing in every
    /// column in any case. In a categorical column other words are values.
    pub missing_values: Option<Vec<String>>,
    /// [`load_with_schema`] only: a row whose class cell is missing is read
    /// (class 0, counted in [`AlignReport::missing_class_rows`]) instead of
    /// being an error; for predicting.
    pub allow_missing_class: bool,
    /// [`load_with_schema`]: a column whose text is passed through
    /// ([`AlignReport::ids`]) and which is never the class column; [`load`]
    /// drops it like an ignored column.
    pub id: Option<String>,
    /// The class column; `None` means the last column.
    pub target: Option<String>,
    /// Columns to drop.
    pub ignore: Vec<String>,
    /// Columns to read as numbers even if the file says otherwise (an ARFF
    /// nominal attribute); a value that is not a number is an error.
    pub numeric: Vec<String>,
    /// Columns to read as categories even if every value is a number (for
    /// numeric codes such as monks' `a1..a6`).
    pub categorical: Vec<String>,
}

/// Why a file could not be loaded. Every message names the file, and where
/// a position exists it starts with `path:line:column:` or `path:line:`; see
/// the [module docs](self#error-positions) for what `column` counts.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DataError {
    /// The file could not be read.
    #[error("{path}: cannot read the file")]
    Io {
        /// The file.
        path: String,
        /// The operating system's reason.
        #[source]
        source: std::io::Error,
    },
    /// The file has no content (or only blank lines).
    #[error("{path}: the file is empty; expected a header row naming the columns")]
    Empty {
        /// The file.
        path: String,
    },
    /// The file has a header but no data rows.
    #[error("{path}:{line}: the file has a header but no data rows")]
    NoRows {
        /// The file.
        path: String,
        /// The header line.
        line: usize,
    },
    /// The bytes are not UTF-8.
    #[error("{path}:{line}:{column}: invalid UTF-8: byte 0x{byte:02X} at byte offset {offset}")]
    InvalidUtf8 {
        /// The file.
        path: String,
        /// Line of the first invalid byte.
        line: usize,
        /// Character column of the first invalid byte.
        column: usize,
        /// Byte offset of the first invalid byte from the start of the file.
        offset: usize,
        /// The first invalid byte.
        byte: u8,
    },
    /// A NUL byte: the file is not text.
    #[error(
        "{path}:{line}:{column}: a NUL byte at byte offset {offset}: this is not a text (CSV or ARFF) file"
    )]
    Binary {
        /// The file.
        path: String,
        /// Line of the NUL byte.
        line: usize,
        /// Character column of the NUL byte.
        column: usize,
        /// Byte offset of the NUL byte from the start of the file.
        offset: usize,
    },
    /// A CSV or ARFF syntax error.
    #[error("{path}:{line}:{column}: {message}")]
    Syntax {
        /// The file.
        path: String,
        /// Line of the problem.
        line: usize,
        /// Character column of the problem.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// Valid ARFF that ltu does not support (sparse rows, weights, dates).
    #[error("{path}:{line}:{column}: {what}")]
    Unsupported {
        /// The file.
        path: String,
        /// Line of the construct.
        line: usize,
        /// Character column of the construct.
        column: usize,
        /// What is not supported.
        what: String,
    },
    /// A row has a different number of fields than the header.
    #[error("{path}:{line}:{column}: expected {expected} fields (as in the header), found {found}")]
    Ragged {
        /// The file.
        path: String,
        /// Line of the row.
        line: usize,
        /// The first extra field, or the first missing one.
        column: usize,
        /// Number of columns in the header.
        expected: usize,
        /// Number of fields in the row.
        found: usize,
    },
    /// A value in a numeric column (declared, or inferred because every
    /// value looks like a number) is not a finite number: text, `inf`, a
    /// `nan` that is not a missing-value word, `1e309`.
    #[error("{path}:{line}:{column}: column `{name}` is numeric but \"{value}\" is not a finite number")]
    NotNumeric {
        /// The file.
        path: String,
        /// Line of the cell.
        line: usize,
        /// Field number of the cell.
        column: usize,
        /// Column name.
        name: String,
        /// The cell text.
        value: String,
    },
    /// The class column holds numbers that do not look like class codes.
    #[error("{path}:{line}:{column}: the class column `{name}` holds numbers ({distinct} distinct values such as {example}); ltu learns classes, not numbers: name the class column with --target, or say --categorical {name} if these numbers are class labels")]
    NumericTarget {
        /// The file.
        path: String,
        /// The header line.
        line: usize,
        /// Column number of the class column.
        column: usize,
        /// The class column.
        name: String,
        /// Number of distinct values.
        distinct: usize,
        /// One of them.
        example: String,
    },
    /// An ARFF value that its nominal attribute does not declare.
    #[error("{path}:{line}:{column}: \"{value}\" is not a declared value of attribute `{name}` ({{{}}})", declared.join(", "))]
    UndeclaredValue {
        /// The file.
        path: String,
        /// Line of the cell.
        line: usize,
        /// Field (attribute) number of the cell.
        column: usize,
        /// Attribute name.
        name: String,
        /// The cell text.
        value: String,
        /// The declared values.
        declared: Vec<String>,
    },
    /// A row has no class label.
    #[error("{path}:{line}:{column}: the class label (column `{name}`) is missing")]
    MissingClass {
        /// The file.
        path: String,
        /// Line of the cell.
        line: usize,
        /// Field number of the target column.
        column: usize,
        /// The target column name.
        name: String,
    },
    /// Every row has the same class, so there is nothing to learn.
    #[error("{path}: every row has class `{class}` (column `{name}`, {rows} rows); a classifier needs at least two classes")]
    SingleClass {
        /// The file.
        path: String,
        /// The target column name.
        name: String,
        /// The only class.
        class: String,
        /// Number of rows.
        rows: usize,
    },
    /// A column name in the header is empty.
    #[error("{path}:{line}:{column}: column {column} has an empty name")]
    EmptyColumnName {
        /// The file.
        path: String,
        /// The header line (ARFF: the `@attribute` line).
        line: usize,
        /// Column number.
        column: usize,
    },
    /// Two columns have the same name.
    #[error("{path}:{line}:{column}: duplicate column name `{name}` (also column {first_column})")]
    DuplicateColumn {
        /// The file.
        path: String,
        /// The header line (ARFF: the second `@attribute` line).
        line: usize,
        /// Column number of the second occurrence.
        column: usize,
        /// The name.
        name: String,
        /// Column number of the first occurrence.
        first_column: usize,
    },
    /// An option names a column the file does not have.
    #[error("{path}:{line}: {option} `{name}` names no column; the columns are: {}", Names(available))]
    UnknownColumn {
        /// The file.
        path: String,
        /// The header line.
        line: usize,
        /// `--target`, `--ignore`, `--numeric` or `--categorical`.
        option: &'static str,
        /// The name given.
        name: String,
        /// Every column name, in file order.
        available: Vec<String>,
    },
    /// Options that contradict each other (e.g. the target is ignored).
    #[error("{path}: column `{name}` {reason}")]
    ConflictingOptions {
        /// The file.
        path: String,
        /// The column concerned.
        name: String,
        /// What conflicts.
        reason: &'static str,
    },
    /// No column is left to be an attribute.
    #[error("{path}:{line}: no attribute columns: the file has {columns} column(s), all taken by the class and --ignore (fields must be separated by `,`)")]
    NoAttributes {
        /// The file.
        path: String,
        /// The header line.
        line: usize,
        /// Number of columns in the file.
        columns: usize,
    },
    /// [`load_with_schema`]: an attribute of the schema is not a column of
    /// the file.
    #[error(
        "{path}:{line}: the model's attribute `{name}` is not a column of this file; the columns are: {}",
        Names(available)
    )]
    MissingAttribute {
        /// The file.
        path: String,
        /// The header line.
        line: usize,
        /// The schema attribute.
        name: String,
        /// Every column name, in file order.
        available: Vec<String>,
    },
}

/// Formats a list of column names as `` `a`, `b`, `c` ``.
struct Names<'a>(&'a [String]);

impl fmt::Display for Names<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, name) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "`{name}`")?;
        }
        Ok(())
    }
}

/// What [`load_with_schema`] had to do to fit a file onto a schema. None of
/// it is an error; callers decide what to warn about.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AlignReport {
    /// File columns that are neither a schema attribute nor the target, in
    /// file order; they were skipped.
    pub ignored_columns: Vec<String>,
    /// Categorical values the schema does not know, per attribute, in order
    /// of first appearance; each such cell was read as missing (`NaN`).
    pub unseen_values: Vec<UnseenValue>,
    /// Class names the schema does not know, in order of first appearance.
    pub unseen_classes: Vec<UnseenClass>,
    /// The file has no class column (every column is an attribute of the schema): fine for
    /// predicting; every `y` is then 0.
    pub unlabeled: bool,
    /// Rows whose class cell was missing, read as class 0 because
    /// [`LoadOptions::allow_missing_class`] was set.
    pub missing_class_rows: usize,
    /// The text of the [`LoadOptions::id`] column, one per row (empty without it).
    pub ids: Vec<String>,
    /// Words of the missing-value vocabulary (other than `?` and empty) read as
    /// missing in numeric columns, with their counts.
    pub missing_words: Vec<(String, usize)>,
}

/// A categorical value not in the schema (see [`AlignReport`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnseenValue {
    /// The attribute.
    pub attribute: String,
    /// The value text.
    pub value: String,
    /// Number of cells with this value.
    pub count: usize,
    /// The line of its first cell.
    pub first_line: usize,
}

/// A class name not in the schema (see [`AlignReport`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnseenClass {
    /// The class name.
    pub name: String,
    /// The class index its rows got: `>=` the schema's class count.
    pub index: usize,
    /// Number of rows with this class.
    pub count: usize,
}

impl AlignReport {
    /// Number of cells read as missing because their value was unseen.
    pub fn unseen_value_cells(&self) -> usize {
        self.unseen_values.iter().map(|u| u.count).sum()
    }

    /// Number of rows whose class the schema does not know.
    pub fn unseen_class_rows(&self) -> usize {
        self.unseen_classes.iter().map(|u| u.count).sum()
    }
}

/// Reads a CSV or ARFF file into a [`Dataset`]; see the [module
/// docs](self) for the formats, type inference and value order.
///
/// # Errors
///
/// Any [`DataError`]: the file cannot be read, is empty, has no data rows,
/// is not UTF-8 or not valid CSV/ARFF, has ragged rows, empty or duplicate
/// column names, a non-number in a numeric column, a missing class label or
/// only one class; or `opts` names unknown columns, contradicts itself, or
/// leaves no attribute.
pub fn load(path: &Path, opts: &LoadOptions) -> Result<Dataset, DataError> {
    load_with_warnings(path, opts).map(|(data, _)| data)
}

/// [`load`], plus a sentence for every decision the loader made that the
/// user may not expect: a column read as categorical although most of its
/// values are numbers, words read as missing values, a class column of
/// integer codes. The path `-` reads standard input.
///
/// # Errors
///
/// As [`load`].
pub fn load_with_warnings(path: &Path, opts: &LoadOptions) -> Result<(Dataset, Vec<String>), DataError> {
    let source = display_name(path);
    let bytes = read(&source, path)?;
    let text = text::decode(&source, &bytes)?;
    let table = parse(&source, path, text)?;
    let mut warnings = Vec::new();
    let data = build(&source, &table, opts, &mut warnings)?;
    Ok((data, warnings))
}

fn display_name(path: &Path) -> String {
    if path.as_os_str() == "-" {
        "(stdin)".to_string()
    } else {
        path.display().to_string()
    }
}

/// Which cells of a numeric column are missing.
struct Vocabulary<'o> {
    words: Vec<&'o str>,
}

impl<'o> Vocabulary<'o> {
    fn new(opts: &'o LoadOptions) -> Self {
        let words = match &opts.missing_values {
            Some(list) => list.iter().map(String::as_str).collect(),
            None => DEFAULT_MISSING_VALUES.to_vec(),
        };
        Vocabulary { words }
    }

    fn is_missing(&self, text: &str) -> bool {
        text::is_missing(text) || self.words.contains(&text)
    }
}

/// Reads one cell of a numeric column: `None` when missing.
fn read_number(
    source: &str,
    cell: &Cell<'_>,
    c: usize,
    name: &str,
    vocabulary: &Vocabulary<'_>,
) -> Result<Option<(f64, u8)>, DataError> {
    if vocabulary.is_missing(&cell.text) {
        return Ok(None);
    }
    match look(&cell.text) {
        Look::Number(v, d) => Ok(Some((v, d))),
        Look::NonFinite | Look::Text => Err(not_numeric(source, cell, c, name)),
    }
}

/// Counts the vocabulary words (other than `?` and empty) among a numeric column's cells.
fn count_missing_words(cells: &[&Cell<'_>], vocabulary: &Vocabulary<'_>, counts: &mut Vec<(String, usize)>) {
    for cell in cells {
        if !text::is_missing(&cell.text) && vocabulary.is_missing(&cell.text) {
            match counts.iter_mut().find(|(w, _)| *w == cell.text) {
                Some((_, n)) => *n += 1,
                None => counts.push((cell.text.to_string(), 1)),
            }
        }
    }
}

/// Reads a CSV or ARFF file and maps it onto `schema` **by name**, to
/// evaluate a model trained on another file.
///
/// - The target column is `opts.target`; else the last column, unless that
///   is a schema attribute, in which case the one column that is not a
///   schema attribute, or none ([`AlignReport::unlabeled`], every `y` 0:
///   enough for predicting). The other options are not used (the schema
///   fixes which columns are read and their types).
/// - Each schema attribute is read from the column of the same name, in
///   whatever order the columns come; other columns are skipped (listed in
///   [`AlignReport::ignored_columns`]).
/// - Numeric attributes must hold numbers. A categorical value the schema
///   does not list becomes missing (`NaN`) and is counted in
///   [`AlignReport::unseen_values`].
/// - The returned schema is `schema` with any class names it does not know
///   appended to `classes`, in order of first appearance; so every `y` is
///   valid for the returned dataset, and a `y >= schema.classes.len()` is a
///   class the model cannot predict, which evaluation counts as an error.
///   These classes are listed in [`AlignReport::unseen_classes`].
/// - A single class is fine here (a test file may hold one class).
///
/// # Errors
///
/// The file errors of [`load`]; [`DataError::MissingAttribute`] when a
/// schema attribute has no column; [`DataError::ConflictingOptions`] when
/// the target column is also a schema attribute.
pub fn load_with_schema(
    path: &Path,
    opts: &LoadOptions,
    schema: &Schema,
) -> Result<(Dataset, AlignReport), DataError> {
    let source = display_name(path);
    let bytes = read(&source, path)?;
    let text = text::decode(&source, &bytes)?;
    let table = parse(&source, path, text)?;
    align(&source, &table, opts, schema)
}

/// Reads the file, or standard input for `-`, a block at a time, and stops at the first byte
/// that cannot be text: invalid UTF-8 ([`DataError::InvalidUtf8`]) or a NUL byte
/// ([`DataError::Binary`]). So a binary file or an endless device (`/dev/zero`, `/dev/urandom`)
/// fails at once instead of being read into memory.
fn read(source: &str, path: &Path) -> Result<Vec<u8>, DataError> {
    use std::io::Read;
    let io = |e| DataError::Io { path: source.to_string(), source: e };
    let mut reader: Box<dyn Read> = if path.as_os_str() == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        Box::new(std::fs::File::open(path).map_err(io)?)
    };
    let mut bytes = Vec::new();
    let mut block = vec![0u8; 1 << 16];
    // Bytes known to be valid UTF-8 (a character cut by the block's end is checked with the next).
    let mut valid = 0;
    loop {
        let n = match reader.read(&mut block) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io(e)),
        };
        let start = bytes.len();
        bytes.extend_from_slice(&block[..n]);
        let bad_utf8 = match std::str::from_utf8(&bytes[valid..]) {
            Ok(_) => {
                valid = bytes.len();
                None
            }
            Err(e) => {
                valid += e.valid_up_to();
                e.error_len().map(|_| valid)
            }
        };
        let nul = block[..n].iter().position(|&b| b == 0).map(|p| start + p);
        match (nul, bad_utf8) {
            (Some(at), bad) if bad.is_none_or(|b| at < b) => {
                let before = std::str::from_utf8(&bytes[..at]).unwrap_or("");
                // A byte-order mark is no column (as `text::decode` counts them).
                let bom = if before.starts_with('\u{feff}') { '\u{feff}'.len_utf8() } else { 0 };
                let line_start = before.rfind('\n').map_or(bom, |p| p + 1);
                return Err(DataError::Binary {
                    path: source.to_string(),
                    line: before.matches('\n').count() + 1,
                    column: before[line_start..].chars().count() + 1,
                    offset: at,
                });
            }
            (_, Some(_)) => return Err(text::decode(source, &bytes).expect_err("invalid UTF-8 was found")),
            _ => {}
        }
    }
    Ok(bytes)
}

/// True if the file is ARFF: by extension, or by a first meaningful line
/// starting with `@relation`.
fn is_arff(path: &Path, text: &str) -> bool {
    if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("arff")) {
        return true;
    }
    text.lines().map(str::trim).find(|l| !l.is_empty() && !l.starts_with('%')).is_some_and(|l| {
        l.get(..9).is_some_and(|k| k.eq_ignore_ascii_case("@relation"))
            && l[9..].chars().next().is_none_or(char::is_whitespace)
    })
}

fn parse<'a>(source: &'a str, path: &Path, text: &'a str) -> Result<RawTable<'a>, DataError> {
    let table = if is_arff(path, text) { arff::parse(source, text)? } else { csv::parse(source, text)? };
    if table.rows.is_empty() {
        return Err(DataError::NoRows { path: source.to_string(), line: table.header_line });
    }
    Ok(table)
}

/// Finds the target column: `opts.target` or the last one.
fn target_column(source: &str, table: &RawTable<'_>, opts: &LoadOptions) -> Result<usize, DataError> {
    match &opts.target {
        Some(name) => column_index(source, table, "--target", name),
        None => Ok(table.columns.len().saturating_sub(1)),
    }
}

fn column_index(
    source: &str,
    table: &RawTable<'_>,
    option: &'static str,
    name: &str,
) -> Result<usize, DataError> {
    table.columns.iter().position(|c| c.name == name).ok_or_else(|| DataError::UnknownColumn {
        path: source.to_string(),
        line: table.header_line,
        option,
        name: name.to_string(),
        available: table.columns.iter().map(|c| c.name.clone()).collect(),
    })
}

/// The type an attribute column is read as.
enum ReadAs<'t> {
    /// Numbers; anything else is an error.
    Numeric,
    /// Numbers if all parse, else categorical in first-appearance order.
    Infer,
    /// Categorical with these values first, in this order (ARFF nominal),
    /// then any others in order of first appearance.
    Categorical(&'t [String]),
}

fn build(
    source: &str,
    table: &RawTable<'_>,
    opts: &LoadOptions,
    warnings: &mut Vec<String>,
) -> Result<Dataset, DataError> {
    let target = target_column(source, table, opts)?;
    let n_cols = table.columns.len();
    let vocabulary = Vocabulary::new(opts);
    let mut ignored = vec![false; n_cols];
    for name in &opts.ignore {
        ignored[column_index(source, table, "--ignore", name)?] = true;
    }
    if let Some(name) = &opts.id {
        let c = column_index(source, table, "--id", name)?;
        if c == target {
            return Err(DataError::ConflictingOptions {
                path: source.to_string(),
                name: name.clone(),
                reason: "is the target (class) column and also the --id column",
            });
        }
        ignored[c] = true;
    }
    let mut as_numeric = vec![false; n_cols];
    for name in &opts.numeric {
        as_numeric[column_index(source, table, "--numeric", name)?] = true;
    }
    let mut as_categorical = vec![false; n_cols];
    for name in &opts.categorical {
        as_categorical[column_index(source, table, "--categorical", name)?] = true;
    }
    let conflict = |c: usize, reason| DataError::ConflictingOptions {
        path: source.to_string(),
        name: table.columns[c].name.clone(),
        reason,
    };
    if ignored[target] {
        return Err(conflict(target, "is the target (class) column and is also in --ignore"));
    }
    if as_numeric[target] {
        return Err(conflict(
            target,
            "is the target (class) column, which is always categorical, but is in --numeric",
        ));
    }
    if let Some(c) = (0..n_cols).find(|&c| as_numeric[c] && as_categorical[c]) {
        return Err(conflict(c, "is in both --numeric and --categorical"));
    }
    if let Some(c) = (0..n_cols).find(|&c| ignored[c] && (as_numeric[c] || as_categorical[c])) {
        return Err(conflict(
            c,
            "is left out (--ignore or --id) but also given a type by --numeric or --categorical",
        ));
    }
    let attr_cols: Vec<usize> = (0..n_cols).filter(|&c| c != target && !ignored[c]).collect();
    if attr_cols.is_empty() {
        return Err(DataError::NoAttributes {
            path: source.to_string(),
            line: table.header_line,
            columns: n_cols,
        });
    }

    let n_rows = table.rows.len();
    let n_attrs = attr_cols.len();
    let mut x = vec![f64::NAN; n_rows * n_attrs];
    let mut attributes = Vec::with_capacity(n_attrs);
    for (j, &c) in attr_cols.iter().enumerate() {
        let column = &table.columns[c];
        let read_as = if as_numeric[c] {
            ReadAs::Numeric
        } else if as_categorical[c] {
            match &column.declared {
                Declared::Nominal(values) => ReadAs::Categorical(values),
                _ => ReadAs::Categorical(&[]),
            }
        } else {
            match &column.declared {
                Declared::Numeric => ReadAs::Numeric,
                Declared::Nominal(values) => ReadAs::Categorical(values),
                Declared::Text => ReadAs::Categorical(&[]),
                Declared::Untyped => ReadAs::Infer,
            }
        };
        let cells = || table.rows.iter().map(|r| &r.cells[c]);
        let numeric = |x: &mut [f64]| -> Result<AttrKind, DataError> {
            let mut decimals = 0;
            for (i, cell) in cells().enumerate() {
                if let Some((v, d)) = read_number(source, cell, c, &column.name, &vocabulary)? {
                    x[i * n_attrs + j] = v;
                    decimals = decimals.max(d);
                }
            }
            Ok(AttrKind::Numeric { decimals })
        };
        let kind = match read_as {
            ReadAs::Numeric => numeric(&mut x)?,
            ReadAs::Infer => {
                // Numeric when every cell that is not a missing word looks like a number; a
                // non-finite one is then an error at its position.
                let mut numbers = 0usize;
                let mut first_text: Option<&Cell<'_>> = None;
                let mut texts = 0usize;
                for cell in cells().filter(|cell| !vocabulary.is_missing(&cell.text)) {
                    match look(&cell.text) {
                        Look::Number(..) | Look::NonFinite => numbers += 1,
                        Look::Text => {
                            texts += 1;
                            first_text.get_or_insert(cell);
                        }
                    }
                }
                match first_text {
                    None => numeric(&mut x)?,
                    Some(cell) => {
                        if numbers > texts {
                            warnings.push(format!(
                                "{source}:{}:{}: column `{}` is read as categorical because \"{}\" is not a number, \
                                 although {numbers} of its {} values are numbers (each number becomes a category); \
                                 say --categorical {} if that is right, --numeric {} to make such cells errors, \
                                 or --missing-values to mark them missing",
                                cell.line,
                                c + 1,
                                column.name,
                                cell.text,
                                numbers + texts,
                                column.name,
                                column.name
                            ));
                        }
                        categorical(cells(), &[], &mut x, n_attrs, j)
                    }
                }
            }
            ReadAs::Categorical(declared) => categorical(cells(), declared, &mut x, n_attrs, j),
        };
        if matches!(kind, AttrKind::Numeric { .. }) {
            let mut words = Vec::new();
            count_missing_words(&cells().collect::<Vec<_>>(), &vocabulary, &mut words);
            if !words.is_empty() {
                let list: Vec<String> = words.iter().map(|(w, n)| format!("\"{w}\" ×{n}")).collect();
                warnings.push(format!(
                    "{source}: numeric column `{}`: {} read as missing values",
                    column.name,
                    list.join(", ")
                ));
            }
        }
        attributes.push(Attribute { name: column.name.clone(), kind });
    }

    let target_col = &table.columns[target];
    let mut classes: Vec<String> = match &target_col.declared {
        Declared::Nominal(values) => values.clone(),
        _ => Vec::new(),
    };
    let mut class_index = first_index(&classes);
    let mut y = Vec::with_capacity(n_rows);
    for row in &table.rows {
        let cell = &row.cells[target];
        if cell.is_missing() {
            return Err(missing_class(source, cell, target, &target_col.name));
        }
        let next = classes.len();
        let k = *class_index.entry(cell.text.to_string()).or_insert(next);
        if k == next {
            classes.push(cell.text.to_string());
        }
        y.push(k);
    }
    let mut counts = vec![0usize; classes.len()];
    for &k in &y {
        counts[k] += 1;
    }
    let present: Vec<usize> = (0..classes.len()).filter(|&k| counts[k] > 0).collect();
    let declared_classes = matches!(target_col.declared, Declared::Nominal(_) | Declared::Text);
    if !as_categorical[target] && !declared_classes {
        let looks: Vec<Look> = classes.iter().map(|c| look(c)).collect();
        if looks.iter().all(|l| !matches!(l, Look::Text)) {
            let integral = looks.iter().all(|l| matches!(l, Look::Number(v, 0) if v.fract() == 0.0));
            if !integral || classes.len() > MAX_INTEGER_CODED_CLASSES {
                let example = looks
                    .iter()
                    .position(|l| !matches!(l, Look::Number(v, 0) if v.fract() == 0.0))
                    .map_or_else(|| classes[0].clone(), |k| classes[k].clone());
                return Err(DataError::NumericTarget {
                    path: source.to_string(),
                    line: table.header_line,
                    column: target + 1,
                    name: target_col.name.clone(),
                    distinct: classes.len(),
                    example,
                });
            }
            warnings.push(format!(
                "{source}: the class column `{}` holds integers; read as {} class labels ({}); \
                 say --categorical {} to confirm",
                target_col.name,
                classes.len(),
                classes.join(", "),
                target_col.name
            ));
        }
    }
    if let [only] = present[..] {
        return Err(DataError::SingleClass {
            path: source.to_string(),
            name: target_col.name.clone(),
            class: classes[only].clone(),
            rows: n_rows,
        });
    }
    Ok(Dataset { schema: Schema { attributes, classes }, x, y, source: source.to_string() })
}

/// Maps each name to the index of its first occurrence.
fn first_index(names: &[String]) -> HashMap<String, usize> {
    let mut index = HashMap::with_capacity(names.len());
    for (k, name) in names.iter().enumerate() {
        index.entry(name.clone()).or_insert(k);
    }
    index
}

/// Numbers the values of a categorical column (declared ones first) and
/// writes the indexes into column `j` of `x`.
fn categorical<'c, 'a: 'c>(
    cells: impl Iterator<Item = &'c Cell<'a>>,
    declared: &[String],
    x: &mut [f64],
    n_attrs: usize,
    j: usize,
) -> AttrKind {
    let mut values: Vec<String> = declared.to_vec();
    let mut index: HashMap<&str, usize> = declared.iter().enumerate().map(|(i, v)| (v.as_str(), i)).collect();
    for (i, cell) in cells.enumerate() {
        if cell.is_missing() {
            continue;
        }
        let next = values.len();
        let k = *index.entry(cell.text.as_ref()).or_insert(next);
        if k == next {
            values.push(cell.text.to_string());
        }
        x[i * n_attrs + j] = k as f64;
    }
    AttrKind::Categorical { values }
}

fn not_numeric(source: &str, cell: &Cell<'_>, c: usize, name: &str) -> DataError {
    DataError::NotNumeric {
        path: source.to_string(),
        line: cell.line,
        column: c + 1,
        name: name.to_string(),
        value: cell.text.to_string(),
    }
}

fn missing_class(source: &str, cell: &Cell<'_>, c: usize, name: &str) -> DataError {
    DataError::MissingClass {
        path: source.to_string(),
        line: cell.line,
        column: c + 1,
        name: name.to_string(),
    }
}

fn align(
    source: &str,
    table: &RawTable<'_>,
    opts: &LoadOptions,
    schema: &Schema,
) -> Result<(Dataset, AlignReport), DataError> {
    // The class column: `--target`; else the last column that is neither ignored nor the id,
    // unless it is a schema attribute; else the one such column that is not an attribute; none at
    // all means the file is unlabeled.
    let vocabulary = Vocabulary::new(opts);
    let id = opts.id.as_ref().map(|name| column_index(source, table, "--id", name)).transpose()?;
    let mut skipped = vec![false; table.columns.len()];
    for name in &opts.ignore {
        skipped[column_index(source, table, "--ignore", name)?] = true;
    }
    if let Some(c) = id {
        skipped[c] = true;
    }
    let is_attr = |c: usize| schema.attribute_index(&table.columns[c].name).is_some();
    if let Some(name) = opts.ignore.iter().find(|name| schema.attribute_index(name).is_some()) {
        return Err(DataError::ConflictingOptions {
            path: source.to_string(),
            name: name.clone(),
            reason: "is an attribute of the model, so --ignore cannot drop it",
        });
    }
    let candidates: Vec<usize> = (0..table.columns.len()).filter(|&c| !skipped[c]).collect();
    let last = candidates.last().copied();
    let target = if opts.target.is_some() {
        let t = target_column(source, table, opts)?;
        if skipped[t] {
            return Err(DataError::ConflictingOptions {
                path: source.to_string(),
                name: table.columns[t].name.clone(),
                reason: "is the target (class) column and is also in --ignore or --id",
            });
        }
        Some(t)
    } else if let Some(last) = last.filter(|&c| !is_attr(c)) {
        Some(last)
    } else {
        let others: Vec<usize> = candidates.iter().copied().filter(|&c| !is_attr(c)).collect();
        match others.as_slice() {
            [] => None,
            [one] => Some(*one),
            _ => {
                return Err(DataError::ConflictingOptions {
                    path: source.to_string(),
                    name: table.columns[others[0]].name.clone(),
                    reason: "and other columns are not attributes of the model, so the class column is \
                             ambiguous; name it with --target",
                })
            }
        }
    };
    if let Some(target_name) =
        target.map(|t| &table.columns[t].name).filter(|n| schema.attribute_index(n).is_some())
    {
        return Err(DataError::ConflictingOptions {
            path: source.to_string(),
            name: target_name.clone(),
            reason: "is the target (class) column but is also an attribute of the model; name the class column with --target",
        });
    }
    let by_name: HashMap<&str, usize> =
        table.columns.iter().enumerate().map(|(i, c)| (c.name.as_str(), i)).collect();
    let mut attr_cols = Vec::with_capacity(schema.n_attrs());
    for attr in &schema.attributes {
        match by_name.get(attr.name.as_str()) {
            Some(&c) => attr_cols.push(c),
            None => {
                return Err(DataError::MissingAttribute {
                    path: source.to_string(),
                    line: table.header_line,
                    name: attr.name.clone(),
                    available: table.columns.iter().map(|c| c.name.clone()).collect(),
                })
            }
        }
    }
    let mut report = AlignReport {
        ignored_columns: table
            .columns
            .iter()
            .enumerate()
            .filter(|&(i, _)| Some(i) != target && Some(i) != id && !attr_cols.contains(&i))
            .map(|(_, c)| c.name.clone())
            .collect(),
        unlabeled: target.is_none(),
        ids: id.map_or_else(Vec::new, |c| table.rows.iter().map(|r| r.cells[c].text.to_string()).collect()),
        ..AlignReport::default()
    };

    let n_rows = table.rows.len();
    let n_attrs = attr_cols.len();
    let mut x = vec![f64::NAN; n_rows * n_attrs];
    for (j, (attr, &c)) in schema.attributes.iter().zip(&attr_cols).enumerate() {
        match &attr.kind {
            AttrKind::Numeric { .. } => {
                for (i, row) in table.rows.iter().enumerate() {
                    if let Some((v, _)) = read_number(source, &row.cells[c], c, &attr.name, &vocabulary)? {
                        x[i * n_attrs + j] = v;
                    }
                }
                let cells: Vec<&Cell<'_>> = table.rows.iter().map(|r| &r.cells[c]).collect();
                count_missing_words(&cells, &vocabulary, &mut report.missing_words);
            }
            AttrKind::Categorical { values } => {
                let index = first_index(values);
                let mut unseen: HashMap<&str, usize> = HashMap::new();
                for (i, row) in table.rows.iter().enumerate() {
                    let cell = &row.cells[c];
                    if cell.is_missing() {
                        continue;
                    }
                    match index.get(cell.text.as_ref()) {
                        Some(&k) => x[i * n_attrs + j] = k as f64,
                        None => {
                            let slot = *unseen.entry(cell.text.as_ref()).or_insert_with(|| {
                                report.unseen_values.push(UnseenValue {
                                    attribute: attr.name.clone(),
                                    value: cell.text.to_string(),
                                    count: 0,
                                    first_line: cell.line,
                                });
                                report.unseen_values.len() - 1
                            });
                            report.unseen_values[slot].count += 1;
                        }
                    }
                }
            }
        }
    }

    let mut classes = schema.classes.clone();
    let mut class_index = first_index(&classes);
    let Some(target) = target else {
        let dataset = Dataset { schema: schema.clone(), x, y: vec![0; n_rows], source: source.to_string() };
        return Ok((dataset, report));
    };
    let target_name = &table.columns[target].name;
    let mut y = Vec::with_capacity(n_rows);
    for row in &table.rows {
        let cell = &row.cells[target];
        if cell.is_missing() {
            if opts.allow_missing_class {
                report.missing_class_rows += 1;
                y.push(0);
                continue;
            }
            return Err(missing_class(source, cell, target, target_name));
        }
        let next = classes.len();
        let k = *class_index.entry(cell.text.to_string()).or_insert(next);
        if k == next {
            classes.push(cell.text.to_string());
            report.unseen_classes.push(UnseenClass { name: cell.text.to_string(), index: k, count: 0 });
        }
        if let Some(unseen) =
            k.checked_sub(schema.classes.len()).and_then(|u| report.unseen_classes.get_mut(u))
        {
            unseen.count += 1;
        }
        y.push(k);
    }
    Ok((
        Dataset {
            schema: Schema { attributes: schema.attributes.clone(), classes },
            x,
            y,
            source: source.to_string(),
        },
        report,
    ))
}
