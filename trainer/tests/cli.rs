//! Drives the real `ltu` binary in temporary directories (ripgrep's tests/util.rs habit).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::common::ltu_status as ltu;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../data").join(name)
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs and expects success; returns stdout parsed as JSON.
fn json(dir: &Path, args: &[&str]) -> Value {
    let o = ltu(dir, args);
    assert!(o.status.success(), "ltu {args:?} failed: {}", stderr(&o));
    serde_json::from_str(&stdout(&o))
        .unwrap_or_else(|e| panic!("ltu {args:?}: not JSON ({e}): {}", stdout(&o)))
}

/// Runs and expects a clean failure: non-zero exit, an `error:` line containing `needle`, no panic.
fn fails(dir: &Path, args: &[&str], needle: &str) {
    let o = ltu(dir, args);
    let err = stderr(&o);
    assert!(!o.status.success(), "ltu {args:?} should fail");
    assert_eq!(o.status.code(), Some(1), "ltu {args:?}: {err}");
    assert!(!err.contains("panicked"), "ltu {args:?} panicked: {err}");
    assert!(err.starts_with("error: "), "ltu {args:?}: {err}");
    assert!(err.contains(needle), "ltu {args:?}: expected {needle:?} in {err}");
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    std::fs::write(dir.join(name), bytes).unwrap();
    name.to_string()
}

fn keys(v: &Value, want: &[&str]) {
    for k in want {
        assert!(v.get(k).is_some(), "missing key {k} in {v}");
    }
}

#[test]
fn train_eval_predict_inspect_json_shapes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let iris = data("iris.csv");
    let iris = iris.to_str().unwrap();
    let t = json(d, &["train", iris, "--algo", "ptree", "-o", "m.ltu", "--json"]);
    keys(&t, &["train_accuracy", "model_bytes", "decision_nodes", "ltus", "weights_nonzero"]);
    assert!(t["train_accuracy"].as_f64().unwrap() > 0.9, "{t}");
    let bytes = std::fs::read(d.join("m.ltu")).unwrap();
    assert_eq!(t["model_bytes"].as_u64().unwrap() as usize, bytes.len());
    // The cost of predicting the training rows, bounded by the worst path.
    let cost = &t["cost"];
    keys(cost, &["mean_macs", "max_macs", "mean_essential_work", "max_essential_work"]);
    assert!(cost["max_macs"].as_u64().unwrap() <= t["max_macs"].as_u64().unwrap(), "{t}");
    assert!(cost["mean_macs"].as_f64().unwrap() <= cost["max_macs"].as_f64().unwrap(), "{t}");
    assert!(cost["mean_essential_work"].as_f64().unwrap() >= 10.0, "{t}");

    let e = json(d, &["eval", "m.ltu", iris, "--json"]);
    keys(&e, &["accuracy", "n", "model_bytes", "confusion", "per_class"]);
    assert_eq!(e["n"], 150);
    assert_eq!(e["accuracy"], t["train_accuracy"], "eval through the runtime equals the trainer's figure");

    let i = json(d, &["inspect", "m.ltu", "--json"]);
    keys(&i, &["model_bytes", "decision_nodes", "ltus", "weights_nonzero", "max_macs"]);
    assert_eq!(i["ltus"], t["ltus"]);

    let dot = ltu(d, &["inspect", "m.ltu", "--dot"]);
    assert!(stdout(&dot).starts_with("digraph ltu {"), "{}", stdout(&dot));
    assert!(stdout(&dot).contains("petal"), "dot uses attribute names");

    let p = ltu(d, &["predict", "m.ltu", iris]);
    assert!(p.status.success());
    let lines: Vec<String> = stdout(&p).lines().map(String::from).collect();
    assert_eq!(lines.len(), 150);
    assert!(lines.iter().all(|l| ["setosa", "versicolor", "virginica"].contains(&l.as_str())));
    let pj = json(d, &["predict", "m.ltu", iris, "--json"]);
    assert_eq!(pj["predictions"].as_array().unwrap().len(), 150);
}

/// `predict --json` gives firmware developers what they need to test an integration: the exact
/// integers handed to `Model::predict` and the class index it returned. Replaying `inputs` through
/// the runtime must reproduce `class_indices`, which must name `predictions`.
#[test]
fn predict_json_inputs_replay_through_the_runtime() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (file, algo) in [("iris.csv", "ptree"), ("car.csv", "sparse"), ("house-votes-84.csv", "ndl")] {
        let path = data(file);
        let path = path.to_str().unwrap();
        json(d, &["train", path, "--algo", algo, "-o", "m.ltu", "--json"]);
        let pj = json(d, &["predict", "m.ltu", path, "--json"]);
        let bytes = std::fs::read(d.join("m.ltu")).unwrap();
        let model = ltu_runtime::Model::from_bytes(&bytes).unwrap();
        let names = model.names().expect("the CLI stores names");
        let inputs = pj["inputs"].as_array().unwrap();
        let indices = pj["class_indices"].as_array().unwrap();
        let predictions = pj["predictions"].as_array().unwrap();
        assert_eq!(inputs.len(), predictions.len(), "{file}");
        assert_eq!(indices.len(), predictions.len(), "{file}");
        let mut seen = std::collections::BTreeSet::new();
        for ((x, c), p) in inputs.iter().zip(indices).zip(predictions) {
            let x: Vec<i32> = x.as_array().unwrap().iter().map(|v| v.as_i64().unwrap() as i32).collect();
            assert_eq!(x.len(), model.n_inputs(), "{file}");
            let c = c.as_u64().unwrap() as usize;
            assert_eq!(model.predict(&x).unwrap(), c, "{file}: {x:?}");
            assert_eq!(names.class(c), p.as_str().unwrap(), "{file}");
            seen.insert(c);
        }
        assert!(seen.len() > 1, "{file}: a real model predicts more than one class");
    }
}

#[test]
fn cv_json_shape_and_determinism() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let iris = data("iris.csv");
    let args = ["cv", iris.to_str().unwrap(), "--algo", "ptree", "--folds", "5", "--seed", "3", "--json"];
    let a = json(d, &args);
    keys(&a, &["accuracy_mean", "accuracy_std", "model_bytes_mean", "folds", "fold_costs", "cost"]);
    assert_eq!(a["folds"], 5);
    // The device cost on the held-out rows: per fold, and pooled (equal folds of 30 rows: the
    // pooled mean is the mean of the folds' means; the maximum is the largest fold's).
    let cost = &a["cost"];
    keys(cost, &["mean_macs", "max_macs", "mean_essential_work", "max_essential_work"]);
    let folds = a["fold_costs"].as_array().unwrap();
    assert_eq!(folds.len(), 5);
    let f = |c: &Value, k: &str| c[k].as_f64().unwrap();
    let mean = folds.iter().map(|c| f(c, "mean_essential_work")).sum::<f64>() / 5.0;
    assert!((f(cost, "mean_essential_work") - mean).abs() < 1e-9, "{a}");
    let max = folds.iter().map(|c| c["max_macs"].as_u64().unwrap()).max().unwrap();
    assert_eq!(cost["max_macs"].as_u64().unwrap(), max, "{a}");
    assert!(f(cost, "mean_macs") <= max as f64 && f(cost, "mean_essential_work") > 10.0, "{a}");
    assert!(a["accuracy_mean"].as_f64().unwrap() > 0.8, "{a}");
    assert_eq!(a, json(d, &args), "same seed, same folds and models");
    assert!(a["warnings"].as_array().unwrap().is_empty(), "{a}");
    // More jobs than folds: the extra threads would have nothing to train, and the user hears so.
    let iris = iris.to_str().unwrap();
    let j = json(d, &["cv", iris, "--algo", "ptree", "--folds", "3", "--jobs", "8", "--json"]);
    assert!(
        j["warnings"].to_string().contains("--jobs 8: there are 3 folds, so at most 3 train at once"),
        "{j}"
    );
    let j = json(d, &["cv", iris, "--algo", "ptree", "--folds", "3", "--jobs", "3", "--json"]);
    assert!(j["warnings"].as_array().unwrap().is_empty(), "{j}");
}

#[test]
fn same_seed_gives_byte_identical_models() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let votes = data("house-votes-84.csv");
    let v = votes.to_str().unwrap();
    for out in ["a.ltu", "b.ltu"] {
        json(d, &["train", v, "--algo", "ptree", "--seed", "11", "-o", out, "--json"]);
    }
    assert_eq!(std::fs::read(d.join("a.ltu")).unwrap(), std::fs::read(d.join("b.ltu")).unwrap());
}

#[test]
fn weight_kinds_are_honoured() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let iris = data("iris.csv");
    for w in ["i8", "i16", "i32", "fixed"] {
        let t = json(
            d,
            &["train", iris.to_str().unwrap(), "--algo", "ptree", "--weights", w, "-o", "m.ltu", "--json"],
        );
        assert_eq!(t["weights"], w);
        let i = json(d, &["inspect", "m.ltu", "--json"]);
        assert_eq!(i["weights"], w);
        // Learning on the device needs the weight table in RAM, and the tree's leaf units learn.
        assert_eq!(i["learn_ram_bytes"], i["table_bytes"]["weights"]);
        assert!(i["learnable_units"].as_u64().unwrap() >= 1, "{i}");
    }
    // A tree of tests has no unit and stores no weight: nothing learns.
    let t = json(d, &["train", iris.to_str().unwrap(), "--algo", "fringe", "-o", "f.ltu", "--json"]);
    assert_eq!(t["weights"], "none");
    let i = json(d, &["inspect", "f.ltu", "--json"]);
    assert_eq!((&i["weights"], &i["learnable_units"]), (&"none".into(), &0.into()));
    assert!(stdout(&ltu(d, &["inspect", "f.ltu"])).contains("on-device learning: nothing to learn"));
}

#[test]
fn eval_maps_columns_values_and_classes_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "train.csv",
        b"colour,size,class\nred,1,yes\nblue,2,no\nred,3,yes\nblue,4,no\nred,2,yes\nblue,1,no\n",
    );
    // Columns reordered, an unseen colour, an unseen class.
    write(d, "test.csv", b"size,class,colour\n1,yes,red\n2,no,blue\n3,maybe,green\n");
    json(d, &["train", "train.csv", "--algo", "ptree", "-o", "m.ltu", "--json"]);
    // The class column is not last, but it is the only column that is not an attribute.
    let e = json(d, &["eval", "m.ltu", "test.csv", "--json"]);
    assert_eq!(e["n"], 3);
    assert_eq!(e["unseen_values"], 1);
    assert_eq!(e["unseen_class_rows"], 1);
    let acc = e["accuracy"].as_f64().unwrap();
    assert!(acc <= 2.0 / 3.0 + 1e-9, "the unknown-class row counts as wrong: {e}");
}

#[test]
fn bad_data_gets_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let train = |file: &str| ["train", file, "--algo", "ptree", "-o", "m.ltu"].map(String::from);
    let run = |file: &str, needle: &str| {
        let args = train(file);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        fails(d, &args, needle);
        assert!(!d.join("m.ltu").exists(), "no model file after a failure ({file})");
    };
    run("missing.csv", "missing.csv");
    write(d, "empty.csv", b"");
    run("empty.csv", "empty.csv");
    write(d, "header.csv", b"a,b,class\n");
    run("header.csv", "header.csv");
    write(d, "ragged.csv", b"a,b,class\n1,2,x\n3,y\n");
    run("ragged.csv", "ragged.csv:3");
    write(d, "single.csv", b"a,class\n1,x\n2,x\n");
    run("single.csv", "single.csv");
    write(d, "bytes.csv", b"a,class\n1,x\n\xff\xfe,y\n");
    run("bytes.csv", "bytes.csv");
    // A value that is not a number in a column declared numeric: file, line and column.
    write(d, "num.csv", b"a,b,class\n1,2,x\n3,oops,y\n");
    fails(d, &["train", "num.csv", "--numeric", "b", "--algo", "ptree", "-o", "m.ltu"], "num.csv:3:2");
    fails(d, &["train", "num.csv", "--target", "nope", "--algo", "ptree", "-o", "m.ltu"], "nope");
}

