//! Device budgets that always answer, `--algo auto` and `--max-instructions`, through the real
//! `ltu` binary (and the library's cost bound).

use std::path::Path;

use crate::common::{data_path, ltu_status as ltu};
use ltu::learn::{self, Algo, Context, Options};
use serde_json::Value;

/// Runs and expects success; returns stdout parsed as JSON.
fn json(dir: &Path, args: &[&str]) -> Value {
    let o = ltu(dir, args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "ltu {args:?} failed: {err}");
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("ltu {args:?}: not JSON ({e})"))
}

const SMALL_DEVICE: [&str; 4] = ["--max-macs", "24", "--max-bytes", "600"];

/// A budget below every learner's default model on glass (6 classes, 9 numeric columns; the
/// defaults take 1,015 to 1,772 bytes and 23 to 300 MACs, FRINGE none).
const GLASS_DEVICE: [&str; 4] = ["--max-macs", "24", "--max-bytes", "400"];
const GLASS_MACS: u64 = 24;
const GLASS_BYTES: u64 = 400;

/// [`GLASS_DEVICE`] on glass: each learner's ladder ends in trees of tests, shorter lists or fewer
/// literals, down to one leaf, so each answers with a model within it.
fn answers_a_small_device_budget(algo: &str) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let glass = data_path("glass.csv");
    let mut args =
        vec!["train", glass.to_str().unwrap(), "--algo", algo, "--no-estimate", "-o", "m.ltu", "--json"];
    args.extend(GLASS_DEVICE);
    let t = json(d, &args);
    assert!(t["device_bytes"].as_u64().unwrap() <= GLASS_BYTES, "{algo}: {t}");
    assert!(t["max_macs"].as_u64().unwrap() <= GLASS_MACS, "{algo}: {t}");
    assert_eq!(t["device_cost"]["bytes"], t["device_bytes"], "{algo}: {t}");
    let choice = &t["budget"];
    let kept = &choice["tried"][choice["chosen"].as_u64().unwrap() as usize];
    assert_eq!(kept["algo"], t["algo"], "{algo}: {t}");
    assert!(choice["chosen"].as_u64().unwrap() > 0, "{algo}: the default setting was within the budget: {t}");
    // A setting is validated only if its model was within the budget on every fold.
    for c in choice["tried"].as_array().unwrap() {
        if c["validation_accuracy"].is_f64() {
            assert!(c["cost"]["bytes"].as_u64().unwrap() <= GLASS_BYTES, "{algo}: {c}");
            assert!(c["cost"]["macs"].as_u64().unwrap() <= GLASS_MACS, "{algo}: {c}");
        }
    }
    // Glass's majority class is 35.5 % of its rows: the chosen model learned something.
    assert!(t["train_accuracy"].as_f64().unwrap() > 0.4, "{algo}: {t}");
}

#[test]
fn ptree_answers_a_small_device_budget() {
    answers_a_small_device_budget("ptree");
}

#[test]
fn ndl_answers_a_small_device_budget() {
    answers_a_small_device_budget("ndl");
}

#[test]
fn sparse_answers_a_small_device_budget() {
    answers_a_small_device_budget("sparse");
}

#[test]
fn oblique_answers_a_small_device_budget() {
    answers_a_small_device_budget("oblique");
}

#[test]
fn fringe_answers_a_small_device_budget() {
    answers_a_small_device_budget("fringe");
}

/// Under a small device budget every fold reports the setting it chose, and its model within
/// the budget.
#[test]
fn cv_with_a_small_device_budget_reports_every_fold() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let glass = data_path("glass.csv");
    let mut args = vec!["cv", glass.to_str().unwrap(), "--algo", "ptree", "--folds", "3", "--json"];
    args.extend(GLASS_DEVICE);
    let cv = json(d, &args);
    let choices = cv["fold_choices"].as_array().unwrap();
    assert_eq!(choices.len(), 3, "{cv}");
    for c in choices {
        assert_eq!(c["algo"], "ptree", "{cv}");
        assert!(c["cost"]["macs"].as_u64().unwrap() <= GLASS_MACS, "{cv}");
    }
    // The sizes reported are what the budget counts: the bytes a device stores (a model file
    // with its host block of names and scales takes more, here about 200 bytes more).
    let sizes = |cv: &Value, max: u64| {
        cv["fold_model_bytes"].as_array().unwrap().iter().all(|b| b.as_u64().unwrap() <= max)
    };
    assert!(sizes(&cv, GLASS_BYTES), "{cv}");
    let wine = data_path("wine.csv");
    let args =
        ["cv", wine.to_str().unwrap(), "--algo", "fringe", "--folds", "3", "--max-bytes", "200", "--json"];
    let cv = json(d, &args);
    assert!(sizes(&cv, 200), "{cv}");
}

