//! `--recordings`: raw sensor recordings through `ltu train`, `cv`, `eval`, `predict` and
//! `inspect`, with the pipeline stored in the model and evaluated by the runtime from raw
//! samples.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::ltu_status as ltu;

fn data(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../data").join(name).to_str().unwrap().to_string()
}

fn json(dir: &Path, args: &[&str]) -> Value {
    let o = ltu(dir, args);
    assert!(o.status.success(), "ltu {args:?} failed: {}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).expect("JSON")
}

fn fails(dir: &Path, args: &[&str], needle: &str) {
    let o = ltu(dir, args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "ltu {args:?}: {err}");
    assert!(!err.contains("panicked") && err.starts_with("error: "), "ltu {args:?}: {err}");
    assert!(err.contains(needle), "ltu {args:?}: expected {needle:?} in {err}");
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// The wide layout (GunPoint, one channel): train on the archive's training split, score its
/// test split through the stored pipeline, and see the pipeline in `inspect`.
#[test]
fn wide_layout_train_eval_inspect_predict() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (train, test) = (data("gunpoint_train.csv"), data("gunpoint_test.csv"));
    let t = json(
        d,
        &[
            "train",
            &train,
            "--recordings",
            "--algo",
            "ndl",
            "--categorical",
            "class",
            "-o",
            "gp.ltu",
            "--test",
            &test,
            "--json",
        ],
    );
    assert_eq!(t["n"], 50, "one window per recording: {t}");
    // What computing the kept statistics costs per window, counted by the budgets.
    assert_eq!(t["extraction"]["window"], 150, "{t}");
    assert!(
        t["extraction"]["statistics"].as_u64().unwrap() >= 1
            && t["extraction"]["instructions"].as_u64().unwrap() > 0,
        "{t}"
    );
    let accuracy = t["estimate"]["accuracy"].as_f64().unwrap();
    assert!(accuracy >= 0.9, "GunPoint test split: {accuracy}");
    let e = json(d, &["eval", "gp.ltu", &test, "--json"]);
    assert_eq!(e["n"], 150);
    assert_eq!(e["accuracy"].as_f64().unwrap(), accuracy, "eval and train --test agree");
    let i = json(d, &["inspect", "gp.ltu", "--json"]);
    assert_eq!(i["pipeline"]["window"], 0);
    assert_eq!(i["pipeline"]["channels"][0]["name"], "x");
    assert_eq!(i["pipeline"]["inputs"][0], "x_mean");
    // Only the statistics the model reads are kept (the default family has 69 per channel).
    let kept = i["pipeline"]["inputs"].as_array().unwrap().len();
    assert!(kept < 69 && i["n_inputs"] == kept, "{i}");
    assert!(i["runtime_features"].as_array().unwrap().iter().any(|f| f == "pipeline"));
    let p = ltu(d, &["predict", "gp.ltu", &test]);
    let out = String::from_utf8_lossy(&p.stdout);
    let mut lines = out.lines();
    assert_eq!(lines.next(), Some("window,class"));
    assert_eq!(lines.next().map(|l| l.split(',').next().unwrap()), Some("1@0"));
    assert_eq!(lines.count(), 149);
    // Generated code takes the statistics, and says so.
    let c = ltu(d, &["codegen", "gp.ltu", "--lang", "c", "-o", "gp.c"]);
    assert!(c.status.success());
    let err = String::from_utf8_lossy(&c.stderr);
    assert!(
        err.contains("warning: the model computes its inputs from raw samples")
            && err.contains("give --window N"),
        "{err}"
    );
    // With a window the pipeline is compiled in, and nothing is left to warn about.
    let c = ltu(d, &["codegen", "gp.ltu", "--lang", "c", "--window", "150", "--hop", "50", "-o", "gp_w.c"]);
    assert!(c.status.success() && !String::from_utf8_lossy(&c.stderr).contains("warning"));
    let header = std::fs::read_to_string(d.join("gp_w.h")).unwrap();
    for needle in
        ["#define LTU_WINDOW 150", "#define LTU_HOP 50", "int ltu_classify_window(", "int ltu_push("]
    {
        assert!(header.contains(needle), "model.h: {needle}");
    }
    let source = std::fs::read_to_string(d.join("gp_w.c")).unwrap();
    for needle in ["#include \"gp_w.h\"", "int ltu_classify_window(", "int ltu_push("] {
        assert!(source.contains(needle), "model.c: {needle}");
    }
    let report = json(d, &["codegen", "gp.ltu", "--window", "150", "-o", "gp.rs", "--json"]);
    assert!(report["entry_point"].as_str().unwrap().contains("classify_window"), "{report}");
    fails(d, &["codegen", "gp.ltu", "--hop", "5"], "--hop needs --window");
    fails(d, &["codegen", "gp.ltu", "--window", "150", "--hop", "151"], "the hop must be 1 to");
    fails(d, &["codegen", "gp.ltu", "--window", "5000"], "a window must hold 1 to 4096 samples");
}

/// The long layout (Japanese vowels: 12 channels, recordings of 7 to 29 frames), the
/// recording column stored in the model so `eval` reads the test file alike.
#[test]
fn long_layout_with_variable_lengths() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (train, test) = (data("japanese-vowels_train.csv"), data("japanese-vowels_test.csv"));
    let args = ["train", &train, "--recording", "recording", "--algo", "ptree", "--categorical", "class"];
    let t = json(d, &[&args[..], &["-o", "jv.ltu", "--no-estimate", "--json"]].concat());
    assert_eq!(t["n"], 270);
    let e = json(d, &["eval", "jv.ltu", &test, "--json"]);
    assert_eq!(e["n"], 370);
    assert!(e["accuracy"].as_f64().unwrap() > 0.95, "{e}");
    let i = json(d, &["inspect", "jv.ltu", "--json"]);
    assert_eq!(i["pipeline"]["recording"], "recording");
    assert_eq!(i["pipeline"]["channels"].as_array().unwrap().len(), 12);
}

