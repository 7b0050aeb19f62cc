//! `ltu predict --probabilities --calibrate FILE`: class probabilities from the deciding unit's
//! scores, calibrated at predict time on labelled rows.
//!
//! The model file stores no calibration, so the probabilities are fitted at predict time
//! ([`ltu::learn::calibrate`]). The report gives the log loss on the calibration rows, a 5-fold
//! cross-validated one and the log loss of the rows' class frequencies.

use std::fmt;
use std::path::Path;

use anyhow::{bail, Context as _, Result};
use serde::Serialize;

use ltu::learn::calibrate::{cv_log_loss, fit, log_loss, prior_log_loss, scores_of, Scored, Softmax};

use super::args::ReadArgs;
use super::load::{align_warnings, read_for_model, LoadedModel};

/// Folds of the calibration's cross-check.
const FOLDS: usize = 5;

/// How `--probabilities` were calibrated, for the report.
#[derive(Debug, Clone, Serialize)]
pub struct Calibration {
    /// The calibration file.
    pub file: String,
    /// Labelled rows used.
    pub rows: usize,
    /// Rows left out: their class is not a class of the model.
    pub rows_left_out: usize,
    /// `T` in `p(c) ∝ exp(s_c / T)`, in score units (as `--scores` prints them); `null` when the
    /// fit gives the scores no weight.
    pub temperature: Option<f64>,
    /// `b` in `p(c) ∝ exp(b)` for a class the deciding unit does not score; `null` when every
    /// calibration row's deciding unit scored every class.
    pub unscored_logit: Option<f64>,
    /// Mean `-ln p(true class)` on the calibration rows.
    pub log_loss: f64,
    /// The same, 5-fold cross-validated over the calibration rows; `null` under 10 rows.
    pub cv_log_loss: Option<f64>,
    /// The log loss of the calibration rows' own class frequencies (the model ignored).
    pub prior_log_loss: f64,
    /// The model's accuracy on the calibration rows.
    pub accuracy: f64,
}

impl fmt::Display for Calibration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "calibration on {} rows of {}: ", self.rows, self.file)?;
        match self.temperature {
            // Four significant digits whatever the model's weight units.
            Some(t) if t.abs() >= 1e5 || t.abs() < 1e-3 => write!(f, "temperature {t:.3e}")?,
            Some(t) => write!(f, "temperature {}", format_sig(t))?,
            None => write!(f, "temperature infinite (scores unused)")?,
        }
        if let Some(b) = self.unscored_logit {
            write!(f, ", unscored-class logit {b:.3}")?;
        }
        write!(f, "; log loss {:.4}", self.log_loss)?;
        if let Some(cv) = self.cv_log_loss {
            write!(f, " ({FOLDS}-fold {cv:.4})")?;
        }
        write!(
            f,
            ", class frequencies {:.4}; model accuracy {:.2}%",
            self.prior_log_loss,
            100.0 * self.accuracy
        )
    }
}

/// `x` with four significant digits (for `1e-3 <= |x| < 1e5`).
fn format_sig(x: f64) -> String {
    let digits = (3 - x.abs().log10().floor() as i32).max(0) as usize;
    format!("{x:.digits$}")
}

/// Reads the labelled rows of `path` through the model and fits the [`Softmax`].
///
/// # Errors
/// The file cannot be read, has no class column, or has no row of a class the model knows.
pub(crate) fn calibrate(
    loaded: &LoadedModel,
    path: &Path,
    args: &ReadArgs,
) -> Result<(Softmax, Calibration, Vec<String>)> {
    let (data, raw, mut align) = read_for_model(loaded, path, &args.options())
        .with_context(|| format!("{}: reading the --calibrate rows", path.display()))?;
    if align.unlabeled {
        bail!("{}: no class column; --calibrate needs labelled rows", path.display());
    }
    let model = loaded.model();
    let k = model.n_classes();
    let frac = 2f64.powi(model.weight_kind().frac_bits() as i32);
    let mut rows = Vec::with_capacity(raw.len());
    let mut correct = 0;
    let mut buffer = vec![0i64; k];
    for (x, &y) in raw.iter().zip(&data.y) {
        if y >= k {
            continue;
        }
        let c = model.predict_scores(x, &mut buffer).with_context(|| format!("{}: scoring", data.source))?;
        correct += usize::from(c == y);
        rows.push(Scored { scores: scores_of(&buffer, frac), y });
    }
    let mut warnings = Vec::new();
    for u in std::mem::take(&mut align.unseen_classes) {
        warnings.push(format!(
            "{}: class `{}` ({} rows) is not a class of the model; those rows are left out of the calibration",
            data.source, u.name, u.count
        ));
    }
    warnings.extend(align_warnings(&data.source, &align));
    if super::train::is_training_data(loaded, path) {
        warnings.push(format!(
            "--calibrate {}: these are the rows the model was trained on (its metadata's data_fnv1a64): the \
             probabilities will be overconfident; calibrate on held-out rows",
            path.display()
        ));
    }
    if rows.is_empty() {
        bail!("{}: no row of a class the model knows; nothing to calibrate on", data.source);
    }
    let softmax = fit(&rows, k);
    let any_unscored = rows.iter().any(|r| r.scores.iter().any(Option::is_none));
    let calibration = Calibration {
        file: data.source.clone(),
        rows: rows.len(),
        rows_left_out: raw.len() - rows.len(),
        temperature: (softmax.scale != 0.0).then(|| 1.0 / softmax.scale),
        unscored_logit: any_unscored.then_some(softmax.unscored),
        log_loss: log_loss(&softmax, &rows),
        cv_log_loss: cv_log_loss(&rows, k, FOLDS),
        prior_log_loss: prior_log_loss(&rows, k),
        accuracy: correct as f64 / rows.len() as f64,
    };
    let checked = calibration.cv_log_loss.unwrap_or(calibration.log_loss);
    if calibration.cv_log_loss.is_none() {
        warnings.push(format!(
            "{}: only {} calibration rows, too few for a {FOLDS}-fold check of the probabilities",
            data.source, calibration.rows
        ));
    }
    if checked >= calibration.prior_log_loss {
        warnings.push(format!(
            "{}: the calibrated probabilities are no better than the class frequencies of the calibration \
             rows (log loss {checked:.4} against {:.4})",
            data.source, calibration.prior_log_loss
        ));
    }
    if softmax.scale < 0.0 {
        warnings.push(format!(
            "{}: on the calibration rows higher scores went with wrong classes (temperature < 0), so the \
             probabilities rank the classes against the scores",
            data.source
        ));
    }
    Ok((softmax, calibration, warnings))
}
