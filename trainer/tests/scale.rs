//! Numeric columns at any scale, through the `ltu` binary: a column's unit does not change what a
//! learner can learn, and columns at 10^-7 or riding on 10^9 are told apart at the step their
//! values use.

use std::path::Path;

use ltu::learn::Algo;
use serde_json::Value;

use crate::common::ltu_status as ltu;

/// Runs and expects success; returns stdout (parsed as JSON when `--json` is among `args`).
fn run(dir: &Path, args: &[&str]) -> String {
    let o = ltu(dir, args);
    assert!(o.status.success(), "ltu {args:?} failed: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn json(dir: &Path, args: &[&str]) -> Value {
    let out = run(dir, args);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("ltu {args:?}: not JSON ({e}): {out}"))
}

/// Trains `algo` on `train` and returns (accuracy on `test`, the predicted classes of `test`).
fn train_and_eval(dir: &Path, algo: Algo, train: &str, test: &str) -> (f64, String) {
    let model = format!("{}-{train}.ltu", algo.name());
    run(dir, &["-q", "train", train, "--algo", algo.name(), "-o", &model]);
    let e = json(dir, &["-q", "--json", "eval", &model, test]);
    let predicted = run(dir, &["-q", "predict", &model, test]);
    (e["accuracy"].as_f64().expect("accuracy"), predicted)
}

/// `wdbc.csv` (two classes, 30 numeric columns) with its first column multiplied by `factor`
/// (written as a short decimal, as a user's file in those units would be).
fn rescaled_wdbc(factor: f64) -> String {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/wdbc.csv")).unwrap();
    let mut out = String::new();
    for (i, line) in text.lines().enumerate() {
        let mut cells: Vec<String> = line.split(',').map(str::to_string).collect();
        if i > 0 && !cells[0].is_empty() {
            let v: f64 = cells[0].parse().unwrap();
            cells[0] = format!("{}", (v * factor * 1e6).round() / 1e6);
        }
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    out
}

#[test]
fn a_column_in_millivolts_gives_the_same_accuracy_as_in_volts() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("v.csv"), rescaled_wdbc(1.0)).unwrap();
    std::fs::write(d.join("mv.csv"), rescaled_wdbc(1000.0)).unwrap();
    std::fs::write(d.join("kv.csv"), rescaled_wdbc(0.001)).unwrap();
    for &algo in Algo::ALL {
        let (v, pv) = train_and_eval(d, algo, "v.csv", "v.csv");
        for other in ["mv.csv", "kv.csv"] {
            let (o, po) = train_and_eval(d, algo, other, other);
            assert_eq!(v, o, "{}: accuracy in volts {v}, in {other} {o}", algo.name());
            assert_eq!(pv, po, "{}: predictions in volts and in {other} differ", algo.name());
        }
    }
}

/// Rows whose class is `column > threshold`, where the column is `base + k * step` for the
/// row's `k`: a float learner separates them exactly with one threshold.
fn threshold_set(base: f64, step: f64, decimals: usize) -> String {
    let mut out = String::from("noise,x,class\n");
    for k in 0..200u32 {
        // A second column of unrelated values in ordinary units.
        let noise = f64::from((k * 37) % 101) / 10.0;
        let x = base + f64::from(k) * step;
        let class = if k >= 100 { "hi" } else { "lo" };
        out.push_str(&format!("{noise},{x:.decimals$},{class}\n"));
    }
    out
}

#[test]
fn columns_at_1e_minus_7_and_on_a_1e9_offset_are_separated_by_every_learner() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // 1.0000000e-7 to 1.0199000e-7 in steps of 1e-12: a 9-decimal step read them all as one value.
    std::fs::write(d.join("tiny.csv"), threshold_set(1e-7, 1e-12, 14)).unwrap();
    // 1e9 + 0.000 to 1e9 + 0.199 in steps of 0.001: 32 bits measured from 0 hold 1e9 only in steps
    // of 10 or more.
    std::fs::write(d.join("offset.csv"), threshold_set(1e9, 1e-3, 3)).unwrap();
    for set in ["tiny.csv", "offset.csv"] {
        let o = ltu(d, &["train", set, "--algo", "fringe", "-o", "w.ltu"]);
        let warnings = String::from_utf8_lossy(&o.stderr).into_owned();
        assert!(o.status.success(), "{set}: {warnings}");
        assert!(!warnings.contains("warning: column"), "{set}: {warnings}");
        for &algo in Algo::ALL {
            let (acc, _) = train_and_eval(d, algo, set, set);
            assert!(acc >= 0.99, "{}: {set}: training accuracy {acc}", algo.name());
        }
    }
}
