//! Noise-tolerant entries (beyond the paper; section 6.3 names noise as open): an entry may
//! misclassify a bounded share of the rows it covers.
//!
//! The exact covering (sections 3 and 5) asks for a halfspace that covers examples of one class
//! and **no** example of another. On noisy or overlapping data (sensor readings, labels with a
//! few percent of errors) such halfspaces only cover small clusters: the list grows an entry per
//! handful of rows, fits the noise, costs an IncLP search per entry, and on overlapping classes
//! never covers most of the rows at all (the rest fall to the default class).
//!
//! A tolerant entry for class `t` is found pocket-style on the rows left: a linear score of
//! "class `t` against the rest" is fitted by L2-regularised logistic regression
//! ([`unit_fit::logistic`], on a seeded sample of at most [`FIT_ROWS`] rows left), the rows left
//! are sorted by that score, and the entry's threshold is the lowest one at which the rows it
//! covers are at most a share `tolerance` of other classes. A single input (`±x_j`, chosen on
//! the same sample) competes with the logistic score: the one that covers more rows of the
//! class is the entry. Entries are ranked as in the exact
//! method (the larger covered fraction of the class, then the larger count). The share is chosen
//! by held-out rows ([`Tolerance::HeldOut`]: each share of [`SHARES`] builds a list, the most
//! accurate on the held-out rows after pruning is kept), and the list stops once
//! [`PATIENCE`] entries in a row did not improve the held-out accuracy: held-out error, not
//! covering every training row, ends it.
//!
//! [`Tolerance::HeldOut`]: super::Tolerance::HeldOut

use super::inclp::{Cover, Halfspace};
use super::Sample;
use crate::learners::unit_fit;
use crate::rng::Rng;

/// The shares of other classes an entry may cover that [`Tolerance::HeldOut`](super::Tolerance::HeldOut)
/// compares.
pub const SHARES: [f64; 3] = [0.02, 0.08, 0.2];

/// Share of the training rows held out by a tolerant list when [`Params::validation`](super::Params::validation)
/// is 0: the list's stop and pruning, and the choice of the share, need held-out rows.
pub const HOLDOUT: f64 = 0.2;

/// A tolerant list stops after this many entries in a row that did not raise the held-out
/// accuracy of the list so far.
pub const PATIENCE: usize = 6;

/// The score of an entry is fitted on a seeded sample of at most this many of the rows left.
pub const FIT_ROWS: usize = 3000;

/// L-BFGS iterations of the score's fit (a ranking is needed, not the optimum's last digits).
const FIT_ITERATIONS: usize = 40;

/// Integer features of the sample's rows for the logistic fit: the quantized features when the
/// sample has them, else the float inputs on a grid of `±2^15`.
const FLOAT_GRID: f64 = 32767.0;

/// Integer feature `j` of row `i`.
type FeatureOf<'a> = dyn Fn(usize, usize) -> i32 + 'a;

/// How an entry's threshold is placed on its score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Cut {
    /// The lowest threshold at which at most this share of the covered rows is of other classes.
    Share(f64),
    /// The threshold with the most rows of the class above it less rows of other classes: the
    /// closing entry when no threshold keeps within the share (the rows left are mixed, and the
    /// constant default would give all of them one class).
    Gain,
}

/// Each class's score (a halfspace ranking it against the rest), fitted on the rows left at some
/// step and kept while the class has not won an entry since: the rows of other classes that
/// later entries take change the score little, and a threshold is placed on the rows left at
/// every step anyway. Refitting only the winner's class makes a step cost one fit, not one per
/// class.
#[derive(Debug, Default)]
pub(super) struct Scores(Vec<Option<Halfspace>>);

impl Scores {
    /// Forgets the scores of `classes` (refitted at their next step).
    pub(super) fn forget(&mut self, classes: &[usize]) {
        for &c in classes {
            if let Some(h) = self.0.get_mut(c) {
                *h = None;
            }
        }
    }
}

