//! Sparse perceptrons learned by boosting conjunctions (Jackson & Craven 1996, "Learning Sparse
//! Perceptrons"): a single linear threshold unit over a few conjunctions of at most `k` literals,
//! found by AdaBoost with an exhaustive search over those conjunctions as the weak learner.
//!
//! # The method
//!
//! - **Hypothesis class** (section 2): a `k`-perceptron is `sign(Σ h_i(x))` over conjunctions
//!   `h_i ∈ C_k` of at most `k` inputs, each used in a positive (`+1` = true) or negated (`−1` =
//!   true) sense; `C_k` includes the empty conjunction (the constant `+1`, i.e. the bias).
//! - **Booster** (section 3.1, Figure 1): AdaBoost. With the distribution `D_i` over the training
//!   rows the weak learner returns `h_i`; `ε_i = Σ_{h_i(x) ≠ f(x)} D_i(x)`,
//!   `β_i = ε_i / (1 − ε_i)`, the weight of every correctly classified row is multiplied by
//!   `β_i`, and the final hypothesis is `sign(Σ −ln(β_i) · h_i(x))`.
//! - **Weak learner** (sections 3.2 and 3.3): exhaustive search of `C_k` for the conjunction with
//!   the largest correlation `|E_D[f · h]|` (its sign chooses the positive or negated sense),
//!   where the correlation of every high-order conjunction (two literals or more) is multiplied
//!   by `1/k`, so simple features are preferred. The search is exact but pruned (branch and
//!   bound): adding literals only shrinks the set of rows a conjunction covers, which bounds the
//!   correlation of every extension (see [`Params::max_literals`] for the cost).
//! - **Stopping** (section 3.3): at most as many rounds as an ordinary perceptron has weights
//!   ([`Params::rounds`]), the number of rounds chosen by cross-validation on the training data
//!   ([`Params::validation_folds`]); boosting also stops when the combined hypothesis is
//!   consistent with the training data (section 3.2's consistency algorithm) or when no
//!   conjunction has weighted error below 1/2.
//!
//! # Beyond the paper
//!
//! - **Literals.** The paper has Boolean inputs (one per nominal value, section 3.3) and leaves
//!   real-valued features to future work (section 5). Here a categorical attribute gives the
//!   literals `x = v` (and, with [`Params::negated_literals`], `x ≠ v`); a numeric attribute gives
//!   `x > t` and `x ≤ t` for cut points `t` halfway between consecutive distinct training values,
//!   thinned to [`Params::max_cuts`] quantiles. Two literals on one attribute form a conjunction
//!   only when that is neither empty nor equal to one of them (`t₁ < x ≤ t₂`, `x ≠ v ∧ x ≠ w`).
//! - **Consistent weak hypothesis.** If some conjunction has weighted error 0 (`β = 0`,
//!   `−ln β = ∞`), it alone classifies every training row correctly and becomes the whole
//!   hypothesis.
//! - **Multi-class.** The paper only has two classes. With `K > 2` classes one booster per class
//!   learns that class against the rest; the exported unit is a linear machine with one row per
//!   class over the union of their conjunctions (zero weight where a class does not use one), and
//!   predicts the class with the largest score (ties to the lowest class).
//! - **Integer weights.** The paper's perceptrons have real weights (section 3.2 notes integer
//!   weights would need a different booster). [`fit`] multiplies all weights of the unit by one
//!   scale, the largest for which every weight and the accumulator bound fit the weight kind, and
//!   rounds ([`quantize::quantize`]); [`Quantization::changed_rows`] lists the training rows
//!   whose prediction changed.
//! - **Weight fit** ([`Params::weight_fit`], default [`WeightFit::Auto`]; the paper's votes with
//!   [`Params::paper`]). The boosted conjunctions are kept and the unit over them is refitted by
//!   L2-regularised logistic regression ([`crate::learners::unit_fit`]); `auto` chooses on a held-out
//!   quarter between the votes and refits (three penalties) over the conjunctions of the
//!   cross-validated rounds or of longer boosting ([`Params::refit_rounds`]), the smallest within
//!   one standard error of the most accurate.
//! - **Every conjunction** ([`Params::all_conjunctions`]). Boosting adds the one conjunction most
//!   correlated with the reweighted class at a time, so it misses concepts whose conjunctions
//!   are each weakly correlated with the class but needed together (MONK's problem 2, "exactly
//!   two of six attributes have their first value", is `−2·C(s,2) + 3s − 3.5 > 0` over the six
//!   literals `s` counts and all fifteen of their pairs). When there are few conjunctions of at
//!   most two literals, `auto` also refits over all of them and prunes the weakest weights
//!   ([`PRUNE_KEEP`] per step, then finer steps) as long as that costs no training row; that
//!   refit is one more
//!   candidate, after the others, so it is chosen only when it is clearly better on the held-out
//!   quarter.
//!
//! See `docs/SPARSE_PERCEPTRON.md` for the reproduction of section 4 and measurements.

use crate::data::split;
use crate::learn::{Context, Learner, TrainError};
use crate::learners::unit_fit;
use crate::model::quantize::{self, Grid, Quantized};
use crate::model::{
    Feature, InputKind, InputSpec, Literal, LiteralOp, ModelSpec, Structure, Unit, WeightKind,
};

/// Sparse perceptron options. The defaults are the paper's configuration (section 3.3) where it
/// has one.
#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    /// `k`: the most literals in one conjunction (section 3.3 uses `k = 2` throughout). The search
    /// is exhaustive, so its cost grows as `L^k` in the number of candidate literals `L` in the
    /// worst case; branch and bound usually prunes most of it.
    pub max_literals: usize,
    /// Most boosting rounds. `None`: the number of weights of an ordinary perceptron for the
    /// task, one per categorical value and one per numeric attribute (section 3.3), raised to
    /// [`Params::min_rounds`].
    pub rounds: Option<usize>,
    /// With [`Params::rounds`] `None`, the round limit is at least this many rounds on up to
    /// [`MIN_ROUNDS_ROWS`] training rows, and proportionally fewer on more rows (beyond the
    /// paper, whose limit is the ordinary perceptron's weight count alone: 0 in
    /// [`Params::paper`]). An ordinary perceptron over few inputs has few weights (4 on
    /// balance-scale), too few rounds for the conjunctions a concept needs.
    pub min_rounds: usize,
    /// Folds of the cross-validation on the training data that chooses the number of rounds
    /// (section 3.3: "we use cross validation to determine an appropriate termination point"; the
    /// paper does not say how many folds). 0 disables it: boost until [`Params::rounds`] or an
    /// early stop. Skipped when the training data has fewer than `2 · validation_folds` rows.
    pub validation_folds: usize,
    /// Multiply the correlation of conjunctions of two or more literals by `1/k` when choosing
    /// the weak hypothesis, preferring simple features (section 3.3).
    pub prefer_simple: bool,
    /// Also offer `x ≠ v` literals for categorical attributes (not in the paper, whose
    /// conjunctions are over the positive Boolean inputs).
    pub negated_literals: bool,
    /// Most cut points per numeric attribute (not in the paper, which has only discrete inputs).
    pub max_cuts: usize,
    /// Stop boosting as soon as the combined hypothesis classifies every training row correctly
    /// (the consistency algorithm of section 3.2). Off: keep boosting (AdaBoost keeps widening
    /// the margins) until the round limit or the cross-validated number of rounds.
    pub stop_when_consistent: bool,
    /// How the final unit's weights are set (beyond the paper): [`WeightFit::Auto`] by default,
    /// [`WeightFit::Boost`] (the paper's votes) in [`Params::paper`].
    pub weight_fit: WeightFit,
    /// [`WeightFit::Auto`] also boosts up to `refit_rounds` times the round limit (without the
    /// inner cross-validation) on its held-out split and tries refits over the conjunctions of
    /// the first `½, 1, 2, 4 …` times the limit of those rounds (see [`AUTO_ROUNDS`]); 0: only
    /// the cross-validated rounds (beyond the paper).
    pub refit_rounds: usize,
    /// [`WeightFit::Auto`] also refits over *every* conjunction of at most two literals (not
    /// only the ones boosting chose) when there are at most this many and the fit is small (see
    /// [`ALL_CONJUNCTIONS_WORK`]), then prunes the weakest weights step by step
    /// ([`PRUNE_KEEP`], finer once a step would cost a training row). 0: never (beyond the
    /// paper). Boosting's
    /// greedy choice misses concepts whose conjunctions are each weakly correlated with the class
    /// but needed together (MONK's problem 2: "exactly two attributes have their first value").
    pub all_conjunctions: usize,
}

crate::names::names!(WeightFit, "weight fit" { Boost => "boost", Logistic => "logistic", Auto => "auto" });

