//! FRINGE (Pagallo 1989, *Learning DNF by Decision Trees*): a decision tree that constructs its
//! own Boolean features.
//!
//! Each iteration grows an ID3 tree by mutual information on two thirds of the learning rows (a
//! branch stops when no variable has positive mutual information with the class), prunes it by
//! reduced-error pruning on the other third (Quinlan 1987; [`Params::paper`]; by default, beyond
//! the paper, on up to 10,000 rows the tree grows on every row and is pruned by C4.5's error
//! estimate, [`Params::prune_fraction`]), then reads new features off the
//! tree's fringe: for every positive leaf at depth ≥ 2, the conjunction of the tests at its two
//! nearest ancestors (the variable if the path goes right, its negation if it goes left). The
//! features join the variable set, the rows are re-described and the next tree is grown. The
//! process stops when no new feature appears or [`Params::max_variables`] is reached; after `k`
//! iterations a feature can hold `2^k` literals.
//!
//! Variants the paper states ([`FeatureRule`], [`Proposal`]): the CNF dual (negative leaves,
//! disjunctions of the negated path tests), the symmetric rule (every leaf, any number of
//! classes), continuous attributes (every threshold test `x > t` is a binary variable) and the
//! random baseline (conjunctions of two random variables, as many per iteration as FRINGE
//! proposes).
//!
//! The exported model ([`Fringe::to_model_spec`]) is a tree of the runtime's format made only of
//! tests on raw inputs: `x > t` is a [`Node::Threshold`], `x == v` a [`Node::Categorical`] (or,
//! on an input with more than 12 values, two thresholds). A constructed feature is a chain of
//! such nodes, one per literal, that share their exits (tree links may share a child as long as
//! they point forward): a feature flattened to `C ∧ ¬D₁ ∧ … ∧ ¬Dₖ` tests the literals of `C`,
//! then each `Dᵢ` in turn (itself such a chain whose "holds" exit is the feature's "fails"). The
//! runtime therefore evaluates a FRINGE model with its tree walk alone: no unit, no feature
//! table, no weights. Design notes: `docs/FRINGE.md`.
//!
//! Entry points: [`Fringe::learn`] on raw rows (every iteration's tree kept, the first being the
//! plain ID3 tree), [`train`] from an [`learn::Context`](crate::learn::Context), and
//! [`FringeLearner`], the learner contract for the registry in `crate::learn`.
//!
//! ```
//! use ltu::model::{InputKind, InputSpec};
//! use ltu::learners::fringe::{Fringe, Params};
//!
//! // x0·x1 + x2·x3 over 8 Boolean inputs (raw 0/1): 1024 rows of scrambled bits.
//! let inputs = vec![InputSpec { kind: InputKind::Categorical { n_values: 2 }, missing: 2 }; 8];
//! let rows: Vec<Vec<i32>> =
//!     (0..1024).map(|r: i32| (0..8).map(|i| (r * 37 + (r >> 4) * 11 >> i) & 1).collect()).collect();
//! let labels: Vec<usize> =
//!     rows.iter().map(|x| usize::from(x[0] & x[1] == 1 || x[2] & x[3] == 1)).collect();
//! let model = Fringe::learn(&inputs, &rows, &labels, 2, &Params::default(), 0)?;
//! assert!(rows.iter().zip(&labels).all(|(x, &y)| model.predict(x) == y));
//! assert!(model.tree().decision_nodes() <= model.plain_tree().decision_nodes());
//! let spec = model.to_model_spec()?;
//! assert!(rows.iter().all(|x| spec.predict(x) == model.predict(x)));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::HashSet;

use crate::learn::{Context, Learner, TrainError};
use crate::model::{
    ExportError, InputKind, InputSpec, Literal, LiteralOp, ModelSpec, Node, Structure, WeightKind,
};
use crate::rng::Rng;

use super::tree::{entropy, majority, pessimistic_errors, EntropyUnit};

/// Which leaves give features.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeatureRule {
    /// [`FeatureRule::Dnf`] for two classes, [`FeatureRule::Symmetric`] for more.
    Auto,
    /// The paper's rule: leaves of [`Params::positive_class`], conjunction of the two path tests.
    Dnf,
    /// The CNF dual: leaves of the other classes, disjunction of the two negated path tests.
    Cnf,
    /// Every leaf, whatever its class (the paper's symmetric and multi-class rule).
    Symmetric,
}

/// How new features are proposed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Proposal {
    /// The paper's find-feature heuristic on the tree's fringe.
    Fringe,
    /// The paper's random baseline: as many features as the fringe heuristic would add this
    /// iteration, each the conjunction of two variables drawn at random from the current set.
    Random,
}

/// FRINGE options.
#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    /// Which leaves define features.
    pub rule: FeatureRule,
    /// Fringe heuristic or random baseline.
    pub proposal: Proposal,
    /// The positive class of [`FeatureRule::Dnf`] and [`FeatureRule::Cnf`] (default 1: the
    /// second class).
    pub positive_class: usize,
    /// Share of the learning rows held out for reduced-error pruning (the paper's 1/3, in
    /// [`Params::paper`]); `Some(0.0)`: the trees grow on every row and are pruned by
    /// [`Params::prune_z`] instead. `None`, the default: that error-based pruning on up to
    /// [`crate::data::split::HOLD_OUT_PRUNING_ROWS`] learning rows (more accurate on 14 of the 17
    /// benchmark datasets, less on 2; docs/FRINGE.md), the paper's held-out third on more
    /// (error-based pruning keeps far too much of a noisy tree grown on 100,000 rows).
    pub prune_fraction: Option<f64>,
    /// Beyond the paper, used when `prune_fraction` is 0: error-based pruning on the growing rows
    /// themselves (C4.5; [`pessimistic_errors`] with this `z`): a subtree
    /// becomes a leaf of its majority class when the leaf's pessimistic error estimate is not
    /// above the sum of its leaves' estimates. 0 does not prune.
    pub prune_z: f64,
    /// The iteration stops adding features at this many variables, primitive ones included
    /// (primitive variables are never dropped: with more of them than this, the plain tree is
    /// the final one and [`Fringe::stop`] says [`Stop::MaxVariables`]).
    pub max_variables: usize,
    /// At most this many trees are grown (a safeguard; the paper iterates until no new feature).
    pub max_iterations: usize,
    /// Most candidate thresholds `x > t` per numeric attribute: the class-boundary cuts of the
    /// learning values (Fayyad & Irani), or this many quantiles of them when there are more.
    pub numeric_thresholds: usize,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            rule: FeatureRule::Auto,
            proposal: Proposal::Fringe,
            positive_class: 1,
            prune_fraction: None,
            prune_z: 0.6745,
            max_variables: 1000,
            max_iterations: 30,
            numeric_thresholds: 32,
        }
    }
}

impl Params {
    /// The paper's configuration: 2/3 of the rows grow each tree, 1/3 prune it (reduced error).
    pub fn paper() -> Self {
        Params { prune_fraction: Some(1.0 / 3.0), prune_z: 0.0, ..Params::default() }
    }

