//! Integration tests of the data loaders, splits and generator through the
//! public API: every error names the file and the exact line and column,
//! every shipped dataset loads with the counts its README states, ARFF
//! round-trips, and evaluation files are aligned onto a schema by name.

use std::path::{Path, PathBuf};

use ltu::data::split::{complement, stratified_kfold, train_test_split_stratified, SplitError};
use ltu::data::{
    load, load_with_schema, AttrKind, Attribute, DataError, Dataset, LoadOptions, Schema, UnseenClass,
    UnseenValue,
};
use ltu::rng::Rng;
use proptest::prelude::*;
use tempfile::TempDir;

/// A temporary directory holding test files.
struct Files {
    dir: TempDir,
}

impl Files {
    fn new() -> Files {
        Files { dir: tempfile::tempdir().expect("temp dir") }
    }

    fn write(&self, name: &str, contents: impl AsRef<[u8]>) -> PathBuf {
        let path = self.dir.path().join(name);
        std::fs::write(&path, contents).expect("write test file");
        path
    }
}

fn opts() -> LoadOptions {
    LoadOptions::default()
}

/// Loads `contents` as a file called `name` and returns the error message,
/// with the file path replaced by `F` so expectations read like the output.
fn error_with(name: &str, contents: impl AsRef<[u8]>, options: &LoadOptions) -> String {
    let files = Files::new();
    let path = files.write(name, contents);
    match load(&path, options) {
        Ok(d) => panic!("{name} loaded ({} rows) but should fail", d.n_rows()),
        Err(e) => {
            let message = e.to_string();
            let p = path.display().to_string();
            assert!(message.starts_with(&p), "message does not start with the path: {message}");
            message.replacen(&p, "F", 1)
        }
    }
}

fn csv_error(contents: impl AsRef<[u8]>) -> String {
    error_with("t.csv", contents, &opts())
}

fn arff_error(contents: &str) -> String {
    error_with("t.arff", contents, &opts())
}

fn load_str(name: &str, contents: &str, options: &LoadOptions) -> Dataset {
    let files = Files::new();
    let path = files.write(name, contents);
    load(&path, options).unwrap_or_else(|e| panic!("{e}"))
}

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// `Dataset` equality where missing (`NaN`) equals missing.
fn assert_same(a: &Dataset, b: &Dataset) {
    assert_eq!(a.schema, b.schema);
    assert_eq!(a.y, b.y);
    let bits = |d: &Dataset| d.x.iter().map(|v| if v.is_nan() { u64::MAX } else { v.to_bits() }).collect();
    let (xa, xb): (Vec<u64>, Vec<u64>) = (bits(a), bits(b));
    assert_eq!(xa, xb);
}

fn repo_data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../data").join(name)
}

// ---------------------------------------------------------------- errors

#[test]
fn missing_file_names_the_path_and_keeps_the_os_reason() {
    let files = Files::new();
    let path = files.dir.path().join("nope.csv");
    let err = load(&path, &opts()).unwrap_err();
    assert_eq!(err.to_string(), format!("{}: cannot read the file", path.display()));
    match &err {
        DataError::Io { source, .. } => assert_eq!(source.kind(), std::io::ErrorKind::NotFound),
        other => panic!("{other:?}"),
    }
    assert!(std::error::Error::source(&err).is_some());
}

#[test]
fn empty_file() {
    let expected = "F: the file is empty; expected a header row naming the columns";
    assert_eq!(csv_error(""), expected);
    assert_eq!(csv_error("\n  \n\t\r\n"), expected);
    assert_eq!(arff_error("\n"), expected);
}

#[test]
fn header_without_rows_names_the_header_line() {
    assert_eq!(csv_error("a,b,class\n"), "F:1: the file has a header but no data rows");
    assert_eq!(csv_error("\n\na,b,class\n\n"), "F:3: the file has a header but no data rows");
    assert_eq!(
        arff_error("@relation r\n@attribute a numeric\n@attribute c {x,y}\n@data\n% nothing\n"),
        "F:2: the file has a header but no data rows"
    );
}

#[test]
fn ragged_rows_give_line_and_first_extra_or_missing_field() {
    assert_eq!(csv_error("a,b,class\n1,2,x\n1,y\n"), "F:3:3: expected 3 fields (as in the header), found 2");
    assert_eq!(csv_error("a,b,class\n1,2,x,9\n"), "F:2:4: expected 3 fields (as in the header), found 4");
    // A trailing comma is an extra, empty field.
    assert_eq!(
        csv_error("a,b,class\n1,2,x\n3,4,y,\n"),
        "F:3:4: expected 3 fields (as in the header), found 4"
    );
    assert_eq!(
        arff_error("@relation r\n@attribute a numeric\n@attribute c {x,y}\n@data\n1,x\n2\n"),
        "F:6:2: expected 2 fields (as in the header), found 1"
    );
}

#[test]
fn non_number_in_numeric_column_names_line_column_name_and_value() {
    let numeric_b = LoadOptions { numeric: names(&["b"]), ..opts() };
    assert_eq!(
        error_with("t.csv", "a,b,class\n1,2,x\n3,4x,y\n", &numeric_b),
        "F:3:2: column `b` is numeric but \"4x\" is not a finite number"
    );
    assert_eq!(
        error_with("t.csv", "a,b,class\n1,inf,x\n", &numeric_b),
        "F:2:2: column `b` is numeric but \"inf\" is not a finite number"
    );
    assert_eq!(
        arff_error("@relation r\n@attribute 'a b' real\n@attribute c {x,y}\n@data\n1.5,x\n% c\nabc,y\n"),
        "F:7:1: column `a b` is numeric but \"abc\" is not a finite number"
    );
}

