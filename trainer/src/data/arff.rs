//! ARFF reader (Weka's Attribute-Relation File Format), dense form.
//!
//! Accepted:
//! - `@relation name`, `@attribute name type` and `@data`, keywords in any
//!   case; names may be quoted with `'` or `"` (backslash escapes `\\`,
//!   `\'`, `\"`, `\n`, `\t`, `\r`; any other escaped character stands for
//!   itself);
//! - types `numeric`, `real`, `integer`, `string` and nominal
//!   `{value, 'quoted value', ...}`;
//! - `%` starts a comment that runs to the end of the line (outside quotes);
//!   blank lines are skipped everywhere;
//! - data rows of comma-separated values, quoted like names, `?` or an empty
//!   value for missing.
//!
//! Rejected with an error naming the line and column: sparse rows
//! (`{index value, ...}`), instance weights (`..., {weight}`), `date` and
//! `relational` attributes, unknown declarations and types, empty or
//! duplicate nominal lists, a nominal value that its attribute does not
//! declare, and anything after `@data` on its line.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use super::text::{char_column, is_missing, Cell, Declared, RawColumn, RawRow, RawTable};
use super::DataError;

/// A header token.
#[derive(Debug, PartialEq)]
enum Tok<'a> {
    Word(&'a str),
    Quoted(String),
    Open,
    Close,
    Comma,
}

impl Tok<'_> {
    /// The token's text as a name or value, if it is one.
    fn name(&self) -> Option<String> {
        match self {
            Tok::Word(w) => Some((*w).to_string()),
            Tok::Quoted(q) => Some(q.clone()),
            _ => None,
        }
    }

    fn describe(&self) -> String {
        match self {
            Tok::Word(w) => format!("`{w}`"),
            Tok::Quoted(q) => format!("`'{q}'`"),
            Tok::Open => "`{`".to_string(),
            Tok::Close => "`}`".to_string(),
            Tok::Comma => "`,`".to_string(),
        }
    }
}

/// A token and its 1-based character column.
struct Token<'a> {
    tok: Tok<'a>,
    column: usize,
}

/// A syntax problem in one line: (1-based character column, message).
type LineError = (usize, String);

/// Reads a quoted string whose opening quote is at byte `start` of `line`.
/// Returns the unescaped text and the byte offset just past the closing
/// quote.
fn quoted(line: &str, start: usize) -> Result<(String, usize), LineError> {
    let quote = line[start..].chars().next().unwrap_or('\'');
    let mut out = String::new();
    let mut chars = line[start + 1..].char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some((_, 'n')) => out.push('\n'),
                Some((_, 't')) => out.push('\t'),
                Some((_, 'r')) => out.push('\r'),
                Some((_, other)) => out.push(other),
                None => break,
            },
            c if c == quote => return Ok((out, start + 1 + i + c.len_utf8())),
            c => out.push(c),
        }
    }
    Err((
        char_column(line, 0, start),
        format!("quoted text is never closed (no matching {quote} on this line)"),
    ))
}

/// Splits a header line into tokens, stopping at a `%` comment.
fn tokenize(line: &str) -> Result<Vec<Token<'_>>, LineError> {
    let bytes = line.as_bytes();
    let mut tokens = Vec::new();
    let mut pos = 0;
    while pos < bytes.len() {
        let column = char_column(line, 0, pos);
        let single = |tok| Token { tok, column };
        match bytes[pos] {
            b' ' | b'\t' | b'\r' => pos += 1,
            b'%' => break,
            b'{' => {
                tokens.push(single(Tok::Open));
                pos += 1;
            }
            b'}' => {
                tokens.push(single(Tok::Close));
                pos += 1;
            }
            b',' => {
                tokens.push(single(Tok::Comma));
                pos += 1;
            }
            b'\'' | b'"' => {
                let (text, end) = quoted(line, pos)?;
                tokens.push(single(Tok::Quoted(text)));
                pos = end;
            }
            _ => {
                let start = pos;
                while pos < bytes.len()
                    && !matches!(bytes[pos], b' ' | b'\t' | b'\r' | b'{' | b'}' | b',' | b'%')
                {
                    pos += 1;
                }
                tokens.push(single(Tok::Word(&line[start..pos])));
            }
        }
    }
    Ok(tokens)
}

