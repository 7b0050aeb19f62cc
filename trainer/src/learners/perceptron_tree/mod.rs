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
//! - **Leaf fit** ([`Params::leaf_fit`], default [`LeafFit::Auto`]): once the tree is grown,
//!   every unit (the leaves, and the units decision nodes replaced) can be refitted on the
//!   training rows reaching it by L2-regularised logistic regression and rounded to integers
//!   ([`crate::learners::unit_fit`]) before pruning; `Auto` keeps the perceptron's weights instead when they
//!   are more accurate on a quarter of the training rows held out. [`Params::paper`] keeps the
//!   perceptron's weights.
//!
//! See `docs/PERCEPTRON_TREE.md` for the reproduction of section 4.3 and measurements.

use std::fmt;

use crate::data::encode;
use crate::learn::{Context, Learner, TrainError};
use crate::model::{Feature, InputKind, InputSpec, ModelSpec, Node, Structure, Unit, WeightKind};
use crate::rng::Rng;

pub use super::tree::pessimistic_errors;
use super::tree::{entropy, majority, EntropyUnit};

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
        if !(2..=1024).contains(&self.numeric_bins) {
            return bad(format!("ptree numeric bins must be in 2..=1024, got {}", self.numeric_bins));
        }
        Ok(())
    }
}

/// The instance space a tree learns over: raw inputs, the features LTUs read, and the bins of
/// numeric attributes.
///
/// An instance is a slice of raw input values (`x[a]`: a category index for a categorical
/// input, `n_values` or any out-of-range value meaning unknown; raw units for a numeric one),
/// exactly what the runtime reads, so the exported model computes the same features.
#[derive(Debug, Clone, PartialEq)]
pub struct FeatureSpace {
    inputs: Vec<InputSpec>,
    features: Vec<Feature>,
    /// Per input: the raw attribute a feature depends on alone (`None` for conjunctions).
    feature_attr: Vec<Option<usize>>,
    /// Per numeric input: sorted, distinct bin edges; bin `b` holds `edges[b-1] < x <= edges[b]`.
    edges: Vec<Vec<i32>>,
    /// Per input, for the hot path: `(numeric, first edge in flat_edges, edges or values)`.
    slot_info: Vec<(bool, u32, u32)>,
    flat_edges: Vec<i32>,
}

impl FeatureSpace {
    /// A space of `features` over `inputs`; `edges[a]` are the sorted bin edges of numeric input
    /// `a` (ignored for categorical inputs; empty = never split on it).
    ///
    /// # Errors
    /// [`TrainError::InvalidOption`] if a feature reads a missing input or the edges are not
    /// strictly increasing.
    pub fn new(
        inputs: Vec<InputSpec>,
        features: Vec<Feature>,
        mut edges: Vec<Vec<i32>>,
    ) -> Result<Self, TrainError> {
        edges.resize(inputs.len(), Vec::new());
        for (a, inp) in inputs.iter().enumerate() {
            if matches!(inp.kind, InputKind::Categorical { .. }) {
                edges[a].clear();
            } else if edges[a].windows(2).any(|w| w[0] >= w[1]) {
                return Err(TrainError::InvalidOption(format!(
                    "bin edges of input {a} are not strictly increasing"
                )));
            }
        }
        let mut feature_attr = Vec::with_capacity(features.len());
        for f in &features {
            let attr = match f {
                Feature::Numeric { attr, .. }
                | Feature::Equals { attr, .. }
                | Feature::Greater { attr, .. } => Some(*attr),
                Feature::Conjunction(lits) => {
                    if let Some(l) = lits.iter().find(|l| l.attr >= inputs.len()) {
                        return Err(TrainError::InvalidOption(format!(
                            "feature reads input {} of {}",
                            l.attr,
                            inputs.len()
                        )));
                    }
                    None
                }
            };
            if let Some(a) = attr.filter(|&a| a >= inputs.len()) {
                return Err(TrainError::InvalidOption(format!(
                    "feature reads input {a} of {}",
                    inputs.len()
                )));
            }
            feature_attr.push(attr);
        }
        Ok(FeatureSpace::finish(inputs, features, feature_attr, edges))
    }

    /// Boolean or nominal attributes only, in the paper's symmetric encoding: attribute `a` with
    /// `n_values[a]` values gives one `Equals` feature per value (section 4.1).
    pub fn categorical(n_values: &[u16]) -> Self {
        let inputs: Vec<InputSpec> = n_values
            .iter()
            .map(|&n| InputSpec { kind: InputKind::Categorical { n_values: n }, missing: i32::from(n) })
            .collect();
        let features = encode::standard_features(&inputs, &[], 1);
        let feature_attr = features
            .iter()
            .map(|f| match f {
                Feature::Equals { attr, .. } => Some(*attr),
                _ => None,
            })
            .collect();
        let edges = vec![Vec::new(); inputs.len()];
        FeatureSpace::finish(inputs, features, feature_attr, edges)
    }

    /// The standard space of [`encode::standard_features`] over `rows` (raw training inputs),
    /// numeric features quantized to `±max_abs`, and `bins` quantile bins per numeric input.
    pub fn standard(inputs: &[InputSpec], rows: &[Vec<i32>], max_abs: u16, bins: usize) -> Self {
        let features = encode::standard_features(inputs, rows, max_abs);
        let edges = inputs
            .iter()
            .enumerate()
            .map(|(a, inp)| match inp.kind {
                InputKind::Categorical { .. } => Vec::new(),
                InputKind::Numeric { .. } => quantile_edges(rows.iter().map(|r| r[a]).collect(), bins),
            })
            .collect();
        FeatureSpace::new(inputs.to_vec(), features, edges).expect("standard features are valid")
    }

    fn finish(
        inputs: Vec<InputSpec>,
        features: Vec<Feature>,
        feature_attr: Vec<Option<usize>>,
        edges: Vec<Vec<i32>>,
    ) -> Self {
        let mut flat_edges = Vec::new();
        let slot_info = inputs
            .iter()
            .zip(&edges)
            .map(|(inp, e)| {
                let start = flat_edges.len() as u32;
                flat_edges.extend_from_slice(e);
                match inp.kind {
                    InputKind::Categorical { n_values } => (false, start, u32::from(n_values)),
                    InputKind::Numeric { .. } => (true, start, e.len() as u32),
                }
            })
            .collect();
        FeatureSpace { inputs, features, feature_attr, edges, slot_info, flat_edges }
    }

    /// Raw input descriptors.
    pub fn inputs(&self) -> &[InputSpec] {
        &self.inputs
    }

    /// Features the LTUs read.
    pub fn features(&self) -> &[Feature] {
        &self.features
    }

    /// Number of count slots of input `a`: values plus "unknown", or bins.
    fn n_slots(&self, a: usize) -> usize {
        match self.inputs[a].kind {
            InputKind::Categorical { n_values } => usize::from(n_values) + 1,
            InputKind::Numeric { .. } => self.edges[a].len() + 1,
        }
    }

    /// Count slot of raw value `v` of input `a`: the value, "unknown" (`n_values`), or the bin
    /// (number of edges below `v`).
    #[inline]
    fn slot(&self, a: usize, v: i32) -> usize {
        let (numeric, start, n) = self.slot_info[a];
        if !numeric {
            return if (v as u32) < n { v as usize } else { n as usize };
        }
        self.flat_edges[start as usize..(start + n) as usize].partition_point(|&e| e < v)
    }

    /// Encodes raw inputs `x` once: the value of every feature and the count slot of every
    /// input, so that [`PerceptronTree::update_encoded`] presenting it again (epoch after epoch)
    /// neither bins raw values nor recomputes features.
    ///
    /// # Panics
    /// If `x` is shorter than the number of inputs.
    pub fn encode(&self, x: &[i32]) -> Encoded {
        let x = &x[..self.inputs.len()];
        Encoded {
            raw: x.to_vec(),
            features: self.features.iter().map(|f| f.value(x)).collect(),
            // Slots are at most 65535 (`n_values` is a `u16`; at most 1023 edges).
            slots: (0..x.len()).map(|a| self.slot(a, x[a]) as u16).collect(),
        }
    }
}

