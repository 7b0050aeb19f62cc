//! The node models: a linear perceptron or a one-hidden-layer MLP trained on a node's rows,
//! their integer tests, and the class impurity of a split.

use super::{Kind, Params, Space};
use crate::learners::tree::{entropy, EntropyUnit};
use crate::model::Unit;
use crate::rng::Rng;

/// A node's network, trained in floating point.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Net {
    /// `f` weights, then the bias.
    Linear(Vec<f64>),
    /// `hidden × (f + 1)` input weights (bias last per unit), then `hidden + 1` output weights
    /// (bias last).
    Mlp { hidden: usize, w: Vec<f64>, t: Vec<f64> },
}

pub(super) fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// One momentum step on `w` (weights then bias, `w.len() == x.len() + 1`): `d_j = g·x_j + α·d_j`,
/// `w_j += d_j`, with input 1 for the bias. Written without an iterator chain so the element-wise
/// loop vectorises; each element gets the same operations in the same order as the formula.
fn momentum_step(w: &mut [f64], dw: &mut [f64], x: &[f64], g: f64, alpha: f64) {
    let f = x.len();
    let (w, wb) = w.split_at_mut(f);
    let (dw, db) = dw.split_at_mut(f);
    for ((wj, dj), &xj) in w.iter_mut().zip(dw.iter_mut()).zip(x) {
        *dj = g * xj + alpha * *dj;
        *wj += *dj;
    }
    db[0] = g * 1.0 + alpha * db[0];
    wb[0] += db[0];
}

fn dot_bias(w: &[f64], x: &[f64]) -> f64 {
    let (b, w) = w.split_last().expect("bias");
    w.iter().zip(x).fold(*b, |a, (w, x)| a + w * x)
}

impl Net {
    pub(super) fn output(&self, x: &[f64]) -> f64 {
        match self {
            Net::Linear(w) => sigmoid(dot_bias(w, x)),
            Net::Mlp { hidden, w, t } => {
                let f = x.len();
                let h: Vec<f64> =
                    (0..*hidden).map(|k| sigmoid(dot_bias(&w[k * (f + 1)..(k + 1) * (f + 1)], x))).collect();
                sigmoid(dot_bias(t, &h))
            }
        }
    }

    /// The network's side: output `> 0.5`.
    pub(super) fn side(&self, x: &[f64]) -> bool {
        match self {
            Net::Linear(w) => dot_bias(w, x) > 0.0,
            Net::Mlp { .. } => self.output(x) > 0.5,
        }
    }
}

/// A binary unit of the IR over the features whose integer weight in `wi` is not zero (feature
/// indices of the growing space; the export renumbers them).
pub(super) fn binary_unit(wi: &[i64], bias: i64) -> Unit {
    let terms: Vec<usize> = (0..wi.len()).filter(|&j| wi[j] != 0).collect();
    let row = terms.iter().map(|&j| wi[j]).chain([bias]).collect();
    Unit { terms, rows: vec![row], classes: vec![0, 1] }
}

/// The exported test of a node: `true` is the target-1 side (right in the export).
#[derive(Debug, Clone, PartialEq)]
pub(super) enum IntTest {
    Linear(Unit),
    /// Hidden LTUs, their output weights, and the output bias: `Σ out[h]·[hidden[h] > 0] + bias > 0`.
    Mlp {
        hidden: Vec<Unit>,
        out: Vec<i64>,
        bias: i64,
    },
}

impl IntTest {
    /// Worst-case multiply-accumulates on the device (for a non-linear node, every hidden unit:
    /// an upper bound of its diagram's longest path).
    pub(super) fn macs(&self) -> u64 {
        match self {
            IntTest::Linear(u) => u.terms.len() as u64,
            IntTest::Mlp { hidden, .. } => hidden.iter().map(|u| u.terms.len() as u64).sum(),
        }
    }

    pub(super) fn side(&self, f: &[i32]) -> bool {
        match self {
            IntTest::Linear(u) => u.row_score(0, f) > 0,
            IntTest::Mlp { hidden, out, bias } => {
                hidden.iter().zip(out).fold(*bias, |a, (u, &t)| if u.row_score(0, f) > 0 { a + t } else { a })
                    > 0
            }
        }
    }
}

