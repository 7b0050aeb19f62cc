//! Growing: partitioning a node's classes into two groups, training and quantizing its
//! model, and the significance test that chooses between the linear and MLP models.

use super::net::{binary_unit, class_means, impurity, train_net, IntTest, Net};
use super::{Kind, NodeModel, Params, Partition, Report, Significance, Space};
use crate::data::split;
use crate::learners::unit_fit::systematic_sample;
use crate::model::quantize::{self, weight_range, Grid};
use crate::model::{Unit, WeightKind};
use crate::rng::Rng;

/// Learning state shared by the node trainings of one tree.
pub(super) struct Grower<'a> {
    pub(super) sp: &'a Space,
    pub(super) p: &'a Params,
    pub(super) report: Report,
    pub(super) hidden: usize,
    /// Most rows of a node its networks read ([`Params::net_rows_for`] the tree's rows).
    net_rows: usize,
    /// Epochs of every network ([`Params::epochs_for`] the tree's rows).
    epochs: usize,
    /// Largest stored bias of a refitted threshold.
    bias_max: i64,
    /// Where weights are rounded: the largest weight [`Params::max_weight`], the rounded bias
    /// within half of `bias_max` and accumulator room for any refitted bias.
    grid: Grid,
    /// Bound of every feature (`max_abs`).
    pub(super) bound: Vec<i64>,
}

impl<'a> Grower<'a> {
    /// A grower for the rows `sp` whose features are bounded by `bound`, rounding to `int_kind`.
    pub(super) fn new(sp: &'a Space, p: &'a Params, bound: Vec<i64>, int_kind: WeightKind) -> Grower<'a> {
        let (_, kind_max) = weight_range(int_kind);
        // A refitted bias may use the kind's range, but at most half the accumulator (i32
        // weights: the other half is the terms' room).
        let bias_max = kind_max.min(int_kind.accumulator_limit() as i64 / 2);
        Grower {
            sp,
            p,
            report: Report::default(),
            hidden: p.hidden.unwrap_or((bound.len() / 2).max(1)),
            net_rows: p.net_rows_for(sp.y.len(), sp.f),
            epochs: p.epochs_for(sp.y.len()),
            bias_max,
            grid: Grid {
                kind: int_kind,
                max_weight: p.max_weight.min(kind_max),
                max_bias: bias_max / 2,
                bias_reserve: bias_max,
            },
            bound,
        }
    }
}

