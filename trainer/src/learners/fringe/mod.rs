//! FRINGE (Pagallo 1989, *Learning DNF by Decision Trees*): a decision tree that constructs its
//! own Boolean features.
//!
//! Each iteration grows an ID3 tree by mutual information on two thirds of the learning rows (a
//! branch stops when no variable has positive mutual information with the class), prunes it by
//! reduced-error pruning on the other third (Quinlan 1987; [`Params::paper`]; by default, beyond
//! the paper, on up to 10,000 rows the tree grows on every row and is pruned by C4.5's error
//! estimate, [`Params::prune_fraction`]; on more, by cost complexity with the penalty and the
//! final iteration chosen on the held-out third, [`Params::size_charge`]), then reads new
//! features off the
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
//! [`Node::Threshold`]: crate::model::Node::Threshold
//! [`Node::Categorical`]: crate::model::Node::Categorical
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

mod export;
mod features;
mod grow;
mod prune;
mod variables;

use crate::learn::{Context, Learner, TrainError};
use crate::model::{InputKind, InputSpec, Literal, LiteralOp, ModelSpec};
use crate::rng::Rng;
use grow::Sample;
use variables::{distinct_primitives, spreads, Values};

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
    /// benchmark datasets, less on 2; docs/FRINGE.md); on more, the size is chosen by held-out
    /// evidence ([`Params::size_charge`]; error-based pruning keeps far too much of a noisy
    /// tree grown on 100,000 rows, and reduced-error pruning on a held-out third still keeps
    /// thousands of tests that each win a few held-out rows).
    pub prune_fraction: Option<f64>,
    /// On more than [`crate::data::split::HOLD_OUT_PRUNING_ROWS`] learning rows with the
    /// automatic [`Params::prune_fraction`]: the held-out error rate one byte of model is worth.
    /// A third of the rows is held out; each tree grows on the rest and is pruned by cost
    /// complexity (its growing errors plus a penalty per byte of tests), the penalty chosen
    /// where the held-out errors plus this charge per byte are least; the iteration whose tree
    /// scores least is the final one, grown again on every learning row and pruned with the
    /// same penalty. The charge is divided by the classes less one (a tree separating `k`
    /// classes needs about `k − 1` times a binary tree's boundaries). Default `2e-6`: on two
    /// classes a kilobyte must win 0.2 % of the held-out rows, on five 0.05 % (docs/FRINGE.md
    /// measures the trade-off). In `[0, 1]`.
    pub size_charge: f64,
    /// Beyond the paper, used when `prune_fraction` is 0: error-based pruning on the growing rows
    /// themselves (C4.5; [`pessimistic_errors`](crate::learners::tree::pessimistic_errors) with
    /// this `z`): a subtree becomes a leaf of its majority class when the leaf's pessimistic
    /// error estimate is not above the sum of its leaves' estimates. 0 does not prune.
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
    /// Most tests on a path from the root to a leaf of every tree grown (`None`: no limit; 0: a
    /// single leaf, the majority class). The budget ladder's way to smaller trees.
    pub max_depth: Option<usize>,
    /// Most bytes of tests in every tree (`None`: no limit), as the export's estimate counts
    /// them (12 per threshold test, 12 + 2 per value of a categorical node): a pruned tree over
    /// it loses its weakest links, by cost complexity on the growing rows, until its tests fit.
    /// The budget ladder's way to the largest tree a byte budget allows, where a depth limit
    /// cuts every branch alike.
    pub max_test_bytes: Option<f64>,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            rule: FeatureRule::Auto,
            proposal: Proposal::Fringe,
            positive_class: 1,
            prune_fraction: None,
            size_charge: 2e-6,
            prune_z: 0.6745,
            max_variables: 1000,
            max_iterations: 30,
            numeric_thresholds: 32,
            max_depth: None,
            max_test_bytes: None,
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

    /// Whether the trees' size and the final iteration are chosen on held-out rows for `m`
    /// learning rows ([`Params::size_charge`]).
    pub fn chooses_size(&self, m: usize) -> bool {
        self.prune_fraction.is_none() && m > crate::data::split::HOLD_OUT_PRUNING_ROWS
    }

    /// The feature rule for `n_classes` classes ([`FeatureRule::Auto`] resolved).
    ///
    /// # Errors
    /// [`TrainError::InvalidOption`] if the rule needs [`Params::positive_class`] and it is not
    /// a class.
    fn rule_for(&self, n_classes: usize) -> Result<FeatureRule, TrainError> {
        let rule = match self.rule {
            FeatureRule::Auto if n_classes <= 2 => FeatureRule::Dnf,
            FeatureRule::Auto => FeatureRule::Symmetric,
            r => r,
        };
        if matches!(rule, FeatureRule::Dnf | FeatureRule::Cnf) && self.positive_class >= n_classes.max(2) {
            return Err(TrainError::InvalidOption(format!(
                "fringe positive class {} out of range 0..{n_classes}",
                self.positive_class
            )));
        }
        Ok(rule)
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
        if !(0.0..=1.0).contains(&self.size_charge) {
            return bad(format!("fringe size charge must be in [0, 1], got {}", self.size_charge));
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

/// Why the iteration stopped; in a [`Report`], the variant's name (`"NoNewFeature"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Stop {
    /// The last tree proposed no new feature.
    NoNewFeature,
    /// [`Params::max_variables`] was reached.
    MaxVariables,
    /// [`Params::max_iterations`] trees were grown.
    MaxIterations,
    /// With the size chosen on held-out rows ([`Params::chooses_size`]): the last
    /// [`PATIENCE`] trees scored no better on them than an earlier one.
    NoImprovement,
}

/// With the size chosen on held-out rows, the iteration stops after this many trees in a row
/// that score no better on them than the best before.
pub const PATIENCE: usize = 2;

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
    /// Learning rows held out for pruning (0: the trees grew on every row).
    pub prune_rows: usize,
    /// The iteration whose tree is the final hypothesis: the last one, or with the size chosen
    /// on held-out rows ([`Params::chooses_size`]) the one that scored best there, its tree
    /// grown again on every learning row.
    pub final_iteration: usize,
    /// The cost-complexity penalty of the final tree, in growing errors per byte of tests, when
    /// the size was chosen on held-out rows.
    pub size_penalty: Option<f64>,
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

    /// [`Fringe::learn`], or with `schedule` [`Fringe::learn_random_schedule`]: checks the
    /// rows, splits off the pruning rows, then grows, prunes and reads features off one tree per
    /// iteration until no feature is new or a cap is reached.
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
        check_rows(inputs, rows, labels, n_classes)?;
        let rule = p.rule_for(n_classes)?;
        let mut rng = Rng::new(seed);
        // The paper splits the learning rows at random, 2/3 to grow and 1/3 to prune; ours is
        // the learners' seeded stratified hold-out (a random split that keeps class shares).
        let (grow_rows, prune_rows) = crate::data::split::hold_out(
            labels,
            n_classes,
            p.prune_fraction_for(rows.len()),
            rng.fork(1).next_u64(),
        );
        let mut values = Values::new(rows.len());
        let spread = spreads(inputs, rows);
        let mut variables =
            distinct_primitives(inputs, rows, labels, p.numeric_thresholds, &spread, &mut values);
        let mut iterations: Vec<Iteration> = Vec::new();
        let choose_size = p.chooses_size(rows.len());
        // Held-out errors one byte of tests is worth, and the bytes a test of each variable costs.
        // Per class beyond the first: a tree separates k classes with about k − 1 times the
        // boundaries of a binary one, so its bytes are charged per boundary (binary problems pay
        // `size_charge` itself).
        let charge = p.size_charge * prune_rows.len() as f64 / (n_classes.max(2) - 1) as f64;
        let mut cost: Vec<f64> = Vec::new();
        // With the size chosen on held-out rows: the best score, its iteration and its penalty.
        let mut best: Option<(f64, usize, f64)> = None;
        let stop = loop {
            for v in &variables[cost.len()..] {
                let c = match v {
                    Variable::Primitive(l) => export::literal_bytes(inputs, l),
                    Variable::And(a, b) | Variable::Or(a, b) => cost[a.var] + cost[b.var],
                };
                cost.push(c);
            }
            let sample = Sample {
                values: &values,
                labels,
                n_classes,
                variables: &variables,
                x: rows,
                spread: &spread,
                max_depth: p.max_depth.unwrap_or(usize::MAX),
            };
            let (tree, prune_errors) = if choose_size {
                let chosen =
                    grow_and_choose(&sample, &grow_rows, &prune_rows, &cost, charge, p.max_test_bytes);
                if best.is_none_or(|b| chosen.score < b.0) {
                    best = Some((chosen.score, iterations.len(), chosen.alpha));
                }
                (chosen.tree, chosen.held_out_errors)
            } else {
                grow_and_prune(&sample, &grow_rows, &prune_rows, p.prune_z, &cost, p.max_test_bytes)
            };
            let proposed = features::propose(&tree, rule, p.positive_class);
            iterations.push(Iteration { variables: variables.len(), tree, prune_errors, new_features: 0 });
            if iterations.len() >= p.max_iterations {
                break Stop::MaxIterations;
            }
            if best.is_some_and(|(_, at, _)| iterations.len() - 1 - at >= PATIENCE) {
                break Stop::NoImprovement;
            }
            if variables.len() >= p.max_variables {
                break Stop::MaxVariables;
            }
            let added = match schedule {
                Some(schedule) => {
                    let want = schedule.get(iterations.len() - 1).copied().unwrap_or(0);
                    features::add_random(want, p.max_variables, &mut variables, &mut values, rows, &mut rng)
                }
                None => features::add_proposed(
                    proposed,
                    p.proposal,
                    p.max_variables,
                    &mut variables,
                    &mut values,
                    rows,
                    &mut rng,
                ),
            };
            if let Some(last) = iterations.last_mut() {
                last.new_features = added;
            }
            if added == 0 {
                break Stop::NoNewFeature;
            }
        };
        let mut final_iteration = iterations.len() - 1;
        let mut size_penalty = None;
        if let Some((_, at, alpha)) = best {
            // The chosen iteration's tree again, grown on every learning row over the variables
            // it had, pruned with its penalty scaled to the rows (errors grow with them).
            let sample = Sample {
                values: &values,
                labels,
                n_classes,
                variables: &variables[..iterations[at].variables],
                x: rows,
                spread: &spread,
                max_depth: p.max_depth.unwrap_or(usize::MAX),
            };
            let all: Vec<usize> = (0..rows.len()).collect();
            let alpha = alpha * all.len() as f64 / grow_rows.len() as f64;
            iterations[at].tree = grow_and_penalize(&sample, &all, &cost, alpha, p.max_test_bytes);
            final_iteration = at;
            size_penalty = Some(alpha);
        }
        Ok(Fringe {
            inputs: inputs.to_vec(),
            n_classes,
            variables,
            iterations,
            stop,
            prune_rows: prune_rows.len(),
            final_iteration,
            size_penalty,
        })
    }

    /// The final tree.
    pub fn tree(&self) -> &Tree {
        &self.iterations[self.final_iteration].tree
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
}
/// Checks that there are rows, one label per row, each label in `0..n_classes` and each row with
/// one value per input.
fn check_rows(
    inputs: &[InputSpec],
    rows: &[Vec<i32>],
    labels: &[usize],
    n_classes: usize,
) -> Result<(), TrainError> {
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
    Ok(())
}