/// How the exported unit's weights are set (beyond the paper).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WeightFit {
    /// The boosted votes `−ln β_i`, summed per conjunction (Figure 1): the paper's.
    Boost,
    /// The conjunctions boosting chose are kept and the unit over them is refitted on the
    /// training rows by L2-regularised logistic regression ([`crate::learners::unit_fit`], penalty
    /// [`LOGISTIC_L2`]; softmax over the classes for more than two), then rounded.
    Logistic,
    /// Chooses on a seeded, stratified quarter of the training rows held out: boosting runs on
    /// the other rows and its unit is finished with the votes and with logistic refits at each
    /// penalty of [`AUTO_L2`]; the one most accurate on the held-out rows (ties: the stronger
    /// penalty first, the votes last) is then used for the model boosted on every row.
    #[default]
    Auto,
}

/// The L2 penalty of [`WeightFit::Logistic`] (and of [`WeightFit::Auto`] on fewer than 20 rows).
pub const LOGISTIC_L2: f64 = 0.1;

/// The L2 penalties [`WeightFit::Auto`] tries, strongest first.
pub const AUTO_L2: [f64; 3] = [1.0, 0.1, 0.01];

/// The round counts [`WeightFit::Auto`] tries for a refit without the inner cross-validation,
/// as multiples of the round limit (up to [`Params::refit_rounds`]), fewest first.
pub const AUTO_ROUNDS: [f64; 6] = [0.5, 1.0, 2.0, 4.0, 8.0, 16.0];

impl Params {
    /// The paper's configuration (section 3.3): `k = 2`, rounds chosen by 5-fold
    /// cross-validation up to the ordinary perceptron's weight count, the `1/k` preference, the
    /// consistency stop and the boosted votes as weights.
    pub fn paper() -> Self {
        Params {
            weight_fit: WeightFit::Boost,
            refit_rounds: 0,
            min_rounds: 0,
            all_conjunctions: 0,
            ..Params::default()
        }
    }

    /// Rejects options out of range and data this learner cannot use (`m` rows, `n_classes`).
    ///
    /// # Errors
    /// [`TrainError::InvalidOption`] naming the problem.
    pub fn check_for(p: &Params, m: usize, n_classes: usize) -> Result<(), TrainError> {
        if m == 0 {
            return Err(TrainError::InvalidOption("sparse: no training rows".into()));
        }
        if n_classes < 2 {
            return Err(TrainError::InvalidOption("sparse: needs at least two classes".into()));
        }
        if p.rounds == Some(0) || p.max_cuts == 0 || p.validation_folds == 1 {
            return Err(TrainError::InvalidOption(format!(
            "sparse: rounds must be at least 1, max_cuts at least 1 and validation_folds 0 or at least 2 \
             (got rounds {:?}, max_cuts {}, validation_folds {})",
            p.rounds, p.max_cuts, p.validation_folds
        )));
        }
        Ok(())
    }
}

impl Default for Params {
    fn default() -> Self {
        Params {
            max_literals: 2,
            rounds: None,
            min_rounds: 32,
            validation_folds: 5,
            prefer_simple: true,
            negated_literals: false,
            max_cuts: 16,
            stop_when_consistent: true,
            weight_fit: WeightFit::Auto,
            refit_rounds: 4,
            all_conjunctions: 256,
        }
    }
}

/// One boosting stage's weak hypothesis: a conjunction in its positive or negated sense and its
/// vote `−ln β` (Figure 1).
#[derive(Debug, Clone, PartialEq)]
pub struct WeakHypothesis {
    /// The conjunction's literals (empty: the constant `+1`), sorted.
    pub literals: Vec<Literal>,
    /// `+1`: the conjunction in its positive sense (`+1` when true); `−1`: negated.
    pub sign: i32,
    /// Vote `−ln β_i` in the final sum.
    pub alpha: f64,
    /// Weighted training error `ε_i` under the stage's distribution.
    pub error: f64,
}

impl WeakHypothesis {
    /// `h_i(x)`: `±1`.
    pub fn value(&self, x: &[i32]) -> i32 {
        if self.literals.iter().all(|l| l.holds(x)) {
            self.sign
        } else {
            -self.sign
        }
    }
}

/// Why a booster stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// It ran the allowed number of rounds.
    Rounds,
    /// The combined hypothesis classifies every training row correctly.
    Consistent,
    /// No conjunction has weighted error below 1/2.
    NoWeakHypothesis,
}

/// One AdaBoost run: a class against the rest (or class 1 against class 0).
#[derive(Debug, Clone, PartialEq)]
pub struct Booster {
    /// The class whose rows are the positive examples.
    pub class: usize,
    /// The weak hypotheses, in boosting order.
    pub hypotheses: Vec<WeakHypothesis>,
    /// Rounds allowed (chosen by cross-validation, or the limit).
    pub rounds_allowed: usize,
    /// Why boosting stopped.
    pub stop: Stop,
}

impl Booster {
    /// `Σ α_i h_i(x)`, summed in boosting order.
    pub fn score(&self, x: &[i32]) -> f64 {
        self.hypotheses.iter().map(|h| h.alpha * f64::from(h.value(x))).sum()
    }
}

/// How the real-valued votes became integer weights.
#[derive(Debug, Clone, PartialEq)]
pub struct Quantization {
    /// Kind of the stored weights.
    pub kind: WeightKind,
    /// Stored weight = `round(vote · scale)`.
    pub scale: f64,
    /// Training rows whose predicted class differs between the real-valued hypothesis
    /// ([`SparsePerceptron::predict`]) and the exported model ([`ModelSpec::predict`]).
    pub changed_rows: Vec<usize>,
}

/// A learned sparse perceptron: the boosted real-valued hypothesis and its integer export.
#[derive(Debug, Clone, PartialEq)]
pub struct SparsePerceptron {
    /// Number of classes.
    pub n_classes: usize,
    /// One booster for two classes (class 1 positive), else one per class.
    pub boosters: Vec<Booster>,
    /// The logistic refit of the unit over the boosters' conjunctions ([`WeightFit::Logistic`],
    /// or [`WeightFit::Auto`]'s choice); `None`: the weights are the boosted votes.
    pub refit: Option<Refit>,
    /// The exported model: one binary LTU or linear machine over conjunction features.
    pub spec: ModelSpec,
    /// How the weights were quantized.
    pub quantization: Quantization,
}

impl SparsePerceptron {
    /// The real-valued hypothesis's class for raw inputs `x`: the [`Refit`]'s if there is one;
    /// else the boosted votes': two classes, class 1 iff `Σ α_i h_i(x) > 0`; more, the class
    /// with the largest score, ties to the lowest.
    pub fn predict(&self, x: &[i32]) -> usize {
        match &self.refit {
            Some(r) => r.predict(x),
            None => SparsePerceptron::vote(&self.boosters)(x),
        }
    }

    /// The boosted votes' class for raw inputs (see [`SparsePerceptron::predict`]).
    fn vote(boosters: &[Booster]) -> impl Fn(&[i32]) -> usize + '_ {
        move |x| {
            if let [b] = boosters {
                return usize::from(b.score(x) > 0.0);
            }
            let mut best = (f64::NEG_INFINITY, 0);
            for (i, b) in boosters.iter().enumerate() {
                let s = b.score(x);
                if i == 0 || s > best.0 {
                    best = (s, b.class);
                }
            }
            best.1
        }
    }

    /// Distinct conjunctions (features) of the exported unit.
    pub fn n_conjunctions(&self) -> usize {
        self.spec.features.len()
    }
}

/// Candidate literals for the weak learner (see the module docs): `x = v` for every value `v` of a
/// categorical input seen in `rows` (and `x ≠ v` with [`Params::negated_literals`]); `x > t` and
/// `x ≤ t` for at most [`Params::max_cuts`] cut points of each numeric input.
pub fn candidate_literals(inputs: &[InputSpec], rows: &[Vec<i32>], p: &Params) -> Vec<Literal> {
    let mut literals = Vec::new();
    let mut column: Vec<i32> = Vec::with_capacity(rows.len());
    for (attr, spec) in inputs.iter().enumerate() {
        column.clear();
        column.extend(rows.iter().map(|r| r[attr]));
        column.sort_unstable();
        match spec.kind {
            InputKind::Categorical { n_values } => {
                column.dedup();
                for &value in column.iter().filter(|&&v| (0..i32::from(n_values)).contains(&v)) {
                    literals.push(Literal { attr, op: LiteralOp::Eq, value });
                    if p.negated_literals {
                        literals.push(Literal { attr, op: LiteralOp::Ne, value });
                    }
                }
            }
            InputKind::Numeric { .. } => {
                for t in cut_points(&column, p.max_cuts) {
                    literals.push(Literal { attr, op: LiteralOp::Gt, value: t });
                    literals.push(Literal { attr, op: LiteralOp::Le, value: t });
                }
            }
        }
    }
    literals
}

