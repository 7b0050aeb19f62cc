//! Building a [`Dataset`] from a parsed table: which columns are read, the type of each
//! attribute column (from the options, the ARFF declaration, or inferred from the values), and the
//! class column (see the [module docs](super#columns-and-types)).

use std::collections::HashMap;

use super::text::{look, Cell, Declared, Look, RawTable};
use super::{
    column_index, count_missing_words, first_index, missing_class, read_number, target_column, AttrKind,
    Attribute, DataError, Dataset, Labels, LoadOptions, Schema, Vocabulary, MAX_INTEGER_CODED_CLASSES,
};

/// Reads `table` (from `source`) into a dataset as `opts` says, inferring the attribute types,
/// and appends to `warnings` a sentence for each decision the user may not expect.
pub(super) fn build(
    source: &str,
    table: &RawTable<'_>,
    opts: &LoadOptions,
    warnings: &mut Vec<String>,
) -> Result<Dataset, DataError> {
    let columns = choose_columns(source, table, opts)?;
    let vocabulary = Vocabulary::new(opts);
    let n_rows = table.rows.len();
    let n_attrs = columns.attributes.len();
    let mut x = vec![f64::NAN; n_rows * n_attrs];
    let mut attributes = Vec::with_capacity(n_attrs);
    for (j, &c) in columns.attributes.iter().enumerate() {
        let column = Column { source, table, c, j, n_attrs, vocabulary: &vocabulary };
        let kind = column.read(columns.read_as(table, c), &mut x, warnings)?;
        attributes.push(Attribute { name: table.columns[c].name.clone(), kind });
    }
    let (classes, y) = match columns.target {
        Some(target) => {
            let single_ok = opts.labels == Labels::Evaluation;
            read_classes(source, table, target, columns.as_categorical[target], single_ok, warnings)?
        }
        None => (vec![String::new()], vec![0; n_rows]),
    };
    Ok(Dataset { schema: Schema { attributes, classes }, x, y, source: source.to_string() })
}

/// The columns `opts` chooses: the target, the attributes, and the type overrides.
struct Columns {
    /// The class column; `None` with [`Labels::Absent`].
    target: Option<usize>,
    /// Attribute columns, in file order.
    attributes: Vec<usize>,
    as_numeric: Vec<bool>,
    as_categorical: Vec<bool>,
}

impl Columns {
    /// The type column `c` is read as: an override, else its ARFF declaration, else inferred.
    fn read_as<'t>(&self, table: &'t RawTable<'_>, c: usize) -> ReadAs<'t> {
        let declared = &table.columns[c].declared;
        if self.as_numeric[c] {
            ReadAs::Numeric
        } else if self.as_categorical[c] {
            match declared {
                Declared::Nominal(values) => ReadAs::Categorical(values),
                _ => ReadAs::Categorical(&[]),
            }
        } else {
            match declared {
                Declared::Numeric => ReadAs::Numeric,
                Declared::Nominal(values) => ReadAs::Categorical(values),
                Declared::Text => ReadAs::Categorical(&[]),
                Declared::Untyped => ReadAs::Infer,
            }
        }
    }
}

/// Resolves the column options (`--target`, `--ignore`, `--id`, `--numeric`, `--categorical`)
/// against the header, refusing unknown names, contradictions, and a table left with no
/// attribute.
fn choose_columns(source: &str, table: &RawTable<'_>, opts: &LoadOptions) -> Result<Columns, DataError> {
    let n_cols = table.columns.len();
    // Without a class column, `target` is one past the last column: no column is it.
    let target = match opts.labels {
        Labels::Absent if opts.target.is_some() => {
            return Err(DataError::ConflictingOptions {
                path: source.to_string(),
                name: opts.target.clone().unwrap_or_default(),
                reason: "is named as the class column of a file read without one",
            });
        }
        Labels::Absent => n_cols,
        Labels::Training | Labels::Evaluation => target_column(source, table, opts)?,
    };
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
    if ignored.get(target) == Some(&true) {
        return Err(conflict(target, "is the target (class) column and is also in --ignore"));
    }
    if as_numeric.get(target) == Some(&true) {
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
    let attributes: Vec<usize> = (0..n_cols).filter(|&c| c != target && !ignored[c]).collect();
    if attributes.is_empty() {
        return Err(DataError::NoAttributes {
            path: source.to_string(),
            line: table.header_line,
            columns: n_cols,
        });
    }
    Ok(Columns { target: (target < n_cols).then_some(target), attributes, as_numeric, as_categorical })
}

/// One attribute column being read: file column `c` into column `j` of the row-major `x`.
struct Column<'s, 't, 'a> {
    source: &'s str,
    table: &'t RawTable<'a>,
    c: usize,
    j: usize,
    n_attrs: usize,
    vocabulary: &'s Vocabulary<'s>,
}