/// One iteration's tree: grown on `grow_rows`, then pruned by reduced error on `prune_rows`
/// or, with none, by its error estimate on the growing rows (not at all if `prune_z` is 0),
/// then cut to `cap` bytes of tests ([`cut_to_cap`]). Returns the tree and its errors on the
/// pruning rows (0 without them).
fn grow_and_prune(
    sample: &Sample<'_>,
    grow_rows: &[usize],
    prune_rows: &[usize],
    prune_z: f64,
    cost: &[f64],
    cap: Option<f64>,
) -> (Tree, usize) {
    let mut nodes = grow::grow(sample, grow_rows);
    let mut prune_errors = 0;
    if !prune_rows.is_empty() {
        prune_errors = prune::reduced_error(&mut nodes, sample.values, sample.labels, prune_rows);
    } else if prune_z > 0.0 {
        prune::error_based(&mut nodes, sample.values, sample.labels, grow_rows, prune_z);
    }
    cut_to_cap(sample, &mut nodes, grow_rows, cost, cap);
    if cap.is_some() && !prune_rows.is_empty() {
        // The cut tree's errors on the pruning rows: its leaves' errors, walked from the root.
        let errors = prune::node_errors(&nodes, sample.values, sample.labels, prune_rows);
        prune_errors = prune::kept_totals(&nodes, &vec![true; nodes.len()], &errors, cost).0;
    }
    (grow::compact(&nodes), prune_errors)
}

