//! `ltu update`: the device's on-device learning rehearsed on the host. Each labelled row of a data
//! file is one [`ModelSpec::update`] of the model's unit weights, in file order; the learned
//! model is written over the input model's bytes ([`ModelSpec::write_weights`]), as the device's
//! learner writes it.

use std::fmt;
use std::path::Path;

use anyhow::{bail, Context as _, Result};
use serde::Serialize;

use ltu::model::{ModelSpec, Outcome};

use super::args::ReadArgs;
use super::load::{align_warnings, clamped_warnings, read_for_model, LoadedModel};
use super::output::Output;

/// How many updates ended each way.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct OutcomeCounts {
    /// The model already answered the label.
    pub correct: usize,
    /// The deciding unit was wrong and was corrected.
    pub corrected: usize,
    /// Corrected by less than the full step (shortened to keep the accumulator bound, or weights
    /// clamped to the weight kind's range).
    pub clipped: usize,
    /// Wrong, but the unit is at the accumulator bound: no change.
    pub saturated: usize,
    /// A tree reached a constant class leaf: no change.
    pub constant: usize,
    /// The deciding unit cannot output the label (or a list has no entry for it): no change.
    pub unlearnable: usize,
}

impl OutcomeCounts {
    fn add(&mut self, outcome: Outcome) {
        match outcome {
            Outcome::Correct => self.correct += 1,
            Outcome::Corrected { .. } => self.corrected += 1,
            Outcome::Clipped { .. } => self.clipped += 1,
            Outcome::Saturated { .. } => self.saturated += 1,
            Outcome::Constant => self.constant += 1,
            Outcome::Unlearnable => self.unlearnable += 1,
        }
    }
}

/// Result of `ltu update`.
#[derive(Debug, Serialize)]
pub struct UpdateReport {
    /// Input model file.
    pub model: String,
    /// Data file.
    pub data: String,
    /// Where the learned model went.
    pub output: String,
    /// Labelled rows (windows, for a model with a pipeline) in the data file.
    pub rows: usize,
    /// Passes over the rows.
    pub epochs: u32,
    /// Updates made: rows × epochs.
    pub updates: usize,
    /// How the updates ended.
    pub outcomes: OutcomeCounts,
    /// Accuracy of the input model on the rows.
    pub accuracy_before: f64,
    /// Accuracy of the written model on the rows (through the runtime).
    pub accuracy_after: f64,
    /// Stored weights (biases included) whose value changed.
    pub weights_changed: usize,
    /// Stored weights of the model's units (biases included).
    pub weights_total: usize,
    /// Units with a changed weight, by index.
    pub units_changed: Vec<usize>,
    /// Bytes of the written model (those of the input model: only weights change).
    pub model_bytes: usize,
    /// Decisions the user may not expect (also printed on standard error).
    pub warnings: Vec<String>,
}

impl fmt::Display for UpdateReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} + {} -> {}: {} updates ({} rows x {} epoch{})",
            self.model,
            self.data,
            self.output,
            self.updates,
            self.rows,
            self.epochs,
            if self.epochs == 1 { "" } else { "s" }
        )?;
        let o = &self.outcomes;
        writeln!(
            f,
            "outcomes: correct {}, corrected {}, clipped {}, saturated {}, constant leaf {}, unlearnable {}",
            o.correct, o.corrected, o.clipped, o.saturated, o.constant, o.unlearnable
        )?;
        writeln!(
            f,
            "accuracy on {}: {:.2}% before, {:.2}% after",
            self.data,
            100.0 * self.accuracy_before,
            100.0 * self.accuracy_after
        )?;
        write!(
            f,
            "weights changed: {} of {} (units {}); model bytes {}",
            self.weights_changed,
            self.weights_total,
            if self.units_changed.is_empty() {
                "none".to_string()
            } else {
                self.units_changed.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")
            },
            self.model_bytes
        )
    }
}

/// Labelled rows of a data file read for a model: raw inputs and class indices, in file order.
struct Rows {
    source: String,
    /// What one row is, for messages: `data row` or `window`.
    unit: &'static str,
    raw: Vec<Vec<i32>>,
    labels: Vec<usize>,
    warnings: Vec<String>,
}

