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
//!
//! [`Structure::List`]: crate::model::Structure::List
//! [`encode::standard_features`]: crate::data::encode::standard_features
//! [`quantize::quantize`]: crate::model::quantize::quantize

mod build;
mod choose;
mod dense;
mod export;
pub mod inclp;
mod learn;
mod node;
mod noise;
#[cfg(test)]
mod tests;
mod tolerant;

use crate::learn::{Context, Learner, TrainError};
use crate::learners::tree;
use crate::model::{ModelSpec, Unit, WeightKind};

pub use choose::RACE_AFTER;
pub use export::{fit, Fitted};
pub use inclp::{Budget, Cover, Halfspace, LpSolver, LpStats, Norm};
pub use learn::{learn, learn_hsi};
pub use node::prune_weights;
pub use tolerant::{FIT_ROWS, HOLDOUT, PATIENCE, SHARES};

/// How many rows of other classes an entry may cover ([`Params::tolerance`]).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Tolerance {
    /// None: the paper's exact covering (IncLP's halfspaces).
    #[default]
    Exact,
    /// At most this share of the rows an entry covers may be of other classes (in `(0, 1)`; 0 is
    /// [`Tolerance::Exact`]).
    Share(f64),
    /// Each share of [`SHARES`], the one whose list is most accurate on held-out rows.
    HeldOut,
}

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
    /// Noise tolerance of the entries (beyond the paper, for noisy or overlapping classes): an
    /// entry may cover a bounded share of rows of other classes; its halfspace is a logistic
    /// score of its class against the rest, cut where that share is reached, and the list holds
    /// out rows ([`Params::validation`], or [`HOLDOUT`] when that is 0) to stop once
    /// [`PATIENCE`] entries in a row did not raise their accuracy, then to prune. `None`
    /// (default): with [`Params::choose`], [`Tolerance::HeldOut`] on more rows than
    /// [`Choose::up_to_rows`] (there the exact covering spends an IncLP search on each small
    /// pure cluster of noisy data and does not finish) and [`Tolerance::Exact`] on fewer;
    /// [`Tolerance::Exact`] without [`Params::choose`].
    pub tolerance: Option<Tolerance>,
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
            tolerance: None,
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
            tolerance: Some(Tolerance::Exact),
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
    /// [`PATIENCE`] tolerant entries in a row did not raise the held-out accuracy.
    HeldOut,
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
    /// Tolerant entries ([`Tolerance::HeldOut`]) instead of the exact covering.
    pub tolerant: bool,
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
/// such units, at most 16, 8, 6, 4, 3, 2 and 1 entries (below any cap already set), and none:
/// the default alone, the training rows' majority class. A list's
/// entries read every feature the LP gives weight to, so without the sparse units no list
/// length meets a MAC budget below that (wdbc: one entry of 20 weights).
pub fn cheaper_lists(p: &Params) -> Vec<Params> {
    let sparse = Params { norm: Some(p.norm.unwrap_or(Norm::Sum)), prune_weights: true, ..p.clone() };
    let shorter = [16, 8, 6, 4, 3, 2, 1, 0]
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
