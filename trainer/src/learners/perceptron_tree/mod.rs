//! Perceptron trees (Utgoff 1989, "Perceptron Trees: A Case Study in Hybrid Concept
//! Representations"): decision trees whose leaves are linear threshold units, grown incrementally
//! by the *perceptron tree error correction procedure* (Table II) without storing instances.
//!
//! # The procedure (section 4.2, Table II)
//!
//! A node is *empty*, a *decision node* (an attribute test with one branch per value observed so
//! far) or an *LTU node*. [`PerceptronTree::update`] presents one instance:
//!
//! 1. traverse decision nodes along the instance's values;
//! 2. at a decision node without a branch for the value, grow the branch with an empty node;
//! 3. an empty node becomes an LTU with zero weights (or, with [`Params::pocket`], the parent's
//!    pocket weights, section 5.2);
//! 4. compute `y = W·I` over the symmetric encoding (`+1` if attribute = value, else `-1`, plus the
//!    threshold feature `θ = 1`, section 4.1);
//! 5. negative instance and `y ≥ 0`: `W ← W − I(⌊y/|I|²⌋ + 1)`;
//! 6. positive instance and `y ≤ 0`: `W ← W − I(⌊y/|I|²⌋ − 1)`;
//! 7. if the LTU makes no progress (section 4.2.1), replace it by a test on the attribute with the
//!    lowest `E`-score (section 4.2.2); branches are grown by later instances.
//!
//! `|I|² = I·I` equals `dim W` for the paper's ±1 features, so steps 5–6 are the paper's
//! absolute error correction rule verbatim; with numeric features (section 5.5) `I·I` is the
//! divisor that keeps the rule's guarantee that the corrected `W` classifies `I` correctly. The
//! paper leaves `y = 0` ("classification unknown", section 3) unhandled; it is corrected here as
//! an error for both classes, otherwise a zero-initialised LTU would never move. Weights are
//! integers throughout ([`Weight`]).
//!
//! An LTU's `W` covers only the features of attributes that no decision node above it fixes
//! (the fourth point after Table II); a numeric attribute is never fixed by a threshold test, so
//! it stays in the LTUs below and can be tested again.
//!
//! # Beyond the paper
//!
//! - **Multi-class**: with `K > 2` classes an LTU is a linear machine (one weight row per class,
//!   argmax, ties to the lowest row) corrected by the absolute linear-machine rule: when class `j`
//!   wins over the true class `i`, `W_i += cI`, `W_j −= cI` with `c = ⌊(y_j − y_i)/(2|I|²)⌋ + 1`.
//!   The `E`-score is Quinlan's expected entropy over `K` classes.
//! - **Numeric attributes** (section 5.5): used directly inside LTUs as one quantized
//!   [`Feature::Numeric`], and tested at decision nodes by a threshold chosen from per-class
//!   histograms over fixed bins of the raw value ([`FeatureSpace`]), so no instance is stored.
//! - **Pocket** (section 5.2, Gallant 1986): each LTU keeps the weights with the longest run of
//!   consecutive correct classifications, predicts with them and initialises its children from
//!   them after a split.
//! - **Noise** (section 5.4): a split needs [`Params::min_split`] instances at the LTU, depth is
//!   bounded by [`Params::max_depth`], and [`train`] prunes after training: by default with C4.5's
//!   error-based estimate on the training rows ([`Params::prune_z`],
//!   [`PerceptronTree::prune_pessimistic`]), or on a hold-out of [`Params::prune_fraction`] of
//!   the data; a decision subtree is replaced by the LTU it replaced (or a class leaf).
//! - **Size by held-out evidence** (on more than
//!   [`HOLD_OUT_PRUNING_ROWS`](crate::data::split::HOLD_OUT_PRUNING_ROWS) rows with the default
//!   [`LeafFit::Auto`]): C4.5's estimate on the training rows trusts what a unit of a hundred
//!   weights fits on the few rows of a deep leaf, so on noisy data the tree grows with the rows
//!   (50,000 noisy categorical rows: a 160 KB tree at 84 % where one unit scores 88 %). There a
//!   quarter of the rows is held out instead; the tree grows once on the rest, and every unit
//!   and subtree is scored by its held-out errors plus [`Params::weight_cost`] per exported
//!   weight: a subtree is pruned back to its unit, and a leaf split on the input whose
//!   interactions the unit misses (`graft.rs`), only when that score says it pays. **The
//!   trade-off**: 1,000 weights must buy one point of held-out accuracy (a linear machine of 11
//!   classes over 48 inputs, 539 weights, half a point), so a default tree is larger than a
//!   single unit only by what its accuracy gain pays for.
//! - **Leaf fit** ([`Params::leaf_fit`], default [`LeafFit::Auto`]): once the tree is grown,
//!   every unit (the leaves, and the units decision nodes replaced) can be refitted on the
//!   training rows reaching it by L2-regularised logistic regression and rounded to integers
//!   ([`crate::learners::unit_fit`]) before pruning; `Auto` keeps the perceptron's weights instead when they
//!   are more accurate on a quarter of the training rows held out. [`Params::paper`] keeps the
//!   perceptron's weights.
//!
//! See `docs/PERCEPTRON_TREE.md` for the reproduction of section 4.3 and measurements.
//!
//! [`Feature::Numeric`]: crate::model::Feature::Numeric

