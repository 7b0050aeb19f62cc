//! `ltu cv`: stratified k-fold cross-validation through the runtime.

use std::fmt;
use std::path::Path;

use anyhow::{Context as _, Result};
use serde::Serialize;

use ltu::data::split;
use ltu::data::Dataset;
use ltu::learn::metrics::{class_figures, mean_std, ClassReport};
use ltu::learn::{AlgoChoice, Candidate};
use ltu::model::RowCost;

use super::args::*;
use super::model::write_figures;
use super::train::{training_data, trivial_model_warning};

/// Result of `ltu cv`.
#[derive(Debug, Serialize)]
pub struct CvReport {
    /// What `--algo` asked for: a learner, or `auto`.
    pub algo: AlgoChoice,
    /// Data file.
    pub data: String,
    /// Number of folds.
    pub folds: usize,
    /// Seed of the fold assignment and of training.
    pub seed: u64,
    /// Mean held-out accuracy over folds.
    pub accuracy_mean: f64,
    /// Sample standard deviation of the fold accuracies.
    pub accuracy_std: f64,
    /// Mean bytes a device stores of each fold's model (without the host block).
    pub model_bytes_mean: f64,
    /// Held-out accuracy of each fold.
    pub fold_accuracies: Vec<f64>,
    /// Bytes a device stores of each fold's model (without the host block: what `--max-bytes` counts).
    pub fold_model_bytes: Vec<usize>,
    /// Test rows of each fold.
    pub fold_rows: Vec<usize>,
    /// With a budget or `--algo auto`: the candidate setting each fold's model was trained with
    /// (its learner, its place among the learner's settings, its validation accuracy and cost).
    pub fold_choices: Vec<Option<Candidate>>,
    /// What each fold's model costs to predict its held-out rows (multiply-accumulates and
    /// essential work, [`ModelSpec::row_cost`]).
    pub fold_costs: Vec<RowCost>,
    /// The same over every held-out row: means weighted by the folds' rows, maxima over folds.
    pub cost: RowCost,
    /// Class names, the order of the confusion matrix.
    pub classes: Vec<String>,
    /// `confusion[true][predicted]` over the held-out predictions of every fold.
    pub confusion: Vec<Vec<usize>>,
    /// Per-class precision, recall and F1 of the pooled held-out predictions.
    pub per_class: Vec<ClassReport>,
    /// Mean precision over the classes.
    pub macro_precision: f64,
    /// Mean recall over the classes.
    pub macro_recall: f64,
    /// Mean F1 over the classes.
    pub macro_f1: f64,
    /// Decisions the user may not expect (also printed on standard error).
    pub warnings: Vec<String>,
}

impl fmt::Display for CvReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}-fold cross-validation of {} on {} (seed {})",
            self.folds, self.algo, self.data, self.seed
        )?;
        for (i, ((acc, bytes), rows)) in
            self.fold_accuracies.iter().zip(&self.fold_model_bytes).zip(&self.fold_rows).enumerate()
        {
            let cost = self.fold_costs.get(i).copied().unwrap_or_default();
            let chosen = match self.fold_choices.get(i) {
                Some(Some(c)) => format!(", {} setting {}", c.algo, c.setting),
                _ => String::new(),
            };
            writeln!(
                f,
                "fold {:>2}     accuracy {:>6.2}% ({rows} rows), {bytes} device bytes, {:.1} MACs and {:.0} instructions of essential work per row{chosen}",
                i + 1,
                100.0 * acc,
                cost.mean_macs,
                cost.mean_essential_work
            )?;
        }
        writeln!(f, "accuracy    {:.2}% ± {:.2}", 100.0 * self.accuracy_mean, 100.0 * self.accuracy_std)?;
        writeln!(
            f,
            "device bytes {:.1} (mean; the model without its host block, as --max-bytes counts)",
            self.model_bytes_mean
        )?;
        writeln!(
            f,
            "device cost {:.1} multiply-accumulates per held-out row (at most {}); essential work {:.0} Cortex-M3 instructions (at most {})",
            self.cost.mean_macs, self.cost.max_macs, self.cost.mean_essential_work, self.cost.max_essential_work
        )?;
        let macros = [self.macro_precision, self.macro_recall, self.macro_f1];
        write_figures(f, &self.classes, &self.confusion, &self.per_class, macros)
    }
}

/// The cost over every fold's rows: means weighted by each fold's rows, maxima over the folds.
fn pooled_cost(costs: &[RowCost], rows: &[Vec<usize>]) -> RowCost {
    let n = rows.iter().map(Vec::len).sum::<usize>().max(1) as f64;
    let weighted =
        |f: fn(&RowCost) -> f64| costs.iter().zip(rows).map(|(c, r)| f(c) * r.len() as f64).sum::<f64>() / n;
    RowCost {
        mean_macs: weighted(|c| c.mean_macs),
        max_macs: costs.iter().map(|c| c.max_macs).max().unwrap_or(0),
        mean_essential_work: weighted(|c| c.mean_essential_work),
        max_essential_work: costs.iter().map(|c| c.max_essential_work).max().unwrap_or(0),
    }
}

/// What one train/test split gives.
pub(crate) struct Heldout {
    accuracy: f64,
    bytes: usize,
    /// Predicted class of each test row, in `test_rows` order.
    predictions: Vec<usize>,
    /// Set when the model predicts one class for every training row.
    trivial: Option<String>,
    /// What predicting the test rows costs.
    cost: RowCost,
    /// The candidate setting chosen under a budget or by `--algo auto`.
    choice: Option<Candidate>,
}