/// Cut points of a sorted column: `⌊(a + b) / 2⌋` between consecutive distinct values `a < b`
/// (so `x > t ⇔ x ≥ b` on the data); with more than `max_cuts` of them, the ones whose rank is
/// nearest to the `max_cuts` evenly spaced quantiles.
fn cut_points(sorted: &[i32], max_cuts: usize) -> Vec<i32> {
    // (number of values <= a, cut) for every boundary.
    let mut cuts: Vec<(usize, i32)> = Vec::new();
    for (i, w) in sorted.windows(2).enumerate() {
        if w[0] < w[1] {
            let mid = (i64::from(w[0]) + i64::from(w[1])).div_euclid(2);
            cuts.push((i + 1, mid as i32));
        }
    }
    if cuts.len() <= max_cuts {
        return cuts.into_iter().map(|c| c.1).collect();
    }
    let n = sorted.len() as f64;
    let mut chosen: Vec<i32> = (1..=max_cuts)
        .map(|q| {
            let target = n * q as f64 / (max_cuts + 1) as f64;
            let i = cuts.partition_point(|c| (c.0 as f64) < target);
            // The nearer of the boundaries either side of the quantile.
            let below = i.checked_sub(1).map(|j| (target - cuts[j].0 as f64, cuts[j].1));
            let above = cuts.get(i).map(|c| (c.0 as f64 - target, c.1));
            match (below, above) {
                (Some(b), Some(a)) => {
                    if b.0 <= a.0 {
                        b.1
                    } else {
                        a.1
                    }
                }
                (Some(b), None) => b.1,
                (None, Some(a)) => a.1,
                (None, None) => unreachable!("cuts is not empty"),
            }
        })
        .collect();
    chosen.dedup();
    chosen
}

/// Whether two literals may share a conjunction: always on different attributes; on the same one
/// only when the conjunction is neither empty nor equal to one of them.
fn compatible(a: &Literal, b: &Literal) -> bool {
    if a.attr != b.attr {
        return true;
    }
    match (a.op, b.op) {
        (LiteralOp::Ne, LiteralOp::Ne) => a.value != b.value,
        (LiteralOp::Gt, LiteralOp::Le) => a.value < b.value,
        (LiteralOp::Le, LiteralOp::Gt) => b.value < a.value,
        _ => false,
    }
}

/// How a literal tests its group's bucket index `b` (see [`Space`]).
#[derive(Clone, Copy)]
enum Test {
    /// `b == c` (`x = v`, `c` the value's position).
    Eq(u32),
    /// `b != c`.
    Ne(u32),
    /// `b > c` (`x > t_c`: more than `c` thresholds lie below `x`).
    Gt(u32),
    /// `b <= c`.
    Le(u32),
}

impl Test {
    fn holds(self, b: u32) -> bool {
        match self {
            Test::Eq(c) => b == c,
            Test::Ne(c) => b != c,
            Test::Gt(c) => b > c,
            Test::Le(c) => b <= c,
        }
    }
}

/// A run of consecutive literals on one attribute, all equality tests or all thresholds.
struct Group {
    /// Literals `start..end`.
    start: usize,
    end: usize,
    /// Number of bucket indices.
    n_buckets: usize,
}

/// The training rows seen through the literals: each group of literals on one attribute splits
/// the rows into buckets (the distinct compared values plus "other", or the intervals between
/// the thresholds), so the weight of the rows satisfying every literal of a group is found with
/// one pass over the rows and prefix sums over the buckets.
struct Space<'a> {
    literals: &'a [Literal],
    tests: Vec<Test>,
    /// Group of each literal.
    group_of: Vec<usize>,
    groups: Vec<Group>,
    /// Bucket of row `i` in group `q`: `bucket[q * m + i]`.
    bucket: Vec<u32>,
    m: usize,
    /// `+1` / `−1` label of each row.
    f: Vec<f64>,
}

impl<'a> Space<'a> {
    fn new(literals: &'a [Literal], rows: &[&[i32]], positive: &[bool]) -> Self {
        let m = rows.len();
        let threshold = |l: &Literal| matches!(l.op, LiteralOp::Gt | LiteralOp::Le);
        let (mut tests, mut group_of, mut groups, mut bucket) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut start = 0;
        while start < literals.len() {
            let first = &literals[start];
            let end = start
                + literals[start..]
                    .iter()
                    .take_while(|l| l.attr == first.attr && threshold(l) == threshold(first))
                    .count();
            let mut values: Vec<i32> = literals[start..end].iter().map(|l| l.value).collect();
            values.sort_unstable();
            values.dedup();
            let pos = |v: i32| values.binary_search(&v).expect("a group's own value") as u32;
            for l in &literals[start..end] {
                tests.push(match l.op {
                    LiteralOp::Eq => Test::Eq(pos(l.value)),
                    LiteralOp::Ne => Test::Ne(pos(l.value)),
                    LiteralOp::Gt => Test::Gt(pos(l.value)),
                    LiteralOp::Le => Test::Le(pos(l.value)),
                });
                group_of.push(groups.len());
            }
            for x in rows {
                let v = x[first.attr];
                bucket.push(if threshold(first) {
                    values.partition_point(|&t| t < v) as u32
                } else {
                    values.binary_search(&v).unwrap_or(values.len()) as u32
                });
            }
            groups.push(Group { start, end, n_buckets: values.len() + 1 });
            start = end;
        }
        let f = positive.iter().map(|&p| if p { 1.0 } else { -1.0 }).collect();
        Space { literals, tests, group_of, groups, bucket, m, f }
    }

    /// Whether literal `l` holds for row `i`.
    fn holds(&self, l: usize, i: usize) -> bool {
        self.tests[l].holds(self.bucket[self.group_of[l] * self.m + i])
    }
}

/// Weight of the positive rows, weight of the negative rows, and number of rows.
#[derive(Clone, Copy, Default)]
struct Mass {
    pos: f64,
    neg: f64,
    n: usize,
}

/// The weak learner's answer.
struct Choice {
    /// Indices into the literal list.
    path: Vec<usize>,
    /// Signed correlation `E_D[f · c]` of the conjunction `c` in its positive sense.
    corr: f64,
    /// `|corr|` times the simplicity factor.
    score: f64,
}

/// The exhaustive weak learner of sections 3.2–3.3, pruned by branch and bound.
struct Search<'s, 'a> {
    space: &'s Space<'a>,
    /// `D(x) · f(x)`.
    g: Vec<f64>,
    /// `g` split by sign, `(max(g, 0), max(−g, 0))`, so that accumulating bucket masses takes no
    /// branch on the row's label (which the row order makes unpredictable).
    g_pos: Vec<f64>,
    g_neg: Vec<f64>,
    /// `Σ g`: the correlation of the constant `+1`.
    total: f64,
    k: usize,
    /// Factor of conjunctions of two or more literals.
    factor: f64,
    /// Per depth: the rows the current path covers (depth 0: all rows).
    rows: Vec<Vec<u32>>,
    /// Per depth: bucket masses then their prefix sums, for the largest group.
    prefix: Vec<Vec<Mass>>,
    /// Per depth: the number of rows the current path covers.
    count: Vec<usize>,
    /// `k = 2`: the last level reads pair masses from [`Search::pair_masses`] instead of
    /// filtering rows (the same masses, summed in another order).
    pairs: bool,
    /// Per group `a` (once built for the current boosting round): for every group `q >= a`, the masses of the rows
    /// in bucket `ba` of `a` and `bq` of `q`, at `offsets[a][q - a] + ba * n_buckets(q) + bq`.
    pair_masses: Vec<Option<Vec<Mass>>>,
    offsets: Vec<Vec<usize>>,
    path: Vec<usize>,
    best: Choice,
}

impl<'s, 'a> Search<'s, 'a> {
    fn new(space: &'s Space<'a>, k: usize, factor: f64) -> Self {
        let widest = space.groups.iter().map(|g| g.n_buckets).max().unwrap_or(0);
        let mut rows = vec![Vec::with_capacity(space.m); k.max(1)];
        rows[0].extend(0..space.m as u32);
        let mut count = vec![0; k.max(1)];
        count[0] = space.m;
        let n_groups = space.groups.len();
        let offsets = (0..n_groups)
            .map(|a| {
                let na = space.groups[a].n_buckets;
                let mut offsets = vec![0];
                for q in a..n_groups {
                    offsets.push(offsets[offsets.len() - 1] + na * space.groups[q].n_buckets);
                }
                offsets
            })
            .collect();
        Search {
            space,
            g: vec![0.0; space.m],
            g_pos: vec![0.0; space.m],
            g_neg: vec![0.0; space.m],
            total: 0.0,
            k,
            factor,
            rows,
            prefix: vec![vec![Mass::default(); widest + 1]; k],
            count,
            pairs: k == 2,
            pair_masses: vec![None; n_groups],
            offsets,
            path: Vec::with_capacity(k),
            best: Choice { path: Vec::with_capacity(k), corr: 0.0, score: 0.0 },
        }
    }