#[test]
fn a_single_class_names_the_class() {
    assert_eq!(
        csv_error("a,class\n1,yes\n2,yes\n"),
        "F: every row has class `yes` (column `class`, 2 rows); a classifier needs at least two classes"
    );
    // A declared but unused ARFF class does not count.
    assert_eq!(
        arff_error("@relation r\n@attribute a numeric\n@attribute class {p,q}\n@data\n1,q\n"),
        "F: every row has class `q` (column `class`, 1 rows); a classifier needs at least two classes"
    );
}

#[test]
fn invalid_utf8_gives_line_column_and_byte_offset() {
    assert_eq!(
        csv_error(b"a,class\n1,x\n2,\xe9t\xe9\n".as_slice()),
        "F:3:3: invalid UTF-8: byte 0xE9 at byte offset 14"
    );
    assert_eq!(csv_error(b"\xff".as_slice()), "F:1:1: invalid UTF-8: byte 0xFF at byte offset 0");
}

#[test]
fn unknown_option_columns_list_the_available_names() {
    let data = "a,b,class\n1,2,x\n3,4,y\n";
    let available = "the columns are: `a`, `b`, `class`";
    let target = LoadOptions { target: Some("klass".into()), ..opts() };
    assert_eq!(
        error_with("t.csv", data, &target),
        format!("F:1: --target `klass` names no column; {available}")
    );
    let ignore = LoadOptions { ignore: names(&["a", "c"]), ..opts() };
    assert_eq!(error_with("t.csv", data, &ignore), format!("F:1: --ignore `c` names no column; {available}"));
    let numeric = LoadOptions { numeric: names(&["A"]), ..opts() };
    assert_eq!(
        error_with("t.csv", data, &numeric),
        format!("F:1: --numeric `A` names no column; {available}")
    );
    let categorical = LoadOptions { categorical: names(&[""]), ..opts() };
    assert_eq!(
        error_with("t.csv", data, &categorical),
        format!("F:1: --categorical `` names no column; {available}")
    );
}

#[test]
fn duplicate_and_empty_column_names() {
    assert_eq!(csv_error("a,b,a,class\n1,2,3,x\n"), "F:1:3: duplicate column name `a` (also column 1)");
    assert_eq!(csv_error("a, ,class\n1,2,x\n"), "F:1:2: column 2 has an empty name");
    assert_eq!(
        arff_error("@relation r\n@attribute a numeric\n@attribute b numeric\n@attribute 'a' {x}\n@data\n"),
        "F:4:3: duplicate column name `a` (also column 1)"
    );
}

#[test]
fn missing_class_label() {
    assert_eq!(csv_error("a,b,class\n1,2,x\n3,4,?\n"), "F:3:3: the class label (column `class`) is missing");
    assert_eq!(csv_error("a,b,class\n1,2,x\n3,4,\n"), "F:3:3: the class label (column `class`) is missing");
    let target_a = LoadOptions { target: Some("a".into()), ..opts() };
    assert_eq!(
        error_with("t.csv", "a,b,class\n1,2,x\n,4,y\n", &target_a),
        "F:3:1: the class label (column `a`) is missing"
    );
}

#[test]
fn csv_syntax_errors_give_character_columns() {
    assert_eq!(
        csv_error("a,class\n1,x\n2,\"y\n"),
        "F:3:3: quoted field is never closed (no matching `\"` before the end of the file)"
    );
    assert_eq!(
        csv_error("a,class\n1,x\n\"2\"z,y\n"),
        "F:3:4: unexpected `z` after the closing quote of field 1; quote the whole field and write a quote \
         inside it as `\"\"`"
    );
}

#[test]
fn lines_are_counted_through_quoted_line_breaks_and_crlf() {
    let numeric_a = LoadOptions { numeric: names(&["a"]), ..opts() };
    // The quoted field spans lines 2-3, so the bad value is on line 4.
    assert_eq!(
        error_with("t.csv", "a,class\r\n1,\"x\r\nstill x\"\r\nz,y\r\n", &numeric_a),
        "F:4:1: column `a` is numeric but \"z\" is not a finite number"
    );
    // An error inside a multi-line record is reported on the line of its field.
    assert_eq!(
        error_with("t.csv", "b,a,class\n\"multi\nline\",oops,y\n", &numeric_a),
        "F:3:2: column `a` is numeric but \"oops\" is not a finite number"
    );
}

#[test]
fn arff_syntax_errors_give_line_and_column() {
    let head = "% comment\n@relation test\n";
    let cases: &[(&str, &str)] = &[
        (
            "@attribute a numbr\n",
            "F:3:14: unknown attribute type `numbr`; expected numeric, real, integer, string or {value, ...}",
        ),
        ("@attribute a {x, y\n", "F:3:19: nominal value list is not closed with `}`"),
        ("@attribute a {x y}\n", "F:3:17: expected `,` or `}` in the nominal value list, found `y`"),
        ("@attribute a {}\n", "F:3:15: empty nominal value list `{}`"),
        ("@attribute a {x, x}\n", "F:3:18: nominal value `x` is listed twice"),
        ("@attribute 'a numeric\n", "F:3:12: quoted text is never closed (no matching ' on this line)"),
        ("@attribute\n", "F:3:11: expected an attribute name"),
        (
            "@attribute a\n",
            "F:3:13: expected an attribute type (numeric, real, integer, string or {value, ...})",
        ),
        ("@attribute a numeric extra\n", "F:3:22: unexpected `extra` after the attribute type"),
        (
            "  @atribute a numeric\n",
            "F:3:3: unknown declaration `@atribute`; expected `@relation`, `@attribute` or `@data`",
        ),
        ("a,b\n", "F:3:1: expected `@relation`, `@attribute` or `@data`, found `a`"),
        ("@attribute a numeric\n@attribute c {x,y}\n", "F:4:1: no `@data` line: the header never ends"),
        ("@data\n1\n", "F:3:1: no `@attribute` before `@data`"),
        ("@attribute a numeric\n@attribute c {x,y}\n@data x\n", "F:5:7: unexpected `x` after `@data`"),
        (
            "@attribute a numeric\n@attribute c {x,y}\n@data\n1,'x\n",
            "F:6:3: quoted text is never closed (no matching ' on this line)",
        ),
        (
            "@attribute a numeric\n@attribute c {x,y}\n@data\n1, 'x' y\n",
            "F:6:8: unexpected `y` after a quoted value; expected `,`",
        ),
    ];
    for (body, expected) in cases {
        assert_eq!(&arff_error(&format!("{head}{body}")), expected, "for {body:?}");
    }
}

