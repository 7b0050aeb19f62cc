//! The trainer's owned description of a model — its intermediate representation — with the
//! reference evaluator and size figures.
//!
//! Every learning algorithm produces a [`ModelSpec`]. [`ModelSpec::predict`] is a straightforward
//! evaluator with the runtime's integer semantics, used to check the runtime (and, through it, the
//! firmware and generated code) bit for bit; [`ModelSpec::stats`] gives what a prediction costs.
//! The byte codec is [`crate::model`] (`ModelSpec::to_bytes`, `ModelSpec::from_model`).

pub use ltu_runtime::WeightKind;

use std::collections::HashMap;

use crate::model::quantize;

/// One raw input of a model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputSpec {
    /// Numeric or categorical.
    pub kind: InputKind,
    /// Raw value substituted for a missing value.
    pub missing: i32,
}

/// Kind of a raw input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    /// Number; a decimal value `v` is the raw input `round(v * 10^scale_exp) - offset`
    /// ([`crate::data::encode::to_raw`]).
    Numeric {
        /// Decimal exponent of the raw unit: one raw unit is `10^-scale_exp`.
        scale_exp: i8,
        /// The value raw 0 stands for, in raw units (`offset * 10^-scale_exp`).
        offset: i64,
    },
    /// Value index `0..n_values`.
    Categorical {
        /// Number of values.
        n_values: u16,
    },
}

/// Comparison of a conjunction literal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LiteralOp {
    /// `x == value`
    Eq,
    /// `x != value`
    Ne,
    /// `x > value`
    Gt,
    /// `x <= value`
    Le,
}

/// One literal of a conjunction feature.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Literal {
    /// Raw input index.
    pub attr: usize,
    /// Comparison.
    pub op: LiteralOp,
    /// Compared raw value.
    pub value: i32,
}

impl Literal {
    /// Whether the literal holds for raw inputs `x`.
    pub fn holds(&self, x: &[i32]) -> bool {
        let v = x[self.attr];
        match self.op {
            LiteralOp::Eq => v == self.value,
            LiteralOp::Ne => v != self.value,
            LiteralOp::Gt => v > self.value,
            LiteralOp::Le => v <= self.value,
        }
    }
}

/// A feature that units read, computed from raw inputs.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Feature {
    /// `clamp(((x - offset) * mul) >> shift, -max_abs, max_abs)`.
    Numeric {
        /// Raw input.
        attr: usize,
        /// Subtracted first.
        offset: i32,
        /// Multiplier.
        mul: i16,
        /// Arithmetic right shift, `0..=32`.
        shift: u8,
        /// Clamp bound, `1..=32767`.
        max_abs: u16,
    },
    /// `+1` if `x == value` else `-1`.
    Equals {
        /// Raw input.
        attr: usize,
        /// Compared value.
        value: i32,
    },
    /// `+1` if `x > value` else `-1`.
    Greater {
        /// Raw input.
        attr: usize,
        /// Compared value.
        value: i32,
    },
    /// `+1` if every literal holds else `-1`.
    Conjunction(Vec<Literal>),
}

impl Feature {
    /// The feature's value for raw inputs `x` (same arithmetic as the runtime).
    pub fn value(&self, x: &[i32]) -> i32 {
        let sign = |b: bool| if b { 1 } else { -1 };
        match self {
            Feature::Numeric { attr, offset, mul, shift, max_abs } => {
                let q = ((i64::from(x[*attr]) - i64::from(*offset)) * i64::from(*mul)) >> shift;
                q.clamp(-i64::from(*max_abs), i64::from(*max_abs)) as i32
            }
            Feature::Equals { attr, value } => sign(x[*attr] == *value),
            Feature::Greater { attr, value } => sign(x[*attr] > *value),
            Feature::Conjunction(lits) => sign(lits.iter().all(|l| l.holds(x))),
        }
    }

    /// Largest absolute value the feature can take.
    pub fn max_abs(&self) -> i64 {
        match self {
            Feature::Numeric { max_abs, .. } => i64::from(*max_abs),
            _ => 1,
        }
    }
}