#[test]
fn bad_models_get_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let iris = data("iris.csv");
    let iris = iris.to_str().unwrap();
    write(d, "text.ltu", b"this is not a model at all");
    fails(d, &["inspect", "text.ltu"], "text.ltu: not a valid ltu model");
    fails(
        d,
        &["eval", "text.ltu", iris],
        "bad magic bytes) (bytes 0..4 are 74 68 69 73, a model starts with 4C 54 55 4D)",
    );
    fails(d, &["inspect", "absent.ltu"], "absent.ltu");
    json(d, &["train", iris, "--algo", "ptree", "-o", "m.ltu", "--json"]);
    let mut bytes = std::fs::read(d.join("m.ltu")).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x10;
    write(d, "flipped.ltu", &bytes);
    let at = bytes.len() - 4;
    fails(
        d,
        &["predict", "flipped.ltu", iris],
        &format!("checksum mismatch (corrupted or truncated) (the CRC-32 at byte offset {at} is"),
    );
    write(d, "short.ltu", &bytes[..mid]);
    fails(d, &["eval", "short.ltu", iris], "short.ltu");
    let mut newer = std::fs::read(d.join("m.ltu")).unwrap();
    let version = newer[4];
    newer[4] = version + 1;
    write(d, "newer.ltu", &newer);
    let says = format!("(version {} at byte offset 4; this ltu reads version {version})", version + 1);
    fails(d, &["inspect", "newer.ltu"], &says);
    write(d, "tiny.ltu", b"LTU");
    fails(d, &["inspect", "tiny.ltu"], "(3 bytes; a model file has at least 10: its header and checksum)");
    // A model without names cannot be matched to data by name.
    json(d, &["train", iris, "--algo", "ptree", "--no-names", "-o", "anon.ltu", "--json"]);
    fails(d, &["eval", "anon.ltu", iris], "no names");
}

#[test]
fn unwritable_output_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let iris = data("iris.csv");
    fails(d, &["train", iris.to_str().unwrap(), "--algo", "ptree", "-o", "no/such/dir/m.ltu"], "m.ltu");
    let leftovers: Vec<_> = std::fs::read_dir(d).unwrap().collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// `--algo` offers exactly the registered learners: a name that is not one is a usage error
/// that lists them.
#[test]
fn unknown_algorithms_are_usage_errors_listing_the_learners() {
    let dir = tempfile::tempdir().unwrap();
    let iris = data("iris.csv");
    let o = ltu(dir.path(), &["train", iris.to_str().unwrap(), "--algo", "c45", "-o", "m.ltu"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    for name in ltu::learn::Algo::ALL.iter().map(|a| a.name()) {
        assert!(err.contains(name), "{name} in {err}");
    }
    assert!(!dir.path().join("m.ltu").exists());
}

#[test]
fn readme_example_utgoff_4_3_tree() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let xor = data("utgoff-4.3.csv");
    let t = json(d, &["train", xor.to_str().unwrap(), "--algo", "ptree", "--paper", "-o", "x.ltu", "--json"]);
    assert_eq!(t["train_accuracy"], 1.0, "{t}");
    assert_eq!(t["decision_nodes"], 2, "the paper's tree has 2 decision nodes: {t}");
    assert_eq!(t["ltus"], 3, "and 3 LTUs: {t}");
}

#[test]
fn predict_reads_unlabeled_files_and_eval_refuses_them() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "train.csv", b"colour,size,class\nred,1,yes\nblue,2,no\nred,3,yes\nblue,4,no\n");
    write(d, "new.csv", b"size,colour\n1,red\n4,blue\n");
    json(d, &["train", "train.csv", "--algo", "ptree", "-o", "m.ltu", "--json"]);
    let p = ltu(d, &["predict", "m.ltu", "new.csv"]);
    assert!(p.status.success(), "{}", stderr(&p));
    assert_eq!(stdout(&p).lines().count(), 2);
    fails(d, &["eval", "m.ltu", "new.csv"], "no class column");
}

/// Regression: `ltu predict ... | head -1` panicked with "failed printing to stdout".
#[test]
fn closed_stdout_pipe_is_not_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let iris = data("iris.csv");
    json(d, &["train", iris.to_str().unwrap(), "--algo", "ptree", "-o", "m.ltu", "--json"]);
    // `true` exits without reading, so ltu writes into a pipe whose reader is gone.
    let script = format!(
        "set -o pipefail; '{}' predict m.ltu '{}' 2>err.txt | true",
        env!("CARGO_BIN_EXE_ltu"),
        iris.display()
    );
    let out = Command::new("bash").current_dir(d).args(["-c", &script]).output().unwrap();
    let err = std::fs::read_to_string(d.join("err.txt")).unwrap();
    assert!(out.status.success(), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

/// `-o` never replaces the training data, whether named directly, through a symlink or a hard link.
#[test]
fn output_is_never_the_input_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let original = std::fs::read(data("iris.csv")).unwrap();
    write(d, "iris.csv", &original);
    fails(d, &["train", "iris.csv", "--algo", "ptree", "-o", "iris.csv"], "refusing to overwrite");
    fails(d, &["train", "iris.csv", "--algo", "ptree", "-o", "./iris.csv"], "refusing to overwrite");
    std::os::unix::fs::symlink("iris.csv", d.join("link.ltu")).unwrap();
    fails(d, &["train", "iris.csv", "--algo", "ptree", "-o", "link.ltu"], "refusing to overwrite");
    std::fs::hard_link(d.join("iris.csv"), d.join("hard.ltu")).unwrap();
    fails(d, &["train", "iris.csv", "--algo", "ptree", "-o", "hard.ltu"], "refusing to overwrite");
    // Standard input redirected from the file `-o` names.
    let stdin = std::fs::File::open(d.join("iris.csv")).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_ltu"))
        .current_dir(d)
        .args(["train", "-", "--algo", "ptree", "-o", "iris.csv"])
        .stdin(stdin)
        .output()
        .unwrap();
    assert!(!o.status.success() && stderr(&o).contains("is standard input; refusing to overwrite"), "{o:?}");
    assert_eq!(std::fs::read(d.join("iris.csv")).unwrap(), original, "the data are intact");
    assert!(std::fs::symlink_metadata(d.join("link.ltu")).unwrap().file_type().is_symlink());
}

/// Input that is not text, or endless, fails at its first bad byte instead of being read into
/// memory: a NUL byte, invalid UTF-8, /dev/zero as data or as a model.
#[test]
fn binary_and_endless_inputs_fail_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "nul.csv", b"a,b\n1,2\n3,\0x\n");
    fails(
        d,
        &["train", "nul.csv", "--algo", "ptree", "-o", "m.ltu"],
        "nul.csv:3:3: a NUL byte at byte offset 10",
    );
    // A byte-order mark is no column.
    write(d, "bom.csv", b"\xef\xbb\xbfab\0,c\n");
    fails(
        d,
        &["train", "bom.csv", "--algo", "ptree", "-o", "m.ltu"],
        "bom.csv:1:3: a NUL byte at byte offset 5",
    );
    write(d, "latin1.csv", b"a,b\n1,2\n3,\xff\n");
    fails(d, &["train", "latin1.csv", "--algo", "ptree", "-o", "m.ltu"], "latin1.csv:3:3: invalid UTF-8");
    fails(d, &["train", "/dev/zero", "--algo", "ptree", "-o", "m.ltu"], "/dev/zero:1:1: a NUL byte");
    json(d, &["train", data("iris.csv").to_str().unwrap(), "--algo", "ptree", "-o", "m.ltu", "--json"]);
    fails(d, &["predict", "m.ltu", "/dev/zero"], "/dev/zero:1:1: a NUL byte");
    fails(
        d,
        &["inspect", "/dev/zero"],
        "/dev/zero: not a valid ltu model: not an ltu model (bad magic bytes) (bytes 0..4 are 00 00 00 00",
    );
    assert!(!d.join("m.ltu.tmp").exists());
    // A full standard output is an error that says it was standard output.
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_ltu"))
        .current_dir(d)
        .args(["inspect", "m.ltu"])
        .stdout(full)
        .output()
        .unwrap();
    assert!(
        !o.status.success() && stderr(&o).contains("error: writing to standard output"),
        "{}",
        stderr(&o)
    );
}

/// A numeric column whose range forces a coarser step than its values use, merging distinct
/// values of different classes, is a warning naming it.
#[test]
fn numeric_precision_lost_to_32_bit_inputs_is_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let rows = "0.000001,x\n0.000002,y\n".repeat(3);
    write(d, "small.csv", format!("a,class\n{rows}5000,x\n").as_bytes());
    let t = json(d, &["train", "small.csv", "--algo", "ptree", "-o", "m.ltu", "--no-estimate", "--json"]);
    let w = t["warnings"].to_string();
    assert!(w.contains("column `a`: stored as round(a * 10^4) so that its training range fits"), "{w}");
    assert!(w.contains("so 6 rows of different classes"), "{w}");
    // Values that differ only in their last printed digit are not worth a warning.
    let rows = "0.018518,x\n0.018519,y\n0.5,x\n".repeat(3);
    write(d, "digits.csv", format!("a,class\n{rows}9000.25,y\n").as_bytes());
    let t = json(d, &["train", "digits.csv", "--algo", "ptree", "-o", "m.ltu", "--no-estimate", "--json"]);
    assert!(!t["warnings"].to_string().contains("stored as"), "{t}");
    // A range of 10^32 fits a 32-bit input only in steps of 10^24, merging every small value.
    write(d, "huge.csv", b"a,class\n2,x\n4,y\n6,x\n8,y\n1e32,x\n");
    let c = json(d, &["cv", "huge.csv", "--algo", "ptree", "--folds", "2", "--json"]);
    assert!(c["warnings"].to_string().contains("stored as round(a * 10^-24)"), "{c}");
    // At predict time, a value beyond the model's 32-bit input is read as the end of its range.
    json(d, &["train", data("iris.csv").to_str().unwrap(), "--algo", "ptree", "-o", "i.ltu", "--json"]);
    write(d, "edge.csv", b"sepal_length,sepal_width,petal_length,petal_width\n1e300,3,1,0.2\n5,3,1,0.2\n");
    let o = ltu(d, &["predict", "i.ltu", "edge.csv"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("column `sepal_length`: 1 cell(s) are beyond what the model's 32-bit input"),
        "{}",
        stderr(&o)
    );
    // Nothing to say about a column that keeps its precision.
    let iris =
        json(d, &["train", data("iris.csv").to_str().unwrap(), "--algo", "ptree", "-o", "i.ltu", "--json"]);
    assert!(!iris["warnings"].to_string().contains("column"), "{iris}");
}

/// Scoring a model on the rows it was trained on is said to be that, wherever a user might take
/// it for an estimate: `train --test`, `eval`, `predict --calibrate`. And `train --test` passes on
/// what reading the test file had to do (a class the model does not know).
#[test]
fn training_rows_passed_off_as_held_out_are_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let iris = data("iris.csv");
    let iris = iris.to_str().unwrap();
    let t = json(d, &["train", iris, "--algo", "ptree", "-o", "m.ltu", "--test", iris, "--json"]);
    assert!(t["warnings"].to_string().contains("the test file holds the training data itself"), "{t}");
    let e = json(d, &["eval", "m.ltu", iris, "--json"]);
    assert!(e["warnings"].to_string().contains("the rows the model was trained on"), "{e}");
    let o = ltu(d, &["predict", "m.ltu", iris, "--probabilities", "--calibrate", iris]);
    assert!(
        o.status.success() && stderr(&o).contains("probabilities will be overconfident"),
        "{}",
        stderr(&o)
    );
    // Other rows: no such warning; an unknown class in --test is reported as eval reports it.
    let text = std::fs::read_to_string(data("iris.csv")).unwrap();
    let mut other: Vec<&str> = text.lines().take(120).collect();
    other.push("5.0,3.0,1.5,0.2,Iris-unknown");
    write(d, "other.csv", other.join("\n").as_bytes());
    let u = json(d, &["train", iris, "--algo", "ptree", "-o", "m.ltu", "--test", "other.csv", "--json"]);
    let w = u["warnings"].to_string();
    assert!(
        !w.contains("training data") && w.contains("class `Iris-unknown` (1 rows) is not a class"),
        "{w}"
    );
    let e = json(d, &["eval", "m.ltu", "other.csv", "--json"]);
    assert!(!e["warnings"].to_string().contains("trained on"), "{e}");
}

