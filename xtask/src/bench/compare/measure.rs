//! Running ltu: every (dataset, algorithm, fold) trained and tested through the trainer library,
//! folds in parallel under time caps, and the folds and outcomes as JSON.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::panic::{self, AssertUnwindSafe};
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result};
use ltu::data::{self, Dataset, LoadOptions};
use ltu::learn::evaluate::{self, Setup};
use ltu::learn::metrics::mean_std;
use ltu::learn::{Algo, Options};
use ltu::model::InputKind;
use serde_json::{json, Value};

use crate::bench::compare::datasets::{Files, Spec};
use crate::bench::python::data_json;

/// Folds of the cross-validation.
pub const FOLDS: usize = 10;
/// Seed of the fold assignment and of every ltu algorithm.
pub const SEED: u64 = 0;
/// Summed fold time after which an algorithm's remaining folds on a dataset are skipped.
pub const PAIR_BUDGET: Duration = Duration::from_secs(300);
/// Wall-clock time after which every ltu fold not yet started is skipped.
pub const LTU_DEADLINE: Duration = Duration::from_secs(12 * 60);

/// One fold: the rows trained on and the rows tested.
pub struct Fold {
    pub train: Vec<usize>,
    pub test: Vec<usize>,
}

/// A dataset as loaded, with its folds.
pub struct Prepared {
    pub name: &'static str,
    pub data: Dataset,
    pub folds: Vec<Fold>,
    /// How the folds were made, for the report.
    pub protocol: String,
    pub notes: Vec<String>,
}

/// What happened to one ltu fold.
#[derive(Clone)]
pub enum Outcome {
    /// Trained and tested.
    Done { accuracy: f64, bytes: usize, seconds: f64 },
    /// Training or testing failed or panicked.
    Failed(String),
    /// Not run: over a time cap.
    Skipped(&'static str),
}

/// Loads a dataset and makes its folds.
pub fn prepare(root: &Path, spec: &Spec) -> Result<Prepared> {
    let opts = LoadOptions {
        categorical: spec.categorical.iter().map(|c| (*c).to_string()).collect(),
        ..LoadOptions::default()
    };
    let mut notes = Vec::new();
    if !spec.categorical.is_empty() {
        notes.push(format!("{} read as categorical codes.", spec.categorical.join(", ")));
    }
    match spec.files {
        Files::Cv(file) => {
            let path = root.join("data").join(file);
            let data = data::load(&path, &opts)?;
            let folds = ltu::data::split::stratified_kfold(&data.y, data.n_classes(), FOLDS, SEED)
                .with_context(|| format!("{}: cannot make {FOLDS} folds", path.display()))?;
            let n = data.n_rows();
            let folds = folds
                .into_iter()
                .map(|test| Fold { train: ltu::data::split::complement(&test, n), test })
                .collect();
            Ok(Prepared {
                name: spec.name,
                data,
                folds,
                protocol: format!(
                    "{FOLDS}-fold stratified CV (`ltu::data::split::stratified_kfold`, seed {SEED})"
                ),
                notes,
            })
        }
        Files::Split { train, test } => {
            let train_path = root.join("data").join(train);
            let test_path = root.join("data").join(test);
            let tr = data::load(&train_path, &opts)?;
            let (te, align) = data::load_with_schema(&test_path, &LoadOptions::default(), &tr.schema)?;
            if align.unseen_value_cells() > 0 || align.unseen_class_rows() > 0 {
                notes.push(format!(
                    "The test file has {} cells with values and {} rows with classes the training file lacks \
                     (read as unknown).",
                    align.unseen_value_cells(),
                    align.unseen_class_rows()
                ));
            }
            let (n_train, n_test) = (tr.n_rows(), te.n_rows());
            let mut x = tr.x;
            x.extend_from_slice(&te.x);
            let mut y = tr.y;
            y.extend_from_slice(&te.y);
            let data = Dataset { schema: te.schema, x, y, source: format!("{train} + {test}") };
            let folds =
                vec![Fold { train: (0..n_train).collect(), test: (n_train..n_train + n_test).collect() }];
            Ok(Prepared {
                name: spec.name,
                data,
                folds,
                protocol: format!(
                    "the fixed split: train on `{train}` ({n_train} rows), test on `{test}` ({n_test} rows, all \
                     432 possible examples, so it includes the training rows)"
                ),
                notes,
            })
        }
        Files::Recordings { .. } => {
            anyhow::bail!("{} is a recordings set: `series::prepare` reads it", spec.name)
        }
    }
}

/// ltu's substitute for a missing number in each numeric attribute, from the training rows
/// (`null` for categorical attributes: ltu reads a missing category as "unknown").
fn numeric_means(data: &Dataset, train: &[usize]) -> Vec<Value> {
    ltu::data::encode::input_specs(&data.subset(train))
        .iter()
        .map(|s| match s.kind {
            InputKind::Numeric { scale_exp, offset } => {
                json!(ltu::data::encode::from_raw(s.missing, scale_exp, offset))
            }
            InputKind::Categorical { .. } => Value::Null,
        })
        .collect()
}

/// The folds and the data as `bench/peers.py` reads them.
pub fn folds_json(prepared: &[Prepared]) -> Value {
    let datasets: Vec<Value> = prepared
        .iter()
        .map(|p| {
            let (attributes, x) = data_json(&p.data);
            let folds: Vec<Value> = p
                .folds
                .iter()
                .map(|f| json!({"train": f.train, "test": f.test, "numeric_means": numeric_means(&p.data, &f.train)}))
                .collect();
            json!({
                "name": p.name,
                "source": p.data.source,
                "classes": p.data.schema.classes,
                "attributes": attributes,
                "x": x,
                "y": p.data.y,
                "folds": folds,
            })
        })
        .collect();
    json!({"seed": SEED, "datasets": datasets})
}

/// Every (dataset, algorithm, fold) on `jobs` threads. Returns outcomes indexed
/// `[dataset][algorithm][fold]`.
pub fn run_ltu(prepared: &[Prepared], algos: &[Algo], jobs: usize) -> Vec<Vec<Vec<Outcome>>> {
    let items: Vec<(usize, usize, usize)> = prepared
        .iter()
        .enumerate()
        .flat_map(|(d, p)| (0..algos.len()).flat_map(move |a| (0..p.folds.len()).map(move |f| (d, a, f))))
        .collect();
    let outcomes: Mutex<Vec<Vec<Vec<Option<Outcome>>>>> =
        Mutex::new(prepared.iter().map(|p| vec![vec![None; p.folds.len()]; algos.len()]).collect());
    // Summed fold time of each (dataset, algorithm).
    let spent: Mutex<BTreeMap<(usize, usize), Duration>> = Mutex::new(BTreeMap::new());
    let start = Instant::now();
    evaluate::in_parallel(items.len(), jobs, |i| {
        let (d, a, f) = items[i];
        let over_budget = spent.lock().unwrap().get(&(d, a)).is_some_and(|t| *t > PAIR_BUDGET);
        let outcome = if start.elapsed() > LTU_DEADLINE {
            Outcome::Skipped("the overall ltu time cap")
        } else if over_budget {
            Outcome::Skipped("this algorithm's time cap on this dataset")
        } else {
            let t = Instant::now();
            let o = one_fold(&prepared[d], algos[a], f);
            *spent.lock().unwrap().entry((d, a)).or_default() += t.elapsed();
            o
        };
        let mut all = outcomes.lock().unwrap();
        all[d][a][f] = Some(outcome);
        if all[d][a].iter().all(Option::is_some) {
            let done: Vec<Outcome> = all[d][a].iter().flatten().cloned().collect();
            println!("  {:<8} {:<24} {}", algos[a].to_string(), prepared[d].name, summary(&done));
        }
    });
    outcomes
        .into_inner()
        .unwrap()
        .into_iter()
        .map(|per_algo| per_algo.into_iter().map(|folds| folds.into_iter().flatten().collect()).collect())
        .collect()
}

fn one_fold(p: &Prepared, algo: Algo, f: usize) -> Outcome {
    let options = Options::default();
    let setup = Setup { seed: SEED, ..Setup::new(algo, &options) };
    let fold = &p.folds[f];
    let start = Instant::now();
    let result =
        panic::catch_unwind(AssertUnwindSafe(|| evaluate::holdout(&p.data, &fold.train, &fold.test, &setup)));
    let seconds = start.elapsed().as_secs_f64();
    match result {
        Ok(Ok(h)) => Outcome::Done { accuracy: h.accuracy, bytes: h.trained.bytes.len(), seconds },
        Ok(Err(e)) => Outcome::Failed(format!("{e:#}")),
        Err(payload) => Outcome::Failed(format!("panicked: {}", panic_message(payload.as_ref()))),
    }
}

/// The message of a caught panic (its `&str` or `String` payload).
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".into())
}