#[test]
fn arff_unsupported_features_are_named() {
    let head = "@relation r\n@attribute a numeric\n@attribute c {x,y}\n";
    assert_eq!(
        arff_error(&format!("{head}@data\n{{0 1, 1 x}}\n")),
        "F:5:1: sparse ARFF rows (`{index value, ...}`) are not supported; write the data in dense form"
    );
    assert_eq!(
        arff_error(&format!("{head}@data\n1,x\n2, y, {{3}}\n")),
        "F:6:7: instance weights (`{weight}` after the last value) are not supported"
    );
    assert_eq!(
        arff_error("@relation r\n@attribute when date \"yyyy-MM-dd\"\n"),
        "F:2:17: `date` attributes are not supported"
    );
}

#[test]
fn arff_value_outside_the_declared_set() {
    assert_eq!(
        arff_error("@relation r\n@attribute a {lo,hi}\n@attribute c {x,y}\n@data\nlo,x\nmid,y\n"),
        "F:6:1: \"mid\" is not a declared value of attribute `a` ({lo, hi})"
    );
    assert_eq!(
        arff_error("@relation r\n@attribute a {lo,hi}\n@attribute c {x,y}\n@data\nlo,z\n"),
        "F:5:2: \"z\" is not a declared value of attribute `c` ({x, y})"
    );
}

#[test]
fn conflicting_options_and_no_attributes() {
    let data = "a,b,class\n1,2,x\n3,4,y\n";
    let ignore_target = LoadOptions { ignore: names(&["class"]), ..opts() };
    assert_eq!(
        error_with("t.csv", data, &ignore_target),
        "F: column `class` is the target (class) column and is also in --ignore"
    );
    let numeric_target = LoadOptions { numeric: names(&["class"]), ..opts() };
    assert_eq!(
        error_with("t.csv", data, &numeric_target),
        "F: column `class` is the target (class) column, which is always categorical, but is in --numeric"
    );
    let both = LoadOptions { numeric: names(&["a"]), categorical: names(&["b", "a"]), ..opts() };
    assert_eq!(error_with("t.csv", data, &both), "F: column `a` is in both --numeric and --categorical");
    let ignore_all = LoadOptions { ignore: names(&["a", "b"]), ..opts() };
    assert_eq!(
        error_with("t.csv", data, &ignore_all),
        "F:1: no attribute columns: the file has 3 column(s), all taken by the class and --ignore (fields \
         must be separated by `,`)"
    );
    assert_eq!(
        csv_error("a;b;class\n1;2;x\n3;4;y\n"),
        "F:1: no attribute columns: the file has 1 column(s), all taken by the class and --ignore (fields \
         must be separated by `,`)"
    );
}

#[test]
fn errors_match_their_variants() {
    let files = Files::new();
    let path = files.write("t.csv", "a,class\n1,x\nz,y\n");
    let numeric = LoadOptions { numeric: names(&["a"]), ..opts() };
    match load(&path, &numeric).unwrap_err() {
        DataError::NotNumeric { line, column, name, value, .. } => {
            assert_eq!((line, column, name.as_str(), value.as_str()), (3, 1, "a", "z"));
        }
        other => panic!("{other:?}"),
    }
}

// ----------------------------------------------------------- successes

struct Expected {
    file: &'static str,
    rows: usize,
    attrs: usize,
    numeric: usize,
    classes: &'static [(&'static str, usize)],
}