use crate::learn::{Context, Learner, TrainError};
use crate::model::{InputKind, InputSpec, ModelSpec};
use crate::rng::Rng;

pub use super::tree::pessimistic_errors;

mod export;
mod graft;
mod grow;
mod ltu;
mod prune;
mod refit;
mod space;
mod split_test;
#[cfg(test)]
mod tests;

use refit::{choose_leaf_fit, learn_held_out};
pub use space::{Encoded, FeatureSpace};

/// The integer type of every weight while training (exported as-is; `learn::finish` picks the
/// stored width).
pub type Weight = i64;

/// Order in which [`train`] presents the training rows in each epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Order {
    /// In file order, over and over (the list is circular, section 4.3).
    Cyclic,
    /// A fresh permutation drawn from the seed in every epoch.
    #[default]
    Shuffled,
}

/// When an LTU is judged not to be making progress (section 4.2.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SplitRule {
    /// The paper's heuristic: split when `C > log dim(W)`, `C` being the number of consecutive
    /// weight-vector adjustments since some weight's historical minimum or maximum changed.
    #[default]
    Progress,
    /// The exact but conservative test of Corollary 1: split when the number of weight vectors
    /// visited exceeds `∏ (w_i,max − w_i,min + 1)`, bound (1) on the distinct vectors that could
    /// have been visited; then some vector was visited twice and the instances at the node are
    /// provably not linearly separable. Rarely fires on more than a handful of features.
    Corollary1,
}

/// Base of the logarithm in the `C > log dim(W)` test; the paper does not say which one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LogBase {
    /// Natural logarithm.
    #[default]
    E,
    /// Binary logarithm.
    Two,
    /// Decimal logarithm.
    Ten,
}

crate::names::names!(Order, "order" { Cyclic => "cyclic", Shuffled => "shuffled" });
crate::names::names!(SplitRule, "split rule" { Progress => "progress", Corollary1 => "corollary1" });
crate::names::names!(LogBase, "log base" { E => "e", Two => "two", Ten => "ten" });
crate::names::names!(LeafFit, "leaf fit" { Perceptron => "perceptron", Logistic => "logistic", Auto => "auto" });
crate::names::names!(CategoricalTests, "categorical tests" { Multiway => "multiway", Value => "value" });
crate::names::names!(SplitChoice, "split choice" { Entropy => "entropy", Lookahead => "lookahead" });

/// How a decision node's test is chosen among the inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SplitChoice {
    /// The lowest expected entropy of the class counts (section 4.2.2); the paper's.
    #[default]
    Entropy,
    /// Beyond the paper: each input's best test by entropy, then the one whose branches linear
    /// units fit best on the LTU's most recent [`LOOKAHEAD_ROWS`] instances (fewest errors of a
    /// short perceptron run per branch, over the features the branch's LTU would have); entropy
    /// breaks ties. A perceptron tree's leaves are linear units, so the test to take is the one
    /// after which they can separate the classes, which entropy does not see when no single
    /// input is informative (MONK's `a1 = a2`).
    Lookahead,
}

/// Instances an LTU keeps for [`SplitChoice::Lookahead`] (the most recent).
pub const LOOKAHEAD_ROWS: usize = 128;