    fn run(&mut self) {
        // The empty conjunction: the constant +1, covering every row.
        self.best.path.clear();
        self.best.corr = self.total;
        self.best.score = self.total.abs();
        // The weights changed: pair masses are rebuilt on demand.
        self.pair_masses.iter_mut().for_each(|h| *h = None);
        if self.k > 0 && !self.space.literals.is_empty() {
            self.extend(0, 0);
        }
    }

    /// Tries every compatible literal from `from` on after the current path of `depth` literals,
    /// whose rows are `self.rows[depth]`.
    fn extend(&mut self, depth: usize, from: usize) {
        let space = self.space;
        let parent = std::mem::take(&mut self.rows[depth]);
        let n_parent = self.count[depth];
        let mut prefix = std::mem::take(&mut self.prefix[depth]);
        let order = depth + 1;
        // The second literal of a pair: the first literal's buckets of the pair masses.
        let first = (self.pairs && depth == 1).then(|| self.path[0]);
        if let Some(l0) = first {
            self.build_pair_masses(space.group_of[l0]);
        }
        for q in space.group_of[from]..space.groups.len() {
            let group = &space.groups[q];
            // Bucket masses of the parent's rows, then prefix sums: prefix[b] = Σ buckets < b.
            let nb = group.n_buckets;
            prefix[..=nb].fill(Mass::default());
            match first {
                Some(l0) => {
                    let a = space.group_of[l0];
                    let masses = self.pair_masses[a].as_deref().expect("built above");
                    let block = &masses[self.offsets[a][q - a]..self.offsets[a][q - a + 1]];
                    for ba in (0..space.groups[a].n_buckets).filter(|&b| space.tests[l0].holds(b as u32)) {
                        for (p, c) in prefix[1..=nb].iter_mut().zip(&block[ba * nb..(ba + 1) * nb]) {
                            p.pos += c.pos;
                            p.neg += c.neg;
                            p.n += c.n;
                        }
                    }
                }
                None => {
                    let buckets = &space.bucket[q * space.m..(q + 1) * space.m];
                    for &i in &parent {
                        let i = i as usize;
                        let b = &mut prefix[buckets[i] as usize + 1];
                        b.pos += self.g_pos[i];
                        b.neg += self.g_neg[i];
                        b.n += 1;
                    }
                }
            }
            for b in 1..=nb {
                let (lo, hi) = (prefix[b - 1], &mut prefix[b]);
                hi.pos += lo.pos;
                hi.neg += lo.neg;
                hi.n += lo.n;
            }
            let range = |a: usize, b: usize| Mass {
                pos: prefix[b].pos - prefix[a].pos,
                neg: prefix[b].neg - prefix[a].neg,
                n: prefix[b].n - prefix[a].n,
            };
            for l in group.start.max(from)..group.end {
                let lit = &space.literals[l];
                if !self.path.iter().all(|&q| compatible(&space.literals[q], lit)) {
                    continue;
                }
                let mass = match space.tests[l] {
                    Test::Eq(c) => range(c as usize, c as usize + 1),
                    Test::Ne(c) => {
                        let (a, b) = (range(0, c as usize), range(c as usize + 1, nb));
                        Mass { pos: a.pos + b.pos, neg: a.neg + b.neg, n: a.n + b.n }
                    }
                    Test::Gt(c) => range(c as usize + 1, nb),
                    Test::Le(c) => range(0, c as usize + 1),
                };
                // Empty: the constant −1; everything: the parent again. Both tried already.
                if mass.n == 0 || mass.n == n_parent {
                    continue;
                }
                let corr = 2.0 * (mass.pos - mass.neg) - self.total;
                let score = if order >= 2 { corr.abs() * self.factor } else { corr.abs() };
                self.path.push(l);
                if score > self.best.score {
                    self.best.score = score;
                    self.best.corr = corr;
                    self.best.path.clear();
                    self.best.path.extend_from_slice(&self.path);
                }
                // An extension covers a subset: its Σ g lies in [−neg, pos].
                let bound = self.factor
                    * (2.0 * mass.pos - self.total).abs().max((2.0 * mass.neg + self.total).abs());
                if order < self.k && bound > self.best.score && l + 1 < space.literals.len() {
                    let child = &mut self.rows[depth + 1];
                    child.clear();
                    if !(self.pairs && depth == 0) {
                        child.extend(parent.iter().copied().filter(|&i| space.holds(l, i as usize)));
                    }
                    self.count[depth + 1] = mass.n;
                    self.extend(depth + 1, l + 1);
                }
                self.path.pop();
            }
        }
        self.rows[depth] = parent;
        self.prefix[depth] = prefix;
    }

    /// Builds the current boosting round's pair masses of group `a` (one pass over the rows per group `q >= a`)
    /// unless they exist.
    fn build_pair_masses(&mut self, a: usize) {
        if self.pair_masses[a].is_some() {
            return;
        }
        let space = self.space;
        let m = space.m;
        let mut masses = vec![Mass::default(); *self.offsets[a].last().expect("one offset per group")];
        let first = &space.bucket[a * m..(a + 1) * m];
        for q in a..space.groups.len() {
            let nb = space.groups[q].n_buckets;
            let block = &mut masses[self.offsets[a][q - a]..self.offsets[a][q - a + 1]];
            let second = &space.bucket[q * m..(q + 1) * m];
            for (((&ba, &bq), &pos), &neg) in first.iter().zip(second).zip(&self.g_pos).zip(&self.g_neg) {
                let c = &mut block[ba as usize * nb + bq as usize];
                c.pos += pos;
                c.neg += neg;
                c.n += 1;
            }
        }
        self.pair_masses[a] = Some(masses);
    }
}

/// Held-out rows whose errors a run records after every round.
struct Validation<'v> {
    rows: &'v [&'v [i32]],
    positive: &'v [bool],
}

/// Result of one AdaBoost run.
struct Run {
    hypotheses: Vec<WeakHypothesis>,
    stop: Stop,
    /// Validation errors after rounds `1..=hypotheses.len()`.
    validation_errors: Vec<usize>,
}

/// AdaBoost (Figure 1) with the weak learner of section 3.3, for at most `max_rounds` rounds.
fn boost(
    literals: &[Literal],
    rows: &[&[i32]],
    positive: &[bool],
    p: &Params,
    max_rounds: usize,
    validation: Option<&Validation<'_>>,
) -> Run {
    let m = rows.len();
    let space = Space::new(literals, rows, positive);
    let k = p.max_literals;
    let factor = if p.prefer_simple && k > 1 { 1.0 / k as f64 } else { 1.0 };
    let mut d = vec![1.0 / m as f64; m];
    let mut score = vec![0.0; m];
    let mut vscore = vec![0.0; validation.map_or(0, |v| v.rows.len())];
    let mut run = Run { hypotheses: Vec::new(), stop: Stop::Rounds, validation_errors: Vec::new() };
    let mut search = Search::new(&space, k, factor);
    for _ in 0..max_rounds {
        for ((gi, di), fi) in search.g.iter_mut().zip(&d).zip(&space.f) {
            *gi = di * fi;
        }
        // Adding +0.0 leaves a mass unchanged (masses start at +0.0 and only grow), so these
        // give the same sums, bit for bit, as adding `g` to `pos` or `−g` to `neg` by its sign.
        for ((&v, p), n) in search.g.iter().zip(&mut search.g_pos).zip(&mut search.g_neg) {
            (*p, *n) = if v > 0.0 { (v, 0.0) } else { (0.0, -v) };
        }
        search.total = search.g.iter().sum();
        search.run();
        let sign = if search.best.corr >= 0.0 { 1 } else { -1 };
        // h(x) = sign if covered else −sign.
        let chosen = &search.best.path;
        let h = |i: usize| if chosen.iter().all(|&l| space.holds(l, i)) { sign } else { -sign };
        let error: f64 = (0..m).filter(|&i| f64::from(h(i)) != space.f[i]).map(|i| d[i]).sum();
        if error >= 0.5 {
            run.stop = Stop::NoWeakHypothesis;
            break;
        }
        let mut lits: Vec<Literal> = search.best.path.iter().map(|&l| literals[l]).collect();
        lits.sort();
        if error == 0.0 {
            // β = 0: this conjunction alone is consistent with the training rows.
            let hyp = WeakHypothesis { literals: lits, sign, alpha: 1.0, error };
            if let Some(v) = validation {
                let errors = v.rows.iter().zip(v.positive).filter(|(x, &y)| (hyp.value(x) > 0) != y).count();
                run.validation_errors.push(errors);
            }
            run.hypotheses = vec![hyp];
            run.stop = Stop::Consistent;
            break;
        }
        let beta = error / (1.0 - error);
        let alpha = -beta.ln();
        let mut total = 0.0;
        let mut wrong = 0;
        for i in 0..m {
            let hi = f64::from(h(i));
            if hi == space.f[i] {
                d[i] *= beta;
            }
            total += d[i];
            score[i] += alpha * hi;
            wrong += usize::from((score[i] > 0.0) != positive[i]);
        }
        for di in &mut d {
            *di /= total;
        }
        let hyp = WeakHypothesis { literals: lits, sign, alpha, error };
        if let Some(v) = validation {
            let mut errors = 0;
            for ((s, x), &y) in vscore.iter_mut().zip(v.rows).zip(v.positive) {
                *s += alpha * f64::from(hyp.value(x));
                errors += usize::from((*s > 0.0) != y);
            }
            run.validation_errors.push(errors);
        }
        run.hypotheses.push(hyp);
        if wrong == 0 && p.stop_when_consistent {
            run.stop = Stop::Consistent;
            break;
        }
    }
    run
}