/// From data/README.md (rows; feature columns; numeric; classes with counts).
#[rustfmt::skip]
const EXPECTED: &[Expected] = &[
    Expected { file: "iris", rows: 150, attrs: 4, numeric: 4, classes: &[("setosa", 50), ("versicolor", 50), ("virginica", 50)] },
    Expected { file: "house-votes-84", rows: 435, attrs: 16, numeric: 0, classes: &[("democrat", 267), ("republican", 168)] },
    Expected { file: "kr-vs-kp", rows: 3196, attrs: 36, numeric: 0, classes: &[("won", 1669), ("nowin", 1527)] },
    Expected { file: "mushroom", rows: 5644, attrs: 22, numeric: 0, classes: &[("e", 3488), ("p", 2156)] },
    Expected { file: "car", rows: 1728, attrs: 6, numeric: 0, classes: &[("unacc", 1210), ("acc", 384), ("good", 69), ("vgood", 65)] },
    Expected { file: "balance-scale", rows: 625, attrs: 4, numeric: 4, classes: &[("L", 288), ("R", 288), ("B", 49)] },
    Expected { file: "breast-cancer-wisconsin", rows: 699, attrs: 9, numeric: 9, classes: &[("benign", 458), ("malignant", 241)] },
    Expected { file: "wine", rows: 178, attrs: 13, numeric: 13, classes: &[("2", 71), ("1", 59), ("3", 48)] },
    Expected { file: "glass", rows: 214, attrs: 9, numeric: 9, classes: &[("2", 76), ("1", 70), ("7", 29), ("3", 17), ("5", 13), ("6", 9)] },
    Expected { file: "zoo", rows: 101, attrs: 16, numeric: 16, classes: &[("mammal", 41), ("bird", 20), ("fish", 13), ("invertebrate", 10), ("insect", 8), ("reptile", 5), ("amphibian", 4)] },
    Expected { file: "led7digit", rows: 500, attrs: 7, numeric: 7, classes: &[("3", 57), ("7", 57), ("8", 53), ("4", 52), ("5", 52), ("2", 51), ("9", 49), ("6", 47), ("0", 45), ("1", 37)] },
    Expected { file: "monks-1_train", rows: 124, attrs: 6, numeric: 6, classes: &[("0", 62), ("1", 62)] },
    Expected { file: "monks-1_test", rows: 432, attrs: 6, numeric: 6, classes: &[("0", 216), ("1", 216)] },
    Expected { file: "monks-2_train", rows: 169, attrs: 6, numeric: 6, classes: &[("0", 105), ("1", 64)] },
    Expected { file: "monks-2_test", rows: 432, attrs: 6, numeric: 6, classes: &[("0", 290), ("1", 142)] },
    Expected { file: "monks-3_train", rows: 122, attrs: 6, numeric: 6, classes: &[("0", 62), ("1", 60)] },
    Expected { file: "monks-3_test", rows: 432, attrs: 6, numeric: 6, classes: &[("1", 228), ("0", 204)] },
    Expected { file: "vehicle", rows: 846, attrs: 18, numeric: 18, classes: &[("bus", 218), ("saab", 217), ("opel", 212), ("van", 199)] },
    Expected { file: "segment", rows: 2310, attrs: 19, numeric: 19, classes: &[("brickface", 330), ("cement", 330), ("foliage", 330), ("grass", 330), ("path", 330), ("sky", 330), ("window", 330)] },
    Expected { file: "wdbc", rows: 569, attrs: 30, numeric: 30, classes: &[("benign", 357), ("malignant", 212)] },
    Expected { file: "promoters", rows: 106, attrs: 57, numeric: 0, classes: &[("+", 53), ("-", 53)] },
    Expected { file: "basicmotions", rows: 80, attrs: 600, numeric: 600, classes: &[("Badminton", 20), ("Running", 20), ("Standing", 20), ("Walking", 20)] },
];

#[test]
fn every_shipped_dataset_loads_with_its_documented_counts() {
    for e in EXPECTED {
        let path = repo_data(&format!("{}.csv", e.file));
        let d = load(&path, &opts()).unwrap_or_else(|err| panic!("{err}"));
        assert_eq!((d.n_rows(), d.n_attrs()), (e.rows, e.attrs), "{}", e.file);
        assert_eq!(d.x.len(), e.rows * e.attrs, "{}", e.file);
        let numeric =
            d.schema.attributes.iter().filter(|a| matches!(a.kind, AttrKind::Numeric { .. })).count();
        assert_eq!(numeric, e.numeric, "{}", e.file);
        let counts = d.class_counts();
        assert_eq!(d.n_classes(), e.classes.len(), "{}", e.file);
        for &(name, count) in e.classes {
            let k = d.schema.classes.iter().position(|c| c == name).unwrap_or_else(|| panic!("{name}"));
            assert_eq!(counts[k], count, "{} class {name}", e.file);
        }
        assert_eq!(d.source, path.display().to_string());
        // Invariants every algorithm relies on.
        for (j, attr) in d.schema.attributes.iter().enumerate() {
            for i in 0..d.n_rows() {
                let v = d.row(i)[j];
                match &attr.kind {
                    AttrKind::Numeric { .. } => assert!(v.is_nan() || v.is_finite()),
                    AttrKind::Categorical { values } => {
                        assert!(v.is_nan() || (v.fract() == 0.0 && (v as usize) < values.len()))
                    }
                }
            }
        }
    }
}

#[test]
fn iris_values_types_and_order() {
    let d = load(&repo_data("iris.csv"), &opts()).unwrap();
    assert_eq!(d.schema.classes, ["setosa", "versicolor", "virginica"]);
    let names: Vec<&str> = d.schema.attributes.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["sepal_length", "sepal_width", "petal_length", "petal_width"]);
    for a in &d.schema.attributes {
        assert_eq!(a.kind, AttrKind::Numeric { decimals: 1 }, "{}", a.name);
    }
    assert_eq!(d.row(0), [5.1, 3.5, 1.4, 0.2]);
    assert_eq!(d.y[0], 0);
    assert_eq!(d.row(149), [5.9, 3.0, 5.1, 1.8]);
    assert_eq!(d.y[149], 2);
}

#[test]
fn missing_cells_are_nan_in_the_shipped_data() {
    // Counts from data/README.md.
    let votes = load(&repo_data("house-votes-84.csv"), &opts()).unwrap();
    assert_eq!(votes.x.iter().filter(|v| v.is_nan()).count(), 392);
    // y/n in order of first appearance in the file (first row: n,y,...).
    assert_eq!(votes.schema.attributes[0].kind, AttrKind::Categorical { values: names(&["n", "y"]) });
    let cancer = load(&repo_data("breast-cancer-wisconsin.csv"), &opts()).unwrap();
    assert_eq!(cancer.x.iter().filter(|v| v.is_nan()).count(), 16);
}

