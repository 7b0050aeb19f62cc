//! Why a data file could not be loaded: [`DataError`], whose messages quote the file and the
//! position (see the [module docs](super#error-positions)).

use std::fmt;

/// Why a file could not be loaded. Every message names the file, and where
/// a position exists it starts with `path:line:column:` or `path:line:`; see
/// the [module docs](super#error-positions) for what `column` counts.
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
    /// [`load_with_schema`](super::load_with_schema): an attribute of the schema is not a column of
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
