//! The training pipeline shared by every algorithm: encode the data, learn, choose the weight
//! representation, export, and prove the runtime agrees.

use std::fmt;

use crate::encode;
use crate::export::{ExportError, Host, ModelSpec, WeightKind};

pub use crate::learner::{Context, Fit, Learner, TrainError};

/// The registry: one line per learner — the `Algo` variant, the [`Learner`] type, and the field
/// of [`Options`] that holds its parameters. The command line's `--algo` values, their help,
/// dispatch and the benchmarks' list of learners all come from here; a learner that is not
/// registered is not offered anywhere.
macro_rules! registry {
    ($( $(#[$doc:meta])* $variant:ident => $learner:ty, $field:ident; )*) => {
        /// A learning algorithm, by its command-line name (see the registry in `algo.rs`).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
        #[serde(rename_all = "lowercase")]
        pub enum Algo {
            $( $(#[$doc])* $variant, )*
        }

        impl Algo {
            /// Every registered learner, in registry order.
            pub const ALL: &'static [Algo] = &[$(Algo::$variant),*];

            /// The command-line name.
            pub fn name(self) -> &'static str {
                match self { $(Algo::$variant => <$learner as Learner>::NAME,)* }
            }

            /// One line about the learner.
            pub fn about(self) -> &'static str {
                match self { $(Algo::$variant => <$learner as Learner>::ABOUT,)* }
            }

            /// `opts`, then the settings of the learner's [`Learner::ladder`] in `opts`, richest
            /// first.
            pub fn candidates(self, opts: &Options) -> Vec<Options> {
                match self {
                    $(Algo::$variant => std::iter::once(opts.clone())
                        .chain(<$learner as Learner>::ladder(&opts.$field).into_iter().map(|p| {
                            let mut o = opts.clone();
                            o.$field = p;
                            o
                        }))
                        .collect(),)*
                }
            }

            /// Checks this learner's options in `opts` and learns.
            ///
            /// # Errors
            /// As [`Learner::check`] and [`Learner::fit`].
            pub fn fit(self, ctx: &Context<'_>, opts: &Options) -> Result<Fit, TrainError> {
                match self { $(Algo::$variant => crate::learner::fit::<$learner>(ctx, &opts.$field),)* }
            }
        }
    };
}

registry! {
    /// Perceptron tree (Utgoff 1989).
    Ptree => crate::perceptron_tree::Ptree, ptree;
    /// Neural decision list (Marchand & Golea 1993).
    Ndl => crate::decision_list::Ndl, ndl;
    /// Halfspace intersection by greedy set covering (Marchand & Golea 1993, section 3).
    Hsi => crate::decision_list::Hsi, ndl;
    /// Sparse perceptron by boosting (Jackson & Craven 1996).
    Sparse => crate::sparse_perceptron::Sparse, sparse;
    /// Multivariate (oblique) tree with neural-network splits (Yildiz & Alpaydin).
    Oblique => crate::oblique::Oblique, oblique;
    /// FRINGE: a decision tree that constructs its own conjunction features (Pagallo 1989).
    Fringe => crate::fringe::FringeLearner, fringe;
}

impl fmt::Display for Algo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Algo {
    type Err = crate::names::UnknownName;

    /// The learner whose [`Algo::name`] is `s`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Algo::ALL.iter().copied().find(|a| a.name() == s).ok_or_else(|| crate::names::UnknownName {
            what: "algorithm",
            given: s.to_string(),
            expected: Algo::ALL.iter().map(|a| a.name()).collect(),
        })
    }
}

/// Options of every algorithm.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Options {
    /// Perceptron tree options.
    pub ptree: crate::perceptron_tree::Params,
    /// Neural decision list / halfspace intersection options.
    pub ndl: crate::decision_list::Params,
    /// Sparse perceptron options.
    pub sparse: crate::sparse_perceptron::Params,
    /// Oblique tree options.
    pub oblique: crate::oblique::Params,
    /// FRINGE options.
    pub fringe: crate::fringe::Params,
    /// Device budgets every learner honors (see [`Budget`]).
    pub budget: Budget,
}

