//! Batch fitting of one linear threshold unit (a binary LTU or a linear machine) to the rows that
//! reach it, by L2-regularised logistic regression, then rounding to integer weights.
//!
//! Learners that grow a structure online (the perceptron tree) can refit each unit afterwards on
//! the training rows that reach it: the perceptron's pocket weights separate what they can but
//! know nothing of margins, while a regularised logistic fit places the boundary where the rows'
//! likelihood is highest and generalises better on noisy or overlapping classes.
//!
//! - [`logistic`]: minimises the mean log loss (sigmoid for two classes, softmax for more) plus
//!   `l2 / (2n) · ‖w‖²` (biases not penalised; `l2 = 1` is scikit-learn's `C = 1`) over features
//!   normalised to `f_j / max|f_j|`, with L-BFGS from zero weights: deterministic, no seed.
//! - [`to_integer`]: float rows → integer rows through [`crate::model::quantize::quantize`], on the
//!   `i8` grid when the rounded unit decides every fitted row as the float unit does, otherwise
//!   on the `i16` grid (quantization-aware: the narrow grid is kept only when it costs nothing
//!   on the rows).

use crate::model::quantize::{quantize, Grid};
use crate::model::WeightKind;

/// Options of [`logistic`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    /// L2 penalty: the objective is the mean log loss plus `l2 / (2n) · ‖w‖²`.
    pub l2: f64,
    /// Most L-BFGS iterations.
    pub iterations: usize,
    /// Most rows the fit reads: more are thinned to a systematic sample (every k-th row), which
    /// keeps each label's share when the rows are grouped by label or in no particular order.
    /// A fit's cost is rows × features × labels per iteration, so this bounds it where a model
    /// of a few hundred weights needs no more rows to settle.
    pub max_rows: usize,
}

impl Default for Params {
    fn default() -> Self {
        Params { l2: 1.0, iterations: 200, max_rows: usize::MAX }
    }
}

/// The positions of at most `max_rows` of `n` rows that [`Params::max_rows`] keeps: every k-th
/// row from the first (k the smallest stride that keeps at most `max_rows`), all of them when
/// `n <= max_rows`. Deterministic, and on rows grouped by label or in no particular order the
/// sample keeps each label's share.
pub fn systematic_sample(n: usize, max_rows: usize) -> Vec<usize> {
    let stride = n.div_ceil(max_rows.max(1)).max(1);
    (0..n).step_by(stride).collect()
}

/// Rows reaching a unit: `n` rows of `d` feature values (flat, row-major) and a label in `0..m`.
#[derive(Debug, Clone, Copy)]
pub struct Rows<'a> {
    /// Feature values, `n × d`.
    pub x: &'a [i32],
    /// Features per row.
    pub d: usize,
    /// Label of each row.
    pub y: &'a [usize],
    /// Number of labels (at least 2).
    pub m: usize,
}

/// Float weights of a fitted unit per unit of the *integer* feature (bias last): one row for two
/// labels (positive = label 1: score `> 0`), `m` rows for more (argmax).
pub fn logistic(rows: Rows<'_>, max_abs: &[i64], p: Params) -> Vec<Vec<f64>> {
    fit_logistic(rows, max_abs, None, p)
}

/// [`logistic`] for more than two labels with each label's row restricted to its own features:
/// `support[r]` lists (ascending) the features row `r` may weigh, the others stay at zero. A
/// pass costs rows × Σ |support| instead of rows × features × labels.
pub fn logistic_supported(
    rows: Rows<'_>,
    max_abs: &[i64],
    support: &[Vec<usize>],
    p: Params,
) -> Vec<Vec<f64>> {
    assert!(rows.m > 2 && support.len() == rows.m, "one support per label of a softmax");
    assert!(support.iter().flatten().all(|&j| j < rows.d), "supported features exist");
    fit_logistic(rows, max_abs, Some(support), p)
}