/// Options that would change nothing in the combination given are refused, naming why, rather
/// than silently ignored.
#[test]
fn options_without_effect_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let iris = data("iris.csv");
    let iris = iris.to_str().unwrap();
    fn train<'a>(iris: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
        [&["train", iris, "-o", "m.ltu"][..], extra].concat()
    }
    fails(
        d,
        &train(iris, &["--algo", "ptree", "--split-rule", "corollary1", "--log-base", "ten"]),
        "--log-base applies to --split-rule progress only",
    );
    for search in ["mult", "pocket"] {
        for (option, value) in [("--max-passes", "1"), ("--patience", "1")] {
            fails(
                d,
                &train(iris, &["--algo", "ndl", "--search", search, option, value]),
                &format!("{option} applies to --search flns only"),
            );
        }
    }
    fails(
        d,
        &train(iris, &["--algo", "ptree", "--ignore", "sepal_length", "--numeric", "sepal_length"]),
        "column `sepal_length` is left out (--ignore or --id) but also given a type",
    );
    fails(d, &["cv", iris, "--algo", "ptree", "--no-names"], "--no-names applies to train only");
    fails(d, &["completions", "bash", "--json"], "--json does not apply to completions");
    // A negative number is a value out of range, not an unknown option.
    let o = ltu(d, &train(iris, &["--algo", "ptree", "--prune-fraction", "-0.1"]));
    assert!(stderr(&o).contains("invalid value '-0.1' for '--prune-fraction"), "{}", stderr(&o));
    // predict --id class: the prediction's column is not a second `class`.
    json(d, &train(iris, &["--algo", "ptree", "--no-estimate", "--json"]));
    let o = ltu(d, &["predict", "m.ltu", iris, "--id", "class"]);
    assert!(stdout(&o).starts_with("class,predicted_class\n"), "{}", stdout(&o));
    // Where they apply, they are accepted.
    json(d, &train(iris, &["--algo", "ptree", "--log-base", "ten", "--no-estimate", "--json"]));
    json(
        d,
        &train(iris, &["--algo", "ndl", "--max-passes", "1", "--patience", "1", "--no-estimate", "--json"]),
    );
    assert!(!d.join("m.ltu.tmp").exists());
}

/// What a model gave up without being asked is a warning: accuracy lost to scaling weights down
/// to a forced weight kind, and a class of the training rows it never predicts.
#[test]
fn accuracy_given_up_silently_is_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let iris = data("iris.csv");
    let iris = iris.to_str().unwrap();
    let t = json(d, &["train", iris, "--algo", "ptree", "--weights", "i8", "-o", "m.ltu", "--json"]);
    assert!(t["rescaled_units"].as_u64().unwrap() > 0, "{t}");
    let w = t["warnings"].to_string();
    assert!(w.contains("scaled down to fit i8 weights: training accuracy 96.00% → 95.33%"), "{w}");
    // One virginica row among 101: the model never predicts it.
    let text = std::fs::read_to_string(iris).unwrap();
    write(d, "one.csv", text.lines().take(102).collect::<Vec<_>>().join("\n").as_bytes());
    let o = json(d, &["train", "one.csv", "--algo", "ptree", "-o", "o.ltu", "--json"]);
    let w = o["warnings"].to_string();
    assert!(w.contains("never predicts `virginica` (the class of 1 training row(s))"), "{w}");
    let all = json(d, &["train", iris, "--algo", "ptree", "-o", "a.ltu", "--json"]);
    assert!(!all["warnings"].to_string().contains("never predicts"), "{all}");
}

/// A name with a line break cannot be stored (one name per line in the host block): refused
/// with the name, unless names are left out.
#[test]
fn names_with_line_breaks_are_refused_unless_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "nl.csv", b"\"a b\",\"a\nb\",class\n1,2,x\n2,1,y\n1,2,x\n2,1,y\n");
    let args = ["train", "nl.csv", "--algo", "ptree", "-o", "m.ltu", "--no-estimate"];
    fails(d, &args, "nl.csv: the header's column name \"a\\nb\" has a line break");
    assert!(!d.join("m.ltu").exists());
    json(d, &[&args[..], &["--no-names", "--json"]].concat());
    json(d, &[&args[..], &["--strip", "--json"]].concat());
    write(d, "class.csv", b"a,class\n1,\"x\ny\"\n2,z\n1,\"x\ny\"\n2,z\n");
    fails(
        d,
        &["train", "class.csv", "--algo", "ptree", "-o", "c.ltu"],
        "the class \"x\\ny\" has a line break",
    );
}

/// A symlink is followed: its target gets the model (atomically, in the target's directory) and
/// the link stays a link.
#[test]
fn output_symlink_is_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("models")).unwrap();
    write(d, "models/real.ltu", b"old contents");
    std::os::unix::fs::symlink("models/real.ltu", d.join("current.ltu")).unwrap();
    std::os::unix::fs::symlink("models/new.ltu", d.join("dangling.ltu")).unwrap();
    let iris = data("iris.csv");
    for out in ["current.ltu", "dangling.ltu"] {
        let t = json(d, &["train", iris.to_str().unwrap(), "--algo", "ptree", "-o", out, "--json"]);
        assert!(
            std::fs::symlink_metadata(d.join(out)).unwrap().file_type().is_symlink(),
            "{out} stays a link"
        );
        let bytes = std::fs::read(d.join(out)).unwrap();
        assert_eq!(bytes.len() as u64, t["model_bytes"].as_u64().unwrap());
        assert!(bytes.starts_with(b"LTUM"));
    }
    assert!(d.join("models/new.ltu").is_file(), "the dangling link's target was created");
    let names: Vec<_> =
        std::fs::read_dir(d.join("models")).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names.len(), 2, "no temporary file left: {names:?}");
}

/// `/dev/null` and FIFOs are written through, never replaced by a regular file; a directory is
/// refused.
#[test]
fn output_device_and_fifo_are_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let iris = data("iris.csv");
    let iris = iris.to_str().unwrap();
    // /dev/null through a symlink in the tempdir: the code before this test replaced the link (and,
    // run as root with `-o /dev/null`, /dev/null itself); through a link the test cannot damage /dev.
    std::os::unix::fs::symlink("/dev/null", d.join("null.ltu")).unwrap();
    json(d, &["train", iris, "--algo", "ptree", "-o", "null.ltu", "--json"]);
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata("/dev/null").unwrap().file_type().is_char_device());
    assert!(std::fs::symlink_metadata(d.join("null.ltu")).unwrap().file_type().is_symlink());

    let status = Command::new("mkfifo").arg(d.join("pipe.ltu")).status().unwrap();
    assert!(status.success());
    let mut reader =
        Command::new("cat").arg(d.join("pipe.ltu")).stdout(std::process::Stdio::piped()).spawn().unwrap();
    let o = ltu(d, &["train", iris, "--algo", "ptree", "-o", "pipe.ltu", "--json"]);
    if !o.status.success() {
        let _ = reader.kill(); // it would wait for a writer forever
        panic!("writing to a FIFO failed: {}", stderr(&o));
    }
    let t: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let got = reader.wait_with_output().unwrap().stdout;
    assert_eq!(got.len() as u64, t["model_bytes"].as_u64().unwrap());
    assert!(std::fs::metadata(d.join("pipe.ltu")).unwrap().file_type().is_fifo(), "still a FIFO");

    std::fs::create_dir(d.join("dir.ltu")).unwrap();
    fails(d, &["train", iris, "--algo", "ptree", "-o", "dir.ltu"], "is a directory");
}

/// `-o -` writes the model to stdout and the report to stderr.
#[test]
fn output_dash_is_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let iris = data("iris.csv");
    let o = ltu(d, &["train", iris.to_str().unwrap(), "--algo", "ptree", "-o", "-", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(o.stdout.starts_with(b"LTUM"), "the model is on stdout");
    ltu_runtime::Model::from_bytes(&o.stdout).expect("a valid model");
    let report: Value = serde_json::from_str(stderr(&o).trim()).unwrap();
    assert_eq!(report["model_bytes"].as_u64().unwrap() as usize, o.stdout.len());
    assert!(!d.join("-").exists(), "no file named `-`");
}

/// Runs, expects success, and returns (stdout, stderr).
fn ok(dir: &Path, args: &[&str]) -> (String, String) {
    let o = ltu(dir, args);
    assert!(o.status.success(), "ltu {args:?} failed: {}", stderr(&o));
    (stdout(&o), stderr(&o))
}

/// `NA`, `NaN`, `nan`, `null` in a column of numbers are missing values, not categories; the
/// vocabulary is configurable; `inf` and `1e309` are errors with file:line:col.
#[test]
fn missing_value_words_and_non_finite_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "na.csv", b"a,b,class\n1,NA,x\n2,3,y\n3,nan,x\n4,5,y\n5,null,x\n6,NaN,y\n7,9,x\n8,2,y\n");
    let t = json(d, &["train", "na.csv", "--algo", "ptree", "-o", "m.ltu", "--json"]);
    let warnings = t["warnings"].as_array().unwrap();
    assert!(warnings.iter().any(|w| w.as_str().unwrap().contains("\"NA\" ×1")), "{t}");
    let text = stdout(&ltu(d, &["inspect", "m.ltu"]));
    assert!(!text.contains("b=NA") && !text.contains("b=3"), "b is numeric, not categorical: {text}");
    let i = json(d, &["inspect", "m.ltu", "--json"]);
    assert_eq!(i["n_inputs"], 2);
    // With `NA` not in the vocabulary, the column is categorical again, with a warning.
    let t =
        json(d, &["train", "na.csv", "--algo", "ptree", "-o", "m.ltu", "--missing-values", "?,", "--json"]);
    let w = t["warnings"].to_string();
    assert!(w.contains("read as categorical") && w.contains("na.csv:2:2"), "{t}");
    // Non-finite values are errors at their position.
    write(d, "inf.csv", b"a,b,class\n1,2,x\n2,inf,y\n");
    fails(d, &["train", "inf.csv", "--algo", "ptree", "-o", "m2.ltu"], "inf.csv:3:2");
    write(d, "big.csv", b"a,b,class\n1,2,x\n2,3,y\n3,1e309,x\n");
    fails(d, &["train", "big.csv", "--algo", "ptree", "-o", "m2.ltu"], "big.csv:4:2");
    fails(d, &["train", "big.csv", "--algo", "ptree", "-o", "m2.ltu"], "not a finite number");
    // predict on a numeric model reads the same words as missing (and warns).
    json(d, &["train", "na.csv", "--algo", "ptree", "-o", "m.ltu", "--json"]);
    write(d, "new.csv", b"a,b\n1,NA\n2,null\n");
    let p = json(d, &["predict", "m.ltu", "new.csv", "--json"]);
    assert_eq!(p["predictions"].as_array().unwrap().len(), 2);
    assert!(p["warnings"].to_string().contains("missing"), "{p}");
    write(d, "bad.csv", b"a,b\n1,-inf\n");
    fails(d, &["predict", "m.ltu", "bad.csv"], "bad.csv:2:2");
}

/// A class column of numbers such as `sepal_length` is refused unless named categorical; a class
/// column of small integer codes is read with a warning.
#[test]
fn numeric_target_is_refused_unless_categorical() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let iris = data("iris.csv");
    let iris = iris.to_str().unwrap();
    fails(
        d,
        &["train", iris, "--algo", "ptree", "--target", "sepal_length", "-o", "m.ltu"],
        "--categorical sepal_length",
    );
    assert!(!d.join("m.ltu").exists());
    fails(d, &["cv", iris, "--algo", "ptree", "--target", "sepal_length"], "holds numbers");
    let t = json(
        d,
        &[
            "train",
            iris,
            "--algo",
            "ptree",
            "--target",
            "sepal_length",
            "--categorical",
            "sepal_length",
            "-o",
            "m.ltu",
            "--json",
        ],
    );
    assert!(t["n"] == 150, "{t}");
    let monks = data("monks-1_train.csv");
    let o = ltu(d, &["train", monks.to_str().unwrap(), "--algo", "ptree", "-o", "m.ltu"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("warning: ") && stderr(&o).contains("--categorical class"), "{}", stderr(&o));
    let o = ltu(
        d,
        &["train", monks.to_str().unwrap(), "--algo", "ptree", "-o", "m.ltu", "--categorical", "class,a1"],
    );
    assert!(o.status.success() && !stderr(&o).contains("warning"), "{}", stderr(&o));
}

/// Warnings on stderr and in `--json`: a trivial model, unseen categories at predict, classes with
/// fewer rows than folds.
#[test]
fn silent_decisions_are_warnings() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Noise: the attribute says nothing about the class, so the tree predicts the majority.
    let mut rows = String::from("colour,class\n");
    for i in 0..40 {
        rows.push_str(&format!(
            "{},{}\n",
            ["red", "blue"][i % 2],
            if i % 5 == 0 { "rare" } else { "common" }
        ));
    }
    write(d, "noise.csv", rows.as_bytes());
    let o = ltu(d, &["train", "noise.csv", "--algo", "ptree", "-o", "m.ltu"]);
    assert!(o.status.success());
    assert!(stderr(&o).contains("warning: the model predicts `common` for every one"), "{}", stderr(&o));
    let t = json(d, &["train", "noise.csv", "--algo", "ptree", "-o", "m.ltu", "--json"]);
    assert!(t["warnings"].to_string().contains("trivial model"), "{t}");

    write(d, "new.csv", b"colour\nred\ngreen\ngreen\n");
    let o = ltu(d, &["predict", "m.ltu", "new.csv"]);
    assert!(o.status.success());
    assert!(
        stderr(&o).contains("never saw") && stderr(&o).contains("\"green\" ×2 from line 3"),
        "{}",
        stderr(&o)
    );
    let p = json(d, &["predict", "m.ltu", "new.csv", "--json"]);
    assert!(p["warnings"].to_string().contains("never saw"), "{p}");

    let c = json(d, &["cv", "noise.csv", "--algo", "ptree", "--folds", "10", "--json"]);
    assert!(c["warnings"].to_string().contains("class `rare` has 8 rows, fewer than the 10 folds"), "{c}");
}