/// Windows and hops: several windows per recording, folds that keep a recording's windows
/// together, and a feature list of one's own.
#[test]
fn windows_hops_features_and_cv_by_recording() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let train = data("gunpoint_train.csv");
    let common = ["--recordings", "--window", "50", "--hop", "25", "--categorical", "class"];
    let t = json(
        d,
        &[
            &[
                "train",
                &train,
                "--algo",
                "fringe",
                "-o",
                "w.ltu",
                "--json",
                "--window-features",
                "mean@4,slope,crossings",
            ][..],
            &common,
        ]
        .concat(),
    );
    assert_eq!(t["n"], 250, "5 windows of 50 every 25 samples in each of 50 recordings: {t}");
    let i = json(d, &["inspect", "w.ltu", "--json"]);
    assert_eq!(i["pipeline"]["inputs"].as_array().unwrap().len(), 6);
    assert_eq!(i["pipeline"]["inputs"][3], "x_mean_s3of4");
    // Its generated pipeline reads windows of its own length; another would change its inputs.
    fails(d, &["codegen", "w.ltu", "--window", "40"], "trained on windows of 50 samples");
    let c = ltu(d, &["codegen", "w.ltu", "--lang", "c", "--window", "50", "-o", "w.c"]);
    assert!(c.status.success() && !String::from_utf8_lossy(&c.stderr).contains("warning"));
    assert!(std::fs::read_to_string(d.join("w.h")).unwrap().contains("#define LTU_HOP 25"));
    // The budget counts the pipeline's table.
    let b = json(
        d,
        &[
            &["train", &train, "--algo", "fringe", "-o", "b.ltu", "--json", "--strip", "--max-bytes", "300"]
                [..],
            &common,
            &["--window-features", "mean@4,min@4,max@4"],
        ]
        .concat(),
    );
    assert!(b["model_bytes"].as_u64().unwrap() <= 300, "{b}");
    let cv = json(d, &[&["cv", &train, "--algo", "fringe", "--folds", "5", "--json"][..], &common].concat());
    // Every fold tests whole recordings: a multiple of 5 windows.
    let rows = cv["fold_rows"].as_array().unwrap();
    assert_eq!(rows.len(), 5);
    for r in rows {
        assert_eq!(r.as_u64().unwrap() % 5, 0, "{cv}");
    }
}