/// Per target class, the tolerant cover of the rows `alive` (the covered rows of its class, and
/// the halfspace), with the rows of other classes (the exact method's excluded set, for the
/// caller's bookkeeping). Classes whose fit has no row of its own or of another class left, or
/// whose cut covers no row of the class, are left out.
pub(super) fn covers(
    s: &Sample<'_>,
    alive: &[usize],
    targets: &[usize],
    cut: Cut,
    scores: &mut Scores,
    rng: &mut Rng,
) -> Vec<(usize, Cover, Vec<usize>)> {
    if scores.0.len() < s.n_classes {
        scores.0.resize(s.n_classes, None);
    }
    let d = s.x.first().map_or(0, Vec::len);
    let (max_abs, feature): (Vec<i64>, Box<FeatureOf<'_>>) = match s.quant {
        Some(q) => (q.max_abs.to_vec(), Box::new(move |i, j| q.features[i][j])),
        None => (vec![FLOAT_GRID as i64; d], Box::new(|i, j| (s.x[i][j] * FLOAT_GRID).round() as i32)),
    };
    let missing: Vec<usize> = targets.iter().copied().filter(|&t| scores.0[t].is_none()).collect();
    let sample: Vec<usize> = if alive.len() > FIT_ROWS {
        let mut v = alive.to_vec();
        for i in 0..FIT_ROWS {
            let j = i + rng.below(v.len() - i);
            v.swap(i, j);
        }
        v.truncate(FIT_ROWS);
        v
    } else {
        alive.to_vec()
    };
    if !missing.is_empty() {
        let flat: Vec<i32> =
            sample.iter().flat_map(|&i| (0..d).map(move |j| (i, j))).map(|(i, j)| feature(i, j)).collect();
        if let [a, b] = targets {
            // Two classes left: one fit answers both (class `a`'s score is the negated score of `b`).
            let h = fit(s, &sample, &flat, d, &max_abs, *b);
            scores.0[*a] = h.as_ref().map(Halfspace::negated);
            scores.0[*b] = h;
        } else {
            for &t in &missing {
                scores.0[t] = fit(s, &sample, &flat, d, &max_abs, t);
            }
        }
    }
    // The closing entry (mixed rows left) is the logistic score's: a single input's best gain
    // there is a coarse split that the held-out rows then rarely confirm.
    let axes = match cut {
        Cut::Share(_) => axis_cuts(s, &sample, d, targets, cut),
        Cut::Gain => vec![None; targets.len()],
    };
    let mut out = Vec::new();
    for (&t, axis) in targets.iter().zip(axes) {
        // The logistic score's cut or the best single input's, whichever covers more of the class.
        let Some((covered, h)) = [scores.0[t].clone(), axis]
            .into_iter()
            .flatten()
            .map(|h| threshold(s, alive, t, h, cut))
            .max_by_key(|(covered, h)| {
                (covered.len(), std::cmp::Reverse(h.w.iter().filter(|&&w| w != 0.0).count()))
            })
        else {
            continue;
        };
        if covered.is_empty() {
            continue;
        }
        let excl: Vec<usize> = alive.iter().copied().filter(|&i| s.y[i] != t).collect();
        out.push((t, Cover { covered, halfspace: h }, excl));
    }
    out
}