/// What `ltu cv` reports of one fold, from the fold's held-out evaluation.
fn fold_figures(
    data: &Dataset,
    train_rows: &[usize],
    test_rows: &[usize],
    h: ltu::learn::evaluate::Heldout,
) -> Heldout {
    let train_raw = h.trained.rows(&data.subset(train_rows));
    let test_raw = h.trained.rows(&data.subset(test_rows));
    Heldout {
        cost: h.trained.spec.row_cost(&test_raw),
        accuracy: h.accuracy,
        bytes: h.trained.device_bytes,
        trivial: trivial_model_warning(&h.trained.spec, &train_raw, &data.schema.classes, "its model"),
        choice: h.trained.budget.as_ref().and_then(|b| b.tried.get(b.chosen).cloned()),
        predictions: h.predictions,
    }
}

/// `ltu cv`: stratified k-fold cross-validation, folds in parallel on up to `jobs` threads;
/// reports `(folds done, folds)` to `progress` as each fold finishes.
///
/// # Errors
/// Bad data or options, or a training failure in any fold (the first is reported).
pub fn cv(
    data_path: &Path,
    folds: usize,
    jobs: usize,
    learn: &LearnArgs,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<CvReport> {
    learn.check_applicable()?;
    if learn.no_names {
        anyhow::bail!("--no-names applies to train only: cv writes no model, and its sizes are the bytes a device stores, without names");
    }
    let (data, windows, mut warnings) = training_data(data_path, learn)?;
    // Windows of one recording stay in one fold.
    let fold_rows = match &windows {
        Some(w) => w.folds(folds, learn.seed),
        None => {
            split::stratified_kfold(&data.y, data.schema.classes.len(), folds, learn.seed).map_err(Into::into)
        }
    }
    .with_context(|| format!("{}: cannot make {folds} folds", data.source))?;
    for (class, &count) in data.schema.classes.iter().zip(&data.class_counts()) {
        if count < folds {
            warnings.push(format!(
                "class `{class}` has {count} rows, fewer than the {folds} folds: {} folds test none of it, \
                 and its figures rest on {count} rows",
                folds - count
            ));
        }
    }
    let options = learn.options(&data.schema)?;
    let setup = ltu::learn::evaluate::Setup {
        algo: learn.algo,
        options: &options,
        seed: learn.seed,
        weight_kind: learn.weights.map(Into::into),
        pipeline: windows.as_ref().map(|w| &w.pipeline),
        window_len: windows.as_ref().map_or(0, super::recordings::Windows::longest),
    };
    let progress = |done: usize, total: usize| progress(done as u64, total as u64);
    let evaluated = ltu::learn::evaluate::cross_validate(&data, &fold_rows, &setup, jobs, &progress);
    let n = data.n_rows();
    let results: Vec<Result<Heldout>> = evaluated
        .into_iter()
        .zip(&fold_rows)
        .enumerate()
        .map(|(f, (h, test_rows))| {
            let train_rows = split::complement(test_rows, n);
            h.map(|h| fold_figures(&data, &train_rows, test_rows, h)).with_context(|| {
                format!("cross-validation fold {} of {folds} ({} training rows)", f + 1, train_rows.len())
            })
        })
        .collect();
    let results = results.into_iter().collect::<Result<Vec<_>>>()?;
    let k = data.n_classes();
    let mut confusion = vec![vec![0usize; k]; k];
    for (h, rows) in results.iter().zip(&fold_rows) {
        for (&p, &r) in h.predictions.iter().zip(rows) {
            if let Some(cell) = confusion.get_mut(data.y[r]).and_then(|row| row.get_mut(p)) {
                *cell += 1;
            }
        }
    }
    let trivial: Vec<String> = results
        .iter()
        .enumerate()
        .filter(|(_, h)| h.trivial.is_some())
        .map(|(f, _)| (f + 1).to_string())
        .collect();
    if let Some(first) = results.iter().find_map(|h| h.trivial.as_ref()) {
        warnings.push(format!("fold(s) {}: {first}", trivial.join(", ")));
    }
    let (per_class, [macro_precision, macro_recall, macro_f1]) =
        class_figures(&confusion, &data.schema.classes);
    let accs: Vec<f64> = results.iter().map(|r| r.accuracy).collect();
    let bytes: Vec<usize> = results.iter().map(|r| r.bytes).collect();
    let (accuracy_mean, accuracy_std) = mean_std(&accs);
    let fold_costs: Vec<RowCost> = results.iter().map(|r| r.cost).collect();
    let cost = pooled_cost(&fold_costs, &fold_rows);
    Ok(CvReport {
        algo: learn.algo,
        data: data.source.clone(),
        folds,
        seed: learn.seed,
        accuracy_mean,
        accuracy_std,
        model_bytes_mean: bytes.iter().sum::<usize>() as f64 / bytes.len().max(1) as f64,
        fold_accuracies: accs,
        fold_model_bytes: bytes,
        fold_rows: fold_rows.iter().map(Vec::len).collect(),
        fold_choices: results.iter().map(|r| r.choice.clone()).collect(),
        fold_costs,
        cost,
        classes: data.schema.classes.clone(),
        confusion,
        per_class,
        macro_precision,
        macro_recall,
        macro_f1,
        warnings,
    })
}
