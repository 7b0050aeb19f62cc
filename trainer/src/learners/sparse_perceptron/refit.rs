//! The weight fit beyond the paper: an L2-regularised logistic refit of the unit over the
//! boosted conjunctions, or over every conjunction of at most two literals, pruned.

use super::literals::feature_of;
use super::literals::{candidate_literals, compatible};
use super::{Booster, Params};
use crate::data::split;
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

/// Per class (for more than two classes: one booster per class, in class order), the indices
/// into `features` (from [`booster_features`] of the same `boosters`) of the conjunctions that
/// class's booster chose.
pub(super) fn class_support(boosters: &[Booster], features: &[Feature]) -> Vec<Vec<usize>> {
    boosters
        .iter()
        .map(|b| {
            let mut used: Vec<usize> = (b.hypotheses.iter())
                .filter_map(|h| feature_of(&h.literals))
                .filter_map(|(f, _)| features.iter().position(|g| *g == f))
                .collect();
            used.sort_unstable();
            used.dedup();
            used
        })
        .collect()
}

/// Rows × features × unit rows (the work of one pass of the logistic fit) beyond which a
/// logistic refit fits on a seeded stratified sample of the rows (at least [`REFIT_MIN_ROWS`]): a
/// fit's cost is this work times its iterations (up to 200), and a few hundred weights are
/// estimated as well from the sample as from every row.
pub const REFIT_WORK: usize = 1 << 24;

/// The fewest rows a sampled refit keeps (see [`REFIT_WORK`]).
pub const REFIT_MIN_ROWS: usize = 4_000;

/// The rows [`refit`] fits on: every one of the `labels.len()` rows when their work
/// (rows × `per_row`, the weights one row's pass touches) is at most [`REFIT_WORK`], else a
/// stratified sample (seed `seed`) of as many as fit in it, at least [`REFIT_MIN_ROWS`]. `None`:
/// every row.
pub(super) fn refit_sample(
    labels: &[usize],
    n_classes: usize,
    per_row: usize,
    seed: u64,
) -> Option<Vec<usize>> {
    let m = labels.len();
    let target = (REFIT_WORK / per_row.max(1)).max(REFIT_MIN_ROWS);
    (m > target).then(|| {
        let rest = 1.0 - target as f64 / m as f64;
        split::hold_out(labels, n_classes, rest, seed).0
    })
}