/// The number of rounds with the fewest validation errors summed over the folds (the smallest
/// such number); a run that stopped early keeps its last hypothesis for later rounds.
fn best_rounds(runs: &[Run], max_rounds: usize) -> usize {
    let mut best = (usize::MAX, max_rounds);
    for t in 1..=max_rounds {
        let errors: usize =
            runs.iter().filter_map(|r| r.validation_errors.get(t - 1).or(r.validation_errors.last())).sum();
        if errors < best.0 {
            best = (errors, t);
        }
    }
    best.1
}

/// Number of weights of an ordinary perceptron over `inputs`: one per categorical value, one per
/// numeric input (the round limit of section 3.3).
pub fn ordinary_perceptron_weights(inputs: &[InputSpec]) -> usize {
    inputs
        .iter()
        .map(|i| match i.kind {
            InputKind::Categorical { n_values } => usize::from(n_values),
            InputKind::Numeric { .. } => 1,
        })
        .sum()
}

/// Boosters for rows `rows` with labels `labels`: per booster, the number of rounds by
/// cross-validation ([`Params::validation_folds`]), then AdaBoost on all of `rows`. `tick` is
/// called after every AdaBoost run.
fn boost_all(
    inputs: &[InputSpec],
    rows: &[&[i32]],
    labels: &[usize],
    n_classes: usize,
    p: &Params,
    seed: u64,
    tick: &mut dyn FnMut(),
) -> Result<Vec<Booster>, TrainError> {
    let m = rows.len();
    let max_rounds = round_limit(inputs, p, rows.len());
    let owned: Vec<Vec<i32>> = rows.iter().map(|r| r.to_vec()).collect();
    let literals = candidate_literals(inputs, &owned, p);
    let classes: Vec<usize> = if n_classes == 2 { vec![1] } else { (0..n_classes).collect() };
    // The rows the inner cross-validation uses: all of them, or on more than
    // `VALIDATION_ROWS` a seeded stratified sample of that many (the rounds are a setting the
    // sample estimates; the boosting that follows uses every row).
    let cv_rows: Vec<usize> = if m > VALIDATION_ROWS {
        let rest = 1.0 - VALIDATION_ROWS as f64 / m as f64;
        split::hold_out(labels, n_classes, rest, seed.rotate_left(29)).0
    } else {
        (0..m).collect()
    };
    let cv_labels: Vec<usize> = cv_rows.iter().map(|&i| labels[i]).collect();
    let folds: Vec<Vec<usize>> = validation_folds(&cv_labels, n_classes, p, seed)?
        .into_iter()
        .map(|fold| fold.into_iter().map(|k| cv_rows[k]).collect())
        .collect();
    let mut boosters = Vec::new();
    for &class in &classes {
        let positive: Vec<bool> = labels.iter().map(|&y| y == class).collect();
        let rounds_allowed = if folds.is_empty() {
            max_rounds
        } else {
            let mut runs = Vec::new();
            for fold in &folds {
                let mut in_fold = vec![false; m];
                fold.iter().for_each(|&i| in_fold[i] = true);
                let train: Vec<usize> = cv_rows.iter().copied().filter(|&i| !in_fold[i]).collect();
                let train_rows: Vec<&[i32]> = train.iter().map(|&i| rows[i]).collect();
                let train_pos: Vec<bool> = train.iter().map(|&i| positive[i]).collect();
                let valid_rows: Vec<&[i32]> = fold.iter().map(|&i| rows[i]).collect();
                let valid_pos: Vec<bool> = fold.iter().map(|&i| positive[i]).collect();
                let v = Validation { rows: &valid_rows, positive: &valid_pos };
                runs.push(boost(&literals, &train_rows, &train_pos, p, max_rounds, Some(&v)));
                tick();
            }
            best_rounds(&runs, max_rounds)
        };
        let run = boost(&literals, rows, &positive, p, rounds_allowed, None);
        tick();
        boosters.push(Booster { class, hypotheses: run.hypotheses, rounds_allowed, stop: run.stop });
    }
    Ok(boosters)
}

/// The inner cross-validation's folds (none when disabled or too few rows).
fn validation_folds(
    labels: &[usize],
    n_classes: usize,
    p: &Params,
    seed: u64,
) -> Result<Vec<Vec<usize>>, TrainError> {
    if p.validation_folds >= 2 && labels.len() >= 2 * p.validation_folds {
        split::stratified_kfold(labels, n_classes, p.validation_folds, seed)
            .map_err(|e| TrainError::InvalidOption(format!("sparse: validation folds: {e}")))
    } else {
        Ok(Vec::new())
    }
}

/// A unit refitted by [`WeightFit::Logistic`] (or chosen so by [`WeightFit::Auto`]): float
/// weights over the boosted conjunctions.
#[derive(Debug, Clone, PartialEq)]
pub struct Refit {
    /// The L2 penalty of the fit.
    pub l2: f64,
    /// The conjunctions (features) the boosters chose, in the order of the rows' weights.
    pub features: Vec<Feature>,
    /// Float weights per feature and the bias last: one row (class 1 iff the score is `> 0`)
    /// for two classes, else one per class (argmax, ties to the lowest).
    pub rows: Vec<Vec<f64>>,
}

impl Refit {
    /// The refitted float unit's class for raw inputs `x`.
    pub fn predict(&self, x: &[i32]) -> usize {
        let values: Vec<i32> = self.features.iter().map(|f| f.value(x)).collect();
        decide_float(&self.rows, &values)
    }
}

/// The class float rows (weights, bias last) give feature values `v`: one row, `score > 0`;
/// several, argmax with ties to the lowest.
fn decide_float(rows: &[Vec<f64>], v: &[i32]) -> usize {
    let n = v.len();
    let score = |r: &[f64]| r[n] + r[..n].iter().zip(v).map(|(w, &x)| w * f64::from(x)).sum::<f64>();
    if let [r] = rows {
        return usize::from(score(r) > 0.0);
    }
    let mut best = (f64::NEG_INFINITY, 0);
    for (i, r) in rows.iter().enumerate() {
        let s = score(r);
        if i == 0 || s > best.0 {
            best = (s, i);
        }
    }
    best.1
}

/// The distinct conjunction features of the boosters (identical conjunctions merged, single
/// literals as [`Feature::Equals`]/[`Feature::Greater`]), in order of first use.
fn booster_features(boosters: &[Booster]) -> Vec<Feature> {
    let mut features: Vec<Feature> = Vec::new();
    for h in boosters.iter().flat_map(|b| &b.hypotheses) {
        if let Some((feature, _)) = feature_of(&h.literals) {
            if !features.contains(&feature) {
                features.push(feature);
            }
        }
    }
    features
}

/// Logistic refit (L2 penalty `l2`) of a unit over `features` on `rows`.
fn refit(features: Vec<Feature>, rows: &[&[i32]], labels: &[usize], n_classes: usize, l2: f64) -> Refit {
    let d = features.len();
    let x: Vec<i32> = rows.iter().flat_map(|r| features.iter().map(|f| f.value(r))).collect();
    let max_abs: Vec<i64> = features.iter().map(Feature::max_abs).collect();
    let fit_rows = unit_fit::Rows { x: &x, d, y: labels, m: n_classes };
    let w = unit_fit::logistic(fit_rows, &max_abs, unit_fit::Params { l2, ..Default::default() });
    Refit { l2, features, rows: w }
}

/// Fraction of the features each step of the pruning (`pruned_refit`) keeps (the ones with the
/// largest weights) until a step would cost a training row; then steps drop half as many.
pub const PRUNE_KEEP: f64 = 0.7;

/// [`Params::all_conjunctions`] is only tried when rows × features × unit rows is at most this
/// (a few milliseconds per logistic fit), so it costs little beside boosting.
pub const ALL_CONJUNCTIONS_WORK: usize = 1 << 19;

