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
//!   rounds ([`quantize::quantize`](crate::model::quantize::quantize));
//!   [`Quantization::changed_rows`] lists the training rows whose prediction changed.
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

mod boost;
mod choose;
mod export;
mod literals;
mod refit;
mod search;

use crate::learn::{Context, Learner, TrainError};
use crate::model::{InputSpec, Literal, ModelSpec, Structure, WeightKind};
use boost::{boost_all, validation_folds};
use choose::{choose_weight_fit, WeightChoice};
use refit::{all_conjunctions, booster_features, class_support, pruned_refit, refit};

pub use boost::ordinary_perceptron_weights;
pub use literals::candidate_literals;
pub use refit::{Refit, ALL_CONJUNCTIONS_WORK, PRUNE_KEEP, REFIT_MIN_ROWS, REFIT_WORK};

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
    /// the first `½, 1, 2, 4 …` times the limit of those rounds (see [`AUTO_ROUNDS`]; the
    /// ladder stops at the first length whose best refit is no more accurate on the held-out
    /// rows than the previous length's); 0: only
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
    /// On more training rows than this, the weak learner searches a weighted resample of this
    /// many draws from the round's distribution ([`SEARCH_ROWS`] by default; boosting by
    /// resampling), while `ε`, `β` and the reweighting use every row. 0: the search sees every
    /// row (the paper's). The search's cost per round grows with the rows times the pairs of
    /// attributes, so on many rows and attributes this bounds it.
    pub search_rows: usize,
    /// Most candidate literals over the numeric inputs together ([`LITERAL_BUDGET`] by
    /// default): with `n` numeric inputs each gets at most `literal_budget / (2n)` cut points
    /// (at least [`MIN_CUTS`], at most [`Params::max_cuts`]). The pairs the weak learner scores
    /// grow as the square of the literals. 0: [`Params::max_cuts`] per input (the paper's).
    pub literal_budget: usize,
}

/// The default [`Params::search_rows`].
pub const SEARCH_ROWS: usize = 1000;

/// The default [`Params::literal_budget`].
pub const LITERAL_BUDGET: usize = 512;

/// The fewest cut points per numeric input under [`Params::literal_budget`].
pub const MIN_CUTS: usize = 4;

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
    /// penalty first, the votes last) is then used for the model boosted on every row. On more
    /// than [`AUTO_CHOICE_ROWS`] rows (with [`Params::refit_rounds`] set) the candidates are the
    /// votes and the refit (penalty 1) of each prefix of one long boosting run on the sample,
    /// and the chosen prefix's conjunctions are kept: only the weights are fitted on every row.
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
            search_rows: 0,
            literal_budget: 0,
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
             (got rounds {}, max_cuts {}, validation_folds {})",
            p.rounds.map_or_else(|| "default".to_string(), |r| r.to_string()),
            p.max_cuts,
            p.validation_folds
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
            search_rows: SEARCH_ROWS,
            literal_budget: LITERAL_BUDGET,
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

/// Why a booster stopped; in a [`Report`], the variant's name (`"Consistent"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
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
    let total_runs = boosting_runs(ctx, p)?;
    let mut done = 0;
    let mut tick = || {
        done += 1;
        (ctx.progress)(done.min(total_runs), total_runs);
    };
    let (choice, long) = match p.weight_fit {
        WeightFit::Boost => (WeightChoice::Votes { rounds: None }, None),
        WeightFit::Logistic => (WeightChoice::Refit { l2: LOGISTIC_L2, rounds: None }, None),
        WeightFit::Auto => {
            let seed = ctx.seed ^ 0x005e_ed0f_a070;
            choose_weight_fit(&ctx.inputs, &rows, labels, n_classes, p, seed, &mut tick)?
        }
    };
    let (boosters, refitted) = match choice {
        WeightChoice::Pruned { l2 } => {
            // Not empty: the candidate had features on a subset of these rows.
            let features = all_conjunctions(&ctx.inputs, &rows, p, usize::MAX).unwrap_or_default();
            let unit = pruned_refit(features, &rows, labels, n_classes, l2, ctx.seed);
            (ctx.progress)(total_runs, total_runs);
            (Vec::new(), Some(unit))
        }
        _ => boost_and_refit(ctx, &rows, p, choice, long, &mut tick)?,
    };
    let (spec, kind, scale) = match &refitted {
        None => {
            let kind = ctx.weight_kind.unwrap_or(WeightKind::I16);
            let (spec, scale) = export::export(ctx, &boosters, kind);
            (spec, kind, scale)
        }
        Some(r) => export::export_refit(ctx, r, &rows),
    };
    let mut model = SparsePerceptron {
        n_classes,
        boosters,
        refit: refitted,
        spec,
        quantization: Quantization { kind, scale, changed_rows: Vec::new() },
    };
    model.quantization.changed_rows = changed_rows(&model, &ctx.raw);
    Ok(model)
}

