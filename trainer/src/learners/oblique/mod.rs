//! Multivariate (oblique) decision trees with neural-network splits (Yildiz & Alpaydin,
//! *Multivariate decision trees for machine learning*, chapter 4; the thesis's ID-LP, ID-MLP and
//! hybrid trees).
//!
//! Every decision node sends an instance to one of two children by the output of a small neural
//! network trained on the instances that reach the node. The network learns to tell apart two
//! groups of classes, `C_L` (target 1) and `C_R` (target 0); a leaf predicts the majority class of
//! the training instances that reach it.
//!
//! # The chapter's method
//!
//! - **Linear node (ID-LP, 4.1.1)**: `y = sigmoid(w·x + w0)`, trained by stochastic gradient
//!   descent on the mean-square error `(d − y)²/2`; every epoch presents the node's instances one
//!   at a time in a fresh random order; `Δw_t = η (d − y) y (1 − y) x + α Δw_{t−1}` (4.4) with
//!   momentum `α` = [`Params::momentum`] (0.7); the learning rate starts at `0.3 / f` (`f` = number
//!   of inputs) and is multiplied by a constant after every epoch so that it reaches `1e-5` after
//!   the last one. The chapter gives neither the number of epochs nor the output threshold: ours
//!   are [`Params::epochs`] (default 300) and `y > 0.5` (the sign of `w·x + w0`).
//! - **Non-linear node (ID-MLP, 4.1.2)**: one hidden layer of `f/2` sigmoid units (at least one;
//!   [`Params::hidden`] overrides), the same schedule and momentum, standard backpropagation
//!   (the printed equation 4.10 has a typo: the hidden update uses `T_h` and the previous hidden
//!   update, which is what is implemented).
//! - **Hybrid node (4.1.3)**: the linear and the non-linear network are compared on the node's
//!   instances; the non-linear one is kept only if it is better at 95% confidence. By default
//!   with the combined 5×2 cv F test (Alpaydin 1999: `F = Σ p² / (2 Σ s²)` against `F(10, 5)` =
//!   4.74), or with the k-fold cross-validated paired t test ([`Significance::TTest`],
//!   [`Params::t_folds`] = 30 folds as in the thesis, two-sided 5%). [`Params::compare_tests`]
//!   runs both at every hybrid node and counts how often they agree ([`Report::tests_agree`]).
//! - **Class partition (multi-class)**: which classes form `C_L` and `C_R`.
//!   [`Partition::Selection`]: the two classes whose means are furthest apart start `C_L` and
//!   `C_R`; a network is trained on them; then, one at a time, the unassigned class whose mean
//!   network output is most decided (furthest from 0.5) joins the side it leans to, and the
//!   network is retrained on every assigned class. [`Partition::Exchange`] (Guo & Gelfand 1992,
//!   local search): starting from the two furthest classes with every other class on the side of
//!   the nearer of their means, move one class at a time to the other side, retrain, and keep the
//!   move if the split's impurity (the weighted entropy of the classes on each side) decreases;
//!   stop after a pass without an improvement or after [`Params::exchange_passes`] passes. The
//!   hybrid node searches the partition with the linear network.
//! - **Pruning**: on more than 10,000 rows (or with an explicit [`Params::prune_fraction`]) a
//!   stratified part of the rows is held out; the tree is grown on the rest, then every subtree,
//!   bottom-up, becomes a leaf when that does not make more errors on the held-out rows. On fewer
//!   rows, by default, the tree grows on every row and is pruned by C4.5's error estimate
//!   ([`Params::prune_z`]).
//!
//! # For the device (beyond the chapter)
//!
//! - **Inputs** are the standard feature space ([`encode::standard_features`]): a numeric
//!   attribute is one feature quantized to `±`[`Params::numeric_max_abs`], a categorical value a
//!   `±1` feature. The networks train on these integer values divided by their bound, so they see
//!   exactly what the runtime computes.
//! - **Balanced groups** ([`Params::balance`], default on): each row's gradient, and its error in
//!   the threshold refit below, is weighted so that `C_L` and `C_R` count equally; otherwise a
//!   small group at a deep node is absorbed by the large one and the split is lost (the selection
//!   method is the one that suffers).
//! - **Every node test is an integer LTU** (quantization-aware). A linear node's weights are scaled
//!   so that the largest is [`Params::max_weight`] (the bias within half its range, and the
//!   runtime's accumulator bound holding for any refitted bias), rounded ([`quantize::quantize`]),
//!   and its threshold is refitted on the node's training rows: the integer bias with the fewest
//!   (balanced) errors against the node's targets, nearest the rounded float bias. Weights that do
//!   not pay are then dropped ([`Params::drop_tolerance`]): smallest contribution first, a weight
//!   is set to zero (threshold refitted) when the node's training errors stay within the tolerance.
//!   The rows are sent to the children by the **integer** test, so the tree is grown and pruned as
//!   the device runs it. The exported test is a [`Node::UnitSplit`]: score `> 0` (the network's
//!   `y > 0.5`, target 1, the chapter's `C_L`) goes right, `<= 0` left.
//! - **A non-linear node runs as hard-threshold LTUs**: each hidden unit becomes an integer LTU
//!   (its sigmoid replaced by `score > 0`), the hidden-to-output weights are rounded to small
//!   integers (largest = [`Params::mlp_output_max`]; the network's own, or a linear output unit
//!   retrained on the hard hidden outputs, whichever errs less) and the output threshold is
//!   refitted on the node's rows over the hard hidden outputs. Hidden units are sparsified like
//!   linear nodes, against their own rounded output. On the device the node is a small decision diagram
//!   of `UnitSplit`s over the hidden units (largest output weight first, a branch stops as soon
//!   as the remaining units cannot change the decision, equal partial sums share a node), whose
//!   exits link to the node's two children. Links only point forward, so the diagram is a DAG the
//!   runtime already accepts. The cost of hardening is measured ([`Report::hardening_changed`],
//!   `docs/OBLIQUE_STUDY.md`).
//! - **Budgets**: [`Params::max_depth`] (oblique splits on a path), [`Params::max_nodes`]
//!   (oblique splits in the tree; nodes are split largest first), [`Params::max_macs`]
//!   (multiply-accumulates on the worst path), [`Params::max_bytes`] (model file size),
//!   [`Params::min_split`].
//! - [`ObliqueTree::predict_float`] is the same tree with the float networks at its nodes
//!   (sigmoid output `> 0.5`), so the accuracy lost on export can be measured on any data.
//!
//! See `docs/OBLIQUE.md` for the defaults and measurements, and `docs/OBLIQUE_STUDY.md` for the
//! thesis's findings reproduced on the reference data sets.