/// `predict` reads `-` as stdin, passes an `--id` column through, prints per-class scores that
/// agree with the runtime's `predict_scores`, and scores a file whose class column is empty.
#[test]
fn predict_stdin_id_scores_and_empty_class_column() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let iris = data("iris.csv");
    json(d, &["train", iris.to_str().unwrap(), "--algo", "ptree", "-o", "m.ltu", "--json"]);
    let new = "id,sepal_length,sepal_width,petal_length,petal_width,class\n\
               a1,5.1,3.5,1.4,0.2,\n\
               \"a,2\",6.7,3.0,5.2,2.3,\n";
    write(d, "new.csv", new.as_bytes());
    // The class column is present but empty: scored, not an error.
    let (out, _) = ok(d, &["predict", "m.ltu", "new.csv", "--ignore", "id"]);
    assert_eq!(out.lines().collect::<Vec<_>>(), ["setosa", "virginica"]);

    let mut child = Command::new(env!("CARGO_BIN_EXE_ltu"))
        .current_dir(d)
        .args(["predict", "m.ltu", "-", "--id", "id", "--scores"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), new.as_bytes()).unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "id,class,score:setosa,score:versicolor,score:virginica");
    assert!(lines[1].starts_with("a1,setosa,"), "{out}");
    assert!(lines[2].starts_with("\"a,2\",virginica,"), "the id is CSV-quoted: {out}");

    let p = json(d, &["predict", "m.ltu", "new.csv", "--id", "id", "--scores", "--json"]);
    assert_eq!(p["ids"], serde_json::json!(["a1", "a,2"]));
    let bytes = std::fs::read(d.join("m.ltu")).unwrap();
    let model = ltu_runtime::Model::from_bytes(&bytes).unwrap();
    for (x, s) in p["inputs"].as_array().unwrap().iter().zip(p["scores"].as_array().unwrap()) {
        let x: Vec<i32> = x.as_array().unwrap().iter().map(|v| v.as_i64().unwrap() as i32).collect();
        let mut want = vec![0i64; model.n_classes()];
        model.predict_scores(&x, &mut want).unwrap();
        let got: Vec<i64> =
            s.as_array().unwrap().iter().map(|v| v.as_f64().map_or(i64::MIN, |v| v as i64)).collect();
        assert_eq!(got, want);
    }
    // eval still needs labels.
    fails(d, &["eval", "m.ltu", "new.csv", "--ignore", "id"], "new.csv:2:6");
    // Options that cannot apply to a trained model are not offered (the model fixes each
    // column's type): a usage error, and not in the help.
    for command in ["predict", "eval"] {
        let o = ltu(d, &[command, "m.ltu", "new.csv", "--categorical", "sepal_length"]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains("unexpected argument '--categorical'"), "{}", stderr(&o));
        let help = stdout(&ltu(d, &[command, "--help"]));
        assert!(!help.contains("--numeric") && !help.contains("--categorical"), "{help}");
    }
    fails(d, &["predict", "m.ltu", "new.csv", "--ignore", "id,petal_width"], "cannot drop it");
}

/// `eval` and `cv` give per-class precision, recall and F1 with macro averages; `cv` also gives
/// per-fold lines and a confusion matrix over the held-out predictions.
#[test]
fn eval_and_cv_per_class_figures() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let iris = data("iris.csv");
    let iris = iris.to_str().unwrap();
    json(d, &["train", iris, "--algo", "ptree", "-o", "m.ltu", "--json"]);
    let e = json(d, &["eval", "m.ltu", iris, "--json"]);
    keys(&e, &["macro_precision", "macro_recall", "macro_f1"]);
    assert!(e["per_class"][0]["f1"].as_f64().is_some(), "{e}");
    let (text, _) = ok(d, &["eval", "m.ltu", iris]);
    assert!(text.contains("macro average") && text.contains("F1"), "{text}");

    let c = json(d, &["cv", iris, "--algo", "ptree", "--folds", "5", "--json"]);
    keys(&c, &["confusion", "per_class", "macro_f1", "fold_rows", "classes"]);
    let confusion = c["confusion"].as_array().unwrap();
    let total: u64 = confusion.iter().flat_map(|r| r.as_array().unwrap()).map(|v| v.as_u64().unwrap()).sum();
    assert_eq!(total, 150, "every row is predicted once, in its test fold");
    let correct: u64 = (0..3).map(|k| confusion[k][k].as_u64().unwrap()).sum();
    let mean = c["accuracy_mean"].as_f64().unwrap();
    assert!((correct as f64 / 150.0 - mean).abs() < 1e-9, "equal folds: pooled = mean accuracy");
    let (text, _) = ok(d, &["cv", iris, "--algo", "ptree", "--folds", "5"]);
    assert_eq!(text.lines().filter(|l| l.starts_with("fold ")).count(), 5, "{text}");
    assert!(text.contains("confusion") && text.contains("macro average"), "{text}");
    assert!(text.contains("device cost") && text.contains("essential work"), "{text}");
}

/// Runs and expects clap's usage error: exit code 2, an `error:` line containing `needle`.
fn usage_error(dir: &Path, args: &[&str], needle: &str) {
    let o = ltu(dir, args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "ltu {args:?}: {err}");
    assert!(err.starts_with("error: ") && err.contains(needle), "ltu {args:?}: expected {needle:?} in {err}");
}

/// `--help` shows the trainers' real defaults and ranges, hides unimplemented algorithms; ranges
/// are checked by the parser; options of another algorithm are errors; lists take commas.
#[test]
fn help_defaults_ranges_and_inapplicable_options() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let help = stdout(&ltu(d, &["train", "--help"]));
    let tree = ltu::learners::perceptron_tree::Params::default();
    let sparse = ltu::learners::sparse_perceptron::Params::default();
    for (flag, default) in [
        ("--epochs", tree.epochs.to_string()),
        ("--min-split", tree.min_split.to_string()),
        ("--max-depth", tree.max_depth.to_string()),
        ("--numeric-bins", tree.numeric_bins.to_string()),
        ("--max-literals", sparse.max_literals.to_string()),
        ("--max-cuts", sparse.max_cuts.to_string()),
        ("--validation-folds", sparse.validation_folds.to_string()),
    ] {
        let at = help.find(&format!("{flag} <")).unwrap_or_else(|| panic!("{flag} in {help}"));
        let entry = &help[at..];
        let entry = &entry[..entry[2..].find("\n      --").map_or(entry.len(), |e| e + 2)];
        assert!(entry.contains(&format!("[default: {default}")), "{flag}: {entry}");
    }
    assert!(help.contains("1..=32767"), "{help}");
    // Every registered learner is offered, with its own option section.
    for algo in ltu::learn::Algo::ALL {
        assert!(help.contains(algo.name()), "{} in {help}", algo.name());
    }
    // The library's option names are listed with what each value means.
    for value in [
        "- ptree:   perceptron tree",
        "- cyclic:   In file order",
        "- corollary1: The exact but conservative test",
        "- two: Binary logarithm",
        "- hybrid: The MLP only where",
        "- exchange:  Local search",
    ] {
        assert!(help.contains(value), "{value:?} in {help}");
    }
    assert!(
        help.contains("Oblique tree options (--algo oblique)")
            && help.contains("FRINGE options (--algo fringe)")
    );
    let iris = data("iris.csv");
    let iris = iris.to_str().unwrap();
    usage_error(
        d,
        &["train", iris, "--algo", "nope", "-o", "m.ltu"],
        "possible values: ptree, ndl, hsi, sparse, oblique, fringe, auto]",
    );
    usage_error(
        d,
        &["train", iris, "--algo", "ptree", "--numeric-max-abs", "40000", "-o", "m.ltu"],
        "1..=32767",
    );
    let o = ltu(d, &["train", iris, "--algo", "sparse", "--rounds", "0", "-o", "m.ltu"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("must be at least 1") && !stderr(&o).contains("Some("), "{}", stderr(&o));
    fails(
        d,
        &["train", iris, "--algo", "ndl", "--paper", "-o", "m.ltu"],
        "--paper does not apply to --algo ndl",
    );
    fails(d, &["cv", iris, "--algo", "ptree", "--rounds", "3"], "--rounds does not apply to --algo ptree");
    fails(d, &["train", iris, "--algo", "ndl", "--positive", "setosa", "-o", "m.ltu"], "--algo hsi");
    assert!(!d.join("m.ltu").exists());
    // Comma lists.
    let t = json(
        d,
        &["train", iris, "--algo", "ptree", "--ignore", "sepal_length,sepal_width", "-o", "m.ltu", "--json"],
    );
    assert_eq!(json(d, &["inspect", "m.ltu", "--json"])["n_inputs"], 2, "{t}");
}

/// Pruning options: `--prune-z` (error-based pruning on the training rows) takes effect when no
/// rows are held out, is refused when some are, and `--prune-z 0` leaves the tree unpruned;
/// fringe's `--paper` holds out a third. `--categorical-tests value` gives binary `x = v` tests the
/// runtime evaluates as the trainer does.
#[test]
fn pruning_and_categorical_test_options() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let monks = data("monks-2_train.csv");
    let monks = monks.to_str().unwrap();
    let cat = ["--categorical", "a1,a2,a3,a4,a5,a6,class", "--no-estimate"];
    let fringe = |extra: &[&str]| {
        let mut args = vec!["train", monks, "--algo", "fringe", "-o", "m.ltu", "--json"];
        args.extend(cat);
        args.extend(extra);
        let t = json(d, &args);
        // FRINGE's own tree (the exported one tests each literal of a constructed feature in turn).
        let nodes =
            t["learner"]["decision_nodes"].as_u64().unwrap_or_else(|| panic!("decision_nodes in {t}"));
        (nodes, t["learner"]["pruning"].as_str().unwrap_or_else(|| panic!("pruning in {t}")).to_string())
    };
    let (pruned, unpruned, paper) = (fringe(&[]), fringe(&["--prune-z", "0"]), fringe(&["--paper"]));
    assert!(pruned.0 < unpruned.0, "error-based pruning: {pruned:?}, unpruned {unpruned:?}");
    assert!(paper.0 < unpruned.0, "--paper prunes on held-out rows: {paper:?}, unpruned {unpruned:?}");
    assert_eq!(pruned.1, "error-based (z = 0.6745)");
    assert_eq!(unpruned.1, "none");
    assert_eq!(paper.1, "reduced-error on 56 held-out rows");
    fails(
        d,
        &["train", monks, "--algo", "fringe", "--paper", "--prune-z", "1", "-o", "x.ltu"],
        "--prune-z applies when --prune-fraction is 0",
    );
    fails(
        d,
        &["train", monks, "--algo", "oblique", "--prune-fraction", "0.2", "--prune-z", "1", "-o", "x.ltu"],
        "--prune-z applies",
    );
    fails(
        d,
        &["train", monks, "--algo", "ndl", "--prune-z", "1", "-o", "x.ltu"],
        "--prune-z does not apply to --algo ndl",
    );
    usage_error(
        d,
        &["train", monks, "--algo", "ptree", "--prune-z", "11", "-o", "x.ltu"],
        "must be in [0, 10]",
    );
    assert!(!d.join("x.ltu").exists());
    // Binary value tests: every decision node of this tree tests one value against the rest.
    let mut args = vec!["train", monks, "--algo", "ptree", "--categorical-tests", "value", "-o", "v.ltu"];
    args.extend(cat);
    ok(d, &args);
    let text = stdout(&ltu(d, &["inspect", "v.ltu"]));
    assert!(text.contains(" = 1:") || text.contains(" = 2:"), "{text}");
    let mut args =
        vec!["train", monks, "--algo", "ptree", "--categorical-tests", "value", "-o", "v.ltu", "--json"];
    args.extend(cat);
    let t = json(d, &args);
    let e = json(d, &["eval", "v.ltu", monks, "--json"]);
    assert_eq!(e["accuracy"], t["train_accuracy"], "runtime and trainer agree: {e} {t}");
    fails(
        d,
        &["train", monks, "--algo", "fringe", "--categorical-tests", "value", "-o", "x.ltu"],
        "--categorical-tests does not apply",
    );
}

