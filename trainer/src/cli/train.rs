//! `ltu train`, `ltu codegen` and `ltu cv`.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context as _, Result};
use serde::Serialize;

use ltu::data::encode;
use ltu::data::split;
use ltu::data::{self, Dataset};
use ltu::learn::{self, Algo, AlgoChoice, Context};
use ltu::model::{Host, ModelSpec, RowCost, Stats};

use super::load::{align_warnings, LoadedModel};
use super::recordings::{self, Windows};
use super::{args::*, output::*};

/// Loads training data, with the loader's warnings and those about numeric precision
/// ([`encode::precision_warnings`]).
pub(crate) fn load(path: &Path, args: &DataArgs) -> Result<(Dataset, Vec<String>)> {
    let (data, mut warnings) = data::load_with_warnings(path, &args.options())?;
    warnings.extend(encode::precision_warnings(&data));
    Ok((data, warnings))
}

/// A warning when a model never predicts some class of its training rows (but more than one
/// class: [`trivial_model_warning`] covers one).
pub(crate) fn never_predicted_warning(
    spec: &ModelSpec,
    raw: &[Vec<i32>],
    classes: &[String],
    counts: &[usize],
) -> Option<String> {
    let mut predicted = vec![false; classes.len()];
    for x in raw {
        if let Some(p) = predicted.get_mut(spec.predict(x)) {
            *p = true;
        }
    }
    if predicted.iter().filter(|&&p| p).count() < 2 {
        return None;
    }
    let never: Vec<String> = classes
        .iter()
        .zip(&predicted)
        .zip(counts)
        .filter(|((_, &p), &n)| !p && n > 0)
        .map(|((c, _), n)| format!("`{c}` (the class of {n} training row(s))"))
        .collect();
    (!never.is_empty()).then(|| {
        format!(
            "the model never predicts {} on its training rows: too few rows of that class, or options too \
             restrictive",
            never.join(", ")
        )
    })
}

/// A warning when a model predicts one class for every training row.
pub(crate) fn trivial_model_warning(
    spec: &ModelSpec,
    raw: &[Vec<i32>],
    classes: &[String],
    what: &str,
) -> Option<String> {
    let first = spec.predict(raw.first()?);
    if raw.iter().all(|x| spec.predict(x) == first) {
        Some(format!(
            "{what} predicts `{}` for every one of its {} training rows (a trivial model); the data may \
             not carry the information, or the options may be too restrictive",
            classes.get(first).map_or("?", String::as_str),
            raw.len()
        ))
    } else {
        None
    }
}

/// Result of `ltu train`.
#[derive(Debug, Serialize)]
pub struct TrainReport {
    /// The learner that learned the model (with `--algo auto`, the one chosen).
    pub algo: Algo,
    /// What `--algo` asked for: the learner, or `auto`.
    pub requested: AlgoChoice,
    /// Training data file.
    pub data: String,
    /// Model file written.
    pub model: String,
    /// Training rows.
    pub n: usize,
    /// Accuracy of the exported model on the training data.
    pub train_accuracy: f64,
    /// Model file size.
    pub model_bytes: usize,
    /// Size of the file a device needs (without the host block; what `--strip` writes and budgets
    /// count).
    pub device_bytes: usize,
    /// Weight representation (`none` for a model without units).
    pub weights: String,
    /// Units whose weights were scaled down to fit the representation.
    pub rescaled_units: usize,
    /// Size figures.
    #[serde(flatten)]
    pub stats: Stats,
    /// Cost of predicting the training rows: mean and largest multiply-accumulates and
    /// essential work (`ModelSpec::essential_work`, Cortex-M3 instructions a minimal evaluator
    /// needs; docs/DEVICE.md measures the runtime and `ltu codegen` against it).
    pub cost: RowCost,
    /// What computing the model's window statistics costs per window (models with a pipeline).
    pub extraction: Option<ltu::model::Extraction>,
    /// Wall-clock training time.
    pub seconds: f64,
    /// Decisions the user may not expect (also printed on standard error).
    pub warnings: Vec<String>,
    /// What the learner did: its own report (pruning, epochs, quantization changes, ...).
    pub learner: Option<ltu::learn::Report>,
    /// What a device budget counts of this model: stored bytes, worst-case multiply-accumulates
    /// and Cortex-M3 instructions of one prediction (window statistics included).
    pub device_cost: ltu::learn::DeviceCost,
    /// With a budget (--max-bytes, --max-macs, --max-instructions) or --algo auto: the candidate
    /// settings compared, their validation accuracy and cost, and which one was kept.
    pub budget: Option<ltu::learn::BudgetChoice>,
    /// Accuracy on rows the model did not train on: `--test FILE`, else a seeded, stratified
    /// quarter of the training rows held out from a second model trained on the rest (`null`
    /// with `--no-estimate`).
    pub estimate: Option<Estimate>,
}

