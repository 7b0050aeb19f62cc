//! Probability calibration of a model's scores: a softmax with two parameters fitted on labelled
//! rows.
//!
//! Raw scores are not probabilities: they are weighted sums in the model's weight units, and the
//! unit that decides scores only some classes (a list entry or a binary unit one or two, a
//! constant leaf only its own class with 0). So `p(c) ∝ exp(s_c / T)` for a class the deciding
//! unit scores and `p(c) ∝ exp(b)` for a class it does not. `T` and `b` minimize the log loss on
//! the calibration rows (Newton's method on a convex objective; Platt's smoothed targets and a
//! tiny ridge keep them finite when the rows are separable). [`cv_log_loss`] scores each fold of
//! the rows by parameters fitted on the rest; [`prior_log_loss`] is the baseline that ignores the
//! model.

/// One labelled row: the deciding unit's per-class scores (`None`: not scored) and the class.
#[derive(Debug, Clone, PartialEq)]
pub struct Scored {
    /// Score of each class in score units; `None` for a class the deciding unit does not score.
    pub scores: Vec<Option<f64>>,
    /// The row's class.
    pub y: usize,
}

/// `p(c) ∝ exp(scale · s_c)` for scored classes, `exp(unscored)` for the others.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Softmax {
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
pub fn log_loss(model: &Softmax, rows: &[Scored]) -> f64 {
    -rows.iter().map(|r| model.log_p(&r.scores, r.y)).sum::<f64>() / rows.len().max(1) as f64
}

/// Mean `-ln f(true class)` with `f` the class frequencies of `rows` themselves.
pub fn prior_log_loss(rows: &[Scored], n_classes: usize) -> f64 {
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
pub fn fit(rows: &[Scored], n_classes: usize) -> Softmax {
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
pub fn cv_log_loss(rows: &[Scored], n_classes: usize, folds: usize) -> Option<f64> {
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

/// A `predict_scores` buffer in score units (`None`: the class was not scored).
pub fn scores_of(buffer: &[i64], frac: f64) -> Vec<Option<f64>> {
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
        let mut rng = crate::rng::Rng::new(7);
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