/// Perceptron epochs per branch in [`SplitChoice::Lookahead`].
const LOOKAHEAD_EPOCHS: usize = 10;

/// The tests a decision node may put on a categorical input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CategoricalTests {
    /// One branch per value (section 4.2.2); the paper's.
    #[default]
    Multiway,
    /// Beyond the paper: `x = v` against every other value, two branches (CART's split on a
    /// one-hot column). The "other" branch keeps every row the test does not single out.
    Value,
}

/// How the units' weights are finally set (beyond the paper).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LeafFit {
    /// As trained by the error correction procedure (the pocket's weights with
    /// [`Params::pocket`]); the paper's.
    Perceptron,
    /// Once the tree is grown, every unit (the leaves, and the units that decision nodes replaced,
    /// which pruning may restore) is refitted on the training rows reaching it by L2-regularised
    /// logistic regression ([`crate::learners::unit_fit`]) and rounded to integers; pruning then compares
    /// the refitted units. The penalty is [`Params::leaf_l2`].
    Logistic,
    /// Chooses between the two on a seeded, stratified quarter of the training rows held out:
    /// a tree is grown on the other rows and finished with the perceptron's weights and with
    /// logistic refits at each penalty of [`AUTO_L2`]; the one most accurate on the held-out
    /// rows (ties: the earlier, logistic with the strongest penalty first, the perceptron last)
    /// is then used on every row.
    #[default]
    Auto,
}

/// The L2 penalties [`LeafFit::Auto`] tries, strongest first.
pub const AUTO_L2: [f64; 3] = [1.0, 0.1, 0.01];

impl LogBase {
    /// `⌊log dim⌋`, exact (for an integer `C`, `C > log d ⇔ C > ⌊log d⌋`).
    fn floor_log(self, dim: usize) -> u32 {
        let d = dim.max(1);
        match self {
            LogBase::Two => d.ilog2(),
            LogBase::Ten => d.ilog10(),
            // ln d is irrational for every integer d > 1, so rounding cannot cross an integer.
            LogBase::E => (d as f64).ln().floor() as u32,
        }
    }
}

