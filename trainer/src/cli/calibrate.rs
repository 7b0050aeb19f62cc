//! `ltu predict --probabilities --calibrate FILE`: class probabilities from the deciding unit's
//! scores, calibrated at predict time on labelled rows.
//!
//! The model file stores no calibration (the format has no place for it yet), and raw scores are
//! not probabilities: they are weighted sums in the model's weight units, and the unit that
//! decides scores only some classes (a list entry or a binary unit one or two, a constant leaf only
//! its own class with 0). So the probabilities are a softmax with two parameters fitted on labelled
//! rows: `p(c) ∝ exp(s_c / T)` for a class the deciding unit scores (`s_c`, as `--scores` prints
//! it) and `p(c) ∝ exp(b)` for a class it does not score. `T` and `b` minimize the log loss on
//! the calibration rows (Newton's method on a convex objective; Platt's smoothed targets and a tiny
//! ridge keep them finite when the rows are separable). The report gives that log loss, a 5-fold
//! cross-validated one (each fifth of the rows scored by parameters fitted on the rest) and the
//! log loss of the calibration rows' class frequencies, the baseline that ignores the model.

use std::fmt;
use std::path::Path;

use anyhow::{bail, Context as _, Result};
use serde::Serialize;

use super::args::ReadArgs;
use super::model::{align_warnings, read_for_model, LoadedModel};

/// One labelled row: the deciding unit's per-class scores (`None`: not scored) and the class.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Scored {
    pub scores: Vec<Option<f64>>,
    pub y: usize,
}

/// `p(c) ∝ exp(scale · s_c)` for scored classes, `exp(unscored)` for the others.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Softmax {
    /// `1 / T`, per score unit.
    pub scale: f64,
    /// The logit of a class the deciding unit does not score.
    pub unscored: f64,
}

impl Softmax {
    fn logits(&self, scores: &[Option<f64>]) -> Vec<f64> {
        scores.iter().map(|s| s.map_or(self.unscored, |s| self.scale * s)).collect()
    }

    /// The probability of each class (they sum to 1).
    pub fn probabilities(&self, scores: &[Option<f64>]) -> Vec<f64> {
        let z = self.logits(scores);
        let m = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let e: Vec<f64> = z.iter().map(|v| (v - m).exp()).collect();
        let sum: f64 = e.iter().sum();
        e.iter().map(|v| v / sum).collect()
    }

    /// `ln p(y)`, exactly (no rounding of tiny probabilities to zero).
    fn log_p(&self, scores: &[Option<f64>], y: usize) -> f64 {
        let z = self.logits(scores);
        let m = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let lse = m + z.iter().map(|v| (v - m).exp()).sum::<f64>().ln();
        z[y] - lse
    }
}

/// Mean `-ln p(true class)` of `rows` under `model`.
pub(crate) fn log_loss(model: &Softmax, rows: &[Scored]) -> f64 {
    -rows.iter().map(|r| model.log_p(&r.scores, r.y)).sum::<f64>() / rows.len().max(1) as f64
}

/// Mean `-ln f(true class)` with `f` the class frequencies of `rows` themselves.
pub(crate) fn prior_log_loss(rows: &[Scored], n_classes: usize) -> f64 {
    let mut count = vec![0usize; n_classes];
    for r in rows {
        count[r.y] += 1;
    }
    let n = rows.len().max(1) as f64;
    // `+ 0.0`: a perfect baseline prints as 0, not -0.
    -rows.iter().map(|r| (count[r.y] as f64 / n).ln()).sum::<f64>() / n + 0.0
}