use std::collections::HashMap;

use crate::data::encode;
use crate::data::split;
use crate::learn::{Context, TrainError};
use crate::model::quantize::{self, weight_range, Grid};
use crate::model::{Feature, ModelSpec, Node, Structure, Unit, WeightKind};
use crate::rng::Rng;

use super::tree::{class_counts, entropy, majority_or, pessimistic_errors, EntropyUnit};

/// The network at each decision node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NodeModel {
    /// ID-LP: a linear perceptron with sigmoid output (4.1.1).
    #[default]
    Linear,
    /// ID-MLP: one hidden layer of `f/2` units (4.1.2).
    Mlp,
    /// Linear unless the MLP is significantly better (4.1.3).
    Hybrid,
}

/// How a multi-class node chooses its class groups `C_L` / `C_R`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Partition {
    /// Greedy: the two furthest class means, then classes added one at a time.
    Selection,
    /// Local search over class moves (Guo & Gelfand 1992).
    #[default]
    Exchange,
}

/// The statistical test of a hybrid node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Significance {
    /// Combined 5×2 cv F test (Alpaydin 1999), `F(10, 5)` at 95%.
    #[default]
    #[serde(rename = "f")]
    FTest5x2,
    /// k-fold cross-validated paired t test ([`Params::t_folds`] folds), two-sided 5%.
    #[serde(rename = "t")]
    TTest,
}

crate::names::names!(NodeModel, "node model" { Linear => "linear", Mlp => "mlp", Hybrid => "hybrid" });
crate::names::names!(Partition, "partition" { Selection => "selection", Exchange => "exchange" });
crate::names::names!(Significance, "significance test" { FTest5x2 => "f", TTest => "t" });

/// Oblique tree options; [`Params::check`] validates them.
#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    /// Network at each node.
    pub node: NodeModel,
    /// Class partition method for nodes with more than two classes.
    pub partition: Partition,
    /// Test of a hybrid node.
    pub significance: Significance,
    /// Hybrid nodes also run the other test and count agreements ([`Report::tests_agree`]).
    pub compare_tests: bool,
    /// Folds of the cross-validated paired t test (at most the node's rows); 30 in the thesis.
    pub t_folds: usize,
    /// Epochs of every network training (the chapter does not say).
    pub epochs: usize,
    /// The learning rate starts at `lr_start / f` (0.3 in the chapter).
    pub lr_start: f64,
    /// ... and decreases geometrically to this after the last epoch (1e-5 in the chapter).
    pub lr_end: f64,
    /// Momentum rate (0.7 in the chapter).
    pub momentum: f64,
    /// Weight each row's gradient so that both groups count equally (beyond the chapter: without
    /// it a small group at a deep node is absorbed by the large one and the split is lost).
    pub balance: bool,
    /// Hidden units of a non-linear node; `None`: `max(1, f/2)` as in the chapter.
    pub hidden: Option<usize>,
    /// Most passes of the exchange method over the classes.
    pub exchange_passes: usize,
    /// Most oblique splits on a path from the root (a non-linear node counts once, although it
    /// runs as several `UnitSplit`s on the device).
    pub max_depth: usize,
    /// Most oblique splits in the tree.
    pub max_nodes: usize,
    /// Most multiply-accumulates of one prediction on the device (the worst root-to-leaf path,
    /// as `ModelSpec::stats` counts them); a non-linear test that would exceed it is replaced by
    /// a linear one, and a split whose test still exceeds it is not made. `None`: no bound.
    pub max_macs: Option<u64>,
    /// Most bytes of the model file (as `learn::finish` writes it, without names): after pruning,
    /// splits whose two leaves cost the fewest training errors are merged until it fits (a single
    /// leaf if need be). `None`: no bound.
    pub max_bytes: Option<usize>,
    /// A node needs this many training rows to be split.
    pub min_split: usize,
    /// Stratified fraction of the rows held out to prune the tree (reduced-error pruning);
    /// `Some(0.0)`: the tree grows on every row and is pruned by [`Params::prune_z`] instead.
    /// `None`, the default: that error-based pruning on up to
    /// [`crate::data::split::HOLD_OUT_PRUNING_ROWS`] rows (more accurate on the benchmark datasets:
    /// mean 88.89 % with 0.25, 91.29 % with 0; docs/OBLIQUE.md), a held-out quarter on more.
    pub prune_fraction: Option<f64>,
    /// Beyond the paper, used when `prune_fraction` is 0: error-based pruning on the growing rows
    /// (C4.5; [`pessimistic_errors`](crate::learners::perceptron_tree::pessimistic_errors) with this `z`): a split becomes a
    /// leaf of its majority class when the leaf's pessimistic error estimate is not above the sum
    /// of its leaves'. 0 does not prune.
    pub prune_z: f64,
    /// Numeric attributes become one feature quantized to `±numeric_max_abs`.
    pub numeric_max_abs: u16,
    /// Largest integer weight of a node's LTUs (also bounded by the weight kind).
    pub max_weight: i64,
    /// Largest integer hidden-to-output weight of a non-linear node.
    pub mlp_output_max: i64,
    /// A weight of a linear node is dropped when, without it, the node's training errors grow by
    /// at most this fraction of its rows; 0 drops only weights that cost no error.
    pub drop_tolerance: f64,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            node: NodeModel::Linear,
            partition: Partition::Exchange,
            significance: Significance::FTest5x2,
            compare_tests: false,
            t_folds: 30,
            epochs: 300,
            lr_start: 0.3,
            lr_end: 1e-5,
            momentum: 0.7,
            balance: true,
            hidden: None,
            exchange_passes: 4,
            max_depth: 8,
            max_nodes: 32,
            max_macs: None,
            max_bytes: None,
            min_split: 4,
            prune_fraction: None,
            prune_z: 0.6745,
            numeric_max_abs: 127,
            max_weight: 127,
            mlp_output_max: 8,
            drop_tolerance: 0.005,
        }
    }
}