/// Cuts a pruned tree whose tests cost more than `cap` bytes back to the largest
/// cost-complexity subtree within it, judged on its growing `rows` ([`prune::cut_to`]).
fn cut_to_cap(sample: &Sample<'_>, nodes: &mut [TreeNode], rows: &[usize], cost: &[f64], cap: Option<f64>) {
    let Some(cap) = cap else { return };
    let errors = prune::node_errors(nodes, sample.values, sample.labels, rows);
    let (keep, _) = prune::cut_to(nodes, &errors, cost, cap);
    prune::apply(nodes, &keep);
}

/// Cost-complexity penalties tried when the size is chosen on held-out rows, in growing errors
/// per byte of tests: 0 (only tests that fit the growing rows better), then from 1/64 (a 12-byte
/// test must fit about one growing row in five better) to 16, each `2^(1/4)` times the last.
fn penalties() -> impl Iterator<Item = f64> {
    std::iter::once(0.0).chain((0..=40).map(|k| f64::powf(2.0, f64::from(k) / 4.0) / 64.0))
}

/// One iteration's tree with its size chosen on held-out rows.
struct Chosen {
    /// The tree pruned with the chosen penalty.
    tree: Tree,
    /// Its errors on the held-out rows.
    held_out_errors: usize,
    /// Those errors plus the charge for its bytes.
    score: f64,
    /// The chosen penalty, in growing errors per byte.
    alpha: f64,
}