/// Trains one network by stochastic gradient descent with momentum (4.1.1, 4.1.2) for `epochs`
/// epochs ([`Params::epochs_for`]).
pub(super) fn train_net(
    sp: &Space,
    rows: &[usize],
    target: &[bool],
    kind: Kind,
    (p, epochs): (&Params, usize),
    rng: &mut Rng,
) -> Net {
    let f = sp.f;
    let lr0 = p.lr_start / f.max(1) as f64;
    let decay = if epochs > 1 { (p.lr_end / lr0).powf(1.0 / (epochs - 1) as f64) } else { 1.0 };
    let mut order: Vec<usize> = (0..rows.len()).collect();
    let mut lr = lr0;
    let alpha = p.momentum;
    // Per-row gradient weight: with `balance`, each group counts as half of the rows.
    let n_true = target.iter().filter(|&&t| t).count();
    let weight = |t: bool| {
        let n_group = if t { n_true } else { rows.len() - n_true };
        if p.balance && n_group > 0 {
            rows.len() as f64 / (2.0 * n_group as f64)
        } else {
            1.0
        }
    };
    let (w_true, w_false) = (weight(true), weight(false));
    // The node's rows are copied next to each other once, so that the epochs' random visiting
    // order jumps within a block of `rows × f` values (a node's network reads a bounded sample
    // of its rows, see `Params::net_rows`) instead of through the whole data set.
    let fw = f.max(1);
    let mut buf = vec![0.0; rows.len() * fw];
    if f > 0 {
        for (dst, &r) in buf.chunks_exact_mut(f).zip(rows) {
            dst.copy_from_slice(sp.xf(r));
        }
    }
    let row = |k: usize| &buf[k * fw..k * fw + f];
    match kind {
        Kind::Linear => {
            let mut w: Vec<f64> = (0..=f).map(|_| (rng.f64() - 0.5) * 0.02).collect();
            let mut dw = vec![0.0; f + 1];
            for _ in 0..epochs {
                rng.shuffle(&mut order);
                for &k in &order {
                    let x = row(k);
                    let y = sigmoid(dot_bias(&w, x));
                    let (d, c) = if target[k] { (1.0, w_true) } else { (0.0, w_false) };
                    let g = lr * c * (d - y) * y * (1.0 - y);
                    momentum_step(&mut w, &mut dw, x, g, alpha);
                }
                lr *= decay;
            }
            Net::Linear(w)
        }
        Kind::Mlp(m) => {
            let init = 1.0 / ((f + 1) as f64).sqrt();
            let mut w: Vec<f64> = (0..m * (f + 1)).map(|_| (rng.f64() - 0.5) * 2.0 * init).collect();
            let mut t: Vec<f64> =
                (0..=m).map(|_| (rng.f64() - 0.5) * 2.0 / ((m + 1) as f64).sqrt()).collect();
            let mut dw = vec![0.0; w.len()];
            let mut dt = vec![0.0; t.len()];
            let mut h = vec![0.0; m + 1];
            h[m] = 1.0;
            for _ in 0..epochs {
                rng.shuffle(&mut order);
                for &k in &order {
                    let x = row(k);
                    for (u, hu) in h[..m].iter_mut().enumerate() {
                        *hu = sigmoid(dot_bias(&w[u * (f + 1)..(u + 1) * (f + 1)], x));
                    }
                    let y = sigmoid(t.iter().zip(&h).map(|(a, b)| a * b).sum());
                    let (d, c) = if target[k] { (1.0, w_true) } else { (0.0, w_false) };
                    let delta = c * (d - y) * y * (1.0 - y);
                    for u in 0..m {
                        let dh = delta * t[u] * h[u] * (1.0 - h[u]) * lr;
                        let (wu, dwu) =
                            (&mut w[u * (f + 1)..(u + 1) * (f + 1)], &mut dw[u * (f + 1)..(u + 1) * (f + 1)]);
                        momentum_step(wu, dwu, x, dh, alpha);
                    }
                    for ((tu, du), &hu) in t.iter_mut().zip(dt.iter_mut()).zip(&h) {
                        *du = lr * delta * hu + alpha * *du;
                        *tu += *du;
                    }
                }
                lr *= decay;
            }
            Net::Mlp { hidden: m, w, t }
        }
    }
}

/// Weighted entropy of the classes on each side of `side` (lower is better).
pub(super) fn impurity(sp: &Space, rows: &[usize], side: impl Fn(usize) -> bool) -> f64 {
    let mut counts = [vec![0u64; sp.n_classes], vec![0u64; sp.n_classes]];
    for &r in rows {
        counts[usize::from(side(r))][sp.y[r]] += 1;
    }
    let n = rows.len().max(1) as f64;
    counts.iter().map(|c| c.iter().sum::<u64>() as f64 / n * entropy(c, EntropyUnit::Bits)).sum()
}

/// The two classes (of `classes`) whose means are furthest apart, and every class mean.
pub(super) fn class_means(sp: &Space, rows: &[usize], classes: &[usize]) -> (Vec<Vec<f64>>, usize, usize) {
    let mut means = vec![vec![0.0; sp.f]; sp.n_classes];
    let mut n = vec![0usize; sp.n_classes];
    for &r in rows {
        n[sp.y[r]] += 1;
        for (m, x) in means[sp.y[r]].iter_mut().zip(sp.xf(r)) {
            *m += x;
        }
    }
    for (m, &k) in means.iter_mut().zip(&n) {
        m.iter_mut().for_each(|v| *v /= k.max(1) as f64);
    }
    let dist =
        |a: usize, b: usize| means[a].iter().zip(&means[b]).map(|(x, y)| (x - y) * (x - y)).sum::<f64>();
    let mut best = (-1.0, classes[0], classes[1]);
    for (i, &a) in classes.iter().enumerate() {
        for &b in &classes[i + 1..] {
            let d = dist(a, b);
            if d > best.0 {
                best = (d, a, b);
            }
        }
    }
    (means, best.1, best.2)
}