/// Every distinct feature of one literal and every conjunction of two compatible literals
/// (when `p.max_literals ≥ 2`) over [`candidate_literals`] of `rows`, or `None` when there are
/// more than `cap` or none (every input constant).
fn all_conjunctions(inputs: &[InputSpec], rows: &[&[i32]], p: &Params, cap: usize) -> Option<Vec<Feature>> {
    let owned: Vec<Vec<i32>> = rows.iter().map(|r| r.to_vec()).collect();
    let literals = candidate_literals(inputs, &owned, p);
    let mut features: Vec<Feature> = Vec::new();
    for l in &literals {
        let (feature, _) = feature_of(std::slice::from_ref(l))?;
        if !features.contains(&feature) {
            features.push(feature);
        }
        if features.len() > cap {
            return None;
        }
    }
    if p.max_literals >= 2 {
        for (i, a) in literals.iter().enumerate() {
            for b in literals[i + 1..].iter().filter(|b| compatible(a, b)) {
                features.push(Feature::Conjunction(vec![*a, *b]));
                if features.len() > cap {
                    return None;
                }
            }
        }
    }
    (!features.is_empty()).then_some(features)
}

/// The refit over every conjunction (see [`all_conjunctions`]) on `rows`, pruned as long as
/// that costs no training row: each step refits over the features with the largest weight
/// magnitudes (largest over the unit's rows; every feature is ±1), dropping
/// `1 − `[`PRUNE_KEEP`] of them; a step that would lose a training row is retried dropping half
/// as many, down to one feature. Returns the last refit that classifies as many of `rows`
/// correctly as the first one (over every conjunction) does.
fn pruned_refit(
    features: Vec<Feature>,
    rows: &[&[i32]],
    labels: &[usize],
    n_classes: usize,
    l2: f64,
) -> Refit {
    let correct = |unit: &Refit| rows.iter().zip(labels).filter(|(x, &y)| unit.predict(x) == y).count();
    let first = refit(features.clone(), rows, labels, n_classes, l2);
    let target = correct(&first);
    let (mut kept, mut kept_features) = (first, features);
    let mut fraction = 1.0 - PRUNE_KEEP;
    while kept_features.len() > 1 {
        let d = kept_features.len();
        let drop = ((d as f64 * fraction).floor() as usize).clamp(1, d - 1);
        let weight = |j: usize| kept.rows.iter().map(|r| r[j].abs()).fold(0.0, f64::max);
        let mut order: Vec<usize> = (0..d).collect();
        order.sort_by(|&a, &b| weight(b).total_cmp(&weight(a)));
        let mut keep = order[..d - drop].to_vec();
        keep.sort_unstable();
        let fewer: Vec<Feature> = keep.into_iter().map(|j| kept_features[j].clone()).collect();
        let unit = refit(fewer.clone(), rows, labels, n_classes, l2);
        if correct(&unit) >= target {
            (kept, kept_features) = (unit, fewer);
        } else if drop == 1 {
            break;
        } else {
            fraction /= 2.0;
        }
    }
    kept
}

/// What [`WeightFit::Auto`] chose.
#[derive(Debug, Clone, Copy, PartialEq)]
enum WeightChoice {
    /// The boosted votes, rounds by the inner cross-validation.
    Votes,
    /// A logistic refit with this L2 penalty over the conjunctions of boosting for `rounds`
    /// rounds without the inner cross-validation (`None`: rounds by the inner cross-validation).
    Refit { l2: f64, rounds: Option<usize> },
    /// A logistic refit with this L2 penalty over every conjunction of at most two literals
    /// ([`all_conjunctions`]), pruned as long as that costs no training row ([`pruned_refit`]).
    Pruned { l2: f64 },
}

/// [`WeightFit::Auto`]'s choice for the training rows (see [`WeightFit::Auto`]). With fewer
/// than 20 rows nothing is held out: a refit with [`LOGISTIC_L2`], rounds by cross-validation.
fn choose_weight_fit(
    inputs: &[InputSpec],
    rows: &[&[i32]],
    labels: &[usize],
    n_classes: usize,
    p: &Params,
    seed: u64,
    tick: &mut dyn FnMut(),
) -> Result<WeightChoice, TrainError> {
    // On many rows the choice (a setting, not the model: that is fitted on every row afterwards)
    // is made on a stratified sample of `AUTO_CHOICE_ROWS`, which keeps `auto` within a few
    // times the boosting's own cost.
    let (sample_rows, sample_labels): (Vec<&[i32]>, Vec<usize>);
    let (rows, labels) = if rows.len() > AUTO_CHOICE_ROWS {
        let rest = 1.0 - AUTO_CHOICE_ROWS as f64 / rows.len() as f64;
        let (keep, _) = split::hold_out(labels, n_classes, rest, seed.rotate_left(17));
        sample_rows = keep.iter().map(|&i| rows[i]).collect();
        sample_labels = keep.iter().map(|&i| labels[i]).collect();
        (sample_rows.as_slice(), sample_labels.as_slice())
    } else {
        (rows, labels)
    };
    let (fit_idx, val_idx) = split::hold_out(labels, n_classes, 0.25, seed);
    if rows.len() < 20 || val_idx.is_empty() {
        return Ok(WeightChoice::Refit { l2: LOGISTIC_L2, rounds: None });
    }
    let fit_rows: Vec<&[i32]> = fit_idx.iter().map(|&i| rows[i]).collect();
    let fit_labels: Vec<usize> = fit_idx.iter().map(|&i| labels[i]).collect();
    let correct = |predict: &dyn Fn(&[i32]) -> usize| {
        val_idx.iter().filter(|&&i| predict(rows[i]) == labels[i]).count()
    };
    // Candidates in order of size (rounds), with their held-out correct counts.
    let mut candidates: Vec<(usize, WeightChoice)> = Vec::new();
    let mut consider = |c: usize, choice: WeightChoice| candidates.push((c, choice));
    // The paper's boosting (rounds by cross-validation): refitted, then its votes.
    let boosters = boost_all(inputs, &fit_rows, &fit_labels, n_classes, p, seed, tick)?;
    let features = booster_features(&boosters);
    for l2 in AUTO_L2 {
        let unit = refit(features.clone(), &fit_rows, &fit_labels, n_classes, l2);
        consider(correct(&|x| unit.predict(x)), WeightChoice::Refit { l2, rounds: None });
    }
    consider(correct(&SparsePerceptron::vote(&boosters)), WeightChoice::Votes);
    // Longer boosting, refitted on the conjunctions of its first rounds.
    if p.refit_rounds > 0 {
        let limit = round_limit(inputs, p, rows.len());
        let ladder: Vec<usize> =
            AUTO_ROUNDS.iter().map(|&f| (f * limit as f64).ceil().max(1.0) as usize).collect();
        let long_p = Params { validation_folds: 0, rounds: Some(p.refit_rounds * limit), ..p.clone() };
        let long = boost_all(inputs, &fit_rows, &fit_labels, n_classes, &long_p, seed, tick)?;
        let longest = long.iter().map(|b| b.hypotheses.len()).max().unwrap_or(0);
        for &t in ladder.iter().filter(|&&t| t <= p.refit_rounds * limit) {
            let first: Vec<Booster> = long
                .iter()
                .map(|b| Booster { hypotheses: b.hypotheses.iter().take(t).cloned().collect(), ..b.clone() })
                .collect();
            let features = booster_features(&first);
            for l2 in AUTO_L2 {
                let unit = refit(features.clone(), &fit_rows, &fit_labels, n_classes, l2);
                consider(correct(&|x| unit.predict(x)), WeightChoice::Refit { l2, rounds: Some(t) });
            }
            if t >= longest {
                break; // every booster stopped before t rounds: longer prefixes are the same
            }
        }
    }
    // Every conjunction, pruned step by step: after the others (they win ties), smallest first.
    let unit_rows = if n_classes == 2 { 1 } else { n_classes };
    let all = (p.all_conjunctions > 0)
        .then(|| all_conjunctions(inputs, &fit_rows, p, p.all_conjunctions))
        .flatten()
        .filter(|f| fit_rows.len() * f.len() * unit_rows <= ALL_CONJUNCTIONS_WORK);
    if let Some(features) = all {
        let mut pruned: Vec<(usize, usize, WeightChoice)> = (AUTO_L2.iter())
            .map(|&l2| {
                let unit = pruned_refit(features.clone(), &fit_rows, &fit_labels, n_classes, l2);
                (unit.features.len(), correct(&|x| unit.predict(x)), WeightChoice::Pruned { l2 })
            })
            .collect();
        pruned.sort_by_key(|c| c.0);
        for (_, c, choice) in pruned {
            consider(c, choice);
        }
    }
    // The one-standard-error rule (Breiman et al. 1984): the first (smallest) candidate whose
    // held-out accuracy is within one standard error of the best one's.
    let n = val_idx.len() as f64;
    let best = candidates.iter().map(|c| c.0).max().expect("at least one candidate") as f64;
    let se = (best * (n - best) / n).sqrt();
    let chosen = candidates.iter().find(|c| c.0 as f64 >= best - se).expect("the best qualifies");
    Ok(chosen.1)
}