/// Perceptron tree options. Every field has a default that works on the reference data sets;
/// `Params::paper()` gives the configuration of the paper.
#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    /// Maximum passes over the training rows; training stops earlier as soon as the tree
    /// classifies every training row correctly (section 4.3).
    pub epochs: usize,
    /// Presentation order in each epoch.
    pub order: Order,
    /// When to split (section 4.2.1).
    pub split_rule: SplitRule,
    /// Logarithm of the [`SplitRule::Progress`] test.
    pub log_base: LogBase,
    /// Keep each LTU's pocket weights (section 5.2, Gallant 1986), predict with them and
    /// initialise child LTUs from them after a split. Off: predict with the current weights and
    /// start children at zero, as in the paper.
    pub pocket: bool,
    /// An LTU may split only after it has been presented this many instances (repeated
    /// presentations count; section 5.4). 0 as in the paper.
    pub min_split: u64,
    /// Maximum number of decision nodes on a path from the root; LTUs at this depth never split
    /// (section 5.4). `usize::MAX` as in the paper.
    pub max_depth: usize,
    /// Fraction of the training rows [`train`] holds out (seeded and stratified,
    /// [`crate::data::split::hold_out`]; none from fewer than 10 rows) to prune the tree
    /// bottom-up after training: a decision subtree is replaced by the LTU it replaced, or by its
    /// majority class, when that makes no more errors on the held-out rows. 0 disables pruning.
    pub prune_fraction: f64,
    /// Error-based pruning on the training rows themselves (C4.5, Quinlan 1993), used when
    /// `prune_fraction` is 0: a node's error estimate is the upper limit of a one-sided
    /// confidence interval of its error rate, `z` standard deviations wide (`0.6745` = C4.5's
    /// confidence factor 25%); a decision subtree is replaced by the LTU it replaced, or by its
    /// majority class, when that estimate is not above the sum of its leaves' estimates.
    /// 0 disables it.
    pub prune_z: f64,
    /// Numeric attributes become one feature quantized to `[-numeric_max_abs, numeric_max_abs]`
    /// over the training range (section 5.5).
    pub numeric_max_abs: u16,
    /// Number of fixed bins (quantiles of the training values) per numeric attribute whose
    /// per-class counts choose threshold tests; costs `bins × classes` counters per numeric
    /// attribute in every LTU.
    pub numeric_bins: usize,
    /// Export only what a leaf needs (beyond the paper): a leaf LTU whose training instances were
    /// all of one class becomes a constant-class leaf, and a linear machine drops the rows of
    /// classes that never reached it (two rows left become one binary LTU, row difference).
    /// Off in [`Params::paper`].
    pub compact_leaves: bool,
    /// How the units' weights are finally set (beyond the paper): [`LeafFit::Auto`] by default,
    /// [`LeafFit::Perceptron`] in [`Params::paper`].
    pub leaf_fit: LeafFit,
    /// With the logistic refit (beyond the paper): each refitted unit leaves out, one at a time
    /// and refitting without it, the feature that contributes least, while the fit's log
    /// likelihood drops by at most 1 per weight left out (Akaike's criterion;
    /// [`crate::learners::unit_fit::logistic_pruned`]). Off by default: over `cargo xtask compare`'s 17
    /// datasets it halves the weights of most models but costs accuracy as often as it gains
    /// (docs/PERCEPTRON_TREE.md); an option for when the device's cost matters more.
    pub feature_selection: bool,
    /// L2 penalty of [`LeafFit::Logistic`]'s refit ([`crate::learners::unit_fit::Params::l2`]: the mean log
    /// loss plus `l2 / (2n) · ‖w‖²` over features scaled to `[-1, 1]`).
    pub leaf_l2: f64,
    /// The tests on categorical inputs ([`CategoricalTests::Multiway`], the paper's, by default).
    pub categorical_tests: CategoricalTests,
    /// How a test is chosen: [`SplitChoice::Lookahead`] by default (beyond the paper),
    /// [`SplitChoice::Entropy`] in [`Params::paper`].
    pub split_choice: SplitChoice,
    /// What every weight of the model must earn, as a share of the held-out rows it classifies
    /// correctly (beyond the paper), wherever pruning uses held-out rows: a subtree is kept only
    /// when its held-out errors plus `weight_cost × held-out rows` per weight (a decision node
    /// counts as one) are below those of the unit it replaced and of a constant leaf. The
    /// default `1e-5` prices 1,000 weights at one point of held-out accuracy. 0 in
    /// [`Params::paper`]: plain reduced-error pruning.
    pub weight_cost: f64,
    /// Every leaf predicts its training rows' majority class instead of deciding by its LTU: a
    /// tree of tests alone, with no multiply-accumulate. Off by default; the cheapest rungs of
    /// the budget ladder ([`Ptree::ladder`](crate::learn::Learner::ladder)) turn it on.
    pub constant_leaves: bool,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            epochs: 50,
            order: Order::Shuffled,
            split_rule: SplitRule::Progress,
            log_base: LogBase::E,
            pocket: true,
            min_split: 30,
            max_depth: 4,
            prune_fraction: 0.0,
            prune_z: 0.6745,
            numeric_max_abs: 32,
            numeric_bins: 16,
            compact_leaves: true,
            leaf_fit: LeafFit::Auto,
            leaf_l2: 0.1,
            feature_selection: false,
            categorical_tests: CategoricalTests::Multiway,
            split_choice: SplitChoice::Lookahead,
            weight_cost: 1e-5,
            constant_leaves: false,
        }
    }
}

impl Params {
    /// The paper's configuration: cyclic order, the progress test, no pocket, no stopping
    /// rules, no pruning, and enough epochs to reach consistency on consistent data.
    pub fn paper() -> Self {
        Params {
            epochs: 1000,
            order: Order::Cyclic,
            pocket: false,
            min_split: 0,
            max_depth: usize::MAX,
            prune_fraction: 0.0,
            prune_z: 0.0,
            compact_leaves: false,
            feature_selection: false,
            leaf_fit: LeafFit::Perceptron,
            categorical_tests: CategoricalTests::Multiway,
            split_choice: SplitChoice::Entropy,
            weight_cost: 0.0,
            ..Params::default()
        }
    }