/// [`logistic`], with softmax rows restricted to `support` when given.
fn fit_logistic(rows: Rows<'_>, max_abs: &[i64], support: Option<&[Vec<usize>]>, p: Params) -> Vec<Vec<f64>> {
    let Rows { x, d, y, m } = rows;
    assert_eq!(x.len(), y.len() * d, "rows are n × d");
    assert_eq!(max_abs.len(), d, "one bound per feature");
    assert!(m >= 2, "a unit separates at least two labels");
    let k = if m == 2 { 1 } else { m };
    let scale: Vec<f64> = max_abs.iter().map(|&a| 1.0 / a.max(1) as f64).collect();
    let picked = systematic_sample(y.len(), p.max_rows);
    let n = picked.len();
    let xs: Vec<f64> = picked
        .iter()
        .flat_map(|&i| x[i * d..(i + 1) * d].iter().zip(&scale).map(|(&v, s)| f64::from(v) * s))
        .collect();
    let y: Vec<usize> = picked.iter().map(|&i| y[i]).collect();
    let lambda = p.l2 / n.max(1) as f64;
    let dim = d + 1;
    let objective = |w: &[f64], g: &mut [f64]| -> f64 {
        g.iter_mut().for_each(|v| *v = 0.0);
        let mut loss = 0.0;
        let mut z = vec![0.0; k];
        // `e^(z_r − max z)` of the current row, computed once for the loss and the gradient.
        let mut ez = vec![0.0; k];
        for i in 0..n {
            let xi = &xs[i * d..(i + 1) * d];
            for (r, zr) in z.iter_mut().enumerate() {
                let row = &w[r * dim..(r + 1) * dim];
                *zr = row[d]
                    + match support {
                        None => row[..d].iter().zip(xi).map(|(a, b)| a * b).sum::<f64>(),
                        Some(s) => s[r].iter().map(|&j| row[j] * xi[j]).sum::<f64>(),
                    };
            }
            if k == 1 {
                let s = if y[i] == 1 { 1.0 } else { -1.0 };
                let t = s * z[0];
                let et = t.exp();
                // log(1 + e^{-t}), stable.
                loss += if t > 0.0 { (-t).exp().ln_1p() } else { -t + et.ln_1p() };
                let coef = -s / (1.0 + et);
                for (gj, xj) in g[..d].iter_mut().zip(xi) {
                    *gj += coef * xj;
                }
                g[d] += coef;
            } else {
                let zmax = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                for (e, &zr) in ez.iter_mut().zip(&z) {
                    *e = (zr - zmax).exp();
                }
                let sum: f64 = ez.iter().sum();
                loss += zmax + sum.ln() - z[y[i]];
                for (r, &e) in ez.iter().enumerate() {
                    let coef = e / sum - f64::from(u8::from(r == y[i]));
                    let gr = &mut g[r * dim..(r + 1) * dim];
                    match support {
                        None => {
                            for (gj, xj) in gr[..d].iter_mut().zip(xi) {
                                *gj += coef * xj;
                            }
                        }
                        Some(s) => s[r].iter().for_each(|&j| gr[j] += coef * xi[j]),
                    }
                    gr[d] += coef;
                }
            }
        }
        let inv = 1.0 / n.max(1) as f64;
        loss *= inv;
        g.iter_mut().for_each(|v| *v *= inv);
        for r in 0..k {
            for j in 0..d {
                let wj = w[r * dim + j];
                loss += 0.5 * lambda * wj * wj;
                g[r * dim + j] += lambda * wj;
            }
        }
        loss
    };
    let w = lbfgs(k * dim, p.iterations, objective);
    w.chunks(dim)
        .map(|row| row[..d].iter().zip(&scale).map(|(w, s)| w * s).chain([row[d]]).collect())
        .collect()
}

