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
//! - **Large data** (more than [`split::HOLD_OUT_PRUNING_ROWS`] training rows, where a held-out
//!   quarter prunes the tree): a node's networks train on a systematic sample of its rows
//!   ([`Params::net_rows`]) for at most [`Params::large_epochs`] epochs, the linear threshold
//!   is refitted on all of the node's rows, and the tree grows up to [`LARGE_MAX_NODES`] splits
//!   before pruning ([`Params::max_nodes`]). Smaller data gets the chapter's procedure.
//! - [`ObliqueTree::predict_float`] is the same tree with the float networks at its nodes
//!   (sigmoid output `> 0.5`), so the accuracy lost on export can be measured on any data.
//!
//! See `docs/OBLIQUE.md` for the defaults and measurements, and `docs/OBLIQUE_STUDY.md` for the
//! thesis's findings reproduced on the reference data sets.
//!
//! [`quantize::quantize`]: crate::model::quantize::quantize
//! [`Node::UnitSplit`]: crate::model::Node::UnitSplit

use crate::data::encode;
use crate::data::split;
use crate::learn::{Context, TrainError};
use crate::model::{Feature, ModelSpec, WeightKind};
use crate::rng::Rng;

use super::tree::{class_counts, majority_or};

mod export;
mod grow;
mod net;
mod prune;
#[cfg(test)]
mod tests;

use export::export;
use grow::Grower;
use net::{IntTest, Net};
use prune::{prune, prune_pessimistic};

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
    /// Most epochs when more than [`crate::data::split::HOLD_OUT_PRUNING_ROWS`] rows train the
    /// tree (beyond the chapter): every epoch of a large node then visits at least
    /// [`NET_ROWS`] rows, so fewer epochs take as many gradient steps as [`Params::epochs`] over
    /// a small data set, and the time goes to growing more nodes ([`LARGE_MAX_NODES`]).
    pub large_epochs: usize,
    /// Most rows of a node that its networks train on (beyond the chapter): a node with more
    /// trains its networks, searches its class partition, runs the hybrid test and drops
    /// weights on a systematic sample of this many
    /// ([`systematic_sample`](crate::learners::unit_fit::systematic_sample)); a linear test's
    /// threshold is then refitted on every row of the node, and every row is routed to the
    /// children. A network costs epochs × rows × features, so this bounds a node's time on large
    /// data, where a unit needs a few dozen rows per weight to settle. `None`, the default:
    /// every row on up to [`crate::data::split::HOLD_OUT_PRUNING_ROWS`] training rows; on more,
    /// [`NET_ROWS`] or [`NET_ROWS_PER_WEIGHT`] per weight, whichever is more.
    pub net_rows: Option<usize>,
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
    /// Most oblique splits in the tree (nodes are split largest first). `None`, the default:
    /// [`MAX_NODES`] on up to [`crate::data::split::HOLD_OUT_PRUNING_ROWS`] training rows,
    /// [`LARGE_MAX_NODES`] on more, where a held-out quarter prunes the splits that do not pay.
    pub max_nodes: Option<usize>,
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
    /// (C4.5; [`pessimistic_errors`](crate::learners::tree::pessimistic_errors) with this `z`): a
    /// split becomes a leaf of its majority class when the leaf's pessimistic error estimate is not
    /// above the sum of its leaves'. 0 does not prune.
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

/// Most oblique splits by default on up to [`split::HOLD_OUT_PRUNING_ROWS`] training rows
/// ([`Params::max_nodes`]).
pub const MAX_NODES: usize = 32;

/// Most oblique splits by default on more than [`split::HOLD_OUT_PRUNING_ROWS`] training rows
/// ([`Params::max_nodes`]): the tree is pruned on a held-out quarter there, so growing further
/// costs time but not size.
pub const LARGE_MAX_NODES: usize = 256;

/// The fewest rows a node's networks train on by default on more than
/// [`split::HOLD_OUT_PRUNING_ROWS`] training rows ([`Params::net_rows`]).
pub const NET_ROWS: usize = 2_000;

/// ... and the rows per weight of a linear node (bias included) when that is more: a unit of
/// many weights needs more rows not to fit the sample's noise.
pub const NET_ROWS_PER_WEIGHT: usize = 40;