/// `inspect --json` describes the encoding and the structure by name; the text view numbers its
/// nodes; `--dot` labels stay short on real models (the full unit is a tooltip) and `--dot --json`
/// gives JSON; errors under `--json` are JSON too.
#[test]
fn inspect_json_text_dot_and_json_errors() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let iris = data("iris.csv");
    // The perceptron's leaves: with the default leaf fit (logistic refits), iris is one linear
    // machine and house votes has no unknown-value default to show.
    let iris_tree = ["train", iris.to_str().unwrap(), "--algo", "ptree", "--leaf-fit", "perceptron"];
    json(d, &[&iris_tree[..], &["-o", "m.ltu", "--json"]].concat());
    let i = json(d, &["inspect", "m.ltu", "--json"]);
    assert!(i["table_bytes"].is_object(), "{i}");
    assert_eq!(i["classes"], serde_json::json!(["setosa", "versicolor", "virginica"]));
    assert_eq!(i["inputs"][2]["name"], "petal_length");
    assert_eq!(i["inputs"][2]["kind"], "numeric");
    assert_eq!(i["inputs"][2]["scale_exp"], 1);
    let nodes = i["layout"]["tree"].as_array().unwrap();
    assert_eq!(nodes[0]["id"], 0);
    assert!(nodes[0]["split"].is_string(), "{i}");
    assert_eq!(i["units"].as_array().unwrap().len() as u64, i["ltus"].as_u64().unwrap());

    let votes = data("house-votes-84.csv");
    let votes_tree = ["train", votes.to_str().unwrap(), "--algo", "ptree", "--leaf-fit", "perceptron"];
    json(d, &[&votes_tree[..], &["-o", "v.ltu", "--json"]].concat());
    let text = stdout(&ltu(d, &["inspect", "v.ltu"]));
    let unknown = text.lines().find(|l| l.contains("unknown: same as #")).expect("a categorical split");
    let target = unknown.rsplit('#').next().unwrap();
    assert!(text.contains(&format!("#{target} → ")), "the node it refers to is numbered: {text}");
    let v = json(d, &["inspect", "v.ltu", "--json"]);
    assert_eq!(v["inputs"][0]["values"], serde_json::json!(["n", "y"]));

    let car = data("car.csv");
    // FRINGE's chains share their exits: the text prints each node once (values that lead to the
    // same node on one line, later links as `same as #i`), so it grows with the nodes, not with
    // the paths (car's tree has millions of them).
    let f = json(d, &["train", car.to_str().unwrap(), "--algo", "fringe", "-o", "f.ltu", "--json"]);
    let nodes = f["decision_nodes"].as_u64().unwrap() + f["leaves"].as_u64().unwrap();
    let text = stdout(&ltu(d, &["inspect", "f.ltu"]));
    assert!(text.lines().any(|l| l.trim_start().starts_with("→ same as #")), "{text}");
    assert!(text.lines().any(|l| l.contains(" = ") && l.contains(", ")), "grouped values: {text}");
    assert!(text.lines().count() as u64 <= 8 + 5 * nodes, "{} lines for {nodes} nodes", text.lines().count());
    json(d, &["inspect", "f.ltu", "--json"]);
    json(d, &["train", car.to_str().unwrap(), "--algo", "ptree", "-o", "car.ltu", "--json"]);
    let dot = stdout(&ltu(d, &["inspect", "car.ltu", "--dot"]));
    assert!(dot.contains("label=\"#0\\n"), "{dot}");
    for label in dot.split("label=\"").skip(1).map(|l| &l[..l.find("\"").unwrap()]) {
        let lines: Vec<&str> = label.split("\\l").flat_map(|l| l.split("\\n")).collect();
        assert!(lines.len() <= 12, "a label of {} lines: {label}", lines.len());
        assert!(lines.iter().all(|l| l.chars().count() <= 80), "a long label line: {label}");
    }
    assert!(dot.contains("tooltip=") && dot.contains("more terms"), "{dot}");
    if Command::new("dot").arg("-V").output().is_ok_and(|o| o.status.success()) {
        std::fs::write(d.join("car.dot"), &dot).unwrap();
        let svg = Command::new("dot").current_dir(d).args(["-Tsvg", "car.dot"]).output().unwrap();
        assert!(svg.status.success(), "{}", stderr(&svg));
        let svg = stdout(&svg);
        let width: f64 = svg.split("width=\"").nth(1).unwrap().split("pt").next().unwrap().parse().unwrap();
        assert!(width < 32767.0, "graphviz's limit: {width}");
    }
    let dj = json(d, &["inspect", "car.ltu", "--dot", "--json"]);
    assert!(dj["dot"].as_str().unwrap().starts_with("digraph ltu {"));

    let o = ltu(d, &["eval", "absent.ltu", iris.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(1));
    let e: Value = serde_json::from_str(&stdout(&o)).expect("a JSON error on stdout");
    assert!(e["error"].as_str().unwrap().contains("absent.ltu"), "{e}");
    assert!(stderr(&o).starts_with("error: "));
    // A usage error under --json is JSON too.
    let o = ltu(d, &["train", iris.to_str().unwrap(), "--algo", "nope", "-o", "m.ltu", "--json"]);
    assert_eq!(o.status.code(), Some(2));
    let e: Value = serde_json::from_str(&stdout(&o)).expect("a JSON usage error on stdout");
    assert!(e["error"].as_str().unwrap().contains("nope"), "{e}");
}

/// `--max-depth N` bounds decision nodes; `inspect` counts levels with the leaf, and says so.
#[test]
fn max_depth_and_reported_depth_agree() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let car = data("car.csv");
    json(
        d,
        &[
            "train",
            car.to_str().unwrap(),
            "--algo",
            "ptree",
            "--max-depth",
            "2",
            "--min-split",
            "5",
            "-o",
            "m.ltu",
            "--json",
        ],
    );
    let i = json(d, &["inspect", "m.ltu", "--json"]);
    assert!(i["max_depth"].as_u64().unwrap() <= 3, "{i}");
    let text = stdout(&ltu(d, &["inspect", "m.ltu"]));
    assert!(text.contains("leaf included"), "{text}");
    let help = stdout(&ltu(d, &["train", "--help"]));
    assert!(help.contains("at most N + 1 levels, the leaf included"), "{help}");
}

/// `ltu completions SHELL` prints clap_complete's script for every shell it knows, generated from
/// the argument definitions: subcommands, options and the values of `--algo` (every registered
/// learner, from the library's names). The bash script is sourced and really completes.
#[test]
fn shell_completions() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Every registered learner, then `auto` (the choice among them).
    let algos: Vec<&str> = ltu::learn::Algo::ALL.iter().map(|a| a.name()).chain(["auto"]).collect();
    for (shell, option) in [
        ("bash", "--numeric-max-abs"),
        ("zsh", "'--numeric-max-abs=["),
        ("fish", "-l numeric-max-abs"),
        ("elvish", "cand --numeric-max-abs"),
        ("powershell", "'--numeric-max-abs'"),
    ] {
        let (script, _) = ok(d, &["completions", shell]);
        for needle in ["predict", "completions", "codegen", option] {
            assert!(script.contains(needle), "{shell}: {needle} missing from\n{script}");
        }
        // clap_complete lists option values for bash, zsh and fish only.
        for algo in algos.iter().filter(|_| ["bash", "zsh", "fish"].contains(&shell)) {
            assert!(script.contains(algo), "{shell}: --algo {algo} missing");
        }
    }
    usage_error(d, &["completions", "tcsh"], "possible values: bash, elvish, fish, powershell, zsh");

    let (bash, _) = ok(d, &["completions", "bash"]);
    std::fs::write(d.join("ltu.bash"), &bash).unwrap();
    // bash calls a completion function with the command, the word being completed and the one
    // before it, with COMP_WORDS / COMP_CWORD set.
    let script = "set -e; source ./ltu.bash
        complete -p ltu
        COMP_WORDS=(ltu train --algo ''); COMP_CWORD=3; _ltu ltu '' --algo; echo \"algo: ${COMPREPLY[*]}\"
        COMP_WORDS=(ltu pre); COMP_CWORD=1; _ltu ltu pre ltu; echo \"sub: ${COMPREPLY[*]}\"
        COMP_WORDS=(ltu predict m.ltu --sc); COMP_CWORD=3; _ltu ltu --sc m.ltu; echo \"opt: ${COMPREPLY[*]}\"
        COMP_WORDS=(ltu cv x.csv --weights i1); COMP_CWORD=4; _ltu ltu i1 --weights; echo \"weights: ${COMPREPLY[*]}\"
        COMP_WORDS=(ltu train x.csv --order ''); COMP_CWORD=4; _ltu ltu '' --order; echo \"order: ${COMPREPLY[*]}\"";
    match Command::new("bash").current_dir(d).args(["-c", script]).output() {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => eprintln!("bash not found; script not sourced"),
        Err(e) => panic!("bash: {e}"),
        Ok(o) => {
            assert!(o.status.success(), "{}", stderr(&o));
            assert!(stderr(&o).is_empty(), "sourcing printed errors: {}", stderr(&o));
            let out = stdout(&o);
            assert!(out.contains("complete -o bashdefault -o default -o nosort -F _ltu ltu"), "{out}");
            assert!(out.contains(&format!("algo: {}\n", algos.join(" "))), "{out}");
            assert!(out.contains("sub: predict\n") && out.contains("opt: --scores\n"), "{out}");
            assert!(out.contains("weights: i16\n") && out.contains("order: cyclic shuffled\n"), "{out}");
        }
    }
}

/// `ltu codegen` writes Rust (default) or C for a model, to stdout or a file, and never over the
/// model it reads.
#[test]
fn codegen_writes_rust_and_c_source() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let iris = data("iris.csv");
    json(d, &["train", iris.to_str().unwrap(), "--algo", "ptree", "-o", "m.ltu", "--json"]);
    let rust = ltu(d, &["codegen", "m.ltu"]);
    assert!(rust.status.success(), "{}", stderr(&rust));
    let src = stdout(&rust);
    assert!(src.contains("pub fn predict<T: Copy + Into<i32>>(x: &[T; N_INPUTS]) -> usize"), "{src}");
    assert!(src.contains("pub const N_INPUTS: usize = 4;"), "{src}");
    assert!(stderr(&rust).contains("entry point"), "the report goes to stderr: {}", stderr(&rust));
    let report = json(d, &["codegen", "m.ltu", "--lang", "c", "-o", "model.c", "--json"]);
    assert_eq!(report["lang"], "c");
    let c = std::fs::read_to_string(d.join("model.c")).unwrap();
    let h = std::fs::read_to_string(d.join("model.h")).unwrap();
    assert!(c.contains("int32_t ltu_predict(const int32_t *x)") && c.contains("#include \"model.h\""), "{c}");
    assert!(
        h.contains("int32_t ltu_predict(const int32_t *x);") && h.contains("#define LTU_N_INPUTS 4"),
        "{h}"
    );
    assert_eq!(report["source_bytes"].as_u64().unwrap() as usize, c.len());
    assert_eq!(report["header_bytes"].as_u64().unwrap() as usize, h.len());
    fails(d, &["codegen", "m.ltu", "-o", "m.ltu"], "refusing to overwrite");
    assert!(ltu_runtime::Model::from_bytes(&std::fs::read(d.join("m.ltu")).unwrap()).is_ok(), "model intact");
    write(d, "junk.ltu", b"not a model");
    fails(d, &["codegen", "junk.ltu"], "not a valid ltu model");
    fails(d, &["codegen", "m.ltu", "--window", "10"], "this one has no pipeline");
}

/// `ltu train --json` carries the learner's own report: what pruning, boosting or list building
/// did, not only the final size.
#[test]
fn train_json_has_the_learners_report() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let votes = data("house-votes-84.csv");
    let votes = votes.to_str().unwrap();
    let ptree = json(d, &["train", votes, "--algo", "ptree", "-o", "m.ltu", "--json"]);
    keys(&ptree["learner"], &["epochs", "consistent", "before_pruning", "pruned", "held_out"]);
    let ndl = json(d, &["train", votes, "--algo", "ndl", "-o", "m.ltu", "--json"]);
    keys(&ndl["learner"], &["nodes", "stop", "node_info", "pruned"]);
    assert_eq!(
        ndl["learner"]["nodes"].as_u64().unwrap() as usize,
        ndl["learner"]["node_info"].as_array().unwrap().len()
    );
    let sparse = json(d, &["train", votes, "--algo", "sparse", "-o", "m.ltu", "--json"]);
    keys(&sparse["learner"], &["boosters", "weight_scale", "quantization_changed_rows"]);
    assert!(sparse["learner"]["boosters"][0]["hypotheses"].as_u64().unwrap() > 0);
}