/// Minimises `f` (value and gradient) from zero by L-BFGS (memory 8) with a backtracking Armijo
/// line search; stops after `iterations` steps or when the gradient or the step is negligible.
fn lbfgs(n: usize, iterations: usize, mut f: impl FnMut(&[f64], &mut [f64]) -> f64) -> Vec<f64> {
    const MEMORY: usize = 8;
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
    let mut w = vec![0.0; n];
    let mut g = vec![0.0; n];
    let mut fx = f(&w, &mut g);
    let mut hist: Vec<(Vec<f64>, Vec<f64>, f64)> = Vec::new();
    let mut w2 = vec![0.0; n];
    let mut g2 = vec![0.0; n];
    for _ in 0..iterations {
        let gnorm = dot(&g, &g).sqrt();
        if gnorm < 1e-7 {
            break;
        }
        // Two-loop recursion: d = −H·g.
        let mut q = g.clone();
        let mut alpha = vec![0.0; hist.len()];
        for (i, (s, yv, rho)) in hist.iter().enumerate().rev() {
            alpha[i] = rho * dot(s, &q);
            q.iter_mut().zip(yv).for_each(|(qj, yj)| *qj -= alpha[i] * yj);
        }
        let gamma = hist.last().map_or(1.0 / gnorm.max(1.0), |(s, yv, _)| dot(s, yv) / dot(yv, yv));
        q.iter_mut().for_each(|v| *v *= gamma);
        for (i, (s, yv, rho)) in hist.iter().enumerate() {
            let beta = rho * dot(yv, &q);
            q.iter_mut().zip(s).for_each(|(qj, sj)| *qj += (alpha[i] - beta) * sj);
        }
        let mut dir: Vec<f64> = q.iter().map(|v| -v).collect();
        let mut slope = dot(&g, &dir);
        if slope >= 0.0 {
            // Not a descent direction: restart from steepest descent.
            hist.clear();
            dir = g.iter().map(|v| -v / gnorm.max(1.0)).collect();
            slope = dot(&g, &dir);
        }
        let mut step = 1.0;
        let mut accepted = false;
        for _ in 0..40 {
            w2.iter_mut().zip(&w).zip(&dir).for_each(|((a, b), c)| *a = b + step * c);
            let f2 = f(&w2, &mut g2);
            if f2.is_finite() && f2 <= fx + 1e-4 * step * slope {
                accepted = true;
                let s: Vec<f64> = w2.iter().zip(&w).map(|(a, b)| a - b).collect();
                let yv: Vec<f64> = g2.iter().zip(&g).map(|(a, b)| a - b).collect();
                let sy = dot(&s, &yv);
                if sy > 1e-12 {
                    if hist.len() == MEMORY {
                        hist.remove(0);
                    }
                    hist.push((s, yv, 1.0 / sy));
                }
                let improvement = fx - f2;
                std::mem::swap(&mut w, &mut w2);
                std::mem::swap(&mut g, &mut g2);
                fx = f2;
                if improvement.abs() < 1e-12 * fx.abs().max(1.0) {
                    return w;
                }
                break;
            }
            step *= 0.5;
        }
        if !accepted {
            break;
        }
    }
    w
}

/// Integer rows of the float `rows` (per unit of the integer feature, bias last) on the `i8`
/// grid if, rounded there, the unit decides each of `rows_at`'s rows as the float unit does;
/// otherwise on the `i16` grid.
pub fn to_integer(rows: &[Vec<f64>], max_abs: &[i64], at: Rows<'_>) -> Vec<Vec<i64>> {
    let narrow = quantize(rows, max_abs, Grid::new(WeightKind::I8)).rows;
    let d = at.d;
    let same = (0..at.y.len()).all(|i| {
        let x = &at.x[i * d..(i + 1) * d];
        decide_f(rows, x) == decide_i(&narrow, x)
    });
    if same {
        narrow
    } else {
        quantize(rows, max_abs, Grid::new(WeightKind::I16)).rows
    }
}