/// Training rows beyond which [`WeightFit::Auto`] chooses on a stratified sample of this many.
pub const AUTO_CHOICE_ROWS: usize = 20_000;

/// Above this many training rows the inner cross-validation that picks the number of rounds
/// ([`Params::validation_folds`]) runs on a seeded stratified sample of this many rows; the
/// boosting itself then runs on every row.
pub const VALIDATION_ROWS: usize = 20_000;

/// The training rows up to which [`Params::min_rounds`] applies in full; on `m` more rows the
/// floor is `min_rounds · MIN_ROUNDS_ROWS / m` (so its boosting work stays bounded).
pub const MIN_ROUNDS_ROWS: usize = 10_000;

/// The round limit: [`Params::rounds`], else the ordinary perceptron's weight count (at least
/// [`Params::min_rounds`], fewer on more than [`MIN_ROUNDS_ROWS`] of the `m` training rows).
fn round_limit(inputs: &[InputSpec], p: &Params, m: usize) -> usize {
    p.rounds.unwrap_or_else(|| {
        let floor = p.min_rounds * MIN_ROUNDS_ROWS / m.max(MIN_ROUNDS_ROWS);
        ordinary_perceptron_weights(inputs).max(floor).max(1)
    })
}

/// Learns a sparse perceptron: per booster, the number of rounds by cross-validation
/// ([`Params::validation_folds`]), then AdaBoost on all training rows; then sets the unit's
/// weights ([`Params::weight_fit`]) and quantizes them to `ctx.weight_kind` (the boosted votes:
/// `I16` when not given; a logistic refit: `I8` when that changes no training decision of the
/// float unit, else `I16`). Reports `(runs done, runs)` to `ctx.progress`.
///
/// # Errors
/// [`TrainError::InvalidOption`] for no training rows, fewer than two classes, `rounds` of 0,
/// `max_cuts` of 0 or `validation_folds` of 1.
pub fn fit(ctx: &Context<'_>, p: &Params) -> Result<SparsePerceptron, TrainError> {
    let m = ctx.raw.len();
    let n_classes = ctx.n_classes();
    Params::check_for(p, m, n_classes)?;
    // The round limit from all training rows, the same for every boosting run below.
    let resolved = Params { rounds: Some(round_limit(&ctx.inputs, p, m)), ..p.clone() };
    let p = &resolved;
    let rows: Vec<&[i32]> = ctx.raw.iter().map(Vec::as_slice).collect();
    let labels = ctx.labels();
    let n_boosters = if n_classes == 2 { 1 } else { n_classes } as u64;
    let per_run = n_boosters * (validation_folds(labels, n_classes, p, ctx.seed)?.len() as u64 + 1);
    let total_runs = if p.weight_fit == WeightFit::Auto && m >= 20 {
        2 * per_run + u64::from(p.refit_rounds > 0) * n_boosters
    } else {
        per_run
    };
    let mut done = 0;
    let mut tick = || {
        done += 1;
        (ctx.progress)(done.min(total_runs), total_runs);
    };
    let choice = match p.weight_fit {
        WeightFit::Boost => WeightChoice::Votes,
        WeightFit::Logistic => WeightChoice::Refit { l2: LOGISTIC_L2, rounds: None },
        WeightFit::Auto => {
            let seed = ctx.seed ^ 0x005e_ed0f_a070;
            choose_weight_fit(&ctx.inputs, &rows, labels, n_classes, p, seed, &mut tick)?
        }
    };
    let (boosters, refitted) = match choice {
        WeightChoice::Pruned { l2 } => {
            // Not empty: the candidate had features on a subset of these rows.
            let features = all_conjunctions(&ctx.inputs, &rows, p, usize::MAX).unwrap_or_default();
            let unit = pruned_refit(features, &rows, labels, n_classes, l2);
            (ctx.progress)(total_runs, total_runs);
            (Vec::new(), Some(unit))
        }
        _ => {
            let (l2, boost_p) = match choice {
                WeightChoice::Refit { l2, rounds: Some(t) } => {
                    (Some(l2), Params { validation_folds: 0, rounds: Some(t), ..p.clone() })
                }
                WeightChoice::Refit { l2, rounds: None } => (Some(l2), p.clone()),
                WeightChoice::Votes => (None, p.clone()),
                WeightChoice::Pruned { .. } => unreachable!("fitted above"),
            };
            let boosters = boost_all(&ctx.inputs, &rows, labels, n_classes, &boost_p, ctx.seed, &mut tick)?;
            let refitted = l2.map(|l2| refit(booster_features(&boosters), &rows, labels, n_classes, l2));
            (boosters, refitted)
        }
    };
    let (spec, kind, scale) = match &refitted {
        None => {
            let kind = ctx.weight_kind.unwrap_or(WeightKind::I16);
            let (spec, scale) = export(ctx, &boosters, kind);
            (spec, kind, scale)
        }
        Some(r) => export_refit(ctx, r, &rows),
    };
    let mut model = SparsePerceptron {
        n_classes,
        boosters,
        refit: refitted,
        spec,
        quantization: Quantization { kind, scale, changed_rows: Vec::new() },
    };
    let mut values = vec![0; model.spec.features.len()];
    let Structure::Linear(u) = model.spec.structure else { unreachable!("export builds a linear model") };
    for (i, x) in ctx.raw.iter().enumerate() {
        for (v, f) in values.iter_mut().zip(&model.spec.features) {
            *v = f.value(x);
        }
        if model.spec.units[u].decide(&values) != model.predict(x) {
            model.quantization.changed_rows.push(i);
        }
    }
    Ok(model)
}

/// The integer unit of a refit: `ctx.weight_kind` if given, else `I8` when rounding there
/// changes no decision of the float unit on `rows`, else `I16`. Returns the model, its weight
/// kind and the scale.
fn export_refit(ctx: &Context<'_>, r: &Refit, rows: &[&[i32]]) -> (ModelSpec, WeightKind, f64) {
    let max_abs: Vec<i64> = r.features.iter().map(Feature::max_abs).collect();
    let values: Vec<Vec<i32>> =
        rows.iter().map(|x| r.features.iter().map(|f| f.value(x)).collect()).collect();
    let q = |kind| quantize::quantize(&r.rows, &max_abs, Grid::new(kind));
    let (kind, Quantized { rows: int_rows, scale }) = match ctx.weight_kind {
        Some(kind) => (kind, q(kind)),
        None => {
            let narrow = q(WeightKind::I8);
            let same = values.iter().all(|v| decide_float(&r.rows, v) == unit_fit::decide_i(&narrow.rows, v));
            if same {
                (WeightKind::I8, narrow)
            } else {
                (WeightKind::I16, q(WeightKind::I16))
            }
        }
    };
    let classes: Vec<usize> = if r.rows.len() == 1 { vec![0, 1] } else { (0..r.rows.len()).collect() };
    (build_spec(ctx, &r.features, &int_rows, classes, kind), kind, scale)
}

/// [`fit`], returning the exported model (for [`crate::learn::train`]).
///
/// # Errors
/// As [`fit`].
pub fn train(ctx: &Context<'_>, p: &Params) -> Result<ModelSpec, TrainError> {
    Ok(crate::learn::fit::<Sparse>(ctx, p)?.spec)
}

/// The sparse-perceptron learner, `--algo sparse` (the [`Learner`] contract).
pub struct Sparse;

/// What boosting did, for `ltu train --json`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Report {
    /// Per booster (one per class, or one for two classes): its positive class, the rounds it
    /// was allowed, the weak hypotheses it kept and why it stopped.
    pub boosters: Vec<BoosterReport>,
    /// Stored weight = `round(vote · scale)`.
    pub weight_scale: f64,
    /// Training rows whose class the integer weights changed from the real-valued hypothesis's.
    pub quantization_changed_rows: usize,
    /// How the weights were set: `boost` (the votes) or `logistic` (what [`WeightFit::Auto`]
    /// chose, or was asked for).
    pub weight_fit: String,
    /// The logistic refit's L2 penalty (none for the votes).
    pub weight_l2: Option<f64>,
    /// Where the unit's conjunctions come from: `boosting`, or `all` (every conjunction of at
    /// most two literals, pruned: [`Params::all_conjunctions`]; the boosters list is then empty).
    pub conjunctions: String,
    /// Kind of the stored weights.
    pub weight_kind: String,
}