impl Default for Params {
    fn default() -> Self {
        Params {
            node: NodeModel::Linear,
            partition: Partition::Exchange,
            significance: Significance::FTest5x2,
            compare_tests: false,
            t_folds: 30,
            epochs: 300,
            large_epochs: 100,
            net_rows: None,
            lr_start: 0.3,
            lr_end: 1e-5,
            momentum: 0.7,
            balance: true,
            hidden: None,
            exchange_passes: 4,
            max_depth: 8,
            max_nodes: None,
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

    /// The epochs of every network when `m` rows train the tree (see [`Params::large_epochs`]).
    pub fn epochs_for(&self, m: usize) -> usize {
        if m > split::HOLD_OUT_PRUNING_ROWS {
            self.epochs.min(self.large_epochs)
        } else {
            self.epochs
        }
    }

    /// The most oblique splits of a tree that `m` rows train (see [`Params::max_nodes`]).
    pub fn max_nodes_for(&self, m: usize) -> usize {
        self.max_nodes.unwrap_or(if m > split::HOLD_OUT_PRUNING_ROWS { LARGE_MAX_NODES } else { MAX_NODES })
    }

    /// The most rows of a node its networks train on when `m` rows of `f` features train the
    /// tree (see [`Params::net_rows`]).
    pub fn net_rows_for(&self, m: usize, f: usize) -> usize {
        let large = NET_ROWS.max(NET_ROWS_PER_WEIGHT * (f + 1));
        self.net_rows.unwrap_or(if m > split::HOLD_OUT_PRUNING_ROWS { large } else { usize::MAX })
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
        if let Some(r) = self.net_rows.filter(|&r| r < 100) {
            return bad(format!("net_rows must be at least 100, got {r}"));
        }
        if self.large_epochs == 0 || self.large_epochs > 100_000 {
            return bad(format!("large_epochs must be in 1..=100000, got {}", self.large_epochs));
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
        if let Some(h) = self.hidden.filter(|h| !(1..=1024).contains(h)) {
            return bad(format!("hidden units must be in 1..=1024, got {h}"));
        }
        if !(2..=100).contains(&self.t_folds) {
            return bad(format!("t_folds must be in 2..=100, got {}", self.t_folds));
        }
        if self.exchange_passes == 0 {
            return bad("exchange_passes must be at least 1".into());
        }
        if self.max_depth == 0 {
            return bad(format!("max_depth must be at least 1, got {}", self.max_depth));
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
    let mut learner = Grower::new(&sp, p, features.iter().map(Feature::max_abs).collect(), int_kind);
    let rng = Rng::new(ctx.seed);

    // Growing and validation rows.
    let (grow, valid) =
        split::hold_out(&sp.y, sp.n_classes, p.prune_fraction_for(sp.y.len()), rng.fork(1).next_u64());
    learner.report.validation_rows = valid.len();
    let root_major = majority(&sp, &grow, 0);
    let mut nodes = vec![TreeNode { rows: grow, majority: root_major, depth: 0, macs: 0, split: None }];
    let max_nodes = p.max_nodes_for(sp.y.len());
    // Nodes to split, largest first.
    let mut queue = vec![0usize];
    while !queue.is_empty() && learner.report.splits_grown < max_nodes {
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
        let (net, test) = learner.node_test(&rows, &classes, macs, &mut nrng);
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
        (ctx.progress)(learner.report.splits_grown as u64, max_nodes as u64);
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
        let spec_for = |nodes: &[TreeNode]| export(ctx, &features, nodes, int_kind);
        spec = cut_to_bytes(spec, &mut nodes, &sp, max, ctx.weight_kind, &mut report, spec_for)?;
    }
    let (splits, mlp_splits) = count_splits(&nodes, 0);
    report.splits = splits;
    report.mlp_splits = mlp_splits;
    Ok(ObliqueTree { spec, report, nodes, features, scale })
}

/// Cuts splits off `nodes`, weakest link first (the split whose two leaves cost the fewest
/// training errors if merged), until the file `spec_for` exports (as a device stores it,
/// without its host block) is at most `max` bytes or no split is left; returns the last export.
fn cut_to_bytes(
    mut spec: ModelSpec,
    nodes: &mut [TreeNode],
    sp: &Space,
    max: usize,
    requested: Option<WeightKind>,
    report: &mut Report,
    spec_for: impl Fn(&[TreeNode]) -> ModelSpec,
) -> Result<ModelSpec, TrainError> {
    while file_bytes(&spec, requested)? > max {
        let Some(id) = weakest_split(nodes, sp) else { break };
        nodes[id].split = None;
        report.cut_for_bytes += 1;
        spec = spec_for(nodes);
    }
    Ok(spec)
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

    /// Fewer oblique splits: 16, 8, 4, 2 and 1 (below the cap already set), then none: a single
    /// leaf, the majority class.
    fn ladder(p: &Params) -> Vec<Params> {
        [16, 8, 4, 2, 1, 0]
            .into_iter()
            .filter(|&n| p.max_nodes.is_none_or(|cap| n < cap))
            .map(|n| Params { max_nodes: Some(n), ..p.clone() })
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
