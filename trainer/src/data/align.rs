//! Reading a file through an existing [`Schema`] (a model's), matching columns by name: see
//! [`load_with_schema`](super::load_with_schema).

use std::collections::HashMap;

use super::text::{Cell, RawTable};
use super::{
    column_index, count_missing_words, first_index, missing_class, read_number, target_column, AlignReport,
    AttrKind, Attribute, DataError, Dataset, LoadOptions, Schema, UnseenClass, UnseenValue, Vocabulary,
};

/// Maps `table` (from `source`) onto `schema` by column name; what it had to do (skipped
/// columns, unseen values and classes) goes in the report.
pub(super) fn align(
    source: &str,
    table: &RawTable<'_>,
    opts: &LoadOptions,
    schema: &Schema,
) -> Result<(Dataset, AlignReport), DataError> {
    let (target, id) = find_target(source, table, opts, schema)?;
    let attr_cols = attribute_columns(source, table, schema)?;
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
    let vocabulary = Vocabulary::new(opts);
    let n_rows = table.rows.len();
    let n_attrs = attr_cols.len();
    let mut x = vec![f64::NAN; n_rows * n_attrs];
    for (j, (attr, &c)) in schema.attributes.iter().zip(&attr_cols).enumerate() {
        let cells: Vec<&Cell<'_>> = table.rows.iter().map(|r| &r.cells[c]).collect();
        let column = x.iter_mut().skip(j).step_by(n_attrs.max(1));
        match &attr.kind {
            AttrKind::Numeric { .. } => {
                for (slot, cell) in column.zip(&cells) {
                    if let Some((v, _)) = read_number(source, cell, c, &attr.name, &vocabulary)? {
                        *slot = v;
                    }
                }
                count_missing_words(&cells, &vocabulary, &mut report.missing_words);
            }
            AttrKind::Categorical { values } => read_known_values(attr, values, &cells, column, &mut report),
        }
    }

    let Some(target) = target else {
        let dataset = Dataset { schema: schema.clone(), x, y: vec![0; n_rows], source: source.to_string() };
        return Ok((dataset, report));
    };
    let (classes, y) = read_classes(source, table, target, opts, schema, &mut report)?;
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

/// The class column and the `--id` column, if any.
///
/// The class column is `--target`; else the last column that is neither ignored nor the id,
/// unless it is a schema attribute; else the one such column that is not an attribute; none at
/// all means the file is unlabeled. A class column that is an attribute of the schema, or an
/// attribute in `--ignore`, is an error.
fn find_target(
    source: &str,
    table: &RawTable<'_>,
    opts: &LoadOptions,
    schema: &Schema,
) -> Result<(Option<usize>, Option<usize>), DataError> {
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
    Ok((target, id))
}

/// The file column of each schema attribute, in schema order; an attribute without a column is
/// an error.
fn attribute_columns(source: &str, table: &RawTable<'_>, schema: &Schema) -> Result<Vec<usize>, DataError> {
    let by_name: HashMap<&str, usize> =
        table.columns.iter().enumerate().map(|(i, c)| (c.name.as_str(), i)).collect();
    schema
        .attributes
        .iter()
        .map(|attr| {
            by_name.get(attr.name.as_str()).copied().ok_or_else(|| DataError::MissingAttribute {
                path: source.to_string(),
                line: table.header_line,
                name: attr.name.clone(),
                available: table.columns.iter().map(|c| c.name.clone()).collect(),
            })
        })
        .collect()
}

/// Writes the index of each cell's value among the schema's `values` into `column` (one slot
/// per row); a value the schema does not list stays missing and is counted in
/// [`AlignReport::unseen_values`].
fn read_known_values<'x>(
    attr: &Attribute,
    values: &[String],
    cells: &[&Cell<'_>],
    column: impl Iterator<Item = &'x mut f64>,
    report: &mut AlignReport,
) {
    let index = first_index(values);
    let mut unseen: HashMap<&str, usize> = HashMap::new();
    for (slot, cell) in column.zip(cells) {
        if cell.is_missing() {
            continue;
        }
        match index.get(cell.text.as_ref()) {
            Some(&k) => *slot = k as f64,
            None => {
                let u = *unseen.entry(cell.text.as_ref()).or_insert_with(|| {
                    report.unseen_values.push(UnseenValue {
                        attribute: attr.name.clone(),
                        value: cell.text.to_string(),
                        count: 0,
                        first_line: cell.line,
                    });
                    report.unseen_values.len() - 1
                });
                report.unseen_values[u].count += 1;
            }
        }
    }
}

/// Reads the class column `target`: the schema's classes, then any it does not know appended in
/// order of first appearance (listed in [`AlignReport::unseen_classes`]), and each row's class.
/// A missing label is an error unless [`LoadOptions::allow_missing_class`] (then class 0).
fn read_classes(
    source: &str,
    table: &RawTable<'_>,
    target: usize,
    opts: &LoadOptions,
    schema: &Schema,
    report: &mut AlignReport,
) -> Result<(Vec<String>, Vec<usize>), DataError> {
    let mut classes = schema.classes.clone();
    let mut class_index = first_index(&classes);
    let target_name = &table.columns[target].name;
    let mut y = Vec::with_capacity(table.rows.len());
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
            report.unseen_classes.push(UnseenClass {
                name: cell.text.to_string(),
                index: k,
                count: 0,
                first_line: cell.line,
            });
        }
        if let Some(unseen) =
            k.checked_sub(schema.classes.len()).and_then(|u| report.unseen_classes.get_mut(u))
        {
            unseen.count += 1;
        }
        y.push(k);
    }
    Ok((classes, y))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema() -> Schema {
        Schema {
            attributes: vec![
                Attribute { name: "size".into(), kind: AttrKind::Numeric { decimals: 0 } },
                Attribute {
                    name: "colour".into(),
                    kind: AttrKind::Categorical { values: vec!["red".into(), "blue".into()] },
                },
            ],
            classes: vec!["a".into(), "b".into()],
        }
    }

    fn align_csv(text: &str, opts: &LoadOptions) -> Result<(Dataset, AlignReport), DataError> {
        let table = crate::data::csv::parse("t.csv", text)?;
        align("t.csv", &table, opts, &schema())
    }

    #[test]
    fn columns_match_by_name_in_any_order() {
        let (data, report) =
            align_csv("colour,note,size,class\nblue,x,3,b\ngreen,y,4,c\n", &LoadOptions::default()).unwrap();
        assert_eq!(data.row(0), [3.0, 1.0]);
        assert!(data.row(1)[1].is_nan(), "an unseen value is missing");
        assert_eq!(report.ignored_columns, ["note"]);
        assert_eq!(
            report.unseen_values[0],
            UnseenValue { attribute: "colour".into(), value: "green".into(), count: 1, first_line: 3 }
        );
        assert_eq!(data.schema.classes, ["a", "b", "c"]);
        assert_eq!(data.y, [1, 2]);
        assert_eq!(
            report.unseen_classes,
            [UnseenClass { name: "c".into(), index: 2, count: 1, first_line: 3 }]
        );
    }

    #[test]
    fn a_file_of_attributes_only_is_unlabeled() {
        let (data, report) = align_csv("size,colour\n1,red\n", &LoadOptions::default()).unwrap();
        assert!(report.unlabeled);
        assert_eq!(data.y, [0]);
    }

    #[test]
    fn missing_attribute_and_missing_class() {
        let err = align_csv("size,class\n1,a\n", &LoadOptions::default()).unwrap_err();
        assert!(matches!(err, DataError::MissingAttribute { ref name, .. } if name == "colour"));
        let err = align_csv("size,colour,class\n1,red,?\n", &LoadOptions::default()).unwrap_err();
        assert!(matches!(err, DataError::MissingClass { line: 2, .. }));
        let opts = LoadOptions { allow_missing_class: true, ..LoadOptions::default() };
        let (_, report) = align_csv("size,colour,class\n1,red,?\n", &opts).unwrap();
        assert_eq!(report.missing_class_rows, 1);
    }

    #[test]
    fn the_target_cannot_be_an_attribute() {
        let opts = LoadOptions { target: Some("size".into()), ..LoadOptions::default() };
        let err = align_csv("size,colour,class\n1,red,a\n", &opts).unwrap_err();
        assert!(matches!(err, DataError::ConflictingOptions { .. }));
    }
}