/// A linear threshold unit: a binary LTU (one row) or a linear machine (one row per class).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    /// Feature index of each term.
    pub terms: Vec<usize>,
    /// Rows of `terms.len() + 1` stored weights (bias last): integers, or `I16F16` bits for
    /// [`WeightKind::Fixed`].
    pub rows: Vec<Vec<i64>>,
    /// Binary unit: `[negative, positive]`; machine: the class of each row.
    pub classes: Vec<usize>,
}

impl Unit {
    /// Score of row `o` for feature values `f` (indexed by feature).
    pub fn row_score(&self, o: usize, f: &[i32]) -> i64 {
        let row = &self.rows[o];
        let bias = row[self.terms.len()];
        self.terms.iter().zip(row).fold(bias, |acc, (&t, &w)| acc + w * i64::from(f[t]))
    }

    /// The class the unit chooses: binary, positive iff score > 0; machine, argmax with ties to
    /// the lowest row.
    pub fn decide(&self, f: &[i32]) -> usize {
        if self.rows.len() == 1 {
            return if self.row_score(0, f) > 0 { self.classes[1] } else { self.classes[0] };
        }
        let mut best = (i64::MIN, self.classes[0]);
        for o in 0..self.rows.len() {
            let s = self.row_score(o, f);
            if o == 0 || s > best.0 {
                best = (s, self.classes[o]);
            }
        }
        best.1
    }

    /// Non-zero weights, biases excluded.
    pub fn nonzero_weights(&self) -> usize {
        self.rows.iter().map(|r| r[..self.terms.len()].iter().filter(|w| **w != 0).count()).sum()
    }
}

/// A tree node.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Node {
    /// Leaf with a constant class.
    Class(usize),
    /// Leaf decided by a unit.
    Unit(usize),
    /// One child per value of a categorical input; `default` for unknown values.
    Categorical {
        /// Raw input.
        attr: usize,
        /// Child per value.
        children: Vec<usize>,
        /// Child for a value outside `0..n_values`.
        default: usize,
    },
    /// `x <= threshold` goes left.
    Threshold {
        /// Raw input.
        attr: usize,
        /// Threshold in raw units.
        threshold: i32,
        /// Child when `x <= threshold`.
        left: usize,
        /// Child otherwise.
        right: usize,
    },
    /// Binary unit: score `<= 0` goes left.
    UnitSplit {
        /// Binary unit.
        unit: usize,
        /// Child when the score is `<= 0`.
        left: usize,
        /// Child otherwise.
        right: usize,
    },
}

/// Where a tree node sends an input: to a child, or it is a leaf.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// A decision node's child for the input.
    Next(usize),
    /// A constant leaf's class.
    Class(usize),
    /// A leaf decided by this unit.
    Unit(usize),
}

impl Node {
    /// Where this node sends raw inputs `x`; `positive(u)` says whether unit `u` of a unit split
    /// scores above 0 (the only test that needs the feature values).
    pub fn step(&self, x: &[i32], positive: impl FnOnce(usize) -> bool) -> Step {
        match self {
            Node::Class(c) => Step::Class(*c),
            Node::Unit(u) => Step::Unit(*u),
            Node::Categorical { attr, children, default } => Step::Next(
                usize::try_from(x[*attr]).ok().and_then(|v| children.get(v)).copied().unwrap_or(*default),
            ),
            Node::Threshold { attr, threshold, left, right } => {
                Step::Next(if x[*attr] <= *threshold { *left } else { *right })
            }
            Node::UnitSplit { unit, left, right } => Step::Next(if positive(*unit) { *right } else { *left }),
        }
    }
}

/// How the units are arranged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Structure {
    /// Node 0 is the root; children have larger indices.
    Tree(Vec<Node>),
    /// `(binary unit, class)` entries tried in order, then `default`.
    List {
        /// Entries.
        entries: Vec<(usize, usize)>,
        /// Class when no entry fires.
        default: usize,
    },
    /// One unit.
    Linear(usize),
}

/// Human-readable names stored with a model (optional in the file).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Names {
    /// One per input.
    pub inputs: Vec<String>,
    /// Per input: its category names (empty for numeric inputs).
    pub values: Vec<Vec<String>>,
    /// One per class.
    pub classes: Vec<String>,
}

