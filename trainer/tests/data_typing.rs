//! Library-level tests of the loader's typing decisions: missing-value words, non-finite
//! numbers, numeric class columns, and what `load_with_schema` does for `predict`.

use std::path::PathBuf;

use ltu::data::{load, load_with_schema, load_with_warnings, AttrKind, DataError, LoadOptions};

fn file(dir: &tempfile::TempDir, name: &str, text: &str) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn missing_words_are_missing_only_in_numeric_columns() {
    let dir = tempfile::tempdir().unwrap();
    let path = file(&dir, "t.csv", "n,c,class\n1,NA,x\nNA,b,y\nnull,NA,x\n4,b,y\n");
    let (data, warnings) = load_with_warnings(&path, &LoadOptions::default()).unwrap();
    assert_eq!(data.schema.attributes[0].kind, AttrKind::Numeric { decimals: 0 });
    assert!(data.row(1)[0].is_nan() && data.row(2)[0].is_nan());
    // In a categorical column `NA` is a value like any other.
    assert_eq!(
        data.schema.attributes[1].kind,
        AttrKind::Categorical { values: vec!["NA".into(), "b".into()] }
    );
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("\"NA\" ×1, \"null\" ×1"), "{warnings:?}");
}

#[test]
fn non_finite_values_are_errors_with_positions() {
    let dir = tempfile::tempdir().unwrap();
    for (cell, line) in [("inf", 3), ("-Infinity", 3), ("1e309", 3), ("-2e999", 3)] {
        let path = file(&dir, "t.csv", &format!("a,class\n1,x\n{cell},y\n3,x\n"));
        let err = load(&path, &LoadOptions::default()).unwrap_err();
        assert!(
            matches!(err, DataError::NotNumeric { line: l, column: 1, .. } if l == line),
            "{cell}: {err}"
        );
    }
    // `nan` is a missing word by default, an error when the vocabulary leaves it out.
    let path = file(&dir, "t.csv", "a,class\n1,x\nnan,y\n3,x\n");
    assert!(load(&path, &LoadOptions::default()).unwrap().row(1)[0].is_nan());
    let strict = LoadOptions { missing_values: Some(vec!["?".into()]), ..LoadOptions::default() };
    assert!(matches!(load(&path, &strict).unwrap_err(), DataError::NotNumeric { line: 3, .. }));
}

#[test]
fn numeric_class_columns() {
    let dir = tempfile::tempdir().unwrap();
    let path = file(&dir, "t.csv", "a,y\nu,1.5\nv,2.5\nu,1.5\n");
    let err = load(&path, &LoadOptions::default()).unwrap_err();
    assert!(matches!(err, DataError::NumericTarget { distinct: 2, .. }), "{err}");
    assert!(err.to_string().contains("--categorical y"), "{err}");
    let categorical = LoadOptions { categorical: vec!["y".into()], ..LoadOptions::default() };
    let (data, warnings) = load_with_warnings(&path, &categorical).unwrap();
    assert_eq!(data.schema.classes, ["1.5", "2.5"]);
    assert!(warnings.is_empty(), "{warnings:?}");

    // Small integer codes: read, with a warning.
    let path = file(&dir, "t.csv", "a,y\nu,0\nv,1\nu,0\n");
    let (data, warnings) = load_with_warnings(&path, &LoadOptions::default()).unwrap();
    assert_eq!(data.schema.classes, ["0", "1"]);
    assert!(warnings[0].contains("holds integers"), "{warnings:?}");

    // Many distinct integers: refused.
    let rows: String = (0..30).map(|i| format!("u,{i}\n")).collect();
    let path = file(&dir, "t.csv", &format!("a,y\n{rows}"));
    assert!(matches!(
        load(&path, &LoadOptions::default()).unwrap_err(),
        DataError::NumericTarget { distinct: 30, .. }
    ));

    // An ARFF nominal class of numbers is declared categorical: no error, no warning.
    let path = file(
        &dir,
        "t.arff",
        "@relation r\n@attribute a {u,v}\n@attribute y {1.5,2.5}\n@data\nu,1.5\nv,2.5\n",
    );
    let (_, warnings) = load_with_warnings(&path, &LoadOptions::default()).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
}

#[test]
fn mostly_numeric_categorical_column_is_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let path = file(&dir, "t.csv", "a,class\n1,x\n2,y\nn/a,x\n4,y\n");
    let (data, warnings) = load_with_warnings(&path, &LoadOptions::default()).unwrap();
    assert!(matches!(data.schema.attributes[0].kind, AttrKind::Categorical { .. }));
    assert!(warnings[0].contains("t.csv:4:1") && warnings[0].contains("3 of its 4 values"), "{warnings:?}");
}

#[test]
fn schema_alignment_for_predict() {
    let dir = tempfile::tempdir().unwrap();
    let train = file(&dir, "train.csv", "a,c,class\n1,r,x\n2,s,y\n3,r,x\n");
    let data = load(&train, &LoadOptions::default()).unwrap();
    let new = file(&dir, "new.csv", "id,a,c,class\nk1,NA,r,\nk2,2,t,\n");
    // An empty class column is an error unless asked for.
    let err = load_with_schema(
        &new,
        &LoadOptions { id: Some("id".into()), ..LoadOptions::default() },
        &data.schema,
    )
    .unwrap_err();
    assert!(matches!(err, DataError::MissingClass { line: 2, column: 4, .. }), "{err}");
    let opts = LoadOptions { id: Some("id".into()), allow_missing_class: true, ..LoadOptions::default() };
    let (d, report) = load_with_schema(&new, &opts, &data.schema).unwrap();
    assert_eq!(report.ids, ["k1", "k2"]);
    assert_eq!(report.missing_class_rows, 2);
    assert_eq!(report.missing_words, [("NA".to_string(), 1)]);
    assert_eq!(report.unseen_value_cells(), 1);
    assert!(d.row(0)[0].is_nan());
    // An ignored column is never the class column; an attribute cannot be ignored.
    let ignore = LoadOptions { ignore: vec!["class".into(), "id".into()], ..LoadOptions::default() };
    let (_, report) = load_with_schema(&new, &ignore, &data.schema).unwrap();
    assert!(report.unlabeled);
    let ignore_attr = LoadOptions { ignore: vec!["a".into()], ..LoadOptions::default() };
    assert!(matches!(
        load_with_schema(&new, &ignore_attr, &data.schema).unwrap_err(),
        DataError::ConflictingOptions { .. }
    ));
}
