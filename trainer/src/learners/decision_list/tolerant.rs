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
//! ([`unit_fit::logistic`], on a seeded sample of [`FIT_ROWS`] rows left, or
//! [`FIT_ROWS_PER_INPUT`] per input if more), the rows left are sorted by that score, and the
//! entry's threshold is the lowest one at which the rows it covers are at most a share
//! `tolerance` of other classes. Other scores compete with the class's: one per k-means cluster
//! of the class ([`cluster_scores`]: a class of several modes), one per value of a categorical
//! attribute where the class is over-represented ([`conditioned_scores`]: a class that depends
//! on an interaction), and a single input (`±x_j`); the one that covers the most rows of the
//! class on the sample is the entry. When no score covers enough rows within the share (the
//! rows left are mixed), the closing entries are cut where they gain the most ([`Cut::Gain`]).
//! Entries are ranked as in the exact
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
pub const SHARES: [f64; 4] = [0.02, 0.06, 0.12, 0.24];

/// Share of the training rows held out by a tolerant list when [`Params::validation`](super::Params::validation)
/// is 0: the list's stop and pruning, and the choice of the share, need held-out rows.
pub const HOLDOUT: f64 = 0.2;

/// A tolerant list stops after this many entries in a row that did not raise the held-out
/// accuracy of the list so far.
pub const PATIENCE: usize = 6;

/// The score of an entry is fitted on a seeded sample of at most this many of the rows left, or
/// [`FIT_ROWS_PER_INPUT`] per input if that is more.
pub const FIT_ROWS: usize = 3000;

/// Rows of the score's sample per input: a fit over many inputs (one per categorical value)
/// needs more rows than one over a few numeric columns, above all a score fitted on the rows
/// of one value of a categorical attribute, which sees a fifth of them on 5-valued attributes
/// (additive, 150 inputs: 89.9 % with 3,000 rows, 92.0 % with 10,000).
pub const FIT_ROWS_PER_INPUT: usize = 64;

/// At most this many clusters of a class get a score of their own ([`cluster_scores`]).
pub(super) const CLUSTERS: usize = 4;

/// A cluster score needs at least this many of the class's sampled rows per cluster.
const MIN_CLUSTER_ROWS: usize = 30;

/// Lloyd rounds of the k-means that splits a class into clusters.
const KMEANS_ROUNDS: usize = 8;

/// At most this many groups of a two-valued input get a score of their own per class
/// ([`conditioned_scores`]).
pub(super) const CONDITIONS: usize = 8;

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

/// Each class's scores (halfspaces ranking it, or one cluster of it, against the rest), fitted
/// on the rows left at some step and kept while the class has not won an entry since: the rows
/// of other classes that later entries take change the scores little, and a threshold is placed
/// on the rows left at every step anyway. Refitting only the winner's class makes a step cost
/// one class's fits, not every class's.
#[derive(Debug, Default)]
pub(super) struct Scores(Vec<Option<Vec<Halfspace>>>);

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
    let fit_n = FIT_ROWS.max(FIT_ROWS_PER_INPUT * d);
    let sample: Vec<usize> = if alive.len() > fit_n {
        let mut v = alive.to_vec();
        for i in 0..fit_n {
            let j = i + rng.below(v.len() - i);
            v.swap(i, j);
        }
        v.truncate(fit_n);
        v
    } else {
        alive.to_vec()
    };
    if !missing.is_empty() {
        let flat: Vec<i32> =
            sample.iter().flat_map(|&i| (0..d).map(move |j| (i, j))).map(|(i, j)| feature(i, j)).collect();
        let fit_rows = FitRows { s, sample: &sample, flat: &flat, d, max_abs: &max_abs };
        let whole: Vec<Option<Halfspace>> = if let [_, b] = targets {
            // Two classes left: one fit answers both (class `a`'s score is the negated score of `b`).
            let h = fit_rows.fit(|i| s.y[i] == *b, |_| true);
            vec![h.as_ref().map(Halfspace::negated), h]
        } else {
            targets
                .iter()
                .map(|&t| if missing.contains(&t) { fit_rows.fit(|i| s.y[i] == t, |_| true) } else { None })
                .collect()
        };
        for (&t, whole) in targets.iter().zip(whole) {
            if !missing.contains(&t) {
                continue;
            }
            let mut hs: Vec<Halfspace> = whole.into_iter().collect();
            hs.extend(cluster_scores(&fit_rows, t, rng));
            hs.extend(conditioned_scores(&fit_rows, t));
            scores.0[t] = Some(hs);
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
        // Of the scores (the class's, its clusters', the best single input's), the one whose cut
        // on the sample covers the most of the class; its threshold is then placed on every row
        // left. Judging the candidates on the sample keeps a step's cost to one pass over the
        // rows left per class.
        let candidates: Vec<Halfspace> = scores.0[t].iter().flatten().cloned().chain(axis).collect();
        let Some(h) = candidates
            .into_iter()
            .map(|h| {
                let (covered, wrong, _) = threshold(s, &sample, t, &h, cut);
                // Within a share: the most rows of the class; the closing entry: the most gain.
                let value = match cut {
                    Cut::Share(_) => covered.len() as i64,
                    Cut::Gain => covered.len() as i64 - wrong as i64,
                };
                (value, std::cmp::Reverse(h.w.iter().filter(|&&w| w != 0.0).count()), h)
            })
            .max_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)))
            .map(|(_, _, h)| h)
        else {
            continue;
        };
        let (covered, _, h) = threshold(s, alive, t, &h, cut);
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