/// `--algo auto` compares every learner's settings within the budgets and keeps the best on
/// validation; it says which, and what the others scored.
#[test]
fn auto_picks_the_best_model_within_the_budgets_and_names_the_runners_up() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let wine = data_path("wine.csv");
    let wine = wine.to_str().unwrap();
    let mut args = vec!["train", wine, "--algo", "auto", "--no-estimate", "-o", "b.ltu", "--json"];
    args.extend(SMALL_DEVICE);
    let t = json(d, &args);
    assert_eq!(t["requested"], "auto", "{t}");
    assert!(t["device_bytes"].as_u64().unwrap() <= 600 && t["max_macs"].as_u64().unwrap() <= 24, "{t}");
    let tried = t["budget"]["tried"].as_array().unwrap();
    // Every learner but hsi (two classes only) offered a model within the budgets.
    for a in ["ptree", "ndl", "sparse", "oblique", "fringe"] {
        assert!(
            tried.iter().any(|c| c["algo"] == a && c["validation_accuracy"].is_f64()),
            "{a} has no candidate within the budgets: {t}"
        );
    }
    let best = tried.iter().filter_map(|c| c["validation_accuracy"].as_f64()).fold(0.0, f64::max);
    let kept = &tried[t["budget"]["chosen"].as_u64().unwrap() as usize];
    assert_eq!(kept["validation_accuracy"].as_f64().unwrap(), best, "{t}");
    assert_eq!(kept["algo"], t["algo"], "{t}");
    // 178 rows: 4-fold validation, every row validated once, each fold fitted on the rest.
    let b = &t["budget"];
    assert_eq!((b["folds"].as_u64(), b["validation_rows"].as_u64()), (Some(4), Some(178)), "{t}");
    assert!((133..=134).contains(&b["fit_rows"].as_u64().unwrap()), "{t}");
    assert_eq!(std::fs::read(d.join("b.ltu")).unwrap().len(), t["model_bytes"].as_u64().unwrap() as usize);
    // The text says the same, and the same seed gives the same model.
    let mut text_args = vec!["train", wine, "--algo", "auto", "--no-estimate", "-o", "c.ltu"];
    text_args.extend(SMALL_DEVICE);
    let o = ltu(d, &text_args);
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    let algo = t["algo"].as_str().unwrap();
    assert!(text.contains(&format!("chosen             {algo} setting")), "{text}");
    assert!(text.contains("rows in each of 4 folds, validated on 178"), "{text}");
    assert!(text.matches("runner-up").count() >= 4, "{text}");
    assert_eq!(std::fs::read(d.join("c.ltu")).unwrap(), std::fs::read(d.join("b.ltu")).unwrap());
}

/// `--max-instructions` bounds the worst-case instructions of a prediction by the cost model of
/// generated code; the model's cost on every training row is at most that bound.
#[test]
fn max_instructions_is_honoured() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // `auto` compares every learner's ladder: on wine, whose rows make it quick.
    for (file, algos) in [("glass.csv", &["ptree", "ndl"][..]), ("wine.csv", &["auto"][..])] {
        let data = data_path(file);
        let data = data.to_str().unwrap();
        let free = json(d, &["train", data, "--algo", "ptree", "--no-estimate", "-o", "f.ltu", "--json"]);
        let worst = free["device_cost"]["instructions"].as_u64().unwrap();
        assert!(free["cost"]["max_essential_work"].as_u64().unwrap() <= worst, "{free}");
        let cap = worst / 3;
        let n = cap.to_string();
        for &algo in algos {
            let args = [
                "train",
                data,
                "--algo",
                algo,
                "--max-instructions",
                &n,
                "--no-estimate",
                "-o",
                "i.ltu",
                "--json",
            ];
            let t = json(d, &args);
            assert!(t["device_cost"]["instructions"].as_u64().unwrap() <= cap, "{file} {algo}: {t}");
            assert!(t["cost"]["max_essential_work"].as_u64().unwrap() <= cap, "{file} {algo}: {t}");
        }
    }
}

/// A budget not even a model of one class meets fails, and says what the smallest model takes.
#[test]
fn a_budget_below_the_majority_model_names_the_smallest() {
    let dir = tempfile::tempdir().unwrap();
    let iris = data_path("iris.csv");
    let o = ltu(
        dir.path(),
        &["train", iris.to_str().unwrap(), "--algo", "auto", "--max-bytes", "8", "-o", "x.ltu"],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("no model of any learner fits the budget (at most 8 bytes)"), "{err}");
    assert!(err.contains("the smallest takes"), "{err}");
}

/// `ModelSpec::max_essential_work` bounds the essential work of every input, and is exact for a
/// tree of tests (every path costs its nodes).
#[test]
fn max_essential_work_bounds_every_row() {
    for (file, algos) in [("iris.csv", Algo::ALL), ("car.csv", Algo::ALL)] {
        let data = ltu::data::load(&data_path(file), &ltu::data::LoadOptions::default()).unwrap();
        for &algo in algos {
            let ctx = Context::new(&data, 0, None);
            let Ok(t) = learn::train(algo, &ctx, &Options::default(), false) else { continue };
            let rows = t.rows(&data);
            let worst = t.spec.max_essential_work();
            let seen = rows.iter().map(|x| t.spec.essential_work(x)).max().unwrap();
            assert!(seen <= worst, "{file} {algo}: a row costs {seen}, the bound is {worst}");
            if t.spec.units.is_empty() {
                assert_eq!(worst, 10 + 6 * t.spec.stats().max_depth as u64, "{file} {algo}");
            }
        }
    }
}