/// Splits a data line into fields (text and 1-based character column),
/// stopping at a `%` comment.
fn fields(line: &str) -> Result<Vec<(Cow<'_, str>, usize)>, Problem> {
    let bytes = line.as_bytes();
    let mut out = Vec::new();
    let mut pos = 0;
    loop {
        while matches!(bytes.get(pos), Some(b' ' | b'\t' | b'\r')) {
            pos += 1;
        }
        let column = char_column(line, 0, pos);
        if bytes.get(pos) == Some(&b'{') {
            return Err(Problem::Unsupported(
                column,
                if out.is_empty() {
                    "sparse ARFF rows (`{index value, ...}`) are not supported; write the data in dense form"
                        .to_string()
                } else {
                    "instance weights (`{weight}` after the last value) are not supported".to_string()
                },
            ));
        }
        let text = if matches!(bytes.get(pos), Some(b'\'' | b'"')) {
            let (text, end) = quoted(line, pos).map_err(Problem::Syntax)?;
            pos = end;
            while matches!(bytes.get(pos), Some(b' ' | b'\t' | b'\r')) {
                pos += 1;
            }
            if !matches!(bytes.get(pos), None | Some(b',' | b'%')) {
                let found = line[pos..].chars().next().unwrap_or(' ');
                return Err(Problem::Syntax((
                    char_column(line, 0, pos),
                    format!("unexpected `{found}` after a quoted value; expected `,`"),
                )));
            }
            Cow::Owned(text)
        } else {
            let start = pos;
            while !matches!(bytes.get(pos), None | Some(b',' | b'%')) {
                pos += 1;
            }
            Cow::Borrowed(line[start..pos].trim_end_matches([' ', '\t', '\r']))
        };
        out.push((text, column));
        match bytes.get(pos) {
            Some(b',') => pos += 1,
            _ => return Ok(out),
        }
    }
}

/// Errors of one ARFF file, by line.
struct Errors<'a> {
    path: &'a str,
}

impl Errors<'_> {
    fn syntax(&self, line: usize, (column, message): LineError) -> DataError {
        DataError::Syntax { path: self.path.to_string(), line, column, message }
    }

    fn problem(&self, line: usize, problem: Problem) -> DataError {
        match problem {
            Problem::Syntax(e) => self.syntax(line, e),
            Problem::Unsupported(column, what) => {
                DataError::Unsupported { path: self.path.to_string(), line, column, what }
            }
        }
    }
}

/// The header of an ARFF file: its columns, the line of the first `@attribute` and the line of
/// `@data`.
struct Header {
    columns: Vec<RawColumn>,
    first_attribute_line: Option<usize>,
    data_line: usize,
}

/// Parses ARFF `text` read from `path`.
pub(crate) fn parse<'a>(path: &'a str, text: &'a str) -> Result<RawTable<'a>, DataError> {
    if text.trim().is_empty() {
        return Err(DataError::Empty { path: path.to_string() });
    }
    let errors = Errors { path };
    let mut lines = text.split('\n').enumerate().map(|(i, l)| (i + 1, l));
    let header = parse_header(&errors, &mut lines)?;
    let rows = parse_rows(&errors, &header.columns, lines)?;
    let Header { columns, first_attribute_line, data_line } = header;
    Ok(RawTable { header_line: first_attribute_line.unwrap_or(data_line), columns, rows })
}