/// A held-out accuracy estimate of `ltu train`.
#[derive(Debug, Clone, Serialize)]
pub struct Estimate {
    /// `test file` or `held-out quarter`.
    pub method: String,
    /// Rows scored.
    pub rows: usize,
    /// Their accuracy through the runtime.
    pub accuracy: f64,
}

/// What `ltu train` estimates besides training accuracy.
#[derive(Debug, Clone, Default)]
pub enum EstimateArg {
    /// A quarter of the training rows held out from a second model.
    #[default]
    Holdout,
    /// The rows of this file (read with the training data's schema).
    Test(PathBuf),
    /// Nothing (`--no-estimate`).
    None,
}

impl fmt::Display for TrainReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "trained {} on {} ({} rows) in {:.2} s", self.algo, self.data, self.n, self.seconds)?;
        if let Some(choice) = &self.budget {
            write_choice(f, choice)?;
        }
        writeln!(f, "training accuracy  {:.2}%", 100.0 * self.train_accuracy)?;
        if let Some(e) = &self.estimate {
            writeln!(f, "held-out accuracy  {:.2}% ({}, {} rows)", 100.0 * e.accuracy, e.method, e.rows)?;
        }
        let weights = if self.weights == "none" { "no".to_string() } else { self.weights.clone() };
        writeln!(f, "model              {} ({} bytes, {weights} weights)", self.model, self.model_bytes)?;
        writeln!(
            f,
            "structure          {} decision nodes, {} leaves, {} LTUs, {} non-zero weights",
            self.stats.decision_nodes, self.stats.leaves, self.stats.ltus, self.stats.weights_nonzero
        )?;
        writeln!(
            f,
            "worst case         {} multiply-accumulates, depth {} (nodes on the longest path, leaf included)",
            self.stats.max_macs, self.stats.max_depth
        )?;
        write!(
            f,
            "training rows      {:.1} multiply-accumulates on average (at most {}); essential work {:.0} \
             Cortex-M3 instructions on average (at most {})",
            self.cost.mean_macs,
            self.cost.max_macs,
            self.cost.mean_essential_work,
            self.cost.max_essential_work
        )?;
        if let Some(e) = &self.extraction {
            write!(
                f,
                "\nwindow statistics  {} per window of {} samples: {} multiply-accumulates, about {} Cortex-M3 \
                 instructions (budgets count both; classification comes on top)",
                e.statistics, e.window, e.macs, e.instructions
            )?;
        }
        // A learner that chose its settings by inner cross-validation lists the candidates,
        // the winner first (ndl, hsi).
        let candidates = match &self.learner {
            Some(ltu::learn::Report::Ndl(r) | ltu::learn::Report::Hsi(r)) => r.candidates.as_slice(),
            _ => &[],
        };
        if let Some(winner) = candidates.first() {
            // The norm as the JSON report names it.
            let norm = serde_json::to_value(winner.norm).ok();
            write!(
                f,
                "\nchosen settings    edit_neighbours {}, norm {}, shape {} (the most accurate of {} in the inner \
                 cross-validation: {:.2}%)",
                winner.edit_neighbours,
                norm.as_ref().and_then(|v| v.as_str()).unwrap_or("?"),
                winner.shape,
                candidates.len(),
                100.0 * winner.accuracy
            )?;
        }
        Ok(())
    }
}