/// A training instance encoded by [`FeatureSpace::encode`]: its raw inputs (read by decision
/// nodes), its feature values (read by LTUs) and its count slots (the split statistics of
/// section 4.2.2). Presenting it with [`PerceptronTree::update_encoded`] has exactly the effect
/// of presenting the raw inputs with [`PerceptronTree::update`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Encoded {
    raw: Vec<i32>,
    features: Vec<i32>,
    slots: Vec<u16>,
}

impl Encoded {
    /// The raw inputs.
    pub fn raw(&self) -> &[i32] {
        &self.raw
    }

    /// The value of every feature of the space, in the space's order.
    pub fn features(&self) -> &[i32] {
        &self.features
    }
}

/// An instance as [`PerceptronTree::update`] receives it, or already encoded.
#[derive(Clone, Copy)]
enum Instance<'a> {
    Raw(&'a [i32]),
    Encoded(&'a Encoded),
}

impl<'a> Instance<'a> {
    #[inline]
    fn raw(self) -> &'a [i32] {
        match self {
            Instance::Raw(x) => x,
            Instance::Encoded(e) => &e.raw,
        }
    }
}

/// Up to `bins - 1` distinct edges splitting `values` into about equally full bins; an edge `e`
/// sends `x <= e` left. Edges at or above the maximum are dropped (they split nothing).
fn quantile_edges(mut values: Vec<i32>, bins: usize) -> Vec<i32> {
    values.sort_unstable();
    let Some(&max) = values.last() else { return Vec::new() };
    let n = values.len();
    let mut edges: Vec<i32> =
        (1..bins).map(|i| values[(i * n / bins).saturating_sub(1)]).filter(|&e| e < max).collect();
    edges.dedup();
    edges
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
    feature_selection: bool,
    nodes: Vec<NodeState>,
    /// Feature values of the current instance at the reached LTU (no allocation per update).
    scratch: Vec<i32>,
    history: History,
}

impl PerceptronTree {
    /// A tree of a single empty node over `space` for `n_classes` classes (labels
    /// `0..n_classes`), with the split, pocket and stopping options of `p`.
    pub fn new(space: FeatureSpace, n_classes: usize, p: &Params) -> Self {
        let n_classes = n_classes.max(1);
        let active: Vec<u32> = (0..space.features.len() as u32).collect();
        let attrs: Vec<u32> =
            (0..space.inputs.len() as u32).filter(|&a| space.n_slots(a as usize) > 1).collect();
        let rows = if n_classes > 2 { n_classes } else { 1 };
        let init = vec![0; rows * (active.len() + 1)];
        PerceptronTree {
            scratch: vec![0; space.features.len()],
            space,
            n_classes,
            split_rule: p.split_rule,
            categorical_tests: p.categorical_tests,
            split_choice: p.split_choice,
            log_base: p.log_base,
            pocket: p.pocket,
            min_split: p.min_split,
            max_depth: p.max_depth,
            compact_leaves: p.compact_leaves,
            feature_selection: p.feature_selection,
            nodes: vec![NodeState::Empty { depth: 0, active, attrs, init }],
            history: History::default(),
        }
    }

    /// The instance space.
    pub fn space(&self) -> &FeatureSpace {
        &self.space
    }

    /// Number of classes.
    pub fn n_classes(&self) -> usize {
        self.n_classes
    }

    /// Counters of what training did so far.
    pub fn history(&self) -> History {
        self.history
    }

    /// Presents one training instance (raw inputs `x`, class `label`) to the perceptron tree
    /// error correction procedure (Table II). Does not allocate unless the tree grows.
    ///
    /// # Panics
    /// If `x` is shorter than the number of inputs or `label >= n_classes`.
    pub fn update(&mut self, x: &[i32], label: usize) -> Step {
        assert!(
            x.len() >= self.space.inputs.len(),
            "instance has {} inputs, expected {}",
            x.len(),
            self.space.inputs.len()
        );
        self.present(Instance::Raw(x), label)
    }

    /// Presents an instance encoded by this tree's [`FeatureSpace::encode`]: the same step as
    /// [`PerceptronTree::update`] on its raw inputs (the resulting trees are identical), without
    /// binning or feature computation. Batch training ([`PerceptronTree::fit`],
    /// [`PerceptronTree::learn`]) encodes every row once and presents it this way. Does not
    /// allocate unless the tree grows.
    ///
    /// # Panics
    /// If `e` was not encoded for a space with this tree's numbers of inputs and features, or
    /// `label >= n_classes`.
    pub fn update_encoded(&mut self, e: &Encoded, label: usize) -> Step {
        assert!(
            e.raw.len() == self.space.inputs.len() && e.features.len() == self.space.features.len(),
            "instance encoded for another feature space"
        );
        self.present(Instance::Encoded(e), label)
    }

    /// Table II for one instance (inputs checked by the caller).
    fn present(&mut self, inst: Instance<'_>, label: usize) -> Step {
        assert!(label < self.n_classes, "label {label} out of range 0..{}", self.n_classes);
        let x = inst.raw();
        self.history.instances += 1;
        let mut step = Step::default();
        // Steps 1–2: traverse decision nodes, growing a missing branch.
        let mut id = 0;
        loop {
            let next = self.nodes.len();
            let grown = match &mut self.nodes[id] {
                NodeState::Decision(d) => {
                    let (b, known) = d.branch(x);
                    if known {
                        d.seen[b] += 1;
                    }
                    match d.children[b] {
                        Some(c) => {
                            id = c;
                            continue;
                        }
                        None => {
                            d.children[b] = Some(next);
                            NodeState::Empty {
                                depth: d.depth + 1,
                                active: d.child_active.clone(),
                                attrs: d.child_attrs.clone(),
                                init: d.child_w.clone(),
                            }
                        }
                    }
                }
                NodeState::Empty { depth, active, attrs, init } => {
                    // Step 3: make it an LTU.
                    let (active, attrs, init) =
                        (std::mem::take(active), std::mem::take(attrs), std::mem::take(init));
                    let ltu =
                        Ltu::new(&self.space, self.n_classes, self.log_base, *depth, active, attrs, init);
                    self.nodes[id] = NodeState::Ltu(ltu);
                    continue;
                }
                NodeState::Ltu(_) => break,
            };
            id = next;
            self.nodes.push(grown);
            step.grew = true;
        }
        let NodeState::Ltu(ltu) = &mut self.nodes[id] else { unreachable!() };
        // Steps 4–6.
        let f = &mut self.scratch[..ltu.active.len()];
        let lookahead = self.split_choice == SplitChoice::Lookahead;
        match inst {
            Instance::Raw(x) => {
                ltu.count(label, |a| self.space.slot(a, x[a]));
                for (s, &j) in f.iter_mut().zip(&ltu.active) {
                    *s = self.space.features[j as usize].value(x);
                }
                if lookahead {
                    ltu.remember(f, label, |a| self.space.slot(a, x[a]));
                }
            }
            Instance::Encoded(e) => {
                ltu.count(label, |a| usize::from(e.slots[a]));
                for (s, &j) in f.iter_mut().zip(&ltu.active) {
                    *s = e.features[j as usize];
                }
                if lookahead {
                    ltu.remember(f, label, |a| usize::from(e.slots[a]));
                }
            }
        }
        let f = &*f;
        let outcome = ltu.correct(f, label, self.pocket);
        step.correct = outcome.is_none();
        let Some(range_changed) = outcome else { return step };
        step.adjusted = true;
        self.history.adjustments += 1;
        // Step 7.
        let no_progress = match self.split_rule {
            SplitRule::Progress => {
                ltu.c = if range_changed { 0 } else { ltu.c + 1 };
                ltu.c > ltu.c_limit
            }
            SplitRule::Corollary1 => ltu.revisited(),
        };
        if no_progress && ltu.depth < self.max_depth && ltu.seen >= self.min_split {
            let test = match self.split_choice {
                SplitChoice::Entropy => ltu.best_test(&self.space, self.categorical_tests),
                SplitChoice::Lookahead => ltu.best_test_lookahead(&self.space, self.categorical_tests),
            };
            if let Some(test) = test {
                self.split(id, test);
                step.split = true;
                let h = &mut self.history;
                if let Some(s) = h.split_at.get_mut(h.splits as usize) {
                    *s = h.instances;
                }
                h.splits += 1;
            } else {
                // No attribute separates anything here: wait for new evidence.
                ltu.c = 0;
            }
        }
        step
    }