    /// The share of `m` learning rows held out for reduced-error pruning (0: error-based pruning
    /// on the growing rows, see [`Params::prune_fraction`]).
    pub fn prune_fraction_for(&self, m: usize) -> f64 {
        self.prune_fraction.unwrap_or(if m > crate::data::split::HOLD_OUT_PRUNING_ROWS {
            1.0 / 3.0
        } else {
            0.0
        })
    }

    /// Checks the option values (not the data).
    ///
    /// # Errors
    /// [`TrainError::InvalidOption`] naming the first bad value.
    pub fn check(&self) -> Result<(), TrainError> {
        let bad = |s: String| Err(TrainError::InvalidOption(s));
        if let Some(f) = self.prune_fraction.filter(|f| !(0.0..0.9).contains(f)) {
            return bad(format!("fringe prune fraction must be in [0, 0.9), got {f}"));
        }
        if !(0.0..=10.0).contains(&self.prune_z) {
            return bad(format!("fringe prune z must be in [0, 10], got {}", self.prune_z));
        }
        if !(1..=60_000).contains(&self.max_variables) {
            return bad(format!("fringe max variables must be in 1..=60000, got {}", self.max_variables));
        }
        if !(1..=1000).contains(&self.max_iterations) {
            return bad(format!("fringe max iterations must be in 1..=1000, got {}", self.max_iterations));
        }
        if !(1..=4096).contains(&self.numeric_thresholds) {
            return bad(format!(
                "fringe numeric thresholds must be in 1..=4096, got {}",
                self.numeric_thresholds
            ));
        }
        Ok(())
    }
}

/// One operand of a constructed feature: a variable, or its negation when `positive` is false.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Operand {
    /// Index of an earlier variable.
    pub var: usize,
    /// The variable itself (`true`, the path went right) or its negation.
    pub positive: bool,
}

/// A Boolean variable: a primitive test on a raw input, or a feature built from two earlier
/// variables.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Variable {
    /// `x == value` (categorical) or `x > value` (numeric): a [`Literal`] with op `Eq` or `Gt`.
    Primitive(Literal),
    /// Both operands hold.
    And(Operand, Operand),
    /// At least one operand holds (the CNF dual).
    Or(Operand, Operand),
}

/// A node of a learned tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TreeNode {
    /// Predicts `class`.
    Leaf {
        /// The majority class of the growing rows that reached it.
        class: usize,
    },
    /// Tests variable `var`: false goes `left`, true goes `right`.
    Split {
        /// Tested variable.
        var: usize,
        /// Majority class of the growing rows that reached the node (its leaf if pruned).
        class: usize,
        /// Child when the variable is false.
        left: usize,
        /// Child when it is true.
        right: usize,
    },
}

/// A decision tree over [`Variable`]s; node 0 is the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tree {
    /// The nodes, children after their parent.
    pub nodes: Vec<TreeNode>,
}

impl Tree {
    /// Internal (decision) nodes: the paper's size.
    pub fn decision_nodes(&self) -> usize {
        self.nodes.iter().filter(|n| matches!(n, TreeNode::Split { .. })).count()
    }

    /// The class for variable values `values` (indexed by variable).
    pub fn predict(&self, values: &[bool]) -> usize {
        let mut i = 0;
        loop {
            match self.nodes[i] {
                TreeNode::Leaf { class } => return class,
                TreeNode::Split { var, left, right, .. } => i = if values[var] { right } else { left },
            }
        }
    }

    /// Distinct variables tested.
    pub fn tested_variables(&self) -> Vec<usize> {
        let mut v: Vec<usize> = self
            .nodes
            .iter()
            .filter_map(|n| match n {
                TreeNode::Split { var, .. } => Some(*var),
                TreeNode::Leaf { .. } => None,
            })
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// What one iteration did.
#[derive(Debug, Clone)]
pub struct Iteration {
    /// Variables the tree could test.
    pub variables: usize,
    /// The pruned tree.
    pub tree: Tree,
    /// Errors of the pruned tree on the pruning rows.
    pub prune_errors: usize,
    /// Features added after this tree (0 for the last).
    pub new_features: usize,
}

/// Why the iteration stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// The last tree proposed no new feature.
    NoNewFeature,
    /// [`Params::max_variables`] was reached.
    MaxVariables,
    /// [`Params::max_iterations`] trees were grown.
    MaxIterations,
}

/// A learned FRINGE model: the variables and the final tree, plus every iteration's tree.
#[derive(Debug, Clone)]
pub struct Fringe {
    /// Raw inputs.
    pub inputs: Vec<InputSpec>,
    /// Number of classes.
    pub n_classes: usize,
    /// Primitive variables first, then constructed features in the order they were added.
    pub variables: Vec<Variable>,
    /// Every iteration; the first tree is the plain (ID3 + reduced-error pruning) tree over the
    /// primitive variables, the last is the final hypothesis.
    pub iterations: Vec<Iteration>,
    /// Why it stopped.
    pub stop: Stop,
    /// Learning rows held out for reduced-error pruning (0: the trees grew on every row).
    pub prune_rows: usize,
}

/// Bit set over rows.
type Bits = Vec<u64>;

fn bit(b: &[u64], r: usize) -> bool {
    b[r >> 6] >> (r & 63) & 1 == 1
}

/// The primitive variables of a set of inputs: `x == v` per categorical value (one variable
/// `x == 1` for a two-valued attribute), `x > t` per candidate threshold of a numeric one.
/// Variables constant over `rows` are left out.
fn primitives(
    inputs: &[InputSpec],
    rows: &[Vec<i32>],
    labels: &[usize],
    max_thresholds: usize,
) -> Vec<Literal> {
    let mut out = Vec::new();
    for (attr, inp) in inputs.iter().enumerate() {
        let cands: Vec<Literal> = match inp.kind {
            InputKind::Categorical { n_values } => {
                let values: Vec<i32> =
                    if n_values == 2 { vec![1] } else { (0..i32::from(n_values)).collect() };
                values.into_iter().map(|value| Literal { attr, op: LiteralOp::Eq, value }).collect()
            }
            InputKind::Numeric { .. } => {
                // Distinct values, each with its one class or `None` when its rows disagree.
                let mut pairs: Vec<(i32, usize)> =
                    rows.iter().zip(labels).map(|(r, &y)| (r[attr], y)).collect();
                pairs.sort_unstable();
                let mut vals: Vec<(i32, Option<usize>)> = Vec::new();
                for (v, y) in pairs {
                    match vals.last_mut() {
                        Some((last, class)) if *last == v => {
                            if *class != Some(y) {
                                *class = None;
                            }
                        }
                        _ => vals.push((v, Some(y))),
                    }
                }
                // Boundary cuts (Fayyad & Irani 1992): between two values unless both hold rows
                // of one same class only. The entropy-best cut of any node lies at one, so the
                // others only cost time; beyond `max_thresholds`, evenly spaced ones by rank.
                let cuts: Vec<usize> = (0..vals.len().saturating_sub(1))
                    .filter(|&i| vals[i].1.is_none() || vals[i].1 != vals[i + 1].1)
                    .collect();
                let picks: Vec<usize> = if cuts.len() <= max_thresholds {
                    cuts
                } else {
                    // The middle cut of each of `max_thresholds` equal runs of them (never the
                    // extreme ones, which would split off a single value of noisy data).
                    let n = cuts.len();
                    let mut p: Vec<usize> =
                        (0..max_thresholds).map(|k| cuts[(2 * k + 1) * n / (2 * max_thresholds)]).collect();
                    p.dedup();
                    p
                };
                // `x > t` with `t` halfway to the next learning value (rounded down), as CART
                // places its thresholds: the same split of the learning rows as `x > vals[i]`,
                // but unseen values in the gap go to the nearer side.
                picks
                    .into_iter()
                    .map(|i| {
                        let (lo, hi) = (i64::from(vals[i].0), i64::from(vals[i + 1].0));
                        let value = i32::try_from(lo + (hi - lo) / 2).unwrap_or(vals[i].0);
                        Literal { attr, op: LiteralOp::Gt, value }
                    })
                    .collect()
            }
        };
        for l in cands {
            let n_true = rows.iter().filter(|x| l.holds(x)).count();
            if n_true > 0 && n_true < rows.len() {
                out.push(l);
            }
        }
    }
    out
}

/// A numeric threshold `x > t`'s margin over some rows: the gap between the nearest values on
/// either side of `t`, and `t`'s distance to the nearer of them, both over the attribute's
/// spread; `(0, 0)` for any other variable. The learner prefers, among equally good splits, the
/// widest margin, as CART's midpoints and a maximum-margin classifier do.
fn margin<'r>(v: &Variable, rows: impl Iterator<Item = &'r [i32]>, spread: &[f64]) -> (f64, f64) {
    let Variable::Primitive(Literal { attr, op: LiteralOp::Gt, value }) = *v else {
        return (0.0, 0.0);
    };
    let spread = spread[attr];
    if spread <= 0.0 {
        return (0.0, 0.0);
    }
    let t = i64::from(value);
    let (mut below, mut above) = (i64::MIN, i64::MAX);
    for x in rows {
        let x = i64::from(x[attr]);
        if x > t {
            above = above.min(x);
        } else {
            below = below.max(x);
        }
    }
    if below == i64::MIN || above == i64::MAX {
        return (0.0, 0.0);
    }
    ((above - below) as f64 / spread, (t - below).min(above - t) as f64 / spread)
}