/// A complete model, owned, before encoding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelSpec {
    /// Number of classes.
    pub n_classes: usize,
    /// Storage of weights.
    pub weight_kind: WeightKind,
    /// Raw inputs.
    pub inputs: Vec<InputSpec>,
    /// Features.
    pub features: Vec<Feature>,
    /// Units.
    pub units: Vec<Unit>,
    /// Arrangement.
    pub structure: Structure,
    /// Optional names.
    pub names: Option<Names>,
    /// The sensor pipeline that computes the inputs from raw samples, if the model was trained
    /// on recordings.
    pub pipeline: Option<super::Pipeline>,
}

/// What predicting a set of rows costs ([`ModelSpec::row_cost`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct RowCost {
    /// Mean multiply-accumulates per row.
    pub mean_macs: f64,
    /// Most multiply-accumulates of one row (at most [`Stats::max_macs`], the worst path).
    pub max_macs: u64,
    /// Mean [`ModelSpec::essential_work`] per row: Cortex-M3 instructions a minimal evaluator
    /// needs (the yardstick of [`ModelSpec::essential_work`]).
    pub mean_essential_work: f64,
    /// Most essential work of one row.
    pub max_essential_work: u64,
}

/// Size figures of a model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct Stats {
    /// Decision (split) nodes of a tree.
    pub decision_nodes: usize,
    /// Leaves of a tree, or entries plus default of a list.
    pub leaves: usize,
    /// Units (binary LTUs and linear machines).
    pub ltus: usize,
    /// Non-zero weights, biases excluded.
    pub weights_nonzero: usize,
    /// Worst-case multiply-accumulates of one prediction: `rows × terms` of the units on its most
    /// expensive path. For a model read back from its file ([`ModelSpec::from_model`], what
    /// `ltu train` reports and budgets count) that is what the runtime multiplies: a unit stored
    /// dense reads every standard feature, zero weights included (generated code skips zeros).
    pub max_macs: u64,
    /// Longest path (tree levels; list entries + 1).
    pub max_depth: usize,
}

impl ModelSpec {
    /// Feature values for raw inputs `x`.
    pub fn feature_values(&self, x: &[i32]) -> Vec<i32> {
        self.features.iter().map(|f| f.value(x)).collect()
    }

    /// Reference prediction for raw inputs `x` (`x.len()` must equal the number of inputs).
    pub fn predict(&self, x: &[i32]) -> usize {
        let f = self.feature_values(x);
        match &self.structure {
            Structure::Linear(u) => self.units[*u].decide(&f),
            Structure::List { entries, default } => entries
                .iter()
                .find(|(u, _)| self.units[*u].row_score(0, &f) > 0)
                .map_or(*default, |&(_, c)| c),
            Structure::Tree(nodes) => {
                let mut i = 0;
                loop {
                    i = match nodes[i].step(x, |u| self.units[u].row_score(0, &f) > 0) {
                        Step::Next(next) => next,
                        Step::Class(c) => return c,
                        Step::Unit(u) => return self.units[u].decide(&f),
                    }
                }
            }
        }
    }

    /// The essential work of predicting `x`, in Cortex-M3 instructions: a yardstick for what
    /// a prediction cannot do without, fixed so that measured device counts can be divided by it: 10, plus 6 per tree node visited (its leaf
    /// included), 15 per numeric feature, 5 per comparison feature (`==`, `>`), 4 per
    /// conjunction and 6 per literal it tests (up to the first that fails), 5 per non-zero
    /// weight multiplied, 8 per unit row scored and 6 per list entry tried. Each feature counts
    /// once per prediction, however many units read it. A weight on a categorical input's
    /// `±1` feature counts as a multiply-accumulate.
    ///
    /// `cargo xtask bench-device` divides each model's measured instructions by this.
    pub fn essential_work(&self, x: &[i32]) -> u64 {
        let mut seen = vec![false; self.features.len()];
        let mut cost = 10u64;
        let f = self.feature_values(x);
        let tested = |lits: &[Literal]| lits.iter().position(|l| !l.holds(x)).map_or(lits.len(), |i| i + 1);
        match &self.structure {
            Structure::Linear(u) => cost += self.unit_work(*u, &mut seen, &tested),
            Structure::List { entries, .. } => {
                for &(u, _) in entries {
                    cost += 6 + self.unit_work(u, &mut seen, &tested);
                    if self.units[u].row_score(0, &f) > 0 {
                        break;
                    }
                }
            }
            Structure::Tree(nodes) => {
                let mut i = 0;
                loop {
                    cost += 6;
                    if let Node::UnitSplit { unit: u, .. } = &nodes[i] {
                        cost += self.unit_work(*u, &mut seen, &tested);
                    }
                    i = match nodes[i].step(x, |u| self.units[u].row_score(0, &f) > 0) {
                        Step::Next(next) => next,
                        Step::Class(_) => break,
                        Step::Unit(u) => {
                            cost += self.unit_work(u, &mut seen, &tested);
                            break;
                        }
                    };
                }
            }
        }
        cost
    }