/// Reads declarations up to and including `@data`.
fn parse_header<'a>(
    errors: &Errors<'_>,
    lines: &mut impl Iterator<Item = (usize, &'a str)>,
) -> Result<Header, DataError> {
    let mut columns: Vec<RawColumn> = Vec::new();
    let mut first_attribute_line = None;
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut last_line = 1;
    for (line_no, line) in lines {
        if !line.trim().is_empty() {
            last_line = line_no;
        }
        let tokens = tokenize(line).map_err(|e| errors.syntax(line_no, e))?;
        let Some(first) = tokens.first() else {
            continue;
        };
        let keyword = match &first.tok {
            Tok::Word(w) if w.starts_with('@') => w.to_ascii_lowercase(),
            other => {
                return Err(errors.syntax(
                    line_no,
                    (
                        first.column,
                        format!("expected `@relation`, `@attribute` or `@data`, found {}", other.describe()),
                    ),
                ))
            }
        };
        match keyword.as_str() {
            "@relation" => {}
            "@data" => {
                if let Some(extra) = tokens.get(1) {
                    return Err(errors.syntax(
                        line_no,
                        (extra.column, format!("unexpected {} after `@data`", extra.tok.describe())),
                    ));
                }
                if columns.is_empty() {
                    return Err(errors.syntax(line_no, (1, "no `@attribute` before `@data`".to_string())));
                }
                return Ok(Header { columns, first_attribute_line, data_line: line_no });
            }
            "@attribute" => {
                let column = attribute(errors, line_no, line, &tokens, &columns, &seen)?;
                seen.insert(column.name.clone(), columns.len());
                first_attribute_line.get_or_insert(line_no);
                columns.push(column);
            }
            _ => {
                return Err(errors.syntax(
                    line_no,
                    (
                        first.column,
                        format!(
                            "unknown declaration `{keyword}`; expected `@relation`, `@attribute` or `@data`"
                        ),
                    ),
                ))
            }
        }
    }
    Err(errors.syntax(last_line, (1, "no `@data` line: the header never ends".to_string())))
}

/// One `@attribute` declaration: its name (new and not empty) and declared type.
fn attribute(
    errors: &Errors<'_>,
    line_no: usize,
    line: &str,
    tokens: &[Token],
    columns: &[RawColumn],
    seen: &HashMap<String, usize>,
) -> Result<RawColumn, DataError> {
    let path = errors.path;
    let end_column = line.trim_end_matches('\r').chars().count() + 1;
    let Some(name_token) = tokens.get(1) else {
        return Err(errors.syntax(line_no, (end_column, "expected an attribute name".to_string())));
    };
    let Some(name) = name_token.tok.name() else {
        return Err(errors.syntax(
            line_no,
            (name_token.column, format!("expected an attribute name, found {}", name_token.tok.describe())),
        ));
    };
    if name.is_empty() {
        return Err(DataError::EmptyColumnName {
            path: path.to_string(),
            line: line_no,
            column: columns.len() + 1,
        });
    }
    let declared = declared_type(&tokens[2..], end_column).map_err(|e| errors.problem(line_no, e))?;
    if let Some(&first) = seen.get(&name) {
        return Err(DataError::DuplicateColumn {
            path: path.to_string(),
            line: line_no,
            column: columns.len() + 1,
            name,
            first_column: first + 1,
        });
    }
    Ok(RawColumn { name, declared })
}

/// Reads the data lines: one row per non-blank line, as many fields as columns, nominal values
/// among the declared ones.
fn parse_rows<'a>(
    errors: &Errors<'_>,
    columns: &[RawColumn],
    lines: impl Iterator<Item = (usize, &'a str)>,
) -> Result<Vec<RawRow<'a>>, DataError> {
    let path = errors.path;
    let nominal: Vec<Option<HashSet<&str>>> = columns
        .iter()
        .map(|c| match &c.declared {
            Declared::Nominal(values) => Some(values.iter().map(String::as_str).collect()),
            _ => None,
        })
        .collect();
    let mut rows = Vec::new();
    for (line_no, line) in lines {
        let fields = fields(line).map_err(|e| errors.problem(line_no, e))?;
        if fields.len() == 1 && fields[0].0.is_empty() {
            continue; // blank or comment-only line
        }
        if fields.len() != columns.len() {
            return Err(DataError::Ragged {
                path: path.to_string(),
                line: line_no,
                column: fields.len().min(columns.len()) + 1,
                expected: columns.len(),
                found: fields.len(),
            });
        }
        let mut cells = Vec::with_capacity(fields.len());
        for (i, (text, _)) in fields.into_iter().enumerate() {
            if let Some(Some(allowed)) = nominal.get(i) {
                if !is_missing(&text) && !allowed.contains(text.as_ref()) {
                    let declared = match &columns[i].declared {
                        Declared::Nominal(values) => values.clone(),
                        _ => Vec::new(),
                    };
                    return Err(DataError::UndeclaredValue {
                        path: path.to_string(),
                        line: line_no,
                        column: i + 1,
                        name: columns[i].name.clone(),
                        value: text.into_owned(),
                        declared,
                    });
                }
            }
            cells.push(Cell { text, line: line_no });
        }
        rows.push(RawRow { cells });
    }
    Ok(rows)
}

