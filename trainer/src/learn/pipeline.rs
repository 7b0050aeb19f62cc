//! The training pipeline shared by every algorithm: learn (within budgets), choose the weight
//! representation, export, and prove the runtime agrees.

use super::learner::{Context, Fit, TrainError};
use super::registry::{Algo, AlgoChoice, DeviceCost, Options, Report};
use crate::data::encode;
use crate::model::{ExportError, Host, ModelSpec, WeightKind};

/// One candidate setting a choice compared ([`BudgetChoice`]).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Candidate {
    /// Its learner.
    pub algo: Algo,
    /// Its place among the learner's candidate settings ([`Algo::candidates`]; 0: the options
    /// as given).
    pub setting: usize,
    /// Its validation accuracy (`null`: its model on some fold was over a budget, or failed).
    pub validation_accuracy: Option<f64>,
    /// What its model trained on the fitting rows costs (`null`: training failed).
    pub cost: Option<super::DeviceCost>,
}

/// How a model was chosen among candidate settings, for reports: under a budget
/// ([`Options::budget`]) or among learners ([`AlgoChoice::Auto`]).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct BudgetChoice {
    /// Number of candidate settings compared.
    pub candidates: usize,
    /// Which one was kept (an index into `tried`).
    pub chosen: usize,
    /// Training rows each candidate was fitted on (in each fold).
    pub fit_rows: usize,
    /// Held-out training rows they were scored on (over every fold).
    pub validation_rows: usize,
    /// Folds of the validation: 1 for one held-out quarter, more for k-fold validation on small
    /// training sets (up to 2,000 rows).
    pub folds: usize,
    /// Every candidate, in the order tried: each learner's settings richest first.
    pub tried: Vec<Candidate>,
}

/// A trained, exported and verified model.
#[derive(Debug, Clone)]
pub struct Trained {
    /// The learner that learned the model (`None` for a model finished without a learner,
    /// [`finish`]).
    pub algo: Option<Algo>,
    /// What the learner reported (`None` for a model finished without a learner, [`finish`]).
    pub report: Option<Report>,
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
    /// The column of the training data each model input reads, in input order: every column,
    /// unless the model reads window features and kept only those it uses ([`Context::pipeline`]).
    pub columns: Vec<usize>,
    /// What computing the model's window statistics costs per window, for a model with a
    /// pipeline ([`Context::pipeline`]).
    pub extraction: Option<crate::model::Extraction>,
    /// How the training data's columns were encoded ([`Context::inputs`]): what [`Trained::rows`]
    /// encodes other data with.
    pub encoding: Vec<crate::model::InputSpec>,
}

impl Trained {
    /// Multiply-accumulates of one prediction on the device, worst case: the model's on its most
    /// expensive path plus those of computing its window statistics. What `--max-macs` bounds.
    pub fn device_macs(&self) -> u64 {
        self.spec.stats().max_macs + self.extraction.map_or(0, |e| e.macs)
    }

    /// What the model costs on a device, as budgets count it: stored bytes, worst-case
    /// multiply-accumulates ([`Trained::device_macs`]) and Cortex-M3 instructions (the most
    /// essential work of a prediction plus its window statistics' instructions).
    pub fn device_cost(&self) -> DeviceCost {
        DeviceCost {
            bytes: self.device_bytes,
            macs: self.device_macs(),
            instructions: self.spec.max_essential_work() + self.extraction.map_or(0, |e| e.instructions),
        }
    }

    /// The model's inputs of one row of raw training-data columns.
    pub fn project(&self, columns: &[i32]) -> Vec<i32> {
        self.columns.iter().map(|&c| columns[c]).collect()
    }

    /// The model's inputs of every row of `data` (same columns as the training data).
    pub fn rows(&self, data: &crate::data::Dataset) -> Vec<Vec<i32>> {
        encode::raw_rows(&self.encoding, data).iter().map(|x| self.project(x)).collect()
    }
}