    /// The most [`ModelSpec::essential_work`] of any prediction: every list entry tried, every
    /// literal of a conjunction tested, the most expensive root-to-leaf path of a tree (each
    /// feature counted once per path). An upper bound for every input; what
    /// `--max-instructions` bounds (generated code stays within it, docs/DEVICE.md).
    pub fn max_essential_work(&self) -> u64 {
        let mut seen = vec![false; self.features.len()];
        let all = |lits: &[Literal]| lits.len();
        10 + match &self.structure {
            Structure::Linear(u) => self.unit_work(*u, &mut seen, &all),
            Structure::List { entries, .. } => {
                entries.iter().map(|&(u, _)| 6 + self.unit_work(u, &mut seen, &all)).sum()
            }
            Structure::Tree(nodes) => self.path_work(nodes, 0, &mut seen, &mut HashMap::new()),
        }
    }

    /// The most essential work from tree node `i` to a leaf, given the features `seen` on the
    /// way to it (restored on return). A reduced tree shares subtrees, so the number of paths can
    /// grow exponentially with its depth: each node's result is kept per `seen` state in `memo`,
    /// which keeps the walk linear in the nodes when no unit changes what is seen.
    fn path_work(
        &self,
        nodes: &[Node],
        i: usize,
        seen: &mut Vec<bool>,
        memo: &mut HashMap<(usize, Vec<bool>), u64>,
    ) -> u64 {
        let key = (i, seen.clone());
        if let Some(&work) = memo.get(&key) {
            return work;
        }
        let unit = match &nodes[i] {
            Node::Unit(u) | Node::UnitSplit { unit: u, .. } => Some(*u),
            _ => None,
        };
        let own = unit.map_or(0, |u| self.unit_work(u, seen, &|lits: &[Literal]| lits.len()));
        let mut kids: Vec<usize> = match &nodes[i] {
            Node::Class(_) | Node::Unit(_) => Vec::new(),
            Node::Categorical { children, default, .. } => {
                children.iter().copied().chain([*default]).collect()
            }
            Node::Threshold { left, right, .. } | Node::UnitSplit { left, right, .. } => vec![*left, *right],
        };
        kids.sort_unstable();
        kids.dedup();
        let rest = kids.into_iter().map(|k| self.path_work(nodes, k, seen, memo)).max().unwrap_or(0);
        if unit.is_some() {
            // Restore what this node's unit marked.
            seen.clone_from(&key.1);
        }
        let work = 6 + own + rest;
        memo.insert(key, work);
        work
    }

    /// Essential work of scoring unit `u`: 8 per row, 5 per non-zero weight, and each feature
    /// with a non-zero weight not yet `seen` (then marked): 15 numeric, 5 a comparison, 4 plus 6
    /// per literal `tested(literals)` says is tested for a conjunction.
    fn unit_work(&self, u: usize, seen: &mut [bool], tested: &dyn Fn(&[Literal]) -> usize) -> u64 {
        let unit = &self.units[u];
        let mut cost = 8 * unit.rows.len() as u64 + 5 * unit.nonzero_weights() as u64;
        for (j, &t) in unit.terms.iter().enumerate() {
            if seen[t] || unit.rows.iter().all(|r| r[j] == 0) {
                continue;
            }
            seen[t] = true;
            cost += match &self.features[t] {
                Feature::Numeric { .. } => 15,
                Feature::Equals { .. } | Feature::Greater { .. } => 5,
                Feature::Conjunction(lits) => 4 + 6 * tested(lits) as u64,
            };
        }
        cost
    }