#[test]
fn monks_codes_can_be_declared_categorical_and_segment_has_six_decimals() {
    let all = ["a1", "a2", "a3", "a4", "a5", "a6"];
    let categorical = LoadOptions { categorical: names(&all), ..opts() };
    let d = load(&repo_data("monks-1_train.csv"), &categorical).unwrap();
    let sizes: Vec<usize> = d
        .schema
        .attributes
        .iter()
        .map(|a| match &a.kind {
            AttrKind::Categorical { values } => values.len(),
            AttrKind::Numeric { .. } => panic!("{} is numeric", a.name),
        })
        .collect();
    // a1,a2,a4 in 1-3; a3,a6 in 1-2; a5 in 1-4 (data/README.md).
    assert_eq!(sizes, [3, 3, 2, 3, 4, 2]);
    let segment = load(&repo_data("segment.csv"), &opts()).unwrap();
    let decimals =
        |name: &str| match &segment.schema.attributes[segment.schema.attribute_index(name).unwrap()].kind {
            AttrKind::Numeric { decimals } => *decimals,
            AttrKind::Categorical { .. } => panic!("{name}"),
        };
    assert_eq!(decimals("region-centroid-col"), 0);
    assert_eq!(decimals("vegde-sd"), 6);
}

#[test]
fn type_inference_and_overrides() {
    let text = "int,dec,mixed,word,special,code,class\n\
                1,1.50,1,a,nan,7,x\n\
                ?,-2,b,b,NA,8,y\n\
                3,,3,a,1,7,x\n";
    let d = load_str("t.csv", text, &opts());
    let kinds: Vec<&AttrKind> = d.schema.attributes.iter().map(|a| &a.kind).collect();
    assert_eq!(kinds[0], &AttrKind::Numeric { decimals: 0 });
    assert_eq!(kinds[1], &AttrKind::Numeric { decimals: 2 });
    assert_eq!(kinds[2], &AttrKind::Categorical { values: names(&["1", "b", "3"]) });
    assert_eq!(kinds[3], &AttrKind::Categorical { values: names(&["a", "b"]) });
    // `nan` and `NA` are missing-value words in a numeric column.
    assert_eq!(kinds[4], &AttrKind::Numeric { decimals: 0 });
    assert!(d.row(0)[4].is_nan() && d.row(1)[4].is_nan());
    assert_eq!(d.row(2)[4], 1.0);
    assert_eq!(kinds[5], &AttrKind::Numeric { decimals: 0 });
    assert!(d.row(1)[0].is_nan() && d.row(2)[1].is_nan());
    assert_eq!(d.row(1)[1], -2.0);
    // Without them in the vocabulary the column is categorical again.
    let strict = LoadOptions { missing_values: Some(names(&["?"])), ..opts() };
    let d = load_str("t.csv", text, &strict);
    assert_eq!(d.schema.attributes[4].kind, AttrKind::Categorical { values: names(&["nan", "NA", "1"]) });
    // `inf` in a column of numbers is an error at its position, not a category.
    assert_eq!(
        error_with("t.csv", text.replace("NA", "inf"), &opts()),
        "F:3:5: column `special` is numeric but \"inf\" is not a finite number"
    );

    let overridden = LoadOptions { categorical: names(&["code"]), ignore: names(&["special"]), ..opts() };
    let d = load_str("t.csv", text, &overridden);
    assert_eq!(d.n_attrs(), 5);
    assert_eq!(d.schema.attributes[4].kind, AttrKind::Categorical { values: names(&["7", "8"]) });
    assert_eq!(d.row(1)[4], 1.0);

    let target = LoadOptions { target: Some("word".into()), ..opts() };
    let d = load_str("t.csv", text, &target);
    assert_eq!(d.schema.classes, ["a", "b"]);
    assert_eq!(d.y, [0, 1, 0]);
    assert_eq!(d.schema.attributes.last().unwrap().name, "class");
}

#[test]
fn csv_quoting_trimming_bom_and_blank_lines() {
    let text = "\u{feff}name, \"a, b\" ,class\n\n  \"x, \"\"y\"\"\" , 2 ,\"multi\nline\"\n z ,3, p \n\n";
    let d = load_str("t.txt", text, &opts());
    assert_eq!(d.schema.attributes[0].name, "name");
    assert_eq!(d.schema.attributes[1].name, "a, b");
    assert_eq!(d.schema.attributes[0].kind, AttrKind::Categorical { values: names(&["x, \"y\"", "z"]) });
    assert_eq!(d.schema.classes, ["multi\nline", "p"]);
    assert_eq!(d.row(1), [1.0, 3.0]);
}

#[test]
fn arff_round_trip() {
    let arff = "% Weather, handwritten\n\
                @RELATION weather\n\
                \n\
                @attribute outlook {sunny, overcast, 'light rain'}\n\
                @attribute 'temp C' numeric % trailing comment\n\
                @attribute humidity REAL\n\
                @attribute windy {TRUE, FALSE}\n\
                @attribute note string\n\
                @attribute play {yes, no, maybe}\n\
                @data\n\
                sunny,29.5,85,FALSE,'it\\'s hot',no\n\
                % a comment line\n\
                overcast, 18 ,?,TRUE,\"quiet\",yes\n\
                'light rain',21.25,96.5,?,?,yes\n\
                \n\
                sunny,-3,70,FALSE,quiet,no\n";
    let d = load_str("weather.arff", arff, &opts());
    assert_eq!(d.n_rows(), 4);
    let s = &d.schema;
    assert_eq!(
        s.attributes[0].kind,
        AttrKind::Categorical { values: names(&["sunny", "overcast", "light rain"]) }
    );
    assert_eq!(s.attributes[1], Attribute { name: "temp C".into(), kind: AttrKind::Numeric { decimals: 2 } });
    assert_eq!(s.attributes[2].kind, AttrKind::Numeric { decimals: 1 });
    // Declared order, even where the data shows FALSE first.
    assert_eq!(s.attributes[3].kind, AttrKind::Categorical { values: names(&["TRUE", "FALSE"]) });
    // `string` is categorical in order of first appearance; `\'` escapes a quote.
    assert_eq!(s.attributes[4].kind, AttrKind::Categorical { values: names(&["it's hot", "quiet"]) });
    assert_eq!(s.classes, ["yes", "no", "maybe"]);
    assert_eq!(d.class_counts(), [2, 2, 0]);
    assert_eq!(d.row(2)[0], 2.0);
    assert_eq!(d.row(2)[1], 21.25);
    assert!(d.row(1)[2].is_nan() && d.row(2)[3].is_nan() && d.row(2)[4].is_nan());

    // Write it back out as ARFF from the schema and data; loading that gives the same dataset.
    let written = to_arff(&d);
    let again = load_str("again.arff", &written, &opts());
    assert_same(&d, &again);
    // Detected by the `@relation` line even without the extension.
    let again = load_str("again.txt", &written, &opts());
    assert_same(&d, &again);
}