/// The rows of `data_path` as `eval` reads them: through the model's schema, or for a model with
/// a pipeline its windows (the statistics the runtime computes from their samples). A class the
/// model does not know is an error naming where it first occurs.
fn read_rows(loaded: &LoadedModel, data_path: &Path, args: &ReadArgs) -> Result<Rows> {
    let classes = loaded.schema()?.classes;
    let known = || classes.join(", ");
    if let Some(pipeline) = loaded.spec().pipeline {
        let (data, windows, warnings) =
            super::recordings::for_model(data_path, args.options(), &pipeline, true)?;
        let mut labels = Vec::with_capacity(data.n_rows());
        for (r, &y) in data.y.iter().enumerate() {
            let name = &data.schema.classes[y];
            let Some(k) = classes.iter().position(|c| c == name) else {
                let recording = &windows.recordings.recordings[windows.of_recording[r]];
                bail!(
                    "{}: recording `{}` (data row {}): class `{name}` is not a class of the model ({}); \
                     update can only correct towards the model's classes",
                    data.source,
                    recording.id,
                    recording.first_row + 1,
                    known()
                );
            };
            labels.push(k);
        }
        let raw = (0..data.n_rows()).map(|r| data.row(r).iter().map(|&v| v as i32).collect()).collect();
        return Ok(Rows { source: data.source, unit: "window", raw, labels, warnings });
    }
    let (data, raw, align) = read_for_model(loaded, data_path, &args.options())?;
    if align.unlabeled {
        bail!(
            "{}: no class column (every column is an attribute of the model); update needs labels",
            data_path.display()
        );
    }
    if let Some(u) = align.unseen_classes.iter().min_by_key(|u| u.first_line) {
        bail!(
            "{} line {}: class `{}` is not a class of the model ({}); update can only correct towards the \
             model's classes",
            data.source,
            u.first_line,
            u.name,
            known()
        );
    }
    let mut warnings = align_warnings(&data.source, &align);
    warnings.extend(clamped_warnings(loaded, &data));
    Ok(Rows { source: data.source.clone(), unit: "data row", raw, labels: data.y, warnings })
}

/// Fraction of `rows` the runtime model predicts right.
fn accuracy(model: &ltu_runtime::Model<'_>, rows: &Rows) -> Result<f64> {
    let mut correct = 0;
    for (x, &y) in rows.raw.iter().zip(&rows.labels) {
        correct +=
            usize::from(model.predict(x).with_context(|| format!("{}: predicting", rows.source))? == y);
    }
    Ok(correct as f64 / rows.raw.len().max(1) as f64)
}

