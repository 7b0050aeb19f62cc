//! `ltu update` through the real binary, in temporary directories.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use crate::common::ltu_status as ltu;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../data").join(name)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs and expects success; returns stdout parsed as JSON.
fn json(dir: &Path, args: &[&str]) -> Value {
    let o = ltu(dir, args);
    assert!(o.status.success(), "ltu {args:?} failed: {}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("ltu {args:?}: not JSON ({e})"))
}

/// Runs and expects a clean failure: exit code 1, an `error:` line containing `needle`, no panic.
fn fails(dir: &Path, args: &[&str], needle: &str) {
    let o = ltu(dir, args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "ltu {args:?}: {err}");
    assert!(!err.contains("panicked"), "ltu {args:?} panicked: {err}");
    assert!(err.starts_with("error: "), "ltu {args:?}: {err}");
    assert!(err.contains(needle), "ltu {args:?}: expected {needle:?} in {err}");
}

/// Iris with every measurement scaled by 1.3 and shifted by 0.5: a drifted sensor.
fn drifted_iris(dir: &Path) -> String {
    let text = std::fs::read_to_string(data("iris.csv")).unwrap();
    let mut lines = text.lines();
    let mut out = format!("{}\n", lines.next().unwrap());
    for line in lines.filter(|l| !l.is_empty()) {
        let cells: Vec<&str> = line.split(',').collect();
        let (nums, class) = cells.split_at(cells.len() - 1);
        let nums: Vec<String> =
            nums.iter().map(|v| format!("{}", v.parse::<f64>().unwrap() * 1.3 + 0.5)).collect();
        out.push_str(&format!("{},{}\n", nums.join(","), class[0]));
    }
    std::fs::write(dir.join("drift.csv"), out).unwrap();
    "drift.csv".into()
}

fn predictions(dir: &Path, model: &str, data: &str) -> Vec<Value> {
    json(dir, &["predict", model, data, "--json"])["predictions"].as_array().unwrap().clone()
}

fn train_iris(dir: &Path) {
    let iris = data("iris.csv");
    json(
        dir,
        &["train", iris.to_str().unwrap(), "--algo", "ptree", "-o", "m.ltu", "--json", "--no-estimate"],
    );
}

#[test]
fn a_drifted_copy_is_learned_and_the_model_still_loads() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    train_iris(d);
    let drift = drifted_iris(d);
    let r = json(d, &["update", "m.ltu", &drift, "-o", "n.ltu", "--epochs", "3", "--json"]);
    assert_eq!(r["rows"], 150);
    assert_eq!(r["epochs"], 3);
    assert_eq!(r["updates"], 450);
    let o = &r["outcomes"];
    let total: u64 = ["correct", "corrected", "clipped", "saturated", "constant", "unlearnable"]
        .iter()
        .map(|k| o[k].as_u64().unwrap())
        .sum();
    assert_eq!(total, 450, "{r}");
    assert!(o["corrected"].as_u64().unwrap() > 0, "{r}");
    let (before, after) = (r["accuracy_before"].as_f64().unwrap(), r["accuracy_after"].as_f64().unwrap());
    assert!(after > before + 0.1, "the drift is learned: {before} -> {after}");
    assert!(r["weights_changed"].as_u64().unwrap() > 0, "{r}");
    // Only weights change: the same size, and eval (through the runtime) agrees with the report.
    let (old, new) = (std::fs::read(d.join("m.ltu")).unwrap(), std::fs::read(d.join("n.ltu")).unwrap());
    assert_eq!(old.len(), new.len());
    assert_eq!(r["model_bytes"].as_u64().unwrap() as usize, new.len());
    let e = json(d, &["eval", "n.ltu", &drift, "--json"]);
    assert_eq!(e["accuracy"], r["accuracy_after"]);
    assert_ne!(predictions(d, "m.ltu", &drift), predictions(d, "n.ltu", &drift));
    // Deterministic: the same rows give the same file.
    json(d, &["update", "m.ltu", &drift, "-o", "again.ltu", "--epochs", "3", "--json"]);
    assert_eq!(std::fs::read(d.join("again.ltu")).unwrap(), new);
}

#[test]
fn another_data_file_and_its_report() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (train, test) = (data("monks-1_train.csv"), data("monks-1_test.csv"));
    json(d, &["train", train.to_str().unwrap(), "--algo", "ndl", "-o", "m.ltu", "--no-estimate", "--json"]);
    let o = ltu(d, &["update", "m.ltu", test.to_str().unwrap(), "-o", "n.ltu"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("432 updates (432 rows x 1 epoch)"), "{text}");
    assert!(text.contains("accuracy on") && text.contains("before") && text.contains("after"), "{text}");
    json(d, &["eval", "n.ltu", test.to_str().unwrap(), "--json"]);
}

#[test]
fn a_pipeline_model_learns_from_the_windows_of_recordings() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (train, test) = (data("gunpoint_train.csv"), data("gunpoint_test.csv"));
    let train = train.to_str().unwrap();
    let test = test.to_str().unwrap();
    json(
        d,
        &[
            "train",
            train,
            "--recordings",
            "--algo",
            "ptree",
            "--categorical",
            "class",
            "-o",
            "gp.ltu",
            "--no-estimate",
            "--json",
        ],
    );
    let r = json(d, &["update", "gp.ltu", test, "-o", "gp2.ltu", "--json"]);
    assert_eq!(r["rows"], 150);
    let e = json(d, &["eval", "gp2.ltu", test, "--json"]);
    assert_eq!(e["accuracy"], r["accuracy_after"], "eval reads the windows as update does");
}