impl Grower<'_> {
    pub(super) fn train(&mut self, rows: &[usize], target: &[bool], kind: Kind, rng: &mut Rng) -> Net {
        self.report.networks_trained += 1;
        train_net(self.sp, rows, target, kind, (self.p, self.epochs), rng)
    }

    pub(super) fn targets(&self, rows: &[usize], group: &[bool]) -> Vec<bool> {
        rows.iter().map(|&r| group[self.sp.y[r]]).collect()
    }

    /// Finds the class groups (`group[c]`: class `c` is in `C_L`, target 1) and the network
    /// trained on them.
    pub(super) fn partition(
        &mut self,
        rows: &[usize],
        classes: &[usize],
        kind: Kind,
        rng: &mut Rng,
    ) -> (Vec<bool>, Net) {
        let nc = self.sp.n_classes;
        let (means, a, b) = class_means(self.sp, rows, classes);
        let mut group = vec![false; nc];
        group[a] = true;
        if classes.len() == 2 {
            let t = self.targets(rows, &group);
            let net = self.train(rows, &t, kind, rng);
            return (group, net);
        }
        match self.p.partition {
            Partition::Selection => {
                let mut assigned = vec![false; nc];
                assigned[a] = true;
                assigned[b] = true;
                loop {
                    let sub: Vec<usize> = rows.iter().copied().filter(|&r| assigned[self.sp.y[r]]).collect();
                    let t = self.targets(&sub, &group);
                    let net = self.train(&sub, &t, kind, rng);
                    let left: Vec<usize> = classes.iter().copied().filter(|&c| !assigned[c]).collect();
                    if left.is_empty() {
                        return (group, net);
                    }
                    // Mean output of each unassigned class; the most decided joins its side.
                    let mut sum = vec![(0.0, 0usize); nc];
                    for &r in rows {
                        let c = self.sp.y[r];
                        if !assigned[c] {
                            sum[c].0 += net.output(self.sp.xf(r));
                            sum[c].1 += 1;
                        }
                    }
                    let mut best = (-1.0, left[0], false);
                    for &c in &left {
                        let m = sum[c].0 / sum[c].1.max(1) as f64;
                        if (m - 0.5).abs() > best.0 {
                            best = ((m - 0.5).abs(), c, m > 0.5);
                        }
                    }
                    assigned[best.1] = true;
                    group[best.1] = best.2;
                }
            }
            Partition::Exchange => {
                let d = |x: usize, y: usize| {
                    means[x].iter().zip(&means[y]).map(|(u, v)| (u - v) * (u - v)).sum::<f64>()
                };
                for &c in classes {
                    if c != a && c != b {
                        group[c] = d(c, a) < d(c, b);
                    }
                }
                let t = self.targets(rows, &group);
                let mut net = self.train(rows, &t, kind, rng);
                let mut best = impurity(self.sp, rows, |r| net.side(self.sp.xf(r)));
                for _ in 0..self.p.exchange_passes {
                    let mut improved = false;
                    for &c in classes {
                        let mut g = group.clone();
                        g[c] = !g[c];
                        let n_true = classes.iter().filter(|&&k| g[k]).count();
                        if n_true == 0 || n_true == classes.len() {
                            continue;
                        }
                        let t = self.targets(rows, &g);
                        let cand = self.train(rows, &t, kind, rng);
                        let imp = impurity(self.sp, rows, |r| cand.side(self.sp.xf(r)));
                        if imp < best - 1e-12 {
                            (best, group, net, improved) = (imp, g, cand, true);
                        }
                    }
                    if !improved {
                        break;
                    }
                }
                (group, net)
            }
        }
    }

    /// The test of a node with `rows` of `classes` whose path already costs `macs`: the class
    /// groups and their network (the MLP instead of the linear one when [`NodeModel::Hybrid`]'s
    /// significance test prefers it), quantized; a non-linear test over the MACs budget gives
    /// way to a linear one. Returns the float network and the integer test.
    pub(super) fn node_test(
        &mut self,
        rows: &[usize],
        classes: &[usize],
        macs: u64,
        rng: &mut Rng,
    ) -> (Net, IntTest) {
        // The networks, the partition search, the hybrid test and the quantization read a
        // systematic sample of the node's rows (all of them up to `Params::net_rows`).
        let all = rows;
        let sample = systematic_sample(rows.len(), self.net_rows);
        let picked: Vec<usize>;
        let rows = if sample.len() < rows.len() {
            picked = sample.iter().map(|&k| rows[k]).collect();
            &picked[..]
        } else {
            rows
        };
        let search_kind = if self.p.node == NodeModel::Mlp { Kind::Mlp(self.hidden) } else { Kind::Linear };
        let (group, mut net) = self.partition(rows, classes, search_kind, rng);
        if self.p.node == NodeModel::Hybrid {
            self.report.hybrid_tests += 1;
            let mut trng = rng.fork(7);
            let chosen = self.mlp_better(self.p.significance, rows, &group, &mut trng);
            if self.p.compare_tests {
                let other = match self.p.significance {
                    Significance::FTest5x2 => Significance::TTest,
                    Significance::TTest => Significance::FTest5x2,
                };
                let mut orng = rng.fork(8);
                let o = self.mlp_better(other, rows, &group, &mut orng);
                self.report.tests_agree += usize::from(o == chosen);
            }
            if chosen {
                self.report.hybrid_mlp += 1;
                let t = self.targets(rows, &group);
                net = self.train(rows, &t, Kind::Mlp(self.hidden), rng);
            }
        }
        let target = self.targets(rows, &group);
        let mut test = match &net {
            Net::Linear(w) => IntTest::Linear(self.quantize_linear(w, rows, &target)),
            Net::Mlp { hidden, w, t } => self.quantize_mlp(*hidden, w, t, rows, &target, rng),
        };
        // A non-linear test over the MACs budget falls back to a linear one.
        if matches!(test, IntTest::Mlp { .. }) && self.p.max_macs.is_some_and(|m| macs + test.macs() > m) {
            self.report.over_budget += 1;
            net = self.train(rows, &target, Kind::Linear, rng);
            let Net::Linear(w) = &net else { unreachable!("a linear network") };
            test = IntTest::Linear(self.quantize_linear(w, rows, &target));
        }
        if let IntTest::Linear(u) = &mut test {
            if rows.len() < all.len() {
                // The sampled unit's threshold, refitted on every row of the node.
                self.refit_unit_bias(u, all, &group);
            }
        }
        (net, test)
    }

    /// Refits the bias of a linear node's unit `u` on `rows` against the rows' targets
    /// (`score > 0`: class in `C_L`, the unit's training target), nearest its bias.
    fn refit_unit_bias(&self, u: &mut Unit, rows: &[usize], group: &[bool]) {
        let target = self.targets(rows, group);
        let bias = *u.rows[0].last().expect("a bias");
        let scores: Vec<i64> = rows.iter().map(|&r| u.row_score(0, self.sp.xi(r)) - bias).collect();
        let (b, _) = refit_bias(&scores, &target, costs(&target, self.p.balance), bias, self.bias_max);
        *u.rows[0].last_mut().expect("a bias") = b;
    }

    /// Error rate difference (linear − MLP) of networks trained on `train` and tested on `test`.
    fn error_difference(&mut self, train: &[usize], test: &[usize], group: &[bool], rng: &mut Rng) -> f64 {
        let t = self.targets(train, group);
        let lin = self.train(train, &t, Kind::Linear, rng);
        let mlp = self.train(train, &t, Kind::Mlp(self.hidden), rng);
        let err = |net: &Net| {
            test.iter().filter(|&&r| net.side(self.sp.xf(r)) != group[self.sp.y[r]]).count() as f64
                / test.len().max(1) as f64
        };
        err(&lin) - err(&mlp)
    }

    /// Whether the MLP is significantly better than the linear network at 95%.
    fn mlp_better(&mut self, test: Significance, rows: &[usize], group: &[bool], rng: &mut Rng) -> bool {
        let labels: Vec<usize> = rows.iter().map(|&r| self.sp.y[r]).collect();
        let nc = self.sp.n_classes;
        match test {
            Significance::FTest5x2 => {
                let mut p = [[0.0; 2]; 5];
                for (i, pi) in p.iter_mut().enumerate() {
                    let seed = rng.fork(i as u64).next_u64();
                    let Ok((a, b)) = split::train_test_split_stratified(&labels, nc, 0.5, seed) else {
                        return false;
                    };
                    let (a, b): (Vec<usize>, Vec<usize>) =
                        (a.iter().map(|&k| rows[k]).collect(), b.iter().map(|&k| rows[k]).collect());
                    pi[0] = self.error_difference(&a, &b, group, rng);
                    pi[1] = self.error_difference(&b, &a, group, rng);
                }
                let num: f64 = p.iter().flatten().map(|v| v * v).sum();
                let den: f64 = p
                    .iter()
                    .map(|pi| {
                        let m = (pi[0] + pi[1]) / 2.0;
                        (pi[0] - m).powi(2) + (pi[1] - m).powi(2)
                    })
                    .sum::<f64>()
                    * 2.0;
                let mean: f64 = p.iter().flatten().sum::<f64>() / 10.0;
                let f = if den > 0.0 {
                    num / den
                } else if num > 0.0 {
                    f64::INFINITY
                } else {
                    0.0
                };
                f > F_10_5_95 && mean > 0.0
            }
            Significance::TTest => {
                let k = self.p.t_folds.min(rows.len());
                let Ok(folds) = split::stratified_kfold(&labels, nc, k, rng.next_u64()) else {
                    return false;
                };
                let mut d = Vec::with_capacity(k);
                for fold in &folds {
                    let test: Vec<usize> = fold.iter().map(|&i| rows[i]).collect();
                    let train: Vec<usize> =
                        split::complement(fold, rows.len()).iter().map(|&i| rows[i]).collect();
                    d.push(self.error_difference(&train, &test, group, rng));
                }
                let m = d.iter().sum::<f64>() / k as f64;
                let var = d.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (k - 1) as f64;
                let t = if var > 0.0 {
                    m * (k as f64).sqrt() / var.sqrt()
                } else if m != 0.0 {
                    f64::INFINITY * m.signum()
                } else {
                    0.0
                };
                t > t_crit_975(k - 1)
            }
        }
    }

    /// A unit's float weights (over `x_j = f_j / bound_j`, bias last) rounded onto the grid:
    /// integer weights per feature and the rounded bias.
    fn round(&self, w: &[f64]) -> (Vec<i64>, i64) {
        let f = self.sp.f;
        let row: Vec<f64> = (0..f).map(|j| w[j] / self.bound[j] as f64).chain([w[f]]).collect();
        let mut q = quantize::quantize(&[row], &self.bound, self.grid).rows.swap_remove(0);
        let bias = q.pop().expect("a bias");
        (q, bias)
    }

    /// Rounds a linear network's weights and refits its threshold (quantization-aware), then
    /// drops weights that do not pay.
    fn quantize_linear(&mut self, w: &[f64], rows: &[usize], target: &[bool]) -> Unit {
        let (wi, pref) = self.round(w);
        let cost = costs(target, self.p.balance);
        self.sparsify(wi, pref, rows, target, cost)
    }

    /// Refits the bias of integer weights `wi` on `rows` against `target` (nearest `pref`), then
    /// drops weights, smallest contribution first, while the cost stays within
    /// [`Params::drop_tolerance`] of the full unit's.
    fn sparsify(
        &mut self,
        mut wi: Vec<i64>,
        pref: i64,
        rows: &[usize],
        target: &[bool],
        cost: [u64; 2],
    ) -> Unit {
        let f = wi.len();
        let scores = |wi: &[i64]| -> Vec<i64> {
            rows.iter()
                .map(|&r| wi.iter().zip(self.sp.xi(r)).fold(0i64, |a, (&w, &x)| a + w * i64::from(x)))
                .collect()
        };
        let (mut bias, full_err) = refit_bias(&scores(&wi), target, cost, pref, self.bias_max);
        // The tolerance in rows, at the average cost of a row.
        let total: u64 = target.iter().map(|&t| cost[usize::from(t)]).sum();
        let allowed = full_err + (self.p.drop_tolerance * total as f64).floor() as u64;
        let mut order: Vec<usize> = (0..f).filter(|&j| wi[j] != 0).collect();
        order.sort_by_key(|&j| (wi[j].abs() * self.bound[j], j));
        for j in order {
            let keep = wi[j];
            wi[j] = 0;
            let (b, e) = refit_bias(&scores(&wi), target, cost, bias, self.bias_max);
            if e <= allowed && wi.iter().any(|&v| v != 0) {
                bias = b;
            } else {
                wi[j] = keep;
            }
        }
        let unit = binary_unit(&wi, bias);
        self.report.weights_dropped += f - unit.terms.len();
        unit
    }

    /// Hidden units as integer hard-threshold LTUs, output weights rounded, output threshold refit.
    fn quantize_mlp(
        &mut self,
        hidden: usize,
        w: &[f64],
        t: &[f64],
        rows: &[usize],
        target: &[bool],
        rng: &mut Rng,
    ) -> IntTest {
        let f = self.sp.f;
        let mut units = Vec::with_capacity(hidden);
        for k in 0..hidden {
            let (wi, bias) = self.round(&w[k * (f + 1)..(k + 1) * (f + 1)]);
            // Sparse like a linear node, the target being the rounded unit's own output.
            let own: Vec<bool> = rows
                .iter()
                .map(|&r| wi.iter().zip(self.sp.xi(r)).fold(bias, |a, (&w, &x)| a + w * i64::from(x)) > 0)
                .collect();
            let unit = if own.iter().all(|&b| b) || !own.iter().any(|&b| b) {
                // Constant on the node's rows: nothing to fit, keep it as rounded.
                binary_unit(&wi, bias)
            } else {
                self.sparsify(wi, bias, rows, &own, [1, 1])
            };
            units.push(unit);
        }
        // Hard hidden outputs on the node's rows; a hidden unit without input weights is constant.
        let bits: Vec<f64> = rows
            .iter()
            .flat_map(|&r| {
                let x = self.sp.xi(r);
                units.iter().map(move |u| if u.row_score(0, x) > 0 { 1.0 } else { 0.0 })
            })
            .collect();
        // Output weights: the network's own, and a linear output unit retrained on the hard hidden
        // outputs (same schedule); the one with the lower training cost after rounding is kept.
        let tmp = Space { f: hidden, xf: bits, xi: Vec::new(), y: Vec::new(), n_classes: 0 };
        let idx: Vec<usize> = (0..rows.len()).collect();
        self.report.networks_trained += 1;
        let Net::Linear(t2) = train_net(&tmp, &idx, target, Kind::Linear, (self.p, self.epochs), rng) else {
            unreachable!("a linear network")
        };
        let cost = costs(target, self.p.balance);
        let mut best: Option<(u64, Vec<i64>, i64)> = None;
        for t in [t, &t2[..]] {
            let mx = t[..hidden].iter().fold(0.0f64, |a, v| a.max(v.abs()));
            let s = if mx > 0.0 { self.p.mlp_output_max as f64 / mx } else { 0.0 };
            let mut out: Vec<i64> = t[..hidden].iter().map(|v| (v * s).round() as i64).collect();
            let mut konst = 0;
            for (u, o) in units.iter().zip(out.iter_mut()) {
                if u.terms.is_empty() {
                    // The row is the bias alone.
                    if u.rows[0][0] > 0 {
                        konst += *o;
                    }
                    *o = 0;
                }
            }
            let sums: Vec<i64> = (0..rows.len())
                .map(|i| {
                    let b = tmp.xf(i);
                    out.iter().zip(b).fold(0i64, |a, (&o, &bit)| if bit > 0.5 { a + o } else { a })
                })
                .collect();
            let pref = (t[hidden] * s).round() as i64 + konst;
            let limit = out.iter().map(|o| o.abs()).sum::<i64>() + 1;
            let (bias, c) = refit_bias(&sums, target, cost, pref, limit);
            if best.as_ref().is_none_or(|b| c < b.0) {
                best = Some((c, out, bias));
            }
        }
        let (_, out, bias) = best.expect("two candidates");
        let keep: Vec<usize> = (0..hidden).filter(|&k| out[k] != 0).collect();
        IntTest::Mlp {
            hidden: keep.iter().map(|&k| units[k].clone()).collect(),
            out: keep.iter().map(|&k| out[k]).collect(),
            bias,
        }
    }
}