    /// Replaces LTU `id` by a decision node with `test` and no branches (step 7).
    fn split(&mut self, id: usize, test: Test) {
        let NodeState::Ltu(ltu) = &self.nodes[id] else { unreachable!() };
        let prior_w = if self.pocket && ltu.pocket_run > 0 { ltu.pocket.clone() } else { ltu.w.clone() };
        let (n_branches, fixed) = match test {
            Test::Categorical { attr } => (usize::from(ltu_n_values(&self.space, attr)), Some(attr)),
            Test::Value { .. } | Test::Threshold { .. } => (2, None),
        };
        let keep: Vec<bool> = ltu
            .active
            .iter()
            .map(|&f| fixed.is_none() || self.space.feature_attr[f as usize] != fixed)
            .collect();
        let child_active: Vec<u32> =
            ltu.active.iter().zip(&keep).filter(|(_, &k)| k).map(|(&f, _)| f).collect();
        let child_attrs: Vec<u32> =
            ltu.attrs.iter().copied().filter(|&a| Some(a as usize) != fixed).collect();
        let dim = ltu.active.len() + 1;
        let mut child_w = Vec::with_capacity(ltu.n_rows * (child_active.len() + 1));
        for r in 0..ltu.n_rows {
            let row = &prior_w[r * dim..(r + 1) * dim];
            for (j, &w) in row.iter().enumerate() {
                if j + 1 == dim || keep[j] {
                    child_w.push(if self.pocket { w } else { 0 });
                }
            }
        }
        // Branch populations from the counts the LTU kept.
        let mut seen = vec![0u64; n_branches];
        let k = self.n_classes;
        match test {
            Test::Categorical { attr } => {
                let i = ltu.attrs.iter().position(|&a| a as usize == attr).expect("eligible attribute");
                let base = ltu.offsets[i] as usize;
                for (v, s) in seen.iter_mut().enumerate() {
                    *s = ltu.counts[(base + v) * k..(base + v + 1) * k].iter().map(|&c| u64::from(c)).sum();
                }
            }
            Test::Value { attr, value } => {
                let i = ltu.attrs.iter().position(|&a| a as usize == attr).expect("eligible attribute");
                let base = ltu.offsets[i] as usize;
                for s in 0..self.space.n_slots(attr) {
                    let n: u64 =
                        ltu.counts[(base + s) * k..(base + s + 1) * k].iter().map(|&c| u64::from(c)).sum();
                    seen[usize::from(s as i32 != value)] += n;
                }
            }
            Test::Threshold { attr, threshold } => {
                let i = ltu.attrs.iter().position(|&a| a as usize == attr).expect("eligible attribute");
                let base = ltu.offsets[i] as usize;
                for (b, &e) in self.space.edges[attr].iter().chain([&i32::MAX]).enumerate() {
                    let n: u64 =
                        ltu.counts[(base + b) * k..(base + b + 1) * k].iter().map(|&c| u64::from(c)).sum();
                    seen[usize::from(e > threshold)] += n;
                }
            }
        }
        let decision = Decision {
            test,
            children: vec![None; n_branches],
            seen,
            fallback: majority(&ltu.class_counts),
            prior_active: ltu.active.clone(),
            prior_w,
            prior_counts: None,
            child_active,
            child_attrs,
            child_w,
            depth: ltu.depth,
        };
        self.nodes[id] = NodeState::Decision(decision);
    }

    /// The class the tree assigns to raw inputs `x`.
    ///
    /// # Panics
    /// If `x` is shorter than the number of inputs.
    pub fn predict(&self, x: &[i32]) -> usize {
        self.predict_from(0, Instance::Raw(x))
    }

    /// The class the tree assigns to an instance encoded by this tree's
    /// [`FeatureSpace::encode`] (the same as [`PerceptronTree::predict`] on its raw inputs).
    ///
    /// # Panics
    /// If `e` was encoded for a space with fewer inputs or features.
    pub fn predict_encoded(&self, e: &Encoded) -> usize {
        self.predict_from(0, Instance::Encoded(e))
    }

    fn predict_from(&self, mut id: usize, inst: Instance<'_>) -> usize {
        let x = inst.raw();
        loop {
            match &self.nodes[id] {
                NodeState::Empty { .. } => return 0,
                NodeState::Ltu(l) => {
                    return match inst {
                        Instance::Raw(x) => {
                            l.predict(|i| self.space.features[i].value(x), self.pocket, self.compact_leaves)
                        }
                        Instance::Encoded(e) => {
                            l.predict(|i| e.features[i], self.pocket, self.compact_leaves)
                        }
                    }
                }
                NodeState::Decision(d) => match d.child(x) {
                    Some(c) => id = c,
                    None => return d.fallback,
                },
            }
        }
    }

    /// Whether every `(rows[i], labels[i])` is classified correctly.
    pub fn is_consistent(&self, rows: &[Vec<i32>], labels: &[usize]) -> bool {
        rows.iter().zip(labels).all(|(x, &y)| self.predict(x) == y)
    }

    /// Size figures of the reachable tree.
    pub fn stats(&self) -> TreeStats {
        let mut s = TreeStats::default();
        let mut stack = vec![(0usize, 0usize)];
        while let Some((id, depth)) = stack.pop() {
            s.depth = s.depth.max(depth);
            match &self.nodes[id] {
                NodeState::Empty { .. } => {}
                NodeState::Ltu(l) => {
                    s.ltus += 1;
                    s.weights += l.w.len();
                }
                NodeState::Decision(d) => {
                    s.decision_nodes += 1;
                    for c in &d.children {
                        match c {
                            Some(c) => stack.push((*c, depth + 1)),
                            None => s.missing_branches += 1,
                        }
                    }
                }
            }
        }
        s
    }

    /// Presents `rows` (raw inputs) with `labels` epoch after epoch in `p.order` until the tree
    /// is consistent or `p.epochs` passes are done; reports `(epoch, epochs)` to `progress`.
    /// Returns the number of epochs run.
    ///
    /// Every row is encoded once ([`FeatureSpace::encode`]) and presented with
    /// [`PerceptronTree::update_encoded`]; the tree is the one [`PerceptronTree::update`] on the
    /// raw rows in the same order would give.
    ///
    /// # Panics
    /// If a row is shorter than the number of inputs or a label is out of range.
    pub fn fit(
        &mut self,
        rows: &[Vec<i32>],
        labels: &[usize],
        p: &Params,
        seed: u64,
        progress: &dyn Fn(u64, u64),
    ) -> usize {
        let encoded: Vec<Encoded> = rows.iter().map(|r| self.space.encode(r)).collect();
        self.fit_encoded(&encoded, labels, p, seed, progress)
    }

