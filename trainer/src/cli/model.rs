//! `ltu eval` and `ltu predict` through the runtime.

use std::fmt::{self, Write as _};
use std::path::Path;

use anyhow::{bail, Context as _, Result};
use serde::Serialize;

use ltu::data::LoadOptions;

use ltu::learn::metrics::{class_figures, ClassReport};

use super::args::*;
use super::load::{align_warnings, clamped_warnings, read_for_model, LoadedModel};

/// Writes a confusion matrix and the per-class table.
pub(crate) fn write_figures(
    f: &mut fmt::Formatter<'_>,
    classes: &[String],
    confusion: &[Vec<usize>],
    per_class: &[ClassReport],
    macros: [f64; 3],
) -> fmt::Result {
    let label = |k: usize| format!("{k} {}", classes.get(k).map_or("(unknown)", String::as_str));
    let w = (0..confusion.len()).map(|k| label(k).len()).max().unwrap_or(0).max(13);
    writeln!(f, "confusion (rows: true class, columns: predicted)")?;
    let mut head = format!("{:<w$}", "");
    for k in 0..classes.len() {
        let _ = write!(head, " {k:>6}");
    }
    writeln!(f, "{head}")?;
    for (k, row) in confusion.iter().enumerate() {
        write!(f, "{:<w$}", label(k))?;
        for c in row {
            write!(f, " {c:>6}")?;
        }
        writeln!(f)?;
    }
    writeln!(f, "{:<w$} {:>9} {:>9} {:>9} {:>7}", "class", "precision", "recall", "F1", "support")?;
    for c in per_class {
        writeln!(f, "{:<w$} {:>9.3} {:>9.3} {:>9.3} {:>7}", c.class, c.precision, c.recall, c.f1, c.support)?;
    }
    write!(f, "{:<w$} {:>9.3} {:>9.3} {:>9.3}", "macro average", macros[0], macros[1], macros[2])
}

/// Result of `ltu eval`.
#[derive(Debug, Serialize)]
pub struct EvalReport {
    /// Model file.
    pub model: String,
    /// Data file.
    pub data: String,
    /// Rows evaluated.
    pub n: usize,
    /// Fraction predicted correctly (rows whose class the model does not know count as wrong).
    pub accuracy: f64,
    /// Model file size.
    pub model_bytes: usize,
    /// Class names, the order of the confusion matrix.
    pub classes: Vec<String>,
    /// `confusion[true][predicted]`; a last row counts rows whose class the model does not know.
    pub confusion: Vec<Vec<usize>>,
    /// Per-class precision, recall and F1.
    pub per_class: Vec<ClassReport>,
    /// Mean precision over the classes that occur in the data or the predictions.
    pub macro_precision: f64,
    /// Mean recall over the same classes.
    pub macro_recall: f64,
    /// Mean F1 over the same classes.
    pub macro_f1: f64,
    /// Cells with a category value the model never saw (evaluated as unknown values).
    pub unseen_values: usize,
    /// Rows whose class the model does not know.
    pub unseen_class_rows: usize,
    /// Decisions the user may not expect (also printed on standard error).
    pub warnings: Vec<String>,
}

impl fmt::Display for EvalReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} on {}: accuracy {:.2}% ({} rows)",
            self.model,
            self.data,
            100.0 * self.accuracy,
            self.n
        )?;
        writeln!(f, "model bytes {}", self.model_bytes)?;
        let macros = [self.macro_precision, self.macro_recall, self.macro_f1];
        write_figures(f, &self.classes, &self.confusion, &self.per_class, macros)?;
        if self.unseen_values > 0 || self.unseen_class_rows > 0 {
            write!(
                f,
                "\nnote: {} cells had category values the model never saw; {} rows had unknown classes",
                self.unseen_values, self.unseen_class_rows
            )?;
        }
        Ok(())
    }
}

/// `ltu eval`: accuracy, confusion matrix, per-class precision, recall and F1, through the runtime.
///
/// # Errors
/// Unreadable model or data, or data that does not match the model's schema.
pub fn eval(model_path: &Path, data_path: &Path, args: &ReadArgs) -> Result<EvalReport> {
    let loaded = LoadedModel::open(model_path)?;
    if let Some(pipeline) = loaded.spec().pipeline {
        return eval_recordings(&loaded, &pipeline, model_path, data_path, args);
    }
    let (data, raw, align) = read_for_model(&loaded, data_path, &args.options())?;
    if align.unlabeled {
        bail!(
            "{}: no class column (every column is an attribute of the model); eval needs labels, \
             predict does not",
            data_path.display()
        );
    }
    let model = loaded.model();
    let k = model.n_classes();
    let predictions = raw
        .iter()
        .map(|x| model.predict(x).with_context(|| format!("{}: evaluating", data_path.display())))
        .collect::<Result<Vec<_>>>()?;
    // Rows of classes the model does not know have an index past its classes.
    let labels: Vec<usize> = data.y.iter().map(|&y| y.min(k)).collect();
    let warnings = {
        let mut w = align_warnings(&data.source, &align);
        w.extend(clamped_warnings(&loaded, &data));
        if super::train::is_training_data(&loaded, data_path) {
            w.push(format!(
                    "{}: these are the rows the model was trained on (its metadata's data_fnv1a64): the accuracy \
                     is training accuracy, not an estimate on unseen rows",
                    data.source
                ));
        }
        w
    };
    let mut report = eval_report(&loaded, model_path, &data.source, &predictions, &labels, warnings)?;
    report.unseen_values = align.unseen_value_cells();
    report.unseen_class_rows = align.unseen_class_rows();
    Ok(report)
}