/// The two newest learners arrive through the registry alone: trained, exported and verified by
/// the runtime like the others, with their own options, and a flag of another learner refused.
#[test]
fn oblique_and_fringe_train_through_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let iris = data("iris.csv");
    let iris = iris.to_str().unwrap();
    let o =
        json(d, &["train", iris, "--algo", "oblique", "--partition", "selection", "-o", "o.ltu", "--json"]);
    assert_eq!(o["algo"], "oblique");
    assert!(o["train_accuracy"].as_f64().unwrap() > 0.8, "{o}");
    assert!(o["learner"].is_object(), "{o}");
    let votes = data("house-votes-84.csv");
    let f = json(
        d,
        &[
            "train",
            votes.to_str().unwrap(),
            "--algo",
            "fringe",
            "--max-variables",
            "40",
            "-o",
            "f.ltu",
            "--json",
        ],
    );
    assert_eq!(f["algo"], "fringe");
    assert!(f["train_accuracy"].as_f64().unwrap() > 0.9, "{f}");
    let p = ltu(d, &["predict", "f.ltu", votes.to_str().unwrap()]);
    assert!(p.status.success(), "{}", stderr(&p));
    fails(
        d,
        &["train", iris, "--algo", "fringe", "--partition", "exchange", "-o", "x.ltu"],
        "--partition does not apply",
    );
}

/// Device budgets: the model the budget allows is never over it.
#[test]
fn oblique_honours_device_budgets() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let vehicle = data("vehicle.csv");
    let vehicle = vehicle.to_str().unwrap();
    let free = json(
        d,
        &["train", vehicle, "--algo", "oblique", "--no-names", "--no-estimate", "-o", "free.ltu", "--json"],
    );
    // Budgets count the file a device stores: without the host block (`--strip`).
    let bytes = free["device_bytes"].as_u64().unwrap();
    let macs = free["max_macs"].as_u64().unwrap();
    let tight = (bytes / 2).to_string();
    let b = json(
        d,
        &[
            "train",
            vehicle,
            "--algo",
            "oblique",
            "--no-names",
            "--no-estimate",
            "--max-bytes",
            &tight,
            "-o",
            "b.ltu",
            "--json",
        ],
    );
    assert!(b["device_bytes"].as_u64().unwrap() <= bytes / 2, "{b}");
    let few = (macs / 2).max(1).to_string();
    let m = json(
        d,
        &[
            "train",
            vehicle,
            "--algo",
            "oblique",
            "--max-macs",
            &few,
            "--no-estimate",
            "-o",
            "m.ltu",
            "--json",
        ],
    );
    assert!(m["max_macs"].as_u64().unwrap() <= macs / 2, "{m}");
}

/// Every learner honors the budgets: never over them, and the report says which setting won.
/// `cut_macs`: whether the learner is also given a MAC budget below its free model's. (A
/// perceptron tree's leaf reads every feature, so its MACs fall only with fewer classes per leaf;
/// lists and boosting shed MACs with entries and rounds.) One test per learner, so the slow budget
/// searches run in parallel.
fn learner_honours_device_budgets(algo: &str, cut_macs: bool) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Glass: 214 rows of 9 numeric inputs, 6 classes, the largest 35.5 % of the rows.
    let glass = data("glass.csv");
    let glass = glass.to_str().unwrap();
    // No held-out estimate: it would fit every ladder a second time, and budgets are about the model.
    let free = json(d, &["train", glass, "--algo", algo, "--no-estimate", "-o", "f.ltu", "--json"]);
    let (bytes, macs) = (free["device_bytes"].as_u64().unwrap(), free["max_macs"].as_u64().unwrap());
    let max_bytes = bytes * 2 / 3;
    // FRINGE's trees test raw inputs only: no MAC, so no MAC budget to give.
    let max_macs = if cut_macs { (macs / 2).max(1) } else { macs };
    let (b, m) = (max_bytes.to_string(), max_macs.to_string());
    let mut args =
        vec!["train", glass, "--algo", algo, "--no-estimate", "--max-bytes", &b, "-o", "t.ltu", "--json"];
    if max_macs > 0 {
        args.extend(["--max-macs", &m]);
    }
    let t = json(d, &args);
    assert!(t["device_bytes"].as_u64().unwrap() <= max_bytes, "{algo}: {t}");
    assert!(t["max_macs"].as_u64().unwrap() <= max_macs, "{algo}: {t}");
    assert!(t["budget"]["chosen"].as_u64().unwrap() > 0, "{algo}: a cheaper setting was needed: {t}");
    // The cheaper model still learned something: more than the largest class.
    assert!(t["train_accuracy"].as_f64().unwrap() > 0.4, "{algo}: {t}");
    // The file says the same: the budget counts what the runtime multiplies, zero weights of a
    // unit stored dense included.
    let file = json(d, &["inspect", "t.ltu", "--json"]);
    assert_eq!(file["max_macs"], t["max_macs"], "{algo}: {file}");
    assert_eq!(file["weights_nonzero"], t["weights_nonzero"], "{algo}: {file}");
}

#[test]
fn ptree_honours_device_budgets() {
    learner_honours_device_budgets("ptree", false);
}

#[test]
fn ndl_honours_device_budgets() {
    learner_honours_device_budgets("ndl", true);
}

#[test]
fn sparse_honours_device_budgets() {
    learner_honours_device_budgets("sparse", true);
}

#[test]
fn fringe_honours_device_budgets() {
    learner_honours_device_budgets("fringe", false);
}

#[test]
fn budgets_below_one_unit_and_stripped_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let iris = data("iris.csv");
    let iris = iris.to_str().unwrap();
    // A MAC budget below what one unit reads: wdbc's default ptree leaf and ndl entry read 30
    // and 20 features, so no depth or list length fits; the ladders' sparser units do (ptree's
    // feature selection; ndl's pruned 1-norm entry, 17 weights).
    let wdbc = data("wdbc.csv");
    let wdbc = wdbc.to_str().unwrap();
    for (algo, budget) in [("ptree", 16), ("ndl", 19)] {
        let b = budget.to_string();
        let t = json(
            d,
            &["train", wdbc, "--algo", algo, "--max-macs", &b, "--no-estimate", "-o", "w.ltu", "--json"],
        );
        assert!(t["max_macs"].as_u64().unwrap() <= budget, "{algo}: {t}");
        assert!(t["train_accuracy"].as_f64().unwrap() > 0.9, "{algo}: {t}");
    }
    fails(
        d,
        &["train", iris, "--algo", "sparse", "--max-bytes", "20", "-o", "x.ltu"],
        "no sparse model fits the budget",
    );
    // --max-bytes counts what a device stores; a file written with its host block is larger,
    // and says so. With --strip the file is what the budget counted.
    let full = json(d, &["train", iris, "--algo", "ptree", "--max-bytes", "200", "-o", "h.ltu", "--json"]);
    assert!(full["model_bytes"].as_u64().unwrap() > 200, "{full}");
    assert!(full["warnings"].to_string().contains("over --max-bytes 200"), "{full}");
    let args = ["train", iris, "--algo", "ptree", "--max-bytes", "200", "--strip", "-o", "s.ltu", "--json"];
    let stripped = json(d, &args);
    assert!(std::fs::metadata(d.join("s.ltu")).unwrap().len() <= 200, "{stripped}");
    assert!(!stripped["warnings"].to_string().contains("--max-bytes"), "{stripped}");
}

/// `ltu train` estimates accuracy on rows the model did not see: a held-out quarter by default,
/// `--test FILE` when given, nothing with `--no-estimate`; a large gap to the training accuracy is
/// a warning.
#[test]
fn train_reports_a_held_out_estimate_and_warns_about_overfitting() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let iris = data("iris.csv");
    let t = json(d, &["train", iris.to_str().unwrap(), "--algo", "ptree", "-o", "m.ltu", "--json"]);
    assert_eq!(t["estimate"]["rows"], 38, "{t}");
    assert!(t["estimate"]["accuracy"].as_f64().unwrap() > 0.8, "{t}");
    let none = json(
        d,
        &["train", iris.to_str().unwrap(), "--algo", "ptree", "--no-estimate", "-o", "m.ltu", "--json"],
    );
    assert!(none["estimate"].is_null(), "{none}");
    let (train, test) = (data("monks-2_train.csv"), data("monks-2_test.csv"));
    let codes = "a1,a2,a3,a4,a5,a6,class";
    let args = ["train", train.to_str().unwrap(), "--algo", "ptree", "--categorical", codes];
    let m = json(d, &[&args[..], &["--test", test.to_str().unwrap(), "-o", "m.ltu", "--json"]].concat());
    assert_eq!(m["estimate"]["rows"], 432, "{m}");
    let gap = m["train_accuracy"].as_f64().unwrap() - m["estimate"]["accuracy"].as_f64().unwrap();
    let warned =
        m["warnings"].as_array().unwrap().iter().any(|w| w.as_str().unwrap().contains("may overfit"));
    assert_eq!(warned, gap > 0.10, "{m}");
    assert!(warned, "monks-2's ptree overfits its 169 training rows: {m}");
    fails(
        d,
        &[&args[..], &["--test", test.to_str().unwrap(), "-o", test.to_str().unwrap()]].concat(),
        "refusing to overwrite",
    );
}

/// The host block: `ltu train` records how a model was made (printed by `inspect`, in `--json` as
/// `metadata`), deterministically; `--strip` leaves names, scales and metadata out and gives the
/// same predictions from a smaller file, which budgets count.
#[test]
fn metadata_and_stripped_models() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let iris = data("iris.csv");
    let iris = iris.to_str().unwrap();
    let args = ["train", iris, "--algo", "ptree", "--seed", "7", "--max-depth", "2", "--json"];
    let full = json(d, &[&args[..], &["-o", "full.ltu"]].concat());
    let again = json(d, &[&args[..], &["-o", "again.ltu", "--no-estimate"]].concat());
    assert_eq!(
        std::fs::read(d.join("full.ltu")).unwrap(),
        std::fs::read(d.join("again.ltu")).unwrap(),
        "output path and estimate flags do not change the model or its metadata"
    );
    let stripped = json(d, &[&args[..], &["-o", "stripped.ltu", "--strip"]].concat());
    for t in [&full, &again, &stripped] {
        assert_eq!(t["device_bytes"], stripped["model_bytes"], "{t}");
    }
    assert!(stripped["model_bytes"].as_u64() < full["model_bytes"].as_u64());

    let i = json(d, &["inspect", "full.ltu", "--json"]);
    let meta = &i["metadata"];
    assert_eq!(meta["ltu"], env!("CARGO_PKG_VERSION"));
    assert_eq!(meta["algo"], "ptree");
    assert_eq!(meta["seed"], "7");
    assert_eq!(meta["options"], "--algo ptree --seed 7 --max-depth 2");
    assert_eq!(meta["data"], "iris.csv");
    assert_eq!(meta["rows"], "150");
    assert_eq!(meta["data_fnv1a64"].as_str().unwrap().len(), 16);
    assert_eq!(i["host_block"], true);
    // A tree of dense units with the default weights: the runtime features a firmware needs.
    assert_eq!(i["runtime_features"], serde_json::json!(["tree", "i16"]));
    let text = stdout(&ltu(d, &["inspect", "full.ltu"]));
    assert!(text.contains(r#"features = ["tree", "i16"]"#), "{text}");
    assert!(
        text.contains("algo: ptree") && text.contains("options: --algo ptree --seed 7 --max-depth 2"),
        "{text}"
    );

    let s = json(d, &["inspect", "stripped.ltu", "--json"]);
    assert_eq!((s["host_block"].clone(), s["metadata"].clone()), (Value::Bool(false), serde_json::json!({})));
    assert!(stdout(&ltu(d, &["inspect", "stripped.ltu"])).contains("no host block"));
    // Same predictions on every row, from integer raw inputs (iris has one decimal: raw = 10 v).
    let rows: String = std::fs::read_to_string(iris)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| {
            let v: Vec<&str> = l.split(',').collect();
            let raw: Vec<String> =
                v[..4].iter().map(|x| format!("{}", (x.parse::<f64>().unwrap() * 10.0).round())).collect();
            raw.join(",") + "\n"
        })
        .collect();
    let full_model = std::fs::read(d.join("full.ltu")).unwrap();
    let stripped_model = std::fs::read(d.join("stripped.ltu")).unwrap();
    let (a, b) = (
        ltu_runtime::Model::from_bytes(&full_model).unwrap(),
        ltu_runtime::Model::from_bytes(&stripped_model).unwrap(),
    );
    for line in rows.lines() {
        let x: Vec<i32> = line.split(',').map(|v| v.parse::<f64>().unwrap() as i32).collect();
        assert_eq!(a.predict(&x), b.predict(&x), "{line}");
    }
    fails(d, &["eval", "stripped.ltu", iris], "--strip");
}