/// Test-side ARFF writer: declares nominal attributes and classes in schema
/// order and quotes every string.
fn to_arff(d: &Dataset) -> String {
    let quote = |s: &str| format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"));
    let mut out = String::from("@relation roundtrip\n");
    for a in &d.schema.attributes {
        let ty = match &a.kind {
            AttrKind::Numeric { .. } => "numeric".to_string(),
            AttrKind::Categorical { values } => {
                format!("{{{}}}", values.iter().map(|v| quote(v)).collect::<Vec<_>>().join(", "))
            }
        };
        out += &format!("@attribute {} {ty}\n", quote(&a.name));
    }
    let classes: Vec<String> = d.schema.classes.iter().map(|c| quote(c)).collect();
    out += &format!("@attribute class {{{}}}\n@data\n", classes.join(","));
    for i in 0..d.n_rows() {
        let mut fields: Vec<String> = d
            .schema
            .attributes
            .iter()
            .zip(d.row(i))
            .map(|(a, &v)| match (&a.kind, v.is_nan()) {
                (_, true) => "?".to_string(),
                (AttrKind::Numeric { .. }, false) => v.to_string(),
                (AttrKind::Categorical { values }, false) => quote(&values[v as usize]),
            })
            .collect();
        fields.push(quote(&d.schema.classes[d.y[i]]));
        out += &fields.join(",");
        out.push('\n');
    }
    out
}

#[test]
fn arff_and_csv_of_the_same_table_load_alike() {
    let arff = "@relation r\n@attribute a {u, v}\n@attribute b integer\n@attribute class {p, q}\n\
                @data\nu,1,p\nv,?,q\n?,3,p\n";
    let csv = "a,b,class\nu,1,p\nv,?,q\n?,3,p\n";
    let from_arff = load_str("t.arff", arff, &opts());
    let mut from_csv = load_str("t.csv", csv, &opts());
    from_csv.source = from_arff.source.clone();
    assert_same(&from_arff, &from_csv);
}

#[test]
fn dataset_helpers() {
    let text = "n,c,class\n1.25,a,x\n2,b,y\n?,b,x\n3.5,?,z\n2,a,y\n";
    let d = load_str("t.csv", text, &opts());
    assert_eq!(d.class_counts(), [2, 2, 1]);
    assert_eq!(d.row(3)[0], 3.5);
    // Mean of 1.25, 2, 3.5, 2 = 2.1875, rounded to 2 decimals; mode of a,b,b,a is a tie -> lowest index.
    assert_eq!(d.impute_values(), [2.19, 0.0]);
    let s = d.subset(&[4, 0, 4]);
    assert_eq!(s.n_rows(), 3);
    assert_eq!(s.y, [1, 0, 1]);
    assert_eq!(s.row(1), d.row(0));
    assert_eq!(s.schema, d.schema);
    assert_eq!(s.class_counts(), [1, 2, 0]);
    // Mode b on rows 1 and 2.
    assert_eq!(d.subset(&[1, 2, 3]).impute_values()[1], 1.0);
    // No observed value at all.
    assert_eq!(d.subset(&[2]).impute_values()[0], 0.0);
    assert_eq!(d.subset(&[]).n_rows(), 0);
}

// ------------------------------------------------------ schema alignment

fn train_schema() -> (Dataset, Schema) {
    let d = load_str(
        "train.csv",
        "size,colour,weight,class\n1.5,red,10,apple\n2,green,12,pear\n1,red,9,apple\n",
        &opts(),
    );
    let schema = d.schema.clone();
    (d, schema)
}

#[test]
fn align_maps_reordered_columns_by_name() {
    let (train, schema) = train_schema();
    let files = Files::new();
    let path =
        files.write("test.csv", "weight,extra,class,colour,size\n12,zz,pear,green,2\n9,zz,apple,red,1\n");
    // The default target, the last column, is an attribute here.
    assert!(matches!(load_with_schema(&path, &opts(), &schema), Err(DataError::ConflictingOptions { .. })));
    let target = LoadOptions { target: Some("class".into()), ..opts() };
    let (d, report) = load_with_schema(&path, &target, &schema).unwrap();
    assert_eq!(d.schema, schema);
    assert_eq!(d.row(0), train.row(1));
    assert_eq!(d.row(1), train.row(2));
    assert_eq!(d.y, [1, 0]);
    assert_eq!(report.ignored_columns, ["extra"]);
    assert!(report.unseen_values.is_empty() && report.unseen_classes.is_empty());
}

#[test]
fn align_turns_unseen_values_into_missing_and_reports_them() {
    let (_, schema) = train_schema();
    let files = Files::new();
    let path =
        files.write("test.csv", "size,colour,weight,class\n1,blue,9,apple\n2,blue,?,pear\n3,red,1,apple\n");
    let (d, report) = load_with_schema(&path, &opts(), &schema).unwrap();
    assert!(d.row(0)[1].is_nan() && d.row(1)[1].is_nan() && d.row(1)[2].is_nan());
    assert_eq!(d.row(2)[1], 0.0);
    assert_eq!(
        report.unseen_values,
        [UnseenValue { attribute: "colour".into(), value: "blue".into(), count: 2, first_line: 2 }]
    );
    assert_eq!(report.unseen_value_cells(), 2);
    assert_eq!(report.unseen_class_rows(), 0);
}