/// Per attribute, the standard deviation of its learning values (0 for a categorical one).
fn spreads(inputs: &[InputSpec], rows: &[Vec<i32>]) -> Vec<f64> {
    let n = rows.len().max(1) as f64;
    inputs
        .iter()
        .enumerate()
        .map(|(a, inp)| match inp.kind {
            InputKind::Categorical { .. } => 0.0,
            InputKind::Numeric { .. } => {
                let mean = rows.iter().map(|r| f64::from(r[a])).sum::<f64>() / n;
                (rows.iter().map(|r| (f64::from(r[a]) - mean).powi(2)).sum::<f64>() / n).sqrt()
            }
        })
        .collect()
}

/// The variable values of the learning rows, one bit set per variable.
struct Values {
    n_rows: usize,
    bits: Vec<Bits>,
    /// Truth vectors already present (and their complements), to skip equivalent features.
    seen: HashSet<Bits>,
}

impl Values {
    fn words(&self) -> usize {
        self.n_rows.div_ceil(64)
    }

    fn operand(&self, o: Operand) -> Bits {
        let b = &self.bits[o.var];
        if o.positive {
            b.clone()
        } else {
            self.complement(b)
        }
    }

    fn complement(&self, b: &[u64]) -> Bits {
        let mut c: Bits = b.iter().map(|w| !w).collect();
        let tail = self.n_rows & 63;
        if tail != 0 {
            if let Some(last) = c.last_mut() {
                *last &= (1u64 << tail) - 1;
            }
        }
        c
    }

    fn compute(&self, v: &Variable, rows: &[Vec<i32>]) -> Bits {
        match v {
            Variable::Primitive(l) => {
                let mut b = vec![0u64; self.words()];
                for (r, x) in rows.iter().enumerate() {
                    if l.holds(x) {
                        b[r >> 6] |= 1 << (r & 63);
                    }
                }
                b
            }
            Variable::And(a, c) => {
                self.operand(*a).iter().zip(self.operand(*c)).map(|(x, y)| x & y).collect()
            }
            Variable::Or(a, c) => self.operand(*a).iter().zip(self.operand(*c)).map(|(x, y)| x | y).collect(),
        }
    }

    /// Whether `v` is neither constant over the rows nor equal (or complementary) to a variable
    /// already present.
    fn is_new(&self, v: &Variable, rows: &[Vec<i32>]) -> bool {
        let b = self.compute(v, rows);
        let ones: u32 = b.iter().map(|w| w.count_ones()).sum();
        ones > 0 && (ones as usize) < self.n_rows && !self.seen.contains(&b)
    }

    /// Adds `v` unless it is constant over the rows or equal (or complementary) to a variable
    /// already present; returns whether it was added.
    fn try_add(&mut self, v: &Variable, rows: &[Vec<i32>]) -> bool {
        let b = self.compute(v, rows);
        let ones: u32 = b.iter().map(|w| w.count_ones()).sum();
        if ones == 0 || ones as usize == self.n_rows || self.seen.contains(&b) {
            return false;
        }
        let c = self.complement(&b);
        self.seen.insert(c);
        self.seen.insert(b.clone());
        self.bits.push(b);
        true
    }
}

/// ID3 growth by mutual information, then reduced-error pruning.
struct Grower<'a> {
    values: &'a Values,
    labels: &'a [usize],
    n_classes: usize,
    nodes: Vec<TreeNode>,
    /// The variables behind `values` and the learning rows' raw inputs, for the tie-break.
    variables: &'a [Variable],
    x: &'a [Vec<i32>],
    /// Per attribute, the spread of its learning values (0 for categorical ones).
    spread: Vec<f64>,
}