/// The AdaBoost runs [`fit`] does, for its progress: per booster one per inner
/// cross-validation fold and one on every row, twice over for [`WeightFit::Auto`] (which
/// chooses on a held-out quarter first), plus one longer run per booster when it tries
/// [`Params::refit_rounds`]. On the large-data path ([`choose::large_data`]): the longer run
/// per booster, then every refit of its prefixes and the model's refit (at most).
fn boosting_runs(ctx: &Context<'_>, p: &Params) -> Result<u64, TrainError> {
    let n_classes = ctx.n_classes();
    let n_boosters = if n_classes == 2 { 1 } else { n_classes } as u64;
    let limit = p.rounds.unwrap_or_else(|| round_limit(&ctx.inputs, p, ctx.raw.len()));
    if p.weight_fit == WeightFit::Auto && choose::large_data(ctx.raw.len(), p) {
        let refits = choose::prefix_lengths(limit, p).len() * choose::penalties(true).len() + 1;
        return Ok(n_boosters + refits as u64);
    }
    let per_run = n_boosters * (validation_folds(ctx.labels(), n_classes, p, ctx.seed)?.len() as u64 + 1);
    Ok(if p.weight_fit == WeightFit::Auto && ctx.raw.len() >= 20 {
        2 * per_run + u64::from(p.refit_rounds > 0) * n_boosters
    } else {
        per_run
    })
}

/// The boosters for a `choice` other than [`WeightChoice::Pruned`] — boosted on every
/// training row, or the chosen prefix of `long` (the choice's long run on the large-data path)
/// — and the logistic refit over their conjunctions on every row when the choice is a refit.
fn boost_and_refit(
    ctx: &Context<'_>,
    rows: &[&[i32]],
    p: &Params,
    choice: WeightChoice,
    long: Option<Vec<Booster>>,
    tick: &mut dyn FnMut(),
) -> Result<(Vec<Booster>, Option<Refit>), TrainError> {
    let (labels, n_classes) = (ctx.labels(), ctx.n_classes());
    let (l2, rounds) = match choice {
        WeightChoice::Refit { l2, rounds } => (Some(l2), rounds),
        WeightChoice::Votes { rounds } => (None, rounds),
        WeightChoice::Pruned { .. } => unreachable!("fitted by pruned_refit"),
    };
    let boosters = match (rounds, long) {
        (Some(t), Some(long)) => choose::prefix(&long, t),
        (Some(t), None) => {
            let boost_p = Params { validation_folds: 0, rounds: Some(t), ..p.clone() };
            boost_all(&ctx.inputs, rows, labels, n_classes, &boost_p, ctx.seed, tick)?
        }
        (None, _) => boost_all(&ctx.inputs, rows, labels, n_classes, p, ctx.seed, tick)?,
    };
    let refitted = l2.map(|l2| {
        let features = booster_features(&boosters);
        let support = class_support(&boosters, &features);
        let unit = refit(features, Some(&support), rows, labels, n_classes, l2, ctx.seed);
        tick();
        unit
    });
    Ok((boosters, refitted))
}

/// The training rows `raw` whose class the exported integer unit decides differently from the
/// real-valued hypothesis ([`SparsePerceptron::predict`]).
fn changed_rows(model: &SparsePerceptron, raw: &[Vec<i32>]) -> Vec<usize> {
    let mut changed = Vec::new();
    let mut values = vec![0; model.spec.features.len()];
    let Structure::Linear(u) = model.spec.structure else { unreachable!("export builds a linear model") };
    for (i, x) in raw.iter().enumerate() {
        for (v, f) in values.iter_mut().zip(&model.spec.features) {
            *v = f.value(x);
        }
        if model.spec.units[u].decide(&values) != model.predict(x) {
            changed.push(i);
        }
    }
    changed
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
    /// Kind of the stored weights (`"I8"`, `"I16"`, ...).
    pub weight_kind: WeightKind,
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
    /// Why it stopped (`"Rounds"`, `"Consistent"`, `"NoWeakHypothesis"`).
    pub stop: Stop,
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
                    stop: b.stop,
                })
                .collect(),
            weight_scale: model.quantization.scale,
            quantization_changed_rows: model.quantization.changed_rows.len(),
            weight_fit: if model.refit.is_some() { WeightFit::Logistic } else { WeightFit::Boost }
                .to_string(),
            weight_l2: model.refit.as_ref().map(|r| r.l2),
            conjunctions: if model.boosters.is_empty() { "all" } else { "boosting" }.to_string(),
            weight_kind: model.quantization.kind,
        };
        Ok((model, report))
    }

    fn to_spec(model: &SparsePerceptron) -> ModelSpec {
        model.spec.clone()
    }

    /// Fewer boosting rounds: 64, 32, 16, 8, 4, 2 and 1 (below any limit already set). Then
    /// exactly 8, 4, 2 and 1 rounds with no boosting beyond them ([`Params::refit_rounds`] 0,
    /// no inner cross-validation: the budget's own validation chooses), the last also with
    /// one-literal conjunctions: the fewest terms the model can have.
    fn ladder(p: &Params) -> Vec<Params> {
        let fewer = [64, 32, 16, 8, 4, 2, 1]
            .into_iter()
            .filter(|&r| p.rounds.is_none_or(|cap| r < cap))
            .map(|r| Params { rounds: Some(r), ..p.clone() });
        let exact = Params { refit_rounds: 0, validation_folds: 0, ..p.clone() };
        let fewest = Params { rounds: Some(1), max_literals: 1, ..exact.clone() };
        let exact = [8, 4, 2, 1]
            .into_iter()
            .filter(|&r| p.rounds.is_none_or(|cap| r <= cap))
            .map(move |r| Params { rounds: Some(r), ..exact.clone() });
        let mut ladder: Vec<Params> = fewer.chain(exact).chain([fewest]).filter(|q| q != p).collect();
        ladder.dedup();
        ladder
    }
}