/// Bad recordings and options are errors naming what is wrong.
#[test]
fn recordings_errors() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let iris = data("iris.csv");
    let train = |extra: &[&str]| -> Vec<String> {
        ["train", "--algo", "fringe", "-o", "m.ltu"].iter().chain(extra).map(ToString::to_string).collect()
    };
    let fails_train = |extra: &[&str], needle: &str| {
        let args = train(extra);
        fails(d, &args.iter().map(String::as_str).collect::<Vec<_>>(), needle);
    };
    fails_train(&[&iris, "--window", "4"], "--window applies to recordings only");
    fails_train(&[&iris, "--recordings"], "column `sepal_length` is not a sample column");
    let mixed = write(d, "mixed.csv", "rec,a,class\n1,0.5,x\n1,0.7,y\n");
    fails_train(&[mixed.to_str().unwrap(), "--recording", "rec"], "changes class");
    let short = write(d, "short.csv", "t0,t1,class\n1,2,x\n3,4,y\n");
    fails_train(&[short.to_str().unwrap(), "--recordings", "--window", "3"], "no window fits");
    fails_train(
        &[short.to_str().unwrap(), "--recordings", "--window-features", "median"],
        "unknown window statistic `median`",
    );
    fails_train(
        &[&data("gunpoint_train.csv"), "--recordings", "--max-bytes", "20"],
        "no fringe model fits the budget (at most 20 bytes)",
    );
    let gp = data("gunpoint_train.csv");
    json(
        d,
        &[
            "train",
            &gp,
            "--recordings",
            "--algo",
            "fringe",
            "-o",
            "gp.ltu",
            "--no-estimate",
            "--json",
            "--categorical",
            "class",
        ],
    );
    let other = write(d, "other.csv", "y_t0,y_t1,class\n1,2,1\n3,4,2\n");
    fails(d, &["eval", "gp.ltu", other.to_str().unwrap()], "no channel `x`");
}

/// `--max-macs` counts the multiply-accumulates of computing the window statistics too: the
/// model kept fits the budget with its extraction.
#[test]
fn budget_counts_extraction() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let train = data("gunpoint_train.csv");
    let args = ["train", &train, "--recordings", "--categorical", "class", "-o", "gp.ltu", "--json"];
    let free = json(d, &[&args[..], &["--algo", "ndl"]].concat());
    let free_macs = free["max_macs"].as_u64().unwrap() + free["extraction"]["macs"].as_u64().unwrap();
    let budget = 300;
    assert!(free_macs > budget, "the unconstrained model must exceed the budget: {free}");
    let t = json(d, &[&args[..], &["--algo", "ndl", "--max-macs", "300"]].concat());
    let macs = t["max_macs"].as_u64().unwrap() + t["extraction"]["macs"].as_u64().unwrap();
    assert!(macs <= budget, "{macs} multiply-accumulates with extraction: {t}");
}

/// `predict` reads recordings without a class column (the last column holds samples); `eval`
/// needs one, and scores a file of a single class.
#[test]
fn unlabelled_and_single_class_recordings() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let train = data("gunpoint_train.csv");
    json(
        d,
        &[
            "train",
            &train,
            "--recordings",
            "--algo",
            "fringe",
            "--categorical",
            "class",
            "-o",
            "gp.ltu",
            "--json",
        ],
    );
    let text = std::fs::read_to_string(data("gunpoint_test.csv")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let drop_class = |l: &&str| l.rsplit_once(',').unwrap().0.to_string();
    let unlabelled: Vec<String> = lines[..4].iter().map(drop_class).collect();
    let unlabelled = write(d, "unlabelled.csv", &(unlabelled.join("\n") + "\n"));
    let p = ltu(d, &["predict", "gp.ltu", unlabelled.to_str().unwrap()]);
    assert!(p.status.success(), "{}", String::from_utf8_lossy(&p.stderr));
    let out = String::from_utf8_lossy(&p.stdout);
    assert_eq!(out.lines().count(), 4, "a header and 3 windows: {out}");
    fails(d, &["eval", "gp.ltu", unlabelled.to_str().unwrap()], "no class column to score against");
    let first_class = lines[1].rsplit_once(',').unwrap().1;
    let one: Vec<&str> = std::iter::once(lines[0])
        .chain(lines[1..].iter().copied().filter(|l| l.ends_with(&format!(",{first_class}"))))
        .collect();
    let one = write(d, "one.csv", &(one.join("\n") + "\n"));
    let e = json(d, &["eval", "gp.ltu", one.to_str().unwrap(), "--json"]);
    assert!(e["n"].as_u64().unwrap() > 10 && e["accuracy"].as_f64().unwrap() > 0.5, "{e}");
}
