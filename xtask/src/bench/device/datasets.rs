//! The datasets `cargo xtask bench-device` measures, loaded with their folds, and handed to
//! `bench/device.py` as JSON.

use std::fs;
use std::path::Path;

use anyhow::{bail, Context as _, Result};
use ltu::data::{self, Dataset, LoadOptions};
use serde_json::{json, Value};

use crate::bench::python;
use crate::dataset;

/// Folds of the cross-validation (ltu's and the peers', the same rows).
pub const FOLDS: usize = 10;
/// Seed of the folds and of every ltu learner.
pub const SEED: u64 = 0;
/// Rows measured on the device per dataset.
pub const ROWS: usize = 50;

/// Where a dataset's rows come from.
#[derive(Clone, Copy)]
pub enum Source {
    /// A CSV file under `data/`.
    Csv(&'static str),
    /// `data/basicmotions.csv` turned into the firmware's integer window features.
    BasicMotions,
}

/// One dataset of the benchmark.
pub struct Spec {
    name: &'static str,
    source: Source,
}

pub const DATASETS: &[Spec] = &[
    Spec { name: "iris", source: Source::Csv("iris.csv") },
    Spec { name: "wdbc", source: Source::Csv("wdbc.csv") },
    Spec { name: "vehicle", source: Source::Csv("vehicle.csv") },
    Spec { name: "breast-cancer-wisconsin", source: Source::Csv("breast-cancer-wisconsin.csv") },
    Spec { name: "basicmotions-window", source: Source::BasicMotions },
    Spec { name: "kr-vs-kp", source: Source::Csv("kr-vs-kp.csv") },
    Spec { name: "car", source: Source::Csv("car.csv") },
];
pub const QUICK: &[&str] = &["iris"];

/// A dataset as loaded, with its folds.
pub struct Prepared {
    pub name: &'static str,
    pub data: Dataset,
    /// Test rows of each fold.
    pub folds: Vec<Vec<usize>>,
}

/// The datasets named by `--datasets` (all when none), only the quick one with `--quick` alone.
pub fn select(quick: bool, names: &[String]) -> Result<Vec<&'static Spec>> {
    for name in names {
        if !DATASETS.iter().any(|s| s.name == name) {
            let known: Vec<&str> = DATASETS.iter().map(|s| s.name).collect();
            bail!("unknown dataset `{name}` (known: {})", known.join(", "));
        }
    }
    Ok(DATASETS
        .iter()
        .filter(|s| names.is_empty() || names.iter().any(|d| d == s.name))
        .filter(|s| !quick || !names.is_empty() || QUICK.contains(&s.name))
        .collect())
}

/// Loads a dataset (`out`: the scratch directory) and makes its folds.
pub fn prepare(root: &Path, out: &Path, spec: &Spec) -> Result<Prepared> {
    let path = match spec.source {
        Source::Csv(file) => root.join("data").join(file),
        Source::BasicMotions => {
            let recordings = dataset::load(&root.join("data/basicmotions.csv"))?;
            let csv = dataset::features_csv(&recordings)?;
            let path = out.join("basicmotions-window.csv");
            fs::write(&path, csv).with_context(|| format!("writing {}", path.display()))?;
            path
        }
    };
    let data = data::load(&path, &LoadOptions::default())?;
    let folds = ltu::data::split::stratified_kfold(&data.y, data.n_classes(), FOLDS, SEED)
        .with_context(|| format!("{}: cannot make {FOLDS} folds", path.display()))?;
    Ok(Prepared { name: spec.name, data, folds })
}

/// The datasets and their folds as `bench/device.py` reads them.
pub fn data_json(prepared: &[Prepared]) -> Value {
    let datasets: Vec<Value> = prepared
        .iter()
        .map(|p| {
            let (attributes, x) = python::data_json(&p.data);
            json!({
                "name": p.name,
                "attributes": attributes,
                "x": x,
                "y": p.data.y,
                "folds": p.folds,
                "rows": ROWS,
            })
        })
        .collect();
    json!({ "datasets": datasets })
}