impl<'t, 'a> Column<'_, 't, 'a> {
    fn cells(&self) -> impl Iterator<Item = &'t Cell<'a>> + '_ {
        self.table.rows.iter().map(|r| &r.cells[self.c])
    }

    fn name(&self) -> &str {
        &self.table.columns[self.c].name
    }

    /// Reads the column as `read_as` says into `x` and returns its kind, warning when a numeric
    /// column had words of the missing-value vocabulary.
    fn read(
        &self,
        read_as: ReadAs<'_>,
        x: &mut [f64],
        warnings: &mut Vec<String>,
    ) -> Result<AttrKind, DataError> {
        let kind = match read_as {
            ReadAs::Numeric => self.numeric(x)?,
            ReadAs::Infer => self.infer(x, warnings)?,
            ReadAs::Categorical(declared) => categorical(self.cells(), declared, x, self.n_attrs, self.j),
        };
        if matches!(kind, AttrKind::Numeric { .. }) {
            let mut words = Vec::new();
            count_missing_words(&self.cells().collect::<Vec<_>>(), self.vocabulary, &mut words);
            if !words.is_empty() {
                let list: Vec<String> = words.iter().map(|(w, n)| format!("\"{w}\" ×{n}")).collect();
                warnings.push(format!(
                    "{}: numeric column `{}`: {} read as missing values",
                    self.source,
                    self.name(),
                    list.join(", ")
                ));
            }
        }
        Ok(kind)
    }

    /// Reads every cell as a number (missing ones stay `NaN`); the kind records the most decimals
    /// any value had.
    fn numeric(&self, x: &mut [f64]) -> Result<AttrKind, DataError> {
        let mut decimals = 0;
        for (i, cell) in self.cells().enumerate() {
            if let Some((v, d)) = read_number(self.source, cell, self.c, self.name(), self.vocabulary)? {
                x[i * self.n_attrs + self.j] = v;
                decimals = decimals.max(d);
            }
        }
        Ok(AttrKind::Numeric { decimals })
    }

    /// Numeric when every cell that is not a missing word looks like a number (a non-finite one
    /// is then an error at its position); else categorical, with a warning when most values were
    /// numbers.
    fn infer(&self, x: &mut [f64], warnings: &mut Vec<String>) -> Result<AttrKind, DataError> {
        let mut numbers = 0usize;
        let mut first_text: Option<&Cell<'_>> = None;
        let mut texts = 0usize;
        for cell in self.cells().filter(|cell| !self.vocabulary.is_missing(&cell.text)) {
            match look(&cell.text) {
                Look::Number(..) | Look::NonFinite => numbers += 1,
                Look::Text => {
                    texts += 1;
                    first_text.get_or_insert(cell);
                }
            }
        }
        let Some(cell) = first_text else {
            return self.numeric(x);
        };
        if numbers > texts {
            let name = self.name();
            warnings.push(format!(
                "{}:{}:{}: column `{}` is read as categorical because \"{}\" is not a number, \
                 although {numbers} of its {} values are numbers (each number becomes a category); \
                 say --categorical {} if that is right, --numeric {} to make such cells errors, \
                 or --missing-values to mark them missing",
                self.source,
                cell.line,
                self.c + 1,
                name,
                cell.text,
                numbers + texts,
                name,
                name
            ));
        }
        Ok(categorical(self.cells(), &[], x, self.n_attrs, self.j))
    }
}

/// Reads the class column `target`: the class names (ARFF nominal ones first, in declared
/// order, then in order of first appearance) and each row's class index. A missing label, a
/// single class (unless `single_ok`), or a column of numbers that is not named categorical (or
/// declared) is an error; integer codes (up to [`MAX_INTEGER_CODED_CLASSES`]) are read as labels with a
/// warning.
fn read_classes(
    source: &str,
    table: &RawTable<'_>,
    target: usize,
    named_categorical: bool,
    single_ok: bool,
    warnings: &mut Vec<String>,
) -> Result<(Vec<String>, Vec<usize>), DataError> {
    let target_col = &table.columns[target];
    let mut classes: Vec<String> = match &target_col.declared {
        Declared::Nominal(values) => values.clone(),
        _ => Vec::new(),
    };
    let mut class_index = first_index(&classes);
    let mut y = Vec::with_capacity(table.rows.len());
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
    if !named_categorical && !declared_classes {
        check_numeric_classes(source, table, target, &classes, warnings)?;
    }
    if let ([only], false) = (&present[..], single_ok) {
        let only = *only;
        return Err(DataError::SingleClass {
            path: source.to_string(),
            name: target_col.name.clone(),
            class: classes[only].clone(),
            rows: table.rows.len(),
        });
    }
    Ok((classes, y))
}