/// Learns a model with `algo`, then finishes it with [`finish`]; under [`Options::budget`] the
/// most accurate of its candidate settings within the budget ([`train_choice`]).
///
/// # Errors
/// [`TrainError`] for bad options, export failures, a disagreement between trainer and runtime,
/// or a budget that not even a model of one class meets.
pub fn train(algo: Algo, ctx: &Context<'_>, opts: &Options, with_names: bool) -> Result<Trained, TrainError> {
    train_choice(AlgoChoice::One(algo), ctx, opts, with_names)
}

/// At most this many training rows fit the candidates of [`AlgoChoice::Auto`] (a stratified,
/// seeded sample of the three quarters not held out), so that comparing every learner's
/// settings stays affordable on 10^5 rows; the chosen one is then trained on every row.
pub const AUTO_FIT_ROWS: usize = 5_000;

/// Trains what `choice` names: one learner ([`AlgoChoice::One`]), without a budget with its
/// options as given; under [`Options::budget`] or for [`AlgoChoice::Auto`], the most accurate
/// candidate ([`Candidate`]) — every learner's settings ([`Algo::candidates`]) under a budget,
/// each learner's options as given without one — scored by validation (`selection_splits`:
/// k-fold on small training sets, else fitted on three quarters of the rows, for `Auto` at most
/// [`AUTO_FIT_ROWS`] of them, and scored on the rest), then retrained on every row. Ties go to
/// the fewer device bytes, then the later (cheaper) setting. A retrained model over the budget
/// gives way to the next best candidate.
///
/// # Errors
/// As [`train`]; when no candidate fits the budget, the error names the smallest model's cost.
pub fn train_choice(
    choice: AlgoChoice,
    ctx: &Context<'_>,
    opts: &Options,
    with_names: bool,
) -> Result<Trained, TrainError> {
    match choice {
        AlgoChoice::One(algo) if !opts.budget.is_set() => train_one(algo, ctx, opts, with_names),
        _ => train_selected(choice, ctx, opts, with_names),
    }
}

fn train_one(algo: Algo, ctx: &Context<'_>, opts: &Options, with_names: bool) -> Result<Trained, TrainError> {
    let Fit { spec, report } = algo.fit(ctx, opts)?;
    let mut trained = finish(spec, ctx, with_names)?;
    trained.report = Some(report);
    trained.algo = Some(algo);
    Ok(trained)
}

/// Training sets of at most this many rows score the candidates of [`train_choice`] by
/// [`SELECTION_FOLDS`]-fold stratified validation, every row validated once; larger ones on one
/// stratified quarter. On a few hundred rows one quarter's accuracy varies by several points
/// with the split, and the most accurate of dozens of candidates on it is mostly the luckiest:
/// on vehicle (846 rows, `--max-bytes 600`) one quarter chose trees that lost 0.7 points in
/// 10-fold cross-validation once the ladder offered more of them.
const SELECTION_FOLD_ROWS: usize = 2_000;

/// Folds of the validation that chooses among candidates on small training sets
/// ([`SELECTION_FOLD_ROWS`]).
const SELECTION_FOLDS: usize = 4;