/// Per target class, the single-input halfspace (`±x_j`, before its threshold) whose best cut
/// under `cut` on the rows `sample` covers the most rows of the class (the most gain for
/// [`Cut::Gain`]), or `None` if no cut qualifies. A rule on one input costs one
/// multiply-accumulate and carves the axis-aligned regions a linear score cannot (a class in a
/// band of one sensor reading).
fn axis_cuts(
    s: &Sample<'_>,
    sample: &[usize],
    d: usize,
    targets: &[usize],
    cut: Cut,
) -> Vec<Option<Halfspace>> {
    let q = s.n_classes;
    // Per target: (value, feature, sign).
    let mut best: Vec<Option<(i64, usize, f64)>> = vec![None; targets.len()];
    let mut order: Vec<usize> = sample.to_vec();
    let mut count = vec![0usize; q];
    for j in 0..d {
        order.sort_by(|&a, &b| s.x[b][j].total_cmp(&s.x[a][j]));
        for sign in [1.0, -1.0] {
            count.iter_mut().for_each(|c| *c = 0);
            let rows: Box<dyn Iterator<Item = (usize, &usize)>> = if sign > 0.0 {
                Box::new(order.iter().enumerate())
            } else {
                Box::new(order.iter().rev().enumerate())
            };
            for (k, &i) in rows {
                count[s.y[i]] += 1;
                let n = k + 1;
                let next =
                    if sign > 0.0 { order.get(n) } else { order.len().checked_sub(n + 1).map(|m| &order[m]) };
                if next.is_some_and(|&nx| s.x[nx][j] == s.x[i][j]) {
                    continue;
                }
                for (slot, &t) in best.iter_mut().zip(targets) {
                    let (right, wrong) = (count[t] as i64, (n - count[t]) as i64);
                    let value = match cut {
                        Cut::Share(share) if wrong as f64 <= share * n as f64 && right > wrong => right,
                        Cut::Gain if right > wrong => right - wrong,
                        _ => continue,
                    };
                    if slot.is_none_or(|(v, _, _)| value > v) {
                        *slot = Some((value, j, sign));
                    }
                }
            }
        }
    }
    best.into_iter()
        .map(|b| {
            b.map(|(_, j, sign)| {
                let mut w = vec![0.0; d];
                w[j] = sign;
                Halfspace { w, b: 0.0 }
            })
        })
        .collect()
}

/// The halfspace over the sample's `[-1, 1]` inputs whose score ranks class `t` against the rest
/// on the rows `sample` (integer features `flat`), or `None` if one side has no row.
fn fit(
    s: &Sample<'_>,
    sample: &[usize],
    flat: &[i32],
    d: usize,
    max_abs: &[i64],
    t: usize,
) -> Option<Halfspace> {
    let y: Vec<usize> = sample.iter().map(|&i| usize::from(s.y[i] == t)).collect();
    let pos = y.iter().sum::<usize>();
    if pos == 0 || pos == y.len() {
        return None;
    }
    let rows = unit_fit::Rows { x: flat, d, y: &y, m: 2 };
    let w = unit_fit::logistic(rows, max_abs, unit_fit::Params { l2: 1.0, iterations: FIT_ITERATIONS });
    let row = &w[0];
    // Weights per unit of the integer feature `f_j = x_j · max_abs_j`: per unit of `x_j`.
    let w: Vec<f64> = row[..d].iter().zip(max_abs).map(|(w, &m)| w * m as f64).collect();
    Some(Halfspace { w, b: row[d] })
}

/// The rows of class `t` among `alive` covered by `h` moved to the threshold `cut` asks for
/// (thresholds only between distinct scores), and that halfspace. Empty if no threshold covers
/// more rows of class `t` than of others.
fn threshold(s: &Sample<'_>, alive: &[usize], t: usize, h: Halfspace, cut: Cut) -> (Vec<usize>, Halfspace) {
    let mut scored: Vec<(f64, usize)> = alive.iter().map(|&i| (h.score(&s.x[i]), i)).collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let (mut wrong, mut best, mut best_gain) = (0usize, 0usize, 0i64);
    for (k, &(score, i)) in scored.iter().enumerate() {
        wrong += usize::from(s.y[i] != t);
        let n = k + 1;
        let cut_here = scored.get(n).is_none_or(|&(next, _)| next < score);
        let gain = n as i64 - 2 * wrong as i64;
        let ok = match cut {
            Cut::Share(share) => wrong as f64 <= share * n as f64 && gain > 0,
            Cut::Gain => gain > best_gain,
        };
        if cut_here && ok {
            (best, best_gain) = (n, gain);
        }
    }
    if best == 0 {
        return (Vec::new(), h);
    }
    let low = scored[best - 1].0;
    let at = scored.get(best).map_or(low - 1.0, |&(next, _)| 0.5 * (low + next));
    let mut covered: Vec<usize> = scored[..best].iter().map(|&(_, i)| i).filter(|&i| s.y[i] == t).collect();
    covered.sort_unstable();
    (covered, Halfspace { b: h.b - at, ..h })
}
