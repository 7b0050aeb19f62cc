//! Halfspace intersections and neural decision lists (Marchand & Golea 1993, "On learning simple
//! neural concepts: from halfspace intersections to neural decision lists", *Network* 4).
//!
//! A neural decision list (section 2) is a list `(H_1, v_1), …, (H_r, v_r)` of halfspaces and
//! classes; an input gets the class of the first halfspace that contains it, and the last
//! halfspace is the constant one. It maps one-to-one onto the runtime's
//! [`Structure::List`]: each `H_i` is a binary unit (an entry fires iff its integer score is
//! `> 0`), and the constant last node is the list's `default` class.
//!
//! The learners, all greedy set coverings around one single-unit subproblem:
//!
//! * [`inclp`] — the single-unit subproblem, "find a halfspace that covers a large subset of
//!   these examples and none of those": IncLP and `Find_large_neg_subset` (section 4.1), plus
//!   `mult_IncLP` and the pocket algorithm with ratchet used as baselines in section 6.1.
//! * [`train_hsi`] — halfspace intersections by greedy set covering (section 3): each step
//!   cuts away the largest subset of the remaining negative examples with a halfspace that
//!   keeps every positive example. [`HsiShape::Union`] learns the dual (a union of halfspaces
//!   covering the positives). As a list: `(G_1, neg), …, (G_k, neg), default pos` where `G_i`
//!   is the complement of the paper's `H_i`.
//! * [`train_ndl`] — `Build_NDL` (section 5.1) and its multi-class heuristic (section 5.2):
//!   each step tries, for every class, to cover the largest *fraction* of its remaining examples
//!   without covering any remaining example of another class, keeps the best, removes what it
//!   covers. For two classes this is exactly 5.1 (the tie goes to class 0, the paper's `S⁻`).
//!
//! # Inputs (section 2)
//!
//! Examples live in `[-1, 1]^n`: every numeric attribute becomes one feature quantized to
//! `[-M, M]` by [`encode::standard_features`] (`M` = [`Params::feature_max_abs`]) and divided by
//! `M`; every categorical value becomes a `±1` feature. The float learner sees exactly the
//! integer feature values that the runtime computes, so the only difference between the float
//! model and the exported one is the rounding of the weights. Features that are constant on the
//! training rows, or equal or opposite to an earlier feature on every training row (for example
//! the two value features of a yes/no attribute), are left out of the LPs: they change no
//! separation.
//!
//! # Beyond the paper (section 6.3 lists these as future work)
//!
//! * **Stopping and pruning.** [`Params::max_nodes`] and [`Params::min_cover`] stop the list
//!   early (the default class is then the majority of the examples left); with
//!   [`Params::validation`] a stratified part of the training rows is held out and the list is
//!   cut after the prefix with the best held-out accuracy (the paper's "Opt-gen" of table 1,
//!   chosen on validation data instead of test data).
//! * **Maximal margin.** Each accepted halfspace is re-solved by [`inclp::max_margin`]: the
//!   largest margin under `‖w‖∞ <= 1` that keeps every example it covered covered and every
//!   example of another class excluded. This is what makes a node survive weight rounding.
//! * **Quantization in the loop.** Each node is quantized as soon as it is found
//!   (the shared [`quantize::quantize`]: one scale per unit, as large as the weight kind and the runtime's
//!   accumulator bound `Σ|w|·max|f| + |b| <= limit` allow), and the examples removed from the
//!   training set are the ones the **quantized** unit covers. So the list stays consistent
//!   with what the exported model does; when rounding changes which training examples a node
//!   covers, it is counted per node ([`NodeInfo::changed_by_quantization`], and
//!   [`NodeInfo::wrong_class`] for examples of another class it now covers) and in the
//!   [`Report`], never silently. [`fit`] returns the report; [`train_ndl`] and [`train_hsi`]
//!   return only the model.
//!
//! * **Noise.** With [`Params::relabel_duplicates`] (default) training rows with identical
//!   inputs and different classes get their group's majority class before building; the exact
//!   method can never cover them and would stop ([`Stop::Inseparable`]).
//! * **Quantization-aware nodes.** For `i8`/`i16` the max-margin LP bounds the bias like the
//!   weights ([`inclp::max_margin_boxed`]), and a node whose quantized unit covers nothing or
//!   another class gives way to the next-ranked class.
//! * **Cover reuse.** With [`Params::reuse_covers`] (default) a multi-class step searches again
//!   only the classes that lost a covered example since their last search.
//!
//! The reproduction of the paper's tables and figure 4 is `cargo run --release -p ltu
//! --example reproduce_ndl` (writes `docs/REPRODUCTION.md`); the design is in
//! `docs/DECISION_LIST.md`.

mod dense;
pub mod inclp;
#[cfg(test)]
mod tests;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use crate::data::encode;
use crate::learn::{Context, Learner, TrainError};
use crate::model::quantize::{self, Grid};
use crate::model::{Feature, ModelSpec, Structure, Unit, WeightKind};
use crate::rng::Rng;

use super::tree;
pub use inclp::{Budget, Cover, Halfspace, LpSolver, LpStats, Norm};

/// Which halfspace search answers "cover a large subset of these, none of those".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Search {
    /// `Find_large_neg_subset` (section 4.1), the paper's method.
    #[default]
    FindLargeNegSubset,
    /// `mult_IncLP` with this many random orders (section 4.1).
    MultIncLp {
        /// Passes of IncLP.
        passes: usize,
    },
    /// Pocket algorithm with ratchet and rules (section 6.1), this many thousand iterations; its
    /// halfspace is then given a margin by the max-margin LP.
    Pocket {
        /// Thousands of perceptron iterations.
        kilo_iterations: usize,
    },
}

/// Shape of a halfspace-set model ([`train_hsi`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HsiShape {
    /// Intersection (AND) of halfspaces that all contain the positive class (section 3).
    #[default]
    Intersection,
    /// Union (OR) of halfspaces that contain no negative example: the dual.
    Union,
}