    /// Multiply-accumulates of predicting `x`: `rows × terms` of every unit the prediction
    /// evaluates (a tree's unit splits on its path and its leaf, a list's entries up to the one
    /// that fires), as [`Stats::max_macs`] counts them on the worst path.
    pub fn macs(&self, x: &[i32]) -> u64 {
        let macs = |u: usize| {
            let unit = &self.units[u];
            (unit.rows.len() * unit.terms.len()) as u64
        };
        match &self.structure {
            Structure::Linear(u) => macs(*u),
            Structure::List { entries, .. } => {
                let f = self.feature_values(x);
                let mut total = 0;
                for &(u, _) in entries {
                    total += macs(u);
                    if self.units[u].row_score(0, &f) > 0 {
                        break;
                    }
                }
                total
            }
            Structure::Tree(nodes) => {
                let f = self.feature_values(x);
                let (mut i, mut total) = (0, 0);
                loop {
                    if let Node::UnitSplit { unit: u, .. } = &nodes[i] {
                        total += macs(*u);
                    }
                    i = match nodes[i].step(x, |u| self.units[u].row_score(0, &f) > 0) {
                        Step::Next(next) => next,
                        Step::Class(_) => return total,
                        Step::Unit(u) => return total + macs(u),
                    };
                }
            }
        }
    }

    /// Mean and largest [`ModelSpec::macs`] and [`ModelSpec::essential_work`] over `rows`.
    pub fn row_cost(&self, rows: &[Vec<i32>]) -> RowCost {
        let n = rows.len().max(1) as f64;
        let (mut macs, mut work) = ((0u64, 0u64), (0u64, 0u64));
        for x in rows {
            let (m, w) = (self.macs(x), self.essential_work(x));
            macs = (macs.0 + m, macs.1.max(m));
            work = (work.0 + w, work.1.max(w));
        }
        RowCost {
            mean_macs: macs.0 as f64 / n,
            max_macs: macs.1,
            mean_essential_work: work.0 as f64 / n,
            max_essential_work: work.1,
        }
    }

    /// Size and cost figures.
    pub fn stats(&self) -> Stats {
        let macs = |u: usize| {
            let unit = &self.units[u];
            (unit.rows.len() * unit.terms.len()) as u64
        };
        let mut s = Stats {
            ltus: self.units.len(),
            weights_nonzero: self.units.iter().map(Unit::nonzero_weights).sum(),
            ..Stats::default()
        };
        match &self.structure {
            Structure::Linear(u) => {
                s.max_macs = macs(*u);
                s.max_depth = 1;
                s.leaves = 1;
            }
            Structure::List { entries, .. } => {
                s.max_macs = entries.iter().map(|(u, _)| macs(*u)).sum();
                s.max_depth = entries.len() + 1;
                s.leaves = entries.len() + 1;
            }
            Structure::Tree(nodes) => {
                // Links point forward: fill costs from the last node back.
                let mut cost = vec![(0u64, 0usize); nodes.len()];
                for i in (0..nodes.len()).rev() {
                    let kids: Vec<usize> = match &nodes[i] {
                        Node::Class(_) | Node::Unit(_) => vec![],
                        Node::Categorical { children, default, .. } => {
                            children.iter().copied().chain([*default]).collect()
                        }
                        Node::Threshold { left, right, .. } | Node::UnitSplit { left, right, .. } => {
                            vec![*left, *right]
                        }
                    };
                    let own = match &nodes[i] {
                        Node::Unit(u) | Node::UnitSplit { unit: u, .. } => macs(*u),
                        _ => 0,
                    };
                    if kids.is_empty() {
                        s.leaves += 1;
                    } else {
                        s.decision_nodes += 1;
                    }
                    let (m, d) =
                        kids.iter().map(|&k| cost[k]).fold((0, 0), |a, b| (a.0.max(b.0), a.1.max(b.1)));
                    cost[i] = (own + m, d + 1);
                }
                (s.max_macs, s.max_depth) = cost.first().copied().unwrap_or_default();
            }
        }
        s
    }

    /// The smallest integer weight kind that holds every weight and passes the runtime's
    /// accumulator bound, or `None` if even `i32` does not (then use [`ModelSpec::rescale`]).
    pub fn smallest_integer_kind(&self) -> Option<WeightKind> {
        [WeightKind::I8, WeightKind::I16, WeightKind::I32].into_iter().find(|&k| self.fits(k))
    }