/// `ltu update`: corrects the model's unit weights by the on-device learning procedure on every
/// labelled row of `data_path`, in file order, `epochs` times over, and writes the learned model.
///
/// # Errors
/// Unreadable model or data, data that does not match the model, a class the model does not
/// know, an output that is an input or not a file, device or FIFO, or a failed write.
pub fn update(
    model_path: &Path,
    data_path: &Path,
    out: &Path,
    epochs: u32,
    args: &ReadArgs,
) -> Result<UpdateReport> {
    let output = Output::resolve(out, &[model_path, data_path])?;
    let loaded = LoadedModel::open(model_path)?;
    let rows = read_rows(&loaded, data_path, args)?;
    let mut warnings = rows.warnings.clone();
    let before = loaded.spec();
    let mut spec = before.clone();
    let mut outcomes = OutcomeCounts::default();
    // Per unit, the updates it could not make for lack of accumulator room.
    let mut saturated = vec![0usize; spec.units.len()];
    let mut first_unlearnable = None;
    for _ in 0..epochs {
        for (r, (x, &y)) in rows.raw.iter().zip(&rows.labels).enumerate() {
            let outcome =
                spec.update(x, y).with_context(|| format!("{}: {} {}", rows.source, rows.unit, r + 1))?;
            outcomes.add(outcome);
            match outcome {
                Outcome::Saturated { unit } => saturated[usize::from(unit)] += 1,
                Outcome::Unlearnable => {
                    first_unlearnable.get_or_insert(r);
                }
                _ => {}
            }
        }
    }
    let bytes = spec.write_weights(&loaded.bytes).with_context(|| format!("writing {}", out.display()))?;
    let after = ltu_runtime::Model::from_bytes(&bytes).context("the learned model does not load")?;
    let accuracy_before = accuracy(&loaded.model(), &rows)?;
    let accuracy_after = accuracy(&after, &rows)?;
    warnings.extend(outcome_warnings(&before, &rows, &outcomes, &saturated, first_unlearnable));
    if accuracy_after < accuracy_before {
        warnings.push(format!(
            "{}: the accuracy on these rows went down ({:.2}% -> {:.2}%): each correction fits its own row, \
             which can undo what earlier rows taught; the model written is the one after the last row",
            rows.source,
            100.0 * accuracy_before,
            100.0 * accuracy_after
        ));
    }
    if super::train::is_training_data(&loaded, data_path) {
        warnings.push(format!(
            "{}: these are the rows the model was trained on (its metadata's data_fnv1a64): the accuracy \
             after is measured on the rows it learned from",
            rows.source
        ));
    }
    output.write(&bytes)?;
    let (mut weights_changed, mut weights_total, mut units_changed) = (0, 0, Vec::new());
    for (u, (old, new)) in before.units.iter().zip(&spec.units).enumerate() {
        let changed =
            old.rows.iter().flatten().zip(new.rows.iter().flatten()).filter(|(a, b)| a != b).count();
        weights_changed += changed;
        weights_total += old.rows.iter().map(Vec::len).sum::<usize>();
        if changed > 0 {
            units_changed.push(u);
        }
    }
    Ok(UpdateReport {
        model: model_path.display().to_string(),
        data: rows.source.clone(),
        output: if output == Output::Stdout { output.describe() } else { out.display().to_string() },
        rows: rows.raw.len(),
        epochs,
        updates: rows.raw.len() * epochs as usize,
        outcomes,
        accuracy_before,
        accuracy_after,
        weights_changed,
        weights_total,
        units_changed,
        model_bytes: bytes.len(),
        warnings,
    })
}

/// Warnings for the updates that changed nothing although the row was wrong.
fn outcome_warnings(
    spec: &ModelSpec,
    rows: &Rows,
    outcomes: &OutcomeCounts,
    saturated: &[usize],
    first_unlearnable: Option<usize>,
) -> Vec<String> {
    let mut w = Vec::new();
    if spec.units.is_empty() {
        w.push(format!(
            "{}: the model has no units (a tree of tests only): nothing in it can learn, every update \
             reaches a constant leaf",
            rows.source
        ));
    } else if outcomes.constant > 0 {
        w.push(format!(
            "{}: {} update(s) reached a constant class leaf of the tree: leaves without a unit and the tree's \
             decisions are not learned",
            rows.source, outcomes.constant
        ));
    }
    if let Some(r) = first_unlearnable {
        w.push(format!(
            "{}: {} update(s) had a label the deciding unit cannot output, or a decision list has no entry \
             for (the first: {} {}): no change",
            rows.source,
            outcomes.unlearnable,
            rows.unit,
            r + 1
        ));
    }
    let full: Vec<String> =
        saturated.iter().enumerate().filter(|(_, &n)| n > 0).map(|(u, n)| format!("unit {u} ×{n}")).collect();
    if !full.is_empty() {
        w.push(format!(
            "{}: {} update(s) found their unit at the accumulator bound of {:?} weights and changed nothing \
             ({}); a model trained with wider --weights has room to learn",
            rows.source,
            outcomes.saturated,
            spec.weight_kind,
            full.join(", ")
        ));
    }
    if outcomes.clipped > 0 {
        w.push(format!(
            "{}: {} correction(s) were less than the full step (shortened to keep the accumulator bound, or \
             weights clamped to the {:?} range): those rows may still be wrong",
            rows.source, outcomes.clipped, spec.weight_kind
        ));
    }
    w
}