/// `ltu eval` of a model with a sensor pipeline: every window of the raw recordings in
/// `data_path`, cut and computed by the runtime from their samples
/// ([`predict_window`](ltu_runtime::Model::predict_window)), as on the device.
fn eval_recordings(
    loaded: &LoadedModel,
    pipeline: &ltu::model::Pipeline,
    model_path: &Path,
    data_path: &Path,
    args: &ReadArgs,
) -> Result<EvalReport> {
    let (data, windows, mut warnings) =
        super::recordings::for_model(data_path, args.options(), pipeline, true)?;
    let model = loaded.model();
    let predictions = super::recordings::predict_windows(&model, &windows, data.n_rows())?;
    let classes = loaded.schema()?.classes;
    // The file's classes by name; a class the model does not know has an index past its classes.
    let labels: Vec<usize> = data
        .y
        .iter()
        .map(|&y| classes.iter().position(|m| *m == data.schema.classes[y]).unwrap_or(classes.len()))
        .collect();
    let unseen = labels.iter().filter(|&&y| y == classes.len()).count();
    if unseen > 0 {
        warnings.push(format!(
            "{}: {unseen} window(s) of classes the model does not know count as wrong",
            data.source
        ));
    }
    if super::train::is_training_data(loaded, data_path) {
        warnings.push(format!(
            "{}: these are the recordings the model was trained on (its metadata's data_fnv1a64): the accuracy \
             is training accuracy, not an estimate on unseen windows",
            data.source
        ));
    }
    let mut report = eval_report(loaded, model_path, &data.source, &predictions, &labels, warnings)?;
    report.unseen_class_rows = unseen;
    Ok(report)
}

/// The figures of `ltu eval` from each row's prediction and class (an index past the model's
/// classes for a class it does not know: a last row of the confusion matrix, counted wrong).
fn eval_report(
    loaded: &LoadedModel,
    model_path: &Path,
    source: &str,
    predictions: &[usize],
    labels: &[usize],
    warnings: Vec<String>,
) -> Result<EvalReport> {
    let classes = loaded.schema()?.classes;
    let k = classes.len();
    let mut confusion = vec![vec![0usize; k]; k + 1];
    for (&p, &y) in predictions.iter().zip(labels) {
        confusion[y.min(k)][p] += 1;
    }
    if confusion[k].iter().sum::<usize>() == 0 {
        confusion.pop();
    }
    let correct = predictions.iter().zip(labels).filter(|(p, y)| p == y).count();
    let (per_class, [macro_precision, macro_recall, macro_f1]) = class_figures(&confusion, &classes);
    Ok(EvalReport {
        model: model_path.display().to_string(),
        data: source.to_string(),
        n: predictions.len(),
        accuracy: correct as f64 / predictions.len().max(1) as f64,
        model_bytes: loaded.bytes.len(),
        classes,
        confusion,
        per_class,
        macro_precision,
        macro_recall,
        macro_f1,
        unseen_values: 0,
        unseen_class_rows: 0,
        warnings,
    })
}

/// Result of `ltu predict`.
#[derive(Debug, Serialize)]
pub struct PredictReport {
    /// One class name per data row.
    pub predictions: Vec<String>,
    /// The class index `Model::predict` returned for each row (an index into the model's classes).
    pub class_indices: Vec<usize>,
    /// For each row, the exact integers handed to `Model::predict`: what firmware must compute
    /// from its sensor readings to get the same prediction (an integration test's expected input).
    pub inputs: Vec<Vec<i32>>,
    /// The model's class names (the order of `scores`).
    pub classes: Vec<String>,
    /// `--id`: the id column's text for each row.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ids: Option<Vec<String>>,
    /// `--id`: the id column's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id_column: Option<String>,
    /// `--scores`: per row, per class, the deciding unit's score (`null`: not scored by it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scores: Option<Vec<Vec<Option<f64>>>>,
    /// `--probabilities`: per row, per class, the calibrated probability.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub probabilities: Option<Vec<Vec<f64>>>,
    /// `--calibrate`: how the probabilities were fitted and how well they do.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub calibration: Option<super::calibrate::Calibration>,
    /// Decisions the user may not expect (also printed on standard error).
    pub warnings: Vec<String>,
}