/// `predict --probabilities --calibrate FILE`: a softmax over the deciding unit's scores fitted on
/// labelled held-out rows. The probabilities sum to 1 per row; the reported log loss is exactly
/// the mean `-ln p(true class)` of the probabilities `predict` prints for the calibration rows;
/// an informative model beats the class frequencies; labels unrelated to the inputs get a warning;
/// neither flag works without the other.
#[test]
fn predict_calibrated_probabilities() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let iris = std::fs::read_to_string(data("iris.csv")).unwrap();
    let lines: Vec<&str> = iris.lines().collect();
    let (header, rows) = (lines[0], &lines[1..]);
    let half = |odd: usize| -> String {
        let picked = rows.iter().enumerate().filter(|(i, _)| i % 2 == odd).map(|(_, r)| *r);
        std::iter::once(header).chain(picked).collect::<Vec<_>>().join("\n") + "\n"
    };
    write(d, "train.csv", half(0).as_bytes());
    write(d, "held.csv", half(1).as_bytes());
    let held_classes: Vec<String> =
        half(1).lines().skip(1).map(|l| l.rsplit(',').next().unwrap().to_string()).collect();

    usage_error(d, &["predict", "m.ltu", "held.csv", "--probabilities"], "--calibrate <FILE>");
    usage_error(d, &["predict", "m.ltu", "held.csv", "--calibrate", "held.csv"], "--probabilities");

    for algo in ["ptree", "ndl", "sparse", "oblique"] {
        json(d, &["train", "train.csv", "--algo", algo, "-o", "m.ltu", "--no-estimate", "--json"]);
        let args = ["predict", "m.ltu", "held.csv", "--probabilities", "--calibrate", "held.csv"];
        let p = json(d, &[&args[..], &["--json"]].concat());
        let c = &p["calibration"];
        keys(c, &["rows", "temperature", "log_loss", "cv_log_loss", "prior_log_loss", "accuracy"]);
        assert_eq!(c["rows"], 75, "{algo}: {c}");
        let classes: Vec<&str> =
            p["classes"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        let probabilities = p["probabilities"].as_array().unwrap();
        assert_eq!(probabilities.len(), 75);
        let mut loss = 0.0;
        for (row, class) in probabilities.iter().zip(&held_classes) {
            let row: Vec<f64> = row.as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
            assert!((row.iter().sum::<f64>() - 1.0).abs() < 1e-9, "{algo}: {row:?}");
            loss -= row[classes.iter().position(|c| c == class).unwrap()].ln();
        }
        let reported = c["log_loss"].as_f64().unwrap();
        assert!((loss / 75.0 - reported).abs() < 1e-9, "{algo}: {} vs {reported}", loss / 75.0);
        let prior = c["prior_log_loss"].as_f64().unwrap();
        assert!((prior - 3f64.ln()).abs() < 1e-9, "balanced classes: ln 3, {c}");
        assert!(c["cv_log_loss"].as_f64().unwrap() < 0.6 * prior, "{algo}: {c}");
        assert!(p["warnings"].as_array().unwrap().is_empty(), "{algo}: {p}");
        if algo == "sparse" {
            // One linear machine scores every class: plain temperature scaling.
            assert!(c["unscored_logit"].is_null() && c["temperature"].as_f64().unwrap() > 0.0, "{c}");
        }

        // Text: a CSV with p:<class> columns on stdout, the fit on stderr.
        let (out, err) = ok(d, &[&args[..], &["--scores"]].concat());
        let head = out.lines().next().unwrap();
        assert!(
            head.ends_with(",p:setosa,p:versicolor,p:virginica") && head.contains("score:setosa"),
            "{out}"
        );
        let last: Vec<f64> =
            out.lines().nth(1).unwrap().rsplit(',').take(3).map(|v| v.parse().unwrap()).collect();
        assert!((last.iter().sum::<f64>() - 1.0).abs() < 1e-5, "{out}");
        assert!(err.starts_with("calibration on 75 rows of held.csv: temperature"), "{err}");
    }

    // Labels unrelated to the inputs: no better than the class frequencies, and said so.
    let noise: String = half(1)
        .lines()
        .enumerate()
        .map(|(i, l)| match i {
            0 => l.to_string(),
            _ => format!("{},{}", &l[..l.rfind(',').unwrap()], ["setosa", "versicolor", "virginica"][i % 3]),
        })
        .collect::<Vec<_>>()
        .join("\n");
    write(d, "noise.csv", noise.as_bytes());
    json(d, &["train", "train.csv", "--algo", "ptree", "-o", "m.ltu", "--no-estimate", "--json"]);
    let p =
        json(d, &["predict", "m.ltu", "held.csv", "--probabilities", "--calibrate", "noise.csv", "--json"]);
    assert!(p["warnings"].to_string().contains("no better than the class frequencies"), "{p}");

    // Rows of a class the model does not know are left out; a handful of rows gets no cross-check.
    write(
        d,
        "few.csv",
        format!("{header}\n5.1,3.5,1.4,0.2,setosa\n6.0,2.2,5.0,1.5,virginica\n5.0,3.0,1.6,0.2,rose\n")
            .as_bytes(),
    );
    let p = json(d, &["predict", "m.ltu", "held.csv", "--probabilities", "--calibrate", "few.csv", "--json"]);
    assert_eq!(p["calibration"]["rows"], 2, "{p}");
    assert_eq!(p["calibration"]["rows_left_out"], 1, "{p}");
    assert!(p["calibration"]["cv_log_loss"].is_null(), "{p}");
    let warnings = p["warnings"].to_string();
    assert!(warnings.contains("class `rose`") && warnings.contains("too few for a 5-fold check"), "{p}");

    // The calibration rows need labels; stdin cannot be both files.
    write(d, "unlabelled.csv", b"sepal_length,sepal_width,petal_length,petal_width\n5.1,3.5,1.4,0.2\n");
    fails(
        d,
        &["predict", "m.ltu", "held.csv", "--probabilities", "--calibrate", "unlabelled.csv"],
        "needs labelled rows",
    );
    fails(d, &["predict", "m.ltu", "-", "--probabilities", "--calibrate", "-"], "both be standard input");
}

/// `--patience` and `--max-search-rows` reach the decision-list learner (ndl, hsi): on vehicle's
/// 846 rows the default searches every row, a 100-row sample gives another model; 0 restores the
/// paper's unbounded search; other learners refuse them.
#[test]
fn decision_list_search_limits() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let vehicle = data("vehicle.csv");
    let vehicle = vehicle.to_str().unwrap();
    let base = ["train", vehicle, "--algo", "ndl", "--no-estimate", "--strip", "--max-nodes", "3", "--json"];
    json(d, &[&base[..], &["-o", "default.ltu"]].concat());
    json(d, &[&base[..], &["-o", "sampled.ltu", "--max-search-rows", "100"]].concat());
    json(d, &[&base[..], &["-o", "paper.ltu", "--patience", "0", "--max-search-rows", "0"]].concat());
    let read = |f: &str| std::fs::read(d.join(f)).unwrap();
    assert_ne!(read("default.ltu"), read("sampled.ltu"), "--max-search-rows 100 changed nothing");
    let i = json(d, &["inspect", "sampled.ltu", "--json"]);
    assert!(i["leaves"].as_u64().unwrap() >= 1, "{i}");
    let help = stdout(&ltu(d, &["train", "--help"]));
    assert!(help.contains("--patience <N>") && help.contains("--max-search-rows <N>"), "{help}");
    fails(d, &["train", vehicle, "--algo", "ptree", "--patience", "2", "-o", "x.ltu"], "--patience");
    fails(
        d,
        &["train", vehicle, "--algo", "sparse", "--max-search-rows", "9", "-o", "x.ltu"],
        "--max-search-rows",
    );
}