/// One iteration's tree grown on `grow_rows` and pruned by cost complexity (growing errors plus
/// `alpha` per byte of tests, `cost` per variable) at every penalty of [`penalties`]; the one
/// whose `held_out` errors plus `charge` per byte are least is kept (ties: the smaller penalty)
/// among those within `cap` bytes of tests; when none is, the tree cut to `cap` ([`prune::cut_to`]).
fn grow_and_choose(
    sample: &Sample<'_>,
    grow_rows: &[usize],
    held_out: &[usize],
    cost: &[f64],
    charge: f64,
    cap: Option<f64>,
) -> Chosen {
    let mut nodes = grow::grow(sample, grow_rows);
    let grow_errors = prune::node_errors(&nodes, sample.values, sample.labels, grow_rows);
    let held_errors = prune::node_errors(&nodes, sample.values, sample.labels, held_out);
    let mut best: Option<(f64, f64, usize, Vec<bool>)> = None;
    for alpha in penalties() {
        let keep = prune::cost_complexity(&nodes, &grow_errors, cost, alpha);
        let (errors, bytes) = prune::kept_totals(&nodes, &keep, &held_errors, cost);
        let score = errors as f64 + charge * bytes;
        if cap.is_none_or(|c| bytes <= c) && best.as_ref().is_none_or(|b| score < b.0) {
            best = Some((score, alpha, errors, keep));
        }
    }
    let (score, alpha, held_out_errors, keep) = best.unwrap_or_else(|| {
        // Every penalty of the ladder leaves tests over `cap`: the cap decides the size.
        let (keep, alpha) = prune::cut_to(&nodes, &grow_errors, cost, cap.unwrap_or(f64::INFINITY));
        let (errors, bytes) = prune::kept_totals(&nodes, &keep, &held_errors, cost);
        (errors as f64 + charge * bytes, alpha, errors, keep)
    });
    prune::apply(&mut nodes, &keep);
    Chosen { tree: grow::compact(&nodes), held_out_errors, score, alpha }
}

/// A tree grown on `rows`, pruned by cost complexity with penalty `alpha` per byte and cut to
/// `cap` bytes of tests.
fn grow_and_penalize(
    sample: &Sample<'_>,
    rows: &[usize],
    cost: &[f64],
    alpha: f64,
    cap: Option<f64>,
) -> Tree {
    let mut nodes = grow::grow(sample, rows);
    let errors = prune::node_errors(&nodes, sample.values, sample.labels, rows);
    let keep = prune::cost_complexity(&nodes, &errors, cost, alpha);
    prune::apply(&mut nodes, &keep);
    cut_to_cap(sample, &mut nodes, rows, cost, cap);
    grow::compact(&nodes)
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
    /// The iteration whose tree is the final one (0: the plain tree; [`Fringe::final_iteration`]).
    pub final_iteration: usize,
    /// Why it stopped: `NoNewFeature`, `MaxVariables`, `MaxIterations` or `NoImprovement`.
    pub stop: Stop,
    /// Primitive variables (`x == v`, `x > t`).
    pub primitive_variables: usize,
    /// All variables at the end, constructed features included.
    pub variables: usize,
    /// Decision nodes of the plain tree (first iteration).
    pub plain_decision_nodes: usize,
    /// Decision nodes of the final tree.
    pub decision_nodes: usize,
    /// Errors of the final tree on the pruning rows (with the size chosen on held-out rows: of
    /// its iteration's tree grown without them).
    pub prune_errors: usize,
    /// How the trees were pruned: `reduced-error on N held-out rows`, `error-based (z = Z)`,
    /// `cost-complexity (A errors per byte) chosen on N held-out rows` or `none`.
    pub pruning: Pruning,
    /// The variables the final tree tests, as formulas over the inputs (`x3`, `x0 ∧ ¬x5`, ...).
    pub tests: Vec<String>,
}