/// Decision list and halfspace-set options.
#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    /// Single-unit search.
    pub search: Search,
    /// Cap on the outer passes of `Find_large_neg_subset` (`None`: until every candidate was
    /// used, as in the paper).
    pub max_passes: Option<usize>,
    /// End `Find_large_neg_subset` after this many consecutive passes that found no larger
    /// subset than its best (`None`: until every candidate was used, as in the paper). Beyond
    /// the paper: for a class whose region is not convex every pass finds one small cluster and
    /// costs an LP trial per remaining candidate, so the paper's end costs about
    /// `candidates / cluster` passes (on Marchand & Golea's table 1 problem, covering the
    /// positive wedge: 160 passes, 170,000 LP trials, for a subset 25 % larger than the first
    /// pass's). [`Params::unbounded_search`] restores the paper's end.
    pub patience: Option<usize>,
    /// Largest number of list entries (`None`: no limit).
    pub max_nodes: Option<usize>,
    /// Stop when the best new node covers fewer training examples than this (1 = never stop
    /// early, as in the paper).
    pub min_cover: usize,
    /// Fraction of the training rows held out to prune the list (0 = no pruning).
    pub validation: f64,
    /// Re-solve each halfspace for the largest margin (recommended: weights then survive
    /// quantization).
    pub max_margin: bool,
    /// `hsi`: intersection or union.
    pub hsi_shape: HsiShape,
    /// `hsi`: index of the positive class; `None` tries both classes and keeps the shorter list
    /// (then the one with fewer training errors).
    pub positive: Option<usize>,
    /// Numeric features are quantized to `[-feature_max_abs, feature_max_abs]` (input resolution).
    pub feature_max_abs: u16,
    /// Before building, give every group of training rows with identical inputs the majority
    /// class of the group (ties: lowest class index); the number of changed rows is
    /// [`Report::relabelled`]. Beyond the paper (noise handling in the spirit of section 6.3):
    /// contradictory examples can never be covered, so with `false` (the paper's exact method)
    /// the list stops at the first step where only such examples can be covered
    /// ([`Stop::Inseparable`]). Inputs that occur once are never changed.
    pub relabel_duplicates: bool,
    /// Multi-class lists (three or more classes left, section 5.2): keep each class's cover
    /// from the step where it was searched, and search again only for classes that lost a
    /// covered example since (the winner's class, or an example a quantized unit took). The
    /// cover stays valid, because the examples it must exclude only become fewer; a fresh
    /// search might find a larger one. Beyond the paper (5.2 searches every class at every
    /// step); it saves most of the searches of a long list. Two-class lists (5.1): see
    /// [`Params::reuse_two_class_covers`].
    pub reuse_covers: bool,
    /// [`Params::reuse_covers`] also for two-class lists (section 5.1): the class that lost a
    /// step keeps its cover while it is intact, so a class that only ever finds small covers
    /// (a non-convex region) is searched once instead of at every step. Beyond the paper, off
    /// in [`Params::unbounded_search`].
    pub reuse_two_class_covers: bool,
    /// Search each halfspace on a seeded random sample of at most this many of the rows left
    /// (`None`: on all of them, as the paper), on lists trained on more than
    /// [`Params::search_all_up_to`] rows. Beyond the paper: the search costs about an LP
    /// trial per candidate and pass, each checked against every excluded row, so on large data
    /// the sample bounds a step's cost; the node then covers what its unit covers among all rows
    /// left, which may include rows of other classes (counted in [`NodeInfo::wrong_class`]).
    pub max_search_rows: Option<usize>,
    /// Lists trained on at most this many rows search all of them, whatever
    /// [`Params::max_search_rows`] says (0: apply `max_search_rows` to every list). Beyond the
    /// paper: the sample is there for large data, but a node searched on a sample also takes
    /// the rows of other classes its unit covers outside the sample, and on data just above
    /// `max_search_rows` that cost accuracy for no real saving (10-fold CV, seed 0, with the
    /// 2,000-row sample: segment 90.2 %, kr-vs-kp 97.3 %; searching all: 94.2 %, 97.6 %).
    pub search_all_up_to: usize,
    /// The solver of IncLP's LP questions: [`LpSolver::Dense`], a dense active-set
    /// method specialised to IncLP's feasibility questions, or [`LpSolver::Simplex`], microlp's
    /// general simplex, used by [`Params::unbounded_search`] so the reproduction of the paper's
    /// tables runs the simplex its figures were measured with. Both accept the same candidates up to floating
    /// point; the halfspace they report along the way differs, and on degenerate (categorical)
    /// data that can change which max-margin solution a node gets.
    pub lp_solver: LpSolver,
    /// Beyond the paper, off by default: after quantization, zero every weight of an entry's
    /// unit that changes none of its decisions on the training rows that reach it, smallest
    /// contributions first ([`prune_weights`]). The list then decides every training row exactly
    /// as the unpruned list does, with fewer multiply-accumulates and fewer inputs read (generated code skips
    /// both; the runtime's dense units still multiply the zeros). It gives up the entries'
    /// max-margin placement, and in 10-fold CV over the 17 benchmark datasets that cost accuracy
    /// as often as it gained (ndl mean 90.20 → 90.03 %, zoo +2, wine −1.1, monks-1 −1.9 points;
    /// docs/DECISION_LIST.md), so it is an option for when the device's cost matters more.
    pub prune_weights: bool,
    /// The norm the max-margin LP bounds ([`Norm`]); `None` (default): chosen by
    /// [`Params::choose`] (and [`Norm::Max`] without it). Beyond the paper.
    pub norm: Option<Norm>,
    /// Settings chosen by cross-validation inside the training rows ([`Choose`]); `None`: the
    /// options as given. Beyond the paper.
    pub choose: Option<Choose>,
    /// Before building, leave out every training row whose class disagrees with most of its
    /// this many nearest training rows (Wilson's editing rule, 1972: Euclidean distance in the
    /// features' `[-1, 1]^d`, ties broken by row; the number left out is [`Report::edited`]); 0 keeps every row; `None` (default): 0 or 3, chosen by
    /// [`Params::choose`] (0 without it). Beyond the paper: noise handling, for data where the
    /// exact covering would spend an entry on each noisy row.
    pub edit_neighbours: Option<usize>,
}

/// Settings [`fit`] chooses by cross-validation inside the training rows, before it learns the
/// list on all of them: the most accurate candidate on the held-out folds, and among equally
/// accurate ones the one with the fewest multiply-accumulates per held-out row (then the first
/// listed). The candidates are every combination of
///
/// * the norm of the max-margin LP, [`Norm::Sum`] then [`Norm::Max`] (unless [`Params::norm`]
///   fixes it, or [`Params::max_margin`] is off and the search is not the pocket algorithm's);
/// * no editing, then Wilson's editing with 3 neighbours (unless [`Params::edit_neighbours`]
///   fixes it);
/// * for a neural decision list on two classes with [`Choose::two_class_shapes`], the list of
///   section 5.1, then the halfspace intersection of section 3 (both positive classes, the
///   shorter list kept: a list whose entries all cover one class).
///
/// Why (docs/DECISION_LIST.md): no single setting is best on the 17 benchmark datasets. The
/// 1-norm finds sparse halfspaces where few features matter (zoo, mushroom, car: a quarter to a
/// sixteenth of the multiply-accumulates) but loses where many do (segment 94.2 → 91.4 %);
/// editing helps noisy numeric data (segment with the 1-norm 95.6 %, glass, wdbc) and ruins
/// noise-free discrete concepts (car 84 %, monks-2 65 %); on monks-1 the intersection learns
/// the concept (100 %) and the list of section 5.1 does not (87 %).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Choose {
    /// Folds of the inner cross-validation (at least 2).
    pub folds: usize,
    /// The inner cross-validation runs on a seeded, stratified sample of at most this many of
    /// the training rows (the list is then learned on all of them).
    pub max_rows: usize,
    /// With more training rows than this nothing is chosen (the options as given, each unset
    /// one at its default: [`Norm::Max`], no editing): on Marchand & Golea's table 1 problem at
    /// n = 50 (14,000 rows) the choice took 370 s against 55 s, and Wilson's editing costs the
    /// square of the rows.
    pub up_to_rows: usize,
    /// `ndl` on two classes: also try the halfspace intersection.
    pub two_class_shapes: bool,
    /// With at least this many rows in the inner cross-validation the candidates race
    /// (successive halving): every candidate runs the first [`RACE_AFTER`] folds, then after
    /// each fold the better half goes on (most held-out rows right, then fewest
    /// multiply-accumulates), and the folds stop once one is left. Eight candidates then cost
    /// 22 lists instead of 40; below this many rows every candidate sees every fold, where a
    /// few folds' held-out rows would decide by chance.
    pub race_from_rows: usize,
}

impl Default for Choose {
    fn default() -> Self {
        Choose { folds: 5, max_rows: 3000, up_to_rows: 10_000, two_class_shapes: true, race_from_rows: 2000 }
    }
}

impl Default for Params {
    fn default() -> Self {
        Params {
            search: Search::FindLargeNegSubset,
            max_passes: None,
            patience: Some(3),
            max_nodes: None,
            min_cover: 1,
            validation: 0.0,
            max_margin: true,
            hsi_shape: HsiShape::Intersection,
            positive: None,
            feature_max_abs: 1024,
            relabel_duplicates: true,
            reuse_covers: true,
            reuse_two_class_covers: true,
            max_search_rows: Some(2000),
            search_all_up_to: 4000,
            lp_solver: LpSolver::Dense,
            prune_weights: false,
            norm: None,
            choose: Some(Choose::default()),
            edit_neighbours: None,
        }
    }
}

impl Params {
    /// The defaults with [`Params::patience`] `None` and [`Params::reuse_two_class_covers`]
    /// off, nothing chosen ([`Params::choose`] `None`, [`Norm::Max`], no editing): every
    /// halfspace search runs to the paper's end and two-class lists search both classes at
    /// every step (what `reproduce_ndl` uses, so its tables stay the published procedure).
    pub fn unbounded_search() -> Self {
        Params {
            patience: None,
            reuse_two_class_covers: false,
            max_search_rows: None,
            lp_solver: LpSolver::Simplex,
            norm: Some(Norm::Max),
            choose: None,
            edit_neighbours: Some(0),
            ..Params::default()
        }
    }
}

/// Which model to learn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Neural decision list (sections 5.1, 5.2).
    Ndl,
    /// Intersection or union of halfspaces for a two-class problem (section 3).
    Hsi {
        /// Intersection or union.
        shape: HsiShape,
        /// The positive class (0 or 1).
        positive: usize,
    },
}