    /// [`PerceptronTree::fit`] on rows already encoded by this tree's [`FeatureSpace::encode`].
    ///
    /// # Panics
    /// If a row was encoded for another space or a label is out of range.
    pub fn fit_encoded(
        &mut self,
        rows: &[Encoded],
        labels: &[usize],
        p: &Params,
        seed: u64,
        progress: &dyn Fn(u64, u64),
    ) -> usize {
        let mut order: Vec<usize> = (0..rows.len()).collect();
        let mut rng = Rng::new(seed);
        for epoch in 0..p.epochs {
            if rows.iter().zip(labels).all(|(e, &y)| self.predict_encoded(e) == y) {
                return epoch;
            }
            if p.order == Order::Shuffled {
                rng.shuffle(&mut order);
            }
            for &i in &order {
                self.update_encoded(&rows[i], labels[i]);
            }
            progress(epoch as u64 + 1, p.epochs as u64);
        }
        p.epochs
    }

    /// Prunes bottom-up with held-out `rows`: each decision subtree (deepest first) is replaced
    /// by the LTU it replaced, or by its majority class, when that makes no more errors on the
    /// held-out rows reaching it (section 5.4). Returns the number of subtrees replaced.
    pub fn prune(&mut self, rows: &[Vec<i32>], labels: &[usize]) -> usize {
        // Held-out rows reaching each node; pruning below a node does not change who reaches it.
        let reach = self.reach(rows);
        let mut pruned = 0;
        // Children have larger ids than their parents.
        for id in (0..self.nodes.len()).rev() {
            let NodeState::Decision(d) = &self.nodes[id] else { continue };
            if reach[id].is_empty() {
                continue;
            }
            let errors =
                |f: &dyn Fn(&[i32]) -> usize| reach[id].iter().filter(|&&i| f(&rows[i]) != labels[i]).count();
            let subtree = errors(&|x| self.predict_from(id, Instance::Raw(x)));
            let prior = Ltu::frozen(&self.space, self.n_classes, self.log_base, d);
            let as_ltu =
                errors(&|x| prior.predict(|i| self.space.features[i].value(x), false, self.compact_leaves));
            let as_class = errors(&|_| d.fallback);
            if as_ltu <= subtree && as_ltu <= as_class {
                self.nodes[id] = NodeState::Ltu(prior);
                pruned += 1;
            } else if as_class < subtree {
                // A machine/LTU with zero weights and only a bias towards the majority class.
                let mut leaf = Ltu::frozen(&self.space, self.n_classes, self.log_base, d);
                leaf.set_constant(d.fallback);
                self.nodes[id] = NodeState::Ltu(leaf);
                pruned += 1;
            }
        }
        pruned
    }

    /// Error-based pruning with the training `rows` (C4.5's pessimistic pruning, with the LTU a
    /// decision node replaced as a candidate leaf): bottom-up, a decision subtree is replaced by
    /// that LTU, or by its majority class, when the candidate's estimated errors are at most the
    /// sum of the subtree leaves' estimates. The estimate for `e` errors among `n` rows is `n`
    /// times the upper limit of the error rate's confidence interval `z` standard deviations
    /// wide ([`pessimistic_errors`]). Returns the number of subtrees replaced.
    pub fn prune_pessimistic(&mut self, rows: &[Vec<i32>], labels: &[usize], z: f64) -> usize {
        let reach = self.reach(rows);
        // Estimated errors of the (pruned) subtree at each node; children have larger ids.
        let mut est = vec![0.0f64; self.nodes.len()];
        let mut pruned = 0;
        for id in (0..self.nodes.len()).rev() {
            let rows_here = &reach[id];
            let n = rows_here.len() as f64;
            let errors = |f: &dyn Fn(&[i32]) -> usize| {
                rows_here.iter().filter(|&&i| f(&rows[i]) != labels[i]).count() as f64
            };
            match &self.nodes[id] {
                NodeState::Empty { .. } => est[id] = pessimistic_errors(errors(&|_| 0), n, z),
                NodeState::Ltu(l) => {
                    let e = errors(&|x| {
                        l.predict(|i| self.space.features[i].value(x), self.pocket, self.compact_leaves)
                    });
                    est[id] = pessimistic_errors(e, n, z);
                }
                NodeState::Decision(d) => {
                    // Leaves below: grown children, and the fallback class of missing branches.
                    let mut missing = (0.0, 0.0);
                    for &i in rows_here {
                        if d.child(&rows[i]).is_none() {
                            missing.0 += 1.0;
                            missing.1 += f64::from(u8::from(labels[i] != d.fallback));
                        }
                    }
                    let subtree = d.children.iter().flatten().map(|&c| est[c]).sum::<f64>()
                        + pessimistic_errors(missing.1, missing.0, z);
                    let prior = Ltu::frozen(&self.space, self.n_classes, self.log_base, d);
                    let as_ltu = pessimistic_errors(
                        errors(&|x| {
                            prior.predict(|i| self.space.features[i].value(x), false, self.compact_leaves)
                        }),
                        n,
                        z,
                    );
                    let as_class = pessimistic_errors(errors(&|_| d.fallback), n, z);
                    let fallback = d.fallback;
                    est[id] = subtree;
                    if as_ltu <= subtree && as_ltu <= as_class {
                        self.nodes[id] = NodeState::Ltu(prior);
                        est[id] = as_ltu;
                        pruned += 1;
                    } else if as_class <= subtree {
                        let mut leaf = prior;
                        leaf.set_constant(fallback);
                        self.nodes[id] = NodeState::Ltu(leaf);
                        est[id] = as_class;
                        pruned += 1;
                    }
                }
            }
        }
        pruned
    }

    /// Refits every unit on the training `rows` reaching it ([`LeafFit::Logistic`]): each leaf
    /// LTU, and the unit each decision node replaced (the candidate pruning restores). A unit's
    /// class counts become those of the rows reaching it. Returns the number of units refitted
    /// and the number of features they left out ([`Params::feature_selection`]).
    pub fn refit_units(
        &mut self,
        rows: &[Vec<i32>],
        labels: &[usize],
        fit: crate::learners::unit_fit::Params,
    ) -> (usize, usize) {
        let reach = self.reach(rows);
        let (mut refitted, mut features_left_out) = (0, 0);
        for (id, here) in reach.iter().enumerate() {
            if here.is_empty() {
                continue;
            }
            let active = match &self.nodes[id] {
                NodeState::Ltu(l) => &l.active,
                NodeState::Decision(d) => &d.prior_active,
                NodeState::Empty { .. } => continue,
            };
            let (w, counts, left_out) = self.fit_unit(active, here, rows, labels, fit);
            features_left_out += left_out;
            match &mut self.nodes[id] {
                NodeState::Ltu(l) => {
                    l.pocket.clone_from(&w);
                    l.w = w;
                    l.pocket_current = true;
                    l.class_counts = counts;
                }
                NodeState::Decision(d) => {
                    d.prior_w = w;
                    d.prior_counts = Some(counts);
                }
                NodeState::Empty { .. } => unreachable!(),
            }
            refitted += 1;
        }
        (refitted, features_left_out)
    }