/// How the trees were pruned, in a [`Report`]. It serializes as the sentence its `Display`
/// writes: `reduced-error on N held-out rows`, `error-based (z = Z)`, `cost-complexity (A errors
/// per byte) chosen on N held-out rows` or `none`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Pruning {
    /// Reduced-error pruning on held-out learning rows.
    ReducedError {
        /// The held-out rows.
        rows: usize,
    },
    /// Error-based pruning on the growing rows with C4.5's estimate ([`Params::prune_z`]).
    ErrorBased {
        /// The estimate's `z`.
        z: f64,
    },
    /// Cost-complexity pruning with the penalty and the final iteration chosen on held-out
    /// learning rows ([`Params::size_charge`]).
    CostComplexity {
        /// The final tree's penalty, in errors on the learning rows per byte of tests.
        alpha: f64,
        /// The held-out rows.
        rows: usize,
    },
    /// The trees were not pruned.
    None,
}

impl std::fmt::Display for Pruning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Pruning::ReducedError { rows } => write!(f, "reduced-error on {rows} held-out rows"),
            Pruning::ErrorBased { z } => write!(f, "error-based (z = {z})"),
            Pruning::CostComplexity { alpha, rows } => {
                write!(f, "cost-complexity ({alpha:.4} errors per byte) chosen on {rows} held-out rows")
            }
            Pruning::None => f.write_str("none"),
        }
    }
}