impl Grower<'_> {
    fn class_counts(&self, rows: &[usize]) -> Vec<u64> {
        let mut c = vec![0u64; self.n_classes];
        for &r in rows {
            c[self.labels[r]] += 1;
        }
        c
    }

    /// Per variable, class counts of the rows where it is true.
    fn true_counts(&self, rows: &[usize]) -> Vec<Vec<u64>> {
        let k = self.n_classes;
        let words = self.values.words();
        let mut out = vec![vec![0u64; k]; self.values.bits.len()];
        if rows.len() >= words * k {
            // Large node: popcounts of (variable & node rows of class c).
            let mut masks = vec![vec![0u64; words]; k];
            for &r in rows {
                masks[self.labels[r]][r >> 6] |= 1 << (r & 63);
            }
            for (b, o) in self.values.bits.iter().zip(&mut out) {
                for (c, m) in masks.iter().enumerate() {
                    o[c] = b.iter().zip(m).map(|(x, y)| u64::from((x & y).count_ones())).sum();
                }
            }
        } else {
            for (b, o) in self.values.bits.iter().zip(&mut out) {
                for &r in rows {
                    if bit(b, r) {
                        o[self.labels[r]] += 1;
                    }
                }
            }
        }
        out
    }

    fn grow(&mut self, rows: &[usize]) -> usize {
        let counts = self.class_counts(rows);
        let class = majority(&counts);
        let id = self.nodes.len();
        self.nodes.push(TreeNode::Leaf { class });
        let n = rows.len() as u64;
        let h = entropy(&counts, EntropyUnit::Bits);
        if h <= 0.0 {
            return id;
        }
        let mut gains: Vec<(f64, usize)> = Vec::new();
        for (v, t) in self.true_counts(rows).iter().enumerate() {
            let nt: u64 = t.iter().sum();
            if nt == 0 || nt == n {
                continue;
            }
            let f: Vec<u64> = counts.iter().zip(t).map(|(a, b)| a - b).collect();
            let cond = (nt as f64 * entropy(t, EntropyUnit::Bits)
                + (n - nt) as f64 * entropy(&f, EntropyUnit::Bits))
                / n as f64;
            let mi = h - cond;
            if mi > 1e-12 {
                gains.push((mi, v));
            }
        }
        let Some(top) = gains.iter().map(|g| g.0).reduce(f64::max) else { return id };
        // Among the variables of the best gain (ties are common on small data, where many
        // thresholds split a node's rows alike), the one whose threshold lies farthest from the
        // node's rows on either side, relative to its attribute's spread: the widest margin.
        let mut var = usize::MAX;
        let mut best_margin = (f64::NEG_INFINITY, f64::NEG_INFINITY);
        for &(mi, v) in &gains {
            if mi >= top - 1e-12 {
                let m = self.margin(v, rows);
                if m > best_margin {
                    (var, best_margin) = (v, m);
                }
            }
        }
        let b = &self.values.bits[var];
        let (t, f): (Vec<usize>, Vec<usize>) = rows.iter().partition(|&&r| bit(b, r));
        let left = self.grow(&f);
        let right = self.grow(&t);
        self.nodes[id] = TreeNode::Split { var, class, left, right };
        id
    }

    /// [`margin`] of variable `var` over the node's rows.
    fn margin(&self, var: usize, rows: &[usize]) -> (f64, f64) {
        margin(&self.variables[var], rows.iter().map(|&r| self.x[r].as_slice()), &self.spread)
    }

    /// Reduced-error pruning, bottom-up: a subtree becomes a leaf of its majority class when that
    /// makes no more errors on the pruning rows reaching it. Returns the errors of node `id`.
    fn prune(&mut self, id: usize, rows: &[usize]) -> usize {
        match self.nodes[id] {
            TreeNode::Leaf { class } => rows.iter().filter(|&&r| self.labels[r] != class).count(),
            TreeNode::Split { var, class, left, right } => {
                let b = &self.values.bits[var];
                let (t, f): (Vec<usize>, Vec<usize>) = rows.iter().partition(|&&r| bit(b, r));
                let sub = self.prune(left, &f) + self.prune(right, &t);
                let as_leaf = rows.iter().filter(|&&r| self.labels[r] != class).count();
                if as_leaf <= sub {
                    self.nodes[id] = TreeNode::Leaf { class };
                    as_leaf
                } else {
                    sub
                }
            }
        }
    }

    /// Error-based pruning on the growing rows (C4.5), bottom-up: a subtree becomes a leaf of its
    /// majority class when the leaf's pessimistic error estimate is not above the sum of its
    /// leaves'. Returns the estimate of node `id`.
    fn prune_pessimistic(&mut self, id: usize, rows: &[usize], z: f64) -> f64 {
        let estimate = |g: &Self, class: usize, rows: &[usize]| {
            let e = rows.iter().filter(|&&r| g.labels[r] != class).count();
            pessimistic_errors(e as f64, rows.len() as f64, z)
        };
        match self.nodes[id] {
            TreeNode::Leaf { class } => estimate(self, class, rows),
            TreeNode::Split { var, class, left, right } => {
                let b = &self.values.bits[var];
                let (t, f): (Vec<usize>, Vec<usize>) = rows.iter().partition(|&&r| bit(b, r));
                let sub = self.prune_pessimistic(left, &f, z) + self.prune_pessimistic(right, &t, z);
                let as_leaf = estimate(self, class, rows);
                if as_leaf <= sub + 1e-9 {
                    self.nodes[id] = TreeNode::Leaf { class };
                    as_leaf
                } else {
                    sub
                }
            }
        }
    }

    /// The reachable nodes renumbered from 0.
    fn compact(&self) -> Tree {
        let mut nodes = Vec::new();
        self.copy(0, &mut nodes);
        Tree { nodes }
    }

    fn copy(&self, id: usize, out: &mut Vec<TreeNode>) -> usize {
        let me = out.len();
        out.push(self.nodes[id].clone());
        if let TreeNode::Split { var, class, left, right } = self.nodes[id] {
            let l = self.copy(left, out);
            let r = self.copy(right, out);
            out[me] = TreeNode::Split { var, class, left: l, right: r };
        }
        me
    }
}

/// The find-feature heuristic: one feature per selected leaf at depth ≥ 2, from the tests at
/// its parent and grandparent, in leaf order (left to right).
fn fringe_features(tree: &Tree, rule: FeatureRule, positive: usize) -> Vec<Variable> {
    let mut out = Vec::new();
    let mut path: Vec<Operand> = Vec::new();
    walk(tree, 0, &mut path, &mut |class, path| {
        let [.., gp, p] = path else { return };
        let pair = if p <= gp { (*p, *gp) } else { (*gp, *p) };
        let neg = |o: Operand| Operand { var: o.var, positive: !o.positive };
        let f = match rule {
            FeatureRule::Dnf if class == positive => Variable::And(pair.0, pair.1),
            FeatureRule::Cnf if class != positive => Variable::Or(neg(pair.0), neg(pair.1)),
            FeatureRule::Symmetric | FeatureRule::Auto => Variable::And(pair.0, pair.1),
            _ => return,
        };
        out.push(f);
    });
    out
}

fn walk(tree: &Tree, id: usize, path: &mut Vec<Operand>, leaf: &mut impl FnMut(usize, &[Operand])) {
    match tree.nodes[id] {
        TreeNode::Leaf { class } => leaf(class, path),
        TreeNode::Split { var, left, right, .. } => {
            path.push(Operand { var, positive: false });
            walk(tree, left, path, leaf);
            path.pop();
            path.push(Operand { var, positive: true });
            walk(tree, right, path, leaf);
            path.pop();
        }
    }
}

impl Fringe {
    /// Learns FRINGE from raw rows (`rows[i][a]`: the raw value of input `a`, as the runtime
    /// reads it) and class indices `labels` in `0..n_classes`.
    ///
    /// # Errors
    /// [`TrainError::InvalidOption`] for invalid parameters, mismatched rows or labels, or no
    /// rows.
    pub fn learn(
        inputs: &[InputSpec],
        rows: &[Vec<i32>],
        labels: &[usize],
        n_classes: usize,
        p: &Params,
        seed: u64,
    ) -> Result<Fringe, TrainError> {
        Fringe::learn_with(inputs, rows, labels, n_classes, p, seed, None)
    }