/// Training examples for the float learner: rows in `[-1, 1]^d` and classes, and optionally the
/// integer features and weight kind that the exported model will use.
#[derive(Debug, Clone, Copy)]
pub struct Sample<'a> {
    /// Inputs, one row per example.
    pub x: &'a [Vec<f64>],
    /// Class of each example.
    pub y: &'a [usize],
    /// Number of classes.
    pub n_classes: usize,
    /// Quantize each node as it is learned (see the module docs).
    pub quant: Option<Quant<'a>>,
}

/// What quantization in the loop needs: `x[i][j] == features[i][j] / max_abs[j]`.
#[derive(Debug, Clone, Copy)]
pub struct Quant<'a> {
    /// Integer feature values per example.
    pub features: &'a [Vec<i32>],
    /// Largest absolute value of each feature.
    pub max_abs: &'a [i64],
    /// Weight representation.
    pub kind: WeightKind,
}

/// A node's integer unit: the halfspace over `x_j = f_j / max_abs_j` as weights per unit of the
/// integer feature, `W_j = round(s·w_j / max_abs_j)`, `B = round(s·b)`, rounded by the shared
/// quantizer ([`quantize::quantize`]) with the largest scale `s` for which every stored value
/// fits `kind` and the runtime's accumulator bound holds (for `Fixed`, whose stored values are
/// `I16F16` bits, the decision is invariant under a positive scale, so the unit uses the whole
/// range). The unit has every sample column as a term and one row; it covers `f` iff
/// [`Unit::row_score`]`(0, f) > 0`, the IR's (and the runtime's) own score.
fn quantized_unit(h: &Halfspace, max_abs: &[i64], kind: WeightKind, class: usize) -> Unit {
    let row: Vec<f64> = h.w.iter().zip(max_abs).map(|(w, &m)| w / m as f64).chain([h.b]).collect();
    let q = quantize::quantize(&[row], max_abs, Grid::new(kind));
    Unit { terms: (0..max_abs.len()).collect(), rows: q.rows, classes: vec![0, class] }
}

/// Zeroes, smallest contribution (`|w_j| · max_abs_j`) first, every term weight of binary `unit`
/// whose removal changes no decision `score > 0` on `rows` of `features`; returns how many. The
/// bias stays. Zeroing a weight only lowers the accumulator bound, so the unit still fits.
pub fn prune_weights(unit: &mut Unit, features: &[Vec<i32>], max_abs: &[i64], rows: &[usize]) -> usize {
    let mut scores: Vec<i64> = rows.iter().map(|&i| unit.row_score(0, &features[i])).collect();
    let fires: Vec<bool> = scores.iter().map(|&s| s > 0).collect();
    let row = &mut unit.rows[0];
    let mut order: Vec<usize> = (0..unit.terms.len()).filter(|&j| row[j] != 0).collect();
    order.sort_by_key(|&j| (row[j].unsigned_abs().saturating_mul(max_abs[unit.terms[j]].unsigned_abs()), j));
    let mut pruned = 0;
    for j in order {
        let (w, t) = (row[j], unit.terms[j]);
        let keeps = rows
            .iter()
            .zip(&scores)
            .zip(&fires)
            .all(|((&i, &s), &f)| (s - w * i64::from(features[i][t]) > 0) == f);
        if keeps {
            for (&i, s) in rows.iter().zip(scores.iter_mut()) {
                *s -= w * i64::from(features[i][t]);
            }
            row[j] = 0;
            pruned += 1;
        }
    }
    pruned
}

/// Why the list ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Stop {
    /// Only one class was left (the paper's end).
    Exhausted,
    /// [`Params::max_nodes`] reached.
    MaxNodes,
    /// The best node covered fewer than [`Params::min_cover`] examples.
    MinCover,
    /// No remaining example can be covered without covering an example of another class
    /// (contradictory examples: equal inputs, different classes; only without
    /// [`Params::relabel_duplicates`]).
    Inseparable,
    /// The quantized unit of every candidate entry (one per class) covered no training example
    /// although the float halfspace did.
    QuantizationLost,
}

/// What one list entry does on the training rows it sees.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct NodeInfo {
    /// Class of the entry.
    pub class: usize,
    /// Training examples it covers (and removes), as exported.
    pub covered: usize,
    /// Training examples the float halfspace covers.
    pub float_covered: usize,
    /// Training examples reaching this node whose coverage differs between the float and the
    /// quantized unit.
    pub changed_by_quantization: usize,
    /// Examples of another class the exported unit covers (only quantization can cause this).
    pub wrong_class: usize,
}

/// One entry of a learned list.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// Float halfspace (margin 1 on what it covers and excludes).
    pub halfspace: Halfspace,
    /// Quantized unit over every sample column (one row, scored by [`Unit::row_score`]; its
    /// classes are `0` and the node's class, the list only asks whether it fires), when the
    /// sample had [`Quant`].
    pub unit: Option<Unit>,
    /// Class.
    pub class: usize,
    /// Training figures.
    pub info: NodeInfo,
}

/// Figures of one training run.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Report {
    /// Entries of the final list, the constant default node not counted (the paper's `k` counts
    /// it: `k = nodes + 1`).
    pub nodes: usize,
    /// Why building stopped.
    pub stop: Stop,
    /// Per entry of the final list.
    pub node_info: Vec<NodeInfo>,
    /// Entries removed by validation pruning.
    pub pruned: usize,
    /// Held-out rows used for pruning.
    pub validation_rows: usize,
    /// Training rows given the majority class of their identical-input group
    /// ([`Params::relabel_duplicates`]); accuracies below are on the original classes.
    pub relabelled: usize,
    /// Training rows left out by [`Params::edit_neighbours`].
    pub edited: usize,
    /// Accuracy of the final list on the held-out rows.
    pub validation_accuracy: Option<f64>,
    /// Float list's accuracy on the rows it was built from.
    pub float_train_accuracy: f64,
    /// Exported (quantized) list's accuracy on the same rows.
    pub quantized_train_accuracy: Option<f64>,
    /// Those rows on which the float and the quantized list predict differently.
    pub float_quantized_disagreements: usize,
    /// Sum of [`NodeInfo::changed_by_quantization`].
    pub changed_by_quantization: usize,
    /// LP work.
    pub lp: LpStats,
    /// Positive class (`hsi`).
    pub positive: Option<usize>,
    /// The candidates [`Params::choose`] compared, the chosen one first (empty without it).
    pub candidates: Vec<Candidate>,
    /// Wall-clock training time.
    pub seconds: f64,
}

/// One setting [`Choose`] tried, and how it did on the held-out folds.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Candidate {
    /// `ndl` or `hsi` (the halfspace intersection, for two classes).
    pub shape: &'static str,
    /// Norm of the max-margin LP.
    pub norm: Norm,
    /// Wilson's editing: neighbours consulted (0: off).
    pub edit_neighbours: usize,
    /// Held-out accuracy over the inner folds.
    pub accuracy: f64,
    /// Mean multiply-accumulates per held-out row.
    pub macs: f64,
    /// Inner folds it was tested on (fewer than all when it lost a race: [`Choose::race_from_rows`]).
    pub folds: usize,
}

/// A learned list on sample columns.
#[derive(Debug, Clone, PartialEq)]
pub struct Learned {
    /// Entries, in order.
    pub nodes: Vec<Node>,
    /// Class of the constant last node.
    pub default: usize,
    /// Figures.
    pub report: Report,
}

impl Learned {
    /// The float list's class for `x` (first covering halfspace, else the default).
    pub fn predict_float(&self, x: &[f64]) -> usize {
        self.nodes.iter().find(|n| n.halfspace.covers(x)).map_or(self.default, |n| n.class)
    }

    /// The quantized list's class for integer features `f` (falls back to the float halfspace of
    /// a node without a unit).
    pub fn predict_quantized(&self, f: &[i32], max_abs: &[i64]) -> usize {
        self.nodes.iter().find(|n| node_covers_int(n, f, max_abs)).map_or(self.default, |n| n.class)
    }
}