/// The `(fit, validation)` row sets that score the candidates of `choice`: the stratified folds
/// of [`SELECTION_FOLDS`]-fold validation on up to [`SELECTION_FOLD_ROWS`] rows, else one
/// stratified split with a quarter held out (for [`AlgoChoice::Auto`] the fitting part cut to
/// [`AUTO_FIT_ROWS`]). Seeded by the context; empty when the rows cannot be split.
fn selection_splits(
    choice: AlgoChoice,
    data: &crate::data::Dataset,
    ctx: &Context<'_>,
) -> Vec<(Vec<usize>, Vec<usize>)> {
    let n_classes = ctx.n_classes();
    if data.y.len() <= SELECTION_FOLD_ROWS {
        if let Ok(folds) = crate::data::split::stratified_kfold(&data.y, n_classes, SELECTION_FOLDS, ctx.seed)
        {
            return folds
                .into_iter()
                .map(|fold| (crate::data::split::complement(&fold, data.y.len()), fold))
                .collect();
        }
    }
    let Ok((mut fit_rows, val_rows)) =
        crate::data::split::train_test_split_stratified(&data.y, n_classes, 0.25, ctx.seed)
    else {
        return Vec::new();
    };
    if choice == AlgoChoice::Auto && fit_rows.len() > AUTO_FIT_ROWS {
        let y: Vec<usize> = fit_rows.iter().map(|&r| data.y[r]).collect();
        let keep = AUTO_FIT_ROWS as f64 / fit_rows.len() as f64;
        if let Ok((_, sample)) =
            crate::data::split::train_test_split_stratified(&y, n_classes, keep, ctx.seed ^ 0x5eed)
        {
            fit_rows = sample.iter().map(|&i| fit_rows[i]).collect();
        }
    }
    vec![(fit_rows, val_rows)]
}

/// [`train_choice`] by validation among candidates.
fn train_selected(
    choice: AlgoChoice,
    ctx: &Context<'_>,
    opts: &Options,
    with_names: bool,
) -> Result<Trained, TrainError> {
    let budget = opts.budget;
    let candidates: Vec<(Algo, usize, Options)> = choice
        .algos()
        .into_iter()
        .flat_map(|algo| {
            let settings = if budget.is_set() { algo.candidates(opts) } else { vec![opts.clone()] };
            settings.into_iter().enumerate().map(move |(i, o)| (algo, i, o))
        })
        .collect();
    let data = ctx.data;
    let mut tried: Vec<Candidate> = candidates
        .iter()
        .map(|(algo, setting, _)| Candidate {
            algo: *algo,
            setting: *setting,
            validation_accuracy: None,
            cost: None,
        })
        .collect();
    let splits = selection_splits(choice, data, ctx);
    let (fit_n, val_n) =
        (splits.first().map_or(0, |s| s.0.len()), splits.iter().map(|s| s.1.len()).sum::<usize>());
    // Per candidate: correct predictions over every split's validation rows; `None` while no
    // split's model fitted. A candidate whose model on one split is over the budget is out: it is
    // not validated (its setting does not reliably fit) and not fitted on the later splits, which
    // spares the richest settings of a ladder, the slowest to fit, three of their four fits.
    let mut correct: Vec<Option<usize>> = vec![None; candidates.len()];
    let mut over = vec![false; candidates.len()];
    let n = (candidates.len() * splits.len()) as u64;
    for (s, (fit_rows, val_rows)) in splits.iter().enumerate() {
        let fit_data = data.subset(fit_rows);
        let val_data = data.subset(val_rows);
        let mut fit_ctx = Context::new(&fit_data, ctx.seed, ctx.weight_kind);
        fit_ctx.pipeline.clone_from(&ctx.pipeline);
        fit_ctx.window_len = ctx.window_len;
        for (i, (algo, _, c)) in candidates.iter().enumerate() {
            (ctx.progress)((s * candidates.len() + i) as u64, n);
            if over[i] {
                continue;
            }
            let Ok(t) = train_one(*algo, &fit_ctx, c, with_names) else { continue };
            let cost = t.device_cost();
            // The first split whose model trained stands for the candidate's cost in reports.
            tried[i].cost.get_or_insert(cost);
            if !budget.allows(&cost) {
                over[i] = true;
                correct[i] = None;
                continue;
            }
            let raw = t.rows(&val_data);
            *correct[i].get_or_insert(0) +=
                raw.iter().zip(&val_data.y).filter(|(x, &y)| t.spec.predict(x) == y).count();
        }
    }
    (ctx.progress)(n, n);
    for (c, right) in tried.iter_mut().zip(&correct) {
        c.validation_accuracy = right.map(|k| k as f64 / val_n.max(1) as f64);
    }
    // Best validation accuracy first (ties: fewer bytes, then the later, cheaper setting),
    // then the untried rest in order; a candidate is kept only if its model on every row fits.
    let key = |i: usize| (tried[i].validation_accuracy, tried[i].cost.map_or(usize::MAX, |c| c.bytes));
    let mut order: Vec<usize> =
        (0..candidates.len()).filter(|&i| tried[i].validation_accuracy.is_some()).collect();
    order.sort_by(|&a, &b| {
        let ((acc_a, bytes_a), (acc_b, bytes_b)) = (key(a), key(b));
        acc_b
            .partial_cmp(&acc_a)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(bytes_a.cmp(&bytes_b))
            .then(b.cmp(&a))
    });
    order.extend((0..candidates.len()).filter(|&i| tried[i].validation_accuracy.is_none()));
    let mut last_error = None;
    let mut smallest: Option<DeviceCost> = None;
    for &i in &order {
        let (algo, _, c) = &candidates[i];
        match train_one(*algo, ctx, c, with_names) {
            Ok(mut t) if budget.allows(&t.device_cost()) => {
                t.budget = Some(BudgetChoice {
                    candidates: candidates.len(),
                    chosen: i,
                    fit_rows: fit_n,
                    validation_rows: val_n,
                    folds: splits.len(),
                    tried,
                });
                return Ok(t);
            }
            Ok(t) => {
                let cost = t.device_cost();
                if smallest.is_none_or(|s| cost.bytes < s.bytes) {
                    smallest = Some(cost);
                }
            }
            Err(e) => last_error = Some(e),
        }
    }
    let what = match choice {
        AlgoChoice::One(algo) => format!("{algo} model"),
        AlgoChoice::Auto => "model of any learner".into(),
    };
    Err(TrainError::InvalidOption(format!(
        "no {what} fits the budget ({budget}) among {} candidate settings{}{}",
        candidates.len(),
        smallest.map_or(String::new(), |s| format!(
            "; the smallest takes {} bytes, {} multiply-accumulates and {} instructions",
            s.bytes, s.macs, s.instructions
        )),
        last_error.map_or(String::new(), |e| format!(" (last failure: {e})"))
    )))
}