/// One booster of a [`Report`].
#[derive(Debug, Clone, serde::Serialize)]
pub struct BoosterReport {
    /// Its positive class.
    pub class: usize,
    /// Rounds allowed.
    pub rounds_allowed: usize,
    /// Weak hypotheses kept.
    pub hypotheses: usize,
    /// Why it stopped.
    pub stop: String,
}

impl Learner for Sparse {
    const NAME: &'static str = "sparse";
    const ABOUT: &'static str =
        "sparse perceptron: one linear threshold unit over a few conjunctions, by boosting (Jackson & Craven 1996)";
    type Params = Params;
    type Checked = Params;
    type Model = SparsePerceptron;
    type Report = Report;

    fn check(p: &Params, ctx: &Context<'_>) -> Result<Params, TrainError> {
        Params::check_for(p, ctx.raw.len(), ctx.n_classes())?;
        Ok(p.clone())
    }

    fn fit(ctx: &Context<'_>, p: &Params) -> Result<(SparsePerceptron, Report), TrainError> {
        let model = fit(ctx, p)?;
        let report = Report {
            boosters: model
                .boosters
                .iter()
                .map(|b| BoosterReport {
                    class: b.class,
                    rounds_allowed: b.rounds_allowed,
                    hypotheses: b.hypotheses.len(),
                    stop: format!("{:?}", b.stop),
                })
                .collect(),
            weight_scale: model.quantization.scale,
            quantization_changed_rows: model.quantization.changed_rows.len(),
            weight_fit: if model.refit.is_some() { WeightFit::Logistic } else { WeightFit::Boost }
                .to_string(),
            weight_l2: model.refit.as_ref().map(|r| r.l2),
            conjunctions: if model.boosters.is_empty() { "all" } else { "boosting" }.to_string(),
            weight_kind: format!("{:?}", model.quantization.kind),
        };
        Ok((model, report))
    }

    fn to_spec(model: &SparsePerceptron) -> ModelSpec {
        model.spec.clone()
    }

    /// Fewer boosting rounds: 64, 32, 16, 8, 4, 2 and 1 (below any limit already set).
    fn ladder(p: &Params) -> Vec<Params> {
        [64, 32, 16, 8, 4, 2, 1]
            .into_iter()
            .filter(|&r| p.rounds.is_none_or(|cap| r < cap))
            .map(|r| Params { rounds: Some(r), ..p.clone() })
            .collect()
    }
}

/// The feature a conjunction becomes and the sign relating them: a single `x = v` / `x > t`
/// literal is an [`Feature::Equals`] / [`Feature::Greater`] (`x ≠ v`, `x ≤ t` their negation);
/// the empty conjunction is the bias (`None`).
fn feature_of(literals: &[Literal]) -> Option<(Feature, f64)> {
    match literals {
        [] => None,
        [l] => Some(match l.op {
            LiteralOp::Eq => (Feature::Equals { attr: l.attr, value: l.value }, 1.0),
            LiteralOp::Ne => (Feature::Equals { attr: l.attr, value: l.value }, -1.0),
            LiteralOp::Gt => (Feature::Greater { attr: l.attr, value: l.value }, 1.0),
            LiteralOp::Le => (Feature::Greater { attr: l.attr, value: l.value }, -1.0),
        }),
        _ => Some((Feature::Conjunction(literals.to_vec()), 1.0)),
    }
}

/// Merges identical conjunctions (summing their votes) into one unit with a row per booster,
/// scales every weight by the largest factor that fits `kind` and rounds. Returns the model and
/// the scale.
fn export(ctx: &Context<'_>, boosters: &[Booster], kind: WeightKind) -> (ModelSpec, f64) {
    let mut features: Vec<Feature> = Vec::new();
    // Per booster: votes per feature, then the bias.
    let mut votes: Vec<Vec<f64>> = vec![Vec::new(); boosters.len()];
    let mut bias = vec![0.0; boosters.len()];
    for (b, booster) in boosters.iter().enumerate() {
        for h in &booster.hypotheses {
            let vote = h.alpha * f64::from(h.sign);
            match feature_of(&h.literals) {
                None => bias[b] += vote,
                Some((feature, s)) => {
                    let j = features.iter().position(|f| *f == feature).unwrap_or_else(|| {
                        features.push(feature);
                        features.len() - 1
                    });
                    votes[b].resize(features.len(), 0.0);
                    votes[b][j] += s * vote;
                }
            }
        }
    }
    let n = features.len();
    for (v, &b) in votes.iter_mut().zip(&bias) {
        v.resize(n, 0.0);
        v.push(b);
    }
    let max_abs: Vec<i64> = features.iter().map(Feature::max_abs).collect();
    let Quantized { rows, scale } = quantize::quantize(&votes, &max_abs, Grid::new(kind));
    let classes: Vec<usize> = if boosters.len() == 1 {
        vec![0, boosters[0].class]
    } else {
        boosters.iter().map(|b| b.class).collect()
    };
    (build_spec(ctx, &features, &rows, classes, kind), scale)
}

/// One linear unit over `features` with integer `rows` (weights, bias last), dropping features
/// whose weight is 0 in every row.
fn build_spec(
    ctx: &Context<'_>,
    features: &[Feature],
    rows: &[Vec<i64>],
    classes: Vec<usize>,
    kind: WeightKind,
) -> ModelSpec {
    let n = features.len();
    let keep: Vec<usize> = (0..n).filter(|&j| rows.iter().any(|r| r[j] != 0)).collect();
    ModelSpec {
        n_classes: ctx.n_classes(),
        weight_kind: kind,
        inputs: ctx.inputs.clone(),
        features: keep.iter().map(|&j| features[j].clone()).collect(),
        units: vec![Unit {
            terms: (0..keep.len()).collect(),
            rows: rows.iter().map(|r| keep.iter().map(|&j| r[j]).chain([r[n]]).collect()).collect(),
            classes,
        }],
        structure: Structure::Linear(0),
        names: None,
    }
}

#[cfg(test)]
mod tests {
    use super::{candidate_literals, compatible, cut_points, Params};
    use crate::model::{InputKind, InputSpec, Literal, LiteralOp};

    fn lit(attr: usize, op: LiteralOp, value: i32) -> Literal {
        Literal { attr, op, value }
    }

    #[test]
    fn candidate_literals_cover_seen_values_and_cut_points() {
        let inputs = [
            InputSpec { kind: InputKind::Categorical { n_values: 3 }, missing: 3 },
            InputSpec { kind: InputKind::Numeric { scale_exp: 0 }, missing: 0 },
        ];
        // Value 1 of the categorical input is never seen and 3 means missing: only `x0 = 0` and
        // `x0 = 2`. The numeric column has one boundary, between 10 and 20.
        let rows = vec![vec![0, 10], vec![2, 20], vec![3, 10]];
        let p = Params { negated_literals: false, ..Params::default() };
        assert_eq!(
            candidate_literals(&inputs, &rows, &p),
            vec![
                lit(0, LiteralOp::Eq, 0),
                lit(0, LiteralOp::Eq, 2),
                lit(1, LiteralOp::Gt, 15),
                lit(1, LiteralOp::Le, 15)
            ]
        );
    }

    #[test]
    fn cut_points_lie_between_distinct_values() {
        assert_eq!(cut_points(&[1, 1, 3, 4, 4, 9], 10), vec![2, 3, 6]);
        assert_eq!(cut_points(&[-3, -2], 10), vec![-3]);
        assert_eq!(cut_points(&[5, 5, 5], 10), Vec::<i32>::new());
        // With a budget of one cut, the boundary nearest the median.
        assert_eq!(cut_points(&[1, 2, 3, 4, 5, 6], 1), vec![3]);
    }

    #[test]
    fn conjunctions_of_one_attribute_must_narrow_both_literals() {
        // Different attributes always combine.
        assert!(compatible(&lit(0, LiteralOp::Eq, 1), &lit(1, LiteralOp::Eq, 1)));
        // `x = 1 ∧ x = 2` is empty, `x = 1 ∧ x ≠ 2` is `x = 1`.
        assert!(!compatible(&lit(0, LiteralOp::Eq, 1), &lit(0, LiteralOp::Eq, 2)));
        assert!(!compatible(&lit(0, LiteralOp::Eq, 1), &lit(0, LiteralOp::Ne, 2)));
        assert!(compatible(&lit(0, LiteralOp::Ne, 1), &lit(0, LiteralOp::Ne, 2)));
        // An interval `3 < x ≤ 7` is a conjunction; `x > 7 ∧ x ≤ 3` is empty.
        assert!(compatible(&lit(0, LiteralOp::Gt, 3), &lit(0, LiteralOp::Le, 7)));
        assert!(compatible(&lit(0, LiteralOp::Le, 7), &lit(0, LiteralOp::Gt, 3)));
        assert!(!compatible(&lit(0, LiteralOp::Gt, 7), &lit(0, LiteralOp::Le, 3)));
    }
}