    /// The random baseline with a given schedule, as in the paper's Figure 3 ("the random
    /// proposal heuristic adds in each iteration the same number of features as FRINGE did. So,
    /// both methods work with the same number of variables in each iteration"): after tree `i`,
    /// `schedule[i]` conjunctions of two random current variables are added (pass a FRINGE run's
    /// [`Iteration::new_features`]); the iteration ends when the schedule does, or at the caps of
    /// `p`. [`Params::proposal`] is ignored.
    ///
    /// # Errors
    /// As [`Fringe::learn`].
    pub fn learn_random_schedule(
        inputs: &[InputSpec],
        rows: &[Vec<i32>],
        labels: &[usize],
        n_classes: usize,
        p: &Params,
        seed: u64,
        schedule: &[usize],
    ) -> Result<Fringe, TrainError> {
        Fringe::learn_with(inputs, rows, labels, n_classes, p, seed, Some(schedule))
    }

    fn learn_with(
        inputs: &[InputSpec],
        rows: &[Vec<i32>],
        labels: &[usize],
        n_classes: usize,
        p: &Params,
        seed: u64,
        schedule: Option<&[usize]>,
    ) -> Result<Fringe, TrainError> {
        p.check()?;
        let bad = |s: String| Err(TrainError::InvalidOption(s));
        if rows.is_empty() || rows.len() != labels.len() {
            return bad(format!(
                "fringe needs rows with one label each ({} rows, {} labels)",
                rows.len(),
                labels.len()
            ));
        }
        if let Some(r) = rows.iter().position(|x| x.len() != inputs.len()) {
            return bad(format!("row {r} has {} values, expected {}", rows[r].len(), inputs.len()));
        }
        if let Some(&y) = labels.iter().find(|&&y| y >= n_classes) {
            return bad(format!("label {y} out of range 0..{n_classes}"));
        }
        let rule = match p.rule {
            FeatureRule::Auto if n_classes <= 2 => FeatureRule::Dnf,
            FeatureRule::Auto => FeatureRule::Symmetric,
            r => r,
        };
        if matches!(rule, FeatureRule::Dnf | FeatureRule::Cnf) && p.positive_class >= n_classes.max(2) {
            return bad(format!("fringe positive class {} out of range 0..{n_classes}", p.positive_class));
        }
        let mut rng = Rng::new(seed);
        // The paper splits the learning rows at random, 2/3 to grow and 1/3 to prune; ours is
        // the learners' seeded stratified hold-out (a random split that keeps class shares).
        let (grow_rows, prune_rows) = crate::data::split::hold_out(
            labels,
            n_classes,
            p.prune_fraction_for(rows.len()),
            rng.fork(1).next_u64(),
        );
        let variables: Vec<Variable> = primitives(inputs, rows, labels, p.numeric_thresholds)
            .into_iter()
            .map(Variable::Primitive)
            .collect();
        let mut values = Values { n_rows: rows.len(), bits: Vec::new(), seen: HashSet::new() };
        let spread = spreads(inputs, rows);
        // Primitives that split the learning rows alike: the one of widest margin stays.
        let mut kept: Vec<(Bits, Variable)> = Vec::new();
        let mut index: std::collections::HashMap<Bits, usize> = std::collections::HashMap::new();
        for v in variables {
            let b = values.compute(&v, rows);
            let key = b.clone().min(values.complement(&b));
            match index.get(&key) {
                Some(&k) => {
                    let m = |v: &Variable| margin(v, rows.iter().map(Vec::as_slice), &spread);
                    if m(&v) > m(&kept[k].1) {
                        kept[k].1 = v;
                    }
                }
                None => {
                    index.insert(key, kept.len());
                    kept.push((b, v));
                }
            }
        }
        let mut variables: Vec<Variable> = kept.into_iter().map(|(_, v)| v).collect();
        variables.retain(|v| values.try_add(v, rows));
        let mut iterations: Vec<Iteration> = Vec::new();
        let stop = loop {
            let mut g = Grower {
                values: &values,
                labels,
                n_classes,
                nodes: Vec::new(),
                variables: &variables,
                x: rows,
                spread: spread.clone(),
            };
            g.grow(&grow_rows);
            let prune_errors = if !prune_rows.is_empty() {
                g.prune(0, &prune_rows)
            } else {
                if p.prune_z > 0.0 {
                    g.prune_pessimistic(0, &grow_rows, p.prune_z);
                }
                0
            };
            let tree = g.compact();
            let mut once = HashSet::new();
            let proposed: Vec<Variable> = fringe_features(&tree, rule, p.positive_class)
                .into_iter()
                .filter(|f| once.insert(f.clone()))
                .collect();
            iterations.push(Iteration { variables: variables.len(), tree, prune_errors, new_features: 0 });
            if iterations.len() >= p.max_iterations {
                break Stop::MaxIterations;
            }
            if variables.len() >= p.max_variables {
                break Stop::MaxVariables;
            }
            let mut added = 0;
            if let Some(schedule) = schedule {
                let want = schedule.get(iterations.len() - 1).copied().unwrap_or(0);
                while added < want && variables.len() < p.max_variables {
                    let Some(r) = random_feature(&variables, &mut values, rows, &mut rng) else { break };
                    variables.push(r);
                    added += 1;
                }
            }
            for f in proposed.into_iter().filter(|_| schedule.is_none()) {
                if variables.len() >= p.max_variables {
                    break;
                }
                if p.proposal == Proposal::Random {
                    // As many random features as the fringe heuristic would add.
                    if values.is_new(&f, rows) {
                        if let Some(r) = random_feature(&variables, &mut values, rows, &mut rng) {
                            variables.push(r);
                            added += 1;
                        }
                    }
                    continue;
                }
                if values.try_add(&f, rows) {
                    variables.push(f);
                    added += 1;
                }
            }
            if let Some(last) = iterations.last_mut() {
                last.new_features = added;
            }
            if added == 0 {
                break Stop::NoNewFeature;
            }
        };
        Ok(Fringe {
            inputs: inputs.to_vec(),
            n_classes,
            variables,
            iterations,
            stop,
            prune_rows: prune_rows.len(),
        })
    }

    /// The final tree.
    pub fn tree(&self) -> &Tree {
        &self.iterations.last().expect("at least one iteration").tree
    }

    /// The plain decision tree (first iteration: primitive variables only).
    pub fn plain_tree(&self) -> &Tree {
        &self.iterations[0].tree
    }

    /// Every variable's value for raw inputs `x` (variables only read earlier ones).
    pub fn values(&self, x: &[i32]) -> Vec<bool> {
        let mut v: Vec<bool> = Vec::with_capacity(self.variables.len());
        for var in &self.variables {
            let op = |o: &Operand, v: &[bool]| v[o.var] == o.positive;
            let b = match var {
                Variable::Primitive(l) => l.holds(x),
                Variable::And(a, c) => op(a, &v) && op(c, &v),
                Variable::Or(a, c) => op(a, &v) || op(c, &v),
            };
            v.push(b);
        }
        v
    }

    /// The final tree's class for raw inputs `x`.
    pub fn predict(&self, x: &[i32]) -> usize {
        self.tree().predict(&self.values(x))
    }

    /// Variable `v` as a formula over the primitive tests (for display): `x3` for a two-valued
    /// input `3` equal to 1, `x3=2`, `x3>150` (raw units), `∧`, `∨`, `¬`.
    pub fn describe(&self, v: usize) -> String {
        self.describe_with(v, &|l: &Literal| match l.op {
            LiteralOp::Eq if matches!(self.inputs[l.attr].kind, InputKind::Categorical { n_values: 2 }) => {
                format!("x{}", l.attr)
            }
            LiteralOp::Eq => format!("x{}={}", l.attr, l.value),
            _ => format!("x{}>{}", l.attr, l.value),
        })
    }