    /// Rejects out-of-range values, naming the option.
    ///
    /// # Errors
    /// [`TrainError::InvalidOption`].
    pub fn check(&self) -> Result<(), TrainError> {
        let bad = |s: String| Err(TrainError::InvalidOption(s));
        if self.epochs == 0 {
            return bad("ptree epochs must be at least 1".into());
        }
        if !(0.0..0.9).contains(&self.prune_fraction) {
            return bad(format!("ptree prune fraction must be in [0, 0.9), got {}", self.prune_fraction));
        }
        if !(0.0..=10.0).contains(&self.prune_z) {
            return bad(format!("ptree prune z must be in [0, 10], got {}", self.prune_z));
        }
        if self.numeric_max_abs == 0 || self.numeric_max_abs > 32767 {
            return bad(format!("ptree numeric max_abs must be in 1..=32767, got {}", self.numeric_max_abs));
        }
        if !(self.leaf_l2 > 0.0 && self.leaf_l2 <= 1e6) {
            return bad(format!("ptree leaf l2 must be in (0, 1e6], got {}", self.leaf_l2));
        }
        if !(0.0..=1.0).contains(&self.weight_cost) {
            return bad(format!("ptree weight cost must be in [0, 1], got {}", self.weight_cost));
        }
        if !(2..=1024).contains(&self.numeric_bins) {
            return bad(format!("ptree numeric bins must be in 2..=1024, got {}", self.numeric_bins));
        }
        Ok(())
    }
}

/// A test at a decision node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Test {
    /// One branch per value of a categorical input.
    Categorical {
        /// Raw input.
        attr: usize,
    },
    /// `x = value` takes branch 0, any other value (unknown included) branch 1.
    Value {
        /// Raw input.
        attr: usize,
        /// Category index.
        value: i32,
    },
    /// `x <= threshold` takes branch 0, otherwise branch 1.
    Threshold {
        /// Raw input.
        attr: usize,
        /// Threshold in raw units.
        threshold: i32,
    },
}

/// What one call of [`PerceptronTree::update`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Step {
    /// The LTU reached classified the instance correctly before training (`y` on the right side
    /// of 0, strictly).
    pub correct: bool,
    /// The weights were adjusted (steps 5–6).
    pub adjusted: bool,
    /// The LTU was replaced by a decision node (step 7).
    pub split: bool,
    /// A new branch was grown (step 2).
    pub grew: bool,
}

/// Size of a tree, counting only nodes reachable from the root.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct TreeStats {
    /// Decision nodes.
    pub decision_nodes: usize,
    /// LTU nodes.
    pub ltus: usize,
    /// Branches of decision nodes not grown yet (they predict the node's majority class).
    pub missing_branches: usize,
    /// Most decision nodes on a root-to-leaf path.
    pub depth: usize,
    /// Weights of the reachable LTUs (biases included).
    pub weights: usize,
}

#[derive(Debug, Clone, PartialEq)]
struct Ltu {
    /// Feature indices of the terms.
    active: Vec<u32>,
    /// 1 (binary LTU, classes `[0, 1]`) or the number of classes (linear machine).
    n_rows: usize,
    /// `n_rows` rows of `active.len() + 1` weights, bias (θ) last.
    w: Vec<Weight>,
    /// Pruning made this unit a constant class ([`Ltu::set_constant`]): a later refit keeps it
    /// one, since its weights were charged as a constant.
    constant: bool,
    /// Historical minimum and maximum of each weight (section 4.2.1).
    lo: Vec<Weight>,
    hi: Vec<Weight>,
    /// Consecutive adjustments since a minimum or maximum changed.
    c: u32,
    /// `⌊log dim W⌋` for the progress test.
    c_limit: u32,
    /// Weight-vector adjustments so far.
    adjustments: u64,
    /// Instances presented.
    seen: u64,
    /// Instances per class.
    class_counts: Vec<u64>,
    /// Inputs this LTU could be replaced by a test on, and the first count slot of each.
    attrs: Vec<u32>,
    offsets: Vec<u32>,
    /// Per slot, per class: instances seen (section 4.2.2).
    counts: Vec<u32>,
    /// Pocket (section 5.2): best weights, their run of correct answers, the current run, and
    /// whether the pocket holds the current weights.
    pocket: Vec<Weight>,
    pocket_run: u64,
    run: u64,
    pocket_current: bool,
    depth: usize,
    /// The most recent instances ([`SplitChoice::Lookahead`] only): active feature values, the
    /// count slot of each of `attrs`, label; a ring of at most [`LOOKAHEAD_ROWS`].
    recent: Vec<(Vec<i32>, Vec<u16>, usize)>,
    recent_next: usize,
}