/// Logistic refit (L2 penalty `l2`) of a unit over `features` on `rows`, or on the sample of
/// them [`refit_sample`] draws with `seed` when they are many.
///
/// Two classes: one sigmoid row. More: a softmax, each class's row over every feature, unless
/// `support` (per class, the features its booster chose: [`class_support`]) is given and the
/// work budget affords the full softmax (features × classes per row) fewer than
/// [`REFIT_MIN_ROWS`] rows; then each class's row weighs only its own features
/// ([`unit_fit::logistic_supported`]), which costs rows × Σ (features per class) — about
/// `1 / classes` of the full softmax's — and so fits on more rows of the same budget.
pub(super) fn refit(
    features: Vec<Feature>,
    support: Option<&[Vec<usize>]>,
    rows: &[&[i32]],
    labels: &[usize],
    n_classes: usize,
    l2: f64,
    seed: u64,
) -> Refit {
    let d = features.len();
    let unit_rows = if n_classes == 2 { 1 } else { n_classes };
    let restricted = support.filter(|s| {
        let affordable = REFIT_WORK / (d * unit_rows).max(1);
        n_classes > 2 && s.len() == n_classes && affordable < REFIT_MIN_ROWS.min(rows.len())
    });
    let per_row = restricted.map_or(d * unit_rows, |s| s.iter().map(Vec::len).sum::<usize>());
    let (sample_rows, sample_labels): (Vec<&[i32]>, Vec<usize>);
    let (rows, labels) = match refit_sample(labels, n_classes, per_row, seed) {
        Some(keep) => {
            sample_rows = keep.iter().map(|&i| rows[i]).collect();
            sample_labels = keep.iter().map(|&i| labels[i]).collect();
            (sample_rows.as_slice(), sample_labels.as_slice())
        }
        None => (rows, labels),
    };
    let x: Vec<i32> = rows.iter().flat_map(|r| features.iter().map(|f| f.value(r))).collect();
    let max_abs: Vec<i64> = features.iter().map(Feature::max_abs).collect();
    let params = unit_fit::Params { l2, ..Default::default() };
    let fit_rows = unit_fit::Rows { x: &x, d, y: labels, m: n_classes };
    let weights = match restricted {
        Some(s) => unit_fit::logistic_supported(fit_rows, &max_abs, s, params),
        None => unit_fit::logistic(fit_rows, &max_abs, params),
    };
    Refit { l2, features, rows: weights }
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
/// correctly as the first one (over every conjunction) does. `seed`: see [`refit`].
pub(super) fn pruned_refit(
    features: Vec<Feature>,
    rows: &[&[i32]],
    labels: &[usize],
    n_classes: usize,
    l2: f64,
    seed: u64,
) -> Refit {
    let correct = |unit: &Refit| rows.iter().zip(labels).filter(|(x, &y)| unit.predict(x) == y).count();
    let first = refit(features.clone(), None, rows, labels, n_classes, l2, seed);
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
        let unit = refit(fewer.clone(), None, rows, labels, n_classes, l2, seed);
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

#[cfg(test)]
mod tests {
    use super::{refit_sample, REFIT_MIN_ROWS, REFIT_WORK};
    use crate::learners::unit_fit;

    /// A softmax restricted to each class's own features leaves the others at exactly zero, fits
    /// the classes those features tell apart, and with every feature supported is the full
    /// softmax, bit for bit.
    #[test]
    fn restricted_softmax_weighs_only_each_classs_features() {
        // Three classes over four ±1 features: feature c (c < 3) is +1 exactly on class c's rows.
        let n = 90;
        let y: Vec<usize> = (0..n).map(|i| i % 3).collect();
        let x: Vec<i32> = (0..n)
            .flat_map(|i| (0..4).map(move |j| if j == i % 3 || (j == 3 && i % 2 == 0) { 1 } else { -1 }))
            .collect();
        let rows = unit_fit::Rows { x: &x, d: 4, y: &y, m: 3 };
        let max_abs = [1; 4];
        let p = unit_fit::Params { l2: 0.1, ..Default::default() };
        let support = vec![vec![0], vec![1, 3], vec![2]];
        let w = unit_fit::logistic_supported(rows, &max_abs, &support, p);
        for (class, row) in w.iter().enumerate() {
            for j in (0..4).filter(|j| !support[class].contains(j)) {
                assert_eq!(row[j], 0.0, "class {class}, feature {j}");
            }
            assert!(row[class] > 0.0, "class {class} weighs its own feature up");
        }
        let decide = |i: usize| {
            let xi = &x[i * 4..(i + 1) * 4];
            let score = |r: &[f64]| r[4] + (0..4).map(|j| r[j] * f64::from(xi[j])).sum::<f64>();
            (0..3).max_by(|&a, &b| score(&w[a]).total_cmp(&score(&w[b]))).unwrap()
        };
        assert!((0..n).all(|i| decide(i) == y[i]));
        let every = vec![(0..4).collect::<Vec<_>>(); 3];
        assert_eq!(
            unit_fit::logistic_supported(rows, &max_abs, &every, p),
            unit_fit::logistic(rows, &max_abs, p)
        );
    }

    /// Few rows or few weights per row: every row. Many: a stratified sample of as many rows as
    /// fit in the work budget (never fewer than the minimum), the same one for the same seed.
    #[test]
    fn refits_sample_rows_only_beyond_the_work_budget() {
        let labels: Vec<usize> = (0..60_000).map(|i| i % 3).collect();
        assert_eq!(refit_sample(&labels[..1000], 3, 1500, 7), None);
        assert_eq!(refit_sample(&labels, 3, 30, 7), None);
        let keep = refit_sample(&labels, 3, 600, 7).expect("60,000 × 200 × 3 exceeds the budget");
        let want = REFIT_WORK / (200 * 3);
        assert!(keep.len().abs_diff(want) <= 3, "{} rows, want about {want}", keep.len());
        for class in 0..3 {
            let n = keep.iter().filter(|&&i| labels[i] == class).count();
            assert!(n.abs_diff(want / 3) <= 3, "class {class}: {n} rows");
        }
        assert_eq!(refit_sample(&labels, 3, 600, 7), Some(keep));
        // A huge unit still keeps the minimum.
        let binary: Vec<usize> = (0..60_000).map(|i| i % 2).collect();
        let two = refit_sample(&binary, 2, 400, 7).expect("60,000 × 400 exceeds the budget");
        assert!(two.len().abs_diff(REFIT_WORK / 400) <= 3, "{} rows", two.len());
        let floor = refit_sample(&labels, 3, 300_000, 7).expect("over the budget");
        assert!(floor.len().abs_diff(REFIT_MIN_ROWS) <= 3, "{} rows", floor.len());
    }
}