fn node_covers_int(n: &Node, f: &[i32], max_abs: &[i64]) -> bool {
    match &n.unit {
        Some(u) => u.row_score(0, f) > 0,
        None => {
            let x: Vec<f64> = f.iter().zip(max_abs).map(|(&v, &m)| f64::from(v) / m as f64).collect();
            n.halfspace.covers(&x)
        }
    }
}

/// The majority class of `rows` ([`tree::majority`]: ties to the lowest class index).
fn majority(y: &[usize], rows: impl Iterator<Item = usize>, n_classes: usize) -> usize {
    tree::majority(&tree::class_counts(y, rows, n_classes.max(1)))
}

/// One run of the single-unit search.
fn search(
    s: &Sample<'_>,
    cands: &[usize],
    excl: &[usize],
    p: &Params,
    rng: &mut Rng,
    stats: &mut LpStats,
) -> Cover {
    let budget = Budget { passes: p.max_passes, patience: p.patience, deadline: None };
    match p.search {
        Search::FindLargeNegSubset => {
            inclp::find_large_neg_subset_with(s.x, cands, excl, budget, p.lp_solver, rng, stats)
        }
        Search::MultIncLp { passes } => inclp::mult_inc_lp_with(
            s.x,
            cands,
            excl,
            Budget { passes: Some(passes.max(1)), ..Budget::default() },
            p.lp_solver,
            rng,
            stats,
        ),
        Search::Pocket { kilo_iterations } => inclp::pocket_ratchet(
            s.x,
            cands,
            excl,
            Budget { passes: Some(kilo_iterations.max(1)), ..Budget::default() },
            rng,
        ),
    }
}

/// The list entry for `cover` (max-margin fine-tuning and quantization in the loop) and the
/// examples of `alive` its exported unit leaves for later entries.
fn make_node(
    s: &Sample<'_>,
    alive: &[usize],
    class: usize,
    cover: &Cover,
    excl: &[usize],
    p: &Params,
    stats: &mut LpStats,
) -> (Node, Vec<usize>) {
    let mut h = cover.halfspace.clone();
    let norm = p.norm.unwrap_or_default();
    if p.max_margin || matches!(p.search, Search::Pocket { .. }) {
        // i8/i16: the stored range limits the scale, so the margin is taken in the box of
        // representable units (bias as coarse as the weights); otherwise `‖w‖∞ <= 1`.
        let tuned = match s.quant {
            Some(q) if matches!(q.kind, WeightKind::I8 | WeightKind::I16) => {
                let bounds: Vec<f64> = q.max_abs.iter().map(|&m| m as f64).collect();
                inclp::max_margin_boxed(s.x, &cover.covered, excl, &h, &bounds, 1.0, norm)
            }
            _ => inclp::max_margin(s.x, &cover.covered, excl, &h, norm),
        };
        match tuned {
            Some(m) => h = m,
            None => stats.margin_fallbacks += 1,
        }
    }
    let unit = s.quant.map(|qz| {
        let mut u = quantized_unit(&h, qz.max_abs, qz.kind, class);
        if p.prune_weights {
            stats.weights_pruned += prune_weights(&mut u, qz.features, qz.max_abs, alive) as u64;
        }
        u
    });
    let mut node = Node {
        halfspace: h,
        unit,
        class,
        info: NodeInfo { class, covered: 0, float_covered: 0, changed_by_quantization: 0, wrong_class: 0 },
    };
    let mut next = Vec::with_capacity(alive.len());
    for &i in alive {
        let fl = node.halfspace.covers(&s.x[i]);
        let ex = match (&node.unit, s.quant) {
            (Some(u), Some(qz)) => u.row_score(0, &qz.features[i]) > 0,
            _ => fl,
        };
        node.info.float_covered += usize::from(fl);
        node.info.changed_by_quantization += usize::from(fl != ex);
        if ex {
            node.info.covered += 1;
            node.info.wrong_class += usize::from(s.y[i] != class);
        } else {
            next.push(i);
        }
    }
    (node, next)
}

/// Builds a list on `rows` of the sample (greedy covering, sections 3 and 5); `defaults[r]` is
/// the class to use after keeping the first `r` nodes.
fn build(
    s: &Sample<'_>,
    rows: &[usize],
    shape: Shape,
    p: &Params,
    rng: &mut Rng,
    progress: &(dyn Fn(u64, u64) + Sync),
    limit: &AtomicUsize,
) -> (Vec<Node>, Vec<usize>, Stop, LpStats) {
    let q = s.n_classes.max(1);
    progress(0, rows.len() as u64);
    let mut alive = rows.to_vec();
    let mut nodes: Vec<Node> = Vec::new();
    let mut defaults = vec![majority(s.y, rows.iter().copied(), q)];
    let mut stats = LpStats::default();
    let mut cache: Vec<Option<Cover>> = vec![None; q];
    let stop = loop {
        let mut count = vec![0usize; q];
        for &i in &alive {
            count[s.y[i]] += 1;
        }
        let nonempty: Vec<usize> = (0..q).filter(|&c| count[c] > 0).collect();
        let majority_left = majority(s.y, alive.iter().copied(), q);
        // Which classes may be covered next (section 5.2 step 3; section 3: only one).
        let targets: Vec<usize> = match shape {
            Shape::Ndl => {
                if nonempty.len() <= 1 {
                    *defaults.last_mut().expect("nonempty") =
                        nonempty.first().copied().unwrap_or(majority_left);
                    break Stop::Exhausted;
                }
                nonempty.clone()
            }
            Shape::Hsi { shape, positive } => {
                let negative = 1 - positive;
                let (cut, keep) = match shape {
                    HsiShape::Intersection => (negative, positive),
                    HsiShape::Union => (positive, negative),
                };
                if count[cut] == 0 || count[keep] == 0 {
                    // Section 3 step 2; with no example left to keep, the constant node decides.
                    *defaults.last_mut().expect("nonempty") = if count[cut] == 0 { keep } else { cut };
                    break Stop::Exhausted;
                }
                vec![cut]
            }
        };
        *defaults.last_mut().expect("nonempty") = match shape {
            Shape::Ndl => majority_left,
            Shape::Hsi { shape: HsiShape::Intersection, positive } => positive,
            Shape::Hsi { shape: HsiShape::Union, positive } => 1 - positive,
        };
        if p.max_nodes.is_some_and(|m| nodes.len() >= m) || nodes.len() >= limit.load(Ordering::SeqCst) {
            break Stop::MaxNodes;
        }
        // Sections 5.1 steps 4–6 / 5.2 steps 3–4: the largest covered fraction wins; ties go to
        // the larger count, then the lower class.
        let mut is_alive = vec![false; s.x.len()];
        for &i in &alive {
            is_alive[i] = true;
        }
        let reuse =
            p.reuse_covers && (targets.len() >= 3 || (p.reuse_two_class_covers && targets.len() == 2));
        // Beyond the paper: on more than `search_all_up_to` training rows, with more rows left
        // than `max_search_rows`, the halfspaces are searched on a seeded sample of them (each
        // node then covers what its unit covers among all the rows left).
        let pool: Vec<usize> = match p.max_search_rows {
            Some(k) if alive.len() > k && rows.len() > p.search_all_up_to => {
                let mut v = alive.clone();
                for i in 0..k {
                    let j = i + rng.below(v.len() - i);
                    v.swap(i, j);
                }
                v.truncate(k);
                v.sort_unstable();
                v
            }
            _ => alive.clone(),
        };
        let mut pool_count = vec![0usize; q];
        for &i in &pool {
            pool_count[s.y[i]] += 1;
        }
        let mut ranked: Vec<(usize, Cover, Vec<usize>)> = Vec::new();
        for &t in &targets {
            let excl: Vec<usize> = pool.iter().copied().filter(|&i| s.y[i] != t).collect();
            // A cover found at an earlier step still excludes every remaining example of other
            // classes (that set only shrinks); reuse it while all it covered is still there.
            let cached = cache[t].take().filter(|c: &Cover| reuse && c.covered.iter().all(|&i| is_alive[i]));
            let cover = match cached {
                Some(c) => {
                    stats.reused_covers += 1;
                    c
                }
                None => {
                    let cands: Vec<usize> = pool.iter().copied().filter(|&i| s.y[i] == t).collect();
                    search(s, &cands, &excl, p, rng, &mut stats)
                }
            };
            if reuse {
                cache[t] = Some(cover.clone());
            }
            ranked.push((t, cover, excl));
        }
        // Best first: larger covered fraction (cross-multiplied), then larger count, then lower
        // class (the stable sort keeps the class order of `targets`).
        ranked.sort_by(|(ta, ca, _), (tb, cb, _)| {
            let (a, b) = (ca.covered.len() * pool_count[*tb], cb.covered.len() * pool_count[*ta]);
            b.cmp(&a).then(cb.covered.len().cmp(&ca.covered.len()))
        });
        let Some((_, first, _)) = ranked.first() else { break Stop::Inseparable };
        if first.covered.is_empty() {
            break Stop::Inseparable;
        }
        if first.covered.len() < p.min_cover {
            break Stop::MinCover;
        }
        // Beyond the paper: rounding can empty a node with a tiny margin or make it cover
        // examples of other classes. Take the best-ranked node whose quantized unit covers only
        // its own class; if there is none, the best-ranked one that covers anything.
        let mut accepted = None;
        let mut fallback = None;
        for (class, cover, excl) in ranked.into_iter().filter(|(_, c, _)| !c.covered.is_empty()) {
            if cover.covered.len() < p.min_cover {
                break;
            }
            let (node, next) = make_node(s, &alive, class, &cover, &excl, p, &mut stats);
            if node.info.covered > 0 && node.info.wrong_class == 0 {
                accepted = Some((node, next));
                break;
            }
            stats.quantization_rejected += 1;
            if node.info.covered > 0 && fallback.is_none() {
                fallback = Some((node, next));
            }
        }
        let accepted = accepted.or(fallback);
        let Some((node, next)) = accepted else { break Stop::QuantizationLost };
        alive = next;
        nodes.push(node);
        defaults.push(majority_left);
        progress((rows.len() - alive.len()) as u64, rows.len() as u64);
    };
    // The rows left go to the default: the list is done.
    progress(rows.len() as u64, rows.len() as u64);
    (nodes, defaults, stop, stats)
}