/// The lines of `ltu train` and `ltu cv` about a choice among candidate settings: the one kept,
/// then the best of every other learner (or, for one learner, the next best settings).
pub(crate) fn write_choice(f: &mut fmt::Formatter<'_>, choice: &ltu::learn::BudgetChoice) -> fmt::Result {
    let describe = |c: &ltu::learn::Candidate| {
        let acc = c
            .validation_accuracy
            .map_or("over budget or failed".to_string(), |a| format!("{:.2}%", 100.0 * a));
        let cost = c.cost.map_or(String::new(), |d| {
            format!(" ({} bytes, {} MACs, {} instructions)", d.bytes, d.macs, d.instructions)
        });
        format!("{} setting {}: {acc}{cost}", c.algo, c.setting)
    };
    let Some(kept) = choice.tried.get(choice.chosen) else { return Ok(()) };
    writeln!(
        f,
        "chosen             {} — the best within the budgets of {} candidate settings fitted on {} rows{}, \
         validated on {}",
        describe(kept),
        choice.candidates,
        choice.fit_rows,
        if choice.folds > 1 { format!(" in each of {} folds", choice.folds) } else { String::new() },
        choice.validation_rows
    )?;
    let mut ranked: Vec<&ltu::learn::Candidate> =
        choice.tried.iter().filter(|c| c.validation_accuracy.is_some() && *c != kept).collect();
    ranked.sort_by(|a, b| {
        b.validation_accuracy.partial_cmp(&a.validation_accuracy).unwrap_or(std::cmp::Ordering::Equal)
    });
    let several = choice.tried.iter().any(|c| c.algo != kept.algo);
    let mut shown: Vec<Algo> = vec![kept.algo];
    let mut lines = 0;
    for c in ranked {
        if several && shown.contains(&c.algo) {
            continue;
        }
        shown.push(c.algo);
        writeln!(f, "runner-up          {}", describe(c))?;
        lines += 1;
        if !several && lines == 3 {
            break;
        }
    }
    Ok(())
}

/// `ltu train`: learn, export, verify, write atomically.
///
/// # Errors
/// Bad data, bad options, an export failure, or a write failure.
pub fn train(
    data_path: &Path,
    out: &Path,
    learn: &LearnArgs,
    progress: &(dyn Fn(u64, u64) + Sync),
    estimate: &EstimateArg,
    strip: bool,
) -> Result<TrainReport> {
    let start = Instant::now();
    learn.check_applicable()?;
    let mut inputs = vec![data_path];
    if let EstimateArg::Test(test) = estimate {
        inputs.push(test);
    }
    let output = Output::resolve(out, &inputs)?;
    let (data, windows, mut warnings) = training_data(data_path, learn)?;
    let (trained, rows, model_warnings) = train_dataset(
        learn,
        &data,
        windows.as_ref(),
        !learn.no_names && !strip,
        progress,
        &data_path.display(),
    )?;
    let algo = trained.algo.context("the trained model names no learner")?;
    warnings.extend(model_warnings);
    let estimate =
        held_out_estimate(&data, data_path, windows.as_ref(), &trained, learn, estimate, &mut warnings)?;
    warnings.extend(overfit_warning(trained.train_accuracy, estimate.as_ref()));
    let meta = (!strip).then(|| metadata(learn, data_path, data.n_rows()));
    let bytes = trained
        .spec
        .to_bytes_with(&Host { strip, meta })
        .with_context(|| format!("encoding the model for {}", out.display()))?;
    if let Some(max) = learn.max_bytes.filter(|&max| bytes.len() > max) {
        warnings.push(format!(
            "the file written is {} bytes, over --max-bytes {max}: the budget counts the {} bytes a device stores \
             (the model without its host block of names, input scales and metadata); --strip writes only those",
            bytes.len(),
            trained.device_bytes
        ));
    }
    output.write(&bytes)?;
    Ok(TrainReport {
        algo,
        requested: learn.algo,
        device_cost: trained.device_cost(),
        data: data.source.clone(),
        model: if output == Output::Stdout { output.describe() } else { out.display().to_string() },
        n: data.n_rows(),
        train_accuracy: trained.train_accuracy,
        model_bytes: bytes.len(),
        device_bytes: trained.device_bytes,
        // A model without units (a tree of tests) stores no weight, whatever its kind says.
        weights: if trained.spec.units.is_empty() {
            "none".into()
        } else {
            format!("{:?}", trained.spec.weight_kind).to_lowercase()
        },
        rescaled_units: trained.rescaled_units,
        learner: trained.report.clone(),
        budget: trained.budget.clone(),
        estimate,
        stats: trained.spec.stats(),
        cost: trained.spec.row_cost(&rows),
        extraction: trained.extraction,
        seconds: start.elapsed().as_secs_f64(),
        warnings,
    })
}