#[test]
fn align_gives_unseen_classes_indices_past_the_schema() {
    let (_, schema) = train_schema();
    let files = Files::new();
    // One class only, and two unseen: fine for evaluation.
    let path = files.write(
        "test.csv",
        "size,colour,weight,class\n1,red,9,plum\n2,red,9,apple\n3,red,9,fig\n4,red,9,plum\n",
    );
    let (d, report) = load_with_schema(&path, &opts(), &schema).unwrap();
    assert_eq!(d.y, [2, 0, 3, 2]);
    assert_eq!(d.schema.classes, ["apple", "pear", "plum", "fig"]);
    assert_eq!(d.schema.attributes, schema.attributes);
    assert_eq!(
        report.unseen_classes,
        [
            UnseenClass { name: "plum".into(), index: 2, count: 2, first_line: 2 },
            UnseenClass { name: "fig".into(), index: 3, count: 1, first_line: 4 }
        ]
    );
    assert_eq!(report.unseen_class_rows(), 3);
    assert_eq!(d.class_counts(), [1, 0, 2, 1]);
}

#[test]
fn align_errors() {
    let (_, schema) = train_schema();
    let files = Files::new();
    let check = |name: &str, text: &str, options: &LoadOptions, expected: &str| {
        let path = files.write(name, text);
        let err = load_with_schema(&path, options, &schema).unwrap_err().to_string();
        assert_eq!(err.replacen(&path.display().to_string(), "F", 1), expected);
    };
    check(
        "a.csv",
        "size,weight,class\n1,2,apple\n",
        &opts(),
        "F:1: the model's attribute `colour` is not a column of this file; the columns are: `size`, `weight`, `class`",
    );
    check(
        "b.csv",
        "size,colour,weight,class\n1,red,2,apple\nbig,red,2,pear\n",
        &opts(),
        "F:3:1: column `size` is numeric but \"big\" is not a finite number",
    );
    check(
        "c.csv",
        "class,size,colour,weight\napple,1,red,2\n",
        &LoadOptions { target: Some("weight".into()), ..opts() },
        "F: column `weight` is the target (class) column but is also an attribute of the model; name the class \
         column with --target",
    );
    check(
        "c2.csv",
        "class,id,size,colour,weight\napple,7,1,red,2\n",
        &opts(),
        "F: column `class` and other columns are not attributes of the model, so the class column is ambiguous; \
         name it with --target",
    );
    // The class column found by elimination, and a file with no class column at all.
    let path = files.write("c3.csv", "class,size,colour,weight\npear,1,red,2\n");
    let (d, report) = load_with_schema(&path, &opts(), &schema).unwrap();
    assert_eq!((d.y.as_slice(), report.unlabeled), (&[1][..], false));
    let path = files.write("c4.csv", "size,colour,weight\n1,red,2\n3,green,4\n");
    let (d, report) = load_with_schema(&path, &opts(), &schema).unwrap();
    assert_eq!((d.y.as_slice(), report.unlabeled, d.n_rows()), (&[0, 0][..], true, 2));
    check(
        "d.csv",
        "size,colour,weight,class\n1,red,2,\n",
        &opts(),
        "F:2:4: the class label (column `class`) is missing",
    );
    check(
        "e.csv",
        "size,colour,weight,fruit\n1,red,2,apple\n",
        &LoadOptions { target: Some("class".into()), ..opts() },
        "F:1: --target `class` names no column; the columns are: `size`, `colour`, `weight`, `fruit`",
    );
}

#[test]
fn align_reads_arff_and_a_named_target() {
    let (_, schema) = train_schema();
    let files = Files::new();
    let path = files.write(
        "test.arff",
        "@relation t\n@attribute fruit {pear, apple}\n@attribute colour {green, red}\n@attribute size real\n\
         @attribute weight integer\n@data\npear,green,2,12\napple,red,1,9\n",
    );
    let target = LoadOptions { target: Some("fruit".into()), ..opts() };
    let (d, report) = load_with_schema(&path, &target, &schema).unwrap();
    assert_eq!(d.y, [1, 0]);
    assert_eq!(d.row(0), [2.0, 1.0, 12.0]);
    assert!(report.ignored_columns.is_empty());
}

// ------------------------------------------------------------ robustness

fn load_bytes_never_panics(name: &str, bytes: &[u8]) {
    let files = Files::new();
    let path = files.write(name, bytes);
    if let Ok(d) = load(&path, &opts()) {
        assert_eq!(d.x.len(), d.n_rows() * d.n_attrs());
        assert!(d.y.iter().all(|&c| c < d.n_classes()));
        let _ = d.impute_values();
        let (_, schema) = (d.clone(), d.schema.clone());
        let _ = load_with_schema(&path, &opts(), &schema);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        load_bytes_never_panics("f.csv", &bytes);
        load_bytes_never_panics("f.arff", &bytes);
    }

    #[test]
    fn csv_like_text_never_panics(text in "[a-c0-9,\"?.\\n\\r -]{0,120}") {
        load_bytes_never_panics("f.csv", text.as_bytes());
    }

    #[test]
    fn arff_like_text_never_panics(text in "(@relation r\n|@attribute [a-c'] (numeric|\\{x,y\\}|string)\n|@data\n|[xy0-9,?'{}% ]{0,12}\n){0,8}") {
        load_bytes_never_panics("f.arff", text.as_bytes());
    }

    #[test]
    fn mutated_iris_never_panics(pos in 0usize..3856, byte in any::<u8>()) {
        let mut bytes = std::fs::read(repo_data("iris.csv")).unwrap();
        let pos = pos % bytes.len();
        bytes[pos] = byte;
        load_bytes_never_panics("iris.csv", &bytes);
    }
}