/// Device budgets: a model is never returned over them. Within them [`train`] picks the most
/// accurate of the learner's candidate settings ([`Algo::candidates`]) on a seeded, stratified
/// quarter of the training rows held out for validation, then retrains it on every row.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Budget {
    /// Most bytes of the model file a device stores: without its host block (names, input scales,
    /// metadata), as `ltu train --strip` writes it.
    pub max_bytes: Option<usize>,
    /// Most multiply-accumulates of one prediction on its worst path.
    pub max_macs: Option<u64>,
}

impl Budget {
    /// Whether any budget is set.
    pub fn is_set(&self) -> bool {
        self.max_bytes.is_some() || self.max_macs.is_some()
    }

    /// Whether `t` is within every set budget.
    pub fn allows(&self, t: &Trained) -> bool {
        self.max_bytes.is_none_or(|b| t.device_bytes <= b)
            && self.max_macs.is_none_or(|m| t.spec.stats().max_macs <= m)
    }
}

/// How a budget was met, for reports.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct BudgetChoice {
    /// Candidate settings the learner offered (its options, then its ladder).
    pub candidates: usize,
    /// Which one was kept (0: the options as given).
    pub chosen: usize,
    /// Validation accuracy of each candidate within the budget (`null`: over it or failed).
    pub validation_accuracy: Vec<Option<f64>>,
}

/// A trained, exported and verified model.
#[derive(Debug, Clone)]
pub struct Trained {
    /// What the learner reported (its [`Learner::Report`] as JSON).
    pub report: serde_json::Value,
    /// How the device budget was met, if one was set.
    pub budget: Option<BudgetChoice>,
    /// The model.
    pub spec: ModelSpec,
    /// Its file bytes (runtime format, with a host block: input scales, names unless left out).
    pub bytes: Vec<u8>,
    /// Bytes of the file a device needs: the model without its host block (`ltu train --strip`).
    /// Budgets count these.
    pub device_bytes: usize,
    /// Accuracy of the exported model on the training data.
    pub train_accuracy: f64,
    /// Units whose weights had to be scaled down to fit the weight kind.
    pub rescaled_units: usize,
    /// Training accuracy before that scaling, when some unit was scaled.
    pub accuracy_before_rescale: Option<f64>,
}

/// Learns a model with `algo`, then finishes it with [`finish`].
///
/// # Errors
/// [`TrainError`] for bad options, export failures or a disagreement between trainer and runtime.
pub fn train(algo: Algo, ctx: &Context<'_>, opts: &Options, with_names: bool) -> Result<Trained, TrainError> {
    if opts.budget.is_set() {
        return train_within_budget(algo, ctx, opts, with_names);
    }
    train_one(algo, ctx, opts, with_names)
}

fn train_one(algo: Algo, ctx: &Context<'_>, opts: &Options, with_names: bool) -> Result<Trained, TrainError> {
    let Fit { spec, report } = algo.fit(ctx, opts)?;
    let mut trained = finish(spec, ctx, with_names)?;
    trained.report = report;
    Ok(trained)
}

/// [`train`] under [`Options::budget`]: every candidate setting trained on three quarters of the
/// rows (stratified, seeded) and scored on the rest; the most accurate one within the budget
/// (ties: the cheaper) retrained on every row; if that model is over the budget after all, the
/// next cheaper candidates in turn.
fn train_within_budget(
    algo: Algo,
    ctx: &Context<'_>,
    opts: &Options,
    with_names: bool,
) -> Result<Trained, TrainError> {
    let budget = opts.budget;
    let candidates = algo.candidates(opts);
    let data = ctx.data;
    let split = crate::split::train_test_split_stratified(&data.y, ctx.n_classes(), 0.25, ctx.seed);
    let mut scores: Vec<Option<f64>> = vec![None; candidates.len()];
    if let Ok((fit_rows, val_rows)) = split {
        let fit_data = data.subset(&fit_rows);
        let val_data = data.subset(&val_rows);
        let fit_ctx = Context::new(&fit_data, ctx.seed, ctx.weight_kind);
        for (i, c) in candidates.iter().enumerate() {
            let Ok(t) = train_one(algo, &fit_ctx, c, with_names) else { continue };
            if !budget.allows(&t) {
                continue;
            }
            let raw = encode::raw_rows(&t.spec.inputs, &val_data);
            let correct = raw.iter().zip(&val_data.y).filter(|(x, &y)| t.spec.predict(x) == y).count();
            scores[i] = Some(correct as f64 / raw.len().max(1) as f64);
        }
    }
    // Best validation accuracy first (later, cheaper candidates win ties), then the untried rest
    // from the richest; a candidate is kept only if its model on every row fits.
    let mut order: Vec<usize> = (0..candidates.len()).filter(|&i| scores[i].is_some()).collect();
    order.sort_by(|&a, &b| {
        scores[b].partial_cmp(&scores[a]).unwrap_or(std::cmp::Ordering::Equal).then(b.cmp(&a))
    });
    order.extend((0..candidates.len()).filter(|&i| scores[i].is_none()));
    let mut last_error = None;
    for &i in &order {
        match train_one(algo, ctx, &candidates[i], with_names) {
            Ok(mut t) if budget.allows(&t) => {
                t.budget = Some(BudgetChoice {
                    candidates: candidates.len(),
                    chosen: i,
                    validation_accuracy: scores.clone(),
                });
                return Ok(t);
            }
            Ok(_) => {}
            Err(e) => last_error = Some(e),
        }
    }
    Err(TrainError::InvalidOption(format!(
        "no {algo} model fits the budget ({}{}) among its {} candidate settings{}",
        budget.max_bytes.map_or(String::new(), |b| format!("at most {b} bytes")),
        budget.max_macs.map_or(String::new(), |m| format!(
            "{}at most {m} multiply-accumulates",
            if budget.max_bytes.is_some() { ", " } else { "" }
        )),
        candidates.len(),
        last_error.map_or(String::new(), |e| format!(" (last failure: {e})"))
    )))
}