/// What is wrong with a line.
enum Problem {
    Syntax(LineError),
    /// (column, what is not supported)
    Unsupported(usize, String),
}

/// Parses the type of an `@attribute` from the tokens after its name.
/// `end_column` is the column just past the end of the line.
fn declared_type(tokens: &[Token<'_>], end_column: usize) -> Result<Declared, Problem> {
    let Some(first) = tokens.first() else {
        return Err(Problem::Syntax((
            end_column,
            "expected an attribute type (numeric, real, integer, string or {value, ...})".to_string(),
        )));
    };
    let (declared, used) = match &first.tok {
        Tok::Word(w) => {
            let declared = match w.to_ascii_lowercase().as_str() {
                "numeric" | "real" | "integer" => Declared::Numeric,
                "string" => Declared::Text,
                "date" | "relational" => {
                    return Err(Problem::Unsupported(
                        first.column,
                        format!("`{w}` attributes are not supported"),
                    ))
                }
                _ => {
                    return Err(Problem::Syntax((
                        first.column,
                        format!(
                            "unknown attribute type `{w}`; expected numeric, real, integer, string or {{value, ...}}"
                        ),
                    )))
                }
            };
            (declared, 1)
        }
        Tok::Open => nominal_values(tokens, end_column)?,
        other => {
            return Err(Problem::Syntax((
                first.column,
                format!("expected an attribute type, found {}", other.describe()),
            )))
        }
    };
    if let Some(extra) = tokens.get(used) {
        return Err(Problem::Syntax((
            extra.column,
            format!("unexpected {} after the attribute type", extra.tok.describe()),
        )));
    }
    Ok(declared)
}

/// Parses `{a, b, ...}` starting at `tokens[0]` (the `{`); returns the
/// declared type and the number of tokens used.
fn nominal_values(tokens: &[Token<'_>], end_column: usize) -> Result<(Declared, usize), Problem> {
    let mut values: Vec<String> = Vec::new();
    let mut i = 1;
    loop {
        let Some(token) = tokens.get(i) else {
            return Err(Problem::Syntax((
                end_column,
                "nominal value list is not closed with `}`".to_string(),
            )));
        };
        if token.tok == Tok::Close && values.is_empty() {
            return Err(Problem::Syntax((token.column, "empty nominal value list `{}`".to_string())));
        }
        let Some(value) = token.tok.name() else {
            return Err(Problem::Syntax((
                token.column,
                format!("expected a nominal value, found {}", token.tok.describe()),
            )));
        };
        if is_missing(&value) {
            return Err(Problem::Syntax((
                token.column,
                format!("`{value}` cannot be a nominal value: it means missing"),
            )));
        }
        if values.contains(&value) {
            return Err(Problem::Syntax((token.column, format!("nominal value `{value}` is listed twice"))));
        }
        values.push(value);
        match tokens.get(i + 1) {
            Some(Token { tok: Tok::Comma, .. }) => i += 2,
            Some(Token { tok: Tok::Close, .. }) => return Ok((Declared::Nominal(values), i + 2)),
            Some(other) => {
                return Err(Problem::Syntax((
                    other.column,
                    format!("expected `,` or `}}` in the nominal value list, found {}", other.tok.describe()),
                )))
            }
            None => {
                return Err(Problem::Syntax((
                    end_column,
                    "nominal value list is not closed with `}`".to_string(),
                )))
            }
        }
    }
}