/// The rows a score is fitted on: the sample and its integer features (`flat`, `d` per row).
struct FitRows<'a, 's> {
    s: &'a Sample<'s>,
    sample: &'a [usize],
    flat: &'a [i32],
    d: usize,
    max_abs: &'a [i64],
}

impl FitRows<'_, '_> {
    /// The halfspace over the sample's `[-1, 1]` inputs whose score ranks the rows where
    /// `positive` holds against the rest, fitted on the sample's rows where `keep` holds; `None`
    /// if one side has no row.
    fn fit(&self, positive: impl Fn(usize) -> bool, keep: impl Fn(usize) -> bool) -> Option<Halfspace> {
        let d = self.d;
        let (mut x, mut y) = (Vec::new(), Vec::new());
        for (k, &i) in self.sample.iter().enumerate() {
            if keep(i) {
                x.extend_from_slice(&self.flat[k * d..(k + 1) * d]);
                y.push(usize::from(positive(i)));
            }
        }
        let pos = y.iter().sum::<usize>();
        if pos == 0 || pos == y.len() {
            return None;
        }
        let rows = unit_fit::Rows { x: &x, d, y: &y, m: 2 };
        let params = unit_fit::Params { l2: 1.0, iterations: FIT_ITERATIONS, ..Default::default() };
        let w = unit_fit::logistic(rows, self.max_abs, params);
        let row = &w[0];
        // Weights per unit of the integer feature `f_j = x_j · max_abs_j`: per unit of `x_j`.
        let w: Vec<f64> = row[..d].iter().zip(self.max_abs).map(|(w, &m)| w * m as f64).collect();
        Some(Halfspace { w, b: row[d] })
    }
}