#[derive(Debug, Clone, PartialEq)]
struct Decision {
    test: Test,
    children: Vec<Option<usize>>,
    /// Training instances per branch (known values), the parent LTU's counts included; unknown
    /// values take the branch with the most (ties to the lowest).
    seen: Vec<u64>,
    /// Majority class of the replaced LTU: prediction for a branch not grown yet.
    fallback: usize,
    /// The replaced LTU's features and predicting weights (pocket, or current): used to prune
    /// back to it, and projected to initialise children when the pocket is on.
    prior_active: Vec<u32>,
    prior_w: Vec<Weight>,
    /// Class counts of the training rows reaching the node, once the prior unit was refitted on
    /// them ([`LeafFit::Logistic`]); the restored unit then knows which classes it saw.
    prior_counts: Option<Vec<u64>>,
    /// Children's features, eligible attributes, initial weights.
    child_active: Vec<u32>,
    child_attrs: Vec<u32>,
    child_w: Vec<Weight>,
    depth: usize,
}

impl Decision {
    /// Branch an instance takes, and whether its value was known (unknown categorical values
    /// take [`Decision::default_branch`]).
    #[inline]
    fn branch(&self, x: &[i32]) -> (usize, bool) {
        match self.test {
            Test::Categorical { attr } => match usize::try_from(x[attr]) {
                Ok(v) if v < self.children.len() => (v, true),
                _ => (self.default_branch(), false),
            },
            Test::Value { attr, value } => (usize::from(x[attr] != value), true),
            Test::Threshold { attr, threshold } => (usize::from(x[attr] > threshold), true),
        }
    }

    fn child(&self, x: &[i32]) -> Option<usize> {
        self.children[self.branch(x).0]
    }

    fn default_branch(&self) -> usize {
        let mut best = 0;
        for (i, &s) in self.seen.iter().enumerate() {
            if s > self.seen[best] {
                best = i;
            }
        }
        best
    }
}

#[derive(Debug, Clone, PartialEq)]
enum NodeState {
    /// Only transiently (Table II step 2–3); kept for completeness of the node kinds.
    Empty {
        depth: usize,
        active: Vec<u32>,
        attrs: Vec<u32>,
        init: Vec<Weight>,
    },
    Ltu(Ltu),
    Decision(Decision),
}

/// Counters of a tree's history.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct History {
    /// Instances presented to [`PerceptronTree::update`].
    pub instances: u64,
    /// Weight-vector adjustments.
    pub adjustments: u64,
    /// Splits (LTU → decision node).
    pub splits: u64,
    /// Instance numbers (1-based) of the first splits.
    pub split_at: [u64; 8],
}

/// A perceptron tree, trained incrementally by [`PerceptronTree::update`] without storing
/// instances.
///
/// ```
/// use ltu::learners::perceptron_tree::{FeatureSpace, Params, PerceptronTree};
///
/// // (a ∨ b) ⊕ (c ∧ d), section 4.3: four boolean attributes, 16 instances in order.
/// let mut tree = PerceptronTree::new(FeatureSpace::categorical(&[2; 4]), 2, &Params::paper());
/// let rows: Vec<[i32; 4]> = (0..16).map(|i| [(i >> 3) & 1, (i >> 2) & 1, (i >> 1) & 1, i & 1]).collect();
/// let label = |r: &[i32; 4]| usize::from(((r[0] | r[1]) ^ (r[2] & r[3])) == 1);
/// let mut n = 0;
/// while !rows.iter().all(|r| tree.predict(r) == label(r)) {
///     let r = &rows[n % 16];
///     tree.update(r, label(r));
///     n += 1;
/// }
/// assert_eq!(tree.stats().decision_nodes, 2);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct PerceptronTree {
    space: FeatureSpace,
    n_classes: usize,
    split_rule: SplitRule,
    categorical_tests: CategoricalTests,
    split_choice: SplitChoice,
    log_base: LogBase,
    pocket: bool,
    min_split: u64,
    max_depth: usize,
    compact_leaves: bool,
    constant_leaves: bool,
    feature_selection: bool,
    nodes: Vec<NodeState>,
    /// Feature values of the current instance at the reached LTU (no allocation per update).
    scratch: Vec<i32>,
    history: History,
}