#[test]
fn a_class_the_model_does_not_know_names_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    train_iris(d);
    std::fs::write(
        d.join("bad.csv"),
        "sepal_length,sepal_width,petal_length,petal_width,class\n5.1,3.5,1.4,0.2,setosa\n\
         6.0,3.0,4.5,1.5,versicolor\n6.3,3.3,6.0,2.5,unknown\n",
    )
    .unwrap();
    fails(
        d,
        &["update", "m.ltu", "bad.csv", "-o", "n.ltu"],
        "bad.csv line 4: class `unknown` is not a class",
    );
    assert!(!d.join("n.ltu").exists(), "nothing is written on an error");
    // Without a class column there is nothing to learn from.
    std::fs::write(
        d.join("unlabelled.csv"),
        "sepal_length,sepal_width,petal_length,petal_width\n5.1,3.5,1.4,0.2\n",
    )
    .unwrap();
    fails(d, &["update", "m.ltu", "unlabelled.csv", "-o", "n.ltu"], "no class column");
}

#[test]
fn the_output_is_never_an_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    train_iris(d);
    let drift = drifted_iris(d);
    let before = std::fs::read(d.join("m.ltu")).unwrap();
    fails(d, &["update", "m.ltu", &drift, "-o", "m.ltu"], "refusing to overwrite");
    fails(d, &["update", "m.ltu", &drift, "-o", &drift], "refusing to overwrite");
    fails(d, &["update", "m.ltu", &drift, "-o", "."], "is a directory");
    assert_eq!(std::fs::read(d.join("m.ltu")).unwrap(), before);
}

#[test]
fn every_option_in_the_help_works() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    train_iris(d);
    let drift = drifted_iris(d);
    let help = String::from_utf8_lossy(&ltu(d, &["update", "--help"]).stdout).into_owned();
    let mut flags: Vec<&str> = help
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| {
            w.starts_with("--") && w.len() > 2 && w[2..].chars().all(|c| c.is_ascii_lowercase() || c == '-')
        })
        .collect();
    flags.sort_unstable();
    flags.dedup();
    assert_eq!(
        flags,
        ["--epochs", "--help", "--ignore", "--json", "--missing-values", "--output", "--quiet", "--target"],
        "a new option needs a case below"
    );
    assert!(help.contains("file order"), "{help}");
    // --target and --ignore: the class column named, a column dropped.
    let r = json(
        d,
        &[
            "update", "m.ltu", &drift, "--target", "class", "--epochs", "2", "-q", "--json", "--output",
            "t.ltu",
        ],
    );
    assert_eq!(r["updates"], 300);
    std::fs::write(
        d.join("extra.csv"),
        "sepal_length,note,sepal_width,petal_length,petal_width,class\n5.1,x,3.5,1.4,0.2,setosa\n",
    )
    .unwrap();
    let o = ltu(d, &["update", "m.ltu", "extra.csv", "--ignore", "note", "-o", "i.ltu"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("1 updates"));
    // --missing-values: a word read as missing.
    std::fs::write(
        d.join("words.csv"),
        "sepal_length,sepal_width,petal_length,petal_width,class\nnone,3.5,1.4,0.2,setosa\n",
    )
    .unwrap();
    let r = json(d, &["update", "m.ltu", "words.csv", "--missing-values", "none", "-o", "w.ltu", "--json"]);
    assert_eq!(r["rows"], 1);
    // clap refuses a value out of range (exit code 2, as for every usage error).
    let o = ltu(d, &["update", "m.ltu", &drift, "-o", "z.ltu", "--epochs", "0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("0 is not in 1.."), "{}", stderr(&o));
    // `-o -`: the model on standard output, the report on standard error.
    json(d, &["update", "m.ltu", &drift, "-o", "n1.ltu", "--json"]);
    let o = ltu(d, &["update", "m.ltu", &drift, "-o", "-"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(o.stdout, std::fs::read(d.join("n1.ltu")).unwrap());
    assert!(stderr(&o).contains("150 updates"), "{}", stderr(&o));
}

#[test]
fn what_cannot_learn_is_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (train, test) = (data("monks-2_train.csv"), data("monks-2_test.csv"));
    let (train, test) = (train.to_str().unwrap(), test.to_str().unwrap());
    // FRINGE learns a tree of tests here: no unit, every row reaches a constant leaf, the file
    // comes back unchanged.
    json(d, &["train", train, "--algo", "fringe", "-o", "f.ltu", "--no-estimate", "--json"]);
    let o = ltu(d, &["update", "f.ltu", test, "-o", "f2.ltu", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(r["weights_total"], 0, "{r}");
    assert_eq!(r["outcomes"]["constant"], 432, "{r}");
    assert!(stderr(&o).contains("the model has no units"), "{}", stderr(&o));
    assert_eq!(std::fs::read(d.join("f.ltu")).unwrap(), std::fs::read(d.join("f2.ltu")).unwrap());
    // A neural decision list on rows it gets wrong: some corrections are less than the full step
    // (I16 weights clamped), and its accuracy on them falls; both are said.
    json(d, &["train", train, "--algo", "ndl", "-o", "l.ltu", "--no-estimate", "--json"]);
    let o = ltu(d, &["update", "l.ltu", test, "-o", "l2.ltu", "--epochs", "2", "--json"]);
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    let err = stderr(&o);
    assert_eq!(r["warnings"].as_array().unwrap().len(), err.lines().count(), "{err}");
    assert!(r["outcomes"]["clipped"].as_u64().unwrap() > 0, "{r}");
    assert!(err.contains("less than the full step"), "{err}");
    assert!(r["accuracy_after"].as_f64() < r["accuracy_before"].as_f64(), "{r}");
    assert!(err.contains("went down"), "{err}");
}