    /// Weights (this tree's unit layout) of a unit over features `active` fitted to the rows
    /// `here`, those rows' class counts, and how many features feature selection left out.
    fn fit_unit(
        &self,
        active: &[u32],
        here: &[usize],
        rows: &[Vec<i32>],
        labels: &[usize],
        fit: crate::learners::unit_fit::Params,
    ) -> (Vec<Weight>, Vec<u64>, usize) {
        use crate::learners::unit_fit::{logistic, logistic_pruned, to_integer, Rows};
        let k = self.n_classes;
        let n_rows = if k > 2 { k } else { 1 };
        let dim = active.len() + 1;
        let mut counts = vec![0u64; k];
        for &i in here {
            counts[labels[i]] += 1;
        }
        let present: Vec<usize> = (0..k).filter(|&c| counts[c] > 0).collect();
        let mut w = vec![0 as Weight; n_rows * dim];
        if present.len() < 2 {
            let class = present.first().copied().unwrap_or(0);
            if n_rows == 1 {
                w[dim - 1] = if class == 1 { 1 } else { -1 };
            } else {
                w[class * dim + dim - 1] = 1;
            }
            return (w, counts, 0);
        }
        let mut local = vec![usize::MAX; k];
        for (j, &c) in present.iter().enumerate() {
            local[c] = j;
        }
        let x: Vec<i32> = here
            .iter()
            .flat_map(|&i| active.iter().map(move |&f| self.space.features[f as usize].value(&rows[i])))
            .collect();
        let y: Vec<usize> = here.iter().map(|&i| local[labels[i]]).collect();
        let max_abs: Vec<i64> = active.iter().map(|&f| self.space.features[f as usize].max_abs()).collect();
        let fitted = Rows { x: &x, d: active.len(), y: &y, m: present.len() };
        let (q, left_out) = if self.feature_selection {
            logistic_pruned(fitted, &max_abs, fit)
        } else {
            (to_integer(&logistic(fitted, &max_abs, fit), &max_abs, fitted), 0)
        };
        if n_rows == 1 {
            // Two classes: positive = class 1 = local label 1.
            w.copy_from_slice(&q[0]);
            return (w, counts, left_out);
        }
        // A machine: two present classes give one row (the higher class's, the lower's zero, so
        // the argmax's tie goes to the lower as the binary rule's `score > 0` does); more give one
        // row each. A class no row reached gets the first present class's row with its bias
        // lowered by one: it scores less than that row on every input, so it is never chosen,
        // and it needs no wider weights (compact leaves drop it anyway).
        let fitted_rows: Vec<(usize, &Vec<i64>)> = if q.len() == 1 {
            vec![(present[1], &q[0])]
        } else {
            present.iter().copied().zip(q.iter()).collect()
        };
        for (c, r) in &fitted_rows {
            w[c * dim..(c + 1) * dim].copy_from_slice(r);
        }
        let first = w[present[0] * dim..(present[0] + 1) * dim].to_vec();
        for c in (0..k).filter(|&c| counts[c] == 0) {
            w[c * dim..(c + 1) * dim].copy_from_slice(&first);
            w[c * dim + dim - 1] -= 1;
        }
        (w, counts, left_out)
    }

    /// Indices of the `rows` reaching each node.
    fn reach(&self, rows: &[Vec<i32>]) -> Vec<Vec<usize>> {
        let mut reach: Vec<Vec<usize>> = vec![Vec::new(); self.nodes.len()];
        for (i, x) in rows.iter().enumerate() {
            let mut id = 0;
            loop {
                reach[id].push(i);
                match &self.nodes[id] {
                    NodeState::Decision(d) => match d.child(x) {
                        Some(c) => id = c,
                        None => break,
                    },
                    _ => break,
                }
            }
        }
        reach
    }

    /// The tree as a [`ModelSpec`] over the space's inputs: decision nodes become
    /// [`Node::Categorical`] / [`Node::Threshold`], LTUs [`Node::Unit`] over exactly their
    /// features, missing branches [`Node::Class`] with the node's majority class. Only the
    /// features some unit reads are kept. Weights are stored as-is with [`WeightKind::I32`];
    /// `learn::finish` chooses the final width.
    pub fn to_model_spec(&self) -> ModelSpec {
        // Keep the features that reachable LTUs read, in their original order.
        let mut used = vec![false; self.space.features.len()];
        let mut stack = vec![0usize];
        while let Some(id) = stack.pop() {
            match &self.nodes[id] {
                NodeState::Ltu(l) if self.constant_leaf(l).is_none() => {
                    l.active.iter().for_each(|&f| used[f as usize] = true);
                }
                NodeState::Ltu(_) => {}
                NodeState::Decision(d) => stack.extend(d.children.iter().flatten()),
                NodeState::Empty { .. } => {}
            }
        }
        let mut remap = vec![usize::MAX; used.len()];
        let mut features = Vec::new();
        for (i, f) in self.space.features.iter().enumerate() {
            if used[i] {
                remap[i] = features.len();
                features.push(f.clone());
            }
        }
        let mut nodes = Vec::new();
        let mut units = Vec::new();
        self.emit(0, &remap, &mut nodes, &mut units);
        ModelSpec {
            n_classes: self.n_classes,
            weight_kind: WeightKind::I32,
            inputs: self.space.inputs.clone(),
            features,
            units,
            structure: Structure::Tree(nodes),
            names: None,
        }
    }

    /// The class of a leaf LTU that saw training instances of one class only, when leaves are
    /// compacted.
    fn constant_leaf(&self, l: &Ltu) -> Option<usize> {
        if self.compact_leaves {
            l.only_class()
        } else {
            None
        }
    }

    /// Emits node `id` and its subtree in preorder (links point forward); returns its index.
    fn emit(&self, id: usize, remap: &[usize], nodes: &mut Vec<Node>, units: &mut Vec<Unit>) -> usize {
        let me = nodes.len();
        nodes.push(Node::Class(0));
        nodes[me] = match &self.nodes[id] {
            NodeState::Empty { .. } => Node::Class(0),
            NodeState::Ltu(l) => {
                if self.n_classes < 2 {
                    Node::Class(0)
                } else if let Some(class) = self.constant_leaf(l) {
                    Node::Class(class)
                } else {
                    let mut unit = l.to_unit(remap, self.n_classes, self.pocket);
                    if self.compact_leaves {
                        drop_unseen_classes(&mut unit, &l.class_counts);
                    }
                    units.push(unit);
                    Node::Unit(units.len() - 1)
                }
            }
            NodeState::Decision(d) => {
                let mut fallback = None;
                let mut kids = Vec::with_capacity(d.children.len());
                for c in &d.children {
                    let k = match c {
                        Some(c) => self.emit(*c, remap, nodes, units),
                        None => *fallback.get_or_insert_with(|| {
                            nodes.push(Node::Class(d.fallback));
                            nodes.len() - 1
                        }),
                    };
                    kids.push(k);
                }
                match d.test {
                    Test::Categorical { attr } => {
                        let default = kids[d.default_branch()];
                        Node::Categorical { attr, children: kids, default }
                    }
                    Test::Value { attr, value } => {
                        let n = usize::from(ltu_n_values(&self.space, attr));
                        let children = (0..n).map(|v| kids[usize::from(v as i32 != value)]).collect();
                        Node::Categorical { attr, children, default: kids[1] }
                    }
                    Test::Threshold { attr, threshold } => {
                        Node::Threshold { attr, threshold, left: kids[0], right: kids[1] }
                    }
                }
            }
        };
        me
    }

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
            tree.prune(&val_rows, &val_labels)
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
                held_out: val_rows.len(),
            },
        ))
    }
}