impl PerceptronTree {
    /// Trains on `rows`/`labels` as [`train`] does (holding out `p.prune_fraction` for pruning),
    /// without the dataset plumbing: the entry point for callers with their own raw rows.
    ///
    /// # Errors
    /// [`TrainError::InvalidOption`] for invalid parameters or labels.
    pub fn learn(
        inputs: &[InputSpec],
        rows: &[Vec<i32>],
        labels: &[usize],
        n_classes: usize,
        p: &Params,
        seed: u64,
        progress: &dyn Fn(u64, u64),
    ) -> Result<(PerceptronTree, Report), TrainError> {
        p.check()?;
        if rows.len() != labels.len() {
            return Err(TrainError::InvalidOption(format!(
                "{} rows but {} labels",
                rows.len(),
                labels.len()
            )));
        }
        if let Some(y) = labels.iter().find(|&&y| y >= n_classes.max(1)) {
            return Err(TrainError::InvalidOption(format!("label {y} out of range 0..{n_classes}")));
        }
        if let Some(r) = rows.iter().position(|r| r.len() != inputs.len()) {
            return Err(TrainError::InvalidOption(format!(
                "row {r} has {} inputs, expected {}",
                rows[r].len(),
                inputs.len()
            )));
        }
        let rng = Rng::new(seed);
        if p.leaf_fit == LeafFit::Auto
            && p.prune_fraction == 0.0
            && rows.len() > crate::data::split::HOLD_OUT_PRUNING_ROWS
        {
            return Ok(learn_held_out(inputs, rows, labels, n_classes, p, &rng, progress));
        }
        let (fit_idx, val_idx) = if rows.len() >= 10 {
            crate::data::split::hold_out(labels, n_classes, p.prune_fraction, rng.fork(1).next_u64())
        } else {
            ((0..rows.len()).collect(), Vec::new())
        };
        let (fit_rows, fit_labels) = crate::data::split::pick(rows, labels, &fit_idx);
        let (val_rows, val_labels) = crate::data::split::pick(rows, labels, &val_idx);
        let space = FeatureSpace::standard(inputs, &fit_rows, p.numeric_max_abs, p.numeric_bins);
        let mut tree = PerceptronTree::new(space, n_classes, p);
        let epochs = tree.fit(&fit_rows, &fit_labels, p, rng.fork(0).next_u64(), progress);
        let leaf_l2 = match p.leaf_fit {
            LeafFit::Perceptron => None,
            LeafFit::Logistic => Some(p.leaf_l2),
            LeafFit::Auto => {
                choose_leaf_fit(inputs, &fit_rows, &fit_labels, n_classes, p, rng.fork(2).next_u64())
            }
        };
        let consistent = tree.is_consistent(&fit_rows, &fit_labels);
        let (refitted, features_left_out) = leaf_l2.map_or((0, 0), |l2| {
            tree.refit_units(
                &fit_rows,
                &fit_labels,
                crate::learners::unit_fit::Params { l2, ..Default::default() },
            )
        });
        let before = tree.stats();
        let pruned = if !val_rows.is_empty() {
            tree.prune(&val_rows, &val_labels, p.weight_cost * val_rows.len() as f64)
        } else if p.prune_z > 0.0 {
            tree.prune_pessimistic(&fit_rows, &fit_labels, p.prune_z)
        } else {
            0
        };
        Ok((
            tree,
            Report {
                epochs,
                consistent,
                leaf_fit: if leaf_l2.is_some() { LeafFit::Logistic } else { LeafFit::Perceptron }.to_string(),
                leaf_l2,
                refitted,
                features_left_out,
                before_pruning: before,
                pruned,
                grafted: 0,
                held_out: val_rows.len(),
            },
        ))
    }
}