/// Quotes a CSV field when it needs it (RFC 4180).
pub(crate) fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) || s.trim() != s {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

impl fmt::Display for PredictReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.ids.is_none() && self.scores.is_none() && self.probabilities.is_none() {
            for (i, p) in self.predictions.iter().enumerate() {
                if i > 0 {
                    writeln!(f)?;
                }
                f.write_str(p)?;
            }
            return Ok(());
        }
        // CSV with a header: [id,] class [, score:<class>...] [, p:<class>...]
        let mut head = Vec::new();
        if let Some(name) = &self.id_column {
            head.push(csv_field(name));
        }
        // The predicted class's column; `predicted_class` when the --id column is called `class`.
        head.push(
            if self.id_column.as_deref() == Some("class") { "predicted_class" } else { "class" }.to_string(),
        );
        if self.scores.is_some() {
            head.extend(self.classes.iter().map(|c| csv_field(&format!("score:{c}"))));
        }
        if self.probabilities.is_some() {
            head.extend(self.classes.iter().map(|c| csv_field(&format!("p:{c}"))));
        }
        write!(f, "{}", head.join(","))?;
        for (i, p) in self.predictions.iter().enumerate() {
            let mut row = Vec::new();
            if let Some(ids) = &self.ids {
                row.push(csv_field(&ids[i]));
            }
            row.push(csv_field(p));
            if let Some(scores) = &self.scores {
                row.extend(scores[i].iter().map(|s| s.map_or_else(String::new, |v| v.to_string())));
            }
            if let Some(probabilities) = &self.probabilities {
                row.extend(probabilities[i].iter().map(|p| format!("{p:.6}")));
            }
            write!(f, "\n{}", row.join(","))?;
        }
        Ok(())
    }
}

/// `ltu predict`: one class name per row (with `--id`, `--scores` or `--probabilities`, a CSV).
///
/// # Errors
/// As [`eval`]. The class column may be absent or empty; it is not read. With `--calibrate`, as
/// [`super::calibrate::calibrate`].
pub fn predict(model_path: &Path, data_path: &Path, args: &PredictArgs) -> Result<PredictReport> {
    let loaded = LoadedModel::open(model_path)?;
    let mut warnings = Vec::new();
    let calibrated = match &args.calibrate {
        Some(path) if args.probabilities => {
            if path.as_os_str() == "-" && data_path.as_os_str() == "-" {
                bail!("--calibrate - and data - cannot both be standard input");
            }
            let (softmax, calibration, w) = super::calibrate::calibrate(&loaded, path, &args.data)?;
            warnings.extend(w);
            Some((softmax, calibration))
        }
        _ => None,
    };
    let (source, raw, ids) = match loaded.spec().pipeline {
        Some(pipeline) => {
            if args.id.is_some() {
                bail!("--id applies to tables of features: a model with a pipeline names each window by its recording and first sample");
            }
            let (data, windows, w) =
                super::recordings::for_model(data_path, args.data.options(), &pipeline, false)?;
            warnings.extend(w);
            // The window statistics, as the runtime computes them from the samples.
            let raw: Vec<Vec<i32>> =
                (0..data.n_rows()).map(|r| data.row(r).iter().map(|&v| v as i32).collect()).collect();
            let ids = (0..data.n_rows())
                .map(|r| {
                    format!(
                        "{}@{}",
                        windows.recordings.recordings[windows.of_recording[r]].id, windows.starts[r]
                    )
                })
                .collect();
            (data.source, raw, Some(ids))
        }
        None => {
            let options =
                LoadOptions { allow_missing_class: true, id: args.id.clone(), ..args.data.options() };
            let (data, raw, align) = read_for_model(&loaded, data_path, &options)?;
            warnings.extend(align_warnings(&data.source, &align));
            warnings.extend(clamped_warnings(&loaded, &data));
            (data.source, raw, args.id.is_some().then_some(align.ids))
        }
    };
    let model = loaded.model();
    let classes = loaded.schema()?.classes;
    let frac = 2f64.powi(model.weight_kind().frac_bits() as i32);
    let mut class_indices = Vec::with_capacity(raw.len());
    let mut scores = args.scores.then(|| Vec::with_capacity(raw.len()));
    let mut probabilities = calibrated.as_ref().map(|_| Vec::with_capacity(raw.len()));
    let mut buffer = vec![0i64; model.n_classes()];
    for x in &raw {
        let c = if scores.is_some() || probabilities.is_some() {
            let c = model.predict_scores(x, &mut buffer);
            let row = ltu::learn::calibrate::scores_of(&buffer, frac);
            if let (Some(p), Some((softmax, _))) = (&mut probabilities, &calibrated) {
                p.push(softmax.probabilities(&row));
            }
            if let Some(scores) = &mut scores {
                scores.push(row);
            }
            c
        } else {
            model.predict(x)
        };
        class_indices.push(c.with_context(|| format!("{source}: predicting"))?);
    }
    let predictions = class_indices.iter().map(|&c| classes[c].clone()).collect();
    let id_column = args.id.clone().or_else(|| ids.as_ref().map(|_| "window".to_string()));
    Ok(PredictReport {
        predictions,
        class_indices,
        inputs: raw,
        classes,
        ids,
        id_column,
        scores,
        probabilities,
        calibration: calibrated.map(|(_, c)| c),
        warnings,
    })
}