/// [`LeafFit::Auto`]'s choice for training rows `rows`: the L2 penalty of the logistic refit, or
/// `None` for the perceptron's weights (see [`LeafFit::Auto`]). With fewer than 20 rows nothing
/// can be held out and the logistic refit with [`Params::leaf_l2`] is used.
fn choose_leaf_fit(
    inputs: &[InputSpec],
    rows: &[Vec<i32>],
    labels: &[usize],
    n_classes: usize,
    p: &Params,
    seed: u64,
) -> Option<f64> {
    let (fit_idx, val_idx) = crate::data::split::hold_out(labels, n_classes, 0.25, seed);
    if rows.len() < 20 || val_idx.is_empty() {
        return Some(p.leaf_l2);
    }
    let (fit_rows, fit_labels) = crate::data::split::pick(rows, labels, &fit_idx);
    let (val_rows, val_labels) = crate::data::split::pick(rows, labels, &val_idx);
    let space = FeatureSpace::standard(inputs, &fit_rows, p.numeric_max_abs, p.numeric_bins);
    let mut grown = PerceptronTree::new(space, n_classes, p);
    grown.fit(&fit_rows, &fit_labels, p, Rng::new(seed).next_u64(), &|_, _| {});
    let mut best: Option<(usize, Option<f64>)> = None;
    for l2 in AUTO_L2.iter().copied().map(Some).chain([None]) {
        let mut tree = grown.clone();
        if let Some(l2) = l2 {
            tree.refit_units(
                &fit_rows,
                &fit_labels,
                crate::learners::unit_fit::Params { l2, ..Default::default() },
            );
        }
        if p.prune_z > 0.0 {
            tree.prune_pessimistic(&fit_rows, &fit_labels, p.prune_z);
        }
        let correct = val_rows.iter().zip(&val_labels).filter(|(x, &y)| tree.predict(x) == y).count();
        if best.is_none_or(|(c, _)| correct > c) {
            best = Some((correct, l2));
        }
    }
    best.and_then(|b| b.1)
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
    /// Features the refitted units left out, summed over units (before pruning;
    /// [`Params::feature_selection`]).
    pub features_left_out: usize,
    /// Size before pruning.
    pub before_pruning: TreeStats,
    /// Subtrees replaced by pruning.
    pub pruned: usize,
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
    /// single leaf unit (depth 0), each also with feature selection.
    fn ladder(p: &Params) -> Vec<Params> {
        let select = p.leaf_fit != LeafFit::Perceptron && !p.feature_selection;
        let variants = |q: Params| {
            let selecting = select.then(|| Params { feature_selection: true, ..q.clone() });
            std::iter::once(q).chain(selecting)
        };
        let shallower = (0..p.max_depth.min(8))
            .rev()
            .flat_map(move |max_depth| variants(Params { max_depth, ..p.clone() }));
        select.then(|| Params { feature_selection: true, ..p.clone() }).into_iter().chain(shallower).collect()
    }
}

fn ltu_n_values(space: &FeatureSpace, attr: usize) -> u16 {
    match space.inputs[attr].kind {
        InputKind::Categorical { n_values } => n_values,
        InputKind::Numeric { .. } => 2,
    }
}

impl Ltu {
    fn new(
        space: &FeatureSpace,
        n_classes: usize,
        log_base: LogBase,
        depth: usize,
        active: Vec<u32>,
        attrs: Vec<u32>,
        w: Vec<Weight>,
    ) -> Self {
        let n_rows = if n_classes > 2 { n_classes } else { 1 };
        debug_assert_eq!(w.len(), n_rows * (active.len() + 1));
        let mut offsets = Vec::with_capacity(attrs.len() + 1);
        let mut total = 0u32;
        for &a in &attrs {
            offsets.push(total);
            total += space.n_slots(a as usize) as u32;
        }
        offsets.push(total);
        Ltu {
            c_limit: log_base.floor_log(active.len() + 1),
            n_rows,
            lo: w.clone(),
            hi: w.clone(),
            pocket: w.clone(),
            w,
            active,
            c: 0,
            adjustments: 0,
            seen: 0,
            class_counts: vec![0; n_classes],
            attrs,
            offsets,
            counts: vec![0; total as usize * n_classes],
            pocket_run: 0,
            run: 0,
            pocket_current: true,
            depth,
            recent: Vec::new(),
            recent_next: 0,
        }
    }

    /// A trained-out LTU with the weights a decision node replaced (for pruning).
    fn frozen(space: &FeatureSpace, n_classes: usize, log_base: LogBase, d: &Decision) -> Self {
        let mut l = Ltu::new(
            space,
            n_classes,
            log_base,
            d.depth,
            d.prior_active.clone(),
            Vec::new(),
            d.prior_w.clone(),
        );
        l.pocket_run = 0;
        if let Some(counts) = &d.prior_counts {
            l.class_counts.clone_from(counts);
        }
        l
    }

    /// Turns the unit into a constant predicting `class` (zero weights, bias only).
    fn set_constant(&mut self, class: usize) {
        self.w.iter_mut().for_each(|w| *w = 0);
        let dim = self.active.len() + 1;
        if self.n_rows == 1 {
            self.w[dim - 1] = if class == 1 { 1 } else { -1 };
        } else {
            self.w[class * dim + dim - 1] = 1;
        }
        self.pocket.copy_from_slice(&self.w);
    }

    /// Keeps instance `f` (active features), `label` and its slots for the lookahead.
    fn remember(&mut self, f: &[i32], label: usize, slot: impl Fn(usize) -> usize) {
        let slots = self.attrs.iter().map(|&a| slot(a as usize) as u16);
        if self.recent.len() < LOOKAHEAD_ROWS {
            self.recent.push((f.to_vec(), slots.collect(), label));
        } else {
            // Full: overwrite the oldest in place (no allocation per instance).
            let (kept_f, kept_slots, kept_label) = &mut self.recent[self.recent_next];
            kept_f.copy_from_slice(f);
            kept_slots.iter_mut().zip(slots).for_each(|(k, s)| *k = s);
            *kept_label = label;
        }
        self.recent_next = (self.recent_next + 1) % LOOKAHEAD_ROWS;
    }

    /// Updates the split statistics of section 4.2.2.
    /// `slot(a)`: the count slot of the instance's value of input `a`.
    #[inline]
    fn count(&mut self, label: usize, slot: impl Fn(usize) -> usize) {
        self.seen += 1;
        self.class_counts[label] += 1;
        let k = self.class_counts.len();
        for (&a, &off) in self.attrs.iter().zip(&self.offsets) {
            let c = &mut self.counts[(off as usize + slot(a as usize)) * k + label];
            *c = c.saturating_add(1);
        }
    }

    #[inline]
    fn row_score(w: &[Weight], f: &[i32]) -> Weight {
        let (bias, terms) = w.split_last().expect("bias");
        terms.iter().zip(f).fold(*bias, |acc, (&w, &v)| acc + w * Weight::from(v))
    }

    fn predicting_weights(&self, pocket: bool) -> &[Weight] {
        if pocket && self.pocket_run > 0 {
            &self.pocket
        } else {
            &self.w
        }
    }

    /// `feature(i)`: the instance's value of feature `i` of the space. `compact`: decide as the
    /// exported leaf does under [`Params::compact_leaves`] (see [`Ltu::only_class`] and
    /// [`drop_unseen_classes`]).
    fn predict(&self, feature: impl Fn(usize) -> i32, pocket: bool, compact: bool) -> usize {
        if compact {
            if let Some(class) = self.only_class() {
                return class;
            }
        }
        let w = self.predicting_weights(pocket);
        let dim = self.active.len() + 1;
        let value = |j: usize| feature(self.active[j] as usize);
        if self.n_rows == 1 {
            let s = (0..dim - 1).fold(w[dim - 1], |acc, j| acc + w[j] * Weight::from(value(j)));
            return usize::from(s > 0);
        }
        let seen = self.class_counts.iter().filter(|&&n| n > 0).count();
        let masked = compact && seen >= 2 && seen < self.n_rows;
        let mut best: Option<(Weight, usize)> = None;
        for r in 0..self.n_rows {
            if masked && self.class_counts[r] == 0 {
                continue;
            }
            let row = &w[r * dim..(r + 1) * dim];
            let s = (0..dim - 1).fold(row[dim - 1], |acc, j| acc + row[j] * Weight::from(value(j)));
            if best.is_none_or(|(b, _)| s > b) {
                best = Some((s, r));
            }
        }
        best.map_or(0, |b| b.1)
    }

    /// The class of every training instance this LTU saw, if they were all of one class.
    fn only_class(&self) -> Option<usize> {
        let mut seen = self.class_counts.iter().enumerate().filter(|(_, &n)| n > 0);
        match (seen.next(), seen.next()) {
            (Some((class, _)), None) => Some(class),
            _ => None,
        }
    }