/// The part of `ltu train` between reading the data and encoding the file, which the Python
/// package's `fit` calls as well: refuses names the file cannot store (when `with_names`),
/// trains `learn.algo` on `data` (the rows cut from `windows`, when given), checks the runtime's
/// pipeline against the trainer on those windows, and returns the trained model, the model's
/// inputs of every training row and the warnings about the model. `source` names the data in
/// the error of a failed training.
pub(crate) fn train_dataset(
    learn: &LearnArgs,
    data: &Dataset,
    windows: Option<&Windows>,
    with_names: bool,
    progress: &(dyn Fn(u64, u64) + Sync),
    source: &dyn fmt::Display,
) -> Result<(learn::Trained, Vec<Vec<i32>>, Vec<String>)> {
    if with_names {
        storable_names(data)?;
    }
    let mut ctx = Context::new(data, learn.seed, learn.weights.map(Into::into));
    ctx.progress = progress;
    ctx.pipeline = windows.map(|w| w.pipeline.clone());
    ctx.window_len = windows.map_or(0, Windows::longest);
    let trained = learn::train_choice(learn.algo, &ctx, &learn.options(&data.schema)?, with_names)
        .with_context(|| format!("training {} on {source}", learn.algo))?;
    let rows: Vec<Vec<i32>> = ctx.raw.iter().map(|x| trained.project(x)).collect();
    if let Some(windows) = windows {
        check_pipeline(&trained, windows, &rows)?;
    }
    let warnings = model_warnings(&trained, &ctx, &rows, learn);
    Ok((trained, rows, warnings))
}

/// The training rows: the data file's, or with `--recordings` the windows cut from its
/// recordings; with the loader's warnings.
pub(crate) fn training_data(
    path: &Path,
    learn: &LearnArgs,
) -> Result<(Dataset, Option<Windows>, Vec<String>)> {
    learn.rec.check()?;
    if learn.rec.enabled() {
        let (data, windows, warnings) = recordings::for_training(path, learn.data.options(), &learn.rec)?;
        return Ok((data, Some(windows), warnings));
    }
    let (data, warnings) = load(path, &learn.data)?;
    Ok((data, None, warnings))
}

/// Checks that the runtime, fed the raw samples of every training window through
/// [`predict_window`](ltu_runtime::Model::predict_window) of the model's own pipeline, predicts
/// what the trainer does on those windows' features (`rows`, the model's inputs).
fn check_pipeline(trained: &learn::Trained, windows: &Windows, rows: &[Vec<i32>]) -> Result<()> {
    let model = ltu_runtime::Model::from_bytes(&trained.bytes).map_err(|e| anyhow::anyhow!("{e}"))?;
    let on_device = super::recordings::predict_windows(&model, windows, rows.len())?;
    for (row, (x, device)) in rows.iter().zip(on_device).enumerate() {
        let host = trained.spec.predict(x);
        if host != device {
            anyhow::bail!("the runtime's pipeline disagrees with the trainer on training window {row}: trainer {host}, runtime {device}");
        }
    }
    Ok(())
}