/// One line for the console.
fn summary(folds: &[Outcome]) -> String {
    let accs: Vec<f64> = folds
        .iter()
        .filter_map(|o| match o {
            Outcome::Done { accuracy, .. } => Some(*accuracy),
            _ => None,
        })
        .collect();
    if accs.is_empty() {
        return problem(folds).unwrap_or_default();
    }
    let (m, s) = mean_std(&accs);
    let mut line = format!("{:.2}% ± {:.2} ({} folds)", 100.0 * m, 100.0 * s, accs.len());
    if let Some(p) = problem(folds) {
        let _ = write!(line, "; {p}");
    }
    line
}

/// What went wrong on the folds that did not finish, if any.
pub fn problem(folds: &[Outcome]) -> Option<String> {
    let missing = folds.iter().filter(|o| !matches!(o, Outcome::Done { .. })).count();
    let first = folds.iter().find(|o| !matches!(o, Outcome::Done { .. }))?;
    let n = folds.len();
    Some(match first {
        Outcome::Failed(e) => format!("failed on {missing} of {n} folds: {}", e.replace('\n', " ")),
        Outcome::Skipped(why) => format!("{missing} of {n} folds skipped by {why}"),
        Outcome::Done { .. } => unreachable!("found a fold that did not finish"),
    })
}

/// ltu's outcomes per dataset, algorithm and fold, as written to `target/compare/ltu.json`.
pub fn ltu_json(prepared: &[Prepared], algos: &[Algo], outcomes: &[Vec<Vec<Outcome>>]) -> Value {
    let rows: Vec<Value> = prepared
        .iter()
        .zip(outcomes)
        .flat_map(|(p, per_algo)| {
            algos.iter().zip(per_algo).map(|(algo, folds)| {
                let folds: Vec<Value> = folds
                    .iter()
                    .map(|o| match o {
                        Outcome::Done { accuracy, bytes, seconds } => {
                            json!({"accuracy": accuracy, "model_bytes": bytes, "seconds": seconds})
                        }
                        Outcome::Failed(e) => json!({"error": e}),
                        Outcome::Skipped(why) => json!({"skipped": why}),
                    })
                    .collect();
                json!({"dataset": p.name, "algo": algo, "folds": folds})
            })
        })
        .collect();
    json!({"seed": SEED, "results": rows})
}