impl Params {
    /// The share of `m` training rows held out for reduced-error pruning (0: error-based pruning
    /// on the growing rows, see [`Params::prune_fraction`]).
    pub fn prune_fraction_for(&self, m: usize) -> f64 {
        self.prune_fraction.unwrap_or(if m > split::HOLD_OUT_PRUNING_ROWS { 0.25 } else { 0.0 })
    }

    /// Checks every field.
    ///
    /// # Errors
    /// [`TrainError::InvalidOption`] naming the first bad field and its value.
    pub fn check(&self) -> Result<(), TrainError> {
        let bad = |s: String| Err(TrainError::InvalidOption(format!("oblique: {s}")));
        if self.epochs == 0 || self.epochs > 100_000 {
            return bad(format!("epochs must be in 1..=100000, got {}", self.epochs));
        }
        if !(self.lr_start.is_finite() && self.lr_start > 0.0) {
            return bad(format!("lr_start must be positive, got {}", self.lr_start));
        }
        if !(self.lr_end.is_finite() && self.lr_end > 0.0) {
            return bad(format!("lr_end must be positive, got {}", self.lr_end));
        }
        if !(0.0..1.0).contains(&self.momentum) {
            return bad(format!("momentum must be in [0, 1), got {}", self.momentum));
        }
        if self.hidden == Some(0) || self.hidden.is_some_and(|h| h > 1024) {
            return bad(format!("hidden units must be in 1..=1024, got {:?}", self.hidden));
        }
        if !(2..=100).contains(&self.t_folds) {
            return bad(format!("t_folds must be in 2..=100, got {}", self.t_folds));
        }
        if self.exchange_passes == 0 {
            return bad("exchange_passes must be at least 1".into());
        }
        if self.max_depth == 0 || self.max_nodes == 0 {
            return bad(format!(
                "max_depth and max_nodes must be at least 1, got {} and {}",
                self.max_depth, self.max_nodes
            ));
        }
        if self.max_macs == Some(0) || self.max_bytes == Some(0) {
            return bad("max_macs and max_bytes must be at least 1 (or no bound)".into());
        }
        if self.min_split < 2 {
            return bad(format!("min_split must be at least 2, got {}", self.min_split));
        }
        if let Some(f) = self.prune_fraction.filter(|f| !(0.0..0.9).contains(f)) {
            return bad(format!("prune_fraction must be in [0, 0.9), got {f}"));
        }
        if !(0.0..=10.0).contains(&self.prune_z) {
            return bad(format!("prune_z must be in [0, 10], got {}", self.prune_z));
        }
        if self.numeric_max_abs == 0 || self.numeric_max_abs > 32767 {
            return bad(format!("numeric_max_abs must be in 1..=32767, got {}", self.numeric_max_abs));
        }
        if !(1..=32767).contains(&self.max_weight) {
            return bad(format!("max_weight must be in 1..=32767, got {}", self.max_weight));
        }
        if !(1..=1000).contains(&self.mlp_output_max) {
            return bad(format!("mlp_output_max must be in 1..=1000, got {}", self.mlp_output_max));
        }
        if !(0.0..=1.0).contains(&self.drop_tolerance) {
            return bad(format!("drop_tolerance must be in [0, 1], got {}", self.drop_tolerance));
        }
        Ok(())
    }
}

/// What happened while learning a tree (totals over its decision nodes as grown, before pruning
/// unless said otherwise).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Report {
    /// Oblique splits grown.
    pub splits_grown: usize,
    /// Oblique splits left after pruning.
    pub splits: usize,
    /// Of those, non-linear (MLP) splits.
    pub mlp_splits: usize,
    /// Networks trained (partition search, tests and final networks).
    pub networks_trained: usize,
    /// Hybrid nodes tested, and how many chose the MLP.
    pub hybrid_tests: usize,
    /// Hybrid nodes where the MLP was kept.
    pub hybrid_mlp: usize,
    /// With [`Params::compare_tests`]: hybrid nodes where the F test and the t test agreed.
    pub tests_agree: usize,
    /// Training rows (summed over grown nodes) whose side differs between a linear node's float
    /// network and its exported integer LTU.
    pub quantization_changed: usize,
    /// The same for non-linear nodes: soft MLP against the hard-threshold integer diagram.
    pub hardening_changed: usize,
    /// Training rows summed over grown nodes (the denominator of the two counts above).
    pub node_rows: usize,
    /// Weights of linear nodes and hidden units dropped by [`Params::drop_tolerance`]
    /// (rounded-to-zero included).
    pub weights_dropped: usize,
    /// Rows held out for pruning.
    pub validation_rows: usize,
    /// Tests over [`Params::max_macs`]: a non-linear one replaced by a linear one, or a split
    /// not made.
    pub over_budget: usize,
    /// Splits merged into a leaf to meet [`Params::max_bytes`].
    pub cut_for_bytes: usize,
}