/// Majority vote within groups of `rows` with identical inputs: returns the number of rows whose
/// class changed and the labels (rows outside `rows` keep theirs). Ties go to the lowest class.
fn relabel_by_majority(s: &Sample<'_>, rows: &[usize]) -> (usize, Vec<usize>) {
    let key = |i: usize| -> Vec<u64> {
        // `+ 0.0` maps -0.0 to 0.0, so equal values share a key.
        s.x[i].iter().map(|v| (v + 0.0).to_bits()).collect()
    };
    let mut groups: std::collections::HashMap<Vec<u64>, Vec<usize>> = std::collections::HashMap::new();
    for &i in rows {
        groups.entry(key(i)).or_default().push(i);
    }
    let mut y = s.y.to_vec();
    let mut changed = 0;
    for members in groups.values().filter(|m| m.len() > 1) {
        let class = majority(s.y, members.iter().copied(), s.n_classes);
        for &i in members {
            changed += usize::from(y[i] != class);
            y[i] = class;
        }
    }
    (changed, y)
}

/// The rows Wilson's editing keeps, remembered for the lists learned on one sample (the
/// candidates of one inner fold, or `hsi`'s two lists): `learn_with` edits the same training
/// rows with the same labels for each of them, and the editing costs the square of the rows.
#[derive(Default)]
struct Edits(std::sync::Mutex<Vec<(EditKey, Vec<usize>)>>);

/// What an editing depends on besides the sample: neighbours, relabelling, training rows.
type EditKey = (usize, bool, Vec<usize>);

impl Edits {
    /// The kept rows for `k` neighbours, relabelling `relabel`, training rows `train`: remembered,
    /// else `edit()` (computed under the lock: whoever waits needs the same answer).
    fn get(&self, k: usize, relabel: bool, train: &[usize], edit: impl FnOnce() -> Vec<usize>) -> Vec<usize> {
        let mut memo = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((_, kept)) =
            memo.iter().find(|((mk, mr, mt), _)| *mk == k && *mr == relabel && mt == train)
        {
            return kept.clone();
        }
        let kept = edit();
        memo.push(((k, relabel, train.to_vec()), kept.clone()));
        kept
    }
}

/// Wilson's editing rule (1972): the rows of `rows` whose class agrees with at least half of
/// their `k` nearest other rows of `rows` (Euclidean distance in the sample's `[-1, 1]^d`; ties
/// in distance broken by row index), in order. Beyond the paper: a row among rows of another
/// class is most likely noise, and the exact covering would otherwise spend an entry on it.
fn edit_by_neighbours(s: &Sample<'_>, rows: &[usize], k: usize) -> Vec<usize> {
    let k = k.min(rows.len().saturating_sub(1));
    if k == 0 {
        return rows.to_vec();
    }
    let mut near: Vec<(f64, usize)> = Vec::with_capacity(rows.len());
    rows.iter()
        .copied()
        .filter(|&i| {
            near.clear();
            near.extend(
                rows.iter()
                    .filter(|&&j| j != i)
                    .map(|&j| (s.x[i].iter().zip(&s.x[j]).map(|(a, b)| (a - b) * (a - b)).sum::<f64>(), j)),
            );
            let cmp = |a: &(f64, usize), b: &(f64, usize)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
            near.select_nth_unstable_by(k - 1, cmp);
            let agree = near[..k].iter().filter(|&&(_, j)| s.y[j] == s.y[i]).count();
            2 * agree >= k
        })
        .collect()
}

/// Learns a list from a sample (the algorithm without any file format).
///
/// With [`Params::validation`] `> 0` a stratified, seeded part of the rows is held out, the list
/// is built on the rest and cut after the prefix with the best held-out accuracy (the shortest
/// on ties). With [`Params::relabel_duplicates`] the list is built on majority-relabelled
/// training rows (validation rows keep their classes).
///
/// # Errors
/// [`TrainError::InvalidOption`] for a validation fraction outside `[0, 1)`, an `Hsi` shape on a
/// sample that is not two-class, or rows of different lengths.
pub fn learn(s: &Sample<'_>, shape: Shape, p: &Params, seed: u64) -> Result<Learned, TrainError> {
    learn_with(s, shape, p, seed, &|_, _| {}, &AtomicUsize::new(usize::MAX), &Edits::default())
}