    /// Variable `v` as a formula, primitive tests written by `primitive`.
    pub fn describe_with(&self, v: usize, primitive: &dyn Fn(&Literal) -> String) -> String {
        let op = |o: &Operand| {
            let s = self.describe_with(o.var, primitive);
            let s =
                if matches!(self.variables[o.var], Variable::Primitive(_)) { s } else { format!("({s})") };
            if o.positive {
                s
            } else {
                format!("¬{s}")
            }
        };
        match &self.variables[v] {
            Variable::Primitive(l) => primitive(l),
            Variable::And(a, c) => format!("{} ∧ {}", op(a), op(c)),
            Variable::Or(a, c) => format!("{} ∨ {}", op(a), op(c)),
        }
    }

    /// The final tree as a runtime model (see the module docs for the encoding of tests).
    ///
    /// # Errors
    /// [`ExportError::TooLarge`] if a constructed feature expands to more literals than the
    /// format holds.
    pub fn to_model_spec(&self) -> Result<ModelSpec, ExportError> {
        self.to_model_spec_for(&[])
    }

    /// [`Fringe::to_model_spec`] with each chain's tests ordered for `rows` (the training rows,
    /// raw): among the rows that reach it, the literal that fails most often is tested first, and
    /// the part `Dᵢ` that holds most often is tested first, so the walk stops early on typical
    /// inputs. The predictions are the same in any order; without rows the literals keep their
    /// sorted order.
    ///
    /// # Errors
    /// As [`Fringe::to_model_spec`].
    pub fn to_model_spec_for(&self, rows: &[Vec<i32>]) -> Result<ModelSpec, ExportError> {
        let mut b = Builder { fringe: self, graph: Vec::new(), rows };
        let tree = self.tree();
        let all: Vec<usize> = (0..rows.len()).collect();
        let root = b.emit(tree, 0, &[], &all)?;
        // Every link points forward: reverse postorder from the root.
        let nodes = crate::model::reduce::renumber(&b.graph, root);
        Ok(ModelSpec {
            n_classes: self.n_classes,
            weight_kind: WeightKind::I8,
            inputs: self.inputs.clone(),
            features: Vec::new(),
            units: Vec::new(),
            structure: Structure::Tree(nodes),
            names: None,
        })
    }
}

/// A random conjunction of two distinct current variables that is new; `None` after 100 tries.
fn random_feature(
    variables: &[Variable],
    values: &mut Values,
    rows: &[Vec<i32>],
    rng: &mut Rng,
) -> Option<Variable> {
    if variables.len() < 2 {
        return None;
    }
    for _ in 0..100 {
        let a = rng.below(variables.len());
        let mut c = rng.below(variables.len() - 1);
        if c >= a {
            c += 1;
        }
        let v = Variable::And(
            Operand { var: a.min(c), positive: true },
            Operand { var: a.max(c), positive: true },
        );
        if values.try_add(&v, rows) {
            return Some(v);
        }
    }
    None
}

/// A feature as "all of `lits` hold and none of `fail` holds", each `fail` entry itself such a
/// formula.
#[derive(Debug, Clone, Default)]
struct Flat {
    lits: Vec<Literal>,
    fail: Vec<Flat>,
}

/// A test `x == v` on a categorical input with more values than this is exported as a unit over
/// a one-literal conjunction instead of a [`Node::Categorical`] with a child link per value.
const MAX_CATEGORICAL_NODE_VALUES: u16 = 12;

/// Most literals one constructed feature may expand to in the export.
const MAX_EXPANDED_LITERALS: usize = 4096;

fn negate(l: Literal) -> Literal {
    let op = match l.op {
        LiteralOp::Eq => LiteralOp::Ne,
        LiteralOp::Ne => LiteralOp::Eq,
        LiteralOp::Gt => LiteralOp::Le,
        LiteralOp::Le => LiteralOp::Gt,
    };
    Literal { op, ..l }
}

struct Builder<'a> {
    fringe: &'a Fringe,
    /// Nodes with graph ids as links (reordered at the end).
    graph: Vec<Node>,
    /// Rows that order each chain's tests (none: sorted order).
    rows: &'a [Vec<i32>],
}

impl Flat {
    /// Whether the condition holds for raw inputs `x`.
    fn holds(&self, x: &[i32]) -> bool {
        self.lits.iter().all(|l| l.holds(x)) && !self.fail.iter().any(|g| g.holds(x))
    }
}

/// Reorders `items` greedily: next the one for which `hit` is true on most of the rows still
/// `alive`, which then leave (ties keep the given order). Returns the rows left at the end. The
/// cost is bounded: at most [`ORDER_ROWS`] of the rows (evenly spaced) are counted, and the rows
/// returned are those of that sample; a list of more than [`ORDER_GREEDY`] items is sorted once
/// by its hits instead of greedily.
fn order_by_hits<T: Clone>(items: &mut [T], alive: &[usize], hit: impl Fn(&T, usize) -> bool) -> Vec<usize> {
    let step = alive.len().div_ceil(ORDER_ROWS).max(1);
    let mut sample: Vec<usize> = alive.iter().copied().step_by(step).collect();
    let hits = |item: &T, rows: &[usize]| rows.iter().filter(|&&r| hit(item, r)).count();
    if items.len() > ORDER_GREEDY {
        let mut keyed: Vec<(usize, T)> =
            items.iter().map(|item| (hits(item, &sample), item.clone())).collect();
        keyed.sort_by_key(|(count, _)| std::cmp::Reverse(*count));
        for (slot, (_, item)) in items.iter_mut().zip(keyed) {
            *slot = item;
        }
        sample.retain(|&r| !items.iter().any(|item| hit(item, r)));
    } else {
        for k in 0..items.len() {
            let best = (k..items.len())
                .max_by_key(|&i| (hits(&items[i], &sample), std::cmp::Reverse(i)))
                .unwrap_or(k);
            items[k..=best].rotate_right(1);
            sample.retain(|&r| !hit(&items[k], r));
        }
    }
    sample
}

/// Rows [`order_by_hits`] counts at most.
const ORDER_ROWS: usize = 4096;

/// Longest list [`order_by_hits`] orders greedily.
const ORDER_GREEDY: usize = 32;