/// Warnings about the trained model: a trivial model, classes it never predicts, units scaled
/// down to fit the weight kind, an inner cross-validation that chose nothing.
fn model_warnings(
    trained: &learn::Trained,
    ctx: &Context<'_>,
    rows: &[Vec<i32>],
    learn: &LearnArgs,
) -> Vec<String> {
    let data = ctx.data;
    let mut warnings = Vec::new();
    warnings.extend(trivial_model_warning(&trained.spec, rows, &data.schema.classes, "the model"));
    warnings.extend(never_predicted_warning(&trained.spec, rows, &data.schema.classes, &data.class_counts()));
    if let Some(before) = trained.accuracy_before_rescale {
        warnings.push(format!(
            "{} unit(s) were scaled down to fit {} weights: training accuracy {:.2}% → {:.2}%{}",
            trained.rescaled_units,
            format!("{:?}", trained.spec.weight_kind).to_lowercase(),
            100.0 * before,
            100.0 * trained.train_accuracy,
            if learn.weights.is_some() {
                " (leave --weights out to let ltu pick a kind that fits)"
            } else {
                ""
            }
        ));
    }
    if let Some(k) = learn.validation_folds.filter(|&k| k > 0) {
        let chose_nothing = match &trained.report {
            Some(ltu::learn::Report::Ndl(r) | ltu::learn::Report::Hsi(r)) => r.candidates.is_empty(),
            _ => false,
        };
        if chose_nothing {
            warnings.push(format!(
                "--validation-folds {k}: {} chose nothing and kept its settings as given (it chooses on at most \
                 {} training rows, with at least two settings left to try and rows for every fold)",
                learn.algo,
                ltu::learners::decision_list::Choose::default().up_to_rows
            ));
        }
    }
    warnings
}

/// The held-out estimate `ltu train` reports: on `--test FILE`, on a stratified quarter held out
/// from a second model, or none.
fn held_out_estimate(
    data: &Dataset,
    data_path: &Path,
    windows: Option<&Windows>,
    trained: &learn::Trained,
    learn: &LearnArgs,
    estimate: &EstimateArg,
    warnings: &mut Vec<String>,
) -> Result<Option<Estimate>> {
    match (estimate, windows) {
        (EstimateArg::None, _) => Ok(None),
        (EstimateArg::Test(test), None) => {
            test_file_estimate(data, data_path, test, trained, learn, warnings).map(Some)
        }
        (EstimateArg::Test(test), Some(windows)) => {
            test_recordings_estimate(test, &windows.pipeline, trained, learn, warnings).map(Some)
        }
        (EstimateArg::Holdout, _) => holdout_estimate(data, data_path, windows, learn, warnings),
    }
}

/// Accuracy of a model with a pipeline on the windows of the recordings in `--test FILE`, from
/// their raw samples through the runtime.
fn test_recordings_estimate(
    test: &Path,
    pipeline: &ltu::model::Pipeline,
    trained: &learn::Trained,
    learn: &LearnArgs,
    warnings: &mut Vec<String>,
) -> Result<Estimate> {
    let (test_data, windows, w) = recordings::for_model(test, learn.data.read.options(), pipeline, true)?;
    warnings.extend(w);
    let model = ltu_runtime::Model::from_bytes(&trained.bytes).map_err(|e| anyhow::anyhow!("{e}"))?;
    let predictions = recordings::predict_windows(&model, &windows, test_data.n_rows())?;
    let classes = trained.spec.names.as_ref().map(|n| n.classes.clone()).unwrap_or_default();
    // By name: the test file's class `k` is the model's class of that name.
    let correct = predictions
        .iter()
        .zip(&test_data.y)
        .filter(|(&p, &y)| classes.get(p).is_some_and(|c| *c == test_data.schema.classes[y]))
        .count();
    Ok(Estimate {
        method: format!("test recordings {}", test.display()),
        rows: predictions.len(),
        accuracy: correct as f64 / predictions.len().max(1) as f64,
    })
}