/// Reduces a tree model ([`crate::reduce::reduce_tree`]: the same predictions in fewer nodes),
/// chooses the weight kind (the requested one, else the smallest integer kind that fits),
/// rescales units that do not fit, attaches names, exports, reloads the bytes through the
/// runtime and checks that the runtime predicts exactly what the trainer's reference evaluator
/// predicts on every training row.
///
/// # Errors
/// [`TrainError::Export`] or [`TrainError::Disagreement`].
pub fn finish(mut spec: ModelSpec, ctx: &Context<'_>, with_names: bool) -> Result<Trained, TrainError> {
    crate::reduce::reduce_tree(&mut spec);
    let kind = match ctx.weight_kind {
        Some(WeightKind::Fixed) if spec.weight_kind != WeightKind::Fixed => {
            // Integer weights become I16F16 bits.
            for u in &mut spec.units {
                for row in &mut u.rows {
                    for w in row.iter_mut() {
                        *w = w.saturating_mul(1 << 16);
                    }
                }
            }
            WeightKind::Fixed
        }
        Some(k) => k,
        None => spec.smallest_integer_kind().unwrap_or(WeightKind::I32),
    };
    let correct =
        |spec: &ModelSpec| ctx.raw.iter().zip(ctx.labels()).filter(|(x, &y)| spec.predict(x) == y).count();
    let (rescaled_units, accuracy_before_rescale) = if spec.fits(kind) {
        spec.weight_kind = kind;
        (0, None)
    } else {
        let before = correct(&spec) as f64 / ctx.raw.len().max(1) as f64;
        (spec.rescale(kind), Some(before))
    };
    spec.names = with_names.then(|| encode::names(&ctx.data.schema));
    let bytes = spec.to_bytes()?;
    let device_bytes = spec.to_bytes_with(&Host { strip: true, meta: None })?.len();
    let model = ltu_runtime::Model::from_bytes(&bytes).map_err(ExportError::Rejected)?;
    let mut correct = 0;
    for (row, (x, &y)) in ctx.raw.iter().zip(ctx.labels()).enumerate() {
        let want = spec.predict(x);
        match model.predict(x) {
            Ok(got) if got == want => {}
            other => {
                return Err(TrainError::Disagreement { row, trainer: want, runtime: format!("{other:?}") });
            }
        }
        correct += usize::from(want == y);
    }
    let train_accuracy = correct as f64 / ctx.raw.len().max(1) as f64;
    // The model as its file stores it: what budgets, costs and reports describe. Export stores a
    // unit dense (over every standard feature, zero weights included, which the runtime
    // multiplies too) where that takes fewer bytes than listing its terms.
    let spec = ModelSpec::from_model(&model);
    Ok(Trained {
        report: serde_json::Value::Null,
        budget: None,
        spec,
        bytes,
        device_bytes,
        train_accuracy,
        rescaled_units,
        accuracy_before_rescale,
    })
}