/// [`learn`], reporting `(training rows covered, training rows)` to `progress` after each entry
/// (and `(rows, rows)` at the end),
/// and abandoning the list (as [`Stop::MaxNodes`]) once it has `limit` entries (read before
/// each step: another thread may lower it).
fn learn_with(
    s: &Sample<'_>,
    shape: Shape,
    p: &Params,
    seed: u64,
    progress: &(dyn Fn(u64, u64) + Sync),
    limit: &AtomicUsize,
    edits: &Edits,
) -> Result<Learned, TrainError> {
    let start = Instant::now();
    if !(0.0..1.0).contains(&p.validation) {
        return Err(TrainError::InvalidOption(format!(
            "validation fraction {} is not in [0, 1)",
            p.validation
        )));
    }
    if let Shape::Hsi { positive, .. } = shape {
        if s.n_classes != 2 || positive > 1 {
            return Err(TrainError::InvalidOption(format!(
                "hsi needs two classes and a positive class 0 or 1 (got {} classes, positive {positive})",
                s.n_classes
            )));
        }
    }
    let d = s.x.first().map_or(0, Vec::len);
    if s.x.iter().any(|r| r.len() != d) || s.x.len() != s.y.len() || s.y.iter().any(|&c| c >= s.n_classes) {
        return Err(TrainError::InvalidOption("sample rows, labels and classes do not match".into()));
    }
    let mut rng = Rng::new(seed);
    let all: Vec<usize> = (0..s.x.len()).collect();
    let (train, val) = if p.validation > 0.0 {
        let mut split_rng = rng.fork(1);
        let (mut train, mut val) = (Vec::new(), Vec::new());
        for c in 0..s.n_classes {
            let mut rows: Vec<usize> = all.iter().copied().filter(|&i| s.y[i] == c).collect();
            split_rng.shuffle(&mut rows);
            let k = (rows.len() as f64 * p.validation).round() as usize;
            val.extend_from_slice(&rows[..k]);
            train.extend_from_slice(&rows[k..]);
        }
        train.sort_unstable();
        val.sort_unstable();
        (train, val)
    } else {
        (all, Vec::new())
    };
    let (relabelled, y_build) =
        if p.relabel_duplicates { relabel_by_majority(s, &train) } else { (0, s.y.to_vec()) };
    let built = Sample { y: &y_build, ..*s };
    let (edited, build_rows) = match p.edit_neighbours.unwrap_or(0) {
        0 => (0, train.clone()),
        k => {
            let kept = edits.get(k, p.relabel_duplicates, &train, || edit_by_neighbours(&built, &train, k));
            (train.len() - kept.len(), kept)
        }
    };
    let (mut nodes, defaults, stop, lp) = build(&built, &build_rows, shape, p, &mut rng, progress, limit);
    let mut default = *defaults.last().expect("nonempty");
    let mut pruned = 0;
    let mut validation_accuracy = None;
    let fires = |nodes: &[Node], i: usize| -> usize {
        nodes
            .iter()
            .position(|n| match s.quant {
                Some(q) => node_covers_int(n, &q.features[i], q.max_abs),
                None => n.halfspace.covers(&s.x[i]),
            })
            .unwrap_or(nodes.len())
    };
    if !val.is_empty() {
        let first: Vec<usize> = val.iter().map(|&i| fires(&nodes, i)).collect();
        let k = nodes.len();
        let acc = |r: usize| {
            val.iter()
                .zip(&first)
                .filter(|(&i, &j)| if j < r { nodes[j].class == s.y[i] } else { defaults[r] == s.y[i] })
                .count()
        };
        let (mut best_r, mut best) = (k, acc(k));
        for r in (0..k).rev() {
            let a = acc(r);
            if a >= best {
                (best_r, best) = (r, a);
            }
        }
        pruned = k - best_r;
        nodes.truncate(best_r);
        default = defaults[best_r];
        validation_accuracy = Some(best as f64 / val.len() as f64);
    }
    let mut learned = Learned { nodes, default, report: empty_report(lp) };
    let float_ok = train.iter().filter(|&&i| learned.predict_float(&s.x[i]) == s.y[i]).count();
    let (mut q_ok, mut disagree) = (0, 0);
    if let Some(q) = s.quant {
        for &i in &train {
            let a = learned.predict_quantized(&q.features[i], q.max_abs);
            q_ok += usize::from(a == s.y[i]);
            disagree += usize::from(a != learned.predict_float(&s.x[i]));
        }
    }
    let n = train.len().max(1) as f64;
    learned.report = Report {
        nodes: learned.nodes.len(),
        stop,
        node_info: learned.nodes.iter().map(|n| n.info.clone()).collect(),
        pruned,
        validation_rows: val.len(),
        relabelled,
        edited,
        validation_accuracy,
        float_train_accuracy: float_ok as f64 / n,
        quantized_train_accuracy: s.quant.map(|_| q_ok as f64 / n),
        float_quantized_disagreements: disagree,
        changed_by_quantization: learned.nodes.iter().map(|n| n.info.changed_by_quantization).sum(),
        lp,
        positive: match shape {
            Shape::Hsi { positive, .. } => Some(positive),
            Shape::Ndl => None,
        },
        candidates: Vec::new(),
        seconds: start.elapsed().as_secs_f64(),
    };
    Ok(learned)
}

fn empty_report(lp: LpStats) -> Report {
    Report {
        nodes: 0,
        stop: Stop::Exhausted,
        node_info: Vec::new(),
        pruned: 0,
        validation_rows: 0,
        relabelled: 0,
        edited: 0,
        validation_accuracy: None,
        float_train_accuracy: 0.0,
        quantized_train_accuracy: None,
        float_quantized_disagreements: 0,
        changed_by_quantization: 0,
        lp,
        positive: None,
        candidates: Vec::new(),
        seconds: 0.0,
    }
}

/// Learns an `hsi` shape; with `positive == None` tries both classes as positive and keeps the
/// list with fewer entries, then fewer training errors, then positive class 1.
///
/// Without validation pruning the two lists are built side by side (two threads), and the first
/// to finish, with `k` entries, stops the other at `k + 1`: that one would be longer and lose.
/// The result is the one building both lists completely gives; the cost is the shorter list
/// plus at most `k + 1` entries of the other, instead of the whole longer list, which on a class
/// whose region is not convex can be tens of entries of expensive searches.
///
/// # Errors
/// As [`learn`].
pub fn learn_hsi(s: &Sample<'_>, p: &Params, seed: u64) -> Result<Learned, TrainError> {
    learn_hsi_with(s, p, seed, &|_, _| {}, &Edits::default())
}

fn learn_hsi_with(
    s: &Sample<'_>,
    p: &Params,
    seed: u64,
    progress: &(dyn Fn(u64, u64) + Sync),
    edits: &Edits,
) -> Result<Learned, TrainError> {
    let run = |positive, limit: &AtomicUsize| {
        learn_with(s, Shape::Hsi { shape: p.hsi_shape, positive }, p, seed, progress, limit, edits)
    };
    let key = |l: &Learned| {
        (
            l.nodes.len(),
            -(l.report.quantized_train_accuracy.unwrap_or(l.report.float_train_accuracy) * 1e9) as i64,
        )
    };
    let (a, b) = match p.positive {
        Some(c) => return run(c, &AtomicUsize::new(usize::MAX)),
        None if p.validation > 0.0 => {
            // Pruning shortens each list after building: compare the finished lists.
            let unlimited = AtomicUsize::new(usize::MAX);
            (run(1, &unlimited)?, run(0, &unlimited)?)
        }
        None => {
            // limits[c]: the most entries the list with positive class c may still build.
            let limits = [AtomicUsize::new(usize::MAX), AtomicUsize::new(usize::MAX)];
            let side = |c: usize| {
                let l = run(c, &limits[c])?;
                if l.nodes.len() < limits[c].load(Ordering::SeqCst) {
                    // Finished on its own: the other may build one entry more, enough to prove
                    // it is longer (an abandoned list has more entries, so it loses below).
                    limits[1 - c].fetch_min(l.nodes.len() + 1, Ordering::SeqCst);
                }
                Ok::<_, TrainError>(l)
            };
            std::thread::scope(|scope| {
                let other = scope.spawn(|| side(0));
                let a = side(1);
                let b = other.join().expect("hsi: a training thread panicked");
                Ok::<_, TrainError>((a?, b?))
            })?
        }
    };
    Ok(if key(&b) < key(&a) { b } else { a })
}

/// A trained list with its feature space and report: the exported [`ModelSpec`] plus everything
/// needed to compare it with the float model it came from.
#[derive(Debug, Clone)]
pub struct Fitted {
    /// The exported model (weights already of the context's kind, `I16` if none was asked).
    pub spec: ModelSpec,
    /// The learned list on the sample columns.
    pub learned: Learned,
    /// The feature of each sample column.
    pub columns: Vec<Feature>,
    /// `max_abs` of each sample column.
    pub max_abs: Vec<i64>,
}

impl Fitted {
    fn features(&self, raw: &[i32]) -> Vec<i32> {
        self.columns.iter().map(|f| f.value(raw)).collect()
    }

    /// The float list's prediction for raw inputs (weights before rounding).
    pub fn predict_float(&self, raw: &[i32]) -> usize {
        let x: Vec<f64> =
            self.features(raw).iter().zip(&self.max_abs).map(|(&v, &m)| f64::from(v) / m as f64).collect();
        self.learned.predict_float(&x)
    }

    /// The quantized list's prediction for raw inputs, by this module's own integer evaluator
    /// (independent of [`ModelSpec::predict`], which it must equal).
    pub fn predict_quantized(&self, raw: &[i32]) -> usize {
        self.learned.predict_quantized(&self.features(raw), &self.max_abs)
    }

    /// The training report.
    pub fn report(&self) -> &Report {
        &self.learned.report
    }
}