/// Accuracy of the model on `--test FILE`, through the runtime.
fn test_file_estimate(
    data: &Dataset,
    data_path: &Path,
    test: &Path,
    trained: &learn::Trained,
    learn: &LearnArgs,
    warnings: &mut Vec<String>,
) -> Result<Estimate> {
    let (test_data, align) = data::load_with_schema(test, &learn.data.options(), &data.schema)?;
    warnings.extend(align_warnings(&test_data.source, &align));
    if same_contents(data_path, test) {
        warnings.push(format!(
            "--test {}: the test file holds the training data itself, so its accuracy is the training \
             accuracy, not an estimate on unseen rows",
            test.display()
        ));
    }
    let model = ltu_runtime::Model::from_bytes(&trained.bytes).map_err(|e| anyhow::anyhow!("{e}"))?;
    let raw = trained.rows(&test_data);
    let mut correct = 0;
    for (x, &y) in raw.iter().zip(&test_data.y) {
        correct += usize::from(model.predict(x).map_err(|e| anyhow::anyhow!("{e}"))? == y);
    }
    Ok(Estimate {
        method: format!("test file {}", test.display()),
        rows: raw.len(),
        accuracy: correct as f64 / raw.len().max(1) as f64,
    })
}

/// Accuracy on a stratified quarter of the rows of a second model trained on the rest.
fn holdout_estimate(
    data: &Dataset,
    data_path: &Path,
    windows: Option<&Windows>,
    learn: &LearnArgs,
    warnings: &mut Vec<String>,
) -> Result<Option<Estimate>> {
    // Windows of one recording stay on one side.
    let split = match windows {
        Some(w) => w.split(0.25, learn.seed),
        None => split::train_test_split_stratified(&data.y, data.schema.classes.len(), 0.25, learn.seed),
    };
    match split {
        Ok((fit_rows, test_rows)) => {
            let options = learn.options(&data.schema)?;
            let setup = ltu::learn::evaluate::Setup {
                algo: learn.algo,
                options: &options,
                seed: learn.seed,
                weight_kind: learn.weights.map(Into::into),
                pipeline: windows.map(|w| &w.pipeline),
                window_len: windows.map_or(0, Windows::longest),
            };
            let h = ltu::learn::evaluate::holdout(data, &fit_rows, &test_rows, &setup)
                .with_context(|| format!("estimating held-out accuracy on {}", data_path.display()))?;
            Ok(Some(Estimate {
                method: "a stratified quarter held out from a second model".into(),
                rows: test_rows.len(),
                accuracy: h.accuracy,
            }))
        }
        Err(e) => {
            warnings.push(format!("no held-out estimate: {e}"));
            Ok(None)
        }
    }
}

/// A warning when the training accuracy is more than 10 points over the held-out estimate.
fn overfit_warning(train_accuracy: f64, estimate: Option<&Estimate>) -> Option<String> {
    let e = estimate.filter(|e| train_accuracy - e.accuracy > 0.10)?;
    Some(format!(
        "training accuracy {:.1}% but held-out {:.1}%: the model may overfit; try --prune-fraction, \
         --max-bytes or a shallower model",
        100.0 * train_accuracy,
        100.0 * e.accuracy
    ))
}

/// FNV-1a, 64 bits: the training data's fingerprint in a model's metadata (`data_fnv1a64`).
pub(crate) fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3))
}

/// Whether `path` holds the data `model` was trained on, by the fingerprint `ltu train` stores
/// in its metadata (`false` when the model has none, or for standard input).
pub(crate) fn is_training_data(model: &LoadedModel, path: &Path) -> bool {
    let Some(meta) = model.model().meta() else { return false };
    let Some(stored) = meta.lines().find_map(|l| l.strip_prefix("data_fnv1a64=")) else { return false };
    path.as_os_str() != "-"
        && std::fs::metadata(path).is_ok_and(|m| m.is_file())
        && std::fs::read(path).is_ok_and(|b| format!("{:016x}", fnv1a64(&b)) == stored)
}