/// Refuses a class column whose names all look like numbers, unless they are integer codes of at
/// most [`MAX_INTEGER_CODED_CLASSES`] classes (then a warning).
fn check_numeric_classes(
    source: &str,
    table: &RawTable<'_>,
    target: usize,
    classes: &[String],
    warnings: &mut Vec<String>,
) -> Result<(), DataError> {
    let target_col = &table.columns[target];
    let looks: Vec<Look> = classes.iter().map(|c| look(c)).collect();
    if looks.iter().any(|l| matches!(l, Look::Text)) {
        return Ok(());
    }
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
    Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Builds a dataset from in-memory CSV text.
    fn build_csv(text: &str, opts: &LoadOptions) -> Result<(Dataset, Vec<String>), DataError> {
        let table = crate::data::csv::parse("t.csv", text)?;
        let mut warnings = Vec::new();
        let data = build("t.csv", &table, opts, &mut warnings)?;
        Ok((data, warnings))
    }

    #[test]
    fn infers_numeric_and_categorical_columns() {
        let (data, warnings) =
            build_csv("size,colour,class\n1.5,red,a\n2,blue,b\nNA,red,a\n", &LoadOptions::default()).unwrap();
        assert!(warnings[0].contains("\"NA\" ×1"), "{warnings:?}");
        assert_eq!(data.schema.attributes[0].kind, AttrKind::Numeric { decimals: 1 });
        assert_eq!(
            data.schema.attributes[1].kind,
            AttrKind::Categorical { values: vec!["red".into(), "blue".into()] }
        );
        assert_eq!(data.schema.classes, ["a", "b"]);
        assert_eq!(data.y, [0, 1, 0]);
        assert_eq!(data.row(1), [2.0, 1.0]);
        assert!(data.row(2)[0].is_nan());
    }

    #[test]
    fn a_word_among_numbers_makes_the_column_categorical_with_a_warning() {
        let (data, warnings) =
            build_csv("v,class\n1,a\n2,b\n3,a\nfour,b\n", &LoadOptions::default()).unwrap();
        assert!(
            matches!(&data.schema.attributes[0].kind, AttrKind::Categorical { values } if values.len() == 4)
        );
        assert!(warnings[0].starts_with("t.csv:5:1: column `v` is read as categorical"), "{warnings:?}");
    }

    #[test]
    fn overrides_take_precedence_over_inference() {
        let opts = LoadOptions { categorical: vec!["v".into()], ..LoadOptions::default() };
        let (data, _) = build_csv("v,class\n1,a\n2,b\n", &opts).unwrap();
        assert_eq!(
            data.schema.attributes[0].kind,
            AttrKind::Categorical { values: vec!["1".into(), "2".into()] }
        );
        let opts = LoadOptions { numeric: vec!["v".into()], ..LoadOptions::default() };
        let err = build_csv("v,class\n1,a\nx,b\n", &opts).unwrap_err();
        assert_eq!(err.to_string().split(':').take(3).collect::<Vec<_>>(), ["t.csv", "3", "1"]);
    }

    #[test]
    fn conflicting_options_are_refused() {
        let opts = LoadOptions { numeric: vec!["class".into()], ..LoadOptions::default() };
        assert!(matches!(build_csv("v,class\n1,a\n2,b\n", &opts), Err(DataError::ConflictingOptions { .. })));
        let opts = LoadOptions { ignore: vec!["v".into()], ..LoadOptions::default() };
        assert!(matches!(build_csv("v,class\n1,a\n2,b\n", &opts), Err(DataError::NoAttributes { .. })));
    }

    #[test]
    fn class_column_checks() {
        let opts = LoadOptions::default();
        // Integer codes are labels, with a warning.
        let (data, warnings) = build_csv("v,class\n1,0\n2,1\n", &opts).unwrap();
        assert_eq!(data.schema.classes, ["0", "1"]);
        assert!(warnings[0].contains("holds integers"), "{warnings:?}");
        assert!(matches!(build_csv("v,class\n1,0.5\n2,1\n", &opts), Err(DataError::NumericTarget { .. })));
        assert!(matches!(build_csv("v,class\n1,a\n2,a\n", &opts), Err(DataError::SingleClass { .. })));
        assert!(matches!(
            build_csv("v,class\n1,a\n2,?\n", &opts),
            Err(DataError::MissingClass { line: 3, .. })
        ));
    }
}