/// Learns a list from a training context and exports it as a [`Structure::List`].
///
/// # Errors
/// [`TrainError::InvalidOption`] for bad options (see [`learn`]) or `feature_max_abs == 0`.
pub fn fit(ctx: &Context<'_>, shape: Option<Shape>, p: &Params) -> Result<Fitted, TrainError> {
    if p.feature_max_abs == 0 {
        return Err(TrainError::InvalidOption("feature_max_abs must be at least 1".into()));
    }
    let kind = ctx.weight_kind.unwrap_or(WeightKind::I16);
    let all = encode::standard_features(&ctx.inputs, &ctx.raw, p.feature_max_abs);
    let rows = encode::feature_rows(&all, &ctx.raw);
    // Columns: drop features constant on the training rows and those equal or opposite to an
    // earlier kept one (they change no separation).
    let mut keep: Vec<usize> = Vec::new();
    for j in 0..all.len() {
        let col = |j: usize| rows.iter().map(move |r| r[j]);
        let first = rows.first().map_or(0, |r| r[j]);
        if col(j).all(|v| v == first) {
            continue;
        }
        let dup = keep.iter().any(|&k| {
            all[k].max_abs() == all[j].max_abs()
                && (col(k).zip(col(j)).all(|(a, b)| a == b) || col(k).zip(col(j)).all(|(a, b)| a == -b))
        });
        if !dup {
            keep.push(j);
        }
    }
    let columns: Vec<Feature> = keep.iter().map(|&j| all[j].clone()).collect();
    let max_abs: Vec<i64> = columns.iter().map(Feature::max_abs).collect();
    let fint: Vec<Vec<i32>> = rows.iter().map(|r| keep.iter().map(|&j| r[j]).collect()).collect();
    let x: Vec<Vec<f64>> = fint
        .iter()
        .map(|r| r.iter().zip(&max_abs).map(|(&v, &m)| f64::from(v) / m as f64).collect())
        .collect();
    let sample = Sample {
        x: &x,
        y: ctx.labels(),
        n_classes: ctx.n_classes(),
        quant: Some(Quant { features: &fint, max_abs: &max_abs, kind }),
    };
    let (shape, p, candidates) = match p.choose {
        Some(c) => choose(&sample, shape, p, c, ctx.seed, ctx.progress)?,
        None => (shape, p.clone(), Vec::new()),
    };
    let mut learned = match shape {
        Some(sh) => learn_with(
            &sample,
            sh,
            &p,
            ctx.seed,
            ctx.progress,
            &AtomicUsize::new(usize::MAX),
            &Edits::default(),
        )?,
        None => learn_hsi_with(&sample, &p, ctx.seed, ctx.progress, &Edits::default())?,
    };
    learned.report.candidates = candidates;
    // Export only the features some unit uses.
    let mut used = vec![false; columns.len()];
    for n in &learned.nodes {
        if let Some(u) = &n.unit {
            for (j, w) in u.rows[0][..columns.len()].iter().enumerate() {
                used[j] |= *w != 0;
            }
        }
    }
    let mut index = vec![usize::MAX; columns.len()];
    let mut features = Vec::new();
    for j in 0..columns.len() {
        if used[j] {
            index[j] = features.len();
            features.push(columns[j].clone());
        }
    }
    let mut units = Vec::new();
    let mut entries = Vec::new();
    for n in &learned.nodes {
        let u = n.unit.as_ref().expect("fit always quantizes");
        let weights = &u.rows[0];
        let terms: Vec<usize> = (0..columns.len()).filter(|&j| weights[j] != 0).collect();
        let mut row: Vec<i64> = terms.iter().map(|&j| weights[j]).collect();
        row.push(weights[columns.len()]);
        entries.push((units.len(), n.class));
        units.push(Unit {
            terms: terms.iter().map(|&j| index[j]).collect(),
            rows: vec![row],
            classes: vec![learned.default, n.class],
        });
    }
    let spec = ModelSpec {
        pipeline: None,
        n_classes: ctx.n_classes(),
        weight_kind: kind,
        inputs: ctx.inputs.clone(),
        features,
        units,
        structure: Structure::List { entries, default: learned.default },
        names: None,
    };
    Ok(Fitted { spec, learned, columns, max_abs })
}

/// Multiply-accumulates of a list on integer features `f`: the non-zero weights of every entry
/// evaluated, up to the first that fires.
fn list_macs(l: &Learned, f: &[i32], max_abs: &[i64]) -> usize {
    let mut macs = 0;
    for n in &l.nodes {
        macs += n.unit.as_ref().map_or(n.halfspace.w.len(), |u| {
            u.rows[0][..u.rows[0].len() - 1].iter().filter(|&&w| w != 0).count()
        });
        if node_covers_int(n, f, max_abs) {
            break;
        }
    }
    macs
}