/// The [`Softmax`] minimizing the log loss on `rows` against Platt's smoothed targets (the true
/// class `(n + 1) / (n + k)`, every other `1 / (n + k)`) plus `1e-6 / 2 · |θ|²` on the parameters
/// in normalized score units (so the optimum is finite and unique).
pub(crate) fn fit(rows: &[Scored], n_classes: usize) -> Softmax {
    // Scores in units of their root mean square, so both parameters are of order one.
    let finite: Vec<f64> = rows.iter().flat_map(|r| r.scores.iter().flatten().copied()).collect();
    let rms = (finite.iter().map(|s| s * s).sum::<f64>() / finite.len().max(1) as f64).sqrt();
    let unit = if rms > 0.0 && rms.is_finite() { rms } else { 1.0 };
    let n = rows.len() as f64;
    let k = n_classes as f64;
    let (t_true, t_other) = ((n + 1.0) / (n + k), 1.0 / (n + k));
    const RIDGE: f64 = 1e-6;
    // Objective, gradient and Hessian at θ = (scale · unit, unscored).
    let eval = |th: [f64; 2], derivatives: bool| -> (f64, [f64; 2], [[f64; 2]; 2]) {
        let model = Softmax { scale: th[0] / unit, unscored: th[1] };
        let (mut f, mut g, mut h) = (0.0, [0.0; 2], [[0.0; 2]; 2]);
        for r in rows {
            let z = model.logits(&r.scores);
            let m = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let e: Vec<f64> = z.iter().map(|v| (v - m).exp()).collect();
            let sum: f64 = e.iter().sum();
            let lse = m + sum.ln();
            // A scored class's feature is (s / unit, 0), an unscored one's (0, 1).
            let mut mean = [0.0; 2];
            for (c, (&zc, &ec)) in z.iter().zip(&e).enumerate() {
                let t = if c == r.y { t_true } else { t_other };
                f -= t * (zc - lse);
                if !derivatives {
                    continue;
                }
                let p = ec / sum;
                match r.scores[c] {
                    Some(s) => {
                        let u = s / unit;
                        g[0] += (p - t) * u;
                        mean[0] += p * u;
                        h[0][0] += p * u * u;
                    }
                    None => {
                        g[1] += p - t;
                        mean[1] += p;
                        h[1][1] += p;
                    }
                }
            }
            h[0][0] -= mean[0] * mean[0];
            h[0][1] -= mean[0] * mean[1];
            h[1][0] -= mean[1] * mean[0];
            h[1][1] -= mean[1] * mean[1];
        }
        let n = n.max(1.0);
        f = f / n + 0.5 * RIDGE * (th[0] * th[0] + th[1] * th[1]);
        g = [g[0] / n + RIDGE * th[0], g[1] / n + RIDGE * th[1]];
        h = [[h[0][0] / n + RIDGE, h[0][1] / n], [h[1][0] / n, h[1][1] / n + RIDGE]];
        (f, g, h)
    };
    let mut th = [1.0, 0.0];
    for _ in 0..200 {
        let (f, g, h) = eval(th, true);
        if g[0].abs().max(g[1].abs()) < 1e-12 {
            break;
        }
        // Newton step (the Hessian is positive definite: a convex objective plus the ridge).
        let det = h[0][0] * h[1][1] - h[0][1] * h[1][0];
        let d = [-(h[1][1] * g[0] - h[0][1] * g[1]) / det, -(h[0][0] * g[1] - h[1][0] * g[0]) / det];
        let slope = g[0] * d[0] + g[1] * d[1];
        let mut t = 1.0;
        let next = loop {
            let cand = [th[0] + t * d[0], th[1] + t * d[1]];
            if eval(cand, false).0 <= f + 1e-4 * t * slope || t < 1e-12 {
                break cand;
            }
            t *= 0.5;
        };
        let moved = (next[0] - th[0]).abs().max((next[1] - th[1]).abs());
        th = next;
        if moved < 1e-13 {
            break;
        }
    }
    Softmax { scale: th[0] / unit, unscored: th[1] }
}

/// Mean held-out log loss over `folds` folds (row `i` in fold `i % folds`), each fold scored by
/// the parameters fitted on the others; `None` for fewer than `2 · folds` rows.
pub(crate) fn cv_log_loss(rows: &[Scored], n_classes: usize, folds: usize) -> Option<f64> {
    if rows.len() < 2 * folds {
        return None;
    }
    let mut total = 0.0;
    for f in 0..folds {
        let in_fold = |i: &usize| i % folds == f;
        let train: Vec<Scored> =
            rows.iter().enumerate().filter(|(i, _)| !in_fold(i)).map(|(_, r)| r.clone()).collect();
        let model = fit(&train, n_classes);
        total -= rows
            .iter()
            .enumerate()
            .filter(|(i, _)| in_fold(i))
            .map(|(_, r)| model.log_p(&r.scores, r.y))
            .sum::<f64>();
    }
    Some(total / rows.len() as f64)
}

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