impl serde::Serialize for Pruning {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
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
        let last = &fringe.iterations[fringe.final_iteration];
        let report = Report {
            iterations: fringe.iterations.len(),
            final_iteration: fringe.final_iteration,
            stop: fringe.stop,
            primitive_variables: fringe.iterations[0].variables,
            variables: fringe.variables.len(),
            plain_decision_nodes: fringe.plain_tree().decision_nodes(),
            decision_nodes: last.tree.decision_nodes(),
            prune_errors: last.prune_errors,
            pruning: match (fringe.prune_rows, fringe.size_penalty) {
                (rows, Some(alpha)) => Pruning::CostComplexity { alpha, rows },
                (0, None) if p.prune_z > 0.0 => Pruning::ErrorBased { z: p.prune_z },
                (0, None) => Pruning::None,
                (rows, None) => Pruning::ReducedError { rows },
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
    /// 3: 75 %, 95 % and 99.7 % two-sided); then the plain tree cut by cost complexity to at
    /// most 768, 512, 384, 256, 192 and 128 bytes of tests ([`Params::max_test_bytes`]); last,
    /// the hardest-pruned tree cut to at most 8, 6, 4, 3, 2 and 1 levels ([`Params::max_depth`])
    /// and a single leaf, the majority class.
    fn ladder(p: &Params) -> Vec<Params> {
        let fewer = [4, 2, 1]
            .into_iter()
            .filter(|&n| n < p.max_iterations)
            .map(|max_iterations| Params { max_iterations, ..p.clone() });
        let plain = Params { max_iterations: 1, prune_fraction: Some(0.0), ..p.clone() };
        let harder = [1.15, 1.96, 3.0].into_iter().filter(|&z| z > p.prune_z).map({
            let plain = plain.clone();
            move |prune_z| Params { prune_z, ..plain.clone() }
        });
        // Then the plain tree cut by cost complexity to fewer bytes of tests: the weakest links
        // go first, where a depth limit cuts every branch alike.
        let capped = [768.0, 512.0, 384.0, 256.0, 192.0, 128.0]
            .into_iter()
            .filter(|&b| p.max_test_bytes.is_none_or(|cap| b < cap))
            .map(move |b| Params { max_test_bytes: Some(b), ..plain.clone() });
        // Then the plain tree cut to fewer levels, down to a single leaf (the majority class).
        let hardest =
            Params { max_iterations: 1, prune_fraction: Some(0.0), prune_z: p.prune_z.max(3.0), ..p.clone() };
        let shallower = [8, 6, 4, 3, 2, 1, 0]
            .into_iter()
            .filter(|&d| p.max_depth.is_none_or(|cap| d < cap))
            .map(move |d| Params { max_depth: Some(d), ..hardest.clone() });
        fewer.chain(harder).chain(capped).chain(shallower).collect()
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
        (_, InputKind::Numeric { scale_exp, offset }) => {
            format!("{}>{}", attr.name, crate::data::encode::from_raw(l.value, scale_exp, offset))
        }
        _ => format!("{}>{}", attr.name, l.value),
    }
}

#[cfg(test)]
mod tests {
    use super::{Fringe, Params, Pruning, Stop};
    use crate::model::{InputKind, InputSpec};
    use crate::rng::Rng;

    /// `x0·x1 + x2` over 16 Boolean inputs, with `noise` of the labels flipped: `n` rows.
    fn noisy_target(n: usize, noise: f64, seed: u64) -> (Vec<InputSpec>, Vec<Vec<i32>>, Vec<usize>) {
        let inputs = vec![InputSpec { kind: InputKind::Categorical { n_values: 2 }, missing: 2 }; 16];
        let mut rng = Rng::new(seed);
        let rows: Vec<Vec<i32>> = (0..n).map(|_| (0..16).map(|_| rng.below(2) as i32).collect()).collect();
        let labels = rows
            .iter()
            .map(|x| usize::from(x[0] & x[1] == 1 || x[2] == 1) ^ usize::from(rng.f64() < noise))
            .collect();
        (inputs, rows, labels)
    }

    /// On many noisy rows the default chooses the size on held-out rows: the final tree is the
    /// target's, where reduced-error pruning on the same held-out third keeps tests that fit
    /// the noise of the growing rows.
    #[test]
    fn size_chosen_on_held_out_rows_follows_the_signal_not_the_noise() {
        let n = crate::data::split::HOLD_OUT_PRUNING_ROWS + 2_000;
        let (inputs, rows, labels) = noisy_target(n, 0.2, 3);
        let default = Params::default();
        assert!(default.chooses_size(n) && !default.chooses_size(n - 2_001));
        let chosen = Fringe::learn(&inputs, &rows, &labels, 2, &default, 5).unwrap();
        let reduced = Fringe::learn(&inputs, &rows, &labels, 2, &Params::paper(), 5).unwrap();
        assert!(chosen.size_penalty.is_some() && reduced.size_penalty.is_none());
        assert_eq!(chosen.prune_rows, reduced.prune_rows);
        // Every input gets the target's class.
        for r in 0..1 << 16 {
            let x: Vec<i32> = (0..16).map(|i| (r >> i) & 1).collect();
            assert_eq!(chosen.predict(&x), usize::from(x[0] & x[1] == 1 || x[2] == 1), "{x:?}");
        }
        let (a, b) = (chosen.tree().decision_nodes(), reduced.tree().decision_nodes());
        assert!(a <= 3 && a < b, "{a} decision nodes against reduced-error pruning's {b}");
        // The final iteration is the best on the held-out rows, and the iteration went on for at
        // most PATIENCE trees after it.
        assert!(chosen.iterations.len() - 1 - chosen.final_iteration <= super::PATIENCE);
    }

    /// `ltu train --json` shows the stop reason and the pruning as these strings.
    #[test]
    fn report_fields_serialize_as_the_strings_ltu_train_prints() {
        let json = |v: serde_json::Value| v.as_str().map(str::to_string);
        assert_eq!(json(serde_json::json!(Stop::NoNewFeature)).as_deref(), Some("NoNewFeature"));
        assert_eq!(json(serde_json::json!(Stop::MaxIterations)).as_deref(), Some("MaxIterations"));
        let pruning = [
            (Pruning::ErrorBased { z: 0.6745 }, "error-based (z = 0.6745)"),
            (Pruning::ReducedError { rows: 4000 }, "reduced-error on 4000 held-out rows"),
            (
                Pruning::CostComplexity { alpha: 0.25, rows: 33333 },
                "cost-complexity (0.2500 errors per byte) chosen on 33333 held-out rows",
            ),
            (Pruning::None, "none"),
        ];
        for (p, s) in pruning {
            assert_eq!(json(serde_json::json!(p)).as_deref(), Some(s));
        }
    }
}