// ----------------------------------------------------------------- splits

fn labels(counts: &[usize], seed: u64) -> Vec<usize> {
    let mut y: Vec<usize> = counts.iter().enumerate().flat_map(|(c, &n)| std::iter::repeat_n(c, n)).collect();
    Rng::new(seed).shuffle(&mut y);
    y
}

#[test]
fn kfold_partitions_rows_and_stratifies() {
    for (counts, k) in
        [(&[50, 50, 50][..], 10), (&[7, 3][..], 3), (&[1210, 384, 69, 65][..], 5), (&[1, 1, 9][..], 11)]
    {
        let y = labels(counts, 1);
        let folds = stratified_kfold(&y, counts.len(), k, 42).unwrap();
        assert_eq!(folds.len(), k);
        let mut all: Vec<usize> = folds.concat();
        all.sort_unstable();
        assert_eq!(all, (0..y.len()).collect::<Vec<_>>(), "folds must partition the rows");
        for fold in &folds {
            assert!(fold.windows(2).all(|w| w[0] < w[1]), "sorted, no repeats");
            for (c, &n) in counts.iter().enumerate() {
                let here = fold.iter().filter(|&&i| y[i] == c).count() as f64;
                let ideal = n as f64 / k as f64;
                assert!((here - ideal).abs() < 1.0, "class {c}: {here} rows, ideal {ideal}");
            }
            let ideal = y.len() as f64 / k as f64;
            assert!((fold.len() as f64 - ideal).abs() < 1.0);
        }
        assert_eq!(folds, stratified_kfold(&y, counts.len(), k, 42).unwrap(), "same seed, same folds");
        assert_ne!(folds, stratified_kfold(&y, counts.len(), k, 43).unwrap(), "another seed, other folds");
    }
}

#[test]
fn kfold_errors() {
    let y = [0, 1, 0, 1];
    assert_eq!(stratified_kfold(&y, 2, 1, 0), Err(SplitError::BadFoldCount { k: 1, n_rows: 4 }));
    assert_eq!(stratified_kfold(&y, 2, 5, 0), Err(SplitError::BadFoldCount { k: 5, n_rows: 4 }));
    assert_eq!(stratified_kfold(&[], 2, 2, 0), Err(SplitError::BadFoldCount { k: 2, n_rows: 0 }));
    assert_eq!(
        stratified_kfold(&[0, 2, 1], 2, 2, 0),
        Err(SplitError::ClassOutOfRange { row: 1, class: 2, n_classes: 2 })
    );
    assert_eq!(
        stratified_kfold(&y, 2, 1, 0).unwrap_err().to_string(),
        "cannot make 1 folds of 4 rows: need 2 <= k <= number of rows"
    );
    assert_eq!(stratified_kfold(&y, 2, 4, 0).unwrap().len(), 4);
}

#[test]
fn train_test_split_is_stratified_and_deterministic() {
    let counts = [288, 288, 49];
    let y = labels(&counts, 2);
    let (train, test) = train_test_split_stratified(&y, 3, 0.3, 7).unwrap();
    assert_eq!(test.len(), (0.3f64 * 625.0).round() as usize);
    let mut all = [train.clone(), test.clone()].concat();
    all.sort_unstable();
    assert_eq!(all, (0..y.len()).collect::<Vec<_>>());
    for (c, &n) in counts.iter().enumerate() {
        let here = test.iter().filter(|&&i| y[i] == c).count() as f64;
        assert!((here - 0.3 * n as f64).abs() < 1.0, "class {c}: {here}");
    }
    assert_eq!((train.clone(), test.clone()), train_test_split_stratified(&y, 3, 0.3, 7).unwrap());
    assert_ne!(test, train_test_split_stratified(&y, 3, 0.3, 8).unwrap().1);
    assert_eq!(train, complement(&test, y.len()));
}

#[test]
fn train_test_split_errors() {
    let y = [0, 1, 0, 1];
    for bad in [0.0, 1.0, -0.5, f64::NAN] {
        assert!(matches!(train_test_split_stratified(&y, 2, bad, 0), Err(SplitError::BadFraction { .. })));
    }
    assert_eq!(
        train_test_split_stratified(&y, 2, 0.1, 0),
        Err(SplitError::EmptyPart { fraction: 0.1, n_rows: 4, empty: "test" })
    );
    assert_eq!(
        train_test_split_stratified(&y, 2, 0.9, 0),
        Err(SplitError::EmptyPart { fraction: 0.9, n_rows: 4, empty: "training" })
    );
    assert!(matches!(
        train_test_split_stratified(&[0, 5], 2, 0.5, 0),
        Err(SplitError::ClassOutOfRange { .. })
    ));
}

#[test]
fn complement_is_the_rest() {
    assert_eq!(complement(&[1, 3], 5), [0, 2, 4]);
    assert_eq!(complement(&[], 3), [0, 1, 2]);
    assert_eq!(complement(&[0, 1, 2, 7], 3), Vec::<usize>::new());
}

#[test]
fn kfold_on_a_shipped_dataset() {
    let d = load(&repo_data("glass.csv"), &opts()).unwrap();
    let folds = stratified_kfold(&d.y, d.n_classes(), 10, 0).unwrap();
    for fold in &folds {
        let test = d.subset(fold);
        let train = d.subset(&complement(fold, d.n_rows()));
        assert_eq!(test.n_rows() + train.n_rows(), 214);
        // The smallest class (9 rows) appears in 9 of the 10 folds at most once each.
        assert!(test.class_counts().iter().zip(d.class_counts()).all(|(&t, n)| t <= n.div_ceil(10)));
    }
}