/// `F(10, 5)` at 95%, the critical value of the combined 5×2 cv F test.
const F_10_5_95: f64 = 4.74;

/// Two-sided 5% critical value of Student's t with `df` degrees of freedom.
fn t_crit_975(df: usize) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
        2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
        2.045, 2.042,
    ];
    match df {
        0 => f64::INFINITY,
        1..=30 => T[df - 1],
        // Within 0.002 of the exact value for df > 30.
        _ => 1.96 + 2.4 / df as f64,
    }
}

/// Cost of a wrong row of each target (`[false, true]`): 1 each, or with [`Params::balance`]
/// inversely proportional to the target's rows, as in training.
fn costs(target: &[bool], balance: bool) -> [u64; 2] {
    let n_true = target.iter().filter(|&&t| t).count() as u64;
    let n_false = target.len() as u64 - n_true;
    if balance && n_true > 0 && n_false > 0 {
        [n_true, n_false]
    } else {
        [1, 1]
    }
}

/// The integer bias `b` (within `±bias_max`) for which `score + b > 0` matches `target` at the
/// least cost (`cost[t]` per wrong row of target `t`), nearest `preferred` among the best; returns
/// it with its cost.
pub(super) fn refit_bias(
    scores: &[i64],
    target: &[bool],
    cost: [u64; 2],
    preferred: i64,
    bias_max: i64,
) -> (i64, u64) {
    // Side true iff score > c, c = -b. Sweep c over the gaps between sorted distinct scores.
    let mut idx: Vec<usize> = (0..scores.len()).collect();
    idx.sort_by_key(|&i| scores[i]);
    let want = -preferred;
    let mut best: Option<(u64, i64, i64)> = None; // (cost, distance, c)
    let mut consider = |errors: u64, lo: i64, hi: i64| {
        let (lo, hi) = (lo.max(-bias_max), hi.min(bias_max));
        if lo > hi {
            return;
        }
        let c = want.clamp(lo, hi);
        let dist = (c - want).abs();
        if best.is_none_or(|(e, d, _)| errors < e || errors == e && dist < d) {
            best = Some((errors, dist, c));
        }
    };
    // c below every score: every row on the true side, the false ones wrong.
    let mut errors: u64 = target.iter().filter(|&&t| !t).count() as u64 * cost[0];
    let first = idx.first().map_or(0, |&i| scores[i]);
    consider(errors, i64::MIN / 4, first - 1);
    let mut k = 0;
    while k < idx.len() {
        let v = scores[idx[k]];
        while k < idx.len() && scores[idx[k]] == v {
            errors = if target[idx[k]] { errors + cost[1] } else { errors - cost[0] };
            k += 1;
        }
        let next = if k < idx.len() { scores[idx[k]] - 1 } else { i64::MAX / 4 };
        consider(errors, v, next);
    }
    let (_, _, c) = best.unwrap_or((0, 0, 0));
    let b = -c;
    let e = scores
        .iter()
        .zip(target)
        .filter(|(&s, &t)| (s + b > 0) != t)
        .map(|(_, &t)| cost[usize::from(t)])
        .sum();
    (b, e)
}