/// What [`PerceptronTree::learn`] did.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Report {
    /// Epochs run.
    pub epochs: usize,
    /// Whether the tree was consistent with the rows it trained on (before pruning).
    pub consistent: bool,
    /// How the units' weights were set: `perceptron` or `logistic` (what [`LeafFit::Auto`]
    /// chose, or the option).
    pub leaf_fit: String,
    /// The L2 penalty of the logistic refit (`null` for the perceptron).
    pub leaf_l2: Option<f64>,
    /// Units refitted on the rows reaching them (0 for the perceptron).
    pub refitted: usize,
    /// Features the refitted units left out, summed over the units refitted before the last
    /// pruning ([`Params::feature_selection`]).
    pub features_left_out: usize,
    /// Size before pruning.
    pub before_pruning: TreeStats,
    /// Subtrees replaced by pruning.
    pub pruned: usize,
    /// Leaves split by held-out evidence after pruning (on more than
    /// [`crate::data::split::HOLD_OUT_PRUNING_ROWS`] rows with [`LeafFit::Auto`]; 0 otherwise).
    pub grafted: usize,
    /// Rows held out for pruning.
    pub held_out: usize,
}

/// Learns a perceptron tree from the context's training rows (see the module docs) and returns
/// it as a [`ModelSpec`] with integer weights as learned.
///
/// # Errors
/// [`TrainError::InvalidOption`] for invalid parameters.
pub fn train(ctx: &Context<'_>, p: &Params) -> Result<ModelSpec, TrainError> {
    Ok(crate::learn::fit::<Ptree>(ctx, p)?.spec)
}

/// The perceptron-tree learner, `--algo ptree` (the [`Learner`] contract).
pub struct Ptree;

impl Learner for Ptree {
    const NAME: &'static str = "ptree";
    const ABOUT: &'static str =
        "perceptron tree: threshold tests at the nodes, linear threshold units at the leaves (Utgoff 1989)";
    type Params = Params;
    type Checked = Params;
    type Model = PerceptronTree;
    type Report = Report;

    fn check(p: &Params, _ctx: &Context<'_>) -> Result<Params, TrainError> {
        p.check()?;
        Ok(p.clone())
    }

    fn fit(ctx: &Context<'_>, p: &Params) -> Result<(PerceptronTree, Report), TrainError> {
        let progress = |done, total| (ctx.progress)(done, total);
        PerceptronTree::learn(&ctx.inputs, &ctx.raw, ctx.labels(), ctx.n_classes(), p, ctx.seed, &progress)
    }

    fn to_spec(tree: &PerceptronTree) -> ModelSpec {
        tree.to_model_spec()
    }

    /// With the logistic refit and without [`Params::feature_selection`]: the same tree with
    /// feature selection (its units read fewer features: a leaf reads every feature, so no
    /// depth alone meets a budget below the feature count). Then shallower trees, down to a
    /// single leaf unit (depth 0), each also with feature selection. Last, trees of tests with
    /// [`Params::constant_leaves`] (no multiply-accumulate at all), at most 8, 6, 4, 3, 2 and 1
    /// levels deep, down to a single leaf that predicts the majority class: the model every
    /// budget that admits any model admits.
    fn ladder(p: &Params) -> Vec<Params> {
        let select = p.leaf_fit != LeafFit::Perceptron && !p.feature_selection;
        let variants = |q: Params| {
            let selecting = select.then(|| Params { feature_selection: true, ..q.clone() });
            std::iter::once(q).chain(selecting)
        };
        let shallower = (0..p.max_depth.min(8))
            .rev()
            .flat_map(move |max_depth| variants(Params { max_depth, ..p.clone() }));
        // The leaves' units are not exported, so they are not refitted either.
        let constant = Params {
            constant_leaves: true,
            leaf_fit: LeafFit::Perceptron,
            feature_selection: false,
            ..p.clone()
        };
        let constant =
            [8, 6, 4, 3, 2, 1, 0].into_iter().map(move |max_depth| Params { max_depth, ..constant.clone() });
        let richer = (!p.constant_leaves).then_some(
            select.then(|| Params { feature_selection: true, ..p.clone() }).into_iter().chain(shallower),
        );
        richer.into_iter().flatten().chain(constant).filter(|q| q != p).collect()
    }
}

fn ltu_n_values(space: &FeatureSpace, attr: usize) -> u16 {
    match space.inputs[attr].kind {
        InputKind::Categorical { n_values } => n_values,
        InputKind::Numeric { .. } => 2,
    }
}