    /// Whether every weight fits `kind` and every accumulator bound holds
    /// ([`quantize::rows_fit`] for each unit).
    pub fn fits(&self, kind: WeightKind) -> bool {
        self.units.iter().all(|u| quantize::rows_fit(&u.rows, &self.term_bounds(u), kind))
    }

    /// Scales each unit's weights down by a common power of two (per unit, rounding to nearest) so
    /// that the model fits `kind` ([`quantize::rescale`]); returns how many units were scaled.
    /// Scaling can change predictions where scores were close to a decision boundary: callers
    /// re-measure accuracy.
    pub fn rescale(&mut self, kind: WeightKind) -> usize {
        let mut scaled = 0;
        for i in 0..self.units.len() {
            let bounds = self.term_bounds(&self.units[i]);
            if quantize::rescale(&mut self.units[i].rows, &bounds, kind) > 0 {
                scaled += 1;
            }
        }
        self.weight_kind = kind;
        scaled
    }

    /// Largest absolute value of each term of `unit` (its feature's [`Feature::max_abs`]).
    pub fn term_bounds(&self, unit: &Unit) -> Vec<i64> {
        unit.terms.iter().map(|&t| self.features[t].max_abs()).collect()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A small tree over a numeric input `x` and a categorical input `color` (3 values) with
    /// three classes, using every node kind, a dense machine and a sparse binary unit over a
    /// conjunction:
    ///
    /// ```text
    /// 0: x <= 5 ? 1 : 2
    /// 1: unit 0 (machine over the standard features)
    /// 2: color: red -> 3, green -> 4, blue -> 3, else 4
    /// 3: unit 1 (3 * [x > 20 and color == red] - 1) > 0 ? 5 : 4
    /// 4: class 0
    /// 5: class 2
    /// ```
    ///
    /// Its features are the standard ones first and the feature table after, as
    /// `ModelSpec::from_model` rebuilds them, so encoding and decoding it gives it back.
    pub(crate) fn tiny_tree() -> ModelSpec {
        let conj = Feature::Conjunction(vec![
            Literal { attr: 0, op: LiteralOp::Gt, value: 20 },
            Literal { attr: 1, op: LiteralOp::Eq, value: 0 },
        ]);
        ModelSpec {
            pipeline: None,
            n_classes: 3,
            weight_kind: WeightKind::I8,
            inputs: vec![
                InputSpec { kind: InputKind::Numeric { scale_exp: 1, offset: 0 }, missing: 3 },
                InputSpec { kind: InputKind::Categorical { n_values: 3 }, missing: 0 },
            ],
            features: vec![
                Feature::Numeric { attr: 0, offset: 10, mul: 3, shift: 1, max_abs: 100 },
                Feature::Equals { attr: 1, value: 0 },
                Feature::Equals { attr: 1, value: 1 },
                Feature::Equals { attr: 1, value: 2 },
                conj,
            ],
            units: vec![
                Unit {
                    terms: vec![0, 1, 2, 3],
                    rows: vec![vec![0, 1, 0, 0, 1], vec![-1, 0, 2, 0, 0], vec![0, 0, 0, 3, 0]],
                    classes: vec![0, 1, 2],
                },
                Unit { terms: vec![4], rows: vec![vec![3, -1]], classes: vec![0, 2] },
            ],
            structure: Structure::Tree(vec![
                Node::Threshold { attr: 0, threshold: 5, left: 1, right: 2 },
                Node::Unit(0),
                Node::Categorical { attr: 1, children: vec![3, 4, 3], default: 4 },
                Node::UnitSplit { unit: 1, left: 4, right: 5 },
                Node::Class(0),
                Node::Class(2),
            ]),
            names: Some(Names {
                inputs: vec!["x".into(), "color".into()],
                values: vec![vec![], vec!["red".into(), "green".into(), "blue".into()]],
                classes: vec!["a".into(), "b".into(), "c".into()],
            }),
        }
    }

    #[test]
    fn numeric_feature_scales_then_clamps() {
        let f = Feature::Numeric { attr: 0, offset: 10, mul: 3, shift: 1, max_abs: 100 };
        // ((5 - 10) * 3) >> 1 = -15 >> 1 = -8 (arithmetic shift rounds down).
        assert_eq!(f.value(&[5]), -8);
        assert_eq!(f.value(&[1000]), 100);
        assert_eq!(f.value(&[-1000]), -100);
        assert_eq!(Feature::Greater { attr: 0, value: 4 }.value(&[5]), 1);
        assert_eq!(Feature::Equals { attr: 0, value: 4 }.value(&[5]), -1);
    }

    #[test]
    fn machine_ties_go_to_the_lowest_row() {
        let u =
            Unit { terms: vec![0], rows: vec![vec![1, 0], vec![1, 0], vec![0, 0]], classes: vec![7, 8, 9] };
        assert_eq!(u.decide(&[2]), 7);
        assert_eq!(u.decide(&[-2]), 9);
        let binary = Unit { terms: vec![0], rows: vec![vec![1, 0]], classes: vec![4, 5] };
        // A binary unit is positive only above zero.
        assert_eq!(binary.decide(&[0]), 4);
        assert_eq!(binary.decide(&[1]), 5);
    }

    #[test]
    fn reference_evaluator_walks_the_tree() {
        let m = tiny_tree();
        // x <= 5: the machine decides; scores 2, 6, -3.
        assert_eq!(m.predict(&[5, 0]), 1);
        // x > 5, red, conjunction holds: the unit split goes right.
        assert_eq!(m.predict(&[30, 0]), 2);
        // x > 5, red, x <= 20: the conjunction fails.
        assert_eq!(m.predict(&[15, 0]), 0);
        // Green goes straight to class 0; an unknown value takes the default child.
        assert_eq!(m.predict(&[30, 1]), 0);
        assert_eq!(m.predict(&[30, 7]), 0);
    }

    #[test]
    fn reference_evaluator_walks_a_list() {
        let mut m = tiny_tree();
        m.structure = Structure::List { entries: vec![(1, 1)], default: 2 };
        assert_eq!(m.predict(&[30, 0]), 1);
        assert_eq!(m.predict(&[30, 1]), 2);
        assert_eq!(m.macs(&[30, 1]), 1);
        m.structure = Structure::Linear(0);
        assert_eq!(m.predict(&[5, 0]), 1);
    }

    #[test]
    fn essential_work_counts_the_path_taken() {
        let m = tiny_tree();
        // 10 + 2 nodes * 6 + 3 rows * 8 + 4 weights * 5 + one numeric feature (15) + three
        // comparisons (5 each).
        assert_eq!(m.essential_work(&[5, 0]), 10 + 12 + 24 + 20 + 15 + 15);
        // 10 + 4 nodes * 6 + one row (8) + one weight (5) + a conjunction testing both literals.
        assert_eq!(m.essential_work(&[30, 0]), 10 + 24 + 8 + 5 + 4 + 12);
        // The conjunction stops at its first failing literal.
        assert_eq!(m.essential_work(&[15, 0]), 10 + 24 + 8 + 5 + 4 + 6);
        assert_eq!(m.macs(&[5, 0]), 12);
        assert_eq!(m.macs(&[30, 0]), 1);
        assert_eq!(m.macs(&[30, 1]), 0);
    }

    #[test]
    fn stats_take_the_worst_path() {
        let s = tiny_tree().stats();
        assert_eq!((s.ltus, s.weights_nonzero), (2, 5));
        assert_eq!((s.decision_nodes, s.leaves), (3, 3));
        assert_eq!((s.max_macs, s.max_depth), (12, 4));
        let cost = tiny_tree().row_cost(&[vec![5, 0], vec![30, 1]]);
        assert_eq!((cost.mean_macs, cost.max_macs), (6.0, 12));
    }

    #[test]
    fn smallest_kind_follows_the_weights() {
        let mut m = tiny_tree();
        assert_eq!(m.smallest_integer_kind(), Some(WeightKind::I8));
        m.units[1].rows[0][0] = 300;
        assert_eq!(m.smallest_integer_kind(), Some(WeightKind::I16));
        assert_eq!(m.rescale(WeightKind::I8), 1);
        assert!(m.fits(WeightKind::I8));
    }
}