/// [`Choose`]: the candidate settings, compared by cross-validation on (a sample of) the
/// sample's rows; returns the winner's shape and options (with [`Params::choose`] `None`) and
/// every candidate's figures, the winner first. With more than [`Choose::up_to_rows`] rows, or
/// too few rows to cross-validate, the options as given (each unset choice at its default).
fn choose(
    s: &Sample<'_>,
    shape: Option<Shape>,
    p: &Params,
    c: Choose,
    seed: u64,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<(Option<Shape>, Params, Vec<Candidate>), TrainError> {
    let given = (
        shape,
        Params {
            norm: Some(p.norm.unwrap_or_default()),
            edit_neighbours: Some(p.edit_neighbours.unwrap_or(0)),
            choose: None,
            ..p.clone()
        },
    );
    let n = s.x.len();
    let Some(q) = s.quant.filter(|_| n <= c.up_to_rows) else {
        return Ok((given.0, given.1, Vec::new()));
    };
    // Without the max-margin LP the norm changes nothing: not a choice.
    let margin = p.max_margin || matches!(p.search, Search::Pocket { .. });
    let norms: Vec<Norm> = match p.norm {
        Some(n) => vec![n],
        None if margin => vec![Norm::Sum, Norm::Max],
        None => vec![Norm::default()],
    };
    let edits: Vec<usize> = p.edit_neighbours.map_or_else(|| vec![0, 3], |k| vec![k]);
    let mut shapes = vec![shape];
    if c.two_class_shapes && shape == Some(Shape::Ndl) && s.n_classes == 2 {
        shapes.push(None);
    }
    let mut settings = Vec::new();
    for &sh in &shapes {
        for &norm in &norms {
            for &k in &edits {
                let params = Params { norm: Some(norm), edit_neighbours: Some(k), choose: None, ..p.clone() };
                settings.push((sh, params));
            }
        }
    }
    if settings.len() == 1 {
        return Ok((given.0, given.1, Vec::new()));
    }
    // The rows to cross-validate on: all, or a stratified sample.
    let rows: Vec<usize> = if n > c.max_rows {
        crate::data::split::hold_out(s.y, s.n_classes, c.max_rows as f64 / n as f64, seed ^ 0x5e1e_c7ed).1
    } else {
        (0..n).collect()
    };
    let y_rows: Vec<usize> = rows.iter().map(|&i| s.y[i]).collect();
    let Ok(folds) =
        crate::data::split::stratified_kfold(&y_rows, s.n_classes, c.folds.max(2), seed ^ 0xc4_005e)
    else {
        return Ok((given.0, given.1, Vec::new()));
    };
    // correct[k], macs[k], held[k], tested[k]: candidate k's held-out figures summed over the
    // folds it was tested on, its held-out rows and those folds.
    let mut correct = vec![0usize; settings.len()];
    let mut macs = vec![0usize; settings.len()];
    let mut held = vec![0usize; settings.len()];
    let mut tested = vec![0usize; settings.len()];
    let race = rows.len() >= c.race_from_rows;
    // Candidates still in (all, unless racing), and the lists the folds will learn.
    let mut alive: Vec<usize> = (0..settings.len()).collect();
    // After fold `f` (from 0): every candidate goes on through the first `RACE_AFTER` folds.
    let survivors = |f: usize, n: usize| if race && f + 1 >= RACE_AFTER { n.div_ceil(2) } else { n };
    let total = {
        let (mut n, mut t) = (settings.len(), 0);
        for f in 0..folds.len() {
            t += n;
            n = survivors(f, n);
            if race && n == 1 {
                break;
            }
        }
        t as u64
    };
    let rank = |k: usize, correct: &[usize], macs: &[usize]| (std::cmp::Reverse(correct[k]), macs[k], k);
    let done = AtomicUsize::new(0);
    progress(0, total);
    for (fold_no, fold) in folds.iter().enumerate() {
        if race && alive.len() == 1 {
            break;
        }
        let test: Vec<usize> = fold.iter().map(|&k| rows[k]).collect();
        let train: Vec<usize> =
            crate::data::split::complement(fold, rows.len()).iter().map(|&k| rows[k]).collect();
        let x: Vec<Vec<f64>> = train.iter().map(|&i| s.x[i].clone()).collect();
        let y: Vec<usize> = train.iter().map(|&i| s.y[i]).collect();
        let f: Vec<Vec<i32>> = train.iter().map(|&i| q.features[i].clone()).collect();
        let sub = Sample { x: &x, y: &y, n_classes: s.n_classes, quant: Some(Quant { features: &f, ..q }) };
        // The fold's candidates with editing edit the same rows the same way: once per fold.
        let edits = Edits::default();
        // Candidates are independent and seeded: learned on the available cores, results
        // gathered in candidate order.
        let next = AtomicUsize::new(0);
        let threads = std::thread::available_parallelism().map_or(1, |t| t.get()).min(alive.len());
        let results: Vec<Vec<(usize, Result<Learned, TrainError>)>> = std::thread::scope(|scope| {
            let work = || {
                let mut out = Vec::new();
                loop {
                    let Some(&k) = alive.get(next.fetch_add(1, Ordering::SeqCst)) else { break out };
                    let (sh, params) = &settings[k];
                    let l = match sh {
                        Some(sh) => learn_with(
                            &sub,
                            *sh,
                            params,
                            seed,
                            &|_, _| {},
                            &AtomicUsize::new(usize::MAX),
                            &edits,
                        ),
                        None => learn_hsi_with(&sub, params, seed, &|_, _| {}, &edits),
                    };
                    out.push((k, l));
                    progress(done.fetch_add(1, Ordering::SeqCst) as u64 + 1, total);
                }
            };
            let handles: Vec<_> = (1..threads).map(|_| scope.spawn(work)).collect();
            let mut all = vec![work()];
            all.extend(handles.into_iter().map(|h| h.join().expect("ndl: a candidate's thread panicked")));
            all
        });
        for (k, l) in results.into_iter().flatten() {
            let l = l?;
            for &i in &test {
                correct[k] += usize::from(l.predict_quantized(&q.features[i], q.max_abs) == s.y[i]);
                macs[k] += list_macs(&l, &q.features[i], q.max_abs);
            }
            held[k] += test.len();
            tested[k] += 1;
        }
        if race {
            alive.sort_by_key(|&k| rank(k, &correct, &macs));
            alive.truncate(survivors(fold_no, alive.len()));
            alive.sort_unstable();
        }
    }
    // The most accurate; then the fewest multiply-accumulates; then the first listed (among
    // those left in a race, which were all tested on the same folds).
    let best =
        alive.iter().copied().min_by_key(|&k| rank(k, &correct, &macs)).expect("at least two candidates");
    let mut candidates: Vec<Candidate> = settings
        .iter()
        .enumerate()
        .map(|(k, (sh, params))| Candidate {
            shape: if *sh == Some(Shape::Ndl) { "ndl" } else { "hsi" },
            norm: params.norm.unwrap_or_default(),
            edit_neighbours: params.edit_neighbours.unwrap_or(0),
            accuracy: correct[k] as f64 / held[k].max(1) as f64,
            macs: macs[k] as f64 / held[k].max(1) as f64,
            folds: tested[k],
        })
        .collect();
    let winner = candidates.remove(best);
    candidates.insert(0, winner);
    let (sh, params) = settings.swap_remove(best);
    Ok((sh, params, candidates))
}

/// Folds every candidate runs before a race ([`Choose::race_from_rows`]) halves them: one
/// fold's held-out rows alone chose worse settings on kr-vs-kp (ndl 97.72 → 97.56 %).
pub const RACE_AFTER: usize = 2;

/// Learns a neural decision list (sections 5.1 and 5.2).
///
/// # Errors
/// [`TrainError::InvalidOption`] for bad options.
pub fn train_ndl(ctx: &Context<'_>, p: &Params) -> Result<ModelSpec, TrainError> {
    Ok(crate::learn::fit::<Ndl>(ctx, p)?.spec)
}

/// Learns a halfspace intersection (section 3), or a union with [`HsiShape::Union`], for a
/// two-class problem.
///
/// # Errors
/// [`TrainError::InvalidOption`] if the data is not two-class or for bad options.
pub fn train_hsi(ctx: &Context<'_>, p: &Params) -> Result<ModelSpec, TrainError> {
    Ok(crate::learn::fit::<Hsi>(ctx, p)?.spec)
}

fn check_common(p: &Params) -> Result<(), TrainError> {
    if p.feature_max_abs == 0 {
        return Err(TrainError::InvalidOption("feature_max_abs must be at least 1".into()));
    }
    Ok(())
}

/// The neural-decision-list learner, `--algo ndl` (the [`Learner`] contract).
pub struct Ndl;

impl Learner for Ndl {
    const NAME: &'static str = "ndl";
    const ABOUT: &'static str =
        "neural decision list: if/else-if halfspaces found by incremental linear programming (Marchand & Golea 1993)";
    type Params = Params;
    type Checked = Params;
    type Model = Fitted;
    type Report = Report;

    fn check(p: &Params, _ctx: &Context<'_>) -> Result<Params, TrainError> {
        check_common(p)?;
        Ok(p.clone())
    }

    fn fit(ctx: &Context<'_>, p: &Params) -> Result<(Fitted, Report), TrainError> {
        let fitted = fit(ctx, Some(Shape::Ndl), p)?;
        let report = fitted.report().clone();
        Ok((fitted, report))
    }

    fn to_spec(fitted: &Fitted) -> ModelSpec {
        fitted.spec.clone()
    }

    /// [`cheaper_lists`].
    fn ladder(p: &Params) -> Vec<Params> {
        cheaper_lists(p)
    }
}

/// The budget ladder of `ndl` and `hsi`: the same list with sparse units (the 1-norm's
/// max-margin LP, unless a norm is set, and [`Params::prune_weights`]), then shorter lists of
/// such units, at most 16, 8, 6, 4, 3, 2 and 1 entries (below any cap already set). A list's
/// entries read every feature the LP gives weight to, so without the sparse units no list
/// length meets a MAC budget below that (wdbc: one entry of 20 weights).
pub fn cheaper_lists(p: &Params) -> Vec<Params> {
    let sparse = Params { norm: Some(p.norm.unwrap_or(Norm::Sum)), prune_weights: true, ..p.clone() };
    let shorter = [16, 8, 6, 4, 3, 2, 1]
        .into_iter()
        .filter(|&n| p.max_nodes.is_none_or(|cap| n < cap))
        .map(|n| Params { max_nodes: Some(n), ..sparse.clone() });
    (sparse != *p).then(|| sparse.clone()).into_iter().chain(shorter).collect()
}

/// The halfspace-intersection learner, `--algo hsi` (the [`Learner`] contract): two classes only.
pub struct Hsi;

impl Learner for Hsi {
    const NAME: &'static str = "hsi";
    const ABOUT: &'static str =
        "halfspace intersection (or union) by greedy set covering, two classes (Marchand & Golea 1993, section 3)";
    type Params = Params;
    type Checked = Params;
    type Model = Fitted;
    type Report = Report;

    fn check(p: &Params, ctx: &Context<'_>) -> Result<Params, TrainError> {
        check_common(p)?;
        if ctx.n_classes() != 2 {
            return Err(TrainError::InvalidOption(format!(
                "hsi needs exactly two classes, the data has {}",
                ctx.n_classes()
            )));
        }
        Ok(p.clone())
    }

    fn fit(ctx: &Context<'_>, p: &Params) -> Result<(Fitted, Report), TrainError> {
        let shape = p.positive.map(|positive| Shape::Hsi { shape: p.hsi_shape, positive });
        let fitted = fit(ctx, shape, p)?;
        let report = fitted.report().clone();
        Ok((fitted, report))
    }

    fn to_spec(fitted: &Fitted) -> ModelSpec {
        fitted.spec.clone()
    }

    /// [`cheaper_lists`].
    fn ladder(p: &Params) -> Vec<Params> {
        cheaper_lists(p)
    }
}