/// [`logistic`] then [`to_integer`], then backward elimination by Akaike's criterion: the
/// features with the smallest contributions (largest `|w| · max_abs` over the unit's rows) are
/// left out and the unit refitted without them, kept while the fit's log likelihood on `rows`
/// drops by at most 1 per weight left out (a weight has to pay for itself). Half the features
/// are tried first; a step that costs more is retried with half as many, and a single feature
/// that costs more ends it (about `2 log₂ d` refits). Left-out features have weight 0 in every
/// row. Returns the integer rows and how many features were left out.
///
/// Why: a refitted unit spreads weight over every feature it reads, also over features that
/// carry little the others do not (wdbc's radius, perimeter and area); each costs the device a
/// multiply-accumulate and the model a weight. Leaving one out and refitting, rather than
/// zeroing it, lets the others take over its share.
pub fn logistic_pruned(rows: Rows<'_>, max_abs: &[i64], p: Params) -> (Vec<Vec<i64>>, usize) {
    let Rows { x, d, y, m } = rows;
    let n = y.len();
    // Weights per feature: one per row of the unit.
    let per_weight = if m == 2 { 1.0 } else { m as f64 };
    // The fit over the features in `keep`: its negative log likelihood and integer rows.
    let fit = |keep: &[usize]| {
        let xs: Vec<i32> = (0..n).flat_map(|i| keep.iter().map(move |&j| x[i * d + j])).collect();
        let bounds: Vec<i64> = keep.iter().map(|&j| max_abs[j]).collect();
        let sub = Rows { x: &xs, d: keep.len(), y, m };
        let float = logistic(sub, &bounds, p);
        let int = to_integer(&float, &bounds, sub);
        (neg_log_likelihood(&float, sub), float, int)
    };
    let mut keep: Vec<usize> = (0..d).collect();
    let (mut nll, mut float, mut int) = fit(&keep);
    // Leave out the `step` weakest at once; a step that costs too much is retried with half
    // as many, down to one, which ends it.
    let mut step = d / 2;
    while step >= 1 && keep.len() > 1 {
        step = step.min(keep.len() - 1);
        let contribution =
            |k: usize| float.iter().map(|r| (r[k] * max_abs[keep[k]] as f64).abs()).fold(0.0, f64::max);
        let mut order: Vec<usize> = (0..keep.len()).collect();
        order.sort_by(|&a, &b| contribution(a).total_cmp(&contribution(b)).then(a.cmp(&b)));
        let mut fewer: Vec<usize> = order[step..].iter().map(|&k| keep[k]).collect();
        fewer.sort_unstable();
        let (nll2, f2, i2) = fit(&fewer);
        if nll2 - nll > per_weight * step as f64 {
            step /= 2;
            continue;
        }
        (keep, nll, float, int) = (fewer, nll2, f2, i2);
    }
    // Back to all `d` features, zeros where left out.
    let full = int
        .iter()
        .map(|r| {
            let mut row = vec![0i64; d + 1];
            for (k, &j) in keep.iter().enumerate() {
                row[j] = r[k];
            }
            row[d] = r[keep.len()];
            row
        })
        .collect();
    (full, d - keep.len())
}

/// Negative log likelihood of `rows`' labels under the float unit `w` (per unit of the integer
/// feature, bias last): sigmoid of the score for one row, softmax for several.
fn neg_log_likelihood(w: &[Vec<f64>], rows: Rows<'_>) -> f64 {
    let Rows { x, d, y, .. } = rows;
    let score = |r: &[f64], xi: &[i32]| r[d] + r.iter().zip(xi).map(|(a, &b)| a * f64::from(b)).sum::<f64>();
    (0..y.len())
        .map(|i| {
            let xi = &x[i * d..(i + 1) * d];
            if w.len() == 1 {
                let t = if y[i] == 1 { 1.0 } else { -1.0 } * score(&w[0], xi);
                // log(1 + e^{-t}), stable.
                if t > 0.0 {
                    (-t).exp().ln_1p()
                } else {
                    -t + t.exp().ln_1p()
                }
            } else {
                let z: Vec<f64> = w.iter().map(|r| score(r, xi)).collect();
                let zmax = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                zmax + z.iter().map(|v| (v - zmax).exp()).sum::<f64>().ln() - z[y[i]]
            }
        })
        .sum()
}