/// One score per group of rows that share a value of a two-valued input (a categorical value's
/// feature): the [`CONDITIONS`] groups where class `t` is most over-represented (rows of the class
/// in the group beyond the group's size times the class's share of the sample), each with a
/// logistic score of the class against the rest fitted on the group's rows only, plus a weight
/// on the input large enough that every row of the group scores above every row outside it.
/// Cut above the group's lowest score, the entry is "this value, and this score": a class that
/// depends on an interaction of two attributes is additive within a value of one of them, which
/// one score over all the rows cannot express.
fn conditioned_scores(f: &FitRows<'_, '_>, t: usize) -> Vec<Halfspace> {
    let (s, d) = (f.s, f.d);
    let n = f.sample.len();
    let own = f.sample.iter().filter(|&&i| s.y[i] == t).count();
    if own == 0 || own == n {
        return Vec::new();
    }
    // Per two-valued input and side: (excess of the class, input, midpoint, sign).
    let mut groups: Vec<(f64, usize, f64, f64)> = Vec::new();
    for j in 0..d {
        let first = s.x[f.sample[0]][j];
        let Some(other) = f.sample.iter().map(|&i| s.x[i][j]).find(|&v| v != first) else { continue };
        if f.sample.iter().any(|&i| s.x[i][j] != first && s.x[i][j] != other) {
            continue;
        }
        let (lo, hi) = if first < other { (first, other) } else { (other, first) };
        let mid = 0.5 * (lo + hi);
        let (mut in_hi, mut own_hi) = (0usize, 0usize);
        for &i in f.sample {
            if s.x[i][j] > mid {
                in_hi += 1;
                own_hi += usize::from(s.y[i] == t);
            }
        }
        for (sign, inside, own_inside) in [(1.0, in_hi, own_hi), (-1.0, n - in_hi, own - own_hi)] {
            if inside < MIN_CLUSTER_ROWS || own_inside == inside || own_inside == 0 {
                continue;
            }
            let excess = own_inside as f64 - inside as f64 * own as f64 / n as f64;
            if excess > 0.0 {
                groups.push((excess, j, mid, sign));
            }
        }
    }
    groups.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    groups.truncate(CONDITIONS);
    groups
        .into_iter()
        .filter_map(|(_, j, mid, sign)| {
            let inside = |i: usize| sign * (s.x[i][j] - mid) > 0.0;
            let mut h = f.fit(|i| s.y[i] == t, inside)?;
            // Inside the group the input's term adds `big · gap`, outside it subtracts as much:
            // with `big · 2 · gap` above the score's range on the sample, the group comes first.
            let (lo, hi) = f
                .sample
                .iter()
                .map(|&i| h.score(&s.x[i]))
                .fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(v), b.max(v)));
            let gap = f.sample.iter().map(|&i| (s.x[i][j] - mid).abs()).fold(f64::MAX, f64::min);
            let big = (hi - lo).max(1.0) / gap;
            h.w[j] += sign * big;
            h.b -= sign * big * mid;
            Some(h)
        })
        .collect()
}

/// One score per cluster of class `t` on the sample: the class's sampled rows are split into
/// up to [`CLUSTERS`] groups by k-means (inputs standardized on the sample), and each group is
/// fitted against the rows of other classes (the class's other groups left out of the fit).
/// A class made of several separate modes has no halfspace that takes much of it and little
/// else, but each mode may have one: its entry peels that mode, and the next entries the others.
fn cluster_scores(f: &FitRows<'_, '_>, t: usize, rng: &mut Rng) -> Vec<Halfspace> {
    let (s, d) = (f.s, f.d);
    let own: Vec<usize> = f.sample.iter().copied().filter(|&i| s.y[i] == t).collect();
    let k = CLUSTERS.min(own.len() / MIN_CLUSTER_ROWS);
    if k < 2 {
        return Vec::new();
    }
    // Standardized inputs of the class's rows (the spread of each input over the whole sample).
    let n = f.sample.len() as f64;
    let mean: Vec<f64> = (0..d).map(|j| f.sample.iter().map(|&i| s.x[i][j]).sum::<f64>() / n).collect();
    let inv_sd: Vec<f64> = (0..d)
        .map(|j| {
            let v = f.sample.iter().map(|&i| (s.x[i][j] - mean[j]).powi(2)).sum::<f64>() / n;
            if v > 0.0 {
                1.0 / v.sqrt()
            } else {
                0.0
            }
        })
        .collect();
    let z: Vec<Vec<f64>> =
        own.iter().map(|&i| (0..d).map(|j| (s.x[i][j] - mean[j]) * inv_sd[j]).collect()).collect();
    let group = kmeans(&z, k, rng);
    let mut in_group = vec![usize::MAX; s.x.len()];
    for (&i, &g) in own.iter().zip(&group) {
        in_group[i] = g;
    }
    (0..k).filter_map(|g| f.fit(|i| in_group[i] == g, |i| s.y[i] != t || in_group[i] == g)).collect()
}