    /// Steps 4–6 on feature values `f`: `None` if the instance was classified correctly,
    /// otherwise adjusts `W` and returns whether some historical minimum or maximum changed.
    #[inline]
    fn correct(&mut self, f: &[i32], label: usize, pocket: bool) -> Option<bool> {
        let dim = f.len() + 1;
        // |I|², θ included; only needed when correcting.
        let norm2 = || 1 + f.iter().map(|&v| Weight::from(v) * Weight::from(v)).sum::<Weight>();
        // (row, multiplier) adjustments: W_row ← W_row − k·I.
        let mut adj = [(0usize, 0 as Weight); 2];
        let n_adj;
        if self.n_rows == 1 {
            let y = Self::row_score(&self.w, f);
            if label == 1 && y > 0 || label == 0 && y < 0 {
                self.on_correct(pocket);
                return None;
            }
            // Step 5 (negative, y ≥ 0) or step 6 (positive, y ≤ 0).
            let q = y.div_euclid(norm2());
            let k = if label == 0 { q + 1 } else { q - 1 };
            adj[0] = (0, k);
            n_adj = 1;
        } else {
            let yi = Self::row_score(&self.w[label * dim..(label + 1) * dim], f);
            let mut worst = (Weight::MIN, label);
            for r in (0..self.n_rows).filter(|&r| r != label) {
                let s = Self::row_score(&self.w[r * dim..(r + 1) * dim], f);
                if s > worst.0 {
                    worst = (s, r);
                }
            }
            // Correct iff the true row wins strictly (no tie to resolve by row order).
            if worst.0 < yi {
                self.on_correct(pocket);
                return None;
            }
            let c = (worst.0 - yi).div_euclid(2 * norm2()) + 1;
            adj = [(label, -c), (worst.1, c)];
            n_adj = 2;
        }
        self.run = 0;
        self.pocket_current = false;
        self.adjustments += 1;
        let mut changed = false;
        for &(r, k) in &adj[..n_adj] {
            let range = r * dim..(r + 1) * dim;
            let rows =
                self.w[range.clone()].iter_mut().zip(&mut self.lo[range.clone()]).zip(&mut self.hi[range]);
            // Features, then the threshold feature θ = 1.
            for (((w, lo), hi), v) in rows.zip(f.iter().map(|&v| Weight::from(v)).chain([1])) {
                *w -= k * v;
                if *w < *lo {
                    *lo = *w;
                    changed = true;
                }
                if *w > *hi {
                    *hi = *w;
                    changed = true;
                }
            }
        }
        Some(changed)
    }

    #[inline]
    fn on_correct(&mut self, pocket: bool) {
        self.run += 1;
        if pocket && self.run > self.pocket_run {
            if !self.pocket_current {
                self.pocket.copy_from_slice(&self.w);
                self.pocket_current = true;
            }
            self.pocket_run = self.run;
        }
    }

    /// Corollary 1: more vectors visited (adjustments + the initial one) than bound (1).
    fn revisited(&self) -> bool {
        let visited = u128::from(self.adjustments) + 1;
        let mut bound: u128 = 1;
        for (lo, hi) in self.lo.iter().zip(&self.hi) {
            bound = bound.saturating_mul((hi - lo + 1) as u128);
            if bound >= visited {
                return false;
            }
        }
        visited > bound
    }

    /// Section 4.2.2: the test with the lowest expected entropy `E` among the eligible inputs
    /// (categorical: one branch per value, unknowns as their own part; numeric: the best bin
    /// boundary). `None` if no test separates the instances seen into two non-empty parts.
    fn best_test(&self, space: &FeatureSpace, tests: CategoricalTests) -> Option<Test> {
        let mut best: Option<(f64, Test)> = None;
        self.scan_tests(space, tests, |e, t, _| {
            if best.is_none_or(|(b, _)| e < b - 1e-12) {
                best = Some((e, t));
            }
        });
        best.map(|(_, t)| t)
    }

    /// [`SplitChoice::Lookahead`]: each eligible input's best test by entropy, then the one with
    /// the fewest [`Ltu::lookahead_errors`] (the lower entropy on ties). Below 16 kept instances,
    /// [`Ltu::best_test`].
    fn best_test_lookahead(&self, space: &FeatureSpace, tests: CategoricalTests) -> Option<Test> {
        if self.recent.len() < 16 {
            return self.best_test(space, tests);
        }
        // Per input (scan order), its best test by entropy.
        let mut per_input: Vec<(usize, f64, Test)> = Vec::new();
        self.scan_tests(space, tests, |e, t, i| match per_input.last_mut() {
            Some(last) if last.0 == i => {
                if e < last.1 - 1e-12 {
                    *last = (i, e, t);
                }
            }
            _ => per_input.push((i, e, t)),
        });
        let mut best: Option<(usize, f64, Test)> = None;
        for (_, e, t) in per_input {
            let errors = self.lookahead_errors(space, t);
            if best.is_none_or(|(b, be, _)| errors < b || (errors == b && e < be - 1e-12)) {
                best = Some((errors, e, t));
            }
        }
        best.map(|(_, _, t)| t)
    }

    /// Errors of a short perceptron run (linear machine for more than two classes) on each
    /// branch of `test` over the kept instances, summed: how well the LTUs the split would
    /// create could fit. A categorical test's own features leave the branches' units, as in
    /// [`PerceptronTree::split`].
    fn lookahead_errors(&self, space: &FeatureSpace, test: Test) -> usize {
        let attr = match test {
            Test::Categorical { attr } | Test::Value { attr, .. } | Test::Threshold { attr, .. } => attr,
        };
        let Some(ai) = self.attrs.iter().position(|&a| a as usize == attr) else { return usize::MAX };
        let keep: Vec<usize> = (0..self.active.len())
            .filter(|&j| {
                !matches!(test, Test::Categorical { .. })
                    || space.feature_attr[self.active[j] as usize] != Some(attr)
            })
            .collect();
        let branch = |slots: &[u16]| -> usize {
            let s = usize::from(slots[ai]);
            match test {
                Test::Categorical { .. } => s,
                Test::Value { value, .. } => usize::from(s as i32 != value),
                Test::Threshold { threshold, .. } => {
                    usize::from(space.edges[attr].get(s).copied().unwrap_or(i32::MAX) > threshold)
                }
            }
        };
        let mut parts: Vec<Vec<usize>> = Vec::new();
        for (i, (_, slots, _)) in self.recent.iter().enumerate() {
            let b = branch(slots);
            if parts.len() <= b {
                parts.resize(b + 1, Vec::new());
            }
            parts[b].push(i);
        }
        parts.iter().map(|p| self.perceptron_errors(p, &keep)).sum()
    }

    /// Fewest mistakes in one epoch of up to [`LOOKAHEAD_EPOCHS`] perceptron epochs over kept
    /// instances `rows`, on the active features `keep` and a bias.
    fn perceptron_errors(&self, rows: &[usize], keep: &[usize]) -> usize {
        let dim = keep.len() + 1;
        let mut w = vec![0i64; self.n_rows * dim];
        let x = |f: &[i32], j: usize| if j < keep.len() { i64::from(f[keep[j]]) } else { 1 };
        let score = |w: &[i64], f: &[i32]| (0..dim).map(|j| w[j] * x(f, j)).sum::<i64>();
        let mut best = rows.len();
        for _ in 0..LOOKAHEAD_EPOCHS {
            let mut errors = 0;
            for &r in rows {
                let (f, _, y) = &self.recent[r];
                if self.n_rows == 1 {
                    let positive = score(&w, f) > 0;
                    if positive != (*y == 1) {
                        errors += 1;
                        let sign = if *y == 1 { 1 } else { -1 };
                        for (j, wj) in w.iter_mut().enumerate() {
                            *wj += sign * x(f, j);
                        }
                    }
                } else {
                    let mut top = (i64::MIN, 0);
                    for o in 0..self.n_rows {
                        let s = score(&w[o * dim..(o + 1) * dim], f);
                        if s > top.0 {
                            top = (s, o);
                        }
                    }
                    if top.1 != *y {
                        errors += 1;
                        for j in 0..dim {
                            let v = x(f, j);
                            w[*y * dim + j] += v;
                            w[top.1 * dim + j] -= v;
                        }
                    }
                }
            }
            best = best.min(errors);
            if errors == 0 {
                break;
            }
        }
        best
    }

