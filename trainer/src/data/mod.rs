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

mod align;
mod arff;
pub mod arrays;
mod csv;
pub mod encode;
mod error;
mod infer;
pub mod recordings;
pub mod split;
mod text;

pub use error::DataError;

use std::collections::HashMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use text::{look, Cell, Look, RawTable};

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
    /// What [`load`] expects of the class column.
    pub labels: Labels,
}

/// What [`load`] expects of the class column ([`LoadOptions::labels`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Labels {
    /// Training data: a class column with at least two classes.
    #[default]
    Training,
    /// Evaluation data: a class column, which may hold a single class.
    Evaluation,
    /// No class column: every column (but `ignore`d ones) is an attribute, and every row gets
    /// class 0 of one class named `""`. For predicting on unlabelled files; `target` must not be
    /// given.
    Absent,
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
    /// The line of its first row.
    pub first_line: usize,
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
    let data = infer::build(&source, &table, opts, &mut warnings)?;
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
    align::align(&source, &table, opts, schema)
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

/// Maps each name to the index of its first occurrence.
fn first_index(names: &[String]) -> HashMap<String, usize> {
    let mut index = HashMap::with_capacity(names.len());
    for (k, name) in names.iter().enumerate() {
        index.entry(name.clone()).or_insert(k);
    }
    index
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
