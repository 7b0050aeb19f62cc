//! The training pipeline shared by every algorithm: learn (within budgets), choose the weight
//! representation, export, and prove the runtime agrees.

use super::learner::{Context, Fit, TrainError};
use super::registry::{Algo, Options, Report};
use crate::data::encode;
use crate::model::{ExportError, Host, ModelSpec, WeightKind};

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

    /// The model's inputs of one row of raw training-data columns.
    pub fn project(&self, columns: &[i32]) -> Vec<i32> {
        self.columns.iter().map(|&c| columns[c]).collect()
    }

    /// The model's inputs of every row of `data` (same columns as the training data).
    pub fn rows(&self, data: &crate::data::Dataset) -> Vec<Vec<i32>> {
        encode::raw_rows(&self.encoding, data).iter().map(|x| self.project(x)).collect()
    }
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
    trained.report = Some(report);
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
    let split = crate::data::split::train_test_split_stratified(&data.y, ctx.n_classes(), 0.25, ctx.seed);
    let mut scores: Vec<Option<f64>> = vec![None; candidates.len()];
    if let Ok((fit_rows, val_rows)) = split {
        let fit_data = data.subset(&fit_rows);
        let val_data = data.subset(&val_rows);
        let mut fit_ctx = Context::new(&fit_data, ctx.seed, ctx.weight_kind);
        fit_ctx.pipeline.clone_from(&ctx.pipeline);
        fit_ctx.window_len = ctx.window_len;
        for (i, c) in candidates.iter().enumerate() {
            let Ok(t) = train_one(algo, &fit_ctx, c, with_names) else { continue };
            if !budget.allows(t.device_bytes, t.device_macs()) {
                continue;
            }
            let raw = t.rows(&val_data);
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
            Ok(mut t) if budget.allows(t.device_bytes, t.device_macs()) => {
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