/// A node's network, trained in floating point.
#[derive(Debug, Clone, PartialEq)]
enum Net {
    /// `f` weights, then the bias.
    Linear(Vec<f64>),
    /// `hidden × (f + 1)` input weights (bias last per unit), then `hidden + 1` output weights
    /// (bias last).
    Mlp { hidden: usize, w: Vec<f64>, t: Vec<f64> },
}

fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// One momentum step on `w` (weights then bias, `w.len() == x.len() + 1`): `d_j = g·x_j + α·d_j`,
/// `w_j += d_j`, with input 1 for the bias. Written without an iterator chain so the element-wise
/// loop vectorises; every element gets exactly the same operations as before.
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
    fn output(&self, x: &[f64]) -> f64 {
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
    fn side(&self, x: &[f64]) -> bool {
        match self {
            Net::Linear(w) => dot_bias(w, x) > 0.0,
            Net::Mlp { .. } => self.output(x) > 0.5,
        }
    }
}

/// A binary unit of the IR over the features whose integer weight in `wi` is not zero (feature
/// indices of the growing space; the export renumbers them).
fn binary_unit(wi: &[i64], bias: i64) -> Unit {
    let terms: Vec<usize> = (0..wi.len()).filter(|&j| wi[j] != 0).collect();
    let row = terms.iter().map(|&j| wi[j]).chain([bias]).collect();
    Unit { terms, rows: vec![row], classes: vec![0, 1] }
}

/// The exported test of a node: `true` is the target-1 side (right in the export).
#[derive(Debug, Clone, PartialEq)]
enum IntTest {
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
    fn macs(&self) -> u64 {
        match self {
            IntTest::Linear(u) => u.terms.len() as u64,
            IntTest::Mlp { hidden, .. } => hidden.iter().map(|u| u.terms.len() as u64).sum(),
        }
    }

    fn side(&self, f: &[i32]) -> bool {
        match self {
            IntTest::Linear(u) => u.row_score(0, f) > 0,
            IntTest::Mlp { hidden, out, bias } => {
                hidden.iter().zip(out).fold(*bias, |a, (u, &t)| if u.row_score(0, f) > 0 { a + t } else { a })
                    > 0
            }
        }
    }
}

#[derive(Debug, Clone)]
struct TreeNode {
    /// Training (growing) rows reaching the node.
    rows: Vec<usize>,
    majority: usize,
    depth: usize,
    /// Multiply-accumulates of the tests on the path from the root to this node.
    macs: u64,
    split: Option<Split>,
}

#[derive(Debug, Clone)]
struct Split {
    net: Net,
    test: IntTest,
    /// `[false side, true side]`.
    children: [usize; 2],
}

/// A learned oblique tree: the exported model, the float tree it came from, and a report.
#[derive(Debug, Clone)]
pub struct ObliqueTree {
    /// The exported model (integer LTUs), ready for [`crate::learn::finish`].
    pub spec: ModelSpec,
    /// What happened while learning.
    pub report: Report,
    nodes: Vec<TreeNode>,
    /// The standard features the networks read, and each one's bound.
    features: Vec<Feature>,
    scale: Vec<f64>,
}

impl ObliqueTree {
    /// The class the float tree predicts for raw inputs `x`: the same tree, each node deciding by
    /// its float network (`y > 0.5`) instead of the exported integer test.
    pub fn predict_float(&self, x: &[i32]) -> usize {
        let xf: Vec<f64> =
            self.features.iter().zip(&self.scale).map(|(f, s)| f64::from(f.value(x)) / s).collect();
        let mut i = 0;
        while let Some(s) = &self.nodes[i].split {
            i = s.children[usize::from(s.net.side(&xf))];
        }
        self.nodes[i].majority
    }

    /// The class the exported model predicts for raw inputs `x` (same as `spec.predict`).
    pub fn predict(&self, x: &[i32]) -> usize {
        self.spec.predict(x)
    }
}

/// The node's rows as the networks and the integer tests see them.
struct Space {
    f: usize,
    /// `n × f` feature values divided by their bound.
    xf: Vec<f64>,
    /// `n × f` integer feature values.
    xi: Vec<i32>,
    y: Vec<usize>,
    n_classes: usize,
}

impl Space {
    fn xf(&self, r: usize) -> &[f64] {
        &self.xf[r * self.f..(r + 1) * self.f]
    }
    fn xi(&self, r: usize) -> &[i32] {
        &self.xi[r * self.f..(r + 1) * self.f]
    }
}

/// Which network kind to train.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Linear,
    Mlp(usize),
}