/// A `predict_scores` buffer in score units (`None`: the class was not scored).
pub(crate) fn scores_of(buffer: &[i64], frac: f64) -> Vec<Option<f64>> {
    buffer.iter().map(|&s| (s != i64::MIN).then(|| s as f64 / frac)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(scores: &[Option<f64>], y: usize) -> Scored {
        Scored { scores: scores.to_vec(), y }
    }

    /// Temperature scaling recovers the temperature that generated the labels.
    #[test]
    fn fit_recovers_a_known_temperature() {
        let truth = Softmax { scale: 0.25, unscored: 0.0 };
        let mut rng = ltu::rng::Rng::new(7);
        let rows: Vec<Scored> = (0..20_000)
            .map(|_| {
                let s = (rng.next_u64() % 2001) as f64 / 100.0 - 10.0;
                let scores = [Some(s), Some(-s)];
                let p = truth.probabilities(&scores)[0];
                let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
                row(&scores, usize::from(u >= p))
            })
            .collect();
        let fitted = fit(&rows, 2);
        assert!((fitted.scale - 0.25).abs() < 0.02, "{fitted:?}");
        assert!(log_loss(&fitted, &rows) <= log_loss(&truth, &rows) + 1e-3);
        assert!(log_loss(&fitted, &rows) < prior_log_loss(&rows, 2));
    }

    /// The fitted parameters are a minimum (no nearby pair does better beyond what the target
    /// smoothing explains), and a class the deciding unit does not score gets a fitted logit.
    #[test]
    fn fit_is_a_minimum_and_handles_unscored_classes() {
        // A constant leaf right 3 times in 4, a list entry with a score.
        let mut rows = Vec::new();
        for i in 0..40 {
            rows.push(row(&[Some(0.0), None, None], if i % 4 == 0 { 1 } else { 0 }));
            rows.push(row(&[None, Some(2.0 + f64::from(i % 3)), None], if i % 5 == 0 { 2 } else { 1 }));
        }
        let m = fit(&rows, 3);
        let base = log_loss(&m, &rows);
        for (da, db) in [(0.05, 0.0), (-0.05, 0.0), (0.0, 0.05), (0.0, -0.05)] {
            let other = Softmax { scale: m.scale + da, unscored: m.unscored + db };
            assert!(log_loss(&other, &rows) > base - 1e-3, "{m:?} vs {other:?}");
        }
        let p = m.probabilities(&[Some(0.0), None, None]);
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!(p[0] > 0.6 && p[0] < 0.85, "a constant leaf right 3 times in 4: {p:?}");
        assert!((p[1] - p[2]).abs() < 1e-12, "unscored classes are alike");
    }

    /// Separable rows (every prediction right, with a margin) still give finite parameters.
    #[test]
    fn separable_rows_stay_finite() {
        let rows: Vec<Scored> =
            (0..30).map(|i| row(&[Some(1.0 + f64::from(i)), Some(-1.0 - f64::from(i))], 0)).collect();
        let m = fit(&rows, 2);
        assert!(m.scale.is_finite() && m.scale > 0.0, "{m:?}");
        // Platt's targets ask for p(true) near 31/32 on average, not 1.
        let p: Vec<f64> = rows.iter().map(|r| m.probabilities(&r.scores)[0]).collect();
        assert!(p.iter().sum::<f64>() / 30.0 > 0.9 && p[29] > 0.99 && p[0] > 0.5, "{m:?}: {p:?}");
        assert!(cv_log_loss(&rows, 2, 5).is_some_and(f64::is_finite));
        assert_eq!(cv_log_loss(&rows[..9], 2, 5), None);
    }
}