/// Reduces a tree model ([`crate::model::reduce_tree`]: the same predictions in fewer nodes),
/// keeps only the inputs it reads when they are window features ([`Context::pipeline`]; the
/// model then carries that pipeline), chooses the weight kind (the requested one, else the smallest integer kind that fits),
/// rescales units that do not fit, attaches names, exports, reloads the bytes through the
/// runtime and checks that the runtime predicts exactly what the trainer's reference evaluator
/// predicts on every training row.
///
/// # Errors
/// [`TrainError::Export`] or [`TrainError::Disagreement`].
pub fn finish(mut spec: ModelSpec, ctx: &Context<'_>, with_names: bool) -> Result<Trained, TrainError> {
    crate::model::reduce_tree(&mut spec);
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
    let columns = match &ctx.pipeline {
        Some(pipeline) => {
            spec.pipeline = Some(pipeline.clone());
            crate::model::drop_unused_inputs(&mut spec)
        }
        None => (0..spec.inputs.len()).collect(),
    };
    let bytes = spec.to_bytes()?;
    let device_bytes = spec.to_bytes_with(&Host { strip: true, meta: None })?.len();
    let model = ltu_runtime::Model::from_bytes(&bytes).map_err(ExportError::Rejected)?;
    let mut correct = 0;
    for (row, (x, &y)) in ctx.raw.iter().zip(ctx.labels()).enumerate() {
        let x: Vec<i32> = columns.iter().map(|&c| x[c]).collect();
        let want = spec.predict(&x);
        match model.predict(&x) {
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
    let extraction = spec.pipeline.as_ref().map(|p| p.extraction(ctx.window_len));
    Ok(Trained {
        algo: None,
        report: None,
        budget: None,
        spec,
        bytes,
        device_bytes,
        train_accuracy,
        rescaled_units,
        accuracy_before_rescale,
        extraction,
        columns,
        encoding: ctx.inputs.clone(),
    })
}
