//! CSV reader: comma-separated, one header row, RFC 4180 quoting.
//!
//! - Fields are separated by `,`; records end at `\n` or `\r\n`.
//! - A field that starts with `"` (after optional spaces or tabs) is quoted:
//!   it ends at the next lone `"`, `""` inside stands for one `"`, and it may
//!   contain commas and line breaks. Only spaces or tabs may follow the
//!   closing quote before the next `,` or the end of the line.
//! - Unquoted fields are trimmed of spaces and tabs; a `"` inside them is an
//!   ordinary character.
//! - Lines that are empty or hold only spaces and tabs are skipped.
//! - The header row names the columns: names must be non-empty and distinct.

use std::borrow::Cow;
use std::collections::HashMap;

use super::text::{char_column, Cell, Declared, RawColumn, RawRow, RawTable};
use super::DataError;

/// A record: the line it starts on and its cells.
struct Record<'a> {
    line: usize,
    cells: Vec<Cell<'a>>,
}

/// Splits `text` into records.
struct Reader<'a> {
    path: &'a str,
    text: &'a str,
    pos: usize,
    line: usize,
    line_start: usize,
}

impl<'a> Reader<'a> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn skip_blanks(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.pos += 1;
        }
    }

    fn syntax(&self, line: usize, column: usize, message: String) -> DataError {
        DataError::Syntax { path: self.path.to_string(), line, column, message }
    }

    /// Skips blank lines; returns false at the end of the text.
    fn skip_blank_lines(&mut self) -> bool {
        let bytes = self.text.as_bytes();
        loop {
            if self.pos >= bytes.len() {
                return false;
            }
            let eol =
                bytes[self.pos..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |p| self.pos + p);
            if !bytes[self.pos..eol].iter().all(|b| matches!(b, b' ' | b'\t' | b'\r')) {
                return true;
            }
            if eol == bytes.len() {
                self.pos = eol;
                return false;
            }
            self.pos = eol + 1;
            self.line += 1;
            self.line_start = self.pos;
        }
    }

    /// Reads the quoted field whose opening quote is at `self.pos`.
    fn quoted(&mut self) -> Result<Cow<'a, str>, DataError> {
        let bytes = self.text.as_bytes();
        let (open_line, open_col) = (self.line, char_column(self.text, self.line_start, self.pos));
        self.pos += 1;
        let mut piece_start = self.pos;
        let mut owned: Option<String> = None;
        loop {
            match bytes.get(self.pos) {
                None => {
                    return Err(self.syntax(
                        open_line,
                        open_col,
                        "quoted field is never closed (no matching `\"` before the end of the file)"
                            .to_string(),
                    ))
                }
                Some(b'"') if bytes.get(self.pos + 1) == Some(&b'"') => {
                    // `""` is one quote: keep the first, skip the second.
                    owned.get_or_insert_with(String::new).push_str(&self.text[piece_start..=self.pos]);
                    self.pos += 2;
                    piece_start = self.pos;
                }
                Some(b'"') => {
                    let tail = &self.text[piece_start..self.pos];
                    self.pos += 1;
                    return Ok(match owned {
                        Some(mut s) => {
                            s.push_str(tail);
                            Cow::Owned(s)
                        }
                        None => Cow::Borrowed(tail),
                    });
                }
                Some(b'\n') => {
                    self.pos += 1;
                    self.line += 1;
                    self.line_start = self.pos;
                }
                Some(_) => self.pos += 1,
            }
        }
    }

    /// Reads one record starting at a non-blank line.
    fn record(&mut self) -> Result<Record<'a>, DataError> {
        let bytes = self.text.as_bytes();
        let line = self.line;
        let mut cells = Vec::new();
        loop {
            self.skip_blanks();
            let cell_line = self.line;
            let text = if self.peek() == Some(b'"') {
                let text = self.quoted()?;
                self.skip_blanks();
                match self.peek() {
                    None | Some(b',' | b'\n') => {}
                    Some(b'\r') if matches!(bytes.get(self.pos + 1), None | Some(b'\n')) => {}
                    Some(_) => {
                        let found = self.text[self.pos..].chars().next().unwrap_or(' ');
                        return Err(self.syntax(
                            self.line,
                            char_column(self.text, self.line_start, self.pos),
                            format!(
                                "unexpected `{found}` after the closing quote of field {}; \
                                 quote the whole field and write a quote inside it as `\"\"`",
                                cells.len() + 1
                            ),
                        ));
                    }
                }
                text
            } else {
                let start = self.pos;
                while !matches!(self.peek(), None | Some(b',' | b'\n')) {
                    self.pos += 1;
                }
                Cow::Borrowed(self.text[start..self.pos].trim_end_matches([' ', '\t', '\r']))
            };
            cells.push(Cell { text, line: cell_line });
            match self.peek() {
                Some(b',') => self.pos += 1,
                _ => {
                    if self.peek() == Some(b'\r') {
                        self.pos += 1;
                    }
                    if self.peek() == Some(b'\n') {
                        self.pos += 1;
                        self.line += 1;
                        self.line_start = self.pos;
                    }
                    return Ok(Record { line, cells });
                }
            }
        }
    }
}

/// Parses CSV `text` read from `path` into a table whose rows all have one
/// cell per header column.
pub(crate) fn parse<'a>(path: &'a str, text: &'a str) -> Result<RawTable<'a>, DataError> {
    let mut reader = Reader { path, text, pos: 0, line: 1, line_start: 0 };
    if !reader.skip_blank_lines() {
        return Err(DataError::Empty { path: path.to_string() });
    }
    let header = reader.record()?;
    let mut columns = Vec::with_capacity(header.cells.len());
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (i, cell) in header.cells.iter().enumerate() {
        if cell.text.is_empty() {
            return Err(DataError::EmptyColumnName {
                path: path.to_string(),
                line: cell.line,
                column: i + 1,
            });
        }
        if let Some(&first) = seen.get(cell.text.as_ref()) {
            return Err(DataError::DuplicateColumn {
                path: path.to_string(),
                line: cell.line,
                column: i + 1,
                name: cell.text.to_string(),
                first_column: first + 1,
            });
        }
        seen.insert(cell.text.as_ref(), i);
        columns.push(RawColumn { name: cell.text.to_string(), declared: Declared::Untyped });
    }
    let mut rows = Vec::new();
    while reader.skip_blank_lines() {
        let record = reader.record()?;
        if record.cells.len() != columns.len() {
            let (found, expected) = (record.cells.len(), columns.len());
            // Point at the first extra field, or at the first missing one.
            let column = found.min(expected) + 1;
            let line = record.cells.get(column - 1).or(record.cells.last()).map_or(record.line, |c| c.line);
            return Err(DataError::Ragged { path: path.to_string(), line, column, expected, found });
        }
        rows.push(RawRow { cells: record.cells });
    }
    Ok(RawTable { header_line: header.line, columns, rows })
}