/// The group of each of the rows `z` after k-means with `k` centres (k-means++ seeding, a few
/// Lloyd rounds: the groups only choose which rows a score is fitted on).
fn kmeans(z: &[Vec<f64>], k: usize, rng: &mut Rng) -> Vec<usize> {
    let dist = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum::<f64>();
    let mut centres: Vec<Vec<f64>> = vec![z[rng.below(z.len())].clone()];
    let mut near: Vec<f64> = z.iter().map(|r| dist(r, &centres[0])).collect();
    while centres.len() < k {
        let total: f64 = near.iter().sum();
        let mut pick = rng.f64() * total;
        let mut at = z.len() - 1;
        for (i, &w) in near.iter().enumerate() {
            if pick < w {
                at = i;
                break;
            }
            pick -= w;
        }
        centres.push(z[at].clone());
        for (n, r) in near.iter_mut().zip(z) {
            *n = n.min(dist(r, &z[at]));
        }
    }
    let mut group = vec![0; z.len()];
    for _ in 0..KMEANS_ROUNDS {
        for (g, r) in group.iter_mut().zip(z) {
            *g = (0..k).min_by(|&a, &b| dist(r, &centres[a]).total_cmp(&dist(r, &centres[b]))).unwrap_or(0);
        }
        let mut sums = vec![vec![0.0; z[0].len()]; k];
        let mut counts = vec![0usize; k];
        for (&g, r) in group.iter().zip(z) {
            counts[g] += 1;
            sums[g].iter_mut().zip(r).for_each(|(s, v)| *s += v);
        }
        for ((centre, sum), &c) in centres.iter_mut().zip(sums).zip(&counts) {
            if c > 0 {
                *centre = sum.into_iter().map(|v| v / c as f64).collect();
            }
        }
    }
    group
}

/// The rows of class `t` among `alive` covered by `h` moved to the threshold `cut` asks for
/// (thresholds only between distinct scores), the number of rows of other classes it covers,
/// and that halfspace. Empty if no threshold covers more rows of class `t` than of others.
fn threshold(
    s: &Sample<'_>,
    alive: &[usize],
    t: usize,
    h: &Halfspace,
    cut: Cut,
) -> (Vec<usize>, usize, Halfspace) {
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
        return (Vec::new(), 0, h.clone());
    }
    let low = scored[best - 1].0;
    let at = scored.get(best).map_or(low - 1.0, |&(next, _)| 0.5 * (low + next));
    let mut covered: Vec<usize> = scored[..best].iter().map(|&(_, i)| i).filter(|&i| s.y[i] == t).collect();
    covered.sort_unstable();
    let wrong = best - covered.len();
    (covered, wrong, Halfspace { w: h.w.clone(), b: h.b - at })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_score_within_one_value_covers_what_the_score_over_all_rows_cannot() {
        // Class 1 iff `(a + b) mod 5` is 0 or 1: within a value of `a`, two values of `b`.
        let (x, y) = crate::learners::decision_list::tests::interaction(3000, 0.03, 4);
        let s = Sample { x: &x, y: &y, n_classes: 2, quant: None };
        let d = x[0].len();
        let sample: Vec<usize> = (0..x.len()).collect();
        let flat: Vec<i32> = x.iter().flatten().map(|v| (v * FLOAT_GRID).round() as i32).collect();
        let max_abs = vec![FLOAT_GRID as i64; d];
        let f = FitRows { s: &s, sample: &sample, flat: &flat, d, max_abs: &max_abs };
        let cut = Cut::Share(0.06);
        let covered = |h: &Halfspace| threshold(&s, &sample, 1, h, cut).0.len();
        let whole = covered(&f.fit(|i| y[i] == 1, |_| true).expect("both classes"));
        let conditioned = conditioned_scores(&f, 1);
        assert!(!conditioned.is_empty() && conditioned.len() <= CONDITIONS);
        let best = conditioned.iter().map(covered).max().unwrap_or(0);
        let own = y.iter().filter(|&&c| c == 1).count();
        // One value of `a` holds a fifth of the class.
        assert!(best * 6 > own, "conditioned score covers {best} of {own}");
        assert!(best > 2 * whole, "conditioned {best}, whole {whole}");
        // Every row of the group scores above every row outside it.
        for h in &conditioned {
            let (j, _) =
                h.w.iter().enumerate().max_by(|a, b| a.1.abs().total_cmp(&b.1.abs())).expect("inputs");
            let inside = |i: usize| h.w[j].signum() * x[i][j] > 0.0;
            let low_in =
                sample.iter().filter(|&&i| inside(i)).map(|&i| h.score(&x[i])).fold(f64::MAX, f64::min);
            let high_out =
                sample.iter().filter(|&&i| !inside(i)).map(|&i| h.score(&x[i])).fold(f64::MIN, f64::max);
            assert!(low_in > high_out, "input {j}: {low_in} <= {high_out}");
        }
    }
}