/// Whether two data files hold the same bytes (`-`, standard input, is compared with nothing).
pub(crate) fn same_contents(a: &Path, b: &Path) -> bool {
    if a.as_os_str() == "-" || b.as_os_str() == "-" {
        return false;
    }
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(ma), Ok(mb)) if ma.is_file() && mb.is_file() => {
            same_file(&ma, &mb)
                || (ma.len() == mb.len()
                    && matches!((std::fs::read(a), std::fs::read(b)), (Ok(x), Ok(y)) if x == y))
        }
        _ => false,
    }
}

/// Refuses names a model file cannot store: its host block keeps one name per line, so a column
/// name, a categorical value or a class with a line break would come back as another name (two
/// columns could then read the same input).
fn storable_names(data: &Dataset) -> Result<()> {
    let broken = |s: &str| s.contains(['\n', '\r']);
    let hint = "a model file stores one name per line; rename it, or train with --no-names or --strip";
    for a in &data.schema.attributes {
        if broken(&a.name) {
            anyhow::bail!("{}: the header's column name {:?} has a line break: {hint}", data.source, a.name);
        }
        if let data::AttrKind::Categorical { values } = &a.kind {
            if let Some(v) = values.iter().find(|v| broken(v)) {
                anyhow::bail!(
                    "{}: column `{}` has the value {v:?} with a line break: {hint}",
                    data.source,
                    a.name
                );
            }
        }
    }
    if let Some(c) = data.schema.classes.iter().find(|c| broken(c)) {
        anyhow::bail!("{}: the class {c:?} has a line break: {hint}", data.source);
    }
    Ok(())
}

/// The metadata `ltu train` stores in a model's host block, one `key=value` per line: the ltu
/// version, the learner, the seed, the training options as given on the command line (output,
/// estimate and reporting flags left out: they do not change the model), and the training data's
/// file name, row count and FNV-1a 64-bit fingerprint of its bytes. Deterministic: the same data,
/// options and seed give the same text.
pub fn metadata(learn: &LearnArgs, data_path: &Path, rows: usize) -> String {
    metadata_from(std::env::args(), learn, data_path, rows)
}

/// [`metadata`] of the command line `args` (the program name, `train`, then its arguments), for a
/// front end that trains without one of its own (the Python package gives the `ltu train` command
/// it stands for).
pub fn metadata_from(
    args: impl IntoIterator<Item = String>,
    learn: &LearnArgs,
    data_path: &Path,
    rows: usize,
) -> String {
    let args: Vec<String> = args.into_iter().collect();
    let mut options = Vec::new();
    let mut it = args.iter().skip_while(|a| a.as_str() != "train").skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "-o" | "--output" | "--test" => {
                it.next();
            }
            "--json" | "-q" | "--quiet" | "--no-estimate" => {}
            a if a.starts_with("--output=") || a.starts_with("--test=") || a.starts_with("-o") => {}
            a if Path::new(a) == data_path => {}
            a => options.push(a.replace('\n', " ")),
        }
    }
    let mut text = format!(
        "ltu={}\nalgo={}\nseed={}\noptions={}\ndata={}\nrows={rows}",
        env!("CARGO_PKG_VERSION"),
        learn.algo,
        learn.seed,
        options.join(" "),
        data_path.file_name().map_or_else(|| data_path.display().to_string(), |n| n.to_string_lossy().into()),
    );
    // Read again for the fingerprint: only a regular file (a pipe or device has been drained).
    let regular = std::fs::metadata(data_path).is_ok_and(|m| m.is_file());
    if let Some(bytes) = regular.then(|| std::fs::read(data_path).ok()).flatten() {
        text.push_str(&format!("\ndata_fnv1a64={:016x}", fnv1a64(&bytes)));
    }
    text.replace(['\r'], " ")
}
