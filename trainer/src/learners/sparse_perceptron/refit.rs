//! The weight fit beyond the paper: an L2-regularised logistic refit of the unit over the
//! boosted conjunctions, or over every conjunction of at most two literals, pruned.

use super::literals::feature_of;
use super::literals::{candidate_literals, compatible};
use super::{Booster, Params};
use crate::learners::unit_fit;
use crate::model::{Feature, InputSpec};

/// A unit refitted by [`WeightFit::Logistic`](super::WeightFit::Logistic) (or chosen so by
/// [`WeightFit::Auto`](super::WeightFit::Auto)): float weights over the boosted conjunctions.
#[derive(Debug, Clone, PartialEq)]
pub struct Refit {
    /// The L2 penalty of the fit.
    pub l2: f64,
    /// The conjunctions (features) the boosters chose, in the order of the rows' weights.
    pub features: Vec<Feature>,
    /// Float weights per feature and the bias last: one row (class 1 iff the score is `> 0`)
    /// for two classes, else one per class (argmax, ties to the lowest).
    pub rows: Vec<Vec<f64>>,
}

impl Refit {
    /// The refitted float unit's class for raw inputs `x`.
    pub fn predict(&self, x: &[i32]) -> usize {
        let values: Vec<i32> = self.features.iter().map(|f| f.value(x)).collect();
        decide_float(&self.rows, &values)
    }
}

/// The class float rows (weights, bias last) give feature values `v`: one row, `score > 0`;
/// several, argmax with ties to the lowest.
pub(super) fn decide_float(rows: &[Vec<f64>], v: &[i32]) -> usize {
    let n = v.len();
    let score = |r: &[f64]| r[n] + r[..n].iter().zip(v).map(|(w, &x)| w * f64::from(x)).sum::<f64>();
    if let [r] = rows {
        return usize::from(score(r) > 0.0);
    }
    let mut best = (f64::NEG_INFINITY, 0);
    for (i, r) in rows.iter().enumerate() {
        let s = score(r);
        if i == 0 || s > best.0 {
            best = (s, i);
        }
    }
    best.1
}

/// The distinct conjunction features of the boosters (identical conjunctions merged, single
/// literals as [`Feature::Equals`]/[`Feature::Greater`]), in order of first use.
pub(super) fn booster_features(boosters: &[Booster]) -> Vec<Feature> {
    let mut features: Vec<Feature> = Vec::new();
    for h in boosters.iter().flat_map(|b| &b.hypotheses) {
        if let Some((feature, _)) = feature_of(&h.literals) {
            if !features.contains(&feature) {
                features.push(feature);
            }
        }
    }
    features
}

/// Logistic refit (L2 penalty `l2`) of a unit over `features` on `rows`.
pub(super) fn refit(
    features: Vec<Feature>,
    rows: &[&[i32]],
    labels: &[usize],
    n_classes: usize,
    l2: f64,
) -> Refit {
    let d = features.len();
    let x: Vec<i32> = rows.iter().flat_map(|r| features.iter().map(|f| f.value(r))).collect();
    let max_abs: Vec<i64> = features.iter().map(Feature::max_abs).collect();
    let fit_rows = unit_fit::Rows { x: &x, d, y: labels, m: n_classes };
    let w = unit_fit::logistic(fit_rows, &max_abs, unit_fit::Params { l2, ..Default::default() });
    Refit { l2, features, rows: w }
}

/// Fraction of the features each step of the pruning (`pruned_refit`) keeps (the ones with the
/// largest weights) until a step would cost a training row; then steps drop half as many.
pub const PRUNE_KEEP: f64 = 0.7;

/// [`Params::all_conjunctions`] is only tried when rows × features × unit rows is at most this
/// (a few milliseconds per logistic fit), so it costs little beside boosting.
pub const ALL_CONJUNCTIONS_WORK: usize = 1 << 19;

/// Every distinct feature of one literal and every conjunction of two compatible literals
/// (when `p.max_literals ≥ 2`) over [`candidate_literals`] of `rows`, or `None` when there are
/// more than `cap` or none (every input constant).
pub(super) fn all_conjunctions(
    inputs: &[InputSpec],
    rows: &[&[i32]],
    p: &Params,
    cap: usize,
) -> Option<Vec<Feature>> {
    let owned: Vec<Vec<i32>> = rows.iter().map(|r| r.to_vec()).collect();
    let literals = candidate_literals(inputs, &owned, p);
    let mut features: Vec<Feature> = Vec::new();
    for l in &literals {
        let (feature, _) = feature_of(std::slice::from_ref(l))?;
        if !features.contains(&feature) {
            features.push(feature);
        }
        if features.len() > cap {
            return None;
        }
    }
    if p.max_literals >= 2 {
        for (i, a) in literals.iter().enumerate() {
            for b in literals[i + 1..].iter().filter(|b| compatible(a, b)) {
                features.push(Feature::Conjunction(vec![*a, *b]));
                if features.len() > cap {
                    return None;
                }
            }
        }
    }
    (!features.is_empty()).then_some(features)
}

/// The refit over every conjunction (see [`all_conjunctions`]) on `rows`, pruned as long as
/// that costs no training row: each step refits over the features with the largest weight
/// magnitudes (largest over the unit's rows; every feature is ±1), dropping
/// `1 − `[`PRUNE_KEEP`] of them; a step that would lose a training row is retried dropping half
/// as many, down to one feature. Returns the last refit that classifies as many of `rows`
/// correctly as the first one (over every conjunction) does.
pub(super) fn pruned_refit(
    features: Vec<Feature>,
    rows: &[&[i32]],
    labels: &[usize],
    n_classes: usize,
    l2: f64,
) -> Refit {
    let correct = |unit: &Refit| rows.iter().zip(labels).filter(|(x, &y)| unit.predict(x) == y).count();
    let first = refit(features.clone(), rows, labels, n_classes, l2);
    let target = correct(&first);
    let (mut kept, mut kept_features) = (first, features);
    let mut fraction = 1.0 - PRUNE_KEEP;
    while kept_features.len() > 1 {
        let d = kept_features.len();
        let drop = ((d as f64 * fraction).floor() as usize).clamp(1, d - 1);
        let weight = |j: usize| kept.rows.iter().map(|r| r[j].abs()).fold(0.0, f64::max);
        let mut order: Vec<usize> = (0..d).collect();
        order.sort_by(|&a, &b| weight(b).total_cmp(&weight(a)));
        let mut keep = order[..d - drop].to_vec();
        keep.sort_unstable();
        let fewer: Vec<Feature> = keep.into_iter().map(|j| kept_features[j].clone()).collect();
        let unit = refit(fewer.clone(), rows, labels, n_classes, l2);
        if correct(&unit) >= target {
            (kept, kept_features) = (unit, fewer);
        } else if drop == 1 {
            break;
        } else {
            fraction /= 2.0;
        }
    }
    kept
}