    /// Calls `consider(E, test, input index in attrs)` for every test section 4.2.2 weighs.
    fn scan_tests(
        &self,
        space: &FeatureSpace,
        tests: CategoricalTests,
        mut consider: impl FnMut(f64, Test, usize),
    ) {
        let k = self.class_counts.len();
        let total = self.seen as f64;
        let mut left = vec![0u64; k];
        let mut right = vec![0u64; k];
        let mut slot = vec![0u64; k];
        for (i, &a) in self.attrs.iter().enumerate() {
            let a = a as usize;
            let (start, end) = (self.offsets[i] as usize, self.offsets[i + 1] as usize);
            let counts = &self.counts[start * k..end * k];
            let slot_n = |s: usize| counts[s * k..(s + 1) * k].iter().map(|&c| u64::from(c)).sum::<u64>();
            let nonempty = (0..end - start).filter(|&s| slot_n(s) > 0).count();
            if nonempty < 2 {
                continue;
            }
            let mut consider = |e: f64, t: Test| consider(e, t, i);
            match space.inputs[a].kind {
                InputKind::Categorical { n_values } if tests == CategoricalTests::Value => {
                    let all: Vec<u64> = (0..k)
                        .map(|r| (0..end - start).map(|s| u64::from(counts[s * k + r])).sum())
                        .collect();
                    for v in 0..usize::from(n_values) {
                        for (r, (l, o)) in left.iter_mut().zip(right.iter_mut()).enumerate() {
                            *l = u64::from(counts[v * k + r]);
                            *o = all[r] - *l;
                        }
                        let (nl, nr) = (left.iter().sum::<u64>(), right.iter().sum::<u64>());
                        if nl == 0 || nr == 0 {
                            continue;
                        }
                        let e = (nl as f64 * entropy(&left, EntropyUnit::Nats)
                            + nr as f64 * entropy(&right, EntropyUnit::Nats))
                            / total;
                        consider(e, Test::Value { attr: a, value: v as i32 });
                    }
                }
                InputKind::Categorical { .. } => {
                    let mut e = 0.0;
                    for s in 0..end - start {
                        for (d, &c) in slot.iter_mut().zip(&counts[s * k..(s + 1) * k]) {
                            *d = u64::from(c);
                        }
                        e += slot.iter().sum::<u64>() as f64 / total * entropy(&slot, EntropyUnit::Nats);
                    }
                    consider(e, Test::Categorical { attr: a });
                }
                InputKind::Numeric { .. } => {
                    left.iter_mut().for_each(|c| *c = 0);
                    for (r, c) in right.iter_mut().enumerate() {
                        *c = (0..end - start).map(|s| u64::from(counts[s * k + r])).sum();
                    }
                    for (b, &edge) in space.edges[a].iter().enumerate() {
                        for r in 0..k {
                            let c = u64::from(counts[b * k + r]);
                            left[r] += c;
                            right[r] -= c;
                        }
                        let (nl, nr) = (left.iter().sum::<u64>(), right.iter().sum::<u64>());
                        if nl == 0 || nr == 0 {
                            continue;
                        }
                        let e = (nl as f64 * entropy(&left, EntropyUnit::Nats)
                            + nr as f64 * entropy(&right, EntropyUnit::Nats))
                            / total;
                        consider(e, Test::Threshold { attr: a, threshold: edge });
                    }
                }
            }
        }
    }

    fn to_unit(&self, remap: &[usize], n_classes: usize, pocket: bool) -> Unit {
        let w = self.predicting_weights(pocket);
        let dim = self.active.len() + 1;
        Unit {
            terms: self.active.iter().map(|&f| remap[f as usize]).collect(),
            rows: w.chunks(dim).map(<[Weight]>::to_vec).collect(),
            classes: if self.n_rows == 1 { vec![0, 1] } else { (0..n_classes).collect() },
        }
    }
}

/// Removes a linear machine's rows of classes no training instance at its leaf had (they could
/// only ever be wrong on the training data); with two rows left it becomes a binary LTU over the
/// row difference, which decides exactly as the two-row argmax (ties to the first row).
fn drop_unseen_classes(unit: &mut Unit, class_counts: &[u64]) {
    if unit.rows.len() < 3 {
        return;
    }
    let keep: Vec<usize> =
        (0..unit.rows.len()).filter(|&o| class_counts.get(unit.classes[o]).is_some_and(|&n| n > 0)).collect();
    if keep.len() < 2 || keep.len() == unit.rows.len() {
        return;
    }
    if keep.len() == 2 {
        let (a, b) = (keep[0], keep[1]);
        let row: Vec<i64> = unit.rows[b].iter().zip(&unit.rows[a]).map(|(x, y)| x - y).collect();
        unit.classes = vec![unit.classes[a], unit.classes[b]];
        unit.rows = vec![row];
    } else {
        unit.rows = keep.iter().map(|&o| unit.rows[o].clone()).collect();
        unit.classes = keep.iter().map(|&o| unit.classes[o]).collect();
    }
}

impl fmt::Display for PerceptronTree {
    /// An indented listing: decision nodes with their tests, LTUs with their weights per
    /// feature (like Figure 2 of the paper).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut stack = vec![(0usize, 0usize, String::new())];
        while let Some((id, depth, label)) = stack.pop() {
            let pad = "  ".repeat(depth);
            match &self.nodes[id] {
                NodeState::Empty { .. } => writeln!(f, "{pad}{label}empty")?,
                NodeState::Ltu(l) => {
                    let w = l.predicting_weights(self.pocket);
                    let dim = l.active.len() + 1;
                    write!(f, "{pad}{label}LTU")?;
                    for row in w.chunks(dim) {
                        write!(f, " [")?;
                        for (j, &f_idx) in l.active.iter().enumerate() {
                            let name = match &self.space.features[f_idx as usize] {
                                Feature::Equals { attr, value } => format!("x{attr}={value}"),
                                Feature::Numeric { attr, .. } => format!("x{attr}"),
                                Feature::Greater { attr, value } => format!("x{attr}>{value}"),
                                Feature::Conjunction(_) => format!("f{f_idx}"),
                            };
                            write!(f, "{name}:{} ", row[j])?;
                        }
                        write!(f, "θ:{}]", row[dim - 1])?;
                    }
                    writeln!(f)?;
                }
                NodeState::Decision(d) => {
                    match d.test {
                        Test::Categorical { attr } => writeln!(f, "{pad}{label}test x{attr}")?,
                        Test::Value { attr, value } => writeln!(f, "{pad}{label}test x{attr} = {value}")?,
                        Test::Threshold { attr, threshold } => {
                            writeln!(f, "{pad}{label}test x{attr} <= {threshold}")?
                        }
                    }
                    for (b, c) in d.children.iter().enumerate().rev() {
                        let lab = match d.test {
                            Test::Categorical { attr } => format!("x{attr}={b}: "),
                            Test::Value { .. } | Test::Threshold { .. } => {
                                (if b == 0 { "yes: " } else { "no: " }).to_string()
                            }
                        };
                        match c {
                            Some(c) => stack.push((*c, depth + 1, lab)),
                            None => writeln!(f, "{pad}  {lab}(no branch: class {})", d.fallback)?,
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{LogBase, Order, SplitRule};

    #[test]
    fn option_names_round_trip() {
        crate::names::assert_round_trips(Order::ALL);
        crate::names::assert_round_trips(SplitRule::ALL);
        crate::names::assert_round_trips(LogBase::ALL);
        assert_eq!(Order::ALL, [Order::Cyclic, Order::Shuffled]);
        assert_eq!(SplitRule::Corollary1.to_string(), "corollary1");
        assert_eq!(LogBase::Two.name(), "two");
    }
}