/// The label float rows give: one row, `score > 0`; several, argmax (ties to the lowest).
fn decide_f(rows: &[Vec<f64>], x: &[i32]) -> usize {
    let score = |r: &[f64]| r[x.len()] + r.iter().zip(x).map(|(w, &v)| w * f64::from(v)).sum::<f64>();
    if rows.len() == 1 {
        return usize::from(score(&rows[0]) > 0.0);
    }
    let mut best = (f64::NEG_INFINITY, 0);
    for (i, r) in rows.iter().enumerate() {
        let s = score(r);
        if s > best.0 {
            best = (s, i);
        }
    }
    best.1
}

/// `decide_f` for integer rows.
pub fn decide_i(rows: &[Vec<i64>], x: &[i32]) -> usize {
    let score = |r: &[i64]| r[x.len()] + r.iter().zip(x).map(|(w, &v)| w * i64::from(v)).sum::<i64>();
    if rows.len() == 1 {
        return usize::from(score(&rows[0]) > 0);
    }
    let mut best = (i64::MIN, 0);
    for (i, r) in rows.iter().enumerate() {
        let s = score(r);
        if i == 0 || s > best.0 {
            best = (s, i);
        }
    }
    best.1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separates_a_separable_binary_problem() {
        // Label 1 iff 2·x0 − x1 > 3 over integer features in [-8, 8].
        let mut x = Vec::new();
        let mut y = Vec::new();
        for a in -8..=8 {
            for b in -8..=8 {
                if 2 * a - b == 3 {
                    continue;
                }
                x.extend([a, b]);
                y.push(usize::from(2 * a - b > 3));
            }
        }
        let rows = Rows { x: &x, d: 2, y: &y, m: 2 };
        let w = logistic(rows, &[8, 8], Params { l2: 1e-3, iterations: 500, ..Params::default() });
        assert_eq!(w.len(), 1);
        assert!(w[0][0] > 0.0 && w[0][1] < 0.0, "{w:?}");
        let q = to_integer(&w, &[8, 8], rows);
        let correct = x.chunks(2).zip(&y).filter(|(r, &l)| decide_i(&q, r) == l).count();
        assert!(correct >= y.len() - 2, "{correct} of {}", y.len());
    }

    /// Rows over 6 features: the label is `x0 + x1 > 0` (with 5 % of labels flipped); `x2` is a
    /// copy of `x0`, the rest noise.
    fn two_relevant_of_six() -> (Vec<i32>, Vec<usize>) {
        let mut rng = crate::rng::Rng::new(3);
        let (mut x, mut y) = (Vec::new(), Vec::new());
        for _ in 0..400 {
            let mut r: Vec<i32> = (0..6).map(|_| rng.below(33) as i32 - 16).collect();
            r[2] = r[0];
            let flip = rng.below(20) == 0;
            y.push(usize::from((r[0] + r[1] > 0) != flip));
            x.extend(r);
        }
        (x, y)
    }

    #[test]
    fn feature_selection_keeps_what_pays_and_refits() {
        let (x, y) = two_relevant_of_six();
        let rows = Rows { x: &x, d: 6, y: &y, m: 2 };
        let bounds = [16; 6];
        let (q, left_out) = logistic_pruned(rows, &bounds, Params::default());
        let used: Vec<usize> = (0..6).filter(|&j| q[0][j] != 0).collect();
        // x1 and one of the copies x0, x2; the noise is left out.
        assert_eq!(left_out, 4, "{q:?}");
        assert!(used.contains(&1) && (used.contains(&0) || used.contains(&2)), "{q:?}");
        let full = to_integer(&logistic(rows, &bounds, Params::default()), &bounds, rows);
        let correct = |q: &[Vec<i64>]| x.chunks(6).zip(&y).filter(|(r, &l)| decide_i(q, r) == l).count();
        assert!(correct(&q) >= correct(&full), "{} < {}", correct(&q), correct(&full));
    }

    #[test]
    fn feature_selection_keeps_every_feature_that_matters() {
        // Label 1 iff x0 + x1 + x2 > 0: leaving any one out costs far more than it saves.
        let mut x = Vec::new();
        let mut y = Vec::new();
        for a in -4..=4 {
            for b in -4..=4 {
                for c in -4..=4 {
                    if a + b + c != 0 {
                        x.extend([a, b, c]);
                        y.push(usize::from(a + b + c > 0));
                    }
                }
            }
        }
        let rows = Rows { x: &x, d: 3, y: &y, m: 2 };
        let (q, left_out) = logistic_pruned(rows, &[4, 4, 4], Params::default());
        assert_eq!(left_out, 0, "{q:?}");
    }

    #[test]
    fn a_machine_separates_three_clusters() {
        let centres = [(-6, 0), (6, 0), (0, 7)];
        let mut x = Vec::new();
        let mut y = Vec::new();
        for (c, &(cx, cy)) in centres.iter().enumerate() {
            for dx in -2..=2 {
                for dy in -2..=2 {
                    x.extend([cx + dx, cy + dy]);
                    y.push(c);
                }
            }
        }
        let rows = Rows { x: &x, d: 2, y: &y, m: 3 };
        let w = logistic(rows, &[10, 10], Params::default());
        assert_eq!(w.len(), 3);
        let q = to_integer(&w, &[10, 10], rows);
        assert!(x.chunks(2).zip(&y).all(|(r, &l)| decide_i(&q, r) == l));
        // The narrow grid suffices here, so it is used.
        assert!(q.iter().flatten().all(|v| v.abs() <= 127), "{q:?}");
    }

    #[test]
    fn l2_shrinks_the_weights() {
        let x = [1, -1, 1, -1, 1, 1];
        let y = [1, 0, 1, 0, 0, 1];
        let rows = Rows { x: &x, d: 1, y: &y, m: 2 };
        let loose = logistic(rows, &[1], Params { l2: 0.01, ..Params::default() });
        let tight = logistic(rows, &[1], Params { l2: 10.0, ..Params::default() });
        assert!(tight[0][0].abs() < loose[0][0].abs(), "{tight:?} vs {loose:?}");
    }

    /// A fit capped at fewer rows than it is given reads every k-th row: on rows grouped by
    /// label (all of label 0, then all of label 1) the sample keeps both labels, so the cut is
    /// still found, and the fit differs from the full one.
    #[test]
    fn max_rows_fits_a_systematic_sample() {
        let n = 1_000;
        let x: Vec<i32> = (0..n).map(|i| if i < n / 2 { -3 - (i % 7) } else { 3 + (i % 5) }).collect();
        let y: Vec<usize> = (0..n as usize).map(|i| usize::from(i >= n as usize / 2)).collect();
        let rows = Rows { x: &x, d: 1, y: &y, m: 2 };
        let full = logistic(rows, &[10], Params::default());
        let sampled = logistic(rows, &[10], Params { max_rows: 40, ..Params::default() });
        assert!(sampled[0][0] > 0.0 && full[0][0] > 0.0, "{sampled:?} {full:?}");
        assert_ne!(sampled, full);
        let q = to_integer(&sampled, &[10], rows);
        assert!(x.iter().zip(&y).all(|(&v, &l)| decide_i(&q, &[v]) == l));
    }
}