impl Builder<'_> {
    fn push(&mut self, n: Node) -> usize {
        self.graph.push(n);
        self.graph.len() - 1
    }

    /// The nodes of FRINGE node `id` and its subtree; `known` holds the literals the path to it
    /// decides (a chain leaves out the literals they imply).
    fn emit(
        &mut self,
        tree: &Tree,
        id: usize,
        known: &[Literal],
        reach: &[usize],
    ) -> Result<usize, ExportError> {
        match tree.nodes[id] {
            TreeNode::Leaf { class } => Ok(self.push(Node::Class(class))),
            TreeNode::Split { var, left, right, .. } => {
                let mut flat = Flat::default();
                let mut budget = MAX_EXPANDED_LITERALS;
                self.flatten(var, true, &mut flat, &mut budget)?;
                // What each branch knows: the right one that every literal of `C` holds, the
                // left one, for a single literal, that it fails.
                let mut on_true = known.to_vec();
                on_true.extend(flat.lits.iter().copied());
                let mut on_false = known.to_vec();
                if let ([l], []) = (flat.lits.as_slice(), flat.fail.as_slice()) {
                    on_false.push(negate(*l));
                }
                let (holds, fails): (Vec<usize>, Vec<usize>) =
                    reach.iter().partition(|&&r| flat.holds(&self.rows[r]));
                let f = self.emit(tree, left, &on_false, &fails)?;
                let t = self.emit(tree, right, &on_true, &holds)?;
                Ok(self.test(flat, t, f, &mut known.to_vec(), reach))
            }
        }
    }

    /// Adds to `flat` the condition "variable `v` is `want`".
    fn flatten(&self, v: usize, want: bool, flat: &mut Flat, budget: &mut usize) -> Result<(), ExportError> {
        // Every compound variable is `neg XOR (a ∧ b)`.
        let (neg, a, b) = match &self.fringe.variables[v] {
            Variable::Primitive(l) => {
                *budget = budget.checked_sub(1).ok_or(ExportError::TooLarge("fringe feature literals"))?;
                flat.lits.push(if want { *l } else { negate(*l) });
                return Ok(());
            }
            Variable::And(a, b) => (false, *a, *b),
            Variable::Or(a, b) => (
                true,
                Operand { var: a.var, positive: !a.positive },
                Operand { var: b.var, positive: !b.positive },
            ),
        };
        if want != neg {
            self.flatten(a.var, a.positive, flat, budget)?;
            self.flatten(b.var, b.positive, flat, budget)
        } else {
            let mut sub = Flat::default();
            self.flatten(a.var, a.positive, &mut sub, budget)?;
            self.flatten(b.var, b.positive, &mut sub, budget)?;
            if sub.fail.is_empty() && sub.lits.len() == 1 {
                flat.lits.push(negate(sub.lits[0]));
            } else if sub.lits.is_empty() && sub.fail.len() == 1 {
                let inner = sub.fail.pop().expect("one entry");
                flat.lits.extend(inner.lits);
                flat.fail.extend(inner.fail);
            } else {
                flat.fail.push(sub);
            }
            Ok(())
        }
    }

    /// One node testing literal `l`: to `t` when it holds, else to `f`.
    fn literal_node(&mut self, l: Literal, t: usize, f: usize) -> usize {
        let (l, t, f) = match l.op {
            LiteralOp::Ne | LiteralOp::Le => (negate(l), f, t),
            _ => (l, t, f),
        };
        match (l.op, self.fringe.inputs[l.attr].kind) {
            (LiteralOp::Eq, InputKind::Categorical { n_values })
                if n_values <= MAX_CATEGORICAL_NODE_VALUES =>
            {
                let children = (0..i32::from(n_values)).map(|k| if k == l.value { t } else { f }).collect();
                self.push(Node::Categorical { attr: l.attr, children, default: f })
            }
            (LiteralOp::Gt, _) => {
                self.push(Node::Threshold { attr: l.attr, threshold: l.value, left: f, right: t })
            }
            _ => {
                // `x == v` on a many-valued input: `x > v − 1` then `x <= v`, two threshold
                // nodes instead of a child link per value. Categorical values are `0..n_values`,
                // so `v − 1` does not overflow.
                let le = self.push(Node::Threshold { attr: l.attr, threshold: l.value, left: t, right: f });
                self.push(Node::Threshold { attr: l.attr, threshold: l.value - 1, left: f, right: le })
            }
        }
    }

    /// Nodes that go to `t` when `flat` holds and to `f` otherwise; returns the entry node.
    ///
    /// A chain of one node per literal that shares the exit `f`: the literals of `C` first, then
    /// each part `Dᵢ` that must fail (itself a chain whose exit when it holds is `f`). A literal
    /// that `known` (the literals that hold wherever the chain is entered) decides is not tested.
    fn test(
        &mut self,
        mut flat: Flat,
        t: usize,
        f: usize,
        known: &mut Vec<Literal>,
        reach: &[usize],
    ) -> usize {
        flat.lits.sort_unstable();
        flat.lits.dedup();
        let mut lits = Vec::new();
        for &l in &flat.lits {
            match implied(known, l) {
                Some(true) => {}
                Some(false) => return f,
                None => {
                    lits.push(l);
                    known.push(l);
                }
            }
        }
        let mut fail = Vec::new();
        for g in flat.fail {
            // A part with a literal that cannot hold never holds; one whose literals all hold
            // always does, and then the test fails.
            if g.lits.iter().any(|&l| implied(known, l) == Some(false)) {
                continue;
            }
            if g.fail.is_empty() && g.lits.iter().all(|&l| implied(known, l) == Some(true)) {
                return f;
            }
            fail.push(g);
        }
        // The rows reaching each part: those every literal before it passed, and every part
        // before it failed.
        let rows = self.rows;
        let passed = order_by_hits(&mut lits, reach, |l, r| !l.holds(&rows[r]));
        order_by_hits(&mut fail, &passed, |g, r| g.holds(&rows[r]));
        let mut reaches = Vec::with_capacity(fail.len());
        let mut alive = passed;
        for g in &fail {
            reaches.push(alive.clone());
            alive.retain(|&r| !g.holds(&rows[r]));
        }
        let mut next = t;
        for (g, reach) in fail.into_iter().zip(reaches).rev() {
            next = self.test(g, f, next, &mut known.clone(), &reach);
        }
        for l in lits.into_iter().rev() {
            next = self.literal_node(l, next, f);
        }
        next
    }
}

/// Whether literal `l` holds (`Some(true)`), fails (`Some(false)`) or is undecided (`None`) for
/// every raw input where all of `known` hold. Sound for any raw value (an unknown category
/// included: `x == v` known pins `x`; `x != v` only rules out `v`).
fn implied(known: &[Literal], l: Literal) -> Option<bool> {
    known.iter().filter(|k| k.attr == l.attr).find_map(|k| {
        let (v, w) = (k.value, l.value);
        match (k.op, l.op) {
            (LiteralOp::Eq, LiteralOp::Eq) => Some(v == w),
            (LiteralOp::Eq, LiteralOp::Ne) => Some(v != w),
            (LiteralOp::Eq, LiteralOp::Gt) => Some(v > w),
            (LiteralOp::Eq, LiteralOp::Le) => Some(v <= w),
            (LiteralOp::Ne, LiteralOp::Ne) if v == w => Some(true),
            (LiteralOp::Ne, LiteralOp::Eq) if v == w => Some(false),
            (LiteralOp::Gt, LiteralOp::Gt) if w <= v => Some(true),
            (LiteralOp::Gt, LiteralOp::Le) if w <= v => Some(false),
            (LiteralOp::Le, LiteralOp::Le) if w >= v => Some(true),
            (LiteralOp::Le, LiteralOp::Gt) if w >= v => Some(false),
            _ => None,
        }
    })
}