/// `--leaf-fit` is a ptree option shown in `train --help`, reported by `train --json`, refused
/// for other learners, and `--leaf-l2` only with a logistic refit.
#[test]
fn ptree_leaf_fit_option() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let iris = data("iris.csv");
    let iris = iris.to_str().unwrap();
    let help = stdout(&ltu(d, &["train", "--help"]));
    for want in ["--leaf-fit", "perceptron", "logistic", "auto", "--leaf-l2"] {
        assert!(help.contains(want), "train --help lacks {want}");
    }
    let train = |extra: &[&str]| {
        let mut args = vec!["train", iris, "--algo", "ptree", "-o", "m.ltu", "--json"];
        args.extend_from_slice(extra);
        json(d, &args)
    };
    let p = train(&["--leaf-fit", "perceptron"]);
    assert_eq!(p["learner"]["leaf_fit"], "perceptron", "{p}");
    assert_eq!(p["learner"]["refitted"], 0, "{p}");
    let l = train(&["--leaf-fit", "logistic", "--leaf-l2", "0.5"]);
    assert_eq!(l["learner"]["leaf_fit"], "logistic", "{l}");
    assert_eq!(l["learner"]["leaf_l2"], 0.5, "{l}");
    assert!(l["learner"]["refitted"].as_u64().unwrap() > 0, "{l}");
    let paper = train(&["--paper", "--epochs", "5"]);
    assert_eq!(paper["learner"]["leaf_fit"], "perceptron", "{paper}");
    let cv = json(d, &["cv", iris, "--algo", "ptree", "--folds", "3", "--leaf-fit", "logistic", "--json"]);
    assert!(cv["accuracy_mean"].as_f64().unwrap() > 0.8, "{cv}");
    fails(
        d,
        &["train", iris, "--algo", "ndl", "--leaf-fit", "logistic", "-o", "m2.ltu"],
        "--leaf-fit does not apply to --algo ndl",
    );
    fails(
        d,
        &["train", iris, "--algo", "ptree", "--leaf-fit", "perceptron", "--leaf-l2", "1", "-o", "m2.ltu"],
        "--leaf-l2 applies to --leaf-fit logistic",
    );
    // auto (the default) chooses its own penalties: a --leaf-l2 would change nothing.
    fails(
        d,
        &["train", iris, "--algo", "ptree", "--leaf-l2", "50", "-o", "m2.ltu"],
        "--leaf-l2 applies to --leaf-fit logistic only (auto, the default",
    );
    let o = ltu(d, &["train", iris, "--algo", "ptree", "--leaf-l2", "0", "-o", "m2.ltu"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

/// `--feature-selection true` makes ptree's refitted units leave out the features that do not
/// pay for themselves: on wdbc the single leaf keeps at most half of its 30 weights (15 in this
/// version) at nearly the same training accuracy; the report counts them; the perceptron's
/// weights and other learners refuse it.
#[test]
fn ptree_feature_selection_option() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let wdbc = data("wdbc.csv");
    let wdbc = wdbc.to_str().unwrap();
    let help = stdout(&ltu(d, &["train", "--help"]));
    assert!(help.contains("--feature-selection"), "train --help lacks --feature-selection");
    let train = |extra: &[&str]| {
        let mut args = vec!["train", wdbc, "--algo", "ptree", "-o", "m.ltu", "--json", "--no-estimate"];
        args.extend_from_slice(extra);
        json(d, &args)
    };
    let all = train(&[]);
    let fewer = train(&["--feature-selection", "true"]);
    let weights = |v: &serde_json::Value| v["weights_nonzero"].as_u64().unwrap();
    assert_eq!(all["learner"]["features_left_out"], 0, "{all}");
    assert!(fewer["learner"]["features_left_out"].as_u64().unwrap() >= 15, "{fewer}");
    assert!(weights(&fewer) * 2 <= weights(&all), "{} vs {}", weights(&fewer), weights(&all));
    let acc = |v: &serde_json::Value| v["train_accuracy"].as_f64().unwrap();
    assert!(acc(&fewer) > acc(&all) - 0.02, "{} vs {}", acc(&fewer), acc(&all));
    fails(
        d,
        &[
            "train",
            wdbc,
            "--algo",
            "ptree",
            "--leaf-fit",
            "perceptron",
            "--feature-selection",
            "true",
            "-o",
            "x.ltu",
        ],
        "--feature-selection applies to the logistic refit",
    );
    fails(
        d,
        &["train", wdbc, "--algo", "ndl", "--feature-selection", "true", "-o", "x.ltu"],
        "--feature-selection does not apply to --algo ndl",
    );
}

/// `--weight-fit` is a sparse option shown in `train --help` with its default, reported by
/// `train --json`, `--paper` keeps the boosted votes, and other learners refuse it.
#[test]
fn sparse_weight_fit_option() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let iris = data("iris.csv");
    let iris = iris.to_str().unwrap();
    let help = stdout(&ltu(d, &["train", "--help"]));
    let at = help.find("--weight-fit <").expect("--weight-fit in train --help");
    let entry = &help[at..at + help[at..].find("\n\n      --").unwrap_or(help.len() - at)];
    let default = ltu::learners::sparse_perceptron::Params::default().weight_fit.to_string();
    assert!(entry.contains(&format!("[default: {default}; --paper: boost]")), "{entry}");
    for want in ["- boost:", "- logistic:", "- auto:"] {
        assert!(entry.contains(want), "{want} in {entry}");
    }
    let train = |extra: &[&str]| {
        let mut args = vec!["train", iris, "--algo", "sparse", "-o", "m.ltu", "--json"];
        args.extend_from_slice(extra);
        json(d, &args)
    };
    // iris: 4 numeric inputs, the paper's round limit (the default raises it to 32).
    let boost = train(&["--weight-fit", "boost", "--rounds", "4"]);
    assert_eq!(boost["learner"]["weight_fit"], "boost", "{boost}");
    assert!(boost["learner"]["weight_l2"].is_null(), "{boost}");
    assert_eq!(boost["learner"]["weight_kind"], "I16", "{boost}");
    let paper = train(&["--paper"]);
    assert_eq!(paper["learner"]["weight_fit"], "boost", "{paper}");
    assert_eq!(paper["train_accuracy"], boost["train_accuracy"], "--paper is --weight-fit boost here");
    assert_eq!(paper["weights_nonzero"], boost["weights_nonzero"], "--paper is --weight-fit boost here");
    let logistic = train(&["--weight-fit", "logistic"]);
    assert_eq!(logistic["learner"]["weight_fit"], "logistic", "{logistic}");
    assert_eq!(logistic["learner"]["weight_l2"], ltu::learners::sparse_perceptron::LOGISTIC_L2, "{logistic}");
    assert!(logistic["train_accuracy"].as_f64().unwrap() > 0.9, "{logistic}");
    let auto = train(&["--weight-fit", "auto"]);
    let chosen = auto["learner"]["weight_fit"].as_str().unwrap();
    assert!(chosen == "boost" || chosen == "logistic", "{auto}");
    let wide = train(&["--weight-fit", "logistic", "--weights", "i32"]);
    assert_eq!(wide["learner"]["weight_kind"], "I32", "--weights is honoured: {wide}");
    let cv = json(d, &["cv", iris, "--algo", "sparse", "--folds", "3", "--weight-fit", "logistic", "--json"]);
    assert!(cv["accuracy_mean"].as_f64().unwrap() > 0.8, "{cv}");
    fails(
        d,
        &["train", iris, "--algo", "ptree", "--weight-fit", "boost", "-o", "m2.ltu"],
        "--weight-fit does not apply to --algo ptree",
    );
    let at = help.find("--refit-rounds <").expect("--refit-rounds in train --help");
    let rounds = ltu::learners::sparse_perceptron::Params::default().refit_rounds;
    assert!(help[at..].contains(&format!("[default: {rounds}; --paper: 0]")), "{}", &help[at..]);
    // With --refit-rounds 1 no boosting runs past the round limit (on iris's 150 rows the
    // default floor, `min_rounds`, above the ordinary perceptron's 4 weights).
    let short = train(&["--refit-rounds", "1"]);
    let limit = ltu::learners::sparse_perceptron::Params::default().min_rounds as u64;
    for b in short["learner"]["boosters"].as_array().unwrap() {
        assert!(b["rounds_allowed"].as_u64().unwrap() <= limit, "{short}");
    }
    fails(
        d,
        &["train", iris, "--algo", "sparse", "--weight-fit", "boost", "--refit-rounds", "2", "-o", "m2.ltu"],
        "--refit-rounds applies to --weight-fit auto",
    );
    let o = ltu(d, &["train", iris, "--algo", "sparse", "--weight-fit", "votes", "-o", "m2.ltu"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

/// `--all-conjunctions` (sparse): on MONK's problem 2 ("exactly two attributes have their
/// first value") boosting's greedy choice misses conjunctions the concept needs together; the
/// default also refits over every conjunction of two literals and chooses that on held-out rows.
#[test]
fn sparse_refits_over_every_conjunction_when_boosting_misses_some() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (tr, te) = (data("monks-2_train.csv"), data("monks-2_test.csv"));
    let (tr, te) = (tr.to_str().unwrap(), te.to_str().unwrap());
    let train = |extra: &[&str]| {
        let mut args = vec!["train", tr, "--categorical", "a1,a2,a3,a4,a5,a6,class", "--algo", "sparse"];
        args.extend_from_slice(&["--test", te, "-o", "m.ltu", "--json", "-q"]);
        args.extend_from_slice(extra);
        json(d, &args)
    };
    let all = train(&[]);
    assert_eq!(all["learner"]["conjunctions"], "all", "{all}");
    assert!(all["learner"]["boosters"].as_array().unwrap().is_empty(), "{all}");
    let held_out = all["estimate"]["accuracy"].as_f64().unwrap();
    assert!(held_out > 0.99, "{all}");
    // Pruned down to the concept: the six literals `a_i = 1` and their fifteen pairs, 21 of the
    // 136 conjunctions it starts from (finer steps once a 30 % step would lose a training row).
    assert!(all["weights_nonzero"].as_u64().unwrap() <= 24, "{all}");
    let boosted = train(&["--all-conjunctions", "0"]);
    assert_eq!(boosted["learner"]["conjunctions"], "boosting", "{boosted}");
    assert!(boosted["estimate"]["accuracy"].as_f64().unwrap() < 0.85, "{boosted}");
    // Fewer allowed than the 136 there are: not tried.
    let capped = train(&["--all-conjunctions", "100"]);
    assert_eq!(capped["learner"]["conjunctions"], "boosting", "{capped}");
    let help = stdout(&ltu(d, &["train", "--help"]));
    let at = help.find("--all-conjunctions <").expect("--all-conjunctions in train --help");
    let n = ltu::learners::sparse_perceptron::Params::default().all_conjunctions;
    assert!(help[at..].contains(&format!("[default: {n}; --paper: 0]")), "{}", &help[at..]);
    fails(
        d,
        &[
            "train",
            tr,
            "--algo",
            "sparse",
            "--weight-fit",
            "logistic",
            "--all-conjunctions",
            "9",
            "-o",
            "m2.ltu",
        ],
        "--all-conjunctions applies to --weight-fit auto",
    );
}

/// `--prune-weights` (ndl, hsi): fewer non-zero weights, the same training predictions.
#[test]
fn prune_weights_option_for_lists() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let zoo = data("zoo.csv");
    let zoo = zoo.to_str().unwrap();
    let args = |extra: &[&'static str], out: &'static str| {
        let mut a = vec!["train", zoo, "--algo", "ndl", "--no-estimate", "--json", "-o", out];
        a.extend(extra);
        a
    };
    let full = json(d, &args(&[], "full.ltu"));
    let pruned = json(d, &args(&["--prune-weights", "true"], "pruned.ltu"));
    let nonzero = |t: &Value| t["weights_nonzero"].as_u64().unwrap();
    assert!(nonzero(&pruned) < nonzero(&full), "{pruned}\n{full}");
    assert!(pruned["learner"]["lp"]["weights_pruned"].as_u64().unwrap() > 0, "{pruned}");
    assert_eq!(full["learner"]["lp"]["weights_pruned"], 0, "off by default: {full}");
    assert_eq!(pruned["train_accuracy"], full["train_accuracy"]);
    let p = json(d, &["predict", "pruned.ltu", zoo, "--json"]);
    let f = json(d, &["predict", "full.ltu", zoo, "--json"]);
    assert_eq!(p["predictions"].as_array().unwrap().len(), 101);
    assert_eq!(p["predictions"], f["predictions"], "every training row decided alike");
    fails(d, &["train", zoo, "--algo", "ptree", "--prune-weights", "true", "-o", "x.ltu"], "--prune-weights");
}

/// ptree's lookahead split choice (the default) finds MONK's `a1 = a2` where the paper's entropy
/// choice does not: no single input is informative there, but the branches of `a1` are linearly
/// separable.
#[test]
fn ptree_lookahead_splits_learn_monks_1() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (train, test) = (data("monks-1_train.csv"), data("monks-1_test.csv"));
    let accuracy = |extra: &[&str]| {
        let mut args = vec!["train", train.to_str().unwrap(), "--algo", "ptree", "--json", "-o", "m.ltu"];
        args.extend(["--categorical", "a1,a2,a3,a4,a5,a6", "--test", test.to_str().unwrap()]);
        args.extend(extra);
        json(d, &args)["estimate"]["accuracy"].as_f64().unwrap()
    };
    let (lookahead, entropy) = (accuracy(&[]), accuracy(&["--split-choice", "entropy"]));
    assert!(lookahead > 0.99, "lookahead {lookahead}");
    assert!(entropy < 0.9, "entropy {entropy}");
    assert_eq!(accuracy(&["--split-choice", "lookahead"]), lookahead, "the default");
    assert!(accuracy(&["--paper"]) < 0.95, "--paper: the entropy choice");
}

/// ndl's inner cross-validation (default) tries the halfspace intersection on two classes and
/// learns monks-1's concept, which the list of section 5.1 misses; `--validation-folds 0` keeps
/// the given settings, and `--margin-norm`/`--edit-neighbours` fix theirs.
#[test]
fn ndl_chooses_its_settings_by_inner_cross_validation() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (train, test) = (data("monks-1_train.csv"), data("monks-1_test.csv"));
    let run = |extra: &[&str]| {
        let mut args = vec!["train", train.to_str().unwrap(), "--algo", "ndl", "--json", "-o", "m.ltu"];
        args.extend(["--categorical", "a1,a2,a3,a4,a5,a6", "--test", test.to_str().unwrap()]);
        args.extend(extra);
        json(d, &args)
    };
    let chosen = run(&[]);
    assert!(chosen["estimate"]["accuracy"].as_f64().unwrap() > 0.99, "{}", chosen["estimate"]);
    let candidates = chosen["learner"]["candidates"].as_array().unwrap();
    // 2 shapes × 2 norms × 2 editings, the winner first and at least as accurate as any.
    assert_eq!(candidates.len(), 8, "{candidates:?}");
    assert_eq!(candidates[0]["shape"], "hsi");
    let acc = |c: &serde_json::Value| c["accuracy"].as_f64().unwrap();
    assert!(candidates.iter().all(|c| acc(c) <= acc(&candidates[0])));
    let paper = run(&["--validation-folds", "0"]);
    assert!(paper["learner"]["candidates"].as_array().unwrap().is_empty());
    assert!(paper["estimate"]["accuracy"].as_f64().unwrap() < 0.9, "{}", paper["estimate"]);
    let fixed = run(&["--margin-norm", "sum", "--edit-neighbours", "0"]);
    let fixed = fixed["learner"]["candidates"].as_array().unwrap().clone();
    assert_eq!(fixed.len(), 2, "only the shape is left to choose: {fixed:?}");
    assert!(fixed.iter().all(|c| c["norm"] == "sum" && c["edit_neighbours"] == 0));
    // The text report names the chosen settings.
    let text = ltu(
        d,
        &[
            "train",
            train.to_str().unwrap(),
            "--algo",
            "ndl",
            "--categorical",
            "a1,a2,a3,a4,a5,a6",
            "-o",
            "t.ltu",
        ],
    );
    assert!(text.status.success());
    let stdout = String::from_utf8_lossy(&text.stdout);
    assert!(stdout.contains("chosen settings    edit_neighbours 0, norm sum, shape hsi"), "{stdout}");
    // Without the max-margin LP the norm is not chosen, and cannot be given.
    let plain = run(&["--max-margin", "false"]);
    let plain = plain["learner"]["candidates"].as_array().unwrap().clone();
    assert_eq!(plain.len(), 4, "2 shapes × 2 editings: {plain:?}");
    let out = ltu(
        d,
        &[
            "train",
            train.to_str().unwrap(),
            "--algo",
            "ndl",
            "--max-margin",
            "false",
            "--margin-norm",
            "sum",
            "-o",
            "n.ltu",
        ],
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--margin-norm applies to the max-margin LP"));
    // Asked for, a choice that cannot happen (nothing left to choose) is a warning.
    let out = ltu(
        d,
        &[
            "train",
            train.to_str().unwrap(),
            "--algo",
            "hsi",
            "--categorical",
            "a1,a2,a3,a4,a5,a6",
            "--margin-norm",
            "sum",
            "--edit-neighbours",
            "0",
            "--validation-folds",
            "3",
            "-o",
            "w.ltu",
        ],
    );
    assert!(out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--validation-folds 3: hsi chose nothing"),
        "{out:?}"
    );
    // Options of other learners are refused.
    let out =
        ltu(d, &["train", train.to_str().unwrap(), "--algo", "ptree", "--margin-norm", "sum", "-o", "p.ltu"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--margin-norm does not apply to --algo ptree"));
}