/// Trains one network by stochastic gradient descent with momentum (4.1.1, 4.1.2).
fn train_net(sp: &Space, rows: &[usize], target: &[bool], kind: Kind, p: &Params, rng: &mut Rng) -> Net {
    let f = sp.f;
    let lr0 = p.lr_start / f.max(1) as f64;
    let decay = if p.epochs > 1 { (p.lr_end / lr0).powf(1.0 / (p.epochs - 1) as f64) } else { 1.0 };
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
    // Each epoch's rows are copied next to each other in the order they are visited: the
    // arithmetic is the same, but the pass reads memory sequentially instead of jumping through
    // the whole data set (on 100,000 rows most of the time went to cache misses), and the copy's
    // independent loads overlap each other.
    let mut buf = vec![0.0; rows.len() * f.max(1)];
    let gather = |order: &[usize], buf: &mut [f64]| {
        if f > 0 {
            for (dst, &k) in buf.chunks_exact_mut(f).zip(order) {
                dst.copy_from_slice(sp.xf(rows[k]));
            }
        }
    };
    match kind {
        Kind::Linear => {
            let mut w: Vec<f64> = (0..=f).map(|_| (rng.f64() - 0.5) * 0.02).collect();
            let mut dw = vec![0.0; f + 1];
            for _ in 0..p.epochs {
                rng.shuffle(&mut order);
                gather(&order, &mut buf);
                for (x, &k) in buf.chunks_exact(f.max(1)).zip(&order) {
                    let x = &x[..f];
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
            for _ in 0..p.epochs {
                rng.shuffle(&mut order);
                gather(&order, &mut buf);
                for (x, &k) in buf.chunks_exact(f.max(1)).zip(&order) {
                    let x = &x[..f];
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
fn impurity(sp: &Space, rows: &[usize], side: impl Fn(usize) -> bool) -> f64 {
    let mut counts = [vec![0u64; sp.n_classes], vec![0u64; sp.n_classes]];
    for &r in rows {
        counts[usize::from(side(r))][sp.y[r]] += 1;
    }
    let n = rows.len().max(1) as f64;
    counts.iter().map(|c| c.iter().sum::<u64>() as f64 / n * entropy(c, EntropyUnit::Bits)).sum()
}

/// The two classes (of `classes`) whose means are furthest apart, and every class mean.
fn class_means(sp: &Space, rows: &[usize], classes: &[usize]) -> (Vec<Vec<f64>>, usize, usize) {
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

/// Learning state shared by the node trainings of one tree.
struct Grower<'a> {
    sp: &'a Space,
    p: &'a Params,
    report: Report,
    hidden: usize,
    /// Largest stored bias of a refitted threshold.
    bias_max: i64,
    /// Where weights are rounded: the largest weight [`Params::max_weight`], the rounded bias
    /// within half of `bias_max` and accumulator room for any refitted bias.
    grid: Grid,
    /// Bound of every feature (`max_abs`).
    bound: Vec<i64>,
}

impl Grower<'_> {
    fn train(&mut self, rows: &[usize], target: &[bool], kind: Kind, rng: &mut Rng) -> Net {
        self.report.networks_trained += 1;
        train_net(self.sp, rows, target, kind, self.p, rng)
    }

    fn targets(&self, rows: &[usize], group: &[bool]) -> Vec<bool> {
        rows.iter().map(|&r| group[self.sp.y[r]]).collect()
    }

    /// Finds the class groups (`group[c]`: class `c` is in `C_L`, target 1) and the network
    /// trained on them.
    fn partition(
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
        let Net::Linear(t2) = train_net(&tmp, &idx, target, Kind::Linear, self.p, rng) else {
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
fn refit_bias(scores: &[i64], target: &[bool], cost: [u64; 2], preferred: i64, bias_max: i64) -> (i64, u64) {
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

/// The majority class of `rows` (ties to the lowest class), `fallback` when `rows` is empty.
fn majority(sp: &Space, rows: &[usize], fallback: usize) -> usize {
    majority_or(&class_counts(&sp.y, rows.iter().copied(), sp.n_classes), fallback)
}

/// Learns an oblique tree and exports it ([`ObliqueTree::spec`]).
///
/// # Errors
/// [`TrainError::InvalidOption`] for bad [`Params`], no training rows or fewer than two classes.
pub fn fit(ctx: &Context<'_>, p: &Params) -> Result<ObliqueTree, TrainError> {
    p.check()?;
    let n = ctx.raw.len();
    if n == 0 {
        return Err(TrainError::InvalidOption("oblique: no training rows".into()));
    }
    if ctx.n_classes() < 2 {
        return Err(TrainError::InvalidOption("oblique: needs at least two classes".into()));
    }
    let features = encode::standard_features(&ctx.inputs, &ctx.raw, p.numeric_max_abs);
    let f = features.len();
    let scale: Vec<f64> = features.iter().map(|ft| ft.max_abs() as f64).collect();
    let xi: Vec<i32> = ctx.raw.iter().flat_map(|x| features.iter().map(|ft| ft.value(x))).collect();
    let xf: Vec<f64> = xi.iter().enumerate().map(|(i, &v)| f64::from(v) / scale[i % f.max(1)]).collect();
    let sp = Space { f, xf, xi, y: ctx.labels().to_vec(), n_classes: ctx.n_classes() };
    let kind = ctx.weight_kind.unwrap_or(WeightKind::I16);
    // Integer weights; `Fixed` stores them as I16F16 bits after training (`learn::finish`).
    let int_kind = match kind {
        WeightKind::Fixed => WeightKind::I16,
        k => k,
    };
    let (_, kind_max) = weight_range(int_kind);
    // A refitted bias may use the kind's range, but at most half the accumulator (i32 weights:
    // the other half is the terms' room).
    let bias_max = kind_max.min(int_kind.accumulator_limit() as i64 / 2);
    let mut learner = Grower {
        sp: &sp,
        p,
        report: Report::default(),
        hidden: p.hidden.unwrap_or((f / 2).max(1)),
        bias_max,
        grid: Grid {
            kind: int_kind,
            max_weight: p.max_weight.min(kind_max),
            max_bias: bias_max / 2,
            bias_reserve: bias_max,
        },
        bound: features.iter().map(Feature::max_abs).collect(),
    };
    let rng = Rng::new(ctx.seed);

    // Growing and validation rows.
    let (grow, valid) =
        split::hold_out(&sp.y, sp.n_classes, p.prune_fraction_for(sp.y.len()), rng.fork(1).next_u64());
    learner.report.validation_rows = valid.len();
    let root_major = majority(&sp, &grow, 0);
    let mut nodes = vec![TreeNode { rows: grow, majority: root_major, depth: 0, macs: 0, split: None }];
    // Nodes to split, largest first.
    let mut queue = vec![0usize];
    while !queue.is_empty() && learner.report.splits_grown < p.max_nodes {
        let (qi, _) = queue
            .iter()
            .enumerate()
            .max_by_key(|(_, &id)| (nodes[id].rows.len(), std::cmp::Reverse(id)))
            .expect("non-empty");
        let id = queue.swap_remove(qi);
        let node = &nodes[id];
        let mut present = vec![false; sp.n_classes];
        for &r in &node.rows {
            present[sp.y[r]] = true;
        }
        let classes: Vec<usize> = (0..sp.n_classes).filter(|&c| present[c]).collect();
        let out_of_macs = p.max_macs.is_some_and(|m| node.macs >= m);
        if classes.len() < 2 || node.rows.len() < p.min_split || node.depth >= p.max_depth || out_of_macs {
            continue;
        }
        let rows = node.rows.clone();
        let (depth, maj, macs) = (node.depth, node.majority, node.macs);
        let mut nrng = rng.fork(1000 + id as u64);
        let search_kind = if p.node == NodeModel::Mlp { Kind::Mlp(learner.hidden) } else { Kind::Linear };
        let (group, mut net) = learner.partition(&rows, &classes, search_kind, &mut nrng);
        if p.node == NodeModel::Hybrid {
            learner.report.hybrid_tests += 1;
            let mut trng = nrng.fork(7);
            let chosen = learner.mlp_better(p.significance, &rows, &group, &mut trng);
            if p.compare_tests {
                let other = match p.significance {
                    Significance::FTest5x2 => Significance::TTest,
                    Significance::TTest => Significance::FTest5x2,
                };
                let mut orng = nrng.fork(8);
                let o = learner.mlp_better(other, &rows, &group, &mut orng);
                learner.report.tests_agree += usize::from(o == chosen);
            }
            if chosen {
                learner.report.hybrid_mlp += 1;
                let t = learner.targets(&rows, &group);
                net = learner.train(&rows, &t, Kind::Mlp(learner.hidden), &mut nrng);
            }
        }
        let target = learner.targets(&rows, &group);
        let mut test = match &net {
            Net::Linear(w) => IntTest::Linear(learner.quantize_linear(w, &rows, &target)),
            Net::Mlp { hidden, w, t } => learner.quantize_mlp(*hidden, w, t, &rows, &target, &mut nrng),
        };
        // A non-linear test over the MACs budget falls back to a linear one.
        if matches!(test, IntTest::Mlp { .. }) && p.max_macs.is_some_and(|m| macs + test.macs() > m) {
            learner.report.over_budget += 1;
            net = learner.train(&rows, &target, Kind::Linear, &mut nrng);
            let Net::Linear(w) = &net else { unreachable!("a linear network") };
            test = IntTest::Linear(learner.quantize_linear(w, &rows, &target));
        }
        let mut parts = [Vec::new(), Vec::new()];
        let mut changed = 0;
        for &r in &rows {
            let s = test.side(sp.xi(r));
            changed += usize::from(s != net.side(sp.xf(r)));
            parts[usize::from(s)].push(r);
        }
        if parts[0].is_empty() || parts[1].is_empty() {
            continue;
        }
        let macs = macs + test.macs();
        if p.max_macs.is_some_and(|m| macs > m) {
            learner.report.over_budget += 1;
            continue;
        }
        learner.report.node_rows += rows.len();
        match net {
            Net::Linear(_) => learner.report.quantization_changed += changed,
            Net::Mlp { .. } => learner.report.hardening_changed += changed,
        }
        learner.report.splits_grown += 1;
        let mut children = [0usize; 2];
        for (side, part) in parts.into_iter().enumerate() {
            let m = majority(&sp, &part, maj);
            children[side] = nodes.len();
            queue.push(nodes.len());
            nodes.push(TreeNode { rows: part, majority: m, depth: depth + 1, macs, split: None });
        }
        nodes[id].split = Some(Split { net, test, children });
        (ctx.progress)(learner.report.splits_grown as u64, p.max_nodes as u64);
    }

    if !valid.is_empty() {
        prune(&mut nodes, 0, &sp, &valid);
    } else if p.prune_z > 0.0 {
        prune_pessimistic(&mut nodes, 0, &sp, p.prune_z);
    }
    let mut report = learner.report;
    // Integer weights; `learn::finish` turns them into I16F16 bits when `Fixed` is asked for.
    let int_kind = if kind == WeightKind::Fixed { WeightKind::I16 } else { kind };
    let mut spec = export(ctx, &features, &nodes, int_kind);
    if let Some(max) = p.max_bytes {
        // Weakest link first: the split whose two leaves cost the fewest training errors if
        // merged, until the file (as a device stores it, without its host block) fits.
        while file_bytes(&spec, ctx.weight_kind)? > max {
            let Some(id) = weakest_split(&nodes, &sp) else { break };
            nodes[id].split = None;
            report.cut_for_bytes += 1;
            spec = export(ctx, &features, &nodes, int_kind);
        }
    }
    let (splits, mlp_splits) = count_splits(&nodes, 0);
    report.splits = splits;
    report.mlp_splits = mlp_splits;
    Ok(ObliqueTree { spec, report, nodes, features, scale })
}

/// Bytes of the model file a device stores for `spec` (without its host block): the requested
/// weight kind, else the smallest integer kind that holds it.
fn file_bytes(spec: &ModelSpec, requested: Option<WeightKind>) -> Result<usize, TrainError> {
    let mut s = spec.clone();
    s.weight_kind = match requested {
        // Fixed stores 32-bit words, as I32 does.
        Some(WeightKind::Fixed) => WeightKind::I32,
        Some(k) => k,
        None => s.smallest_integer_kind().unwrap_or(WeightKind::I32),
    };
    Ok(s.to_bytes_with(&crate::model::Host { strip: true, meta: None })?.len())
}

/// The reachable split whose children are both leaves and whose merge adds the fewest training
/// errors (ties: the deepest, then the last).
fn weakest_split(nodes: &[TreeNode], sp: &Space) -> Option<usize> {
    let errors = |id: usize| nodes[id].rows.iter().filter(|&&r| sp.y[r] != nodes[id].majority).count();
    let mut best: Option<(usize, std::cmp::Reverse<usize>, std::cmp::Reverse<usize>, usize)> = None;
    let mut stack = vec![0usize];
    while let Some(id) = stack.pop() {
        let Some(split) = &nodes[id].split else { continue };
        let [a, b] = split.children;
        stack.extend([a, b]);
        if nodes[a].split.is_some() || nodes[b].split.is_some() {
            continue;
        }
        let cost = errors(id).saturating_sub(errors(a) + errors(b));
        let key = (cost, std::cmp::Reverse(nodes[id].depth), std::cmp::Reverse(id), id);
        if best.as_ref().is_none_or(|k| key < *k) {
            best = Some(key);
        }
    }
    best.map(|k| k.3)
}

/// The oblique tree learner for the registry in `crate::learn` (`--algo oblique`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Oblique;

impl crate::learn::Learner for Oblique {
    const NAME: &'static str = "oblique";
    const ABOUT: &'static str =
        "oblique tree: neural-network splits (linear, MLP or hybrid) exported as integer LTUs (Yildiz & Alpaydin)";
    type Params = Params;
    type Checked = Params;
    type Model = ObliqueTree;
    type Report = Report;

    fn check(p: &Params, _ctx: &Context<'_>) -> Result<Params, TrainError> {
        p.check()?;
        Ok(p.clone())
    }

    fn fit(ctx: &Context<'_>, p: &Params) -> Result<(ObliqueTree, Report), TrainError> {
        let tree = fit(ctx, p)?;
        let report = tree.report.clone();
        Ok((tree, report))
    }

    fn to_spec(model: &ObliqueTree) -> ModelSpec {
        model.spec.clone()
    }

    /// Fewer oblique splits: 16, 8, 4, 2 and 1 (below the cap already set).
    fn ladder(p: &Params) -> Vec<Params> {
        [16, 8, 4, 2, 1]
            .into_iter()
            .filter(|&n| n < p.max_nodes)
            .map(|max_nodes| Params { max_nodes, ..p.clone() })
            .collect()
    }
}

/// Learns an oblique tree and returns only the exported model (for `learn::finish`).
///
/// # Errors
/// As [`fit`].
pub fn train(ctx: &Context<'_>, p: &Params) -> Result<ModelSpec, TrainError> {
    Ok(fit(ctx, p)?.spec)
}

fn count_splits(nodes: &[TreeNode], id: usize) -> (usize, usize) {
    match &nodes[id].split {
        None => (0, 0),
        Some(s) => {
            let (a, b) = count_splits(nodes, s.children[0]);
            let (c, d) = count_splits(nodes, s.children[1]);
            (1 + a + c, usize::from(matches!(s.test, IntTest::Mlp { .. })) + b + d)
        }
    }
}

/// Reduced-error pruning on `valid`: returns the subtree's validation errors.
fn prune(nodes: &mut [TreeNode], id: usize, sp: &Space, valid: &[usize]) -> usize {
    let leaf_errors = valid.iter().filter(|&&r| sp.y[r] != nodes[id].majority).count();
    let Some(split) = nodes[id].split.clone() else {
        return leaf_errors;
    };
    let mut parts = [Vec::new(), Vec::new()];
    for &r in valid {
        parts[usize::from(split.test.side(sp.xi(r)))].push(r);
    }
    let sub = prune(nodes, split.children[0], sp, &parts[0]) + prune(nodes, split.children[1], sp, &parts[1]);
    if leaf_errors <= sub {
        nodes[id].split = None;
        leaf_errors
    } else {
        sub
    }
}

/// Error-based pruning on the growing rows (C4.5): returns the subtree's pessimistic error
/// estimate.
fn prune_pessimistic(nodes: &mut [TreeNode], id: usize, sp: &Space, z: f64) -> f64 {
    let node = &nodes[id];
    let errors = node.rows.iter().filter(|&&r| sp.y[r] != node.majority).count();
    let as_leaf = pessimistic_errors(errors as f64, node.rows.len() as f64, z);
    let Some(split) = node.split.clone() else {
        return as_leaf;
    };
    let sub = prune_pessimistic(nodes, split.children[0], sp, z)
        + prune_pessimistic(nodes, split.children[1], sp, z);
    if as_leaf <= sub + 1e-9 {
        nodes[id].split = None;
        as_leaf
    } else {
        sub
    }
}

/// Where a decision-diagram edge of a non-linear node leads.
#[derive(Clone, Copy)]
enum Link {
    State(usize),
    Exit(bool),
}

/// The decision diagram of `Σ out[h]·[hidden h > 0] + bias > 0` over the hidden units, largest
/// `|out|` first: `(hidden unit, left link, right link)` per state, states in level order (so
/// links point forward). `None` if the decision does not depend on the hidden units.
fn diagram(out: &[i64], bias: i64) -> Result<Vec<(usize, Link, Link)>, bool> {
    let mut order: Vec<usize> = (0..out.len()).collect();
    order.sort_by_key(|&h| (std::cmp::Reverse(out[h].abs()), h));
    let l = order.len();
    let mut rest_min = vec![0i64; l + 1];
    let mut rest_max = vec![0i64; l + 1];
    for k in (0..l).rev() {
        rest_min[k] = rest_min[k + 1] + out[order[k]].min(0);
        rest_max[k] = rest_max[k + 1] + out[order[k]].max(0);
    }
    let decided = |k: usize, s: i64| {
        if s + bias + rest_min[k] > 0 {
            Some(true)
        } else if s + bias + rest_max[k] <= 0 {
            Some(false)
        } else {
            None
        }
    };
    if let Some(d) = decided(0, 0) {
        return Err(d);
    }
    let mut states: Vec<(usize, i64)> = vec![(0, 0)];
    let mut index: HashMap<(usize, i64), usize> = HashMap::from([((0, 0), 0)]);
    let mut out_links = Vec::new();
    let mut i = 0;
    while i < states.len() {
        let (k, s) = states[i];
        let h = order[k];
        let mut link = |s2: i64| match decided(k + 1, s2) {
            Some(d) => Link::Exit(d),
            None => {
                let next = states.len();
                let j = *index.entry((k + 1, s2)).or_insert(next);
                if j == next {
                    states.push((k + 1, s2));
                }
                Link::State(j)
            }
        };
        let (left, right) = (link(s), link(s + out[h]));
        out_links.push((h, left, right));
        i += 1;
    }
    Ok(out_links)
}

/// The tree as a [`ModelSpec`]: linear nodes as one `UnitSplit`, non-linear nodes as their
/// decision diagram; only the features some unit reads are kept.
fn export(ctx: &Context<'_>, features: &[Feature], nodes: &[TreeNode], kind: WeightKind) -> ModelSpec {
    let mut out_nodes: Vec<Node> = Vec::new();
    let mut units: Vec<Unit> = Vec::new();
    let mut used = vec![false; features.len()];
    let mut add_unit = |u: &Unit, units: &mut Vec<Unit>| {
        for &t in &u.terms {
            used[t] = true;
        }
        units.push(u.clone());
        units.len() - 1
    };
    // Iterative emission with an explicit stack of pending link fills.
    fn emit(
        id: usize,
        nodes: &[TreeNode],
        out: &mut Vec<Node>,
        units: &mut Vec<Unit>,
        add_unit: &mut dyn FnMut(&Unit, &mut Vec<Unit>) -> usize,
    ) -> usize {
        let Some(split) = &nodes[id].split else {
            out.push(Node::Class(nodes[id].majority));
            return out.len() - 1;
        };
        match &split.test {
            IntTest::Linear(u) => {
                let at = out.len();
                out.push(Node::Class(0));
                let unit = add_unit(u, units);
                let left = emit(split.children[0], nodes, out, units, add_unit);
                let right = emit(split.children[1], nodes, out, units, add_unit);
                out[at] = Node::UnitSplit { unit, left, right };
                at
            }
            IntTest::Mlp { hidden, out: w, bias } => match diagram(w, *bias) {
                Err(side) => emit(split.children[usize::from(side)], nodes, out, units, add_unit),
                Ok(states) => {
                    let base = out.len();
                    out.extend(states.iter().map(|_| Node::Class(0)));
                    let hidden_units: Vec<usize> = hidden.iter().map(|u| add_unit(u, units)).collect();
                    let left = emit(split.children[0], nodes, out, units, add_unit);
                    let right = emit(split.children[1], nodes, out, units, add_unit);
                    let resolve = |l: Link| match l {
                        Link::State(j) => base + j,
                        Link::Exit(false) => left,
                        Link::Exit(true) => right,
                    };
                    for (i, &(h, l, r)) in states.iter().enumerate() {
                        out[base + i] =
                            Node::UnitSplit { unit: hidden_units[h], left: resolve(l), right: resolve(r) };
                    }
                    base
                }
            },
        }
    }
    emit(0, nodes, &mut out_nodes, &mut units, &mut add_unit);
    // Keep only the features some unit reads.
    let mut remap = vec![usize::MAX; features.len()];
    let mut kept = Vec::new();
    for (j, ft) in features.iter().enumerate() {
        if used[j] {
            remap[j] = kept.len();
            kept.push(ft.clone());
        }
    }
    for u in &mut units {
        for t in &mut u.terms {
            *t = remap[*t];
        }
    }
    ModelSpec {
        n_classes: ctx.n_classes(),
        weight_kind: kind,
        inputs: ctx.inputs.clone(),
        features: kept,
        units,
        structure: Structure::Tree(out_nodes),
        names: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_names_round_trip() {
        crate::names::assert_round_trips(NodeModel::ALL);
        crate::names::assert_round_trips(Partition::ALL);
        crate::names::assert_round_trips(Significance::ALL);
    }

    #[test]
    fn refit_bias_finds_the_separating_threshold() {
        let scores = [-5, -3, 0, 2, 4, 9];
        let target = [false, false, false, true, true, true];
        let (b, e) = refit_bias(&scores, &target, [1, 1], 100, 1000);
        assert_eq!(e, 0);
        // Any c in [0, 1] separates; the preferred bias 100 (c = -100) clamps to c = 0.
        assert_eq!(b, 0);
        assert!(scores.iter().zip(target).all(|(&s, t)| (s + b > 0) == t));
    }

    #[test]
    fn diagram_matches_the_threshold_function() {
        let out = [5, -3, 2, 1];
        for bias in -8..8 {
            let d = diagram(&out, bias);
            for bits in 0..16u32 {
                let want = (0..4).filter(|&h| bits >> h & 1 == 1).map(|h| out[h]).sum::<i64>() + bias > 0;
                let got = match &d {
                    Err(side) => *side,
                    Ok(states) => {
                        let mut i = 0;
                        loop {
                            let (h, l, r) = states[i];
                            match if bits >> h & 1 == 1 { r } else { l } {
                                Link::State(j) => {
                                    assert!(j > i, "links point forward");
                                    i = j;
                                }
                                Link::Exit(s) => break s,
                            }
                        }
                    }
                };
                assert_eq!(got, want, "bias {bias} bits {bits:04b}");
            }
        }
    }
}