/// Learns FRINGE on the context's training rows and exports the final tree.
///
/// # Errors
/// [`TrainError::InvalidOption`] for invalid parameters or labels, [`TrainError::Export`] if a
/// constructed feature is too large for the model format.
pub fn train(ctx: &Context<'_>, p: &Params) -> Result<ModelSpec, TrainError> {
    let model = Fringe::learn(&ctx.inputs, &ctx.raw, ctx.labels(), ctx.n_classes(), p, ctx.seed)?;
    Ok(model.to_model_spec_for(&ctx.raw)?)
}

/// FRINGE in the learner registry (`crate::learn`): `ltu train --algo fringe` once registered.
#[derive(Debug, Clone, Copy)]
pub struct FringeLearner;

/// A learned FRINGE model with its export.
#[derive(Debug, Clone)]
pub struct Learned {
    /// What was learned (variables, every iteration's tree).
    pub fringe: Fringe,
    /// The final tree as a runtime model ([`Fringe::to_model_spec`]).
    pub spec: ModelSpec,
}

/// What FRINGE did, for `ltu train --json`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Report {
    /// Trees grown (the first is the plain tree).
    pub iterations: usize,
    /// Why it stopped: `NoNewFeature`, `MaxVariables` or `MaxIterations`.
    pub stop: String,
    /// Primitive variables (`x == v`, `x > t`).
    pub primitive_variables: usize,
    /// All variables at the end, constructed features included.
    pub variables: usize,
    /// Decision nodes of the plain tree (first iteration).
    pub plain_decision_nodes: usize,
    /// Decision nodes of the final tree.
    pub decision_nodes: usize,
    /// Errors of the final tree on the pruning rows.
    pub prune_errors: usize,
    /// How the trees were pruned: `reduced-error on N held-out rows`, `error-based (z = Z)` or
    /// `none`.
    pub pruning: String,
    /// The variables the final tree tests, as formulas over the inputs (`x3`, `x0 ∧ ¬x5`, ...).
    pub tests: Vec<String>,
}

impl Learner for FringeLearner {
    const NAME: &'static str = "fringe";
    const ABOUT: &'static str =
        "decision tree that builds conjunction features from its fringe and regrows (FRINGE, Pagallo 1989)";
    type Params = Params;
    type Checked = Params;
    type Model = Learned;
    type Report = Report;

    fn check(p: &Params, ctx: &Context<'_>) -> Result<Params, TrainError> {
        p.check()?;
        let rule_needs_positive = matches!(p.rule, FeatureRule::Dnf | FeatureRule::Cnf)
            || (p.rule == FeatureRule::Auto && ctx.n_classes() <= 2);
        if rule_needs_positive && p.positive_class >= ctx.n_classes().max(2) {
            return Err(TrainError::InvalidOption(format!(
                "fringe positive class {} out of range 0..{}",
                p.positive_class,
                ctx.n_classes()
            )));
        }
        Ok(p.clone())
    }

    fn fit(ctx: &Context<'_>, p: &Params) -> Result<(Learned, Report), TrainError> {
        let fringe = Fringe::learn(&ctx.inputs, &ctx.raw, ctx.labels(), ctx.n_classes(), p, ctx.seed)?;
        let spec = fringe.to_model_spec_for(&ctx.raw)?;
        let last = fringe.iterations.last().expect("at least one iteration");
        let report = Report {
            iterations: fringe.iterations.len(),
            stop: format!("{:?}", fringe.stop),
            primitive_variables: fringe.iterations[0].variables,
            variables: fringe.variables.len(),
            plain_decision_nodes: fringe.plain_tree().decision_nodes(),
            decision_nodes: last.tree.decision_nodes(),
            prune_errors: last.prune_errors,
            pruning: match fringe.prune_rows {
                0 if p.prune_z > 0.0 => format!("error-based (z = {})", p.prune_z),
                0 => "none".into(),
                n => format!("reduced-error on {n} held-out rows"),
            },
            tests: fringe
                .tree()
                .tested_variables()
                .into_iter()
                .map(|v| fringe.describe_with(v, &|l: &Literal| named_literal(ctx, l)))
                .collect(),
        };
        Ok((Learned { fringe, spec }, report))
    }

    fn to_spec(model: &Learned) -> ModelSpec {
        model.spec.clone()
    }

    /// Fewer feature-construction iterations: 4, 2, then the plain pruned tree (1); then the
    /// plain tree pruned harder, by C4.5's error estimate with a wider interval (z 1.15, 1.96,
    /// 3: 75 %, 95 % and 99.7 % two-sided).
    fn ladder(p: &Params) -> Vec<Params> {
        let fewer = [4, 2, 1]
            .into_iter()
            .filter(|&n| n < p.max_iterations)
            .map(|max_iterations| Params { max_iterations, ..p.clone() });
        let plain = Params { max_iterations: 1, prune_fraction: Some(0.0), ..p.clone() };
        let harder = [1.15, 1.96, 3.0]
            .into_iter()
            .filter(|&z| z > p.prune_z)
            .map(move |prune_z| Params { prune_z, ..plain.clone() });
        fewer.chain(harder).collect()
    }
}

/// A primitive test with the data's names: `outlook=sunny`, `temp>21.5`.
fn named_literal(ctx: &Context<'_>, l: &Literal) -> String {
    let attr = &ctx.data.schema.attributes[l.attr];
    match (&attr.kind, ctx.inputs[l.attr].kind) {
        (crate::data::AttrKind::Categorical { values }, _) => {
            let value = usize::try_from(l.value).ok().and_then(|v| values.get(v));
            format!("{}={}", attr.name, value.map_or("?", String::as_str))
        }
        (_, InputKind::Numeric { scale_exp }) => {
            format!("{}>{}", attr.name, f64::from(l.value) / 10f64.powi(i32::from(scale_exp)))
        }
        _ => format!("{}>{}", attr.name, l.value),
    }
}

#[cfg(test)]
mod order_tests {
    use super::{order_by_hits, ORDER_GREEDY};

    #[test]
    fn greedy_order_counts_only_the_rows_still_alive() {
        // Item 0 hits rows 0..6, item 1 rows 0..5, item 2 rows 6..9: greedily 0 (6 rows), then
        // 2 (rows 6..9 are left; item 1's rows have left with item 0), then 1.
        let sets: [std::ops::Range<usize>; 3] = [0..6, 0..5, 6..9];
        let mut items = vec![0usize, 1, 2];
        let alive: Vec<usize> = (0..12).collect();
        let left = order_by_hits(&mut items, &alive, |&i, r| sets[i].contains(&r));
        assert_eq!(items, [0, 2, 1]);
        assert_eq!(left, [9, 10, 11]);
    }

    #[test]
    fn long_lists_are_sorted_once_by_hits_keeping_ties_in_order() {
        let n = ORDER_GREEDY + 8;
        // Item i hits the rows below i % 5 (so 4, 9, 14, ... hit most): one stable sort.
        let mut items: Vec<usize> = (0..n).collect();
        let alive: Vec<usize> = (0..10).collect();
        let left = order_by_hits(&mut items, &alive, |&i, r| r < i % 5);
        let keys: Vec<usize> = items.iter().map(|i| i % 5).collect();
        assert!(keys.windows(2).all(|w| w[0] >= w[1]), "{keys:?}");
        assert_eq!(&items[..3], [4, 9, 14], "ties keep their order");
        assert_eq!(left, [4, 5, 6, 7, 8, 9]);
    }
}
